// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/signal_browser.hpp"

#include "gui/document.hpp"
#include "gui/signal_catalog.hpp"

#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace endstop::gui {

namespace {
constexpr int kColumnRole = Qt::UserRole;
}

SignalBrowser::SignalBrowser(Document& doc, QWidget* parent)
    : QWidget(parent),
      m_doc(doc),
      m_filter(new QLineEdit(this)),
      m_tree(new QTreeWidget(this)),
      m_debounce(new QTimer(this)) {
    m_filter->setPlaceholderText(tr("Filter signals"));
    m_filter->setClearButtonEnabled(true);
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({tr("Signal"), tr("Unit"), tr("Description")});
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_filter);
    layout->addWidget(m_tree);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(200);
    connect(m_debounce, &QTimer::timeout, this, &SignalBrowser::refresh);
    connect(&doc, &Document::structureChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(&doc, &Document::blockRenamed, m_debounce, qOverload<>(&QTimer::start));
    connect(&doc, &Document::modelReset, this, &SignalBrowser::refresh);
    connect(m_filter, &QLineEdit::textChanged, this, &SignalBrowser::filter);
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const QString column = item->data(0, kColumnRole).toString();
        if (!column.isEmpty()) Q_EMIT plotRequested(column, false);
    });
    connect(m_tree, &QWidget::customContextMenuRequested, this, &SignalBrowser::contextMenu);
    refresh();
}

void SignalBrowser::refresh() {
    m_debounce->stop();
    QSet<QString> expanded;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->isExpanded()) expanded.insert(m_tree->topLevelItem(i)->text(0));
    m_tree->clear();
    QList<QTreeWidgetItem*> blocks;
    QTreeWidgetItem* group = nullptr;
    for (const SignalInfo& s : signalCatalog(m_doc)) {
        const QString block = QString::fromStdString(s.block);
        if (!group || group->text(0) != block) {
            group = new QTreeWidgetItem({block});
            QFont f = group->font(0);
            f.setBold(true);
            group->setFont(0, f);
            if (const core::model::BlockSpec* spec = m_doc.model().find(s.block))
                group->setText(2, QString::fromStdString(spec->type));
            blocks << group;
        }
        auto* item = new QTreeWidgetItem(group, {QString::fromStdString(s.var), QString::fromStdString(s.unitText()),
                                                 QString::fromStdString(s.label)});
        const QString column = QString::fromStdString(s.name);
        item->setData(0, kColumnRole, column);
        item->setToolTip(0, tr("%1: double-click to plot").arg(column));
        if (s.display.symbol != s.si.symbol && !s.display.symbol.empty())
            item->setToolTip(
                1, tr("shown in %1; results (CSV) are in SI, %2")
                       .arg(QString::fromStdString(s.display.display()), QString::fromStdString(s.si.display())));
    }
    m_tree->addTopLevelItems(blocks);
    for (QTreeWidgetItem* b : blocks) b->setExpanded(expanded.contains(b->text(0)) || blocks.size() <= 12);
    filter(m_filter->text());
}

QTreeWidgetItem* SignalBrowser::itemFor(const QString& column) const {
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* b = m_tree->topLevelItem(i);
        for (int j = 0; j < b->childCount(); ++j)
            if (b->child(j)->data(0, kColumnRole).toString() == column) return b->child(j);
    }
    return nullptr;
}

void SignalBrowser::filter(const QString& text) {
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* b = m_tree->topLevelItem(i);
        int shown = 0;
        for (int j = 0; j < b->childCount(); ++j) {
            QTreeWidgetItem* c = b->child(j);
            const bool match = text.isEmpty() ||
                               c->data(0, kColumnRole).toString().contains(text, Qt::CaseInsensitive) ||
                               c->text(2).contains(text, Qt::CaseInsensitive);
            c->setHidden(!match);
            shown += match ? 1 : 0;
        }
        b->setHidden(shown == 0);
    }
}

void SignalBrowser::contextMenu(const QPoint& pos) {
    QTreeWidgetItem* item = m_tree->itemAt(pos);
    const QString column = item ? item->data(0, kColumnRole).toString() : QString();
    if (column.isEmpty()) return;
    QMenu menu(this);
    menu.addAction(tr("Plot %1").arg(column), this, [this, column] { Q_EMIT plotRequested(column, false); });
    menu.addAction(tr("Plot in a new subplot"), this, [this, column] { Q_EMIT plotRequested(column, true); });
    menu.exec(m_tree->viewport()->mapToGlobal(pos));
}

}   // namespace endstop::gui
