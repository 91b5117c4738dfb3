// SPDX-License-Identifier: GPL-3.0-or-later
// ParamForm's values (gui/param_form.hpp): entries shown and parsed, checks, the edits and the accessors.
// The widgets are built in param_form_build.cpp, expressions handled in param_form_expr.cpp.
#include "gui/param_form.hpp"
#include "gui/param_form_field.hpp"

#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "gui/document.hpp"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>

#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace endstop::gui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }

bool startsWithNumber(const std::string& text) {
    std::size_t i = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
    if (i < text.size() && text[i] == '.') ++i;
    return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
}
}   // namespace

ParamForm::ParamForm(const Document& doc, const QString& block, Mode mode, QWidget* parent)
    : QWidget(parent), m_doc(doc), m_block(block), m_mode(mode) {
    build();
}

ParamForm::~ParamForm() = default;

QString ParamForm::unitOf(const Field& f) const { return f.shownUnit; }

void ParamForm::show(Field& f) {
    const core::ParamValue& v = m_values.at(f.desc.key);
    const QSignalBlocker a(f.choice), b(f.unit);
    if (f.choice) {
        f.choice->setCurrentIndex(f.choice->findData(qs(std::get<std::string>(v))));
        return;
    }
    core::Unit u;
    for (const core::Unit& c : f.units)
        if (qs(c.display()) == f.shownUnit) u = c;
    if (f.unit) f.unit->setCurrentText(f.shownUnit);
    if (const auto e = m_exprs.find(f.desc.key); e != m_exprs.end()) {   // shown as written
        f.line->setText(qs(e->second));
        f.shownText = f.line->text();
        return;
    }
    // SI is shown exactly; a converted value with 12 digits (0.1 m is "100" mm, not 100.00000000000001)
    const auto number = [&u](double x) {
        return u.scale == 1.0 ? qs(core::formatNumber(x)) : QString::number(u.fromSI(x), 'g', 12);
    };
    if (const double* x = std::get_if<double>(&v))
        f.line->setText(number(*x));
    else if (const auto* xs = std::get_if<std::vector<double>>(&v)) {
        QStringList items;
        for (double e : *xs) items << number(e);
        f.line->setText(QStringLiteral("[") + items.join(QLatin1Char(' ')) + QStringLiteral("]"));
    } else
        f.line->setText(qs(std::get<std::string>(v)));
    f.shownText = f.line->text();
    f.parseError.clear();
}

bool ParamForm::parse(Field& f) {
    const core::ParamDesc& d = f.desc;
    f.parseError.clear();
    try {
        if (f.choice) {
            m_values[d.key] = f.choice->currentData().toString().toStdString();
            return true;
        }
        std::string text = f.line->text().trimmed().toStdString();
        if (f.line->text() == f.shownText)   // untouched: keep the exact stored value (an expression re-evaluated)
            return !m_exprs.count(d.key) || parseExpression(f, text, true);
        if (d.type == core::ParamType::Real && parseExpression(f, text)) return true;
        m_exprs.erase(d.key);
        if (d.type == core::ParamType::Text) {
            m_values[d.key] = text;
            return true;
        }
        core::Unit shown;
        for (const core::Unit& c : f.units)
            if (qs(c.display()) == f.shownUnit) shown = c;
        if (d.type == core::ParamType::Real) {
            if (!startsWithNumber(text)) {   // the example in this field's own unit, not a length
                const QString unit = shown.symbol.empty() ? QString() : QStringLiteral(" ") + qs(shown.display());
                throw core::UnitError(tr("'%1' is not a number (e.g. 10%2)").arg(qs(text), unit).toStdString());
            }
            double si = 0.0;
            const core::Quantity q = core::parseQuantity(text);
            if (q.unit || d.anyDimension)
                si = std::get<double>(core::io::parseParameterText(text, d));
            else
                si = core::checkedSI(text, shown.toSI(q.value));
            if (const std::string e = d.rangeError(si); !e.empty()) throw core::UnitError(e);
            m_values[d.key] = si;
            return true;
        }
        if (text.empty() || text.front() != '[') text = "[" + text + "]";
        const auto close = text.rfind(']');
        if (close != std::string::npos && text.find_first_not_of(' ', close + 1) == std::string::npos && f.unit)
            text += " " + f.shownUnit.toStdString();
        const core::ParamValue v = core::io::parseParameterText(text, d);
        for (double x : std::get<std::vector<double>>(v))
            if (const std::string e = d.rangeError(x); !e.empty()) throw core::UnitError("every element " + e);
        m_values[d.key] = v;
        return true;
    } catch (const std::exception& e) {
        QString why = qs(e.what());
        if (why.startsWith(qs(d.key) + QStringLiteral(": "))) why = why.mid(static_cast<int>(d.key.size()) + 2);
        f.parseError = why;
        return false;
    }
}

