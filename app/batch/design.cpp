// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/batch/design.hpp"

#include "app/batch/cli.hpp"
#include "blocks/registry.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "core/text/csv.hpp"
#include "core/text/quote.hpp"

#include <QFile>

#include <charconv>
#include <cmath>
#include <numbers>
#include <random>
#include <set>

namespace endstop::batch {

namespace {

// A study holds its design in memory: more runs than this is a typing error, not a study.
constexpr long kMaxRuns = 1'000'000;

Factor findFactor(const core::model::Model& model, const std::string& name, const std::string& flag) {
    try {
        return {name, core::io::findParameter(model, blocks::registry(), name)};
    } catch (const core::Error& e) {
        throw UsageError(flag + " " + e.what());
    }
}

// the value, checked against the parameter's range; `where` prefixes the message
core::ParamValue parseValue(const Factor& f, const std::string& text, const std::string& where) {
    core::ParamValue v;
    try {
        v = core::io::parseParameterText(text, f.target.desc);
    } catch (const core::Error& e) {
        throw UsageError(where + ": " + e.what());
    }
    if (const std::string error = f.target.desc.valueError(v); !error.empty())
        throw UsageError(where + ": block '" + f.target.block + "', parameter '" + f.target.key + "': " + error);
    return v;
}

std::optional<long> wholeNumber(std::string_view s) {
    long n = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc{} || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return n;
}

std::string trimmed(std::string s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::vector<core::ParamValue> gridLevels(const Factor& f, const std::string& spec) {
    const std::string where = "--vary " + f.name;
    const auto parts = splitList(spec, ':');
    std::vector<core::ParamValue> levels;
    if (parts.size() == 3 && f.target.desc.type == core::ParamType::Real) {
        const double a = std::get<double>(parseValue(f, parts[0], where));
        const double b = std::get<double>(parseValue(f, parts[1], where));
        const auto n = wholeNumber(parts[2]);
        if (!n || *n < 1 || *n > kMaxRuns)
            throw UsageError(where + ": COUNT must be a whole number from 1 to " + std::to_string(kMaxRuns) + ", got " +
                             core::quoteText(parts[2]));
        for (long i = 0; i < *n; ++i)
            levels.emplace_back(*n == 1 ? a : a + (b - a) * static_cast<double>(i) / static_cast<double>(*n - 1));
        return levels;
    }
    for (const std::string& item : splitList(spec, ',')) levels.push_back(parseValue(f, item, where));
    return levels;
}

// One random stream per run: mt19937_64 and seed_seq are specified to the bit by the standard,
// and the conversions to uniform and normal numbers are ours, so a seed gives the same design
// with any standard library.
class RunStream {
public:
    RunStream(std::uint64_t seed, long run) {
        const auto r = static_cast<std::uint64_t>(run);
        std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                          static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r >> 32)};
        m_gen.seed(seq);
    }
    double uniform() { return static_cast<double>(m_gen() >> 11) * 0x1p-53; }   // [0, 1)
    double normal() {                                                           // Box-Muller
        const double u1 = 1.0 - uniform(), u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    }

private:
    std::mt19937_64 m_gen;
};

struct Distribution {
    enum Kind { Normal, Uniform, LogNormal } kind = Normal;
    double a = 0.0, b = 0.0;   // mean/sd, low/high, mu/sigma of the logarithm of the SI value
    double draw(RunStream& s) const {
        switch (kind) {
            case Normal:
                return a + b * s.normal();
            case Uniform:
                return a + (b - a) * s.uniform();
            case LogNormal:
                return std::exp(a + b * s.normal());
        }
        return a;
    }
};

Distribution parseDistribution(const Factor& f, const std::string& spec) {
    const std::string where = "--sample " + f.name;
    const auto parts = splitList(spec, ':');
    if (parts.size() != 3 || (parts[0] != "normal" && parts[0] != "uniform" && parts[0] != "lognormal"))
        throw UsageError(where + ": expected normal:MEAN:SD, uniform:LOW:HIGH or lognormal:MU:SIGMA, got " +
                         core::quoteText(spec));
    if (f.target.desc.type != core::ParamType::Real)
        throw UsageError(where + ": only numeric parameters can be sampled; '" + f.target.key +
                         "' is a choice or a vector");
    Distribution d;
    if (parts[0] == "lognormal") {   // MU and SIGMA are plain numbers: they describe ln(value in SI units)
        d.kind = Distribution::LogNormal;
        double* out[] = {&d.a, &d.b};
        for (int i = 0; i < 2; ++i) {
            const std::string& t = parts[static_cast<std::size_t>(i) + 1];
            const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *out[i]);
            if (ec != std::errc{} || p != t.data() + t.size() || !std::isfinite(*out[i]))
                throw UsageError(where +
                                 ": lognormal MU and SIGMA are plain numbers (of the logarithm of the SI value), got " +
                                 core::quoteText(t));
        }
    } else {   // the bounds or the mean and spread carry the parameter's unit; ranges apply to the draws, not to these
        d.kind = parts[0] == "normal" ? Distribution::Normal : Distribution::Uniform;
        try {
            d.a = std::get<double>(core::io::parseParameterText(parts[1], f.target.desc));
            d.b = std::get<double>(core::io::parseParameterText(parts[2], f.target.desc));
        } catch (const core::Error& e) {
            throw UsageError(where + ": " + e.what());
        }
    }
    if (d.kind != Distribution::Uniform && !(d.b >= 0.0))
        throw UsageError(where + ": the spread (SD or SIGMA) must be >= 0");
    if (d.kind == Distribution::Uniform && !(d.b >= d.a)) throw UsageError(where + ": HIGH must be >= LOW");
    return d;
}

