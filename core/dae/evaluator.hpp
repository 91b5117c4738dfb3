// SPDX-License-Identifier: GPL-3.0-or-later
// Evaluator: runs the blocks' equations over the unknown vector. One entry point per purpose:
// residual (doubles; Tan<double> for blocks with differentiated rows), jacobian dF/dy + cj*dF/dy'
// (forward-mode AD per block, seeding.hpp, scattered into the fixed CSC pattern), event
// functions, one own row (the reduction), an Eq<double> for events, recording and settling, and
// incidence (Sym). All of them gather a block's values in one of two places: doubleEq() for double
// evaluation, prepare() for any other scalar (and for doubles when a block has dummy derivatives).
// Holds scratch buffers, so one Evaluator per thread; no allocation after the first call.
#pragma once

#include "core/dae/dae_system.hpp"
#include "core/dae/discrete_changes.hpp"
#include "core/dae/structure.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

namespace endstop::core::dae {

template <class S> struct Workspace {
    std::vector<S> y, yp, res, thr;
    EqData<S> data;
};

// An explicit variable of the reduction (reduce.hpp) solved while its block is evaluated in the
// residual pass: only that block reads it, and each of the block's rows is linear in it. After the
// block is evaluated at the variable's stale value, e += delta with delta = -r_e / a, and each local
// row k gets rowCoefficient[k] * delta.
struct FusedExplicit {
    int var = -1, unknown = -1;
    double coefficient = 1.0;
    std::vector<double> rowCoefficient;   // per local row: own rows, then conserving ports
};

struct State {   // one point of the solution
    double t = 0.0;
    const double* y = nullptr;
    const double* yp = nullptr;
    const double* discrete = nullptr;
    // a number that changes whenever *discrete does (the solver counts its events), so that the
    // sums need not compare the discrete state at every call; 0: not known, compare
    unsigned long discreteVersion = 0;
};

class Evaluator {
public:
    explicit Evaluator(const DaeSystem& sys);

    // The blocks that are linear in their mode and do not depend on the time contribute through
    // their summed Jacobian, F = c + A y + B y' (docs/engine.md); the others are evaluated. With
    // fusedY (the y of s, writable), the fused explicit variables of the evaluated blocks are
    // solved on the way; those of summed blocks must already be in y (ReducedEvaluator solves
    // them from the sums first).
    // synced: syncLinear(s) was just called (the reduced engine), so the discrete state is not
    // compared again.
    void residual(const State& s, double* F, double* fusedY = nullptr, bool synced = false);
    // false: every block is evaluated in residual() (tests compare the two)
    void setLinearResidual(bool on) { m_linearResidual = on; }
    // false: a mode change differentiates the changed blocks afresh instead of replaying their
    // recorded contributions to the sums (tests compare the two)
    void setRecordLinear(bool on) { m_recordLinear = on; }
    // The sums for s's discrete state; residual() and jacobian() call it, the reduced engine calls
    // it first to know which blocks are summed. s.y is the network's vector (any values).
    void syncLinear(const State& s);
    bool summed(int block) const { return !m_isLinear.empty() && m_isLinear[static_cast<std::size_t>(block)] != 0; }
    // A summed block's own row `row`, linear in y[unknown]: the value of y[unknown] that zeroes it
    // at y, y' (from the sums, without evaluating the block). false if the row does not hold it.
    // rate: for y'[unknown] instead (a quadrature's row, which does not read its value)
    bool solveSummedRow(int row, int unknown, const double* y, const double* yp, double& value, bool rate = false);
    // The sums themselves, for the reduced engine's linear operator (reduced_evaluator.hpp):
    // row's constant, and f(column, dF/dy, dF/dy') for each entry of its pattern row. The
    // version changes whenever the sums do (an event moved a block in or out, or changed its mode).
    double summedConstant(int row) const { return m_linearC[static_cast<std::size_t>(row)]; }
    template <class F> void forEachSummedEntry(int row, F&& f) {
        rowsOfPattern();
        for (int i = m_rowFirst[static_cast<std::size_t>(row)]; i < m_rowFirst[static_cast<std::size_t>(row) + 1];
             ++i) {
            const std::size_t k = static_cast<std::size_t>(m_rowValue[static_cast<std::size_t>(i)]);
            f(m_rowColumn[static_cast<std::size_t>(i)], m_linearA[k], m_linearB[k]);
        }
    }
    int summedVersion() const { return m_linearVersion; }
    // The blocks whose sums changed since the last call, into out; false if the sums were built
    // from scratch since (every block may have changed). The reduced engine's operator follows.
    bool takeChanges(std::vector<int>& out);
    // what the sums are: the blocks summed, and the coefficients (dF/dy, dF/dy', F at 0)
    const std::vector<char>& summedBlocks() const { return m_isLinear; }
    const std::vector<double>& summedA() const { return m_linearA; }
    const std::vector<double>& summedB() const { return m_linearB; }
    const std::vector<double>& summedC() const { return m_linearC; }
    const std::vector<int>& evaluatedBlocks() const { return m_nonlinearBlocks; }   // the blocks not summed
    // these blocks' rows alone into F: own rows set, node rows added (no sums, no fused variables)
    void blockResiduals(std::span<const int> blocks, const State& s, double* F);
    void setFused(const std::vector<std::vector<FusedExplicit>>& perBlock);
    // values has pattern.nnz() entries: dF/dy + cj dF/dy'
    void jacobian(const State& s, double cj, double* values, bool synced = false);
    // jacobian() at these entries alone, synced: their sums, then every evaluated block flagged
    // in `blocks` (those writing one of them) added whole. The other entries are left undefined.
    void jacobianAt(const State& s, double cj, const std::vector<int>& entries, const std::vector<char>& blocks,
                    double* values);
    // every block's event functions into g (g[binding.eventOffset + i]); with blocks, only theirs
    void eventFunctions(const State& s, double* g);
    void eventFunctions(const State& s, double* g, std::span<const int> blocks);
    // Local incidence of one block: per local row, a list of (local slot, order). With linear,
    // also whether the rows are linear in the slots for this mode (no product of unknowns, no
    // nonlinear function of one, no branch on their values); with timed, whether some row
    // depends on the time.
    std::vector<std::vector<std::pair<int, int>>> blockIncidence(int block, const State& s, bool* linear = nullptr,
                                                                 bool* timed = nullptr);
    // d(row)/dy at s for the rows of one block, as (local row, unknown, value); no y' terms
    std::vector<std::tuple<int, int, double>> blockGradient(int block, const State& s);
    // The residual of one own row of a block at s (the reduction's explicit variables and quadratures)
    double ownResidual(int block, const State& s, int var);
    // The time derivative of that row, where index reduction differentiated it (a block with
    // tangent rows): the value of its derivative row at s, the dummies read from s.y
    double ownDerivativeResidual(int block, const State& s, int var);
    // What one conserving port of a block adds to its node's balance at s (a pair's balance, reduce.hpp)
    double throughResidual(int block, const State& s, int port);
    // Calls f with the block's Eq<double> at s (events, recording, settle)
    void withEq(int block, const State& s, const std::function<void(const Eq<double>&)>& f);

