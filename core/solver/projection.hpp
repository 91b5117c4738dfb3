// SPDX-License-Identifier: GPL-3.0-or-later
// Momentum-conserving projection (docs/engine.md, "Locked constraints and impacts").
//
// At an event the velocities may have to jump: an impact reverses a relative velocity, a lock or
// a velocity source imposes one. Integrating the network over the instant of the event leaves only
// the inertias and the constraint forces (forces whose own row does not contain them: sources,
// sensors, locks, contacts). With M = dN/d(v') of the node balances, G = dN/df of the constraint
// forces and C(v) = 0 the velocity-level constraints:
//     [ M   G ] [dv]   [   0   ]
//     [ Cv -eI] [ P] = [ -C(v-) ]
// gives the velocity jumps dv and impulses P; e (tiny) splits redundant constraints by minimum
// norm instead of failing. Ground and motion sources act as infinite mass: they hold no unknown.
#pragma once

#include "core/dae/evaluator.hpp"

#include <sundials/sundials_context.h>

#include <vector>

namespace endstop::core::solver {

struct Impulse {
    int block = -1;       // the block owning the constraint force
    int var = -1;         // its own variable index
    double value = 0.0;   // time integral of the force over the instant
};

struct ProjectionResult {
    double maxChange = 0.0;          // largest change of a node velocity in y
    int constraints = 0;             // active velocity-level constraints
    std::vector<Impulse> impulses;   // one per active constraint
};

// vBefore: the node velocities just before the event (before CalcIC could move the algebraic
// ones); the other unknowns of s (signals) are taken as they are. Writes v+ into y.
ProjectionResult project(const dae::DaeSystem& sys, dae::Evaluator& ev, const dae::State& s, const double* vBefore,
                         double* y, SUNContext ctx);

}   // namespace endstop::core::solver
