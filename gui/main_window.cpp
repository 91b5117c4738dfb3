// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/main_window.hpp"

#include "gui/block_item.hpp"
#include "gui/block_library.hpp"
#include "gui/breadcrumbs.hpp"
#include "gui/component_actions.hpp"
#include "gui/diagnostics_panel.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/diagram_view.hpp"
#include "gui/document.hpp"
#include "gui/param_dialog.hpp"
#include "gui/property_panel.hpp"
#include "gui/recovery.hpp"
#include "gui/resources.hpp"
#include "gui/run_controller.hpp"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QStyle>
#include <QTimer>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

namespace endstop::gui {

MainWindow::MainWindow(const core::Registry& registry, QWidget* parent)
    : QMainWindow(parent),
      m_doc(new Document(registry, this)),
      m_scene(new DiagramScene(*m_doc, this)),
      m_view(new DiagramView(m_scene, this)),
      m_library(new BlockLibrary(registry, this)),
      m_properties(new PropertyPanel(*m_doc, *m_scene, this)),
      m_diagnostics(new DiagnosticsPanel(*m_doc, this)),
      m_recovery(new Recovery(*m_doc, this)),
      m_runs(new RunController(*m_doc, this)) {
    initResources();
    auto* canvas = new QWidget(this);   // the breadcrumbs of the level shown above the canvas
    auto* column = new QVBoxLayout(canvas);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(new Breadcrumbs(*m_scene, canvas));
    column->addWidget(m_view, 1);
    setCentralWidget(canvas);
    createActions();
    createMenus();
    createSubsystemActions();
    m_components = new ComponentActions(*this);
    createDocks();
    createRunControls();
    createRunDocks();
    statusBar()->showMessage(tr("Drag blocks from the library; drag from a port to another to wire them."), 8000);
    connect(m_scene, &DiagramScene::statusMessage, this,
            [this](const QString& m) { statusBar()->showMessage(m, 10000); });
    connect(m_scene, &DiagramScene::blockActivated, this, &MainWindow::openParameters);
    connect(m_library, &BlockLibrary::addRequested, this, [this](const QString& type) {
        m_scene->addBlock(type, m_view->visibleCenter());
        m_view->setFocus();
    });
    connect(m_diagnostics, &DiagnosticsPanel::blockRequested, this, &MainWindow::selectAndShow);
    connect(m_diagnostics, &DiagnosticsPanel::validated, m_scene, &DiagramScene::setErrorBlocks);
    connect(m_doc, &Document::dirtyChanged, this, &MainWindow::updateTitle);
    connect(m_doc, &Document::pathChanged, this, &MainWindow::updateTitle);
    resize(1280, 800);
    restoreSettings();
    updateTitle();
}

MainWindow::~MainWindow() {
    // ~QWidget destroys the children after this class is gone; a focused field emits
    // editingFinished as it loses focus on the way (the stop time's commit), which must not reach
    // the half-destroyed window
    for (QObject* child : findChildren<QObject*>()) child->disconnect(this);
}

QAction* MainWindow::makeAction(const QString& name, const QString& text, const QKeySequence& key,
                                std::function<void()> slot) {
    auto* a = new QAction(text, this);
    a->setObjectName(name);
    if (!key.isEmpty()) a->setShortcut(key);
    connect(a, &QAction::triggered, this, std::move(slot));
    QMainWindow::addAction(a);
    return a;
}

// canvas-only shortcuts (single keys, Delete): active while the canvas has focus
QAction* MainWindow::addViewAction(const QString& name, const QString& text, const QKeySequence& key,
                                   std::function<void()> slot) {
    QAction* a = makeAction(name, text, key, std::move(slot));
    removeAction(a);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_view->addAction(a);
    return a;
}

QAction* MainWindow::action(const QString& objectName) const { return findChild<QAction*>(objectName); }

void MainWindow::createActions() {
    makeAction("new", tr("&New"), QKeySequence::New, [this] { newFile(); });
    makeAction("open", tr("&Open\u2026"), QKeySequence::Open, [this] { openDialog(); });
    makeAction("save", tr("&Save"), QKeySequence::Save, [this] { save(); });
    // explicit: without a desktop theme (a bare X server) Qt's SaveAs and Quit sequences are empty
    makeAction("saveAs", tr("Save &As\u2026"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), [this] { saveAs(); });
    makeAction("quit", tr("&Quit"), QKeySequence(Qt::CTRL | Qt::Key_Q), [this] { close(); });

    QAction* undo = m_doc->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setObjectName("undo");
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_doc->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName("redo");
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    QMainWindow::addAction(undo);
    QMainWindow::addAction(redo);

    makeAction("cut", tr("Cu&t"), QKeySequence::Cut, [this] {
        QMimeData* copied = nullptr;
        m_scene->cutSelection(&copied);
        if (copied) QApplication::clipboard()->setMimeData(copied);
    });
    makeAction("copy", tr("&Copy"), QKeySequence::Copy, [this] { editCopy(); });
    makeAction("paste", tr("&Paste"), QKeySequence::Paste, [this] { editPaste(); });
    makeAction("duplicate", tr("D&uplicate"), QKeySequence(Qt::CTRL | Qt::Key_D),
               [this] { m_scene->duplicateSelection(); });
    addViewAction("delete", tr("&Delete"), QKeySequence::Delete, [this] { m_scene->deleteSelection(); });
    addViewAction("rename", tr("Re&name"), QKeySequence(Qt::Key_F2), [this] { editRename(); });
    addViewAction("rotate", tr("&Rotate Clockwise"), QKeySequence(Qt::Key_R), [this] { m_scene->rotateSelection(90); });
    addViewAction("rotateBack", tr("Rotate Counterclock&wise"), QKeySequence(Qt::SHIFT | Qt::Key_R),
                  [this] { m_scene->rotateSelection(-90); });
    addViewAction("flip", tr("&Flip"), QKeySequence(Qt::Key_H), [this] { m_scene->flipSelection(); });
    addViewAction("arrange", tr("Arrange &Blocks"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A), [this] {
        if (m_scene->arrangeLevel()) m_view->fitAll();
    });
    for (const char* name : {"cut", "copy", "paste", "duplicate"}) m_view->addAction(action(QString::fromLatin1(name)));
    addViewAction("selectAll", tr("Select &All"), QKeySequence::SelectAll, [this] {
        for (QGraphicsItem* i : m_scene->items()) i->setSelected(i->flags() & QGraphicsItem::ItemIsSelectable);
    });
    addViewAction("parameters", tr("&Parameters\u2026"), QKeySequence(Qt::Key_Return), [this] { editParameters(); });

    makeAction("zoomIn", tr("Zoom &In"), QKeySequence::ZoomIn, [this] { m_view->zoomBy(1.25); });
    makeAction("zoomOut", tr("Zoom &Out"), QKeySequence::ZoomOut, [this] { m_view->zoomBy(0.8); });
    makeAction("fit", tr("&Fit to View"), QKeySequence(Qt::CTRL | Qt::Key_0), [this] { m_view->fitAll(); });
    makeAction("zoomSelection", tr("Zoom to &Selection"), QKeySequence(Qt::CTRL | Qt::Key_9),
               [this] { m_view->zoomToSelection(); });

    setIcons();
}

void MainWindow::setIcons() {
    const auto icon = [this](const char* name, const QIcon& i) { action(QString::fromLatin1(name))->setIcon(i); };
    icon("new", style()->standardIcon(QStyle::SP_FileIcon));
    icon("open", style()->standardIcon(QStyle::SP_DialogOpenButton));
    icon("save", style()->standardIcon(QStyle::SP_DialogSaveButton));
    icon("undo", style()->standardIcon(QStyle::SP_ArrowBack));
    icon("redo", style()->standardIcon(QStyle::SP_ArrowForward));
    icon("delete", style()->standardIcon(QStyle::SP_TrashIcon));
    for (const auto& [name, file] : {std::pair{"rotate", "rotate"},
                                     {"flip", "flip"},
                                     {"fit", "fit"},
                                     {"zoomIn", "zoom_in"},
                                     {"zoomOut", "zoom_out"}})
        icon(name, QIcon(QStringLiteral(":/icons/ui/%1.svg").arg(QString::fromLatin1(file))));
    for (const char* name : {"undo", "redo", "cut", "copy", "paste", "duplicate", "delete", "rotate", "flip", "fit"})
        if (QAction* a = action(QString::fromLatin1(name)))
            a->setToolTip(a->text().remove('&') + QStringLiteral(" (") +
                          a->shortcut().toString(QKeySequence::NativeText) + ')');
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addActions({action("new"), action("open")});
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addActions({action("save"), action("saveAs")});
    file->addSeparator();
    file->addAction(action("quit"));
    rebuildRecentMenu();

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addActions({action("undo"), action("redo")});
    edit->addSeparator();
    edit->addActions({action("cut"), action("copy"), action("paste"), action("duplicate"), action("delete")});
    edit->addSeparator();
    edit->addActions({action("rename"), action("rotate"), action("rotateBack"), action("flip"), action("arrange")});
    edit->addSeparator();
    edit->addActions({action("selectAll"), action("parameters")});

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addActions({action("zoomIn"), action("zoomOut"), action("fit"), action("zoomSelection")});
    view->addSeparator();
    view->setObjectName("viewMenu");

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    m_examplesMenu = help->addMenu(tr("&Examples"));
    for (const QString& f :
         QDir(QStringLiteral(":/examples")).entryList({QStringLiteral("*.endstop")}, QDir::Files, QDir::Name)) {
        const QString path = QStringLiteral(":/examples/") + f;
        m_examplesMenu->addAction(QFileInfo(f).completeBaseName().replace('_', ' '), this,
                                  [this, path] { openExample(path); });
    }
    help->addAction(tr("&About Endstop"), this, [this] {
        QMessageBox::about(
            this, tr("About Endstop"),
            tr("<b>Endstop</b> %1<br>1-D mechanical systems with contact and friction.<br>GPL-3.0-or-later.")
                .arg(QApplication::applicationVersion()));
    });

    m_toolbar = addToolBar(tr("Main"));
    m_toolbar->setObjectName("mainToolBar");
    m_toolbar->addActions({action("new"), action("open"), action("save")});
    m_toolbar->addSeparator();
    m_toolbar->addActions({action("undo"), action("redo")});
    m_toolbar->addSeparator();
    m_toolbar->addActions({action("rotate"), action("flip"), action("delete")});
    m_toolbar->addSeparator();
    m_toolbar->addActions({action("fit"), action("zoomIn"), action("zoomOut")});
}

// A dock with its toggle in the View menu; the object name keys the saved layout.
QDockWidget* MainWindow::addDock(const QString& name, const QString& title, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(area, d);
    findChild<QMenu*>("viewMenu")->addAction(d->toggleViewAction());
    return d;
}

void MainWindow::createDocks() {
    QDockWidget* library = addDock("libraryDock", tr("Library"), m_library, Qt::LeftDockWidgetArea);
    QDockWidget* properties = addDock("propertiesDock", tr("Properties"), m_properties, Qt::RightDockWidgetArea);
    QDockWidget* diagnostics = addDock("diagnosticsDock", tr("Diagnostics"), m_diagnostics, Qt::BottomDockWidgetArea);
    // default proportions; a saved layout (restoreSettings) replaces them
    QTimer::singleShot(0, this, [this, library, properties, diagnostics] {
        if (!QSettings().contains("window/state")) {
            resizeDocks({library, properties}, {240, 300}, Qt::Horizontal);
            resizeDocks({diagnostics}, {130}, Qt::Vertical);
        }
    });
}

void MainWindow::editCopy() {
    if (QMimeData* copied = m_scene->copySelection()) QApplication::clipboard()->setMimeData(copied);
}

void MainWindow::editPaste() {
    m_scene->paste(QApplication::clipboard()->mimeData());
    m_view->setFocus();
}

void MainWindow::editRename() {
    const QStringList sel = m_scene->selectedBlockNames();
    if (sel.size() == 1) m_scene->beginRename(sel.front());
}

void MainWindow::editParameters() {
    const QStringList sel = m_scene->selectedBlockNames();
    if (sel.size() == 1) openParameters(sel.front());
}

void MainWindow::openParameters(const QString& block) {
    ParamDialog dialog(*m_scene, block, this);
    dialog.exec();
}

void MainWindow::selectAndShow(const QString& block) {
    if (block.contains('.') || !m_scene->levelPath().isEmpty()) {   // a path into a subsystem
        openBlockPath(block);
        return;
    }
    BlockItem* item = m_scene->blockItem(block);
    if (!item) return;
    m_scene->selectBlocks({block});
    m_view->ensureVisible(item, 80, 80);
}

}   // namespace endstop::gui
