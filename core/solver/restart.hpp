// SPDX-License-Identifier: GPL-3.0-or-later
// A cheap restart after an event (docs/engine.md, "Modes and events").
//
// IDACalcIC makes y_a and y'_d consistent but leaves y'_a (the rates of algebraic unknowns) as it
// found them, stale after a mode change: IDA's predictor for a contact force that just switched on
// is then wrong, and its first steps fail the error test until the step is tiny. Differentiating
// F(t, y, y') = 0 once more along the solution,
//     F_y(:, alg) y'_a + F_y'(:, diff) y''_d = -(F_t + F_y(:, diff) y'_d),
// gives y'_a and the second derivatives y''_d with the index-1 matrix of the consistent state (the
// right-hand side by a forward difference of the residual). The first step is then the one whose
// order-1 local error h^2/2 |y''| is a fraction of the tolerance, instead of IDA's guess or the
// step before the event, which both cost many steps per event.
#pragma once

#include "core/dae/reduced_evaluator.hpp"

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>

#include <functional>
#include <vector>

namespace endstop::core::solver {

// [F_y(:, alg) | F_y'(:, diff)] in the evaluator's pattern (id: 1 differential, 0 algebraic):
// algebraic columns of dF/dy + cj dF/dy' do not depend on cj, differential ones are F_y + cj F_y',
// so two evaluations separate them.
std::vector<double> indexOneMatrix(dae::ReducedEvaluator& ev, const dae::State& s, const std::vector<double>& id);

struct RestartGuess {
    bool ok = false;          // false: the matrix was singular; nothing was changed
    double firstStep = 0.0;   // 0: no second derivative to go by
    bool diagonal = false;    // solved without the matrix (RestartInput::diagonal)
};

// estimateRestart()'s work arrays, kept between restarts by the caller: an event in a resting
// network of 20,000 unknowns then costs its moving rows and a few copies, not a dozen allocations
// of the whole size (each one page faults again).
struct RestartScratch {
    std::vector<double> rhs, z, f0, plus, values, rates, f, w, scale;
};

struct RestartInput {
    double t = 0.0;
    const std::vector<double>* id = nullptr;   // 1 differential, 0 algebraic
    const double* discrete = nullptr;
    unsigned long discreteVersion = 0;   // dae::State::discreteVersion of *discrete; 0: not known
    double relativeTolerance = 1e-6;
    const double* absoluteTolerance = nullptr;   // per unknown
    double timeScale = 1e-3;   // for the difference quotient: the last step, or a fraction of the span
    bool sparse = false;
    // A and ls hold the factorized index-1 matrix of this state already (consistentByOneStep()
    // confirmed an affine mode, where it does not move with the state): solve with it as it is
    bool factored = false;
    // consistentRates() made this state consistent, and the index-1 matrix is then diagonal on the
    // operator's rows (ReducedEvaluator::rateDiagonal): per unknown its diagonal, or null. The
    // estimate tries it first, by differences of the residual, and confirms M z = rhs by one more.
    const double* diagonal = nullptr;
    // The resting part (docs/engine.md): only these rows move, the others rest with y'' = 0. With
    // the diagonal (then given for these rows alone) the estimate costs these rows; without it, or
    // if it fails, all, by the matrix.
    const std::vector<int>* rows = nullptr;
    RestartScratch* scratch = nullptr;   // null: estimateRestart() allocates its own
};

// The integrator's full-size matrix and linear solver, reused by a restart (KLU keeps its symbolic
// analysis; IDA sets its own matrix up afterwards).
struct LinearSystem {
    SUNMatrix A = nullptr;
    SUNLinearSolver ls = nullptr;
};

// Writes y'_a into yp (y and y'_d are left as they are). `full` gives the linear system, asked for
// only when the estimate needs the matrix: a resting network of 20,000 unknowns whose moving rows
// are diagonal never makes one (1.4 MB).
RestartGuess estimateRestart(dae::ReducedEvaluator& ev, const RestartInput& in, const double* y, double* yp,
                             const std::function<LinearSystem()>& full, SUNContext ctx);

// A consistent restart by one Newton step with the index-1 matrix above: y_a and y'_d move by
// -M^-1 F(t, y, y'). In a mode where the residual is affine (a stick-slip network, linear contacts)
// that step is exact, and a second one, from the same factorization, confirms it: each of its
// corrections must be below 1e-6 of the unknown's tolerance (rtol |v| + atol, v the value it
// corrects). Then both steps are kept and true is returned; otherwise y and yp are as they were,
// for IDACalcIC's iteration.
bool consistentByOneStep(dae::ReducedEvaluator& ev, const RestartInput& in, double* y, double* yp, SUNMatrix A,
                         SUNLinearSolver ls, SUNContext ctx);

// The first of those steps alone, kept whether a second would confirm it or not: a state near the
// consistent one for a mode where no iteration reaches the tolerance (Run::settleOnTrial). False,
// with y and yp as they were, if the matrix is singular or the step not finite.
bool trialByOneStep(dae::ReducedEvaluator& ev, const RestartInput& in, double* y, double* yp, SUNMatrix A,
                    SUNLinearSolver ls, SUNContext ctx);

// KLU's initialize() discards the symbolic analysis, and IDA calls it at every restart; the pattern
// never changes, so after the first analysis the solver only refactors.
void keepSymbolicAnalysis(SUNLinearSolver klu);

}   // namespace endstop::core::solver
