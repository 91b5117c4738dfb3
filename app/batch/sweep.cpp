// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch sweep: the Cartesian product of every --vary list, run in parallel (--jobs),
// one CSV per run in --out DIR and summary.csv with the varied values and, per recorded variable,
// its final value, minimum and maximum.
#include "app/batch/cli.hpp"

#include "blocks/registry.hpp"
#include "core/io/overrides.hpp"
#include "core/io/project_file.hpp"
#include "core/model/errors.hpp"
#include "core/results/csv_sink.hpp"

#include <QDir>
#include <QSaveFile>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <iostream>
#include <mutex>
#include <thread>

namespace endstop::batch {

namespace {

struct Vary {
    std::string name;   // NAME.KEY
    core::io::ParamTarget target;
    std::vector<core::ParamValue> values;
};

Vary parseVary(const core::Model& model, const std::string& arg) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) throw UsageError("--vary '" + arg + "': expected NAME.KEY=V1,V2,... or NAME.KEY=START:STOP:COUNT");
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
            int n = 0;
            const auto [p, ec] = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), n);
            if (ec != std::errc{} || p != parts[2].data() + parts[2].size() || n < 1)
                throw UsageError("--vary " + v.name + ": COUNT must be a whole number >= 1, got '" + parts[2] + "'");
            for (int i = 0; i < n; ++i) {
                const double x = n == 1 ? a : a + (b - a) * i / (n - 1);
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
    std::string status = "ok";
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
    int jobs = jobsArg ? static_cast<int>(*jobsArg) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (jobsArg && (*jobsArg < 1 || *jobsArg != std::floor(*jobsArg))) throw UsageError("flag --jobs: expected a whole number >= 1");

    core::Model base = loadModel(path);
    applySets(base, sets);
    std::vector<Vary> varies;
    for (const std::string& a : varyArgs) varies.push_back(parseVary(base, a));
    std::size_t runs = 1;
    for (const Vary& v : varies) runs *= v.values.size();

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
    std::atomic<std::size_t> nextRun{0};
    std::atomic<bool> badInput{false};
    std::mutex errMutex;
    std::string firstBadInput;
    auto worker = [&] {
        for (std::size_t r = nextRun++; r < runs; r = nextRun++) {
            const core::Model m = modelOf(r);
            try {
                char name[32];
                std::snprintf(name, sizeof name, "run_%04zu.csv", r + 1);
                core::CsvSink csv(outDir ? (QDir(QString::fromStdString(*outDir)).filePath(name)).toStdString() : "", "");
                core::TeeSink tee({&csv, &outcomes[r].ext});
                core::simulate(m, blocks::registry(), options, tee, {});
            } catch (const core::SolverError& e) {
                outcomes[r].status = "failed";
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
        QSaveFile f(QDir(QString::fromStdString(*outDir)).filePath("summary.csv"));
        if (!f.open(QIODevice::WriteOnly) || f.write(csv.data(), static_cast<qint64>(csv.size())) != static_cast<qint64>(csv.size()) || !f.commit())
            throw UsageError("--out " + *outDir + ": cannot write summary.csv");
        std::cout << runs << " runs, " << std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return o.status == "ok"; })
                  << " ok; results in " << *outDir << "/\n";
    } else {
        std::cout << csv;
    }
    const bool allOk = std::all_of(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return o.status == "ok"; });
    return allOk ? kOk : kSimulationFailed;
}

}  // namespace endstop::batch
