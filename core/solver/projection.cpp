// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/solver/projection.hpp"

#include "core/dae/seeding.hpp"
#include "core/solver/sundials_raii.hpp"

#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>
#include <span>

namespace endstop::core::solver {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

using Constraint = ProjectionWorkspace::Constraint;

bool isNode(const dae::DaeSystem& sys, int u) { return sys.unknowns[at(u)].kind == dae::Unknown::Kind::Node; }

void addTo(std::vector<std::pair<int, double>>& gradient, int u, double d) {
    for (auto& [v, g] : gradient)
        if (v == u) {
            g += d;
            return;
        }
    gradient.emplace_back(u, d);
}

// C(v-) and dC/dv (node velocities only) for the constraint rows of one block, appended to the
// workspace's constraints; those without a gradient are dropped.
void constraintRows(const dae::DaeSystem& sys, dae::Evaluator& ev, int bi, const dae::State& s,
                    ProjectionWorkspace& ws) {
    const dae::Binding& b = sys.bindings[at(bi)];
    const Block& blk = *sys.topo.blocks[at(bi)].block;
    const int ns = static_cast<int>(b.slot().size());
    const std::size_t first = ws.count;
    for (const int v : ws.vars) {
        if (ws.count == ws.constraints.size()) ws.constraints.emplace_back();
        Constraint& c = ws.constraints[ws.count++];
        c.block = bi;
        c.var = v;
        c.value = 0.0;
        c.gradient.clear();
    }
    auto& w = ev.jets();
    dae::forEachJetPass(ns, [&](const dae::JetPass& pass) {
        Eq<Jet> eq = ev.prepare(
            w, bi, s,
            [&](int k, double y, double d, Jet& yo, Jet& dout) {
                yo = pass.seed(y, k);
                dout = Jet(d);
            },
            [](double t) { return Jet(t); });
        if (blk.hasImpulseRows())
            blk.impulseRows(eq);
        else
            blk.eval(eq);
        for (std::size_t i = 0; i < ws.vars.size(); ++i) {
            const Jet& r = w.res[at(ws.vars[i])];
            Constraint& c = ws.constraints[first + i];
            c.value = r.v;
            pass.derivatives(r, [&](int k, double d) {
                const int u = b.slot()[at(k)];
                if (d != 0.0 && isNode(sys, u)) addTo(c.gradient, u, d);
            });
        }
    });
    std::size_t kept = first;   // the constraints with a gradient, in order (swapped: no copies)
    for (std::size_t i = first; i < ws.count; ++i)
        if (!ws.constraints[i].gradient.empty()) {
            if (i != kept) std::swap(ws.constraints[i], ws.constraints[kept]);
            ++kept;
        }
    ws.count = kept;
}

// the dense system of size n, zeroed: the one kept for that size, or a new one in place of the
// least recently used when kKeptSystems are kept
constexpr std::size_t kKeptSystems = 4;
ProjectionWorkspace::System& prepareSystem(ProjectionWorkspace& ws, int n, SUNContext ctx) {
    auto& list = ws.systems;
    auto it = std::find_if(list.begin(), list.end(), [n](const auto& sys) { return sys.size == n; });
    if (it == list.end()) {
        ProjectionWorkspace::System sys;
        sys.A.reset(SUNDenseMatrix(n, n, ctx));
        if (!sys.A) throw std::bad_alloc();
        sys.x = makeVector(n, ctx);
        sys.rhs = makeVector(n, ctx);
        sys.ls.reset(SUNLinSol_Dense(sys.x.get(), sys.A.get(), ctx));
        if (!sys.ls || SUNLinSolInitialize(sys.ls.get()) != 0) throw std::bad_alloc();
        sys.size = n;
        if (list.size() == kKeptSystems) list.pop_back();
        list.insert(list.begin(), std::move(sys));
    } else if (it != list.begin()) {
        std::rotate(list.begin(), it, it + 1);
    }
    ProjectionWorkspace::System& sys = list.front();
    SUNMatZero(sys.A.get());
    N_VConst(0.0, sys.rhs.get());
    return sys;
}

}   // namespace

