// SPDX-License-Identifier: GPL-3.0-or-later
// Placeholder main window until the editor lands: shows the loaded model's blocks.
#pragma once

#include <QMainWindow>

class QListWidget;

namespace endstop::gui {

class MainWindow : public QMainWindow {
public:
    MainWindow();
    bool openFile(const QString& path);

private:
    QListWidget* m_list = nullptr;
};

}  // namespace endstop::gui
