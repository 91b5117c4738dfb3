// SPDX-License-Identifier: GPL-3.0-or-later
// The summary of a study (docs/batch.md, "Studies"): one row per run that ended,
//   run,status,<NAME.KEY>...,wall_s,steps,events,message,<var>.final,<var>.min,<var>.max,...
// appended and flushed as each run ends, so that a killed study keeps every finished run and
// --resume can skip them. Rows come in the order the runs end; shards of one study have the same
// header, so they merge by concatenation.
#pragma once

#include "app/batch/design.hpp"
#include "core/results/results.hpp"
#include "core/results/units_sidecar.hpp"

#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace endstop::batch {

struct RunOutcome {
    std::string status;   // ok, failed, timeout, bad_input
    std::string message;
    double wallSeconds = 0.0;
    core::RunStats stats;
    std::vector<core::Column> columns;   // as this run recorded them
    std::vector<double> last, lo, hi;    // per column
};

class SummaryTable {
public:
    SummaryTable(const Design& design, std::vector<core::Column> variables);
    const std::string& header() const { return m_header; }   // without the line break
    std::string row(std::size_t designRow, const RunOutcome& outcome) const;
    std::vector<core::ColumnInfo> columnsInfo() const;

private:
    const Design& m_design;
    std::vector<core::Column> m_vars;
    std::string m_header;
};

// Rows go to a file (appended, each one written out before the next run can end) or, with an
// empty path, to standard output. Every write is checked; a failure throws IoError.
class SummaryLog {
public:
    // The run ids an existing summary lists (--resume). No file: none. A file with another
    // header belongs to another study: UsageError. A last line cut by a kill does not count.
    static std::set<long> finishedRuns(const std::string& path, const std::string& header);

    SummaryLog(std::string path, const std::string& header, bool resume);
    ~SummaryLog();
    SummaryLog(const SummaryLog&) = delete;
    SummaryLog& operator=(const SummaryLog&) = delete;

    void append(const std::string& row);   // thread-safe
    void close();                          // to the disk (fsync); throws IoError

private:
    void write(const std::string& bytes);
    [[noreturn]] void fail(const std::string& reason) const;

    std::string m_path;
    int m_fd = -1;
    bool m_stdout = false;
    std::mutex m_mutex;
};

}   // namespace endstop::batch
