// SPDX-License-Identifier: GPL-3.0-or-later
// renameName: only whole parameter references change; unit suffixes after numbers (as the parser
// delimits them), function names, pi and parts of longer names stay; the rest of the text is kept
// byte for byte; every renamed text still parses and names the new name where the old one was.
#include "core/expr/expression.hpp"
#include "core/expr/rename.hpp"

#include <QTest>

using endstop::core::expr::Expression;
using endstop::core::expr::refersTo;
using endstop::core::expr::renameName;

class TestRename : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void renames_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("expected");
        QTest::newRow("alone") << "k"
                               << "k"
                               << "k_base"
                               << "k_base";
        QTest::newRow("twice, spacing kept") << "2*k +  k/ 3"
                                             << "k"
                                             << "q"
                                             << "2*q +  q/ 3";
        QTest::newRow("not a part of a name") << "k2 + k_b + kk + k"
                                              << "k"
                                              << "q"
                                              << "k2 + k_b + kk + q";
        QTest::newRow("unit after a number") << "5 m + m"
                                             << "m"
                                             << "len"
                                             << "5 m + len";
        QTest::newRow("unit without space") << "5m+m"
                                            << "m"
                                            << "len"
                                            << "5m+len";
        QTest::newRow("unit run takes *") << "5m*m"
                                          << "m"
                                          << "len"
                                          << "5m*m";
        QTest::newRow("compound unit") << "1e4 N/m + N"
                                       << "N"
                                       << "force"
                                       << "1e4 N/m + force";
        QTest::newRow("unit with spaces and *") << "2 m * g"
                                                << "g"
                                                << "grav"
                                                << "2 m * g";
        QTest::newRow("parenthesized quantity") << "(2 m)*g"
                                                << "g"
                                                << "grav"
                                                << "(2 m)*grav";
        QTest::newRow("power in a unit") << "3 m^2 + m"
                                         << "m"
                                         << "a"
                                         << "3 m^2 + a";
        QTest::newRow("exponent is no name") << "1e3*e"
                                             << "e"
                                             << "euler"
                                             << "1e3*euler";
        QTest::newRow("function name") << "sqrt(sqrt)"
                                       << "sqrt"
                                       << "r"
                                       << "sqrt(sqrt)";
        QTest::newRow("function with space") << "max (a, b)"
                                             << "max"
                                             << "m"
                                             << "max (a, b)";
        QTest::newRow("inside a call") << "min(a, 2*a)"
                                       << "a"
                                       << "b"
                                       << "min(b, 2*b)";
        QTest::newRow("pi stays") << "2*pi"
                                  << "pi"
                                  << "p"
                                  << "2*pi";
        QTest::newRow("newlines kept") << "a\n+\ta"
                                       << "a"
                                       << "b"
                                       << "b\n+\tb";
        QTest::newRow("degree sign") << "30 \u00b0 + deg"
                                     << "deg"
                                     << "d"
                                     << "30 \u00b0 + d";
        QTest::newRow("nothing to do") << "gap + 1 mm"
                                       << "k"
                                       << "q"
                                       << "gap + 1 mm";
    }
    void renames() {
        QFETCH(QString, text);
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, expected);
        const std::string out = renameName(text.toStdString(), from.toStdString(), to.toStdString());
        QCOMPARE(QString::fromStdString(out), expected);
        QCOMPARE(refersTo(text.toStdString(), from.toStdString()), expected != text);
    }

    // a parsed rename names `to` exactly where the original named `from`
    void namesFollow() {
        for (const char* text : {"2*k + 400 N/m", "k^2/k_base", "min(k, 3 N/m) + (2 m)*k", "5 mm + k*1 m"}) {
            std::vector<std::string> before = Expression::parse(text).names();
            const std::vector<std::string> after = Expression::parse(renameName(text, "k", "stiff")).names();
            for (std::string& n : before)
                if (n == "k") n = "stiff";
            QCOMPARE(after, before);
        }
    }

    void unparsableTextIsScannedToo() {
        QCOMPARE(QString::fromStdString(renameName("2 * (k + ", "k", "q")), QString("2 * (q + "));
        QCOMPARE(QString::fromStdString(renameName("", "k", "q")), QString());
    }
};

QTEST_GUILESS_MAIN(TestRename)
#include "tst_rename.moc"
