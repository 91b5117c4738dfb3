// SPDX-License-Identifier: GPL-3.0-or-later
// Where new blocks land (Library double-click or drop, paste, duplicate): at the wanted spot if
// it is free, else at the nearest grid position where none of them overlaps a block or its label.
#include "gui/block_item.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"

#include <algorithm>
#include <cmath>

namespace endstop::gui {

namespace {
constexpr double kClearance = 2 * kGrid;   // free space kept around a placed block
constexpr int kSearchSteps = 40;           // candidates up to 40 steps of 2 grid units away
constexpr double kLabelHeight = 2 * kGrid;
}   // namespace

QRectF DiagramScene::footprint(const core::model::BlockSpec& spec) const {
    const core::model::BlockSpec* same = levelModel().find(spec.name);   // a copied block: its drawn size
    if (const BlockItem* item = m_blocks.value(QString::fromStdString(spec.name));
        item && same && same->type == spec.type)
        return item->boundingRect().translated(spec.ui.x, spec.ui.y);
    const BlockShape shape = shapeOf(spec);
    QRectF r = shape.body;
    for (const PortShape& p : shape.ports) r |= QRectF(p.tip, QSizeF(1, 1));
    r.setBottom(r.bottom() + kLabelHeight);
    return r.translated(spec.ui.x, spec.ui.y);
}

bool DiagramScene::occupied(const QRectF& rect) const {
    const QRectF padded = rect.adjusted(-kClearance, -kClearance, kClearance, kClearance);
    const QList<QGraphicsItem*> hits = items(padded, Qt::IntersectsItemBoundingRect);
    return std::any_of(hits.begin(), hits.end(), [](const QGraphicsItem* i) { return i->type() == BlockItem::Type; });
}

QPointF DiagramScene::freeOffset(const std::vector<QRectF>& rects, QPointF preferred) const {
    const auto fits = [&](QPointF d) {
        return std::none_of(rects.begin(), rects.end(), [&](const QRectF& r) { return occupied(r.translated(d)); });
    };
    if (fits(preferred)) return preferred;
    const double step = 2 * kGrid;
    for (int ring = 1; ring <= kSearchSteps; ++ring) {   // nearest ring first, nearest point in it first
        std::vector<QPointF> candidates;
        for (int i = -ring; i <= ring; ++i)
            for (int j = -ring; j <= ring; ++j)
                if (std::max(std::abs(i), std::abs(j)) == ring)
                    candidates.push_back(preferred + QPointF(i * step, j * step));
        std::sort(candidates.begin(), candidates.end(), [&](QPointF a, QPointF b) {
            const QPointF da = a - preferred, db = b - preferred;
            return QPointF::dotProduct(da, da) < QPointF::dotProduct(db, db);
        });
        for (const QPointF& c : candidates)
            if (fits(c)) return c;
    }
    return preferred;   // a crowded canvas: the wanted spot after all
}

}   // namespace endstop::gui
