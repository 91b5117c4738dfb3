// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/min_max_cache.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace endstop::gui {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Per pixel column: the first, lowest, highest and last sample, kept with their indices so that
// samples at one time (the rows just before and after an event) stay in order.
class M4 {
public:
    M4(std::span<const double> time, std::span<const double> values, double t0, double pixel,
       std::vector<PlotPoint>& out)
        : m_time(time), m_values(values), m_t0(t0), m_pixel(pixel), m_out(out) {}
    ~M4() { flush(); }
    M4(const M4&) = delete;
    M4& operator=(const M4&) = delete;

    long column(double t) const { return static_cast<long>(std::floor((t - m_t0) / m_pixel)); }
    long columnOf(std::size_t i) const { return column(m_time[i]); }

    void raw(std::size_t i) { add(columnOf(i), i, i, i, i); }
    void node(const MinMaxCache::Node& n, std::size_t first, std::size_t end) {
        add(columnOf(first), first, std::isfinite(n.min) ? n.argMin : first, std::isfinite(n.max) ? n.argMax : first,
            end - 1);
    }

private:
    void add(long col, std::size_t first, std::size_t lo, std::size_t hi, std::size_t last) {
        if (!m_any || col != m_col) {
            flush();
            m_any = true;
            m_col = col;
            m_idx = {first, lo, hi, last};
            return;
        }
        m_idx[3] = last;
        if (beats(lo, m_idx[1], -1)) m_idx[1] = lo;
        if (beats(hi, m_idx[2], +1)) m_idx[2] = hi;
    }
    // sample a is lower (sign -1) or higher (+1) than sample b; a NaN never wins, ties keep b
    bool beats(std::size_t a, std::size_t b, int sign) const {
        const double va = m_values[a], vb = m_values[b];
        if (std::isnan(va)) return false;
        if (std::isnan(vb)) return true;
        return sign < 0 ? va < vb : va > vb;
    }
    void flush() {
        if (!m_any) return;
        std::sort(m_idx.begin(), m_idx.end());
        for (std::size_t k = 0; k < m_idx.size(); ++k)
            if (k == 0 || m_idx[k] != m_idx[k - 1]) m_out.push_back({m_time[m_idx[k]], m_values[m_idx[k]]});
        m_any = false;
    }

    std::span<const double> m_time, m_values;
    double m_t0, m_pixel;
    std::vector<PlotPoint>& m_out;
    bool m_any = false;
    long m_col = 0;
    std::array<std::size_t, 4> m_idx{};
};

MinMaxCache::Node combine(const MinMaxCache::Node& a, const MinMaxCache::Node& b) {
    MinMaxCache::Node n = a;
    if (b.min < n.min) {
        n.min = b.min;
        n.argMin = b.argMin;
    }
    if (b.max > n.max) {
        n.max = b.max;
        n.argMax = b.argMax;
    }
    return n;
}

}   // namespace

std::size_t MinMaxCache::span(std::size_t level) {
    std::size_t s = kLeaf;
    for (std::size_t l = 0; l < level; ++l) s *= kFanOut;
    return s;
}

void MinMaxCache::clear() {
    m_values.clear();
    m_levels.clear();
    m_min = kInf;
    m_max = -kInf;
}

MinMaxCache::Node MinMaxCache::leaf(std::size_t first) const {
    const auto i0 = static_cast<std::uint32_t>(first);
    Node n{kInf, -kInf, i0, i0};
    for (std::size_t i = first; i < first + kLeaf; ++i) {
        const double v = m_values[i];
        if (v < n.min) {
            n.min = v;
            n.argMin = static_cast<std::uint32_t>(i);
        }
        if (v > n.max) {
            n.max = v;
            n.argMax = static_cast<std::uint32_t>(i);
        }
    }
    return n;
}

void MinMaxCache::addNode(std::size_t level, const Node& n) {
    if (m_levels.size() <= level) m_levels.resize(level + 1);
    std::vector<Node>& nodes = m_levels[level];
    nodes.push_back(n);
    if (nodes.size() % kFanOut != 0) return;
    Node parent = nodes[nodes.size() - kFanOut];
    for (std::size_t k = nodes.size() - kFanOut + 1; k < nodes.size(); ++k) parent = combine(parent, nodes[k]);
    addNode(level + 1, parent);
}

