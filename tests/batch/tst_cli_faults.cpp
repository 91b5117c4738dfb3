// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch under faults, as a user meets them: a signal in the middle of a run, a full disk,
// a full standard output, a FIFO or a device as --out, numbers that used to wrap, hostile text,
// a model with nothing to solve, and the run limits. Nothing is lost and every failure says what.
#include "support/test_support.hpp"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/stat.h>
#include <thread>

using namespace endstop;
using test::runBatch;

namespace {

QString example(const QString& name) { return test::sourcePath("resources/examples/" + name); }

using test::readBytes;
using test::writeBytes;

// A CSV that a script can read: a header, at least `minRows` rows, each with the header's
// number of cells, and a final newline (no row cut in the middle).
QString csvProblem(const QByteArray& bytes, int minRows) {
    if (!bytes.endsWith('\n')) return "no final newline";
    const QList<QByteArray> lines = bytes.trimmed().split('\n');
    const qsizetype cells = lines.front().count(',');
    for (const QByteArray& l : lines)
        if (l.count(',') != cells) return "ragged row: " + QString::fromLatin1(l.left(80));
    return lines.size() - 1 >= minRows ? QString() : QString("only %1 rows").arg(lines.size() - 1);
}

QString model(const QTemporaryDir& dir, const QByteArray& json) { return writeBytes(dir.filePath("m.endstop"), json); }

}   // namespace

