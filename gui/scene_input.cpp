// SPDX-License-Identifier: GPL-3.0-or-later
// Mouse input on the canvas: drawing wires port to port, dragging a wire's end away (detach or
// reconnect), committing a drag as one Move edit, double-clicks, and the inline rename editor.
#include "gui/block_item.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"
#include "gui/rename_editor.hpp"
#include "gui/wire_item.hpp"

#include <QGraphicsPathItem>
#include <QGraphicsView>
#include <QGraphicsSceneMouseEvent>
#include <QKeyEvent>
#include <QPen>
#include <QTextCursor>
#include <QTimer>

#include <set>

namespace endstop::gui {

namespace {
constexpr double kPortReach = 8.0;   // scene units around a port tip
constexpr double kWireEndReach = 3 * kGrid;
QString qs(const std::string& s) { return QString::fromStdString(s); }
}   // namespace

std::optional<std::pair<BlockItem*, const PortShape*>> DiagramScene::portUnder(QPointF pos) const {
    const QRectF around(pos - QPointF(kPortReach, kPortReach), QSizeF(2 * kPortReach, 2 * kPortReach));
    for (QGraphicsItem* i : items(around, Qt::IntersectsItemBoundingRect)) {
        if (i->type() != BlockItem::Type) continue;
        auto* b = static_cast<BlockItem*>(i);
        if (const PortShape* p = b->portAt(pos, kPortReach)) return std::make_pair(b, p);
    }
    return std::nullopt;
}

void DiagramScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
    if (m_renameEditor && !m_renameEditor->sceneBoundingRect().contains(event->scenePos())) m_renameEditor->commit();
    if (event->button() == Qt::LeftButton && startWireDrag(event)) return;
    if (event->button() == Qt::LeftButton) m_mouseDown = true;
    QGraphicsScene::mousePressEvent(event);
    m_pressPositions.clear();
    if (event->button() != Qt::LeftButton) return;
    for (QGraphicsItem* i : selectedItems())
        if (i->type() == BlockItem::Type) m_pressPositions.insert(static_cast<BlockItem*>(i), i->pos());
}

bool DiagramScene::startWireDrag(QGraphicsSceneMouseEvent* event) {
    const QPointF pos = event->scenePos();
    WireDrag drag;
    if (const auto hit = portUnder(pos)) {
        drag.from = core::model::PortRef{hit->first->name().toStdString(), hit->second->name};
    } else {
        WireItem* wire = nullptr;
        int end = -1;
        for (QGraphicsItem* i : items(pos)) {
            if (i->type() != WireItem::Type) continue;
            wire = static_cast<WireItem*>(i);
            end = wire->endNear(pos, kWireEndReach);
            if (end >= 0) break;
        }
        if (end < 0) return false;
        const core::model::Connection c = wire->connection();
        drag.detaching = c;
        drag.from = end == 0 ? c.b : c.a;   // the end that stays
        wire->setVisible(false);
    }
    const auto fromEnd = portEnd(drag.from);
    if (!fromEnd || !fromEnd->present) return false;
    drag.fromEnd = *fromEnd;
    drag.preview = new QGraphicsPathItem;
    QPen pen(domainColor(fromEnd->domain), 1.5, Qt::DashLine);
    drag.preview->setPen(pen);
    drag.preview->setZValue(10);
    addItem(drag.preview);
    m_drag = std::move(drag);
    updateWireDrag(pos);
    event->accept();
    return true;
}

