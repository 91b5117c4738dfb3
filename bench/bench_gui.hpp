// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-bench-gui: the live plots measured in the real main window (offscreen). The model runs
// headless first (the reference), then Run is pressed in the window with `traces` signals plotted,
// and one JSON line reports what a user would feel:
//   ttfp_ms                Run pressed -> first replot showing a point
//   frame_ms_p50/p95/p99   a frame: pulling the new rows, appending them, the (queued) replot
//   samples_per_s          plotted samples (rows x traces) per second of the run
//   solver_slowdown        the run's wall time in the window / headless
//   max_stall_ms, stall_ms_p99   gaps of a 1 ms timer on the GUI thread beyond its period
// With --points P the model is recorded on a grid of about P rows and, after the run, the time
// axis is zoomed and panned in steps: zoom_ms_p50/p95/max per redraw of all traces. With --tune
// NAME.KEY the parameter is pinned and its slider moved ten times: tune_ms_p50/max from the move to
// the replot that shows the finished re-run.
#pragma once

#include <QString>

namespace endstop::bench {

struct BenchGuiOptions {
    QString model = QStringLiteral("chain");   // "chain" (bench::modelB) or a project file
    int n = 10;
    int traces = 8;
    double stopTime = 0.0;   // 0: the model's
    long points = 0;         // 0: a row per solver step
    QString tune;            // NAME.KEY: after the run, time slider moves to the redrawn result
};

int runBenchGui(const BenchGuiOptions& options);

}   // namespace endstop::bench
