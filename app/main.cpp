// SPDX-License-Identifier: GPL-3.0-or-later
// endstop [FILE]: the desktop application.
// Hidden options for documentation and checks: --screenshot OUT.png grabs the window once the
// file is loaded and quits; --size WxH sets the window size first; --select NAME selects a block
// first (the property panel shows it) and also saves its parameter dialog to OUT-dialog.png;
// --tooltip NAME shows that block's canvas tooltip in the picture (without --run);
// --run presses Run first and grabs when the run has ended (--run-for MS: that long after Run,
// while it may still be running); --cursor T shows the plot cursor at time T; --tune NAME.KEY[=V]
// pins a parameter to the tuning panel and, with --run, sets it to V (display unit) after the first
// run, so the picture shows the tuned run over the faded first one.
// --bench-gui [--model chain|FILE] [--N n] [--traces k] [--stop-time T] [--points P] [--tune NAME.KEY] measures the
// live plots offscreen and prints one JSON line (app/bench_gui.hpp).
#include "app/bench_gui.hpp"
#include "blocks/registry.hpp"
#include "gui/block_item.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/diagram_view.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"
#include "gui/param_dialog.hpp"
#include "gui/plot_panel.hpp"
#include "gui/run_controller.hpp"
#include "gui/tuning_panel.hpp"
#include "gui/tuning_row.hpp"

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QScreen>
#include <QThreadPool>
#include <QTimer>

#include <cstdio>
#include <QToolTip>

#include <cstring>

namespace {

bool wants(int argc, char** argv, const char* flag) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], flag) == 0) return true;
    return false;
}

// Shows the canvas tooltip of `block` and returns a picture of the screen around the window (the
// tooltip is a window of its own, so grabbing the main window would leave it out).
QPixmap grabWithTooltip(endstop::gui::MainWindow& window, const QString& block) {
    const endstop::gui::BlockItem* item = window.scene()->blockItem(block);
    if (!item) return window.grab();
    endstop::gui::DiagramView* view = window.view();
    const QPoint at = view->viewport()->mapToGlobal(view->mapFromScene(item->sceneBoundingRect().center()));
    QToolTip::showText(at, item->toolTip(), view->viewport());
    QElapsedTimer shown;
    shown.start();
    while (shown.elapsed() < 500) QApplication::processEvents(QEventLoop::AllEvents, 50);
    const QRect frame = window.frameGeometry();
    return window.screen()->grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height());
}

void grabLater(endstop::gui::MainWindow& window, const QString& out, const QString& block, const QString& cursor, int delayMs,
               const QString& tooltip = {}) {
    QTimer::singleShot(delayMs, &window, [&window, out, block, cursor, tooltip] {
        bool ok = true;
        if (!cursor.isEmpty()) window.plots()->showCursor(cursor.toDouble(&ok));
        QApplication::processEvents();
        ok = (tooltip.isEmpty() ? window.grab() : grabWithTooltip(window, tooltip)).save(out) && ok;
        if (!block.isEmpty() && window.document().model().find(block.toStdString())) {
            endstop::gui::ParamDialog dialog(window.document(), block, &window);
            dialog.show();
            QApplication::processEvents();
            ok = dialog.grab().save(QString(out).replace(".png", "-dialog.png")) && ok;
        }
        window.document().markClean();
        QApplication::exit(ok ? 0 : 1);
    });
}

}  // namespace

