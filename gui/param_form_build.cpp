// SPDX-License-Identifier: GPL-3.0-or-later
// ParamForm's widgets (gui/param_form.hpp): the groups as tabs or boxes, and each row's label, editor,
// unit drop-down, choice note and error and resolved-value labels.
#include "gui/param_form.hpp"
#include "gui/param_form_field.hpp"

#include "core/errors.hpp"
#include "gui/document.hpp"
#include "gui/expression_completer.hpp"

#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QTabBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace endstop::gui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }

// Calls back when the watched widget is resized.
class ResizeWatcher : public QObject {
public:
    ResizeWatcher(QWidget* watched, std::function<void()> onResize)
        : QObject(watched), m_onResize(std::move(onResize)) {
        watched->installEventFilter(this);
    }
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Resize) m_onResize();
        return QObject::eventFilter(watched, event);
    }

private:
    std::function<void()> m_onResize;
};

QString describeRange(const core::ParamDesc& d) {
    QStringList parts;
    const QString u =
        d.unit.symbol.empty() ? QString() : QStringLiteral(" ") + qs(core::Unit::si(d.unit.dimension).display());
    if (std::isfinite(d.min))
        parts << QStringLiteral("%1 %2%3").arg(d.minExclusive ? ">" : "\u2265", qs(core::formatNumber(d.min)), u);
    if (std::isfinite(d.max))
        parts << QStringLiteral("%1 %2%3").arg(d.maxExclusive ? "<" : "\u2264", qs(core::formatNumber(d.max)), u);
    return parts.join(QStringLiteral(", "));
}
}   // namespace

void ParamForm::build() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_ports = new QLabel(this);
    m_ports->setWordWrap(true);
    m_general = new QLabel(this);
    m_general->setWordWrap(true);
    m_general->setStyleSheet(QStringLiteral("color: #c62828"));
    const core::model::BlockSpec* spec = m_doc.model().find(m_block.toStdString());
    const std::optional<core::BlockDescription> blk = spec ? m_doc.describe(*spec) : std::nullopt;
    if (!blk) {
        outer->addWidget(new QLabel(tr("Unknown block type: its parameters cannot be edited."), this));
        return;
    }
    m_spec = *spec;
    m_values = blk->values;
    if (blk->params.empty())
        outer->addWidget(new QLabel(tr("This block has no parameters."), this));
    else
        outer->addWidget(buildGroups(*blk));
    outer->addWidget(m_ports);
    outer->addWidget(m_general);
    loadExpressions();
    for (auto& f : m_fields) show(*f);
    revalidate();
    connect(&m_doc, &Document::parametersChanged, this, &ParamForm::parametersChanged);
}

// the dialog shows groups as tabs; the narrow property panel stacks them as group boxes
QWidget* ParamForm::buildGroups(const core::BlockDescription& blk) {
    QWidget* container = nullptr;
    if (m_mode == Mode::Dialog) {
        m_tabs = new QTabWidget(this);
        m_tabs->setDocumentMode(true);
        container = m_tabs;
    } else {
        container = new QWidget(this);
        new QVBoxLayout(container);
        container->layout()->setContentsMargins(0, 0, 0, 0);
    }
    std::map<std::string, QWidget*> pages;
    std::vector<std::string> order;
    for (const core::ParamDesc& d : blk.params) {
        if (!pages.count(d.group)) {
            QWidget* page = m_tabs ? new QWidget(container) : new QGroupBox(qs(d.group), container);
            auto* grid = new QGridLayout(page);
            grid->setColumnStretch(1, 1);
            grid->setVerticalSpacing(3);
            pages[d.group] = page;
            order.push_back(d.group);
        }
        auto f = std::make_unique<Field>();
        f->desc = d;
        f->page = pages[d.group];
        addRow(*f, pages[d.group]);
        m_fields.push_back(std::move(f));
    }
    for (const std::string& g : order) {
        auto* grid = static_cast<QGridLayout*>(pages[g]->layout());
        if (m_tabs) {
            grid->setRowStretch(grid->rowCount(), 1);
            m_tabs->addTab(pages[g], qs(g));
        } else {
            container->layout()->addWidget(pages[g]);
        }
    }
    if (m_tabs)
        m_tabs->tabBar()->setVisible(order.size() > 1);
    else
        static_cast<QVBoxLayout*>(container->layout())->addStretch(1);
    return container;
}

