// SPDX-License-Identifier: GPL-3.0-or-later
// Events and consistent restarts of one run (run.hpp): block events at roots and scheduled times,
// then mode iteration with IDACalcIC, the momentum-conserving projection (projection.hpp) and the
// blocks' settle(), and the first step after the restart (restart.hpp).
#include "core/dae/block_structure.hpp"
#include "core/errors.hpp"
#include "core/solver/ida_history.hpp"
#include "core/solver/projection.hpp"
#include "core/solver/restart.hpp"
#include "core/solver/run.hpp"

#include <ida/ida.h>

#include <algorithm>

namespace endstop::core::solver::detail {

namespace {

constexpr int kMaxModeIterations = 50;
// Stepping over an event leaves uncorrected at most what IDA's error test accepts of one step
// (alignHistory)
constexpr double kStepOverShare = 1.0;
// A Newton correction below this share of the error test is not worth moving IDA's history for
constexpr double kAligned = 1e-3;
// alignHistory: the terms of the new modes' difference added to IDA's history (the next one is
// what they leave out)
constexpr int kHistoryTerms = 3;

}   // namespace

void Run::restart(double t) {
    for (int iter = 0;; ++iter) {
        if (iter >= kMaxModeIterations)
            failAt(t, "modes did not settle after an event", "blocks keep switching; check thresholds");
        if (m_fullStale) syncFull(t);
        // without impulsive blocks no projection, no impulses (m_impulse stays empty: every
        // impulse reads 0), and no copy of the state before CalcIC
        const bool impulsive = !m_sys.impulsiveBlocks.empty();
        if (impulsive) m_before = m_fy;   // CalcIC may move algebraic velocities
        if (!calcIC(t)) continue;         // settle() left a mode that had no consistent state
        if (impulsive) {
            m_impulse.assign(at(m_sys.size()), 0.0);
            const ProjectionResult pr =
                project(m_sys, m_ev, state(t), m_before.data(), m_fy.data(), m_ctx, m_projection, m_changedAtEvent);
            for (const Impulse& p : pr.impulses) m_impulse[at(ownUnknown(p.block, p.var))] = p.value;
            if (pr.maxChange > 0.0) {
                m_expandAll = true;
                m_rev.gather(m_fy.data(), nullptr, data(m_y), nullptr);
                if (!calcIC(t)) continue;
            }
        }
        if (!settle(t)) break;
    }
    m_impulse.clear();   // settle() alone sees the impulses
    eventDone();
    chooseFirstStep(t);
    if (m_resting) {   // resting unknowns have zero rates (IDACalcIC or one Newton step may have set some)
        double* yp = data(m_yp);
        for (std::size_t i = 0; i < m_slot.size(); ++i)
            if (m_slot[i] < 0 && yp[i] != 0.0) {
                yp[i] = 0.0;
                m_fullStale = m_expandAll = true;
            }
    }
    initRoots(t);
    ++m_stats.reinits;
}

// Consistent rates of the algebraic unknowns and a first step from the second derivatives
// (restart.hpp); the step before the event if the estimate is not available. At the start the
// time derivative's difference quotient scales with the span up to 1 s: over 1e9 s it stepped
// 0.1 s, half a period of a 5 Hz drive, saw no curvature, and left IDA a first step of 1e6 s that
// ten failed error tests could not bring down (IDA_ERR_FAIL at t = 0).
void Run::chooseFirstStep(double t) {
    void* mem = m_mem.get();
    const double span = std::max(m_opt.stopTime - t, 1e-12);
    const RestartInput in{t,
                          &m_idValues,
                          m_disc.data(),
                          m_discVersion,
                          m_opt.relativeTolerance,
                          data(m_atol),
                          m_lastStep > 0 ? m_lastStep : 1e-3 * std::min(span, 1.0),
                          m_sparse,
                          m_indexOneFactored,
                          m_rateDiagonal ? m_diagonal.data() : nullptr,
                          m_resting ? &m_active : nullptr,
                          &m_restartScratch};
    const RestartGuess guess = estimateRestart(
        m_rev, in, data(m_y), data(m_yp), [this] { return fullSystem(); }, m_ctx);
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

const std::vector<double>& Run::idMask() {
    const std::vector<double>& id = m_journal.changes(m_maskReader, m_disc.data(), m_maskChanged)
                                        ? m_mask.update(m_disc.data(), m_maskChanged)
                                        : m_mask.update(m_disc.data());
    m_journal.seen(m_maskReader);
    return id;
}

bool Run::calcIC(double t) {
    void* mem = m_mem.get();
    holdConstraintForces(t);
    m_indexOneFactored = false;
    m_rateDiagonal = false;
    const std::vector<double>& idFull = idMask();
    m_idValues.resize(at(m_rev.size()));
    m_rev.gather(idFull.data(), nullptr, m_idValues.data(), nullptr);
    std::copy(m_idValues.begin(), m_idValues.end(), data(m_id));
    accumulate();
    // a chain of masses, reduced: its rates (and a source's output) from a few residuals,
    // confirmed, instead of IDACalcIC's Newton iteration (ReducedEvaluator::consistentRates)
    if (m_rev.consistentRates(t, data(m_y), m_idValues.data(), m_disc.data(), m_discVersion, data(m_yp),
                              m_resting ? &m_active : nullptr)) {
        m_diagonal.resize(at(m_rev.size()));
        m_rateDiagonal = m_rev.rateDiagonal(m_idValues.data(), m_diagonal.data(), m_resting ? &m_active : nullptr);
        reInit(t);
        check(IDASetId(mem, idaId()), "IDASetId");
        syncFull(t);
        return true;
    }
    // a mode in which the residual is affine: one Newton step, confirmed (restart.hpp); given up
    // for the run after a few misses in a row (a nonlinear contact law)
    if (m_oneStepMisses < kOneStepMisses) {
        const RestartInput in{t,    &m_idValues, m_disc.data(), m_discVersion, m_opt.relativeTolerance, data(m_atol),
                              1e-3, m_sparse};
        const LinearSystem full = fullSystem();
        if (consistentByOneStep(m_rev, in, data(m_y), data(m_yp), full.A, full.ls, m_ctx)) {
            m_expandAll = true;   // all of y may have moved
            m_oneStepMisses = 0;
            m_indexOneFactored = true;
            reInit(t);
            check(IDASetId(mem, idaId()), "IDASetId");
            syncFull(t);
            return true;
        }
        ++m_oneStepMisses;
    }
    reInit(t);
    check(IDASetId(mem, idaId()), "IDASetId");
    const double span = std::max(m_opt.stopTime - t, 1e-12);
    // IDA refuses a tout1 within round-off of t: at tight tolerances the last step can be that small
    const double minimum = 1e3 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
    const double tout1 = t + std::min(span, std::max(minimum, m_lastStep > 0 ? m_lastStep : 1e-3 * span));
    int flag = IDACalcIC(mem, IDA_YA_YDP_INIT, tout1);
    rethrowCallbackError();
    if (flag < 0) flag = calcICFromTrial(t, tout1, flag);
    if (flag < 0) {
        if (settleOnTrial(t)) return false;
        if (m_eventBlocks.empty()) {
            const std::string failed = "no consistent state found (" + idaFlagName(flag) + "): ";
            if (const Blame open = undetermined(t); !open.what.empty())
                failAt(t, failed + "the equations do not determine " + open.what + " (their matrix is singular here)",
                       "an algebraic loop whose gain is exactly 1 (a signal fed back into its own sum), or two "
                       "constraints that fix the same motion: change a gain, put an integrator in the loop, or "
                       "remove one of the constraints",
                       open.block);
            failAt(t, failed + m_idaMessage, "check for conflicting constraints or inconsistent initial values");
        }
        // after an event: what its block changed asks for a state the rest cannot take (a
        // restitution impact on a motion a velocity source imposes: the source keeps its speed)
        const int event = m_eventBlocks.front();
        const std::string& name = m_sys.topo.blocks[at(event)].name;
        const std::string failed =
            "no consistent state found after the event of " + name + " (" + idaFlagName(flag) + "): " + m_idaMessage;
        if (const Holding h = holdingBeside(event); h.block >= 0) {
            const std::string& held = m_sys.topo.blocks[at(h.block)].name;
            const std::string through = h.via >= 0 ? " (through " + m_sys.topo.blocks[at(h.via)].name + ")" : "";
            failAt(t, failed,
                   "what " + name + " changed at this event asks for a motion that " + held + through +
                       " already holds: an impact on a body whose speed is imposed cannot rebound, and a second lock "
                       "on a held motion leaves the holding forces undetermined; give the contact compliance (a "
                       "stiffness law) or let " +
                       held + " act through a spring",
                   name);
        }
        if (const Blame open = undetermined(t); !open.what.empty())
            failAt(t, failed + "; the equations do not determine " + open.what + " (their matrix is singular here)",
                   "two constraints that fix the same motion after this event: give one of them compliance",
                   open.block.empty() ? name : open.block);
        failAt(t, failed,
               "no source, gear or lock imposes the motion of a body " + name +
                   " acts on; round-off in the network's largest forces can keep IDA from a consistent state at rtol " +
                   formatNumber(m_opt.relativeTolerance) + " and atol " + formatNumber(m_opt.absoluteTolerance) +
                   ": try a larger atol (docs/reliability.md, \"Tight tolerances\")",
               name);
    }
    check(IDAGetConsistentIC(mem, idaY(), idaYp()), "IDAGetConsistentIC");
    fromIda();
    syncFull(t);
    return true;
}

// A block other than `block` that holds, against the reference, the motion of a node `block` acts
// on, directly or through joints that hold two nodes together (a locked stiction or clutch, a
// force sensor): a velocity source, a joint locked to ground, a gear with one side grounded. Such
// a block has a constraint force in its current modes and a port at the reference, or only the
// one port (a friction inertia's stick is a stiff law, not a constraint, and does not count).
// After an event of `block` that leaves no consistent state, it is what the new modes conflict
// with: an impact on a motion it imposes, or a second lock on a motion it already holds. A block
// without modes (a source, a gear) is named before one that holds in its current mode (a lock, a
// stop resting on its bound): of a body resting on a stop and struck by another that a source
// drives, the source is what the impact cannot move (wide seed 5772). {-1, -1} if there is none;
// `via` is the first joint passed through, or -1.
Run::Holding Run::holdingBeside(int block) const {
    const std::span<const int> start = m_sys.bindings[at(block)].portRow();
    std::vector<int> nodes(start.begin(), start.end());
    std::vector<int> reachedVia(nodes.size(), -1);   // per entry of `nodes`: the joint that led there
    std::vector<char> seen(m_sys.bindings.size(), 0);
    seen[at(block)] = 1;
    Holding inMode;   // the first holder that holds in its current mode only
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        if (nodes[n] < 0) continue;
        for (std::size_t b = 0; b < m_sys.bindings.size(); ++b) {
            const std::span<const int> own = m_sys.bindings[b].portRow();
            if (seen[b] || std::ranges::find(own, nodes[n]) == own.end() ||
                dae::constraintForces(m_sys, static_cast<int>(b), m_disc.data()).empty())
                continue;
            seen[b] = 1;
            if (own.size() == 1 || std::ranges::find(own, -1) != own.end()) {
                const Holding h{static_cast<int>(b), reachedVia[n]};
                if (m_sys.bindings[b].discreteCount == 0) return h;
                if (inMode.block < 0) inMode = h;
                continue;
            }
            for (const int r : own)
                if (std::ranges::find(nodes, r) == nodes.end()) {
                    nodes.push_back(r);
                    reachedVia.push_back(reachedVia[n] >= 0 ? reachedVia[n] : static_cast<int>(b));
                }
        }
    }
    return inMode;
}

// IDACalcIC's line search can stall on round-off at tight tolerances where the consistent state is
// near (rtol 1e-11: a restitution impact beside a sliding stiction, IDA_LINESEARCH_FAIL, where the
// same mode 4e-15 s later started at once). One Newton step with the index-1 matrix first, then
// IDACalcIC again from there; if that fails too, y and y' are as they were and the first flag
// stands. Without it the impact's mode was left by settleOnTrial() before any projection: the
// impact was counted and logged, its bounce lost, and the bound found again at the next step.
int Run::calcICFromTrial(double t, double tout1, int flag) {
    int again = flag;
    if (onTrialStep(t, [&] {
            reInit(t);
            check(IDASetId(m_mem.get(), idaId()), "IDASetId");
            again = IDACalcIC(m_mem.get(), IDA_YA_YDP_INIT, tout1);
            rethrowCallbackError();
            return again >= 0;
        }))
        return again;
    reInit(t);
    check(IDASetId(m_mem.get(), idaId()), "IDASetId");
    return flag;
}

// IDACalcIC found no consistent state in these modes, and a block may leave one of them at once:
// a stiction that locks on a motion a velocity source imposes needs a holding force of the imposed
// acceleration over the lock's compliance (1e11 N), and round-off in that force keeps every
// iteration from the tolerance. One Newton step with the index-1 matrix, kept unconfirmed, comes
// near enough to that state for the blocks' settle() to judge it (the lock breaks away). True if
// a block changed its modes, and the restart goes on in them from the state as it was; false,
// with the state as it was, if none did (the failure stands).
bool Run::settleOnTrial(double t) {
    if (m_settleBlocks.empty()) return false;
    bool changed = false;
    onTrialStep(t, [&] {
        m_expandAll = true;
        syncFull(t);
        changed = settle(t);
        return false;
    });
    m_expandAll = true;
    syncFull(t);
    return changed;
}

// One Newton step with the index-1 matrix from the state as it is (trialByOneStep, restart.hpp),
// then use() on the state it reached. y and y' are put back unless use() returns true; false if
// they were put back, or the step could not be taken (a singular matrix, a step not finite).
template <class Use> bool Run::onTrialStep(double t, Use&& use) {
    const long n = m_rev.size();
    const std::vector<double> y(data(m_y), data(m_y) + n), yp(data(m_yp), data(m_yp) + n);   // a failure path
    const RestartInput in{t,    &m_idValues, m_disc.data(), m_discVersion, m_opt.relativeTolerance, data(m_atol),
                          1e-3, m_sparse};
    const LinearSystem full = fullSystem();
    if (trialByOneStep(m_rev, in, data(m_y), data(m_yp), full.A, full.ls, m_ctx) && use()) return true;
    std::copy(y.begin(), y.end(), data(m_y));
    std::copy(yp.begin(), yp.end(), data(m_yp));
    return false;
}

void Run::reInit(double t) {
    toIda();
    check(IDAReInit(m_mem.get(), t, idaY(), idaYp()), "IDAReInit");
    m_tq = t;
    forgetQuadratureStart();
}

// The full network's unknowns from IDA's (and the quadratures'), for everything but IDA.
// While resting, only what the moving part reaches is expanded again, if the modes changed in no
// block that defines a resting explicit variable since the last expansion (ReducedEvaluator::
// expandMoving); m_expandAll asks for all after the resting values may have moved.
void Run::syncFull(double t) {
    const dae::State st{t, data(m_y), data(m_yp), m_disc.data(), m_discVersion};
    const double* q = m_q ? data(m_q) : nullptr;
    bool moving = false;
    if (m_resting) {   // the journal's reader follows the discretes while resting
        moving = m_journal.changes(m_expandReader, m_disc.data(), m_changedDisc) && !m_expandAll;
        for (const int b : m_changedDisc) moving = moving && !m_rev.definesResting(b);
        m_journal.seen(m_expandReader);
    }
    if (!moving || !m_rev.expandMoving(st, q, m_fy.data(), m_fyp.data()))
        m_rev.expand(st, q, m_fy.data(), m_fyp.data());
    m_expandAll = false;
    m_fullStale = false;
}

int Run::ownUnknown(int block, int var) const {
    const dae::Binding& bind = m_sys.bindings[at(block)];
    return bind.slot()[at(bind.varSlot()[at(var)])];
}

template <class F> bool Run::withCtx(int b, double t, F&& f) {
    const dae::Binding& bind = m_sys.bindings[at(b)];
    const Block& blk = *m_sys.topo.blocks[at(b)].block;
    bool changed = false;
    const std::size_t before = m_log.size();
    m_blockImpulse.assign(m_impulse.empty() ? 0 : blk.vars().size(), 0.0);
    for (std::size_t v = 0; v < m_blockImpulse.size(); ++v)
        m_blockImpulse[v] = m_impulse[at(ownUnknown(b, static_cast<int>(v)))];
    // the state first: making it may expand the full vector, which reads the journal and marks
    // it seen. After beforeWrite() that would take this block's write as seen before it happened,
    // and the resting part's next expansion would keep what the write changes (a pulse's output
    // at its time event) as it was.
    const dae::State st = state(t);
    m_journal.beforeWrite(b, m_disc.data());   // the one place a run writes its discretes
    m_ev.withEq(b, st, [&](const Eq<double>& eq) {
        EventCtx ctx(eq, std::span<double>(m_disc.data() + bind.discreteOffset, blk.discretes().size()),
                     m_sys.topo.blocks[at(b)].name, m_log, m_blockImpulse);
        ctx.setTolerances(m_opt.relativeTolerance, m_opt.absoluteTolerance);
        f(ctx);
        changed = ctx.changed();
        if (changed) m_changedAtEvent[at(b)] = 1;
        m_jumped = m_jumped || ctx.jumped();
        if (changed && !ctx.across()) m_across = false;
    });
    ++m_discVersion;   // whatever the block wrote
    for (std::size_t i = before; i < m_log.size(); ++i) {
        m_sink.event(m_log[i]);
        ++m_stats.events;
        m_guard.event(t, m_log[i].block);
    }
    return changed;
}

bool Run::settle(double t) {
    bool changed = false;
    for (int b : m_settleBlocks)
        changed = withCtx(b, t, [&](EventCtx& ctx) { m_sys.topo.blocks[at(b)].block->settle(ctx); }) || changed;
    return changed;
}

void Run::eventDone() {
    m_eventBlocks.clear();
    std::fill(m_changedAtEvent.begin(), m_changedAtEvent.end(), char(0));
}

void Run::handleRoots(double t) {
    IDAGetRootInfo(m_mem.get(), m_rootsFound.data());
    m_jumped = false;
    m_across = true;
    captureHistory();   // the old modes' residuals along IDA's history, before the blocks change them
    // live roots run in block order, and in event order within a block
    for (std::size_t j = 0; j < m_idaRoots.size(); ++j) {
        if (m_rootsFound[j] == 0) continue;
        const auto k = at(m_idaRoots[j]);
        const int b = m_rootBlock[k], i = m_liveRoots[k] - m_sys.bindings[at(b)].eventOffset, dir = m_rootsFound[j];
        m_eventBlocks.push_back(b);
        const std::size_t logged = m_log.size();
        withCtx(b, t, [&](EventCtx& ctx) { m_sys.topo.blocks[at(b)].block->onEvent(ctx, i, dir); });
        // a root its block does not log (a corner of a contact law) counts towards chattering too:
        // a corner crossed back and forth 1e-15 s apart otherwise ran to the step limit
        if (m_log.size() == logged) m_guard.event(t, m_sys.topo.blocks[at(b)].name, false);
    }
    guardChattering(t);
    if (m_opt.stepOver && !m_jumped && stepOver(t)) {
        eventDone();
        return;
    }
    restart(t);
}

// IDA's state at the end of its last step (past the root) was computed in the old modes; the
// functions below measure it against the new ones and move IDA's history onto them.

// The vectors of a step-over, made for IDA's current size on first use
void Run::overVectors() {
    const long n = idaSize();
    if (!m_overY || N_VGetLength(m_overY.get()) != n)
        for (NVector* v : {&m_overY, &m_overYp, &m_overR, &m_overROld, &m_overX, &m_overW, &m_overT})
            *v = makeVector(n, m_ctx);
}

// The residual at the end of IDA's last step (IDA's own y and y' there), in the current modes
bool Run::residualAtEnd(N_Vector r) {
    void* mem = m_mem.get();
    double tn = 0.0;
    if (IDAGetCurrentTime(mem, &tn) != IDA_SUCCESS || IDAGetDky(mem, tn, 0, m_overY.get()) != IDA_SUCCESS ||
        IDAGetDky(mem, tn, 1, m_overYp.get()) != IDA_SUCCESS)
        return false;
    const int flag = residualFn(tn, m_overY.get(), m_overYp.get(), r, this);
    rethrowCallbackError();
    return flag == 0;
}

// What the new modes ask of IDA's last step: the Newton correction, with IDA's current iteration
// matrix, of the new modes' residual at its end (left in m_overX), and its norm in IDA's error
// weights; infinite where it cannot be had. At a change across, of the new residual less the old
// one's (captureHistory): IDA solved the old modes only to its Newton tolerance, and the
// difference takes that noise out.
double Run::newtonCorrection() {
    constexpr double kNone = std::numeric_limits<double>::infinity();
    overVectors();
    if (!residualAtEnd(m_overR.get()) || IDAGetErrWeights(m_mem.get(), m_overW.get()) != IDA_SUCCESS) return kNone;
    if (m_hist.captured && m_across) N_VLinearSum(1.0, m_overR.get(), -1.0, m_overROld.get(), m_overR.get());
    const LinearSystem sys = m_resting ? LinearSystem{m_Aa.get(), m_lsa.get()} : fullSystem();
    if (SUNLinSolSolve(sys.ls, sys.A, m_overX.get(), m_overR.get(), 0.0) != SUNLS_SUCCESS) return kNone;
    N_VScale(-1.0, m_overX.get(), m_overX.get());
    const double norm = N_VWrmsNorm(m_overX.get(), m_overW.get());
    return std::isfinite(norm) ? norm : kNone;
}

// At a root, before any block changes its modes, where a block that can change across fired
// (Block::changesAcross): the old modes' residual at the end of IDA's last step, and (where the
// history can be moved) at every point of IDA's history.
void Run::captureHistory() {
    m_hist = {};
    const long n = idaSize();
    bool across = false;   // a block whose events can change across fired here
    for (std::size_t j = 0; j < m_idaRoots.size() && !across; ++j)
        across = m_rootsFound[j] != 0 &&
                 m_sys.topo.blocks[at(m_rootBlock[at(m_idaRoots[j])])].block->changesAcross();
    if (!across) return;
    overVectors();
    if (!residualAtEnd(m_overROld.get())) return;
    m_hist.captured = true;
    if (!canShiftHistory() || m_resting || m_idValues.size() != static_cast<std::size_t>(n)) return;
    m_hist.ida = historyOf(m_mem.get());
    if (!m_histY[0] || N_VGetLength(m_histY[0].get()) != n)
        for (auto* set : {&m_histY, &m_histYp, &m_histOld, &m_histNew, &m_histRate, &m_histMove, &m_histTerm})
            for (NVector& v : *set) v = makeVector(n, m_ctx);
    for (int i = 0; i < m_hist.ida.points; ++i) {
        const double ti = m_hist.ida.t[at(i)];
        historyAt(m_mem.get(), ti, m_histY[at(i)].get(), m_histYp[at(i)].get());
        const int flag = residualFn(ti, m_histY[at(i)].get(), m_histYp[at(i)].get(), m_histOld[at(i)].get(), this);
        rethrowCallbackError();
        if (flag != 0) return;
    }
    m_hist.along = m_hist.ida.points >= 2;
}

namespace {
// A step along dir from base for a difference quotient: 1e-8 of base's size (at least 1e-8)
// along dir's largest component; 0 when dir is zero or not finite.
double differenceStep(N_Vector base, N_Vector dir) {
    const double size = N_VMaxNorm(dir);
    if (!(size > 0.0) || !std::isfinite(size)) return 0.0;
    return 1e-8 * (1.0 + N_VMaxNorm(base)) / size;
}
}   // namespace

// Going on from the end of IDA's last step leaves its part past the root in the old modes, and its
// history (the polynomial the next steps predict from) too. The history is moved onto the new
// modes' solution through the state at the root tc (docs/engine.md, "Correcting IDA's history at
// a corner"). With M y' = f(y) in either modes, the new solution is y + d, where
//   d' = M^-1 (f_new(y + d) - f_old(y)) = g(t) + J d,   d(tc) = 0,
// g = M^-1 (f_new - f_old)(y(t)) along the history (zero at the root, where the rows are
// continuous) and J = M^-1 f_y. g is read at every point of the history from the two modes'
// residuals there (M^-1 as cj times IDA's iteration matrix inverted); integrated from tc through
// the polynomial it interpolates over those points and the root, it gives d's first term, and J
// applied to each term and integrated again the next (positions from velocities, bodies coupled
// through a spring). kHistoryTerms terms are added at every point; the next one is what they
// leave out. That, and the Newton correction the new modes still ask at the last point, must be
// within what IDA's error test accepts of one step; where the first is not, the event is stepped
// over uncorrected as long as the Newton correction allows it, and otherwise it restarts.
// Algebraic unknowns are left to the Newton iteration. At the root d is zero, so the root, the
// rows recorded there and a restart from it are as before. Without the history (another
// SUNDIALS, a part of the network at rest) events are stepped over uncorrected.
bool Run::alignHistory(double t) {
    const double norm = newtonCorrection();
    if (!m_hist.along || !m_across || !std::isfinite(norm)) return norm <= kStepOverShare;
    if (norm <= kAligned) return true;   // nothing worth moving
    const IdaHistory& h = m_hist.ida;
    const int points = h.points;
    const long n = idaSize();
    // a point at the root itself (a root at a step's end) leaves the history as it is
    for (int i = 0; i < points; ++i)
        if (std::abs(h.t[at(i)] - t) <= 1e-12 * (h.t[0] - h.t[at(points - 1)])) return norm <= kStepOverShare;
    const LinearSystem sys = fullSystem();
    const auto derivativePart = [&](N_Vector v) {
        double* a = N_VGetArrayPointer(v);
        for (long k = 0; k < n; ++k)
            if (m_idValues[at(static_cast<int>(k))] == 0.0) a[k] = 0.0;
    };
    // out = M^-1 b on the derivative part (M = F_y'), as cj J^-1 b with IDA's iteration matrix
    // J = F_y + cj F_y' (off by about h^2 times the stiffest rate squared, relatively: where that
    // matters, the checks at the end refuse the move)
    const auto massSolve = [&](N_Vector b, N_Vector out) {
        if (SUNLinSolSolve(sys.ls, sys.A, out, b, 0.0) != SUNLS_SUCCESS) return false;
        N_VScale(h.cjOld, out, out);
        derivativePart(out);
        return true;
    };
    // the new modes' residual at every point, and g there: M^-1 (f_new - f_old) = -M^-1 (r_new - r_old)
    for (int i = 0; i < points; ++i) {
        const int flag = residualFn(h.t[at(i)], m_histY[at(i)].get(), m_histYp[at(i)].get(), m_histNew[at(i)].get(), this);
        rethrowCallbackError();
        if (flag != 0) return false;
        N_VLinearSum(-1.0, m_histNew[at(i)].get(), 1.0, m_histOld[at(i)].get(), m_histTerm[at(i)].get());
        if (!massSolve(m_histTerm[at(i)].get(), m_histRate[at(i)].get())) return false;
    }
    // W[k][i]: the integral from tc to point k of the Lagrange polynomial of point i over the points
    // and the root (Gauss-Legendre, exact for the degrees here)
    constexpr std::array<double, 4> gx{-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526};
    constexpr std::array<double, 4> gw{0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538};
    std::array<std::array<double, kMaxHistoryPoints>, kMaxHistoryPoints> W{};
    for (int k = 0; k < points; ++k)
        for (int i = 0; i < points; ++i) {
            const double half = (h.t[at(k)] - t) / 2;
            double sum = 0.0;
            for (std::size_t g = 0; g < gx.size(); ++g) {
                const double tau = t + half * (1.0 + gx[g]);
                double L = (tau - t) / (h.t[at(i)] - t);   // the root is a node too, where g is zero
                for (int l = 0; l < points; ++l)
                    if (l != i) L *= (tau - h.t[at(l)]) / (h.t[at(i)] - h.t[at(l)]);
                sum += gw[g] * L;
            }
            W[at(k)][at(i)] = half * sum;
        }
    // the terms: integrate the rates, then the rates of the next term are J times this one
    std::array<N_Vector, kMaxHistoryPoints> move{}, term{}, rate{};
    std::array<double, kMaxHistoryPoints> c{};
    for (int i = 0; i < points; ++i) {
        move[at(i)] = m_histMove[at(i)].get();
        term[at(i)] = m_histTerm[at(i)].get();
        rate[at(i)] = m_histRate[at(i)].get();
        N_VConst(0.0, move[at(i)]);
    }
    double left = 0.0;
    for (int order = 0; order <= kHistoryTerms; ++order) {
        for (int k = 0; k < points; ++k) {
            for (int i = 0; i < points; ++i) c[at(i)] = W[at(k)][at(i)];
            N_VLinearCombination(points, c.data(), rate.data(), term[at(k)]);
        }
        if (order == kHistoryTerms) {
            for (int k = 0; k < points; ++k) left = std::max(left, N_VWrmsNorm(term[at(k)], m_overW.get()));
            break;
        }
        for (int k = 0; k < points; ++k) N_VLinearSum(1.0, move[at(k)], 1.0, term[at(k)], move[at(k)]);
        // J term at every point: -M^-1 F_y term, F_y term by a difference of residuals in y
        for (int i = 0; i < points; ++i) {
            const double eps = differenceStep(m_histY[at(i)].get(), term[at(i)]);
            if (eps == 0.0) {
                N_VConst(0.0, rate[at(i)]);
                continue;
            }
            N_VLinearSum(1.0, m_histY[at(i)].get(), eps, term[at(i)], m_overT.get());
            const int flag = residualFn(h.t[at(i)], m_overT.get(), m_histYp[at(i)].get(), rate[at(i)], this);
            rethrowCallbackError();
            if (flag != 0) return false;
            N_VLinearSum(-1.0 / eps, rate[at(i)], 1.0 / eps, m_histNew[at(i)].get(), term[at(i)]);   // -F_y term
            if (!massSolve(term[at(i)], rate[at(i)])) return false;
        }
    }
    if (!(left <= kStepOverShare)) return norm <= kStepOverShare;   // as it is, or not at all
    shiftHistory(m_mem.get(), h, move.data());
    const double after = newtonCorrection();
    return after <= kStepOverShare;
}

// Every change at this root left its block's rows where they were (EventCtx::continuous()): the
// modes settle without a consistent restart, and IDA goes on from the end of its last step with
// its order, step and history; only the live roots follow the new modes. A change in settle()
// that jumps, one that changes which unknowns are differential, or a last step too far off the
// new modes, even with its history corrected (alignHistory), restarts after all.
bool Run::stepOver(double t) {
    for (int iter = 0;; ++iter) {
        if (iter >= kMaxModeIterations) return false;
        if (!settle(t)) break;
        if (m_jumped) return false;
    }
    const std::vector<double>& idFull = idMask();
    m_idScratch.resize(at(m_rev.size()));
    m_rev.gather(idFull.data(), nullptr, m_idScratch.data(), nullptr);
    if (m_idScratch != m_idValues || !alignHistory(t)) return false;
    initRoots(t);
    if (rootAtRest(t)) return false;
    // a root at which no block changed anything is no event (a function read a few ulps back
    // across its zero just after the history was moved, and refused by its block)
    if (std::ranges::find(m_changedAtEvent, char(1)) != m_changedAtEvent.end()) ++m_stats.steppedOver;
    return true;
}

// A live root that is exactly zero at the event (a limiter whose input sits at its limit, a slip
// that the modes make identically zero): a restart has IDA set it aside until it leaves zero, but
// going on from the root IDA reads a zero there and just after it as two roots too close to tell
// apart, and fails (IDA_ILL_INPUT, "Root found at and very near t").
bool Run::rootAtRest(double t) {
    m_rootScratch.resize(m_idaRoots.size());
    if (m_rootScratch.empty()) return false;
    const int flag = rootFn(t, idaY(), idaYp(), m_rootScratch.data(), this);
    rethrowCallbackError();
    return flag != 0 || std::ranges::find(m_rootScratch, 0.0) != m_rootScratch.end();
}

// An event due by rounding (dueBy) is taken at its own time: the block sees that time (a pulse
// or a table sets its modes from it) and the next one is asked for after it. Taken at t, a step
// scheduled at 1e-15 s met at t = 1e-16 s was due again at once, 500 times.
void Run::handleTimeEvents(double t) {
    for (std::size_t i = 0; i < m_timeBlocks.size(); ++i) {
        if (m_next[i] > dueBy(t)) continue;
        const int b = m_timeBlocks[i];
        m_eventBlocks.push_back(b);
        const Block& blk = *m_sys.topo.blocks[at(b)].block;
        const double scheduled = std::max(t, m_next[i]);
        withCtx(b, scheduled, [&](EventCtx& ctx) {
            ctx.log(EventKind::Time, 0.0);
            blk.onTimeEvent(ctx);
        });
        m_next[i] = blk.nextTimeEvent(scheduled);
    }
    guardChattering(t);
    restart(t);
}

}   // namespace endstop::core::solver::detail
