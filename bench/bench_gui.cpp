// SPDX-License-Identifier: GPL-3.0-or-later
#include "bench/bench_gui.hpp"

#include "bench/models.hpp"
#include "blocks/registry.hpp"
#include "core/io/project_file.hpp"
#include "core/simulation/simulate.hpp"
#include "gui/diagnostics_panel.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"
#include "gui/plot_panel.hpp"
#include "gui/run_controller.hpp"
#include "gui/signal_catalog.hpp"
#include "gui/subplot.hpp"
#include "gui/tuning_panel.hpp"
#include "gui/tuning_row.hpp"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSlider>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace endstop::bench {

namespace {

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

std::string num(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", x);
    return buf;
}

// `count` signals spread over the masses' positions and velocities (any signals for other models)
std::vector<std::string> pickSignals(const gui::Document& doc, int count) {
    std::vector<std::string> positions, velocities, others;
    for (const gui::SignalInfo& s : gui::signalCatalog(doc)) {
        const core::model::BlockSpec* b = doc.model().find(s.block);
        const bool mass = b && b->type == "translational.mass";
        (mass && s.var == "x" ? positions : mass && s.var == "v" ? velocities : others).push_back(s.name);
    }
    std::vector<std::string> all = positions;
    all.insert(all.end(), velocities.begin(), velocities.end());
    all.insert(all.end(), others.begin(), others.end());
    std::vector<std::string> out;
    const auto n = static_cast<std::size_t>(std::max(0, count));
    for (std::size_t k = 0; k < n && k < all.size(); ++k) out.push_back(all[k * all.size() / std::min(n, all.size())]);
    return out;
}

core::model::Model buildModel(const BenchGuiOptions& o) {
    core::model::Model model =
        o.model == QLatin1String("chain") ? bench::modelB(o.n) : core::io::loadProject(o.model, blocks::registry());
    core::model::SimulationSettings s = model.simulation();
    if (o.stopTime > 0) s.stopTime = o.stopTime;
    if (o.points > 0) s.outputInterval = s.stopTime / static_cast<double>(o.points);
    model.apply(core::model::SetSimulation{s});
    return model;
}

// slider moves on a pinned parameter: the time from the move to the replot showing the new run
std::string measureTuning(gui::MainWindow& window, const QString& target) {
    const QStringList nameKey = target.split('.');
    if (nameKey.size() != 2 || !window.tuning()->pin(nameKey[0], nameKey[1])) return ",\"tune_error\":\"cannot pin\"";
    QSlider* slider = window.tuning()->row(nameKey[0], nameKey[1])->slider();
    const gui::RunController& runs = *window.runs();
    std::vector<double> latencies;
    for (int i = 0; i < 10; ++i) {
        bool drawn = false;
        const QMetaObject::Connection c = QObject::connect(window.plots()->plot(), &QCustomPlot::afterReplot,
                                                           [&] { drawn = drawn || !runs.active(); });
        QElapsedTimer clock;
        clock.start();
        slider->setSliderDown(true);
        slider->setValue(i % 2 == 0 ? 300 : 700);
        while (!drawn) QApplication::processEvents(QEventLoop::WaitForMoreEvents);
        latencies.push_back(static_cast<double>(clock.nsecsElapsed()) * 1e-6);
        slider->setSliderDown(false);
        QObject::disconnect(c);
    }
    return ",\"tune_ms_p50\":" + num(percentile(latencies, 50)) +
           ",\"tune_ms_max\":" + num(*std::max_element(latencies.begin(), latencies.end()));
}

}   // namespace

