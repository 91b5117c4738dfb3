// SPDX-License-Identifier: GPL-3.0-or-later
// MinMaxCache: one trace's full data plus a min/max pyramid over it, so a plot draws a few points
// per pixel column however many samples the run produced (8 traces x 1,000,000 samples stay
// interactive while zooming and panning).
//
// Level 0 summarises kLeaf consecutive samples, each level above kFanOut nodes of the one below;
// a node keeps its minimum and maximum and where they occur. Only complete nodes exist: the tail of
// a growing trace is read raw. envelope() covers the visible samples with the largest nodes that
// fall inside one pixel column (descending to raw samples where a node straddles a column border)
// and keeps, per pixel column, its first, minimum, maximum and last sample in time order (M4):
// drawn as a polyline, this rasterises exactly like the raw data. Times are not stored here: a run
// keeps one time vector for all its traces and passes it in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace endstop::gui {

struct PlotPoint {
    double t = 0.0;
    double v = 0.0;
    bool operator==(const PlotPoint&) const = default;
};

class MinMaxCache {
public:
    struct Node {
        double min, max;
        std::uint32_t argMin, argMax;   // sample indices
    };
    static constexpr std::size_t kLeaf = 16;
    static constexpr std::size_t kFanOut = 4;

    void append(std::span<const double> values);
    void clear();
    std::size_t size() const { return m_values.size(); }
    const std::vector<double>& values() const { return m_values; }
    double minimum() const { return m_min; }   // over every finite sample; +inf if none
    double maximum() const { return m_max; }

    // Points to draw for the samples with t0 <= time <= t1, plus the nearest one outside on
    // either side, with `columns` pixel columns across [t0, t1]. `time` has at least size() entries,
    // non-decreasing. Appends to `out`.
    void envelope(std::span<const double> time, double t0, double t1, int columns, std::vector<PlotPoint>& out) const;
    // Minimum and maximum of the finite samples with t0 <= time <= t1 ({+inf, -inf} if none).
    std::pair<double, double> range(std::span<const double> time, double t0, double t1) const;
    // Index range [first, last) of the samples with t0 <= time <= t1.
    static std::pair<std::size_t, std::size_t> indexRange(std::span<const double> time, double t0, double t1);

private:
    void addNode(std::size_t level, const Node& n);
    // Covers samples [lo, hi) in order: onNode(node, first, end) for complete nodes inside the
    // range for which fits(first, end) holds, onRaw(index) for the rest.
    template <class Fits, class OnNode, class OnRaw>
    void walk(std::size_t lo, std::size_t hi, const Fits& fits, const OnNode& onNode, const OnRaw& onRaw) const;
    template <class Fits, class OnNode, class OnRaw> void cover(std::size_t level, std::size_t i, std::size_t lo,
                                                                std::size_t hi, const Fits& fits, const OnNode& onNode,
                                                                const OnRaw& onRaw) const;
    Node leaf(std::size_t first) const;
    static std::size_t span(std::size_t level);   // samples a node of this level covers

    std::vector<double> m_values;
    std::vector<std::vector<Node>> m_levels;
    double m_min = std::numeric_limits<double>::infinity();
    double m_max = -std::numeric_limits<double>::infinity();
};

}   // namespace endstop::gui
