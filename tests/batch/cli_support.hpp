// SPDX-License-Identifier: GPL-3.0-or-later
// What the endstop-batch tests (tst_cli_run, tst_cli_commands, tst_cli_errors) share: the fixture
// files, a strict CSV reader (every cell must parse as a number), scratch-file helpers and the
// in-process run the CLI's output is compared with.
#pragma once

#include "support/compare.hpp"
#include "support/test_support.hpp"

#include "core/io/project_file.hpp"

#include <QDir>
#include <QFile>

#include <charconv>

namespace endstop::test::cli {

inline QString fixture(const QString& relative) { return test::sourcePath("tests/batch/" + relative); }

struct Csv {
    QStringList header;
    std::vector<QStringList> cells;          // as written
    std::vector<std::vector<double>> rows;   // parsed
    QString error;                           // a cell that is not a number, or a ragged row
    std::size_t column(const QString& name) const { return static_cast<std::size_t>(header.indexOf(name)); }
    double at(std::size_t row, const QString& name) const { return rows[row][column(name)]; }
};

inline double parse(const QString& cell, bool* ok) {
    const QByteArray s = cell.toLatin1();
    double x = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    *ok = ec == std::errc{} && ptr == s.data() + s.size() && !s.isEmpty();
    return x;
}

inline Csv parseCsv(const QString& text) {
    Csv csv;
    QStringList lines = text.split('\n');
    if (!lines.isEmpty() && lines.back().isEmpty()) lines.removeLast();
    if (lines.isEmpty()) {
        csv.error = "empty";
        return csv;
    }
    csv.header = lines.takeFirst().split(',');
    for (const QString& line : lines) {
        const QStringList cells = line.split(',');
        if (cells.size() != csv.header.size()) csv.error = "ragged row: " + line;
        std::vector<double> row;
        for (const QString& c : cells) {
            bool ok = false;
            row.push_back(parse(c, &ok));
            if (!ok) csv.error = "not a number: '" + c + "'";
        }
        csv.cells.push_back(cells);
        csv.rows.push_back(row);
    }
    return csv;
}

inline QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

inline QString writeText(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) qFatal("cannot write %s", qPrintable(path));
    return path;
}

// exactly one line, newline-terminated
inline bool oneLine(const QString& s) { return s.endsWith('\n') && s.count('\n') == 1; }

inline QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

// The CSV the library produces for the same model, in process: columns and every value.
inline core::MemorySink inProcess(const QString& path, const std::vector<core::model::Edit>& edits = {}) {
    core::model::Model m = core::io::loadProject(path, blocks::registry());
    for (const core::model::Edit& e : edits) m.apply(e);
    return test::run(m);
}

inline QString diffAgainst(const Csv& csv, const core::MemorySink& mem) {
    if (csv.header.size() != static_cast<qsizetype>(mem.columns().size()) + 1) return "column count";
    if (csv.rows.size() != mem.rows()) return QString("%1 rows vs %2").arg(csv.rows.size()).arg(mem.rows());
    for (std::size_t c = 0; c < mem.columns().size(); ++c)
        if (csv.header[static_cast<qsizetype>(c) + 1] != QString::fromStdString(mem.columns()[c].name))
            return "header " + csv.header.join(',');
    for (std::size_t r = 0; r < mem.rows(); ++r) {
        if (csv.rows[r][0] != mem.time()[r]) return QString("time of row %1").arg(r);
        for (std::size_t c = 0; c < mem.columns().size(); ++c)
            if (csv.rows[r][c + 1] != mem.values(c)[r])
                return QString("row %1 column %2").arg(r).arg(csv.header[static_cast<qsizetype>(c) + 1]);
    }
    return {};
}

}   // namespace endstop::test::cli
