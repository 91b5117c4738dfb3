// SPDX-License-Identifier: GPL-3.0-or-later
// The Python side of the module `endstop` (docs/python.md): what module.cpp, convert.cpp and
// result.cpp share. Everything here runs with the GIL held.
#pragma once

#include "python/runner.hpp"

#include <pybind11/pybind11.h>

#include <string>

namespace endstop::python {

namespace py = pybind11;

// The module's exception types and the Event tuple, created once at import. Plain handles: they
// live as long as the interpreter (the module holds a reference), and a static py::object would
// be destroyed after the interpreter is gone.
struct PythonTypes {
    py::handle error;             // endstop.Error(Exception)
    py::handle modelError;        // endstop.ModelError(Error, ValueError): bad input
    py::handle simulationError;   // endstop.SimulationError(Error, RuntimeError), .partial
    py::handle runLimitError;     // endstop.RunLimitError(SimulationError): max_steps, max_wall
    py::handle event;             // endstop.Event(time, block, kind, velocity), a namedtuple
};
const PythonTypes& types();
void createTypes(py::module_& m);

[[noreturn]] void raiseModelError(const std::string& message);
// SimulationError (RunLimitError for a timeout) whose .partial is the run as far as it got.
[[noreturn]] void raiseSimulationError(std::shared_ptr<Outcome> outcome);

// set={"stop1.upper_bound": "5 mm", "slider.mass": 0.7, "table.x": [0, 1, 2]} -> assignments.
// Strings pass as typed; numbers are SI and keep every digit; None is no overrides.
Assignments toAssignments(py::handle set);
// The run options (stop_time, rtol, atol, max_step, output_interval, signals, max_steps, max_wall,
// linear_solver); TypeError for an unknown one or a wrong type.
core::simulation::SimulationOptions toOptions(const py::kwargs& options);

void bindResult(py::module_& m);

}   // namespace endstop::python
