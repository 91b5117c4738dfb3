// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/simulation/simulate.hpp"

#include "core/model/flatten.hpp"

#include "core/dae/dae_system.hpp"
#include "core/graph/topology.hpp"
#include "core/errors.hpp"
#include "core/model/solver_settings.hpp"
#include "core/solver/recorder.hpp"

#include <chrono>
#include <cmath>
#include <utility>

namespace endstop::core::simulation {

namespace {
using Clock = std::chrono::steady_clock;
constexpr double kMaxRows = 1e9;           // output_interval: stop_time / interval
constexpr double kMaxForcedSteps = 1e12;   // max_step: stop_time / max_step

void require(bool ok, const char* key, const std::string& what) {
    if (!ok) model::throwSettingError(key, what);
}
}   // namespace

solver::SolverOptions resolveSettings(const model::SimulationSettings& model, const SimulationOptions& o) {
    solver::SolverOptions s;
    s.stopTime = o.stopTime.value_or(model.stopTime);
    s.relativeTolerance = o.relativeTolerance.value_or(model.relativeTolerance);
    s.absoluteTolerance = o.absoluteTolerance.value_or(model.absoluteTolerance);
    s.maxStep = o.maxStep.value_or(model.maxStep);
    s.outputInterval = o.outputInterval.value_or(model.outputInterval);
    s.linearSolver = o.linearSolver.value_or(model.linearSolver);
    s.reduce = o.reduce.value_or(model.reduce);
    if (o.resting) s.restingMinimum = *o.resting ? 0 : -1;
    s.stepOver = o.stepOver.value_or(true);
    const std::pair<const model::SettingRange*, double> ranges[] = {{&model::kStopTime, s.stopTime},
                                                                    {&model::kRelativeTolerance, s.relativeTolerance},
                                                                    {&model::kAbsoluteTolerance, s.absoluteTolerance},
                                                                    {&model::kMaxStep, s.maxStep},
                                                                    {&model::kOutputInterval, s.outputInterval}};
    for (const auto& [range, value] : ranges) require(range->ok(value), range->key, range->message());
    // a setting that cannot end: more output rows or forced steps than any run can take
    require(s.outputInterval == 0 || s.stopTime / s.outputInterval <= kMaxRows, "output_interval",
            formatNumber(s.outputInterval) + " s is too small for the stop time " + formatNumber(s.stopTime) +
                " s (more than " + formatNumber(kMaxRows) + " rows)");
    require(s.maxStep == 0 || s.stopTime / s.maxStep <= kMaxForcedSteps, "max_step",
            formatNumber(s.maxStep) + " s is too small for the stop time " + formatNumber(s.stopTime) +
                " s (more than " + formatNumber(kMaxForcedSteps) + " steps)");
    if (o.maxSteps) s.limits.maxSteps = *o.maxSteps;
    if (o.maxWallSeconds) s.limits.maxWallSeconds = *o.maxWallSeconds;
    require(s.limits.maxSteps >= 0 && s.limits.maxWallSeconds >= 0, "limits", "must be >= 0 (0: unlimited)");
    return s;
}

namespace {

// The network built from a model, held by reference or released once the network stands.
struct Source {
    const model::Model& model;
    model::Model* owned = nullptr;   // released after buildTopology()
    graph::Topology build(const Registry& registry) const {
        graph::Topology topo = graph::buildTopology(model, registry);
        if (owned) *owned = model::Model();
        return topo;
    }
};

RunStats run(const Source& source, const Registry& registry, const SimulationOptions& options, ResultSink& sink,
             const solver::RunControl& control) {
    const auto start = Clock::now();
    const solver::SolverOptions settings = resolveSettings(source.model.simulation(), options);
    graph::Topology topo = source.build(registry);
    if (options.onWarning)
        for (const Diagnostic& d : topo.diagnostics)
            if (d.severity == Severity::Warning) options.onWarning(d);
    const dae::DaeSystem sys = dae::assemble(std::move(topo));
    solver::Recorder recorder(sys, options.signals, sink.columnsRead());
    const double build = std::chrono::duration<double>(Clock::now() - start).count();

    // the sink hears about the build time through the stats handed to end()
    struct Timed : ResultSink {
        ResultSink& inner;
        double build;
        Clock::time_point start;
        Timed(ResultSink& s, double b, Clock::time_point t) : inner(s), build(b), start(t) {}
        void begin(const std::vector<Column>& c) override { inner.begin(c); }
        void row(double t, std::span<const double> v) override { inner.row(t, v); }
        void event(const EventRecord& e) override { inner.event(e); }
        void end(const RunStats& s) override {
            RunStats full = s;
            full.buildSeconds = build;
            full.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
            inner.end(full);
        }
        bool wantsEveryRow() const override { return inner.wantsEveryRow(); }
        std::size_t columnsRead() const override { return inner.columnsRead(); }
        void omitted(std::size_t n) override { inner.omitted(n); }
    } timed(sink, build, start);

    RunStats stats = solver::integrate(sys, settings, recorder, timed, control);
    stats.buildSeconds = build;
    stats.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    return stats;
}

Diagnostics validate(const Source& source, const Registry& registry) {
    Diagnostics out;
    try {
        resolveSettings(source.model.simulation(), {});
        graph::Topology topo = source.build(registry);
        out = topo.diagnostics;
        dae::assemble(std::move(topo));
    } catch (const Error& e) {
        out.insert(out.end(), e.diagnostics().begin(), e.diagnostics().end());
    } catch (const std::exception& e) {
        out.push_back({Severity::Error, {}, {}, {}, e.what(), {}});
    }
    return out;
}

}   // namespace

RunStats simulate(const model::Model& model, const Registry& registry, const SimulationOptions& options,
                  ResultSink& sink, const solver::RunControl& control) {
    return run(Source{model}, registry, options, sink, control);
}

RunStats simulate(model::Model&& model, const Registry& registry, const SimulationOptions& options, ResultSink& sink,
                  const solver::RunControl& control) {
    return run(Source{model, &model}, registry, options, sink, control);
}

Diagnostics validateModel(const model::Model& model, const Registry& registry) {
    return validate(Source{model}, registry);
}

Diagnostics validateModel(model::Model&& model, const Registry& registry) {
    return validate(Source{model, &model}, registry);
}

namespace {
std::vector<Column> flatRecordable(const model::Model& model, const Registry& registry) {
    std::vector<Column> out;
    for (const model::BlockSpec& spec : model.blocks()) {
        BlockDescription b;
        try {
            b = registry.describe(spec.type, model::currentParams(spec, registry));
        } catch (const Error&) {
            continue;   // an unknown type has nothing to record; validateModel() reports it
        }
        for (const VarDesc& d : b.recorded) {
            out.push_back({spec.name + "." + d.name, Unit::si(d.unit.dimension).display(), d.label, spec.name, d.name});
        }
    }
    return out;
}

}   // namespace

std::vector<Column> recordableVariables(const model::Model& model, const Registry& registry) {
    if (!model.hierarchical()) return flatRecordable(model, registry);
    try {
        return flatRecordable(model::flatten(model, registry), registry);
    } catch (const ModelError&) {
        return {};   // validateModel() reports why
    }
}

}   // namespace endstop::core::simulation
