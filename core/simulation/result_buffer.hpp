// SPDX-License-Identifier: GPL-3.0-or-later
// ResultBuffer: the result of one run as it is being computed, shared between the solver thread
// (the only writer, through the ResultSink interface) and any number of reader threads (the GUI's
// plots pull new rows on a timer). Rows are stored whole, row-major, in fixed chunks that never
// move, and published by an atomic row count: a reader sees every row below rows() complete, and
// reads only what it asks for (one column of the rows it has not seen yet), never the whole result.
// Events and the run statistics are kept under a mutex (they are few and small).
#pragma once

#include "core/results/results.hpp"

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace endstop::core::simulation {

class ResultBuffer final : public ResultSink {
public:
    static constexpr int kTime = -1;   // column index of the time in read()

    ResultBuffer();
    ~ResultBuffer() override;

    // ---- the writer (solver thread) ------------------------------------------------------------
    void begin(const std::vector<Column>& columns) override;   // once, before any row
    void row(double t, std::span<const double> values) override;
    void event(const EventRecord& e) override;
    void end(const RunStats& stats) override;

    // ---- readers (any thread) ------------------------------------------------------------------
    bool begun() const { return m_begun.load(std::memory_order_acquire); }
    const std::vector<Column>& columns() const;     // empty until begun()
    int columnIndex(std::string_view name) const;   // -1 if not recorded (or not begun)
    std::size_t rows() const { return m_rows.load(std::memory_order_acquire); }
    // Appends rows [from, to) of one column (kTime: the time) to `out`; `to` is clamped to rows().
    void read(int column, std::size_t from, std::size_t to, std::vector<double>& out) const;
    // The same for several columns at once (out[i] receives columns[i]): one pass over the rows,
    // so each row is fetched from memory once however many columns are read.
    void read(std::span<const int> columns, std::size_t from, std::size_t to,
              std::span<std::vector<double>* const> out) const;
    double value(std::size_t row, int column) const;   // row < rows()
    double lastTime() const;                           // time of the last row, 0 if none
    // Appends events [from, ...) to `out`; returns the total number of events.
    std::size_t readEvents(std::size_t from, std::vector<EventRecord>& out) const;
    std::size_t eventCount() const;
    bool ended() const { return m_ended.load(std::memory_order_acquire); }
    RunStats stats() const;   // the final statistics once ended()

private:
    const double* rowPtr(std::size_t row) const;   // caller holds m_chunksMutex

    std::vector<Column> m_columns;
    std::size_t m_stride = 1;                          // doubles per row: time + columns
    std::size_t m_chunkRows = 1;                       // rows per chunk
    std::vector<std::unique_ptr<double[]>> m_chunks;   // grows under m_chunksMutex only
    mutable std::mutex m_chunksMutex;
    std::size_t m_writeRow = 0;   // writer's own count (== rows() between calls)
    std::atomic<std::size_t> m_rows{0};
    std::atomic<bool> m_begun{false};
    std::atomic<bool> m_ended{false};

    mutable std::mutex m_mutex;   // events and stats
    std::vector<EventRecord> m_events;
    RunStats m_stats;
};

}   // namespace endstop::core::simulation
