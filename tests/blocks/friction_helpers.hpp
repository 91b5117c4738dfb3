// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the friction and spring tests: the event log read by
// block and kind, and a check that prints the error it found, so a run shows the accuracy reached.
#pragma once

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

// |actual - expected| <= tolerance, reporting the error either way
#define ENDSTOP_CLOSE(what, actual, expected, tolerance)                                                              \
    do {                                                                                                              \
        const double a_ = (actual), e_ = (expected), t_ = (tolerance);                                                \
        qInfo("%s: %.12g vs %.12g, error %.3g (tolerance %.3g)", what, a_, e_, std::abs(a_ - e_), t_);                \
        QVERIFY2(std::abs(a_ - e_) <= t_, qPrintable(QString("%1: got %2, expected %3 (tolerance %4)")                 \
                                                         .arg(what).arg(a_, 0, 'g', 15).arg(e_, 0, 'g', 15).arg(t_))); \
    } while (false)

}  // namespace endstop::test
