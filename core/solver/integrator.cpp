// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/solver/integrator.hpp"

#include "core/dae/reduced_evaluator.hpp"
#include "core/model/errors.hpp"
#include "core/solver/fast_vector.hpp"
#include "core/solver/projection.hpp"
#include "core/solver/restart.hpp"
#include "core/solver/sundials_raii.hpp"

#include <idas/idas.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <limits>

namespace endstop::core::solver {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMaxModeIterations = 50;
constexpr long kStepsPerCall = 500;
std::size_t at(int i) { return static_cast<std::size_t>(i); }

class Run {
public:
    Run(const dae::DaeSystem& sys, const SolverOptions& opt, Recorder& rec, ResultSink& sink, const RunControl& ctl)
        : m_sys(sys), m_opt(opt), m_rec(rec), m_sink(sink), m_ctl(ctl), m_red(dae::planReduction(sys, opt.reduce)),
          m_rev(sys, m_red), m_revRoots(sys, m_red), m_ev(m_rev.full()), m_guard(opt.limits, opt.stopTime) {}

    RunStats execute() {
        const auto start = Clock::now();
        m_sink.begin(m_rec.columns());
        try {
            if (m_sys.size() == 0) return withoutUnknowns(start);   // IDA needs at least one
            setUp();
            restart(0.0);
            recordRow(0.0);
            loop();
        } catch (...) {
            recordLast();
            finish(start);
            throw;
        }
        recordLast();
        finish(start);
        return m_stats;
    }

private:
    // Nothing to integrate (a reference alone, an empty model): the outputs are constant.
    RunStats withoutUnknowns(Clock::time_point start) {
        m_stats.linearSolver = "none";
        m_disc = m_sys.discrete0;
        m_y = makeVector(0, m_ctx);
        m_yp = makeVector(0, m_ctx);
        const bool grid = m_opt.outputInterval > 0 && m_everyRow;
        const long rows = grid ? static_cast<long>(std::floor(m_opt.stopTime / m_opt.outputInterval)) : 0;
        recordRow(0.0);
        for (long k = 1; k <= rows; ++k) recordRow(std::min(m_opt.stopTime, static_cast<double>(k) * m_opt.outputInterval));
        if (m_stats.finalTime < m_opt.stopTime) recordRow(m_opt.stopTime);
        m_stats.completed = true;
        recordLast();
        finish(start);
        return m_stats;
    }

    // ---- IDA callbacks -----------------------------------------------------------------------
    static int residualFn(double t, N_Vector y, N_Vector yp, N_Vector r, void* ud) {
        auto* self = static_cast<Run*>(ud);
        try {
            double* F = N_VGetArrayPointer(r);
            self->m_rev.residual({t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), self->m_disc.data()}, F);
            for (int i = 0; i < self->m_rev.size(); ++i)
                if (!std::isfinite(F[i])) return 1;   // recoverable: IDA retries with a smaller step
            return 0;
        } catch (...) {
            self->m_error = std::current_exception();
            return -1;
        }
    }

    static int jacobianFn(double t, double cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix J, void* ud, N_Vector,
                          N_Vector, N_Vector) {
        auto* self = static_cast<Run*>(ud);
        try {
            const dae::Pattern& p = self->m_rev.pattern();
            const dae::State st{t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), self->m_disc.data()};
            if (self->m_sparse) {
                std::copy(p.colPtr.begin(), p.colPtr.end(), SUNSparseMatrix_IndexPointers(J));
                std::copy(p.rowIdx.begin(), p.rowIdx.end(), SUNSparseMatrix_IndexValues(J));
                self->m_rev.jacobian(st, cj, SUNSparseMatrix_Data(J));
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

    static int rootFn(double t, N_Vector y, N_Vector yp, double* g, void* ud) {
        auto* self = static_cast<Run*>(ud);
        try {
            const dae::State reduced{t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), self->m_disc.data()};
            self->m_revRoots.expand(reduced, nullptr, self->m_rootY.data(), self->m_rootYp.data(), dae::ReducedEvaluator::For::Events);
            self->m_revRoots.full().eventFunctions({t, self->m_rootY.data(), self->m_rootYp.data(), self->m_disc.data()}, g);
            return 0;
        } catch (...) {
            self->m_error = std::current_exception();
            return -1;
        }
    }

    // the quadratures' rates (reduce.hpp): IDA integrates them outside the Newton system
    static int quadratureFn(double t, N_Vector y, N_Vector yp, N_Vector rq, void* ud) {
        auto* self = static_cast<Run*>(ud);
        try {
            self->m_rev.quadratureRates({t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), self->m_disc.data()}, N_VGetArrayPointer(rq));
            return 0;
        } catch (...) {
            self->m_error = std::current_exception();
            return -1;
        }
    }

