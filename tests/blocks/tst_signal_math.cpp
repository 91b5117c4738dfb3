// SPDX-License-Identifier: GPL-3.0-or-later
// Limiter, absolute value, product and integrator against closed forms. The kinks of the limiter
// and of abs are events: the solver stops where the input reaches a limit (a row at that time,
// off the output grid), and the integral of the output, which an integrator block accumulates, is
// exact to the tolerance across them.
#include "blocks/friction_helpers.hpp"

#include "core/units/unit.hpp"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace endstop;
using test::at;

namespace {

constexpr double kPi = std::numbers::pi;

// `blocks` (JSON fragments) with an integrator `int` of the block `x`'s output
core::Model integrated(const std::string& blocks, const std::string& wires) {
    return test::modelFromJson(R"({"blocks":[)" + blocks + R"(,{"name":"int","type":"signal.integrator"}],
        "connections":[)" + wires + R"(,["x.y","int.u"]]})");
}
const char* kSine2 = R"({"name":"u","type":"signal.sine","parameters":{"amplitude":2}})";

bool hasRowNear(const core::MemorySink& r, double t, double tol) {
    for (double ti : r.time())
        if (std::abs(ti - t) <= tol) return true;
    return false;
}

}  // namespace

class TestSignalMath : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // u = 2 sin(2 pi t) clamped to [-1, 1]: leaves the band at t = 1/12, so the integral to 0.25 s
    // is (1 - cos(pi/6)) / pi + (0.25 - 1/12)
    void limiterClampsAtEvents() {
        const auto model = integrated(std::string(kSine2) + R"(,{"name":"x","type":"signal.limiter"})", R"(["u.y","x.u"])");
        const auto quarter = test::run(model, test::solverOptions(0.25, 1e-8));   // a row per solver step
        for (std::size_t i = 0; i < quarter.rows(); ++i) {
            const double u = quarter.values("u.y")[i], y = quarter.values("x.y")[i];
            QVERIFY2(std::abs(y - std::clamp(u, -1.0, 1.0)) <= 1e-9,
                     qPrintable(QString("t = %1: y = %2 for u = %3").arg(quarter.time()[i]).arg(y).arg(u)));
        }
        ENDSTOP_CLOSE("integral to 0.25 s", test::last(quarter, "int.y"), (1 - std::cos(kPi / 6)) / kPi + (0.25 - 1.0 / 12), 1e-8);
        const auto period = test::run(model, test::solverOptions(1.0, 1e-8));
        for (double t : {1.0 / 12, 5.0 / 12, 7.0 / 12, 11.0 / 12})
            QVERIFY2(hasRowNear(period, t, 1e-9), qPrintable(QString("no row where u reaches a limit near %1").arg(t)));
        ENDSTOP_CLOSE("integral over a period", test::last(period, "int.y"), 0.0, 5e-8);
    }

    // an input outside the band from the start gives the limit at once; limits are any values
    void limiterStartsOutside() {
        const auto r = test::run(test::modelFromJson(R"({"blocks":[{"name":"u","type":"signal.constant","parameters":{"value":5}},
            {"name":"x","type":"signal.limiter","parameters":{"upper_limit":"3 kN","lower_limit":-2}}],"connections":[["u.y","x.u"]]})"),
                                 test::solverOptions(1.0, 1e-8, 0.5));
        QCOMPARE(r.values("x.y").front(), 5.0);   // inside [-2, 3000]
        const auto low = test::run(test::modelFromJson(R"({"blocks":[{"name":"u","type":"signal.constant","parameters":{"value":5}},
            {"name":"x","type":"signal.limiter","parameters":{"upper_limit":2,"lower_limit":1}}],"connections":[["u.y","x.u"]]})"),
                                   test::solverOptions(1.0, 1e-8, 0.5));
        QCOMPARE(low.values("x.y").front(), 2.0);
        QCOMPARE(low.values("x.y").back(), 2.0);
    }

    // |sin(2 pi t)| integrates to 2 / pi over a period; the kink at 0.5 s is an event
    void absValue() {
        const auto r = test::run(integrated(R"({"name":"u","type":"signal.sine"},{"name":"x","type":"signal.abs"})", R"(["u.y","x.u"])"),
                                 test::solverOptions(1.0, 1e-8));
        for (std::size_t i = 0; i < r.rows(); ++i) QVERIFY(std::abs(r.values("x.y")[i] - std::abs(r.values("u.y")[i])) <= 1e-9);
        QVERIFY(hasRowNear(r, 0.5, 1e-9));
        ENDSTOP_CLOSE("integral of |sin|", test::last(r, "int.y"), 2 / kPi, 1e-8);
    }

    // sin(2 pi t) * cos(2 pi t) = sin(4 pi t) / 2: integral to 1/8 s is 1 / (8 pi)
    void product() {
        const auto r = test::run(integrated(R"({"name":"s","type":"signal.sine"},
            {"name":"c","type":"signal.sine","parameters":{"phase":1.5707963267948966}},{"name":"x","type":"signal.product"})",
                                            R"(["s.y","x.u1"],["c.y","x.u2"])"),
                                 test::solverOptions(0.125, 1e-8, 0.005));
        ENDSTOP_CLOSE("product at 0.05 s", at(r, "x.y", 0.05), std::sin(0.1 * kPi) * std::cos(0.1 * kPi), 1e-9);
        ENDSTOP_CLOSE("integral of the product", test::last(r, "int.y"), 1 / (8 * kPi), 1e-8);
    }

    // y' = u from initial_value: a constant gives a line, a sine gives (1 - cos) / omega
    void integrator() {
        const auto line = test::run(test::modelFromJson(R"({"blocks":[{"name":"u","type":"signal.constant","parameters":{"value":3}},
            {"name":"i","type":"signal.integrator","parameters":{"initial_value":2}}],"connections":[["u.y","i.u"]]})"),
                                    test::solverOptions(1.5, 1e-8, 0.5));
        QCOMPARE(line.values("i.y").front(), 2.0);
        ENDSTOP_CLOSE("2 + 3 t at 1.5 s", test::last(line, "i.y"), 6.5, 1e-10);
        const auto wave = test::run(test::modelFromJson(R"({"blocks":[{"name":"u","type":"signal.sine","parameters":{"frequency":2}},
            {"name":"i","type":"signal.integrator","parameters":{"initial_value":-1}}],"connections":[["u.y","i.u"]]})"),
                                    test::solverOptions(0.3, 1e-8, 0.01));
        ENDSTOP_CLOSE("-1 + (1 - cos(4 pi t)) / (4 pi)", at(wave, "i.y", 0.3), -1 + (1 - std::cos(1.2 * kPi)) / (4 * kPi), 1e-8);
    }

    // an integrator's output drives a force: the mass's velocity is the double integral
    void integratorDrivesForce() {
        const auto r = test::run(test::modelFromJson(R"({"blocks":[{"name":"u","type":"signal.constant","parameters":{"value":2}},
            {"name":"i","type":"signal.integrator"},{"name":"fs","type":"translational.force_source"},
            {"name":"m","type":"translational.mass","parameters":{"mass":4}},{"name":"g","type":"translational.reference"}],
            "connections":[["u.y","i.u"],["i.y","fs.S"],["fs.R","m.M"],["fs.C","g.R"]]})"),
                                 test::solverOptions(2.0, 1e-8, 0.5));
        ENDSTOP_CLOSE("v = t^2 / 4", test::last(r, "m.v"), 1.0, 1e-8);
    }

    void badParameters() {
        const QStringList errors = test::buildErrors(test::modelFromJson(
            R"({"blocks":[{"name":"lim","type":"signal.limiter","parameters":{"upper_limit":-1,"lower_limit":1}}]})"));
        QVERIFY2(!errors.isEmpty() && errors.front().startsWith("block 'lim', parameter 'lower_limit': must be <= upper_limit (-1)"),
                 qPrintable(errors.join('\n')));
        const QStringList open = test::buildErrors(test::modelFromJson(R"({"blocks":[{"name":"p","type":"signal.product"},
            {"name":"c","type":"signal.constant"}],"connections":[["c.y","p.u1"]]})"));
        QVERIFY2(!open.isEmpty() && open.front().startsWith("block 'p', port 'u2': input signal port has no source"),
                 qPrintable(open.join('\n')));
    }
};

QTEST_GUILESS_MAIN(TestSignalMath)
#include "tst_signal_math.moc"
