// SPDX-License-Identifier: GPL-3.0-or-later
// The linear library against closed forms. Tolerances follow from the solver tolerance: every run
// uses rtol = 1e-8, atol = 1e-10 unless said, and the bounds allow the global error to grow with
// the number of periods simulated.
#include "support/test_support.hpp"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace endstop;
using test::at;
using test::crossings;
using test::modelFromJson;

namespace {
constexpr double kPi = std::numbers::pi;

core::SimulationOptions tight(double stop, double interval = 1e-3) { return test::solverOptions(stop, 1e-8, interval); }

double meanPeriod(const std::vector<double>& upCrossings) {
    return (upCrossings.back() - upCrossings.front()) / static_cast<double>(upCrossings.size() - 1);
}
}  // namespace

class TestLinearPhysics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // m x'' + k x = 0: period 2 pi sqrt(m/k), energy constant over 30+ periods
    void undampedOscillator() {
        const double m = 2.0, k = 800.0, v0 = 0.5;
        const auto model = modelFromJson(R"({"blocks":[
            {"name":"m","type":"translational.mass","parameters":{"mass":2,"initial_velocity":0.5}},
            {"name":"k","type":"translational.spring","parameters":{"stiffness":800}},
            {"name":"g","type":"translational.reference"}],
            "connections":[["m.M","k.R"],["k.C","g.R"]]})");
        const double T = 2 * kPi * std::sqrt(m / k);
        const auto r = test::run(model, tight(35 * T));
        const auto up = crossings(r, "m.x", 0.0, +1);
        QVERIFY(up.size() >= 30);
        QVERIFY2(std::abs(meanPeriod(up) - T) < 1e-6 * T, qPrintable(QString("period %1 vs %2").arg(meanPeriod(up)).arg(T)));
        const double E0 = 0.5 * m * v0 * v0;
        double worst = 0.0;
        for (std::size_t i = 0; i < r.rows(); ++i) {
            const double x = r.values("m.x")[i], v = r.values("m.v")[i];
            worst = std::max(worst, std::abs(0.5 * m * v * v + 0.5 * k * x * x - E0) / E0);
        }
        QVERIFY2(worst < 35 * 1e-5, qPrintable(QString("energy drift %1").arg(worst)));
        // the spring's force is k x and the mass's acceleration -k x / m
        QCOMPARE_LE(std::abs(test::last(r, "k.f") - k * test::last(r, "k.x")), 1e-9);
        QCOMPARE_LE(std::abs(test::last(r, "m.a") + k / m * test::last(r, "m.x")), 1e-5);
    }

    // J phi'' + d phi' + k phi = 0: logarithmic decrement 2 pi zeta / sqrt(1 - zeta^2)
    void dampedRotationalOscillator() {
        const double J = 0.01, k = 1.0, d = 0.004;
        const auto model = modelFromJson(R"({"blocks":[
            {"name":"J","type":"rotational.inertia","parameters":{"inertia":0.01,"initial_velocity":"60 rpm"}},
            {"name":"k","type":"rotational.spring","parameters":{"stiffness":1}},
            {"name":"d","type":"rotational.damper","parameters":{"damping":0.004}},
            {"name":"g","type":"rotational.reference"}],
            "connections":[["J.I","k.R"],["k.C","g.R"],["J.I","d.R"],["d.C","g.R"]]})");
        const double wn = std::sqrt(k / J), zeta = d / (2 * std::sqrt(k * J)), wd = wn * std::sqrt(1 - zeta * zeta);
        const auto r = test::run(model, tight(10.0, 2e-4));
        QCOMPARE(r.values("J.w").front(), 2 * kPi);   // 60 rpm in rad/s
        // amplitude envelope: phi(t) = (w0/wd) e^{-zeta wn t} sin(wd t)
        for (double t : {0.5, 2.0, 5.0, 9.0}) {
            const double expected = 2 * kPi / wd * std::exp(-zeta * wn * t) * std::sin(wd * t);
            QVERIFY2(std::abs(at(r, "J.phi", t) - expected) < 2e-5, qPrintable(QString("phi(%1) = %2, expected %3").arg(t).arg(at(r, "J.phi", t)).arg(expected)));
        }
        const auto up = crossings(r, "J.phi", 0.0, +1);
        QVERIFY(std::abs(meanPeriod(up) - 2 * kPi / wd) < 1e-6);
        QVERIFY(std::abs(test::last(r, "d.power") - d * std::pow(test::last(r, "J.w"), 2)) < 1e-12);
    }

    // two free masses joined by a spring: momentum is conserved, the centre of mass drifts
    void twoMassesMomentum() {
        const auto model = modelFromJson(R"({"blocks":[
            {"name":"a","type":"translational.mass","parameters":{"mass":1,"initial_velocity":3}},
            {"name":"b","type":"translational.mass","parameters":{"mass":3,"initial_velocity":-1}},
            {"name":"k","type":"translational.spring","parameters":{"stiffness":500}}],
            "connections":[["a.M","k.R"],["k.C","b.M"]]})");
        const auto r = test::run(model, tight(3.0));
        for (std::size_t i = 0; i < r.rows(); i += 97) {
            const double p = 1 * r.values("a.v")[i] + 3 * r.values("b.v")[i];
            QVERIFY2(std::abs(p - 0.0) < 1e-6, qPrintable(QString("momentum %1 at t=%2").arg(p).arg(r.time()[i])));
        }
        // relative motion: reduced mass 0.75, omega = sqrt(500/0.75)
        const double w = std::sqrt(500 / 0.75);
        QVERIFY(std::abs(at(r, "k.x", 1.0) - 4 / w * std::sin(w * 1.0)) < 1e-5);
    }

    // springs in series with no mass between them: k = k1 k2 / (k1 + k2); index reduction
    void seriesSprings() {
        const auto model = modelFromJson(R"({"blocks":[
            {"name":"m","type":"translational.mass","parameters":{"mass":1,"initial_velocity":1}},
            {"name":"k1","type":"translational.spring","parameters":{"stiffness":100}},
            {"name":"k2","type":"translational.spring","parameters":{"stiffness":300}},
            {"name":"g","type":"translational.reference"}],
            "connections":[["m.M","k1.R"],["k1.C","k2.R"],["k2.C","g.R"]]})");
        const double w = std::sqrt(75.0);
        const auto r = test::run(model, tight(5.0));
        QVERIFY(std::abs(meanPeriod(crossings(r, "m.x", 0.0, +1)) - 2 * kPi / w) < 1e-6);
        for (double t : {0.3, 1.7, 4.2}) {
            QVERIFY(std::abs(at(r, "m.x", t) - std::sin(w * t) / w) < 1e-6);
            QVERIFY(std::abs(at(r, "k1.f", t) - at(r, "k2.f", t)) < 1e-6);   // the original constraint holds
        }
    }

    // a velocity source driving a mass directly: the source's force is -m a, v follows S exactly
    void velocitySourceOnMass() {
        const auto model = modelFromJson(R"({"blocks":[
            {"name":"s","type":"signal.sine","parameters":{"amplitude":0.2,"frequency":2}},
            {"name":"vs","type":"translational.velocity_source"},
            {"name":"m","type":"translational.mass","parameters":{"mass":3}},
            {"name":"g","type":"translational.reference"}],
            "connections":[["s.y","vs.S"],["vs.R","m.M"],["vs.C","g.R"]]})");
        const auto r = test::run(model, tight(1.0));
        for (std::size_t i = 0; i < r.rows(); i += 50) {
            const double t = r.time()[i];
            QVERIFY(std::abs(r.values("m.v")[i] - 0.2 * std::sin(4 * kPi * t)) < 1e-9);
            const double a = 0.2 * 4 * kPi * std::cos(4 * kPi * t);
            QVERIFY2(std::abs(r.values("vs.f")[i] + 3 * a) < 1e-6, qPrintable(QString("f %1 vs %2").arg(r.values("vs.f")[i]).arg(-3 * a)));
        }
    }

    // a rigid chain through a force sensor: one body; the sensor reads the force on the far mass
    void rigidChainThroughForceSensor() {
        const auto model = modelFromJson(R"({"blocks":[
            {"name":"f","type":"signal.constant","parameters":{"value":"6 N"}},
            {"name":"fs","type":"translational.force_source"},
            {"name":"a","type":"translational.mass","parameters":{"mass":1,"initial_velocity":3}},
            {"name":"sens","type":"translational.force_sensor"},
            {"name":"b","type":"translational.mass","parameters":{"mass":2}},
            {"name":"g","type":"translational.reference"},
            {"name":"probe","type":"signal.gain"}],
            "connections":[["f.y","fs.S"],["fs.R","a.M"],["fs.C","g.R"],["a.M","sens.R"],["sens.C","b.M"],["sens.f","probe.u"]]})");
        const auto r = test::run(model, tight(1.0));
        // initial velocities made consistent by momentum: (1*3 + 2*0)/3 = 1
        QVERIFY(std::abs(r.values("a.v").front() - 1.0) < 1e-9);
        QVERIFY(std::abs(r.values("b.v").front() - 1.0) < 1e-9);
        QVERIFY(std::abs(test::last(r, "b.v") - 3.0) < 1e-8);        // a = 6/3
        QVERIFY(std::abs(test::last(r, "b.x") - 2.0) < 1e-8);
        QVERIFY(std::abs(at(r, "probe.y", 0.5) - 4.0) < 1e-8);       // pushes b: m_b * a = 4 N
    }

    // wheel and axle: a torque on the axle sees J + m r^2
    void wheelAxleReflectedInertia() {
        const auto model = modelFromJson(R"({"blocks":[
            {"name":"T","type":"signal.constant","parameters":{"value":2}},
            {"name":"ts","type":"rotational.torque_source"},
            {"name":"J","type":"rotational.inertia","parameters":{"inertia":0.05}},
            {"name":"w","type":"mechanical.wheel_axle","parameters":{"radius":"200 mm"}},
            {"name":"m","type":"translational.mass","parameters":{"mass":5}},
            {"name":"rg","type":"rotational.reference"}],
            "connections":[["T.y","ts.S"],["ts.R","J.I"],["ts.C","rg.R"],["J.I","w.A"],["w.P","m.M"]]})");
        const auto r = test::run(model, tight(1.0));
        const double alpha = 2.0 / (0.05 + 5 * 0.2 * 0.2);
        QVERIFY(std::abs(test::last(r, "J.w") - alpha) < 1e-7);
        QVERIFY(std::abs(test::last(r, "m.v") - 0.2 * alpha) < 1e-7);
        QVERIFY(std::abs(test::last(r, "w.f") + 5 * 0.2 * alpha) < 1e-6);   // f flows from P into the wheel
        QVERIFY(std::abs(test::last(r, "w.t") - 0.2 * 5 * 0.2 * alpha) < 1e-6);
    }
};

QTEST_GUILESS_MAIN(TestLinearPhysics)
#include "tst_linear_physics.moc"