    static void errorFn(int, const char* module, const char* function, char* msg, void* ud) {
        static_cast<Run*>(ud)->m_idaMessage = std::string(module) + "/" + function + ": " + msg;
    }

    // ---- set-up --------------------------------------------------------------------------------
    void setUp() {
        const int n = m_rev.size();
        m_stats.unknowns = n;
        m_stats.unknownsBefore = m_sys.size();
        m_disc = m_sys.discrete0;
        m_y = makeVector(n, m_ctx);
        m_yp = makeVector(n, m_ctx);
        m_id = makeVector(n, m_ctx);
        for (const NVector* v : {&m_y, &m_yp, &m_id}) accelerate(v->get());   // IDA clones these
        m_fy = m_sys.y0;
        m_fyp.assign(m_sys.y0.size(), 0.0);
        m_rootY = m_fy;
        m_rootYp = m_fyp;
        m_rev.gather(m_fy.data(), nullptr, data(m_y), nullptr);
        m_mem.reset(IDACreate(m_ctx));
        if (!m_mem) throw SolverError("IDACreate failed");
        void* mem = m_mem.get();
        check(IDASetErrHandlerFn(mem, errorFn, this), "IDASetErrHandlerFn");
        check(IDAInit(mem, residualFn, 0.0, m_y.get(), m_yp.get()), "IDAInit");
        check(IDASetUserData(mem, this), "IDASetUserData");
        const std::size_t nq = m_red.quadratures.size();
        if (nq > 0) {
            m_q = makeVector(static_cast<int>(nq), m_ctx);
            for (std::size_t k = 0; k < nq; ++k) data(m_q)[k] = m_sys.y0[at(m_red.quadratures[k].unknown)];
            check(IDAQuadInit(mem, quadratureFn, m_q.get()), "IDAQuadInit");
            check(IDASetQuadErrCon(mem, SUNFALSE), "IDASetQuadErrCon");   // they steer no step size
        }
        setTolerances();
        if (m_opt.maxStep > 0) check(IDASetMaxStep(mem, m_opt.maxStep), "IDASetMaxStep");
        // per IDASolve call: the run's own limits (RunGuard) are checked between calls
        check(IDASetMaxNumSteps(mem, kStepsPerCall), "IDASetMaxNumSteps");
        m_sparse = m_opt.linearSolver == core::LinearSolver::Klu || (m_opt.linearSolver == core::LinearSolver::Auto && n >= m_opt.denseLimit);
        m_stats.linearSolver = toString(m_sparse ? core::LinearSolver::Klu : core::LinearSolver::Dense);
        if (m_sparse) {
            m_A.reset(SUNSparseMatrix(n, n, std::max(1, m_rev.pattern().nnz()), CSC_MAT, m_ctx));
            m_ls.reset(SUNLinSol_KLU(m_y.get(), m_A.get(), m_ctx));
            // AMD rather than SUNDIALS' default COLAMD: network Jacobians are nearly symmetric in
            // structure, and AMD's fill estimate lets KLU size its factors (COLAMD's default
            // sizing reserved 40 MB at 60,000 unknowns)
            if (m_ls) check(SUNLinSol_KLUSetOrdering(m_ls.get(), 0), "SUNLinSol_KLUSetOrdering");
            keepSymbolicAnalysis(m_ls.get());
        } else {
            m_A.reset(SUNDenseMatrix(n, n, m_ctx));
            m_ls.reset(SUNLinSol_Dense(m_y.get(), m_A.get(), m_ctx));
        }
        if (!m_A || !m_ls) throw SolverError("could not create the " + m_stats.linearSolver + " linear solver");
        check(IDASetLinearSolver(mem, m_ls.get(), m_A.get()), "IDASetLinearSolver");
        check(IDASetJacFn(mem, jacobianFn), "IDASetJacFn");
        if (m_sys.eventCount > 0) check(IDARootInit(mem, m_sys.eventCount, rootFn), "IDARootInit");
        m_roots.assign(at(m_sys.eventCount), 0);
        m_next.assign(m_sys.topo.blocks.size(), std::numeric_limits<double>::infinity());
        for (std::size_t b = 0; b < m_sys.topo.blocks.size(); ++b) {
            const Block& blk = *m_sys.topo.blocks[b].block;
            m_next[b] = blk.nextTimeEvent(0.0);
            if (std::isfinite(m_next[b])) m_timeBlocks.push_back(static_cast<int>(b));
            if (blk.hasSettle()) m_settleBlocks.push_back(static_cast<int>(b));
        }
    }

