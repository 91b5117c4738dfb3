// SPDX-License-Identifier: GPL-3.0-or-later
// Where new blocks land (Library double-click or drop, paste, duplicate): at the wanted spot if
// it is free, else at the nearest grid position where none of them overlaps a block or its label.
// And where blocks go that a file gives no place, or all of a level on Edit > Arrange Blocks
// (arrange.hpp).
#include "gui/arrange.hpp"
#include "gui/block_item.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

namespace endstop::gui {

namespace {
constexpr double kClearance = 2 * kGrid;   // free space kept around a placed block
constexpr int kSearchSteps = 40;           // candidates up to 40 steps of 2 grid units away
constexpr double kLabelHeight = 2 * kGrid;
constexpr double kBelowPlaced = 10 * kGrid;   // between the placed blocks and those arranged below them

QString qs(const std::string& s) { return QString::fromStdString(s); }
bool isReference(const std::string& type) { return type.ends_with(".reference"); }
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

core::model::EditBatch DiagramScene::arrangement(const QStringList& names, QPointF origin) const {
    const core::model::Model& m = levelModel();
    std::vector<ArrangeItem> items;
    std::vector<const core::model::BlockSpec*> specs;
    std::map<std::string, int> index;
    for (const QString& name : names) {
        const core::model::BlockSpec* spec = m.find(name.toStdString());
        const BlockItem* item = m_blocks.value(name);
        if (!spec || !item) continue;
        ArrangeItem a;
        a.extent = item->boundingRect();
        a.hub = isReference(spec->type);
        a.mirrors = spec->ui.rotation % 180 == 0;
        for (const PortShape& p : item->layout().ports) {
            const QPointF dir = item->portDir(p);
            a.ports.push_back({p.name, item->bodyTransform().map(p.tip),
                               dir.x() > 0.5    ? 1
                               : dir.x() < -0.5 ? -1
                                                : 0,
                               p.kind == core::PortKind::Output, p.kind == core::PortKind::Input});
        }
        index[spec->name] = static_cast<int>(items.size());
        items.push_back(std::move(a));
        specs.push_back(spec);
    }
    std::vector<ArrangeLink> links;
    for (const core::model::Connection& c : m.connections()) {
        const auto a = index.find(c.a.block), b = index.find(c.b.block);
        if (a != index.end() && b != index.end()) links.push_back({a->second, b->second, c.a.port, c.b.port});
    }
    const std::vector<Placement> places = arrangeBlocks(items, links);
    core::model::EditBatch batch{{}, "arrange"};
    for (std::size_t i = 0; i < places.size(); ++i) {
        core::model::BlockUi ui = specs[i]->ui;
        ui.x = origin.x() + places[i].pos.x();
        ui.y = origin.y() + places[i].pos.y();
        if (places[i].flip) ui.flipped = !ui.flipped;
        if (ui != specs[i]->ui) batch.edits.emplace_back(core::model::SetBlockUi{specs[i]->name, ui});
    }
    return batch;
}

bool DiagramScene::arrangeLevel() {
    QStringList names;
    QRectF before;
    for (const core::model::BlockSpec& b : levelModel().blocks()) {
        names << qs(b.name);
        if (const BlockItem* item = m_blocks.value(qs(b.name))) before |= item->sceneBoundingRect();
    }
    // the layout's corner where the drawing's was, on the grid, so the view stays where it was
    const QPointF origin(std::round(before.left() / kGrid) * kGrid, std::round(before.top() / kGrid) * kGrid);
    const core::model::EditBatch batch = arrangement(names, origin);
    // the same drawing moved as a whole (the grid's rounding of its corner) is no new arrangement
    std::optional<QPointF> shift;
    bool moved = false;
    for (const core::model::Edit& e : batch.edits) {
        const auto& set = std::get<core::model::SetBlockUi>(e.value);
        const core::model::BlockUi& now = levelModel().find(set.name)->ui;
        const QPointF d(set.ui.x - now.x, set.ui.y - now.y);
        if (!shift) shift = d;
        core::model::BlockUi same = set.ui;
        same.x = now.x;
        same.y = now.y;
        moved = moved || d != *shift || same != now;
    }
    if (std::cmp_less(batch.edits.size(), names.size()) && shift && !shift->isNull())
        moved = true;   // some stay, some move
    if (!moved) {
        status(tr("Arrange Blocks: the blocks are arranged already"));
        return false;
    }
    if (const auto error = applyEdit(batch, tr("Arrange Blocks"))) {
        status(*error);
        return false;
    }
    return true;
}

// Two or more blocks at [0, 0], where a file without ui.pos puts them (a project written by a
// script or another tool), are blocks the file gives no place. They are arranged when the level
// is shown, below the blocks that have places, outside the undo history: opening a file leaves it
// unmodified, and saving it keeps the places. Only [0, 0] counts: two blocks a user dragged onto
// one spot elsewhere stay where they were put.
void DiagramScene::placeStacked() {
    const core::model::Model& m = levelModel();
    QStringList stacked;
    QRectF placed;
    for (const core::model::BlockSpec& b : m.blocks()) {
        if (b.ui.x == 0.0 && b.ui.y == 0.0)
            stacked << qs(b.name);
        else if (const BlockItem* item = m_blocks.value(qs(b.name)))
            placed |= item->sceneBoundingRect();
    }
    if (stacked.size() < 2) return;
    const QPointF origin = placed.isNull() ? QPointF()
                                           : QPointF(std::round(placed.left() / kGrid) * kGrid,
                                                     std::round((placed.bottom() + kBelowPlaced) / kGrid) * kGrid);
    if (const auto error = m_doc.settle(forLevel(arrangement(stacked, origin)))) {
        status(tr("Could not arrange the blocks without a place: %1").arg(*error));
        return;
    }
    for (const QString& name : stacked)
        if (BlockItem* item = m_blocks.value(name)) item->refreshUi();
    status(tr("Placed %1 blocks that the file gives no place (Edit > Arrange Blocks lays out all of them)")
               .arg(stacked.size()));
}

}   // namespace endstop::gui
