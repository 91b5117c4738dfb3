// SPDX-License-Identifier: GPL-3.0-or-later
// Qt benchmark of the equation evaluation alone (no IDA): residual and AD Jacobian of model b(N).
// Run: build/bench/bench_eval [-iterations N]; not part of ctest.
#include "bench/models.hpp"
#include "blocks/registry.hpp"
#include "core/dae/dae_system.hpp"
#include "core/dae/evaluator.hpp"
#include "core/graph/topology.hpp"

#include <QTest>

#include <memory>

using namespace endstop;

class BenchEval : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void residual_data() { sizes(); }
    void residual() {
        QFETCH(int, n);
        const auto sys = std::make_unique<core::dae::DaeSystem>(
            core::dae::assemble(core::graph::buildTopology(bench::modelB(n), blocks::registry())));
        core::dae::Evaluator ev(*sys);
        std::vector<double> yp(sys->y0.size(), 0.1), F(sys->y0.size());
        const core::dae::State s{0.1, sys->y0.data(), yp.data(), sys->discrete0.data()};
        QBENCHMARK { ev.residual(s, F.data()); }
    }
    void jacobian_data() { sizes(); }
    void jacobian() {
        QFETCH(int, n);
        const auto sys = std::make_unique<core::dae::DaeSystem>(
            core::dae::assemble(core::graph::buildTopology(bench::modelB(n), blocks::registry())));
        core::dae::Evaluator ev(*sys);
        std::vector<double> yp(sys->y0.size(), 0.1), J(static_cast<std::size_t>(sys->pattern.nnz()));
        const core::dae::State s{0.1, sys->y0.data(), yp.data(), sys->discrete0.data()};
        QBENCHMARK { ev.jacobian(s, 1e3, J.data()); }
    }
    void assemble_data() { sizes(); }
    void assemble() {
        QFETCH(int, n);
        const core::model::Model m = bench::modelB(n);
        QBENCHMARK { core::dae::assemble(core::graph::buildTopology(m, blocks::registry())); }
    }

private:
    static void sizes() {
        QTest::addColumn<int>("n");
        for (int n : {100, 1000, 10000}) QTest::newRow(qPrintable(QString("b%1").arg(n))) << n;
    }
};

QTEST_GUILESS_MAIN(BenchEval)
#include "bench_eval.moc"
