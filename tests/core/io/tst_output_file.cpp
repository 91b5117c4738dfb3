// SPDX-License-Identifier: GPL-3.0-or-later
// io::OutputFile and the writers built on it, against a disk that fills up, devices and FIFOs:
// every failure is an IoError naming the file, the previous file stays byte for byte, no
// temporary file is left behind, and a device or FIFO is written through, never replaced.
#include "support/test_support.hpp"

#include "core/io/output_file.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "core/results/csv_sink.hpp"
#include "core/results/units_sidecar.hpp"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <thread>

using namespace endstop;

namespace {

using test::readBytes;
using test::writeBytes;

mode_t kind(const QString& path) {
    struct stat st {};
    return ::stat(path.toLocal8Bit().constData(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

// The message of the IoError `f` throws, or empty if it throws nothing.
template <class F> QString ioError(F&& f) {
    try {
        f();
    } catch (const core::IoError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
}

}   // namespace

class TestOutputFile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void writesAndReplacesWhole() {
        QTemporaryDir dir;
        const QString path = dir.filePath("a.txt");
        writeBytes(path, "old");
        core::io::OutputFile f(path.toStdString());
        f.write("new ");
        f.write("contents");
        QCOMPARE(readBytes(path), QByteArray("old"));   // nothing changes before commit()
        f.commit();
        QCOMPARE(readBytes(path), QByteArray("new contents"));
        QCOMPARE(entries(dir.path()), QStringList{"a.txt"});
    }

    void uncommittedLeavesTheTargetAlone() {
        QTemporaryDir dir;
        const QString path = dir.filePath("a.txt");
        writeBytes(path, "old");
        {
            core::io::OutputFile f(path.toStdString());
            f.write("half");
        }
        QCOMPARE(readBytes(path), QByteArray("old"));
        QCOMPARE(entries(dir.path()), QStringList{"a.txt"});
    }

    void badTargetsNamed() {
        QTemporaryDir dir;
        for (const QString& path : {dir.path(), dir.filePath("missing/a.txt"), QString()}) {
            const QString message = ioError([&] { core::io::OutputFile f(path.toStdString()); });
            QVERIFY2(message.startsWith("cannot write '" + path + "': "), qPrintable(message));
        }
    }

    // A full disk: the write fails with the reason, the previous file is intact, nothing is left over.
    void fullDiskKeepsThePreviousFile() {
        test::SmallDisk disk(64 * 1024);
        if (disk.path().isEmpty()) QSKIP(qPrintable(disk.why()));
        const QString path = disk.filePath("results.csv");
        const QByteArray old(3000, 'o');
        writeBytes(path, old);
        const QString message = ioError([&] {
            core::io::OutputFile f(path.toStdString());
            const std::string chunk(4096, 'n');
            for (int i = 0; i < 64; ++i) f.write(chunk);
            f.commit();
        });
        QVERIFY2(message.startsWith("cannot write '" + path + "': ") && message.contains("space"), qPrintable(message));
        QCOMPARE(readBytes(path), old);
        QCOMPARE(entries(disk.path()), QStringList{"results.csv"});
    }

    // A project save onto a nearly full disk once replaced a good file with 0 or 4,096 bytes and
    // reported success.
    void projectSaveOnAFullDisk() {
        test::SmallDisk disk(64 * 1024);
        if (disk.path().isEmpty()) QSKIP(qPrintable(disk.why()));
        const core::model::Model model = test::loadExample("rattling_mass.endstop");
        const QString path = disk.filePath("model.endstop");
        core::io::saveProject(model, path);
        const QByteArray good = readBytes(path);
        disk.fill(200);
        const QString message = ioError([&] { core::io::saveProject(model, path); });
        QVERIFY2(message.startsWith("cannot write '" + path + "': "), qPrintable(message));
        QCOMPARE(readBytes(path), good);
        QCOMPARE(entries(disk.path()), (QStringList{"filler", "model.endstop"}));
    }

    // The CSV sink: a run's rows into a full disk throw IoError (at a row or at the end), never a
    // cut file under the old name.
    void csvOnAFullDisk() {
        test::SmallDisk disk(128 * 1024);
        if (disk.path().isEmpty()) QSKIP(qPrintable(disk.why()));
        const QString path = disk.filePath("r.csv");
        writeBytes(path, "time,x\n0,1\n");
        const QString message = ioError([&] {
            core::CsvSink csv(path.toStdString(), "");
            csv.begin({{"x", "m", "x", "b", "x"}});
            const double v[1] = {0.125};
            for (int i = 0; i < 100000; ++i) csv.row(i * 1e-3, v);
            csv.end({});
        });
        QVERIFY2(message.startsWith("cannot write '" + path + "': "), qPrintable(message));
        QCOMPARE(readBytes(path), QByteArray("time,x\n0,1\n"));
    }

    // The units sidecar is streamed, not built as a QJsonObject: its bytes are still exactly what
    // QJsonDocument writes for that object (sorted keys, escapes, UTF-8, a name given twice).
    void unitsSidecarIsQtJson() {
        QTemporaryDir dir;
        const QString csv = dir.filePath("r.csv");
        writeBytes(csv, "time\n");
        const std::vector<core::ColumnInfo> columns{
            {"zeta.x", "m", "Position"},
            {"alpha.f", "N", "Force \"quoted\" and back\\slash"},
            {"ohm.r", "\u03a9", "Resistance \u00e9\u00e8 \t tab \n line \x01 control \x1f"},
            {"alpha.f", "kN", "the second alpha.f wins"},
            {"Beta.y", "", ""}};
        auto qtJson = [](const std::vector<core::ColumnInfo>& cols) {
            QJsonObject map;
            for (const core::ColumnInfo& c : cols)
                map.insert(QString::fromStdString(c.name),
                           QJsonObject{{"unit", QString::fromStdString(c.unit)},
                                       {"description", QString::fromStdString(c.description)}});
            return QJsonDocument(map).toJson(QJsonDocument::Indented);
        };
        core::writeUnitsSidecar(csv.toStdString(), columns);
        QCOMPARE(readBytes(csv + ".units.json"), qtJson(columns));
        core::writeUnitsSidecar(csv.toStdString(), {});
        QCOMPARE(readBytes(csv + ".units.json"), qtJson({}));
        // a results CSV's: time first, then the columns
        const std::vector<core::Column> results{{"m.x", "m", "Position", "m", "x"}, {"a.v", "m/s", "Velocity", "a", "v"}};
        core::writeResultsUnitsSidecar(csv.toStdString(), results);
        QCOMPARE(readBytes(csv + ".units.json"),
                 qtJson({{"time", "s", "Time"}, {"m.x", "m", "Position"}, {"a.v", "m/s", "Velocity"}}));
        // standard output and a missing CSV get none
        core::writeUnitsSidecar("-", columns);
        core::writeUnitsSidecar(dir.filePath("missing.csv").toStdString(), columns);
        QCOMPARE(entries(dir.path()), (QStringList{"r.csv", "r.csv.units.json"}));
    }

    // A sidecar larger than the disk: IoError naming it, the previous sidecar left as it was.
    void unitsSidecarOnAFullDisk() {
        test::SmallDisk disk(128 * 1024);
        if (disk.path().isEmpty()) QSKIP(qPrintable(disk.why()));
        const QString csv = disk.filePath("r.csv");
        writeBytes(csv, "time\n");
        writeBytes(csv + ".units.json", "{}\n");
        std::vector<core::ColumnInfo> many;
        for (int i = 0; i < 5000; ++i)
            many.push_back({"block" + std::to_string(i) + ".variable", "m", "a description long enough to fill"});
        const QString message = ioError([&] { core::writeUnitsSidecar(csv.toStdString(), many); });
        QVERIFY2(message.startsWith("cannot write '" + csv + ".units.json': "), qPrintable(message));
        QCOMPARE(readBytes(csv + ".units.json"), QByteArray("{}\n"));
    }

    // A character device is written through: /dev/full says the disk is full, and stays a device.
    void deviceWrittenThrough() {
        if (kind("/dev/full") != S_IFCHR) QSKIP("no /dev/full here");
        const QString message =
            ioError([&] { core::io::writeFile(std::string("/dev/full"), std::string_view("x\n")); });
        QVERIFY2(message.startsWith("cannot write '/dev/full': "), qPrintable(message));
        QCOMPARE(kind("/dev/full"), mode_t(S_IFCHR));
    }

    // A FIFO: the reader gets every byte and the FIFO is still a FIFO afterwards.
    void fifoWrittenThrough() {
        QTemporaryDir dir;
        const QString path = dir.filePath("pipe");
        QCOMPARE(::mkfifo(path.toLocal8Bit().constData(), 0600), 0);
        QByteArray received;
        std::thread reader([&] { received = readBytes(path); });
        const std::string payload(200000, 'p');
        core::io::writeFile(path.toStdString(), payload);
        reader.join();
        QCOMPARE(received.size(), qsizetype(payload.size()));
        QCOMPARE(kind(path), mode_t(S_IFIFO));
        QCOMPARE(entries(dir.path()), QStringList{"pipe"});
    }
};

QTEST_GUILESS_MAIN(TestOutputFile)
#include "tst_output_file.moc"
