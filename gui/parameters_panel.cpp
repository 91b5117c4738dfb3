// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/parameters_panel.hpp"

#include "core/units/unit.hpp"
#include "gui/document.hpp"
#include "gui/parameter_model.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QMenu>
#include <QMessageBox>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace endstop::gui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QToolButton* button(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

int countEdits(const std::vector<core::model::Edit>& edits) {
    int n = 0;
    for (const core::model::Edit& e : edits)
        if (const auto* in = std::get_if<core::model::InSubsystem>(&e.value))
            n += countEdits(in->edit);
        else
            ++n;
    return n;
}

}   // namespace

ParametersPanel::ParametersPanel(Document& doc, QWidget* parent)
    : QWidget(parent),
      m_doc(doc),
      m_table(new QTableWidget(0, 4, this)),
      m_add(button(tr("Add"), tr("Add a model parameter"), this)),
      m_remove(button(tr("Remove"), tr("Remove the selected parameter (its uses then report an unknown name)"), this)),
      m_tune(button(tr("Tune"), tr("Pin the selected parameter as a slider in the Tuning panel"), this)) {
    m_table->setObjectName("parametersTable");
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Value"), tr("Dimension"), tr("Resolved value")});
    m_table->horizontalHeaderItem(ValueColumn)
        ->setToolTip(tr("An expression: \"1e4 N/m\", \"2*k_base\", \"gap + 1 mm\""));
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);   // compact rows
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                             QAbstractItemView::AnyKeyPressed);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_add->setObjectName("addParameter");
    m_remove->setObjectName("removeParameter");
    m_tune->setObjectName("tuneParameter");

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(2, 2, 2, 0);
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addWidget(m_tune);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(buttons);
    layout->addWidget(m_table);

    connect(m_add, &QToolButton::clicked, this, [this] {
        const QString name = add();
        if (const int row = rowOf(name); row >= 0) m_table->editItem(m_table->item(row, ValueColumn));
    });
    connect(m_remove, &QToolButton::clicked, this, [this] { remove(selectedName()); });
    connect(m_tune, &QToolButton::clicked, this, [this] {
        if (!selectedName().isEmpty()) Q_EMIT tuneRequested(selectedName());
    });
    connect(m_table, &QTableWidget::itemChanged, this, &ParametersPanel::itemEdited);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &ParametersPanel::updateButtons);
    connect(m_table, &QWidget::customContextMenuRequested, this, &ParametersPanel::showMenu);
    connect(&doc, &Document::parametersChanged, this, &ParametersPanel::rebuild);
    connect(&doc, &Document::modelReset, this, &ParametersPanel::rebuild);
    rebuild();
}

int ParametersPanel::rowOf(const QString& name) const {
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (m_table->item(r, NameColumn)->data(Qt::UserRole).toString() == name) return r;
    return -1;
}

QString ParametersPanel::selectedName() const {
    const QList<QTableWidgetItem*> sel = m_table->selectedItems();
    return sel.isEmpty() ? QString() : m_table->item(sel.front()->row(), NameColumn)->data(Qt::UserRole).toString();
}

void ParametersPanel::rebuild() {
    const QString selected = selectedName();
    m_rebuilding = true;
    const auto& defs = m_doc.model().parameters();
    m_table->setRowCount(static_cast<int>(defs.size()));
    for (std::size_t i = 0; i < defs.size(); ++i) fillRow(static_cast<int>(i), qs(defs[i].name), qs(defs[i].value));
    const std::vector<Resolution> rs = resolveParameters(m_doc.model());
    for (std::size_t i = 0; i < rs.size(); ++i) {
        const int row = static_cast<int>(i);
        QTableWidgetItem* dim = m_table->item(row, DimensionColumn);
        QTableWidgetItem* resolved = m_table->item(row, ResolvedColumn);
        if (rs[i].value) {
            const std::string unit = core::Unit::si(rs[i].value->dim).display();
            dim->setText(rs[i].value->dim.dimensionless() ? QStringLiteral("\u2013") : qs(unit));
            dim->setToolTip(qs(rs[i].value->dim.toString()));
            // six significant digits fit the column; the tooltip has every digit
            const QString suffix = rs[i].value->dim.dimensionless() ? QString() : " " + qs(unit);
            resolved->setText(QString::number(rs[i].value->si, 'g', 6) + suffix);
            resolved->setForeground(palette().text());
            resolved->setToolTip(qs(core::formatNumber(rs[i].value->si)) + suffix);
        } else {
            dim->setText({});
            resolved->setText(qs(rs[i].error));
            resolved->setForeground(QColor(0xc6, 0x28, 0x28));
            resolved->setToolTip(qs(rs[i].error));
        }
    }
    if (const int row = rowOf(selected); row >= 0) m_table->selectRow(row);
    for (int c : {NameColumn, ValueColumn, DimensionColumn}) m_table->resizeColumnToContents(c);
    m_rebuilding = false;
    updateButtons();
}

