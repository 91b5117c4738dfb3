// SPDX-License-Identifier: GPL-3.0-or-later
// Ideal gear, clutch and brake against closed forms: the inertia a gear reflects, its torque
// ratio and power balance, backlash after a gear, a gear fed by a speed source; a clutch that
// locks when momentum says, breaks away at its peak torque, follows its friction table, stays
// free while the normal force is not positive; a brake that stops a mass where mu * fn says.
// Every mode and every bad parameter. Physics at rtol 1e-6 and 1e-8 (atol = rtol / 100).
#include "blocks/friction_helpers.hpp"

#include "core/units/unit.hpp"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace endstop;
using core::EventKind;
using test::at;
using test::eventTimes;

namespace {

constexpr double K = 20.0;   // tolerance = K * rtol * scale

std::string num(double x) { return core::formatNumber(x); }

void rtolRows() {
    QTest::addColumn<double>("rtol");
    QTest::newRow("rtol 1e-6") << 1e-6;
    QTest::newRow("rtol 1e-8") << 1e-8;
}

// A torque T on inertia `a` (J_A), a gear of the given ratio, inertia `b` (J_B); `extra` adds
// blocks and connections (JSON fragments starting with a comma).
core::Model gearPair(double T, double ratio, double ja, double jb, bool torqueAtB = false, const std::string& extraBlocks = "",
                     const std::string& extraWires = "") {
    const std::string driven = torqueAtB ? "b.I" : "a.I";
    return test::modelFromJson(R"({"blocks":[
        {"name":"T","type":"signal.constant","parameters":{"value":)" + num(T) + R"(}},
        {"name":"src","type":"rotational.torque_source"},
        {"name":"a","type":"rotational.inertia","parameters":{"inertia":)" + num(ja) + R"(}},
        {"name":"gear","type":"rotational.ideal_gear","parameters":{"ratio":)" + num(ratio) + R"(}},
        {"name":"b","type":"rotational.inertia","parameters":{"inertia":)" + num(jb) + R"(}},
        {"name":"g","type":"rotational.reference"})" + extraBlocks + R"(],
        "connections":[["T.y","src.S"],["src.R",")" + driven + R"("],["src.C","g.R"],["a.I","gear.A"],["gear.B","b.I"])" +
                                 extraWires + "]}");
}

// Two inertias (ja with w0, jb at rest) joined by a clutch pressed by the signal block `u`.
core::Model clutchPair(const std::string& u, double ja, double w0, double jb, const std::string& clutchParams) {
    return test::modelFromJson(R"({"blocks":[)" + u + R"(,
        {"name":"a","type":"rotational.inertia","parameters":{"inertia":)" + num(ja) + R"(,"initial_velocity":)" + num(w0) + R"(}},
        {"name":"c","type":"rotational.clutch","parameters":{)" + clutchParams + R"(}},
        {"name":"b","type":"rotational.inertia","parameters":{"inertia":)" + num(jb) + R"(}}],
        "connections":[["u.y","c.u"],["a.I","c.R"],["c.C","b.I"]]})");
}
std::string constantU(double value) { return R"({"name":"u","type":"signal.constant","parameters":{"value":)" + num(value) + "}}"; }

}  // namespace

