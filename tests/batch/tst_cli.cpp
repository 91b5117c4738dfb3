// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch (README, "Headless batch tool") as a user runs it: the endstop-batch binary in a scratch directory.
// run and its flags (CSV layout and precision, --out -, --stats keys, the output grid, dense and
// KLU), validate, variables, blocks, sweep; exit codes 0/1/2; every bad input gives exit 2 with
// one line on stderr naming the file, flag, block or parameter and leaves no output file behind;
// a simulation failure gives exit 1 with time, block and hint, and the rows computed so far.
#include "support/test_support.hpp"

#include "core/io/project_file.hpp"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <charconv>
#include <cmath>

using namespace endstop;
using test::runBatch;

namespace {

QString fixture(const QString& relative) { return test::sourcePath("tests/batch/" + relative); }

struct Csv {
    QStringList header;
    std::vector<QStringList> cells;           // as written
    std::vector<std::vector<double>> rows;    // parsed
    QString error;                            // a cell that is not a number, or a ragged row
    std::size_t column(const QString& name) const { return static_cast<std::size_t>(header.indexOf(name)); }
    double at(std::size_t row, const QString& name) const { return rows[row][column(name)]; }
};

double parse(const QString& cell, bool* ok) {
    const QByteArray s = cell.toLatin1();
    double x = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    *ok = ec == std::errc{} && ptr == s.data() + s.size() && !s.isEmpty();
    return x;
}

Csv parseCsv(const QString& text) {
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

QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QString writeText(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) qFatal("cannot write %s", qPrintable(path));
    return path;
}

// exactly one line, newline-terminated
bool oneLine(const QString& s) { return s.endsWith('\n') && s.count('\n') == 1; }

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

// The CSV the library produces for the same model, in process: columns and every value.
core::MemorySink inProcess(const QString& path, const std::vector<core::Edit>& edits = {}) {
    core::Model m = core::io::loadProject(path, blocks::registry());
    for (const core::Edit& e : edits) m.apply(e);
    return test::run(m);
}

QString diffAgainst(const Csv& csv, const core::MemorySink& mem) {
    if (csv.header.size() != static_cast<qsizetype>(mem.columns().size()) + 1) return "column count";
    if (csv.rows.size() != mem.rows()) return QString("%1 rows vs %2").arg(csv.rows.size()).arg(mem.rows());
    for (std::size_t c = 0; c < mem.columns().size(); ++c)
        if (csv.header[static_cast<qsizetype>(c) + 1] != QString::fromStdString(mem.columns()[c].name)) return "header " + csv.header.join(',');
    for (std::size_t r = 0; r < mem.rows(); ++r) {
        if (csv.rows[r][0] != mem.time()[r]) return QString("time of row %1").arg(r);
        for (std::size_t c = 0; c < mem.columns().size(); ++c)
            if (csv.rows[r][c + 1] != mem.values(c)[r]) return QString("row %1 column %2").arg(r).arg(csv.header[static_cast<qsizetype>(c) + 1]);
    }
    return {};
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_osc, m_free, m_pushed, m_runaway;

    QString scratch(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(QFile::exists(ENDSTOP_BATCH_EXE));
        m_osc = fixture("run/oscillator.endstop");
        m_free = fixture("run/free_oscillator.endstop");
        m_pushed = fixture("sweep/pushed_mass.endstop");
        m_runaway = fixture("failure/runaway.endstop");
    }

    // header time,block.var,... in model order, one row per step, every value at round-trip
    // precision: the CSV holds exactly what the library computed
    void runWritesCsvAndEvents() {
        const QString out = scratch("run.csv"), events = scratch("run_events.csv");
        const auto r = runBatch({"run", m_osc, "--out", out, "--events", events});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out));   // with --out, no summary
        const Csv csv = parseCsv(readText(out));
        QVERIFY2(csv.error.isEmpty(), qPrintable(csv.error));
        QStringList expected{"time"};
        for (const core::Column& c : core::recordableVariables(core::io::loadProject(m_osc, blocks::registry()), blocks::registry()))
            expected << QString::fromStdString(c.name);
        QCOMPARE(csv.header, expected);
        for (const char* column : {"force.y", "source.f", "mass1.v", "mass1.x", "mass1.a", "spring1.x", "spring1.f", "damper1.power"})
            QVERIFY2(csv.header.contains(column), column);
        const QString diff = diffAgainst(csv, inProcess(m_osc));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // shortest round-trip text, and not rounded to a few digits
        int longCells = 0;
        for (const QStringList& row : csv.cells)
            for (const QString& cell : row) {
                bool ok = false;
                QCOMPARE(QString::fromStdString(core::formatNumber(parse(cell, &ok))), cell);
                longCells += cell.size() >= 17;
            }
        QVERIFY(longCells > 100);
        QCOMPARE(csv.rows.front()[0], 0.0);
        QCOMPARE(csv.rows.back()[0], 2.0);
        // the step at 0.5 s: rows before and after it at exactly 0.5, and one event
        int atStep = 0;
        for (const auto& row : csv.rows) atStep += row[0] == 0.5;
        QVERIFY(atStep >= 2);
        QCOMPARE(readText(events), QString("time,block,kind,velocity\n0.5,force,time,0\n"));
    }

    // --out - : the CSV and nothing else on stdout, byte for byte what --out FILE writes
    void outToStdout() {
        const QString out = scratch("stdout_ref.csv");
        QCOMPARE(runBatch({"run", m_osc, "--out", out}).exitCode, 0);
        const auto r = runBatch({"run", m_osc, "--out", "-", "--stats"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, readText(out));
        QVERIFY(!r.out.contains('{'));
        QVERIFY2(r.err.contains("\"steps\""), qPrintable(r.err));   // the stats went to stderr
    }

    // without --out: a short summary, no CSV anywhere
    void summaryWithoutOut() {
        QTemporaryDir cwd;
        const auto r = runBatch({"run", m_osc}, cwd.path());
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("simulated to t = 2 s") && r.out.contains("mass1.x") && r.out.contains("no CSV written"), qPrintable(r.out));
        QVERIFY(entries(cwd.path()).isEmpty());
    }

    // --stats: one JSON line with the keys the README lists
    void stats() {
        const auto r = runBatch({"run", m_osc, "--out", scratch("stats.csv"), "--stats"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(oneLine(r.out), qPrintable(r.out));
        QJsonParseError err;
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8(), &err).object();
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        for (const char* key : {"steps", "residual_evals", "jacobian_evals", "events", "build_s", "solve_s", "wall_s", "unknowns"})
            QVERIFY2(o.contains(key) && o[key].isDouble() && o[key].toDouble() >= 0, key);
        QVERIFY(o["steps"].toInt() > 10);
        QVERIFY(o["residual_evals"].toInt() >= o["steps"].toInt());
        QCOMPARE(o["events"].toInt(), 1);
        QCOMPARE(o["unknowns"].toInt(), static_cast<int>(inProcess(m_osc).stats().unknowns));
        QVERIFY(o["wall_s"].toDouble() >= o["solve_s"].toDouble());
    }

    void setParameters() {
        const QString out = scratch("set.csv");
        auto r = runBatch({"run", m_osc, "--out", out, "--set", "mass1.mass=4000 g", "--set=spring1.stiffness=1.2 kN/m",
                           "--set", "force.step_time=0.25"});
        QCOMPARE(r.exitCode, 0);
        const QString diff = diffAgainst(parseCsv(readText(out)), inProcess(m_osc, {core::SetParameter{"mass1", "mass", core::ParamValue{4.0}},
                                                                                   core::SetParameter{"spring1", "stiffness", core::ParamValue{1200.0}},
                                                                                   core::SetParameter{"force", "step_time", core::ParamValue{0.25}}}));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // a choice and a vector
        r = runBatch({"run", m_osc, "--out", scratch("set2.csv"), "--set", "force.final_value=-3"});
        QCOMPARE(r.exitCode, 0);
    }

    void stopTimeAndTolerances() {
        const QString a = scratch("stop.csv");
        QCOMPARE(runBatch({"run", m_osc, "--out", a, "--stop-time", "0.7"}).exitCode, 0);
        const Csv csv = parseCsv(readText(a));
        QCOMPARE(csv.rows.back()[0], 0.7);
        // tighter tolerances take more steps and agree within the looser tolerance
        auto steps = [&](const QStringList& tol, const QString& file) {
            const auto r = runBatch(QStringList{"run", m_free, "--out", file, "--stats"} + tol);
            return QJsonDocument::fromJson(r.out.toUtf8()).object()["steps"].toInt();
        };
        const int loose = steps({"--rtol", "1e-4", "--atol", "1e-6"}, scratch("loose.csv"));
        const int tight = steps({"--rtol", "1e-9", "--atol", "1e-11"}, scratch("tight.csv"));
        QVERIFY2(tight > 2 * loose, qPrintable(QString("%1 vs %2 steps").arg(tight).arg(loose)));
        const Csv l = parseCsv(readText(scratch("loose.csv"))), t = parseCsv(readText(scratch("tight.csv")));
        const double w = 20.0;   // sqrt(800 / 2)
        QVERIFY(std::abs(t.rows.back()[t.column("m.x")] - 0.5 / w * std::sin(w * 2)) < 1e-7);
        QVERIFY(std::abs(l.rows.back()[l.column("m.x")] - 0.5 / w * std::sin(w * 2)) < 1e-3);
    }

    // --output-interval: rows on k * dt, IDA's interpolation, matching an every-step run
    void outputInterval() {
        const QString grid = scratch("grid.csv"), steps = scratch("steps.csv");
        QCOMPARE(runBatch({"run", m_free, "--out", grid, "--output-interval", "0.01"}).exitCode, 0);
        QCOMPARE(runBatch({"run", m_free, "--out", steps}).exitCode, 0);
        const Csv g = parseCsv(readText(grid)), s = parseCsv(readText(steps));
        QCOMPARE(g.rows.size(), std::size_t(201));
        for (std::size_t k = 0; k < g.rows.size(); ++k)
            QVERIFY2(std::abs(g.rows[k][0] - 0.01 * static_cast<double>(k)) <= 1e-12, qPrintable(g.cells[k][0]));
        QCOMPARE(g.rows.back()[0], 2.0);
        QVERIFY(s.rows.size() != g.rows.size());
        // the every-step run, interpolated with cubic Hermite (x and its derivative v), at each grid time
        const std::size_t x = s.column("m.x"), v = s.column("m.v");
        const double w = 20.0;
        double worst = 0.0, worstExact = 0.0;
        std::size_t i = 1;
        for (const auto& row : g.rows) {
            const double t = row[0];
            while (i + 1 < s.rows.size() && s.rows[i][0] < t) ++i;
            const auto &p = s.rows[i - 1], &q = s.rows[i];
            const double h = q[0] - p[0], u = h > 0 ? (t - p[0]) / h : 0.0;
            const double hermite = (2 * u * u * u - 3 * u * u + 1) * p[x] + (u * u * u - 2 * u * u + u) * h * p[v] +
                                   (-2 * u * u * u + 3 * u * u) * q[x] + (u * u * u - u * u) * h * q[v];
            worst = std::max(worst, std::abs(row[g.column("m.x")] - hermite));
            worstExact = std::max(worstExact, std::abs(row[g.column("m.x")] - 0.5 / w * std::sin(w * t)));
        }
        QVERIFY2(worst < 1e-7, qPrintable(QString("grid vs every-step run: %1").arg(worst)));
        QVERIFY2(worstExact < 1e-7, qPrintable(QString("grid vs closed form: %1").arg(worstExact)));
    }

    void signalsFlag() {
        const QString out = scratch("signals.csv");
        QCOMPARE(runBatch({"run", m_osc, "--out", out, "--signals", "spring1.f,mass1.x"}).exitCode, 0);
        const Csv csv = parseCsv(readText(out));
        QCOMPARE(csv.header.size(), 3);
        QVERIFY(csv.header.contains("mass1.x") && csv.header.contains("spring1.f"));
        QCOMPARE(runBatch({"run", m_osc, "--out", scratch("signals_all.csv")}).exitCode, 0);
        const Csv all = parseCsv(readText(scratch("signals_all.csv")));
        QCOMPARE(csv.rows.size(), all.rows.size());
        for (std::size_t r = 0; r < csv.rows.size(); ++r) QCOMPARE(csv.at(r, "mass1.x"), all.at(r, "mass1.x"));
        // a name given twice is one column
        QCOMPARE(runBatch({"run", m_osc, "--out", out, "--signals", "mass1.x,mass1.x"}).exitCode, 0);
        QCOMPARE(parseCsv(readText(out)).header, (QStringList{"time", "mass1.x"}));
    }

    // dense and KLU solve the same system: the same answer, and --stats says which was used
    void denseAndKlu() {
        QStringList solver;
        std::vector<Csv> results;
        for (const char* s : {"dense", "klu"}) {
            const QString out = scratch(QString("solver_%1.csv").arg(s));
            const auto r = runBatch({"run", m_osc, "--out", out, "--linear-solver", s, "--stats"});
            QCOMPARE(r.exitCode, 0);
            solver << QJsonDocument::fromJson(r.out.toUtf8()).object()["linear_solver"].toString();
            results.push_back(parseCsv(readText(out)));
        }
        QCOMPARE(solver, (QStringList{"dense", "klu"}));
        const Csv &d = results[0], &k = results[1];
        QCOMPARE(d.header, k.header);
        QCOMPARE(d.rows.back()[0], k.rows.back()[0]);
        for (std::size_t c = 1; c < static_cast<std::size_t>(d.header.size()); ++c) {
            const double a = d.rows.back()[c], b = k.rows.back()[c];
            QVERIFY2(std::abs(a - b) <= 1e-6 * (1 + std::abs(a)), qPrintable(d.header[static_cast<qsizetype>(c)]));
        }
    }

    // flags may come before the model
    void flagsBeforeModel() {
        const auto r = runBatch({"run", "--stats", "--stop-time", "0.5", m_osc, "--out", scratch("order.csv")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("{\"steps\""), qPrintable(r.out + r.err));
        QCOMPARE(parseCsv(readText(scratch("order.csv"))).rows.back()[0], 0.5);
    }

    void validateCommand() {
        auto r = runBatch({"validate", m_osc});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("ok (6 blocks, 7 connections)"), qPrintable(r.out));
        QVERIFY(r.err.isEmpty());
        // an open conserving port is an info, not an error
        const QString open = writeText(scratch("open.endstop"), R"({"format":"endstop-project","formatVersion":1,
            "blocks":[{"name":"m","type":"translational.mass"},{"name":"d","type":"translational.damper"}],
            "connections":[["m.M","d.R"]]})");
        r = runBatch({"validate", open});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("info: block 'd', port 'C': port is not connected"), qPrintable(r.out));
        // an ill-posed model: exit 2, naming the blocks
        const QString bad = writeText(scratch("parallel.endstop"), R"({"format":"endstop-project","formatVersion":1,"blocks":[
            {"name":"c","type":"signal.constant"},
            {"name":"vs1","type":"translational.velocity_source"}, {"name":"vs2","type":"translational.velocity_source"},
            {"name":"m","type":"translational.mass"}, {"name":"g","type":"translational.reference"}],
            "connections":[["c.y","vs1.S"],["c.y","vs2.S"],["vs1.R","m.M"],["vs2.R","m.M"],["vs1.C","g.R"],["vs2.C","g.R"]]})");
        r = runBatch({"validate", bad});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith(bad + ": error:") && r.err.contains("vs1") && r.err.contains("vs2"), qPrintable(r.err));
    }

    void variablesCommand() {
        const auto r = runBatch({"variables", m_osc});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        const auto columns = core::recordableVariables(core::io::loadProject(m_osc, blocks::registry()), blocks::registry());
        QCOMPARE(lines.size(), static_cast<qsizetype>(columns.size()));
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const QStringList parts = lines[static_cast<qsizetype>(i)].split(' ', Qt::SkipEmptyParts);
            QCOMPARE(parts.value(0), QString::fromStdString(columns[i].name));
            QCOMPARE(parts.value(1), QString::fromStdString(columns[i].unit));
            QVERIFY(lines[static_cast<qsizetype>(i)].contains(QString::fromStdString(columns[i].label)));
        }
        QVERIFY(r.out.contains(QRegularExpression("mass1\\.x +m +Position")));
        QVERIFY(r.out.contains(QRegularExpression("spring1\\.f +N +")));
        QVERIFY(r.out.contains(QRegularExpression("damper1\\.power +W +")));
    }

    void blocksCommand() {
        const auto plain = runBatch({"blocks"});
        QCOMPARE(plain.exitCode, 0);
        const auto md = runBatch({"blocks", "--markdown"});
        QCOMPARE(md.exitCode, 0);
        for (const core::BlockType& t : blocks::registry().types()) {
            const QString id = QString::fromStdString(t.info.typeId);
            QVERIFY2(plain.out.contains(QRegularExpression("^" + QRegularExpression::escape(id) + " +" +
                                                           QRegularExpression::escape(QString::fromStdString(t.info.title)) + "$",
                                                           QRegularExpression::MultilineOption)),
                     qPrintable(id));
            QVERIFY2(md.out.contains("## " + QString::fromStdString(t.info.title) + " (`" + id + "`)"), qPrintable(id));
            const auto block = t.create({});
            for (const core::ParamDesc& d : block->params())
                QVERIFY2(md.out.contains("| `" + QString::fromStdString(d.key) + "` |"), qPrintable(id + " " + QString::fromStdString(d.key)));
        }
        QCOMPARE(plain.out.count('\n'), static_cast<qsizetype>(blocks::registry().types().size()));
        QVERIFY(md.out.contains("| key | label | unit | default | range | shown when |"));
        QVERIFY(md.out.contains("| `mass` | Mass | kg | 1 | > 0 kg |"));
        QVERIFY(md.out.contains("Recorded: `v` (m/s), `x` (m), `a` (m/s^2)"));
        QVERIFY(runBatch({"blocks", "--html"}).exitCode == 2);
        // docs/block-reference.md is this output, regenerated when a block changes
        QVERIFY2(test::readBytes(test::sourcePath("docs/block-reference.md")) == md.out.toUtf8(),
                 "docs/block-reference.md is stale: endstop-batch blocks --markdown > docs/block-reference.md");
    }

    // values and START:STOP:COUNT, the Cartesian product, one CSV (and event log) per run and
    // summary.csv, each with its units sidecar; the number of jobs changes nothing but the order
    // in which summary rows are appended
    void sweep() {
        const QString one = scratch("sweep1"), three = scratch("sweep3");
        const QStringList vary{"--vary", "m.mass=1,2,4", "--vary", "F.value=2:6:3"};
        auto r = runBatch(QStringList{"sweep", m_pushed, "--out", one, "--jobs", "1"} + vary);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("9 runs, 9 ok"), qPrintable(r.out));
        r = runBatch(QStringList{"sweep", m_pushed, "--out", three, "--jobs", "3"} + vary);
        QCOMPARE(r.exitCode, 0);
        QStringList expected{"summary.csv", "summary.csv.units.json"}, runFiles;
        for (int i = 1; i <= 9; ++i)
            for (const QString suffix : {".csv", ".csv.units.json", "_events.csv", "_events.csv.units.json"})
                runFiles << QString("run_%1%2").arg(i, 6, 10, QChar('0')).arg(suffix);
        expected += runFiles;
        expected.sort();
        QCOMPARE(entries(one), expected);
        for (const QString& f : runFiles) QCOMPARE(readText(three + "/" + f), readText(one + "/" + f));
        auto numeric = [](QString text) {   // statuses as numbers, the empty message column dropped
            return parseCsv(text.replace(",ok,", ",0,").replace(QRegularExpression(",(?=,|\\n)"), ",0"));
        };
        const Csv summary = numeric(readText(one + "/summary.csv"));
        QVERIFY2(summary.error.isEmpty(), qPrintable(summary.error));
        QCOMPARE(summary.header.mid(0, 8), (QStringList{"run", "status", "m.mass", "F.value", "wall_s", "steps", "events", "message"}));
        QVERIFY(summary.header.contains("m.v.final") && summary.header.contains("m.v.min") && summary.header.contains("m.v.max"));
        QCOMPARE(summary.rows.size(), std::size_t(9));
        std::size_t row = 0;
        for (double mass : {1.0, 2.0, 4.0})
            for (double force : {2.0, 4.0, 6.0}) {   // --jobs 1: the rows in run order
                QCOMPARE(summary.at(row, "run"), double(row + 1));
                QCOMPARE(summary.at(row, "m.mass"), mass);
                QCOMPARE(summary.at(row, "F.value"), force);
                QVERIFY(std::abs(summary.at(row, "m.v.final") - force / mass) < 1e-6);   // v(1) = F t / m
                QCOMPARE(summary.at(row, "m.v.min"), 0.0);
                QVERIFY(std::abs(summary.at(row, "m.x.max") - force / mass / 2) < 1e-6);
                const Csv run = parseCsv(readText(one + QString("/run_%1.csv").arg(row + 1, 6, 10, QChar('0'))));
                QCOMPARE(run.rows.back()[run.column("m.v")], summary.at(row, "m.v.final"));
                QCOMPARE(summary.at(row, "steps"), double(run.rows.size() - 1));   // a row per step after the first
                ++row;
            }
        // without --out: the summary on stdout, a row as each run ends
        r = runBatch({"sweep", m_pushed, "--vary", "m.mass=1:3:2", "--vary", "F.value=3 N"});
        QCOMPARE(r.exitCode, 0);
        const Csv printed = numeric(r.out);
        QCOMPARE(printed.rows.size(), std::size_t(2));
        const std::size_t second = printed.at(0, "run") == 2 ? 0 : 1;
        QCOMPARE(printed.at(second, "m.mass"), 3.0);
        QVERIFY(std::abs(printed.at(second, "m.v.final") - 1.0) < 1e-6);
    }

    // a failing run in a sweep: exit 1, its status says so, the others are there
    void sweepWithFailure() {
        const QString dir = scratch("sweep_fail");
        const auto r = runBatch({"sweep", m_runaway, "--vary", "push.slope=1,1e300", "--out", dir});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("run 2:") && r.err.contains("simulation failed"), qPrintable(r.err));
        const QString summary = readText(dir + "/summary.csv");
        QVERIFY2(summary.contains("\n1,ok,1,") && summary.contains("\n2,failed,1e+300,"), qPrintable(summary));
    }

    // Bad input files: exit 2, one line on stderr naming the file and what is wrong there,
    // nothing on stdout, no output file.
    void badFiles_data() {
        QTest::addColumn<QByteArray>("json");   // "" for a missing file
        QTest::addColumn<QStringList>("expected");
        const QByteArray head = R"({"format": "endstop-project", "formatVersion": 1, )";
        const QByteArray mass = R"({"name": "m", "type": "translational.mass"})";
        const QByteArray ground = R"({"name": "g", "type": "translational.reference"})";
        auto file = [&](const QByteArray& blocks, const QByteArray& connections = "[]") {
            return head + "\"blocks\": [" + blocks + "], \"connections\": " + connections + "}";
        };
        QTest::newRow("missing file") << QByteArray() << QStringList{"no such file"};
        QTest::newRow("malformed JSON") << QByteArray("{\"format\": \"endstop-project\",\n\"blocks\": [}") << QStringList{":2:", "malformed JSON"};
        QTest::newRow("unknown block type") << file(R"({"name": "m", "type": "translational.masss"})")
                                            << QStringList{"blocks[0].type", "unknown block type \"translational.masss\""};
        QTest::newRow("unknown port") << file(mass + ", " + ground, R"([["m.Q", "g.R"]])") << QStringList{"connections[0][0]", "no port \"Q\""};
        QTest::newRow("unknown parameter key") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"weight": 1}})")
                                               << QStringList{"blocks[0].parameters.weight", "no parameter \"weight\""};
        QTest::newRow("wrong unit dimension") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "2 m/s"}})")
                                              << QStringList{"blocks[0].parameters.mass", "'m/s'", "expected kg"};
        QTest::newRow("unknown unit") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "2 stone"}})")
                                      << QStringList{"blocks[0].parameters.mass", "unknown unit 'stone'"};
        QTest::newRow("negative mass") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": -2}})")
                                       << QStringList{"block 'm', parameter 'mass': must be > 0 kg, got -2 kg"};
        QTest::newRow("NaN") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "NaN"}})")
                             << QStringList{"blocks[0].parameters.mass", "not a finite number"};
        QTest::newRow("inf") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"initial_velocity": "inf"}})")
                             << QStringList{"blocks[0].parameters.initial_velocity", "not a finite number"};
        QTest::newRow("duplicate block names") << file(mass + ", " + mass) << QStringList{"blocks[1].name", "duplicate block name \"m\""};
        QTest::newRow("wire between domains") << file(mass + R"(, {"name": "J", "type": "rotational.inertia"})", R"([["J.I", "m.M"]])")
                                              << QStringList{"connections[0]", "J.I (rotational)", "m.M (translational)"};
        QTest::newRow("open input") << file(mass + ", " + ground + R"(, {"name": "fs", "type": "translational.force_source"})",
                                            R"([["fs.R", "m.M"], ["fs.C", "g.R"]])")
                                    << QStringList{"block 'fs', port 'S': input signal port has no source"};
        QTest::newRow("newer formatVersion") << QByteArray(R"({"format": "endstop-project", "formatVersion": 3, "blocks": []})")
                                             << QStringList{"formatVersion", "newer"};
        QTest::newRow("newer typeVersion") << file(R"({"name": "m", "type": "translational.mass", "typeVersion": 9})")
                                           << QStringList{"blocks[0].typeVersion", "newer"};
        QTest::newRow("bad simulation setting") << head + R"("simulation": {"stop_time": -1}, "blocks": []})"
                                                << QStringList{"stop_time", "must be > 0"};
        QTest::newRow("ill-posed") << file(R"({"name": "c", "type": "signal.constant"}, {"name": "fs", "type": "translational.force_source"}, )" + ground,
                                           R"([["c.y", "fs.S"], ["fs.C", "g.R"]])")
                                   << QStringList{"block 'fs'", "under-determined", "{fs.R}"};
    }
    void badFiles() {
        QFETCH(QByteArray, json);
        QFETCH(QStringList, expected);
        QTemporaryDir dir;
        const QString model = dir.filePath("bad.endstop");
        if (!json.isEmpty()) writeText(model, json);
        const QStringList before = entries(dir.path());
        for (const QString command : {"run", "validate"}) {
            const QStringList args = command == QString("run")
                                         ? QStringList{"run", model, "--out", dir.filePath("out.csv"), "--events", dir.filePath("ev.csv")}
                                         : QStringList{"validate", model};
            const auto r = runBatch(args, dir.path());
            QCOMPARE(r.exitCode, 2);
            if (command == QString("run")) {
                QVERIFY2(oneLine(r.err), qPrintable(r.err));
                QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
            }
            QVERIFY2(r.err.contains(model), qPrintable(r.err));
            for (const QString& f : expected) QVERIFY2(r.err.contains(f), qPrintable(r.err + "   lacks: " + f));
            QCOMPARE(entries(dir.path()), before);   // nothing written, not even half
        }
    }

    // Bad flags and values: exit 2, one line naming the flag, block or parameter, no output file.
    void badArguments_data() {
        QTest::addColumn<QStringList>("args");   // MODEL and OUT are replaced
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown flag") << QStringList{"run", "MODEL", "--out", "OUT", "--bogus"} << "unknown flag --bogus";
        QTest::newRow("stray argument") << QStringList{"run", "MODEL", "extra", "--out", "OUT"} << "unexpected argument 'extra'";
        QTest::newRow("no model") << QStringList{"run", "--out", "OUT"} << "missing MODEL.endstop";
        QTest::newRow("unknown command") << QStringList{"simulate", "MODEL"} << "unknown command 'simulate'";
        QTest::newRow("flag without value") << QStringList{"run", "MODEL", "--out"} << "flag --out needs a value";
        QTest::newRow("flag twice") << QStringList{"run", "MODEL", "--out", "OUT", "--stop-time", "1", "--stop-time", "2"}
                                    << "flag --stop-time given more than once";
        QTest::newRow("set unknown block") << QStringList{"run", "MODEL", "--out", "OUT", "--set", "mass2.mass=2"} << "no block named 'mass2'";
        QTest::newRow("set unknown parameter") << QStringList{"run", "MODEL", "--out", "OUT", "--set", "mass1.weight=2"}
                                               << "block 'mass1' (translational.mass) has no parameter 'weight'";
        QTest::newRow("set bad unit") << QStringList{"run", "MODEL", "--out", "OUT", "--set", "mass1.mass=2 stone"} << "unknown unit 'stone'";
        QTest::newRow("set wrong dimension") << QStringList{"run", "MODEL", "--out", "OUT", "--set", "mass1.mass=2 mm"} << "'mm'";
        QTest::newRow("set not a number") << QStringList{"run", "MODEL", "--out", "OUT", "--set", "mass1.mass=heavy"} << "'heavy' is not a number";
        QTest::newRow("set without value") << QStringList{"run", "MODEL", "--out", "OUT", "--set", "mass1.mass"} << "expected NAME.KEY=VALUE";
        QTest::newRow("set out of range") << QStringList{"run", "MODEL", "--out", "OUT", "--set", "mass1.mass=-1"}
                                          << "--set 'mass1.mass=-1': block 'mass1', parameter 'mass': must be > 0 kg";
        QTest::newRow("negative stop time") << QStringList{"run", "MODEL", "--out", "OUT", "--stop-time", "-1"} << "--stop-time";
        QTest::newRow("stop time not a number") << QStringList{"run", "MODEL", "--out", "OUT", "--stop-time", "1s"}
                                                << "flag --stop-time: expected a number, got '1s'";
        QTest::newRow("rtol out of range") << QStringList{"run", "MODEL", "--out", "OUT", "--rtol", "2"} << "--rtol";
        QTest::newRow("atol zero") << QStringList{"run", "MODEL", "--out", "OUT", "--atol", "0"} << "--atol";
        QTest::newRow("negative output interval") << QStringList{"run", "MODEL", "--out", "OUT", "--output-interval", "-0.1"} << "--output-interval";
        QTest::newRow("unknown linear solver") << QStringList{"run", "MODEL", "--out", "OUT", "--linear-solver", "lu"} << "--linear-solver";
        QTest::newRow("unknown signal") << QStringList{"run", "MODEL", "--out", "OUT", "--signals", "mass1.x,mass1.q"} << "unknown signal 'mass1.q'";
        QTest::newRow("empty signals") << QStringList{"run", "MODEL", "--out", "OUT", "--signals", ","} << "--signals";
        QTest::newRow("unwritable out") << QStringList{"run", "MODEL", "--out", "NOWHERE/out.csv"} << "--out";
        QTest::newRow("unwritable events") << QStringList{"run", "MODEL", "--out", "OUT", "--events", "NOWHERE/ev.csv"} << "--events";
        QTest::newRow("sweep without vary") << QStringList{"sweep", "MODEL", "--out", "OUT"} << "--vary";
        QTest::newRow("sweep unknown block") << QStringList{"sweep", "MODEL", "--vary", "nope.mass=1,2", "--out", "OUT"} << "no block named 'nope'";
        QTest::newRow("sweep bad count") << QStringList{"sweep", "MODEL", "--vary", "mass1.mass=1:2:0", "--out", "OUT"} << "COUNT";
        QTest::newRow("sweep bad value") << QStringList{"sweep", "MODEL", "--vary", "mass1.mass=1,2 stone", "--out", "OUT"} << "unknown unit 'stone'";
        QTest::newRow("sweep value out of range") << QStringList{"sweep", "MODEL", "--vary", "mass1.mass=1,-1", "--out", "OUT"}
                                                  << "--vary mass1.mass: block 'mass1', parameter 'mass': must be > 0 kg";
        QTest::newRow("sweep zero jobs") << QStringList{"sweep", "MODEL", "--vary", "mass1.mass=1,2", "--jobs", "0", "--out", "OUT"} << "--jobs";
        QTest::newRow("blocks with a model") << QStringList{"blocks", "MODEL"} << "unexpected argument";
    }
    void badArguments() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        for (QString& a : args) {
            if (a == "MODEL") a = m_osc;
            else if (a == "OUT") a = dir.filePath("out");
            else a.replace("NOWHERE", dir.filePath("missing/dir"));
        }
        const auto r = runBatch(args, dir.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(oneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
        QVERIFY2(entries(dir.path()).isEmpty(), qPrintable(entries(dir.path()).join(' ')));
    }

    void usage() {
        auto r = runBatch({});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("usage:"));
        r = runBatch({"--help"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("endstop-batch run MODEL.endstop"));
    }

    // IDA gives up: exit 1, one line with time, block and hint; the rows so far are written
    void simulationFailure() {
        const QString out = scratch("fail.csv"), events = scratch("fail_events.csv");
        const auto r = runBatch({"run", m_runaway, "--out", out, "--events", events, "--stats"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(oneLine(r.err), qPrintable(r.err));
        // the block named is the owner of the unknown with the largest error: the ramp, its force
        // source or the node it pushes
        const bool namesBlock = r.err.contains("block 'push'") || r.err.contains("block 'fs'") || r.err.contains("block 'm'");
        QVERIFY2(r.err.contains(m_runaway) && r.err.contains("simulation failed at t = 0.5 s") && namesBlock, qPrintable(r.err));
        QVERIFY2(r.err.trimmed().endsWith(")"), qPrintable(r.err));   // the hint
        const Csv csv = parseCsv(readText(out));
        QVERIFY2(csv.error.isEmpty(), qPrintable(csv.error));
        QVERIFY(csv.rows.size() > 3);
        QCOMPARE(csv.rows.back()[0], 0.5);
        QVERIFY(readText(events).startsWith("time,block,kind,velocity\n0.5,push,time,0\n"));
        // the statistics of the partial run
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QVERIFY2(o["steps"].toInt() > 0 && o["events"].toInt() == 1, qPrintable(r.out));
        // the same to stdout
        const auto s = runBatch({"run", m_runaway, "--out", "-"});
        QCOMPARE(s.exitCode, 1);
        QCOMPARE(s.out, readText(out));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
