// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/param_dialog.hpp"

#include "gui/document.hpp"
#include "gui/help_text.hpp"
#include "gui/param_form.hpp"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace endstop::gui {

ParamDialog::ParamDialog(Document& doc, const QString& block, QWidget* parent)
    : QDialog(parent), m_doc(doc), m_block(block), m_form(new ParamForm(doc, block, ParamForm::Mode::Dialog, this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Apply | QDialogButtonBox::Cancel, this)),
      m_message(new QLabel(this)) {
    const core::BlockSpec* spec = doc.model().find(block.toStdString());
    const core::BlockType* type = spec ? doc.registry().find(spec->type) : nullptr;
    const QString title = type ? QString::fromStdString(type->info.title) : QString::fromStdString(spec ? spec->type : "");
    setWindowTitle(tr("%1 \u2014 %2").arg(block, title));
    auto* layout = new QVBoxLayout(this);
    auto* header = new QLabel(blockHelpHtml(title, spec ? QString::fromStdString(spec->type) : QString(),
                                            type ? QString::fromStdString(type->info.help) : QString()),
                              this);
    header->setObjectName(QStringLiteral("blockHelp"));
    header->setTextFormat(Qt::RichText);
    header->setWordWrap(true);
    layout->addWidget(header);
    layout->addWidget(m_form, 1);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #c62828"));
    m_message->setVisible(false);
    layout->addWidget(m_message);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ParamDialog::accept);
    connect(m_buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this, &ParamDialog::apply);
    connect(m_form, &ParamForm::changed, this, [this] {
        if (m_form->valid()) m_message->setVisible(false);
    });
    setMinimumWidth(420);
}

bool ParamDialog::apply() {
    const auto batch = m_form->edits();
    if (!batch) {
        m_message->setText(tr("Some entries are invalid; the reasons are shown next to the fields."));
        m_message->setVisible(true);
        return false;
    }
    m_message->setVisible(false);
    if (batch->edits.empty()) return true;
    if (const auto error = m_doc.apply(*batch, tr("Edit parameters of %1").arg(m_block))) {
        m_message->setText(*error);
        m_message->setVisible(true);
        return false;
    }
    m_form->reload();
    return true;
}

void ParamDialog::accept() {
    if (apply()) QDialog::accept();
}

}  // namespace endstop::gui
