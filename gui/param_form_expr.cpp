// SPDX-License-Identifier: GPL-3.0-or-later
// ParamForm's real fields holding expressions of the model parameters (gui/param_form.hpp).
#include "gui/document.hpp"
#include "gui/expression_completer.hpp"
#include "gui/param_form.hpp"
#include "gui/param_form_field.hpp"
#include "gui/parameter_model.hpp"

#include <QLabel>
#include <QLineEdit>

namespace endstop::gui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
}   // namespace

bool ParamForm::parseExpression(Field& f, const std::string& text, bool stored) {
    if (!stored && !expressionOf(text, f.desc, m_doc.model())) return false;
    m_exprs[f.desc.key] = text;
    m_values[f.desc.key] = evaluateField(text, f.desc, m_doc.model());   // throws the reason
    return true;
}

void ParamForm::loadExpressions() {
    m_exprs.clear();
    QStringList names;
    for (const core::model::ParameterDef& p : m_doc.model().parameters()) names << qs(p.name);
    for (auto& f : m_fields) {
        if (f->completer) f->completer->setNames(names);
        const auto it = m_spec.params.find(f->desc.key);
        if (f->desc.type != core::ParamType::Real || it == m_spec.params.end()) continue;
        if (const auto* text = std::get_if<std::string>(&it->second)) m_exprs[f->desc.key] = *text;
    }
    for (auto& f : m_fields)
        if (m_exprs.count(f->desc.key)) {
            f->parseError.clear();
            try {
                parseExpression(*f, m_exprs[f->desc.key], true);
            } catch (const std::exception& e) {
                f->parseError = qs(e.what());
            }
        }
}

void ParamForm::parametersChanged() {
    QStringList names;
    for (const core::model::ParameterDef& p : m_doc.model().parameters()) names << qs(p.name);
    for (auto& f : m_fields) {
        if (f->completer) f->completer->setNames(names);
        if (f->line && m_exprs.count(f->desc.key)) parse(*f);
    }
    revalidate();
    Q_EMIT changed();
}

QLabel* ParamForm::resolvedLabel(const QString& key) const {
    for (const auto& f : m_fields)
        if (qs(f->desc.key) == key) return f->resolved;
    return nullptr;
}

}   // namespace endstop::gui
