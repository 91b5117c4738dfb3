// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/solver/singular.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace endstop::core::solver {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// An entry below this, after scaling, counts as zero: an exact loop of gain 1 leaves round-off
// of 1e-16, a stiff but regular network (1e9 N/m beside 1e-3 kg) scales to entries near 1.
constexpr double kZeroPivot = 1e-11;

}   // namespace

std::vector<int> undeterminedColumns(const dae::Pattern& p, const std::vector<double>& values) {
    const int n = p.n;
    if (n == 0 || n > kMaxUndeterminedColumns || values.size() != at(p.nnz())) return {};
    const std::size_t un = at(n);
    std::vector<double> a(un * un, 0.0);   // row-major
    const auto el = [&](int r, int c) -> double& { return a[at(r) * un + at(c)]; };
    for (int c = 0; c < n; ++c)
        for (int k = p.colPtr[at(c)]; k < p.colPtr[at(c + 1)]; ++k) el(p.rowIdx[at(k)], c) += values[at(k)];
    // equilibrate: rows, then columns, to a largest entry of 1 (a zero row or column stays zero)
    for (int r = 0; r < n; ++r) {
        double big = 0.0;
        for (int c = 0; c < n; ++c) big = std::max(big, std::abs(el(r, c)));
        if (big > 0.0 && std::isfinite(big))
            for (int c = 0; c < n; ++c) el(r, c) /= big;
    }
    std::vector<double> colScale(un, 1.0);
    for (int c = 0; c < n; ++c) {
        double big = 0.0;
        for (int r = 0; r < n; ++r) big = std::max(big, std::abs(el(r, c)));
        if (big > 0.0 && std::isfinite(big)) {
            colScale[at(c)] = big;
            for (int r = 0; r < n; ++r) el(r, c) /= big;
        }
    }
    if (!std::all_of(a.begin(), a.end(), [](double v) { return std::isfinite(v); })) return {};
    // Gaussian elimination with complete pivoting: P A Q = L U, stopped where the rest is zero
    std::vector<int> col(un);   // col[k]: the original column in position k
    std::iota(col.begin(), col.end(), 0);
    int rank = 0;
    for (; rank < n; ++rank) {
        int pr = rank, pc = rank;
        double big = 0.0;
        for (int r = rank; r < n; ++r)
            for (int c = rank; c < n; ++c)
                if (std::abs(el(r, c)) > big) {
                    big = std::abs(el(r, c));
                    pr = r;
                    pc = c;
                }
        if (big <= kZeroPivot) break;
        for (int c = 0; c < n; ++c) std::swap(el(rank, c), el(pr, c));
        for (int r = 0; r < n; ++r) std::swap(el(r, rank), el(r, pc));
        std::swap(col[at(rank)], col[at(pc)]);
        for (int r = rank + 1; r < n; ++r) {
            const double f = el(r, rank) / el(rank, rank);
            if (f == 0.0) continue;
            for (int c = rank; c < n; ++c) el(r, c) -= f * el(rank, c);
        }
    }
    if (rank == n) return {};
    // the null vector with a 1 in the first column past the rank: U11 x1 = -U12 e
    std::vector<double> x(un, 0.0);
    x[at(rank)] = 1.0;
    for (int i = rank - 1; i >= 0; --i) {
        double s = el(i, rank);
        for (int j = i + 1; j < rank; ++j) s += el(i, j) * x[at(j)];
        x[at(i)] = -s / el(i, i);
    }
    // back to the unscaled unknowns: A (D x) = 0 for the scaled columns' D^-1
    std::vector<std::pair<double, int>> moved;
    double largest = 0.0;
    for (int k = 0; k < n; ++k) largest = std::max(largest, std::abs(x[at(k)] / colScale[at(col[at(k)])]));
    for (int k = 0; k < n; ++k)
        if (const double v = std::abs(x[at(k)] / colScale[at(col[at(k)])]); v > 1e-6 * largest)
            moved.emplace_back(v, col[at(k)]);
    std::sort(moved.begin(), moved.end(), [](const auto& l, const auto& r) { return l.first > r.first; });
    std::vector<int> out;
    for (const auto& [v, c] : moved) out.push_back(c);
    return out;
}

}   // namespace endstop::core::solver
