// SPDX-License-Identifier: GPL-3.0-or-later
// Block icons: SVGs rendered once per (icon, device size) and reused, so a canvas with thousands of
// blocks paints pixmaps, not vector art. Sizes are quantised to half-octaves of zoom, which bounds
// the cache while keeping icons sharp on high-DPI screens.
#pragma once

#include <QHash>
#include <QPixmap>
#include <QSizeF>
#include <QString>

class QPainter;
class QRectF;

namespace endstop::gui {

class IconCache {
public:
    // Draws the icon into `target` (item coordinates) for the painter's current transform.
    void draw(QPainter& painter, const QString& path, const QRectF& target);
    QPixmap pixmap(const QString& path, QSize pixels);

private:
    QHash<QString, QPixmap> m_cache;
};

IconCache& iconCache();

}   // namespace endstop::gui
