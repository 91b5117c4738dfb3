// SPDX-License-Identifier: GPL-3.0-or-later
// The Python module `endstop` (docs/python.md): load a project file, run it with overrides, sweep.
// Runs happen on C++ threads with the GIL released, so Python threads and sweeps run in parallel.
// No QCoreApplication: the library only reads files here (QFile), which needs none; it is the
// batch tool's QSaveFile output that wants one, and the module writes no files.
#include "python/bindings.hpp"

#include "blocks/registry.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"

#include <pybind11/stl.h>

#include <optional>

namespace endstop::python {

namespace {

using namespace py::literals;
using namespace std::chrono_literals;

// A loaded project file, never changed after loading: each run works on its own copy, so one
// Model serves any number of threads.
struct LoadedModel {
    core::model::Model model;
    std::string path;
};
using ModelPtr = std::shared_ptr<LoadedModel>;   // pybind11 holds no pointer to const; nothing changes it

ModelPtr share(core::model::Model model, std::string path) {
    // the name index is built lazily by the first lookup; doing it now means the lookups that
    // threads make later on this shared model (copying it, finding blocks) only read
    model.indexOf("");
    return std::make_shared<LoadedModel>(LoadedModel{std::move(model), std::move(path)});
}

ModelPtr load(const py::object& path) {
    const auto p = py::module_::import("os").attr("fsdecode")(path).cast<std::string>();
    try {
        py::gil_scoped_release release;
        return share(core::io::loadProject(QString::fromStdString(p), blocks::registry()), p);
    } catch (const core::Error& e) {   // a missing or malformed file, unknown types, bad values
        raiseModelError(e.what());
    }
}

// Calls task(0..count-1) on up to `jobs` threads with the GIL released. Python runs its signal
// handlers only in the main thread holding the GIL, so the waiting thread takes the GIL back
// every 100 ms to let Ctrl-C through; KeyboardInterrupt then cancels the runs and is raised.
void runReleased(std::size_t count, int jobs, std::atomic<bool>& cancel, std::function<void(std::size_t)> task) {
    bool interrupted = false;
    std::exception_ptr error;
    {
        py::gil_scoped_release release;
        TaskPool pool(count, jobs, std::move(task), cancel);
        while (!pool.waitFor(100ms)) {
            if (interrupted) continue;
            py::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0) interrupted = cancel = true;   // the error stays set for below
        }
        try {
            pool.rethrow();
        } catch (...) {
            error = std::current_exception();
        }
    }
    if (interrupted) throw py::error_already_set();
    if (error) std::rethrow_exception(error);
}

py::object run(const LoadedModel& self, const py::object& set, const py::kwargs& kwargs) {
    const Assignments sets = toAssignments(set);
    const core::simulation::SimulationOptions options = toOptions(kwargs);
    std::shared_ptr<Outcome> outcome;
    std::string badInput;
    std::atomic<bool> cancel{false};
    runReleased(1, 1, cancel, [&](std::size_t) {
        try {
            outcome = runModel(withOverrides(self.model, sets), options, cancel);
        } catch (const core::Error& e) {
            badInput = e.what();
        }
    });
    if (!badInput.empty()) raiseModelError(badInput);
    if (outcome->status == Status::Invalid) raiseModelError(outcome->message);
    if (outcome->status != Status::Ok) raiseSimulationError(std::move(outcome));
    return py::cast(std::move(outcome));
}

std::string label(std::size_t run, const Assignments& sets) {
    std::string text;
    for (const Assignment& a : sets) text += (text.empty() ? "" : ", ") + a.name + "=" + a.value;
    return "sets[" + std::to_string(run) + "]" + (text.empty() ? "" : " (" + text + ")");
}

int jobCount(const py::object& jobs) {
    if (jobs.is_none()) return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (PyBool_Check(jobs.ptr()) || !PyIndex_Check(jobs.ptr())) throw py::type_error("jobs: expected a whole number");
    const auto n = jobs.cast<long long>();
    if (n < 1 || n > 1024) raiseModelError("jobs: expected a whole number from 1 to 1024, got " + std::to_string(n));
    return static_cast<int>(n);
}

// Every run's overrides are applied and its model checked before any run starts, so bad input
// raises ModelError instead of leaving a half-done sweep. Runs that fail return with a status.
py::list sweep(const LoadedModel& self, const py::iterable& sets, const py::object& jobsArg, const py::kwargs& kwargs) {
    const int jobs = jobCount(jobsArg);
    const core::simulation::SimulationOptions options = toOptions(kwargs);
    std::vector<Assignments> runs;
    for (const py::handle s : sets) {
        try {
            runs.push_back(toAssignments(s));
        } catch (const py::type_error& e) {
            throw py::type_error("sets[" + std::to_string(runs.size()) + "]: " + e.what());
        }
    }
    try {
        core::simulation::resolveSettings(self.model.simulation(), options);
    } catch (const core::Error& e) {
        raiseModelError(e.what());
    }
    std::vector<std::optional<core::model::Model>> models(runs.size());
    std::vector<std::string> errors(runs.size());
    std::atomic<bool> cancel{false};
    runReleased(runs.size(), jobs, cancel, [&](std::size_t i) {
        try {
            models[i] = withOverrides(self.model, runs[i]);
            errors[i] = firstError(*models[i]);
        } catch (const core::Error& e) {
            errors[i] = e.what();
        }
    });
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (!errors[i].empty()) raiseModelError(label(i, runs[i]) + ": " + errors[i]);

    std::vector<std::shared_ptr<Outcome>> outcomes(runs.size());
    runReleased(runs.size(), jobs, cancel, [&](std::size_t i) {
        outcomes[i] = runModel(*models[i], options, cancel);
        models[i].reset();   // a long sweep holds results, not models
    });
    py::list out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (outcomes[i]->status == Status::Invalid) raiseModelError(label(i, runs[i]) + ": " + outcomes[i]->message);
        out.append(py::cast(outcomes[i]));
    }
    return out;
}

