// SPDX-License-Identifier: GPL-3.0-or-later
// BlockLibrary: every registered block type by category, with its icon and help as tooltip, and a
// search box (title, type id, category). Drag an entry onto the canvas, or double-click it to add it
// at the centre of the view.
#pragma once

#include "core/blockapi/registry.hpp"

#include <QWidget>

class QLineEdit;
class QMimeData;
class QTreeWidget;
class QTreeWidgetItem;

namespace endstop::gui {

class BlockLibrary : public QWidget {
    Q_OBJECT
public:
    explicit BlockLibrary(const core::Registry& registry, QWidget* parent = nullptr);

    QTreeWidget* tree() const { return m_tree; }
    QLineEdit* searchBox() const { return m_search; }
    QTreeWidgetItem* itemFor(const QString& typeId) const;
    static QMimeData* mimeDataFor(const QString& typeId);

Q_SIGNALS:
    void addRequested(const QString& typeId);

private:
    void filter(const QString& text);
    QLineEdit* m_search;
    QTreeWidget* m_tree;
};

}  // namespace endstop::gui