ProjectionResult project(const dae::DaeSystem& sys, dae::Evaluator& ev, const dae::State& current,
                         const double* vBefore, double* y, SUNContext ctx, ProjectionWorkspace& ws,
                         const std::vector<char>& changed) {
    ProjectionResult result;
    ws.count = 0;
    // evaluate at the pre-event node velocities with today's signals (made once a block makes
    // constraints in its modes: none, nothing to project and no copy made)
    bool copied = false;
    const dae::State s{current.t, nullptr, current.yp, current.discrete};
    for (const int bi : sys.impulsiveBlocks) {
        if (sys.topo.blocks[at(bi)].block->holdsByFriction() && changed[at(bi)] == 0) continue;
        ws.vars = dae::constraintForces(sys, bi, current.discrete);
        if (ws.vars.empty()) continue;
        if (!copied) {
            ws.yRef.assign(current.y, current.y + sys.size());
            for (int u = 0; u < sys.size(); ++u)
                if (isNode(sys, u)) ws.yRef[at(u)] = vBefore[u];
            copied = true;
        }
        constraintRows(sys, ev, bi, {s.t, ws.yRef.data(), s.yp, s.discrete}, ws);
    }
    const dae::State sRef{s.t, ws.yRef.data(), s.yp, s.discrete};
    const int nc = static_cast<int>(ws.count);
    result.constraints = nc;
    if (nc == 0) return result;
    const std::span<const Constraint> cons(ws.constraints.data(), ws.count);

    // the node unknowns involved, in ascending order, and their columns
    ws.nodes.clear();
    for (const Constraint& c : cons)
        for (const auto& [u, g] : c.gradient) ws.nodes.push_back(u);
    std::sort(ws.nodes.begin(), ws.nodes.end());
    ws.nodes.erase(std::unique(ws.nodes.begin(), ws.nodes.end()), ws.nodes.end());
    ws.column.resize(at(sys.size()), -1);
    const int nv = static_cast<int>(ws.nodes.size()), n = nv + nc;
    for (int c = 0; c < nv; ++c) ws.column[at(ws.nodes[at(c)])] = c;
    struct ResetColumns {   // all -1 again for the next event, also when an evaluation throws
        ProjectionWorkspace& ws;
        ~ResetColumns() {
            for (const int u : ws.nodes) ws.column[at(u)] = -1;
        }
    } resetColumns{ws};
    auto impulseColumn = [&](int block, int var) {   // the column of a constraint force's impulse, or -1
        for (int i = 0; i < nc; ++i)
            if (cons[at(i)].block == block && cons[at(i)].var == var) return nv + i;
        return -1;
    };

    ProjectionWorkspace::System& system = prepareSystem(ws, n, ctx);
    SUNMatrix A = system.A.get();
    auto a = [&](int r, int c) -> double& { return SUNDenseMatrix_Column(A, c)[r]; };

    // Node rows: inertia (d/dv') and constraint-force coefficients (d/dP) of every block on the
    // nodes involved.
    ws.blocks.clear();
    for (const int u : ws.nodes)
        for (const graph::PortAt& p : sys.topo.nodes[at(sys.unknowns[at(u)].index)].ports) ws.blocks.push_back(p.block);
    std::sort(ws.blocks.begin(), ws.blocks.end());
    ws.blocks.erase(std::unique(ws.blocks.begin(), ws.blocks.end()), ws.blocks.end());
    double maxInertia = 0.0;
    auto& w = ev.jets();
    for (const int bi : ws.blocks) {
        const dae::Binding& b = sys.bindings[at(bi)];
        const Block& blk = *sys.topo.blocks[at(bi)].block;
        const int ns = static_cast<int>(b.slot().size());
        dae::forEachJetPass(ns, [&](const dae::JetPass& pass) {
            Eq<Jet> eq = ev.prepare(
                w, bi, sRef,
                [&](int k, double yv, double d, Jet& yo, Jet& dout) {
                    const int u = b.slot()[at(k)];
                    const bool node = k < b.baseSlots && isNode(sys, u);
                    const bool force = !node && sys.unknowns[at(u)].kind == dae::Unknown::Kind::Own &&
                                       sys.unknowns[at(u)].block == bi &&
                                       impulseColumn(bi, sys.unknowns[at(u)].index) >= 0;
                    yo = force ? pass.seed(yv, k) : Jet(yv);
                    dout = node ? pass.seed(d, k) : Jet(d);
                },
                [](double t) { return Jet(t); });
            blk.eval(eq);
            for (std::size_t p = 0; p < b.portRow().size(); ++p) {
                const int row = b.portRow()[p];   // node rows are numbered like node unknowns
                if (row < 0 || ws.column[at(row)] < 0) continue;
                const int r = ws.column[at(row)];
                pass.derivatives(w.thr[p], [&](int k, double d) {
                    if (d == 0.0) return;
                    const int u = b.slot()[at(k)];
                    int c = -1;
                    if (isNode(sys, u) && ws.column[at(u)] >= 0) {
                        c = ws.column[at(u)];
                        maxInertia = std::max(maxInertia, std::abs(d));
                    } else if (sys.unknowns[at(u)].kind == dae::Unknown::Kind::Own) {
                        c = impulseColumn(bi, sys.unknowns[at(u)].index);
                    }
                    if (c >= 0) a(r, c) += d;
                });
            }
        });
    }
    const double eps = 1e-10 / std::max(maxInertia, 1.0);
    double* rhs = data(system.rhs);
    for (int i = 0; i < nc; ++i) {
        const Constraint& c = cons[at(i)];
        for (const auto& [u, g] : c.gradient) a(nv + i, ws.column[at(u)]) += g;
        a(nv + i, nv + i) -= eps;
        rhs[nv + i] = -c.value;
    }
    const bool solved = SUNLinSolSetup(system.ls.get(), A) == 0 &&
                        SUNLinSolSolve(system.ls.get(), A, system.x.get(), system.rhs.get(), 0.0) == 0;
    if (!solved) return result;
    const double* x = data(system.x);
    for (int i = 0; i < nc; ++i) result.impulses.push_back({cons[at(i)].block, cons[at(i)].var, x[nv + i]});
    for (int c = 0; c < nv; ++c) {
        const int u = ws.nodes[at(c)];
        const double v = vBefore[u] + x[c];
        result.maxChange = std::max(result.maxChange, std::abs(v - y[u]));
        y[u] = v;
    }
    return result;
}

}   // namespace endstop::core::solver
