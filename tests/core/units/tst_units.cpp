// SPDX-License-Identifier: GPL-3.0-or-later
// Units: parsing of symbols and expressions (scale to SI and dimension), quantities as users type
// them, dimension checks against a parameter with messages that say what was expected, the display
// units offered per dimension, and the round-trip number format of files and CSV.
#include "support/compare.hpp"
#include "core/text/quote.hpp"
#include "core/units/unit.hpp"

#include <QTest>

#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>

using endstop::core::Dimension;
using endstop::core::Unit;
using endstop::core::UnitError;
namespace core = endstop::core;

Q_DECLARE_METATYPE(Dimension)

namespace {

constexpr double kPi = std::numbers::pi;

Dimension dim(int length, int mass, int time, int angle) {
    return Dimension{{static_cast<std::int8_t>(length), static_cast<std::int8_t>(mass), static_cast<std::int8_t>(time),
                      static_cast<std::int8_t>(angle)}};
}

const Dimension kLength = dim(1, 0, 0, 0), kMass = dim(0, 1, 0, 0), kTime = dim(0, 0, 1, 0), kAngle = dim(0, 0, 0, 1);
const Dimension kForce = dim(1, 1, -2, 0), kEnergy = dim(2, 1, -2, 0), kPower = dim(2, 1, -3, 0);

// numbers computed two ways agree to a few ulps
const endstop::test::Relative kClose = endstop::test::relative(1e-14);

// the message of the UnitError `f` throws, or "" if it does not throw
template <class F> QString errorOf(F&& f) {
    try {
        f();
    } catch (const UnitError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

double parseDouble(const std::string& s) {
    double x = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (ec != std::errc{} || ptr != s.data() + s.size()) return std::numeric_limits<double>::quiet_NaN();
    return x;
}

}   // namespace

class TestUnits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parseSymbol_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("scale");
        QTest::addColumn<Dimension>("dimension");
        QTest::newRow("m") << "m" << 1.0 << kLength;
        QTest::newRow("mm") << "mm" << 1e-3 << kLength;
        QTest::newRow("cm") << "cm" << 1e-2 << kLength;
        QTest::newRow("km") << "km" << 1e3 << kLength;
        QTest::newRow("s") << "s" << 1.0 << kTime;
        QTest::newRow("ms") << "ms" << 1e-3 << kTime;
        QTest::newRow("kg") << "kg" << 1.0 << kMass;
        QTest::newRow("g") << "g" << 1e-3 << kMass;
        QTest::newRow("N") << "N" << 1.0 << kForce;
        QTest::newRow("kN") << "kN" << 1e3 << kForce;
        QTest::newRow("rad") << "rad" << 1.0 << kAngle;
        QTest::newRow("deg") << "deg" << kPi / 180 << kAngle;
        QTest::newRow("degree sign") << "°" << kPi / 180 << kAngle;
        QTest::newRow("rev") << "rev" << 2 * kPi << kAngle;
        QTest::newRow("rpm") << "rpm" << 2 * kPi / 60 << dim(0, 0, -1, 1);
        QTest::newRow("Hz") << "Hz" << 1.0 << dim(0, 0, -1, 0);
        QTest::newRow("W") << "W" << 1.0 << kPower;
        QTest::newRow("J") << "J" << 1.0 << kEnergy;
        QTest::newRow("micrometre") << "µm" << 1e-6 << kLength;
        // products, quotients, powers
        QTest::newRow("N*m/deg") << "N*m/deg" << 180 / kPi << dim(2, 1, -2, -1);
        QTest::newRow("N*s/m") << "N*s/m" << 1.0 << dim(0, 1, -1, 0);
        QTest::newRow("kg*m^2") << "kg*m^2" << 1.0 << dim(2, 1, 0, 0);
        QTest::newRow("g*cm^2") << "g*cm^2" << 1e-7 << dim(2, 1, 0, 0);
        QTest::newRow("N m/(rpm)") << "N m/(rpm)" << 60 / (2 * kPi) << dim(2, 1, -1, -1);
        QTest::newRow("N*m*s/rad") << "N*m*s/rad" << 1.0 << dim(2, 1, -1, -1);
        QTest::newRow("m/s^2") << "m/s^2" << 1.0 << dim(1, 0, -2, 0);
        QTest::newRow("mm/s^2") << "mm/s^2" << 1e-3 << dim(1, 0, -2, 0);
        QTest::newRow("a/b*c is (a/b)*c") << "m/s*kg" << 1.0 << dim(1, 1, -1, 0);
        QTest::newRow("negative power") << "s^-2" << 1.0 << dim(0, 0, -2, 0);
        QTest::newRow("1/s") << "1/s" << 1.0 << dim(0, 0, -1, 0);
        QTest::newRow("km/h") << "km/h" << 1.0 / 3.6 << dim(1, 0, -1, 0);
        QTest::newRow("kN/mm") << "kN/mm" << 1e6 << dim(0, 1, -2, 0);
        QTest::newRow("power of a group") << "(mm/s)^2" << 1e-6 << dim(2, 0, -2, 0);
        QTest::newRow("spaces around operators") << " N * m / rad " << 1.0 << dim(2, 1, -2, -1);
        QTest::newRow("middle dot") << "N·m" << 1.0 << kEnergy;
        QTest::newRow("middle dot, seconds") << "N·s/m" << 1.0 << dim(0, 1, -1, 0);
    }
    void parseSymbol() {
        QFETCH(QString, text);
        QFETCH(double, scale);
        QFETCH(Dimension, dimension);
        Unit u;
        try {
            u = Unit::parse(text.toStdString());
        } catch (const UnitError& e) {
            QFAIL(e.what());
        }
        QCOMPARE_NEAR(u.scale, scale, kClose);
        QVERIFY2(u.dimension == dimension, u.dimension.toString().c_str());
        // displayed as written (trimmed), and SI conversions are inverse to each other
        QCOMPARE(QString::fromStdString(u.display()), text.trimmed());
        QCOMPARE_NEAR(u.fromSI(u.toSI(1.25)), 1.25, kClose);
        QCOMPARE_NEAR(u.toSI(2.0), 2.0 * scale, kClose);
    }

