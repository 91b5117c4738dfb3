// SPDX-License-Identifier: GPL-3.0-or-later
// The threaded session and its result buffer: rows written on one thread and read incrementally on
// another arrive whole and in order; a run gives what simulate() gives; Pause holds the solver
// (no row while paused) and Resume continues to the same result; Stop ends a run within a step and
// keeps its rows; a failure keeps its rows and names the block; a new run cancels the one in flight;
// destroying the session with a run in flight joins its worker.
#include "core/simulation/session.hpp"
#include "support/model_builder.hpp"
#include "support/test_support.hpp"

#include <QSignalSpy>
#include <QTest>

#include <thread>

using namespace endstop;

namespace {

// a mass between two stiff stops, driven by a sine: many steps and events
// A mass rattling between two stops, driven by a sine force; stop time 1000 s, steps of at most 1 ms.
core::model::Model rattle() {
    test::ModelBuilder b;
    core::model::SimulationSettings settings;
    settings.stopTime = 1000.0;
    settings.maxStep = 1e-3;
    b.simulation(settings);
    b.block("drive", "signal.sine", {{"amplitude", 10.0}, {"frequency", 5.0}})
        .block("fs", "translational.force_source")
        .block("m", "translational.mass", {{"mass", 0.5}})
        .block("stop", "translational.hard_stop",
               {{"model", "full_damped"}, {"upper_bound", 0.005}, {"lower_bound", -0.005}})
        .block("g", "translational.reference");
    b.connect("drive.y", "fs.S")
        .connect("fs.R", "m.M")
        .connect("fs.C", "g.R")
        .connect("m.M", "stop.R")
        .connect("stop.C", "g.R");
    return b.build();
}

core::model::Model withStopTime(core::model::Model m, double t) {
    core::model::SimulationSettings s = m.simulation();
    s.stopTime = t;
    m.apply(core::model::SetSimulation{s});
    return m;
}

bool waitFinished(QSignalSpy& spy, int runId, int timeoutMs = 20000) {
    const auto seen = [&] {
        for (const QList<QVariant>& args : spy)
            if (args.at(0).toInt() == runId) return true;
        return false;
    };
    return QTest::qWaitFor(seen, timeoutMs);
}

std::vector<double> column(const core::simulation::ResultBuffer& b, int c) {
    std::vector<double> out;
    b.read(c, 0, b.rows(), out);
    return out;
}

}   // namespace

template <> char* QTest::toString(const core::simulation::RunState& s) { return qstrdup(core::simulation::toString(s)); }