// Over a port the preview tells before release whether the wire would be taken: refused, it
// turns red, the port gets a red cross and the status bar says why.
void DiagramScene::updateWireDrag(QPointF pos) {
    BlockItem* hot = nullptr;
    QPointF target = pos, targetDir;
    std::optional<QString> refused;
    if (const auto hit = portUnder(pos)) {
        hot = hit->first;
        target = hot->portTip(*hit->second);
        targetDir = hot->portDir(*hit->second);
        const core::model::PortRef to{hot->name().toStdString(), hit->second->name};
        const bool same =
            to == m_drag->from || (m_drag->detaching && (to == m_drag->detaching->a || to == m_drag->detaching->b));
        if (!same) refused = refusal(m_drag->from, to, m_drag->detaching);
        hot->setHotPort(hit->second->name, refused.has_value());
    }
    if (m_drag->hot && m_drag->hot != hot) m_drag->hot->setHotPort({});
    m_drag->hot = hot;
    if (refused && *refused != m_lastStatus) status(*refused);
    m_drag->refused = refused.has_value();
    QPen pen = m_drag->preview->pen();
    pen.setColor(refused ? kRefusedColour : domainColor(m_drag->fromEnd.domain));
    m_drag->preview->setPen(pen);
    m_drag->preview->setPath(orthogonalRoute(m_drag->fromEnd.pos, m_drag->fromEnd.dir, target, targetDir));
}

void DiagramScene::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
    if (m_drag) {
        updateWireDrag(event->scenePos());
        return;
    }
    QGraphicsScene::mouseMoveEvent(event);
}

void DiagramScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
    if (m_drag && event->button() == Qt::LeftButton) {
        finishWireDrag(event->scenePos());
        return;
    }
    QGraphicsScene::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton) return;
    m_mouseDown = false;
    commitMoves();
    if (!m_pendingRoutes.empty()) m_routeTimer->start();
}

void DiagramScene::finishWireDrag(QPointF pos) {
    WireDrag drag = std::move(*m_drag);
    m_drag.reset();
    if (drag.hot) drag.hot->setHotPort({});
    delete drag.preview;
    if (drag.detaching)
        if (WireItem* w = wireItem(*drag.detaching)) w->setVisible(true);

    const auto hit = portUnder(pos);
    if (!hit) {
        if (drag.detaching && !applyEdit(core::model::Disconnect{*drag.detaching}, tr("Disconnect")))
            status(
                tr("Disconnected %1").arg(qs(drag.detaching->a.toString() + " and " + drag.detaching->b.toString())));
        return;
    }
    const core::model::PortRef to{hit->first->name().toStdString(), hit->second->name};
    if (drag.detaching && (to == drag.detaching->a || to == drag.detaching->b)) return;   // dropped back in place
    if (to == drag.from) return;
    if (const auto why = refusal(drag.from, to, drag.detaching)) {
        status(*why);
        return;
    }
    const core::model::Connection c{drag.from, to};
    core::model::EditBatch batch{{}, "connect"};
    if (drag.detaching) batch.edits.emplace_back(core::model::Disconnect{*drag.detaching});
    batch.edits.emplace_back(core::model::Connect{c});
    if (const auto error = applyEdit(batch, drag.detaching ? tr("Reconnect") : tr("Connect")))
        status(*error);
    else
        status(tr("Connected %1 and %2").arg(qs(c.a.toString()), qs(c.b.toString())));
}

std::optional<QString> DiagramScene::refusal(const core::model::PortRef& a, const core::model::PortRef& b,
                                             const std::optional<core::model::Connection>& ignoring) const {
    const auto ea = portEnd(a), eb = portEnd(b);
    if (!ea || !eb || !ea->present || !eb->present) return tr("Cannot connect: the port does not exist");
    const auto describe = [](const core::model::PortRef& r, const PortEnd& e) {
        const char* what = e.kind == core::PortKind::Conserving ? core::toString(e.domain)
                           : e.kind == core::PortKind::Input    ? "signal input"
                                                                : "signal output";
        return QStringLiteral("%1 (%2)").arg(qs(r.toString()), QString::fromLatin1(what));
    };
    const bool sa = ea->kind != core::PortKind::Conserving;
    if (!core::connectable(ea->kind, ea->domain, eb->kind, eb->domain))   // the topology's rule
        return tr("Cannot connect %1 to %2: different domains").arg(describe(a, *ea), describe(b, *eb));
    if (ea->kind == core::PortKind::Output && eb->kind == core::PortKind::Output)
        return tr("Cannot connect %1 to %2: two signal outputs").arg(describe(a, *ea), describe(b, *eb));

    // the nets both ends belong to now (without the connection being dragged away)
    const auto& conns = levelModel().connections();
    const auto netOf = [&](const core::model::PortRef& start) {
        std::set<core::model::PortRef> seen;
        std::vector<core::model::PortRef> stack{start};
        while (!stack.empty()) {
            const core::model::PortRef p = stack.back();
            stack.pop_back();
            if (!seen.insert(p).second) continue;
            for (const core::model::Connection& c : conns) {
                if (ignoring && c == *ignoring) continue;
                if (c.a == p)
                    stack.push_back(c.b);
                else if (c.b == p)
                    stack.push_back(c.a);
            }
        }
        return seen;
    };
    std::set<core::model::PortRef> net = netOf(a);
    if (net.count(b)) return tr("%1 and %2 are already connected").arg(qs(a.toString()), qs(b.toString()));
    if (sa) {
        int outputs = 0;
        net.merge(netOf(b));
        for (const core::model::PortRef& p : net)
            if (const auto e = portEnd(p); e && e->kind == core::PortKind::Output) ++outputs;
        if (outputs > 1)
            return tr("Cannot connect %1 to %2: the input would be driven by two signal outputs")
                .arg(qs(a.toString()), qs(b.toString()));
    }
    return std::nullopt;
}