void ParametersPanel::fillRow(int row, const QString& name, const QString& value) {
    for (int c = 0; c < 4; ++c)
        if (!m_table->item(row, c)) m_table->setItem(row, c, new QTableWidgetItem);
    QTableWidgetItem* n = m_table->item(row, NameColumn);
    n->setText(name);
    n->setData(Qt::UserRole, name);
    m_table->item(row, ValueColumn)->setText(value);
    m_table->item(row, ValueColumn)->setToolTip(value);
    for (int c : {DimensionColumn, ResolvedColumn})
        m_table->item(row, c)->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
}

void ParametersPanel::itemEdited(QTableWidgetItem* item) {
    if (m_rebuilding) return;
    const QString name = m_table->item(item->row(), NameColumn)->data(Qt::UserRole).toString();
    const QString text = item->text().trimmed();
    if (item->column() == NameColumn && text != name) {
        // after the editor has closed: the question box must not run inside the view's commit
        QTimer::singleShot(0, this, [this, name, text] {
            if (!rename(name, text)) rebuild();   // the model's name back
        });
    } else if (item->column() == ValueColumn && !setValue(name, text)) {
        rebuild();
    }
}

bool ParametersPanel::applyEdit(const core::model::Edit& edit, const QString& label) {
    if (const auto error = m_doc.apply(edit, label)) {
        Q_EMIT statusMessage(*error);
        return false;
    }
    return true;
}

QString ParametersPanel::add() {
    int n = 1;
    while (m_doc.model().findParameter("p" + std::to_string(n))) ++n;
    const QString name = QStringLiteral("p%1").arg(n);
    if (!applyEdit(core::model::SetModelParameter{name.toStdString(), std::string("1")},
                   tr("Add parameter %1").arg(name)))
        return {};
    m_table->selectRow(rowOf(name));
    return name;
}

bool ParametersPanel::remove(const QString& name) {
    if (name.isEmpty() || !m_doc.model().findParameter(name.toStdString())) return false;
    return applyEdit(core::model::SetModelParameter{name.toStdString(), std::nullopt},
                     tr("Remove parameter %1").arg(name));
}

bool ParametersPanel::setValue(const QString& name, const QString& text) {
    const core::model::ParameterDef* def = m_doc.model().findParameter(name.toStdString());
    if (!def) return false;
    if (text.isEmpty()) {
        Q_EMIT statusMessage(tr("Parameter %1 needs a value (\"1e4 N/m\", \"2*k_base\")").arg(name));
        return false;
    }
    if (def->value == text.toStdString()) return true;
    return applyEdit(core::model::SetModelParameter{name.toStdString(), text.toStdString()},
                     tr("Set parameter %1").arg(name));
}

bool ParametersPanel::rename(const QString& from, const QString& to) {
    const core::model::Model& model = m_doc.model();
    const std::string f = from.toStdString(), t = to.toStdString();
    if (!core::model::Model::validName(t)) {
        Q_EMIT statusMessage(tr("'%1' is not a valid name: letters, digits and _, not starting with a digit").arg(to));
        return false;
    }
    if (model.findParameter(t)) {
        Q_EMIT statusMessage(tr("A parameter named %1 already exists").arg(to));
        return false;
    }
    const int uses = countEdits(renameUses(model, m_doc.registry(), f, t));
    bool withUses = false;
    if (uses > 0) {
        const auto answer = QMessageBox::question(
            this, tr("Rename Parameter"),
            uses == 1 ? tr("%1 is used once. Update the use to %2?").arg(from, to)
                      : tr("%1 is used %2 times. Update the %2 uses to %3?").arg(from).arg(uses).arg(to),
            QMessageBox::Yes | QMessageBox::No | QMessageBox::Cancel, QMessageBox::Yes);
        if (answer == QMessageBox::Cancel) return false;
        withUses = answer == QMessageBox::Yes;
    }
    return applyEdit(renameParameter(model, m_doc.registry(), f, t, withUses),
                     tr("Rename parameter %1 to %2").arg(from, to));
}

void ParametersPanel::showMenu(const QPoint& pos) {
    QMenu menu(this);
    menu.addAction(tr("Add"), this, [this] { add(); });
    if (QTableWidgetItem* item = m_table->itemAt(pos)) {
        const QString name = m_table->item(item->row(), NameColumn)->data(Qt::UserRole).toString();
        menu.addAction(tr("Tune %1").arg(name), this, [this, name] { Q_EMIT tuneRequested(name); });
        menu.addAction(tr("Rename"), this, [this, item] { m_table->editItem(m_table->item(item->row(), NameColumn)); });
        menu.addAction(tr("Remove %1").arg(name), this, [this, name] { remove(name); });
    }
    menu.exec(m_table->viewport()->mapToGlobal(pos));
}

void ParametersPanel::updateButtons() {
    const bool any = !selectedName().isEmpty();
    m_remove->setEnabled(any);
    m_tune->setEnabled(any);
}

}   // namespace endstop::gui
