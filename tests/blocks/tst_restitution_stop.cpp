// SPDX-License-Identifier: GPL-3.0-or-later
// The hard stop's restitution law against closed forms: no penetration, and at an impact the
// core's momentum-conserving projection gives v+ = -e v- relative to what the stop joins. A body
// bouncing under gravity (impact times and speeds e^k v_1, static contact below the threshold,
// release when the lift passes the weight), two free bodies (momentum kept, the kinetic energy
// lost), a motion source on the case side (an infinite mass), and the Zeno limit of the bounces.
// The stiffness laws are in tst_hard_stop.
#include "support/compare.hpp"
#include "support/model_builder.hpp"
#include "support/test_support.hpp"

#include <QTest>

#include <cmath>

using namespace endstop;
using core::EventKind;

namespace {

// Bodies "a" and "b" with a stop between them (R at a, C at b).
core::model::Model twoBodies(bool rotational, double ma, double va, double mb, double vb,
                             const core::ParamValues& stopParameters) {
    const std::string domain = rotational ? "rotational" : "translational";
    const std::string type = rotational ? "rotational.inertia" : "translational.mass",
                      key = rotational ? "inertia" : "mass";
    const std::string port = rotational ? ".I" : ".M";
    test::ModelBuilder b;
    b.block("a", type, {{key, ma}, {"initial_velocity", va}})
        .block("b", type, {{key, mb}, {"initial_velocity", vb}})
        .block("stop", domain + ".hard_stop", stopParameters);
    b.connect("a" + port, "stop.R").connect("stop.C", "b" + port);
    return b.build();
}

}   // namespace

