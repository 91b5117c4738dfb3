// SPDX-License-Identifier: GPL-3.0-or-later
// Studies with endstop-batch sweep (docs/batch.md, "Studies"), as a user runs them: design tables
// with units, Monte Carlo samples that repeat with their seed, shards that merge into exactly the
// unsharded study, a killed study that keeps its finished runs and resumes, run guards, summaries
// without run files, the progress line and the units sidecars. The model is a mass pushed by a
// constant force from rest: v(1 s) = F / m and x(1 s) = F / (2 m).
#include "support/compare.hpp"
#include "support/test_support.hpp"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <map>

using namespace endstop;
using test::runBatch;

namespace {

QString fixture(const QString& relative) { return test::sourcePath("tests/batch/" + relative); }
QString text(const QString& path) { return QString::fromUtf8(test::readBytes(path)); }

// A summary as a map run id -> {column -> cell}, wall_s left out (the one column that differs
// between two runs of the same study).
using Table = std::map<long, std::map<QString, QString>>;
Table table(const QString& csv, QStringList* headerOut = nullptr) {
    QStringList lines = csv.split('\n', Qt::SkipEmptyParts);
    Table t;
    if (lines.isEmpty()) return t;
    const QStringList header = lines.takeFirst().split(',');
    if (headerOut) *headerOut = header;
    for (const QString& line : lines) {
        QStringList cells{""};   // a failure's message is quoted: it has commas
        bool quoted = false;
        for (const QChar c : line) {
            if (c == '"')
                quoted = !quoted;   // a doubled quote inside toggles twice: harmless here
            else if (c == ',' && !quoted)
                cells << "";
            else
                cells.back() += c;
        }
        auto& row = t[cells[0].toLong()];
        for (qsizetype i = 0; i < header.size() && i < cells.size(); ++i)
            if (header[i] != "wall_s") row[header[i]] = cells[i];
    }
    return t;
}

double num(const Table& t, long run, const QString& column) { return t.at(run).at(column).toDouble(); }

QStringList files(const QString& dir) { return QDir(dir).entryList(QDir::Files, QDir::Name); }

}   // namespace

