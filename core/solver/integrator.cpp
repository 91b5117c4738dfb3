// SPDX-License-Identifier: GPL-3.0-or-later
// The IDA integration loop (integrator.hpp): steps, output per step or on a grid, statistics and
// failures. Set-up is in ida_setup.cpp, events and restarts in run_events.cpp (run.hpp).
#include "core/solver/integrator.hpp"

#include "core/dae/block_structure.hpp"
#include "core/errors.hpp"
#include "core/solver/restart.hpp"
#include "core/solver/run.hpp"
#include "core/solver/singular.hpp"

#include <ida/ida.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <span>

namespace endstop::core::solver::detail {

RunStats Run::execute() {
    const auto start = Clock::now();
    if (m_rec.omitted() > 0) m_sink.omitted(m_rec.omitted());
    m_sink.begin(m_rec.columns());
    try {
        if (m_sys.size() == 0) return withoutUnknowns(start);   // IDA needs at least one
        setUp();
        restart(0.0);
        watchResting(0.0, true);   // the first restart may have changed modes in the resting part
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

// Nothing to integrate (a reference alone, an empty model): the outputs are constant.
RunStats Run::withoutUnknowns(Clock::time_point start) {
    m_stats.linearSolver = "none";
    m_disc = m_sys.discrete0;
    m_journal.forget();
    ++m_discVersion;
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

void Run::loop() {
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
            watchResting(t, true);
            continue;
        }
        if (endWithinRounding(t, outputIndex)) break;
        void* mem = m_mem.get();   // a new one each time the moving part grows
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
        // while resting (the drift is watched per step) and with quadratures (integrated over
        // each step), every step comes back, and the grid's rows are IDA's interpolant at their
        // times (recordPassedGrid); IDA scales its own first step after a restart to tout, which
        // stays the next grid time where only the quadratures ask for single steps
        const bool stepwise = !grid || m_resting || m_q;
        const double tout = !grid || m_resting ? tstop : std::min(tstop, gridTime);
        const int flag = IDASolve(mem, tout, &t, idaY(), idaYp(), stepwise ? IDA_ONE_STEP : IDA_NORMAL);
        rethrowCallbackError();
        fromIda();
        m_idaT = t;
        if (flag < 0 && flag != IDA_TOO_MUCH_WORK) {
            try {   // the last row's energies at IDA's last step, where its rates can be had
                advanceQuadratures(t);
            } catch (...) {   // else those of the step before; the failure is what the run reports
            }
            failSolve(t, flag);
        }
        m_fullStale = true;   // expanded when something reads it
        double h = 0.0;
        if (IDAGetLastStep(mem, &h) == IDA_SUCCESS && h > 0) {
            m_lastStep = h;
            m_largestStep = std::max(m_largestStep, h);
        }
        long steps = 0;
        IDAGetNumSteps(mem, &steps);
        m_guard.step(t, h, m_stats.steps + steps, [&] {
            const Blame b = culprit(t);
            return StallCulprit(b.block, b.what, b.flow);
        });
        if (flag == IDA_TOO_MUCH_WORK) continue;   // a long stretch between output times
        const bool root = flag == IDA_ROOT_RETURN;
        if (!grid) advanceQuadratures(t);   // on a grid, after its rows inside the step
        const bool timeEvent = !root && t >= tNext && t < m_opt.stopTime;   // IDA_SUCCESS when tout == tstop
        if (!grid) {
            if (root || timeEvent)
                recordConsistent(t);
            else
                recordRow(t);
        } else if (stepwise) {
            recordPassedGrid(t, outputIndex, root);
        } else if (!root && t >= gridTime) {
            recordRow(t);
            ++outputIndex;
        }
        if (grid) advanceQuadratures(t);
        const long restarts = m_stats.reinits;
        if (root) handleRoots(t);
        if (timeEvent) handleTimeEvents(t);
        // after a restart the rates are consistent already; after an event stepped over they are
        // IDA's, and the row takes consistent ones as the row before it did
        if ((root || timeEvent) && !grid) m_stats.reinits == restarts ? recordConsistent(t) : recordRow(t);
        watchResting(t, root || timeEvent);
        if (m_ctl.progress) {
            accumulateInto(m_live);
            m_ctl.progress(t, m_live);
        }
    }
    m_stats.completed = true;
}

// The stop time within round-off of t, where an event just before it (a pulse's edge at
// 0.0163 + 7 * 0.0691 = 0.5 - 5.6e-17 s) left the run: after that event's restart IDA refuses a
// stop time that close (IDA_ILL_INPUT, "tout too close to t0"), and in that time nothing can move.
// The rows still due (the grid's, up to the stop time, or the last) take this state at their
// times. Rounding as IDA reckons it, relative to both times, so a short run from 0 still steps.
bool Run::endWithinRounding(double t, long& outputIndex) {
    const double stop = m_opt.stopTime;
    if (stop - t > 4 * std::numeric_limits<double>::epsilon() * (std::abs(t) + std::abs(stop))) return false;
    if (m_opt.outputInterval > 0) {   // the grid's points not passed yet; the last one is the stop time
        for (; static_cast<double>(outputIndex - 1) * m_opt.outputInterval < stop; ++outputIndex)
            recordRow(std::min(stop, static_cast<double>(outputIndex) * m_opt.outputInterval));
    } else {
        recordRow(stop);
    }
    return true;
}

// The grid's rows that the step just taken to t passed, while resting: IDA's interpolant at each
// (IDAGetDky, as IDA_NORMAL returns it), the one at t (up to rounding, as in loop()) from the
// state. A row at a root's time comes after the event (catchUpGrid).
void Run::recordPassedGrid(double t, long& outputIndex, bool root) {
    const double close = 4 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
    for (;;) {
        const double g = std::min(m_opt.stopTime, static_cast<double>(outputIndex) * m_opt.outputInterval);
        const bool atT = g - t <= 1e-12 * std::max(1.0, g) && g >= t - close;
        if (g > t && !atT) return;
        if (root && g >= t - close) return;
        if (atT) {
            advanceQuadratures(t);
            recordRow(t);
        } else {
            recordInterpolated(g);
        }
        ++outputIndex;
        if (g >= m_opt.stopTime) return;
    }
}

void Run::recordInterpolated(double tg) {
    void* mem = m_mem.get();
    advanceQuadratures(tg);
    N_Vector vectors[] = {idaY(), idaYp()};
    m_stepEnd.clear();
    for (N_Vector v : vectors)
        m_stepEnd.insert(m_stepEnd.end(), N_VGetArrayPointer(v), N_VGetArrayPointer(v) + N_VGetLength(v));
    check(IDAGetDky(mem, tg, 0, idaY()), "IDAGetDky");
    check(IDAGetDky(mem, tg, 1, idaYp()), "IDAGetDky");
    fromIda();
    m_fullStale = true;
    recordRow(tg);
    std::size_t k = 0;   // back to the step's end
    for (N_Vector v : vectors)
        for (double& x : std::span<double>(N_VGetArrayPointer(v), static_cast<std::size_t>(N_VGetLength(v))))
            x = m_stepEnd[k++];
    fromIda();
    m_fullStale = true;
}

// A root can land on an output time (within rounding); IDA refuses a tout that close to the
// restart time, so the row there is taken from the state just after the event.
void Run::catchUpGrid(double t, long& outputIndex) {
    const double close = 4 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
    while (static_cast<double>(outputIndex) * m_opt.outputInterval - t <= close) {
        recordRow(t);
        ++outputIndex;
    }
}

double Run::nextTimeEvent() const {
    double tn = std::numeric_limits<double>::infinity();
    for (const double next : m_next) tn = std::min(tn, next);
    return tn;
}

dae::State Run::state(double t) {
    if (m_fullStale) syncFull(t);
    return {t, m_fy.data(), m_fyp.data(), m_disc.data(), m_discVersion};
}

void Run::recordRow(double t) {
    m_stats.finalTime = t;
    if (!m_everyRow && t > 0.0) return;   // a summary: the last row comes from recordLast()
    m_rec.sample(m_ev, state(t), m_row);
    m_sink.row(t, m_row);
}

// The rows at an event, reduced: the rates the values ask for where the operator gives them at
// once (ReducedEvaluator::consistentRates: a chain of masses), instead of IDA's BDF rates, which
// satisfy the equations only to the Newton tolerance of the values. The row after a restart has
// consistent rates already, so an acceleration's jump is then F/m to the tolerance of the values,
// and an event stepped over shows none. IDA's own y and y' are left as they were.
void Run::recordConsistent(double t) {
    if (!m_opt.reduce || !m_everyRow || m_idValues.size() != at(m_rev.size())) return recordRow(t);
    const auto n = static_cast<std::size_t>(m_rev.size());
    m_savedY.assign(data(m_y), data(m_y) + n);
    m_savedYp.assign(data(m_yp), data(m_yp) + n);
    if (!m_rev.consistentRates(t, data(m_y), m_idValues.data(), m_disc.data(), m_discVersion, data(m_yp),
                               m_resting ? &m_active : nullptr))
        return recordRow(t);
    m_fullStale = true;
    recordRow(t);
    std::copy(m_savedY.begin(), m_savedY.end(), data(m_y));
    std::copy(m_savedYp.begin(), m_savedYp.end(), data(m_yp));
    m_fullStale = true;
}

void Run::recordLast() {
    if (m_everyRow || !m_y || m_stats.finalTime <= 0.0) return;
    m_rec.sample(m_ev, state(m_stats.finalTime), m_row);
    m_sink.row(m_stats.finalTime, m_row);
}

void Run::accumulateInto(RunStats& s) {
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

void Run::finish(Clock::time_point start) {
    if (m_mem) accumulate();
    m_stats.solveSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    m_sink.end(m_stats);
}

void Run::rethrowCallbackError() {
    if (m_error) std::rethrow_exception(std::exchange(m_error, nullptr));
}

void Run::failSolve(double t, int flag) {
    long steps = 0;
    IDAGetNumSteps(m_mem.get(), &steps);
    // refused before its first step: no local error to read
    const bool atStart = steps == 0 && (flag == IDA_ILL_INPUT || flag == IDA_TOO_MUCH_ACC);
    const Blame b = atStart ? culpritAtStart(t, flag == IDA_TOO_MUCH_ACC) : culprit(t);
    Diagnostic d{
        Severity::Error,
        b.block,
        {},
        {},
        "simulation failed at t = " + formatNumber(t) + " s (" + idaFlagName(flag) + ")" +
            (b.what.empty() ? "" : "; " + b.what),
        b.flow > RunGuard::kRunawayFlow ? runawayHint() : idaFailureHint(flag) + reducedWouldCompute(flag, b.unknown)};
    throw SolverError(Diagnostics{d});
}

// As drawn, a force that the reduction would compute from the state (an explicit variable) is an
// unknown of IDA's, and its error test can fail where the reduced engine has no such test: near
// zero its weight is the absolute tolerance alone (docs/engine.md, "What the error test covers").
// The gear train example at rtol 0.5 and atol 1e-10 fails so as drawn on stage 2's mesh torque,
// zero on its low clamp, and runs reduced. Said only where the reduction would make that unknown
// explicit.
std::string Run::reducedWouldCompute(int flag, int unknown) const {
    if (flag != IDA_ERR_FAIL || m_opt.reduce || unknown < 0) return {};
    try {
        const dae::ReductionPlan plan = dae::planReduction(m_sys, true);
        if (plan.fate[at(unknown)] != dae::ReductionPlan::Fate::Explicit) return {};
    } catch (const std::exception&) {
        return {};   // a diagnosis only
    }
    return "; as drawn, the " + m_sys.describeUnknown(unknown) +
           " is an unknown of that test, which the reduced engine (the default) computes from the state instead";
}

Run::Blame Run::blame(double t, const char* measure, int reduced, bool byFlow) {
    const int u = m_red.kept[at(reduced)];
    Blame b{std::string(measure) + " in the " + m_sys.describeUnknown(u), m_sys.blockOfUnknown(u), u};
    if (byFlow) drivenBy(t, u, b);
    return b;
}

// After IDA's first step the largest local error is where the trouble shows, not always where it
// comes from. Where the flows at the node nearby are far out of scale (a force of 1e300 N, a mass
// of 1e-300 kg: beyond a factor 1e6 from 1 in SI) they name the block, as at the start: through
// drivenBy for a node's velocity, and for a block's own unknown (a mass's position, a stop's
// penetration) through the node of its ports whose largest flow is largest. Otherwise the unknown's
// own block stays named: a clutch whose torque IDA cannot follow, under ordinary torques, is
// named, not the hub it turns.
Run::Blame Run::blameByNodes(double t, const char* measure, int reduced) {
    constexpr double kOutOfScale = 6.0;   // decades from 1 in SI
    const int u = m_red.kept[at(reduced)];
    const Blame own{std::string(measure) + " in the " + m_sys.describeUnknown(u), m_sys.blockOfUnknown(u), u};
    const dae::Unknown& k = m_sys.unknowns[at(u)];
    std::vector<int> nodes;
    if (k.kind == dae::Unknown::Kind::Node) nodes.push_back(u);
    if (k.kind == dae::Unknown::Kind::Own) {
        const dae::Binding& bind = m_sys.bindings[at(k.block)];
        for (std::size_t p = 0; p < bind.portRow().size(); ++p)
            if (const int v = bind.portUnknown()[p]; v >= 0 && m_sys.unknowns[at(v)].kind == dae::Unknown::Kind::Node)
                nodes.push_back(v);
    }
    Blame best = own;
    double largest = -1.0;
    for (const int v : nodes) {
        Blame candidate = own;
        if (const FlowReading r = drivenBy(t, v, candidate); r.size > largest && r.outOfScale > kOutOfScale) {
            largest = r.size;
            best = candidate;
            best.flow = r.size;
        }
    }
    return best;
}

namespace {
// a holding block's flow gives way to the largest other flow within this share of it (drivenBy,
// runawayAnywhere)
constexpr double kReactionShare = 1e-2;
double magnitude(double v) { return std::isfinite(v) ? std::abs(v) : std::numeric_limits<double>::infinity(); }
// two significant digits, for a reading in a message ("1e+16", not "10459477090366198")
double twoDigits(double v) {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), "%.2g", v);
    return std::strtod(text.data(), nullptr);
}
}   // namespace

// A node's velocity that changes too fast for IDA is driven by what flows into its balance: the
// block whose flow there is largest (or not finite) at the current state, read at zero
// acceleration so that a mass's own term, which balances the others, is left out. A spring of
// 1e300 N/m names the spring, not the first block on the node. A block whose flow comes from its
// input (a force source) hands the blame on upstream, to the block whose output carries that
// size (a constant of 1e300 N, through a sum). The message gives the flow and the node's inertia.
// Nothing changes if u is not a node's velocity. Returns the largest flow's size (infinite if it
// is not finite) and how far out of scale it or the inertia is; a size of -1 where nothing was read.
Run::FlowReading Run::drivenBy(double t, int u, Blame& blame) {
    const dae::Unknown& k = m_sys.unknowns[at(u)];
    if (k.kind != dae::Unknown::Kind::Node) return {};
    int row = -1;
    for (std::size_t r = 0; r < m_sys.rows.size() && row < 0; ++r)
        if (m_sys.rows[r].kind == dae::Row::Kind::Node && m_sys.rows[r].index == k.index) row = static_cast<int>(r);
    if (row < 0) return {};
    const dae::State now = state(t);
    std::vector<double> yp(now.yp, now.yp + m_sys.size());
    yp[at(u)] = 0.0;
    const dae::State still{now.t, now.y, yp.data(), now.discrete, now.discreteVersion};
    struct Writer {
        int block, port;
        double flow;
        bool reaction;   // the block holds a motion in its current mode: its flow is what that takes
    };
    std::vector<Writer> writers;
    for (std::size_t b = 0; b < m_sys.bindings.size(); ++b) {
        const std::span<const int> ports = m_sys.bindings[b].portRow();
        for (std::size_t p = 0; p < ports.size(); ++p) {
            if (ports[p] != row) continue;
            const double f = m_ev.throughResidual(static_cast<int>(b), still, static_cast<int>(p));
            const bool reaction = !dae::constraintForces(m_sys, static_cast<int>(b), now.discrete).empty();
            writers.push_back({static_cast<int>(b), static_cast<int>(p), f, reaction});
        }
    }
    // The largest flow names its block. A block that holds the motion (a velocity source, a locked
    // joint) takes whatever force that needs, so when it is the largest it is the effect: of the
    // others, the largest within a factor kReactionShare of it is the cause it holds against (a
    // runaway spring pulling on a driven body named the source). Alone, or against flows far
    // smaller, the holding block itself is what drives the node (an imposed motion of 1e300 m/s^2).
    const auto largestOf = [&](bool skipReactions) {
        const Writer* best = nullptr;
        for (const Writer& w : writers)
            if (!(skipReactions && w.reaction) && (!best || magnitude(w.flow) > magnitude(best->flow))) best = &w;
        return best;
    };
    const Writer* first = largestOf(false);
    const Writer* top = first;
    if (first && first->reaction)
        if (const Writer* cause = largestOf(true);
            cause && magnitude(cause->flow) >= kReactionShare * magnitude(first->flow))
            top = cause;
    if (!top || top->flow == 0.0) return {};
    const int holder = top != first ? first->block : -1;   // the holding block passed over
    int block = top->block;
    const double flow = top->flow;
    double size = magnitude(flow);
    // the node's inertia: what the flows add per unit of acceleration, and its largest part
    yp[at(u)] = 1.0;
    double inertia = 0.0, heaviest = 0.0;
    int massive = -1;
    for (const Writer& w : writers) {
        const double d = m_ev.throughResidual(w.block, still, w.port) - w.flow;
        inertia += d;
        if (std::abs(d) > heaviest) {
            heaviest = std::abs(d);
            massive = w.block;
        }
    }
    const int from = block;
    const double force = size;
    // upstream while the largest input is as large as what the block passes on
    for (int depth = 0; depth < 64; ++depth) {
        const graph::TopoBlock& tb = m_sys.topo.blocks[at(block)];
        int next = -1;
        double largest = -1.0;
        const std::span<const graph::PortAt> sources = tb.source();
        for (std::size_t p = 0; p < sources.size(); ++p) {
            if (tb.block->ports()[p].kind != PortKind::Input || sources[p].block < 0) continue;
            const double v = magnitude(now.y[at(ownUnknown(sources[p].block, sources[p].port))]);
            if (v > largest) {
                largest = v;
                next = sources[p].block;
            }
        }
        if (next < 0 || largest < 0.5 * size) break;
        block = next;
        size = largest;
    }
    const auto name = [&](int b) { return m_sys.topo.blocks[at(b)].name; };
    const bool rotational = m_sys.topo.nodes[at(k.index)].domain == Domain::Rotational;
    blame.what += std::string("; the largest ") + (rotational ? "torque" : "force") + " there is " +
                  formatNumber(std::abs(flow)) + (rotational ? " N*m" : " N") + ", from " + name(from) +
                  (block != from ? " (its input from " + name(block) + ")" : std::string()) +
                  (holder >= 0 ? ", against which " + name(holder) + " holds the node's motion" : std::string());
    blame.block = name(block);
    // A failure at the start comes from a value far out of scale: of the flow and the inertia, the
    // one farther from 1 in SI is taken for it (a mass of 1e-300 kg under 19.62 N, not the weight).
    inertia = std::abs(inertia);
    const double forceScale = std::abs(std::log10(force));
    if (massive < 0 || !std::isfinite(inertia) || inertia == 0.0) return {force, forceScale};
    blame.what += std::string(", on ") + (rotational ? "an inertia of " : "a mass of ") + formatNumber(inertia) +
                  (rotational ? " kg*m^2" : " kg") + " (" + name(massive) + ")";
    const double inertiaScale = std::abs(std::log10(inertia));
    if (inertiaScale > forceScale) blame.block = name(massive);
    return {force, std::max(forceScale, inertiaScale)};
}

// The unknown with the largest weighted local error points at the culprit: "largest error in the
// angular velocity of node {...}" and the block that owns it.
Run::Blame Run::culprit(double t) {
    NVector ele = makeVector(idaSize(), m_ctx), w = makeVector(idaSize(), m_ctx);
    if (IDAGetEstLocalErrors(m_mem.get(), ele.get()) != IDA_SUCCESS ||
        IDAGetErrWeights(m_mem.get(), w.get()) != IDA_SUCCESS)
        return {};
    int worst = -1;
    double big = 0.0;
    for (int i = 0; i < idaSize(); ++i) {
        const double e = std::abs(data(ele)[i] * data(w)[i]);
        if (e > big || (std::isnan(e) && big < std::numeric_limits<double>::infinity())) {
            big = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
            worst = i;
        }
    }
    if (worst < 0) return culpritAtStart(t);   // no error anywhere: the rates may still tell
    Blame b = blameByNodes(t, "largest error", m_resting ? m_active[at(worst)] : worst);
    if (b.flow <= RunGuard::kRunawayFlow) runawayAnywhere(t, b);
    return b;
}

// The largest error can sit far from a runaway: on a signal block's output that drives a velocity
// source holding a body a runaway spring pulls on (1e17 N at 0.4 s, warned at load; the error
// test as drawn fails on the sine feeding the source). Every flow of the network is read once, at
// zero acceleration of every node, so that a mass's own term is left out; a block that holds a
// motion gives way to the largest other flow within kReactionShare of it, as in drivenBy. Above
// RunGuard::kRunawayFlow that flow's block is named and the message gives the flow.
void Run::runawayAnywhere(double t, Blame& blame) {
    const dae::State now = state(t);
    std::vector<double> yp(now.yp, now.yp + m_sys.size());
    for (std::size_t u = 0; u < m_sys.unknowns.size(); ++u)
        if (m_sys.unknowns[u].kind == dae::Unknown::Kind::Node) yp[u] = 0.0;
    const dae::State still{now.t, now.y, yp.data(), now.discrete, now.discreteVersion};
    struct Reading {
        int block = -1, row = -1;
        double size = -1.0;
    } largest, cause;
    for (std::size_t b = 0; b < m_sys.bindings.size(); ++b) {
        const std::span<const int> ports = m_sys.bindings[b].portRow();
        const bool holds = !dae::constraintForces(m_sys, static_cast<int>(b), now.discrete).empty();
        for (std::size_t p = 0; p < ports.size(); ++p) {
            if (ports[p] < 0 || m_sys.rows[at(ports[p])].kind != dae::Row::Kind::Node) continue;
            const double size = magnitude(m_ev.throughResidual(static_cast<int>(b), still, static_cast<int>(p)));
            const Reading r{static_cast<int>(b), ports[p], size};
            if (size > largest.size) largest = r;
            if (!holds && size > cause.size) cause = r;
        }
    }
    const Reading top = cause.size >= kReactionShare * largest.size ? cause : largest;
    if (top.block < 0 || !(top.size > RunGuard::kRunawayFlow)) return;
    const bool rotational = m_sys.topo.nodes[at(m_sys.rows[at(top.row)].index)].domain == Domain::Rotational;
    const std::string& name = m_sys.topo.blocks[at(top.block)].name;
    blame.what += std::string("; the largest ") + (rotational ? "torque" : "force") + " in the network is " +
                  formatNumber(twoDigits(top.size)) + (rotational ? " N*m" : " N") + ", from " + name;
    blame.block = name;
    blame.flow = top.size;
}

// Before IDA's first step it has no local error. What keeps it from starting is a rate it cannot
// follow (it sizes its first step so that the step times the rates is half a tolerance, and a
// rate of 1e150 m/s makes that norm overflow and the step zero) or, for IDA_TOO_MUCH_ACC, a value
// too large for the tolerances to resolve in double precision. So the unknown whose rate (or
// value) is largest against its tolerance, or whose value or rate is not finite, points at the
// block: an initial velocity of -1e150 m/s names the mass, not the first block of the model.
Run::Blame Run::culpritAtStart(double t, bool byValue) {
    const double* y = data(m_y);
    const double* yp = data(m_yp);
    const double* atol = data(m_atol);
    const auto worstBy = [&](auto score) {
        int worst = -1;
        double big = 0.0;
        for (int i = 0; i < m_rev.size(); ++i) {
            const double r =
                std::isfinite(y[i]) && std::isfinite(yp[i]) ? score(i) : std::numeric_limits<double>::infinity();
            if (r > big) {
                big = r;
                worst = i;
            }
        }
        return worst;
    };
    const auto rate = [&](int i) { return std::abs(yp[i]) / (m_opt.relativeTolerance * std::abs(y[i]) + atol[i]); };
    const auto value = [&](int i) { return std::abs(y[i]) / atol[i]; };
    const char* fastest = "fastest change";
    const char* largest = "largest value";
    if (const int i = byValue ? worstBy(value) : worstBy(rate); i >= 0)
        return blame(t, byValue ? largest : fastest, i, !byValue);
    if (const int i = byValue ? worstBy(rate) : worstBy(value); i >= 0)
        return blame(t, byValue ? fastest : largest, i, byValue);
    return {};
}

// IDACalcIC found no consistent state. Where the index-1 matrix is singular at this state, the
// equations leave some unknowns open (an algebraic loop whose gain is 1): a null vector's largest
// components name them and the block of the first (singular.hpp). A diagnosis only: if the
// matrix cannot be had at this state, the failure keeps IDA's message.
Run::Blame Run::undetermined(double t) {
    if (m_rev.size() > kMaxUndeterminedColumns) return {};
    std::vector<int> open;
    try {
        open = undeterminedColumns(
            m_rev.pattern(),
            indexOneMatrix(m_rev, {t, data(m_y), data(m_yp), m_disc.data(), m_discVersion}, m_idValues));
    } catch (const std::exception&) {
        return {};
    }
    if (open.empty()) return {};
    constexpr std::size_t kNamed = 4;
    std::string what;
    for (std::size_t i = 0; i < open.size() && i < kNamed; ++i)
        what += (i == 0                                   ? "the "
                 : i + 1 == std::min(open.size(), kNamed) ? " and the "
                                                          : ", the ") +
                m_sys.describeUnknown(m_red.kept[at(open[i])]);
    if (open.size() > kNamed) what += " (and " + std::to_string(open.size() - kNamed) + " more)";
    return {what, m_sys.blockOfUnknown(m_red.kept[at(open.front())])};
}

void Run::failAt(double t, const std::string& what, const std::string& hint, const std::string& block) {
    throw SolverError(Diagnostics{
        {Severity::Error, block, {}, {}, "simulation failed at t = " + formatNumber(t) + " s: " + what, hint}});
}

}   // namespace endstop::core::solver::detail

namespace endstop::core::solver {

RunStats integrate(const dae::DaeSystem& sys, const SolverOptions& options, Recorder& recorder, ResultSink& sink,
                   const RunControl& control) {
    detail::Run run(sys, options, recorder, sink, control);
    return run.execute();
}

}   // namespace endstop::core::solver
