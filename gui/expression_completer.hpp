// SPDX-License-Identifier: GPL-3.0-or-later
// ExpressionCompleter: completes the word under the cursor of a QLineEdit that holds an expression
// ("2*k_" offers k_base, k_stop) from a list of names (the model parameters). Unlike
// QLineEdit::setCompleter, which completes the whole text, only the word before the cursor is
// replaced. A word right after a number is a unit ("10 m"): nothing is offered there.
#pragma once

#include <QObject>
#include <QStringList>

class QCompleter;
class QLineEdit;
class QStringListModel;

namespace endstop::gui {

class ExpressionCompleter : public QObject {
    Q_OBJECT
public:
    explicit ExpressionCompleter(QLineEdit* line);   // owned by the line edit

    void setNames(const QStringList& names);
    QCompleter* completer() const { return m_completer; }
    // the word ending at the cursor, or empty
    QString wordAtCursor() const;

private:
    void update();
    void insert(const QString& name);

    QLineEdit* m_line;
    QStringListModel* m_names;
    QCompleter* m_completer;
};

}   // namespace endstop::gui
