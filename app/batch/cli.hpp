// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch (README, "Headless batch tool"): shared pieces of the commands.
#pragma once

#include "core/model/model.hpp"
#include "core/simulation/simulate.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace endstop::batch {

// Bad input: exit code 2 with one line on stderr.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum ExitCode { kOk = 0, kSimulationFailed = 1, kBadInput = 2 };

class Args {
public:
    Args(int argc, char** argv, int first);
    bool empty() const { return m_pos >= m_args.size(); }
    // The next positional argument. Call it after every flag and value is taken, so that
    // flags may come before or after the positional arguments.
    std::string next(const char* what);
    bool flag(const std::string& name);                         // --name present (consumed)
    std::vector<std::string> values(const std::string& name);   // every --name VALUE (or --name=VALUE)
    std::optional<std::string> value(const std::string& name);
    std::optional<double> number(const std::string& name);
    void done() const;   // throws UsageError for anything left over

private:
    std::vector<std::string> m_args;
    std::vector<bool> m_used;
    std::size_t m_pos = 0;
};

core::model::Model loadModel(const std::string& path);
void applySets(core::model::Model& model, const std::vector<std::string>& sets);
core::simulation::SimulationOptions simulationOptions(Args& args);
// The model's settings with the flags applied; UsageError blaming the file or the flags.
void checkSettings(const core::model::Model& model, const core::simulation::SimulationOptions& options,
                   const std::string& path);
std::vector<std::string> splitList(const std::string& s, char sep);

int runCommand(Args& args);
int sweepCommand(Args& args);
int validateCommand(Args& args);
int variablesCommand(Args& args);
int blocksCommand(Args& args);

}   // namespace endstop::batch
