// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/solver/projection.hpp"

#include "core/dae/seeding.hpp"
#include "core/solver/sundials_raii.hpp"

#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace endstop::core::solver {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

struct Constraint {
    int block;
    int var;                          // own variable carrying the impulse
    double value = 0.0;               // C(v-)
    std::map<int, double> gradient;   // node unknown -> dC/dv
};

bool isNode(const dae::DaeSystem& sys, int u) { return sys.unknowns[at(u)].kind == dae::Unknown::Kind::Node; }

// C(v-) and dC/dv (node velocities only) for the constraint rows of one block.
void constraintRows(const dae::DaeSystem& sys, dae::Evaluator& ev, int bi, const dae::State& s,
                    std::vector<Constraint>& out, const std::vector<int>& vars) {
    const dae::Binding& b = sys.bindings[at(bi)];
    const Block& blk = *sys.topo.blocks[at(bi)].block;
    const int ns = static_cast<int>(b.slot().size());
    const std::size_t first = out.size();
    for (int v : vars) out.push_back({bi, v, 0.0, {}});
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
        for (std::size_t i = 0; i < vars.size(); ++i) {
            const Jet& r = w.res[at(vars[i])];
            Constraint& c = out[first + i];
            c.value = r.v;
            pass.derivatives(r, [&](int k, double d) {
                const int u = b.slot()[at(k)];
                if (d != 0.0 && isNode(sys, u)) c.gradient[u] += d;
            });
        }
    });
    out.erase(std::remove_if(out.begin() + static_cast<long>(first), out.end(),
                             [](const Constraint& c) { return c.gradient.empty(); }),
              out.end());
}

}   // namespace

ProjectionResult project(const dae::DaeSystem& sys, dae::Evaluator& ev, const dae::State& current,
                         const double* vBefore, double* y, SUNContext ctx) {
    // the blocks whose modes make constraints now (none: nothing to project, and no copy made)
    std::vector<std::pair<int, std::vector<int>>> constrained;
    for (int bi : sys.impulsiveBlocks)
        if (std::vector<int> vars = dae::constraintForces(sys, bi, current.discrete); !vars.empty())
            constrained.emplace_back(bi, std::move(vars));
    std::vector<Constraint> cons;
    // evaluate at the pre-event node velocities with today's signals
    std::vector<double> yRef;
    if (!constrained.empty()) {
        yRef.assign(current.y, current.y + sys.size());
        for (int u = 0; u < sys.size(); ++u)
            if (isNode(sys, u)) yRef[static_cast<std::size_t>(u)] = vBefore[u];
    }
    const dae::State s{current.t, yRef.data(), current.yp, current.discrete};
    for (const auto& [bi, vars] : constrained) constraintRows(sys, ev, bi, s, cons, vars);
    ProjectionResult result;
    result.constraints = static_cast<int>(cons.size());
    if (cons.empty()) return result;

    std::map<int, int> nodeCol;   // node unknown -> column
    for (const Constraint& c : cons)
        for (const auto& [u, g] : c.gradient) nodeCol.emplace(u, 0);
    int col = 0;
    for (auto& [u, c] : nodeCol) c = col++;
    const int nv = col, nc = static_cast<int>(cons.size()), n = nv + nc;
    std::map<std::pair<int, int>, int> impulseCol;   // (block, var) -> column
    for (int i = 0; i < nc; ++i) impulseCol[{cons[at(i)].block, cons[at(i)].var}] = nv + i;

    Matrix A(SUNDenseMatrix(n, n, ctx));
    auto a = [&](int r, int c) -> double& { return SUNDenseMatrix_Column(A.get(), c)[r]; };
    NVector x = makeVector(n, ctx), rhs = makeVector(n, ctx);

    // Node rows: inertia (d/dv') and constraint-force coefficients (d/dP) of every block on the
    // nodes involved.
    std::set<int> blocks;
    for (const auto& [u, c] : nodeCol)
        for (const graph::PortAt& p : sys.topo.nodes[at(sys.unknowns[at(u)].index)].ports) blocks.insert(p.block);
    double maxInertia = 0.0;
    auto& w = ev.jets();
    for (int bi : blocks) {
        const dae::Binding& b = sys.bindings[at(bi)];
        const Block& blk = *sys.topo.blocks[at(bi)].block;
        const int ns = static_cast<int>(b.slot().size());
        dae::forEachJetPass(ns, [&](const dae::JetPass& pass) {
            Eq<Jet> eq = ev.prepare(
                w, bi, s,
                [&](int k, double yv, double d, Jet& yo, Jet& dout) {
                    const int u = b.slot()[at(k)];
                    const bool node = k < b.baseSlots && isNode(sys, u);
                    const bool force = !node && sys.unknowns[at(u)].kind == dae::Unknown::Kind::Own &&
                                       sys.unknowns[at(u)].block == bi &&
                                       impulseCol.count({bi, sys.unknowns[at(u)].index});
                    yo = force ? pass.seed(yv, k) : Jet(yv);
                    dout = node ? pass.seed(d, k) : Jet(d);
                },
                [](double t) { return Jet(t); });
            blk.eval(eq);
            for (std::size_t p = 0; p < b.portRow().size(); ++p) {
                if (b.portRow()[p] < 0) continue;
                const auto rowIt = nodeCol.find(b.portRow()[p]);   // node rows are numbered like node unknowns
                if (rowIt == nodeCol.end()) continue;
                pass.derivatives(w.thr[p], [&](int k, double d) {
                    if (d == 0.0) return;
                    const int u = b.slot()[at(k)];
                    int c = -1;
                    if (const auto nc2 = nodeCol.find(u); nc2 != nodeCol.end() && isNode(sys, u)) {
                        c = nc2->second;
                        maxInertia = std::max(maxInertia, std::abs(d));
                    } else if (sys.unknowns[at(u)].kind == dae::Unknown::Kind::Own) {
                        const auto ic = impulseCol.find({bi, sys.unknowns[at(u)].index});
                        if (ic != impulseCol.end()) c = ic->second;
                    }
                    if (c >= 0) a(rowIt->second, c) += d;
                });
            }
        });
    }
    const double eps = 1e-10 / std::max(maxInertia, 1.0);
    for (int i = 0; i < nc; ++i) {
        const Constraint& c = cons[at(i)];
        for (const auto& [u, g] : c.gradient) a(nv + i, nodeCol[u]) += g;
        a(nv + i, nv + i) -= eps;
        data(rhs)[nv + i] = -c.value;
    }
    LinearSolver ls(SUNLinSol_Dense(x.get(), A.get(), ctx));
    if (SUNLinSolInitialize(ls.get()) != 0 || SUNLinSolSetup(ls.get(), A.get()) != 0) return result;
    if (SUNLinSolSolve(ls.get(), A.get(), x.get(), rhs.get(), 0.0) != 0) return result;
    for (int i = 0; i < nc; ++i) result.impulses.push_back({cons[at(i)].block, cons[at(i)].var, data(x)[nv + i]});
    for (const auto& [u, c] : nodeCol) {
        const double v = vBefore[u] + data(x)[c];
        result.maxChange = std::max(result.maxChange, std::abs(v - y[u]));
        y[u] = v;
    }
    return result;
}

}   // namespace endstop::core::solver