void MinMaxCache::append(std::span<const double> values) {
    if (m_values.capacity() < m_values.size() + values.size())   // geometric: appended every frame
        m_values.reserve(std::max(m_values.size() + values.size(), 2 * m_values.capacity()));
    for (const double v : values) {
        m_values.push_back(v);
        if (std::isfinite(v)) {
            m_min = std::min(m_min, v);
            m_max = std::max(m_max, v);
        }
        if (m_values.size() % kLeaf == 0) addNode(0, leaf(m_values.size() - kLeaf));
    }
}

template <class Fits, class OnNode, class OnRaw>
void MinMaxCache::cover(std::size_t level, std::size_t i, std::size_t lo, std::size_t hi, const Fits& fits,
                        const OnNode& onNode, const OnRaw& onRaw) const {
    const std::size_t sp = span(level);
    const std::size_t s0 = i * sp, s1 = s0 + sp;
    if (s1 <= lo || s0 >= hi) return;
    if (lo <= s0 && s1 <= hi && fits(s0, s1)) {
        onNode(m_levels[level][i], s0, s1);
    } else if (level == 0) {
        for (std::size_t s = std::max(s0, lo); s < std::min(s1, hi); ++s) onRaw(s);
    } else {
        for (std::size_t c = 0; c < kFanOut; ++c) cover(level - 1, i * kFanOut + c, lo, hi, fits, onNode, onRaw);
    }
}

template <class Fits, class OnNode, class OnRaw> void MinMaxCache::walk(std::size_t lo, std::size_t hi,
                                                                        const Fits& fits, const OnNode& onNode,
                                                                        const OnRaw& onRaw) const {
    std::size_t pos = 0;   // samples [0, pos) are covered by the levels above
    for (std::size_t level = m_levels.size(); level-- > 0;) {
        const std::size_t sp = span(level), count = m_levels[level].size();
        for (std::size_t i = std::max(pos, lo) / sp; i < count && i * sp < hi; ++i)
            cover(level, i, lo, hi, fits, onNode, onRaw);
        pos = std::max(pos, count * sp);
    }
    for (std::size_t s = std::max(pos, lo); s < hi; ++s) onRaw(s);
}

std::pair<std::size_t, std::size_t> MinMaxCache::indexRange(std::span<const double> time, double t0, double t1) {
    const auto first = std::lower_bound(time.begin(), time.end(), t0);
    const auto last = std::upper_bound(first, time.end(), t1);
    return {static_cast<std::size_t>(first - time.begin()), static_cast<std::size_t>(last - time.begin())};
}

void MinMaxCache::envelope(std::span<const double> time, double t0, double t1, int columns,
                           std::vector<PlotPoint>& out) const {
    time = time.first(std::min(time.size(), size()));
    if (time.empty() || !(t1 > t0) || columns < 1) return;
    auto [lo, hi] = indexRange(time, t0, t1);
    if (lo > 0) --lo;   // the line comes in from the left
    if (hi < time.size()) ++hi;
    if (lo >= hi) return;
    const double pixel = (t1 - t0) / columns;
    M4 m4(time, m_values, t0, pixel, out);
    walk(
        lo, hi, [&](std::size_t s0, std::size_t s1) { return m4.columnOf(s0) == m4.columnOf(s1 - 1); },
        [&](const Node& n, std::size_t s0, std::size_t s1) { m4.node(n, s0, s1); }, [&](std::size_t s) { m4.raw(s); });
}

std::pair<double, double> MinMaxCache::range(std::span<const double> time, double t0, double t1) const {
    time = time.first(std::min(time.size(), size()));
    const auto [lo, hi] = indexRange(time, t0, t1);
    std::pair<double, double> r{kInf, -kInf};
    walk(
        lo, hi, [](std::size_t, std::size_t) { return true; },
        [&](const Node& n, std::size_t, std::size_t) {
            r.first = std::min(r.first, n.min);
            r.second = std::max(r.second, n.max);
        },
        [&](std::size_t s) {
            if (!std::isfinite(m_values[s])) return;
            r.first = std::min(r.first, m_values[s]);
            r.second = std::max(r.second, m_values[s]);
        });
    return r;
}

}   // namespace endstop::gui
