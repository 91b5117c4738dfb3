// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/solver/restart.hpp"

#include "core/solver/sundials_raii.hpp"

#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>   // its SM_ macros; the library itself is the KLU module's

#include <algorithm>
#include <cmath>

namespace endstop::core::solver {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

}   // namespace

std::vector<double> indexOneMatrix(dae::ReducedEvaluator& ev, const dae::State& s, const std::vector<double>& id) {
    const dae::Pattern& p = ev.pattern();
    std::vector<double> j0(at(p.nnz())), j1(at(p.nnz()));
    ev.jacobian(s, 0.0, j0.data());
    ev.jacobian(s, 1.0, j1.data());
    for (int c = 0; c < p.n; ++c)
        if (id[at(c)] != 0.0)
            for (int k = p.colPtr[at(c)]; k < p.colPtr[at(c + 1)]; ++k) j0[at(k)] = j1[at(k)] - j0[at(k)];
    return j0;
}

namespace {

// -(F_t + F_y(:, diff) y'_d) by a forward difference along the differential motion: forward,
// because the solution goes on from here (a kink at the event would spoil a central one)
void rightHandSide(dae::ReducedEvaluator& ev, const RestartInput& in, const std::vector<int>& rows, const double* y,
                   const double* yp, double* b, RestartScratch& s) {
    const int n = ev.size();
    // the increment is the one t + eps really represents, so that a residual linear in t (a ramp)
    // differences exactly; it stays well above round-off of t, or a tight tolerance's tiny last
    // step would leave y'_a with a 1e-3 error that no first step can pass (rtol 1e-10)
    const double wanted = std::max(1e-7 * in.timeScale, 1e-10 * std::max(1.0, std::abs(in.t)));
    const double tPlus = in.t + wanted;
    const double eps = tPlus - in.t;
    s.plus.assign(y, y + n);
    s.f.resize(at(n));
    s.f0.resize(at(n));
    for (const int i : rows)
        if ((*in.id)[at(i)] != 0.0) s.plus[at(i)] += eps * yp[i];
    ev.residual({tPlus, s.plus.data(), yp, in.discrete, in.discreteVersion}, s.f.data(), &rows);
    ev.residual({in.t, y, yp, in.discrete, in.discreteVersion}, s.f0.data(), &rows);
    for (const int i : rows) b[i] = -(s.f[at(i)] - s.f0[at(i)]) / eps;
}

// M z = b where M is diagonal (in.diagonal) but for the algebraic columns F_y(:, alg): z_a =
// b_a / d_a first (a timed output's row reads no other algebraic unknown), then z_d = (b_d -
// F_y(d, alg) z_a) / d_d, the product by a difference of the residual along z_a. A last
// difference along (z_a as values, z_d as rates) must give b back to 1e-6 of the row's terms, or
// false (the matrix is solved instead): a block that the operator does not hold may read more.
// Only the entries of `rows` of s's arrays are read or written, but for the copies of y and y'.
bool diagonalSolve(dae::ReducedEvaluator& ev, const RestartInput& in, const std::vector<int>& rows, const double* y,
                   const double* yp, const double* b, RestartScratch& s, double* z) {
    const int n = ev.size();
    const std::vector<double>& id = *in.id;
    const double* d = in.diagonal;
    const std::vector<double>& f0 = s.f0;
    std::vector<double>&yv = s.values, &ypv = s.rates, &f = s.f, &w = s.w;
    yv.assign(y, y + n);
    ypv.assign(yp, yp + n);
    f.resize(at(n));
    w.resize(at(n));
    s.scale.resize(at(n));
    for (const int i : rows) w[at(i)] = 0.0;
    // a step of 1e-4 of the values it moves, or of 1 where they are smaller: an affine residual
    // differences exactly, and a curved one fails the check below
    auto stepAlong = [&](bool rates) {
        double size = 0.0, along = 0.0;
        for (const int i : rows)
            if ((id[at(i)] != 0.0) == rates) {
                size = std::max(size, std::abs(rates ? yp[i] : y[i]));
                along = std::max(along, std::abs(z[i]));
            }
        return along > 0.0 ? 1e-4 * (size + 1.0) / along : 0.0;
    };
    for (const int i : rows) z[i] = id[at(i)] == 0.0 ? b[i] / d[i] : 0.0;
    if (const double e = stepAlong(false); e > 0.0) {
        for (const int i : rows)
            if (id[at(i)] == 0.0) yv[at(i)] = y[i] + e * z[i];
        ev.residual({in.t, yv.data(), yp, in.discrete, in.discreteVersion}, f.data(), &rows);
        for (const int i : rows) w[at(i)] = (f[at(i)] - f0[at(i)]) / e;
    }
    for (const int i : rows)
        if (id[at(i)] != 0.0) z[i] = (b[i] - w[at(i)]) / d[i];
    const double ea = stepAlong(false), ed = stepAlong(true);
    const double e = ea > 0.0 && ed > 0.0 ? std::min(ea, ed) : std::max(ea, ed);
    if (e == 0.0) return std::all_of(rows.begin(), rows.end(), [&](int i) { return b[i] == 0.0; });
    for (const int i : rows) {
        yv[at(i)] = id[at(i)] == 0.0 ? y[i] + e * z[i] : y[i];
        ypv[at(i)] = id[at(i)] != 0.0 ? yp[i] + e * z[i] : yp[i];
    }
    ev.residual({in.t, yv.data(), ypv.data(), in.discrete, in.discreteVersion}, f.data(), &rows);
    std::vector<double>& scale = s.scale;
    double largest = 0.0;
    for (const int i : rows) {
        scale[at(i)] = std::abs(b[i]) + std::abs(w[at(i)]) + std::abs(d[i] * z[i]);
        largest = std::max(largest, scale[at(i)]);
    }
    for (const int i : rows) {
        const double mz = (f[at(i)] - f0[at(i)]) / e;
        if (!std::isfinite(z[i]) || !(std::abs(mz - b[i]) <= 1e-6 * scale[at(i)] + 1e-12 * largest)) return false;
    }
    return true;
}

bool solve(const dae::Pattern& p, const std::vector<double>& values, bool sparse, N_Vector rhs, N_Vector x, SUNMatrix A,
           SUNLinearSolver ls) {
    if (sparse) {
        std::copy(p.colPtr.begin(), p.colPtr.end(), SM_INDEXPTRS_S(A));
        std::copy(p.rowIdx.begin(), p.rowIdx.end(), SM_INDEXVALS_S(A));
        std::copy(values.begin(), values.end(), SM_DATA_S(A));
    } else {
        SUNMatZero(A);
        for (int c = 0; c < p.n; ++c)
            for (int k = p.colPtr[at(c)]; k < p.colPtr[at(c + 1)]; ++k)
                SUNDenseMatrix_Column(A, c)[p.rowIdx[at(k)]] = values[at(k)];
    }
    if (SUNLinSolSetup(ls, A) != 0) return false;
    if (SUNLinSolSolve(ls, A, x, rhs, 0.0) != 0) return false;
    const double* z = N_VGetArrayPointer(x);
    return std::all_of(z, z + p.n, [](double v) { return std::isfinite(v); });
}

int keepAnalysisInitialize(SUNLinearSolver) { return SUNLS_SUCCESS; }

}   // namespace

