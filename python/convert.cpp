// SPDX-License-Identifier: GPL-3.0-or-later
// Python values in, exceptions out.
#include "python/bindings.hpp"

#include "core/errors.hpp"
#include "core/units/unit.hpp"

#include <cmath>

namespace endstop::python {

namespace {

PythonTypes g_types;

py::handle newException(py::module_& m, const char* name, py::handle bases, const char* doc) {
    const std::string qualified = std::string("endstop.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
    if (!type) throw py::error_already_set();
    m.add_object(name, type);   // the module takes a reference of its own; ours is kept for good
    return type;
}

std::string typeName(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }

[[noreturn]] void typeError(const std::string& message) { throw py::type_error(message); }

// A number as exactly the text that reads back as the same double (no digits lost to formatting).
std::string numberText(py::handle value) {
    return core::formatNumber(py::float_(py::reinterpret_borrow<py::object>(value)));
}

std::string valueText(const std::string& name, py::handle value) {
    if (py::isinstance<py::str>(value)) return value.cast<std::string>();
    const auto expected =
        "set['" + name + "']: expected a number (SI), a string with a unit such as '5 mm' or a list of numbers, got ";
    if (PyBool_Check(value.ptr()) || value.is_none() || py::isinstance<py::bytes>(value))
        typeError(expected + typeName(value));
    if (PySequence_Check(value.ptr())) {   // a list, a tuple, a NumPy array: a vector parameter
        std::string text = "[";
        // iterated, not indexed: the iterator owns each item, and a NumPy array makes a new
        // scalar object per item that a borrowed handle would outlive
        for (const py::handle item : py::reinterpret_borrow<py::iterable>(value)) {
            if (py::isinstance<py::str>(item) || PyBool_Check(item.ptr()) || !PyNumber_Check(item.ptr()))
                typeError("set['" + name + "']: expected numbers (SI) in the list, got " + typeName(item));
            text += (text.size() > 1 ? " " : "") + numberText(item);
        }
        return text + "]";
    }
    if (!PyNumber_Check(value.ptr())) typeError(expected + typeName(value));
    return numberText(value);
}

double number(const py::handle value, const char* option) {
    if (py::isinstance<py::str>(value) || PyBool_Check(value.ptr()) || !PyNumber_Check(value.ptr()))
        typeError(std::string(option) + ": expected a number (SI), got " + typeName(value));
    return py::float_(py::reinterpret_borrow<py::object>(value));
}

long wholeNumber(const py::handle value, const char* option) {
    if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr()))
        typeError(std::string(option) + ": expected a whole number, got " + typeName(value));
    const long n = PyLong_AsLong(py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr())).ptr());
    if (n == -1 && PyErr_Occurred()) throw py::error_already_set();
    return n;
}

std::vector<std::string> names(const py::handle value, const char* option) {
    if (py::isinstance<py::str>(value) || !PySequence_Check(value.ptr()))
        typeError(std::string(option) + ": expected a list of names like ['stop1.x', 'stop1.f'], got " +
                  typeName(value));
    std::vector<std::string> out;
    for (const py::handle item : py::reinterpret_borrow<py::iterable>(value)) {
        if (!py::isinstance<py::str>(item))
            typeError(std::string(option) + ": expected names (str), got " + typeName(item));
        out.push_back(item.cast<std::string>());
    }
    return out;
}

// The limits mean "at most": 0 would read as unlimited to the solver, so it is refused here.
void checkLimits(const core::simulation::SimulationOptions& o) {
    if (o.maxSteps && *o.maxSteps < 1)
        raiseModelError("max_steps: expected a whole number >= 1, got " + std::to_string(*o.maxSteps));
    if (o.maxWallSeconds && !(*o.maxWallSeconds > 0 && std::isfinite(*o.maxWallSeconds)))
        raiseModelError("max_wall: expected a time in seconds > 0, got " + core::formatNumber(*o.maxWallSeconds));
}

}   // namespace

const PythonTypes& types() { return g_types; }

