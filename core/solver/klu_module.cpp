// SPDX-License-Identifier: GPL-3.0-or-later
// The KLU module: the one place that links SUNDIALS' KLU linear solver and SuiteSparse. Built as
// a module of its own (endstop_klu) and loaded by sparse_solver.cpp when a run first needs a
// sparse solver, so that a program which only ever solves small, dense systems never maps the
// seven libraries KLU brings (docs/architecture.md, "Starting a process").
#include "core/solver/sparse_solver.hpp"

#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <type_traits>

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
    return 0;
}

static_assert(std::is_same_v<decltype(&endstop_klu_create), endstop::core::solver::KluCreate>);