void keepSymbolicAnalysis(SUNLinearSolver klu) {
    SUNLinSolInitialize(klu);   // once, before IDA's first setup
    klu->ops->initialize = keepAnalysisInitialize;
}

RestartGuess estimateRestart(dae::ReducedEvaluator& ev, const RestartInput& in, const double* y, double* yp,
                             const std::function<LinearSystem()>& full, SUNContext ctx) {
    const int n = ev.size();
    RestartGuess guess;
    if (n == 0) return guess;
    const std::vector<double>& id = *in.id;
    RestartScratch own;
    RestartScratch& s = in.scratch ? *in.scratch : own;
    s.rhs.resize(at(n));
    s.z.resize(at(n));
    double *rhs = s.rhs.data(), *z = s.z.data();
    std::vector<int> all;
    const std::vector<int>* rows = in.diagonal ? in.rows : nullptr;   // the moving rows, if the diagonal holds
    bool diagonal = false;
    if (rows != nullptr) {
        rightHandSide(ev, in, *rows, y, yp, rhs, s);
        diagonal = diagonalSolve(ev, in, *rows, y, yp, rhs, s, z);
    }
    if (!diagonal) {
        all.resize(at(n));
        for (int i = 0; i < n; ++i) all[at(i)] = i;
        rows = &all;
        rightHandSide(ev, in, all, y, yp, rhs, s);
        // a diagonal given for the moving rows alone does not hold for all
        diagonal = in.diagonal && !in.rows && diagonalSolve(ev, in, all, y, yp, rhs, s, z);
    }
    if (!diagonal) {   // the matrix, on the scratch arrays as SUNDIALS vectors
        const NVector rhsV(N_VMake_Serial(n, rhs, ctx)), zV(N_VMake_Serial(n, z, ctx));
        if (!rhsV || !zV) throw std::bad_alloc();
        const auto [A, ls] = full();
        if (in.factored) {
            if (SUNLinSolSolve(ls, A, zV.get(), rhsV.get(), 0.0) != 0 ||
                !std::all_of(z, z + n, [](double v) { return std::isfinite(v); }))
                return guess;
        } else if (!solve(ev.pattern(),
                          indexOneMatrix(ev, {in.t, y, yp, in.discrete, in.discreteVersion}, id), in.sparse,
                          rhsV.get(), zV.get(), A, ls)) {
            return guess;
        }
    }
    double sum = 0.0;
    for (const int i : *rows) {
        if (id[at(i)] == 0.0) {
            yp[i] = z[i];
            continue;
        }
        const double w = z[i] / (in.relativeTolerance * std::abs(y[i]) + in.absoluteTolerance[i]);
        sum += w * w;
    }
    guess.ok = true;
    guess.diagonal = diagonal;
    // IDA's weighted RMS norm of y'', over the unknowns IDA solves
    const double norm = std::sqrt(sum / static_cast<double>(rows->size()));
    if (norm > 0.0) guess.firstStep = std::sqrt(0.5 / norm);   // h^2/2 |y''| = 1/4 of the tolerance
    return guess;
}

