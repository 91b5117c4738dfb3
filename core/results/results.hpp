// SPDX-License-Identifier: GPL-3.0-or-later
// Results: columns with units, rows as the solver produces them, the event log and statistics,
// delivered to a sink (CSV file, memory, the GUI's plot buffer).
#pragma once

#include "core/blockapi/event_ctx.hpp"
#include "core/text/interned.hpp"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

namespace endstop::core {

// A result column. The texts every column of a kind repeats are interned (core/text/interned.hpp):
// 88 bytes a column instead of 160, 11 MB less for the 150,000 columns of a 10,000-mass chain.
struct Column {
    std::string name;   // "stop1.f"
    Interned unit;      // SI symbol, "N"
    Interned label;     // "Contact force"
    std::string block;
    Interned var;
};

struct RunStats {
    long steps = 0;
    long residualEvals = 0;
    long jacobianEvals = 0;
    long events = 0;
    long reinits = 0;            // consistent restarts (events, also those not logged)
    long steppedOver = 0;        // events IDA went on across without a restart (continuous changes)
    long errorTestFails = 0;     // IDA's rejected steps
    long convergenceFails = 0;   // IDA's nonlinear solver failures
    double buildSeconds = 0.0;
    double solveSeconds = 0.0;
    double wallSeconds = 0.0;
    int unknowns = 0;           // what IDA solves, after the reduction stage
    int unknownsBefore = 0;     // the network as drawn, before it
    // where the others went (docs/engine.md, "Reduction"): unknownsBefore is unknowns plus these
    int aliases = 0;             // equal to a kept unknown, or a sum of them, up to an offset
    int explicitVariables = 0;   // computed inside the residual from the others
    int quadratures = 0;         // integrated outside IDA's Newton iteration and error test
    long quadratureEvals = 0;    // evaluations of their rates (docs/engine.md, "Reduction", Quadratures)
    int movingUnknowns = 0;     // the most IDA solved at once, the resting part left out (docs/engine.md)
    long restingGrowths = 0;    // how often the moving part grew
    std::string linearSolver;   // toString(LinearSolver::Dense or Klu); "none": nothing to solve
    double finalTime = 0.0;
    bool completed = false;   // reached the stop time
    bool cancelled = false;
    std::string toJson() const;   // one line: the keys of --stats (README, "Headless batch tool")
};

class ResultSink {
public:
    virtual ~ResultSink() = default;
    virtual void begin(const std::vector<Column>& columns) = 0;
    virtual void row(double t, std::span<const double> values) = 0;
    virtual void event(const EventRecord& /*e*/) {}
    virtual void end(const RunStats& /*stats*/) {}
    // false: only the first and the last row are wanted (a summary), so the solver need not
    // evaluate the recorded variables at every step
    virtual bool wantsEveryRow() const { return true; }
    // A summary that reads only the first n columns returns n: the run then records only those
    // (a 10,000-mass chain has 150,000 columns) and calls omitted() with how many it left out,
    // before begin().
    static constexpr std::size_t kAllColumns = static_cast<std::size_t>(-1);
    virtual std::size_t columnsRead() const { return kAllColumns; }
    virtual void omitted(std::size_t /*columns*/) {}
};

// Keeps everything in memory: tests, sweeps, the GUI's completed runs.
class MemorySink : public ResultSink {
public:
    void begin(const std::vector<Column>& columns) override;
    void row(double t, std::span<const double> values) override;
    void event(const EventRecord& e) override { m_events.push_back(e); }
    void end(const RunStats& stats) override { m_stats = stats; }

    const std::vector<Column>& columns() const { return m_columns; }
    const std::vector<double>& time() const { return m_time; }
    const std::vector<double>& values(std::size_t column) const { return m_values[column]; }
    const std::vector<double>& values(std::string_view name) const;   // throws std::out_of_range
    int columnIndex(std::string_view name) const;
    const std::vector<EventRecord>& events() const { return m_events; }
    const RunStats& stats() const { return m_stats; }
    std::size_t rows() const { return m_time.size(); }

private:
    std::vector<Column> m_columns;
    std::vector<double> m_time;
    std::vector<std::vector<double>> m_values;
    std::vector<EventRecord> m_events;
    RunStats m_stats;
};

// Fans one run out to several sinks.
class TeeSink : public ResultSink {
public:
    explicit TeeSink(std::vector<ResultSink*> sinks) : m_sinks(std::move(sinks)) {}
    void begin(const std::vector<Column>& c) override {
        for (auto* s : m_sinks) s->begin(c);
    }
    void row(double t, std::span<const double> v) override {
        for (auto* s : m_sinks) s->row(t, v);
    }
    void event(const EventRecord& e) override {
        for (auto* s : m_sinks) s->event(e);
    }
    void end(const RunStats& st) override {
        for (auto* s : m_sinks) s->end(st);
    }
    bool wantsEveryRow() const override {
        for (const auto* s : m_sinks)
            if (s->wantsEveryRow()) return true;
        return false;
    }
    std::size_t columnsRead() const override {
        std::size_t n = 0;
        for (const auto* s : m_sinks) n = std::max(n, s->columnsRead());
        return n;
    }
    void omitted(std::size_t columns) override {
        for (auto* s : m_sinks) s->omitted(columns);
    }

private:
    std::vector<ResultSink*> m_sinks;
};

}   // namespace endstop::core
