// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/wire_item.hpp"

#include "gui/block_shape.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/router.hpp"

#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <QVarLengthArray>

#include <cmath>

namespace endstop::gui {

namespace {
bool horizontal(QPointF d) { return std::abs(d.x()) > 0.5; }
bool vertical(QPointF d) { return std::abs(d.y()) > 0.5; }

// The part of segment a-b inside r (Liang-Barsky); false if none.
bool clipSegment(QPointF& a, QPointF& b, const QRectF& r) {
    double t0 = 0.0, t1 = 1.0;
    const double dx = b.x() - a.x(), dy = b.y() - a.y();
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {a.x() - r.left(), r.right() - a.x(), a.y() - r.top(), r.bottom() - a.y()};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0) return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0.0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1) return false;
    }
    const QPointF a0 = a;
    a = a0 + t0 * QPointF(dx, dy);
    b = a0 + t1 * QPointF(dx, dy);
    return true;
}
}   // namespace

QPainterPath orthogonalRoute(QPointF a, QPointF da, QPointF b, QPointF db) {
    const QPointF a1 = a + da * kPortLead;
    const QPointF b1 = b + db * kPortLead;
    QPolygonF pts{a, a1};
    const bool freeEnd = !horizontal(db) && !vertical(db);
    if (horizontal(da)) {
        const bool ahead = (b1.x() - a1.x()) * da.x() >= 0;
        if (freeEnd) {
            pts << QPointF(b1.x(), a1.y());
        } else if (vertical(db)) {
            // an L works if its corner is ahead of a and on b's side; else a Z through the middle
            if (ahead && (a1.y() - b1.y()) * db.y() >= 0)
                pts << QPointF(b1.x(), a1.y());
            else {
                const double mx = ahead ? std::round((a1.x() + b1.x()) / 2 / kGrid) * kGrid : a1.x();
                pts << QPointF(mx, a1.y()) << QPointF(mx, b1.y());
            }
        } else if (ahead && (b1.x() - a1.x()) * db.x() <= 0) {
            const double mx = std::round((a1.x() + b1.x()) / 2 / kGrid) * kGrid;
            pts << QPointF(mx, a1.y()) << QPointF(mx, b1.y());
        } else {   // facing away or side by side: go around through the gap between them
            double my = std::round((a1.y() + b1.y()) / 2 / kGrid) * kGrid;
            if (std::abs(a1.y() - b1.y()) < 4 * kGrid) my = std::max(a1.y(), b1.y()) + 4 * kGrid;
            pts << QPointF(a1.x(), my) << QPointF(b1.x(), my);
        }
    } else {
        const bool ahead = (b1.y() - a1.y()) * da.y() >= 0;
        if (freeEnd) {
            pts << QPointF(a1.x(), b1.y());
        } else if (horizontal(db)) {
            if (ahead && (a1.x() - b1.x()) * db.x() >= 0)
                pts << QPointF(a1.x(), b1.y());
            else {
                const double my = ahead ? std::round((a1.y() + b1.y()) / 2 / kGrid) * kGrid : a1.y();
                pts << QPointF(a1.x(), my) << QPointF(b1.x(), my);
            }
        } else if (ahead && (b1.y() - a1.y()) * db.y() <= 0) {
            const double my = std::round((a1.y() + b1.y()) / 2 / kGrid) * kGrid;
            pts << QPointF(a1.x(), my) << QPointF(b1.x(), my);
        } else {
            double mx = std::round((a1.x() + b1.x()) / 2 / kGrid) * kGrid;
            if (std::abs(a1.x() - b1.x()) < 4 * kGrid) mx = std::max(a1.x(), b1.x()) + 4 * kGrid;
            pts << QPointF(mx, a1.y()) << QPointF(mx, b1.y());
        }
    }
    pts << b1 << b;
    QPainterPath path(pts.front());
    for (int i = 1; i < pts.size(); ++i)
        if (pts[i] != pts[i - 1]) path.lineTo(pts[i]);
    return path;
}

WireItem::WireItem(DiagramScene& scene, core::model::Connection connection)
    : m_scene(scene), m_connection(std::move(connection)) {
    setFlags(ItemIsSelectable | ItemUsesExtendedStyleOption);   // paint() clips to exposedRect
    setZValue(-1);                                              // under the blocks
    setConnection(m_connection);
    updateRoute();
}