    void siUnitOfDimension_data() {
        QTest::addColumn<Dimension>("dimension");
        QTest::addColumn<QString>("symbol");
        QTest::newRow("length") << kLength << "m";
        QTest::newRow("force") << kForce << "N";
        QTest::newRow("torque") << kEnergy << "N*m";
        QTest::newRow("velocity") << dim(1, 0, -1, 0) << "m/s";
        QTest::newRow("angular velocity") << dim(0, 0, -1, 1) << "rad/s";
        QTest::newRow("stiffness") << dim(0, 1, -2, 0) << "N/m";
        QTest::newRow("rotational stiffness") << dim(2, 1, -2, -1) << "N*m/rad";
        QTest::newRow("damping") << dim(0, 1, -1, 0) << "N*s/m";
        QTest::newRow("inertia") << dim(2, 1, 0, 0) << "kg*m^2";
        QTest::newRow("power") << kPower << "W";
        QTest::newRow("dimensionless") << Dimension::none() << "1";
        QTest::newRow("no named unit") << dim(3, 0, -1, 0) << "m^3/s";
    }
    void siUnitOfDimension() {
        QFETCH(Dimension, dimension);
        QFETCH(QString, symbol);
        const Unit u = Unit::si(dimension);
        QCOMPARE(QString::fromStdString(u.display()), symbol);
        QCOMPARE(u.scale, 1.0);
        QVERIFY(u.dimension == dimension);
    }

    void dimensionText() {
        QCOMPARE(QString::fromStdString(kForce.toString()), QString("kg*m/s^2"));
        QCOMPARE(QString::fromStdString(dim(2, 1, -2, -1).toString()), QString("kg*m^2/(rad*s^2)"));
        QCOMPARE(QString::fromStdString(dim(0, 0, -1, 0).toString()), QString("1/s"));
        QCOMPARE(QString::fromStdString(Dimension::none().toString()), QString("1"));
        QVERIFY(Dimension::none().dimensionless());
        QVERIFY(!kAngle.dimensionless());
        QVERIFY(kForce / kLength * kLength == kForce);
        QVERIFY(kLength.pow(3) / kLength.pow(2) == kLength);
        // the text of a dimension reads back as that dimension (messages and SI fallback symbols)
        for (const Dimension& d :
             {kForce, kEnergy, kPower, dim(2, 1, -2, -1), dim(0, 1, -1, 0), dim(-1, 0, -2, 1), dim(3, 0, -1, 0)})
            QVERIFY2(Unit::parse(d.toString()).dimension == d, d.toString().c_str());
    }