void createTypes(py::module_& m) {
    g_types.error = newException(m, "Error", PyExc_Exception, "Base of the errors endstop raises.");
    g_types.modelError = newException(m, "ModelError", py::make_tuple(g_types.error, py::handle(PyExc_ValueError)),
                                      "Bad input: a file, a block or parameter name, a value or unit, an option.");
    g_types.simulationError =
        newException(m, "SimulationError", py::make_tuple(g_types.error, py::handle(PyExc_RuntimeError)),
                     "The solver failed; .partial is the Result up to the failure.");
    py::setattr(g_types.simulationError, "partial", py::none());
    g_types.runLimitError = newException(m, "RunLimitError", g_types.simulationError,
                                         "The run passed max_steps or max_wall; .partial is the Result so far.");
    py::object event = py::module_::import("collections").attr("namedtuple")("Event", "time block kind velocity");
    event.attr("__module__") = "endstop";
    event.attr("__doc__") =
        "An event of the run: time (s), block name, kind ('impact', 'lock', ...), velocity (m/s or rad/s).";
    m.add_object("Event", event);
    g_types.event = event.release();
}

void raiseModelError(const std::string& message) {
    PyErr_SetString(g_types.modelError.ptr(), message.c_str());
    throw py::error_already_set();
}

void raiseSimulationError(std::shared_ptr<Outcome> outcome) {
    const py::handle type = outcome->status == Status::Timeout ? g_types.runLimitError : g_types.simulationError;
    const std::string message =
        outcome->message.empty() ? std::string("run ") + toString(outcome->status) : outcome->message;
    py::object error = type(message);
    error.attr("partial") = py::cast(std::move(outcome));
    PyErr_SetObject(type.ptr(), error.ptr());
    throw py::error_already_set();
}

Assignments toAssignments(py::handle set) {
    Assignments out;
    if (set.is_none()) return out;
    if (!py::isinstance(set, py::module_::import("collections.abc").attr("Mapping")))
        typeError("set: expected a dict like {'stop1.upper_bound': '5 mm'}, got " + typeName(set));
    for (const py::handle item : py::reinterpret_borrow<py::object>(set).attr("items")()) {
        const auto pair = py::reinterpret_borrow<py::tuple>(item);
        if (!py::isinstance<py::str>(pair[0]))
            typeError("set: expected names like 'stop1.upper_bound' as keys, got " + typeName(pair[0]));
        const auto name = pair[0].cast<std::string>();
        out.push_back({name, valueText(name, pair[1])});
    }
    return out;
}

core::simulation::SimulationOptions toOptions(const py::kwargs& options) {
    core::simulation::SimulationOptions o;
    for (const auto& [key, value] : options) {
        const auto k = key.cast<std::string>();
        if (value.is_none()) continue;   // None: the model's own setting
        if (k == "stop_time")
            o.stopTime = number(value, "stop_time");
        else if (k == "rtol")
            o.relativeTolerance = number(value, "rtol");
        else if (k == "atol")
            o.absoluteTolerance = number(value, "atol");
        else if (k == "max_step")
            o.maxStep = number(value, "max_step");
        else if (k == "output_interval")
            o.outputInterval = number(value, "output_interval");
        else if (k == "max_wall")
            o.maxWallSeconds = number(value, "max_wall");
        else if (k == "max_steps")
            o.maxSteps = wholeNumber(value, "max_steps");
        else if (k == "signals")
            o.signals = names(value, "signals");
        else if (k == "linear_solver") {
            if (!py::isinstance<py::str>(value))
                typeError("linear_solver: expected " + core::model::linearSolverNames('\'') + ", got " +
                          typeName(value));
            try {
                o.linearSolver = core::model::linearSolverSetting(value.cast<std::string>());
            } catch (const core::Error& e) {
                raiseModelError(e.what());
            }
        } else if (k == "reduce") {
            if (!py::isinstance<py::bool_>(value)) typeError("reduce: expected True or False, got " + typeName(value));
            o.reduce = value.cast<bool>();
        } else {
            typeError("unexpected keyword argument '" + k +
                      "' (options: stop_time, rtol, atol, max_step, output_interval, signals, "
                      "max_steps, max_wall, linear_solver, reduce)");
        }
    }
    checkLimits(o);
    return o;
}

}   // namespace endstop::python