struct TableRow {
    int line;
    std::vector<std::string> cells;
};

std::vector<TableRow> readTable(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) throw UsageError("--points " + path + ": " + file.errorString().toStdString());
    std::string text = file.readAll().toStdString();
    if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);   // a spreadsheet's byte-order mark
    std::vector<TableRow> rows;
    int lineNo = 0;
    for (std::string line : splitList(text, '\n')) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (trimmed(line).empty()) continue;
        auto cells = core::splitCsvLine(line);
        if (!cells) throw UsageError(path + ":" + std::to_string(lineNo) + ": a quoted field is not closed");
        for (std::string& c : *cells) c = trimmed(c);
        rows.push_back({lineNo, std::move(*cells)});
        if (rows.size() > static_cast<std::size_t>(kMaxRuns) + 1)
            throw UsageError(path + ": more than " + std::to_string(kMaxRuns) + " rows; split the study");
    }
    if (rows.size() < 2) throw UsageError(path + ": expected a header run,NAME.KEY,... and at least one row");
    return rows;
}

}   // namespace

core::model::Model Design::modelOf(const core::model::Model& base, std::size_t row) const {
    core::model::Model m = base;
    for (std::size_t f = 0; f < factors.size(); ++f) m.apply(core::io::setValue(factors[f].target, values[row][f]));
    return m;
}

std::string Design::describe(std::size_t row) const {
    std::string out;
    for (std::size_t f = 0; f < factors.size(); ++f)
        out += (f ? ", " : "") + factors[f].name + "=" + core::toString(values[row][f]);
    return out;
}

Design gridDesign(const core::model::Model& model, const std::vector<std::string>& varyArgs) {
    Design d;
    std::vector<std::vector<core::ParamValue>> levels;
    double total = 1.0;
    for (const std::string& arg : varyArgs) {
        const auto eq = arg.find('=');
        if (eq == std::string::npos)
            throw UsageError("--vary " + core::quoteText(arg) +
                             ": expected NAME.KEY=V1,V2,... or NAME.KEY=START:STOP:COUNT");
        d.factors.push_back(findFactor(model, arg.substr(0, eq), "--vary"));
        levels.push_back(gridLevels(d.factors.back(), arg.substr(eq + 1)));
        total *= static_cast<double>(levels.back().size());
        if (total > kMaxRuns)
            throw UsageError("--vary: the grid has more than " + std::to_string(kMaxRuns) + " runs; split the study");
    }
    const auto runs = static_cast<std::size_t>(total);
    for (std::size_t r = 0; r < runs; ++r) {
        std::vector<core::ParamValue> row(levels.size());
        for (std::size_t i = levels.size(), rest = r; i-- > 0; rest /= levels[i].size())
            row[i] = levels[i][rest % levels[i].size()];
        d.runs.push_back(static_cast<long>(r) + 1);
        d.values.push_back(std::move(row));
    }
    return d;
}

