// SPDX-License-Identifier: GPL-3.0-or-later
// The reduction stage (docs/engine.md, "Reduction"): what it eliminates on small networks, and
// that the reduced engine gives the unreduced one's results, closed forms, event counts and
// energy balance to within the tolerance.
#include "support/compare.hpp"
#include "support/model_builder.hpp"
#include "support/test_support.hpp"
#include "reduce_models.hpp"

#include "blocks/registry.hpp"
#include "core/dae/block_structure.hpp"
#include "core/dae/dae_system.hpp"
#include "core/dae/reduce.hpp"
#include "core/dae/reduced_evaluator.hpp"
#include "core/graph/topology.hpp"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace endstop;
using Fate = core::dae::ReductionPlan::Fate;

class TestReduce : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aliasesWithOffsets() {
        const Planned p = plan(oscillator());
        QCOMPARE(fateOf(p, "x of m"), Fate::Kept);          // stands for the node's position
        QCOMPARE(fateOf(p, "x of s"), Fate::Combination);   // s.x = m.x + 0.3 - 0.3... with its own offset
        QCOMPARE(p.plan.size(), 2);                         // v and x: the hand-written count
        QCOMPARE(p.plan.combinations.size(), std::size_t(1));
        QCOMPARE(p.plan.combinations.first, (std::vector<int>{0, 1}));   // one term
        QCOMPARE(p.plan.combinations.termCoefficient[0], 1.0);
        QCOMPARE(p.plan.combinations.offset[0], 0.0);   // s.x(0) - m.x(0) = 0.3 - 0.3

