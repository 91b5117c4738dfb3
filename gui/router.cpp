// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/router.hpp"

#include "gui/block_shape.hpp"

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <queue>

namespace endstop::gui {

namespace {

constexpr int kBend = 4;        // cells a bend is worth
constexpr int kAlong = 12;      // running along another wire
constexpr int kCross = 1;       // crossing one
constexpr int kReserved = 15;   // passing where another port's wire has to go
constexpr int kMargin = 6;      // cells around the end points' box searched first
// Wires whose box would exceed this many cells keep the quick route: a search across a whole
// diagram (a ground wired to a thousand blocks) costs tens of milliseconds per wire and finds
// little worth the detour at that scale.
constexpr long kMaxCells = 40000;

quint64 key(int x, int y) { return (quint64(quint32(x)) << 32) | quint32(y); }
const int kDx[4] = {1, 0, -1, 0};
const int kDy[4] = {0, 1, 0, -1};

int dirOf(QPointF d) {
    if (d.x() > 0.5) return 0;
    if (d.y() > 0.5) return 1;
    if (d.x() < -0.5) return 2;
    if (d.y() < -0.5) return 3;
    return -1;
}
bool onGrid(QPointF p) {
    return std::abs(p.x() / kGrid - std::round(p.x() / kGrid)) < 1e-6 &&
           std::abs(p.y() / kGrid - std::round(p.y() / kGrid)) < 1e-6;
}

}   // namespace

// The search box: a window of the grid around both ends, with what lies in it.
struct Router::Grid {
    int x0 = 0, y0 = 0, w = 0, h = 0;
    Cell start, goal;
    int startDir = 0, endDir = 0;   // leaving the start, arriving at the goal
    std::vector<char> cells;        // 0 free, 1 blocked, 2 reserved for another port's wire
    std::vector<std::uint8_t> laneH, laneV;

