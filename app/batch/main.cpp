// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch: runs Endstop project files headless (README, "Headless batch tool"). Links no Qt Widgets.
#include "app/batch/cli.hpp"

#include "core/errors.hpp"

#include <cstdio>
#include <iostream>

namespace {

constexpr const char* kUsage = R"(usage:
  endstop-batch run MODEL.endstop [--out results.csv] [--events events.csv] [--set NAME.KEY=VALUE]...
                [--stop-time T] [--rtol R] [--atol A] [--output-interval DT] [--signals a,b,...]
                [--linear-solver auto|dense|klu] [--reduce on|off] [--resting on|off|auto] [--step-over on|off]
                [--stats] [--max-steps N] [--max-wall S] [--progress|--no-progress]
  endstop-batch sweep MODEL.endstop DESIGN [--out DIR] [--jobs N] [--shard K/N] [--resume] [--summary-only]
                [--list-points] [--set NAME.KEY=VALUE]... [--max-steps N] [--max-wall S] [--progress|--no-progress]
                and the solver flags of run; DESIGN is one of
                --vary NAME.KEY=V1,V2,...|START:STOP:COUNT ...       a grid
                --points design.csv                                  one run per row (run,NAME.KEY,...)
                --sample NAME.KEY=normal:MEAN:SD|uniform:LOW:HIGH|lognormal:MU:SIGMA ... --count N [--seed S]
  endstop-batch validate MODEL.endstop
  endstop-batch variables MODEL.endstop [--json]
  endstop-batch blocks [--markdown]
every CSV file written gets FILE.units.json beside it (column -> unit, description); see docs/batch.md
exit codes: 0 ok, 1 simulation failed or a file could not be written, 2 bad input,
            130/143 stopped by SIGINT/SIGTERM (the rows so far are written)
)";

}   // namespace

int main(int argc, char** argv) {
    // No QCoreApplication: the tool runs no event loop, timers or queued signals, and its files
    // (QSaveFile, QFile) need none. Without it the process starts with fewer page faults and
    // instructions (docs/batch.md, "Start-up"), and the C library keeps the "C" locale.
    using namespace endstop::batch;
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? kBadInput : kOk;
    }
    const std::string command = argv[1];
    try {
        Args args(argc, argv, 2);
        if (command == "run") return runCommand(args);
        if (command == "sweep") return sweepCommand(args);
        if (command == "validate") return validateCommand(args);
        if (command == "variables") return variablesCommand(args);
        if (command == "blocks") return blocksCommand(args);
        throw UsageError("unknown command '" + command + "' (expected run, sweep, validate, variables or blocks)");
    } catch (const UsageError& e) {
        std::cerr << "endstop-batch: " << e.what() << "\n";
    } catch (const endstop::core::Error& e) {
        std::cerr << "endstop-batch: " << e.what() << "\n";
    }
    return kBadInput;
}
