// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/property_panel.hpp"

#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"
#include "gui/help_text.hpp"
#include "gui/param_form.hpp"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>

namespace endstop::gui {

PropertyPanel::PropertyPanel(Document& doc, DiagramScene& scene, QWidget* parent)
    : QWidget(parent), m_doc(doc), m_scene(scene), m_layout(new QVBoxLayout(this)) {
    m_layout->setContentsMargins(4, 4, 4, 4);
    connect(&scene, &QGraphicsScene::selectionChanged, this, &PropertyPanel::scheduleRebuild);
    connect(&scene, &DiagramScene::levelChanged, this, &PropertyPanel::scheduleRebuild);
    connect(&doc, &Document::modelReset, this, &PropertyPanel::scheduleRebuild);
    connect(&doc, &Document::blockRemoved, this, [this](const QString& n) {
        if (n == m_block || m_block.isEmpty()) scheduleRebuild();
    });
    // the summary counts blocks and connections: it follows every edit that changes them
    const auto recount = [this] {
        if (m_block.isEmpty()) scheduleRebuild();
    };
    connect(&doc, &Document::blockAdded, this, recount);
    connect(&doc, &Document::connectionAdded, this, recount);
    connect(&doc, &Document::connectionRemoved, this, recount);
    connect(&doc, &Document::blockRenamed, this, [this](const QString& from, const QString& to) {
        if (from != m_block) return;
        m_block = to;
        scheduleRebuild();
    });
    const auto reload = [this](const QString& n) {
        if (n == m_block && m_form && !m_applying) m_form->reload();
    };
    connect(&doc, &Document::blockParamsChanged, this, reload);
    connect(&doc, &Document::blockUiChanged, this, reload);
    rebuild();
}

void PropertyPanel::scheduleRebuild() {
    if (m_pending) return;
    m_pending = true;
    QTimer::singleShot(0, this, &PropertyPanel::rebuild);   // one rebuild per burst of signals
}

void PropertyPanel::rebuild() {
    m_pending = false;
    delete m_content;
    m_form = nullptr;
    m_name = nullptr;
    m_content = new QWidget(this);
    auto* layout = new QVBoxLayout(m_content);
    layout->setContentsMargins(0, 0, 0, 0);
    const QStringList selected = m_scene.selectedBlockNames();
    m_block = selected.size() == 1 ? selected.front() : QString();
    const core::model::BlockSpec* spec = m_block.isEmpty() ? nullptr : m_scene.levelModel().find(m_block.toStdString());
    if (spec)
        showBlock(*spec, layout);
    else
        showSummary(static_cast<int>(selected.size()), layout);
    m_layout->addWidget(m_content);
}

void PropertyPanel::showSummary(int selected, QVBoxLayout* layout) {
    m_block.clear();
    const auto& m = m_scene.levelModel();
    auto* info = new QLabel(selected > 1 ? tr("%1 blocks selected").arg(selected)
                                         : tr("No selection.\n\nModel: %1 blocks, %2 connections.")
                                               .arg(m.blocks().size())
                                               .arg(m.connections().size()),
                            m_content);
    info->setObjectName(QStringLiteral("modelSummary"));
    info->setWordWrap(true);
    layout->addWidget(info);
    layout->addStretch(1);
}

void PropertyPanel::showBlock(const core::model::BlockSpec& spec, QVBoxLayout* layout) {
    auto* head = new QFormLayout;
    m_name = new QLineEdit(m_block, m_content);
    m_name->setObjectName(QStringLiteral("blockName"));
    connect(m_name, &QLineEdit::editingFinished, this, [this, edit = m_name] {
        const QString to = edit->text().trimmed();
        if (to != m_block && !m_scene.renameBlock(m_block, to)) edit->setText(m_block);
    });
    head->addRow(tr("Name"), m_name);
    const core::BlockType* type = m_doc.registry().find(spec.type);
    auto* typeLabel = new QLabel(
        QStringLiteral("%1 <span style='color:#666'>(%2)</span>")
            .arg(type ? QString::fromStdString(type->info.title) : QString(), QString::fromStdString(spec.type)),
        m_content);
    typeLabel->setWordWrap(true);
    if (type) typeLabel->setToolTip(plainTooltip(QString::fromStdString(type->info.help)));
    head->addRow(tr("Type"), typeLabel);
    layout->addLayout(head);
    if (!m_scene.levelPath().isEmpty() || !core::model::subsystemOf(spec.type).empty()) {
        // inside a subsystem or a mask: the dialog edits them (Return, Edit > Parameters)
        auto* note = new QLabel(
            tr("Press Return (Edit > Parameters\u2026) to edit the parameters%1.")
                .arg(core::model::subsystemOf(spec.type).empty() ? QString() : tr(" of this instance's mask")),
            m_content);
        note->setObjectName(QStringLiteral("levelNote"));
        note->setWordWrap(true);
        layout->addWidget(note);
        layout->addStretch(1);
        return;
    }
    m_form = new ParamForm(m_doc, m_block, ParamForm::Mode::Inline, m_content);
    connect(m_form, &ParamForm::commitRequested, this, &PropertyPanel::commit);
    auto* scroll = new QScrollArea(m_content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(m_form);
    layout->addWidget(scroll, 1);
    m_status = new QLabel(m_content);
    m_status->setWordWrap(true);
    m_status->setStyleSheet(QStringLiteral("color: #c62828"));
    layout->addWidget(m_status);
}

void PropertyPanel::commit() {
    if (!m_form) return;
    const auto batch = m_form->edits();
    if (!batch || batch->edits.empty()) return;   // invalid entries keep their reason in the form
    m_applying = true;
    const auto error = m_doc.apply(*batch, tr("Edit parameters of %1").arg(m_block));
    m_applying = false;
    m_status->setText(error.value_or(QString()));
    if (m_form) m_form->reload();
}

}   // namespace endstop::gui
