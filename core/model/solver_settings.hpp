// SPDX-License-Identifier: GPL-3.0-or-later
// The rules of the simulation settings, in one place: the linear solver's names and the range of
// every numeric setting. The project file, resolveSettings(), the batch tool's flags, the GUI's
// settings dialog and the Python module all check against these.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace endstop::core::model {

enum class LinearSolver {
    Auto,   // dense below a number of unknowns (solver::SolverOptions::denseLimit), KLU above
    Dense,
    Klu   // sparse
};

// "auto", "dense", "klu": the names in project files, on the command line, in --stats and in Python
const char* toString(LinearSolver s);
std::optional<LinearSolver> parseLinearSolver(std::string_view name);   // nullopt for any other name
// A linear_solver setting given by name (Python's run options): ModelError naming the setting, as
// resolveSettings() reports a bad setting, for an unknown name
LinearSolver linearSolverSetting(std::string_view name);
// The names for a message, each in `quote` (0: none): "auto, dense or klu"
std::string linearSolverNames(char quote = 0);

// A numeric setting's range. `rule` is what the batch tool's flags say; the model's settings
// add the meaning of zero where it has one: "must be >= 0 s (0: every step)".
struct SettingRange {
    const char* key;               // the project file's name: "stop_time"
    bool (*ok)(double);            // inside the range (never for infinity or NaN)
    const char* rule;              // "must be > 0 s"
    const char* zeroMeans;         // "every step", or nullptr
    std::string message() const;   // rule, with what zero means
};

// What resolveSettings() throws for a bad setting: "simulation setting KEY WHAT", naming the setting
[[noreturn]] void throwSettingError(const char* key, const std::string& what);

extern const SettingRange kStopTime;
extern const SettingRange kRelativeTolerance;
extern const SettingRange kAbsoluteTolerance;
extern const SettingRange kMaxStep;
extern const SettingRange kOutputInterval;

}   // namespace endstop::core::model
