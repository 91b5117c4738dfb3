// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch sweep: the Cartesian product of every --vary list, run in parallel (--jobs),
// one CSV per run in --out DIR and summary.csv with the varied values and, per recorded variable,
// its final value, minimum and maximum.
#include "app/batch/cli.hpp"

#include "app/batch/interrupt.hpp"
#include "blocks/registry.hpp"
#include "core/io/output_file.hpp"
#include "core/io/overrides.hpp"
#include "core/io/project_file.hpp"
#include "core/model/errors.hpp"
#include "core/text/quote.hpp"
#include "core/results/csv_sink.hpp"

#include <QDir>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <iostream>
#include <mutex>
#include <thread>

namespace endstop::batch {

namespace {

// A sweep holds one outcome per run in memory: more runs than this is a typing error, not a study.
constexpr long kMaxRuns = 1'000'000;
constexpr double kMaxJobs = 1024;

struct Vary {
    std::string name;   // NAME.KEY
    core::io::ParamTarget target;
    std::vector<core::ParamValue> values;
};

Vary parseVary(const core::Model& model, const std::string& arg) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) throw UsageError("--vary " + core::quoteText(arg) + ": expected NAME.KEY=V1,V2,... or NAME.KEY=START:STOP:COUNT");
    Vary v;
    v.name = arg.substr(0, eq);
    try {
        v.target = core::io::findParameter(model, blocks::registry(), v.name);
    } catch (const core::Error& e) {
        throw UsageError(std::string("--vary ") + e.what());
    }
    const std::string spec = arg.substr(eq + 1);
    try {
        const auto parts = splitList(spec, ':');
        if (parts.size() == 3 && v.target.desc.type == core::ParamType::Real) {
            const double a = std::get<double>(core::io::parseParameterText(parts[0], v.target.desc));
            const double b = std::get<double>(core::io::parseParameterText(parts[1], v.target.desc));
            long n = 0;
            const auto [p, ec] = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), n);
            if (ec != std::errc{} || p != parts[2].data() + parts[2].size() || n < 1 || n > kMaxRuns)
                throw UsageError("--vary " + v.name + ": COUNT must be a whole number from 1 to " + std::to_string(kMaxRuns) + ", got " +
                                 core::quoteText(parts[2]));
            for (long i = 0; i < n; ++i) {
                const double x = n == 1 ? a : a + (b - a) * static_cast<double>(i) / static_cast<double>(n - 1);
                v.values.emplace_back(std::in_place_type<double>, x);
            }
        } else {
            for (const std::string& item : splitList(spec, ','))
                v.values.push_back(core::io::parseParameterText(item, v.target.desc));
        }
    } catch (const core::Error& e) {
        throw UsageError("--vary " + v.name + ": " + e.what());
    }
    if (v.values.empty()) throw UsageError("--vary " + v.name + ": no values");
    for (const core::ParamValue& x : v.values)
        if (const std::string error = v.target.desc.valueError(x); !error.empty())
            throw UsageError("--vary " + v.name + ": block '" + v.target.block + "', parameter '" + v.target.key + "': " + error);
    return v;
}

// Final value, minimum and maximum of every column.
class Extremes : public core::ResultSink {
public:
    void begin(const std::vector<core::Column>& c) override {
        columns = c;
        last.assign(c.size(), NAN);
        lo.assign(c.size(), INFINITY);
        hi.assign(c.size(), -INFINITY);
    }
    void row(double, std::span<const double> v) override {
        for (std::size_t i = 0; i < v.size(); ++i) {
            last[i] = v[i];
            lo[i] = std::min(lo[i], v[i]);
            hi[i] = std::max(hi[i], v[i]);
        }
    }
    std::vector<core::Column> columns;
    std::vector<double> last, lo, hi;
};

struct Outcome {
    std::string status;   // ok, failed, timeout, cancelled; empty: not started (interrupted)
    Extremes ext;
};

}  // namespace

