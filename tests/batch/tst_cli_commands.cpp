// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch's other commands, as a user runs them: validate, variables, blocks (and
// docs/block-reference.md, its output), sweep with and without a failing run, usage.
#include "batch/cli_support.hpp"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace endstop;
using namespace endstop::test::cli;
using test::runBatch;

class TestCliCommands : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_osc, m_pushed, m_runaway;

    QString scratch(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(QFile::exists(ENDSTOP_BATCH_EXE));
        m_osc = fixture("run/oscillator.endstop");
        m_pushed = fixture("sweep/pushed_mass.endstop");
        m_runaway = fixture("failure/runaway.endstop");
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
        const QString bad =
            writeText(scratch("parallel.endstop"), R"({"format":"endstop-project","formatVersion":1,"blocks":[
            {"name":"c","type":"signal.constant"},
            {"name":"vs1","type":"translational.velocity_source"}, {"name":"vs2","type":"translational.velocity_source"},
            {"name":"m","type":"translational.mass"}, {"name":"g","type":"translational.reference"}],
            "connections":[["c.y","vs1.S"],["c.y","vs2.S"],["vs1.R","m.M"],["vs2.R","m.M"],["vs1.C","g.R"],["vs2.C","g.R"]]})");
        r = runBatch({"validate", bad});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith(bad + ": error:") && r.err.contains("vs1") && r.err.contains("vs2"),
                 qPrintable(r.err));
    }

    void variablesCommand() {
        const auto r = runBatch({"variables", m_osc});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        const auto columns =
            core::simulation::recordableVariables(core::io::loadProject(m_osc, blocks::registry()), blocks::registry());
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
            QVERIFY2(plain.out.contains(
                         QRegularExpression("^" + QRegularExpression::escape(id) + " +" +
                                                QRegularExpression::escape(QString::fromStdString(t.info.title)) + "$",
                                            QRegularExpression::MultilineOption)),
                     qPrintable(id));
            QVERIFY2(md.out.contains("## " + QString::fromStdString(t.info.title) + " (`" + id + "`)"), qPrintable(id));
            const auto block = t.create({});
            for (const core::ParamDesc& d : block->params())
                QVERIFY2(md.out.contains("| `" + QString::fromStdString(d.key) + "` |"),
                         qPrintable(id + " " + QString::fromStdString(d.key)));
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
        QCOMPARE(summary.header.mid(0, 8),
                 (QStringList{"run", "status", "m.mass", "F.value", "wall_s", "steps", "events", "message"}));
        QVERIFY(summary.header.contains("m.v.final") && summary.header.contains("m.v.min") &&
                summary.header.contains("m.v.max"));
        QCOMPARE(summary.rows.size(), std::size_t(9));
        std::size_t row = 0;
        for (double mass : {1.0, 2.0, 4.0})
            for (double force : {2.0, 4.0, 6.0}) {   // --jobs 1: the rows in run order
                QCOMPARE(summary.at(row, "run"), double(row + 1));
                QCOMPARE(summary.at(row, "m.mass"), mass);
                QCOMPARE(summary.at(row, "F.value"), force);
                QCOMPARE_NEAR(summary.at(row, "m.v.final"), force / mass, 1e-6);   // v(1) = F t / m
                QCOMPARE(summary.at(row, "m.v.min"), 0.0);
                QCOMPARE_NEAR(summary.at(row, "m.x.max"), force / mass / 2, 1e-6);
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
        QCOMPARE_NEAR(printed.at(second, "m.v.final"), 1.0, 1e-6);
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

    void usage() {
        auto r = runBatch({});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("usage:"));
        r = runBatch({"--help"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("endstop-batch run MODEL.endstop"));
    }
};

QTEST_GUILESS_MAIN(TestCliCommands)
#include "tst_cli_commands.moc"
