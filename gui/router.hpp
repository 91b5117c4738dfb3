// SPDX-License-Identifier: GPL-3.0-or-later
// Router: orthogonal wire routes on the 10-unit grid by A* search. Block bodies are obstacles;
// every bend costs, and running along another wire costs much more than crossing it, so wires of
// different nodes do not merge into one line. Used for the final route of a wire once nothing is
// being dragged (during a drag, wires take the quick L/Z/U route of orthogonalRoute()).
#pragma once

#include <QHash>
#include <QPainterPath>
#include <QPointF>
#include <QRectF>

#include <functional>
#include <optional>
#include <vector>

namespace endstop::gui {

class Router {
public:
    struct Obstacles {
        std::vector<QRectF> blocked;     // block bodies with their port stubs: never crossed
        std::vector<QPointF> reserved;   // just beyond each port's stub, where its wire goes: avoided
    };
    // obstacles(rect): those intersecting rect, in scene coordinates
    explicit Router(std::function<Obstacles(const QRectF&)> obstacles) : m_obstacles(std::move(obstacles)) {}

    // a to b, leaving a along da and entering b against db; nullopt if no route was found nearby
    std::optional<QPolygonF> route(QPointF a, QPointF da, QPointF b, QPointF db) const;

    // occupancy of routed wires, so later routes keep clear of them
    void occupy(const QPolygonF& route, int delta);   // +1 when a route is laid, -1 when lifted
    void clear() {
        m_horizontal.clear();
        m_vertical.clear();
    }

private:
    struct Cell {
        int x = 0, y = 0;
    };
    struct Grid;
    Grid grid(Cell start, Cell goal, int margin) const;
    static std::pair<std::vector<int>, int> search(const Grid& grid);

    std::function<Obstacles(const QRectF&)> m_obstacles;
    QHash<quint64, int> m_horizontal, m_vertical;   // cell -> wires running through it that way
};

}   // namespace endstop::gui
