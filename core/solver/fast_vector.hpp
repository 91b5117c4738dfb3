// SPDX-License-Identifier: GPL-3.0-or-later
// Optimised kernels for SUNDIALS' serial N_Vector and its dense LU. Debian builds SUNDIALS
// without optimisation, so its vector loops dominate IDA's own work; these replacements are
// compiled with -O3 and keep the exact semantics of the serial implementation. Clones inherit the
// ops table, so calling accelerate() on the vectors handed to IDA covers all of IDA's internal
// vectors.
#pragma once

#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

namespace endstop::core::solver {

void accelerate(N_Vector v);
// The same for a dense solver (SUNLinSol_Dense on a SUNDenseMatrix): its LU set-up and solve and
// the matrix's zero; for a sparse matrix its zero. Anything else is left as it is.
void accelerate(SUNLinearSolver s, SUNMatrix a);

}   // namespace endstop::core::solver
