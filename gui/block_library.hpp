// SPDX-License-Identifier: GPL-3.0-or-later
// BlockLibrary: every registered block type by category, with its icon and help as tooltip, and a
// search box (title, type id, category). Drag an entry onto the canvas, or double-click it to add it
// at the centre of the view. The last category, Components, lists the component files
// (*.endstopc) of the library folder (gui/component_actions.hpp): dragging one carries its path
// as kComponentMime, double-clicking one asks for it to be inserted.
#pragma once

#include "core/blockapi/registry.hpp"

#include <QWidget>

class QLineEdit;
class QMimeData;
class QTreeWidget;
class QTreeWidgetItem;

namespace endstop::gui {

inline constexpr const char* kComponentMime = "application/x-endstop-component";   // a file path

class BlockLibrary : public QWidget {
    Q_OBJECT
public:
    explicit BlockLibrary(const core::Registry& registry, QWidget* parent = nullptr);

    QTreeWidget* tree() const { return m_tree; }
    QLineEdit* searchBox() const { return m_search; }
    QTreeWidgetItem* itemFor(const QString& typeId) const;
    static QMimeData* mimeDataFor(const QString& typeId);

    // The Components category: one entry per file; `hint` stands in when there is none.
    void setComponents(const QStringList& files, const QString& hint);
    QTreeWidgetItem* componentsCategory() const { return m_components; }
    QTreeWidgetItem* componentItem(const QString& path) const;
    static QMimeData* componentMimeData(const QString& path);

Q_SIGNALS:
    void addRequested(const QString& typeId);
    void componentRequested(const QString& path);

private:
    void filter(const QString& text);
    QLineEdit* m_search;
    QTreeWidget* m_tree;
    QTreeWidgetItem* m_components = nullptr;
};

}   // namespace endstop::gui
