// SPDX-License-Identifier: GPL-3.0-or-later
// The subsystem commands of the main window: Create Subsystem (Ctrl+G), Expand Subsystem
// (Ctrl+Shift+G) and Make Unique in the Edit menu and on the canvas context menu, and opening the
// level of a block named by path ("p.s1.spring", from a diagnostic).
#include "gui/block_item.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/diagram_view.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"

#include <QAction>
#include <QMenu>
#include <QMenuBar>

namespace endstop::gui {

void MainWindow::createSubsystemActions() {
    const auto instance = [this] {
        const QStringList sel = m_scene->selectedBlockNames();
        return sel.size() == 1 && m_scene->isInstance(sel.front()) ? sel.front() : QString();
    };
    QAction* create = makeAction("createSubsystem", tr("Create &Subsystem"), QKeySequence(Qt::CTRL | Qt::Key_G),
                                 [this] { m_scene->createSubsystem(); });
    QAction* expand =
        makeAction("expandSubsystem", tr("E&xpand Subsystem"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G),
                   [this, instance] { m_scene->expandSubsystem(instance()); });
    QAction* unique =
        makeAction("makeUnique", tr("Make &Unique"), {}, [this, instance] { m_scene->makeUnique(instance()); });
    QAction* open =
        makeAction("openSubsystem", tr("&Open Subsystem"), {}, [this, instance] { m_scene->openInstance(instance()); });
    const auto update = [this, create, expand, unique, open, instance] {
        create->setEnabled(!m_scene->selectedBlockNames().isEmpty());
        const bool one = !instance().isEmpty();
        for (QAction* a : {expand, unique, open}) a->setEnabled(one);
    };
    connect(m_scene, &QGraphicsScene::selectionChanged, this, update);
    connect(m_doc, &Document::structureChanged, this, update);
    update();
    connect(m_scene, &DiagramScene::levelChanged, this, [this] {
        m_scene->routePending();
        m_view->fitAll();
    });
    for (QMenu* menu : menuBar()->findChildren<QMenu*>())
        if (menu->title() == tr("&Edit")) {
            menu->addSeparator();
            menu->addActions({create, expand, unique, open});
        }
    connect(m_view, &DiagramView::contextMenuAboutToShow, this,
            [create, expand, unique, open](QMenu* menu, const QString&) {
                menu->addSeparator();
                menu->addActions({create, open, expand, unique});
            });
}

bool MainWindow::openBlockPath(const QString& path) {
    QStringList parts = path.split('.');
    const QString block = parts.takeLast();
    if (m_scene->levelPath() != parts && !m_scene->openLevel(parts)) return false;
    BlockItem* item = m_scene->blockItem(block);
    if (!item) return false;
    m_scene->selectBlocks({block});
    m_view->ensureVisible(item, 80, 80);
    return true;
}

}   // namespace endstop::gui