    bool inside(int x, int y) const { return x >= x0 && x < x0 + w && y >= y0 && y < y0 + h; }
    std::size_t at(int x, int y) const { return static_cast<std::size_t>((y - y0) * w + (x - x0)); }
    // Manhattan distance plus the bends any route from (x, y, d) to the goal needs (admissible)
    int heuristic(int x, int y, int d) const {
        const int dx = goal.x - x, dy = goal.y - y;
        int bends = d == (endDir + 2) % 4 ? 2 : 1;
        if (d == endDir) {
            const bool ahead = (dx * kDx[d] > 0 && dy == 0) || (dy * kDy[d] > 0 && dx == 0) || (dx == 0 && dy == 0);
            bends = ahead ? 0 : 2;
        }
        return std::abs(dx) + std::abs(dy) + kBend * bends;
    }
};

Router::Grid Router::grid(Cell s, Cell g, int margin) const {
    Grid grid;
    grid.start = s;
    grid.goal = g;
    grid.x0 = std::min(s.x, g.x) - margin;
    grid.y0 = std::min(s.y, g.y) - margin;
    grid.w = std::abs(s.x - g.x) + 2 * margin + 1;
    grid.h = std::abs(s.y - g.y) + 2 * margin + 1;
    grid.cells.assign(static_cast<std::size_t>(grid.w * grid.h), 0);
    const QRectF box(grid.x0 * kGrid, grid.y0 * kGrid, (grid.w - 1) * kGrid, (grid.h - 1) * kGrid);
    const Obstacles obstacles = m_obstacles(box);
    for (const QPointF& p : obstacles.reserved) {
        const int x = int(std::lround(p.x() / kGrid)), y = int(std::lround(p.y() / kGrid));
        const bool own = std::abs(x - s.x) + std::abs(y - s.y) <= 1 || std::abs(x - g.x) + std::abs(y - g.y) <= 1;
        if (!own && grid.inside(x, y)) grid.cells[grid.at(x, y)] = 2;
    }
    for (const QRectF& r : obstacles.blocked) {
        const QRectF in = r.adjusted(-kGrid / 2, -kGrid / 2, kGrid / 2, kGrid / 2);
        const int top = std::max(grid.y0, int(std::ceil(in.top() / kGrid)));
        const int bottom = std::min(grid.y0 + grid.h - 1, int(std::floor(in.bottom() / kGrid)));
        const int left = std::max(grid.x0, int(std::ceil(in.left() / kGrid)));
        const int right = std::min(grid.x0 + grid.w - 1, int(std::floor(in.right() / kGrid)));
        for (int y = top; y <= bottom; ++y)
            for (int x = left; x <= right; ++x) grid.cells[grid.at(x, y)] = 1;
    }
    // lanes already taken, looked up once for the box instead of hashed per expansion
    grid.laneH.assign(grid.cells.size(), 0);
    grid.laneV.assign(grid.cells.size(), 0);
    if (!m_horizontal.isEmpty() || !m_vertical.isEmpty())
        for (int y = grid.y0; y < grid.y0 + grid.h; ++y)
            for (int x = grid.x0; x < grid.x0 + grid.w; ++x) {
                grid.laneH[grid.at(x, y)] = std::uint8_t(std::min(m_horizontal.value(key(x, y)), 255));
                grid.laneV[grid.at(x, y)] = std::uint8_t(std::min(m_vertical.value(key(x, y)), 255));
            }
    return grid;
}

// A* over (cell, direction); returns the predecessor of every state and the goal state, or -1
std::pair<std::vector<int>, int> Router::search(const Grid& grid) {
    const auto state = [&](int x, int y, int d) { return static_cast<int>(grid.at(x, y) * 4) + d; };
    std::vector<int> cost(grid.cells.size() * 4, INT32_MAX), from(grid.cells.size() * 4, -1);
    using Item = std::pair<int, int>;   // (estimate, state)
    std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
    const int first = state(grid.start.x, grid.start.y, grid.startDir);
    cost[static_cast<std::size_t>(first)] = 0;
    open.push({grid.heuristic(grid.start.x, grid.start.y, grid.startDir), first});
    while (!open.empty()) {
        const auto [f, current] = open.top();
        open.pop();
        const int d = current % 4, cell = current / 4;
        const int x = cell % grid.w + grid.x0, y = cell / grid.w + grid.y0;
        const int c = cost[static_cast<std::size_t>(current)];
        if (f - grid.heuristic(x, y, d) > c) continue;   // stale entry
        if (x == grid.goal.x && y == grid.goal.y && d == grid.endDir) return {std::move(from), current};
        for (int nd = 0; nd < 4; ++nd) {
            const int nx = x + kDx[nd], ny = y + kDy[nd];
            if (nd == (d + 2) % 4 || !grid.inside(nx, ny)) continue;   // no U-turn in place
            const std::size_t at = grid.at(nx, ny);
            const bool goal = nx == grid.goal.x && ny == grid.goal.y;
            if (grid.cells[at] == 1 && !goal) continue;
            const bool horizontal = nd % 2 == 0;
            const int step = 1 + (nd != d ? kBend : 0) + (grid.cells[at] == 2 ? kReserved : 0) +
                             kAlong * (horizontal ? grid.laneH : grid.laneV)[at] +
                             kCross * (horizontal ? grid.laneV : grid.laneH)[at];
            const int next = state(nx, ny, nd);
            if (c + step < cost[static_cast<std::size_t>(next)]) {
                cost[static_cast<std::size_t>(next)] = c + step;
                from[static_cast<std::size_t>(next)] = current;
                open.push({c + step + grid.heuristic(nx, ny, nd), next});
            }
        }
    }
    return {std::move(from), -1};
}

std::optional<QPolygonF> Router::route(QPointF a, QPointF da, QPointF b, QPointF db) const {
    const int startDir = dirOf(da), endDir = dirOf(-db);
    if (startDir < 0 || endDir < 0 || !onGrid(a) || !onGrid(b)) return std::nullopt;
    const QPointF a1 = a + da * kPortLead, b1 = b + db * kPortLead;
    const Cell s{int(std::lround(a1.x() / kGrid)), int(std::lround(a1.y() / kGrid))};
    const Cell g{int(std::lround(b1.x() / kGrid)), int(std::lround(b1.y() / kGrid))};
    for (const int margin : {kMargin, 4 * kMargin}) {   // nearby first, then a wider detour
        if (static_cast<long>(std::abs(s.x - g.x) + 2 * margin + 1) * (std::abs(s.y - g.y) + 2 * margin + 1) >
            kMaxCells)
            break;
        Grid box = grid(s, g, margin);
        box.startDir = startDir;
        box.endDir = endDir;
        const auto [from, found] = search(box);
        if (found < 0) continue;
        QPolygonF corners{b, b1};   // walked backwards, corners only
        int at = found, lastDir = found % 4;
        for (int prev = from[static_cast<std::size_t>(at)]; prev >= 0;
             at = prev, prev = from[static_cast<std::size_t>(at)]) {
            if (prev % 4 == lastDir) continue;
            const int cell = prev / 4;
            corners << QPointF((cell % box.w + box.x0) * kGrid, (cell / box.w + box.y0) * kGrid);
            lastDir = prev % 4;
        }
        corners << a1 << a;
        std::reverse(corners.begin(), corners.end());
        return corners;
    }
    return std::nullopt;
}

void Router::occupy(const QPolygonF& route, int delta) {
    for (int i = 1; i + 1 < route.size() - 1; ++i) {   // the stubs at the ports are not shared lanes
        const QPointF p = route[i], q = route[i + 1];
        const bool horizontal = std::abs(p.y() - q.y()) < 1e-6;
        auto& map = horizontal ? m_horizontal : m_vertical;
        const int steps = int(std::lround((horizontal ? std::abs(q.x() - p.x()) : std::abs(q.y() - p.y())) / kGrid));
        const QPointF dir = steps ? (q - p) / (steps * kGrid) : QPointF();
        for (int k = 0; k <= steps; ++k) {
            const QPointF c = p + dir * (k * kGrid);
            const quint64 cell = key(int(std::lround(c.x() / kGrid)), int(std::lround(c.y() / kGrid)));
            const int n = map.value(cell) + delta;
            if (n <= 0)
                map.remove(cell);
            else
                map.insert(cell, n);
        }
    }
}

}   // namespace endstop::gui
