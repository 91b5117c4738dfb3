// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/arrange.hpp"

#include "gui/block_shape.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace endstop::gui {

namespace {
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

constexpr double kColumnGap = 8 * kGrid;       // room for the wires between two columns
constexpr double kRowGap = 4 * kGrid;          // between two blocks of a column
constexpr double kComponentGap = 10 * kGrid;   // between two unconnected parts
constexpr double kRowWidth = 1400.0;           // parts are packed in rows up to this wide (or the widest part)
constexpr int kSweeps = 4;                     // barycentre sweeps, each forward and back
constexpr double kDeadEndWeight = 1e-4;        // a block the chain does not go on through, placing a column
constexpr int kHubSearch = 10;                 // a hub looks this many steps of 2 grid units aside

double snap(double v) { return std::round(v / kGrid) * kGrid; }
std::size_t at(int i) { return static_cast<std::size_t>(i); }

struct RecordDistance : boost::default_bfs_visitor {
    std::vector<int>* distance;
    template <class E, class G> void tree_edge(E e, const G& g) const {
        (*distance)[boost::target(e, g)] = (*distance)[boost::source(e, g)] + 1;
    }
};

// -1 where the root does not reach
std::vector<int> distancesFrom(const Graph& g, int root) {
    std::vector<int> d(boost::num_vertices(g), -1);
    d[at(root)] = 0;
    RecordDistance vis;
    vis.distance = &d;
    boost::breadth_first_search(g, boost::vertex(at(root), g), boost::visitor(vis));
    return d;
}

// the farthest vertex from the root; the first in file order among the farthest
int farthest(const std::vector<int>& d, const std::vector<int>& members) {
    int best = members.front();
    for (const int v : members)
        if (d[at(v)] > d[at(best)]) best = v;
    return best;
}

const ArrangePort* findPort(const ArrangeItem& item, const std::string& name) {
    for (const ArrangePort& p : item.ports)
        if (p.name == name) return &p;
    return nullptr;
}

QRectF mirrored(const QRectF& r) { return QRectF(-r.right(), r.top(), r.width(), r.height()); }

// Positions y_i of a column's blocks, in this order, as near the wanted ones as the gaps allow:
// weighted least squares under y_{i+1} - y_i >= gap_i, which is isotonic regression of
// want_i - s_i with s_i the summed gaps (pool adjacent violators).
std::vector<double> nearestOrdered(const std::vector<double>& want, const std::vector<double>& gap,
                                   const std::vector<double>& weight) {
    const std::size_t n = want.size();
    std::vector<double> s(n, 0.0);
    for (std::size_t i = 1; i < n; ++i) s[i] = s[i - 1] + gap[i - 1];
    struct Pool {
        double sum, weight;   // of weight * (want - s), of weight
        int count;
        double mean() const { return sum / weight; }
    };
    std::vector<Pool> pools;
    for (std::size_t i = 0; i < n; ++i) {
        pools.push_back({weight[i] * (want[i] - s[i]), weight[i], 1});
        while (pools.size() > 1 && pools[pools.size() - 2].mean() > pools.back().mean()) {
            const Pool last = pools.back();
            pools.pop_back();
            pools.back() = {pools.back().sum + last.sum, pools.back().weight + last.weight,
                            pools.back().count + last.count};
        }
    }
    std::vector<double> y;
    y.reserve(n);
    for (const Pool& p : pools)
        for (int k = 0; k < p.count; ++k) y.push_back(p.mean() + s[y.size()]);
    return y;
}

class Layout {
public:
    Layout(const std::vector<ArrangeItem>& items, const std::vector<ArrangeLink>& links)
        : m_items(items),
          m_links(links),
          m_graph(items.size()),
          m_place(items.size()),
          m_extent(items.size()),
          m_linksOf(items.size()),
          m_hub(items.size(), false) {
        for (std::size_t i = 0; i < items.size(); ++i) m_extent[i] = items[i].extent;
        for (std::size_t k = 0; k < links.size(); ++k) {
            m_linksOf[at(links[k].a)].push_back(static_cast<int>(k));
            if (links[k].b != links[k].a) m_linksOf[at(links[k].b)].push_back(static_cast<int>(k));
        }
        // a reference goes under the blocks it holds; one that holds only other references (or
        // nothing) stays in the columns
        for (std::size_t v = 0; v < items.size(); ++v) m_hub[v] = items[v].hub && !m_linksOf[v].empty();
        for (std::size_t v = 0; v < items.size(); ++v)
            if (m_hub[v] && firstNeighbour(static_cast<int>(v)) < 0) m_hub[v] = false;
        for (const ArrangeLink& l : links)
            if (l.a != l.b && !isHub(l.a) && !isHub(l.b)) boost::add_edge(at(l.a), at(l.b), m_graph);
    }

