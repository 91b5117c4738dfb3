// SPDX-License-Identifier: GPL-3.0-or-later
// PropertyPanel: the selection's properties. One block: its name (renamed on Enter), type, and the
// same generated ParamForm as the dialog, committing each field as it is finished. Several blocks:
// a count. Nothing: the model's size.
#pragma once

#include "core/model/model.hpp"

#include <QWidget>

class QLabel;
class QLineEdit;
class QVBoxLayout;

namespace endstop::gui {

class DiagramScene;
class Document;
class ParamForm;

class PropertyPanel : public QWidget {
    Q_OBJECT
public:
    PropertyPanel(Document& doc, DiagramScene& scene, QWidget* parent = nullptr);

    ParamForm* form() const { return m_form; }
    QLineEdit* nameEdit() const { return m_name; }
    const QString& block() const { return m_block; }

private:
    void scheduleRebuild();
    void rebuild();
    void showSummary(int selected, QVBoxLayout* layout);
    void showBlock(const core::model::BlockSpec& spec, QVBoxLayout* layout);
    void commit();

    Document& m_doc;
    DiagramScene& m_scene;
    QVBoxLayout* m_layout;
    QWidget* m_content = nullptr;
    ParamForm* m_form = nullptr;
    QLineEdit* m_name = nullptr;
    QLabel* m_status = nullptr;
    QString m_block;
    bool m_pending = false;
    bool m_applying = false;
};

}   // namespace endstop::gui
