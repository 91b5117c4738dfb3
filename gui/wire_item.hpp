// SPDX-License-Identifier: GPL-3.0-or-later
// WireItem: one model connection drawn port to port with orthogonal routing. It holds the
// connection; its end points come from the blocks' port tips. A port shared by several wires gets
// a junction dot. A wire whose port no longer exists (a conditional port hidden by a parameter) is
// drawn dashed red to the block, so the dangling connection is visible and can be deleted.
#pragma once

#include "core/model/model.hpp"

#include <QColor>
#include <QGraphicsItem>
#include <QPainterPath>

namespace endstop::gui {

class DiagramScene;
class Router;

// a' = a + da*lead, b' = b + db*lead, then an L, Z or U shaped path; db may be null (a free end)
QPainterPath orthogonalRoute(QPointF a, QPointF da, QPointF b, QPointF db);

class WireItem final : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    WireItem(DiagramScene& scene, core::model::Connection connection);

    int type() const override { return Type; }
    const core::model::Connection& connection() const { return m_connection; }
    void setConnection(core::model::Connection c);
    void updateRoute();               // re-reads both ends from the scene; quick route, final one scheduled
    void layRoute(Router& router);    // the final route (A*), occupying its lanes
    void liftRoute(Router& router);   // frees its lanes (before a move or removal)
    bool pendingRoute = false;        // scheduled for layRoute() by the scene
    // 0 or 1 if scenePos is on the wire near end a or b (the part a user grabs to detach it)
    int endNear(QPointF scenePos, double reach) const;
    QPointF endPoint(int end) const { return end == 0 ? m_a : m_b; }
    const QPainterPath& route() const { return m_path; }

    QRectF boundingRect() const override { return m_bounds; }
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    DiagramScene& m_scene;
    core::model::Connection m_connection;
    QPainterPath m_path;
    mutable QPainterPath m_hit;
    QRectF m_bounds;
    QPointF m_a, m_b, m_da, m_db;
    QPolygonF m_laid;   // the final route occupying lanes in the router, if any
    QColor m_color;
    bool m_dangling = false;
    bool m_junctionA = false, m_junctionB = false;
};

}   // namespace endstop::gui
