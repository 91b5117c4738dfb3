// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/tuning_panel.hpp"

#include "core/io/overrides.hpp"
#include "core/units/unit.hpp"
#include "gui/document.hpp"
#include "gui/parameter_model.hpp"
#include "gui/run_controller.hpp"
#include "gui/tuning_row.hpp"

#include <QFrame>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>

namespace endstop::gui {

namespace {

// The model parameter's value when it resolves
std::optional<double> parameterValue(const core::model::Model& model, const std::string& name) {
    const std::vector<gui::Resolution> rs = gui::resolveParameters(model);
    for (std::size_t i = 0; i < rs.size(); ++i)
        if (model.parameters()[i].name == name && rs[i].value) return rs[i].value->si;
    return std::nullopt;
}

}   // namespace

TuningPanel::TuningPanel(Document& doc, RunController& runs, QWidget* parent)
    : QWidget(parent), m_doc(doc), m_runs(runs), m_rowsLayout(new QVBoxLayout), m_hint(new QLabel(this)) {
    auto* content = new QWidget;
    auto* column = new QVBoxLayout(content);
    column->setContentsMargins(0, 0, 0, 0);
    column->addLayout(m_rowsLayout);
    column->addWidget(m_hint);
    column->addStretch(1);
    m_rowsLayout->setSpacing(0);
    m_hint->setWordWrap(true);
    m_hint->setText(
        tr("Right-click a block and choose Tune to pin a parameter here. Moving its slider re-runs the "
           "simulation at once; releasing it keeps the value (Undo takes it back)."));
    m_hint->setStyleSheet(QStringLiteral("color: gray; padding: 6px;"));
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    connect(&doc, &Document::blockParamsChanged, this, &TuningPanel::reload);
    connect(&doc, &Document::blockRenamed, this, &TuningPanel::renamed);
    connect(&doc, &Document::blockRemoved, this, &TuningPanel::removed);
    connect(&doc, &Document::modelReset, this, &TuningPanel::clear);
    connect(&doc, &Document::parametersChanged, this, &TuningPanel::reloadParameter);
}

bool TuningPanel::tunable(const Document& doc, const QString& block, const QString& key) {
    if (block.isEmpty()) {   // a model parameter written as a plain quantity
        const core::model::ParameterDef* p = doc.model().findParameter(key.toStdString());
        try {
            return p && core::expr::Expression::parse(p->value).plainQuantity() && parameterValue(doc.model(), p->name);
        } catch (const core::expr::ExprError&) {
            return false;
        }
    }
    const core::model::BlockSpec* spec = doc.model().find(block.toStdString());
    const std::optional<core::BlockDescription> b = spec ? doc.describe(*spec) : std::nullopt;
    const core::ParamDesc* d = b ? b->param(key.toStdString()) : nullptr;
    return d && d->type == core::ParamType::Real && d->tunable && std::holds_alternative<double>(b->values.at(d->key));
}

bool TuningPanel::pin(const QString& block, const QString& key) {
    if (TuningRow* existing = row(block, key)) {
        existing->spinBox()->setFocus();
        return true;
    }
    if (block.isEmpty()) return pinParameter(key);
    const core::model::BlockSpec* spec = m_doc.model().find(block.toStdString());
    const std::optional<core::BlockDescription> b = spec ? m_doc.describe(*spec) : std::nullopt;
    const core::ParamDesc* d = b ? b->param(key.toStdString()) : nullptr;
    if (!tunable(m_doc, block, key) || !d) {
        Q_EMIT statusMessage(tr("%1.%2 is not a numeric parameter that can be tuned").arg(block, key));
        return false;
    }
    core::Unit unit = d->unit;
    if (const auto shown = spec->ui.displayUnits.find(d->key); shown != spec->ui.displayUnits.end()) {
        try {
            unit = core::Unit::parse(shown->second);
        } catch (const core::UnitError&) {}
    }
    addRow(new TuningRow(block, *d, unit, std::get<double>(b->values.at(d->key)), this));
    return true;
}

bool TuningPanel::pinParameter(const QString& name) {
    if (!tunable(m_doc, {}, name)) {
        Q_EMIT statusMessage(
            tr("Parameter %1 cannot be tuned: its value must be a number with a unit, e.g. 1e4 N/m").arg(name));
        return false;
    }
    const core::io::ParamTarget target = core::io::findParameter(m_doc.model(), m_doc.registry(), name.toStdString());
    addRow(new TuningRow({}, target.desc, target.desc.unit, *parameterValue(m_doc.model(), target.key), this));
    return true;
}

void TuningPanel::addRow(TuningRow* r) {
    m_rows.push_back(r);
    m_rowsLayout->addWidget(r);
    connect(r, &TuningRow::tuned, this, [this, r](double v, bool first) { tuned(r, v, first); });
    connect(r, &TuningRow::committed, this, [this, r](double v) { committed(r, v); });
    connect(r, &TuningRow::removeRequested, this, [this, r] { unpin(r); });
    updateHint();
    Q_EMIT pinned();
}

void TuningPanel::unpin(TuningRow* row) {
    std::erase(m_rows, row);
    row->deleteLater();
    updateHint();
}

TuningRow* TuningPanel::row(const QString& block, const QString& key) const {
    for (TuningRow* r : m_rows)
        if (r->block() == block && r->key() == key) return r;
    return nullptr;
}

void TuningPanel::tuned(TuningRow* row, double siValue, bool firstOfGesture) {
    if (const std::string why = row->desc().rangeError(siValue); !why.empty()) {
        row->setError(QString::fromStdString(why));
        Q_EMIT statusMessage(tr("%1 %2").arg(row->target(), QString::fromStdString(why)));
        return;
    }
    row->setError({});
    core::model::Model model = m_doc.model();
    try {
        model.apply(edit(row, siValue));
    } catch (const std::exception& e) {
        Q_EMIT statusMessage(QString::fromStdString(e.what()));
        return;
    }
    const QString label = QStringLiteral("%1 = %2 %3")
                              .arg(row->target(), QString::number(row->unit().fromSI(siValue), 'g', 4),
                                   QString::fromStdString(row->unit().symbol))
                              .trimmed();
    m_runs.runModel(model, label, !firstOfGesture);
}

core::model::Edit TuningPanel::edit(const TuningRow* row, double siValue) const {
    return core::io::setValue({row->block().toStdString(), row->key().toStdString(), row->desc()}, siValue);
}

void TuningPanel::committed(TuningRow* row, double siValue) {
    if (!row->desc().rangeError(siValue).empty()) return;
    if (row->block().isEmpty()) {
        if (parameterValue(m_doc.model(), row->key().toStdString()) == siValue) return;
        if (const auto error = m_doc.apply(edit(row, siValue), tr("Tune %1").arg(row->target())))
            Q_EMIT statusMessage(*error);
        return;
    }
    const core::model::BlockSpec* spec = m_doc.model().find(row->block().toStdString());
    if (!spec) return;
    const auto current = m_doc.currentParams(*spec);
    if (const auto it = current.find(row->key().toStdString());
        it != current.end() && it->second == core::ParamValue(siValue))
        return;
    const auto error =
        m_doc.apply(core::model::SetParameter{row->block().toStdString(), row->key().toStdString(), siValue},
                    tr("Tune %1").arg(row->target()));
    if (error) Q_EMIT statusMessage(*error);
}

void TuningPanel::reload(const QString& block) {
    const core::model::BlockSpec* spec = m_doc.model().find(block.toStdString());
    const std::optional<core::BlockDescription> b = spec ? m_doc.describe(*spec) : std::nullopt;
    if (!b) return;
    for (TuningRow* r : m_rows) {
        if (r->block() != block || r->sliderDown()) continue;
        const auto it = b->values.find(r->key().toStdString());
        if (it != b->values.end() && std::holds_alternative<double>(it->second))
            r->setValue(std::get<double>(it->second));
    }
}

void TuningPanel::reloadParameter(const QString& name) {
    const std::vector<TuningRow*> rows = m_rows;
    for (TuningRow* r : rows) {
        if (!r->block().isEmpty() || r->key() != name || r->sliderDown()) continue;
        if (!m_doc.model().findParameter(name.toStdString()))
            unpin(r);   // removed or renamed
        else if (const auto v = parameterValue(m_doc.model(), name.toStdString()))
            r->setValue(*v);
    }
}

void TuningPanel::renamed(const QString& from, const QString& to) {
    for (TuningRow* r : m_rows)
        if (r->block() == from) r->setBlock(to);
}

void TuningPanel::removed(const QString& block) {
    const std::vector<TuningRow*> rows = m_rows;
    for (TuningRow* r : rows)
        if (r->block() == block) unpin(r);
}

void TuningPanel::clear() {
    const std::vector<TuningRow*> rows = m_rows;
    for (TuningRow* r : rows) unpin(r);
}

void TuningPanel::updateHint() { m_hint->setVisible(m_rows.empty()); }

}   // namespace endstop::gui
