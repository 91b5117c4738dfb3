// SPDX-License-Identifier: GPL-3.0-or-later
// endstop [FILE]: the desktop application. The main window (gui/main_window.hpp) holds the canvas,
// the block library, the plots and the tuning panel; docs/architecture.md walks through the code.
// Pictures for the docs come from endstop-screenshot (app/screenshot/), the live-plot benchmark
// from endstop-bench-gui (bench/).
#include "blocks/registry.hpp"
#include "gui/main_window.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QThreadPool>
#include <QTimer>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("Endstop");
    QApplication::setOrganizationName("Endstop");
    QApplication::setApplicationVersion(QStringLiteral(ENDSTOP_VERSION));

    QCommandLineParser cli;
    cli.setApplicationDescription("Endstop: 1-D mechanical systems with contact and friction");
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument("FILE", "project to open (*.endstop)", "[FILE]");
    cli.process(app);

    endstop::gui::MainWindow window(endstop::blocks::registry());
    window.show();
    if (!cli.positionalArguments().isEmpty()) window.openFile(cli.positionalArguments().front());
    // after a crash the kept changes are offered whether or not a file was named on the command line
    QTimer::singleShot(0, &window, &endstop::gui::MainWindow::offerRecovery);
    const int rc = QApplication::exec();
    QThreadPool::globalInstance()->waitForDone();   // a validation still running holds a model copy
    return rc;
}
