// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/diagram_scene.hpp"

#include "gui/block_item.hpp"
#include "gui/document.hpp"
#include "gui/rename_editor.hpp"
#include "gui/wire_item.hpp"

#include <QElapsedTimer>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QTimer>
#include <QUndoStack>

#include <cmath>

namespace endstop::gui {

namespace {
QString key(const core::model::PortRef& r) { return QString::fromStdString(r.toString()); }
QString qs(const std::string& s) { return QString::fromStdString(s); }
}   // namespace

DiagramScene::DiagramScene(Document& doc, QObject* parent)
    : QGraphicsScene(parent),
      m_doc(doc),
      m_router([this](const QRectF& r) {
          Router::Obstacles o;
          for (QGraphicsItem* i : items(r, Qt::IntersectsItemBoundingRect)) {
              if (i->type() != BlockItem::Type) continue;
              const auto* b = static_cast<BlockItem*>(i);
              o.blocked.push_back(b->obstacleSceneRect());
              // the name label too, unless a port's stub runs through it (a port on the bottom side)
              const QRectF label = b->mapRectToScene(b->labelRect());
              bool labelClear = true;
              for (const PortShape& p : b->layout().ports) {
                  const QPointF tip = b->portTip(p), end = tip + b->portDir(p) * (2 * kPortLead);
                  o.reserved.push_back(end);
                  labelClear = labelClear && !QRectF(tip, end).normalized().adjusted(-1, -1, 1, 1).intersects(label);
              }
              if (labelClear) o.blocked.push_back(label);
          }
          return o;
      }),
      m_routeTimer(new QTimer(this)) {
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    m_routeTimer->setSingleShot(true);
    m_routeTimer->setInterval(0);
    connect(m_routeTimer, &QTimer::timeout, this, [this] {
        if (!m_mouseDown) routePending(12);   // a drag in progress: the release routes
    });
    connect(&doc, &Document::modelReset, this, [this] {
        const bool wasInside = !m_level.isEmpty();
        m_level.clear();
        rebuild();
        if (wasInside) Q_EMIT levelChanged();
    });
    // the model's fine-grained signals name top-level blocks: below the top, a change of the
    // definition shown rebuilds the level (its edits arrive as subsystemChanged)
    const auto atTop = [this] { return m_level.isEmpty(); };
    connect(&doc, &Document::blockAdded, this, [this, atTop](const QString& n) {
        if (atTop()) addBlockItem(n);
    });
    connect(&doc, &Document::blockRemoved, this, [this, atTop](const QString& n) {
        if (atTop()) removeBlockItem(n);
    });
    connect(&doc, &Document::blockRenamed, this, [this, atTop](const QString& f, const QString& t) {
        if (atTop()) renameBlockItem(f, t);
    });
    connect(&doc, &Document::blockParamsChanged, this, [this, atTop](const QString& name) {
        if (!atTop()) return;
        if (BlockItem* item = blockItem(name)) {
            item->refresh();
            updateWiresOf(name);
        }
    });
    connect(&doc, &Document::blockUiChanged, this, [this, atTop](const QString& name) {
        BlockItem* item = atTop() ? blockItem(name) : nullptr;
        if (item && item->refreshUi()) updateWiresOf(name);   // a move updates them through itemChange
    });
    connect(&doc, &Document::connectionAdded, this, [this, atTop](const core::model::Connection& c) {
        if (atTop()) addWire(c);
    });
    connect(&doc, &Document::connectionRemoved, this, [this, atTop](const core::model::Connection& c) {
        if (atTop()) removeWire(c);
    });
    connect(&doc, &Document::subsystemChanged, this, [this, atTop](const QString& def) {
        if (!atTop()) {
            m_levelDirty = true;   // rebuilt once the whole edit is applied (structureChanged)
            return;
        }
        const std::string type = std::string(core::model::kSubsystemPrefix) + def.toStdString();
        for (const core::model::BlockSpec& b : m_doc.model().blocks())
            if (b.type == type)
                if (BlockItem* item = blockItem(qs(b.name))) {
                    item->refresh();
                    updateWiresOf(item->name());
                }
    });
    connect(&doc, &Document::structureChanged, this, [this] {
        followModel();
        if (!m_levelDirty) return;
        m_levelDirty = false;
        const QStringList selected = selectedBlockNames();
        rebuild();
        selectBlocks(selected);
    });
    // a move below the top is cosmetic: no structureChanged, but the level must show it
    connect(doc.undoStack(), &QUndoStack::indexChanged, this, [this] {
        if (!m_levelDirty) return;
        m_levelDirty = false;
        const QStringList selected = selectedBlockNames();
        rebuild();
        selectBlocks(selected);
    });
    rebuild();
}

DiagramScene::~DiagramScene() = default;

void DiagramScene::rebuild() {
    m_drag.reset();
    m_renameEditor = nullptr;
    m_pendingRoutes.clear();
    m_router.clear();
    clear();
    m_blocks.clear();
    m_blockWires.clear();
    m_portWires.clear();
    m_building = true;
    const core::model::Model& m = levelModel();
    for (const core::model::Connection& c : m.connections()) {
        ++m_portWires[key(c.a)];
        ++m_portWires[key(c.b)];
    }
    for (const core::model::BlockSpec& b : m.blocks()) {
        auto* item = new BlockItem(*this, qs(b.name));
        m_blocks.insert(item->name(), item);
        addItem(item);
    }
    placeStacked();
    std::vector<WireItem*> wires;
    for (const core::model::Connection& c : m.connections()) {
        auto* w = new WireItem(*this, c);
        m_blockWires[qs(c.a.block)].append(w);
        if (c.b.block != c.a.block) m_blockWires[qs(c.b.block)].append(w);
        addItem(w);
        wires.push_back(w);
    }
    m_building = false;
    for (WireItem* w : wires) scheduleRoute(*w);   // in file order: the same picture every time
    for (auto it = m_blocks.cbegin(); it != m_blocks.cend(); ++it)
        it.value()->setError(m_errorBlocks.contains(it.key()));
    const QRectF used = itemsBoundingRect();
    setSceneRect(used.isEmpty() ? QRectF(-500, -400, 1000, 800) : used.adjusted(-400, -400, 400, 400));
}

void DiagramScene::addBlockItem(const QString& name) {
    auto* item = new BlockItem(*this, name);
    m_blocks.insert(name, item);
    addItem(item);
    // wires added before their block (undo of a removal adds the block first, but be safe)
    updateWiresOf(name);
    setSceneRect(sceneRect() | item->sceneBoundingRect().adjusted(-400, -400, 400, 400));
}

void DiagramScene::removeBlockItem(const QString& name) {
    for (WireItem* w : m_blockWires.value(name)) removeWire(w->connection());
    delete m_blocks.take(name);
    m_blockWires.remove(name);
}

void DiagramScene::renameBlockItem(const QString& from, const QString& to) {
    BlockItem* item = m_blocks.take(from);
    if (!item) return;
    item->setName(to);
    m_blocks.insert(to, item);
    const QList<WireItem*> wires = m_blockWires.take(from);
    for (WireItem* w : wires) {
        core::model::Connection c = w->connection();
        for (core::model::PortRef* p : {&c.a, &c.b}) {
            if (qs(p->block) != from) continue;
            const int n = m_portWires.take(key(*p));
            p->block = to.toStdString();
            m_portWires[key(*p)] += n;
        }
        w->setConnection(c);
        w->updateRoute();
    }
    m_blockWires.insert(to, wires);
    if (m_errorBlocks.remove(from)) m_errorBlocks.insert(to);
}

void DiagramScene::addWire(const core::model::Connection& c) {
    auto* w = new WireItem(*this, c);
    m_blockWires[qs(c.a.block)].append(w);
    if (c.b.block != c.a.block) m_blockWires[qs(c.b.block)].append(w);
    ++m_portWires[key(c.a)];
    ++m_portWires[key(c.b)];
    addItem(w);
    updateWiresAt(c.a);
    updateWiresAt(c.b);
}

void DiagramScene::removeWire(const core::model::Connection& connection) {
    const core::model::Connection c = connection;   // may be the wire's own, which is deleted below
    WireItem* w = wireItem(c);
    if (!w) return;
    for (const std::string& b : {c.a.block, c.b.block}) m_blockWires[qs(b)].removeAll(w);
    for (const core::model::PortRef& p : {c.a, c.b})
        if (--m_portWires[key(p)] <= 0) m_portWires.remove(key(p));
    liftRoute(*w);
    if (w->pendingRoute) std::erase(m_pendingRoutes, w);
    delete w;
    updateWiresAt(c.a);
    updateWiresAt(c.b);
}

WireItem* DiagramScene::wireItem(const core::model::Connection& c) const {
    for (WireItem* w : m_blockWires.value(qs(c.a.block)))
        if (w->connection() == c) return w;
    return nullptr;
}

void DiagramScene::updateWiresOf(const QString& block) {
    if (m_building) return;
    for (WireItem* w : m_blockWires.value(block)) w->updateRoute();
}

void DiagramScene::updateWiresAt(const core::model::PortRef& ref) {
    for (WireItem* w : m_blockWires.value(qs(ref.block)))
        if (w->connection().a == ref || w->connection().b == ref) w->updateRoute();
}

void DiagramScene::blockItemMoved(const BlockItem& item) { updateWiresOf(item.name()); }

void DiagramScene::scheduleRoute(WireItem& wire) {
    if (m_building) return;   // rebuild() schedules every wire once at the end
    if (!wire.pendingRoute) {
        wire.pendingRoute = true;
        m_pendingRoutes.push_back(&wire);
    }
    m_routeTimer->start();
}

void DiagramScene::liftRoute(WireItem& wire) { wire.liftRoute(m_router); }

void DiagramScene::routePending(int budgetMs) {
    // in slices, so a large model stays responsive while thousands of wires find their way
    QElapsedTimer clock;
    clock.start();
    std::size_t done = 0;
    while (done < m_pendingRoutes.size() && (budgetMs < 0 || clock.elapsed() < budgetMs)) {
        WireItem* w = m_pendingRoutes[done++];
        w->pendingRoute = false;
        w->layRoute(m_router);
    }
    m_pendingRoutes.erase(m_pendingRoutes.begin(), m_pendingRoutes.begin() + static_cast<std::ptrdiff_t>(done));
    if (!m_pendingRoutes.empty()) m_routeTimer->start();
}

std::optional<PortEnd> DiagramScene::portEnd(const core::model::PortRef& ref) const {
    const BlockItem* item = blockItem(qs(ref.block));
    if (!item) return std::nullopt;
    const PortShape* p = item->layout().port(ref.port);
    if (!p) return PortEnd{item->scenePos(), {}, core::PortKind::Conserving, core::Domain::Translational, false};
    return PortEnd{item->portTip(*p), item->portDir(*p), p->kind, p->domain, true};
}

int DiagramScene::wireCountAt(const core::model::PortRef& ref) const { return m_portWires.value(key(ref)); }

QStringList DiagramScene::selectedBlockNames() const {
    QStringList out;
    for (QGraphicsItem* i : selectedItems())
        if (i->type() == BlockItem::Type) out << static_cast<BlockItem*>(i)->name();
    if (out.size() < 2) return out;
    // model order, so copies and batches are deterministic
    QHash<QString, int> order;
    const auto& blocks = levelModel().blocks();
    for (std::size_t i = 0; i < blocks.size(); ++i) order.insert(qs(blocks[i].name), static_cast<int>(i));
    std::sort(out.begin(), out.end(),
              [&order](const QString& a, const QString& b) { return order.value(a) < order.value(b); });
    return out;
}

std::vector<core::model::Connection> DiagramScene::selectedConnections() const {
    std::vector<core::model::Connection> out;
    for (QGraphicsItem* i : selectedItems())
        if (i->type() == WireItem::Type) out.push_back(static_cast<WireItem*>(i)->connection());
    return out;
}

void DiagramScene::selectBlocks(const QStringList& names) {
    {
        const QSignalBlocker quiet(this);   // one selectionChanged, not one per item
        clearSelection();
        for (const QString& n : names)
            if (BlockItem* item = blockItem(n)) item->setSelected(true);
    }
    Q_EMIT selectionChanged();
}

void DiagramScene::setErrorBlocks(const QSet<QString>& names) {
    for (const QString& n : m_errorBlocks)
        if (BlockItem* item = blockItem(n)) item->setError(false);
    m_errorBlocks = names;
    for (const QString& n : m_errorBlocks)
        if (BlockItem* item = blockItem(n)) item->setError(true);
}

void DiagramScene::status(const QString& message) {
    m_lastStatus = message;
    Q_EMIT statusMessage(message);
}

void DiagramScene::drawBackground(QPainter* painter, const QRectF& rect) {
    painter->fillRect(rect, QColor(0xf4, 0xf5, 0xf7));
    const double lod = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    double step = kGrid * 2;
    while (step * lod < 12) step *= 5;   // never denser than ~12 device pixels
    const double left = std::floor(rect.left() / step) * step, top = std::floor(rect.top() / step) * step;
    QVector<QLineF> minor, major;
    for (double x = left; x <= rect.right(); x += step)
        (std::fmod(std::abs(x), step * 5) < 1e-6 ? major : minor).append(QLineF(x, rect.top(), x, rect.bottom()));
    for (double y = top; y <= rect.bottom(); y += step)
        (std::fmod(std::abs(y), step * 5) < 1e-6 ? major : minor).append(QLineF(rect.left(), y, rect.right(), y));
    QPen pen(QColor(0xe3, 0xe6, 0xea), 0);
    painter->setPen(pen);
    painter->drawLines(minor);
    pen.setColor(QColor(0xd2, 0xd6, 0xdc));
    painter->setPen(pen);
    painter->drawLines(major);
}

}   // namespace endstop::gui
