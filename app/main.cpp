// SPDX-License-Identifier: GPL-3.0-or-later
// endstop: the desktop application.
#include "gui/main_window.hpp"

#include <QApplication>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("Endstop");
    QApplication::setOrganizationName("Endstop");
    endstop::gui::MainWindow window;
    if (argc > 1) window.openFile(QString::fromLocal8Bit(argv[1]));
    window.show();
    return QApplication::exec();
}
