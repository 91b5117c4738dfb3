// SPDX-License-Identifier: GPL-3.0-or-later
// ComponentActions: component files in the editor (docs/file-format.md, "Component files").
// - Edit > Save Subsystem as Component... (and the canvas context menu) on one selected instance
//   writes its definition with every definition it uses to a *.endstopc file, by default in the
//   library folder; a definition that needs a model parameter is refused with the reason.
// - Edit > Components Folder... chooses the library folder (QSettings "library/components").
//   Without a choice it is the folder "components" next to the open project; with neither, the
//   folder the first component is saved into becomes it.
// - The Library's Components category lists the folder's *.endstopc files, kept current; a
//   double-click inserts a copy at the centre of the view, a drop onto the canvas where it lands
//   (core::io::insertComponent, one undo step, into the level shown).
// The file dialogs can be replaced (tests).
#pragma once

#include <QObject>
#include <QPointF>
#include <QString>

#include <functional>

class QAction;
class QFileSystemWatcher;

namespace endstop::gui {

class MainWindow;

class ComponentActions : public QObject {
    Q_OBJECT
public:
    explicit ComponentActions(MainWindow& window);

    // the library folder; empty when there is none (no choice, an untitled project)
    QString folder() const;
    void refresh();                               // relists the Components category
    bool saveInstance(const QString& instance);   // asks for the file
    bool saveInstanceTo(const QString& instance, const QString& path);
    bool insert(const QString& path, QPointF scenePos);
    void chooseFolder();

    // (parent, suggested path) -> chosen path, empty: cancelled
    using Chooser = std::function<QString(QWidget*, const QString&)>;
    void setSaveChooser(Chooser c) { m_saveChooser = std::move(c); }
    void setFolderChooser(Chooser c) { m_folderChooser = std::move(c); }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;   // component drops on the canvas

private:
    QString selectedInstance() const;
    void warn(const QString& title, const QString& text) const;

    MainWindow& m_window;
    QAction* m_save;
    QFileSystemWatcher* m_watcher;
    Chooser m_saveChooser, m_folderChooser;
};

}   // namespace endstop::gui
