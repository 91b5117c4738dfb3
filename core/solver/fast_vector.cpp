// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/solver/fast_vector.hpp"

#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace endstop::core::solver {

namespace {

inline double* d(N_Vector v) { return NV_DATA_S(v); }
inline long n(N_Vector v) { return NV_LENGTH_S(v); }

void linearSum(double a, N_Vector x, double b, N_Vector y, N_Vector z) {
    const double *xd = d(x), *yd = d(y);
    double* zd = d(z);
    const long len = n(x);
    for (long i = 0; i < len; ++i) zd[i] = a * xd[i] + b * yd[i];
}
void setConst(double c, N_Vector z) { std::fill(d(z), d(z) + n(z), c); }
void prod(N_Vector x, N_Vector y, N_Vector z) {
    const double *xd = d(x), *yd = d(y);
    double* zd = d(z);
    for (long i = 0, len = n(x); i < len; ++i) zd[i] = xd[i] * yd[i];
}
void div(N_Vector x, N_Vector y, N_Vector z) {
    const double *xd = d(x), *yd = d(y);
    double* zd = d(z);
    for (long i = 0, len = n(x); i < len; ++i) zd[i] = xd[i] / yd[i];
}
void scale(double c, N_Vector x, N_Vector z) {
    const double* xd = d(x);
    double* zd = d(z);
    for (long i = 0, len = n(x); i < len; ++i) zd[i] = c * xd[i];
}
void absolute(N_Vector x, N_Vector z) {
    const double* xd = d(x);
    double* zd = d(z);
    for (long i = 0, len = n(x); i < len; ++i) zd[i] = std::abs(xd[i]);
}
void inverse(N_Vector x, N_Vector z) {
    const double* xd = d(x);
    double* zd = d(z);
    for (long i = 0, len = n(x); i < len; ++i) zd[i] = 1.0 / xd[i];
}
void addConst(N_Vector x, double b, N_Vector z) {
    const double* xd = d(x);
    double* zd = d(z);
    for (long i = 0, len = n(x); i < len; ++i) zd[i] = xd[i] + b;
}
double dotProd(N_Vector x, N_Vector y) {
    const double *xd = d(x), *yd = d(y);
    double s = 0.0;
    for (long i = 0, len = n(x); i < len; ++i) s += xd[i] * yd[i];
    return s;
}
double maxNorm(N_Vector x) {
    const double* xd = d(x);
    double m = 0.0;
    for (long i = 0, len = n(x); i < len; ++i) m = std::max(m, std::abs(xd[i]));
    return m;
}
// Four running sums, not one: a single sum waits an addition's latency per element, and IDA takes
// several norms a step (the last bits differ from SUNDIALS' order; the error test does not care)
double wSqrSum(N_Vector x, N_Vector w) {
    const double *xd = d(x), *wd = d(w);
    const long len = n(x);
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    long i = 0;
    for (; i + 4 <= len; i += 4)
        for (int k = 0; k < 4; ++k) {
            const double p = xd[i + k] * wd[i + k];
            s[k] += p * p;
        }
    for (; i < len; ++i) {
        const double p = xd[i] * wd[i];
        s[0] += p * p;
    }
    return (s[0] + s[1]) + (s[2] + s[3]);
}
double wSqrSumMask(N_Vector x, N_Vector w, N_Vector id) {
    const double *xd = d(x), *wd = d(w), *idd = d(id);
    double s = 0.0;
    for (long i = 0, len = n(x); i < len; ++i) {
        const double p = idd[i] > 0.0 ? xd[i] * wd[i] : 0.0;
        s += p * p;
    }
    return s;
}
double wrmsNorm(N_Vector x, N_Vector w) { return std::sqrt(wSqrSum(x, w) / static_cast<double>(n(x))); }
double wrmsNormMask(N_Vector x, N_Vector w, N_Vector id) {
    return std::sqrt(wSqrSumMask(x, w, id) / static_cast<double>(n(x)));
}
double minimum(N_Vector x) {
    const double* xd = d(x);
    double m = n(x) > 0 ? xd[0] : std::numeric_limits<double>::max();
    for (long i = 1, len = n(x); i < len; ++i) m = std::min(m, xd[i]);
    return m;
}
double wl2Norm(N_Vector x, N_Vector w) { return std::sqrt(wSqrSum(x, w)); }
double l1Norm(N_Vector x) {
    const double* xd = d(x);
    double s = 0.0;
    for (long i = 0, len = n(x); i < len; ++i) s += std::abs(xd[i]);
    return s;
}
void compare(double c, N_Vector x, N_Vector z) {
    const double* xd = d(x);
    double* zd = d(z);
    for (long i = 0, len = n(x); i < len; ++i) zd[i] = std::abs(xd[i]) >= c ? 1.0 : 0.0;
}
booleantype invTest(N_Vector x, N_Vector z) {
    const double* xd = d(x);
    double* zd = d(z);
    booleantype ok = SUNTRUE;
    for (long i = 0, len = n(x); i < len; ++i) {
        if (xd[i] == 0.0)
            ok = SUNFALSE;
        else
            zd[i] = 1.0 / xd[i];
    }
    return ok;
}

// fused operations (z may alias X[0], as in the serial implementation)
// z_i = ((c0 x0_i + c1 x1_i) + c2 x2_i) + ...: SUNDIALS' order, pass after pass, in one pass
// over z (z may be X[0]: each element is read before it is written; c0 = 1 multiplies exactly)
template <int N> void combine(const double* c, const double* const* x, double* z, long len) {
    for (long i = 0; i < len; ++i) {
        double s = c[0] * x[0][i];
        for (int k = 1; k < N; ++k) s += c[k] * x[k][i];
        z[i] = s;
    }
}

int linearCombination(int nvec, double* c, N_Vector* X, N_Vector z) {
    const long len = n(z);
    double* zd = d(z);
    if (nvec == 1) {
        scale(c[0], X[0], z);
        return 0;
    }
    if (nvec == 2) {
        linearSum(c[0], X[0], c[1], X[1], z);
        return 0;
    }
    // IDA's predictor at order 5 and below: one pass, the kernel for the count
    constexpr void (*kFused[])(const double*, const double* const*, double*, long) = {
        nullptr, nullptr, nullptr, combine<3>, combine<4>, combine<5>, combine<6>, combine<7>};
    constexpr int kMostFused = static_cast<int>(std::size(kFused)) - 1;
    if (nvec <= kMostFused) {
        const double* x[kMostFused] = {};
        for (int k = 0; k < nvec; ++k) x[k] = d(X[k]);
        kFused[nvec](c, x, zd, len);
        return 0;
    }
    if (X[0] == z) {
        const double c0 = c[0];
        if (c0 != 1.0)
            for (long i = 0; i < len; ++i) zd[i] *= c0;
    } else {
        const double* x0 = d(X[0]);
        for (long i = 0; i < len; ++i) zd[i] = c[0] * x0[i];
    }
    for (int k = 1; k < nvec; ++k) {
        const double* xk = d(X[k]);
        const double ck = c[k];
        for (long i = 0; i < len; ++i) zd[i] += ck * xk[i];
    }
    return 0;
}
int scaleAddMulti(int nvec, double* a, N_Vector x, N_Vector* Y, N_Vector* Z) {
    const double* xd = d(x);
    const long len = n(x);
    for (int k = 0; k < nvec; ++k) {
        const double* yk = d(Y[k]);
        double* zk = d(Z[k]);
        const double ak = a[k];
        for (long i = 0; i < len; ++i) zk[i] = ak * xd[i] + yk[i];
    }
    return 0;
}
int dotProdMulti(int nvec, N_Vector x, N_Vector* Y, double* dots) {
    for (int k = 0; k < nvec; ++k) dots[k] = dotProd(x, Y[k]);
    return 0;
}
// vector array operations: the same kernels over each vector of the arrays (IDA predicts and
// restores its history arrays with these)
int linearSumVectorArray(int nvec, double a, N_Vector* X, double b, N_Vector* Y, N_Vector* Z) {
    for (int k = 0; k < nvec; ++k) linearSum(a, X[k], b, Y[k], Z[k]);
    return 0;
}
int scaleVectorArray(int nvec, double* c, N_Vector* X, N_Vector* Z) {
    for (int k = 0; k < nvec; ++k) scale(c[k], X[k], Z[k]);
    return 0;
}
int constVectorArray(int nvec, double c, N_Vector* Z) {
    for (int k = 0; k < nvec; ++k) setConst(c, Z[k]);
    return 0;
}
int wrmsNormVectorArray(int nvec, N_Vector* X, N_Vector* W, double* norms) {
    for (int k = 0; k < nvec; ++k) norms[k] = wrmsNorm(X[k], W[k]);
    return 0;
}
int wrmsNormMaskVectorArray(int nvec, N_Vector* X, N_Vector* W, N_Vector id, double* norms) {
    for (int k = 0; k < nvec; ++k) norms[k] = wrmsNormMask(X[k], W[k], id);
    return 0;
}

// Dense LU with partial pivoting, column by column, as SUNDIALS' dense solver does it (the same
// pivot choice, row swaps and operation order, so the same bits): SUNLinSol_Dense's setup and
// solve, and SUNMatrix_Dense's zero.
int denseSetup(SUNLinearSolver s, SUNMatrix a) {
    auto* content = static_cast<SUNLinearSolverContent_Dense>(s->content);
    double** col = SM_COLS_D(a);
    const sunindextype m = SM_ROWS_D(a), n = SM_COLUMNS_D(a);
    sunindextype* p = content->pivots;
    for (sunindextype k = 0; k < n; ++k) {
        double* ck = col[k];
        sunindextype l = k;
        for (sunindextype i = k + 1; i < m; ++i)
            if (std::abs(ck[i]) > std::abs(ck[l])) l = i;
        p[k] = l;
        if (ck[l] == 0.0) {
            content->last_flag = k + 1;
            return SUNLS_LUFACT_FAIL;
        }
        if (l != k)
            for (sunindextype j = 0; j < n; ++j) std::swap(col[j][l], col[j][k]);
        const double mult = 1.0 / ck[k];
        for (sunindextype i = k + 1; i < m; ++i) ck[i] *= mult;
        for (sunindextype j = k + 1; j < n; ++j) {
            double* cj = col[j];
            const double akj = cj[k];
            if (akj == 0.0) continue;
            for (sunindextype i = k + 1; i < m; ++i) cj[i] -= akj * ck[i];
        }
    }
    content->last_flag = 0;
    return SUNLS_SUCCESS;
}
int denseSolve(SUNLinearSolver s, SUNMatrix a, N_Vector x, N_Vector b, double) {
    auto* content = static_cast<SUNLinearSolverContent_Dense>(s->content);
    double* const* col = SM_COLS_D(a);
    const sunindextype n = SM_ROWS_D(a);
    const sunindextype* p = content->pivots;
    double* r = d(x);
    if (x != b) std::copy(d(b), d(b) + n, r);
    for (sunindextype k = 0; k < n; ++k)
        if (p[k] != k) std::swap(r[k], r[p[k]]);
    for (sunindextype k = 0; k + 1 < n; ++k) {   // L y = P b, unit diagonal
        const double* ck = col[k];
        for (sunindextype i = k + 1; i < n; ++i) r[i] -= ck[i] * r[k];
    }
    for (sunindextype k = n - 1; k > 0; --k) {   // U x = y
        const double* ck = col[k];
        r[k] /= ck[k];
        for (sunindextype i = 0; i < k; ++i) r[i] -= ck[i] * r[k];
    }
    if (n > 0) r[0] /= col[0][0];
    content->last_flag = SUNLS_SUCCESS;
    return SUNLS_SUCCESS;
}
int denseZero(SUNMatrix a) {
    std::fill(SM_DATA_D(a), SM_DATA_D(a) + SM_LDATA_D(a), 0.0);
    return SUNMAT_SUCCESS;
}
// SUNMatrix_Sparse's zero (IDA calls it before every Jacobian): values, row or column indices and
// the pointers
int sparseZero(SUNMatrix a) {
    std::fill(SM_DATA_S(a), SM_DATA_S(a) + SM_NNZ_S(a), 0.0);
    std::fill(SM_INDEXVALS_S(a), SM_INDEXVALS_S(a) + SM_NNZ_S(a), sunindextype(0));
    std::fill(SM_INDEXPTRS_S(a), SM_INDEXPTRS_S(a) + SM_NP_S(a) + 1, sunindextype(0));
    return SUNMAT_SUCCESS;
}

}   // namespace

