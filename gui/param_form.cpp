// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/param_form.hpp"
#include "gui/param_form_field.hpp"

#include "core/io/project_file.hpp"
#include "core/model/errors.hpp"
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

#include <cctype>
#include <cmath>
#include <functional>
#include <map>

namespace endstop::gui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }

// Calls back when the watched widget is resized.
class ResizeWatcher : public QObject {
public:
    ResizeWatcher(QWidget* watched, std::function<void()> onResize) : QObject(watched), m_onResize(std::move(onResize)) {
        watched->installEventFilter(this);
    }
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Resize) m_onResize();
        return QObject::eventFilter(watched, event);
    }

private:
    std::function<void()> m_onResize;
};

bool startsWithNumber(const std::string& text) {
    std::size_t i = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
    if (i < text.size() && text[i] == '.') ++i;
    return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
}

QString describeRange(const core::ParamDesc& d) {
    QStringList parts;
    const QString u = d.unit.symbol.empty() ? QString() : QStringLiteral(" ") + qs(core::Unit::si(d.unit.dimension).display());
    if (std::isfinite(d.min)) parts << QStringLiteral("%1 %2%3").arg(d.minExclusive ? ">" : "\u2265", qs(core::formatNumber(d.min)), u);
    if (std::isfinite(d.max)) parts << QStringLiteral("%1 %2%3").arg(d.maxExclusive ? "<" : "\u2264", qs(core::formatNumber(d.max)), u);
    return parts.join(QStringLiteral(", "));
}
}  // namespace


ParamForm::ParamForm(const Document& doc, const QString& block, Mode mode, QWidget* parent)
    : QWidget(parent), m_doc(doc), m_block(block), m_mode(mode) {
    build();
}

ParamForm::~ParamForm() = default;

void ParamForm::build() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_ports = new QLabel(this);
    m_ports->setWordWrap(true);
    m_general = new QLabel(this);
    m_general->setWordWrap(true);
    m_general->setStyleSheet(QStringLiteral("color: #c62828"));
    const core::BlockSpec* spec = m_doc.model().find(m_block.toStdString());
    const std::optional<core::BlockDescription> blk = spec ? m_doc.describe(*spec) : std::nullopt;
    if (!blk) {
        outer->addWidget(new QLabel(tr("Unknown block type: its parameters cannot be edited."), this));
        return;
    }
    m_spec = *spec;
    m_values = blk->values;
    if (blk->params.empty()) outer->addWidget(new QLabel(tr("This block has no parameters."), this));
    else outer->addWidget(buildGroups(*blk));
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
    if (m_tabs) m_tabs->tabBar()->setVisible(order.size() > 1);
    else static_cast<QVBoxLayout*>(container->layout())->addStretch(1);
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
    if (stacked) grid->addWidget(f.label, row, 0, 1, 3);
    else grid->addWidget(f.label, row, 0);
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
    if (const double* x = std::get_if<double>(&v)) f.line->setText(number(*x));
    else if (const auto* xs = std::get_if<std::vector<double>>(&v)) {
        QStringList items;
        for (double e : *xs) items << number(e);
        f.line->setText(QStringLiteral("[") + items.join(QLatin1Char(' ')) + QStringLiteral("]"));
    } else f.line->setText(qs(std::get<std::string>(v)));
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
            if (q.unit || d.anyDimension) si = std::get<double>(core::io::parseParameterText(text, d));
            else si = core::checkedSI(text, shown.toSI(q.value));
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
    if (ok) show(f);            // the same quantity in the new unit
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
        const core::BlockDescription blk = m_doc.registry().describe(m_spec.type, m_values);
        for (const core::Diagnostic& dg : blk.diagnostics) {
            Field* target = nullptr;
            for (auto& f : m_fields)
                if (f->desc.key == dg.param && f->visible) target = f.get();
            if (!target) { general << qs(dg.message); continue; }
            target->crossError += (target->crossError.isEmpty() ? QString() : QStringLiteral("; ")) + qs(dg.message);
            target->crossIsWarning = dg.severity != core::Severity::Error;
        }
        QStringList ports;
        for (std::size_t i = 0; i < blk.ports.size(); ++i)
            if (blk.portPresent[i]) ports << qs(blk.ports[i].name);
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
            if (shown) f->resolved->setText(QStringLiteral("= %1 %2").arg(QString::number(u.fromSI(*si), 'g', 6), qs(u.symbol)).trimmed());
            f->resolved->setVisible(shown);
        }
        f->label->setVisible(f->visible);
        QWidget* ed = f->choice ? static_cast<QWidget*>(f->choice) : f->line;
        ed->setVisible(f->visible);
        ed->setStyleSheet(f->visible && !msg.isEmpty() && !warn ? QStringLiteral("border: 1px solid #c62828") : QString());
        if (f->unit) f->unit->setVisible(f->visible);
        updateChoiceNote(*f);
    }
    // a group whose every field is hidden by the current choices disappears as a whole
    std::map<QWidget*, bool> used;
    for (const auto& f : m_fields) used[f->page] = used[f->page] || f->visible;
    for (const auto& [page, any] : used) {
        if (m_tabs) m_tabs->setTabVisible(m_tabs->indexOf(page), any);
        else page->setVisible(any);
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

std::optional<core::EditBatch> ParamForm::edits() {
    for (auto& f : m_fields)
        if (f->line && f->visible) parse(*f);
    revalidate();
    if (!valid()) return std::nullopt;
    core::EditBatch batch{{}, "parameters"};
    const std::string name = m_block.toStdString();
    for (const auto& f : m_fields) {
        const auto expr = m_exprs.find(f->desc.key);
        const core::ParamValue now = expr != m_exprs.end() ? core::ParamValue(expr->second) : m_values.at(f->desc.key);
        const auto stored = m_spec.params.find(f->desc.key);
        const core::ParamValue& before = stored != m_spec.params.end() ? stored->second : f->desc.defaultValue;
        if (now != before) batch.edits.emplace_back(core::SetParameter{name, f->desc.key, now});
    }
    core::BlockUi ui = m_spec.ui;
    for (const auto& f : m_fields) {
        if (!f->unit) continue;
        if (f->shownUnit.toStdString() == f->desc.unit.symbol) ui.displayUnits.erase(f->desc.key);
        else ui.displayUnits[f->desc.key] = f->shownUnit.toStdString();
    }
    if (ui != m_spec.ui) batch.edits.emplace_back(core::SetBlockUi{name, ui});
    // wires on ports the new values remove go in the same step, so undo brings them back
    if (m_doc.registry().find(m_spec.type)) {
        const core::BlockDescription blk = m_doc.registry().describe(m_spec.type, m_values);
        for (const core::Connection& c : m_doc.model().connectionsOf(name))
            for (const core::PortRef& p : {c.a, c.b})
                if (p.block == name && blk.portIndex(p.port) < 0) {
                    batch.edits.emplace_back(core::Disconnect{c});
                    break;
                }
    }
    return batch;
}

void ParamForm::reload() {
    const core::BlockSpec* spec = m_doc.model().find(m_block.toStdString());
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

}  // namespace endstop::gui
