// SPDX-License-Identifier: GPL-3.0-or-later
// Structural analysis of F(t, y, y') = 0 on its incidence: which unknown (and which derivative of
// it) appears in which row.
//
// findSingularity(): a maximum matching of rows to unknowns, derivative order ignored (Boost's
// Edmonds matching). If it is not perfect the system is structurally singular whatever the
// values: the unmatched rows are over-determined, the unmatched unknowns under-determined.
//
// pantelides(): for a nonsingular system, the rows that must be differentiated so that every row
// can be matched to a highest derivative (Pantelides 1988). Endstop differentiates a row at most
// once and only rows free of derivatives (velocity and force constraints); deeper reduction is
// refused with the row that needed it.
#pragma once

#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace endstop::core::dae {

struct Incidence {
    int vars = 0;
    std::vector<std::vector<std::pair<int, int>>> rows;   // per row: (unknown, derivative order 0|1)
};

struct Singularity {
    std::vector<int> rows;   // rows in the over-determined part (unmatched and reachable from them)
    std::vector<int> vars;   // unknowns in the under-determined part
};

std::optional<Singularity> findSingularity(const Incidence& inc);

struct Reduction {
    std::vector<int> differentiated;   // original rows to differentiate once
    std::vector<int> order;            // per unknown: highest derivative order after reduction
};

class IndexTooHigh : public std::runtime_error {
public:
    IndexTooHigh(int row, int var) : std::runtime_error("index too high"), m_row(row), m_var(var) {}
    // the original row whose matching needs a second differentiation (of itself or of the rows
    // it leads to): the constraint that makes the index too high
    int row() const { return m_row; }
    int var() const { return m_var; }

private:
    int m_row, m_var;
};

Reduction pantelides(const Incidence& inc);   // throws IndexTooHigh

}   // namespace endstop::core::dae
