// SPDX-License-Identifier: GPL-3.0-or-later
// Forward-mode AD in passes. A Jet (core/blockapi/block.hpp) carries a fixed number of derivative
// directions, so a block with more inputs than that is differentiated in several passes: pass p
// seeds the directions [first, first + kJetDirections), evaluates the block and reads those
// directions' derivatives back. Every Jacobian, gradient and row analysis of the engine runs
// this loop through forEachJetPass:
//
//     forEachJetPass(directions, [&](const JetPass& pass) {
//         ... seed inputs with pass.seed(value, direction), evaluate ...
//         pass.derivatives(row, [&](int direction, double d) { ... });
//     });
#pragma once

#include "core/blockapi/block.hpp"

#include <algorithm>
#include <cstddef>

namespace endstop::core::dae {

// The number of directions of a forward-mode scalar, read off its type.
template <class J> struct JetWidth;
template <int N> struct JetWidth<ad::Grad<N>> { static constexpr int value = N; };
inline constexpr int kJetDirections = JetWidth<Jet>::value;

// One pass over the directions [first, first + kJetDirections) of `count`.
class JetPass {
public:
    JetPass(int first, int count) : m_first(first), m_count(count) {}

    bool contains(int direction) const { return direction >= m_first && direction < m_first + kJetDirections; }
    // v, with derivative `weight` along `direction` if this pass carries it
    Jet seed(double v, int direction, double weight = 1.0) const {
        return contains(direction) ? Jet::seed(v, direction - m_first, weight) : Jet(v);
    }
    // f(direction, derivative) for every direction of this pass, zeros included
    template <class F> void derivatives(const Jet& g, F&& f) const {
        const int width = std::min(kJetDirections, m_count - m_first);
        for (int j = 0; j < width; ++j) f(m_first + j, g.d[static_cast<std::size_t>(j)]);
    }

private:
    int m_first, m_count;
};

template <class F> void forEachJetPass(int directions, F&& pass) {
    for (int first = 0; first < directions; first += kJetDirections) pass(JetPass(first, directions));
}

}   // namespace endstop::core::dae
