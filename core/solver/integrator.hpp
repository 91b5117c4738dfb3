// SPDX-License-Identifier: GPL-3.0-or-later
// The IDA integration loop: consistent start, steps, event location with IDA's root finding,
// scheduled discontinuities as stop times, mode iteration, momentum-conserving projection and
// re-initialisation, output per step or on a fixed grid (IDA's interpolation).
#pragma once

#include "core/dae/dae_system.hpp"
#include "core/model/solver_settings.hpp"
#include "core/results/results.hpp"
#include "core/solver/recorder.hpp"
#include "core/solver/run_guard.hpp"

#include <atomic>
#include <functional>
#include <string>

namespace endstop::core::solver {

struct SolverOptions {
    double stopTime = 1.0;
    double relativeTolerance = 1e-6;
    double absoluteTolerance = 1e-8;
    double maxStep = 0.0;          // 0: unlimited
    double outputInterval = 0.0;   // 0: every step, with the states just before and after events
    core::model::LinearSolver linearSolver = core::model::LinearSolver::Auto;
    int denseLimit = 40;   // auto: dense below this many unknowns
    bool reduce = false;   // the reduction stage (core/dae/reduce.hpp); false: IDA sees the network as drawn
    // With reduce and KLU: IDA solves only the moving part of a network with at least this many
    // reduced unknowns (docs/engine.md, "The resting part"); negative: never.
    int restingMinimum = 1000;
    // Events whose changes leave the residual continuous (EventCtx::continuous()) are stepped over
    // where IDA's last step agrees with the new modes (docs/engine.md, "Events IDA steps over");
    // false: every event restarts IDA.
    bool stepOver = true;
    RunLimits limits;      // steps and wall time over the whole run
};

struct RunControl {
    const std::atomic<bool>* cancel = nullptr;                 // polled between steps
    std::function<void(double t, const RunStats&)> progress;   // after every step
};

// Integrates from t = 0 to the stop time, streaming rows and events into the sink. The sink's
// end() is always called; on an IDA failure SolverError is thrown after it (the rows so far stay),
// RunLimitError when the run passes its limits. A model without unknowns records its (constant)
// outputs at the start, on the output grid and at the stop time.
RunStats integrate(const dae::DaeSystem& sys, const SolverOptions& options, Recorder& recorder, ResultSink& sink,
                   const RunControl& control = {});

}   // namespace endstop::core::solver
