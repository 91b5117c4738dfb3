// SPDX-License-Identifier: GPL-3.0-or-later
// DiagnosticsPanel: what core::validateModel says about the model (parameter ranges, wiring,
// structural analysis), refreshed after every non-cosmetic edit. Validation runs on a worker
// thread on a copy of the model, debounced, so a large model never stalls editing; stale results
// are dropped. A run's failure (solver or structural errors, with time, block and hint) is listed
// first until the next run starts. Clicking an entry asks for its block to be selected.
#pragma once

#include "core/blockapi/diagnostic.hpp"

#include <QSet>
#include <QWidget>

class QLabel;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace endstop::gui {

class Document;

class DiagnosticsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DiagnosticsPanel(Document& doc, QWidget* parent = nullptr);

    QTreeWidget* list() const { return m_list; }
    QLabel* details() const { return m_details; }   // the selected entry's whole message
    const core::Diagnostics& diagnostics() const { return m_diagnostics; }
    int validationsStarted() const { return m_started; }
    bool busy() const { return m_running; }
    void validateNow();   // skips the debounce (tests, file open)
    // What the last run reported (empty: clears it); listed above the validation results.
    void setRunDiagnostics(const core::Diagnostics& diagnostics);
    const core::Diagnostics& runDiagnostics() const { return m_runDiagnostics; }
    // A run of the current model ended at its stop time ("Run 2"); the summary says so until
    // the next run starts or the model changes (setRunDiagnostics clears it)
    void setRunFinished(const QString& run);
    QLabel* summary() const { return m_summary; }

Q_SIGNALS:
    void blockRequested(const QString& name);
    void validated(const QSet<QString>& blocksWithErrors);

private:
    void schedule();
    void start();
    void show(int generation, core::Diagnostics diagnostics);
    void render();
    QTreeWidgetItem* makeItem(const core::Diagnostic& d, bool fromRun) const;

    Document& m_doc;
    QTreeWidget* m_list;
    QLabel* m_summary;
    QLabel* m_details;
    QTimer* m_debounce;
    core::Diagnostics m_diagnostics;
    core::Diagnostics m_runDiagnostics;
    QString m_finishedRun;
    int m_generation = 0;
    int m_started = 0;
    bool m_running = false;
    bool m_again = false;
};

}   // namespace endstop::gui
