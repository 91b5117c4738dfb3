// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch on a model with named parameters and a subsystem (docs/file-format.md, docs/batch.md):
// --set and every study design reach model parameters, mask values and blocks inside an
// instance; columns are paths; bad names and dimensions exit 2 naming what is wrong. The model is
// a mass pushed by a constant force from rest, the force inside a subsystem: v(1 s) = F / m.
#include "support/compare.hpp"
#include "support/test_support.hpp"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace endstop;
using test::runBatch;

namespace {

QString model() { return test::sourcePath("tests/batch/parameters/pushed_mass.endstop"); }

// The final velocity of a run written with --signals load.v --out -.
double finalVelocity(const QStringList& extra) {
    const auto r = runBatch(QStringList{"run", model(), "--signals", "load.v", "--out", "-"} + extra);
    if (r.exitCode != 0) return -1.0;
    return r.out.trimmed().split('\n').last().split(',').last().toDouble();
}

}   // namespace

class TestCliParameters : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void setReachesEveryLevel_data() {
        QTest::addColumn<QStringList>("sets");
        QTest::addColumn<double>("velocity");
        QTest::newRow("as written: F0 / m_load") << QStringList{} << 2.0;
        QTest::newRow("model parameter") << QStringList{"--set", "m_load=4 kg"} << 1.0;
        QTest::newRow("model parameter as expression")
            << QStringList{"--set", "F0=3*F0_unit"} << -1.0;   // unknown name: exit 2
        QTest::newRow("model parameter, SI number") << QStringList{"--set", "F0=8"} << 4.0;
        QTest::newRow("mask value") << QStringList{"--set", "push.F=1 N"} << 0.5;
        QTest::newRow("mask value as expression") << QStringList{"--set", "push.F=F0/4"} << 0.5;
        QTest::newRow("block inside the instance") << QStringList{"--set", "push.src.value=6"} << 3.0;
        QTest::newRow("two at once") << QStringList{"--set", "m_load=1 kg", "--set", "push.F=3 N"} << 3.0;
    }
    void setReachesEveryLevel() {
        QFETCH(QStringList, sets);
        QFETCH(double, velocity);
        QCOMPARE_NEAR(finalVelocity(sets), velocity, 1e-9);
    }

    void columnsArePaths() {
        const auto r = runBatch({"variables", model()});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("push.src.y") && r.out.contains("push.force.f") && r.out.contains("load.v"),
                 qPrintable(r.out));
        const auto run = runBatch({"run", model(), "--out", "-"});
        QVERIFY(run.out.startsWith("time,push.src.y,push.force.f,load.v"));
    }

    void sweepsVaryNames() {
        QTemporaryDir dir;
        const auto r = runBatch({"sweep", model(), "--vary", "m_load=1 kg,2 kg,4 kg", "--vary", "push.F=2 N,4 N",
                                 "--summary-only", "--out", dir.path()});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = QString::fromUtf8(test::readBytes(dir.filePath("summary.csv"))).trimmed().split('\n');
        QCOMPARE(lines.size(), 7);
        const QStringList header = lines[0].split(',');
        QCOMPARE(header.mid(0, 4), (QStringList{"run", "status", "m_load", "push.F"}));
        const qsizetype v = header.indexOf("load.v.final");
        for (const QString& line : lines.mid(1)) {
            const QStringList cells = line.split(',');
            QCOMPARE(cells[1], QString("ok"));
            QCOMPARE_NEAR(cells[v].toDouble(), cells[3].toDouble() / cells[2].toDouble(), 1e-9);
        }
    }

    void designTablesAndSamplesTakeNames() {
        QTemporaryDir dir;
        const QString points = test::writeBytes(dir.filePath("design.csv"), "m_load,push.F\n1 kg,2 N\n\"500 g\",1\n");
        const auto r =
            runBatch({"sweep", model(), "--points", points, "--summary-only", "--out", dir.filePath("table")});
        QCOMPARE(r.exitCode, 0);
        const QString summary = QString::fromUtf8(test::readBytes(dir.filePath("table/summary.csv")));
        QVERIFY2(summary.contains("\n1,ok,1,2,") && summary.contains("\n2,ok,0.5,1,"), qPrintable(summary));
        const auto s = runBatch({"sweep", model(), "--sample", "m_load=uniform:1:2", "--count", "3", "--summary-only",
                                 "--out", dir.filePath("sample")});
        QCOMPARE(s.exitCode, 0);
    }

    void badNamesExit2_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown model parameter") << QStringList{"--set", "mass=1"} << "parameters: F0, m_load";
        QTest::newRow("model parameter dimension") << QStringList{"--set", "m_load=2 m"} << "expected kg";
        QTest::newRow("expression of the wrong dimension")
            << QStringList{"--set", "m_load=2*F0"} << "block 'load', parameter 'mass'";
        QTest::newRow("unknown name in an expression")
            << QStringList{"--set", "F0=3*F0_unit"} << "unknown name 'F0_unit'";
        QTest::newRow("unknown mask parameter")
            << QStringList{"--set", "push.Q=1"} << "has no parameter 'Q' (parameters: F)";
        QTest::newRow("mask dimension") << QStringList{"--set", "push.F=1 kg"} << "expected kg*m/s^2";
        QTest::newRow("unknown block inside") << QStringList{"--set", "push.spring.k=1"} << "has no block 'spring'";
        QTest::newRow("vary unknown") << QStringList{"--vary", "mass=1,2"} << "parameters: F0, m_load";
    }
    void badNamesExit2() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const bool sweep = args.first() == "--vary";
        const auto r = runBatch(
            QStringList{sweep ? "sweep" : "run", model(), "--out", dir.filePath(sweep ? "s" : "r.csv")} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath("r.csv")));
    }
};

QTEST_GUILESS_MAIN(TestCliParameters)
#include "tst_cli_parameters.moc"
