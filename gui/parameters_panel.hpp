// SPDX-License-Identifier: GPL-3.0-or-later
// ParametersPanel: the model's named parameters as a table (the "Parameters" dock): Name, Value
// (the expression as written), Dimension (of what it resolves to) and Resolved value (SI with its
// unit, or the error in red with the reason as tooltip). Name and Value are edited in place; Add
// appends a fresh p1, p2, ...; Remove deletes (a block that used it then reports the unknown name in
// the diagnostics); Tune pins the parameter as a slider. Every change is one undo step. Renaming a
// parameter that is used asks whether to update its uses (gui/parameter_model.hpp) in the same
// step. The table is rebuilt from the model after every edit, undo and redo: it stores nothing.
#pragma once

#include <QWidget>

class QTableWidget;
class QTableWidgetItem;
class QToolButton;

namespace endstop::core::model {
struct Edit;
}

namespace endstop::gui {

class Document;

class ParametersPanel : public QWidget {
    Q_OBJECT
public:
    enum Column { NameColumn, ValueColumn, DimensionColumn, ResolvedColumn };

    explicit ParametersPanel(Document& doc, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    QToolButton* addButton() const { return m_add; }
    QToolButton* removeButton() const { return m_remove; }
    QToolButton* tuneButton() const { return m_tune; }
    int rowOf(const QString& name) const;   // -1 if absent
    QString selectedName() const;

    // The actions behind the buttons and the in-place editing; false (and a status message) when
    // the model refuses.
    QString add();   // the new parameter's name
    bool remove(const QString& name);
    bool setValue(const QString& name, const QString& text);
    bool rename(const QString& from, const QString& to);   // may ask "Update the N uses?"

Q_SIGNALS:
    void tuneRequested(const QString& name);
    void statusMessage(const QString& message);

private:
    void rebuild();
    void fillRow(int row, const QString& name, const QString& value);
    void itemEdited(QTableWidgetItem* item);
    void showMenu(const QPoint& pos);
    void updateButtons();
    bool applyEdit(const core::model::Edit& edit, const QString& label);

    Document& m_doc;
    QTableWidget* m_table;
    QToolButton* m_add;
    QToolButton* m_remove;
    QToolButton* m_tune;
    bool m_rebuilding = false;
};

}   // namespace endstop::gui
