// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/param_dialog.hpp"

#include "core/expr/expression.hpp"
#include "core/model/flatten.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"
#include "gui/help_text.hpp"
#include "gui/param_form.hpp"

#include <QDialogButtonBox>
#include <QGridLayout>
#include <QLineEdit>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace endstop::gui {

namespace {
const core::model::Model& levelOf(const Document& doc, const QString& definition) {
    const core::model::SubsystemDef* def =
        definition.isEmpty() ? nullptr : doc.model().findSubsystem(definition.toStdString());
    return def ? def->body : doc.model();
}
}   // namespace

ParamDialog::ParamDialog(Document& doc, const QString& block, QWidget* parent)
    : ParamDialog(doc, QString(), block, parent) {}

ParamDialog::ParamDialog(DiagramScene& scene, const QString& block, QWidget* parent)
    : ParamDialog(scene.document(), scene.levelDefinition(), block, parent) {}

ParamDialog::~ParamDialog() = default;

ParamDialog::ParamDialog(Document& doc, const QString& definition, const QString& block, QWidget* parent)
    : QDialog(parent),
      m_doc(doc),
      m_definition(definition),
      m_block(block),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Apply | QDialogButtonBox::Cancel, this)),
      m_message(new QLabel(this)) {
    const core::model::BlockSpec* spec = levelOf(doc, definition).find(block.toStdString());
    const core::BlockType* type = spec ? doc.registry().find(spec->type) : nullptr;
    const std::string_view sub = spec ? core::model::subsystemOf(spec->type) : std::string_view();
    QString title = type ? QString::fromStdString(type->info.title) : QString::fromStdString(spec ? spec->type : "");
    QString help = type ? QString::fromStdString(type->info.help) : QString();
    if (!sub.empty()) {
        title = tr("Subsystem %1").arg(QString::fromUtf8(sub.data(), static_cast<qsizetype>(sub.size())));
        help =
            tr("The mask of this instance: empty fields take the definition's default. A value may be an expression of "
               "the model's parameters (\"2*k_base\", \"5 mm\").");
    }
    setWindowTitle(tr("%1 \u2014 %2").arg(block, title));
    auto* layout = new QVBoxLayout(this);
    auto* header = new QLabel(blockHelpHtml(title, spec ? QString::fromStdString(spec->type) : QString(), help), this);
    header->setObjectName(QStringLiteral("blockHelp"));
    header->setTextFormat(Qt::RichText);
    header->setWordWrap(true);
    layout->addWidget(header);
    if (!sub.empty()) {
        buildMask(layout);
    } else {
        if (!definition.isEmpty()) {
            m_scratch = std::make_unique<Document>(doc.registry());
            reloadScratch();
        }
        m_form = new ParamForm(m_scratch ? *m_scratch : doc, block, ParamForm::Mode::Dialog, this);
        layout->addWidget(m_form, 1);
        connect(m_form, &ParamForm::changed, this, [this] {
            if (m_form->valid()) m_message->setVisible(false);
        });
    }
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #c62828"));
    m_message->setVisible(false);
    layout->addWidget(m_message);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ParamDialog::accept);
    connect(m_buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this, &ParamDialog::apply);
    setMinimumWidth(420);
}

// the body as a model of its own, with the model's parameters (their expressions evaluate)
void ParamDialog::reloadScratch() {
    core::model::Model body = levelOf(m_doc, m_definition);
    for (const core::model::ParameterDef& p : m_doc.model().parameters())
        if (!body.findParameter(p.name)) body.apply(core::model::SetModelParameter{p.name, p.value});
    m_scratch->reset(std::move(body), QString());
}

