// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse linear solver (KLU, with a compressed-column matrix), loaded on first use.
//
// KLU and SuiteSparse are seven shared libraries. Linked into every program they cost each start
// the time to map and relocate them, whether the model needs them or not; a small model solved
// with the dense LU then pays more to start than to run. So they live in a module of their own
// (klu_module.cpp, built as endstop_klu next to the programs) that makeSparseSystem() loads with
// QLibrary the first time a run asks for KLU (docs/architecture.md, "Starting a process").
#pragma once

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

namespace endstop::core::solver {

// what the module exports: a CSC matrix of y's length with room for nnz entries and a KLU solver
// for it, set up as the engine wants it; 0 on success (on failure, what is not null is the
// caller's to free)
using KluCreate = int (*)(N_Vector y, sunindextype nnz, SUNContext ctx, SUNMatrix* A, SUNLinearSolver* ls);

struct SparseSystem {
    SUNMatrix A = nullptr;
    SUNLinearSolver ls = nullptr;
};

// The matrix (room for nnz entries, at least one) and solver for y, with the engine's own matrix
// and solve kernels (fast_vector.hpp) and the symbolic analysis kept across restarts
// (restart.hpp). Throws SolverError naming the module's file if it cannot be loaded or does not
// create them. The environment variable ENDSTOP_KLU_MODULE, if set, names the file;
// otherwise it is the build's own.
SparseSystem makeSparseSystem(N_Vector y, sunindextype nnz, SUNContext ctx);

}   // namespace endstop::core::solver
