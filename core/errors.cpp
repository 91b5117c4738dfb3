// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/errors.hpp"

namespace endstop::core {

namespace {
std::string firstLine(const Diagnostics& d) {
    for (const Diagnostic& x : d)
        if (x.severity == Severity::Error) return x.text();
    return d.empty() ? std::string("error") : d.front().text();
}
Diagnostics single(const std::string& message) {
    Diagnostic d;
    d.message = message;
    return {d};
}
}   // namespace

Error::Error(Diagnostics d) : std::runtime_error(firstLine(d)), m_diagnostics(std::move(d)) {}
Error::Error(const std::string& message) : std::runtime_error(message), m_diagnostics(single(message)) {}

}   // namespace endstop::core