int sweepCommand(Args& args) {
    const auto varyArgs = args.values("--vary");
    const auto sets = args.values("--set");
    const auto jobsArg = args.number("--jobs");
    const auto outDir = args.value("--out");
    const core::SimulationOptions options = simulationOptions(args);
    const std::string path = args.next("MODEL.endstop after 'sweep'");
    args.done();
    if (varyArgs.empty()) throw UsageError("sweep needs at least one --vary NAME.KEY=V1,V2,...");
    // range-checked as a double before the conversion (2147483648 must not wrap to a negative int)
    if (jobsArg && (*jobsArg < 1 || *jobsArg > kMaxJobs || *jobsArg != std::floor(*jobsArg)))
        throw UsageError("flag --jobs: expected a whole number from 1 to " + core::formatNumber(kMaxJobs) + ", got " + core::formatNumber(*jobsArg));
    const int jobs = jobsArg ? static_cast<int>(*jobsArg) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

    core::Model base = loadModel(path);
    applySets(base, sets);
    checkSettings(base, options, path);
    std::vector<Vary> varies;
    for (const std::string& a : varyArgs) varies.push_back(parseVary(base, a));
    std::size_t runs = 1;
    for (const Vary& v : varies) {
        if (static_cast<double>(runs) * static_cast<double>(v.values.size()) > kMaxRuns)
            throw UsageError("--vary: the grid has more than " + std::to_string(kMaxRuns) + " runs; split the study");
        runs *= v.values.size();
    }

    auto valuesOf = [&](std::size_t run) {
        std::vector<std::size_t> idx(varies.size());
        for (std::size_t i = varies.size(); i-- > 0;) {
            idx[i] = run % varies[i].values.size();
            run /= varies[i].values.size();
        }
        return idx;
    };
    auto modelOf = [&](std::size_t run) {
        core::Model m = base;
        const auto idx = valuesOf(run);
        for (std::size_t i = 0; i < varies.size(); ++i)
            m.apply(core::SetParameter{varies[i].target.block, varies[i].target.key, varies[i].values[idx[i]]});
        return m;
    };
    // every combination is checked before anything runs or is written: bad input is exit 2 with
    // no half-written sweep
    for (std::size_t r = 0; r < runs; ++r)
        for (const core::Diagnostic& d : core::validateModel(modelOf(r), blocks::registry()))
            if (d.severity == core::Severity::Error) {
                std::string values;
                const auto idx = valuesOf(r);
                for (std::size_t i = 0; i < varies.size(); ++i)
                    values += (i ? ", " : "") + varies[i].name + "=" + core::toString(varies[i].values[idx[i]]);
                throw UsageError(path + ": run " + std::to_string(r + 1) + " (" + values + "): " + d.text());
            }
    if (outDir && !QDir().mkpath(QString::fromStdString(*outDir))) throw UsageError("--out " + *outDir + ": cannot create directory");
    std::vector<Outcome> outcomes(runs);
    const InterruptGuard interrupt;
    core::solver::RunControl control;
    control.cancel = interrupt.flag();
    std::atomic<std::size_t> nextRun{0};
    std::atomic<bool> badInput{false};
    std::mutex errMutex;
    std::string firstBadInput;
    auto worker = [&] {
        for (std::size_t r = nextRun++; r < runs && interrupt.signal() == 0; r = nextRun++) {
            const core::Model m = modelOf(r);
            try {
                char name[32];
                std::snprintf(name, sizeof name, "run_%04zu.csv", r + 1);
                core::CsvSink csv(outDir ? (QDir(QString::fromStdString(*outDir)).filePath(name)).toStdString() : "", "");
                core::TeeSink tee({&csv, &outcomes[r].ext});
                const core::RunStats st = core::simulate(m, blocks::registry(), options, tee, control);
                outcomes[r].status = st.cancelled ? "cancelled" : "ok";
            } catch (const core::Error& e) {   // a solver failure, a run limit, a file that could not be written
                const bool limit = dynamic_cast<const core::RunLimitError*>(&e) != nullptr;
                const bool io = dynamic_cast<const core::IoError*>(&e) != nullptr;
                if (!limit && !io && !dynamic_cast<const core::SolverError*>(&e)) {
                    outcomes[r].status = "invalid";
                    badInput = true;
                    std::lock_guard lock(errMutex);
                    if (firstBadInput.empty()) firstBadInput = "run " + std::to_string(r + 1) + ": " + e.what();
                    continue;
                }
                outcomes[r].status = limit ? "timeout" : "failed";
                std::lock_guard lock(errMutex);
                std::cerr << "endstop-batch: run " << r + 1 << ": " << e.what() << "\n";
            } catch (const std::exception& e) {
                outcomes[r].status = "invalid";
                badInput = true;
                std::lock_guard lock(errMutex);
                if (firstBadInput.empty()) firstBadInput = "run " + std::to_string(r + 1) + ": " + e.what();
            }
        }
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < std::min<int>(jobs, static_cast<int>(runs)); ++i) pool.emplace_back(worker);
    for (std::thread& t : pool) t.join();
    if (badInput) throw UsageError(path + ": " + firstBadInput);

    const Extremes* cols = nullptr;
    for (const Outcome& o : outcomes)
        if (!o.ext.columns.empty()) { cols = &o.ext; break; }
    std::string csv = "run,status";
    for (const Vary& v : varies) csv += "," + v.name;
    if (cols)
        for (const core::Column& c : cols->columns) csv += "," + c.name + ".final," + c.name + ".min," + c.name + ".max";
    csv += "\n";
    for (std::size_t r = 0; r < runs; ++r) {
        if (outcomes[r].status.empty()) continue;   // never started: a signal stopped the sweep
        csv += std::to_string(r + 1) + "," + outcomes[r].status;
        const auto idx = valuesOf(r);
        for (std::size_t i = 0; i < varies.size(); ++i) csv += "," + core::toString(varies[i].values[idx[i]]);
        const Extremes& e = outcomes[r].ext;
        if (cols)
            for (std::size_t c = 0; c < cols->columns.size(); ++c) {
                const bool have = c < e.last.size();
                csv += "," + (have ? core::formatNumber(e.last[c]) : "") + "," + (have ? core::formatNumber(e.lo[c]) : "") + "," +
                       (have ? core::formatNumber(e.hi[c]) : "");
            }
        csv += "\n";
    }
    if (outDir) {
        try {
            core::io::writeFile(QDir(QString::fromStdString(*outDir)).filePath("summary.csv").toStdString(), csv);
        } catch (const core::IoError& e) {
            std::cerr << "endstop-batch: " << e.what() << "\n";
            return kSimulationFailed;
        }
        std::cout << runs << " runs, " << std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return o.status == "ok"; })
                  << " ok; results in " << *outDir << "/\n";
    } else {
        std::cout << csv;
    }
    if (interrupt.signal() != 0) {
        std::cerr << "endstop-batch: sweep interrupted by " << interrupt.signalName() << "; the summary lists the runs that ended\n";
        return 128 + interrupt.signal();
    }
    const bool allOk = std::all_of(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return o.status == "ok"; });
    return allOk ? kOk : kSimulationFailed;
}

}  // namespace endstop::batch
