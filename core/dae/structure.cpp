// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dae/structure.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/max_cardinality_matching.hpp>

#include <algorithm>

namespace endstop::core::dae {

namespace {
std::size_t at(int i) { return static_cast<std::size_t>(i); }

// A bipartite matching of rows to unknowns by augmenting paths (cheap assignment first, then an
// iterative depth-first search): near linear on networks, where Boost's general-graph Edmonds
// search from a greedy start is quadratic. It only warm-starts Boost, which then confirms that no
// augmenting path is left.
std::vector<int> warmStart(const Incidence& inc) {
    const int nRows = static_cast<int>(inc.rows.size());
    std::vector<int> rowOf(at(inc.vars), -1), varOf(at(nRows), -1), mark(at(nRows), -1);
    for (int r = 0; r < nRows; ++r) {
        for (const auto& [v, o] : inc.rows[at(r)])
            if (rowOf[at(v)] < 0) {
                rowOf[at(v)] = r;
                varOf[at(r)] = v;
                break;
            }
    }
    struct Frame {
        int row;
        int via;
        std::size_t next;
    };
    std::vector<Frame> stack;
    for (int root = 0; root < nRows; ++root) {
        if (varOf[at(root)] >= 0) continue;
        stack.assign(1, {root, -1, 0});
        mark[at(root)] = root;
        while (!stack.empty()) {
            Frame& f = stack.back();
            const auto& row = inc.rows[at(f.row)];
            int freeVar = -1;
            for (const auto& [v, o] : row)
                if (rowOf[at(v)] < 0) {
                    freeVar = v;
                    break;
                }
            if (freeVar >= 0) {   // augment along the stack
                int v = freeVar;
                for (std::size_t k = stack.size(); k-- > 0;) {
                    const int r = stack[k].row;
                    const int previous = varOf[at(r)];
                    rowOf[at(v)] = r;
                    varOf[at(r)] = v;
                    v = previous;
                    if (k > 0 && v != stack[k].via) break;
                }
                break;
            }
            bool pushed = false;
            while (f.next < row.size()) {
                const int v = row[f.next++].first;
                const int r = rowOf[at(v)];
                if (mark[at(r)] == root) continue;
                mark[at(r)] = root;
                stack.push_back({r, v, 0});
                pushed = true;
                break;
            }
            if (!pushed) stack.pop_back();
        }
    }
    return varOf;
}

template <typename Graph, typename MateMap> struct KeepMatching {   // the mate map already holds warmStart()'s matching
    static void find_matching(const Graph&, MateMap) {}
};
}   // namespace

std::optional<Singularity> findSingularity(const Incidence& inc) {
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    const int nRows = static_cast<int>(inc.rows.size());
    const std::vector<int> warm = warmStart(inc);
    // a perfect matching leaves no augmenting path to confirm: Boost's graph of a 40,000-block
    // network (25 MB) is built only to explain a singular one
    if (nRows == inc.vars && std::all_of(warm.begin(), warm.end(), [](int v) { return v >= 0; })) return std::nullopt;
    Graph g(at(nRows + inc.vars));
    for (int r = 0; r < nRows; ++r) {
        std::vector<int> seen;
        for (const auto& [v, order] : inc.rows[at(r)]) {
            if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
            seen.push_back(v);
            boost::add_edge(at(r), at(nRows + v), g);
        }
    }
    const auto none = boost::graph_traits<Graph>::null_vertex();
    std::vector<boost::graph_traits<Graph>::vertex_descriptor> mate(at(nRows + inc.vars), none);
    for (int r = 0; r < nRows; ++r)
        if (warm[at(r)] >= 0) {
            mate[at(r)] = at(nRows + warm[at(r)]);
            mate[at(nRows + warm[at(r)])] = at(r);
        }
    boost::matching<Graph, decltype(mate.data()), boost::property_map<Graph, boost::vertex_index_t>::type,
                    boost::edmonds_augmenting_path_finder, KeepMatching, boost::no_matching_verifier>(
        g, mate.data(), boost::get(boost::vertex_index, g));

    // Dulmage-Mendelsohn: rows reachable from an unmatched row by alternating paths are
    // over-determined; unknowns reachable from an unmatched unknown are under-determined.
    Singularity s;
    std::vector<char> rowSeen(at(nRows)), varSeen(at(inc.vars));
    std::vector<int> stack;
    for (int r = 0; r < nRows; ++r)
        if (mate[at(r)] == none) {
            stack.push_back(r);
            rowSeen[at(r)] = 1;
        }
    while (!stack.empty()) {
        const int r = stack.back();
        stack.pop_back();
        s.rows.push_back(r);
        for (const auto& [v, order] : inc.rows[at(r)]) {
            const auto m = mate[at(nRows + v)];
            if (m == none || rowSeen[m]) continue;
            rowSeen[m] = 1;
            stack.push_back(static_cast<int>(m));
        }
    }
    std::vector<std::vector<int>> rowsOfVar(at(inc.vars));
    for (int r = 0; r < nRows; ++r)
        for (const auto& [v, order] : inc.rows[at(r)]) rowsOfVar[at(v)].push_back(r);
    for (int v = 0; v < inc.vars; ++v)
        if (mate[at(nRows + v)] == none) {
            stack.push_back(v);
            varSeen[at(v)] = 1;
        }
    while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        s.vars.push_back(v);
        for (int r : rowsOfVar[at(v)]) {
            const auto m = mate[at(r)];
            if (m == none) continue;
            const int mv = static_cast<int>(m) - nRows;
            if (varSeen[at(mv)]) continue;
            varSeen[at(mv)] = 1;
            stack.push_back(mv);
        }
    }
    if (s.rows.empty() && s.vars.empty()) return std::nullopt;
    std::sort(s.rows.begin(), s.rows.end());
    std::sort(s.vars.begin(), s.vars.end());
    return s;
}