void ParamForm::onEdited(Field& f) {
    parse(f);
    revalidate();
    Q_EMIT changed();
}

void ParamForm::onUnitChanged(Field& f, int index) {
    if (index < 0 || index >= static_cast<int>(f.units.size())) return;
    const bool ok = parse(f);   // in the old unit
    f.shownUnit = qs(f.units[static_cast<std::size_t>(index)].display());
    if (ok) show(f);   // the same quantity in the new unit
    revalidate();
    Q_EMIT changed();
}

void ParamForm::revalidate() {
    std::vector<core::ParamDesc> descs;
    for (const auto& f : m_fields) descs.push_back(f->desc);
    bool parsed = true;
    for (auto& f : m_fields) {
        f->visible = core::isVisible(f->desc.visibleWhen, m_values, descs);
        f->crossError.clear();
        f->crossIsWarning = false;
        parsed = parsed && (!f->visible || f->parseError.isEmpty());
    }
    QStringList general;
    if (m_doc.registry().find(m_spec.type) && parsed) {
        const std::unique_ptr<core::Block> blk = m_doc.registry().create(m_spec.type, m_values);
        for (const core::Diagnostic& dg : blk->validate()) {
            Field* target = nullptr;
            for (auto& f : m_fields)
                if (f->desc.key == dg.param && f->visible) target = f.get();
            if (!target) {
                general << qs(dg.message);
                continue;
            }
            target->crossError += (target->crossError.isEmpty() ? QString() : QStringLiteral("; ")) + qs(dg.message);
            target->crossIsWarning = dg.severity != core::Severity::Error;
        }
        QStringList ports;
        for (const core::PortDesc& p : core::BlockDescription::of(*blk).presentPorts()) ports << qs(p.name);
        m_ports->setText(tr("Ports: %1").arg(ports.isEmpty() ? tr("none") : ports.join(QStringLiteral(", "))));
    }
    for (auto& f : m_fields) {
        const QString msg = f->parseError.isEmpty() ? f->crossError : f->parseError;
        const bool warn = f->parseError.isEmpty() && f->crossIsWarning;
        f->error->setText(msg);
        f->error->setStyleSheet(warn ? QStringLiteral("color: #b26a00") : QStringLiteral("color: #c62828"));
        f->error->setVisible(f->visible && !msg.isEmpty());
        if (f->resolved) {
            const auto* si = std::get_if<double>(&m_values.at(f->desc.key));
            const bool shown = f->visible && f->parseError.isEmpty() && m_exprs.count(f->desc.key) && si;
            core::Unit u = core::Unit::si(f->desc.unit.dimension);
            for (const core::Unit& c : f->units)
                if (qs(c.display()) == f->shownUnit) u = c;
            if (shown)
                f->resolved->setText(
                    QStringLiteral("= %1 %2").arg(QString::number(u.fromSI(*si), 'g', 6), qs(u.symbol)).trimmed());
            f->resolved->setVisible(shown);
        }
        f->label->setVisible(f->visible);
        QWidget* ed = f->choice ? static_cast<QWidget*>(f->choice) : f->line;
        ed->setVisible(f->visible);
        ed->setStyleSheet(f->visible && !msg.isEmpty() && !warn ? QStringLiteral("border: 1px solid #c62828")
                                                                : QString());
        if (f->unit) f->unit->setVisible(f->visible);
        updateChoiceNote(*f);
    }
    // a group whose every field is hidden by the current choices disappears as a whole
    std::map<QWidget*, bool> used;
    for (const auto& f : m_fields) used[f->page] = used[f->page] || f->visible;
    for (const auto& [page, any] : used) {
        if (m_tabs)
            m_tabs->setTabVisible(m_tabs->indexOf(page), any);
        else
            page->setVisible(any);
    }
    m_general->setText(general.join(QStringLiteral("\n")));
    m_general->setVisible(!general.isEmpty());
}