void ParamForm::addRow(Field& f, QWidget* page) {
    auto* grid = static_cast<QGridLayout*>(page->layout());
    const int row = grid->rowCount();
    const core::ParamDesc& d = f.desc;
    QString tip = QStringLiteral("<b>%1</b> <i>(%2)</i>").arg(qs(d.label).toHtmlEscaped(), qs(d.key).toHtmlEscaped());
    if (!d.help.empty()) tip += QStringLiteral("<br>") + qs(d.help).toHtmlEscaped();
    if (const QString r = describeRange(d); !r.isEmpty()) tip += QStringLiteral("<br>Allowed: ") + r.toHtmlEscaped();
    f.label = new QLabel(qs(d.label), page);
    f.label->setToolTip(tip);
    // the narrow Properties dock puts each label above its field, so choices and units fit
    const bool stacked = m_mode == Mode::Inline;
    int fieldRow = stacked ? row + 1 : row;
    const int fieldColumn = stacked ? 0 : 1;
    if (stacked)
        grid->addWidget(f.label, row, 0, 1, 3);
    else
        grid->addWidget(f.label, row, 0);
    QWidget* editor = nullptr;
    if (d.type == core::ParamType::Choice) {
        f.choice = new QComboBox(page);
        for (const core::ChoiceOption& o : d.choices) {
            f.choice->addItem(qs(o.label), qs(o.key));
            f.choice->setItemData(f.choice->count() - 1, qs(o.label), Qt::ToolTipRole);
        }
        f.choice->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        connect(f.choice, &QComboBox::currentIndexChanged, this, [this, &f] {
            onEdited(f);
            if (m_mode == Mode::Inline) Q_EMIT commitRequested();
        });
        editor = f.choice;
    } else {
        f.line = new QLineEdit(page);
        if (d.type == core::ParamType::Vector) f.line->setPlaceholderText(QStringLiteral("[0 0.01 0.02]"));
        connect(f.line, &QLineEdit::textEdited, this, [this, &f] { onEdited(f); });
        if (d.type == core::ParamType::Real) f.completer = new ExpressionCompleter(f.line);
        connect(f.line, &QLineEdit::editingFinished, this, [this] {
            if (m_mode == Mode::Inline) Q_EMIT commitRequested();
        });
        editor = f.line;
    }
    editor->setObjectName(qs(d.key));
    editor->setMinimumWidth(70);
    editor->setToolTip(tip);
    grid->addWidget(editor, fieldRow, fieldColumn, 1, stacked && !f.choice ? 2 : (stacked ? 3 : 1));
    addUnitBox(f, grid, fieldRow);
    if (stacked && f.choice) addChoiceNote(f, grid, ++fieldRow);
    f.error = new QLabel(page);
    f.error->setWordWrap(true);
    f.error->setObjectName(qs(d.key) + QStringLiteral("_error"));
    f.error->setVisible(false);
    grid->addWidget(f.error, fieldRow + 1, fieldColumn, 1, stacked ? 3 : 2);
    if (d.type != core::ParamType::Real) return;
    f.resolved = new QLabel(page);
    f.resolved->setObjectName(qs(d.key) + QStringLiteral("_resolved"));
    f.resolved->setStyleSheet(QStringLiteral("color: #2e6b30"));
    f.resolved->setVisible(false);
    grid->addWidget(f.resolved, fieldRow + 2, fieldColumn, 1, stacked ? 3 : 2);
}

// A choice longer than the narrow dock's box is also written out, wrapped, under it.
void ParamForm::addChoiceNote(Field& f, QGridLayout* grid, int row) {
    f.choiceNote = new QLabel(grid->parentWidget());
    f.choiceNote->setObjectName(qs(f.desc.key) + QStringLiteral("_note"));
    f.choiceNote->setWordWrap(true);
    f.choiceNote->setStyleSheet(QStringLiteral("color: #555"));
    f.choiceNote->setVisible(false);
    grid->addWidget(f.choiceNote, row, 0, 1, 3);
    connect(f.choice, &QComboBox::currentIndexChanged, this, [this, &f] { updateChoiceNote(f); });
    new ResizeWatcher(f.choice, [this, &f] { updateChoiceNote(f); });
}

void ParamForm::updateChoiceNote(Field& f) {
    if (!f.choiceNote) return;
    const QString text = f.choice->currentText();
    const int room = f.choice->width() - 32;   // the arrow and the frame
    f.choiceNote->setText(text);
    f.choiceNote->setVisible(f.visible && f.choice->fontMetrics().horizontalAdvance(text) > room);
}

void ParamForm::addUnitBox(Field& f, QGridLayout* grid, int row) {
    const core::ParamDesc& d = f.desc;
    QWidget* page = grid->parentWidget();
    const bool quantity = (d.type == core::ParamType::Real || d.type == core::ParamType::Vector) && !d.anyDimension &&
                          !d.unit.dimension.dimensionless();
    if (quantity) {
        const auto saved = m_spec.ui.displayUnits.find(d.key);
        const std::string preferred = saved != m_spec.ui.displayUnits.end() ? saved->second : d.unit.symbol;
        try {
            f.units = core::compatibleUnits(d.unit.dimension, preferred);
        } catch (const core::UnitError&) {
            f.units = core::compatibleUnits(d.unit.dimension, d.unit.symbol);
        }
        f.unit = new QComboBox(page);
        f.unit->setSizeAdjustPolicy(QComboBox::AdjustToContents);   // "N*m*s/rad" whole
        for (const core::Unit& u : f.units) f.unit->addItem(qs(u.display()));
        f.shownUnit = qs(f.units.front().display());
        f.unit->setObjectName(qs(d.key) + QStringLiteral("_unit"));
        connect(f.unit, &QComboBox::currentIndexChanged, this, [this, &f](int i) {
            onUnitChanged(f, i);
            if (m_mode == Mode::Inline) Q_EMIT commitRequested();
        });
        grid->addWidget(f.unit, row, 2);
    } else if (!d.unit.symbol.empty() && !d.anyDimension) {
        grid->addWidget(new QLabel(qs(d.unit.display()), page), row, 2);
    }
}

}   // namespace endstop::gui
