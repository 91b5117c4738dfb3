// SPDX-License-Identifier: GPL-3.0-or-later
// TuningPanel: numeric parameters pinned as sliders (or spin boxes). Moving one re-runs the
// simulation at once on a copy of the model with that value (the run in flight is cancelled; the
// previous result stays as a faded trace) and releasing it commits the value through the undo stack.
// Rows follow renames, disappear with their block, and show the value the model holds after an
// undo. Pins are part of the session, not of the project file.
//
// A model parameter is pinned like a block parameter with block "" and its name as key (when its
// value is a plain quantity such as "1e4 N/m"): the slider sets it (core::io::setValue), so every
// expression using it follows in the re-run; the row goes when the parameter is removed or renamed.
#pragma once

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QVBoxLayout;

namespace endstop::core::model {
struct Edit;
}

namespace endstop::gui {

class Document;
class RunController;
class TuningRow;

class TuningPanel : public QWidget {
    Q_OBJECT
public:
    TuningPanel(Document& doc, RunController& runs, QWidget* parent = nullptr);

    // Pins block.key (a numeric, tunable parameter), or the model parameter `key` for an empty
    // block; false with a status message otherwise.
    bool pin(const QString& block, const QString& key);
    void unpin(TuningRow* row);
    TuningRow* row(const QString& block, const QString& key) const;
    int rowCount() const { return static_cast<int>(m_rows.size()); }
    static bool tunable(const Document& doc, const QString& block, const QString& key);

Q_SIGNALS:
    void statusMessage(const QString& message);
    void pinned();   // a row was added (the window shows the panel)

private:
    void addRow(TuningRow* row);
    void tuned(TuningRow* row, double siValue, bool firstOfGesture);
    void committed(TuningRow* row, double siValue);
    void reload(const QString& block);
    void reloadParameter(const QString& name);
    bool pinParameter(const QString& name);
    core::model::Edit edit(const TuningRow* row, double siValue) const;
    void renamed(const QString& from, const QString& to);
    void removed(const QString& block);
    void clear();
    void updateHint();

    Document& m_doc;
    RunController& m_runs;
    QVBoxLayout* m_rowsLayout;
    QLabel* m_hint;
    std::vector<TuningRow*> m_rows;
};

}   // namespace endstop::gui