    std::vector<Placement> run() {
        std::vector<int> component(m_items.size());
        const int count = static_cast<int>(boost::connected_components(m_graph, component.data()));
        std::vector<std::vector<int>> parts(at(count));
        for (std::size_t v = 0; v < m_items.size(); ++v)
            if (!isHub(static_cast<int>(v))) parts[at(component[v])].push_back(static_cast<int>(v));
        std::erase_if(parts, [](const std::vector<int>& p) { return p.empty(); });
        // a hub goes with the part of the first block it holds
        std::vector<std::vector<int>> hubs(parts.size());
        for (std::size_t v = 0; v < m_items.size(); ++v) {
            if (!isHub(static_cast<int>(v))) continue;
            const int first = firstNeighbour(static_cast<int>(v));
            for (std::size_t p = 0; p < parts.size(); ++p)
                if (std::find(parts[p].begin(), parts[p].end(), first) != parts[p].end())
                    hubs[p].push_back(static_cast<int>(v));
        }
        std::vector<QRectF> boxes;
        for (std::size_t p = 0; p < parts.size(); ++p) boxes.push_back(layPart(parts[p], hubs[p]));
        pack(parts, hubs, boxes);
        for (Placement& p : m_place) p.pos = QPointF(snap(p.pos.x()), snap(p.pos.y()));
        return m_place;
    }

private:
    bool isHub(int v) const { return m_hub[at(v)]; }

    int other(int k, int v) const { return m_links[at(k)].a == v ? m_links[at(k)].b : m_links[at(k)].a; }
    const std::string& portAt(int k, int v) const {
        return m_links[at(k)].a == v ? m_links[at(k)].portA : m_links[at(k)].portB;
    }

    int firstNeighbour(int v) const {
        int first = -1;
        for (const int k : m_linksOf[at(v)]) {
            const int o = other(k, v);
            if (o != v && !isHub(o) && (first < 0 || o < first)) first = o;
        }
        return first;
    }

    std::vector<int> neighbours(int v) const {
        std::vector<int> n;
        for (const int k : m_linksOf[at(v)]) {
            const int o = other(k, v);
            if (o != v && !isHub(o)) n.push_back(o);
        }
        return n;
    }

