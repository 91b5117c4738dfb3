// SPDX-License-Identifier: GPL-3.0-or-later
// Parameter expressions: precedence, unit suffixes after numbers, SI values and dimensions of
// names, every function, the errors of dimensions, values, unknown names and syntax (with their
// columns), names(), plainQuantity(), and hostile text that must end in ExprError, not a crash.
#include "support/compare.hpp"
#include "core/expr/expression.hpp"

#include <QTest>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

using endstop::core::Dimension;
using endstop::core::expr::evaluateAs;
using endstop::core::expr::ExprError;
using endstop::core::expr::Expression;
using endstop::core::expr::Lookup;
using endstop::core::expr::Value;

Q_DECLARE_METATYPE(Dimension)

namespace {

constexpr double kPi = std::numbers::pi;

Dimension dim(int length, int mass, int time, int angle) {
    return Dimension{{static_cast<std::int8_t>(length), static_cast<std::int8_t>(mass), static_cast<std::int8_t>(time),
                      static_cast<std::int8_t>(angle)}};
}

const Dimension kNone, kLength = dim(1, 0, 0, 0), kMass = dim(0, 1, 0, 0), kAngle = dim(0, 0, 0, 1);
const Dimension kStiffness = dim(0, 1, -2, 0), kForce = dim(1, 1, -2, 0), kAccel = dim(1, 0, -2, 0);

// k_base = 1e4 N/m, gap = 2 mm, g = 9.81 m/s^2, x = 3, m1 = 2 kg, angle = 30 deg, bad = inf
const Lookup kParams = [](std::string_view name) -> std::optional<Value> {
    if (name == "k_base") return Value{1e4, kStiffness};
    if (name == "gap") return Value{0.002, kLength};
    if (name == "g") return Value{9.81, kAccel};
    if (name == "x") return Value{3.0, kNone};
    if (name == "m1") return Value{2.0, kMass};
    if (name == "angle") return Value{kPi / 6, kAngle};
    if (name == "bad") return Value{std::numeric_limits<double>::infinity(), kNone};
    return std::nullopt;
};

// numbers computed two ways agree to a few ulps
const endstop::test::Relative kClose = endstop::test::relative(1e-12);

Value eval(const QString& text) { return Expression::parse(text.toStdString()).evaluate(kParams); }

// the message of the ExprError `f` throws, "(no error)" if it returns; any other exception escapes
template <class F> QString errorOf(F&& f) {
    try {
        f();
    } catch (const ExprError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("(no error)");
}

QString evalError(const std::string& text) {
    return errorOf([&] { Expression::parse(text).evaluate(kParams); });
}

QStringList toList(const std::vector<std::string>& v) {
    QStringList out;
    for (const std::string& s : v) out << QString::fromStdString(s);
    return out;
}

}   // namespace

class TestExpression : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void precedence_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("value");
        QTest::newRow("* before +") << "1+2*3" << 7.0;
        QTest::newRow("parentheses") << "(1+2)*3" << 9.0;
        QTest::newRow("^ right-assoc") << "2^3^2" << 512.0;
        QTest::newRow("-2^2") << "-2^2" << -4.0;
        QTest::newRow("(-2)^2") << "(-2)^2" << 4.0;
        QTest::newRow("negative exponent") << "2^-1" << 0.5;
        QTest::newRow("- left-assoc") << "10-4-3" << 3.0;
        QTest::newRow("/ left-assoc") << "100/10/5" << 2.0;
        QTest::newRow("* / left to right") << "2*3/4" << 1.5;
        QTest::newRow("^ before *") << "3*2^2" << 12.0;
        QTest::newRow("minus minus") << "1 - -1" << 2.0;
        QTest::newRow("double negation") << "--3" << 3.0;
        QTest::newRow("times negative") << "2*-3" << -6.0;
        QTest::newRow("-x^2") << "-x^2" << -9.0;
        QTest::newRow("1e-3") << "1e-3" << 1e-3;
        QTest::newRow("2.5E+4") << "2.5E+4" << 2.5e4;
        QTest::newRow(".5") << ".5" << 0.5;
        QTest::newRow("1.") << "1." << 1.0;
        QTest::newRow("whitespace") << " \t1 +\n 2 *\r\n3 " << 7.0;
        QTest::newRow("long flat sum") << QString("1") + QString("+1").repeated(2000) << 2001.0;
    }
    void precedence() {
        QFETCH(QString, text);
        QFETCH(double, value);
        const Value v = eval(text);
        QCOMPARE_NEAR(v.si, value, kClose);
        QCOMPARE(v.dim, kNone);
    }

    void unitSuffix_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("si");
        QTest::addColumn<Dimension>("dimension");
        QTest::newRow("400 N/m") << "400 N/m" << 400.0 << kStiffness;
        QTest::newRow("2*400 N/m") << "2*400 N/m" << 800.0 << kStiffness;
        QTest::newRow("1e6 N*m/deg") << "1e6 N*m/deg" << 1e6 / (kPi / 180) << dim(2, 1, -2, -1);
        QTest::newRow("300 rpm") << "300 rpm" << 10 * kPi << dim(0, 0, -1, 1);
        QTest::newRow("5 mm") << "5 mm" << 0.005 << kLength;
        QTest::newRow("5mm, no space") << "5mm" << 0.005 << kLength;
        QTest::newRow("5 mm + gap") << "5 mm + gap" << 0.007 << kLength;
        QTest::newRow("2 g is grams") << "2 g" << 0.002 << kMass;
        QTest::newRow("2*g is the name") << "2*g" << 19.62 << kAccel;
        QTest::newRow("(2 m)*g") << "(2 m)*g" << 19.62 << dim(2, 0, -2, 0);
        QTest::newRow("2 m * g is a unit") << "2 m * g" << 0.002 << dim(1, 1, 0, 0);
        QTest::newRow("2*k_base") << "2*k_base" << 2e4 << kStiffness;
        QTest::newRow("1/2 m") << "1/2 m" << 0.5 << dim(-1, 0, 0, 0);
        QTest::newRow("unit then * name") << "400 N/m * x" << 1200.0 << kStiffness;
        QTest::newRow("unit then * number") << "2 m*1.5" << 3.0 << kLength;
        QTest::newRow("power in unit") << "3 m^2" << 3.0 << dim(2, 0, 0, 0);
        QTest::newRow("spaced power") << "3 m ^ 2" << 3.0 << dim(2, 0, 0, 0);
        QTest::newRow("negative power") << "50 s^-1" << 50.0 << dim(0, 0, -1, 0);
        QTest::newRow("parentheses in unit") << "1e6 N*m/(rad*s)" << 1e6 << dim(2, 1, -3, -1);
        QTest::newRow("product by space") << "3 N m" << 3.0 << dim(2, 1, -2, 0);
        QTest::newRow("newline before unit") << "2\nN" << 2.0 << kForce;
        QTest::newRow("µm") << "5 µm" << 5e-6 << kLength;
        QTest::newRow("°") << "30 °" << kPi / 6 << kAngle;
        QTest::newRow("middle dot") << "1 N·m" << 1.0 << dim(2, 1, -2, 0);
        QTest::newRow("in a call") << "min(1 m, 20 mm)" << 0.02 << kLength;
        QTest::newRow("negated") << "-10 mm/s" << -0.01 << dim(1, 0, -1, 0);
        QTest::newRow("exponent then unit") << "1e3mm" << 1.0 << kLength;
    }
    void unitSuffix() {
        QFETCH(QString, text);
        QFETCH(double, si);
        QFETCH(Dimension, dimension);
        const Value v = eval(text);
        QCOMPARE_NEAR(v.si, si, kClose);
        QCOMPARE(QString::fromStdString(v.dim.toString()), QString::fromStdString(dimension.toString()));
    }

    void siConversion() {
        QCOMPARE(eval("5 mm").si, 0.005);
        QCOMPARE_NEAR(eval("300 rpm").si, 31.41592653589793, kClose);
        QCOMPARE(eval("300 rpm").dim, dim(0, 0, -1, 1));
        QCOMPARE_NEAR(eval("1 N*m/deg").si, 180 / kPi, kClose);
        QCOMPARE_NEAR(eval("2 kN").si, 2000.0, kClose);
    }

    void namesViaLookup() {
        const Value k = eval("2*k_base");
        QCOMPARE(k.si, 2e4);
        QCOMPARE(k.dim, kStiffness);
        const Value f = eval("k_base*gap");
        QCOMPARE_NEAR(f.si, 20.0, kClose);
        QCOMPARE(f.dim, kForce);
        const Value w = eval("sqrt(k_base/m1)");   // natural frequency: 1/s
        QCOMPARE_NEAR(w.si, std::sqrt(5e3), kClose);
        QCOMPARE(w.dim, dim(0, 0, -1, 0));
        QCOMPARE_NEAR(eval("sin(angle)").si, 0.5, kClose);
    }

    void functions_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("si");
        QTest::addColumn<Dimension>("dimension");
        QTest::newRow("sqrt") << "sqrt(16)" << 4.0 << kNone;
        QTest::newRow("sqrt halves") << "sqrt(4 m^2)" << 2.0 << kLength;
        QTest::newRow("sqrt of N/kg/m") << "sqrt(9 N/(kg*m))" << 3.0 << dim(0, 0, -1, 0);
        QTest::newRow("exp") << "exp(1)" << std::numbers::e << kNone;
        QTest::newRow("log") << "log(exp(2))" << 2.0 << kNone;
        QTest::newRow("log is ln") << "log(10)" << std::log(10.0) << kNone;
        QTest::newRow("sin deg") << "sin(30 deg)" << 0.5 << kNone;
        QTest::newRow("sin rad") << "sin(pi/6)" << 0.5 << kNone;
        QTest::newRow("cos deg") << "cos(60 deg)" << 0.5 << kNone;
        QTest::newRow("cos") << "cos(0)" << 1.0 << kNone;
        QTest::newRow("tan deg") << "tan(45 deg)" << 1.0 << kNone;
        QTest::newRow("tan") << "tan(pi/4)" << 1.0 << kNone;
        QTest::newRow("abs") << "abs(-3 m)" << 3.0 << kLength;
        QTest::newRow("min of 3") << "min(3, 1, 2)" << 1.0 << kNone;
        QTest::newRow("max with units") << "max(3 mm, 1 m, 2 cm)" << 1.0 << kLength;
        QTest::newRow("max negative") << "max(-1, -2)" << -1.0 << kNone;
        QTest::newRow("min of name") << "min(x, 2)" << 2.0 << kNone;
        QTest::newRow("pi") << "pi" << kPi << kNone;
        QTest::newRow("nested") << "sqrt(abs(-16)) * max(1, cos(0))" << 4.0 << kNone;
        QTest::newRow("space before (") << "sqrt (4)" << 2.0 << kNone;
    }
    void functions() { unitSuffix(); }

    void dimensionErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("+") << "1 m + 1 kg"
                           << "'+' of m and kg: dimensions differ";
        QTest::newRow("-") << "1 m - 1 s"
                           << "'-' of m and s: dimensions differ";
        QTest::newRow("names") << "k_base + gap"
                               << "'+' of kg/s^2 and m: dimensions differ";
        QTest::newRow("2 g + g") << "2 g + g"
                                 << "'+' of kg and m/s^2: dimensions differ";
        QTest::newRow("sqrt odd") << "sqrt(1 m^3)"
                                  << "sqrt of m^3: odd exponent";
        QTest::newRow("exp") << "exp(1 m)"
                             << "exp of m: argument must be dimensionless";
        QTest::newRow("log") << "log(2 s)"
                             << "log of s: argument must be dimensionless";
        QTest::newRow("sin") << "sin(1 m)"
                             << "sin of m: argument must be an angle or dimensionless";
        QTest::newRow("cos rpm") << "cos(1 rpm)"
                                 << "cos of rad/s: argument must be an angle or dimensionless";
        QTest::newRow("tan") << "tan(gap)"
                             << "tan of m: argument must be an angle or dimensionless";
        QTest::newRow("min") << "min(1 m, 1 kg)"
                             << "min of m and kg: dimensions differ";
        QTest::newRow("max 3rd") << "max(1 m, 2 m, 3 s)"
                                 << "max of m and s: dimensions differ";
        QTest::newRow("^ dimensional exponent") << "2^(1 m)"
                                                << "exponent of '^' has dimension m, expected it dimensionless";
        QTest::newRow("^ fractional") << "(2 m)^0.5"
                                      << "'^' of m with exponent 0.5: exponent is not an integer";
        QTest::newRow("unit ^ fractional") << "2 m^2.5"
                                           << "'^' of m with exponent 2.5: exponent is not an integer";
        QTest::newRow("^ out of range")
            << "(2 m)^30"
            << "'^' of m with exponent 30: dimension exponent out of range (at most 24 in magnitude)";
        QTest::newRow("^ huge")
            << "(2 m)^1e300"
            << "'^' of m with exponent 1e+300: dimension exponent out of range (at most 24 in magnitude)";
        QTest::newRow("* out of range")
            << "(1 m^20)*(1 m^20)"
            << "'*' of m^20 and m^20: dimension exponent out of range (at most 24 in magnitude)";
    }
    void dimensionErrors() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(evalError(text.toStdString()), message);
    }

    void integerExponentKeepsDimension() {
        const Value v = eval("(2 m)^(6/3)");   // 2.0000000000000 within 1e-12 of 2
        QCOMPARE(v.si, 4.0);
        QCOMPARE(v.dim, dim(2, 0, 0, 0));
        QCOMPARE(eval("(2 m)^0").dim, kNone);
        QCOMPARE(eval("(2 s)^-2").dim, dim(0, 0, -2, 0));
    }

    void valueErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("1/0") << "1/0"
                             << "division by zero";
        QTest::newRow("by zero name") << "1 m/(x-3)"
                                      << "division by zero";
        QTest::newRow("log negative") << "log(-1)"
                                      << "log of a non-positive number (-1)";
        QTest::newRow("log zero") << "log(0)"
                                  << "log of a non-positive number (0)";
        QTest::newRow("sqrt negative") << "sqrt(-4)"
                                       << "sqrt of a negative number (-4)";
        QTest::newRow("exp overflow") << "exp(1000)"
                                      << "exp of 1000 is not finite";
        QTest::newRow("* overflow") << "1e300*1e300"
                                    << "'*' of 1e+300 and 1e+300 is not finite";
        QTest::newRow("+ overflow") << "1e308 + 1e308"
                                    << "'+' of 1e+308 and 1e+308 is not finite";
        QTest::newRow("/ overflow") << "1e300/1e-300"
                                    << "'/' of 1e+300 and 1e-300 is not finite";
        QTest::newRow("^ nan") << "(-8)^0.5"
                               << "'^' of -8 and 0.5 is not finite";
        QTest::newRow("0^-1") << "0^-1"
                              << "'^' of 0 and -1 is not finite";
        QTest::newRow("tower") << "10^10^10"
                               << "'^' of 10 and 1e+10 is not finite";
        QTest::newRow("name not finite") << "bad + 1"
                                         << "value of 'bad' is not finite";
    }
    void valueErrors() { dimensionErrors(); }

    void evaluateAsChecksDimension() {
        const Value v = evaluateAs("2*k_base", kStiffness, kParams);
        QCOMPARE(v.si, 2e4);
        QCOMPARE(evaluateAs("-0.5", kNone, {}).si, -0.5);
        QCOMPARE(errorOf([] { evaluateAs("5 mm", kMass, kParams); }), "has dimension m, expected kg");
        QCOMPARE(errorOf([] { evaluateAs("400 N*m", kStiffness, kParams); }),
                 "has dimension kg*m^2/s^2, expected kg/s^2");
        QCOMPARE(errorOf([] { evaluateAs("1 +", kNone, kParams); }),
                 "column 4: expected a number, a name or '(', got the end");
    }

    void unknownNames() {
        QCOMPARE(evalError("y + 1"), "unknown name 'y'");
        QCOMPARE(evalError("2*k_base + k_other"), "unknown name 'k_other'");
        QCOMPARE(errorOf([] { Expression::parse("x").evaluate({}); }), "unknown name 'x'");
        QCOMPARE(errorOf([] { Expression::parse("x").evaluate([](std::string_view) { return std::nullopt; }); }),
                 "unknown name 'x'");
        QCOMPARE(errorOf([] { Expression::parse("foo(1)"); }), "column 1: unknown function 'foo'");
        // no lookup is needed without names
        QCOMPARE(Expression::parse("2 * 3 mm").evaluate({}).si, 0.006);
    }

    void parseErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const QString start = "expected a number, a name or '(', got ";
        QTest::newRow("empty") << ""
                               << "column 1: " + start + "the end";
        QTest::newRow("blank") << "   "
                               << "column 4: " + start + "the end";
        QTest::newRow("trailing +") << "1 +"
                                    << "column 4: " + start + "the end";
        QTest::newRow("unclosed") << "(1 + 2"
                                  << "column 7: expected ')' to close '(' at column 1, got the end";
        QTest::newRow("unclosed call") << "max(1, 2"
                                       << "column 9: expected ')' to close '(' at column 4, got the end";
        QTest::newRow("* *") << "1 + * 2"
                             << "column 5: " + start + "'*'";
        QTest::newRow("unary +") << "+5"
                                 << "column 1: " + start + "'+'";
        QTest::newRow("two numbers") << "2 3"
                                     << "column 3: expected an operator, got '3'";
        QTest::newRow("extra )") << "1 + 2)"
                                 << "column 6: expected an operator, got ')'";
        QTest::newRow("name after number")
            << "2 k_base"
            << "column 3: 'k_base' is not a unit (a name after a number needs an operator, e.g. '*')";
        QTest::newRow("pi after number")
            << "2 pi"
            << "column 3: 'pi' is not a unit (a name after a number needs an operator, e.g. '*')";
        QTest::newRow("m_x is one word")
            << "2 m_x"
            << "column 3: 'm_x' is not a unit (a name after a number needs an operator, e.g. '*')";
        QTest::newRow("function without (") << "sqrt + 4"
                                            << "column 5: expected '(' after the function 'sqrt'";
        QTest::newRow("sqrt 2 args") << "1 + sqrt(1, 2)"
                                     << "column 5: sqrt takes 1 argument, got 2";
        QTest::newRow("min 1 arg") << "min(1)"
                                   << "column 1: min takes 2 or more arguments, got 1";
        QTest::newRow("empty call") << "sqrt()"
                                    << "column 6: " + start + "')'";
        QTest::newRow("empty parens") << "()"
                                      << "column 2: " + start + "')'";
        QTest::newRow("columns count characters") << "5 µm + €"
                                                  << "column 8: " + start + "'€'";
        QTest::newRow("name with µ") << "µm"
                                     << "column 1: " + start + "'µ'";
        QTest::newRow("1e999") << "1e999"
                               << "column 1: '1e999' is out of the range of a double";
        QTest::newRow("huge SI") << "1e308 km"
                                 << "column 1: '1e308 km' is out of the range of a double in SI";
        QTest::newRow("double dot") << "1.2.3"
                                    << "column 4: expected an operator, got '.'";
        QTest::newRow("^ ^") << "2 ^ ^ 3"
                             << "column 5: " + start + "'^'";
        QTest::newRow("lone -") << "-"
                                << "column 2: " + start + "the end";
        QTest::newRow("control character") << "1 +\x01"
                                           << "column 4: " + start + "'\\x01'";
    }
    void parseErrors() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(errorOf([&] { Expression::parse(text.toStdString()); }), message);
    }

    void names_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("names");
        QTest::newRow("distinct, in order") << "a + b*a - c" << QStringList{"a", "b", "c"};
        QTest::newRow("2*k_base") << "2*k_base" << QStringList{"k_base"};
        QTest::newRow("not functions, pi, units") << "sqrt(x) + pi + 5 mm + sin(y_2)" << QStringList{"x", "y_2"};
        QTest::newRow("unit g, name g") << "5 g + g" << QStringList{"g"};
        QTest::newRow("only units") << "1e6 N*m/deg" << QStringList{};
        QTest::newRow("underscores") << "min(a_1, _b, a_1)" << QStringList{"a_1", "_b"};
        QTest::newRow("nested") << "max(p, (q^r)*-p)" << QStringList{"p", "q", "r"};
    }
    void names() {
        QFETCH(QString, text);
        QFETCH(QStringList, names);
        QCOMPARE(toList(Expression::parse(text.toStdString()).names()), names);
    }

    void plainQuantity_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("plain");
        QTest::newRow("10 mm") << "10 mm" << true;
        QTest::newRow("-0.5") << "-0.5" << true;
        QTest::newRow("1e4 N/m") << "1e4 N/m" << true;
        QTest::newRow("42") << "42" << true;
        QTest::newRow("spaced") << " - 3 rpm " << true;
        QTest::newRow("unit with parentheses") << "1e6 N*m/(rad*s)" << true;
        QTest::newRow("(10 mm)") << "(10 mm)" << false;
        QTest::newRow("-(5)") << "-(5)" << false;
        QTest::newRow("--5") << "--5" << false;
        QTest::newRow("pi") << "pi" << false;
        QTest::newRow("2*3") << "2*3" << false;
        QTest::newRow("name") << "x" << false;
        QTest::newRow("-name") << "-x" << false;
        QTest::newRow("sum") << "5 mm + 1 mm" << false;
        QTest::newRow("call") << "sqrt(4)" << false;
        QTest::newRow("power") << "2^2" << false;
    }
    void plainQuantity() {
        QFETCH(QString, text);
        QFETCH(bool, plain);
        QCOMPARE(Expression::parse(text.toStdString()).plainQuantity(), plain);
    }

    void copiesShareTheTree() {
        const Expression a = Expression::parse("2*k_base + 1 N/m");
        const Expression b = a;   // NOLINT(performance-unnecessary-copy-initialization): the point
        QCOMPARE(&a.text(), &b.text());
        QCOMPARE(b.text(), std::string("2*k_base + 1 N/m"));
        QCOMPARE(b.evaluate(kParams).si, 20001.0);
    }

    void hostileInput_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const QString tooLong = "column 4097: text is too long (at most 4096 bytes)";
        const QString tooDeep = "nested more than 64 deep";
        QTest::newRow("10000 (") << QString(10000, '(') << tooLong;
        QTest::newRow("4000 (") << QString(4000, '(') << "column 65: " + tooDeep;
        QTest::newRow("4000 -") << QString(4000, '-') + "1"
                                << "column 65: " + tooDeep;
        QTest::newRow("sqrt( x 200") << QString("sqrt(").repeated(200) << "column 321: " + tooDeep;
        QTest::newRow("^ tower") << QString("2^").repeated(1000) + "2"
                                 << "column 129: " + tooDeep;
        QTest::newRow("100000 digits") << QString(100000, '1') << tooLong;
        QTest::newRow("long sum") << QString("1+").repeated(3000) + "1" << tooLong;
        QTest::newRow("65 parentheses") << QString(65, '(') + "1" + QString(65, ')') << "column 65: " + tooDeep;
        QTest::newRow("long unit run") << "1 " + QString("m*").repeated(1500) + "m"
                                       << "unknown name 'm'";   // 1 m^24 * m * ...
    }
    void hostileInput() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(evalError(text.toStdString()), message);
    }

    void nestingWithinLimits() {
        const QString deep = QString(63, '(') + "2 m" + QString(63, ')');
        QCOMPARE(eval(deep).si, 2.0);
        const QString wide = "max(0" + QString(",1").repeated(1000) + ")";
        QCOMPARE(eval(wide).si, 1.0);
        QCOMPARE(Expression::parse(std::string(4095, ' ') + "1").text().size(), std::size_t{4096});
    }

    void loneOperatorsAndBytes() {
        for (const char* text :
             {"+", "-", "*", "/", "^", "(", ")", ",", ".", "e", "1e", "()", "sqrt", "\xff\xfe", "1 m^"}) {
            const QString message = evalError(text);
            QVERIFY2(message != "(no error)", text);
        }
        QCOMPARE(evalError(std::string("1\0+2", 4)), "column 2: expected an operator, got '\\x00'");
    }

    // Random text over the grammar's characters: every outcome is a value or an ExprError.
    void randomTextNeverCrashes() {
        const std::string alphabet = "0123456789.eE+-*/^(),  mNkgsdrpi_xab\xc2\xb5";
        std::mt19937 rng(7);
        std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1), length(0, 40);
        int values = 0, errors = 0;
        for (int i = 0; i < 20000; ++i) {
            std::string text;
            for (std::size_t n = length(rng); n > 0; --n) text += alphabet[pick(rng)];
            try {
                const Value v = Expression::parse(text).evaluate([](std::string_view) { return Value{1.5, {}}; });
                QVERIFY(std::isfinite(v.si));
                ++values;
            } catch (const ExprError&) {
                ++errors;
            }
        }
        QVERIFY(values > 0 && errors > 0);
    }
};

QTEST_GUILESS_MAIN(TestExpression)
#include "tst_expression.moc"
