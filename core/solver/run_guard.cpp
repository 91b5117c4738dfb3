// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/solver/run_guard.hpp"

#include "core/blockapi/instant.hpp"
#include "core/errors.hpp"
#include "core/units/unit.hpp"

#include <ida/ida.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace endstop::core::solver {

namespace {
[[noreturn]] void fail(double t, const std::string& block, const std::string& what, const std::string& hint) {
    throw SolverError(Diagnostics{
        {Severity::Error, block, {}, {}, "simulation failed at t = " + formatNumber(t) + " s: " + what, hint}});
}
}   // namespace

std::string runawayHint() {
    return "a force no machine has drives this: look for a part that runs away (a spring of negative stiffness, "
           "warned at load) or a parameter off by orders of magnitude; the tolerances are not the cause";
}

RunGuard::RunGuard(const RunLimits& limits, double stopTime, double rtol)
    : m_limits(limits), m_span(stopTime), m_rtol(rtol) {}

RunGuard::Limit RunGuard::overLimit(long steps) const {
    if (m_limits.maxSteps > 0 && steps > m_limits.maxSteps) return Limit::Steps;
    if (m_limits.maxWallSeconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count() > m_limits.maxWallSeconds)
        return Limit::Wall;
    return Limit::None;
}

void RunGuard::limitReached(double t, Limit limit, const StallCulprit& where) const {
    const bool steps = limit == Limit::Steps;
    std::string what = "run stopped at t = " + formatNumber(t) + " s: more than " +
                       (steps ? std::to_string(m_limits.maxSteps) + " steps"
                              : formatNumber(m_limits.maxWallSeconds) + " s of wall time");
    std::string hint = steps ? "raise the limit (--max-steps), loosen the tolerances, or look for chattering contacts"
                             : "raise the limit (--max-wall) or loosen the tolerances";
    std::string block;
    if (where.flow > kRunawayFlow) {
        what += "; " + where.what;
        hint = runawayHint();
        block = where.block;
    }
    throw RunLimitError(Diagnostics{{Severity::Error, block, {}, {}, what, hint}});
}

// A last step below the spacing of doubles at t cannot move t at all: the tolerances then ask for
// more than double precision resolves there (at rtol 1e-13, a sine's output near its zero), and
// no contact of the block named is to blame.
void RunGuard::stalled(double t, double h, const StallCulprit& where) const {
    const double spacing = std::nextafter(t, std::numeric_limits<double>::infinity()) - t;
    const bool belowRounding = h < spacing;
    fail(t, where.block,
         std::to_string(kStallSteps) + " steps in a row advanced time by less than " +
             formatNumber(kStallFraction * m_span) + " s each (last step " + formatNumber(h) + " s" +
             (belowRounding ? ", below the rounding of t there, " + formatNumber(spacing) + " s" : std::string()) +
             "): the solver is stuck" + (where.what.empty() ? std::string() : "; " + where.what),
         belowRounding ? "the tolerances ask for more than double precision resolves at this time: loosen them"
         : where.flow > kRunawayFlow
             ? runawayHint()
             : "loosen the tolerances, raise max_step, or soften the stiffest contact of this block");
}

double RunGuard::Ring::push(double t) {
    if (times.size() < static_cast<std::size_t>(kChatterEvents)) {
        times.push_back(t);
        return times.size() < static_cast<std::size_t>(kChatterEvents) ? -std::numeric_limits<double>::infinity()
                                                                       : times.front();
    }
    times[next] = t;
    next = (next + 1) % times.size();
    return times[next];
}

