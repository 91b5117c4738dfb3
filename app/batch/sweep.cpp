// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch sweep: a study (docs/batch.md, "Studies"). The design (grid, table or sample;
// design.hpp), cut to one shard and to the runs a resumed summary lacks, runs on --jobs threads;
// each run writes DIR/run_000001.csv and _events.csv (unless --summary-only) and, when it ends,
// one row of the summary (summary.hpp).
#include "app/batch/cli.hpp"

#include "app/batch/design.hpp"
#include "app/batch/interrupt.hpp"
#include "app/batch/progress.hpp"
#include "app/batch/summary.hpp"
#include "blocks/registry.hpp"
#include "core/errors.hpp"
#include "core/results/csv_sink.hpp"
#include "core/text/quote.hpp"

#include <QDir>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <iostream>
#include <thread>
#include <utility>

namespace endstop::batch {

namespace {

constexpr double kMaxJobs = 1024;

// Final value, minimum and maximum of every column, and the run's statistics.
class Extremes : public core::ResultSink {
public:
    explicit Extremes(RunOutcome& o) : m_o(o) {}
    void begin(const std::vector<core::Column>& c) override {
        m_o.columns = c;
        m_o.last.assign(c.size(), NAN);
        m_o.lo.assign(c.size(), INFINITY);
        m_o.hi.assign(c.size(), -INFINITY);
    }
    void row(double, std::span<const double> v) override {
        for (std::size_t i = 0; i < v.size(); ++i) {
            m_o.last[i] = v[i];
            m_o.lo[i] = std::min(m_o.lo[i], v[i]);
            m_o.hi[i] = std::max(m_o.hi[i], v[i]);
        }
    }
    void end(const core::RunStats& s) override { m_o.stats = s; }   // also after a failure

private:
    RunOutcome& m_o;
};

struct StudyArgs {
    std::vector<std::string> vary, sample, sets;
    std::optional<std::string> points, shard, outDir, seed;
    std::optional<double> count, jobs;
    bool listPoints = false, resume = false, summaryOnly = false;
};

StudyArgs studyArgs(Args& args) {
    StudyArgs a;
    a.vary = args.values("--vary");
    a.sample = args.values("--sample");
    a.sets = args.values("--set");
    a.points = args.value("--points");
    a.shard = args.value("--shard");
    a.outDir = args.value("--out");
    a.seed = args.value("--seed");
    a.count = args.number("--count");
    a.jobs = args.number("--jobs");
    a.listPoints = args.flag("--list-points");
    a.resume = args.flag("--resume");
    a.summaryOnly = args.flag("--summary-only");
    const int sources = !a.vary.empty() + a.points.has_value() + !a.sample.empty();
    if (sources == 0)
        throw UsageError(
            "sweep needs a design: --vary NAME.KEY=V1,V2,..., --points design.csv or --sample NAME.KEY=normal:MEAN:SD "
            "--count N");
    if (sources > 1) throw UsageError("sweep takes one design: --vary, --points or --sample, not several");
    if (a.sample.empty() && (a.count || a.seed)) throw UsageError("flags --count and --seed belong to --sample");
    if (!a.sample.empty() && !a.count) throw UsageError("--sample needs --count N (the number of runs)");
    if (a.count && (*a.count != std::floor(*a.count)))
        throw UsageError("flag --count: expected a whole number, got " + core::formatNumber(*a.count));
    if (a.resume && !a.outDir)
        throw UsageError("flag --resume needs --out DIR (the study's summary is read from there)");
    if (a.outDir && a.outDir->empty()) throw UsageError("flag --out: expected a directory name, got an empty name");
    // range-checked as a double before the conversion (2147483648 must not wrap to a negative int)
    if (a.jobs && (*a.jobs < 1 || *a.jobs > kMaxJobs || *a.jobs != std::floor(*a.jobs)))
        throw UsageError("flag --jobs: expected a whole number from 1 to " + core::formatNumber(kMaxJobs) + ", got " +
                         core::formatNumber(*a.jobs));
    return a;
}

Design makeDesign(const core::model::Model& base, const StudyArgs& a) {
    if (!a.vary.empty()) return gridDesign(base, a.vary);
    if (a.points) return pointsDesign(base, *a.points);
    std::uint64_t seed = 1;
    if (a.seed) {
        const auto [p, ec] = std::from_chars(a.seed->data(), a.seed->data() + a.seed->size(), seed);
        if (ec != std::errc{} || p != a.seed->data() + a.seed->size() || a.seed->empty())
            throw UsageError("flag --seed: expected a whole number from 0 to 18446744073709551615, got " +
                             core::quoteText(*a.seed));
    }
    return sampleDesign(base, a.sample, static_cast<long>(std::clamp(*a.count, -1.0, 1e9)), seed);
}

// The columns every run records (the model's, narrowed by --signals), checked.
std::vector<core::Column> studyColumns(const core::model::Model& base, const std::vector<std::string>& signals) {
    std::vector<core::Column> all = core::simulation::recordableVariables(base, blocks::registry());
    if (signals.empty()) return all;
    for (const std::string& s : signals)
        if (std::none_of(all.begin(), all.end(), [&](const core::Column& c) { return c.name == s; }))
            throw UsageError("--signals: unknown signal " + core::quoteText(s) +
                             " (see endstop-batch variables MODEL)");
    std::erase_if(
        all, [&](const core::Column& c) { return std::find(signals.begin(), signals.end(), c.name) == signals.end(); });
    return all;
}

// Explicit designs are checked whole before anything runs or is written: a bad value is exit 2,
// not a half-written study. A random draw outside a range is that run's bad_input instead. The
// check builds every run's equations, so it runs on the study's threads; the first bad row in
// design order is reported.
void checkRows(const core::model::Model& base, const Design& d, const std::vector<std::size_t>& todo, int jobs,
               const std::string& path) {
    if (d.sampled) return;
    std::atomic<std::size_t> next{0}, firstBad{todo.size()};
    std::vector<std::string> why(todo.size());
    auto check = [&] {
        for (std::size_t k = next++; k < todo.size() && k < firstBad; k = next++)
            for (const core::Diagnostic& diag :
                 core::simulation::validateModel(d.modelOf(base, todo[k]), blocks::registry()))
                if (diag.severity == core::Severity::Error) {
                    why[k] = diag.text();
                    for (std::size_t seen = firstBad; k < seen && !firstBad.compare_exchange_weak(seen, k);) {}
                    break;
                }
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < jobs; ++i) pool.emplace_back(check);
    for (std::thread& t : pool) t.join();
    if (const std::size_t k = firstBad; k < todo.size())
        throw UsageError(path + ": run " + std::to_string(d.runs[todo[k]]) + " (" + d.describe(todo[k]) +
                         "): " + why[k]);
}

std::string runFile(const std::optional<std::string>& dir, long run, const char* suffix) {
    if (!dir) return {};
    char name[48];
    std::snprintf(name, sizeof name, "run_%06ld%s.csv", run, suffix);
    return QDir(QString::fromStdString(*dir)).filePath(name).toStdString();
}

// m is this run's own copy: released once its network is built (simulate())
RunOutcome runOne(core::model::Model&& m, const core::simulation::SimulationOptions& options,
                  const core::solver::RunControl& control, const std::string& csvPath, const std::string& eventsPath) {
    RunOutcome o;
    const auto start = std::chrono::steady_clock::now();
    auto ended = [&o](const char* status, const std::exception& e) {   // the rows so far stay in o
        o.status = status;
        o.message = e.what();
    };
    try {
        core::CsvSink csv(csvPath, eventsPath);
        Extremes ext(o);
        core::TeeSink tee({&csv, &ext});
        o.stats = core::simulation::simulate(std::move(m), blocks::registry(), options, tee, control);
        o.status = o.stats.cancelled ? "" : "ok";   // a cancelled run did not end: --resume runs it again
    } catch (const core::RunLimitError& e) {
        ended("timeout", e);
    } catch (const core::SolverError& e) {
        ended("failed", e);
    } catch (const core::IoError& e) {   // its files could not be written
        ended("failed", e);
    } catch (const core::Error& e) {   // a sampled value the model refuses
        ended("bad_input", e);
    } catch (const std::exception& e) {
        ended("failed", e);
    }
    o.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return o;
}

struct Tally {
    std::atomic<long> done{0}, ok{0};
    std::atomic<bool> writeFailed{false};
    std::string writeError;   // the first summary write that failed
};

}   // namespace

int sweepCommand(Args& args) {
    const StudyArgs a = studyArgs(args);
    const core::simulation::SimulationOptions options = simulationOptions(args);
    Progress progress(args);
    const std::string path = args.next("MODEL.endstop after 'sweep'");
    args.done();

    core::model::Model base = loadModel(path);
    applySets(base, a.sets);
    checkSettings(base, options, path);
    Design design = makeDesign(base, a);
    const Shard shard = a.shard ? parseShard(*a.shard) : Shard{};
    keepShard(design, shard);
    if (a.listPoints) {
        std::cout << designCsv(design) << std::flush;
        return std::cout ? kOk : kSimulationFailed;
    }
    const SummaryTable table(design, studyColumns(base, options.signals));
    const QDir dir(QString::fromStdString(a.outDir.value_or(".")));
    const std::string summaryPath =
        a.outDir ? dir.filePath(QString::fromStdString("summary" + shard.suffix() + ".csv")).toStdString() : "";
    const std::set<long> finished = a.resume ? SummaryLog::finishedRuns(summaryPath, table.header()) : std::set<long>{};
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < design.size(); ++i)
        if (!finished.contains(design.runs[i])) todo.push_back(i);
    int jobs = a.jobs ? static_cast<int>(*a.jobs) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    jobs = std::max(1, std::min<int>(jobs, static_cast<int>(todo.size())));
    checkRows(base, design, todo, jobs, path);

