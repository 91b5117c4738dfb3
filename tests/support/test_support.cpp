// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/test_support.hpp"

#include "support/compare.hpp"

#include "core/graph/topology.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStorageInfo>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <stdexcept>

namespace endstop::test {

core::model::Model modelFromJson(const std::string& json) {
    std::string text = json;
    if (text.find("\"format\"") == std::string::npos) {
        const auto brace = text.find('{');
        text.insert(brace + 1, "\"format\": \"endstop-project\", \"formatVersion\": 1, ");
    }
    return core::io::parseProject(QByteArray::fromStdString(text), "test.endstop", blocks::registry());
}

core::model::Model loadExample(const QString& fileName) { return loadSourceProject("resources/examples/" + fileName); }

core::model::Model loadSourceProject(const QString& relative) {
    return core::io::loadProject(sourcePath(relative), blocks::registry());
}

core::MemorySink run(const core::model::Model& model, const core::simulation::SimulationOptions& options) {
    core::simulation::SimulationOptions o = options;
    if (!o.reduce && qEnvironmentVariableIsSet("ENDSTOP_TEST_REDUCE")) {
        const QString engine = qEnvironmentVariable("ENDSTOP_TEST_REDUCE");
        if (engine != "on" && engine != "off")
            throw std::invalid_argument("ENDSTOP_TEST_REDUCE: expected on or off, got '" + engine.toStdString() + "'");
        o.reduce = engine == "on";
    }
    core::MemorySink sink;
    core::simulation::simulate(model, blocks::registry(), o, sink);
    return sink;
}

StepOverRuns runStepOverPair(const core::model::Model& model, core::simulation::SimulationOptions options) {
    StepOverRuns r;
    options.stepOver = false;
    r.every = run(model, options);
    options.stepOver = true;
    r.over = run(model, options);
    r.counts = QString("%1 restarts and %2 stepped over, against %3 restarts")
                   .arg(r.over.stats().reinits)
                   .arg(r.over.stats().steppedOver)
                   .arg(r.every.stats().reinits);
    return r;
}

double at(const core::MemorySink& r, const std::string& column, double t) {
    const auto& ts = r.time();
    const auto& vs = r.values(column);
    const auto it = std::upper_bound(ts.begin(), ts.end(), t);
    if (it == ts.begin()) return vs.front();
    if (it == ts.end()) return vs.back();
    const auto i = static_cast<std::size_t>(it - ts.begin());
    const double t0 = ts[i - 1], t1 = ts[i];
    return t1 == t0 ? vs[i] : vs[i - 1] + (vs[i] - vs[i - 1]) * (t - t0) / (t1 - t0);
}

std::vector<double> crossings(const core::MemorySink& r, const std::string& column, double level, int direction) {
    const auto& ts = r.time();
    const auto& vs = r.values(column);
    std::vector<double> out;
    for (std::size_t i = 1; i < ts.size(); ++i) {
        const double a = vs[i - 1] - level, b = vs[i] - level;
        const bool up = a < 0 && b >= 0, down = a > 0 && b <= 0;
        if ((up && direction >= 0) || (down && direction <= 0))
            out.push_back(ts[i] == ts[i - 1] ? ts[i] : ts[i - 1] + (ts[i] - ts[i - 1]) * a / (a - b));
    }
    return out;
}

double maxOf(const core::MemorySink& r, const std::string& column) {
    const auto& v = r.values(column);
    return *std::max_element(v.begin(), v.end());
}

double minOf(const core::MemorySink& r, const std::string& column) {
    const auto& v = r.values(column);
    return *std::min_element(v.begin(), v.end());
}

double last(const core::MemorySink& r, const std::string& column) { return r.values(column).back(); }

std::vector<core::EventRecord> eventsOf(const core::MemorySink& r, const std::string& block) {
    std::vector<core::EventRecord> out;
    for (const core::EventRecord& e : r.events())
        if (e.block == block) out.push_back(e);
    return out;
}

bool runsAgree(const core::MemorySink& a, const core::MemorySink& b, const std::vector<std::string>& columns,
               double share, double eventTime) {
    const auto fail = [](const QString& what) {
        QTest::qFail(qPrintable(what), __FILE__, __LINE__);
        return false;
    };
    if (a.events().size() != b.events().size())
        return fail(QString("%1 events against %2").arg(a.events().size()).arg(b.events().size()));
    for (std::size_t k = 0; k < a.events().size(); ++k) {
        const core::EventRecord &ea = a.events()[k], &eb = b.events()[k];
        if (ea.kind != eb.kind || ea.block != eb.block)
            return fail(QString("event %1: %2 of %3 against %4 of %5")
                            .arg(k)
                            .arg(static_cast<int>(ea.kind))
                            .arg(QString::fromStdString(ea.block))
                            .arg(static_cast<int>(eb.kind))
                            .arg(QString::fromStdString(eb.block)));
        if (!compareNear(eb.time, ea.time, eventTime, "b's event time", "a's", QString("event %1").arg(k), __FILE__,
                         __LINE__))
            return false;
    }
    if (a.rows() != b.rows()) return fail(QString("%1 rows against %2").arg(a.rows()).arg(b.rows()));
    for (const std::string& column : columns) {
        const std::vector<double>&va = a.values(column), &vb = b.values(column);
        const auto [lo, hi] = std::minmax_element(va.begin(), va.end());
        for (std::size_t i = 0; i < va.size(); ++i)
            if (!compareNear(vb[i], va[i], share * (*hi - *lo), "b", "a",
                             QString("%1 at t = %2").arg(QString::fromStdString(column)).arg(a.time()[i]), __FILE__,
                             __LINE__))
                return false;
    }
    return true;
}

ProcessResult runBatch(const QStringList& args, const QString& workingDir) {
    QProcess p;
    if (!workingDir.isEmpty()) p.setWorkingDirectory(workingDir);
    p.start(ENDSTOP_BATCH_EXE, args);
    p.waitForFinished(120000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

void engineRows() {
    QTest::addColumn<bool>("reduce");
    QTest::newRow("as drawn") << false;
    QTest::newRow("reduced") << true;
}

void engineRows(std::initializer_list<double> rtols) {
    QTest::addColumn<bool>("reduce");
    QTest::addColumn<double>("rtol");
    for (const bool reduce : {false, true})
        for (const double rtol : rtols)
            QTest::addRow("%s, rtol %g", reduce ? "reduced" : "as drawn", rtol) << reduce << rtol;
}

core::simulation::SimulationOptions solverOptions(double stop, double rtol, double interval) {
    core::simulation::SimulationOptions o;
    o.stopTime = stop;
    o.relativeTolerance = rtol;
    o.absoluteTolerance = rtol * 1e-2;
    o.outputInterval = interval;
    return o;
}

QStringList buildErrors(const core::model::Model& m) {
    QStringList out;
    try {
        core::graph::buildTopology(m, blocks::registry());
    } catch (const core::Error& e) {
        for (const core::Diagnostic& d : e.diagnostics()) out << QString::fromStdString(d.text());
    }
    return out;
}

QString sourcePath(const QString& relative) { return QString(ENDSTOP_SOURCE_DIR) + "/" + relative; }

QByteArray readBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString writeBytes(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.flush())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

SmallDisk::SmallDisk(long bytes) {
    QTemporaryDir dir(QDir::tempPath() + "/endstop-small-disk-XXXXXX");
    dir.setAutoRemove(false);
    m_dir = dir.path();
    QProcess mount;
    mount.start("mount", {"-t", "tmpfs", "-o", "size=" + QString::number(bytes), "tmpfs", m_dir});
    if (!mount.waitForFinished(10000) || mount.exitStatus() != QProcess::NormalExit || mount.exitCode() != 0) {
        m_why = "cannot mount a tmpfs here (" + QString::fromUtf8(mount.readAllStandardError()).trimmed() +
                mount.errorString() + ")";
        return;
    }
    m_mounted = true;
}

SmallDisk::~SmallDisk() {
    if (m_mounted) QProcess::execute("umount", {m_dir});
    QDir(m_dir).removeRecursively();
}

void SmallDisk::fill(long leave) const {
    QFile f(filePath("filler"));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Unbuffered)) return;
    const QByteArray block(512, 'x');
    while (QStorageInfo(m_dir).bytesAvailable() >= leave)
        if (f.write(block) != block.size()) break;
}

}   // namespace endstop::test