int main(int argc, char** argv) {
    if (wants(argc, argv, "--bench-gui") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setApplicationName("Endstop");
    QApplication::setOrganizationName("Endstop");
    QApplication::setApplicationVersion(QStringLiteral(ENDSTOP_VERSION));

    QCommandLineParser cli;
    cli.setApplicationDescription("Endstop: 1-D mechanical systems with contact and friction");
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument("FILE", "project to open (*.endstop)", "[FILE]");
    QCommandLineOption screenshot("screenshot", "save a picture of the window to OUT and quit", "OUT");
    QCommandLineOption size("size", "window size, e.g. 1280x800", "WxH");
    QCommandLineOption select("select", "select this block (screenshots)", "NAME");
    QCommandLineOption run("run", "run the model before the screenshot");
    QCommandLineOption runFor("run-for", "take the screenshot this long after Run", "MS");
    QCommandLineOption cursor("cursor", "show the plot cursor at this time (screenshots)", "T");
    QCommandLineOption tooltip("tooltip", "show this block's canvas tooltip in the screenshot", "NAME");
    QCommandLineOption tune("tune", "pin NAME.KEY to the tuning panel; with --run, set it to V after the first run", "NAME.KEY[=V]");
    QCommandLineOption benchGui("bench-gui", "measure the live plots offscreen and print one JSON line");
    QCommandLineOption benchModel("model", "--bench-gui: chain or a project file", "MODEL", "chain");
    QCommandLineOption benchN("N", "--bench-gui: masses in the chain", "N", "10");
    QCommandLineOption benchTraces("traces", "--bench-gui: plotted signals", "K", "8");
    QCommandLineOption benchStop("stop-time", "--bench-gui: stop time", "T", "0");
    QCommandLineOption benchPoints("points", "--bench-gui: record about P rows, then zoom and pan", "P", "0");
    QCommandLineOption openSubsystem("open-subsystem", "show this subsystem instance's level, e.g. p.s1 (screenshots)", "PATH");
    for (QCommandLineOption* o : {&screenshot, &size, &select, &run, &runFor, &cursor, &tooltip, &tune, &benchGui, &benchModel,
                                  &benchN, &benchTraces, &benchStop, &benchPoints, &openSubsystem})
        o->setFlags(QCommandLineOption::HiddenFromHelp);
    cli.addOptions({screenshot, size, select, run, runFor, cursor, tooltip, tune, benchGui, benchModel, benchN, benchTraces, benchStop,
                    benchPoints, openSubsystem});
    cli.process(app);

    if (cli.isSet(benchGui)) {
        endstop::app::BenchGuiOptions o;
        o.model = cli.value(benchModel);
        o.n = cli.value(benchN).toInt();
        o.traces = cli.value(benchTraces).toInt();
        o.stopTime = cli.value(benchStop).toDouble();
        o.points = cli.value(benchPoints).toLong();
        o.tune = cli.value(tune);
        const int rc = endstop::app::runBenchGui(o);
        QThreadPool::globalInstance()->waitForDone();
        return rc;
    }

    endstop::gui::MainWindow window(endstop::blocks::registry());
    if (cli.isSet(size)) {
        const QStringList wh = cli.value(size).split('x');
        if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();
    if (!cli.positionalArguments().isEmpty()) window.openFile(cli.positionalArguments().front());
    // after a crash the kept changes are offered whether or not a file was named on the command line
    if (!cli.isSet(screenshot)) QTimer::singleShot(0, &window, &endstop::gui::MainWindow::offerRecovery);
    if (cli.isSet(openSubsystem) && !window.scene()->openLevel(cli.value(openSubsystem).split('.')))
        std::fprintf(stderr, "endstop: no subsystem instance %s\n", qPrintable(cli.value(openSubsystem)));
    if (cli.isSet(select)) window.scene()->selectBlocks({cli.value(select)});
    endstop::gui::TuningRow* tuned = nullptr;
    QString tuneValue;
    if (cli.isSet(tune)) {
        const QStringList target = cli.value(tune).split('=');
        const QStringList nameKey = target.front().split('.');
        if (nameKey.size() == 2 && window.tuning()->pin(nameKey[0], nameKey[1])) tuned = window.tuning()->row(nameKey[0], nameKey[1]);
        if (target.size() == 2) tuneValue = target[1];
    }
    if (cli.isSet(screenshot)) {
        const QString out = cli.value(screenshot);
        const QString block = cli.value(select);
        const QString at = cli.value(cursor);
        if (cli.isSet(runFor) || cli.isSet(run)) {
            QTimer::singleShot(800, &window, [&window] { window.action(QStringLiteral("run"))->trigger(); });
            if (cli.isSet(runFor)) {
                grabLater(window, out, block, at, 800 + cli.value(runFor).toInt());
            } else {
                QObject::connect(window.runs(), &endstop::gui::RunController::runFinished, &window,
                                 [&window, out, block, at, tuned, tuneValue]() mutable {
                                     if (tuned && !tuneValue.isEmpty()) {   // a second, tuned run first
                                         tuned->spinBox()->setValue(tuneValue.toDouble());
                                         Q_EMIT tuned->spinBox()->editingFinished();
                                         tuneValue.clear();
                                         return;
                                     }
                                     grabLater(window, out, block, at, 400);
                                 });
            }
        } else {
            grabLater(window, out, block, at, 1200, cli.value(tooltip));
        }
    }
    const int rc = QApplication::exec();
    QThreadPool::globalInstance()->waitForDone();   // a validation still running holds a model copy
    return rc;
}