void WireItem::updateRoute() {
    prepareGeometryChange();
    const auto ea = m_scene.portEnd(m_connection.a);
    const auto eb = m_scene.portEnd(m_connection.b);
    m_dangling = !ea || !eb || !ea->present || !eb->present;
    m_a = ea ? ea->pos : QPointF();
    m_b = eb ? eb->pos : QPointF();
    m_color = ea && ea->present   ? domainColor(ea->domain)
              : eb && eb->present ? domainColor(eb->domain)
                                  : QColor(Qt::red);
    m_scene.liftRoute(*this);
    if (m_dangling) {
        m_path = QPainterPath(m_a);
        m_path.lineTo(m_b);
    } else {
        m_da = ea->dir;
        m_db = eb->dir;
        m_path = orthogonalRoute(m_a, m_da, m_b, m_db);
        m_scene.scheduleRoute(*this);
    }
    m_junctionA = m_scene.wireCountAt(m_connection.a) > 1;
    m_junctionB = m_scene.wireCountAt(m_connection.b) > 1;
    m_hit = QPainterPath();   // stroked lazily: dragging thousands of blocks never needs it
    m_bounds = m_path.boundingRect().adjusted(-6, -6, 6, 6);
    update();
}

void WireItem::setConnection(core::model::Connection c) {
    m_connection = std::move(c);
    setToolTip(QString::fromStdString(m_connection.a.toString() + " \u2014 " + m_connection.b.toString()));
}

QPainterPath WireItem::shape() const {
    if (m_hit.isEmpty()) {
        QPainterPathStroker stroker;
        stroker.setWidth(8);
        m_hit = stroker.createStroke(m_path);
    }
    return m_hit;
}

void WireItem::layRoute(Router& router) {
    liftRoute(router);
    if (m_dangling) return;
    const std::optional<QPolygonF> route = router.route(m_a, m_da, m_b, m_db);
    if (!route) return;   // keeps the quick route
    prepareGeometryChange();
    m_path = QPainterPath(route->front());
    for (int i = 1; i < route->size(); ++i)
        if ((*route)[i] != (*route)[i - 1]) m_path.lineTo((*route)[i]);
    m_hit = QPainterPath();
    m_bounds = m_path.boundingRect().adjusted(-6, -6, 6, 6);
    router.occupy(*route, +1);
    m_laid = *route;
    update();
}

void WireItem::liftRoute(Router& router) {
    if (m_laid.isEmpty()) return;
    router.occupy(m_laid, -1);
    m_laid.clear();
}

int WireItem::endNear(QPointF scenePos, double reach) const {
    if (!shape().contains(scenePos)) return -1;
    const double da = std::hypot(scenePos.x() - m_a.x(), scenePos.y() - m_a.y());
    const double db = std::hypot(scenePos.x() - m_b.x(), scenePos.y() - m_b.y());
    if (da <= reach && da <= db) return 0;
    if (db <= reach) return 1;
    return -1;
}

void WireItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    QPainter& p = *painter;
    const double lod = option->levelOfDetailFromTransform(p.worldTransform());
    QPen pen(isSelected() ? QColor(0x1f, 0x6f, 0xeb) : m_color, isSelected() ? 2.5 : 1.5);
    if (m_dangling) {
        pen.setColor(Qt::red);
        pen.setStyle(Qt::DashLine);
    }
    if (lod < 0.3) pen.setWidthF(0);   // cosmetic hairline when far away
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    // Only the visible pieces: a wire to a ground shared by a thousand blocks spans the whole
    // diagram, and the raster engine strokes a wide pen over its full length, visible or not.
    const QRectF view = option->exposedRect.adjusted(-4, -4, 4, 4);
    QVarLengthArray<QLineF, 8> lines;
    for (int i = 1; i < m_path.elementCount(); ++i) {
        QPointF a = m_path.elementAt(i - 1), b = m_path.elementAt(i);
        if (clipSegment(a, b, view)) lines.append(QLineF(a, b));
    }
    if (lines.size() == m_path.elementCount() - 1)
        p.drawPath(m_path);   // whole: joins drawn properly
    else if (!lines.isEmpty())
        p.drawLines(lines.constData(), static_cast<int>(lines.size()));
    if (lod < 0.3) return;
    p.setPen(Qt::NoPen);
    p.setBrush(m_color);
    const QPointF ka = m_path.elementCount() > 1 ? QPointF(m_path.elementAt(1)) : m_a;
    const QPointF kb = m_path.elementCount() > 1 ? QPointF(m_path.elementAt(m_path.elementCount() - 2)) : m_b;
    if (m_junctionA) p.drawEllipse(ka, 3.5, 3.5);
    if (m_junctionB) p.drawEllipse(kb, 3.5, 3.5);
}

}   // namespace endstop::gui