int runBenchGui(const BenchGuiOptions& o) {
    const core::model::Model model = buildModel(o);
    gui::MainWindow window(blocks::registry());
    window.resize(1280, 800);
    window.show();
    gui::Document& doc = window.document();
    doc.reset(model, QString());
    const std::vector<std::string> signalList = pickSignals(doc, o.traces);
    const std::size_t half = (signalList.size() + 1) / 2;
    std::vector<core::model::PlotSpec> plots{
        {"A", {signalList.begin(), signalList.begin() + static_cast<std::ptrdiff_t>(half)}}};
    if (half < signalList.size())
        plots.push_back({"B", {signalList.begin() + static_cast<std::ptrdiff_t>(half), signalList.end()}});
    doc.apply(core::model::SetPlots{plots}, QStringLiteral("bench plots"));
    const core::RunStats reference = [&] {   // headless, recording what the window's run records
        core::MemorySink headless;
        return core::simulation::simulate(doc.model(), blocks::registry(),
                                          gui::RunController::recordingFor(doc.model(), blocks::registry()), headless);
    }();
    window.diagnostics()->validateNow();
    // the editor's own background work (validation, wire routing) is done before Run is pressed
    while (window.diagnostics()->busy() || window.scene()->routesPending())
        QApplication::processEvents(QEventLoop::WaitForMoreEvents);
    QThreadPool::globalInstance()->waitForDone();
    QApplication::processEvents();

    QElapsedTimer clock;
    clock.start();
    std::vector<double> stalls, frames, replots, pulls;
    qint64 lastProbe = clock.nsecsElapsed(), frameStart = -1, runPressed = 0;
    double ttfp = -1;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(1);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const qint64 now = clock.nsecsElapsed();
        stalls.push_back(std::max(0.0, static_cast<double>(now - lastProbe) * 1e-6 - 1.0));
        lastProbe = now;
    });
    gui::RunController& runs = *window.runs();
    QObject::connect(&runs, &gui::RunController::frame, [&] {
        pulls.push_back(runs.lastPullSeconds() * 1e3);
        if (frameStart < 0) frameStart = clock.nsecsElapsed() - static_cast<qint64>(runs.lastPullSeconds() * 1e9);
    });
    QCustomPlot* plot = window.plots()->plot();
    QObject::connect(plot, &QCustomPlot::afterReplot, [&] {
        const qint64 now = clock.nsecsElapsed();
        if (frameStart >= 0) frames.push_back(static_cast<double>(now - frameStart) * 1e-6);
        replots.push_back(plot->replotTime());
        frameStart = -1;
        const gui::RunSeries* cur = runs.current();
        const QCPGraph* g =
            cur && !signalList.empty() ? window.plots()->subplot(0)->graph(signalList.front(), cur->id()) : nullptr;
        if (ttfp < 0 && g && g->dataCount() > 0) ttfp = static_cast<double>(now - runPressed) * 1e-6;
    });
    QEventLoop loop;   // a blocking wait: a processEvents() loop would spin and steal the solver's core
    QObject::connect(&runs, &gui::RunController::runFinished, &loop,
                     [&] { QTimer::singleShot(100, &loop, &QEventLoop::quit); });

    probe.start();
    runPressed = clock.nsecsElapsed();
    window.action(QStringLiteral("run"))->trigger();
    loop.exec();
    probe.stop();

    const core::simulation::Run& run = runs.current()->run();
    const core::RunStats stats = run.stats();
    const double rows = static_cast<double>(run.results().rows());
    const bool chain = o.model == QLatin1String("chain");
    std::string json =
        "{\"model\":\"" + o.model.toStdString() + "\"" + (chain ? ",\"N\":" + std::to_string(o.n) : std::string()) +
        ",\"traces\":" + std::to_string(signalList.size()) + ",\"rows\":" + std::to_string(run.results().rows()) +
        ",\"columns\":" + std::to_string(run.results().columns().size()) + ",\"state\":\"" +
        core::simulation::toString(run.state()) + "\",\"ttfp_ms\":" + num(ttfp) +
        ",\"frame_ms_p50\":" + num(percentile(frames, 50)) + ",\"frame_ms_p95\":" + num(percentile(frames, 95)) +
        ",\"frame_ms_p99\":" + num(percentile(frames, 99)) + ",\"frames\":" + std::to_string(frames.size()) +
        ",\"pull_ms_p50\":" + num(percentile(pulls, 50)) + ",\"replot_ms_p50\":" + num(percentile(replots, 50)) +
        ",\"samples_per_s\":" + num(rows * static_cast<double>(signalList.size()) / std::max(1e-9, stats.wallSeconds)) +
        ",\"solver_slowdown\":" + num(stats.wallSeconds / std::max(1e-9, reference.wallSeconds)) +
        ",\"headless_wall_s\":" + num(reference.wallSeconds) + ",\"gui_wall_s\":" + num(stats.wallSeconds) +
        ",\"max_stall_ms\":" + num(stalls.empty() ? 0 : *std::max_element(stalls.begin(), stalls.end())) +
        ",\"stall_ms_p99\":" + num(percentile(stalls, 99));

    if (o.points > 0) {   // zoom into the middle and pan back out, one redraw of every trace a step
        std::vector<double> redraws;
        const QCPRange full = window.plots()->timeRange();
        for (int i = 0; i < 60; ++i) {
            const double width = full.size() * std::pow(0.8, i < 30 ? i : 59 - i);
            const double centre = full.lower + full.size() * (0.3 + 0.4 * i / 59.0);
            QElapsedTimer t;
            t.start();
            window.plots()->setTimeRange(QCPRange(centre - width / 2, centre + width / 2));
            plot->replot(QCustomPlot::rpImmediateRefresh);
            redraws.push_back(static_cast<double>(t.nsecsElapsed()) * 1e-6);
        }
        json += ",\"zoom_ms_p50\":" + num(percentile(redraws, 50)) +
                ",\"zoom_ms_p95\":" + num(percentile(redraws, 95)) +
                ",\"zoom_ms_max\":" + num(*std::max_element(redraws.begin(), redraws.end()));
    }
    if (!o.tune.isEmpty()) json += measureTuning(window, o.tune);
    json += "}";
    std::printf("%s\n", json.c_str());
    std::fflush(stdout);
    doc.markClean();
    return run.state() == core::simulation::RunState::Finished ? 0 : 1;
}

}   // namespace endstop::bench
