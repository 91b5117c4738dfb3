// SPDX-License-Identifier: GPL-3.0-or-later
// IDA set-up for one run (run.hpp): vectors, tolerances, the linear solver (dense or KLU) and root
// finding; and the callbacks through which IDA evaluates the reduced system.
#include "core/dae/block_structure.hpp"
#include "core/errors.hpp"
#include "core/solver/fast_vector.hpp"
#include "core/solver/restart.hpp"
#include "core/solver/run.hpp"
#include "core/solver/sparse_solver.hpp"

#include <ida/ida.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>   // its SM_ macros; the library itself is the KLU module's

#include <algorithm>
#include <limits>
#include <cmath>

namespace endstop::core::solver::detail {

namespace {

constexpr long kStepsPerCall = 500;

// IDA makes a new iteration matrix when cj = alpha/h has moved this fraction from the one its
// matrix was made with (IDA's default is 0.25). A Newton iteration with a stale matrix is not
// exact even on a linear system, IDA accepts it when what is left is under a third of the
// tolerance, and what is left shows in the error estimate, where at order 5 anything above 0.8% of
// the tolerance keeps the step from growing: the step size froze on it at tight tolerances
// (docs/engine.md, "IDA's iteration matrix").
constexpr double kDeltaCjSetup = 0.15;

// the smallest magnitude an event function shows IDA (rootFn)
constexpr double kRootFloor = 1e-150;

}   // namespace

int Run::residualFn(double t, N_Vector y, N_Vector yp, N_Vector r, void* ud) {
    auto* self = static_cast<Run*>(ud);
    try {
        double* F = N_VGetArrayPointer(r);
        const dae::State st = self->reducedState(t, y, yp);
        if (self->m_resting) {   // the moving rows alone
            self->m_rev.residual(st, self->m_Fr.data(), &self->m_active);
            for (std::size_t s = 0; s < self->m_active.size(); ++s) F[s] = self->m_Fr[at(self->m_active[s])];
        } else {
            self->m_rev.residual(st, F);
        }
        for (int i = 0, n = self->idaSize(); i < n; ++i)
            if (!std::isfinite(F[i])) return 1;   // recoverable: IDA retries with a smaller step
        return 0;
    } catch (...) {
        self->m_error = std::current_exception();
        return -1;
    }
}

int Run::jacobianFn(double t, double cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix J, void* ud, N_Vector, N_Vector,
                    N_Vector) {
    auto* self = static_cast<Run*>(ud);
    try {
        const dae::Pattern& p = self->m_rev.pattern();
        const dae::State st = self->reducedState(t, y, yp);
        if (self->m_resting) {   // the moving part's entries of the reduced Jacobian
            std::copy(self->m_subColPtr.begin(), self->m_subColPtr.end(), SM_INDEXPTRS_S(J));
            std::copy(self->m_subRowIdx.begin(), self->m_subRowIdx.end(), SM_INDEXVALS_S(J));
            double* values = SM_DATA_S(J);
            if (self->m_rev.selectedJacobian(st, cj, values)) return 0;   // those entries alone
            self->m_rev.jacobian(st, cj, self->m_jr.data());
            const int* source = self->m_subSource.data();
            for (std::size_t k = 0; k < self->m_subSource.size(); ++k) values[k] = self->m_jr[at(source[k])];
            return 0;
        }
        if (self->m_sparse) {
            std::copy(p.colPtr.begin(), p.colPtr.end(), SM_INDEXPTRS_S(J));
            std::copy(p.rowIdx.begin(), p.rowIdx.end(), SM_INDEXVALS_S(J));
            self->m_rev.jacobian(st, cj, SM_DATA_S(J));
            return 0;
        }
        self->m_values.resize(at(p.nnz()));
        self->m_rev.jacobian(st, cj, self->m_values.data());
        SUNMatZero(J);
        for (int c = 0; c < p.n; ++c) {
            double* column = SUNDenseMatrix_Column(J, c);
            for (int k = p.colPtr[at(c)]; k < p.colPtr[at(c + 1)]; ++k) column[p.rowIdx[at(k)]] = self->m_values[at(k)];
        }
        return 0;
    } catch (...) {
        self->m_error = std::current_exception();
        return -1;
    }
}

int Run::rootFn(double t, N_Vector y, N_Vector yp, double* g, void* ud) {
    auto* self = static_cast<Run*>(ud);
    try {
        const dae::State reduced = self->reducedState(t, y, yp);
        if (!self->m_rootEvaluated.empty()) {   // the live roots that are not affine (initRoots)
            if (!self->m_revRoots) {            // made at the first such root, with its vectors (run.hpp)
                self->m_revRoots.emplace(self->m_sys, self->m_red, dae::ReducedEvaluator::Purpose::Expand);
                self->m_rootY = self->m_sys.y0;
                self->m_rootYp.assign(self->m_sys.y0.size(), 0.0);
                self->m_g.assign(at(self->m_sys.eventCount), 1.0);
            }
            self->m_revRoots->expand(reduced, nullptr, self->m_rootY.data(), self->m_rootYp.data(),
                                     dae::ReducedEvaluator::For::Events);
            self->m_revRoots->full().eventFunctions(
                {t, self->m_rootY.data(), self->m_rootYp.data(), self->m_disc.data(), self->m_discVersion},
                self->m_g.data(), self->m_rootEvaluated);
        }
        const double* yr = reduced.y;
        const int *rows = self->m_rootRows.data(), *first = self->m_rowFirst.data();
        const int* column = self->m_rootColumn.data();
        const double* value = self->m_rootValue.data();
        for (std::size_t j = 0; j < self->m_idaRoots.size(); ++j) {
            const int k = self->m_idaRoots[j];
            double gj = 0.0;
            if (self->m_rootAffine[at(k)] == 0) {
                gj = self->m_g[at(self->m_liveRoots[at(k)])];
            } else {
                gj = std::numeric_limits<double>::infinity();
                for (int r = rows[k]; r < rows[k + 1]; ++r) {
                    double sum = self->m_rowConstant[at(r)];
                    for (int e = first[r]; e < first[r + 1]; ++e) sum += value[e] * yr[column[e]];
                    gj = std::min(gj, sum + self->m_rowNudge[at(r)]);
                }
            }
            // IDA's root finding tests a sign change as the product of two values of one function,
            // which underflows to 0 where both are below about 1e-162: a change of sign found there
            // was reported with no function named, again after every restart (docs/reliability.md,
            // "Long chains"). Only the signs and the interpolation between them count at that scale.
            g[j] = gj != 0.0 && std::abs(gj) < kRootFloor ? std::copysign(kRootFloor, gj) : gj;
        }
        return 0;
    } catch (...) {
        self->m_error = std::current_exception();
        return -1;
    }
}

void Run::errorFn(int, const char* module, const char* function, char* msg, void* ud) {
    static_cast<Run*>(ud)->m_idaMessage = std::string(module) + "/" + function + ": " + msg;
}

void Run::setUp() {
    const int n = m_rev.size();
    m_stats.unknowns = n;
    m_stats.unknownsBefore = m_sys.size();
    m_stats.aliases = static_cast<int>(m_red.combinations.size());
    m_stats.explicitVariables = static_cast<int>(m_red.explicits.size());
    m_stats.quadratures = static_cast<int>(m_red.quadratures.size());
    m_stats.movingUnknowns = n;
    m_disc = m_sys.discrete0;
    m_changedAtEvent.assign(m_sys.topo.blocks.size(), 0);
    m_journal.forget();
    ++m_discVersion;
    m_y = makeVector(n, m_ctx);
    m_yp = makeVector(n, m_ctx);
    m_id = makeVector(n, m_ctx);
    for (const NVector* v : {&m_y, &m_yp, &m_id}) accelerate(v->get());   // IDA clones these
    m_fy = m_sys.y0;
    m_fyp.assign(m_sys.y0.size(), 0.0);
    m_rev.gather(m_fy.data(), nullptr, data(m_y), nullptr);
    const std::size_t nq = m_red.quadratures.size();
    if (nq > 0) {
        m_q = makeVector(static_cast<int>(nq), m_ctx);
        for (std::size_t k = 0; k < nq; ++k) data(m_q)[k] = m_sys.y0[at(m_red.quadratures[k].unknown)];
    }
    m_sparse = m_opt.linearSolver == core::model::LinearSolver::Klu ||
               (m_opt.linearSolver == core::model::LinearSolver::Auto && n >= m_opt.denseLimit);
    m_stats.linearSolver = toString(m_sparse ? core::model::LinearSolver::Klu : core::model::LinearSolver::Dense);
    startResting(0.0);   // before any IDA: a large network's whole-size IDA is never made
    createIda(0.0);
    initRoots(0.0);
    for (std::size_t b = 0; b < m_sys.topo.blocks.size(); ++b) {
        const Block& blk = *m_sys.topo.blocks[b].block;
        if (const double next = blk.nextTimeEvent(0.0); std::isfinite(next)) {
            m_timeBlocks.push_back(static_cast<int>(b));
            m_next.push_back(next);
        }
        if (blk.hasSettle()) m_settleBlocks.push_back(static_cast<int>(b));
    }
}

// The whole reduced system's matrix and linear solver, dense or KLU as setUp() chose.
LinearSystem Run::fullSystem() {
    if (m_A) return {m_A.get(), m_ls.get()};
    const int n = m_rev.size();
    if (m_sparse) {
        const SparseSystem s = makeSparseSystem(m_y.get(), m_rev.pattern().nnz(), m_ctx);
        m_A.reset(s.A);
        m_ls.reset(s.ls);
    } else {
        m_A.reset(SUNDenseMatrix(n, n, m_ctx));
        m_ls.reset(SUNLinSol_Dense(m_y.get(), m_A.get(), m_ctx));
        if (m_A && m_ls) accelerate(m_ls.get(), m_A.get());
    }
    if (!m_A || !m_ls) throw SolverError("could not create the " + m_stats.linearSolver + " linear solver");
    return {m_A.get(), m_ls.get()};
}

// A new IDA memory (at the start, and each time the moving part grows): the vectors, the
// tolerances and the linear solver. Root finding follows in initRoots().
void Run::createIda(double t) {
    m_mem.reset(IDACreate(m_ctx));
    if (!m_mem) throw SolverError("IDACreate failed");
    void* mem = m_mem.get();
    check(IDASetErrHandlerFn(mem, errorFn, this), "IDASetErrHandlerFn");
    toIda();
    check(IDAInit(mem, residualFn, t, idaY(), idaYp()), "IDAInit");
    check(IDASetUserData(mem, this), "IDASetUserData");
    if (m_q) {   // integrated after each step from IDA's interpolant (run_quadratures.cpp)
        m_qy = makeVector(idaSize(), m_ctx);
        m_qyp = makeVector(idaSize(), m_ctx);
    }
    m_tq = t;
    forgetQuadratureStart();
    setTolerances();
    if (m_opt.maxStep > 0) check(IDASetMaxStep(mem, m_opt.maxStep), "IDASetMaxStep");
    // per IDASolve call: the run's own limits (RunGuard) are checked between calls
    check(IDASetMaxNumSteps(mem, kStepsPerCall), "IDASetMaxNumSteps");
    LinearSystem sys;
    if (!m_resting) {
        sys = fullSystem();
    } else {   // the moving part's own KLU, set up as m_ls is
        m_lsa.reset();
        m_Aa.reset();
        const SparseSystem s = makeSparseSystem(m_ya.get(), std::ssize(m_subSource), m_ctx);
        m_Aa.reset(s.A);
        m_lsa.reset(s.ls);
        sys = {m_Aa.get(), m_lsa.get()};
    }
    check(IDASetLinearSolver(mem, sys.ls, sys.A), "IDASetLinearSolver");
    check(IDASetJacFn(mem, jacobianFn), "IDASetJacFn");
    check(IDASetDeltaCjLSetup(mem, kDeltaCjSetup), "IDASetDeltaCjLSetup");
}

// Quadrature states get an absolute tolerance so loose that they drop out of the error test, and
// so do dummy derivatives: each stands for y' of an unknown that is tested itself, and as an
// acceleration computed through a rigid coupling (a gear between two inertias) it carries
// round-off that a tight atol (1e-14) cannot accept near its zero crossings, which stalled the
// steps and failed IDACalcIC's convergence test at the start. So do a lock's holding forces while
// it holds (holdConstraintForces()).
//
// A variable whose own row reads nothing but itself and the rates of other unknowns (a motion
// sensor's acceleration, v_R' - v_C') is a dummy derivative in all but name, and is left out
// for the same reason: near zero its round-off, that of the forces over the mass, is far above a
// tight atol. As drawn at atol 1e-13, IDACalcIC's line search stalled on it when a stiction broke
// away, the sensor's acceleration 1e-9 m/s^2 there, and the run failed (docs/engine.md, "What
// the error test covers"). The velocities it is the rate of are tested.
namespace {
constexpr double kIgnored = 1e30;
// an algebraic unknown's atol is at least this share of the largest |y| it has had (weightFn)
constexpr double kRoundOffShare = 32 * std::numeric_limits<double>::epsilon();

bool readsOnlyRates(const dae::DaeSystem& sys, int block, int var) {
    const dae::BlockStructure& st = sys.structures[at(sys.structureOf[at(block)])];
    const int self = sys.bindings[at(block)].varSlot()[at(var)];
    for (const dae::LocalIncidence& mode : st.perMode) {   // in every combination of the block's modes
        bool itself = false, rate = false;
        for (const auto& [slot, order] : mode[at(var)]) {
            if (order == 0 && slot == self)
                itself = true;
            else if (order == 1 && slot != self)
                rate = true;
            else
                return false;
        }
        if (!itself || !rate) return false;
    }
    return !st.perMode.empty();
}
}   // namespace

void Run::setTolerances() {
    const bool first = !m_atol;
    if (first) {
        m_atol = makeVector(m_rev.size(), m_ctx);
        findAliases();
    }
    for (int i = 0; i < m_rev.size(); ++i) {
        const int u = m_red.kept[at(i)];
        const dae::Unknown& k = m_sys.unknowns[at(u)];
        const bool own = k.kind == dae::Unknown::Kind::Own;
        const VarDesc* var = own ? &m_sys.topo.blocks[at(k.block)].block->vars()[at(k.index)] : nullptr;
        const bool ignored = k.kind == dae::Unknown::Kind::Dummy || (var && var->quadrature) ||
                             (var && var->kind == VarKind::Algebraic && readsOnlyRates(m_sys, k.block, k.index));
        data(m_atol)[i] = ignored ? kIgnored : m_opt.absoluteTolerance;
        if (first && var && var->constraintForce) m_constraintForces.push_back({i, k.block});
    }
    for (const ConstraintForce& c : m_constraintForces)
        if (c.held) data(m_atol)[c.unknown] = kIgnored;
    passTolerances();
}

// A locked joint's holding force (VarDesc::constraintForce) is the multiplier of an acceleration
// constraint. Where two locks hold one motion, their constraint force mixing (1e-9 m/s^2 at the
// limit) alone splits the force, and where one side of that motion is imposed by a source and
// the other is IDA's y', the y' carries round-off far above it: the split's noise failed every
// Newton iteration at any tolerance, in both engines. While a lock holds, its forces leave IDA's
// tests as dummy derivatives do, and the states they act on are tested. Sliding, the force follows
// the friction law and is tested as before.
void Run::holdConstraintForces(double t) {
    bool changed = false;
    for (ConstraintForce& c : m_constraintForces) {
        bool held = false;
        m_ev.withEq(c.block, state(t),
                    [&](const Eq<double>& eq) { held = m_sys.topo.blocks[at(c.block)].block->holding(eq); });
        if (held == c.held) continue;
        c.held = held;
        data(m_atol)[c.unknown] = held ? kIgnored : m_opt.absoluteTolerance;
        changed = true;
    }
    if (changed && m_mem) passTolerances();
}

void Run::passTolerances() {
    m_peak.resize(at(m_rev.size()), 0.0);
    m_weightScale = 1.0;
    if (!m_aliasOffset.empty()) {   // the aliases' weights join their kept unknowns' (weightFn)
        const long tested = idaSize();
        long aliases = 0;
        for (int s = 0; s < tested; ++s) {
            const int i = m_resting ? m_active[at(s)] : s;
            aliases += m_aliasFirst[at(i + 1)] - m_aliasFirst[at(i)];
        }
        m_weightScale = static_cast<double>(tested) / static_cast<double>(tested + aliases);
    }
    check(IDAWFtolerances(m_mem.get(), weightFn), "IDAWFtolerances");
}

// The aliases of each kept unknown: the states of the network as drawn that the reduction wrote
// as that unknown times a coefficient plus an offset (a grounded stop's or spring's relative
// position beside the mass's position). Their offsets make their magnitudes, and so their error
// weights, differ from the kept unknown's.
void Run::findAliases() {
    std::vector<std::vector<std::pair<double, double>>> of(at(m_rev.size()));
    const dae::ReductionPlan::Combinations& cs = m_red.combinations;
    for (std::size_t c = 0; c < cs.size(); ++c) {
        if (cs.first[c + 1] - cs.first[c] != 1) continue;
        const auto t = at(cs.first[c]);
        const int k = m_red.reducedIndex[at(cs.termUnknown[t])];
        if (k >= 0 && cs.termCoefficient[t] != 0.0) of[at(k)].emplace_back(cs.offset[c], cs.termCoefficient[t]);
    }
    m_aliasFirst.assign(1, 0);
    for (const auto& list : of) {
        for (const auto& [offset, coefficient] : list) {
            m_aliasOffset.push_back(offset);
            m_aliasCoefficient.push_back(coefficient);
        }
        m_aliasFirst.push_back(static_cast<int>(m_aliasOffset.size()));
    }
}

// IDA's error weights with the aliases in the error test, as the network as drawn has them: the
// weighted RMS norm over the kept unknowns and their aliases, where an alias's error is its
// coefficient times its kept unknown's. So w_k^2 = s (w(y_k)^2 + sum (c_a w(offset_a + c_a y_k))^2)
// with w(y) = 1 / (rtol |y| + atol) and s = kept / (kept + aliases): a kept unknown without aliases
// gets its plain weight times sqrt(s), which keeps the norm a mean over the same entries.
int Run::weightFn(N_Vector y, N_Vector ewt, void* ud) {
    auto* self = static_cast<Run*>(ud);
    const double* yv = N_VGetArrayPointer(y);
    double* w = N_VGetArrayPointer(ewt);
    const double rtol = self->m_opt.relativeTolerance;
    const double* atol = data(self->m_atol);
    const bool aliased = !self->m_aliasOffset.empty();
    const std::vector<double>& id = self->m_idValues;
    for (int s = 0, n = self->idaSize(); s < n; ++s) {
        const int i = self->m_resting ? self->m_active[at(s)] : s;
        const double size = std::abs(yv[s]);
        double floor = 0.0;
        if (!id.empty() && id[at(i)] == 0.0 && std::isfinite(size)) {   // algebraic: its round-off floor
            double& peak = self->m_peak[at(i)];
            peak = std::max(peak, size);
            floor = kRoundOffShare * peak;
        }
        const double own = 1.0 / (rtol * size + std::max(atol[i], floor));
        if (!aliased) {
            w[s] = own;
            if (!(own > 0.0) || !std::isfinite(own)) return -1;
            continue;
        }
        double sum = own * own;
        for (int a = self->m_aliasFirst[at(i)]; a < self->m_aliasFirst[at(i + 1)]; ++a) {
            const double c = self->m_aliasCoefficient[at(a)];
            const double wa = c / (rtol * std::abs(self->m_aliasOffset[at(a)] + c * yv[s]) +
                                   std::max(self->m_opt.absoluteTolerance, std::abs(c) * floor));
            sum += wa * wa;
        }
        w[s] = std::sqrt(sum * self->m_weightScale);
        if (!(w[s] > 0.0) || !std::isfinite(w[s])) return -1;
    }
    return 0;
}

void Run::check(int flag, const char* what) {
    if (flag < 0) throw SolverError(std::string(what) + " failed (" + std::to_string(flag) + "): " + m_idaMessage);
}

}   // namespace endstop::core::solver::detail