    // Quadrature states get an absolute tolerance so loose that they drop out of the error test, and
    // so do dummy derivatives: each stands for y' of an unknown that is tested itself, and as an
    // acceleration computed through a rigid coupling (a gear between two inertias) it carries
    // round-off that a tight atol (1e-14) cannot accept near its zero crossings, which stalled the
    // steps and failed IDACalcIC's convergence test at the start.
    void setTolerances() {
        constexpr double kIgnored = 1e30;
        m_atol = makeVector(m_rev.size(), m_ctx);
        for (int i = 0; i < m_rev.size(); ++i) {
            const int u = m_red.kept[at(i)];
            const dae::Unknown& k = m_sys.unknowns[at(u)];
            const bool quadrature = k.kind == dae::Unknown::Kind::Own &&
                                    m_sys.topo.blocks[at(k.block)].block->vars()[at(k.index)].quadrature;
            const bool dummy = k.kind == dae::Unknown::Kind::Dummy;
            data(m_atol)[i] = quadrature || dummy ? kIgnored : m_opt.absoluteTolerance;
        }
        check(IDASVtolerances(m_mem.get(), m_opt.relativeTolerance, m_atol.get()), "IDASVtolerances");
    }

    void check(int flag, const char* what) {
        if (flag < 0) throw SolverError(std::string(what) + " failed (" + std::to_string(flag) + "): " + m_idaMessage);
    }

    // ---- consistent (re)start: CalcIC, projection, mode iteration ----------------------------
    void restart(double t) {
        void* mem = m_mem.get();
        for (int iter = 0;; ++iter) {
            if (iter >= kMaxModeIterations) failAt(t, "modes did not settle after an event", "blocks keep switching; check thresholds");
            if (m_fullStale) syncFull(t);
            m_before = m_fy;   // CalcIC may move algebraic velocities
            calcIC(t);
            m_impulse.assign(at(m_sys.size()), 0.0);
            if (!m_sys.impulsiveBlocks.empty()) {
                const ProjectionResult pr = project(m_sys, m_ev, state(t), m_before.data(), m_fy.data(), m_ctx);
                for (const Impulse& p : pr.impulses) m_impulse[at(ownUnknown(p.block, p.var))] = p.value;
                if (pr.maxChange > 0.0) {
                    m_rev.gather(m_fy.data(), nullptr, data(m_y), nullptr);
                    calcIC(t);
                }
            }
            if (!settle(t)) break;
        }
        m_impulse.clear();   // settle() alone sees the impulses
        chooseFirstStep(t);
        if (m_sys.eventCount > 0) check(IDARootInit(mem, m_sys.eventCount, rootFn), "IDARootInit");
        ++m_stats.reinits;
    }

    // Consistent rates of the algebraic unknowns and a first step from the second derivatives
    // (restart.hpp); the step before the event if the estimate is not available.
    void chooseFirstStep(double t) {
        void* mem = m_mem.get();
        const double span = std::max(m_opt.stopTime - t, 1e-12);
        const RestartInput in{t, &m_idValues, m_disc.data(), m_opt.relativeTolerance, data(m_atol),
                              m_lastStep > 0 ? m_lastStep : 1e-3 * span, m_sparse};
        const RestartGuess guess = estimateRestart(m_rev, in, data(m_y), data(m_yp), m_A.get(), m_ls.get(), m_ctx);
        double h = m_lastStep;
        if (guess.ok) {
            accumulate();
            reInit(t);
            syncFull(t);
            // nothing curves (a free flight after a contact): the largest step of the run so far
            // is a better start than the contact's last one
            h = guess.firstStep > 0 ? guess.firstStep : std::max(m_lastStep, m_largestStep);
            h = std::min(h, span);
        }
        if (h > 0 && m_opt.maxStep > 0) h = std::min(h, m_opt.maxStep);
        check(IDASetInitStep(mem, std::max(h, 0.0)), "IDASetInitStep");   // 0: IDA's own guess
    }

