// SPDX-License-Identifier: GPL-3.0-or-later
// The resting part (docs/engine.md): IDA solves only the moving part of a long reduced chain, and
// the results are those of the whole chain solved at once, to within the tolerance: the front of
// the disturbance, a scheduled force deep in the resting part, a scheduled input to a resting
// block, contacts.
#include "support/compare.hpp"
#include "support/model_builder.hpp"
#include "support/test_support.hpp"
#include "core/dae/reduce_models.hpp"   // chain(): the benchmark's model b

#include <QTest>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

using namespace endstop;

namespace {

// interval 0: a row at every step (the comparisons then interpolate linearly between steps, a
// few 1e-5 of a range); else rows on that grid (IDA's interpolant at each)
core::MemorySink run(const core::model::Model& model, bool resting, double stop, double rtol, double interval = 0.0) {
    core::simulation::SimulationOptions o = test::solverOptions(stop, rtol, interval);
    o.absoluteTolerance = rtol * 1e-3;
    o.reduce = true;
    o.resting = resting;
    return test::run(model, o);
}

// columns at a few times, against the whole chain, to tol of the column's range
void compare(const core::MemorySink& resting, const core::MemorySink& whole, const std::vector<std::string>& columns,
             double stop, double tol) {
    for (const std::string& c : columns) {
        const double range = std::max(test::maxOf(whole, c) - test::minOf(whole, c), 1e-300);
        for (double f : {0.25, 0.5, 0.75, 1.0}) {
            const double t = f * stop, x = test::at(resting, c, t), y = test::at(whole, c, t);
            QCOMPARE_NEAR(x, y, tol * range, QString("%1 at %2 s, resting vs whole").arg(c.c_str()).arg(t));
        }
    }
}

}   // namespace

