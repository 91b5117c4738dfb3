// SPDX-License-Identifier: GPL-3.0-or-later
// Limiter, absolute value, product and integrator against closed forms. The kinks of the limiter
// and of abs are events: the solver stops where the input reaches a limit (a row at that time,
// off the output grid), and the integral of the output, which an integrator block accumulates, is
// exact to the tolerance across them.
#include "blocks/friction_helpers.hpp"
#include "support/model_builder.hpp"

#include "core/errors.hpp"
#include "core/units/unit.hpp"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace endstop;
using test::at;

namespace {

constexpr double kPi = std::numbers::pi;

// The model of `b` with an integrator `int` of the block `x`'s output added
core::model::Model integrated(test::ModelBuilder b) {
    b.block("int", "signal.integrator").connect("x.y", "int.u");
    return b.build();
}

// A constant (or any source) u wired to the block x of the given type and parameters.
core::model::Model fedBy(const std::string& uType, const core::ParamValues& uParams, const std::string& xType,
                         const core::ParamValues& xParams) {
    test::ModelBuilder b;
    b.block("u", uType, uParams).block("x", xType, xParams).connect("u.y", "x.u");
    return b.build();
}

bool hasRowNear(const core::MemorySink& r, double t, double tol) {
    for (double ti : r.time())
        if (std::abs(ti - t) <= tol) return true;
    return false;
}

}   // namespace