    // Generic access for the projection: evaluate `block` with scalar S, seeding each local slot
    // through seed(slot, y, der, S& yOut, S& derOut) and the time through timeSeed(t).
    template <class S, class Seed, class TimeSeed>
    Eq<S> prepare(Workspace<S>& w, int block, const State& s, Seed&& seed, TimeSeed&& timeSeed);

    Workspace<double>& doubles() { return m_d; }
    Workspace<Jet>& jets() { return m_j; }
    Workspace<ad::Sym>& syms() { return m_s; }

private:
    // Eq<double> of a block at s, its rows in m_d.data.residual and .through: reads the global
    // vectors in place when the block has no dummy derivatives (and s has y'), the fast path of
    // every residual; else through the scratch slots (prepare).
    Eq<double> doubleEq(std::size_t block, const State& s);
    Eq<ad::Tan<double>> tangentEq(std::size_t block, const State& s);
    void blockResidual(std::size_t block, const State& s, double* F, double* fusedY);   // adds into F
    // adds sign * (dF/dy + cj dF/dy') of one block into values
    void blockJacobian(int block, const State& s, double cj, double* values, double sign = 1.0);
    // the same entries as add(position, derivative), the zeros and positions outside left out
    template <class Add> void blockJacobianTo(int block, const State& s, double cj, Add&& add);
    // linear and independent of the time in the mode of `discrete`: summed, not evaluated
    bool linearAt(std::size_t block, const double* discrete);
    void addLinear(std::size_t block, const State& s, double sign);   // its Jacobian and its offset
    // what addLinear() adds, in its order, as add(target, index, value): target 0 A, 1 B, 2 c
    template <class Add> void linearContribution(std::size_t block, const State& s, Add&& add);
    // addLinear() from a block's recorded contribution (updateLinear(), below)
    void addLinearRecorded(std::size_t block, const State& s, double sign);
    void rebuildLinear(const State& s);   // the linear blocks' sums from scratch
    void updateLinear(const State& s);    // only the blocks whose discrete state changed
    void listNonlinear();
    void rowsOfPattern();   // m_rowFirst, m_rowColumn, m_rowValue, once
    void applyFused(std::size_t block, double* res, double* thr, double* y);

