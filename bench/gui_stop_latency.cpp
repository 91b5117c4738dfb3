// SPDX-License-Identifier: GPL-3.0-or-later
// bench_gui_stop_latency [--runs N] [--bound MS]
// How long Stop takes to end a run in the main window: rattling_mass.endstop (bundled example)
// is run with a stop time of 1000 s, stopped once it has computed 100 rows, and the run's
// stopLatency() (from the request to the solver thread leaving the solver) is printed for each of
// N runs (default 10) with the median and the maximum. The stop must take effect within one solver
// step; the exit status is 1 if the maximum exceeds the bound (default 100 ms). A wall-clock bound
// depends on the machine and its load, which is why it is a benchmark and not a unit test
// (tests/gui/tst_plots.cpp checks what Stop does).
#include "blocks/registry.hpp"
#include "core/simulation/session.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"
#include "gui/run_controller.hpp"
#include "gui/run_series.hpp"

#include <QAction>
#include <QApplication>
#include <QTest>
#include <QThreadPool>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace endstop;

namespace {

// One run: started, stopped after 100 rows; its stop latency in ms, negative if it failed.
double stopOnce(gui::MainWindow& w) {
    gui::RunController& runs = *w.runs();
    w.action("run")->trigger();
    if (!QTest::qWaitFor([&] { return runs.current() && runs.current()->rows() > 100; }, 10000)) return -1.0;
    w.action("stop")->trigger();
    if (!QTest::qWaitFor([&] { return !runs.active(); }, 5000)) return -1.0;
    const core::simulation::Run& run = runs.current()->run();
    return run.state() == core::simulation::RunState::Stopped ? run.stopLatency() * 1e3 : -1.0;
}

}   // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName("EndstopBench");
    int count = 10;
    double boundMs = 100.0;
    const QStringList args = QApplication::arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == "--runs" && i + 1 < args.size())
            count = std::max(1, args[++i].toInt());
        else if (args[i] == "--bound" && i + 1 < args.size())
            boundMs = args[++i].toDouble();
    }

    gui::MainWindow w(blocks::registry());
    w.resize(1280, 800);
    w.show();
    if (!w.openFile(QString(ENDSTOP_SOURCE_DIR) + "/resources/examples/rattling_mass.endstop")) return 2;
    core::model::SimulationSettings settings = w.document().model().simulation();
    settings.stopTime = 1000.0;   // long enough that only Stop ends it
    w.document().apply(core::model::SetSimulation{settings}, "Stop time");

    std::vector<double> ms;
    for (int i = 0; i < count; ++i) {
        const double latency = stopOnce(w);
        if (latency < 0) {
            std::printf("run %d did not start, stop or report its latency\n", i + 1);
            return 2;
        }
        std::printf("run %2d: stop latency %7.3f ms\n", i + 1, latency);
        ms.push_back(latency);
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2], worst = ms.back();
    std::printf("stop latency: median %.3f ms, max %.3f ms over %zu runs (bound %.0f ms): %s\n", median, worst,
                ms.size(), boundMs, worst <= boundMs ? "ok" : "EXCEEDED");
    w.document().markClean();
    QThreadPool::globalInstance()->waitForDone();
    return worst <= boundMs ? 0 : 1;
}