class TestDrivetrain : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Torque at A: J_A * alpha_A = T - t, J_B * alpha_B = ratio * t, alpha_A = ratio * alpha_B, so
    // alpha_A = T / (J_A + J_B / ratio^2); torque at B: alpha_B = T / (J_B + ratio^2 * J_A).
    void gearReflectsInertia_data() { rtolRows(); }
    void gearReflectsInertia() {
        QFETCH(double, rtol);
        const double T = 3, ratio = 4, ja = 0.05, jb = 2;
        const auto atA = test::run(gearPair(T, ratio, ja, jb), test::solverOptions(1.0, rtol));
        const double alphaA = T / (ja + jb / (ratio * ratio));
        ENDSTOP_CLOSE("w_A at 1 s", test::last(atA, "a.w"), alphaA, K * rtol * alphaA);
        ENDSTOP_CLOSE("w_B = w_A / ratio", test::last(atA, "b.w"), alphaA / ratio, K * rtol * alphaA);
        ENDSTOP_CLOSE("gear.w is w_A", test::last(atA, "gear.w"), alphaA, K * rtol * alphaA);
        ENDSTOP_CLOSE("torque into the gear at A", test::last(atA, "gear.t"), T - ja * alphaA, K * rtol * T);
        ENDSTOP_CLOSE("phi_A = ratio * phi_B", test::last(atA, "a.phi"), ratio * test::last(atA, "b.phi"), K * rtol * alphaA);

        const auto atB = test::run(gearPair(T, ratio, ja, jb, true), test::solverOptions(1.0, rtol));
        const double alphaB = T / (jb + ratio * ratio * ja);
        ENDSTOP_CLOSE("w_B at 1 s, torque at B", test::last(atB, "b.w"), alphaB, K * rtol * alphaB);
        ENDSTOP_CLOSE("w_A, torque at B", test::last(atB, "a.w"), ratio * alphaB, K * rtol * ratio * alphaB);
    }

    // The torque at B is -ratio times the torque at A (flows into the gear), so no power is made
    // or lost: t_A * w_A + t_B * w_B = 0 at every row; a negative ratio turns B backwards.
    void gearTorqueRatioAndPower() {
        const double ratio = -2.5;
        const auto r = test::run(gearPair(2, ratio, 0.1, 0.4, false, R"(,{"name":"k","type":"rotational.spring","parameters":{"stiffness":50}},
            {"name":"d","type":"rotational.damper","parameters":{"damping":0.3}})",
                                          R"(,["b.I","k.R"],["k.C","g.R"],["b.I","d.R"],["d.C","g.R"])"),
                                 test::solverOptions(3.0, 1e-8, 0.01));
        double worst = 0, scale = 0;
        for (std::size_t i = 0; i < r.rows(); ++i) {
            const double tA = r.values("gear.t")[i], wA = r.values("gear.w")[i], wB = r.values("b.w")[i];
            worst = std::max(worst, std::abs(tA * wA + (-ratio * tA) * wB));
            scale = std::max(scale, std::abs(tA * wA));
        }
        QVERIFY(scale > 0.1);
        ENDSTOP_CLOSE("largest power through the gear", worst, 0.0, 1e-7 * scale);
        ENDSTOP_CLOSE("B turns backwards", std::copysign(1.0, at(r, "b.w", 0.2)), -1.0, 0.0);
        const double delivered = ratio * at(r, "gear.t", 1.5);   // -t_B: what node B receives
        const double rhs = delivered - 50 * at(r, "b.phi", 1.5) - 0.3 * at(r, "b.w", 1.5);
        ENDSTOP_CLOSE("J_B alpha_B = ratio t_A - spring - damper", 0.4 * at(r, "b.alpha", 1.5), rhs, 1e-5 * std::abs(delivered));
    }

    // At rtol 1e-10, atol 1e-14 a gear between two inertias once failed to start (IDACalcIC did not
    // converge) with a torque at t = 0, and stalled where a sine torque crossed zero: the dummy
    // derivative (an acceleration through the gear) was held to atol. Both runs now finish.
    void gearAtTightTolerances() {
        core::SimulationOptions o = test::solverOptions(1.0, 1e-10);
        o.absoluteTolerance = 1e-14;
        const auto start = test::run(gearPair(0.8, 4, 0.01, 0.02), o);
        QVERIFY(start.stats().completed);
        const double alphaA = 0.8 / (0.01 + 0.02 / 16);
        ENDSTOP_CLOSE("w_A at 1 s", test::last(start, "a.w"), alphaA, 1e-8 * alphaA);
        const auto crossing = test::run(gearPair(0, 10, 0.1, 2, false, R"(,{"name":"k","type":"rotational.spring","parameters":{"stiffness":1e4}},
            {"name":"c","type":"rotational.inertia","parameters":{"inertia":2}},{"name":"d","type":"rotational.damper","parameters":{"damping":10}},
            {"name":"sine","type":"signal.sine","parameters":{"amplitude":10,"frequency":5}},{"name":"src2","type":"rotational.torque_source"})",
                                                   R"(,["b.I","k.R"],["k.C","c.I"],["b.I","d.R"],["d.C","g.R"],["sine.y","src2.S"],["src2.R","a.I"],["src2.C","g.R"])"),
                                        o);
        QVERIFY(crossing.stats().completed);
        QCOMPARE(crossing.time().back(), 1.0);
    }

    // Backlash after the gear: B turns freely within +-0.05 rad and hits the stop when
    // phi_B = alpha_B t^2 / 2 = 0.05, with alpha_B = alpha_A / ratio.
    void gearDrivesHardStop_data() { rtolRows(); }
    void gearDrivesHardStop() {
        QFETCH(double, rtol);
        const double T = 1, ratio = 5, ja = 0.02, jb = 0.5;
        const auto r = test::run(gearPair(T, ratio, ja, jb, false,
                                          R"(,{"name":"stop","type":"rotational.hard_stop","parameters":{"upper_bound":0.05,"lower_bound":-0.05,
                                              "model":"full_damped","upper_damping":2000,"lower_damping":2000}})",
                                          R"(,["b.I","stop.R"],["stop.C","g.R"])"),
                                 test::solverOptions(1.0, rtol));
        const double alphaB = T / (ja + jb / (ratio * ratio)) / ratio;
        const auto bound = eventTimes(r, "stop", EventKind::Bound);
        QVERIFY(!bound.empty());
        ENDSTOP_CLOSE("B reaches the stop", bound.front(), std::sqrt(2 * 0.05 / alphaB), K * rtol * 10);
        // then held there: the stop takes the torque the gear passes on
        ENDSTOP_CLOSE("B rests against the stop", test::last(r, "b.phi"), 0.05, 1e-4);
        ENDSTOP_CLOSE("stop torque = ratio * T at rest", test::last(r, "stop.t"), ratio * T, 1e-3 * ratio * T);
    }

    // A speed source sets w_A = 2 t; B follows at w_A / ratio and the source must supply
    // t = J_B * alpha_B / ratio = J_B * 2 / ratio^2.
    void gearWithSpeedSource() {
        const double ratio = 3, jb = 0.6;
        const auto r = test::run(test::modelFromJson(R"({"blocks":[
            {"name":"w","type":"signal.ramp","parameters":{"slope":2}},
            {"name":"src","type":"rotational.speed_source"},
            {"name":"gear","type":"rotational.ideal_gear","parameters":{"ratio":)" + num(ratio) + R"(}},
            {"name":"b","type":"rotational.inertia","parameters":{"inertia":)" + num(jb) + R"(}},
            {"name":"g","type":"rotational.reference"}],
            "connections":[["w.y","src.S"],["src.R","gear.A"],["src.C","g.R"],["gear.B","b.I"]]})"),
                                 test::solverOptions(1.0, 1e-8, 0.01));
        ENDSTOP_CLOSE("w_B", test::last(r, "b.w"), 2.0 / ratio, 1e-8);
        ENDSTOP_CLOSE("alpha_B", test::last(r, "b.alpha"), 2.0 / ratio, 1e-6);
        ENDSTOP_CLOSE("torque into the gear", at(r, "gear.t", 0.5), jb * 2 / (ratio * ratio), 1e-6);
    }

    // Sliding at t = cgeo * mu * fn until the speeds meet, when momentum is shared:
    // t_lock = w0 / (T (1/J_A + 1/J_B)), w = J_A w0 / (J_A + J_B); then locked, nothing logged after.
    void clutchLocksWhenMomentumSays_data() { rtolRows(); }
    void clutchLocksWhenMomentumSays() {
        QFETCH(double, rtol);
        const double ja = 1, w0 = 10, jb = 3, fn = 20, cgeo = 0.2, mu = 0.4;
        const auto r = test::run(clutchPair(constantU(1), ja, w0, jb,
                                            R"("fn_max":20,"cgeo":"200 mm","mu_values":[0.4],"peak":1.2)"),
                                 test::solverOptions(6.0, rtol, 0.01));
        const double T = cgeo * mu * fn;
        const double tLock = w0 / (T * (1 / ja + 1 / jb));
        ENDSTOP_CLOSE("sliding torque", at(r, "c.t", 0.5), T, K * rtol * T);
        ENDSTOP_CLOSE("normal force", at(r, "c.fn", 0.5), fn, 1e-12);
        ENDSTOP_CLOSE("forward sliding", at(r, "c.mode", 0.5), 1.0, 0.0);
        const auto locks = eventTimes(r, "c", EventKind::Lock);
        QCOMPARE(locks.size(), std::size_t(1));
        ENDSTOP_CLOSE("lock time", locks[0], tLock, K * rtol * 10);
        QVERIFY(eventTimes(r, "c", EventKind::Unlock).empty());
        ENDSTOP_CLOSE("common speed", test::last(r, "b.w"), ja * w0 / (ja + jb), K * rtol * w0);
        ENDSTOP_CLOSE("locked", test::last(r, "c.mode"), 0.0, 0.0);
        ENDSTOP_CLOSE("no torque once locked", test::last(r, "c.t"), 0.0, 1e-6);
    }

    // Locked, a torque k t on A: the clutch passes J_B / (J_A + J_B) of it and lets go when that
    // reaches peak * cgeo * mu(0) * fn; then it slides forward with cgeo * mu * fn.
    void clutchBreaksAwayAtPeak_data() { rtolRows(); }
    void clutchBreaksAwayAtPeak() {
        QFETCH(double, rtol);
        const double ja = 0.5, jb = 1.5, k = 4, fn = 10, mu0 = 0.3, peak = 1.5;
        const auto r = test::run(test::modelFromJson(R"({"blocks":[
            {"name":"u","type":"signal.constant"},
            {"name":"T","type":"signal.ramp","parameters":{"slope":)" + num(k) + R"(}},
            {"name":"src","type":"rotational.torque_source"},
            {"name":"a","type":"rotational.inertia","parameters":{"inertia":)" + num(ja) + R"(}},
            {"name":"c","type":"rotational.clutch","parameters":{"fn_max":)" + num(fn) + R"(,"mu_values":[)" + num(mu0) +
                                                           R"(],"peak":)" + num(peak) + R"(}},
            {"name":"b","type":"rotational.inertia","parameters":{"inertia":)" + num(jb) + R"(}},
            {"name":"g","type":"rotational.reference"}],
            "connections":[["T.y","src.S"],["src.R","a.I"],["src.C","g.R"],["u.y","c.u"],["a.I","c.R"],["c.C","b.I"]]})"),
                                 test::solverOptions(3.0, rtol, 0.01));
        const double limit = peak * mu0 * fn;
        const double tb = limit * (ja + jb) / (jb * k);
        QCOMPARE(eventTimes(r, "c", EventKind::Lock).size(), std::size_t(1));   // locked from the start
        const auto unlock = eventTimes(r, "c", EventKind::Unlock);
        QCOMPARE(unlock.size(), std::size_t(1));
        ENDSTOP_CLOSE("breakaway time", unlock[0], tb, K * rtol * 10);
        ENDSTOP_CLOSE("holding torque before", at(r, "c.t", tb / 2), jb * k * (tb / 2) / (ja + jb), K * rtol * limit);
        ENDSTOP_CLOSE("locked before", at(r, "c.mode", tb / 2), 0.0, 0.0);
        ENDSTOP_CLOSE("kinetic torque after", test::last(r, "c.t"), mu0 * fn, K * rtol * limit);
        ENDSTOP_CLOSE("forward sliding after", test::last(r, "c.mode"), 1.0, 0.0);
        // b feels only the kinetic torque after the breakaway
        ENDSTOP_CLOSE("b accelerates with mu fn / J_B", test::last(r, "b.alpha"), mu0 * fn / jb, 1e-5);
    }

    // Two equal clutches from a driven middle inertia to equal outer ones hold the same torque
    // k t J0 / (J0 + J1 + J2) and break away at the same instant: both slide on (one backward, one
    // forward), once, with the outer inertias pulled at mu fn / J0.
    void clutchesBreakAwayTogether() {
        const double j0 = 1, j1 = 0.5, k = 6, fn = 10, mu0 = 0.4, peak = 1.25;
        const std::string clutch = R"(,"type":"rotational.clutch","parameters":{"fn_max":10,"mu_values":[0.4],"peak":1.25}})";
        const auto r = test::run(test::modelFromJson(R"({"blocks":[
            {"name":"u","type":"signal.constant"},{"name":"T","type":"signal.ramp","parameters":{"slope":6}},
            {"name":"src","type":"rotational.torque_source"},{"name":"g","type":"rotational.reference"},
            {"name":"left","type":"rotational.inertia","parameters":{"inertia":1}},
            {"name":"mid","type":"rotational.inertia","parameters":{"inertia":0.5}},
            {"name":"right","type":"rotational.inertia","parameters":{"inertia":1}},
            {"name":"cl")" + clutch + R"(,{"name":"cr")" + clutch + R"(],
            "connections":[["T.y","src.S"],["src.R","mid.I"],["src.C","g.R"],["u.y","cl.u"],["u.y","cr.u"],
                           ["left.I","cl.R"],["cl.C","mid.I"],["mid.I","cr.R"],["cr.C","right.I"]]})"),
                                 test::solverOptions(3.0, 1e-8, 0.01));
        const double tb = peak * mu0 * fn * (j0 + j1 + j0) / (j0 * k);
        const auto left = eventTimes(r, "cl", EventKind::Unlock), right = eventTimes(r, "cr", EventKind::Unlock);
        QCOMPARE(left.size(), std::size_t(1));
        QCOMPARE(right.size(), std::size_t(1));
        ENDSTOP_CLOSE("left breaks away", left[0], tb, 1e-6);
        QCOMPARE(right[0], left[0]);
        ENDSTOP_CLOSE("left slides backward", test::last(r, "cl.mode"), -1.0, 0.0);
        ENDSTOP_CLOSE("right slides forward", test::last(r, "cr.mode"), 1.0, 0.0);
        ENDSTOP_CLOSE("outer inertias pulled at mu fn / J0", test::last(r, "left.alpha"), mu0 * fn / j0, 1e-6);
        ENDSTOP_CLOSE("symmetric", test::last(r, "right.w"), test::last(r, "left.w"), 1e-9);
    }

    // mu from the table at the relative speed: (0, 0.6), (20, 0.5), (40, 0.45), linear beyond
    void clutchFollowsFrictionTable() {
        const auto r = test::run(clutchPair(constantU(1), 1, 50, 1, R"("fn_max":5,"mu_speeds":[0,20,40],"mu_values":[0.6,0.5,0.45])"),
                                 test::solverOptions(12.0, 1e-8, 0.05));
        const auto mu = [](double w) { return w < 20 ? 0.6 - 0.005 * w : 0.5 - 0.0025 * (w - 20); };
        int above = 0, middle = 0, below = 0;
        for (std::size_t i = 1; i < r.rows(); ++i) {
            const double w = r.values("c.w")[i];
            if (w <= 0.1) break;
            ENDSTOP_CLOSE(qPrintable(QString("torque at w = %1").arg(w)), r.values("c.t")[i], 5 * mu(w), 1e-7);
            (w > 40 ? above : w > 20 ? middle : below) += 1;
        }
        QVERIFY(above > 5 && middle > 5 && below > 5);   // extrapolated, between points, first segment
        QCOMPARE(eventTimes(r, "c", EventKind::Lock).size(), std::size_t(1));
    }

    // u = 0 until 0.5 s: free (b stays at rest, mode 2), then engages sliding; u = -1: never engages.
    void clutchFreeUntilPressed() {
        const auto r = test::run(clutchPair(R"({"name":"u","type":"signal.step","parameters":{"step_time":0.5}})", 1, 10, 1,
                                            R"("fn_max":10)"),
                                 test::solverOptions(1.0, 1e-8, 0.01));
        ENDSTOP_CLOSE("free before", at(r, "c.mode", 0.25), 2.0, 0.0);
        ENDSTOP_CLOSE("b at rest while free", at(r, "b.w", 0.45), 0.0, 1e-12);
        ENDSTOP_CLOSE("no torque while free", at(r, "c.t", 0.25), 0.0, 1e-12);
        const auto engage = eventTimes(r, "c", EventKind::Engage);
        QCOMPARE(engage.size(), std::size_t(1));
        QCOMPARE(engage[0], 0.5);
        ENDSTOP_CLOSE("slides forward after", at(r, "c.mode", 0.75), 1.0, 0.0);
        ENDSTOP_CLOSE("b speeds up at mu fn / J_B", test::last(r, "b.w"), 0.5 * 10 * 0.5, 1e-6);

        const auto pulled = test::run(clutchPair(constantU(-1), 1, 10, 1, R"("fn_max":10)"), test::solverOptions(1.0, 1e-8, 0.1));
        QVERIFY(eventTimes(pulled, "c", EventKind::Engage).empty());
        ENDSTOP_CLOSE("negative u: free", test::last(pulled, "c.mode"), 2.0, 0.0);
        ENDSTOP_CLOSE("negative u: a keeps its speed", test::last(pulled, "a.w"), 10.0, 1e-12);
    }

    // u = cos(2 pi t): engaged until u falls to 0 at 0.25 s (disengage), free until 0.75 s (engage).
    void clutchDisengagesAndEngagesWithSignal_data() { rtolRows(); }
    void clutchDisengagesAndEngagesWithSignal() {
        QFETCH(double, rtol);
        const auto r = test::run(clutchPair(R"({"name":"u","type":"signal.sine","parameters":{"phase":1.5707963267948966}})", 1, 100,
                                            1, R"("fn_max":1)"),
                                 test::solverOptions(1.0, rtol, 0.01));
        const auto off = eventTimes(r, "c", EventKind::Disengage), on = eventTimes(r, "c", EventKind::Engage);
        QCOMPARE(off.size(), std::size_t(1));
        QCOMPARE(on.size(), std::size_t(1));
        ENDSTOP_CLOSE("disengage", off[0], 0.25, K * rtol);
        ENDSTOP_CLOSE("engage", on[0], 0.75, K * rtol);
        ENDSTOP_CLOSE("free between", at(r, "c.mode", 0.5), 2.0, 0.0);
        // sliding torque 0.5 * cos(2 pi t): b gains 0.5 * sin(2 pi t) / (2 pi) while engaged
        ENDSTOP_CLOSE("b at the disengagement", at(r, "b.w", 0.5), 0.5 / (2 * std::numbers::pi), K * rtol);
    }

    // A brake (C grounded) on a mass sliding at v0: f = mu * fn until v = 0 at m v0 / (mu fn), after
    // m v0^2 / (2 mu fn); then locked for good.
    void brakeStopsMass_data() { rtolRows(); }
    void brakeStopsMass() {
        QFETCH(double, rtol);
        const double m = 50, v0 = 4, fn = 400, mu = 0.35;
        const auto r = test::run(test::modelFromJson(R"({"blocks":[
            {"name":"u","type":"signal.constant"},
            {"name":"m","type":"translational.mass","parameters":{"mass":)" + num(m) + R"(,"initial_velocity":)" + num(v0) + R"(}},
            {"name":"b","type":"translational.brake","parameters":{"fn_max":"400 N","mu_values":[0.35],"peak":1.3}},
            {"name":"g","type":"translational.reference"}],
            "connections":[["u.y","b.u"],["m.M","b.R"],["b.C","g.R"]]})"),
                                 test::solverOptions(3.0, rtol, 0.01));
        const double tStop = m * v0 / (mu * fn), distance = m * v0 * v0 / (2 * mu * fn);
        const auto locks = eventTimes(r, "b", EventKind::Lock);
        QCOMPARE(locks.size(), std::size_t(1));
        ENDSTOP_CLOSE("stop time", locks[0], tStop, K * rtol * 10);
        ENDSTOP_CLOSE("stopping distance", test::last(r, "m.x"), distance, K * rtol * distance);
        ENDSTOP_CLOSE("braking force", at(r, "b.f", tStop / 2), mu * fn, K * rtol * mu * fn);
        ENDSTOP_CLOSE("at rest", test::last(r, "m.v"), 0.0, 1e-9);
        QVERIFY(eventTimes(r, "b", EventKind::Unlock).empty());
    }

    void badParameters_data() {
        QTest::addColumn<QString>("block");
        QTest::addColumn<QString>("expected");
        QTest::newRow("gear ratio 0") << R"({"name":"g","type":"rotational.ideal_gear","parameters":{"ratio":0}})"
                                      << "block 'g', parameter 'ratio': must not be 0";
        QTest::newRow("clutch fn_max < 0") << R"({"name":"c","type":"rotational.clutch","parameters":{"fn_max":-1}})"
                                           << "block 'c', parameter 'fn_max': must be >= 0 N";
        QTest::newRow("clutch cgeo 0") << R"({"name":"c","type":"rotational.clutch","parameters":{"fn_max":1,"cgeo":0}})"
                                       << "block 'c', parameter 'cgeo': must be > 0 m";
        QTest::newRow("clutch peak < 1") << R"({"name":"c","type":"rotational.clutch","parameters":{"fn_max":1,"peak":0.9}})"
                                         << "block 'c', parameter 'peak': must be >= 1";
        QTest::newRow("clutch table lengths") << R"({"name":"c","type":"rotational.clutch","parameters":{"fn_max":1,"mu_speeds":[0,1],"mu_values":[0.5]}})"
                                              << "block 'c', parameter 'mu_values': must have as many elements as mu_speeds (2), got 1";
        QTest::newRow("clutch speeds order") << R"({"name":"c","type":"rotational.clutch","parameters":{"fn_max":1,"mu_speeds":[0,2,1],"mu_values":[0.5,0.4,0.3]}})"
                                             << "block 'c', parameter 'mu_speeds': must be strictly increasing (element 3)";
        QTest::newRow("clutch no table") << R"({"name":"c","type":"rotational.clutch","parameters":{"fn_max":1,"mu_speeds":[],"mu_values":[]}})"
                                         << "block 'c', parameter 'mu_speeds': needs at least one speed";
        QTest::newRow("clutch negative mu") << R"({"name":"c","type":"rotational.clutch","parameters":{"fn_max":1,"mu_values":[-0.1]}})"
                                            << "block 'c', parameter 'mu_values': every element must be >= 0";
        QTest::newRow("clutch negative speed") << R"({"name":"c","type":"rotational.clutch","parameters":{"fn_max":1,"mu_speeds":[-1,0],"mu_values":[0.5,0.5]}})"
                                               << "block 'c', parameter 'mu_speeds': every element must be >= 0";
        QTest::newRow("brake threshold") << R"({"name":"b","type":"translational.brake","parameters":{"fn_max":1,"velocity_threshold":0}})"
                                         << "block 'b', parameter 'velocity_threshold': must be > 0 m/s";
    }
    void badParameters() {
        QFETCH(QString, block);
        QFETCH(QString, expected);
        const QStringList errors = test::buildErrors(test::modelFromJson(R"({"blocks":[)" + block.toStdString() + "]}"));
        QVERIFY2(!errors.isEmpty(), "no error");
        QVERIFY2(errors.front().startsWith(expected), qPrintable(errors.join('\n')));
    }

    // fn_max = 0 (the default) is allowed but never engages: a warning says so
    void clutchWithoutForceWarns() {
        const auto d = blocks::registry().create("rotational.clutch", {})->validate();
        QCOMPARE(d.size(), std::size_t(1));
        QCOMPARE(d[0].severity, core::Severity::Warning);
        QCOMPARE(d[0].param, std::string("fn_max"));
        QVERIFY(blocks::registry().create("translational.brake", {{"fn_max", 1.0}})->validate().empty());
    }
};

QTEST_GUILESS_MAIN(TestDrivetrain)
#include "tst_drivetrain.moc"
