// SPDX-License-Identifier: GPL-3.0-or-later
// endstop.Result: one run's columns as NumPy arrays, units, events, statistics and status.
// The arrays are read-only views of the run's own memory (no copy; the view keeps the Result
// alive), so a Result stays what the solver wrote.
#include "python/bindings.hpp"

#include "core/units/unit.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>

namespace endstop::python {

namespace {

using namespace py::literals;
using OutcomePtr = std::shared_ptr<Outcome>;

py::array view(const std::vector<double>& values, py::handle owner) {
    py::array_t<double> a(static_cast<py::ssize_t>(values.size()), values.data(), owner);
    a.attr("setflags")("write"_a = false);
    return a;
}

const std::vector<double>& columnOrThrow(const Outcome& o, const std::string& name) {
    if (name == "time") return o.sink.time();
    if (const auto* c = o.column(name)) return *c;
    std::string recorded;
    for (const core::Column& c : o.sink.columns()) {
        if (recorded.size() > 200) {
            recorded += ", ...";
            break;
        }
        recorded += (recorded.empty() ? "" : ", ") + c.name;
    }
    throw py::key_error("no variable '" + name + "' in this result (recorded: time" + (recorded.empty() ? "" : ", ") +
                        recorded + ")");
}

py::dict columnInfo(const Outcome& o, core::Interned core::Column::*field, const char* timeValue) {
    py::dict d;
    d["time"] = timeValue;
    for (const core::Column& c : o.sink.columns()) d[py::str(c.name)] = (c.*field).str();
    return d;
}

py::list events(const Outcome& o) {
    py::list out;
    for (const core::EventRecord& e : o.sink.events())
        out.append(types().event(e.time, e.block, core::toString(e.kind), e.velocity));
    return out;
}

// The keys and numbers of the batch tool's --stats line, from the one place that writes them.
py::object stats(const Outcome& o) { return py::module_::import("json").attr("loads")(o.sink.stats().toJson()); }

std::string describe(const Outcome& o) {
    return "<endstop.Result " + std::string(toString(o.status)) + ": " + std::to_string(o.sink.rows()) + " rows x " +
           std::to_string(o.sink.columns().size()) +
           " variables to t = " + core::formatNumber(o.sink.stats().finalTime) + " s, " +
           std::to_string(o.sink.events().size()) + " events>";
}

// ---- pickling (Dask and multiprocessing send results between processes of one build) -------------
py::tuple statsState(const core::RunStats& s) {
    return py::make_tuple(s.steps, s.residualEvals, s.jacobianEvals, s.events, s.reinits, s.errorTestFails,
                          s.convergenceFails, s.buildSeconds, s.solveSeconds, s.wallSeconds, s.unknowns, s.linearSolver,
                          s.finalTime, s.completed, s.cancelled, s.unknownsBefore, s.movingUnknowns, s.restingGrowths,
                          s.steppedOver, s.aliases, s.explicitVariables, s.quadratures, s.quadratureEvals);
}

core::RunStats statsFromState(const py::tuple& t) {
    core::RunStats s;
    s.steps = t[0].cast<long>();
    s.residualEvals = t[1].cast<long>();
    s.jacobianEvals = t[2].cast<long>();
    s.events = t[3].cast<long>();
    s.reinits = t[4].cast<long>();
    s.errorTestFails = t[5].cast<long>();
    s.convergenceFails = t[6].cast<long>();
    s.buildSeconds = t[7].cast<double>();
    s.solveSeconds = t[8].cast<double>();
    s.wallSeconds = t[9].cast<double>();
    s.unknowns = t[10].cast<int>();
    s.linearSolver = t[11].cast<std::string>();
    s.finalTime = t[12].cast<double>();
    s.completed = t[13].cast<bool>();
    s.cancelled = t[14].cast<bool>();
    if (t.size() > 15) s.unknownsBefore = t[15].cast<int>();
    if (t.size() > 17) {
        s.movingUnknowns = t[16].cast<int>();
        s.restingGrowths = t[17].cast<long>();
    }
    if (t.size() > 18) s.steppedOver = t[18].cast<long>();
    if (t.size() > 21) {
        s.aliases = t[19].cast<int>();
        s.explicitVariables = t[20].cast<int>();
        s.quadratures = t[21].cast<int>();
    }
    if (t.size() > 22) s.quadratureEvals = t[22].cast<long>();
    return s;
}

py::tuple getState(const Outcome& o) {
    py::list columns, values, evs;
    for (std::size_t i = 0; i < o.sink.columns().size(); ++i) {
        const core::Column& c = o.sink.columns()[i];
        columns.append(py::make_tuple(c.name, c.unit.str(), c.label.str(), c.block, c.var.str()));
        values.append(py::bytes(reinterpret_cast<const char*>(o.sink.values(i).data()),
                                o.sink.values(i).size() * sizeof(double)));
    }
    for (const core::EventRecord& e : o.sink.events())
        evs.append(py::make_tuple(e.time, e.block, static_cast<int>(e.kind), e.velocity));
    const auto& t = o.sink.time();
    return py::make_tuple(static_cast<int>(o.status), o.message, columns,
                          py::bytes(reinterpret_cast<const char*>(t.data()), t.size() * sizeof(double)), values, evs,
                          statsState(o.sink.stats()));
}

std::vector<double> doubles(const py::handle bytes) {
    const std::string raw = bytes.cast<std::string>();
    std::vector<double> out(raw.size() / sizeof(double));
    std::memcpy(out.data(), raw.data(), out.size() * sizeof(double));
    return out;
}

// Replays the run into a fresh sink, so the restored Result is built the way a run builds one.
OutcomePtr setState(const py::tuple& state) {
    auto o = std::make_shared<Outcome>();
    o->status = static_cast<Status>(state[0].cast<int>());
    o->message = state[1].cast<std::string>();
    std::vector<core::Column> columns;
    std::vector<std::vector<double>> values;
    for (const py::handle c : state[2].cast<py::list>()) {
        const auto t = c.cast<py::tuple>();
        columns.push_back({t[0].cast<std::string>(), t[1].cast<std::string>(), t[2].cast<std::string>(),
                           t[3].cast<std::string>(), t[4].cast<std::string>()});
    }
    for (const py::handle v : state[4].cast<py::list>()) values.push_back(doubles(v));
    const std::vector<double> time = doubles(state[3]);
    o->sink.begin(columns);
    std::vector<double> row(columns.size());
    for (std::size_t r = 0; r < time.size(); ++r) {
        for (std::size_t c = 0; c < columns.size(); ++c) row[c] = values[c].at(r);
        o->sink.row(time[r], row);
    }
    for (const py::handle e : state[5].cast<py::list>()) {
        const auto t = e.cast<py::tuple>();
        o->sink.event({t[0].cast<double>(), t[1].cast<std::string>(), static_cast<core::EventKind>(t[2].cast<int>()),
                       t[3].cast<double>()});
    }
    o->sink.end(statsFromState(state[6].cast<py::tuple>()));
    o->buildIndex();
    return o;
}

}   // namespace

void bindResult(py::module_& m) {
    py::class_<Outcome, OutcomePtr>(
        m, "Result", "One run: r['stop1.x'] and r.time are NumPy arrays (SI), with units, events and stats.")
        .def(
            "__getitem__",
            [](py::object self, const std::string& name) {
                return view(columnOrThrow(self.cast<const Outcome&>(), name), self);
            },
            "name"_a, "The variable's values (SI), one per row of r.time; 'time' is the time column.")
        .def("__contains__",
             [](const Outcome& o, const std::string& name) { return name == "time" || o.column(name) != nullptr; })
        .def_property_readonly(
            "time", [](py::object self) { return view(self.cast<const Outcome&>().sink.time(), self); },
            "Time of each row (s).")
        .def_property_readonly(
            "names",
            [](const Outcome& o) {
                std::vector<std::string> out;
                for (const core::Column& c : o.sink.columns()) out.push_back(c.name);
                return out;
            },
            "Recorded variables in column order (as in the batch tool's CSV after time).")
        .def_property_readonly(
            "units", [](const Outcome& o) { return columnInfo(o, &core::Column::unit, "s"); },
            "name -> SI unit symbol.")
        .def_property_readonly(
            "descriptions", [](const Outcome& o) { return columnInfo(o, &core::Column::label, "Time"); },
            "name -> description.")
        .def_property_readonly("events", &events,
                               "Events as endstop.Event(time, block, kind, velocity) tuples, in order.")
        .def_property_readonly("stats", &stats, "Solver statistics: the keys of `endstop-batch run --stats`.")
        .def_property_readonly(
            "status", [](const Outcome& o) { return toString(o.status); }, "'ok', 'failed' or 'timeout' (a run limit).")
        .def_property_readonly("ok", [](const Outcome& o) { return o.status == Status::Ok; })
        .def_property_readonly(
            "error", [](const Outcome& o) { return o.message.empty() ? py::none() : py::object(py::str(o.message)); },
            "Why the run did not end ok; None if it did.")
        .def_property_readonly(
            "final_time", [](const Outcome& o) { return o.sink.stats().finalTime; }, "Time the run reached (s).")
        .def_property_readonly("rows", [](const Outcome& o) { return o.sink.rows(); })
        .def(
            "to_dict",
            [](py::object self) {
                const Outcome& o = self.cast<const Outcome&>();
                py::dict d;
                d["time"] = view(o.sink.time(), self);
                for (std::size_t i = 0; i < o.sink.columns().size(); ++i)
                    d[py::str(o.sink.columns()[i].name)] = view(o.sink.values(i), self);
                return d;
            },
            "{'time': array, name: array, ...} in column order, e.g. for pandas.DataFrame(r.to_dict()).")
        .def("__repr__", &describe)
        .def(py::pickle(&getState, &setState));
}

}   // namespace endstop::python
