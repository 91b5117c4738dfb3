// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/results/csv_sink.hpp"

#include "core/results/units_sidecar.hpp"
#include "core/units/unit.hpp"

namespace endstop::core {

void CsvSink::Target::open(const std::string& name) {
    if (!name.empty()) file = std::make_unique<io::OutputFile>(name);
    path = name;
}

void CsvSink::Target::flush(bool force) {
    if (!active() || (!force && buffer.size() < (1u << 16))) return;
    file->write(buffer);
    buffer.clear();
}

void CsvSink::Target::commit() {
    if (!active()) return;
    flush(true);
    file->commit();
}

CsvSink::CsvSink(const std::string& resultsPath, const std::string& eventsPath) {
    m_results.open(resultsPath);
    m_events.open(eventsPath);
    if (m_events.active()) m_events.buffer = "time,block,kind,velocity\n";
}

CsvSink::~CsvSink() = default;   // an uncommitted file leaves its target untouched

void CsvSink::begin(const std::vector<Column>& columns) {
    if (!m_results.active()) return;
    m_columns = columns;
    m_results.buffer += "time";
    for (const Column& c : columns) m_results.buffer += "," + c.name;
    m_results.buffer += '\n';
}

void CsvSink::row(double t, std::span<const double> values) {
    if (!m_results.active()) return;
    const std::size_t size = (values.size() + 1) * (kMaxNumberChars + 1);
    if (m_row.size() < size) m_row.resize(size);   // once: a row is written here, then appended
    char* const first = m_row.data();
    char* p = writeNumber(first, t);
    for (double v : values) {
        *p++ = ',';
        p = writeNumber(p, v);
    }
    *p++ = '\n';
    m_results.buffer.append(first, p);
    m_results.flush(false);
}

void CsvSink::event(const EventRecord& e) {
    if (!m_events.active()) return;
    m_events.buffer +=
        formatNumber(e.time) + "," + e.block + "," + toString(e.kind) + "," + formatNumber(e.velocity) + "\n";
    m_events.flush(false);
}

void CsvSink::end(const RunStats&) { commit(); }

void CsvSink::commit() {
    if (m_committed) return;
    m_committed = true;
    m_results.commit();
    m_events.commit();
    if (m_results.active()) writeResultsUnitsSidecar(m_results.path, m_columns);
    if (m_events.active()) writeUnitsSidecar(m_events.path, eventColumnsInfo());
}

}   // namespace endstop::core