Design pointsDesign(const core::model::Model& model, const std::string& csvPath) {
    const std::vector<TableRow> rows = readTable(csvPath);
    const std::vector<std::string>& header = rows.front().cells;
    const bool ids = header.front() == "run";
    Design d;
    std::set<std::string> seen;
    for (std::size_t c = ids ? 1 : 0; c < header.size(); ++c) {
        if (!seen.insert(header[c]).second)
            throw UsageError(csvPath + ":" + std::to_string(rows.front().line) + ": column " +
                             core::quoteText(header[c]) + " appears twice");
        d.factors.push_back(
            findFactor(model, header[c], csvPath + ":" + std::to_string(rows.front().line) + ": column"));
    }
    if (d.factors.empty()) throw UsageError(csvPath + ": the header names no parameter (expected run,NAME.KEY,...)");
    std::set<long> used;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const TableRow& row = rows[i];
        const std::string at = csvPath + ":" + std::to_string(row.line);
        if (row.cells.size() != header.size())
            throw UsageError(at + ": expected " + std::to_string(header.size()) + " fields like the header, got " +
                             std::to_string(row.cells.size()));
        long id = static_cast<long>(i);
        if (ids) {
            const auto n = wholeNumber(row.cells.front());
            if (!n || *n < 1)
                throw UsageError(at + ": run id must be a whole number >= 1, got " +
                                 core::quoteText(row.cells.front()));
            id = *n;
        }
        if (!used.insert(id).second) throw UsageError(at + ": run id " + std::to_string(id) + " appears twice");
        std::vector<core::ParamValue> values;
        for (std::size_t f = 0; f < d.factors.size(); ++f)
            values.push_back(
                parseValue(d.factors[f], row.cells[f + (ids ? 1 : 0)], at + ": column " + d.factors[f].name));
        d.runs.push_back(id);
        d.values.push_back(std::move(values));
    }
    return d;
}

Design sampleDesign(const core::model::Model& model, const std::vector<std::string>& sampleArgs, long count,
                    std::uint64_t seed) {
    if (count < 1 || count > kMaxRuns)
        throw UsageError("flag --count: expected a whole number from 1 to " + std::to_string(kMaxRuns));
    Design d;
    d.sampled = true;
    std::vector<Distribution> dists;
    for (const std::string& arg : sampleArgs) {
        const auto eq = arg.find('=');
        if (eq == std::string::npos)
            throw UsageError("--sample " + core::quoteText(arg) +
                             ": expected NAME.KEY=normal:MEAN:SD (or uniform:LOW:HIGH, lognormal:MU:SIGMA)");
        d.factors.push_back(findFactor(model, arg.substr(0, eq), "--sample"));
        dists.push_back(parseDistribution(d.factors.back(), arg.substr(eq + 1)));
    }
    for (long r = 1; r <= count; ++r) {
        RunStream stream(seed, r);
        std::vector<core::ParamValue> row;
        for (const Distribution& dist : dists) row.emplace_back(dist.draw(stream));
        d.runs.push_back(r);
        d.values.push_back(std::move(row));
    }
    return d;
}

std::string Shard::suffix() const { return all() ? "" : "." + std::to_string(index) + "-of-" + std::to_string(count); }

Shard parseShard(const std::string& text) {
    const auto parts = splitList(text, '/');
    const auto k = parts.size() == 2 ? wholeNumber(parts[0]) : std::nullopt;
    const auto n = parts.size() == 2 ? wholeNumber(parts[1]) : std::nullopt;
    if (!k || !n || *n < 1 || *n > kMaxRuns || *k < 0 || *k >= *n)
        throw UsageError(
            "flag --shard: expected K/N with 0 <= K < N (K counts from 0, as Slurm's array task ids), got " +
            core::quoteText(text));
    return {*k, *n};
}

void keepShard(Design& design, const Shard& shard) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < design.size(); ++i) {
        if ((design.runs[i] - 1) % shard.count != shard.index) continue;
        if (kept != i) {   // a vector moved onto itself would be left empty
            design.runs[kept] = design.runs[i];
            design.values[kept] = std::move(design.values[i]);
        }
        ++kept;
    }
    design.runs.resize(kept);
    design.values.resize(kept);
}

std::string designCsv(const Design& design) {
    std::string out = "run";
    for (const Factor& f : design.factors) out += "," + core::csvField(f.name);
    out += "\n";
    for (std::size_t i = 0; i < design.size(); ++i) {
        out += std::to_string(design.runs[i]);
        for (const core::ParamValue& v : design.values[i]) out += "," + core::csvField(core::toString(v));
        out += "\n";
    }
    return out;
}

}   // namespace endstop::batch
