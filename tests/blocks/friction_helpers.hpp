// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the friction and spring tests: the event log read by block and kind.
#pragma once

#include "support/compare.hpp"
#include "support/test_support.hpp"

#include <QTest>

#include <cmath>
#include <string>
#include <vector>

namespace endstop::test {

inline std::vector<double> eventTimes(const core::MemorySink& r, const std::string& block, core::EventKind kind) {
    std::vector<double> out;
    for (const core::EventRecord& e : r.events())
        if (e.block == block && e.kind == kind) out.push_back(e.time);
    return out;
}

inline std::vector<double> eventVelocities(const core::MemorySink& r, const std::string& block, core::EventKind kind) {
    std::vector<double> out;
    for (const core::EventRecord& e : r.events())
        if (e.block == block && e.kind == kind) out.push_back(e.velocity);
    return out;
}

}   // namespace endstop::test