    void badUnits_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");   // part of the message
        QTest::newRow("unknown symbol") << "furlong"
                                        << "unknown unit 'furlong'";
        QTest::newRow("unknown in a product") << "N*parsec"
                                              << "unknown unit 'parsec'";
        QTest::newRow("case matters") << "MM"
                                      << "unknown unit 'MM'";
        QTest::newRow("empty") << ""
                               << "expected a unit";
        QTest::newRow("dangling operator") << "m/"
                                           << "expected a unit";
        QTest::newRow("double operator") << "m**2"
                                         << "unexpected '*'";
        QTest::newRow("missing exponent") << "m^"
                                          << "integer exponent";
        QTest::newRow("fractional exponent") << "m^x"
                                             << "integer exponent";
        QTest::newRow("unclosed group") << "N/(m*s"
                                        << "missing ')'";
        QTest::newRow("stray close") << "m)"
                                     << "unexpected ')'";
        QTest::newRow("digit glued to a symbol") << "m2"
                                                 << "'2'";
    }
    void badUnits() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const QString message = errorOf([&] { Unit::parse(text.toStdString()); });
        QVERIFY2(!message.isEmpty(), "no error");
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.contains("'" + text + "'"), qPrintable(message));   // names the whole expression
    }

    void quantities_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("unit");   // "" for a bare number
        QTest::addColumn<double>("si");
        QTest::newRow("10 mm") << "10 mm" << 10.0 << "mm" << 0.01;
        QTest::newRow("no space") << "10mm" << 10.0 << "mm" << 0.01;
        QTest::newRow("bare") << "-0.1" << -0.1 << "" << -0.1;
        QTest::newRow("explicit plus") << "+2.5 kN" << 2.5 << "kN" << 2500.0;
        QTest::newRow("exponent") << "1e6 N*m/deg" << 1e6 << "N*m/deg" << 1e6 * 180 / kPi;
        QTest::newRow("rpm") << "300 rpm" << 300.0 << "rpm" << 10 * kPi;
        QTest::newRow("spaces") << "  3   deg  " << 3.0 << "deg" << 3 * kPi / 180;
        QTest::newRow("grams") << "250 g" << 250.0 << "g" << 0.25;
        QTest::newRow("milliseconds") << "20 ms" << 20.0 << "ms" << 0.02;
        QTest::newRow("revolutions") << "0.5 rev" << 0.5 << "rev" << kPi;
        QTest::newRow("inertia") << "5 g*cm^2" << 5.0 << "g*cm^2" << 5e-7;
    }
    void quantities() {
        QFETCH(QString, text);
        QFETCH(double, value);
        QFETCH(QString, unit);
        QFETCH(double, si);
        const auto q = endstop::core::parseQuantity(text.toStdString());
        QCOMPARE(q.value, value);
        QCOMPARE(q.unit.has_value(), !unit.isEmpty());
        if (q.unit) {
            QCOMPARE(QString::fromStdString(q.unit->display()), unit);
            QCOMPARE_NEAR(q.unit->toSI(q.value), si, kClose);
        }
    }

    void badQuantities_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("words") << "ten mm"
                               << "not a number";
        QTest::newRow("empty") << ""
                               << "not a number";
        QTest::newRow("only a unit") << "mm"
                                     << "not a number";
        QTest::newRow("nan") << "nan"
                             << "not a finite number";
        QTest::newRow("inf") << "inf"
                             << "not a finite number";
        QTest::newRow("negative infinity") << "-infinity m"
                                           << "not a finite number";
        QTest::newRow("overflow") << "1e999"
                                  << "1e999";
        QTest::newRow("unknown unit") << "10 furlong"
                                      << "unknown unit 'furlong'";
        QTest::newRow("two numbers") << "1 2"
                                     << "'2'";
        QTest::newRow("two signs") << "+-2 m"
                                   << "not a number";
        QTest::newRow("only a sign") << "+"
                                     << "not a number";
    }
    void badQuantities() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const QString message = errorOf([&] { endstop::core::parseQuantity(text.toStdString()); });
        QVERIFY2(!message.isEmpty(), "no error");
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void toSIAgainstDimension_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Dimension>("expected");
        QTest::addColumn<double>("si");
        QTest::newRow("mm as length") << "10 mm" << kLength << 0.01;
        QTest::newRow("bare number is SI") << "0.25" << kLength << 0.25;
        QTest::newRow("rpm as angular velocity") << "60 rpm" << dim(0, 0, -1, 1) << 2 * kPi;
        QTest::newRow("N*m/deg as rotational stiffness") << "1 N*m/deg" << dim(2, 1, -2, -1) << 180 / kPi;
        QTest::newRow("N m/(rpm) as rotational damping")
            << "0.1 N m/(rpm)" << dim(2, 1, -1, -1) << 0.1 * 60 / (2 * kPi);
        QTest::newRow("kN as force") << "1.5 kN" << kForce << 1500.0;
        QTest::newRow("J as energy") << "3 J" << kEnergy << 3.0;
        QTest::newRow("W as power") << "2 W" << kPower << 2.0;
        QTest::newRow("Hz as frequency") << "50 Hz" << dim(0, 0, -1, 0) << 50.0;
    }
    void toSIAgainstDimension() {
        QFETCH(QString, text);
        QFETCH(Dimension, expected);
        QFETCH(double, si);
        QCOMPARE_NEAR(endstop::core::parseSI(text.toStdString(), expected), si, kClose);
    }

    void dimensionMismatch_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Dimension>("expected");
        QTest::addColumn<QString>("siSymbol");
        QTest::newRow("mm for a mass") << "10 mm" << kMass << "kg";
        QTest::newRow("N for a stiffness") << "5 N" << dim(0, 1, -2, 0) << "N/m";
        QTest::newRow("N*m/rad for a translational stiffness") << "1 N*m/rad" << dim(0, 1, -2, 0) << "N/m";
        QTest::newRow("deg for a length") << "3 deg" << kLength << "m";
        QTest::newRow("Hz for an angular velocity") << "1 Hz" << dim(0, 0, -1, 1) << "rad/s";
        QTest::newRow("s for a frequency") << "1 s" << dim(0, 0, -1, 0) << "Hz";
    }
    void dimensionMismatch() {
        QFETCH(QString, text);
        QFETCH(Dimension, expected);
        QFETCH(QString, siSymbol);
        const QString message = errorOf([&] { endstop::core::parseSI(text.toStdString(), expected); });
        QVERIFY2(!message.isEmpty(), "no error");
        // names the unit given, what it is, and what was expected with an example unit
        const QString given = text.section(' ', 1);
        QVERIFY2(message.contains("'" + given + "'"), qPrintable(message));
        QVERIFY2(message.contains(QString::fromStdString(Unit::parse(given.toStdString()).dimension.toString())),
                 qPrintable(message));
        QVERIFY2(message.contains("expected " + QString::fromStdString(expected.toString())), qPrintable(message));
        QVERIFY2(message.contains(siSymbol), qPrintable(message));
    }

    void compatibleUnits_data() {
        QTest::addColumn<Dimension>("dimension");
        QTest::addColumn<QString>("preferred");
        QTest::addColumn<QString>("first");
        QTest::addColumn<QStringList>("mustHave");
        QTest::newRow("length") << kLength << ""
                                << "m" << QStringList{"mm", "cm", "km"};
        QTest::newRow("length, mm preferred") << kLength << "mm"
                                              << "mm" << QStringList{"m", "cm"};
        QTest::newRow("angle") << kAngle << ""
                               << "rad" << QStringList{"deg", "rev"};
        QTest::newRow("angular velocity") << dim(0, 0, -1, 1) << ""
                                          << "rad/s" << QStringList{"rpm", "deg/s"};
        QTest::newRow("rotational stiffness, custom preferred") << dim(2, 1, -2, -1) << "N*mm/deg"
                                                                << "N*mm/deg" << QStringList{"N*m/rad", "N*m/deg"};
        QTest::newRow("rotational damping") << dim(2, 1, -1, -1) << ""
                                            << "N*m*s/rad" << QStringList{"N*m/rpm"};
        QTest::newRow("force") << kForce << ""
                               << "N" << QStringList{"kN"};
        QTest::newRow("mass") << kMass << ""
                              << "kg" << QStringList{"g"};
        QTest::newRow("inertia") << dim(2, 1, 0, 0) << ""
                                 << "kg*m^2" << QStringList{"g*cm^2"};
        QTest::newRow("time") << kTime << ""
                              << "s" << QStringList{"ms"};
        QTest::newRow("wrong-dimension preferred is left out") << kMass << "mm"
                                                               << "kg" << QStringList{"g"};
    }
    void compatibleUnits() {
        QFETCH(Dimension, dimension);
        QFETCH(QString, preferred);
        QFETCH(QString, first);
        QFETCH(QStringList, mustHave);
        const auto units = endstop::core::compatibleUnits(dimension, preferred.toStdString());
        QVERIFY(!units.empty());
        QCOMPARE(QString::fromStdString(units.front().display()), first);
        QStringList symbols;
        for (const Unit& u : units) {
            QVERIFY2(u.dimension == dimension, u.symbol.c_str());   // only units of this dimension
            QVERIFY2(!symbols.contains(QString::fromStdString(u.display())), u.symbol.c_str());   // no duplicates
            symbols << QString::fromStdString(u.display());
        }
        for (const QString& s : mustHave)
            QVERIFY2(symbols.contains(s), qPrintable(s + " missing from " + symbols.join(' ')));
        if (!preferred.isEmpty() && Unit::parse(preferred.toStdString()).dimension != dimension)
            QVERIFY(!symbols.contains(preferred));
    }

    void formatNumber_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");   // "" if only the round trip is checked
        QTest::newRow("0.1") << 0.1 << "0.1";
        QTest::newRow("1e-6") << 1e-6 << "1e-06";
        QTest::newRow("1e6") << 1e6 << "1e+06";
        QTest::newRow("integer") << 42.0 << "42";
        QTest::newRow("negative") << -2.5 << "-2.5";
        QTest::newRow("zero") << 0.0 << "0";
        QTest::newRow("one third") << 1.0 / 3.0 << "0.3333333333333333";
        QTest::newRow("pi") << kPi << "3.141592653589793";
        QTest::newRow("0.1+0.2") << 0.1 + 0.2 << "0.30000000000000004";
        QTest::newRow("large") << 1.5e300 << "1.5e+300";
        QTest::newRow("denormal") << 5e-324 << "5e-324";
        QTest::newRow("max") << std::numeric_limits<double>::max() << "";
        QTest::newRow("deg to rad") << kPi / 180 << "";
        QTest::newRow("awkward") << 123456.78901234567 << "";
    }
    void formatNumber() {
        QFETCH(double, value);
        QFETCH(QString, text);
        const std::string s = endstop::core::formatNumber(value);
        if (!text.isEmpty()) QCOMPARE(QString::fromStdString(s), text);
        QCOMPARE(parseDouble(s), value);             // bit-exact round trip
        QVERIFY(s.find(',') == std::string::npos);   // never a locale's decimal comma
    }

    // Hostile unit text: deep nesting overflowed the stack, exponents wrapped in 8 bits
    // (1 kg^257 was 1 kg, 5 mm^257 was 0 m), huge inputs were echoed whole in messages.
    void hostileUnits_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("10,000 parentheses")
            << "1 " + QString(10000, '(') + "kg" + QString(10000, ')') << "nested more than 32 deep";
        QTest::newRow("kg^257") << "1 kg^257"
                                << "exponent out of range";
        QTest::newRow("mm^257") << "5 mm^257"
                                << "exponent out of range";
        QTest::newRow("m^-257") << "5 m^-257"
                                << "exponent out of range";
        QTest::newRow("exponent beyond int") << "5 m^99999999999"
                                             << "exponent out of range";
        QTest::newRow("exponent INT_MIN") << "5 m^-2147483648"
                                          << "exponent out of range";   // found by the fuzzer (UBSan)
        QTest::newRow("product beyond 24") << "1 m^20*m^20"
                                           << "dimension exponent out of range";
        QTest::newRow("power of a power") << "1 (m^12)^12"
                                          << "dimension exponent out of range";
        QTest::newRow("number beyond double") << "1e999 m"
                                              << "out of the range of a double";
        QTest::newRow("scale beyond double") << "1 km^24/mm^24*km^24/mm^24*km^24/mm^24"
                                             << "scale factor out of the range";
    }
    void hostileUnits() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QString message;
        try {
            core::parseQuantity(text.toStdString());
        } catch (const core::UnitError& e) {
            message = e.what();
        }
        QVERIFY2(message.contains(expected), qPrintable(message.left(300)));
        QVERIFY2(message.size() < 300, qPrintable(message.left(300)));
    }

    // Found by the fuzzer: finite as typed, infinite in SI; the file was saved with null.
    void finiteOnlyInTheUnitTyped() {
        QVERIFY_THROWS_EXCEPTION(core::UnitError, core::parseSI("1e308 N*m/deg", dim(2, 1, -2, -1)));
    }

    void deepButFineNesting() {
        const core::Quantity q = core::parseQuantity("2 " + std::string(32, '(') + "mm" + std::string(32, ')') + "^2");
        QCOMPARE(q.unit->dimension, core::Dimension::length().pow(2));
        QCOMPARE(q.unit->toSI(q.value), 2e-6);
        QCOMPARE(core::parseQuantity("1 kg^24").unit->dimension, core::Dimension::mass().pow(24));
    }

    // A message quotes at most 60 characters of what was typed, escaped onto one line.
    void longTextIsCappedInMessages() {
        QString message;
        try {
            core::parseQuantity("1 " + std::string(2000000, 'q'));
        } catch (const core::UnitError& e) {
            message = e.what();
        }
        QVERIFY2(message.startsWith("bad unit 'qqq") && message.contains("more bytes") && message.size() < 300,
                 qPrintable(message.left(300)));
        QCOMPARE(QString::fromStdString(core::quoteText("a\nb\x01")), QString("'a\\nb\\x01'"));
        QCOMPARE(QString::fromStdString(core::excerpt(std::string(70, 'x'), 60)),
                 QString(60, 'x') + "... (10 more bytes)");
    }

    // Imperial units as users type them, with their exact definitions (1 in = 25.4 mm,
    // 1 lb = 0.45359237 kg, 1 lbf = 1 lb * 9.80665 m/s^2), alone and in products.
    void imperialUnits_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Dimension>("dimension");
        QTest::addColumn<double>("siPerUnit");
        const double lbf = 0.45359237 * 9.80665;
        QTest::newRow("in") << "in" << kLength << 0.0254;
        QTest::newRow("ft") << "ft" << kLength << 0.3048;
        QTest::newRow("lb") << "lb" << kMass << 0.45359237;
        QTest::newRow("oz") << "oz" << kMass << 0.45359237 / 16;
        QTest::newRow("lbf") << "lbf" << kForce << lbf;
        QTest::newRow("lbf*in (torque)") << "lbf*in" << dim(2, 1, -2, 0) << lbf * 0.0254;
        QTest::newRow("lbf in (space product)") << "lbf in" << dim(2, 1, -2, 0) << lbf * 0.0254;
        QTest::newRow("oz*in^2 (inertia)") << "oz*in^2" << dim(2, 1, 0, 0) << 0.45359237 / 16 * 0.0254 * 0.0254;
        QTest::newRow("lbf/in (stiffness)") << "lbf/in" << dim(0, 1, -2, 0) << lbf / 0.0254;
        QTest::newRow("ft/s") << "ft/s" << dim(1, 0, -1, 0) << 0.3048;
    }
    void imperialUnits() {
        QFETCH(QString, text);
        QFETCH(Dimension, dimension);
        QFETCH(double, siPerUnit);
        const Unit u = Unit::parse(text.toStdString());
        QVERIFY(u.dimension == dimension);
        QCOMPARE_NEAR(u.toSI(1.0), siPerUnit, 1e-12 * siPerUnit);
        QCOMPARE(endstop::core::parseSI(("2 " + text).toStdString(), dimension), u.toSI(2.0));
    }
    void imperialUnitsInDropDowns() {
        const auto has = [](const Dimension& d, const char* symbol) {
            for (const Unit& u : endstop::core::compatibleUnits(d, ""))
                if (u.symbol == symbol) return true;
            return false;
        };
        QVERIFY(has(kLength, "in"));
        QVERIFY(has(kForce, "lbf"));
        QVERIFY(has(dim(2, 1, -2, 0), "lbf*in"));
        QVERIFY(has(dim(2, 1, 0, 0), "oz*in^2"));
    }
};

QTEST_GUILESS_MAIN(TestUnits)
#include "tst_units.moc"