    void calcIC(double t) {
        void* mem = m_mem.get();
        dae::differentialMask(m_sys, m_disc.data(), m_idFull);
        m_idValues.resize(at(m_rev.size()));
        m_rev.gather(m_idFull.data(), nullptr, m_idValues.data(), nullptr);
        std::copy(m_idValues.begin(), m_idValues.end(), data(m_id));
        accumulate();
        reInit(t);
        check(IDASetId(mem, m_id.get()), "IDASetId");
        const double span = std::max(m_opt.stopTime - t, 1e-12);
        // IDA refuses a tout1 within round-off of t: at tight tolerances the last step can be that small
        const double minimum = 1e3 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
        const double tout1 = t + std::min(span, std::max(minimum, m_lastStep > 0 ? m_lastStep : 1e-3 * span));
        const int flag = IDACalcIC(mem, IDA_YA_YDP_INIT, tout1);
        rethrowCallbackError();
        if (flag < 0)
            failAt(t, "no consistent state found (" + idaFlagName(flag) + "): " + m_idaMessage,
                   "check for conflicting constraints or inconsistent initial values");
        check(IDAGetConsistentIC(mem, m_y.get(), m_yp.get()), "IDAGetConsistentIC");
        syncFull(t);
    }

    void reInit(double t) {
        check(IDAReInit(m_mem.get(), t, m_y.get(), m_yp.get()), "IDAReInit");
        if (m_q) check(IDAQuadReInit(m_mem.get(), m_q.get()), "IDAQuadReInit");
    }

    // The full network's unknowns from IDA's (and the quadratures'), for everything but IDA.
    void syncFull(double t) {
        m_rev.expand({t, data(m_y), data(m_yp), m_disc.data()}, m_q ? data(m_q) : nullptr, m_fy.data(), m_fyp.data());
        m_fullStale = false;
    }

    bool settle(double t) {
        bool changed = false;
        for (int b : m_settleBlocks)
            changed = withCtx(b, t, [&](EventCtx& ctx) { m_sys.topo.blocks[at(b)].block->settle(ctx); }) || changed;
        return changed;
    }

    int ownUnknown(int block, int var) const {
        const dae::Binding& bind = m_sys.bindings[at(block)];
        return bind.slot[at(bind.varSlot[at(var)])];
    }

    template <class F>
    bool withCtx(int b, double t, F&& f) {
        const dae::Binding& bind = m_sys.bindings[at(b)];
        const Block& blk = *m_sys.topo.blocks[at(b)].block;
        bool changed = false;
        const std::size_t before = m_log.size();
        m_blockImpulse.assign(m_impulse.empty() ? 0 : blk.vars().size(), 0.0);
        for (std::size_t v = 0; v < m_blockImpulse.size(); ++v) m_blockImpulse[v] = m_impulse[at(ownUnknown(b, static_cast<int>(v)))];
        m_ev.withEq(b, state(t), [&](const Eq<double>& eq) {
            EventCtx ctx(eq, std::span<double>(m_disc.data() + bind.discreteOffset, blk.discretes().size()),
                         m_sys.topo.blocks[at(b)].name, m_log, m_blockImpulse);
            f(ctx);
            changed = ctx.changed();
        });
        for (std::size_t i = before; i < m_log.size(); ++i) {
            m_sink.event(m_log[i]);
            ++m_stats.events;
            m_guard.event(t, m_log[i].block);
        }
        return changed;
    }

