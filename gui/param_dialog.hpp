// SPDX-License-Identifier: GPL-3.0-or-later
// ParamDialog: the generic parameter dialog of any block (double-click on the canvas): a header
// with the block's title and help, the generated ParamForm, and OK / Apply / Cancel. OK and Apply
// apply the entries as one undo step; an invalid entry keeps the dialog open with the reason.
#pragma once

#include <QDialog>

class QDialogButtonBox;
class QLabel;

namespace endstop::gui {

class Document;
class ParamForm;

class ParamDialog : public QDialog {
    Q_OBJECT
public:
    ParamDialog(Document& doc, const QString& block, QWidget* parent = nullptr);

    ParamForm* form() const { return m_form; }
    QDialogButtonBox* buttons() const { return m_buttons; }
    QLabel* message() const { return m_message; }
    bool apply();   // false (and the reason shown) if an entry is invalid

    void accept() override;

private:
    Document& m_doc;
    QString m_block;
    ParamForm* m_form;
    QDialogButtonBox* m_buttons;
    QLabel* m_message;
};

}  // namespace endstop::gui
