// SPDX-License-Identifier: GPL-3.0-or-later
// endstop [FILE]: the desktop application.
// Hidden options for documentation and checks: --screenshot OUT.png grabs the window once the
// file is loaded and quits; --size WxH sets the window size first; --select NAME selects a block
// first (the property panel shows it) and also saves its parameter dialog to OUT-dialog.png.
#include "blocks/registry.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"
#include "gui/param_dialog.hpp"

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
    QCommandLineOption screenshot("screenshot", "save a picture of the window to OUT and quit", "OUT");
    QCommandLineOption size("size", "window size, e.g. 1280x800", "WxH");
    QCommandLineOption select("select", "select this block (screenshots)", "NAME");
    for (QCommandLineOption* o : {&screenshot, &size, &select}) o->setFlags(QCommandLineOption::HiddenFromHelp);
    cli.addOptions({screenshot, size, select});
    cli.process(app);

    endstop::gui::MainWindow window(endstop::blocks::registry());
    if (cli.isSet(size)) {
        const QStringList wh = cli.value(size).split('x');
        if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();
    if (!cli.positionalArguments().isEmpty()) window.openFile(cli.positionalArguments().front());
    else if (!cli.isSet(screenshot)) QTimer::singleShot(0, &window, &endstop::gui::MainWindow::offerRecovery);
    if (cli.isSet(select)) window.scene()->selectBlocks({cli.value(select)});
    if (cli.isSet(screenshot)) {
        const QString out = cli.value(screenshot);
        const QString block = cli.value(select);
        QTimer::singleShot(1200, &window, [&window, out, block] {
            bool ok = window.grab().save(out);
            if (!block.isEmpty() && window.document().model().find(block.toStdString())) {
                endstop::gui::ParamDialog dialog(window.document(), block, &window);
                dialog.show();
                QApplication::processEvents();
                ok = dialog.grab().save(QString(out).replace(".png", "-dialog.png")) && ok;
            }
            QApplication::exit(ok ? 0 : 1);
        });
    }
    const int rc = QApplication::exec();
    QThreadPool::globalInstance()->waitForDone();   // a validation still running holds a model copy
    return rc;
}