    const DaeSystem& m_sys;
    std::vector<double> m_res, m_thr, m_delta;         // the rows of doubles()' fast path
    // The fused explicit variables, flat (a residual pass reads them in block order): block bi's
    // are m_fused[m_fusedFirst[bi] .. m_fusedFirst[bi + 1]); no fused variables: both empty.
    struct Fused {
        int var, unknown, coefficients;   // coefficients: first of its local rows' in m_fusedRows
        double negInverse;                // -1 / coefficient
    };
    std::vector<int> m_fusedFirst;
    std::vector<Fused> m_fused;
    std::vector<double> m_fusedRows;
    Workspace<double> m_d;
    Workspace<ad::Tan<double>> m_t;
    Workspace<Jet> m_j;
    Workspace<ad::Tan<Jet>> m_tj;
    Workspace<ad::Sym> m_s;
    // the Jacobian of the blocks linear in their current mode, dF/dy and dF/dy', for the
    // discrete state it was summed at; the other blocks are differentiated at every call
    // and the summed blocks' residual at y = y' = 0 (c), per row
    std::vector<double> m_linearA, m_linearB, m_linearC, m_linearDiscrete;
    std::vector<int> m_nonlinearBlocks;
    std::vector<int> m_copied;   // updateLinear(): the blocks whose discretes it copies
    std::vector<char> m_isLinear;                                     // per block, in m_linearDiscrete's modes
    std::vector<int> m_rowFirst, m_rowColumn, m_rowValue;             // the pattern by rows, for solveSummedRow()
    // The discretes an evaluation of a block read (Eq's discreteReads), with their values: a
    // discrete state takes the same path through the block's equations wherever those agree.
    struct ReadDiscretes {
        std::uint64_t reads = 0;
        std::vector<double> values;   // the block's discretes, compared where read
        bool matches(std::span<const double> own) const;
    };
    // linearAt()'s answers per structure, each for the discrete values its equations read there
    // (a friction lock's event time and a stop's impact count are not read, and change at every event)
    struct Summable {
        ReadDiscretes key;
        bool summed = false;
    };
    std::vector<std::vector<Summable>> m_summable;
    static constexpr std::size_t kSummableKept = 64;                  // per structure; more and the list starts again
    // updateLinear()'s blocks' contributions to the sums, each for the discrete values its equations
    // read: a block linear in its mode adds the same values wherever those are the same (the
    // coefficients follow modes and parameters, never values), so a mode change replays the
    // additions instead of differentiating the block three times. Bounded in all (kRecordedKept
    // additions; more and the records start again), so a large network keeps only its busy blocks'.
    struct LinearAdd {
        int target, index;   // as linearContribution() gives them
        double value;
    };
    struct Recorded {
        ReadDiscretes key;
        std::vector<LinearAdd> adds;
    };
    std::unordered_map<int, std::vector<Recorded>> m_recorded;
    std::size_t m_recordedAdds = 0;
    static constexpr std::size_t kRecordedKept = std::size_t(1) << 15;
    // and per block, since the lookup is a linear search: a spring's table of 40,000 breakpoints
    // went through thousands of segments, each a record, and searched them at every crossing
    static constexpr std::size_t kRecordedPerBlock = 64;
    DiscreteChanges m_changes{m_sys};                                 // which blocks updateLinear() visits
    std::vector<int> m_changedBlocks;                                 // since the last takeChanges(), with their flags
    std::vector<char> m_changedFlag;
    bool m_changedAll = true;
    bool m_linearValid = false;
    bool m_linearResidual = true;
    bool m_recordLinear = true;
    int m_linearUpdates = 0;          // incremental updates since the last rebuild
    int m_linearVersion = 0;          // bumped whenever the sums change
    unsigned long m_linearSeen = 0;   // the State::discreteVersion the sums were last synced at
    static constexpr int kFullRebuildEvery = 64;
};

template <class S, class Seed, class TimeSeed>
Eq<S> Evaluator::prepare(Workspace<S>& w, int block, const State& s, Seed&& seed, TimeSeed&& timeSeed) {
    const Binding& b = m_sys.bindings[static_cast<std::size_t>(block)];
    const std::span<const int> slot = b.slot(), der = b.derSlot();
    const std::size_t ns = slot.size();
    w.y.resize(ns);
    w.yp.resize(ns);
    for (std::size_t k = 0; k < ns; ++k) {
        const int u = slot[k];
        const double yk = s.y[u];
        double dk = 0.0;
        if (k < der.size()) dk = der[k] >= 0 ? s.y[slot[static_cast<std::size_t>(der[k])]] : (s.yp ? s.yp[u] : 0.0);
        seed(static_cast<int>(k), yk, dk, w.y[k], w.yp[k]);
    }
    w.res.assign(b.ownRow().size(), S(0.0));
    w.thr.assign(b.portRow().size(), S(0.0));
    w.data.y = w.y;
    w.data.yp = w.yp;
    w.data.portSlot = b.portSlot();
    w.data.varSlot = b.varSlot();
    w.data.discrete = std::span<const double>(s.discrete + b.discreteOffset, static_cast<std::size_t>(b.discreteCount));
    w.data.residual = w.res;
    w.data.through = w.thr;
    w.data.time = timeSeed(s.t);
    return Eq<S>(w.data);
}

}   // namespace endstop::core::dae
