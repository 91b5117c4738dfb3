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
#include "core/solver/sundials_raii.hpp"

#include <sundials/sundials_context.h>

#include <utility>
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

// What project() keeps from one event to the next, so that an event allocates nothing once its
// sizes were met: the constraints' rows, the nodes' columns, and the dense systems with their
// solvers, one per size met (a few: the mode iteration of one event may alternate two).
struct ProjectionWorkspace {
    struct System {
        long size = 0;
        Matrix A;
        LinearSolver ls;
        NVector x, rhs;
    };
    struct Constraint {
        int block = -1;
        int var = -1;                                   // own variable carrying the impulse
        double value = 0.0;                             // C(v-)
        std::vector<std::pair<int, double>> gradient;   // node unknown -> dC/dv, each unknown once
    };
    std::vector<Constraint> constraints;   // the first `count` are this event's
    std::size_t count = 0;
    std::vector<int> vars, nodes, blocks;   // a block's constraint forces; the nodes and blocks involved
    std::vector<int> column;                // per unknown: its column among the nodes, or -1
    std::vector<double> yRef;
    std::vector<System> systems;   // the most recently used first
};

// vBefore: the node velocities just before the event (before CalcIC could move the algebraic
// ones); the other unknowns of s (signals) are taken as they are. Writes v+ into y. A block whose
// locks hold by friction (Block::holdsByFriction) joins only if changed[block] is set: it changed
// its modes at this event (it locks); otherwise its finite force carries no impulse.
ProjectionResult project(const dae::DaeSystem& sys, dae::Evaluator& ev, const dae::State& s, const double* vBefore,
                         double* y, SUNContext ctx, ProjectionWorkspace& ws, const std::vector<char>& changed);

}   // namespace endstop::core::solver