void ParamDialog::buildMask(QVBoxLayout* layout) {
    const core::model::Model& level = levelOf(m_doc, m_definition);
    const core::model::BlockSpec* spec = level.find(m_block.toStdString());
    const core::model::SubsystemDef* def = m_doc.model().findSubsystem(core::model::subsystemOf(spec->type));
    auto* grid = new QGridLayout;
    int row = 0;
    for (const core::ParamDesc& d :
         def ? core::model::subsystemParams(m_doc.model(), *def) : std::vector<core::ParamDesc>{}) {
        const QString key = QString::fromStdString(d.key);
        auto* edit = new QLineEdit(this);
        edit->setObjectName(QStringLiteral("mask_") + key);
        edit->setPlaceholderText(tr("default: %1").arg(QString::fromStdString(core::toString(d.defaultValue))));
        if (auto it = spec->params.find(d.key); it != spec->params.end()) {
            const double* v = std::get_if<double>(&it->second);
            edit->setText(v ? QString::number(*v, 'g', 12) : QString::fromStdString(core::toString(it->second)));
        }
        edit->setToolTip(QString::fromStdString(d.help));
        grid->addWidget(new QLabel(key, this), row, 0);
        grid->addWidget(edit, row, 1);
        grid->addWidget(new QLabel(d.unit.symbol.empty() ? QString() : QString::fromStdString(d.unit.symbol), this),
                        row, 2);
        m_mask.insert(key, edit);
        ++row;
    }
    if (row == 0) grid->addWidget(new QLabel(tr("This subsystem has no parameters."), this), 0, 0);
    layout->addLayout(grid);
    layout->addStretch(1);
}

bool ParamDialog::applyMask() {
    const core::model::BlockSpec* spec = levelOf(m_doc, m_definition).find(m_block.toStdString());
    if (!spec) return false;
    core::model::EditBatch batch{{}, "mask"};
    for (auto it = m_mask.cbegin(); it != m_mask.cend(); ++it) {
        const QString text = it.value()->text().trimmed();
        std::optional<core::ParamValue> value;
        bool number = false;
        const double v = text.toDouble(&number);
        if (number)
            value = v;
        else if (!text.isEmpty()) {
            try {
                (void)core::expr::Expression::parse(text.toStdString());
            } catch (const core::expr::ExprError& e) {
                m_message->setText(tr("%1: %2").arg(it.key(), QString::fromUtf8(e.what())));
                m_message->setVisible(true);
                return false;
            }
            value = text.toStdString();
        }
        const auto old = spec->params.find(it.key().toStdString());
        const std::optional<core::ParamValue> was =
            old == spec->params.end() ? std::nullopt : std::optional(old->second);
        if (was != value)
            batch.edits.emplace_back(core::model::SetParameter{m_block.toStdString(), it.key().toStdString(), value});
    }
    if (batch.edits.empty()) return true;
    core::model::Edit edit = batch;
    if (!m_definition.isEmpty()) edit = core::model::InSubsystem{m_definition.toStdString(), {edit}};
    if (const auto error = m_doc.apply(edit, tr("Edit parameters of %1").arg(m_block))) {
        m_message->setText(*error);
        m_message->setVisible(true);
        return false;
    }
    return true;
}

bool ParamDialog::apply() {
    if (!m_form) return applyMask();
    const auto batch = m_form->edits();
    if (!batch) {
        m_message->setText(tr("Some entries are invalid; the reasons are shown next to the fields."));
        m_message->setVisible(true);
        return false;
    }
    m_message->setVisible(false);
    if (batch->edits.empty()) return true;
    core::model::Edit edit = *batch;
    if (!m_definition.isEmpty()) edit = core::model::InSubsystem{m_definition.toStdString(), {edit}};
    if (const auto error = m_doc.apply(edit, tr("Edit parameters of %1").arg(m_block))) {
        m_message->setText(*error);
        m_message->setVisible(true);
        return false;
    }
    if (m_scratch) reloadScratch();
    m_form->reload();
    return true;
}

void ParamDialog::accept() {
    if (apply()) QDialog::accept();
}

}   // namespace endstop::gui