class TestSignalMath : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // u = 2 sin(2 pi t) clamped to [-1, 1]: leaves the band at t = 1/12, so the integral to 0.25 s
    // is (1 - cos(pi/6)) / pi + (0.25 - 1/12)
    void limiterClampsAtEvents() {
        test::ModelBuilder b;
        b.block("u", "signal.sine", {{"amplitude", 2.0}}).block("x", "signal.limiter").connect("u.y", "x.u");
        const auto model = integrated(b);
        const auto quarter = test::run(model, test::solverOptions(0.25, 1e-8));   // a row per solver step
        for (std::size_t i = 0; i < quarter.rows(); ++i) {
            const double u = quarter.values("u.y")[i], y = quarter.values("x.y")[i];
            QCOMPARE_NEAR(y, std::clamp(u, -1.0, 1.0), 1e-9, QString("t = %1, u = %2").arg(quarter.time()[i]).arg(u));
        }
        QCOMPARE_NEAR(test::last(quarter, "int.y"), (1 - std::cos(kPi / 6)) / kPi + (0.25 - 1.0 / 12), 1e-8,
                      "integral to 0.25 s");
        const auto period = test::run(model, test::solverOptions(1.0, 1e-8));
        for (double t : {1.0 / 12, 5.0 / 12, 7.0 / 12, 11.0 / 12})
            QVERIFY2(hasRowNear(period, t, 1e-9), qPrintable(QString("no row where u reaches a limit near %1").arg(t)));
        QCOMPARE_NEAR(test::last(period, "int.y"), 0.0, 5e-8, "integral over a period");
    }

    // The same limiter and input scaled down to 1e-160. Near a root IDA's sign test multiplies two
    // values of one event function, about 1e-12 of its swing; at this scale that product underflows
    // to 0, and IDA reported a root without naming any function, again after every restart, until
    // the chatter guard ended the run. The engine shows IDA no event value smaller than 1e-150 (of
    // the same sign): the limits are reached where they are at any scale.
    void limiterAtTheScaleOfUnderflow() {
        const double a = 1e-160;
        test::ModelBuilder b;
        b.block("u", "signal.sine", {{"amplitude", 2 * a}})
            .block("x", "signal.limiter", {{"upper_limit", a}, {"lower_limit", -a}})
            .connect("u.y", "x.u");
        core::simulation::SimulationOptions o = test::solverOptions(1.0, 1e-8);
        o.maxStep = 1e-2;   // steps short against the sine: each limit is a change of sign between two
        o.reduce = true;    // as drawn u is an unknown IDA solves to its absolute tolerance, not to 1e-160
        core::MemorySink r;
        try {
            r = test::run(integrated(b), o);
        } catch (const core::Error& e) {
            QFAIL(e.what());
        }
        QCOMPARE(r.time().back(), 1.0);
        for (double t : {1.0 / 12, 5.0 / 12, 7.0 / 12, 11.0 / 12})
            QVERIFY2(hasRowNear(r, t, 1e-9), qPrintable(QString("no row where u reaches a limit near %1").arg(t)));
        for (std::size_t i = 0; i < r.rows(); ++i)
            QCOMPARE_NEAR(r.values("x.y")[i], std::clamp(r.values("u.y")[i], -a, a), 1e-9 * a,
                          QString("t = %1").arg(r.time()[i]));
    }

    // an input outside the band from the start gives the limit at once; limits are any values
    void limiterStartsOutside() {
        const auto r = test::run(fedBy("signal.constant", {{"value", 5.0}}, "signal.limiter",
                                       {{"upper_limit", "3 kN"}, {"lower_limit", -2.0}}),
                                 test::solverOptions(1.0, 1e-8, 0.5));
        QCOMPARE(r.values("x.y").front(), 5.0);   // inside [-2, 3000]
        const auto low = test::run(
            fedBy("signal.constant", {{"value", 5.0}}, "signal.limiter", {{"upper_limit", 2.0}, {"lower_limit", 1.0}}),
            test::solverOptions(1.0, 1e-8, 0.5));
        QCOMPARE(low.values("x.y").front(), 2.0);
        QCOMPARE(low.values("x.y").back(), 2.0);
    }

    // |sin(2 pi t)| integrates to 2 / pi over a period; the kink at 0.5 s is an event
    void absValue() {
        test::ModelBuilder b;
        b.block("u", "signal.sine").block("x", "signal.abs").connect("u.y", "x.u");
        const auto r = test::run(integrated(b), test::solverOptions(1.0, 1e-8));
        for (std::size_t i = 0; i < r.rows(); ++i)
            QCOMPARE_NEAR(r.values("x.y")[i], std::abs(r.values("u.y")[i]), 1e-9);
        QVERIFY(hasRowNear(r, 0.5, 1e-9));
        QCOMPARE_NEAR(test::last(r, "int.y"), 2 / kPi, 1e-8, "integral of |sin|");
    }

    // sin(2 pi t) * cos(2 pi t) = sin(4 pi t) / 2: integral to 1/8 s is 1 / (8 pi)
    void product() {
        test::ModelBuilder b;
        b.block("s", "signal.sine")
            .block("c", "signal.sine", {{"phase", 1.5707963267948966}})
            .block("x", "signal.product");
        b.connect("s.y", "x.u1").connect("c.y", "x.u2");
        const auto r = test::run(integrated(b), test::solverOptions(0.125, 1e-8, 0.005));
        QCOMPARE_NEAR(at(r, "x.y", 0.05), std::sin(0.1 * kPi) * std::cos(0.1 * kPi), 1e-9, "product at 0.05 s");
        QCOMPARE_NEAR(test::last(r, "int.y"), 1 / (8 * kPi), 1e-8, "integral of the product");
    }

    // y' = u from initial_value: a constant gives a line, a sine gives (1 - cos) / omega
    void integrator() {
        const auto line =
            test::run(fedBy("signal.constant", {{"value", 3.0}}, "signal.integrator", {{"initial_value", 2.0}}),
                      test::solverOptions(1.5, 1e-8, 0.5));
        QCOMPARE(line.values("x.y").front(), 2.0);
        QCOMPARE_NEAR(test::last(line, "x.y"), 6.5, 1e-10, "2 + 3 t at 1.5 s");
        const auto wave =
            test::run(fedBy("signal.sine", {{"frequency", 2.0}}, "signal.integrator", {{"initial_value", -1.0}}),
                      test::solverOptions(0.3, 1e-8, 0.01));
        QCOMPARE_NEAR(at(wave, "x.y", 0.3), -1 + (1 - std::cos(1.2 * kPi)) / (4 * kPi), 1e-8,
                      "-1 + (1 - cos(4 pi t)) / (4 pi)");
    }

    // an integrator's output drives a force: the mass's velocity is the double integral
    void integratorDrivesForce() {
        test::ModelBuilder b;
        b.block("u", "signal.constant", {{"value", 2.0}})
            .block("i", "signal.integrator")
            .block("fs", "translational.force_source")
            .block("m", "translational.mass", {{"mass", 4.0}})
            .block("g", "translational.reference");
        b.connect("u.y", "i.u").connect("i.y", "fs.S").connect("fs.R", "m.M").connect("fs.C", "g.R");
        const auto r = test::run(b.build(), test::solverOptions(2.0, 1e-8, 0.5));
        QCOMPARE_NEAR(test::last(r, "m.v"), 1.0, 1e-8, "v = t^2 / 4");
    }

    void badParameters() {
        test::ModelBuilder limiter;
        limiter.block("lim", "signal.limiter", {{"upper_limit", -1.0}, {"lower_limit", 1.0}});
        const QStringList errors = test::buildErrors(limiter.build());
        QVERIFY2(!errors.isEmpty() &&
                     errors.front().startsWith("block 'lim', parameter 'lower_limit': must be <= upper_limit (-1)"),
                 qPrintable(errors.join('\n')));
        test::ModelBuilder product;
        product.block("p", "signal.product").block("c", "signal.constant").connect("c.y", "p.u1");
        const QStringList open = test::buildErrors(product.build());
        QVERIFY2(!open.isEmpty() && open.front().startsWith("block 'p', port 'u2': input signal port has no source"),
                 qPrintable(open.join('\n')));
    }
};

QTEST_GUILESS_MAIN(TestSignalMath)
#include "tst_signal_math.moc"