    // ---- main loop -----------------------------------------------------------------------------
    void loop() {
        void* mem = m_mem.get();
        const bool grid = m_opt.outputInterval > 0;
        long outputIndex = 1;
        double t = 0.0;
        while (t < m_opt.stopTime) {
            if (m_ctl.cancel && m_ctl.cancel->load()) {
                m_stats.cancelled = true;
                return;
            }
            const double tNext = nextTimeEvent();
            if (tNext < m_opt.stopTime && tNext <= dueBy(t)) {   // IDA cannot step to a time within round-off
                handleTimeEvents(t);
                continue;
            }
            const double tstop = std::min(tNext, m_opt.stopTime);
            if (grid) catchUpGrid(t, outputIndex);
            check(IDASetStopTime(mem, tstop), "IDASetStopTime");
            // the next output time k * interval; a breakpoint before it stops the solver there
            // without a row, unless it is that grid point up to rounding (0.3 and 3 * 0.1)
            double gridTime = tstop;
            if (grid) {
                gridTime = std::min(m_opt.stopTime, static_cast<double>(outputIndex) * m_opt.outputInterval);
                if (tstop < gridTime && gridTime - tstop <= 1e-12 * std::max(1.0, gridTime)) gridTime = tstop;
            }
            const double tout = std::min(tstop, gridTime);
            const int flag = IDASolve(mem, tout, &t, m_y.get(), m_yp.get(), grid ? IDA_NORMAL : IDA_ONE_STEP);
            rethrowCallbackError();
            if (flag < 0 && flag != IDA_TOO_MUCH_WORK) failSolve(t, flag);
            double tq = t;
            if (m_q) IDAGetQuad(mem, &tq, m_q.get());
            m_fullStale = true;   // expanded when something reads it
            double h = 0.0;
            if (IDAGetLastStep(mem, &h) == IDA_SUCCESS && h > 0) {
                m_lastStep = h;
                m_largestStep = std::max(m_largestStep, h);
            }
            long steps = 0;
            IDAGetNumSteps(mem, &steps);
            m_guard.step(t, h, m_stats.steps + steps, [&] { return culprit().second; });
            if (flag == IDA_TOO_MUCH_WORK) continue;   // a long stretch between output times
            const bool root = flag == IDA_ROOT_RETURN;
            const bool timeEvent = !root && t >= tNext && t < m_opt.stopTime;   // IDA_SUCCESS when tout == tstop
            if (!grid) {
                recordRow(t);
            } else if (!root && t >= gridTime) {
                recordRow(t);
                ++outputIndex;
            }
            if (root) handleRoots(t);
            if (timeEvent) handleTimeEvents(t);
            if ((root || timeEvent) && !grid) recordRow(t);
            if (m_ctl.progress) {
                accumulateInto(m_live);
                m_ctl.progress(t, m_live);
            }
        }
        m_stats.completed = true;
    }

    // A root can land on an output time (within rounding); IDA refuses a tout that close to the
    // restart time, so the row there is taken from the state just after the event.
    void catchUpGrid(double t, long& outputIndex) {
        const double close = 4 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
        while (static_cast<double>(outputIndex) * m_opt.outputInterval - t <= close) {
            recordRow(t);
            ++outputIndex;
        }
    }

    double nextTimeEvent() const {
        double tn = std::numeric_limits<double>::infinity();
        for (int b : m_timeBlocks) tn = std::min(tn, m_next[at(b)]);
        return tn;
    }

    void handleRoots(double t) {
        IDAGetRootInfo(m_mem.get(), m_roots.data());
        for (int b = 0; b < static_cast<int>(m_sys.topo.blocks.size()); ++b) {
            const Block& blk = *m_sys.topo.blocks[at(b)].block;
            const int n = blk.eventCount();
            if (n == 0) continue;
            const int off = m_sys.bindings[at(b)].eventOffset;
            for (int i = 0; i < n; ++i)
                if (m_roots[at(off + i)] != 0) {
                    const int dir = m_roots[at(off + i)];
                    withCtx(b, t, [&](EventCtx& ctx) { blk.onEvent(ctx, i, dir); });
                }
        }
        guardChattering(t);
        restart(t);
    }

    void handleTimeEvents(double t) {
        for (int b : m_timeBlocks) {
            if (m_next[at(b)] > dueBy(t)) continue;
            const Block& blk = *m_sys.topo.blocks[at(b)].block;
            withCtx(b, t, [&](EventCtx& ctx) {
                ctx.log(EventKind::Time, 0.0);
                blk.onTimeEvent(ctx);
            });
            m_next[at(b)] = blk.nextTimeEvent(t);
        }
        guardChattering(t);
        restart(t);
    }

