// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-screenshot [FILE] --screenshot OUT.png: the desktop application driven for documentation
// and checks. It opens FILE in the real main window, grabs the window once the file is loaded and
// quits; --size WxH sets the window size first; --select NAME selects a block
// first (the property panel shows it) and also saves its parameter dialog to OUT-dialog.png;
// --tooltip NAME shows that block's canvas tooltip in the picture (without --run);
// --run presses Run first and grabs when the run has ended (--run-for MS: that long after Run,
// while it may still be running); --cursor T shows the plot cursor at time T; --tune NAME.KEY[=V]
// pins a parameter to the tuning panel and, with --run, sets it to V (display unit) after the first
// run, so the picture shows the tuned run over the faded first one.
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
#include <QToolTip>

#include <cstdio>

namespace {

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

void grabLater(endstop::gui::MainWindow& window, const QString& out, const QString& block, const QString& cursor,
               int delayMs, const QString& tooltip = {}) {
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

struct Shot {
    QString out, block, cursor, tooltip;
    bool run = false;
    int runForMs = -1;                          // >= 0: grab this long after Run, finished or not
    endstop::gui::TuningRow* tuned = nullptr;   // with run: set to tuneValue after the first run
    QString tuneValue;
};

// --tune NAME.KEY[=V]: pins the parameter to the tuning panel
void pinTuned(endstop::gui::MainWindow& window, const QString& spec, Shot& shot) {
    const QStringList target = spec.split('=');
    const QStringList nameKey = target.front().split('.');
    if (nameKey.size() == 2 && window.tuning()->pin(nameKey[0], nameKey[1]))
        shot.tuned = window.tuning()->row(nameKey[0], nameKey[1]);
    if (target.size() == 2) shot.tuneValue = target[1];
}

// Grabs once the file is shown, or presses Run and grabs when the run (and a tuned second run) ends.
void schedule(endstop::gui::MainWindow& window, Shot shot) {
    if (!shot.run) {
        grabLater(window, shot.out, shot.block, shot.cursor, 1200, shot.tooltip);
        return;
    }
    QTimer::singleShot(800, &window, [&window] { window.action(QStringLiteral("run"))->trigger(); });
    if (shot.runForMs >= 0) {
        grabLater(window, shot.out, shot.block, shot.cursor, 800 + shot.runForMs);
        return;
    }
    QObject::connect(window.runs(), &endstop::gui::RunController::runFinished, &window, [&window, shot]() mutable {
        if (shot.tuned && !shot.tuneValue.isEmpty()) {   // a second, tuned run first
            shot.tuned->spinBox()->setValue(shot.tuneValue.toDouble());
            Q_EMIT shot.tuned->spinBox()->editingFinished();
            shot.tuneValue.clear();
            return;
        }
        grabLater(window, shot.out, shot.block, shot.cursor, 400);
    });
}

}   // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("Endstop");
    QApplication::setOrganizationName("Endstop");

    QCommandLineParser cli;
    cli.setApplicationDescription("Endstop screenshots: opens FILE in the main window and saves a picture of it");
    cli.addHelpOption();
    cli.addPositionalArgument("FILE", "project to open (*.endstop)", "[FILE]");
    QCommandLineOption screenshot("screenshot", "save a picture of the window to OUT and quit", "OUT");
    QCommandLineOption size("size", "window size, e.g. 1280x800", "WxH");
    QCommandLineOption select("select", "select this block (screenshots)", "NAME");
    QCommandLineOption run("run", "run the model before the screenshot");
    QCommandLineOption runFor("run-for", "take the screenshot this long after Run", "MS");
    QCommandLineOption cursor("cursor", "show the plot cursor at this time (screenshots)", "T");
    QCommandLineOption tooltip("tooltip", "show this block's canvas tooltip in the screenshot", "NAME");
    QCommandLineOption tune("tune", "pin NAME.KEY to the tuning panel; with --run, set it to V after the first run",
                            "NAME.KEY[=V]");
    QCommandLineOption openSubsystem("open-subsystem", "show this subsystem instance's level, e.g. p.s1 (screenshots)",
                                     "PATH");
    cli.addOptions({screenshot, size, select, run, runFor, cursor, tooltip, tune, openSubsystem});
    cli.process(app);
    if (!cli.isSet(screenshot)) {
        std::fprintf(stderr,
                     "endstop-screenshot: --screenshot OUT.png is required (the application itself is endstop)\n");
        return 2;
    }

    endstop::gui::MainWindow window(endstop::blocks::registry());
    if (cli.isSet(size)) {
        const QStringList wh = cli.value(size).split('x');
        if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();
    if (!cli.positionalArguments().isEmpty()) window.openFile(cli.positionalArguments().front());
    if (cli.isSet(openSubsystem) && !window.scene()->openLevel(cli.value(openSubsystem).split('.')))
        std::fprintf(stderr, "endstop: no subsystem instance %s\n", qPrintable(cli.value(openSubsystem)));
    if (cli.isSet(select)) window.scene()->selectBlocks({cli.value(select)});
    Shot shot{cli.value(screenshot),
              cli.value(select),
              cli.value(cursor),
              cli.value(tooltip),
              cli.isSet(run) || cli.isSet(runFor),
              cli.isSet(runFor) ? cli.value(runFor).toInt() : -1,
              nullptr,
              {}};
    if (cli.isSet(tune)) pinTuned(window, cli.value(tune), shot);
    schedule(window, shot);
    const int rc = QApplication::exec();
    QThreadPool::globalInstance()->waitForDone();   // a validation still running holds a model copy
    return rc;
}