        // x(t) = 0.3 cos(w t) about the relaxed spring at m.x = 0, s.x = m.x
        const double w = std::sqrt(50.0 / 2.0);
        const auto r = runWith(oscillator(), true, 1.0, 1e-9);
        QCOMPARE(r.stats().unknowns, 2);
        QCOMPARE(r.stats().unknownsBefore, 3);
        QCOMPARE(r.stats().aliases, 1);   // what --stats says went where
        QCOMPARE(r.stats().explicitVariables, 0);
        QCOMPARE(r.stats().quadratures, 0);
        for (double t : {0.2, 0.5, 1.0}) {
            QCOMPARE_NEAR(test::at(r, "m.x", t), 0.3 * std::cos(w * t), 1e-6);
            QCOMPARE_NEAR(test::at(r, "s.x", t), 0.3 * std::cos(w * t), 1e-6);
            QCOMPARE_NEAR(test::at(r, "s.f", t), 50 * 0.3 * std::cos(w * t), 1e-4);
        }
        compareColumns(r, runWith(oscillator(), false, 1.0, 1e-9), {"m.x", "m.v", "s.x", "s.f"}, 1e-6);
    }

    // Aliases in the error test (docs/engine.md, "The error test"): a mass 1 km from the origin
    // on a nonlinear spring to the ground. The spring's deformation is the mass's position minus
    // 1 km, an alias IDA does not solve; its error weight joins the mass's, so the weighted norm
    // is the network's as drawn (three entries, each with its own magnitude) and IDA takes the
    // steps it takes unreduced (999 against 981).
    void aliasOffsetsInTheErrorTest() {
        test::ModelBuilder b;
        b.block("m", "translational.mass", {{"mass", 0.5}, {"initial_velocity", 1.0}, {"initial_position", 1e3}})
            .block("k", "translational.nonlinear_spring", {{"coefficients", std::vector<double>{100, 0, 1e5, 0, 0}}})
            .block("g", "translational.reference");
        b.connect("m.M", "k.R").connect("k.C", "g.R");
        const Planned p = plan(b.build());
        QCOMPARE(fateOf(p, "x of k"), Fate::Combination);
        QCOMPARE(p.plan.combinations.offset.front(), -1e3);
        core::simulation::SimulationOptions o = test::solverOptions(1.0, 1e-8, 0.05);   // IDA's interpolant
        o.reduce = true;
        const auto reduced = test::run(b.build(), o);
        o.reduce = false;
        const auto drawn = test::run(b.build(), o);
        QCOMPARE(reduced.stats().unknowns, 2);
        const double steps = static_cast<double>(drawn.stats().steps);
        QCOMPARE_NEAR(static_cast<double>(reduced.stats().steps), steps, 0.02 * steps);
        QCOMPARE(reduced.rows(), drawn.rows());
        // amplitude 0.04 m, a few periods: each engine is 3e-7 and 4e-7 off a run at rtol 1e-11,
        // and they agree to 500 rtol of the amplitude
        for (std::size_t i = 0; i < drawn.rows(); ++i)
            QCOMPARE_NEAR(reduced.values("k.x")[i], drawn.values("k.x")[i], 2e-7,
                          QString("k.x at %1 s").arg(drawn.time()[i]));
    }

    void explicitInEveryMode_data() {
        QTest::addColumn<QString>("law");
        QTest::newRow("smooth") << "smooth";
        QTest::newRow("full_undamped") << "full_undamped";
        QTest::newRow("full_damped") << "full_damped";
    }

    // The contact force is explicit in free flight and in both contacts; the stop's position is
    // the mass's; the dissipated energy is a quadrature. Same impacts, and the energy balance
    // 1/2 m v0^2 = 1/2 m v^2 + E_dissipated (+ the contact spring's energy) holds.
    void explicitInEveryMode() {
        QFETCH(QString, law);
        const core::model::Model model = bouncing(law.toStdString().c_str());
        const Planned p = plan(model);
        QCOMPARE(fateOf(p, "f of stop"), Fate::Explicit);
        QCOMPARE(fateOf(p, "x of stop"), Fate::Combination);
        QCOMPARE(fateOf(p, "damping_energy of stop"), Fate::Quadrature);
        QCOMPARE(p.plan.size(), 2);

        const auto reduced = runWith(model, true, 1.0, 1e-9), full = runWith(model, false, 1.0, 1e-9);
        // --stats: the plan's counts, adding up to the network as drawn; none eliminated as drawn
        const core::RunStats& s = reduced.stats();
        QCOMPARE(s.aliases, static_cast<int>(p.plan.combinations.size()));
        QCOMPARE(s.explicitVariables, static_cast<int>(p.plan.explicits.size()));
        QCOMPARE(s.quadratures, static_cast<int>(p.plan.quadratures.size()));
        QVERIFY(s.aliases >= 1 && s.explicitVariables >= 1 && s.quadratures >= 1);
        QCOMPARE(s.unknowns + s.aliases + s.explicitVariables + s.quadratures, s.unknownsBefore);
        QCOMPARE(full.stats().aliases + full.stats().explicitVariables + full.stats().quadratures, 0);
        QCOMPARE(full.stats().unknowns, full.stats().unknownsBefore);
        QVERIFY(test::last(reduced, "stop.impacts") >= 4);
        QCOMPARE(test::last(reduced, "stop.impacts"), test::last(full, "stop.impacts"));
        QCOMPARE(reduced.events().size(), full.events().size());
        for (std::size_t i = 0; i < full.events().size(); ++i)
            QCOMPARE_NEAR(reduced.events()[i].time, full.events()[i].time, 1e-6);
        compareColumns(reduced, full, {"m.x", "m.v", "stop.x"}, 1e-5);
        compareColumns(reduced, full, {"stop.f"}, 1e-3);   // K = 1e5: a penetration error of 1e-9 m is 1e-4 N
        compareColumns(reduced, full, {"stop.energy_dissipated"}, 1e-5);
        // the balance with the contact's spring energy: K p^2 / 2, the smooth law's ramped
        // 0.35 K delta^2 + K (p^2 - delta^2) / 2 beyond its transition region (delta = 1 mm),
        // K delta^2 (3 u^4 / 4 - 2 u^5 / 5) inside it. The smooth law's is exact too where its damping
        // clamp cancels the force and IDA steps over the rest of the contact in one step (it missed
        // up to 0.35 K delta^2 per contact when the dissipated power itself was integrated there).
        const auto spring = [&](double pen) {
            const double K = 1e5, d = 1e-3, u = pen / d;
            if (law != "smooth") return 0.5 * K * pen * pen;
            return pen >= d ? K * (0.35 * d * d + 0.5 * (pen * pen - d * d))
                            : K * d * d * u * u * u * u * (0.75 - 0.4 * u);
        };
        for (double t : {0.3, 0.6, 1.0}) {
            const double v = test::at(reduced, "m.v", t), x = test::at(reduced, "stop.x", t);
            const double pen = std::max(0.0, x - 0.1) + std::max(0.0, -0.1 - x);
            const double balance = 0.5 * v * v + test::at(reduced, "stop.energy_dissipated", t) + spring(pen);
            QCOMPARE_NEAR(balance, 0.5, 1e-5, QString("energy at %1 s").arg(t));
        }
        // and after every contact, in flight
        const auto& time = reduced.time();
        int checked = 0;
        for (std::size_t i = 0; i < reduced.rows(); ++i)
            if (std::abs(reduced.values("stop.x")[i]) < 0.1) {
                const double v = reduced.values("m.v")[i];
                QCOMPARE_NEAR(0.5 * v * v + reduced.values("stop.energy_dissipated")[i], 0.5, 1e-5,
                              QString("energy in flight at %1 s").arg(time[i]));
                ++checked;
            }
        QVERIFY(checked > 10);
    }

    void relativePositionReadByEventsStays() {
        const Planned p = plan(relativeStop());
        QCOMPARE(fateOf(p, "x of stop"), Fate::Kept);   // a - b would carry the positions' round-off
        // and it takes the place of one of them: a.x = stop.x + b.x + offset
        QCOMPARE(fateOf(p, "x of a"), Fate::Combination);
        QCOMPARE(fateOf(p, "x of b"), Fate::Kept);
        QCOMPARE(fateOf(p, "f of stop"), Fate::Explicit);
        const auto reduced = runWith(relativeStop(), true, 1.0, 1e-9), full = runWith(relativeStop(), false, 1.0, 1e-9);
        QCOMPARE(test::last(reduced, "stop.impacts"), test::last(full, "stop.impacts"));
        compareColumns(reduced, full, {"a.v", "b.v", "stop.x"}, 1e-5);
        // momentum: m_a v_a + m_b v_b = 1 throughout
        for (double t : {0.25, 0.75, 1.0})
            QCOMPARE_NEAR(test::at(reduced, "a.v", t) + test::at(reduced, "b.v", t), 1.0, 1e-6);
    }

    void nothingToReduce() {
        const Planned p = plan(damped());
        QCOMPARE(p.plan.eliminated(), 0);
        const auto reduced = runWith(damped(), true, 1.0, 1e-8), full = runWith(damped(), false, 1.0, 1e-8);
        QCOMPARE(reduced.stats().unknowns, full.stats().unknowns);
        QCOMPARE(reduced.values("m.v"), full.values("m.v"));   // the same system, the same numbers
        QCOMPARE_NEAR(test::last(reduced, "m.v"), std::exp(-3.0), 1e-6);
    }

    // A gear followed by a backlash stop, reduced and solved with KLU: its pivots must not be the
    // dense LU's luck (KLU's default diagonal preference met an exact zero pivot in IDACalcIC).
    void gearWithBacklashUnderKlu() {
        const core::model::Model model = gearWithBacklash();
        core::simulation::SimulationOptions o = test::solverOptions(2.0, 1e-6, 0.01);
        o.absoluteTolerance = 1e-8;
        o.reduce = true;
        o.linearSolver = core::model::LinearSolver::Klu;
        const auto klu = test::run(model, o);
        o.linearSolver = core::model::LinearSolver::Dense;
        const auto dense = test::run(model, o);
        QVERIFY(klu.stats().completed);
        QVERIFY(klu.stats().unknowns < klu.stats().unknownsBefore);
        QVERIFY(test::last(klu, "lash.impacts") >= 20);
        QCOMPARE(test::last(klu, "lash.impacts"), test::last(dense, "lash.impacts"));
        compareColumns(klu, dense, {"a.w", "b.w"}, 1e-3);
    }

    // A gear train (the benchmark's model d, three stages): per stage the gear's massless output
    // node is an alias of its input (w_B = w_A / r) solved from the gear's row, the gear's torque
    // from that node's balance (what the backlash passes on), and the backlash angle, kept for its
    // events, stands in for the next inertia's angle: two unknowns per inertia and the drive.
    // Both laws, against the unreduced engine at a tight tolerance.
    void gearTrainHasTwoUnknownsPerInertia_data() {
        QTest::addColumn<QString>("law");
        QTest::newRow("full_damped") << "full_damped";
        QTest::newRow("smooth") << "smooth";
    }
    void gearTrainHasTwoUnknownsPerInertia() {
        QFETCH(QString, law);
        const int stages = 3;
        const core::model::Model model = gearTrain(stages, law.toStdString().c_str());
        const Planned p = plan(model);
        QCOMPARE(p.plan.size(), 2 * (stages + 1) + 1);
        QCOMPARE(fateOf(p, "t of gear1"), Fate::Explicit);
        QCOMPARE(fateOf(p, "node {gear1.B, lash1.R}"), Fate::Explicit);
        QCOMPARE(fateOf(p, "phi of lash1"), Fate::Kept);
        QCOMPARE(fateOf(p, "phi of j0"), Fate::Kept);
        QCOMPARE(fateOf(p, "phi of j2"), Fate::Combination);
        const auto reduced = runWith(model, true, 1.0, 1e-9), full = runWith(model, false, 1.0, 1e-9);
        QCOMPARE(reduced.stats().unknowns, 2 * (stages + 1) + 1);
        QVERIFY(test::last(full, "lash2.impacts") >= 5);
        for (int i = 0; i < stages; ++i) {
            const std::string lash = "lash" + std::to_string(i);
            QCOMPARE(test::last(reduced, lash + ".impacts"), test::last(full, lash + ".impacts"));
        }
        compareColumns(reduced, full, {"j0.w", "j3.w", "j3.phi", "lash2.phi", "gear1.w"}, 1e-5);
        compareColumns(reduced, full, {"gear0.t", "gear2.t"}, 1e-3);   // contact torques through 1e4 N m/rad
    }

    // Stick-slip on a belt (the benchmark's model c). The velocity source's row is differentiated
    // (the friction holds the mass at the belt's acceleration), so the belt's speed and the node
    // velocity it drives carry dummy derivatives. The speed, the node velocity (from the source's
    // row), the source's force (from the node's balance) and both dummies (from the derivative
    // rows) are explicit, and the spring's deformation is the mass's position: IDA solves the
    // mass's velocity and position and the friction force, 3 of 10. A sine speed is a function of
    // time: it and its dummy stay unknowns. Against the unreduced engine: the same sticks and
    // slips at the same times, and while stuck the mass moves with the belt.
    void drivenBeltDummiesAreExplicit_data() {
        QTest::addColumn<bool>("sine");
        QTest::newRow("constant speed") << false;
        QTest::newRow("sine speed") << true;
    }
    void drivenBeltDummiesAreExplicit() {
        QFETCH(bool, sine);
        const core::model::Model model = stickSlip(sine);
        const Planned p = plan(model);
        QCOMPARE(fateOf(p, "velocity of node {belt.R, f.C}"), Fate::Explicit);
        QCOMPARE(fateOf(p, "derivative of the velocity of node {belt.R, f.C}"), Fate::Explicit);
        QCOMPARE(fateOf(p, "f of belt"), Fate::Explicit);
        QCOMPARE(fateOf(p, "x of k"), Fate::Combination);
        QCOMPARE(fateOf(p, "y of speed"), sine ? Fate::Kept : Fate::Explicit);
        QCOMPARE(fateOf(p, "derivative of the y of speed"), sine ? Fate::Kept : Fate::Explicit);
        QCOMPARE(p.plan.size(), sine ? 5 : 3);
        QCOMPARE(p.sys.size(), 10);
        // the friction's event functions read both velocities and the force, but no rate: the
        // belt's acceleration (a dummy derivative in its slots) is no explicit variable the root
        // function must solve
        const core::dae::Binding& fb = p.sys.bindings[static_cast<std::size_t>(p.sys.topo.blockIndex("f"))];
        const core::dae::BlockStructure& fs = p.sys.structures[static_cast<std::size_t>(
            p.sys.structureOf[static_cast<std::size_t>(p.sys.topo.blockIndex("f"))])];
        int dummies = 0;
        for (std::size_t k = 0; k < fb.slot().size(); ++k) {
            const std::string what = p.sys.describeUnknown(fb.slot()[k]);
            const bool dummy = what.rfind("derivative of", 0) == 0;
            dummies += dummy ? 1 : 0;
            QCOMPARE(fs.eventRead(fb, k), !dummy && (what.find("velocity") != std::string::npos || what == "f of f"));
        }
        QCOMPARE(dummies, 1);
        // at a constant speed the belt's velocity and acceleration are constants of the run, so
        // the friction's event functions are rows over IDA's unknowns (at a sine speed they are
        // functions of time, which only an expansion gives)
        const core::dae::ReducedEvaluator rev(p.sys, p.plan);
        const auto unknown = [&](const std::string& what) {
            for (int u = 0; u < p.sys.size(); ++u)
                if (p.sys.describeUnknown(u) == what) return u;
            qFatal("no unknown named %s", what.c_str());
        };
        for (const auto& [what, value] : {std::pair{"velocity of node {belt.R, f.C}", 0.1},
                                          {"derivative of the velocity of node {belt.R, f.C}", 0.0},
                                          {"y of speed", 0.1}}) {
            double constant = 1.0;
            std::vector<core::dae::ReducedEvaluator::Term> terms;
            const bool affine = rev.addAffine(unknown(what), 2.0, constant, terms);
            if (sine && std::string(what) == "y of speed") {   // kept: one term, its own
                QVERIFY(affine && terms.size() == 1 && terms[0].coefficient == 2.0 && constant == 1.0);
                continue;
            }
            QCOMPARE(affine, !sine);
            if (sine) continue;
            QVERIFY(terms.empty());
            QCOMPARE(constant, 1.0 + 2.0 * value);
        }

        const auto reduced = runWith(model, true, 3.0, 1e-9), full = runWith(model, false, 3.0, 1e-9);
        QCOMPARE(reduced.stats().unknowns, sine ? 5 : 3);
        QVERIFY(full.events().size() >= 4);   // sticks and slips
        QCOMPARE(reduced.events().size(), full.events().size());
        for (std::size_t i = 0; i < full.events().size(); ++i)
            QCOMPARE_NEAR(reduced.events()[i].time, full.events()[i].time, 1e-6);
        QCOMPARE(reduced.rows(), full.rows());
        int stuck = 0;
        for (std::size_t i = 0; i < full.rows(); ++i) {
            const QString at = QString(" at %1 s").arg(full.time()[i]);
            for (const char* c : {"m.x", "m.v", "belt.v", "speed.y"})
                QCOMPARE_NEAR(reduced.values(c)[i], full.values(c)[i], 1e-6, c + at);
            for (const char* c : {"f.f", "belt.f"})   // through k = 100 N/m: 1e-6 m is 1e-4 N
                QCOMPARE_NEAR(reduced.values(c)[i], full.values(c)[i], 1e-4, c + at);
            if (reduced.values("f.mode")[i] != 1.0) continue;   // stuck: the mass moves with the belt
            ++stuck;
            QCOMPARE_NEAR(reduced.values("m.v")[i], reduced.values("belt.v")[i], 1e-8, "m.v" + at);
        }
        QVERIFY(stuck > 10);
    }

    // The integral of |sin(2 pi t)| over a period, 2 / pi: the sine's output stays an unknown (a
    // function of time), so the reduced engine resolves it as the unreduced one does. (Eliminated,
    // only the integral was tested and it came out 5e-8 off at rtol 1e-8.)
    void functionOfTimeStays() {
        test::ModelBuilder b;
        b.block("u", "signal.sine").block("x", "signal.abs").block("int", "signal.integrator");
        b.connect("u.y", "x.u").connect("x.y", "int.u");
        const core::model::Model model = b.build();
        const Planned p = plan(model);
        QCOMPARE(fateOf(p, "y of u"), Fate::Kept);
        QCOMPARE(fateOf(p, "y of x"), Fate::Explicit);
        core::simulation::SimulationOptions o = test::solverOptions(1.0, 1e-8);
        o.reduce = true;
        const auto r = test::run(model, o);
        QCOMPARE(r.stats().unknowns, 2);
        QCOMPARE_NEAR(test::last(r, "int.y"), 2 / std::numbers::pi, 1e-8, "integral of |sin|");
    }

    // A chain of masses in stops, springs and dampers (the benchmark's model b): two unknowns per
    // mass, and the sine drive's output: a function of time stays an unknown, so that IDA's error
    // test resolves it.
    void chainHasTwoUnknownsPerMass() {
        const int n = 5;
        const core::model::Model model = chain(n);
        const Planned p = plan(model);
        QCOMPARE(p.plan.size(), 2 * n + 1);
        QCOMPARE(fateOf(p, "y of F"), Fate::Kept);
        const auto reduced = runWith(model, true, 0.5, 1e-8), full = runWith(model, false, 0.5, 1e-8);
        QCOMPARE(reduced.stats().unknowns, 2 * n + 1);
        QCOMPARE(reduced.stats().unknownsBefore, full.stats().unknowns);
        QCOMPARE(reduced.events().size(), full.events().size());
        compareColumns(reduced, full, {"m0.x", "m1.v", "k0.f", "st1.energy_dissipated"}, 1e-4);
        compareColumns(reduced, full, {"st0.f"}, 1e-3);   // K = 1e6
    }

    // The run integrates the quadratures after each step, and a grid's rows inside a step take
    // them at their own times (docs/engine.md, "Reduction", Quadratures). A full_damped stop on a
    // motion a velocity source imposes, x = A/w (1 - cos w t), is in contact while x is above its
    // bound b, from t1 = acos(1 - b w / A) / w to T - t1 in each period T, and dissipates D v^2
    // there: its energy is D A^2 (G(t2) - G(t1)) per contact, G(t) = t/2 - sin(2 w t) / (4 w).
    // Every row against that, on a grid finer than IDA's steps, and never decreasing.
    void quadratureAtEveryRow() {
        const double A = 0.5, f = 2.0, bound = 0.05, D = 3.0, w = 2 * std::numbers::pi * f, T = 1 / f;
        test::ModelBuilder b;
        b.block("speed", "signal.sine", {{"amplitude", A}, {"frequency", f}})
            .block("vs", "translational.velocity_source")
            .block("stop", "translational.hard_stop",
                   {{"model", "full_damped"},
                    {"upper_bound", bound},
                    {"lower_bound", -bound},
                    {"upper_stiffness", 1e5},
                    {"lower_stiffness", 1e5},
                    {"upper_damping", D},
                    {"lower_damping", D}})
            .block("g", "translational.reference");
        b.connect("speed.y", "vs.S").connect("vs.R", "stop.R").connect("vs.C", "g.R").connect("stop.C", "g.R");
        core::simulation::SimulationOptions o = test::solverOptions(1.3, 1e-8, 1e-3);
        o.absoluteTolerance = 1e-10;
        o.reduce = true;
        const auto r = test::run(b.build(), o);
        QCOMPARE(r.stats().quadratures, 1);
        QVERIFY(r.stats().quadratureEvals > 0);
        QVERIFY2(2 * r.stats().steps < static_cast<long>(r.rows()),
                 qPrintable(QString("%1 steps for %2 rows").arg(r.stats().steps).arg(r.rows())));
        const double t1 = std::acos(1 - bound * w / A) / w, t2 = T - t1;
        const auto G = [&](double t) { return t / 2 - std::sin(2 * w * t) / (4 * w); };
        const auto energy = [&](double t) {
            const double periods = std::floor(t / T), tau = t - periods * T;
            const double within = tau > t1 ? G(std::min(tau, t2)) - G(t1) : 0.0;
            return D * A * A * (periods * (G(t2) - G(t1)) + within);
        };
        const std::vector<double>& E = r.values("stop.energy_dissipated");
        const double total = energy(1.3);
        QVERIFY(total > 0.15 && t1 > 0.1 * T);   // three contacts, the last cut off
        for (std::size_t i = 0; i < r.rows(); ++i) {
            QCOMPARE_NEAR(E[i], energy(r.time()[i]), 1e-6 * total, QString("energy at %1 s").arg(r.time()[i]));
            if (i > 0) QVERIFY2(E[i] >= E[i - 1], qPrintable(QString("energy falls at %1 s").arg(r.time()[i])));
        }
    }
};

QTEST_GUILESS_MAIN(TestReduce)
#include "tst_reduce.moc"
