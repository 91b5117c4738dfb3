// SPDX-License-Identifier: GPL-3.0-or-later
// The reduced engine's evaluator (docs/engine.md, "Reduction"): its sums and linear operator
// against evaluating every block, the restarts it makes without a Newton iteration, the moving
// part alone, and the differential mask kept between restarts.
#include "support/compare.hpp"
#include "support/model_builder.hpp"
#include "support/test_support.hpp"
#include "reduce_models.hpp"

#include "blocks/registry.hpp"
#include "core/dae/block_structure.hpp"
#include "core/dae/dae_system.hpp"
#include "core/dae/discrete_changes.hpp"
#include "core/dae/evaluator.hpp"
#include "core/dae/reduce.hpp"
#include "core/dae/reduced_evaluator.hpp"
#include "core/graph/topology.hpp"
#include "core/solver/restart.hpp"
#include "core/solver/sundials_raii.hpp"

#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

using namespace endstop;
using Fate = core::dae::ReductionPlan::Fate;

class TestReducedEvaluator : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The residual's summed blocks (linear in their mode and free of the time: c + A y + B y')
    // give what evaluating every block gives, in every mode of a stop, with dummy derivatives at a
    // gear, with a sine source (timed: evaluated) and with a table whose later segments bring the
    // time in through a discrete that is not a mode; also after the discretes change and back
    // (the sums updated block by block).
    void summedBlocksMatchTheBlocks_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("stop, full_damped") << "full_damped";
        QTest::newRow("stop, smooth") << "smooth";
        QTest::newRow("gear with backlash") << "gear";
        QTest::newRow("table") << "table";
        QTest::newRow("belt, constant speed") << "belt";    // differentiated rows (a velocity source), summed
        QTest::newRow("belt, sine speed") << "belt sine";   // the same, the speed timed: evaluated
    }
    void summedBlocksMatchTheBlocks() {
        QFETCH(QString, name);
        core::model::Model model;
        if (name == "gear") {
            model = gearWithBacklash();
        } else if (name.startsWith("belt")) {
            model = stickSlip(name == "belt sine");
        } else if (name == "table") {
            test::ModelBuilder b;
            // the gain and the sensor are explicit variables of summed blocks, nonzero
            b.block("tab", "signal.table",
                    {{"times", std::vector<double>{0.1, 0.35, 0.6}}, {"values", std::vector<double>{1, 3, -1}}})
                .block("gain", "signal.gain", {{"gain", 2.5}})
                .block("fs", "translational.force_source")
                .block("m", "translational.mass", {{"mass", 2.0}})
                .block("k", "translational.spring", {{"stiffness", 30.0}})
                .block("sense", "translational.motion_sensor")
                .block("g", "translational.reference");
            b.connect("tab.y", "gain.u").connect("gain.y", "fs.S").connect("fs.R", "m.M").connect("fs.C", "g.R");
            b.connect("m.M", "k.R").connect("k.C", "g.R").connect("m.M", "sense.R").connect("sense.C", "g.R");
            model = b.build();
        } else {
            model = bouncing(name.toStdString().c_str());
        }
        const core::dae::DaeSystem sys = core::dae::assemble(core::graph::buildTopology(model, blocks::registry()));
        core::dae::Evaluator summed(sys), each(sys);
        each.setLinearResidual(false);
        const std::size_t n = static_cast<std::size_t>(sys.size());
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> draw(-2.0, 2.0);
        auto fill = [&](std::vector<double>& v) {
            for (double& x : v) x = draw(rng);
        };
        // every entry of a within 1e-9 (relative) of b's; the caller returns on a failure
        auto agree = [](const std::vector<double>& a, const std::vector<double>& b, const auto& what) {
            for (std::size_t i = 0; i < a.size(); ++i)
                QCOMPARE_NEAR(a[i], b[i], 1e-9 * (1.0 + std::abs(b[i])), what(i));
        };
        std::vector<double> y(n), yp(n), fa(n), fb(n);
        // every discrete of every block through the values it can take here: modes by the
        // structure's radix, a table's segment from -1 to 2
        std::vector<std::vector<double>> states{sys.discrete0};
        for (std::size_t bi = 0; bi < sys.bindings.size(); ++bi) {
            const core::dae::Binding& b = sys.bindings[bi];
            const core::dae::BlockStructure& st = sys.structures[static_cast<std::size_t>(sys.structureOf[bi])];
            for (std::size_t i = 0; i < st.modeDiscretes.size(); ++i)
                for (int v = 0; v < st.radix[i]; ++v) {
                    std::vector<double> d = sys.discrete0;
                    d[static_cast<std::size_t>(b.discreteOffset + st.modeDiscretes[i])] = v;
                    states.push_back(d);
                }
            if (sys.topo.blocks[bi].name == "tab")
                for (double segment : {-1.0, 0.0, 1.0, 2.0}) {
                    std::vector<double> d = sys.discrete0;
                    d[static_cast<std::size_t>(b.discreteOffset)] = segment;
                    states.push_back(d);
                }
        }
        states.push_back(sys.discrete0);   // and back
        QVERIFY(states.size() > 3);
        if (name.startsWith("belt")) {   // the velocity source's rows are differentiated
            const int belt = sys.topo.blockIndex("belt");
            QVERIFY(sys.bindings[static_cast<std::size_t>(belt)].tangent);
            std::vector<double> zero(n, 0.0), out(n);
            summed.residual({0.0, zero.data(), zero.data(), sys.discrete0.data()}, out.data());
            QVERIFY(summed.summed(belt));   // linear, free of the time: its time derivative too
            QCOMPARE(summed.summed(sys.topo.blockIndex("speed")), name == "belt");   // a sine is timed
        }
        for (const std::vector<double>& d : states)
            for (double t : {0.0, 0.2, 0.45, 0.9}) {
                fill(y);
                fill(yp);
                const core::dae::State s{t, y.data(), yp.data(), d.data()};
                summed.residual(s, fa.data());
                each.residual(s, fb.data());
                agree(fa, fb, [&](std::size_t i) {
                    return QString("row %1 (%2) at t = %3")
                        .arg(i)
                        .arg(sys.describeRow(static_cast<int>(i)).c_str())
                        .arg(t);
                });
                if (QTest::currentTestFailed()) return;
            }
        // the reduced engine: explicit variables of summed blocks from the sums, the residual and
        // the Jacobian as when every block is evaluated
        const core::dae::ReductionPlan red = core::dae::planReduction(sys);
        core::dae::ReducedEvaluator rs(sys, red), re(sys, red);
        re.setUseSums(false);
        const std::size_t nr = static_cast<std::size_t>(rs.size());
        QVERIFY(red.eliminated() > 0);
        std::vector<double> ry(nr), ryp(nr), ra(nr), rb(nr);
        std::vector<double> ja(static_cast<std::size_t>(rs.pattern().nnz())), jb(ja.size());
        for (const std::vector<double>& d : states)
            for (double t : {0.0, 0.45}) {
                fill(ry);
                fill(ryp);
                const core::dae::State s{t, ry.data(), ryp.data(), d.data()};
                rs.residual(s, ra.data());
                re.residual(s, rb.data());
                agree(ra, rb, [&](std::size_t i) { return QString("reduced row %1 at t = %2").arg(i).arg(t); });
                if (QTest::currentTestFailed()) return;
                rs.jacobian(s, 37.0, ja.data());
                re.jacobian(s, 37.0, jb.data());
                agree(ja, jb, [](std::size_t k) { return QString("reduced Jacobian entry %1").arg(k); });
                if (QTest::currentTestFailed()) return;
                std::vector<double> qa(red.quadratures.size()), qb(qa.size());
                rs.quadratureRates(s, qa.data());
                re.quadratureRates(s, qb.data());
                agree(qa, qb, [](std::size_t k) { return QString("quadrature rate %1").arg(k); });
                if (QTest::currentTestFailed()) return;
            }
    }

    // A restart without IDACalcIC (ReducedEvaluator::consistentRates) on a driven chain's shape:
    // the sine's output is solved from its row (a closed form), the rates zero the reduced
    // residual; a shape it does not take (an algebraic unknown that is not a timed one) is
    // declined with y and y' untouched.
    void consistentRatesAtARestart() {
        const Planned p = plan(springStop(true));
        QCOMPARE(fateOf(p, "y of drive"), Fate::Kept);
        QCOMPARE(p.plan.timed.size(), std::size_t(1));
        core::dae::ReducedEvaluator rs(p.sys, p.plan);
        const std::size_t n = static_cast<std::size_t>(rs.size());
        std::vector<double> idFull, id(n), y(n), yp(n), F(n);
        core::dae::differentialMask(p.sys, p.sys.discrete0.data(), idFull);
        rs.gather(idFull.data(), nullptr, id.data(), nullptr);
        std::mt19937 rng(5);
        std::uniform_real_distribution<double> draw(-1.0, 1.0);
        for (double& v : y) v = 1e-3 * draw(rng);
        for (double& v : yp) v = draw(rng);
        const double t = 0.0123;
        QVERIFY(rs.consistentRates(t, y.data(), id.data(), p.sys.discrete0.data(), 0, yp.data()));
        rs.residual({t, y.data(), yp.data(), p.sys.discrete0.data()}, F.data());
        for (std::size_t i = 0; i < n; ++i) QCOMPARE_NEAR(F[i], 0.0, 1e-9, QString("reduced row %1").arg(i));
        const int drive = p.plan.reducedIndex[static_cast<std::size_t>(p.plan.timed[0].unknown)];
        QCOMPARE_NEAR(y[static_cast<std::size_t>(drive)], 100.0 * std::sin(2 * std::numbers::pi * 5.0 * t), 1e-12);
        // declined: a differential unknown called algebraic
        const std::vector<double> y0 = y, yp0 = yp;
        for (std::size_t i = 0; i < n; ++i)
            if (id[i] == 1.0) {
                id[i] = 0.0;
                break;
            }
        QVERIFY(!rs.consistentRates(t, y.data(), id.data(), p.sys.discrete0.data(), 0, yp.data()));
        QVERIFY(y == y0 && yp == yp0);
    }

    // After consistentRates() the restart estimate's index-1 matrix is diagonal on the operator's
    // rows (ReducedEvaluator::rateDiagonal): solved by differences of the residual it gives the
    // first step and the source's rate that the matrix gives, in and out of contact; a diagonal
    // that does not fit is caught by its check and the matrix solved instead.
    void restartEstimateWithoutTheMatrix() {
        const Planned p = plan(springStop(true));
        core::dae::ReducedEvaluator rs(p.sys, p.plan);
        const std::size_t n = static_cast<std::size_t>(rs.size());
        for (const std::vector<double>& modes : {p.sys.discrete0, stopInContact(p.sys)}) {
            std::vector<double> idFull, id(n), y(n), yp(n), diagonal(n), atol(n, 1e-8);
            core::dae::differentialMask(p.sys, modes.data(), idFull);
            rs.gather(idFull.data(), nullptr, id.data(), nullptr);
            std::mt19937 rng(11);
            std::uniform_real_distribution<double> draw(-1.0, 1.0);
            for (double& v : y) v = 1e-2 * draw(rng);
            for (double& v : yp) v = draw(rng);
            const double t = 0.0371;
            QVERIFY(rs.consistentRates(t, y.data(), id.data(), modes.data(), 0, yp.data()));
            QVERIFY(rs.rateDiagonal(id.data(), diagonal.data()));
            core::solver::SunContext ctx;
            core::solver::NVector tmpl = core::solver::makeVector(static_cast<long>(n), ctx);
            core::solver::Matrix A(SUNDenseMatrix(static_cast<long>(n), static_cast<long>(n), ctx));
            core::solver::LinearSolver ls(SUNLinSol_Dense(tmpl.get(), A.get(), ctx));
            int asked = 0;   // the matrix is asked for only by the estimate that solves with it
            const auto full = [&] {
                ++asked;
                return core::solver::LinearSystem{A.get(), ls.get()};
            };
            core::solver::RestartInput in{t, &id, modes.data(), 0, 1e-6, atol.data(), 1e-3, false};
            std::vector<double> ypMatrix = yp, ypDiagonal = yp;
            const core::solver::RestartGuess byMatrix =
                core::solver::estimateRestart(rs, in, y.data(), ypMatrix.data(), full, ctx);
            in.diagonal = diagonal.data();
            const core::solver::RestartGuess byDiagonal =
                core::solver::estimateRestart(rs, in, y.data(), ypDiagonal.data(), full, ctx);
            QVERIFY(byMatrix.ok && byDiagonal.ok && byMatrix.firstStep > 0.0);
            QVERIFY(!byMatrix.diagonal && byDiagonal.diagonal);
            QCOMPARE(asked, 1);
            QCOMPARE_NEAR(byDiagonal.firstStep, byMatrix.firstStep, 1e-6 * byMatrix.firstStep);
            for (std::size_t i = 0; i < n; ++i)
                QCOMPARE_NEAR(ypDiagonal[i], ypMatrix[i], 1e-6 * (1.0 + std::abs(ypMatrix[i])),
                              QString("rate %1").arg(i));
            // a diagonal that is off: the check declines it, and the matrix gives the same again
            for (double& d : diagonal) d *= 1.5;
            std::vector<double> ypWrong = yp;
            const core::solver::RestartGuess byWrong =
                core::solver::estimateRestart(rs, in, y.data(), ypWrong.data(), full, ctx);
            QVERIFY(!byWrong.diagonal);
            QCOMPARE(byWrong.firstStep, byMatrix.firstStep);
            QVERIFY(ypWrong == ypMatrix);
        }
    }

    // A network whose sums are too large to keep earlier operators (a chain of 60 masses, a gear
    // train of 40 stages): after
    // each set of mode changes the operator is built again only where the changed stops' rows
    // reach (ReducedEvaluator::updateOperator), and its residual, Jacobian and quadrature rates
    // stay those of evaluating every block, through contacts at both bounds and back.
    // The resting part's shortcuts (docs/engine.md): with a third of a chain moving, the moving
    // part's expansion and its Jacobian entries alone equal the whole expansion and the whole
    // Jacobian there, as the moving values, the time and the moving stops' modes change while the
    // rest stays where the last expansion left it.
    void movingPartAlone() {
        const Planned p = plan(chain(30, 100.0, -1, true));
        core::dae::ReducedEvaluator rs(p.sys, p.plan);
        const int nr = rs.size();
        std::vector<int> moving, entries;
        std::vector<char> isMoving(static_cast<std::size_t>(nr), 0);
        for (int i = 0; i < nr / 3; ++i) moving.push_back(i), isMoving[static_cast<std::size_t>(i)] = 1;
        const core::dae::Pattern& pat = rs.pattern();
        for (int c = 0; c < nr; ++c)
            for (int k = pat.colPtr[static_cast<std::size_t>(c)]; k < pat.colPtr[static_cast<std::size_t>(c) + 1]; ++k)
                if (isMoving[static_cast<std::size_t>(c)] &&
                    isMoving[static_cast<std::size_t>(pat.rowIdx[static_cast<std::size_t>(k)])])
                    entries.push_back(k);
        rs.selectJacobian(entries);
        rs.selectExpansion(moving);
        std::vector<int> movingStops;   // whose modes may change under the moving expansion
        for (int i = 0; i < 30; ++i)
            if (const int b = p.sys.topo.blockIndex("st" + std::to_string(i)); !rs.definesResting(b))
                movingStops.push_back(b);
        QVERIFY(movingStops.size() >= 5 && movingStops.size() < 20);
        std::mt19937 rng(5);
        std::uniform_real_distribution<double> draw(-1.0, 1.0);
        const std::size_t n = static_cast<std::size_t>(p.sys.size());
        std::vector<double> ry(static_cast<std::size_t>(nr)), ryp(ry.size()), modes = p.sys.discrete0;
        std::vector<double> q(p.plan.quadratures.size()), ya(n, 0.0), ypa(n, 0.0), yb(n, 0.0), ypb(n, 0.0);
        for (double& v : ry) v = 1e-2 * draw(rng);
        for (double& v : ryp) v = draw(rng);
        for (std::size_t i = 0; i < movingStops.size();
             ++i)   // contacts (evaluated blocks), whose forces read positions
            modes[static_cast<std::size_t>(p.sys.bindings[static_cast<std::size_t>(movingStops[i])].discreteOffset)] =
                1.0 + static_cast<double>(i % 2);
        rs.expand({0.0, ry.data(), ryp.data(), modes.data()}, q.data(), ya.data(), ypa.data());
        std::vector<double> full(static_cast<std::size_t>(pat.nnz())), selected(entries.size());
        int shortcuts = 0;
        for (int round = 1; round <= 40; ++round) {
            for (const int i : moving) {
                ry[static_cast<std::size_t>(i)] = 1e-2 * draw(rng);
                ryp[static_cast<std::size_t>(i)] = draw(rng);
            }
            const int stop = movingStops[rng() % movingStops.size()];
            modes[static_cast<std::size_t>(p.sys.bindings[static_cast<std::size_t>(stop)].discreteOffset)] =
                static_cast<double>(rng() % 3);   // free, contact upper, contact lower
            for (double& v : q) v = draw(rng);
            const core::dae::State s{0.01 * round, ry.data(), ryp.data(), modes.data()};
            if (rs.expandMoving(s, q.data(), ya.data(), ypa.data()))
                ++shortcuts;
            else   // as the run does
                rs.expand(s, q.data(), ya.data(), ypa.data());
            rs.expand(s, q.data(), yb.data(), ypb.data());
            for (std::size_t u = 0; u < n; ++u) {
                QCOMPARE_NEAR(ya[u], yb[u], 1e-12 * (1.0 + std::abs(yb[u])),
                              QString("y %1, round %2").arg(u).arg(round));
                QCOMPARE_NEAR(ypa[u], ypb[u], 1e-12 * (1.0 + std::abs(ypb[u])),
                              QString("y' %1, round %2").arg(u).arg(round));
            }
            rs.jacobian(s, 37.0, full.data());
            QVERIFY(rs.selectedJacobian(s, 37.0, selected.data()));
            for (std::size_t j = 0; j < entries.size(); ++j) {
                const double want = full[static_cast<std::size_t>(entries[j])];
                QCOMPARE_NEAR(selected[j], want, 1e-12 * (1.0 + std::abs(want)),
                              QString("entry %1, round %2").arg(j).arg(round));
            }
        }
        QVERIFY(shortcuts >= 20);   // an evaluated block outside declines (a stop in contact)
    }

    void operatorUpdatedInPlace_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("chain") << "chain";
        QTest::newRow("gear train") << "gear train";   // the gears' torques read the backlash forces
    }
    void operatorUpdatedInPlace() {
        QFETCH(QString, model);
        const bool gears = model == "gear train";
        const int count = gears ? 40 : 60;
        const core::dae::DaeSystem sys = core::dae::assemble(
            core::graph::buildTopology(gears ? gearTrain(count) : chain(count), blocks::registry()));
        const core::dae::ReductionPlan red = core::dae::planReduction(sys);
        core::dae::ReducedEvaluator rs(sys, red), re(sys, red);
        re.setUseSums(false);
        const std::size_t nr = static_cast<std::size_t>(rs.size());
        std::mt19937 rng(3);
        std::uniform_real_distribution<double> draw(-1.0, 1.0);
        std::vector<double> ry(nr), ryp(nr), ra(nr), rb(nr), modes = sys.discrete0;
        std::vector<double> ja(static_cast<std::size_t>(rs.pattern().nnz())), jb(ja.size());
        std::vector<double> qa(red.quadratures.size()), qb(qa.size());
        std::vector<int> stops;
        for (int i = 0; i < count; ++i)
            stops.push_back(sys.topo.blockIndex((gears ? "lash" : "st") + std::to_string(i)));
        for (int round = 0; round < 30; ++round) {
            for (int k = 0; k < 3; ++k) {   // free, contact upper, contact lower
                const int stop = stops[static_cast<std::size_t>(rng() % stops.size())];
                modes[static_cast<std::size_t>(sys.bindings[static_cast<std::size_t>(stop)].discreteOffset)] =
                    static_cast<double>(rng() % 3);
            }
            for (double& v : ry) v = 1e-2 * draw(rng);
            for (double& v : ryp) v = draw(rng);
            const core::dae::State s{0.1 * round, ry.data(), ryp.data(), modes.data()};
            rs.residual(s, ra.data());
            re.residual(s, rb.data());
            for (std::size_t i = 0; i < nr; ++i)
                QCOMPARE_NEAR(ra[i], rb[i], 1e-9 * (1.0 + std::abs(rb[i])),
                              QString("row %1, round %2").arg(i).arg(round));
            rs.jacobian(s, 37.0, ja.data());
            re.jacobian(s, 37.0, jb.data());
            for (std::size_t k = 0; k < ja.size(); ++k)
                QCOMPARE_NEAR(ja[k], jb[k], 1e-9 * (1.0 + std::abs(jb[k])),
                              QString("entry %1, round %2").arg(k).arg(round));
            rs.quadratureRates(s, qa.data());
            re.quadratureRates(s, qb.data());
            for (std::size_t k = 0; k < qa.size(); ++k)
                QCOMPARE_NEAR(qa[k], qb[k], 1e-9 * (1.0 + std::abs(qb[k])),
                              QString("rate %1, round %2").arg(k).arg(round));
        }
        QVERIFY(rs.operatorUpdates() >= 20);   // in place, not from scratch
    }

    // A restart by one Newton step with the index-1 matrix: in a mode whose residual is affine (a
    // stop in contact, unreduced, so its contact force is an algebraic unknown) it makes
    // the state consistent and leaves the differential values alone; a wrong differential mask
    // is declined with the state as it was.
    void consistentByOneStepInAnAffineMode() {
        const core::dae::DaeSystem sys =
            core::dae::assemble(core::graph::buildTopology(springStop(), blocks::registry()));
        const core::dae::ReductionPlan none = core::dae::planReduction(sys, false);
        core::dae::ReducedEvaluator ev(sys, none);
        const std::vector<double> modes = stopInContact(sys);
        const std::size_t n = static_cast<std::size_t>(ev.size());
        std::vector<double> id, y(n), yp(n), F(n), atol(n, 1e-8);
        core::dae::differentialMask(sys, modes.data(), id);
        QCOMPARE(std::count(id.begin(), id.end(), 0.0), 1);   // the contact force
        std::mt19937 rng(3);
        std::uniform_real_distribution<double> draw(-1.0, 1.0);
        for (double& v : y) v = 1e-2 * draw(rng);
        for (double& v : yp) v = draw(rng);
        const std::vector<double> y0 = y, yp0 = yp;
        core::solver::SunContext ctx;
        core::solver::NVector tmpl = core::solver::makeVector(static_cast<long>(n), ctx);
        core::solver::Matrix A(SUNDenseMatrix(static_cast<long>(n), static_cast<long>(n), ctx));
        core::solver::LinearSolver ls(SUNLinSol_Dense(tmpl.get(), A.get(), ctx));
        const double t = 0.25;
        const core::solver::RestartInput in{t, &id, modes.data(), 0, 1e-6, atol.data(), 1e-3, false};
        QVERIFY(core::solver::consistentByOneStep(ev, in, y.data(), yp.data(), A.get(), ls.get(), ctx));
        ev.residual({t, y.data(), yp.data(), modes.data()}, F.data());
        for (std::size_t i = 0; i < n; ++i) {
            QCOMPARE_NEAR(F[i], 0.0, 1e-9, QString("row %1").arg(i));
            if (id[i] != 0.0)
                QCOMPARE(y[i], y0[i]);   // differential values stay
            else
                QCOMPARE(yp[i], yp0[i]);   // the algebraic ones' rates too
        }
        // declined: a differential unknown called algebraic leaves its rate undetermined
        std::vector<double> wrong = id;
        *std::find(wrong.begin(), wrong.end(), 1.0) = 0.0;
        const core::solver::RestartInput bad{t, &wrong, modes.data(), 0, 1e-6, atol.data(), 1e-3, false};
        y = y0;
        yp = yp0;
        QVERIFY(!core::solver::consistentByOneStep(ev, bad, y.data(), yp.data(), A.get(), ls.get(), ctx));
        QVERIFY(y == y0 && yp == yp0);
    }

    // A stop that goes into contact and back: the free mode's operator is taken back, not
    // rebuilt, and gives the residual a fresh evaluator builds.
    void operatorsOfEarlierModesAreTakenBack() {
        const Planned p = plan(springStop());
        const std::vector<double> free = p.sys.discrete0, contact = stopInContact(p.sys);
        core::dae::ReducedEvaluator rs(p.sys, p.plan);
        const std::size_t n = static_cast<std::size_t>(rs.size());
        std::vector<double> y(n), yp(n), F(n), again(n), fresh(n);
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> draw(-1.0, 1.0);
        for (double& v : y) v = 1e-2 * draw(rng);
        for (double& v : yp) v = draw(rng);
        unsigned long version = 0;
        auto residualIn = [&](core::dae::ReducedEvaluator& ev, const std::vector<double>& modes,
                              std::vector<double>& out) {
            ev.residual({0.5, y.data(), yp.data(), modes.data(), ++version}, out.data());
        };
        residualIn(rs, free, F);
        residualIn(rs, contact, again);
        QVERIFY(again != F);   // the contact force is in the rows
        QCOMPARE(rs.operatorBuilds(), 2);
        residualIn(rs, free, again);
        residualIn(rs, contact, again);
        residualIn(rs, free, again);
        QCOMPARE(rs.operatorBuilds(), 2);
        QCOMPARE(again, F);
        core::dae::ReducedEvaluator other(p.sys, p.plan);
        residualIn(other, free, fresh);
        QCOMPARE(fresh, F);
    }

    // The mask kept between restarts, counted again only where modes changed, against the mask
    // computed whole, over random mode changes of a locking stiction (the rates of its flanges'
    // velocities enter its rows only while locked) and a stop with restitution. In a model that
    // validates, another row keeps those rates (a node that switches needs an inertia), so the
    // whole mask stays the same here: what is checked is that the counts end where the whole
    // computation does, mode after mode.
    void differentialMaskKeptBetweenRestarts() {
        const Planned p = plan(beltAndStop());
        int changing = 0;
        for (const core::dae::BlockStructure& st : p.sys.structures) changing += st.derivativesChange ? 1 : 0;
        QCOMPARE(changing, 2);   // the stiction's and the stop's rows take other rates per mode
        core::dae::DifferentialMask kept(p.sys);
        core::dae::DiscreteJournal journal(p.sys);   // as a run tells the mask what it wrote
        const int reader = journal.addReader();
        std::vector<double> modes = p.sys.discrete0, whole;
        std::vector<int> written;
        std::mt19937 rng(11);
        for (int round = 0; round < 200; ++round) {
            for (std::size_t bi = 0; bi < p.sys.bindings.size(); ++bi) {
                const core::dae::BlockStructure& st = p.sys.structures[static_cast<std::size_t>(p.sys.structureOf[bi])];
                const auto& bind = p.sys.bindings[bi];
                if (!st.modeDiscretes.empty()) journal.beforeWrite(static_cast<int>(bi), modes.data());
                for (std::size_t m = 0; m < st.modeDiscretes.size(); ++m)
                    if (rng() % 3 == 0)
                        modes[static_cast<std::size_t>(bind.discreteOffset + st.modeDiscretes[m])] =
                            static_cast<double>(rng() % static_cast<unsigned>(st.radix[m]));
            }
            core::dae::differentialMask(p.sys, modes.data(), whole);
            const bool known = journal.changes(reader, modes.data(), written);
            QCOMPARE(known, round > 0);
            QCOMPARE(known ? kept.update(modes.data(), written) : kept.update(modes.data()), whole);
            journal.seen(reader);
        }
    }
};

QTEST_GUILESS_MAIN(TestReducedEvaluator)
#include "tst_reduced_evaluator.moc"
