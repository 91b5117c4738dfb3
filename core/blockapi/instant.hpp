// SPDX-License-Identifier: GPL-3.0-or-later
// One instant of a run: two times within 1e-12 of t (of 1 s near the start). The chatter guard
// counts the events of one instant by it (core/solver/run_guard.cpp), and a block that asks
// whether a switch happened at the instant of its last one uses the same resolution.
#pragma once

#include <algorithm>
#include <cmath>

namespace endstop::core {

inline bool sameInstant(double t, double earlier) {
    return std::abs(t - earlier) <= 1e-12 * std::max(1.0, std::abs(t));
}

}   // namespace endstop::core
