// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/component_actions.hpp"

#include "core/io/component_file.hpp"
#include "core/errors.hpp"
#include "gui/block_library.hpp"
#include "gui/block_shape.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/diagram_view.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"

#include <QAction>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>

#include <cmath>

namespace endstop::gui {

namespace {
constexpr const char* kFolderKey = "library/components";
QString qs(const std::string& s) { return QString::fromStdString(s); }
double snap(double x) { return std::round(x / kGrid) * kGrid; }

QString askSave(QWidget* parent, const QString& suggested) {
    return QFileDialog::getSaveFileName(parent, QObject::tr("Save Subsystem as Component"), suggested,
                                        QObject::tr("Endstop components (*.endstopc)"));
}
QString askFolder(QWidget* parent, const QString& suggested) {
    return QFileDialog::getExistingDirectory(parent, QObject::tr("Components Folder"), suggested);
}
}   // namespace

ComponentActions::ComponentActions(MainWindow& window)
    : QObject(&window),
      m_window(window),
      m_watcher(new QFileSystemWatcher(this)),
      m_saveChooser(askSave),
      m_folderChooser(askFolder) {
    m_save = new QAction(tr("Save Subsystem as Com&ponent\u2026"), &window);
    m_save->setObjectName("saveComponent");
    connect(m_save, &QAction::triggered, this, [this] { saveInstance(selectedInstance()); });
    auto* folderAction = new QAction(tr("Components F&older\u2026"), &window);
    folderAction->setObjectName("componentsFolder");
    connect(folderAction, &QAction::triggered, this, &ComponentActions::chooseFolder);
    window.addActions({m_save, folderAction});
    for (QMenu* menu : window.menuBar()->findChildren<QMenu*>())
        if (menu->title() == tr("&Edit")) menu->addActions({m_save, folderAction});
    connect(window.view(), &DiagramView::contextMenuAboutToShow, this,
            [this](QMenu* menu, const QString&) { menu->addAction(m_save); });
    const auto update = [this] { m_save->setEnabled(!selectedInstance().isEmpty()); };
    // in the window's context: ~MainWindow cuts these before the scene's items go
    connect(window.scene(), &QGraphicsScene::selectionChanged, &window, update);
    update();

    connect(window.library(), &BlockLibrary::componentRequested, this,
            [this](const QString& path) { insert(path, m_window.view()->visibleCenter()); });
    window.view()->viewport()->installEventFilter(this);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &ComponentActions::refresh);
    connect(&window.document(), &Document::pathChanged, &window, [this] { refresh(); });
    refresh();
}

QString ComponentActions::folder() const {
    const QString chosen = QSettings().value(kFolderKey).toString();
    if (!chosen.isEmpty()) return chosen;
    const QString project = m_window.document().path();
    return project.isEmpty() ? QString() : QFileInfo(project).absoluteDir().filePath(QStringLiteral("components"));
}

void ComponentActions::refresh() {
    const QString dir = folder();
    if (!m_watcher->directories().isEmpty()) m_watcher->removePaths(m_watcher->directories());
    QStringList files;
    if (!dir.isEmpty() && QFileInfo(dir).isDir()) {
        m_watcher->addPath(dir);
        for (const QString& f :
             QDir(dir).entryList({QStringLiteral("*") + core::io::kComponentSuffix}, QDir::Files, QDir::Name))
            files << QDir(dir).filePath(f);
    }
    m_window.library()->setComponents(files, dir.isEmpty() ? tr("No components folder: Edit > Components Folder\u2026")
                                                           : tr("No components in %1").arg(dir));
}

QString ComponentActions::selectedInstance() const {
    const QStringList sel = m_window.scene()->selectedBlockNames();
    return sel.size() == 1 && m_window.scene()->isInstance(sel.front()) ? sel.front() : QString();
}

void ComponentActions::warn(const QString& title, const QString& text) const {
    QMessageBox::warning(&m_window, title, text);
}

bool ComponentActions::saveInstance(const QString& instance) {
    const core::model::BlockSpec* spec = m_window.scene()->levelModel().find(instance.toStdString());
    if (!spec || core::model::subsystemOf(spec->type).empty()) return false;
    const QString def = qs(std::string(core::model::subsystemOf(spec->type)));
    QString dir = folder();
    if (!dir.isEmpty())
        QDir().mkpath(dir);
    else
        dir = QDir::homePath();
    QString path = m_saveChooser(&m_window, QDir(dir).filePath(def + core::io::kComponentSuffix));
    if (path.isEmpty()) return false;
    if (!path.endsWith(core::io::kComponentSuffix)) path += core::io::kComponentSuffix;
    return saveInstanceTo(instance, path);
}

bool ComponentActions::saveInstanceTo(const QString& instance, const QString& path) {
    const core::model::BlockSpec* spec = m_window.scene()->levelModel().find(instance.toStdString());
    if (!spec || core::model::subsystemOf(spec->type).empty()) return false;
    try {
        core::io::saveComponent(m_window.document().model(), std::string(core::model::subsystemOf(spec->type)), path,
                                m_window.document().registry());
    } catch (const core::Error& e) {
        warn(tr("Save Subsystem as Component"), qs(e.what()));
        return false;
    }
    if (folder().isEmpty()) QSettings().setValue(kFolderKey, QFileInfo(path).absolutePath());   // the first one chooses
    refresh();
    m_window.statusBar()->showMessage(tr("Saved component %1").arg(QDir::toNativeSeparators(path)), 8000);
    return true;
}

bool ComponentActions::insert(const QString& path, QPointF at) {
    DiagramScene& scene = *m_window.scene();
    try {
        const core::io::Component c = core::io::loadComponent(path, m_window.document().registry());
        QString base = qs(c.name);
        base[0] = base[0].toLower();
        const std::string instance = scene.levelModel().uniqueName(base.toStdString() + "1");
        const core::model::EditBatch batch =
            core::io::insertComponent(m_window.document().model(), c, instance, snap(at.x()), snap(at.y()));
        if (const auto error = scene.applyEdit(batch, tr("Insert Component %1").arg(qs(c.name)))) {
            warn(tr("Insert Component"), *error);
            return false;
        }
        scene.selectBlocks({qs(instance)});
        m_window.view()->setFocus();
        return true;
    } catch (const core::Error& e) {
        warn(tr("Insert Component"), qs(e.what()));
        return false;
    }
}

void ComponentActions::chooseFolder() {
    const QString dir = m_folderChooser(&m_window, folder().isEmpty() ? QDir::homePath() : folder());
    if (dir.isEmpty()) return;
    QSettings().setValue(kFolderKey, dir);
    refresh();
}

bool ComponentActions::eventFilter(QObject* watched, QEvent* event) {
    const auto type = event->type();
    if (type != QEvent::DragEnter && type != QEvent::DragMove && type != QEvent::Drop)
        return QObject::eventFilter(watched, event);
    auto* drop = static_cast<QDropEvent*>(event);   // QDragEnterEvent and QDragMoveEvent are QDropEvents
    const QByteArray path = drop->mimeData()->data(QString::fromLatin1(kComponentMime));
    if (path.isEmpty()) return QObject::eventFilter(watched, event);
    drop->acceptProposedAction();
    if (type == QEvent::Drop) insert(QString::fromUtf8(path), m_window.view()->mapToScene(drop->position().toPoint()));
    return true;
}

}   // namespace endstop::gui
