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
//                A pair solved from each other's rows: an algebraic variable t whose own row
//                (a gear's w_A = r w_B) holds a massless node's velocity w with a constant
//                coefficient, where w's row (the node's balance) holds t with a constant one:
//                w from t's row, t from w's row (the gear's torque from what the node passes on).
//                Index reduction: where the row an explicit variable (or a pair's node velocity)
//                is solved from was differentiated and the variable has a dummy derivative, the
//                dummy is explicit too, solved from the derivative row with the same coefficient
//                (a velocity source's node velocity and its acceleration, a constant and its zero
//                rate).
//   Quadrature   a running integral a q' = g(...) that nothing else reads (energy_dissipated):
//                integrated by the run after each step (core/solver/run_quadratures.cpp), outside
//                the Newton system and the error test.
//   State selection: a relative position that must stay a state (an event function reads it, see
//                combination()) takes the place of one of the absolute positions it relates, which
//                becomes a combination of it and the others: a gear stage's backlash angle stands
//                in for the next inertia's angle, two unknowns per inertia.
// The row an eliminated unknown is solved from leaves the system with it. That is its own row,
// or for a pair each other's: rows and unknowns are numbered alike, so the kept rows are the kept
// unknowns.
#pragma once

#include <span>
#include <vector>

namespace endstop::core::dae {

struct DaeSystem;

struct ReductionPlan {
    enum class Fate : unsigned char { Kept, Combination, Explicit, Quadrature };
    struct Term {
        int unknown = -1;   // a kept unknown
        double coefficient = 0.0;
    };
    struct Combination {   // as the stage builds one
        int unknown = -1;
        double offset = 0.0;   // from the initial values
        std::vector<Term> terms;
    };
    // The combinations as the plan keeps them, one list for all (a vector of terms per
    // combination cost 1.6 MB at b10000): combination c is unknown[c] = offset[c] + the sum over
    // t in [first[c], first[c + 1]) of termCoefficient[t] times the kept termUnknown[t].
    struct Combinations {
        std::vector<int> unknown, first{0}, termUnknown;
        std::vector<double> offset, termCoefficient;
        std::size_t size() const { return unknown.size(); }
        void add(const Combination& c);
    };
    struct Derived {   // an explicit variable or a quadrature: solved from a row
        int unknown = -1;
        int block = -1;             // the block whose own row it is solved from; -1: a node's balance
        int var = -1;               // that row, the block's own variable
        double coefficient = 1.0;   // of the variable (explicit) or its rate (quadrature) in the row
        int row = -1;               // the row: its own (numbered like the unknown), or its pair's
        int readsFirst = 0, readsEnd = 0;   // the explicit variables its row reads: reads() below
        bool ownRow() const { return row == unknown; }
    };

    std::vector<Fate> fate;          // per unknown
    std::vector<int> reducedIndex;   // per unknown: index in the reduced system, -1 if eliminated
    std::vector<int> kept;           // reduced index -> unknown
    Combinations combinations;
    std::vector<Derived> explicits;   // in dependency order
    std::vector<Derived> quadratures;
    // kept algebraic unknowns that their own rows give like explicit variables but as functions
    // of time (a source's output): solved from those rows at a restart (ReducedEvaluator::
    // consistentRates), coefficient as for an explicit variable
    std::vector<Derived> timed;

    // what each explicit variable's and quadrature's row reads, one list for all (a vector per
    // variable cost 1 MB in a chain of 10,000 masses)
    std::vector<int> readList;
    std::span<const int> reads(const Derived& d) const {
        return {readList.data() + d.readsFirst, static_cast<std::size_t>(d.readsEnd - d.readsFirst)};
    }

    int size() const { return static_cast<int>(kept.size()); }
    int eliminated() const { return static_cast<int>(fate.size() - kept.size()); }
};

// What the stage decides for sys; with enabled false (or nothing to gain) every unknown is kept.
ReductionPlan planReduction(const DaeSystem& sys, bool enabled = true);

}   // namespace endstop::core::dae