    // Columns by distance from one end of the part's longest path (the end nearer its first block
    // in file order), a signal source left of what it feeds and a sink right of it; then the
    // blocks mirrored whose ports face away from their neighbours, ordered and placed. Returns
    // the part's box, hubs included, in its own coordinates.
    QRectF layPart(const std::vector<int>& part, const std::vector<int>& hubs) {
        const int far = farthest(distancesFrom(m_graph, part.front()), part);
        const int root = farthest(distancesFrom(m_graph, far), part);
        std::vector<int> column = distancesFrom(m_graph, root);
        for (const int v : part) {
            if (v == root || boost::degree(at(v), m_graph) != 1) continue;
            for (const int k : m_linksOf[at(v)]) {
                const int o = other(k, v);
                if (o == v || isHub(o)) continue;
                const ArrangePort* port = findPort(m_items[at(v)], portAt(k, v));
                if (port && port->output) column[at(v)] = column[at(o)] - 1;
                if (port && port->input) column[at(v)] = column[at(o)] + 1;
            }
        }
        int lowest = 0, highest = 0;
        for (const int v : part) {
            lowest = std::min(lowest, column[at(v)]);
            highest = std::max(highest, column[at(v)]);
        }
        std::vector<std::vector<int>> columns(at(highest - lowest + 1));
        for (const int v : part) columns[at(column[at(v)] - lowest)].push_back(v);   // file order
        for (const int v : part) column[at(v)] -= lowest;

        for (const int v : part) mirrorIfBackwards(v, column);
        order(columns);

        double left = 0.0;
        for (std::size_t c = 0; c < columns.size(); ++c) {
            double width = 0.0;
            for (const int v : columns[c]) width = std::max(width, m_extent[at(v)].width());
            for (const int v : columns[c])
                m_place[at(v)].pos.setX(left + (width - m_extent[at(v)].width()) / 2 - m_extent[at(v)].left());
            const std::vector<double> gap = gaps(columns[c]);
            std::vector<double> want;
            for (const int v : columns[c])
                want.push_back(wanted(v, column, [&](int o) { return column[at(o)] < static_cast<int>(c); }));
            fillUnwanted(want, gap);
            // a block the chain goes on through keeps its place, one where it ends (a stop to
            // ground beside a spring) makes room: else the chain drifts by half a row a column
            std::vector<double> weight;
            for (const int v : columns[c]) {
                const auto further = neighbours(v);
                const bool through = std::any_of(further.begin(), further.end(),
                                                 [&](int o) { return column[at(o)] > static_cast<int>(c); });
                weight.push_back(through ? 1.0 : kDeadEndWeight);
            }
            place(columns[c], nearestOrdered(want, gap, weight));
            left += width + kColumnGap;
        }
        // back again: a block that nothing before it holds (a signal source, a sensor's reading)
        // beside what it is wired to after it; the others stay where they are
        for (std::size_t c = columns.size() - 1; c-- > 0;) {
            std::vector<double> want;
            for (const int v : columns[c]) {
                const auto before = [&](int o) { return column[at(o)] < static_cast<int>(c); };
                const auto after = [&](int o) { return column[at(o)] > static_cast<int>(c); };
                const double held = wanted(v, column, before);
                const double fed = wanted(v, column, after);
                want.push_back(std::isnan(held) && !std::isnan(fed) ? fed : m_place[at(v)].pos.y());
            }
            place(columns[c], nearestOrdered(want, gaps(columns[c]), std::vector<double>(want.size(), 1.0)));
        }
        QRectF box = boxOf(part);
        placeHubs(hubs, column, columns, box);
        for (const int v : hubs) box |= m_extent[at(v)].translated(m_place[at(v)].pos);
        return box;
    }

    // the least each block of a column needs below the one before it
    std::vector<double> gaps(const std::vector<int>& col) const {
        std::vector<double> gap;
        for (std::size_t i = 1; i < col.size(); ++i)
            gap.push_back(m_extent[at(col[i - 1])].bottom() - m_extent[at(col[i])].top() + kRowGap);
        return gap;
    }

    // on the grid at once, so that the next column's wanted heights carry no fraction of a unit
    // from this one (a chain of a thousand columns would add them up)
    void place(const std::vector<int>& col, const std::vector<double>& y) {
        for (std::size_t i = 0; i < col.size(); ++i) m_place[at(col[i])].pos.setY(snap(y[i]));
    }

    QPointF tip(int v, const std::string& port) const {
        const ArrangePort* p = findPort(m_items[at(v)], port);
        if (!p) return {};
        return m_place[at(v)].flip ? QPointF(-p->tip.x(), p->tip.y()) : p->tip;
    }
    double tipY(int v, const std::string& port) const { return tip(v, port).y(); }

