// SPDX-License-Identifier: GPL-3.0-or-later
// A finding about a model: validation, structural analysis or a solver failure. Every one names
// what it is about (block, port or parameter) so the GUI can select it and the CLI can print it.
#pragma once

#include <string>
#include <vector>

namespace endstop::core {

enum class Severity { Info, Warning, Error };
const char* toString(Severity s);

struct Diagnostic {
    Severity severity = Severity::Error;
    std::string block;   // block name, may be empty
    std::string port;    // port name, may be empty
    std::string param;   // parameter key, may be empty
    std::string message;
    std::string hint;

    std::string text() const;   // "block 'stop1', parameter 'lower_bound': must be < upper_bound"
};

using Diagnostics = std::vector<Diagnostic>;

bool hasErrors(const Diagnostics& d);

}   // namespace endstop::core