void DiagramScene::commitMoves() {
    core::model::EditBatch moves{{}, "move"};
    for (auto it = m_pressPositions.cbegin(); it != m_pressPositions.cend(); ++it) {
        const QPointF now = it.key()->pos();
        if (now == it.value()) continue;
        moves.edits.emplace_back(core::model::MoveBlock{it.key()->name().toStdString(), now.x(), now.y()});
    }
    m_pressPositions.clear();
    if (moves.edits.empty()) return;
    const int n = static_cast<int>(moves.edits.size());
    if (const auto error = applyEdit(moves, n == 1 ? tr("Move") : tr("Move %1 blocks").arg(n))) status(*error);
}

void DiagramScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
    for (QGraphicsItem* i : items(event->scenePos())) {
        if (i->type() != BlockItem::Type) continue;
        auto* b = static_cast<BlockItem*>(i);
        if (b->labelRect().contains(b->mapFromScene(event->scenePos())))
            beginRename(b->name());
        else if (isInstance(b->name()))
            openInstance(b->name());   // its parameters: Edit > Parameters
        else
            Q_EMIT blockActivated(b->name());
        event->accept();
        return;
    }
    QGraphicsScene::mouseDoubleClickEvent(event);
}

void DiagramScene::beginRename(const QString& name) {
    BlockItem* item = blockItem(name);
    if (!item) return;
    if (m_renameEditor) m_renameEditor->commit();
    m_renameEditor = new RenameEditor(*this, name);
    addItem(m_renameEditor);
    const QRectF label = item->mapRectToScene(item->labelRect());
    m_renameEditor->setPos(label.center() - m_renameEditor->boundingRect().center());
    m_renameEditor->setFocus();
    if (!views().isEmpty()) views().front()->setFocus();
}

RenameEditor::RenameEditor(DiagramScene& scene, const QString& name) : m_scene(scene), m_original(name) {
    setPlainText(name);
    setTextInteractionFlags(Qt::TextEditorInteraction);
    setZValue(20);
    QFont f;
    f.setPixelSize(11);
    setFont(f);
    setDefaultTextColor(Qt::black);
    QTextCursor c = textCursor();
    c.select(QTextCursor::Document);
    setTextCursor(c);
}

void RenameEditor::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
        commit();
        return;
    }
    if (event->key() == Qt::Key_Escape) {
        cancel();
        return;
    }
    QGraphicsTextItem::keyPressEvent(event);
}

void RenameEditor::focusOutEvent(QFocusEvent* event) {
    QGraphicsTextItem::focusOutEvent(event);
    commit();
}

void RenameEditor::commit() {
    if (m_done) return;
    m_done = true;
    const QString to = toPlainText().trimmed();
    close();
    if (to != m_original) m_scene.renameBlock(m_original, to);
}

void RenameEditor::cancel() {
    if (m_done) return;
    m_done = true;
    close();
}

void RenameEditor::close() {
    if (m_scene.renameEditor() == this) m_scene.clearRenameEditor();
    setVisible(false);
    deleteLater();
}

}   // namespace endstop::gui