    if (a.outDir && !QDir().mkpath(dir.path())) throw UsageError("--out " + *a.outDir + ": cannot create directory");
    const std::optional<std::string> runDir = a.summaryOnly ? std::nullopt : a.outDir;
    try {
        SummaryLog log(summaryPath, table.header(), a.resume);
        if (a.outDir) core::writeUnitsSidecar(summaryPath, table.columnsInfo());
        const InterruptGuard interrupt;
        core::solver::RunControl control;
        control.cancel = interrupt.flag();
        std::atomic<std::size_t> next{0};
        Tally tally;
        std::mutex errMutex;
        auto worker = [&] {
            for (std::size_t k = next++; k < todo.size() && interrupt.signal() == 0 && !tally.writeFailed; k = next++) {
                const std::size_t row = todo[k];
                const long id = design.runs[row];
                const RunOutcome o = runOne(design.modelOf(base, row), options, control, runFile(runDir, id, ""),
                                            runFile(runDir, id, "_events"));
                if (o.status.empty()) continue;
                try {
                    log.append(table.row(row, o));
                } catch (const core::IoError& e) {
                    const std::lock_guard lock(errMutex);
                    if (!tally.writeFailed.exchange(true)) tally.writeError = e.what();
                    continue;
                }
                const long ok = o.status == "ok" ? ++tally.ok : tally.ok.load();
                const long done = ++tally.done;
                if (o.status != "ok") {
                    const std::lock_guard lock(errMutex);
                    std::cerr << "endstop-batch: run " << id << ": " << o.status << " (" << design.describe(row)
                              << "): " << o.message << "\n";
                }
                progress.study(done, static_cast<long>(todo.size()), std::max(0L, done - ok));
            }
        };
        std::vector<std::thread> pool;
        for (int i = 0; i < jobs && !todo.empty(); ++i) pool.emplace_back(worker);
        for (std::thread& t : pool) t.join();
        progress.finish();
        if (tally.writeFailed) throw core::IoError(tally.writeError);
        log.close();
        if (a.outDir) {
            std::cout << (shard.all()
                              ? ""
                              : "shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count) + ": ")
                      << tally.done << " runs, " << tally.ok << " ok"
                      << (finished.empty() ? "" : " (" + std::to_string(finished.size()) + " finished before)")
                      << "; results in " << *a.outDir << "/\n";
        }
        if (interrupt.signal() != 0) {
            std::cerr << "endstop-batch: sweep interrupted by " << interrupt.signalName()
                      << "; the summary lists the runs that ended (--resume runs the rest)\n";
            return 128 + interrupt.signal();
        }
        return tally.ok == static_cast<long>(todo.size()) ? kOk : kSimulationFailed;
    } catch (const core::IoError& e) {   // the summary could not be written: the study stops
        std::cerr << "endstop-batch: " << e.what() << "\n";
        return kSimulationFailed;
    }
}

}   // namespace endstop::batch
