// SPDX-License-Identifier: GPL-3.0-or-later
// The KLU module: the one place that links SUNDIALS' KLU linear solver and SuiteSparse. Built as
// a module of its own (endstop_klu) and loaded by sparse_solver.cpp when a run first needs a
// sparse solver, so that a program which only ever solves small, dense systems never maps the
// seven libraries KLU brings (docs/architecture.md, "Starting a process").
#include "core/solver/sparse_solver.hpp"

#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <type_traits>

namespace {

// KLU refactors every matrix after the first with the first one's pivot order. That order can be
// ruinous for a later matrix of the same pattern: the first may be a restart's index-1 matrix and
// the next IDA's iteration matrix, or a contact's rows and IDA's cj may have changed since. In a
// chain of 1,200 inertias with stops and stictions, reduced, every refactorization grew the
// factors' entries 1e10 times beyond the matrix's (partial pivoting afresh: 2 times), and the run
// failed after an impact where the dense solver ran on; elsewhere a refactorization meets an exact
// zero pivot and reports a singular matrix that partial pivoting factors without trouble. So a
// refactorization is checked: if it failed, or its pivot growth (KLU's rgrowth, the smallest ratio
// of a column's largest entry in the matrix to its largest in U; near 1 when the pivots suit) is
// below kPoorGrowth, the matrix is factored afresh on the symbolic analysis kept, with new pivots
// that later refactorizations follow. A matrix that is singular indeed fails here too, as before.
constexpr double kPoorGrowth = 1e-4;

int factorAfresh(SUNLinearSolverContent_KLU c, SUNMatrix A) {
    sun_klu_free_numeric(&c->numeric, &c->common);
    c->numeric = sun_klu_factor(SUNSparseMatrix_IndexPointers(A), SUNSparseMatrix_IndexValues(A),
                                SUNSparseMatrix_Data(A), c->symbolic, &c->common);
    if (!c->numeric) {   // the next setup factors from scratch (a refactorization needs a numeric object)
        c->first_factorize = 1;
        return c->last_flag = SUNLS_PACKAGE_FAIL_REC;
    }
    return c->last_flag = SUNLS_SUCCESS;
}

int setupWithFreshPivots(SUNLinearSolver S, SUNMatrix A) {
    const auto c = static_cast<SUNLinearSolverContent_KLU>(S->content);
    const bool refactor = !c->first_factorize;
    const int flag = SUNLinSolSetup_KLU(S, A);
    if (!refactor) return flag;
    if (flag == SUNLS_PACKAGE_FAIL_REC) return factorAfresh(c, A);
    if (flag != SUNLS_SUCCESS) return flag;
    if (klu_l_rgrowth(SUNSparseMatrix_IndexPointers(A), SUNSparseMatrix_IndexValues(A), SUNSparseMatrix_Data(A),
                      c->symbolic, c->numeric, &c->common) &&
        c->common.rgrowth < kPoorGrowth)
        return factorAfresh(c, A);
    return flag;
}

}   // namespace

extern "C" __attribute__((visibility("default"))) int endstop_klu_create(N_Vector y, sunindextype nnz, SUNContext ctx,
                                                                         SUNMatrix* A, SUNLinearSolver* ls) {
    const sunindextype n = N_VGetLength(y);
    *A = SUNSparseMatrix(n, n, nnz, CSC_MAT, ctx);
    *ls = *A ? SUNLinSol_KLU(y, *A, ctx) : nullptr;
    if (!*ls) return -1;
    // AMD rather than SUNDIALS' default COLAMD: network Jacobians are nearly symmetric in
    // structure, and AMD's fill estimate lets KLU size its factors (COLAMD's default sizing
    // reserved 40 MB at 60,000 unknowns)
    if (SUNLinSol_KLUSetOrdering(*ls, 0) != SUNLS_SUCCESS) return -2;
    // partial pivoting as in the dense LU: KLU's default prefers the diagonal while it is 1e-3 of
    // the column's largest entry, and after a short step (cj ~ 1e13) the differential diagonals
    // can cancel to an exact zero pivot that the dense LU never meets (a gear train with
    // backlash, reduced, failed in IDACalcIC)
    SUNLinSol_KLUGetCommon(*ls)->tol = 1.0;
    (*ls)->ops->setup = setupWithFreshPivots;
    return 0;
}

static_assert(std::is_same_v<decltype(&endstop_klu_create), endstop::core::solver::KluCreate>);
