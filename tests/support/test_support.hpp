// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the test binaries: build models from JSON text, run them, read results.
#pragma once

#include "blocks/registry.hpp"
#include "core/model/model.hpp"
#include "core/results/results.hpp"
#include "core/simulation/simulate.hpp"

#include <QString>
#include <QStringList>

#include <initializer_list>
#include <string>
#include <vector>

namespace endstop::test {

// A model from the JSON text of a project file (format header added if missing).
core::model::Model modelFromJson(const std::string& json);
core::model::Model loadExample(const QString& fileName);         // resources/examples/<fileName>
core::model::Model loadSourceProject(const QString& relative);   // a project file under the source tree

// rtol as given, atol two decades below it; interval 0 records every solver step.
core::simulation::SimulationOptions solverOptions(double stop, double rtol, double interval = 0.0);
// A data function's rows for both engines: the column "reduce", rows "as drawn" and "reduced";
// with rtols, a column "rtol" as well and a row for each engine at each of them
void engineRows();
void engineRows(std::initializer_list<double> rtols);

// The errors building the network reports, one line each; empty if it builds.
QStringList buildErrors(const core::model::Model& m);

// Runs the model to completion and keeps everything. Where the options leave the engine to the
// model, the environment variable ENDSTOP_TEST_REDUCE (on or off) chooses it: tests/CMakeLists.txt
// runs the physics tests a second time with it off (NAME.as_drawn), so that both engines meet them.
core::MemorySink run(const core::model::Model& model, const core::simulation::SimulationOptions& options = {});

// The same run twice: restarting at every event (every), and stepping over the continuous ones
// (over); `counts` says how many of each, for failure messages.
struct StepOverRuns {
    core::MemorySink every, over;
    QString counts;   // "R restarts and S stepped over, against E restarts"
};
StepOverRuns runStepOverPair(const core::model::Model& model, core::simulation::SimulationOptions options);

// Linear interpolation of a result column at time t.
double at(const core::MemorySink& r, const std::string& column, double t);
// Times where a column crosses `level` going up (+1), down (-1) or either (0), interpolated.
std::vector<double> crossings(const core::MemorySink& r, const std::string& column, double level, int direction = 0);
double maxOf(const core::MemorySink& r, const std::string& column);
double minOf(const core::MemorySink& r, const std::string& column);
double last(const core::MemorySink& r, const std::string& column);
std::vector<core::EventRecord> eventsOf(const core::MemorySink& r, const std::string& block);   // in order

// Two runs of one model that should agree (the two engines, say, on one output grid): the same
// logged events, each of the same kind and within eventTime of the other's time, and every named
// column within `share` of its range in `a`, row by row. False, with the failure recorded for the
// calling test, at the first miss.
bool runsAgree(const core::MemorySink& a, const core::MemorySink& b, const std::vector<std::string>& columns,
               double share, double eventTime);

struct ProcessResult {
    int exitCode = -1;
    QString out;
    QString err;
};
ProcessResult runBatch(const QStringList& args, const QString& workingDir = {});

QString sourcePath(const QString& relative);   // path under the source tree

// A file's bytes (empty if it cannot be read); writing one returns its path, and a write that
// fails ends the test binary (a fixture that is not there would make the test meaningless).
QByteArray readBytes(const QString& path);
QString writeBytes(const QString& path, const QByteArray& bytes);

// A tmpfs of `bytes` mounted on a fresh directory for the full-disk tests (needs root and a
// kernel that lets this process mount; path() is empty otherwise, with the reason in why()).
// Unmounted when it goes out of scope.
class SmallDisk {
public:
    explicit SmallDisk(long bytes);
    ~SmallDisk();
    SmallDisk(const SmallDisk&) = delete;
    SmallDisk& operator=(const SmallDisk&) = delete;
    QString path() const { return m_mounted ? m_dir : QString(); }
    QString why() const { return m_why; }
    QString filePath(const QString& name) const { return m_dir + "/" + name; }
    // Writes filler until fewer than `leave` bytes are free.
    void fill(long leave) const;

private:
    QString m_dir, m_why;
    bool m_mounted = false;
};

}   // namespace endstop::test
