// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow: the block library (left), the canvas (centre), the property panel (right) and the
// diagnostics list (bottom) as docks around one Document, with the menus, toolbar and shortcuts.
//   main_window.cpp        layout, actions, selection glue
//   main_window_files.cpp  New/Open/Save/Save As/Recent/Examples, confirmations, recovery, settings
//   main_window_run.cpp    Run/Pause/Stop, stop time, solver settings, run status, the plot,
//                          signal and tuning docks, Plot and Tune on the canvas context menu
//   main_window_subsystems.cpp  Create/Expand Subsystem, Make Unique, opening a block's level
//   component_actions.cpp  Save Subsystem as Component, the Library's Components category
#pragma once

#include "core/blockapi/registry.hpp"

#include <QMainWindow>

#include <functional>

class QAction;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QToolBar;

namespace endstop::gui {

class BlockLibrary;
class ComponentActions;
class DiagnosticsPanel;
class DiagramScene;
class DiagramView;
class Document;
class PlotPanel;
class PropertyPanel;
class Recovery;
class RunController;
class SignalBrowser;
class TuningPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(const core::Registry& registry, QWidget* parent = nullptr);
    ~MainWindow() override;

    Document& document() const { return *m_doc; }
    DiagramScene* scene() const { return m_scene; }
    DiagramView* view() const { return m_view; }
    BlockLibrary* library() const { return m_library; }
    ComponentActions* components() const { return m_components; }
    PropertyPanel* properties() const { return m_properties; }
    DiagnosticsPanel* diagnostics() const { return m_diagnostics; }
    Recovery* recovery() const { return m_recovery; }
    RunController* runs() const { return m_runs; }
    PlotPanel* plots() const { return m_plots; }
    SignalBrowser* signalBrowser() const { return m_signals; }
    TuningPanel* tuning() const { return m_tuning; }
    QLineEdit* stopTimeEdit() const { return m_stopTime; }
    QLabel* runStatus() const { return m_runStatus; }
    QProgressBar* runProgress() const { return m_progress; }
    QToolBar* mainToolBar() const { return m_toolbar; }
    QAction* action(const QString& objectName) const;   // "save", "undo", "duplicate", ...

    bool openFile(const QString& path);   // a message box (and nothing changed) on failure
    bool saveTo(const QString& path);
    bool save();   // asks for a path when untitled
    bool saveAs();
    void newFile();
    void openExample(const QString& resourcePath);
    void offerRecovery();                        // after a crash: restore the autosaved changes?
    void openParameters(const QString& block);   // of a block of the level shown
    // opens the level holding the block named by path ("p.s1.spring") and selects it
    bool openBlockPath(const QString& path);
    QStringList recentFiles() const;
    void openSolverSettings();
    // The canvas context menu's Plot and Tune submenus for a block.
    void addBlockMenus(QMenu* menu, const QString& block);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void createSubsystemActions();   // main_window_subsystems.cpp
    void setIcons();
    void createMenus();
    void createDocks();
    QDockWidget* addDock(const QString& name, const QString& title, QWidget* w, Qt::DockWidgetArea area);
    void createRunControls();
    void createRunDocks();
    void createParametersDock();
    void updateRunActions();
    void updateRunStatus();
    void runFinished(int runId);
    void commitStopTime();
    void showStopTime();
    QAction* makeAction(const QString& name, const QString& text, const QKeySequence& key, std::function<void()> slot);
    QAction* addViewAction(const QString& name, const QString& text, const QKeySequence& key,
                           std::function<void()> slot);
    bool maybeSave();               // false: the user cancelled
    QString documentName() const;   // "file.endstop", "untitled" or "name (example)"
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
    ComponentActions* m_components = nullptr;
    PropertyPanel* m_properties;
    DiagnosticsPanel* m_diagnostics;
    Recovery* m_recovery;
    RunController* m_runs;
    PlotPanel* m_plots = nullptr;
    SignalBrowser* m_signals = nullptr;
    TuningPanel* m_tuning = nullptr;
    QToolBar* m_runToolbar = nullptr;
    QLineEdit* m_stopTime = nullptr;
    QLabel* m_runStatus = nullptr;
    QProgressBar* m_progress = nullptr;
    QToolBar* m_toolbar = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_examplesMenu = nullptr;
    QString m_exampleName;   // shown in the title for an opened example (saved as a new file)
};

}   // namespace endstop::gui
