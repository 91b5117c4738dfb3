// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/main_window.hpp"

#include "blocks/registry.hpp"
#include "core/io/project_file.hpp"
#include "core/model/errors.hpp"

#include <QListWidget>
#include <QMessageBox>

namespace endstop::gui {

MainWindow::MainWindow() : m_list(new QListWidget(this)) {
    setCentralWidget(m_list);
    setWindowTitle("Endstop");
    resize(800, 600);
}

bool MainWindow::openFile(const QString& path) {
    try {
        const core::Model m = core::io::loadProject(path, blocks::registry());
        m_list->clear();
        for (const core::BlockSpec& b : m.blocks()) m_list->addItem(QString::fromStdString(b.name + " (" + b.type + ")"));
        setWindowTitle(path + " - Endstop");
        return true;
    } catch (const core::Error& e) {
        QMessageBox::critical(this, "Endstop", QString::fromStdString(e.what()));
        return false;
    }
}

}  // namespace endstop::gui
