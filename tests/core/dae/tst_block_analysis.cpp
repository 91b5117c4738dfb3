// SPDX-License-Identifier: GPL-3.0-or-later
// The analysis of each block (core/dae/block_structure.hpp, row_forms.hpp): sampling a block
// leaves the network's state as it was and gives what the build kept, and blocks that differ only
// in their values share one structure while keeping their own row forms; whether a block is
// summed, and what it adds to the sums, follows the discretes its equations read.
#include "support/model_builder.hpp"
#include "support/test_support.hpp"
#include "reduce_models.hpp"

#include "blocks/registry.hpp"
#include "core/dae/assemble_stages.hpp"
#include "core/dae/block_structure.hpp"
#include "core/dae/dae_system.hpp"
#include "core/dae/discrete_changes.hpp"
#include "core/dae/evaluator.hpp"
#include "core/dae/row_forms.hpp"
#include "core/graph/topology.hpp"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>

using namespace endstop;

class TestBlockAnalysis : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Analysing a block samples it in the network-sized state and gives that state back as it was
    // (core/dae/row_forms.hpp, Sampling): its own discretes restored, its slots zero again. So the
    // blocks can be analysed one after the other in one state, each at the cost of its own size,
    // and what the build found for each structure is what the block gives analysed on its own.
    void analysisLeavesTheSamplingState() {
        const core::dae::DaeSystem sys =
            core::dae::assemble(core::graph::buildTopology(gearTrain(3, "smooth"), blocks::registry()));
        core::dae::Evaluator ev(sys);
        core::dae::Sampling sampling(sys);
        const auto zero = [](const std::vector<double>& v) {
            return std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0; });
        };
        const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
        for (std::size_t bi = 0; bi < sys.bindings.size(); ++bi) {
            const std::vector<core::dae::RowForm> forms =
                core::dae::analyseRowForms(sys, ev, static_cast<int>(bi), sampling);
            std::vector<char> rates;
            const std::vector<char> reads =
                core::dae::analyseEventReads(sys, ev, static_cast<int>(bi), sampling, rates);
            QVERIFY(zero(sampling.y) && zero(sampling.yp));
            QVERIFY(sampling.disc == sys.discrete0);
            const core::dae::BlockStructure& st = sys.structures[static_cast<std::size_t>(sys.structureOf[bi])];
            QCOMPARE(reads, st.eventReads);
            QCOMPARE(rates, st.eventRateReads);
            const std::vector<core::dae::RowForm>& kept = sys.rowFormsOfBlock(static_cast<int>(bi));
            QCOMPARE(forms.size(), kept.size());
            for (std::size_t v = 0; v < forms.size(); ++v) {
                const core::dae::RowForm &a = forms[v], &b = kept[v];
                QCOMPARE(a.linear, b.linear);
                QCOMPARE(a.timed, b.timed);
                QVERIFY(a.terms == b.terms);
                QVERIFY(same(a.self0, b.self0) && same(a.self1, b.self1));
                QCOMPARE(a.in.size(), b.in.size());
                for (std::size_t k = 0; k < a.in.size(); ++k) QVERIFY(same(a.in[k], b.in[k]));
            }
        }
        // a stop with its modes set elsewhere in the state: analysed there, given back there
        std::vector<double> contact = sys.discrete0;
        const int lash = sys.topo.blockIndex("lash1");
        contact[static_cast<std::size_t>(sys.bindings[static_cast<std::size_t>(lash)].discreteOffset)] = 1.0;
        sampling.disc = contact;
        core::dae::analyseRowForms(sys, ev, lash, sampling);
        QVERIFY(sampling.disc == contact);
    }

    // Blocks whose parameters differ are distinct blocks, but masses of different masses (and
    // springs of different stiffnesses) have one structure: it is analysed for each and kept
    // once, while each keeps its own row forms, which carry its coefficients. Stops of another
    // law have another structure.
    void blocksThatDifferInValueShareTheirStructure() {
        test::ModelBuilder b;
        b.block("g", "translational.reference");
        const auto name = [](const char* prefix, int i) { return prefix + std::to_string(i); };
        for (int i = 0; i < 4; ++i) {
            b.block(name("m", i), "translational.mass", {{"mass", 1.0 + i}, {"initial_velocity", i == 0 ? 1.0 : 0.0}})
                .block(name("st", i), "translational.hard_stop",
                       {{"model", i == 3 ? "smooth" : "full_damped"}, {"upper_bound", 0.01 * (i + 1)}})
                .connect(name("m", i) + ".M", name("st", i) + ".R")
                .connect(name("st", i) + ".C", "g.R");
            if (i > 0)
                b.block(name("k", i), "translational.spring", {{"stiffness", 1e3 * i}})
                    .connect(name("m", i - 1) + ".M", name("k", i) + ".R")
                    .connect(name("k", i) + ".C", name("m", i) + ".M");
        }
        const core::dae::DaeSystem sys = core::dae::assemble(core::graph::buildTopology(b.build(), blocks::registry()));
        const auto index = [&](const std::string& n) { return sys.topo.blockIndex(n); };
        const auto structure = [&](const std::string& n) { return &sys.structureOfBlock(index(n)); };
        const auto forms = [&](const std::string& n) { return &sys.rowFormsOfBlock(index(n)); };
        for (const char* kind : {"m", "st"}) {
            const auto block = [&](int i) {
                return sys.topo.blocks[static_cast<std::size_t>(index(name(kind, i)))].block;
            };
            QVERIFY(block(0) != block(1));
            QCOMPARE(structure(name(kind, 1)), structure(name(kind, 0)));
            QCOMPARE(structure(name(kind, 2)), structure(name(kind, 0)));
            QVERIFY(forms(name(kind, 1)) != forms(name(kind, 0)));
        }
        QCOMPARE(structure("k2"), structure("k1"));
        QVERIFY(structure("st3") != structure("st0"));
        QVERIFY(structure("k1") != structure("m0"));
        // the springs' deformations enter the balances at their nodes with their stiffnesses
        const core::dae::RowForm &k1 = sys.rowFormsOfBlock(index("k1"))[0], &k2 = sys.rowFormsOfBlock(index("k2"))[0];
        QVERIFY(k1.terms == k2.terms);
        QCOMPARE(k1.in.size(), std::size_t{3});   // its own row, then the balances at R and C
        QCOMPARE(k1.in[1], 1000.0);
        QCOMPARE(k2.in[1], 2000.0);
        QCOMPARE(k2.in[2], -2000.0);
        // and runs the same reduced and as drawn
        const auto reduced = runWith(b.build(), true, 0.5, 1e-9), full = runWith(b.build(), false, 0.5, 1e-9);
        QVERIFY(test::last(full, "st0.impacts") >= 1);
        for (const char* stop : {"st0.impacts", "st1.impacts", "st3.impacts"})
            QCOMPARE(test::last(reduced, stop), test::last(full, stop));
        compareColumns(reduced, full, {"m0.v", "m1.v", "m3.v", "st0.x"}, 1e-5);
    }
    // A binding stores only what differs from what it can derive (dae_system.hpp, Binding): its
    // own rows are its unknowns' numbers, its balance rows the first port unknowns' where the
    // conserving ports come first, and a block without derivatives views one shared array of -1.
    // Whatever was left out, every view says what the full arrays said.
    void bindingsStoreOnlyWhatDiffers() {
        for (const core::model::Model& model : {chain(20), beltAndStop(), gearTrain(3)}) {
            const core::dae::DaeSystem sys = core::dae::assemble(core::graph::buildTopology(model, blocks::registry()));
            std::size_t unpacked = 0, plain = 0;
            for (std::size_t bi = 0; bi < sys.bindings.size(); ++bi) {
                const core::dae::Binding& b = sys.bindings[bi];
                const core::graph::TopoBlock& tb = sys.topo.blocks[bi];
                const QString name = QString::fromStdString(tb.name);
                for (int v = 0; v < b.vars; ++v) {
                    const core::dae::Row& row =
                        sys.rows[static_cast<std::size_t>(b.ownRow()[static_cast<std::size_t>(v)])];
                    QVERIFY2(
                        row.kind == core::dae::Row::Kind::Own && row.block == static_cast<int>(bi) && row.index == v,
                        qPrintable(name));
                }
                std::size_t c = 0;
                for (std::size_t p = 0; p < tb.block->ports().size(); ++p) {
                    if (tb.block->ports()[p].kind != core::PortKind::Conserving) continue;
                    const int node = tb.block->portPresent(static_cast<int>(p)) ? tb.portNode()[p] : -1;
                    const int expected = node < 0 ? -1 : sys.nodeUnknown[static_cast<std::size_t>(node)];
                    QCOMPARE(b.portRow()[c++], expected);
                }
                QCOMPARE(c, static_cast<std::size_t>(b.conserving));
                const auto none = [](std::span<const int> v) {
                    return std::all_of(v.begin(), v.end(), [](int k) { return k == -1; });
                };
                const bool derivatives = !none(b.derSlot()) || !none(b.ownDiff()) || !none(b.portDiff());
                QCOMPARE(b.plain, !derivatives);
                plain += b.plain ? 1 : 0;
                unpacked += 2 * static_cast<std::size_t>(b.ports + b.vars) + static_cast<std::size_t>(b.vars) +
                            static_cast<std::size_t>(b.conserving) + b.slot().size() + b.derSlot().size() +
                            b.ownDiff().size() + b.portDiff().size() + b.jac().size();
            }
            QVERIFY(plain > 0);
            QVERIFY2(sys.index.size() < unpacked, qPrintable(QString("%1 of %2").arg(sys.index.size()).arg(unpacked)));
        }
        // a block whose conserving ports do not come first keeps its balance rows: no block in the
        // catalogue declares its ports so, so a spring's two ports are swapped in its draft
        {
            core::dae::DaeSystem sys;
            sys.topo = core::graph::buildTopology(chain(2), blocks::registry());
            std::vector<core::dae::BindingDraft> drafts = core::dae::layOut(sys);
            const std::size_t spring = static_cast<std::size_t>(sys.topo.blockIndex("k0"));
            std::swap(drafts[spring].portSlot[0], drafts[spring].portSlot[1]);
            core::dae::pack(sys, drafts);
            const core::dae::Binding& b = sys.bindings[spring];
            QVERIFY(!b.rowsAlike);
            QVERIFY(std::equal(b.portRow().begin(), b.portRow().end(), drafts[spring].portRow.begin(),
                               drafts[spring].portRow.end()));
            QCOMPARE(b.portUnknown()[0], b.portRow()[1]);
        }
        // the belt's velocity source is differentiated (its drive's rate enters the stick row)
        const core::dae::DaeSystem belt =
            core::dae::assemble(core::graph::buildTopology(beltAndStop(), blocks::registry()));
        QVERIFY(std::any_of(belt.bindings.begin(), belt.bindings.end(),
                            [](const core::dae::Binding& b) { return !b.plain && b.tangent; }));
    }

    // The journal of discrete writes tells each reader exactly the blocks whose discretes differ
    // from what it last saw, as comparing with a copy of the vector taken then does
    // (DiscreteChanges): a block written and written back is not listed, a -0 for a 0 is. Three
    // readers look at different times, through random writes, some of them writing values
    // back; one reader stays away long enough that the log would outgrow a copy, and then
    // starts again (false) while the others keep their answers.
    void journalListsWhatDiffersForEachReader() {
        const core::dae::DaeSystem sys = core::dae::assemble(core::graph::buildTopology(chain(30), blocks::registry()));
        std::vector<int> withDiscretes;
        for (std::size_t b = 0; b < sys.bindings.size(); ++b)
            if (sys.bindings[b].discreteCount > 0) withDiscretes.push_back(static_cast<int>(b));
        QVERIFY(withDiscretes.size() >= 30);
        core::dae::DiscreteJournal journal(sys);
        const core::dae::DiscreteChanges diff(sys);
        std::vector<double> disc = sys.discrete0;
        const int readers = 3;
        std::vector<int> id;
        std::vector<std::vector<double>> seenCopy(readers);
        for (int r = 0; r < readers; ++r) id.push_back(journal.addReader());
        std::vector<int> listed;
        QVERIFY(!journal.changes(id[0], disc.data(), listed));   // nothing seen yet
        // written and written back: not listed; a -0 for a 0: listed
        const int first = withDiscretes.front();
        const auto at = static_cast<std::size_t>(sys.bindings[static_cast<std::size_t>(first)].discreteOffset);
        journal.seen(id[0]);
        const double was = disc[at];
        journal.beforeWrite(first, disc.data());
        disc[at] = was + 1.0;
        journal.beforeWrite(first, disc.data());
        disc[at] = was;
        QVERIFY(journal.changes(id[0], disc.data(), listed));
        QVERIFY(listed.empty());
        journal.beforeWrite(first, disc.data());
        disc[at] = was == 0.0 && !std::signbit(was) ? -0.0 : 0.0;
        QVERIFY(journal.changes(id[0], disc.data(), listed));
        QCOMPARE(listed, std::vector<int>{first});
        disc[at] = was;
        journal.forget();
        std::mt19937 rng(5);
        int checked = 0, restarted = 0;
        for (int round = 0; round < 400; ++round) {
            const int b = withDiscretes[rng() % withDiscretes.size()];
            const core::dae::Binding& bind = sys.bindings[static_cast<std::size_t>(b)];
            journal.beforeWrite(b, disc.data());
            double& v =
                disc[static_cast<std::size_t>(bind.discreteOffset) + rng() % static_cast<unsigned>(bind.discreteCount)];
            const unsigned kind = rng() % 4;
            v = kind == 0   ? sys.discrete0[static_cast<std::size_t>(&v - disc.data())]   // back as it began
                : kind == 1 ? -0.0
                            : static_cast<double>(rng() % 3);
            // reader 2 looks only in the first and last rounds: its log outgrows the vector
            for (int r = 0; r < readers; ++r) {
                if (r == 2 ? (round > 5 && round < 390) : rng() % (r == 0 ? 2 : 3) != 0) continue;
                const bool known = journal.changes(id[static_cast<std::size_t>(r)], disc.data(), listed);
                std::vector<double>& copy = seenCopy[static_cast<std::size_t>(r)];
                if (copy.empty()) {
                    QVERIFY(!known);
                } else if (!known) {
                    QCOMPARE(r, 2);
                    ++restarted;
                } else {
                    std::vector<int> expected;
                    diff.forEach(copy.data(), disc.data(), [&](int block) { expected.push_back(block); });
                    QCOMPARE(listed, expected);
                    ++checked;
                }
                copy = disc;
                journal.seen(id[static_cast<std::size_t>(r)]);
            }
        }
        QVERIFY(checked > 100);
        QCOMPARE(restarted, 1);
        // forgetting: every reader starts again
        journal.forget();
        for (const int r : id) QVERIFY(!journal.changes(r, disc.data(), listed));
    }

    // Only a block with a constraint force in some mode is among those a restart projects
    // impulses for: a hard stop with the restitution law, not one with a stiffness law (a chain of
    // 10,000 full_damped stops asked each of them, and copied the whole state, at every restart).
    // Its runs are as before: the projection found no constraint there anyway.
    void onlyLockingStopsTakeImpulses() {
        for (const char* law : {"smooth", "full_undamped", "full_damped", "restitution"}) {
            const core::dae::DaeSystem sys =
                core::dae::assemble(core::graph::buildTopology(bouncing(law), blocks::registry()));
            const int stop = sys.topo.blockIndex("stop");
            const bool impulsive = std::count(sys.impulsiveBlocks.begin(), sys.impulsiveBlocks.end(), stop) > 0;
            QCOMPARE(impulsive, std::string(law) == "restitution");
        }
        // a stiction lock takes them in every parameterization
        const core::dae::DaeSystem belt =
            core::dae::assemble(core::graph::buildTopology(beltAndStop(), blocks::registry()));
        const int lock = belt.topo.blockIndex("f");
        QVERIFY(std::count(belt.impulsiveBlocks.begin(), belt.impulsiveBlocks.end(), lock) > 0);
    }

    // Whether a block is summed (linear and free of the time) is asked again whenever its
    // discretes change, and answered from what its equations read (Evaluator::linearAt): a
    // friction lock's equations read its mode and direction, not the event time, velocity and
    // flags it keeps for its events, and a stop's not its impact count and loss. Those change at
    // every event, and each change used to cost a symbolic evaluation of the block.
    void equationsReadTheDiscretesTheyNeed() {
        const core::dae::DaeSystem sys =
            core::dae::assemble(core::graph::buildTopology(beltAndStop(), blocks::registry()));
        core::dae::Evaluator ev(sys);
        const std::vector<double> yp(sys.y0.size(), 0.0);
        // the discretes each mode of a block reads, as a bit mask
        const auto reads = [&](const char* name, int modes) {
            const int bi = sys.topo.blockIndex(name);
            const core::dae::Binding& binding = sys.bindings[static_cast<std::size_t>(bi)];
            std::vector<std::uint64_t> out;
            for (int m = 0; m < modes; ++m) {
                std::vector<double> disc = sys.discrete0;
                disc[static_cast<std::size_t>(binding.discreteOffset)] = m;
                std::uint64_t mask = 0;
                core::Eq<double> eq = ev.prepare(
                    ev.doubles(), bi, {0.0, sys.y0.data(), yp.data(), disc.data()},
                    [](int, double y, double d, double& yo, double& dout) {
                        yo = y;
                        dout = d;
                    },
                    [](double t) { return t; });
                ev.doubles().data.discreteReads = &mask;
                binding.block->eval(eq);
                ev.doubles().data.discreteReads = nullptr;
                out.push_back(mask);
            }
            return out;
        };
        // the lock: mode, direction, since, logged, vetoed, v_event (sliding, locked, wait)
        const std::vector<std::uint64_t> lock = reads("f", 3);
        for (const std::uint64_t mask : lock)
            QVERIFY2((mask & 1) != 0 && (mask & ~std::uint64_t(3)) == 0, qPrintable(QString::number(mask)));
        QVERIFY((lock[0] & 2) != 0);   // sliding: the direction gives the friction's sign
        // the stop: mode, branch, impacts, impact_loss, v_before, ...
        for (const std::uint64_t mask : reads("st", 6)) QVERIFY((mask & 1) != 0 && (mask & 0b11100) == 0);
    }

    // A mode change replays the changed blocks' recorded contributions to the sums, found by the
    // discretes their equations read, instead of differentiating them again
    // (Evaluator::setRecordLinear). Through modes that come back to ones seen before, the Jacobian
    // and the residual are those of differentiating afresh, to the bit.
    void modeChangesReplayWhatTheyAdded() {
        const core::dae::DaeSystem sys =
            core::dae::assemble(core::graph::buildTopology(beltAndStop(), blocks::registry()));
        core::dae::Evaluator recorded(sys), afresh(sys);
        afresh.setRecordLinear(false);
        const auto offset = [&](const char* name) {
            return static_cast<std::size_t>(
                sys.bindings[static_cast<std::size_t>(sys.topo.blockIndex(name))].discreteOffset);
        };
        std::vector<double> y(sys.y0.size()), yp(sys.y0.size());
        for (std::size_t i = 0; i < y.size(); ++i) {
            y[i] = 0.1 * std::sin(1.0 + static_cast<double>(i));
            yp[i] = 0.3 * std::cos(2.0 + static_cast<double>(i));
        }
        const std::size_t n = y.size(), nnz = static_cast<std::size_t>(sys.pattern.nnz());
        // (the stop's mode, the lock's mode): free, contact, ...; sliding, locked, wait
        const std::vector<std::pair<int, int>> modes = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {2, 2}, {1, 0},
                                                        {0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 0}};
        std::vector<double> previous;
        int changed = 0;
        for (const auto& [stop, lock] : modes) {
            std::vector<double> disc = sys.discrete0;
            disc[offset("st")] = stop;
            disc[offset("f")] = lock;
            const core::dae::State s{0.5, y.data(), yp.data(), disc.data()};
            std::vector<double> ja(nnz), jb(nnz), ra(n), rb(n);
            recorded.jacobian(s, 2.0, ja.data());
            afresh.jacobian(s, 2.0, jb.data());
            recorded.residual(s, ra.data());
            afresh.residual(s, rb.data());
            QVERIFY2(std::memcmp(ja.data(), jb.data(), nnz * sizeof(double)) == 0,
                     qPrintable(QString("Jacobian, modes %1 %2").arg(stop).arg(lock)));
            QVERIFY2(std::memcmp(ra.data(), rb.data(), n * sizeof(double)) == 0,
                     qPrintable(QString("residual, modes %1 %2").arg(stop).arg(lock)));
            if (!previous.empty() && previous != ja) ++changed;
            previous = ja;
        }
        QVERIFY(changed >= 8);   // the modes change the sums
    }
};

QTEST_GUILESS_MAIN(TestBlockAnalysis)
#include "tst_block_analysis.moc"