class TestSession : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void bufferReadsWhileWritten() {
        core::simulation::ResultBuffer buffer;
        buffer.begin({{"a.x", "m", "", "a", "x"}, {"a.v", "m/s", "", "a", "v"}});
        constexpr std::size_t kRows = 200000;   // several chunks
        std::thread writer([&] {
            for (std::size_t r = 0; r < kRows; ++r) {
                const double v[2] = {2.0 * static_cast<double>(r), -static_cast<double>(r)};
                buffer.row(static_cast<double>(r), v);
            }
            buffer.end({});
        });
        std::vector<double> t, x, v;
        std::size_t have = 0;
        while (have < kRows) {   // pull what is there, as the plots do: one column, or several at once
            const std::size_t n = buffer.rows();
            buffer.read(core::simulation::ResultBuffer::kTime, have, n, t);
            const int columns[] = {0, 1};
            std::vector<double>* out[] = {&x, &v};
            buffer.read(columns, have, n, out);
            have = n;
        }
        writer.join();
        QVERIFY(buffer.ended());
        QCOMPARE(t.size(), kRows);
        QCOMPARE(x.size(), kRows);
        QCOMPARE(v.size(), kRows);
        for (std::size_t r = 0; r < kRows; ++r)
            if (t[r] != static_cast<double>(r) || x[r] != 2.0 * static_cast<double>(r) ||
                v[r] != -static_cast<double>(r))
                QFAIL(qPrintable(QString("row %1 torn").arg(r)));
        QCOMPARE(buffer.value(kRows - 1, 1), -static_cast<double>(kRows - 1));
        QCOMPARE(buffer.columnIndex("a.v"), 1);
        QCOMPARE(buffer.columnIndex("nope"), -1);
    }

    void runGivesWhatSimulateGives() {
        const core::model::Model model = test::loadExample("rattling_mass.endstop");
        const core::MemorySink expected = test::run(model);
        core::simulation::Session session(blocks::registry());
        QSignalSpy finished(&session, &core::simulation::Session::finished);
        const auto run = session.start(model);
        QVERIFY(waitFinished(finished, run->id()));
        QCOMPARE(run->state(), core::simulation::RunState::Finished);
        const core::simulation::ResultBuffer& r = run->results();
        QCOMPARE(r.rows(), expected.rows());
        QCOMPARE(r.columns().size(), expected.columns().size());
        const int x = r.columnIndex("stops.x");
        QVERIFY(x >= 0);
        QCOMPARE(column(r, x), expected.values("stops.x"));
        QCOMPARE(column(r, core::simulation::ResultBuffer::kTime), expected.time());
        QCOMPARE(r.eventCount(), expected.events().size());
        QVERIFY(run->stats().completed);
        QCOMPARE(run->time(), expected.time().back());
        QCOMPARE(session.workers(), 0);
    }

    void pauseHoldsAndResumeContinues() {
        const core::model::Model model = withStopTime(rattle(), 2.0);
        const core::MemorySink expected = test::run(model);
        core::simulation::Session session(blocks::registry());
        QSignalSpy finished(&session, &core::simulation::Session::finished);
        session.pause();   // nothing running: no effect
        const auto run = session.start(model);
        session.pause();   // takes effect after its first step
        QTRY_COMPARE_WITH_TIMEOUT(run->state(), core::simulation::RunState::Paused, 10000);
        QVERIFY(session.paused());
        const std::size_t rows = run->results().rows();
        QTest::qWait(150);
        QCOMPARE(run->results().rows(), rows);   // the solver waits inside its progress callback
        QCOMPARE(run->state(), core::simulation::RunState::Paused);
        session.resume();
        QVERIFY(waitFinished(finished, run->id()));
        QCOMPARE(run->state(), core::simulation::RunState::Finished);
        QCOMPARE(run->results().rows(), expected.rows());   // the same run as without the pause
        QCOMPARE(column(run->results(), run->results().columnIndex("m.x")), expected.values("m.x"));
    }

    void stopEndsTheRunWithinAStepAndKeepsItsRows() {
        const core::model::Model model = rattle();   // 1000 s: it would run for minutes
        core::simulation::Session session(blocks::registry());
        QSignalSpy finished(&session, &core::simulation::Session::finished);
        const auto run = session.start(model);
        // paused, the solver is between two steps: Stop must end it without another step
        session.pause();
        QTRY_COMPARE_WITH_TIMEOUT(run->state(), core::simulation::RunState::Paused, 10000);
        const std::size_t rows = run->results().rows();
        session.stop();
        QVERIFY(waitFinished(finished, run->id()));
        QCOMPARE(run->state(), core::simulation::RunState::Stopped);
        QCOMPARE(run->results().rows(), rows);
        QVERIFY(run->results().ended());
        QVERIFY(run->results().stats().cancelled);
        QVERIFY(run->time() < run->stopTime());
        QVERIFY(run->stopLatency() >= 0);

        // running: it ends after at most the step in flight
        const auto second = session.start(model);
        QTRY_VERIFY_WITH_TIMEOUT(second->results().rows() > 100, 10000);
        session.stop();
        QVERIFY(waitFinished(finished, second->id()));
        QCOMPARE(second->state(), core::simulation::RunState::Stopped);
        QVERIFY(second->results().rows() > 100);
        QVERIFY(second->results().lastTime() < 1000.0);
        qInfo("stop latency %.3f ms (paused), %.3f ms (running)", run->stopLatency() * 1e3,
              second->stopLatency() * 1e3);
    }

    void failureKeepsRowsAndNamesTheBlock() {
        core::simulation::Session session(blocks::registry());
        QSignalSpy finished(&session, &core::simulation::Session::finished);
        test::ModelBuilder net;
        net.stopTime(3.0)
            .block("push", "signal.ramp", {{"slope", 1e300}, {"start_time", 0.5}})
            .block("fs", "translational.force_source")
            .block("m", "translational.mass")
            .block("g", "translational.reference");
        net.connect("push.y", "fs.S").connect("fs.R", "m.M").connect("fs.C", "g.R");
        const auto run = session.start(net.build());
        QVERIFY(waitFinished(finished, run->id()));
        QCOMPARE(run->state(), core::simulation::RunState::Failed);
        QVERIFY(run->results().rows() > 0);
        QVERIFY(run->results().lastTime() >= 0.49);
        const core::Diagnostics d = run->diagnostics();
        QVERIFY(!d.empty());
        QVERIFY2(d.front().message.find("t = ") != std::string::npos, d.front().message.c_str());
        QVERIFY(!d.front().hint.empty());
    }

    void structuralErrorIsReportedBeforeAnyRow() {
        core::simulation::Session session(blocks::registry());
        QSignalSpy finished(&session, &core::simulation::Session::finished);
        // a force on a node without inertia
        test::ModelBuilder net;
        net.block("c", "signal.constant")
            .block("fs", "translational.force_source")
            .block("g", "translational.reference");
        net.connect("c.y", "fs.S").connect("fs.C", "g.R");
        const auto run = session.start(net.build());
        QVERIFY(waitFinished(finished, run->id()));
        QCOMPARE(run->state(), core::simulation::RunState::Failed);
        QCOMPARE(run->results().rows(), std::size_t{0});
        QVERIFY(run->results().ended());
        bool named = false;
        for (const core::Diagnostic& d : run->diagnostics()) named = named || d.block == "fs";
        QVERIFY(named);
    }

    void badSettingsFailWithTheSettingNamed() {
        core::simulation::Session session(blocks::registry());
        QSignalSpy finished(&session, &core::simulation::Session::finished);
        core::simulation::SimulationOptions options;
        options.stopTime = -1.0;
        const auto run = session.start(test::loadExample("rattling_mass.endstop"), options);
        QVERIFY(waitFinished(finished, run->id()));
        QCOMPARE(run->state(), core::simulation::RunState::Failed);
        QVERIFY(run->diagnostics().front().message.find("stop_time") != std::string::npos);
    }

    void newRunCancelsTheRunInFlight() {
        const core::model::Model model = rattle();
        core::simulation::Session session(blocks::registry());
        QSignalSpy finished(&session, &core::simulation::Session::finished);
        const auto first = session.start(model);
        QTRY_VERIFY_WITH_TIMEOUT(first->results().rows() > 10, 10000);
        const auto second = session.start(test::loadExample("rattling_mass.endstop"));
        QCOMPARE(session.current(), second);
        QVERIFY(waitFinished(finished, first->id()));
        QVERIFY(waitFinished(finished, second->id()));
        QCOMPARE(first->state(), core::simulation::RunState::Cancelled);
        QVERIFY(first->results().rows() > 10);
        QCOMPARE(second->state(), core::simulation::RunState::Finished);
        QTRY_COMPARE(session.workers(), 0);
    }

    void destroyingTheSessionJoinsItsWorkers() {
        std::shared_ptr<core::simulation::Run> run;
        {
            core::simulation::Session session(blocks::registry());
            run = session.start(rattle());
            QTRY_VERIFY_WITH_TIMEOUT(run->results().rows() > 10, 10000);
            session.pause();
        }   // paused and running: the destructor cancels and joins
        QCOMPARE(run->state(), core::simulation::RunState::Cancelled);
        QVERIFY(run->results().ended());
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
