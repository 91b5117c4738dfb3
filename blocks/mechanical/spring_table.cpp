// SPDX-License-Identifier: GPL-3.0-or-later
#include "blocks/mechanical/spring_table.hpp"

#include <algorithm>
#include <cmath>

namespace endstop::blocks {

namespace {
std::size_t at(long i) { return static_cast<std::size_t>(i); }
}   // namespace

SpringTable::SpringTable(std::vector<double> x, std::vector<double> f, bool smooth, bool linearExtrapolation)
    : m_smooth(smooth), m_linear(linearExtrapolation) {
    if (!check(x, f).empty()) return;
    if (std::find(x.begin(), x.end(), 0.0) == x.end()) {
        const auto pos = std::upper_bound(x.begin(), x.end(), 0.0) - x.begin();
        x.insert(x.begin() + pos, 0.0);
        f.insert(f.begin() + pos, 0.0);
    }
    m_x = std::move(x);
    m_f = std::move(f);
    slopes();
}

std::string SpringTable::check(const std::vector<double>& x, const std::vector<double>& f) {
    if (x.size() != f.size())
        return "forces must have as many elements as displacements (" + std::to_string(x.size()) + "), got " +
               std::to_string(f.size());
    for (std::size_t i = 1; i < x.size(); ++i)
        if (!(x[i] > x[i - 1]))
            return "displacements must be strictly increasing (element " + std::to_string(i + 1) + ")";
    const bool hasOrigin = std::find(x.begin(), x.end(), 0.0) != x.end();
    if (x.size() + (hasOrigin ? 0 : 1) < 2) return "displacements need a point besides the origin";
    return {};
}

int SpringTable::regionOf(double x) const {
    return static_cast<int>(std::upper_bound(m_x.begin(), m_x.end(), x) - m_x.begin());
}

// Linear: the slope of the adjacent segment at each end (interior slopes are unused). Smooth:
// modified Akima (as MATLAB's makima), with the secants extended linearly past both ends.
void SpringTable::slopes() {
    const long n = static_cast<long>(m_x.size());
    std::vector<double> delta(at(n - 1));
    for (long i = 0; i + 1 < n; ++i) delta[at(i)] = (m_f[at(i + 1)] - m_f[at(i)]) / (m_x[at(i + 1)] - m_x[at(i)]);
    m_d.assign(at(n), 0.0);
    if (!m_smooth) {
        m_d.front() = delta.front();
        m_d.back() = delta.back();
        return;
    }
    auto secant = [&](long i) {   // delta_i for i in [-2, n], extended linearly
        const long last = n - 2;
        if (i >= 0 && i <= last) return delta[at(i)];
        const double d0 = delta[0], d1 = last >= 1 ? delta[1] : d0;
        const double e0 = delta[at(last)], e1 = last >= 1 ? delta[at(last - 1)] : e0;
        if (i == -1) return 2 * d0 - d1;
        if (i == -2) return 2 * (2 * d0 - d1) - d0;
        if (i == last + 1) return 2 * e0 - e1;
        return 2 * (2 * e0 - e1) - e0;
    };
    for (long i = 0; i < n; ++i) {
        const double dm2 = secant(i - 2), dm1 = secant(i - 1), d0 = secant(i), d1 = secant(i + 1);
        const double w1 = std::abs(d1 - d0) + std::abs(d1 + d0) / 2;
        const double w2 = std::abs(dm1 - dm2) + std::abs(dm1 + dm2) / 2;
        m_d[at(i)] = w1 + w2 > 0 ? (w1 * dm1 + w2 * d0) / (w1 + w2) : 0.0;
    }
}

}   // namespace endstop::blocks