    // The y at which v's wires to the placed blocks that `placed` picks run straight: the mean
    // over its links of the other end's tip less its own; the mechanical links only, if it has
    // any (a signal wire may bend), NaN without links to such blocks
    template <class Placed> double wanted(int v, const std::vector<int>& column, Placed placed) const {
        double sum[2] = {0.0, 0.0};
        int n[2] = {0, 0};
        for (const int k : m_linksOf[at(v)]) {
            const int o = other(k, v);
            if (o == v || isHub(o) || column[at(o)] < 0 || !placed(o)) continue;
            const ArrangePort* port = findPort(m_items[at(v)], portAt(k, v));
            const int signal = port && (port->input || port->output) ? 1 : 0;
            sum[signal] += m_place[at(o)].pos.y() + tipY(o, portAt(k, o)) - tipY(v, portAt(k, v));
            ++n[signal];
        }
        if (n[0] > 0) return sum[0] / n[0];
        if (n[1] > 0) return sum[1] / n[1];
        return std::nan("");
    }

    void mirrorIfBackwards(int v, const std::vector<int>& column) {
        int score = 0;
        for (const int k : m_linksOf[at(v)]) {
            const int o = other(k, v);
            if (o == v || isHub(o)) continue;
            const ArrangePort* port = findPort(m_items[at(v)], portAt(k, v));
            const int toward = column[at(o)] - column[at(v)];
            if (port) score += port->side * ((toward > 0) - (toward < 0));
        }
        if (score < 0 && m_items[at(v)].mirrors) {
            m_place[at(v)].flip = true;
            m_extent[at(v)] = mirrored(m_extent[at(v)]);
        }
    }

    // barycentre sweeps: each column sorted by the mean rank of its neighbours in the column
    // before (forward) or after (back); a block without such neighbours keeps its rank
    void order(std::vector<std::vector<int>>& columns) {
        std::vector<double> rank(m_items.size(), 0.0);
        const auto ranks = [&](const std::vector<int>& col) {
            for (std::size_t i = 0; i < col.size(); ++i) rank[at(col[i])] = static_cast<double>(i);
        };
        for (const auto& col : columns) ranks(col);
        const auto sortBy = [&](std::vector<int>& col, const std::vector<int>& beside) {
            std::vector<std::pair<double, int>> keyed;
            for (const int v : col) {
                double sum = 0.0;
                int n = 0;
                for (const int o : neighbours(v))
                    if (std::find(beside.begin(), beside.end(), o) != beside.end()) {
                        sum += rank[at(o)];
                        ++n;
                    }
                // scaled to the other column's ranks, so blocks with and without neighbours mix
                const double own = col.size() > 1 ? rank[at(v)] * static_cast<double>(beside.size() - 1) /
                                                        static_cast<double>(col.size() - 1)
                                                  : 0.0;
                keyed.emplace_back(n > 0 ? sum / n : own, v);
            }
            std::stable_sort(keyed.begin(), keyed.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            for (std::size_t i = 0; i < col.size(); ++i) col[i] = keyed[i].second;
            ranks(col);
        };
        for (int sweep = 0; sweep < kSweeps; ++sweep) {
            for (std::size_t c = 1; c < columns.size(); ++c) sortBy(columns[c], columns[c - 1]);
            for (std::size_t c = columns.size() - 1; c-- > 0;) sortBy(columns[c], columns[c + 1]);
        }
    }

    // a block with no neighbour in the columns before it wants to sit just below the one above
    // it (or above the one below); a column where none has one starts at 0
    static void fillUnwanted(std::vector<double>& want, const std::vector<double>& gap) {
        const std::size_t n = want.size();
        for (std::size_t i = 1; i < n; ++i)
            if (std::isnan(want[i]) && !std::isnan(want[i - 1])) want[i] = want[i - 1] + gap[i - 1];
        for (std::size_t i = n - 1; i-- > 0;)
            if (std::isnan(want[i]) && !std::isnan(want[i + 1])) want[i] = want[i + 1] - gap[i];
        double y = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            if (std::isnan(want[i])) want[i] = y;
            if (i + 1 < n) y = want[i] + gap[i];
        }
    }

    QRectF boxOf(const std::vector<int>& blocks) const {
        QRectF box;
        for (const int v : blocks) box |= m_extent[at(v)].translated(m_place[at(v)].pos);
        return box;
    }