// Two windows. Every root counts within 1e-9 of the run: a contact law's corner crossed back and
// forth 1e-15 s apart. The mode changes a block logs count within 1e-6 of the run as well: a stop
// that made its contact at a speed of round-off and lost it at once, every 1e-10 s, beside a
// locked stiction on the same motion, ran on at that pace, 400,000 events in 20 s of wall time,
// with nothing to end it but the step limit (docs/reliability.md, "Every run ends"; that stop
// now rests after a release, but a loop of logged changes must still end).
// The corners alone do not count within the wider window: at a loose tolerance a run can meet one
// many times within 1e-7 of the run and go on (model d as drawn at rtol 0.1).
void RunGuard::event(double t, const std::string& block, bool logged) {
    const double oldest = m_events.push(t);
    const double oldestLogged = logged ? m_logged.push(t) : -std::numeric_limits<double>::infinity();
    const bool dense = t - oldest < kChatterFraction * m_span;
    if (!dense && !(t - oldestLogged < kLoggedChatterFraction * m_span)) return;
    const double within = dense ? t - oldest : t - oldestLogged;
    // At a loose relative tolerance a step's error can carry the state back across the surface it
    // just crossed (docs/reliability.md, "Loose tolerances"): tightening is what helps there. At
    // tight ones round-off does the same, and loosening helps.
    const bool loose = m_rtol >= kLooseRtol;
    fail(t, block,
         std::to_string(kChatterEvents) + (dense ? " events" : " mode changes") + " within " + formatNumber(within) +
             " s (chattering)",
         loose ? "the block keeps switching between modes: at rtol " + formatNumber(m_rtol) +
                     " a step can carry the state back across a switch; tighten the relative tolerance (1e-3 or "
                     "less), or give the contact some damping or a restitution model"
         : dense ? "the block keeps switching between modes: give the contact some damping, a restitution model, or "
                   "looser tolerances"
                 : "the block keeps making and ending a contact or a lock: another block may hold the same motion "
                   "(two locks on one shaft, a stop beside a locked joint); give a stop there a stiffness law "
                   "(smooth or full_damped)");
}

// A burst of one block is a block that keeps switching; of several, blocks that keep switching
// each other: impacts of two stops that alternate at one instant are a body caught between them
// with no room to move (one of them on a motion a source imposes, closing in).
void RunGuard::restart(double t, const std::string& block) {
    if (t > m_burstStart && !sameInstant(t, m_burstStart)) {
        m_burstStart = t;
        m_burstRestarts = 0;
        m_burstBlocks.clear();
    }
    constexpr std::size_t kNamed = 4;
    if (m_burstBlocks.size() < kNamed &&
        std::find(m_burstBlocks.begin(), m_burstBlocks.end(), block) == m_burstBlocks.end())
        m_burstBlocks.push_back(block);
    if (++m_burstRestarts <= kRestartsAtOneTime) return;
    const std::string what = "more than " + std::to_string(kRestartsAtOneTime) + " events at one instant (chattering)";
    if (m_burstBlocks.size() < 2)
        fail(t, block, what,
             "this block keeps switching: check its thresholds, or a period or width far below the time resolution");
    std::string among;
    for (std::size_t i = 0; i < m_burstBlocks.size(); ++i)
        among += (i == 0 ? "" : i + 1 == m_burstBlocks.size() ? " and " : ", ") + m_burstBlocks[i];
    fail(t, block, what + " between " + among,
         "they keep switching each other: a body caught between two stops cannot move out (is one side's motion "
         "imposed by a source, closing in?); else check their thresholds");
}

std::string idaFlagName(int flag) {
    char* name = IDAGetReturnFlagName(flag);
    std::string s = name ? name : std::to_string(flag);
    std::free(name);
    return s;
}

std::string idaFailureHint(int flag) {
    switch (flag) {
        case IDA_TOO_MUCH_WORK:
            return "too many steps: the model may be chattering or extremely stiff";
        case IDA_ERR_FAIL:
            return "the error test failed repeatedly: an undeclared discontinuity, or tolerances too tight";
        case IDA_CONV_FAIL:
        case IDA_LSETUP_FAIL:
        case IDA_LSOLVE_FAIL:
            return "the Newton iteration failed: the system may be singular in this state, or a parameter extreme";
        case IDA_RES_FAIL:
        case IDA_REP_RES_ERR:
        case IDA_FIRST_RES_FAIL:
            return "the equations produced an invalid value (NaN or infinity): look for extreme parameter values";
        case IDA_TOO_MUCH_ACC:
            return "the tolerances ask for more than double precision resolves at these values: check the initial "
                   "values and parameters of the block named, or loosen the tolerances";
        default:
            return "check the parameters of the block named";
    }
}

}   // namespace endstop::core::solver
