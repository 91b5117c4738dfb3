// SPDX-License-Identifier: GPL-3.0-or-later
// The reduction stage: which unknowns of the assembled network IDA does not need to see
// (docs/engine.md, "ReductionPlan"). Inputs: the assembled DaeSystem and its block structures with
// their row forms; output: a fate for every unknown. Decided once, for every mode.
//
//   Kept         an unknown of the reduced system IDA solves.
//   Combination  a state whose row is a x' + sum b_j v_j = 0 with constant coefficients, where
//                every v_j is a node velocity that some kept state P_j integrates (P_j' = v_j):
//                x = offset - sum (b_j / a) P_j. A stop's or a spring's relative position, a second
//                integral of one velocity (aliases with sign and offset are the one-term case).
//   Explicit     an algebraic variable whose own row is linear in it with a constant coefficient
//                a (r = a e + rest): e = e0 - r(e0) / a, computed inside the residual in
//                dependency order. Contact, spring and damper forces in a fixed mode, sensor and
//                signal outputs.
//   Quadrature   a running integral a q' = g(...) that nothing else reads (energy_dissipated):
//                integrated by IDA's quadrature module, outside the Newton system and the error test.
// The row of an eliminated unknown (its own row) leaves the system with it: rows and unknowns are
// numbered alike, so the kept rows are the kept unknowns.
#pragma once

#include <vector>

namespace endstop::core::dae {

struct DaeSystem;

struct ReductionPlan {
    enum class Fate : unsigned char { Kept, Combination, Explicit, Quadrature };
    struct Term {
        int unknown = -1;   // a kept unknown
        double coefficient = 0.0;
    };
    struct Combination {
        int unknown = -1;
        double offset = 0.0;   // from the initial values
        std::vector<Term> terms;
    };
    struct Derived {   // an explicit variable or a quadrature: solved from its own row
        int unknown = -1;
        int block = -1;
        int var = -1;               // the block's own variable
        double coefficient = 1.0;   // of the variable (explicit) or its rate (quadrature) in the row
        std::vector<int> reads;     // the explicit variables its row reads
    };

    std::vector<Fate> fate;          // per unknown
    std::vector<int> reducedIndex;   // per unknown: index in the reduced system, -1 if eliminated
    std::vector<int> kept;           // reduced index -> unknown
    std::vector<Combination> combinations;
    std::vector<Derived> explicits;   // in dependency order
    std::vector<Derived> quadratures;
    // kept algebraic unknowns that their own rows give like explicit variables but as functions
    // of time (a source's output): solved from those rows at a restart (ReducedEvaluator::
    // consistentRates), coefficient as for an explicit variable
    std::vector<Derived> timed;

    int size() const { return static_cast<int>(kept.size()); }
    int eliminated() const { return static_cast<int>(fate.size() - kept.size()); }
};

// What the stage decides for sys; with enabled false (or nothing to gain) every unknown is kept.
ReductionPlan planReduction(const DaeSystem& sys, bool enabled = true);

}   // namespace endstop::core::dae
