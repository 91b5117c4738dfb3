// SPDX-License-Identifier: GPL-3.0-or-later
// Every run ends (docs/reliability.md): it reaches its stop time, is cancelled, or fails here with a
// message that names the time, the block and a hint. IDA's own step limit applies to one IDASolve
// call only, so the limits over a whole run live here:
// - maxSteps and maxWallSeconds, set by the user (--max-steps, --max-wall): RunLimitError;
// - a stall: kStallSteps steps in a row that each advance time by less than kStallFraction of the
//   run (the step size collapsed to round-off, or a tiny max_step): SolverError;
// - chattering: kChatterEvents events within kChatterFraction of the run (a contact switching
//   faster than anything physical, 1e-13 s apart), as many logged ones (a contact made and lost, a
//   lock and an unlock) within kLoggedChatterFraction, or more than kRestartsAtOneTime restarts at
//   one instant: SolverError naming the block.
#pragma once

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace endstop::core::solver {

struct RunLimits {
    long maxSteps = 5'000'000;     // over the whole run; 0: unlimited
    double maxWallSeconds = 0.0;   // 0: unlimited
};

// What a stall names: the block, and what was read there (the unknown with the largest error and
// the largest flow at its node: "...; the largest torque there is 6e24 N*m, from e0"), if anything.
struct StallCulprit {
    StallCulprit(std::string b, std::string w = {}, double f = 0.0)
        : block(std::move(b)), what(std::move(w)), flow(f) {}
    std::string block, what;
    double flow;   // the force or torque read there, if far out of scale (else 0)
};

// The hint of a failure under a force or torque above RunGuard::kRunawayFlow
std::string runawayHint();

class RunGuard {
public:
    static constexpr int kStallSteps = 20'000;
    static constexpr double kStallFraction = 1e-12;
    static constexpr int kChatterEvents = 1'000;
    static constexpr double kChatterFraction = 1e-9;
    static constexpr double kLoggedChatterFraction = 1e-6;   // of the run, for the events a block logs
    static constexpr int kRestartsAtOneTime = 500;
    static constexpr double kLooseRtol = 1e-2;     // from here on, the chatter hint asks for a tighter rtol
    static constexpr double kRunawayFlow = 1e12;   // N or N*m: no machine's; a stall under it runs away

    // rtol: the run's relative tolerance, for the chatter hint (0: not known)
    RunGuard(const RunLimits& limits, double stopTime, double rtol = 0.0);
    // After every step the solver took (steps: the run's total so far). `culprit` names the
    // unknown with the largest local error, asked only when a stall is reported.
    // On a coarse output grid one call covers many steps: they count as small when the last one
    // was and the call's time over its steps (their mean) is too. The last one's size alone
    // stood for all of them: a run whose steps were 1.3e-12 s at the median there, at most 187 in
    // a row below the 5e-13 s it was held to, ended as stuck on a grid of 0.005 s (a call's 500
    // steps counted as small whenever its last one was) and ran to its end with a row at every
    // step (tools/engine-diff --wide, seed 2079; docs/reliability.md, "Every run ends").
    template <class Culprit> void step(double t, double h, long steps, Culprit&& culprit) {
        const long taken = std::max(1L, steps - m_stepsBefore);
        const double small = kStallFraction * m_span;
        if (h < small && !((t - m_tBefore) / static_cast<double>(taken) >= small))   // NaN at first: h decides
            m_smallSteps += taken;
        else
            m_smallSteps = 0;
        m_stepsBefore = steps;
        m_tBefore = t;
        if (m_smallSteps >= kStallSteps) stalled(t, h, StallCulprit(culprit()));
        if (const Limit limit = overLimit(steps); limit != Limit::None) limitReached(t, limit, StallCulprit(culprit()));
    }
    // after each event: logged (a mode change a block reports), or a root the block does not log
    // (a corner of a contact law)
    void event(double t, const std::string& block, bool logged = true);
    void restart(double t, const std::string& block);   // at each event restart; `block` switched last

private:
    enum class Limit { None, Steps, Wall };
    Limit overLimit(long steps) const;
    // RunLimitError: the limit, and a runaway beside it if the culprit read one (a network that
    // runs away takes ever shorter steps until a limit stops it)
    [[noreturn]] void limitReached(double t, Limit limit, const StallCulprit& where) const;
    [[noreturn]] void stalled(double t, double h, const StallCulprit& where) const;

    RunLimits m_limits;
    double m_span;
    double m_rtol;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
    long m_smallSteps = 0;
    long m_stepsBefore = 0;
    double m_tBefore = std::numeric_limits<double>::quiet_NaN();   // the time the last call of step() reached
    // the last kChatterEvents times of some events
    struct Ring {
        std::vector<double> times;
        std::size_t next = 0;
        double push(double t);   // the time kChatterEvents events back, -infinity until there are that many
    };
    Ring m_events, m_logged;      // every event; the logged ones
    double m_burstStart = -1.0;   // restarts at one instant (within 1e-12 relative)
    int m_burstRestarts = 0;
    std::vector<std::string> m_burstBlocks;   // the blocks whose events make the burst (the first few)
};

// IDA's name for a return flag ("IDA_ERR_FAIL") and what it usually means for a model.
std::string idaFlagName(int flag);
std::string idaFailureHint(int flag);

}   // namespace endstop::core::solver
