// SPDX-License-Identifier: GPL-3.0-or-later
// CSV sinks. Results: header `time,block.var,...`, SI values with round-trip precision, one row a
// call. Events: `time,block,kind,velocity`. Files are written through io::OutputFile: a regular
// file appears whole at end() or not at all (the previous one stays), a device or FIFO is written
// through, "-" is standard output. The targets are opened at construction so that an unwritable
// path fails before the simulation starts; a write that fails later throws IoError. Each file
// that commits gets its units sidecar (units_sidecar.hpp).
#pragma once

#include "core/results/results.hpp"

#include "core/io/output_file.hpp"

#include <memory>
#include <string>

namespace endstop::core {

class CsvSink : public ResultSink {
public:
    // Either path may be empty (not written). Throws IoError naming the path if it cannot be
    // opened for writing.
    CsvSink(const std::string& resultsPath, const std::string& eventsPath);
    ~CsvSink() override;

    void begin(const std::vector<Column>& columns) override;
    void row(double t, std::span<const double> values) override;
    void event(const EventRecord& e) override;
    void end(const RunStats& stats) override;
    bool wantsEveryRow() const override { return m_results.active(); }
    std::size_t columnsRead() const override { return m_results.active() ? kAllColumns : 0; }
    // Commits the files; throws IoError naming the path on failure. end() calls it.
    void commit();

private:
    struct Target {
        std::unique_ptr<io::OutputFile> file;
        std::string path;
        std::string buffer;
        void open(const std::string& name);
        void flush(bool force);
        void commit();
        bool active() const { return file != nullptr; }
    };
    Target m_results, m_events;
    std::vector<Column> m_columns;
    std::string m_row;
    bool m_committed = false;
};

}   // namespace endstop::core
