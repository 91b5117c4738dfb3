// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/breadcrumbs.hpp"

#include "core/model/model.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace endstop::gui {

Breadcrumbs::Breadcrumbs(DiagramScene& scene, QWidget* parent)
    : QWidget(parent), m_scene(scene), m_layout(new QHBoxLayout(this)) {
    setObjectName(QStringLiteral("breadcrumbs"));
    m_layout->setContentsMargins(6, 2, 6, 2);
    m_layout->setSpacing(2);
    setAutoFillBackground(true);
    connect(&scene, &DiagramScene::levelChanged, this, &Breadcrumbs::rebuild);
    connect(&scene.document(), &Document::structureChanged, this, &Breadcrumbs::rebuild);
    rebuild();
}

QStringList Breadcrumbs::texts() const {
    QStringList out;
    for (QToolButton* b : findChildren<QToolButton*>(Qt::FindDirectChildrenOnly)) out << b->text();
    return out;
}

void Breadcrumbs::clickCrumb(int index) {
    if (auto* b = findChild<QToolButton*>(QStringLiteral("crumb%1").arg(index))) b->click();
}

void Breadcrumbs::rebuild() {
    while (QLayoutItem* item = m_layout->takeAt(0)) {
        if (QWidget* w = item->widget()) {   // a crumb may be the one whose click got us here
            w->hide();
            w->setParent(nullptr);
            w->deleteLater();
        }
        delete item;
    }
    const QStringList path = m_scene.levelPath();
    const core::model::Model& top = m_scene.document().model();
    const core::model::Model* level = &top;
    for (int i = 0; i <= path.size(); ++i) {
        QString text = tr("Model");
        if (i > 0) {
            const core::model::BlockSpec* spec = level ? level->find(path[i - 1].toStdString()) : nullptr;
            const std::string_view def = spec ? core::model::subsystemOf(spec->type) : std::string_view();
            text = QStringLiteral("%1 (%2)").arg(path[i - 1],
                                                 QString::fromUtf8(def.data(), static_cast<qsizetype>(def.size())));
            const core::model::SubsystemDef* d = top.findSubsystem(def);
            level = d ? &d->body : nullptr;
            auto* sep = new QLabel(QStringLiteral("\u203a"), this);
            m_layout->addWidget(sep);
        }
        auto* crumb = new QToolButton(this);
        crumb->setObjectName(QStringLiteral("crumb%1").arg(i));
        crumb->setText(text);
        crumb->setAutoRaise(true);
        QFont f = crumb->font();
        f.setBold(i == path.size());
        crumb->setFont(f);
        const QStringList to = path.mid(0, i);
        connect(crumb, &QToolButton::clicked, this, [this, to] { m_scene.openLevel(to); });
        m_layout->addWidget(crumb);
    }
    m_layout->addStretch(1);
}

}   // namespace endstop::gui
