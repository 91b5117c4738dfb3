// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/batch/cli.hpp"

#include "blocks/registry.hpp"
#include "core/io/overrides.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "core/text/quote.hpp"

#include <charconv>
#include <cmath>

namespace endstop::batch {

Args::Args(int argc, char** argv, int first) {
    for (int i = first; i < argc; ++i) {
        std::string a = argv[i];
        // --name=value is the same as --name value
        if (a.starts_with("--") && a.find('=') != std::string::npos && a.find('=') > 2) {
            m_args.push_back(a.substr(0, a.find('=')));
            m_args.push_back(a.substr(a.find('=') + 1));
        } else {
            m_args.push_back(std::move(a));
        }
    }
    m_used.assign(m_args.size(), false);
}

std::string Args::next(const char* what) {
    for (std::size_t i = 0; i < m_args.size(); ++i) {
        if (m_used[i] || m_args[i].starts_with("--")) continue;
        m_used[i] = true;
        return m_args[i];
    }
    throw UsageError(std::string("missing ") + what);
}

bool Args::flag(const std::string& name) {
    bool found = false;
    for (std::size_t i = 0; i < m_args.size(); ++i)
        if (!m_used[i] && m_args[i] == name) m_used[i] = found = true;
    return found;
}

std::vector<std::string> Args::values(const std::string& name) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < m_args.size(); ++i) {
        if (m_used[i] || m_args[i] != name) continue;
        if (i + 1 >= m_args.size()) throw UsageError("flag " + name + " needs a value");
        m_used[i] = m_used[i + 1] = true;
        out.push_back(m_args[i + 1]);
    }
    return out;
}

std::optional<std::string> Args::value(const std::string& name) {
    const auto vs = values(name);
    if (vs.size() > 1) throw UsageError("flag " + name + " given more than once");
    return vs.empty() ? std::nullopt : std::optional<std::string>(vs.front());
}

std::optional<double> Args::number(const std::string& name) {
    const auto v = value(name);
    if (!v) return std::nullopt;
    double x = 0.0;
    const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
    if (ec != std::errc{} || ptr != v->data() + v->size() || !std::isfinite(x))
        throw UsageError("flag " + name + ": expected a number, got " + core::quoteText(*v));
    return x;
}

void Args::done() const {
    for (std::size_t i = 0; i < m_args.size(); ++i)
        if (!m_used[i])
            throw UsageError(m_args[i].starts_with("--") ? "unknown flag " + core::excerpt(m_args[i])
                                                         : "unexpected argument " + core::quoteText(m_args[i]));
}

core::model::Model loadModel(const std::string& path) {
    return core::io::loadProject(QString::fromStdString(path), blocks::registry());
}

void checkSettings(const core::model::Model& model, const core::simulation::SimulationOptions& options,
                   const std::string& path) {
    try {
        core::simulation::resolveSettings(model.simulation(), {});
    } catch (const core::Error& e) {
        throw UsageError(path + ": " + e.what());
    }
    try {
        core::simulation::resolveSettings(model.simulation(), options);
    } catch (const core::Error& e) {   // the file's settings are fine: a flag made them impossible
        throw UsageError(std::string("flags: ") + e.what());
    }
}

void applySets(core::model::Model& model, const std::vector<std::string>& sets) {
    for (const std::string& s : sets) {
        try {
            model.apply(core::io::parseAssignment(model, blocks::registry(), s));
        } catch (const core::Error& e) {
            throw UsageError(std::string("--set ") + e.what());
        }
    }
}

std::vector<std::string> splitList(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t end = s.find(sep, start);
        out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

core::simulation::SimulationOptions simulationOptions(Args& args) {
    core::simulation::SimulationOptions o;
    o.stopTime = args.number("--stop-time");
    o.relativeTolerance = args.number("--rtol");
    o.absoluteTolerance = args.number("--atol");
    o.outputInterval = args.number("--output-interval");
    const auto linearSolver = args.value("--linear-solver");
    if (const auto r = args.value("--reduce")) {
        if (*r != "on" && *r != "off")
            throw UsageError("flag --reduce: expected on or off, got " + core::quoteText(*r));
        o.reduce = *r == "on";
    }
    if (const auto r = args.value("--step-over")) {
        if (*r != "on" && *r != "off")
            throw UsageError("flag --step-over: expected on or off, got " + core::quoteText(*r));
        o.stepOver = *r == "on";
    }
    if (const auto r = args.value("--resting")) {
        if (*r != "on" && *r != "off" && *r != "auto")
            throw UsageError("flag --resting: expected on, off or auto, got " + core::quoteText(*r));
        if (*r != "auto") o.resting = *r == "on";
    }
    if (const auto n = args.number("--max-steps")) {
        if (*n < 1 || *n != std::floor(*n) || *n > 1e15)
            throw UsageError("flag --max-steps: expected a whole number >= 1, got " + core::formatNumber(*n));
        o.maxSteps = static_cast<long>(*n);
    }
    if (const auto w = args.number("--max-wall")) {
        if (!(*w > 0))
            throw UsageError("flag --max-wall: expected a time in seconds > 0, got " + core::formatNumber(*w));
        o.maxWallSeconds = *w;
    }
    if (const auto s = args.value("--signals")) {
        for (const std::string& name : splitList(*s, ','))
            if (!name.empty()) o.signals.push_back(name);
        if (o.signals.empty()) throw UsageError("--signals: expected a comma-separated list like stop1.x,stop1.f");
    }
    // the model's ranges; a flag's message leaves out what zero means
    auto check = [](const std::optional<double>& x, const core::model::SettingRange& range, const char* flag) {
        if (x && !range.ok(*x))
            throw UsageError(std::string("flag ") + flag + ": " + range.rule + ", got " + core::formatNumber(*x));
    };
    check(o.stopTime, core::model::kStopTime, "--stop-time");
    check(o.relativeTolerance, core::model::kRelativeTolerance, "--rtol");
    check(o.absoluteTolerance, core::model::kAbsoluteTolerance, "--atol");
    check(o.outputInterval, core::model::kOutputInterval, "--output-interval");
    if (linearSolver) {
        o.linearSolver = core::model::parseLinearSolver(*linearSolver);
        if (!o.linearSolver)
            throw UsageError("flag --linear-solver: expected " + core::model::linearSolverNames() + ", got " +
                             core::quoteText(*linearSolver));
    }
    return o;
}

}   // namespace endstop::batch
