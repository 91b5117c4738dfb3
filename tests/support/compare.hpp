// SPDX-License-Identifier: GPL-3.0-or-later
// The one way the tests compare numbers, and the one way they print them.
//
//     QCOMPARE_NEAR(test::last(r, "m.x"), 0.5 / w * std::sin(w * 2), 1e-7);
//     QCOMPARE_NEAR(at(r, "J.phi", t), expected, 2e-5, QString("t = %1").arg(t));   // with context
//     QCOMPARE_NEAR(u.toSI(2.0), 2.0 * scale, test::relative(1e-14));                // relative
//
// passes when |actual - expected| <= tolerance (a NaN on either side fails) and otherwise reports
// the expression, both values, the difference and the tolerance (and the context, a QString, if
// given: the loop variable, what is being checked), so a failure shows by how much it missed. Like
// QVERIFY it returns from the calling test function on failure.
#pragma once

#include <QString>

namespace endstop::test {

// A number for a message: the shortest text that reads back as the same double ("0.1", "1e-07").
QString num(double x);

// A relative tolerance: factor times the larger magnitude of actual and expected.
struct Relative {
    double factor;
};
inline Relative relative(double factor) { return {factor}; }

// The check behind QCOMPARE_NEAR; false (with the failure recorded) if it does not hold.
bool compareNear(double actual, double expected, double tolerance, const char* actualText, const char* expectedText,
                 const QString& context, const char* file, int line);
bool compareNear(double actual, double expected, Relative tolerance, const char* actualText, const char* expectedText,
                 const QString& context, const char* file, int line);

}   // namespace endstop::test

#define QCOMPARE_NEAR(actual, expected, tolerance, ...)                                                                \
    do {                                                                                                               \
        if (!::endstop::test::compareNear((actual), (expected), (tolerance), #actual, #expected, QString(__VA_ARGS__), \
                                          __FILE__, __LINE__))                                                         \
            return;                                                                                                    \
    } while (false)