namespace {

class Pantelides {
public:
    explicit Pantelides(const Incidence& inc) : m_rows(inc.rows), m_order(at(inc.vars), 0), m_assign(at(inc.vars), -1) {
        const int n = static_cast<int>(inc.rows.size());
        m_origin.resize(at(n));
        m_diffOf.assign(at(n), -1);
        for (int r = 0; r < n; ++r) {
            m_origin[at(r)] = r;
            for (const auto& [v, o] : m_rows[at(r)]) m_order[at(v)] = std::max(m_order[at(v)], o);
        }
    }

    Reduction run() {
        const int n = static_cast<int>(m_origin.size());
        for (int k = 0; k < n; ++k) {
            m_root = k;
            int i = k;
            for (;;) {
                ++m_mark;
                if (augment(i)) break;
                differentiateColoured();
                i = m_diffOf[at(i)];
            }
        }
        Reduction out;
        for (int r = 0; r < n; ++r)
            if (m_diffOf[at(r)] >= 0) out.differentiated.push_back(r);
        out.order = m_order;
        return out;
    }

private:
    bool highest(int v, int o) const { return m_order[at(v)] == o; }

    // Depth-first search for an augmenting path from row `root`, iterative (chains are deep).
    bool augment(int root) {
        struct Frame {
            int row;
            int via;
            std::size_t next;
        };
        std::vector<Frame> stack{{root, -1, 0}};
        colour(m_rowMark, root);
        m_colouredRows.assign(1, root);
        m_colouredVars.clear();
        while (!stack.empty()) {
            Frame& f = stack.back();
            if (f.next == 0) {   // cheap assignment first
                for (const auto& [v, o] : m_rows[at(f.row)]) {
                    if (!highest(v, o) || m_assign[at(v)] >= 0) continue;
                    m_assign[at(v)] = f.row;
                    for (std::size_t k = stack.size() - 1; k > 0; --k) m_assign[at(stack[k].via)] = stack[k - 1].row;
                    return true;
                }
            }
            bool pushed = false;
            while (f.next < m_rows[at(f.row)].size()) {
                const auto [v, o] = m_rows[at(f.row)][f.next++];
                if (!highest(v, o) || coloured(m_varMark, v)) continue;
                colour(m_varMark, v);
                m_colouredVars.push_back(v);
                const int r = m_assign[at(v)];
                if (coloured(m_rowMark, r)) continue;
                colour(m_rowMark, r);
                m_colouredRows.push_back(r);
                stack.push_back({r, v, 0});
                pushed = true;
                break;
            }
            if (!pushed) stack.pop_back();
        }
        return false;
    }

    void differentiateColoured() {
        for (int v : m_colouredVars) {
            if (m_order[at(v)] >= 1) throw IndexTooHigh(m_root, v);
            ++m_order[at(v)];
        }
        for (int r : m_colouredRows) {
            if (m_diffOf[at(r)] >= 0 || m_origin[at(r)] != r) throw IndexTooHigh(m_root, -1);
            std::vector<std::pair<int, int>> d;
            for (const auto& [v, o] : m_rows[at(r)]) {
                if (o >= 1) throw IndexTooHigh(m_root, v);
                d.emplace_back(v, o + 1);
            }
            const int id = static_cast<int>(m_rows.size());
            m_rows.push_back(std::move(d));
            m_origin.push_back(m_origin[at(r)]);
            m_diffOf.push_back(-1);
            m_diffOf[at(r)] = id;
        }
        for (int v : m_colouredVars) m_assign[at(v)] = m_diffOf[at(m_assign[at(v)])];
        m_rowMark.resize(m_rows.size(), 0);
    }

    void colour(std::vector<int>& marks, int i) {
        if (marks.size() <= at(i)) marks.resize(at(i) + 1, 0);
        marks[at(i)] = m_mark;
    }
    bool coloured(const std::vector<int>& marks, int i) const { return at(i) < marks.size() && marks[at(i)] == m_mark; }

    std::vector<std::vector<std::pair<int, int>>> m_rows;
    std::vector<int> m_origin;   // per row: the original row it derives from
    std::vector<int> m_diffOf;   // per row: its derivative, -1 if none
    std::vector<int> m_order;
    std::vector<int> m_assign;   // per unknown: row matched to its highest derivative
    std::vector<int> m_rowMark, m_varMark;
    std::vector<int> m_colouredRows, m_colouredVars;
    int m_mark = 0;
    int m_root = 0;   // the original row being matched
};

}   // namespace

Reduction pantelides(const Incidence& inc) { return Pantelides(inc).run(); }

}   // namespace endstop::core::dae
