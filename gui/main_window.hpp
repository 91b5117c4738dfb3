// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow: the block library (left), the canvas (centre), the property panel (right) and the
// diagnostics list (bottom) as docks around one Document, with the menus, toolbar and shortcuts.
//   main_window.cpp        layout, actions, selection glue
//   main_window_files.cpp  New/Open/Save/Save As/Recent/Examples, confirmations, recovery, settings
// Issue 6 adds its run controls, plots and tuning as further toolbars and docks.
#pragma once

#include "core/blockapi/registry.hpp"

#include <QMainWindow>

#include <functional>

class QAction;
class QDockWidget;
class QMenu;
class QToolBar;

namespace endstop::gui {

class BlockLibrary;
class DiagnosticsPanel;
class DiagramScene;
class DiagramView;
class Document;
class PropertyPanel;
class Recovery;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(const core::Registry& registry, QWidget* parent = nullptr);
    ~MainWindow() override;

    Document& document() const { return *m_doc; }
    DiagramScene* scene() const { return m_scene; }
    DiagramView* view() const { return m_view; }
    BlockLibrary* library() const { return m_library; }
    PropertyPanel* properties() const { return m_properties; }
    DiagnosticsPanel* diagnostics() const { return m_diagnostics; }
    Recovery* recovery() const { return m_recovery; }
    QToolBar* mainToolBar() const { return m_toolbar; }
    QAction* action(const QString& objectName) const;   // "save", "undo", "duplicate", ...

    bool openFile(const QString& path);     // a message box (and nothing changed) on failure
    bool saveTo(const QString& path);
    bool save();                            // asks for a path when untitled
    bool saveAs();
    void newFile();
    void openExample(const QString& resourcePath);
    void offerRecovery();                   // after a crash: restore the autosaved changes?
    void openParameters(const QString& block);
    QStringList recentFiles() const;

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void setIcons();
    void createMenus();
    void createDocks();
    QAction* makeAction(const QString& name, const QString& text, const QKeySequence& key, std::function<void()> slot);
    QAction* addViewAction(const QString& name, const QString& text, const QKeySequence& key, std::function<void()> slot);
    bool maybeSave();   // false: the user cancelled
    void updateTitle();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void restoreSettings();
    void saveSettings();

    void editCopy();
    void editPaste();
    void editRename();
    void editParameters();
    void openDialog();
    void selectAndShow(const QString& block);

    Document* m_doc;
    DiagramScene* m_scene;
    DiagramView* m_view;
    BlockLibrary* m_library;
    PropertyPanel* m_properties;
    DiagnosticsPanel* m_diagnostics;
    Recovery* m_recovery;
    QToolBar* m_toolbar = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_examplesMenu = nullptr;
    QString m_exampleName;   // shown in the title for an opened example (saved as a new file)
};

}  // namespace endstop::gui
