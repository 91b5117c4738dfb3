// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/batch/summary.hpp"

#include "app/batch/cli.hpp"
#include "core/errors.hpp"
#include "core/text/csv.hpp"
#include "core/units/unit.hpp"

#include <QFile>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <unordered_map>

namespace endstop::batch {

namespace {
const char* const kStats[] = {"wall_s", "steps", "events", "message"};
const char* const kExtremes[] = {".final", ".min", ".max"};
}   // namespace

SummaryTable::SummaryTable(const Design& design, std::vector<core::Column> variables)
    : m_design(design), m_vars(std::move(variables)) {
    m_header = "run,status";
    for (const Factor& f : design.factors) m_header += "," + core::csvField(f.name);
    for (const char* s : kStats) m_header += std::string(",") + s;
    for (const core::Column& c : m_vars)
        for (const char* e : kExtremes) m_header += "," + core::csvField(c.name + e);
}

std::string SummaryTable::row(std::size_t designRow, const RunOutcome& o) const {
    std::string out = std::to_string(m_design.runs[designRow]) + "," + o.status;
    for (const core::ParamValue& v : m_design.values[designRow]) out += "," + core::csvField(core::toString(v));
    out += "," + core::formatNumber(o.wallSeconds) + "," + std::to_string(o.stats.steps) + "," +
           std::to_string(o.stats.events) + "," + core::csvField(o.message);
    // a run records the study's columns unless one of its values changed the model's structure
    std::unordered_map<std::string_view, std::size_t> index;
    for (std::size_t i = 0; i < o.columns.size() && i < o.last.size(); ++i) index.emplace(o.columns[i].name, i);
    for (const core::Column& c : m_vars) {
        const auto it = index.find(c.name);
        if (it == index.end()) {
            out += ",,,";
            continue;
        }
        const std::size_t i = it->second;
        out +=
            "," + core::formatNumber(o.last[i]) + "," + core::formatNumber(o.lo[i]) + "," + core::formatNumber(o.hi[i]);
    }
    return out + "\n";
}

std::vector<core::ColumnInfo> SummaryTable::columnsInfo() const {
    std::vector<core::ColumnInfo> out{{"run", "", "Run id (1-based, the same in every shard)"},
                                      {"status", "", "ok, failed, timeout (--max-wall or --max-steps) or bad_input"}};
    for (const Factor& f : m_design.factors) {
        const core::ParamDesc& d = f.target.desc;
        const std::string unit =
            d.type == core::ParamType::Real && !d.anyDimension ? core::Unit::si(d.unit.dimension).display() : "";
        out.push_back(
            {f.name, unit,
             d.label + (f.target.block.empty() ? std::string(", a model parameter") : " of block " + f.target.block) +
                 " (the varied value)"});
    }
    out.push_back({"wall_s", "s", "Wall-clock time of the run"});
    out.push_back({"steps", "", "Solver steps"});
    out.push_back({"events", "", "Logged events"});
    out.push_back({"message", "", "Why the run failed (empty when ok)"});
    for (const core::Column& c : m_vars) {
        out.push_back({c.name + ".final", c.unit, c.label + " at the end of the run"});
        out.push_back({c.name + ".min", c.unit, c.label + ", smallest value"});
        out.push_back({c.name + ".max", c.unit, c.label + ", largest value"});
    }
    return out;
}

std::set<long> SummaryLog::finishedRuns(const std::string& path, const std::string& header) {
    std::set<long> done;
    QFile file(QString::fromStdString(path));
    if (!file.exists()) return done;
    if (!file.open(QIODevice::ReadOnly))
        throw UsageError("--resume: cannot read '" + path + "': " + file.errorString().toStdString());
    const QByteArray text = file.readAll();
    const qsizetype end = text.lastIndexOf('\n') + 1;   // a line cut by a kill is not a finished run
    const auto lines = splitList(std::string(text.constData(), static_cast<std::size_t>(end)), '\n');
    if (end == 0) return done;
    if (lines.front() != header)
        throw UsageError(
            "--resume: '" + path +
            "' belongs to another study (its header differs: other --vary, --points, --sample or --signals)");
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        long id = 0;
        const auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), id);
        if (ec == std::errc{} && p != line.data() && *p == ',') done.insert(id);
    }
    return done;
}

SummaryLog::SummaryLog(std::string path, const std::string& header, bool resume) : m_path(std::move(path)) {
    if (m_path.empty()) {
        m_stdout = true;
        write(header + "\n");
        return;
    }
    m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (resume ? 0 : O_TRUNC), 0666);
    if (m_fd < 0) fail(std::strerror(errno));
    off_t keep = 0;   // resuming: up to the last complete line
    if (resume) {
        QFile existing(QString::fromStdString(m_path));
        if (existing.open(QIODevice::ReadOnly)) keep = static_cast<off_t>(existing.readAll().lastIndexOf('\n') + 1);
        if (::ftruncate(m_fd, keep) != 0 || ::lseek(m_fd, keep, SEEK_SET) < 0) fail(std::strerror(errno));
    }
    if (keep == 0) write(header + "\n");
}

SummaryLog::~SummaryLog() {
    if (m_fd >= 0) ::close(m_fd);
}

void SummaryLog::append(const std::string& row) {
    const std::lock_guard lock(m_mutex);
    write(row);
}

void SummaryLog::write(const std::string& bytes) {
    if (m_stdout) {   // one row at a time, as the runs end
        if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
            fail(std::strerror(errno));
        return;
    }
    if (m_fd < 0) fail("the summary was already closed");
    std::string_view rest = bytes;
    while (!rest.empty()) {
        const ssize_t n = ::write(m_fd, rest.data(), rest.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail(n < 0 ? std::strerror(errno) : "nothing written");
        rest.remove_prefix(static_cast<std::size_t>(n));
    }
}

void SummaryLog::close() {
    if (m_fd < 0) return;
    if (::fsync(m_fd) != 0 && errno != EINVAL && errno != EROFS) fail(std::strerror(errno));
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) fail(std::strerror(errno));
}

void SummaryLog::fail(const std::string& reason) const {
    throw core::IoError("cannot write '" + (m_path.empty() ? std::string("standard output") : m_path) + "': " + reason);
}

}   // namespace endstop::batch
