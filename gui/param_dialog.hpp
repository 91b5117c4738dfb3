// SPDX-License-Identifier: GPL-3.0-or-later
// ParamDialog: the generic parameter dialog of any block (double-click on the canvas): a header
// with the block's title and help, the generated ParamForm, and OK / Apply / Cancel. OK and Apply
// apply the entries as one undo step; an invalid entry keeps the dialog open with the reason.
// Opened from the canvas on a level below the top (scene constructor), its edits go into the
// definition shown (InSubsystem), the form reading the body through a scratch Document. For a
// subsystem instance it shows the mask instead: one field per mask parameter (subsystemParams),
// empty for the default; a plain number is stored as an SI number, anything else as the
// expression text, and each change is one SetParameter on the instance.
#pragma once

#include <QDialog>
#include <QMap>

#include <memory>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QVBoxLayout;

namespace endstop::gui {

class DiagramScene;
class Document;
class ParamForm;

class ParamDialog : public QDialog {
    Q_OBJECT
public:
    ParamDialog(Document& doc, const QString& block, QWidget* parent = nullptr);
    ParamDialog(DiagramScene& scene, const QString& block, QWidget* parent = nullptr);   // the level shown
    ~ParamDialog() override;

    ParamForm* form() const { return m_form; }   // nullptr for a subsystem instance (its mask)
    QLineEdit* maskEditor(const QString& key) const { return m_mask.value(key); }
    QDialogButtonBox* buttons() const { return m_buttons; }
    QLabel* message() const { return m_message; }
    bool apply();   // false (and the reason shown) if an entry is invalid

    void accept() override;

private:
    ParamDialog(Document& doc, const QString& definition, const QString& block, QWidget* parent);
    void buildMask(QVBoxLayout* layout);
    bool applyMask();
    void reloadScratch();

    Document& m_doc;
    QString m_definition;   // the definition whose body holds the block; empty: the model
    QString m_block;
    std::unique_ptr<Document> m_scratch;   // the body as a document, for the form
    ParamForm* m_form = nullptr;
    QMap<QString, QLineEdit*> m_mask;
    QDialogButtonBox* m_buttons;
    QLabel* m_message;
};

}   // namespace endstop::gui