class TestStudy : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_pushed;
    QString scratch(const QString& name) const { return m_dir.filePath(name); }
    QString write(const QString& name, const QByteArray& bytes) const { return test::writeBytes(scratch(name), bytes); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_pushed = fixture("sweep/pushed_mass.endstop");
    }

    // One run per row, values with units (quoted or not), run ids from the table; rows numbered
    // from 1 when the table has no run column. The summary holds the closed form.
    void designTableWithUnits() {
        const QString points = write("design.csv", "run,m.mass,F.value\n7,\"2000 g\",4 N\n3,0.5,\"1.5 N\"\n\n");
        const QString out = scratch("table");
        auto r = runBatch({"sweep", m_pushed, "--points", points, "--out", out, "--jobs", "2"});
        QCOMPARE(r.exitCode, 0);
        QStringList header;
        const Table t = table(text(out + "/summary.csv"), &header);
        QCOMPARE(header.mid(0, 8),
                 (QStringList{"run", "status", "m.mass", "F.value", "wall_s", "steps", "events", "message"}));
        QCOMPARE(t.size(), std::size_t(2));
        QCOMPARE(t.at(7).at("status"), QString("ok"));
        QCOMPARE(num(t, 7, "m.mass"), 2.0);   // SI in the summary
        QCOMPARE(num(t, 7, "F.value"), 4.0);
        QCOMPARE_NEAR(num(t, 7, "m.v.final"), 2.0, 1e-6);
        QCOMPARE_NEAR(num(t, 3, "m.x.final"), 1.5, 1e-6);
        QVERIFY(num(t, 3, "steps") > 0);
        QCOMPARE(files(out),
                 (QStringList{"run_000003.csv", "run_000003.csv.units.json", "run_000003_events.csv",
                              "run_000003_events.csv.units.json", "run_000007.csv", "run_000007.csv.units.json",
                              "run_000007_events.csv", "run_000007_events.csv.units.json", "summary.csv",
                              "summary.csv.units.json"}));
        // without a run column: rows numbered from 1
        const QString plain = write("plain.csv", "m.mass\n1\n2\n");
        r = runBatch({"sweep", m_pushed, "--points", plain, "--summary-only", "--out", scratch("plain")});
        QCOMPARE(r.exitCode, 0);
        const Table p = table(text(scratch("plain/summary.csv")));
        QCOMPARE(num(p, 2, "m.mass"), 2.0);
        QCOMPARE_NEAR(num(p, 2, "m.v.final"), 3.0, 1e-6);   // the file's force, 6 N
        QCOMPARE(files(scratch("plain")), (QStringList{"summary.csv", "summary.csv.units.json"}));   // --summary-only
    }

    // --list-points prints the design; read back with --points it is the same study.
    void listedPointsRunTheSameStudy() {
        const QStringList grid{"--vary", "m.mass=1,2", "--vary", "F.value=2:6:3"};
        auto r = runBatch(QStringList{"sweep", m_pushed, "--list-points"} + grid);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out.split('\n').first(), QString("run,m.mass,F.value"));
        QCOMPARE(r.out.count('\n'), 7);
        QVERIFY2(r.out.contains("\n6,2,6\n"), qPrintable(r.out));   // the last --vary changes fastest
        const QString points = write("listed.csv", r.out.toUtf8());
        QCOMPARE(runBatch(QStringList{"sweep", m_pushed, "--summary-only", "--out", scratch("grid")} + grid).exitCode,
                 0);
        QCOMPARE(
            runBatch({"sweep", m_pushed, "--summary-only", "--points", points, "--out", scratch("listed")}).exitCode,
            0);
        QCOMPARE(table(text(scratch("listed/summary.csv"))), table(text(scratch("grid/summary.csv"))));
    }

    // Bad tables: exit 2, one line naming the file, the line and the column; nothing written.
    void badDesignTables_data() {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<QString>("expected");
        QTest::newRow("ragged") << QByteArray("run,m.mass\n1,2,3\n") << "design.csv:2: expected 2 fields";
        QTest::newRow("unknown block") << QByteArray("run,x.mass\n1,2\n")
                                       << "design.csv:1: column 'x.mass': no block named 'x'";
        QTest::newRow("bad unit") << QByteArray("m.mass\n2 stone\n")
                                  << "design.csv:2: column m.mass: mass: bad unit 'stone'";
        QTest::newRow("wrong dimension") << QByteArray("m.mass\n2 m\n") << "design.csv:2: column m.mass:";
        QTest::newRow("out of range") << QByteArray("m.mass\n1\n-1\n")
                                      << "design.csv:3: column m.mass: block 'm', parameter 'mass': must be > 0";
        QTest::newRow("duplicate id") << QByteArray("run,m.mass\n4,1\n4,2\n") << "design.csv:3: run id 4 appears twice";
        QTest::newRow("bad id") << QByteArray("run,m.mass\n0,1\n")
                                << "design.csv:2: run id must be a whole number >= 1";
        QTest::newRow("duplicate column") << QByteArray("m.mass,m.mass\n1,2\n") << "column 'm.mass' appears twice";
        QTest::newRow("open quote") << QByteArray("m.mass\n\"1 kg\n") << "design.csv:2: a quoted field is not closed";
        QTest::newRow("no rows") << QByteArray("run,m.mass\n") << "at least one row";
        QTest::newRow("no factor") << QByteArray("run\n1\n") << "names no parameter";
    }
    void badDesignTables() {
        QFETCH(QByteArray, csv);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString points = test::writeBytes(dir.filePath("design.csv"), csv);
        const auto r = runBatch({"sweep", m_pushed, "--points", points, "--out", dir.filePath("out")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected) && r.err.count('\n') == 1, qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath("out")));
    }

    // A seed gives the same design every time; run r's values do not depend on the count; the
    // draws have the distribution asked for.
    void monteCarloIsReproducible() {
        const QStringList sample{"--sample", "m.mass=uniform:1 kg:2 kg",
                                 "--sample", "F.value=normal:5 N:500 mN",
                                 "--sample", "m.initial_velocity=lognormal:-1:0.25"};
        auto list = [&](const QStringList& extra) {
            const auto r = runBatch(QStringList{"sweep", m_pushed, "--list-points"} + sample + extra);
            return r.exitCode == 0 ? r.out : "exit " + QString::number(r.exitCode) + ": " + r.err;
        };
        const QString a = list({"--count", "4000", "--seed", "42"});
        QCOMPARE(list({"--count", "4000", "--seed", "42"}), a);
        QVERIFY(list({"--count", "4000", "--seed", "43"}) != a);
        QVERIFY(a.startsWith(list({"--count", "10", "--seed", "42"})));
        const Table t = table(a);
        QCOMPARE(t.size(), std::size_t(4000));
        double sum[3] = {}, sq[3] = {}, lo = INFINITY, hi = -INFINITY;
        std::vector<double> v;
        for (const auto& [run, row] : t) {
            const double x[3] = {row.at("m.mass").toDouble(), row.at("F.value").toDouble(),
                                 std::log(row.at("m.initial_velocity").toDouble())};
            for (int i = 0; i < 3; ++i) sum[i] += x[i], sq[i] += x[i] * x[i];
            lo = std::min(lo, x[0]), hi = std::max(hi, x[0]);
        }
        const double n = 4000, tol = 4.0 / std::sqrt(n);   // about four standard errors
        auto mean = [&](int i) { return sum[i] / n; };
        auto sd = [&](int i) { return std::sqrt(sq[i] / n - mean(i) * mean(i)); };
        QVERIFY(lo >= 1.0 && hi < 2.0);
        QCOMPARE_NEAR(mean(0), 1.5, 0.29 * tol);
        QCOMPARE_NEAR(mean(1), 5.0, 0.5 * tol);
        QCOMPARE_NEAR(sd(1), 0.5, 0.5 * tol);
        QCOMPARE_NEAR(mean(2), -1.0, 0.25 * tol);
        QCOMPARE_NEAR(sd(2), 0.25, 0.25 * tol);
        // the study runs exactly the listed values
        const auto r = runBatch(
            QStringList{"sweep", m_pushed, "--count", "6", "--seed", "42", "--summary-only", "--out", scratch("mc")} +
            sample);
        QCOMPARE(r.exitCode, 0);
        const Table s = table(text(scratch("mc/summary.csv")));
        for (long run = 1; run <= 6; ++run) {
            QCOMPARE(s.at(run).at("m.mass"), t.at(run).at("m.mass"));
            QCOMPARE(s.at(run).at("F.value"), t.at(run).at("F.value"));
            QCOMPARE_NEAR(num(s, run, "m.v.final"),
                          (num(t, run, "m.initial_velocity") + num(t, run, "F.value") / num(t, run, "m.mass")), 1e-6);
        }
    }

    // A draw the model refuses (a negative mass) is that run's bad_input; the others run.
    void sampleOutsideTheRangeIsOneRunsBadInput() {
        const auto r = runBatch({"sweep", m_pushed, "--sample", "m.mass=normal:0.2:1", "--count", "12", "--seed", "5",
                                 "--out", scratch("neg")});
        QCOMPARE(r.exitCode, 1);
        const Table t = table(text(scratch("neg/summary.csv")));
        QCOMPARE(t.size(), std::size_t(12));
        int bad = 0;
        for (const auto& [run, row] : t) {
            const bool negative = row.at("m.mass").toDouble() <= 0;
            QCOMPARE(row.at("status"), QString(negative ? "bad_input" : "ok"));
            if (negative) QVERIFY2(row.at("message").contains("must be > 0"), qPrintable(row.at("message")));
            bad += negative;
        }
        QVERIFY(bad > 0 && bad < 12);
    }

    // Shards run disjoint parts with global ids; concatenated (one header) they are the study.
    void shardsMergeToTheStudy() {
        const QStringList grid{"--vary", "m.mass=1,2,4", "--vary", "F.value=2:6:3"};
        QCOMPARE(runBatch(QStringList{"sweep", m_pushed, "--out", scratch("whole")} + grid).exitCode, 0);
        QString merged;
        QStringList seen;
        for (int k = 0; k < 4; ++k) {
            const auto r = runBatch(
                QStringList{"sweep", m_pushed, "--out", scratch("sharded"), "--shard", QString("%1/4").arg(k)} + grid);
            QCOMPARE(r.exitCode, 0);
            const QString part = text(scratch(QString("sharded/summary.%1-of-4.csv").arg(k)));
            merged += k == 0 ? part : part.mid(part.indexOf('\n') + 1);
            for (const auto& [run, row] : table(part)) {
                QCOMPARE((run - 1) % 4, long(k));
                seen << QString::number(run);
            }
        }
        QCOMPARE(seen.size(), 9);
        QCOMPARE(table(merged), table(text(scratch("whole/summary.csv"))));
        for (int run = 1; run <= 9; ++run) {
            const QString name = QString("/run_%1.csv").arg(run, 6, 10, QChar('0'));
            QCOMPARE(text(scratch("sharded") + name), text(scratch("whole") + name));
        }
    }

    // A study killed with SIGKILL keeps the summary of every run that ended (a cut last line
    // too); one stopped by SIGTERM also says so and exits 143. --resume runs only the rest, and
    // the result is the uninterrupted study.
    void killedStudyResumes_data() {
        QTest::addColumn<int>("sig");
        QTest::newRow("SIGKILL") << int(SIGKILL);
        QTest::newRow("SIGTERM") << int(SIGTERM);
    }
    void killedStudyResumes() {
        QFETCH(int, sig);
        const QStringList study{"sweep",         test::sourcePath("resources/examples/rattling_mass.endstop"),
                                "--vary",        "slider.mass=0.5:1.5:10",
                                "--stop-time",   "20",
                                "--jobs",        "1",
                                "--summary-only"};
        const QString out = scratch(QString("killed%1").arg(sig)), summary = out + "/summary.csv";
        QProcess p;
        p.start(ENDSTOP_BATCH_EXE, study + QStringList{"--out", out});
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(text(summary).count('\n') >= 3, 60000);   // header and two runs
        ::kill(static_cast<pid_t>(p.processId()), sig);
        QVERIFY(p.waitForFinished(10000));
        if (sig == SIGTERM) {
            QCOMPARE(p.exitStatus(), QProcess::NormalExit);
            QCOMPARE(p.exitCode(), 143);
            QVERIFY(QString::fromUtf8(p.readAllStandardError())
                        .contains("interrupted by SIGTERM; the summary lists the runs that ended"));
        }
        const Table before = table(text(summary));
        QVERIFY2(before.size() >= 2 && before.size() < 10, qPrintable(text(summary)));
        QFile f(summary);   // as if the kill had cut a row in half
        QVERIFY(f.open(QIODevice::Append));
        f.write("10,ok,1.5,0.1");
        f.close();
        const auto r = runBatch(study + QStringList{"--out", out, "--resume"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(
            r.out.contains(QString("%1 runs, %1 ok (%2 finished before)").arg(10 - before.size()).arg(before.size())),
            qPrintable(r.out));
        const Table after = table(text(summary));
        QCOMPARE(after.size(), std::size_t(10));
        QCOMPARE(text(summary).count('\n'), 11);   // no cut line left, no run twice
        for (const auto& [run, row] : before) QCOMPARE(after.at(run), row);
        const QString whole = scratch(QString("uninterrupted%1").arg(sig));
        QCOMPARE(runBatch(study + QStringList{"--out", whole}).exitCode, 0);
        QCOMPARE(after, table(text(whole + "/summary.csv")));
        // resuming a finished study runs nothing; a summary of another study is refused
        QVERIFY(
            runBatch(study + QStringList{"--out", out, "--resume"}).out.contains("0 runs, 0 ok (10 finished before)"));
        const auto other = runBatch({"sweep", m_pushed, "--vary", "m.mass=1,2", "--out", out, "--resume"});
        QCOMPARE(other.exitCode, 2);
        QVERIFY2(other.err.contains("belongs to another study"), qPrintable(other.err));
    }

    // --max-steps / --max-wall stop a run as `timeout`, exit 1; the others finish; its rows stay.
    void runGuards() {
        const auto r = runBatch({"sweep", test::sourcePath("resources/examples/rattling_mass.endstop"), "--vary",
                                 "slider.mass=0.5,1", "--max-steps", "40", "--out", scratch("guard")});
        QCOMPARE(r.exitCode, 1);
        const Table t = table(text(scratch("guard/summary.csv")));
        for (long run : {1L, 2L}) {
            QCOMPARE(t.at(run).at("status"), QString("timeout"));
            QVERIFY(t.at(run).at("message").contains("--max-steps"));
            QVERIFY(!t.at(run).at("slider.x.final").isEmpty());   // the rows up to the limit count
        }
        QVERIFY(text(scratch("guard/run_000001.csv")).count('\n') > 10);
        const auto wall = runBatch({"run", test::sourcePath("resources/examples/rattling_mass.endstop"), "--stop-time",
                                    "1e6", "--max-wall", "0.3"});
        QCOMPARE(wall.exitCode, 1);
        QVERIFY2(wall.err.contains("--max-wall"), qPrintable(wall.err));
    }

    // The progress line: on when asked (here standard error is a pipe, not a terminal), off by default.
    void progressLine() {
        auto r = runBatch({"sweep", m_pushed, "--vary", "m.mass=1:2:5", "--summary-only", "--out", scratch("progress"),
                           "--progress"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("runs 5/5 (100%), 0 failed, ") && r.err.contains(" runs/s"), qPrintable(r.err));
        r = runBatch({"sweep", m_pushed, "--vary", "m.mass=1:2:5", "--summary-only", "--out", scratch("progress")});
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        r = runBatch(
            {"run", test::sourcePath("resources/examples/rattling_mass.endstop"), "--stop-time", "300", "--progress"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains(" s of 300 s (") && r.err.contains(" left"), qPrintable(r.err));
    }

    // Every CSV gets FILE.units.json: column -> unit and description; standard output gets none.
    void unitsSidecars() {
        const QString csv = scratch("units.csv"), events = scratch("units_events.csv");
        QCOMPARE(runBatch({"run", m_pushed, "--out", csv, "--events", events}).exitCode, 0);
        const QJsonObject units = QJsonDocument::fromJson(test::readBytes(csv + ".units.json")).object();
        QCOMPARE(units.value("time").toObject().value("unit").toString(), QString("s"));
        QCOMPARE(units.value("m.x").toObject().value("unit").toString(), QString("m"));
        QCOMPARE(units.value("m.v").toObject().value("unit").toString(), QString("m/s"));
        QVERIFY(!units.value("m.v").toObject().value("description").toString().isEmpty());
        QCOMPARE(units.size(), text(csv).split('\n').first().split(',').size());   // every column, no other
        QVERIFY(QJsonDocument::fromJson(test::readBytes(events + ".units.json")).object().contains("velocity"));
        QCOMPARE(
            runBatch({"sweep", m_pushed, "--vary", "m.mass=1,2", "--summary-only", "--out", scratch("su")}).exitCode,
            0);
        const QJsonObject s = QJsonDocument::fromJson(test::readBytes(scratch("su/summary.csv.units.json"))).object();
        QCOMPARE(s.value("m.mass").toObject().value("unit").toString(), QString("kg"));
        QCOMPARE(s.value("wall_s").toObject().value("unit").toString(), QString("s"));
        QCOMPARE(s.value("m.v.max").toObject().value("unit").toString(), QString("m/s"));
        QCOMPARE(s.size(), text(scratch("su/summary.csv")).split('\n').first().split(',').size());
        QTemporaryDir cwd;
        QCOMPARE(runBatch({"run", m_pushed, "--out", "-"}, cwd.path()).exitCode, 0);
        QVERIFY(QDir(cwd.path()).isEmpty());
    }

    // variables --json: what the plain listing says, for scripts.
    void variablesAsJson() {
        const auto r = runBatch({"variables", m_pushed, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray list = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QVERIFY(!list.isEmpty());
        bool found = false;
        for (const QJsonValue& v : list) {
            const QJsonObject o = v.toObject();
            QVERIFY(o.contains("name") && o.contains("unit") && o.contains("description") && o.contains("block") &&
                    o.contains("variable"));
            if (o.value("name").toString() == "m.x")
                found = o.value("unit").toString() == "m" && o.value("block").toString() == "m";
        }
        QVERIFY(found);
    }

    void badStudyFlags_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        const QStringList vary{"--vary", "m.mass=1,2"};
        QTest::newRow("no design") << QStringList{} << "sweep needs a design";
        QTest::newRow("two designs") << vary + QStringList{"--sample", "m.mass=uniform:1:2", "--count", "3"}
                                     << "one design";
        QTest::newRow("count without sample")
            << vary + QStringList{"--count", "3"} << "--count and --seed belong to --sample";
        QTest::newRow("sample without count")
            << QStringList{"--sample", "m.mass=uniform:1:2"} << "--sample needs --count";
        QTest::newRow("bad distribution") << QStringList{"--sample", "m.mass=gauss:1:2", "--count", "3"}
                                          << "--sample m.mass: expected normal:MEAN:SD";
        QTest::newRow("negative spread") << QStringList{"--sample", "m.mass=normal:1:-2", "--count", "3"}
                                         << "must be >= 0";
        QTest::newRow("high below low") << QStringList{"--sample", "F.value=uniform:1:2",
                                                       "--sample", "m.mass=uniform:2:1",
                                                       "--count",  "3"}
                                        << "HIGH must be >= LOW";
        QTest::newRow("bad seed") << QStringList{"--sample", "m.mass=uniform:1:2", "--count", "3", "--seed", "-1"}
                                  << "flag --seed";
        QTest::newRow("zero count") << QStringList{"--sample", "m.mass=uniform:1:2", "--count", "0"} << "flag --count";
        QTest::newRow("shard out of range")
            << vary + QStringList{"--shard", "4/4"} << "flag --shard: expected K/N with 0 <= K < N";
        QTest::newRow("shard garbage") << vary + QStringList{"--shard", "1of4"} << "flag --shard";
        QTest::newRow("unknown signal") << vary + QStringList{"--signals", "m.q"} << "--signals: unknown signal 'm.q'";
        QTest::newRow("progress twice") << vary + QStringList{"--progress", "--no-progress"} << "contradict";
    }
    void resumeNeedsAnOutputDirectory() {
        const auto r = runBatch({"sweep", m_pushed, "--vary", "m.mass=1,2", "--resume"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--resume needs --out"), qPrintable(r.err));
    }

    void badStudyFlags() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const auto r = runBatch(QStringList{"sweep", m_pushed, "--out", dir.filePath("out")} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected) && r.err.count('\n') == 1, qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFile::exists(dir.filePath("out")));
    }
};

QTEST_GUILESS_MAIN(TestStudy)
#include "tst_study.moc"
