// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-bench-gui [--model chain|FILE] [--N n] [--traces k] [--stop-time T] [--points P] [--tune NAME.KEY]:
// the live plots measured offscreen in the real main window; prints one JSON line (bench_gui.hpp).
#include "bench/bench_gui.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QThreadPool>

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser cli;
    cli.setApplicationDescription("Measures Endstop's live plots offscreen and prints one JSON line");
    cli.addHelpOption();
    QCommandLineOption model("model", "chain or a project file", "MODEL", "chain");
    QCommandLineOption n("N", "masses in the chain", "N", "10");
    QCommandLineOption traces("traces", "plotted signals", "K", "8");
    QCommandLineOption stop("stop-time", "stop time (0: the model's)", "T", "0");
    QCommandLineOption points("points", "record about P rows, then zoom and pan", "P", "0");
    QCommandLineOption tune("tune", "pin NAME.KEY and move its slider after the run", "NAME.KEY");
    cli.addOptions({model, n, traces, stop, points, tune});
    cli.process(app);

    endstop::bench::BenchGuiOptions o;
    o.model = cli.value(model);
    o.n = cli.value(n).toInt();
    o.traces = cli.value(traces).toInt();
    o.stopTime = cli.value(stop).toDouble();
    o.points = cli.value(points).toLong();
    o.tune = cli.value(tune);
    const int rc = endstop::bench::runBenchGui(o);
    QThreadPool::globalInstance()->waitForDone();
    return rc;
}
