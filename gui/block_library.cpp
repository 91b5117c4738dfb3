// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/block_library.hpp"

#include "gui/block_shape.hpp"
#include "gui/diagram_view.hpp"
#include "gui/help_text.hpp"
#include "gui/icon_cache.hpp"

#include <QFileInfo>
#include <QHeaderView>
#include <QIcon>
#include <QLineEdit>
#include <QMimeData>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace endstop::gui {

namespace {
constexpr int kTypeRole = Qt::UserRole + 1;
constexpr int kTitleRole = Qt::UserRole + 2;
constexpr int kComponentRole = Qt::UserRole + 3;   // the component file's path

class LibraryTree final : public QTreeWidget {
public:
    using QTreeWidget::QTreeWidget;

protected:
    QStringList mimeTypes() const override {
        return {QString::fromLatin1(kBlockTypeMime), QString::fromLatin1(kComponentMime)};
    }
    QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override {
        for (QTreeWidgetItem* i : items) {
            if (!i->data(0, kTypeRole).toString().isEmpty())
                return BlockLibrary::mimeDataFor(i->data(0, kTypeRole).toString());
            if (!i->data(0, kComponentRole).toString().isEmpty())
                return BlockLibrary::componentMimeData(i->data(0, kComponentRole).toString());
        }
        return nullptr;
    }
};

QTreeWidgetItem* categoryItem(QTreeWidget* tree, const QString& title) {
    auto* cat = new QTreeWidgetItem(tree, {title});
    cat->setFlags(Qt::ItemIsEnabled);
    QFont f = cat->font(0);
    f.setBold(true);
    cat->setFont(0, f);
    return cat;
}

QIcon iconFor(const QString& typeId) {
    QIcon icon;
    for (int px : {24, 48}) icon.addPixmap(iconCache().pixmap(iconPathFor(typeId), QSize(px * 3 / 2, px)));
    return icon;
}
}   // namespace

BlockLibrary::BlockLibrary(const core::Registry& registry, QWidget* parent)
    : QWidget(parent), m_search(new QLineEdit(this)), m_tree(new LibraryTree(this)) {
    m_search->setPlaceholderText(tr("Search blocks"));
    m_search->setClearButtonEnabled(true);
    m_tree->setHeaderHidden(true);
    m_tree->setDragEnabled(true);
    m_tree->setDragDropMode(QAbstractItemView::DragOnly);
    m_tree->setIconSize(QSize(36, 24));
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(false);
    m_tree->setWordWrap(true);   // a long name takes two lines at a narrow dock, never an ellipsis
    m_tree->setTextElideMode(Qt::ElideNone);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_search);
    layout->addWidget(m_tree);

    QMap<QString, QTreeWidgetItem*> categories;
    for (const core::BlockType& t : registry.types()) {
        const QString category =
            QString::fromStdString(t.info.category.empty() ? std::string("Other") : t.info.category);
        QTreeWidgetItem*& cat = categories[category];
        if (!cat) cat = categoryItem(m_tree, category);
        const QString typeId = QString::fromStdString(t.info.typeId);
        // under its category a block is named without it ("Hard Stop", "Ideal Motion Sensor" under
        // Translational), so names fit the dock; the tooltip and the search keep the full title
        QString title = QString::fromStdString(t.info.title);
        title.remove(category + ' ');
        auto* item = new QTreeWidgetItem(cat, {title});
        item->setData(0, kTitleRole, QString::fromStdString(t.info.title));
        item->setData(0, kTypeRole, typeId);
        item->setIcon(0, iconFor(typeId));
        item->setToolTip(
            0, blockHelpHtml(QString::fromStdString(t.info.title), typeId, QString::fromStdString(t.info.help)));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
    }
    m_components = categoryItem(m_tree, tr("Components"));
    m_tree->expandAll();
    connect(m_search, &QLineEdit::textChanged, this, &BlockLibrary::filter);
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const QString type = item->data(0, kTypeRole).toString();
        if (!type.isEmpty()) Q_EMIT addRequested(type);
        const QString component = item->data(0, kComponentRole).toString();
        if (!component.isEmpty()) Q_EMIT componentRequested(component);
    });
}

void BlockLibrary::setComponents(const QStringList& files, const QString& hint) {
    qDeleteAll(m_components->takeChildren());
    for (const QString& path : files) {
        const QString name = QFileInfo(path).fileName().section('.', 0, 0);
        auto* item = new QTreeWidgetItem(m_components, {name});
        item->setData(0, kTitleRole, name);
        item->setData(0, kComponentRole, path);
        item->setIcon(0, iconFor(QStringLiteral("subsystem")));
        item->setToolTip(
            0, tr("Component %1 (%2): drag it onto the canvas or double-click it to insert a copy").arg(name, path));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
    }
    if (files.isEmpty()) {
        auto* item = new QTreeWidgetItem(m_components, {hint});
        item->setFlags(Qt::NoItemFlags);
        item->setToolTip(0, hint);
    }
    m_components->setExpanded(true);
    filter(m_search->text());
}

QTreeWidgetItem* BlockLibrary::componentItem(const QString& path) const {
    for (int i = 0; i < m_components->childCount(); ++i)
        if (m_components->child(i)->data(0, kComponentRole).toString() == path) return m_components->child(i);
    return nullptr;
}

QMimeData* BlockLibrary::componentMimeData(const QString& path) {
    auto* data = new QMimeData;
    data->setData(QString::fromLatin1(kComponentMime), path.toUtf8());
    return data;
}

QTreeWidgetItem* BlockLibrary::itemFor(const QString& typeId) const {
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it)
        if ((*it)->data(0, kTypeRole).toString() == typeId) return *it;
    return nullptr;
}

QMimeData* BlockLibrary::mimeDataFor(const QString& typeId) {
    auto* data = new QMimeData;
    data->setData(QString::fromLatin1(kBlockTypeMime), typeId.toUtf8());
    return data;
}

void BlockLibrary::filter(const QString& text) {
    const QString needle = text.trimmed();
    for (int c = 0; c < m_tree->topLevelItemCount(); ++c) {
        QTreeWidgetItem* cat = m_tree->topLevelItem(c);
        int shown = 0;
        for (int i = 0; i < cat->childCount(); ++i) {
            QTreeWidgetItem* item = cat->child(i);
            const bool match = needle.isEmpty() ||
                               item->data(0, kTitleRole).toString().contains(needle, Qt::CaseInsensitive) ||
                               item->data(0, kTypeRole).toString().contains(needle, Qt::CaseInsensitive) ||
                               cat->text(0).contains(needle, Qt::CaseInsensitive);
            item->setHidden(!match);
            shown += match ? 1 : 0;
        }
        cat->setHidden(shown == 0);
    }
}

}   // namespace endstop::gui
