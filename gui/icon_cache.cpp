// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/icon_cache.hpp"

#include <QPainter>
#include <QRectF>
#include <QStyleOptionGraphicsItem>
#include <QSvgRenderer>

#include <cmath>

namespace endstop::gui {

IconCache& iconCache() {
    static IconCache cache;
    return cache;
}

QPixmap IconCache::pixmap(const QString& path, QSize pixels) {
    const QString key = QStringLiteral("%1@%2x%3").arg(path).arg(pixels.width()).arg(pixels.height());
    if (auto it = m_cache.constFind(key); it != m_cache.constEnd()) return *it;
    QPixmap pm(pixels);
    pm.fill(Qt::transparent);
    QSvgRenderer svg(path);
    if (svg.isValid()) {
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        const QSizeF fitted = QSizeF(svg.defaultSize()).scaled(QSizeF(pixels), Qt::KeepAspectRatio);
        svg.render(&p, QRectF(QPointF((pixels.width() - fitted.width()) / 2, (pixels.height() - fitted.height()) / 2),
                              fitted));
    }
    m_cache.insert(key, pm);
    return pm;
}

void IconCache::draw(QPainter& painter, const QString& path, const QRectF& target) {
    const double lod = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter.worldTransform());
    const double dpr = painter.device() ? painter.device()->devicePixelRatioF() : 1.0;
    // half-octave steps: at most ~2 pixmaps per doubling of zoom
    const double scale = std::pow(2.0, std::ceil(std::log2(std::max(lod * dpr, 0.05)) * 2.0) / 2.0);
    const QSize pixels(std::max(1, static_cast<int>(std::ceil(target.width() * scale))),
                       std::max(1, static_cast<int>(std::ceil(target.height() * scale))));
    painter.drawPixmap(target, pixmap(path, pixels), QRectF(0, 0, pixels.width(), pixels.height()));
}

}   // namespace endstop::gui