py::list variables(const LoadedModel& self) {
    py::list out;
    for (const core::Column& c : core::simulation::recordableVariables(self.model, blocks::registry()))
        out.append(py::make_tuple(c.name, c.unit.str(), c.label.str()));
    return out;
}

py::dict settings(const LoadedModel& self) {
    const core::model::SimulationSettings& s = self.model.simulation();
    return py::dict("stop_time"_a = s.stopTime, "rtol"_a = s.relativeTolerance, "atol"_a = s.absoluteTolerance,
                    "max_step"_a = s.maxStep, "output_interval"_a = s.outputInterval,
                    "linear_solver"_a = core::model::toString(s.linearSolver), "reduce"_a = s.reduce);
}

// Pickled as the project file's bytes, so a Model can be sent to Dask or multiprocessing workers.
py::tuple getState(const LoadedModel& self) {
    const QByteArray bytes = core::io::serializeProject(self.model);
    return py::make_tuple(py::bytes(bytes.constData(), static_cast<std::size_t>(bytes.size())), self.path);
}

ModelPtr setState(const py::tuple& state) {
    const auto bytes = state[0].cast<std::string>();
    const auto path = state[1].cast<std::string>();
    try {
        return share(core::io::parseProject(QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())),
                                            QString::fromStdString(path), blocks::registry()),
                     path);
    } catch (const core::Error& e) {
        raiseModelError(e.what());
    }
}

constexpr const char* kRunDoc = R"(run(set=None, **options) -> Result

Runs a copy of the model with the overrides in `set` ({"stop1.upper_bound": "5 mm",
"slider.mass": 0.7}: strings with units, or numbers in SI) to its stop time.
Options: stop_time, rtol, atol, max_step, output_interval, signals (list of names),
max_steps, max_wall (seconds), linear_solver ('auto', 'dense', 'klu'), reduce (True, False).
Raises ModelError for bad input, SimulationError (RunLimitError for max_steps/max_wall)
with .partial, the Result up to the failure.)";

constexpr const char* kSweepDoc = R"(sweep(sets, jobs=None, **options) -> list[Result]

Runs one copy of the model per dict of overrides in `sets`, on `jobs` threads (default: one per
core), with the options of run(). Results come in the order of `sets`; a run that fails has
status 'failed' or 'timeout' and .error says why. Bad input raises ModelError before any run.)";

void bindModel(py::module_& m) {
    py::class_<LoadedModel, ModelPtr>(m, "Model", "A loaded project file; runs never change it.")
        .def("run", &run, "set"_a = py::none(), kRunDoc)
        .def("sweep", &sweep, "sets"_a, "jobs"_a = py::none(), kSweepDoc)
        .def("variables", &variables, "Recordable variables as (name, unit, description) tuples.")
        .def_property_readonly("settings", &settings, "The file's simulation settings, named like run()'s options.")
        .def_property_readonly("path", [](const LoadedModel& self) { return self.path; })
        .def("__repr__",
             [](const LoadedModel& self) {
                 return "<endstop.Model '" + self.path + "': " + std::to_string(self.model.blocks().size()) +
                        " blocks>";
             })
        .def(py::pickle(&getState, &setState));
}

}   // namespace

}   // namespace endstop::python

PYBIND11_MODULE(endstop, m) {
    using namespace endstop::python;
    m.doc() = "Endstop: simulate 1-D mechanical systems with contact and friction (docs/python.md).";
    m.attr("__version__") = ENDSTOP_VERSION;
    createTypes(m);
    bindResult(m);
    bindModel(m);
    m.def("load", &load, py::arg("path"), "Loads a project file (*.endstop); ModelError names what is wrong with it.");
}
