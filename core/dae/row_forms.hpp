// SPDX-License-Identifier: GPL-3.0-or-later
// Row forms: which of a block's own rows are linear forms with constant coefficients, found once
// per block structure for the reduction stage (docs/engine.md, "Reduction").
//
// A row is evaluated with forward-mode dual numbers at several pseudo-random states (values,
// rates, time and the discretes that are not modes) in every combination of the block's modes.
// It is a linear form if its value is exactly the sum of its coefficients times the slots and
// the coefficients are the same everywhere: x' = v_R - v_C is one; a contact force row is not,
// but the coefficient of the force in it is a constant 1, which is all an explicit variable
// needs. Sampling cannot prove what a branch hidden in block code does, so it is the rule for
// block authors (docs/engine.md): a row's coefficients may depend on modes, never on values.
#pragma once

#include <limits>
#include <map>
#include <random>
#include <tuple>
#include <vector>

namespace endstop::core::dae {

struct DaeSystem;
class Evaluator;

struct RowForm {
    // every combination and every sampled state: row = sum of coefficient * slot value (or rate)
    bool linear = false;
    std::vector<std::tuple<int, int, double>> terms;   // (local slot, order 0|1, coefficient)
    // the constant coefficient of the row's own variable's value (self0) and rate (self1), the
    // same in every combination and state; NaN where it varies, or 0 where it never enters
    double self0 = std::numeric_limits<double>::quiet_NaN();
    double self1 = std::numeric_limits<double>::quiet_NaN();
    // per local row of the block (own rows, then conserving ports): the constant coefficient of
    // this variable's value there (0 where it never enters), NaN where it varies or its rate enters
    std::vector<double> in;
    // the row's value changes with the time alone (a sine source): what it defines is a function
    // of time that only IDA's error test on it resolves
    bool timed = false;
    // the block read the time (Eq::time) in some sampled evaluation, whether or not its value
    // changed there: a row of a block that never does, with no discretes, reading only constants,
    // defines a constant (ReducedEvaluator's constants)
    bool readsTime = true;
};

// The network-sized state a block is sampled in: the discrete state vector and y, y' (zero but
// for the slots of the block being sampled). Sampling a block sets and restores only its own
// discretes and slots, so analysing a block costs its size, not the network's: with a copy of the
// whole state per block, building a chain of 10,000 stops whose parameters all differ (40,000
// distinct structures) spent a third of its time copying.
struct Sampling {
    explicit Sampling(const DaeSystem& s);
    std::vector<double> disc, y, yp;
    // The pseudo-random draws of each seed, made once and replayed for every block sampled with
    // it: seeding a generator per block was a tenth of building a network whose blocks all differ.
    struct Stream {
        explicit Stream(unsigned seed) : generator(seed) {}
        std::mt19937 generator;
        std::vector<double> drawn;   // what it gave so far, in order (Draws in row_forms.cpp)
    };
    std::map<unsigned, Stream> streams;
    // One block's sampled evaluations (values, gradients, points), reused by the next block
    // (Samples in row_forms.cpp)
    struct Store {
        std::vector<double> value, grads, point;
    };
    Store store;
};

// Per own variable of block bi. The sampling state is as it was on return.
std::vector<RowForm> analyseRowForms(const DaeSystem& s, Evaluator& ev, int bi, Sampling& sampling);

// Per local slot of block bi: 1 if its event functions read the slot's value in some sampled
// state of some mode combination (so an explicit variable there must be up to date for them);
// rates: the same for the slot's rate (a dummy derivative of the slot then stands for it).
std::vector<char> analyseEventReads(const DaeSystem& s, Evaluator& ev, int bi, Sampling& sampling,
                                    std::vector<char>& rates);

}   // namespace endstop::core::dae