class TestRestitutionStop : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // restitution under gravity: impacts at speeds v_k = e^k v_1, flights of 2 v_k / g, static
    // contact once an approach is slower than the threshold, release when the lift passes m g + threshold
    void restitutionBounceAndRelease_data() {
        QTest::addColumn<double>("rtol");
        QTest::newRow("rtol 1e-6") << 1e-6;
        QTest::newRow("rtol 1e-8") << 1e-8;
    }
    void restitutionBounceAndRelease() {
        QFETCH(double, rtol);
        const double m = 2.0, g = 9.81, h = 0.2, e = 0.7, vStatic = 0.1, fRelease = 0.5, tLift = 3.0, slope = 10.0;
        test::ModelBuilder b;
        b.block("w", "signal.constant", {{"value", -19.62}})
            .block("lift", "signal.ramp", {{"slope", 10.0}, {"start_time", 3.0}})
            .block("sum", "signal.sum", {{"signs", "++"}})
            .block("fs", "translational.force_source")
            .block("m", "translational.mass", {{"mass", 2.0}})
            .block("stop", "translational.hard_stop",
                   {{"model", "restitution"},
                    {"lower_bound", -0.2},
                    {"upper_bound", 10.0},
                    {"restitution_coefficient", 0.7},
                    {"static_speed_threshold", 0.1},
                    {"release_threshold", 0.5}})
            .block("g", "translational.reference");
        b.connect("w.y", "sum.u1")
            .connect("lift.y", "sum.u2")
            .connect("sum.y", "fs.S")
            .connect("fs.R", "m.M")
            .connect("fs.C", "g.R");
        b.connect("m.M", "stop.R").connect("stop.C", "g.R");
        const core::model::Model model = b.build();
        const auto r = test::run(model, test::solverOptions(6.0, rtol));
        const auto ev = test::eventsOf(r, "stop");
        double tk = std::sqrt(2 * h / g), vk = -std::sqrt(2 * g * h);
        std::size_t k = 0;
        for (; k < ev.size() && ev[k].kind == EventKind::Impact; ++k) {
            QCOMPARE_NEAR(ev[k].time, tk, 100 * rtol * tk);
            QCOMPARE_NEAR(ev[k].velocity, vk, 100 * rtol * std::sqrt(2 * g * h));
            QVERIFY(-vk > vStatic);
            tk += 2 * e * -vk / g;
            vk *= e;
        }
        QCOMPARE(k, std::size_t(std::ceil(std::log(vStatic / std::sqrt(2 * g * h)) / std::log(e))));
        QVERIFY(ev.size() == k + 2);
        QCOMPARE(ev[k].kind, EventKind::Contact);   // the first approach below the threshold
        QCOMPARE_NEAR(ev[k].velocity, vk, 100 * rtol * std::sqrt(2 * g * h));
        QVERIFY(-vk <= vStatic);
        const double tContact = ev[k].time, tRelease = tLift + (m * g + fRelease) / slope;
        QCOMPARE_NEAR(tContact, tk, 100 * rtol * tk);
        // resting: no penetration, no motion, the stop holds the weight (f < 0 pushes R up)
        QCOMPARE_NEAR(test::at(r, "stop.x", 0.5 * (tContact + tLift)), -h, 1e-9);
        QCOMPARE_NEAR(test::at(r, "stop.f", 0.5 * (tContact + tLift)), -m * g, 100 * rtol * m * g);
        QCOMPARE(test::at(r, "stop.mode", 0.5 * (tContact + tLift)), 2.0);
        QCOMPARE_NEAR(test::at(r, "m.v", 0.5 * (tContact + tLift)), 0.0, 1e-12);
        QVERIFY(test::maxOf(r, "stop.penetration") < 1e-12);
        // every joule of the fall went into the impacts and the final plastic contact
        QCOMPARE_NEAR(test::at(r, "stop.energy_dissipated", tLift), m * g * h, 100 * rtol * m * g * h);
        QCOMPARE(test::at(r, "stop.impacts", tLift), double(k + 1));
        // released exactly when the lift exceeds the weight by the threshold, with v = 0
        QCOMPARE(ev[k + 1].kind, EventKind::Release);
        QCOMPARE_NEAR(ev[k + 1].time, tRelease, 10 * (rtol * m * g + 1e-2 * rtol) / slope);
        QCOMPARE_NEAR(ev[k + 1].velocity, 0.0, 1e-12);
        QCOMPARE(test::last(r, "stop.mode"), 0.0);
        QVERIFY(test::last(r, "m.v") > 0 && test::last(r, "stop.x") > -h);
    }

    // two free bodies: momentum kept, relative velocity times -e, the loss is the kinetic energy lost
    void restitutionTwoFreeMasses_data() {
        QTest::addColumn<bool>("rotational");
        QTest::newRow("translational") << false;
        QTest::newRow("rotational") << true;
    }
    void restitutionTwoFreeMasses() {
        QFETCH(bool, rotational);
        const double ma = 1.0, mb = 3.0, va = 2.0, vb = -0.5, e = 0.6;
        const auto model = twoBodies(
            rotational, ma, va, mb, vb,
            {{"model", "restitution"}, {"upper_bound", 0.1}, {"lower_bound", -1.0}, {"restitution_coefficient", 0.6}});
        const auto r = test::run(model, test::solverOptions(0.2, 1e-8));
        const std::string v = rotational ? ".w" : ".v";
        const double va1 = test::last(r, "a" + v), vb1 = test::last(r, "b" + v);
        QCOMPARE_NEAR(ma * va1 + mb * vb1, ma * va + mb * vb, 1e-12);
        QCOMPARE_NEAR(va1 - vb1, -e * (va - vb), 1e-9);
        const auto ev = test::eventsOf(r, "stop");
        QCOMPARE(ev.size(), std::size_t(1));
        QCOMPARE(ev[0].kind, EventKind::Impact);
        QCOMPARE_NEAR(ev[0].time, 0.1 / (va - vb), 1e-9);
        QCOMPARE_NEAR(ev[0].velocity, va - vb, 1e-9);
        const double lost = 0.5 * ma * (va * va - va1 * va1) + 0.5 * mb * (vb * vb - vb1 * vb1);
        QCOMPARE_NEAR(test::last(r, "stop.energy_dissipated"), lost, 1e-9);
        QCOMPARE_NEAR(lost, 0.5 * (ma * mb / (ma + mb)) * (va - vb) * (va - vb) * (1 - e * e), 1e-9);
    }

    // an ideal velocity source on the case side is an infinite mass: v+ - V = -e (v- - V); the
    // acceleration-level contact against it needs the source's constraint differentiated
    void restitutionAgainstMotionSource() {
        const double m = 1.0, v = -1.0, V = 0.5, e = 0.6, gap = 0.1;
        test::ModelBuilder b;
        b.block("m", "translational.mass", {{"mass", 1.0}, {"initial_velocity", -1.0}})
            .block("V", "signal.constant", {{"value", 0.5}})
            .block("vs", "translational.velocity_source")
            .block("stop", "translational.hard_stop",
                   {{"model", "restitution"},
                    {"lower_bound", -0.1},
                    {"upper_bound", 0.5},
                    {"restitution_coefficient", 0.6}})
            .block("g", "translational.reference");
        b.connect("m.M", "stop.R").connect("stop.C", "vs.R").connect("vs.C", "g.R").connect("V.y", "vs.S");
        const core::model::Model model = b.build();
        const auto r = test::run(model, test::solverOptions(0.1, 1e-8));
        const auto ev = test::eventsOf(r, "stop");
        QCOMPARE(ev.size(), std::size_t(1));
        QCOMPARE(ev[0].kind, EventKind::Impact);
        QCOMPARE_NEAR(ev[0].time, gap / (V - v), 1e-9);
        QCOMPARE_NEAR(ev[0].velocity, v - V, 1e-9);
        QCOMPARE_NEAR(test::last(r, "m.v"), V - e * (v - V), 1e-9);
        QCOMPARE_NEAR(test::last(r, "stop.energy_dissipated"), 0.5 * m * (v - V) * (v - V) * (1 - e * e), 1e-9);
    }

    // threshold 0: the impacts accumulate (Zeno) before t_inf = t1 + 2 e v1 / (g (1 - e)); the run
    // turns them into contact there instead of stalling, and the fall's energy is all dissipated
    void restitutionZenoEndsInContact() {
        const double g = 9.81, h = 0.1, e = 0.8;
        test::ModelBuilder b;
        b.block("w", "signal.constant", {{"value", -9.81}})
            .block("fs", "translational.force_source")
            .block("m", "translational.mass", {{"mass", 1.0}})
            .block("stop", "translational.hard_stop",
                   {{"model", "restitution"},
                    {"lower_bound", -0.1},
                    {"upper_bound", 1.0},
                    {"restitution_coefficient", 0.8},
                    {"static_speed_threshold", 0.0}})
            .block("g", "translational.reference");
        b.connect("w.y", "fs.S")
            .connect("fs.R", "m.M")
            .connect("fs.C", "g.R")
            .connect("m.M", "stop.R")
            .connect("stop.C", "g.R");
        const core::model::Model model = b.build();
        const auto r = test::run(model, test::solverOptions(2.0, 1e-6));
        QVERIFY(r.stats().completed);
        const auto ev = test::eventsOf(r, "stop");
        QVERIFY(ev.size() > 10 && ev.size() < 200);
        QCOMPARE(ev.back().kind, EventKind::Contact);
        const double v1 = std::sqrt(2 * g * h), tInf = std::sqrt(2 * h / g) + 2 * e * v1 / (g * (1 - e));
        QCOMPARE_NEAR(ev.back().time, tInf, 0.01 * tInf);
        QCOMPARE(test::last(r, "stop.mode"), 2.0);
        QCOMPARE_NEAR(test::last(r, "stop.energy_dissipated"), g * h, 1e-3 * g * h);
        QCOMPARE_NEAR(test::last(r, "m.v"), 0.0, 1e-12);
    }
};

QTEST_MAIN(TestRestitutionStop)
#include "tst_restitution_stop.moc"