    // The latest time that counts as now: a scheduled event closer than this is taken here.
    static double dueBy(double t) { return t + 4 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t)); }

    void guardChattering(double t) { m_guard.restart(t, m_log.empty() ? std::string() : m_log.back().block); }

    // ---- output and statistics -----------------------------------------------------------------
    dae::State state(double t) {
        if (m_fullStale) syncFull(t);
        return {t, m_fy.data(), m_fyp.data(), m_disc.data()};
    }

    void recordRow(double t) {
        m_stats.finalTime = t;
        if (!m_everyRow && t > 0.0) return;   // a summary: the last row comes from recordLast()
        m_rec.sample(m_ev, state(t), m_row);
        m_sink.row(t, m_row);
    }

    void recordLast() {
        if (m_everyRow || !m_y || m_stats.finalTime <= 0.0) return;
        m_rec.sample(m_ev, state(m_stats.finalTime), m_row);
        m_sink.row(m_stats.finalTime, m_row);
    }

    void accumulateInto(RunStats& s) {
        s = m_stats;
        long steps = 0, res = 0, jac = 0, etf = 0, ncf = 0;
        IDAGetNumErrTestFails(m_mem.get(), &etf);
        IDAGetNumNonlinSolvConvFails(m_mem.get(), &ncf);
        s.errorTestFails += etf;
        s.convergenceFails += ncf;
        IDAGetNumSteps(m_mem.get(), &steps);
        IDAGetNumResEvals(m_mem.get(), &res);
        IDAGetNumJacEvals(m_mem.get(), &jac);
        s.steps += steps;
        s.residualEvals += res;
        s.jacobianEvals += jac;
    }

    void accumulate() { accumulateInto(m_stats); }   // before IDAReInit, which resets IDA's counters

    void finish(Clock::time_point start) {
        if (m_mem) accumulate();
        m_stats.solveSeconds = std::chrono::duration<double>(Clock::now() - start).count();
        m_sink.end(m_stats);
    }

    // ---- failures ------------------------------------------------------------------------------
    void rethrowCallbackError() {
        if (m_error) std::rethrow_exception(std::exchange(m_error, nullptr));
    }

    [[noreturn]] void failSolve(double t, int flag) {
        const auto [where, block] = culprit();
        Diagnostic d{Severity::Error, block, {}, {},
                     "simulation failed at t = " + formatNumber(t) + " s (" + idaFlagName(flag) + ")" + (where.empty() ? "" : "; largest error in the " + where),
                     idaFailureHint(flag)};
        throw SolverError(Diagnostics{d});
    }

    // The unknown with the largest weighted local error points at the culprit: its description
    // and its block (empty if IDA has no estimate yet).
    std::pair<std::string, std::string> culprit() {
        NVector ele = makeVector(m_rev.size(), m_ctx), w = makeVector(m_rev.size(), m_ctx);
        if (IDAGetEstLocalErrors(m_mem.get(), ele.get()) != IDA_SUCCESS || IDAGetErrWeights(m_mem.get(), w.get()) != IDA_SUCCESS) return {};
        int worst = -1;
        double big = -1.0;
        for (int i = 0; i < m_rev.size(); ++i) {
            const double e = std::abs(data(ele)[i] * data(w)[i]);
            if (e > big) { big = e; worst = i; }
        }
        if (worst < 0) return {};
        const int u = m_red.kept[at(worst)];
        return {m_sys.describeUnknown(u), m_sys.blockOfUnknown(u)};
    }

    [[noreturn]] void failAt(double t, const std::string& what, const std::string& hint) {
        throw SolverError(Diagnostics{{Severity::Error, {}, {}, {}, "simulation failed at t = " + formatNumber(t) + " s: " + what, hint}});
    }

    const dae::DaeSystem& m_sys;
    const SolverOptions& m_opt;
    Recorder& m_rec;
    ResultSink& m_sink;
    const RunControl& m_ctl;
    const dae::ReductionPlan m_red;
    dae::ReducedEvaluator m_rev;        // IDA's residual and Jacobian
    dae::ReducedEvaluator m_revRoots;   // event functions (IDA calls them between residuals)
    dae::Evaluator& m_ev;               // the full network: projections, modes, recording
    SunContext m_ctx;
    NVector m_y, m_yp, m_id, m_atol, m_q;   // reduced (IDA's); m_q the quadratures
    std::vector<double> m_fy, m_fyp, m_rootY, m_rootYp, m_idFull;   // full
    bool m_fullStale = false;   // m_fy, m_fyp lag behind IDA's vectors
    Matrix m_A;
    LinearSolver m_ls;
    IdaMemory m_mem;
    bool m_sparse = false;
    const bool m_everyRow = m_sink.wantsEveryRow();
    std::vector<double> m_disc, m_before, m_values, m_idValues, m_row, m_next;
    std::vector<double> m_impulse, m_blockImpulse;   // per unknown / per own variable of one block
    std::vector<int> m_roots, m_timeBlocks, m_settleBlocks;
    std::vector<EventRecord> m_log;
    double m_lastStep = 0.0;
    double m_largestStep = 0.0;
    std::string m_idaMessage;
    std::exception_ptr m_error;
    RunGuard m_guard;
    RunStats m_stats, m_live;
};

}  // namespace

RunStats integrate(const dae::DaeSystem& sys, const SolverOptions& options, Recorder& recorder, ResultSink& sink,
                   const RunControl& control) {
    Run run(sys, options, recorder, sink, control);
    return run.execute();
}

}  // namespace endstop::core::solver