class TestResting : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // No contacts (a 10 N sine): a linear chain whose front travels about 55 masses in 0.5 s. The
    // resting run carries a fraction of the chain, grows with the front, and agrees with the whole
    // chain; the last mass never moves in it (in the whole chain it moves by round-off alone).
    void frontGrowsWithTheDisturbance_data() {
        QTest::addColumn<double>("interval");
        QTest::addColumn<double>("tol");
        QTest::newRow("every step") << 0.0 << 3e-5;   // linear interpolation between steps
        QTest::newRow("grid") << 0.0125 << 1e-7;      // the rows are IDA's interpolant on both sides
    }
    void frontGrowsWithTheDisturbance() {
        QFETCH(double, interval);
        QFETCH(double, tol);
        const core::model::Model model = chain(200, 10.0);
        const auto resting = run(model, true, 0.5, 1e-9, interval), whole = run(model, false, 0.5, 1e-9, interval);
        QVERIFY(resting.stats().completed);
        QCOMPARE(resting.stats().unknowns, whole.stats().unknowns);
        QCOMPARE(whole.stats().movingUnknowns, whole.stats().unknowns);
        QCOMPARE(whole.stats().restingGrowths, 0L);
        QVERIFY2(resting.stats().movingUnknowns < resting.stats().unknowns / 2,
                 qPrintable(QString::number(resting.stats().movingUnknowns)));
        QVERIFY(resting.stats().restingGrowths >= 1);
        compare(resting, whole, {"m0.x", "m10.x", "m30.x", "m45.x", "m0.v", "m30.v"}, 0.5, tol);
        if (interval > 0) QCOMPARE(resting.time().size(), whole.time().size());   // 0, 0.0125, ..., 0.5
        QCOMPARE(test::last(resting, "m199.x"), 0.0);
        QVERIFY(std::abs(test::last(whole, "m199.x")) < 1e-15);
    }

    // A force steps on at t = 0.2 s deep in the resting part: the scheduled event makes its row
    // leave the resting form, and that part of the chain starts moving at once.
    void scheduledForceWakesTheRestingPart() {
        const core::model::Model model = chain(400, 10.0, 300);
        const auto resting = run(model, true, 0.4, 1e-9), whole = run(model, false, 0.4, 1e-9);
        QVERIFY(resting.stats().completed);
        QVERIFY(resting.stats().movingUnknowns < resting.stats().unknowns);
        QCOMPARE(test::at(resting, "m300.x", 0.19), 0.0);
        QVERIFY(test::last(resting, "m300.x") > 1e-4);
        compare(resting, whole, {"m0.x", "m300.x", "m290.x", "m310.x", "m300.v"}, 0.4, 3e-5);
    }

    // A clutch deep in the resting part, beside a spring, pressed by a pulse train from 0.0465 s
    // for 0.04 s: the pulse's time event sets its output, and the clutch engages at that instant
    // and lets go when the pulse ends, as in the whole chain. The resting part's expansion used to
    // miss the pulse's change when making the handler's state had expanded the full vector after
    // the write was announced: the clutch read the old output and engaged 11 ms late, when the
    // moving part reached it (tools/engine-diff --chains --wide).
    void scheduledInputReachesARestingBlock() {
        test::ModelBuilder b;
        b.block("g", "rotational.reference")
            .block("drive", "signal.sine", {{"amplitude", 50.0}, {"frequency", 10.0}})
            .block("src", "rotational.torque_source")
            .block("cl", "rotational.clutch",
                   {{"fn_max", 15.0},
                    {"mu_speeds", std::vector<double>{0, 1, 5}},
                    {"mu_values", std::vector<double>{0.5, 0.4, 0.3}},
                    {"peak", 1.0}})
            .block("pl", "signal.pulse", {{"period", 0.15}, {"width", 0.04}, {"start_time", 0.0465}})
            .block("ck", "rotational.spring", {{"stiffness", 5e4}});
        const int n = 200, at = 10;
        std::string previous = "g.R";
        for (int i = 0; i < n; ++i) {
            const std::string m = "m" + std::to_string(i), k = "k" + std::to_string(i);
            b.block(m, "rotational.inertia", {{"inertia", 0.1}}).block(k, "rotational.spring", {{"stiffness", 1e4}});
            b.connect(k + ".R", previous).connect(k + ".C", m + ".I");
            if (i == at)
                b.connect("cl.R", m + ".I")
                    .connect("cl.C", previous)
                    .connect("ck.R", previous)
                    .connect("ck.C", m + ".I");
            previous = m + ".I";
        }
        b.connect("pl.y", "cl.u").connect("drive.y", "src.S").connect("src.R", previous).connect("src.C", "g.R");
        const auto resting = run(b.model(), true, 0.1, 1e-10, 0.005), whole = run(b.model(), false, 0.1, 1e-10, 0.005);
        QVERIFY(resting.stats().completed);
        QVERIFY(resting.stats().movingUnknowns < resting.stats().unknowns / 2);
        for (const core::MemorySink* r : {&resting, &whole}) {
            std::vector<std::pair<double, core::EventKind>> clutch;
            for (const core::EventRecord& e : r->events())
                if (e.block == "cl") clutch.emplace_back(e.time, e.kind);
            QCOMPARE(clutch.size(), std::size_t(3));   // engage and lock at the rise, disengage at the fall
            QCOMPARE(clutch[0].second, core::EventKind::Engage);
            QCOMPARE(clutch[0].first, 0.0465);
            QCOMPARE(clutch[2].second, core::EventKind::Disengage);
            QCOMPARE_NEAR(clutch[2].first, 0.0865, 1e-12);
        }
        QCOMPARE(test::last(resting, "m10.phi"), 0.0);   // the front never reaches it
    }

    // The benchmark's amplitude: the first masses hit their stops. Contacts, impacts and the
    // energy each stop dissipates agree with the whole chain.
    void contactsAgree() {
        const core::model::Model model = chain(120, 100.0);
        const auto resting = run(model, true, 0.3, 1e-9), whole = run(model, false, 0.3, 1e-9);
        QVERIFY(resting.stats().completed);
        QVERIFY(resting.stats().movingUnknowns < resting.stats().unknowns);
        QVERIFY(test::last(whole, "st0.impacts") >= 2);
        QCOMPARE(test::last(resting, "st0.impacts"), test::last(whole, "st0.impacts"));
        QCOMPARE(test::last(resting, "st1.impacts"), test::last(whole, "st1.impacts"));
        compare(resting, whole, {"m0.x", "m1.x", "m5.x", "m20.x", "st0.energy_dissipated"}, 0.3, 1e-4);
    }
};

QTEST_GUILESS_MAIN(TestResting)
#include "tst_resting.moc"
