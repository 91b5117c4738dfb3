// SPDX-License-Identifier: GPL-3.0-or-later
// CSV sinks. Results: header `time,block.var,...`, SI values with round-trip precision, one row a
// call. Events: `time,block,kind,velocity`. Files are written through QSaveFile, so a file appears
// whole at end() or not at all; the target is opened at construction so an unwritable path fails
// before the simulation starts. "-" writes to standard output.
#pragma once

#include "core/results/results.hpp"

#include <memory>
#include <string>

class QIODevice;
class QSaveFile;

namespace endstop::core {

class CsvSink : public ResultSink {
public:
    // Either path may be empty (not written). Throws std::runtime_error naming the path if it
    // cannot be opened for writing.
    CsvSink(const std::string& resultsPath, const std::string& eventsPath);
    ~CsvSink() override;

    void begin(const std::vector<Column>& columns) override;
    void row(double t, std::span<const double> values) override;
    void event(const EventRecord& e) override;
    void end(const RunStats& stats) override;
    bool wantsEveryRow() const override { return m_results.active(); }
    // Commits the files; throws std::runtime_error naming the path on failure. end() calls it.
    void commit();

private:
    struct Target {
        std::string path;
        std::unique_ptr<QSaveFile> file;
        std::unique_ptr<QIODevice> stdoutDevice;
        std::string buffer;
        void open(const std::string& p);
        void flush(bool force);
        void commit();
        bool active() const { return !path.empty(); }
    };
    Target m_results, m_events;
    bool m_committed = false;
};

}  // namespace endstop::core