namespace {

// y_a and y'_d moved by -M^-1 F(t, y, y') (consistentByOneStep); false if M is singular. rhs and z
// are work vectors of the size of y.
bool newtonStep(dae::ReducedEvaluator& ev, const RestartInput& in, double* y, double* yp, SUNMatrix A,
                SUNLinearSolver ls, N_Vector rhs, N_Vector z, bool factored) {
    const int n = ev.size();
    const std::vector<double>& id = *in.id;
    ev.residual({in.t, y, yp, in.discrete, in.discreteVersion}, N_VGetArrayPointer(rhs));
    N_VScale(-1.0, rhs, rhs);
    if (factored) {
        if (SUNLinSolSolve(ls, A, z, rhs, 0.0) != 0) return false;
    } else if (!solve(ev.pattern(), indexOneMatrix(ev, {in.t, y, yp, in.discrete, in.discreteVersion}, id), in.sparse,
                      rhs, z, A, ls)) {
        return false;
    }
    const double* dz = N_VGetArrayPointer(z);
    if (!std::all_of(dz, dz + n, [](double v) { return std::isfinite(v); })) return false;
    for (int i = 0; i < n; ++i) (id[at(i)] == 0.0 ? y[i] : yp[i]) += dz[i];
    return true;
}

}   // namespace

bool consistentByOneStep(dae::ReducedEvaluator& ev, const RestartInput& in, double* y, double* yp, SUNMatrix A,
                         SUNLinearSolver ls, SUNContext ctx) {
    const int n = ev.size();
    if (n == 0) return false;
    const std::vector<double>& id = *in.id;
    NVector rhs = makeVector(n, ctx), z = makeVector(n, ctx);
    const std::vector<double> y0(y, y + n), yp0(yp, yp + n);
    if (!newtonStep(ev, in, y, yp, A, ls, rhs.get(), z.get(), false)) {
        std::copy(y0.begin(), y0.end(), y);
        std::copy(yp0.begin(), yp0.end(), yp);
        return false;
    }
    // the second step, from the same factorization, must change nothing that counts
    const std::vector<double> y1(y, y + n), yp1(yp, yp + n);
    bool confirmed = newtonStep(ev, in, y, yp, A, ls, rhs.get(), z.get(), true);
    for (int i = 0; i < n && confirmed; ++i) {
        const double v = id[at(i)] == 0.0 ? y1[at(i)] : yp1[at(i)];
        confirmed = std::abs(data(z)[i]) <= 1e-6 * (in.relativeTolerance * std::abs(v) + in.absoluteTolerance[i]);
    }
    if (!confirmed) {
        std::copy(y0.begin(), y0.end(), y);
        std::copy(yp0.begin(), yp0.end(), yp);
    }
    return confirmed;
}

bool trialByOneStep(dae::ReducedEvaluator& ev, const RestartInput& in, double* y, double* yp, SUNMatrix A,
                    SUNLinearSolver ls, SUNContext ctx) {
    const int n = ev.size();
    if (n == 0) return false;
    NVector rhs = makeVector(n, ctx), z = makeVector(n, ctx);
    return newtonStep(ev, in, y, yp, A, ls, rhs.get(), z.get(), false);
}

}   // namespace endstop::core::solver