void accelerate(SUNLinearSolver s, SUNMatrix a) {
    if (SUNMatGetID(a) == SUNMATRIX_SPARSE) a->ops->zero = sparseZero;
    if (s->ops->setup != SUNLinSolSetup_Dense || SUNMatGetID(a) != SUNMATRIX_DENSE) return;
    s->ops->setup = denseSetup;
    s->ops->solve = denseSolve;
    a->ops->zero = denseZero;
}

void accelerate(N_Vector v) {
    N_VEnableFusedOps_Serial(v, SUNTRUE);
    N_Vector_Ops o = v->ops;
    o->nvlinearsum = linearSum;
    o->nvconst = setConst;
    o->nvprod = prod;
    o->nvdiv = div;
    o->nvscale = scale;
    o->nvabs = absolute;
    o->nvinv = inverse;
    o->nvaddconst = addConst;
    o->nvdotprod = dotProd;
    o->nvmaxnorm = maxNorm;
    o->nvwrmsnorm = wrmsNorm;
    o->nvwrmsnormmask = wrmsNormMask;
    o->nvmin = minimum;
    o->nvwl2norm = wl2Norm;
    o->nvl1norm = l1Norm;
    o->nvcompare = compare;
    o->nvinvtest = invTest;
    o->nvdotprodlocal = dotProd;
    o->nvmaxnormlocal = maxNorm;
    o->nvminlocal = minimum;
    o->nvl1normlocal = l1Norm;
    o->nvinvtestlocal = invTest;
    o->nvwsqrsumlocal = wSqrSum;
    o->nvwsqrsummasklocal = wSqrSumMask;
    o->nvlinearcombination = linearCombination;
    o->nvscaleaddmulti = scaleAddMulti;
    o->nvdotprodmulti = dotProdMulti;
    o->nvlinearsumvectorarray = linearSumVectorArray;
    o->nvscalevectorarray = scaleVectorArray;
    o->nvconstvectorarray = constVectorArray;
    o->nvwrmsnormvectorarray = wrmsNormVectorArray;
    o->nvwrmsnormmaskvectorarray = wrmsNormMaskVectorArray;
}

}   // namespace endstop::core::solver
