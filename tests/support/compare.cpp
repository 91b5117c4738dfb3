// SPDX-License-Identifier: GPL-3.0-or-later
// QCOMPARE_NEAR's check and the number format of test messages.
#include "support/compare.hpp"

#include <QLocale>
#include <QTest>

#include <algorithm>
#include <cmath>

namespace endstop::test {

QString num(double x) { return QString::number(x, 'g', QLocale::FloatingPointShortest); }

bool compareNear(double actual, double expected, double tolerance, const char* actualText, const char* expectedText,
                 const QString& context, const char* file, int line) {
    const double difference = std::abs(actual - expected);
    if (difference <= tolerance)
        return QTest::qVerify(true, "QCOMPARE_NEAR", "", file, line);   // a NaN is not <=: it fails
    QString message = QString("%1 = %2, expected %3 = %4: difference %5, tolerance %6")
                          .arg(actualText, num(actual), expectedText, num(expected), num(difference), num(tolerance));
    if (!context.isEmpty()) message = context + ": " + message;
    return QTest::qVerify(false, "QCOMPARE_NEAR", qPrintable(message), file, line);
}

bool compareNear(double actual, double expected, Relative tolerance, const char* actualText, const char* expectedText,
                 const QString& context, const char* file, int line) {
    const double scale = std::max(std::abs(actual), std::abs(expected));
    return compareNear(actual, expected, tolerance.factor * scale, actualText, expectedText, context, file, line);
}

}   // namespace endstop::test
