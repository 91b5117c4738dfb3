// SPDX-License-Identifier: GPL-3.0-or-later
// Files: New, Open, Save, Save As, Open Recent (QSettings), Help > Examples, confirmation before
// unsaved changes are lost, the recovery offer after a crash, and the window layout.
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "gui/diagnostics_panel.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/diagram_view.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"
#include "gui/recovery.hpp"
#include "gui/start_directory.hpp"

#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

namespace endstop::gui {

namespace {
constexpr int kMaxRecent = 8;
const QString kFilter = QStringLiteral("Endstop projects (*.endstop);;All files (*)");

// The name of the bundled example a file is, or "": an unchanged example in the shipped examples
// folder (a folder that holds every bundled example). Such a file opens as an untitled copy, so
// Save never writes over a shipped example; a user's own copy elsewhere opens as their file.
QString bundledExampleName(const QString& path) {
    const QFileInfo info(path);
    const QStringList bundled =
        QDir(QStringLiteral(":/examples")).entryList({QStringLiteral("*.endstop")}, QDir::Files);
    if (!bundled.contains(info.fileName())) return {};
    for (const QString& name : bundled)
        if (!info.dir().exists(name)) return {};
    QFile original(QStringLiteral(":/examples/") + info.fileName());
    QFile file(path);
    if (!original.open(QIODevice::ReadOnly) || !file.open(QIODevice::ReadOnly)) return {};
    return file.readAll() == original.readAll() ? info.completeBaseName() : QString();
}
}   // namespace

QString MainWindow::documentName() const {
    return m_exampleName.isEmpty() ? m_doc->displayName() : tr("%1 (example)").arg(m_exampleName);
}

void MainWindow::updateTitle() {
    setWindowTitle(QStringLiteral("%1[*] \u2014 Endstop").arg(documentName()));
    setWindowModified(m_doc->isDirty());
}

bool MainWindow::maybeSave() {
    if (!m_doc->isDirty()) return true;
    const auto answer =
        QMessageBox::warning(this, tr("Unsaved changes"), tr("%1 has unsaved changes. Save them?").arg(documentName()),
                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::newFile() {
    if (!maybeSave()) return;
    m_recovery->clear();
    m_exampleName.clear();
    m_doc->reset(core::model::Model{}, QString());
}

void MainWindow::openDialog() {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"),
                                                      startDirectory(QStringLiteral("lastDirectory")), kFilter);
    if (!path.isEmpty()) openFile(path);
}

bool MainWindow::openFile(const QString& path) {
    core::model::Model model;
    try {
        model = core::io::loadProject(path, m_doc->registry());
    } catch (const core::Error& e) {
        QMessageBox::critical(this, tr("Cannot open project"), QString::fromStdString(e.what()));
        return false;   // the current document stays as it was
    }
    m_recovery->clear();
    m_exampleName = bundledExampleName(path);
    if (!m_exampleName.isEmpty()) {
        m_doc->reset(std::move(model), QString());   // an untitled copy, as Help > Examples opens it
        updateTitle();
    } else {
        m_doc->reset(std::move(model), QFileInfo(path).absoluteFilePath());
        addRecent(m_doc->path());
        QSettings().setValue("lastDirectory", QFileInfo(path).absolutePath());
    }
    QTimer::singleShot(0, m_view, &DiagramView::fitAll);
    return true;
}

void MainWindow::openExample(const QString& resourcePath) {
    if (!maybeSave()) return;
    core::model::Model model;
    try {
        model = core::io::loadProject(resourcePath, m_doc->registry());
    } catch (const core::Error& e) {
        QMessageBox::critical(this, tr("Cannot open example"), QString::fromStdString(e.what()));
        return;
    }
    m_recovery->clear();
    m_exampleName = QFileInfo(resourcePath).completeBaseName();
    m_doc->reset(std::move(model), QString());   // untitled: Save asks where to keep a copy
    updateTitle();
    QTimer::singleShot(0, m_view, &DiagramView::fitAll);
}

bool MainWindow::saveTo(const QString& path) {
    try {
        core::io::saveProject(m_doc->model(), path);
    } catch (const core::Error& e) {
        QMessageBox::critical(this, tr("Cannot save project"), QString::fromStdString(e.what()));
        return false;
    }
    m_exampleName.clear();
    m_doc->setPath(QFileInfo(path).absoluteFilePath());
    QSettings().setValue("lastDirectory", QFileInfo(path).absolutePath());
    m_doc->markClean();
    m_recovery->clear();
    addRecent(m_doc->path());
    statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    return true;
}

bool MainWindow::save() { return m_doc->path().isEmpty() ? saveAs() : saveTo(m_doc->path()); }

bool MainWindow::saveAs() {
    QString start = m_doc->path();
    if (start.isEmpty())
        start = startDirectory(QStringLiteral("lastDirectory")) + '/' +
                (m_exampleName.isEmpty() ? "untitled" : m_exampleName) + ".endstop";
    QString path = QFileDialog::getSaveFileName(this, tr("Save project"), start, kFilter);
    if (path.isEmpty()) return false;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".endstop");
    return saveTo(path);
}

QStringList MainWindow::recentFiles() const { return QSettings().value("recentFiles").toStringList(); }

void MainWindow::addRecent(const QString& path) {
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecent) files.removeLast();
    QSettings().setValue("recentFiles", files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString& f : files)
        m_recentMenu
            ->addAction(QFileInfo(f).fileName(), this,
                        [this, f] {
                            if (maybeSave()) openFile(f);
                        })
            ->setToolTip(f);
    if (files.isEmpty())
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
    else {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear list"), this, [this] {
            QSettings().remove("recentFiles");
            rebuildRecentMenu();
        });
    }
}

void MainWindow::offerRecovery() {
    for (const RecoveredFile& r : Recovery::orphans()) {
        const QString what =
            r.originalPath.isEmpty() ? tr("an untitled project") : QFileInfo(r.originalPath).fileName();
        const auto answer = QMessageBox::question(
            this, tr("Recover unsaved changes"),
            tr("Endstop did not close properly. Unsaved changes to %1 from %2 were kept.\nRecover them?")
                .arg(what, QLocale().toString(r.saved, QLocale::ShortFormat)),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
        if (answer != QMessageBox::Yes) {
            Recovery::discard(r);
            continue;
        }
        try {
            core::model::Model model = core::io::loadProject(r.recoveryPath, m_doc->registry());
            m_doc->reset(std::move(model), r.originalPath);
            m_doc->markDirty();
            Recovery::discard(r);
            m_recovery->autosave();   // kept safe again under this session
            QTimer::singleShot(0, m_view, &DiagramView::fitAll);
        } catch (const core::Error& e) {
            QMessageBox::critical(this, tr("Cannot recover"), QString::fromStdString(e.what()));
        }
        return;   // one document per window
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    m_recovery->clear();
    saveSettings();
    event->accept();
}

void MainWindow::restoreSettings() {
    QSettings s;
    if (const QByteArray g = s.value("window/geometry").toByteArray(); !g.isEmpty()) restoreGeometry(g);
    if (const QByteArray st = s.value("window/state").toByteArray(); !st.isEmpty()) restoreState(st);
}

void MainWindow::saveSettings() {
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
}

}   // namespace endstop::gui
