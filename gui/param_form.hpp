// SPDX-License-Identifier: GPL-3.0-or-later
// ParamForm: the parameter editor generated from a block's descriptors; no per-block code. One row
// per parameter: label, editor (line edit, or drop-down for a choice), a unit drop-down of the
// compatible units for every quantity, and the reason next to the field when the entry is invalid
// (parse, range, or the block's own cross-parameter checks). Rows are grouped by descriptor group
// (tabs when there are several); dependent rows show and hide as choices change, and the list of
// present ports follows (conditional ports, a sum's inputs). Values are stored in SI; the chosen
// display unit is remembered in the block's ui.displayUnits. Used by the dialog and, inline, by
// the property panel.
#pragma once

#include "core/blockapi/block.hpp"
#include "core/model/model.hpp"

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QTabWidget;

namespace endstop::gui {

class Document;

class ParamForm : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Dialog, Inline };   // Inline: fields commit one by one (commitRequested)
    ParamForm(const Document& doc, const QString& block, Mode mode, QWidget* parent = nullptr);
    ~ParamForm() override;

    // The edits the entries stand for, as one batch: changed parameters, display units, and the
    // disconnection of wires on ports that disappear. nullopt if any visible entry is invalid
    // (the reasons are shown next to the fields).
    std::optional<core::EditBatch> edits();
    bool valid() const;
    void reload();   // re-reads the block's values from the model (after an edit or undo)
    const QString& block() const { return m_block; }

    // for tests and tooltips
    QWidget* editor(const QString& key) const;
    QComboBox* unitBox(const QString& key) const;
    QLabel* errorLabel(const QString& key) const;
    bool rowVisible(const QString& key) const;
    QString portsText() const;

Q_SIGNALS:
    void changed();
    void commitRequested();

private:
    struct Field;
    void build();
    QWidget* buildGroups(const core::Block& blk);
    void addRow(Field& f, QWidget* page);
    void addUnitBox(Field& f, QGridLayout* grid, int row);
    void addChoiceNote(Field& f, QGridLayout* grid, int row);
    void updateChoiceNote(Field& f);
    void onEdited(Field& f);
    void onUnitChanged(Field& f, int index);
    bool parse(Field& f);   // entry -> m_values, or the reason into f's error label
    void show(Field& f);    // m_values -> entry
    void revalidate();      // visibility, cross-parameter checks, ports
    QString unitOf(const Field& f) const;

    const Document& m_doc;
    QString m_block;
    Mode m_mode;
    core::BlockSpec m_spec;   // as in the model at build/reload
    core::ParamValues m_values;   // every key, SI
    std::vector<std::unique_ptr<Field>> m_fields;
    QTabWidget* m_tabs = nullptr;
    QLabel* m_ports = nullptr;
    QLabel* m_general = nullptr;   // errors that name no visible field
};

}  // namespace endstop::gui
