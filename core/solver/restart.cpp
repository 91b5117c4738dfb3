// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/solver/restart.hpp"

#include "core/solver/sundials_raii.hpp"

#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>

namespace endstop::core::solver {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// [F_y(:, alg) | F_y'(:, diff)] in the fixed pattern: algebraic columns of dF/dy + cj dF/dy' do
// not depend on cj, differential ones are F_y + cj F_y', so two evaluations separate them.
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

// -(F_t + F_y(:, diff) y'_d) by a forward difference along the differential motion: forward,
// because the solution goes on from here (a kink at the event would spoil a central one)
void rightHandSide(dae::ReducedEvaluator& ev, const RestartInput& in, const double* y, const double* yp, double* b) {
    const int n = ev.size();
    // the increment is the one t + eps really represents, so that a residual linear in t (a ramp)
    // differences exactly; it stays well above round-off of t, or a tight tolerance's tiny last
    // step would leave y'_a with a 1e-3 error that no first step can pass (rtol 1e-10)
    const double wanted = std::max(1e-7 * in.timeScale, 1e-10 * std::max(1.0, std::abs(in.t)));
    const double tPlus = in.t + wanted;
    const double eps = tPlus - in.t;
    std::vector<double> yPlus(y, y + n), fPlus(at(n)), f0(at(n));
    for (int i = 0; i < n; ++i)
        if ((*in.id)[at(i)] != 0.0) yPlus[at(i)] += eps * yp[i];
    ev.residual({tPlus, yPlus.data(), yp, in.discrete}, fPlus.data());
    ev.residual({in.t, y, yp, in.discrete}, f0.data());
    for (int i = 0; i < n; ++i) b[i] = -(fPlus[at(i)] - f0[at(i)]) / eps;
}

bool solve(const dae::Pattern& p, const std::vector<double>& values, bool sparse, N_Vector rhs, N_Vector x, SUNMatrix A,
           SUNLinearSolver ls) {
    if (sparse) {
        std::copy(p.colPtr.begin(), p.colPtr.end(), SUNSparseMatrix_IndexPointers(A));
        std::copy(p.rowIdx.begin(), p.rowIdx.end(), SUNSparseMatrix_IndexValues(A));
        std::copy(values.begin(), values.end(), SUNSparseMatrix_Data(A));
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
                             SUNMatrix A, SUNLinearSolver ls, SUNContext ctx) {
    const int n = ev.size();
    RestartGuess guess;
    if (n == 0) return guess;
    const std::vector<double>& id = *in.id;
    NVector rhs = makeVector(n, ctx), z = makeVector(n, ctx);
    rightHandSide(ev, in, y, yp, data(rhs));
    if (in.factored) {
        if (SUNLinSolSolve(ls, A, z.get(), rhs.get(), 0.0) != 0 ||
            !std::all_of(data(z), data(z) + n, [](double v) { return std::isfinite(v); }))
            return guess;
    } else if (!solve(ev.pattern(), indexOneMatrix(ev, {in.t, y, yp, in.discrete}, id), in.sparse, rhs.get(), z.get(),
                      A, ls)) {
        return guess;
    }
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        if (id[at(i)] == 0.0) {
            yp[i] = data(z)[i];
            continue;
        }
        const double w = data(z)[i] / (in.relativeTolerance * std::abs(y[i]) + in.absoluteTolerance[i]);
        sum += w * w;
    }
    guess.ok = true;
    const double norm = std::sqrt(sum / n);                    // IDA's weighted RMS norm of y''
    if (norm > 0.0) guess.firstStep = std::sqrt(0.5 / norm);   // h^2/2 |y''| = 1/4 of the tolerance
    return guess;
}

bool consistentByOneStep(dae::ReducedEvaluator& ev, const RestartInput& in, double* y, double* yp, SUNMatrix A,
                         SUNLinearSolver ls, SUNContext ctx) {
    const int n = ev.size();
    if (n == 0) return false;
    const std::vector<double>& id = *in.id;
    const std::vector<double> values = indexOneMatrix(ev, {in.t, y, yp, in.discrete}, id);
    NVector rhs = makeVector(n, ctx), z = makeVector(n, ctx);
    ev.residual({in.t, y, yp, in.discrete}, data(rhs));
    N_VScale(-1.0, rhs.get(), rhs.get());
    if (!solve(ev.pattern(), values, in.sparse, rhs.get(), z.get(), A, ls)) return false;
    const std::vector<double> y0(y, y + n), yp0(yp, yp + n);
    auto step = [&] {
        for (int i = 0; i < n; ++i) (id[at(i)] == 0.0 ? y[i] : yp[i]) += data(z)[i];
    };
    step();
    ev.residual({in.t, y, yp, in.discrete}, data(rhs));
    N_VScale(-1.0, rhs.get(), rhs.get());
    bool confirmed = SUNLinSolSolve(ls, A, z.get(), rhs.get(), 0.0) == 0;
    for (int i = 0; i < n && confirmed; ++i) {
        const double v = id[at(i)] == 0.0 ? y[i] : yp[i];
        confirmed = std::abs(data(z)[i]) <= 1e-6 * (in.relativeTolerance * std::abs(v) + in.absoluteTolerance[i]);
    }
    if (!confirmed) {
        std::copy(y0.begin(), y0.end(), y);
        std::copy(yp0.begin(), yp0.end(), yp);
        return false;
    }
    step();
    return true;
}

}   // namespace endstop::core::solver
