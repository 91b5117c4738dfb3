// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/solver_settings.hpp"

#include "core/errors.hpp"

#include <array>
#include <cmath>

namespace endstop::core::model {

namespace {
constexpr std::array kLinearSolvers{LinearSolver::Auto, LinearSolver::Dense, LinearSolver::Klu};
}   // namespace

const char* toString(LinearSolver s) {
    switch (s) {
        case LinearSolver::Auto:
            return "auto";
        case LinearSolver::Dense:
            return "dense";
        case LinearSolver::Klu:
            return "klu";
    }
    return "?";
}

std::optional<LinearSolver> parseLinearSolver(std::string_view name) {
    for (LinearSolver s : kLinearSolvers)
        if (name == toString(s)) return s;
    return std::nullopt;
}

LinearSolver linearSolverSetting(std::string_view name) {
    if (const auto s = parseLinearSolver(name)) return *s;
    throwSettingError("linear_solver", "must be " + linearSolverNames() + ", got '" + std::string(name) + "'");
}

void throwSettingError(const char* key, const std::string& what) {
    throw ModelError(
        Diagnostics{{Severity::Error, {}, {}, key, "simulation setting " + std::string(key) + " " + what, {}}});
}

std::string linearSolverNames(char quote) {
    const std::string q = quote ? std::string(1, quote) : std::string();
    std::string out;
    for (std::size_t i = 0; i < kLinearSolvers.size(); ++i) {
        if (i) out += i + 1 == kLinearSolvers.size() ? " or " : ", ";
        out += q + toString(kLinearSolvers[i]) + q;
    }
    return out;
}

std::string SettingRange::message() const {
    return zeroMeans ? std::string(rule) + " (0: " + zeroMeans + ")" : std::string(rule);
}

// IDA squares its weighted values and its step sizes: a stop time below 1e-150 s underflowed the
// first step (IDA_ILL_INPUT at t = 0), an absolute tolerance below 1e-100 overflowed the weighted
// norm of any ordinary rate, and one above 1e100 underflowed it (docs/reliability.md)
const SettingRange kStopTime{"stop_time", [](double x) { return std::isfinite(x) && x >= 1e-150; },
                             "must be >= 1e-150 s", nullptr};
const SettingRange kRelativeTolerance{"relative_tolerance", [](double x) { return std::isfinite(x) && x > 0 && x < 1; },
                                      "must be in (0, 1)", nullptr};
const SettingRange kAbsoluteTolerance{"absolute_tolerance",
                                      [](double x) { return std::isfinite(x) && x >= 1e-100 && x <= 1e100; },
                                      "must be in [1e-100, 1e100]", nullptr};
const SettingRange kMaxStep{"max_step", [](double x) { return std::isfinite(x) && x >= 0; }, "must be >= 0 s",
                            "unlimited"};
const SettingRange kOutputInterval{"output_interval", [](double x) { return std::isfinite(x) && x >= 0; },
                                   "must be >= 0 s", "every step"};

}   // namespace endstop::core::model