bool ParamForm::valid() const {
    if (!m_general->text().isEmpty()) return false;
    for (const auto& f : m_fields)
        if (f->visible && (!f->parseError.isEmpty() || (!f->crossError.isEmpty() && !f->crossIsWarning))) return false;
    return true;
}

std::optional<core::model::EditBatch> ParamForm::edits() {
    for (auto& f : m_fields)
        if (f->line && f->visible) parse(*f);
    revalidate();
    if (!valid()) return std::nullopt;
    core::model::EditBatch batch{{}, "parameters"};
    const std::string name = m_block.toStdString();
    // a block written by an older type version reads its missing keys as that version did (its
    // migration), not as today's defaults: unchanged, they stay unwritten
    core::ParamValues stored = m_spec.params;
    if (m_doc.registry().find(m_spec.type)) {
        try {
            stored = m_doc.registry().migrated(m_spec.type, m_spec.typeVersion, stored);
        } catch (const core::Error&) {   // a newer version: the file was refused before this
        }
    }
    for (const auto& f : m_fields) {
        const auto expr = m_exprs.find(f->desc.key);
        const core::ParamValue now = expr != m_exprs.end() ? core::ParamValue(expr->second) : m_values.at(f->desc.key);
        const auto kept = stored.find(f->desc.key);
        const core::ParamValue& before = kept != stored.end() ? kept->second : f->desc.defaultValue;
        if (now != before) batch.edits.emplace_back(core::model::SetParameter{name, f->desc.key, now});
    }
    core::model::BlockUi ui = m_spec.ui;
    for (const auto& f : m_fields) {
        if (!f->unit) continue;
        if (f->shownUnit.toStdString() == f->desc.unit.symbol)
            ui.displayUnits.erase(f->desc.key);
        else
            ui.displayUnits[f->desc.key] = f->shownUnit.toStdString();
    }
    if (ui != m_spec.ui) batch.edits.emplace_back(core::model::SetBlockUi{name, ui});
    // wires on ports the new values remove go in the same step, so undo brings them back
    if (m_doc.registry().find(m_spec.type)) {
        const core::BlockDescription blk = m_doc.registry().describe(m_spec.type, m_values);
        for (const core::model::Connection& c : m_doc.model().connectionsOf(name))
            for (const core::model::PortRef& p : {c.a, c.b})
                if (p.block == name && blk.portIndex(p.port) < 0) {
                    batch.edits.emplace_back(core::model::Disconnect{c});
                    break;
                }
    }
    return batch;
}

void ParamForm::reload() {
    const core::model::BlockSpec* spec = m_doc.model().find(m_block.toStdString());
    if (!spec) return;
    m_spec = *spec;
    if (const std::optional<core::BlockDescription> blk = m_doc.describe(m_spec)) m_values = blk->values;
    loadExpressions();
    for (auto& f : m_fields) {
        const auto saved = m_spec.ui.displayUnits.find(f->desc.key);
        if (f->unit) f->shownUnit = saved != m_spec.ui.displayUnits.end() ? qs(saved->second) : qs(f->desc.unit.symbol);
        if (f->unit && f->unit->findText(f->shownUnit) < 0) f->shownUnit = f->unit->itemText(0);
        show(*f);
    }
    revalidate();
}

QWidget* ParamForm::editor(const QString& key) const {
    for (const auto& f : m_fields)
        if (qs(f->desc.key) == key) return f->choice ? static_cast<QWidget*>(f->choice) : f->line;
    return nullptr;
}

QComboBox* ParamForm::unitBox(const QString& key) const {
    for (const auto& f : m_fields)
        if (qs(f->desc.key) == key) return f->unit;
    return nullptr;
}

QLabel* ParamForm::errorLabel(const QString& key) const {
    for (const auto& f : m_fields)
        if (qs(f->desc.key) == key) return f->error;
    return nullptr;
}

bool ParamForm::rowVisible(const QString& key) const {
    for (const auto& f : m_fields)
        if (qs(f->desc.key) == key) return f->visible;
    return false;
}

QString ParamForm::portsText() const { return m_ports ? m_ports->text() : QString(); }

}   // namespace endstop::gui
