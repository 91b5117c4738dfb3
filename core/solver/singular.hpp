// SPDX-License-Identifier: GPL-3.0-or-later
// What a singular system leaves undetermined. Where no consistent state can be found at the start
// because the equations have no unique solution (an algebraic loop whose gain is 1, two
// constraints that say the same thing in numbers though not in structure), the failure names the
// unknowns that a null vector of the index-1 matrix moves, and their blocks (docs/reliability.md,
// "A singular start").
#pragma once

#include "core/dae/dae_system.hpp"

#include <vector>

namespace endstop::core::solver {

// Above this many columns the dense elimination below is not tried (8 MB, a fraction of a second).
inline constexpr int kMaxUndeterminedColumns = 1000;

// The columns a null vector of the matrix (values on the CSC pattern p) moves, largest component
// first; empty if the matrix is regular to double precision after scaling its rows and columns to
// a largest entry of 1, or if it has more than kMaxUndeterminedColumns columns.
std::vector<int> undeterminedColumns(const dae::Pattern& p, const std::vector<double>& values);

}   // namespace endstop::core::solver
