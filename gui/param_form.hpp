// SPDX-License-Identifier: GPL-3.0-or-later
// ParamForm: the parameter editor generated from a block's descriptors; no per-block code. One row
// per parameter: label, editor (line edit, or drop-down for a choice), a unit drop-down of the
// compatible units for every quantity, and the reason next to the field when the entry is invalid
// (parse, range, or the block's own cross-parameter checks). Rows are grouped by descriptor group
// (tabs when there are several); dependent rows show and hide as choices change, and the list of
// present ports follows (conditional ports, a sum's inputs). Values are stored in SI; the chosen
// display unit is remembered in the block's ui.displayUnits. Used by the dialog and, inline, by
// the property panel.
//
// A real field also takes an expression of the model parameters ("2*k_base", "gap + 1 mm"): it is
// stored as written, the field shows what it resolves to ("= 20000 N/m") or why it does not, and
// an expression that does not resolve makes the entries invalid. While typing a name, the model
// parameters are offered (ExpressionCompleter).
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/model/model.hpp"

#include <QWidget>

#include <map>
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
    std::optional<core::model::EditBatch> edits();
    bool valid() const;
    void reload();   // re-reads the block's values from the model (after an edit or undo)
    const QString& block() const { return m_block; }

    // for tests and tooltips
    QWidget* editor(const QString& key) const;
    QComboBox* unitBox(const QString& key) const;
    QLabel* errorLabel(const QString& key) const;
    QLabel* resolvedLabel(const QString& key) const;   // "= 20000 N/m" beside an expression
    bool rowVisible(const QString& key) const;
    QString portsText() const;

Q_SIGNALS:
    void changed();
    void commitRequested();

private:
    struct Field;
    void build();
    QWidget* buildGroups(const core::BlockDescription& blk);
    void addRow(Field& f, QWidget* page);
    void addUnitBox(Field& f, QGridLayout* grid, int row);
    void addChoiceNote(Field& f, QGridLayout* grid, int row);
    void updateChoiceNote(Field& f);
    void onEdited(Field& f);
    void onUnitChanged(Field& f, int index);
    bool parse(Field& f);   // entry -> m_values, or the reason into f's error label
    void show(Field& f);    // m_values -> entry
    bool parseExpression(Field& f, const std::string& text, bool stored = false);   // false: not an expression
    void loadExpressions();     // the expressions the block holds, evaluated
    void parametersChanged();   // names to complete, expressions re-evaluated
    void revalidate();          // visibility, cross-parameter checks, ports
    QString unitOf(const Field& f) const;

    const Document& m_doc;
    QString m_block;
    Mode m_mode;
    core::model::BlockSpec m_spec;                // as in the model at build/reload
    core::ParamValues m_values;                   // every key, SI (an expression's value when it resolves)
    std::map<std::string, std::string> m_exprs;   // key -> expression text, for real fields holding one
    std::vector<std::unique_ptr<Field>> m_fields;
    QTabWidget* m_tabs = nullptr;
    QLabel* m_ports = nullptr;
    QLabel* m_general = nullptr;   // errors that name no visible field
};

}   // namespace endstop::gui
