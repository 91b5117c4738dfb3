// SPDX-License-Identifier: GPL-3.0-or-later
// simulate(): the one entry point shared by the GUI, the batch tool and the tests.
// Model -> Topology -> DaeSystem -> IDA -> rows into a ResultSink.
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/model/model.hpp"
#include "core/results/results.hpp"
#include "core/solver/integrator.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace endstop::core::simulation {

struct SimulationOptions {   // overrides of the model's settings (command line, tests)
    std::optional<double> stopTime, relativeTolerance, absoluteTolerance, maxStep, outputInterval;
    std::optional<model::LinearSolver> linearSolver;
    std::optional<bool> reduce;         // the reduction stage (docs/engine.md, "Reduction"); unset: the model's
    std::optional<bool> resting;        // with it, IDA on the moving part alone: true always, false never,
                                        // unset from 1,000 reduced unknowns (docs/engine.md, "The resting part")
    std::optional<bool> stepOver;       // continuous events without a restart (docs/engine.md); on unless off
    std::vector<std::string> signals;   // recorded columns; empty: all
    std::optional<long> maxSteps;       // over the whole run (default solver::RunLimits)
    std::optional<double> maxWallSeconds;
    // Called with each warning the blocks' validation raises (a negative stiffness beyond a spring
    // table, a friction inertia's stick torque below its Coulomb torque), before the run starts
    std::function<void(const Diagnostic&)> onWarning;
};

// The model's settings with the overrides applied, checked (ModelError naming the setting).
solver::SolverOptions resolveSettings(const model::SimulationSettings& model, const SimulationOptions& overrides);

// Runs the model. Throws TopologyError/ModelError before anything reaches the sink if the model
// cannot be simulated; SolverError after end() if IDA fails on the way.
RunStats simulate(const model::Model& model, const Registry& registry, const SimulationOptions& options,
                  ResultSink& sink, const solver::RunControl& control = {});
// The same, releasing the model once its network is built: the run needs only the network, and a
// 40,000-block model is 30 MB that would otherwise sit beside the solver.
RunStats simulate(model::Model&& model, const Registry& registry, const SimulationOptions& options, ResultSink& sink,
                  const solver::RunControl& control = {});

// Everything the pipeline has to say about a model without running it: parameter ranges,
// wiring, structural analysis. Never throws for a bad model.
Diagnostics validateModel(const model::Model& model, const Registry& registry);
Diagnostics validateModel(model::Model&& model, const Registry& registry);   // releasing it as simulate() does

// Every recordable variable of the model (for `variables` and the GUI's signal browser).
std::vector<Column> recordableVariables(const model::Model& model, const Registry& registry);

}   // namespace endstop::core::simulation
