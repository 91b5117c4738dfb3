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

struct Cell {
    int x = 0, y = 0;
};
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
    return std::abs(p.x() / kGrid - std::round(p.x() / kGrid)) < 1e-6 && std::abs(p.y() / kGrid - std::round(p.y() / kGrid)) < 1e-6;
}

}  // namespace

std::optional<QPolygonF> Router::route(QPointF a, QPointF da, QPointF b, QPointF db) const {
    const int startDir = dirOf(da), endDir = dirOf(-db);   // endDir: the way the route arrives at b
    if (startDir < 0 || endDir < 0 || !onGrid(a) || !onGrid(b)) return std::nullopt;
    const QPointF a1 = a + da * kPortLead, b1 = b + db * kPortLead;
    const Cell s{int(std::lround(a1.x() / kGrid)), int(std::lround(a1.y() / kGrid))};
    const Cell g{int(std::lround(b1.x() / kGrid)), int(std::lround(b1.y() / kGrid))};

    for (const int margin : {kMargin, 4 * kMargin}) {
        const int x0 = std::min(s.x, g.x) - margin, x1 = std::max(s.x, g.x) + margin;
        const int y0 = std::min(s.y, g.y) - margin, y1 = std::max(s.y, g.y) + margin;
        const int w = x1 - x0 + 1, h = y1 - y0 + 1;
        std::vector<char> blocked(static_cast<std::size_t>(w * h), 0);
        const QRectF box(x0 * kGrid, y0 * kGrid, (w - 1) * kGrid, (h - 1) * kGrid);
        const Obstacles obstacles = m_obstacles(box);
        for (const QPointF& p : obstacles.reserved) {
            const int x = int(std::lround(p.x() / kGrid)), y = int(std::lround(p.y() / kGrid));
            const bool own = std::abs(x - s.x) + std::abs(y - s.y) <= 1 || std::abs(x - g.x) + std::abs(y - g.y) <= 1;
            if (!own && x >= x0 && x <= x1 && y >= y0 && y <= y1) blocked[static_cast<std::size_t>((y - y0) * w + (x - x0))] = 2;
        }
        for (const QRectF& r : obstacles.blocked) {
            const QRectF in = r.adjusted(-kGrid / 2, -kGrid / 2, kGrid / 2, kGrid / 2);
            for (int y = std::max(y0, int(std::ceil(in.top() / kGrid))); y <= std::min(y1, int(std::floor(in.bottom() / kGrid))); ++y)
                for (int x = std::max(x0, int(std::ceil(in.left() / kGrid))); x <= std::min(x1, int(std::floor(in.right() / kGrid))); ++x)
                    blocked[static_cast<std::size_t>((y - y0) * w + (x - x0))] = 1;
        }
        const auto idx = [&](int x, int y, int d) { return static_cast<std::size_t>(((y - y0) * w + (x - x0)) * 4 + d); };
        std::vector<int> cost(static_cast<std::size_t>(w * h * 4), INT32_MAX);
        std::vector<int> from(static_cast<std::size_t>(w * h * 4), -1);
        using Item = std::pair<int, int>;   // (f, state)
        std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
        // lanes already taken, copied once for the box instead of hashed per expansion
        std::vector<std::uint8_t> laneH(static_cast<std::size_t>(w * h), 0), laneV(laneH.size(), 0);
        if (!m_horizontal.isEmpty() || !m_vertical.isEmpty())
            for (int y = y0; y <= y1; ++y)
                for (int x = x0; x <= x1; ++x) {
                    const auto at = static_cast<std::size_t>((y - y0) * w + (x - x0));
                    laneH[at] = std::uint8_t(std::min(m_horizontal.value(key(x, y)), 255));
                    laneV[at] = std::uint8_t(std::min(m_vertical.value(key(x, y)), 255));
                }
        // Manhattan distance plus the bends any route from (x, y, d) to the goal needs (admissible)
        const auto heuristic = [&](int x, int y, int d) {
            const int dx = g.x - x, dy = g.y - y;
            int bends = 0;
            if (d == endDir) {
                const bool ahead = (dx * kDx[d] > 0 && dy == 0) || (dy * kDy[d] > 0 && dx == 0) || (dx == 0 && dy == 0);
                bends = ahead ? 0 : 2;
            } else {
                bends = d == (endDir + 2) % 4 ? 2 : 1;
            }
            return std::abs(dx) + std::abs(dy) + kBend * bends;
        };
        cost[idx(s.x, s.y, startDir)] = 0;
        open.push({heuristic(s.x, s.y, startDir), int(idx(s.x, s.y, startDir))});
        int found = -1;
        while (!open.empty()) {
            const auto [f, state] = open.top();
            open.pop();
            const int d = state % 4, cell = state / 4;
            const int x = cell % w + x0, y = cell / w + y0;
            const int c = cost[static_cast<std::size_t>(state)];
            if (f - heuristic(x, y, d) > c) continue;   // stale entry
            if (x == g.x && y == g.y && d == endDir) { found = state; break; }
            for (int nd = 0; nd < 4; ++nd) {
                if (nd == (d + 2) % 4) continue;   // no U-turn in place
                const int nx = x + kDx[nd], ny = y + kDy[nd];
                if (nx < x0 || nx > x1 || ny < y0 || ny > y1) continue;
                const bool goal = nx == g.x && ny == g.y;
                const char here = blocked[static_cast<std::size_t>((ny - y0) * w + (nx - x0))];
                if (here == 1 && !goal) continue;
                const bool horizontal = nd % 2 == 0;
                int step = 1 + (nd != d ? kBend : 0) + (here == 2 ? kReserved : 0);
                const auto at = static_cast<std::size_t>((ny - y0) * w + (nx - x0));
                step += kAlong * (horizontal ? laneH : laneV)[at] + kCross * (horizontal ? laneV : laneH)[at];
                const std::size_t n = idx(nx, ny, nd);
                if (c + step < cost[n]) {
                    cost[n] = c + step;
                    from[n] = state;
                    open.push({c + step + heuristic(nx, ny, nd), int(n)});
                }
            }
        }
        if (found < 0) continue;
        QPolygonF corners{b, b1};   // walked backwards, corners only
        int state = found, lastDir = found % 4;
        while (from[static_cast<std::size_t>(state)] >= 0) {
            const int prev = from[static_cast<std::size_t>(state)];
            if (prev % 4 != lastDir) {
                const int cell = prev / 4;
                corners << QPointF((cell % w + x0) * kGrid, (cell / w + y0) * kGrid);
                lastDir = prev % 4;
            }
            state = prev;
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
            if (n <= 0) map.remove(cell);
            else map.insert(cell, n);
        }
    }
}

}  // namespace endstop::gui
