// SPDX-License-Identifier: GPL-3.0-or-later
// The linear library against closed forms. Tolerances follow from the solver tolerance: every run
// uses rtol = 1e-8, atol = 1e-10 unless said, and the bounds allow the global error to grow with
// the number of periods simulated.
#include "support/compare.hpp"
#include "support/model_builder.hpp"
#include "support/test_support.hpp"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace endstop;
using test::at;
using test::crossings;

namespace {
constexpr double kPi = std::numbers::pi;

core::simulation::SimulationOptions tight(double stop, double interval = 1e-3) {
    return test::solverOptions(stop, 1e-8, interval);
}

double meanPeriod(const std::vector<double>& upCrossings) {
    return (upCrossings.back() - upCrossings.front()) / static_cast<double>(upCrossings.size() - 1);
}
}   // namespace

class TestLinearPhysics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // m x'' + k x = 0: period 2 pi sqrt(m/k), energy constant over 30+ periods
    void undampedOscillator() {
        const double m = 2.0, k = 800.0, v0 = 0.5;
        test::ModelBuilder net;
        net.block("m", "translational.mass", {{"mass", 2.0}, {"initial_velocity", 0.5}})
            .block("k", "translational.spring", {{"stiffness", 800.0}})
            .block("g", "translational.reference");
        net.connect("m.M", "k.R").connect("k.C", "g.R");
        const core::model::Model model = net.build();
        const double T = 2 * kPi * std::sqrt(m / k);
        const auto r = test::run(model, tight(35 * T));
        const auto up = crossings(r, "m.x", 0.0, +1);
        QVERIFY(up.size() >= 30);
        QCOMPARE_NEAR(meanPeriod(up), T, 1e-6 * T);
        const double E0 = 0.5 * m * v0 * v0;
        double worst = 0.0;
        for (std::size_t i = 0; i < r.rows(); ++i) {
            const double x = r.values("m.x")[i], v = r.values("m.v")[i];
            worst = std::max(worst, std::abs(0.5 * m * v * v + 0.5 * k * x * x - E0) / E0);
        }
        QVERIFY2(worst < 35 * 1e-5, qPrintable(QString("energy drift %1").arg(worst)));
        // the spring's force is k x and the mass's acceleration -k x / m
        QCOMPARE_NEAR(test::last(r, "k.f"), k * test::last(r, "k.x"), 1e-9);
        QCOMPARE_NEAR(test::last(r, "m.a"), -(k / m * test::last(r, "m.x")), 1e-5);
    }

    // J phi'' + d phi' + k phi = 0: logarithmic decrement 2 pi zeta / sqrt(1 - zeta^2)
    void dampedRotationalOscillator() {
        const double J = 0.01, k = 1.0, d = 0.004;
        test::ModelBuilder net;
        net.block("J", "rotational.inertia", {{"inertia", 0.01}, {"initial_velocity", "60 rpm"}})
            .block("k", "rotational.spring", {{"stiffness", 1.0}})
            .block("d", "rotational.damper", {{"damping", 0.004}})
            .block("g", "rotational.reference");
        net.connect("J.I", "k.R").connect("k.C", "g.R").connect("J.I", "d.R").connect("d.C", "g.R");
        const core::model::Model model = net.build();
        const double wn = std::sqrt(k / J), zeta = d / (2 * std::sqrt(k * J)), wd = wn * std::sqrt(1 - zeta * zeta);
        const auto r = test::run(model, tight(10.0, 2e-4));
        QCOMPARE(r.values("J.w").front(), 2 * kPi);   // 60 rpm in rad/s
        // amplitude envelope: phi(t) = (w0/wd) e^{-zeta wn t} sin(wd t)
        for (double t : {0.5, 2.0, 5.0, 9.0}) {
            const double expected = 2 * kPi / wd * std::exp(-zeta * wn * t) * std::sin(wd * t);
            QCOMPARE_NEAR(at(r, "J.phi", t), expected, 2e-5, QString("t = %1").arg(t));
        }
        const auto up = crossings(r, "J.phi", 0.0, +1);
        QCOMPARE_NEAR(meanPeriod(up), 2 * kPi / wd, 1e-6);
        QCOMPARE_NEAR(test::last(r, "d.power"), d * std::pow(test::last(r, "J.w"), 2), 1e-12);
    }

    // two free masses joined by a spring: momentum is conserved, the centre of mass drifts
    void twoMassesMomentum() {
        test::ModelBuilder net;
        net.block("a", "translational.mass", {{"mass", 1.0}, {"initial_velocity", 3.0}})
            .block("b", "translational.mass", {{"mass", 3.0}, {"initial_velocity", -1.0}})
            .block("k", "translational.spring", {{"stiffness", 500.0}});
        net.connect("a.M", "k.R").connect("k.C", "b.M");
        const core::model::Model model = net.build();
        const auto r = test::run(model, tight(3.0));
        for (std::size_t i = 0; i < r.rows(); i += 97) {
            const double p = 1 * r.values("a.v")[i] + 3 * r.values("b.v")[i];
            QCOMPARE_NEAR(p, 0.0, 1e-6, QString("momentum at t = %1").arg(r.time()[i]));
        }
        // relative motion: reduced mass 0.75, omega = sqrt(500/0.75)
        const double w = std::sqrt(500 / 0.75);
        QCOMPARE_NEAR(at(r, "k.x", 1.0), 4 / w * std::sin(w * 1.0), 1e-5);
    }

    // springs in series with no mass between them: k = k1 k2 / (k1 + k2); index reduction
    void seriesSprings() {
        test::ModelBuilder net;
        net.block("m", "translational.mass", {{"mass", 1.0}, {"initial_velocity", 1.0}})
            .block("k1", "translational.spring", {{"stiffness", 100.0}})
            .block("k2", "translational.spring", {{"stiffness", 300.0}})
            .block("g", "translational.reference");
        net.connect("m.M", "k1.R").connect("k1.C", "k2.R").connect("k2.C", "g.R");
        const core::model::Model model = net.build();
        const double w = std::sqrt(75.0);
        const auto r = test::run(model, tight(5.0));
        QCOMPARE_NEAR(meanPeriod(crossings(r, "m.x", 0.0, +1)), 2 * kPi / w, 1e-6);
        for (double t : {0.3, 1.7, 4.2}) {
            QCOMPARE_NEAR(at(r, "m.x", t), std::sin(w * t) / w, 1e-6);
            QCOMPARE_NEAR(at(r, "k1.f", t), at(r, "k2.f", t), 1e-6);   // the original constraint holds
        }
    }

    // a velocity source driving a mass directly: the source's force is -m a, v follows S exactly
    void velocitySourceOnMass() {
        test::ModelBuilder net;
        net.block("s", "signal.sine", {{"amplitude", 0.2}, {"frequency", 2.0}})
            .block("vs", "translational.velocity_source")
            .block("m", "translational.mass", {{"mass", 3.0}})
            .block("g", "translational.reference");
        net.connect("s.y", "vs.S").connect("vs.R", "m.M").connect("vs.C", "g.R");
        const core::model::Model model = net.build();
        const auto r = test::run(model, tight(1.0));
        for (std::size_t i = 0; i < r.rows(); i += 50) {
            const double t = r.time()[i];
            QCOMPARE_NEAR(r.values("m.v")[i], 0.2 * std::sin(4 * kPi * t), 1e-9);
            const double a = 0.2 * 4 * kPi * std::cos(4 * kPi * t);
            QCOMPARE_NEAR(r.values("vs.f")[i], -3 * a, 1e-6, QString("t = %1").arg(t));
        }
    }

    // a rigid chain through a force sensor: one body; the sensor reads the force on the far mass
    void rigidChainThroughForceSensor() {
        test::ModelBuilder net;
        net.block("f", "signal.constant", {{"value", "6 N"}})
            .block("fs", "translational.force_source")
            .block("a", "translational.mass", {{"mass", 1.0}, {"initial_velocity", 3.0}})
            .block("sens", "translational.force_sensor")
            .block("b", "translational.mass", {{"mass", 2.0}})
            .block("g", "translational.reference")
            .block("probe", "signal.gain");
        net.connect("f.y", "fs.S").connect("fs.R", "a.M").connect("fs.C", "g.R").connect("a.M", "sens.R");
        net.connect("sens.C", "b.M").connect("sens.f", "probe.u");
        const core::model::Model model = net.build();
        const auto r = test::run(model, tight(1.0));
        // initial velocities made consistent by momentum: (1*3 + 2*0)/3 = 1
        QCOMPARE_NEAR(r.values("a.v").front(), 1.0, 1e-9);
        QCOMPARE_NEAR(r.values("b.v").front(), 1.0, 1e-9);
        QCOMPARE_NEAR(test::last(r, "b.v"), 3.0, 1e-8);   // a = 6/3
        QCOMPARE_NEAR(test::last(r, "b.x"), 2.0, 1e-8);
        QCOMPARE_NEAR(at(r, "probe.y", 0.5), 4.0, 1e-8);   // pushes b: m_b * a = 4 N
    }

    // wheel and axle: a torque on the axle sees J + m r^2
    void wheelAxleReflectedInertia() {
        test::ModelBuilder net;
        net.block("T", "signal.constant", {{"value", 2.0}})
            .block("ts", "rotational.torque_source")
            .block("J", "rotational.inertia", {{"inertia", 0.05}})
            .block("w", "mechanical.wheel_axle", {{"radius", "200 mm"}})
            .block("m", "translational.mass", {{"mass", 5.0}})
            .block("rg", "rotational.reference");
        net.connect("T.y", "ts.S").connect("ts.R", "J.I").connect("ts.C", "rg.R").connect("J.I", "w.A");
        net.connect("w.P", "m.M");
        const core::model::Model model = net.build();
        const auto r = test::run(model, tight(1.0));
        const double alpha = 2.0 / (0.05 + 5 * 0.2 * 0.2);
        QCOMPARE_NEAR(test::last(r, "J.w"), alpha, 1e-7);
        QCOMPARE_NEAR(test::last(r, "m.v"), 0.2 * alpha, 1e-7);
        QCOMPARE_NEAR(test::last(r, "w.f"), -(5 * 0.2 * alpha), 1e-6);   // f flows from P into the wheel
        QCOMPARE_NEAR(test::last(r, "w.t"), 0.2 * 5 * 0.2 * alpha, 1e-6);
    }
};

QTEST_GUILESS_MAIN(TestLinearPhysics)
#include "tst_linear_physics.moc"