class TestCliFaults : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // SIGTERM and SIGINT once left no file and no message: the run stops between steps, writes
    // what it computed as a complete CSV and events file, says so, and exits 128 + the signal.
    void signalKeepsTheRows_data() {
        QTest::addColumn<int>("sig");
        QTest::addColumn<QString>("name");
        QTest::newRow("SIGTERM") << int(SIGTERM) << "SIGTERM";
        QTest::newRow("SIGINT") << int(SIGINT) << "SIGINT";
    }
    void signalKeepsTheRows() {
        QFETCH(int, sig);
        QFETCH(QString, name);
        QTemporaryDir dir;
        QProcess p;
        p.start(ENDSTOP_BATCH_EXE, {"run", example("rattling_mass.endstop"), "--stop-time", "2000", "--out",
                                    dir.filePath("r.csv"), "--events", dir.filePath("e.csv")});
        QVERIFY(p.waitForStarted());
        QTest::qWait(600);
        QCOMPARE(p.state(), QProcess::Running);
        ::kill(static_cast<pid_t>(p.processId()), sig);
        QVERIFY(p.waitForFinished(20000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 128 + sig);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(
            err.contains("interrupted by " + name + " at t = ") && err.contains("rows computed so far were written"),
            qPrintable(err));
        const QString problem = csvProblem(readBytes(dir.filePath("r.csv")), 100);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(readBytes(dir.filePath("e.csv")).startsWith("time,block,kind,velocity\n"));
    }

    // A full disk: exit 1 naming the file and the reason; the previous results stay as they were.
    void fullDiskKeepsThePreviousResults() {
        test::SmallDisk disk(64 * 1024);
        if (disk.path().isEmpty()) QSKIP(qPrintable(disk.why()));
        const QString out = writeBytes(disk.filePath("results.csv"), "time,x\n0,1\n");
        const auto r = runBatch({"run", example("rattling_mass.endstop"), "--out", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("cannot write '" + out + "': ") && r.err.contains("space"), qPrintable(r.err));
        QCOMPARE(readBytes(out), QByteArray("time,x\n0,1\n"));
        QCOMPARE(QDir(disk.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"results.csv"});
    }

    // A sweep into a full disk reported "2 runs, 2 ok" with empty files.
    void fullDiskFailsTheSweep() {
        test::SmallDisk disk(64 * 1024);
        if (disk.path().isEmpty()) QSKIP(qPrintable(disk.why()));
        const auto r = runBatch({"sweep", example("rattling_mass.endstop"), "--vary", "slider.mass=0.5,0.6", "--jobs",
                                 "1", "--out", disk.path()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("cannot write '") && r.err.contains("space"), qPrintable(r.err));
        QVERIFY2(!r.out.contains("2 ok"), qPrintable(r.out));
    }

    void fullStandardOutput() {
        if (!QFile::exists("/dev/full")) QSKIP("no /dev/full here");
        QProcess p;
        p.setStandardOutputFile("/dev/full");
        p.start(ENDSTOP_BATCH_EXE, {"run", example("mass_spring_damper.endstop"), "--out", "-"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("cannot write 'standard output': "));
    }

    // --out on a FIFO is written through: the FIFO stays a FIFO (atomic replacement is for
    // regular files; /dev/null was replaced by a regular file this way).
    void fifoAsOut() {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("pipe");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        QByteArray got;
        std::thread reader([&] { got = readBytes(fifo); });
        const auto r = runBatch({"run", example("mass_spring_damper.endstop"), "--out", fifo});
        reader.join();
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(csvProblem(got, 100).isEmpty(), qPrintable(csvProblem(got, 100)));
        struct stat st {};
        QCOMPARE(::stat(fifo.toLocal8Bit().constData(), &st), 0);
        QVERIFY(S_ISFIFO(st.st_mode));
    }

    // Bad input: exit 2, one short line naming the flag or the place, nothing written.
    void badInput_data() {
        QTest::addColumn<QStringList>("args");   // MODEL is the rattling example, FILE the text below
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("expected");
        const QByteArray head = R"({"format": "endstop-project", "formatVersion": 1, )";
        const QByteArray mass =
            R"("blocks": [{"name": "m", "type": "translational.mass", "parameters": {"mass": "1 XX"}}]})";
        QTest::newRow("empty --out") << QStringList{"run", "MODEL", "--out", ""} << QByteArray()
                                     << "flag --out: expected a file name";
        QTest::newRow("--jobs 2147483648")
            << QStringList{"sweep", "MODEL", "--vary", "slider.mass=1,2", "--jobs", "2147483648"} << QByteArray()
            << "flag --jobs: expected a whole number from 1 to 1024";
        QTest::newRow("count 400000000") << QStringList{"sweep", "MODEL", "--vary", "slider.mass=1:2:400000000"}
                                         << QByteArray() << "COUNT must be a whole number from 1 to 1000000";
        QTest::newRow("grid too large") << QStringList{"sweep",  "MODEL",
                                                       "--vary", "slider.mass=1:2:2000",
                                                       "--vary", "stops.upper_bound=1:2:2000"}
                                        << QByteArray() << "more than 1000000 runs";
        QTest::newRow("--set deep parentheses")
            << QStringList{"run", "MODEL", "--set", "slider.mass=1 " + QString(10000, '(') + "kg" + QString(10000, ')')}
            << QByteArray() << "--set '";
        QTest::newRow("--output-interval 5e-324")
            << QStringList{"run", "MODEL", "--output-interval", "5e-324"} << QByteArray()
            << "flags: parameter 'output_interval': simulation setting output_interval 5e-324 s is too small for the "
               "stop time 1 s";
        QTest::newRow("--max-steps 0") << QStringList{"run", "MODEL", "--max-steps", "0"} << QByteArray()
                                       << "flag --max-steps";
        QTest::newRow("formatVersion 1e300")
            << QStringList{"run", "FILE"} << QByteArray(R"({"format": "endstop-project", "formatVersion": 1e300})")
            << "formatVersion: version 1e+300 is newer";
        QTest::newRow("file deep parentheses")
            << QStringList{"validate", "FILE"}
            << head + QByteArray(mass).replace("XX", QByteArray(10000, '(') + "kg" + QByteArray(10000, ')'))
            << "nested more than 32 deep";
        QTest::newRow("file 2 MB unit") << QStringList{"run", "FILE"}
                                        << head + QByteArray(mass).replace("XX", QByteArray(2000000, 'z'))
                                        << "more bytes";
        QTest::newRow("file 1e308 N*m/deg")
            << QStringList{"run", "FILE"}
            << head +
                   R"("blocks": [{"name": "k", "type": "rotational.spring", "parameters": {"stiffness": "1e308 N*m/deg"}}]})"
            << "blocks[0].parameters.stiffness: block \"k\": stiffness: '1e308 N*m/deg' is out of the range of a "
               "double in SI";
        QTest::newRow("file kg^257") << QStringList{"run", "FILE"} << head + QByteArray(mass).replace("XX", "kg^257")
                                     << "exponent out of range";
        QTest::newRow("ui.units deep parentheses")
            << QStringList{"run", "FILE"}
            << head +
                   "\"blocks\": [{\"name\": \"m\", \"type\": \"translational.mass\", \"ui\": {\"units\": {\"mass\": "
                   "\"" +
                   QByteArray(10000, '(') + "kg" + QByteArray(10000, ')') + "\"}}}]}"
            << "nested more than 32 deep";
        QTest::newRow("file output_interval")
            << QStringList{"run", "FILE"} << head + R"("simulation": {"output_interval": 5e-324}})"
            << "m.endstop: parameter 'output_interval': simulation setting output_interval 5e-324 s is too small";
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, file);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        for (QString& a : args) {
            if (a == "MODEL")
                a = example("rattling_mass.endstop");
            else if (a == "FILE")
                a = model(dir, file);
        }
        const auto r = runBatch(args, dir.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err.left(400)));
        QVERIFY2(r.err.size() < 700 && r.err.count('\n') == 1, qPrintable(r.err.left(700)));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), file.isEmpty() ? QStringList() : QStringList{"m.endstop"});
    }

    // A model with nothing to solve crashed `run` in IDA's tolerance set-up.
    void nothingToSolve() {
        QTemporaryDir dir;
        const QString m = model(dir, R"({"format": "endstop-project", "formatVersion": 1})");
        QCOMPARE(runBatch({"validate", m}).exitCode, 0);
        const auto r = runBatch({"run", m, "--out", "-", "--stop-time", "2"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QString("time\n0\n2\n"));
    }

    // --max-steps: exit 1 with the limit named, and the rows up to it written.
    void stepLimit() {
        QTemporaryDir dir;
        const auto r =
            runBatch({"run", example("rattling_mass.endstop"), "--max-steps", "50", "--out", dir.filePath("r.csv")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("more than 50 steps") && r.err.contains("--max-steps"), qPrintable(r.err));
        QVERIFY(csvProblem(readBytes(dir.filePath("r.csv")), 40).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliFaults)
#include "tst_cli_faults.moc"
