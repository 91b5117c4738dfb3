// SPDX-License-Identifier: GPL-3.0-or-later
// A force-deformation table for the nonlinear spring: the points with (0, 0) added if
// no displacement is 0, linear or smooth interpolation (modified Akima: a C1 piecewise cubic that
// does not overshoot flat parts), linear (the end slope) or nearest (the end force) extrapolation.
// Regions: 0 below the first point, i between points i - 1 and i, n above the last (n points).
#pragma once

#include "core/ad/scalar.hpp"

#include <string>
#include <vector>

namespace endstop::blocks {

class SpringTable {
public:
    SpringTable() = default;
    // an invalid table (see check()) gives an empty one: zero force, no breakpoints
    SpringTable(std::vector<double> x, std::vector<double> f, bool smooth, bool linearExtrapolation);

    // "" if the table is usable, else the reason, starting with the parameter it is about
    static std::string check(const std::vector<double>& x, const std::vector<double>& f);

    const std::vector<double>& breakpoints() const { return m_x; }
    int regionOf(double x) const;   // the number of breakpoints <= x
    // The first (upper: last) point's displacement and the slope the force keeps beyond it:
    // the interpolant's end slope with linear extrapolation, 0 with nearest or an empty table
    double endPoint(bool upper) const { return m_x.empty() ? 0.0 : upper ? m_x.back() : m_x.front(); }
    double endSlope(bool upper) const { return m_x.empty() || !m_linear ? 0.0 : upper ? m_d.back() : m_d.front(); }

    template <class S> S force(const S& x, int region) const {
        const int n = static_cast<int>(m_x.size());
        if (n < 2) return S(0.0);
        if (region <= 0) return end(x, 0);
        if (region >= n) return end(x, n - 1);
        const auto i = static_cast<std::size_t>(region - 1);
        const double h = m_x[i + 1] - m_x[i];
        const S t = (x - m_x[i]) / h;
        if (!m_smooth) return m_f[i] + t * (m_f[i + 1] - m_f[i]);
        const S t2 = t * t, t3 = t2 * t;   // cubic Hermite with the slopes m_d
        return (2.0 * t3 - 3.0 * t2 + 1.0) * m_f[i] + (t3 - 2.0 * t2 + t) * (h * m_d[i]) +
               (3.0 * t2 - 2.0 * t3) * m_f[i + 1] + (t3 - t2) * (h * m_d[i + 1]);
    }

private:
    template <class S> S end(const S& x, int k) const {
        const auto i = static_cast<std::size_t>(k);
        return m_linear ? m_f[i] + m_d[i] * (x - m_x[i]) : S(m_f[i]);
    }
    void slopes();

    std::vector<double> m_x, m_f, m_d;   // points and the interpolant's slope at each point
    bool m_smooth = false;
    bool m_linear = true;
};

}   // namespace endstop::blocks