    // under the blocks it holds, its port below the mean of theirs, below every block of the
    // columns they are in, clear of the other hubs
    void placeHubs(const std::vector<int>& hubs, const std::vector<int>& column,
                   const std::vector<std::vector<int>>& columns, const QRectF& box) {
        std::vector<QRectF> taken;   // the part's blocks and the hubs placed
        for (const auto& col : columns)
            for (const int v : col) taken.push_back(m_extent[at(v)].translated(m_place[at(v)].pos));
        for (const int h : hubs) {
            double sum = 0.0;
            int n = 0, lo = static_cast<int>(columns.size()), hi = -1;
            for (const int k : m_linksOf[at(h)]) {
                const int o = other(k, h);
                if (o == h || isHub(o) || column[at(o)] < 0) continue;
                sum += m_place[at(o)].pos.x() + tip(o, portAt(k, o)).x() - tip(h, portAt(k, h)).x();
                ++n;
                lo = std::min(lo, column[at(o)]);
                hi = std::max(hi, column[at(o)]);
            }
            double bottom = box.bottom();
            if (n > 0) {
                bottom = -std::numeric_limits<double>::infinity();
                for (int c = lo; c <= hi; ++c)
                    for (const int v : columns[at(c)])
                        bottom = std::max(bottom, m_extent[at(v)].translated(m_place[at(v)].pos).bottom());
            }
            // the nearest free spot beside the wanted one, else a row lower
            const QRectF& e = m_extent[at(h)];
            const QPointF want(n > 0 ? sum / n : box.center().x(), bottom + kRowGap - e.top());
            const auto free = [&](QPointF where) {
                const QRectF r = e.translated(where).adjusted(-kGrid, -kGrid, kGrid, kGrid);
                return std::none_of(taken.begin(), taken.end(), [&](const QRectF& t) { return t.intersects(r); });
            };
            QPointF pos = want;
            for (int row = 0; !free(pos); ++row) {
                const double y = want.y() + row * (e.height() + kRowGap);
                bool found = false;
                for (int step = 0; step <= kHubSearch && !found; ++step)
                    for (const int sign : {1, -1}) {
                        pos = QPointF(want.x() + sign * step * 2 * kGrid, y);
                        if (free(pos)) {
                            found = true;
                            break;
                        }
                    }
            }
            m_place[at(h)].pos = pos;
            taken.push_back(e.translated(pos));
        }
    }

    // parts in rows, the largest first, each part's box moved to its place
    void pack(const std::vector<std::vector<int>>& parts, const std::vector<std::vector<int>>& hubs,
              const std::vector<QRectF>& boxes) {
        std::vector<std::size_t> by(parts.size());
        std::iota(by.begin(), by.end(), std::size_t{0});
        std::stable_sort(by.begin(), by.end(), [&](std::size_t a, std::size_t b) {
            return parts[a].size() + hubs[a].size() > parts[b].size() + hubs[b].size();
        });
        double widest = kRowWidth;
        for (const QRectF& b : boxes) widest = std::max(widest, b.width());
        double x = 0.0, y = 0.0, rowHeight = 0.0;
        for (const std::size_t p : by) {
            const QRectF& box = boxes[p];
            if (x > 0.0 && x + box.width() > widest) {
                x = 0.0;
                y += rowHeight + kComponentGap;
                rowHeight = 0.0;
            }
            const QPointF shift = QPointF(x, y) - box.topLeft();
            for (const int v : parts[p]) m_place[at(v)].pos += shift;
            for (const int v : hubs[p]) m_place[at(v)].pos += shift;
            x += box.width() + kComponentGap;
            rowHeight = std::max(rowHeight, box.height());
        }
    }

    const std::vector<ArrangeItem>& m_items;
    const std::vector<ArrangeLink>& m_links;
    Graph m_graph;   // the links, without the hubs'
    std::vector<Placement> m_place;
    std::vector<QRectF> m_extent;   // as it will be drawn (mirrored if flipped)
    std::vector<std::vector<int>> m_linksOf;
    std::vector<bool> m_hub;
};

}   // namespace

std::vector<Placement> arrangeBlocks(const std::vector<ArrangeItem>& items, const std::vector<ArrangeLink>& links) {
    if (items.empty()) return {};
    return Layout(items, links).run();
}

}   // namespace endstop::gui
