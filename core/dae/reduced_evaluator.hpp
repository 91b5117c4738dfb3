// SPDX-License-Identifier: GPL-3.0-or-later
// ReducedEvaluator: the residual and Jacobian of the reduced system (reduce.hpp) that IDA solves,
// and the way back to the full network's unknowns that everything else reads (recording, events,
// projections, the GUI). Inputs: a DaeSystem and its ReductionPlan; outputs: F_r(t, y_r, y_r'),
// dF_r/dy_r + cj dF_r/dy_r' in a fixed pattern, the quadratures' rates, and expand().
//
// expand(): kept unknowns are copied, combinations summed, explicit variables solved from their
// own rows in dependency order (one evaluation of the owning block each: the row is linear in the
// variable), quadratures taken from IDA. The residual evaluates every block on the expanded vector
// and keeps the kept rows. The Jacobian chains the full one through the eliminations:
//     J_r = J_kk + J_k,x dx/dy_k,   dx/dy_k = coefficients (combinations),
//     de/dy_k = -(J_ee)^-1 (J_e,k + J_e,x dx/dy_k + J_e,e2 de2/dy_k)   (explicit, in order)
// compiled once into multiply-add instructions over the full Jacobian's values.
//
// With the sums on (evaluator.hpp), the residual does not expand the whole network either: the
// summed blocks' rows are affine in y and y', and so are the explicit variables solved from them.
// Substituting those and the combinations once per set of modes gives, per kept row,
//     F_r = c + A y_r + B y_r' + G z + (the evaluated blocks' rows),
// z the explicit variables of the evaluated blocks. A step then expands only what the evaluated
// blocks read (a stop in contact) and multiplies one sparse matrix over the kept rows.
#pragma once

#include "core/dae/evaluator.hpp"
#include "core/dae/reduce.hpp"

#include <map>
#include <utility>
#include <vector>

namespace endstop::core::dae {

class ReducedEvaluator {
public:
    // Expand: only expand() and full() are used (the event functions' copy), so the residual's
    // fusion and the compiled Jacobian chain are not built (a tenth of b10000's peak).
    enum class Purpose { Solve, Expand };
    ReducedEvaluator(const DaeSystem& sys, const ReductionPlan& red, Purpose purpose = Purpose::Solve);

    int size() const { return m_red.size(); }
    // false: every explicit variable and every block evaluated, no sums (tests compare the two)
    void setUseSums(bool on) {
        m_useSums = on;
        m_ev.setLinearResidual(on);
    }
    const Pattern& pattern() const { return m_identity ? m_sys.pattern : m_pattern; }
    Evaluator& full() { return m_ev; }

    // The full y and y' (size sys.size()) at a point of the reduced solution; q (may be null:
    // left as they are) the quadratures' values. y keeps the explicit variables' last values as
    // the start of their solution, so pass the same vectors every time.
    // Events: only the explicit variables the event functions read (and those they depend on).
    enum class For { Everything, Events };
    void expand(const State& reduced, const double* q, double* y, double* yp, For what = For::Everything);
    void gather(const double* y, const double* yp, double* yr, double* ypr) const;
    // The resting part's expansion (docs/engine.md, "The resting part"): selectExpansion() lists
    // what the moving unknowns (reduced indices) reach: their combinations, and in order the
    // explicit variables whose rows read those or each other. expandMoving() expands only that
    // into y and y' (and the quadratures from q), the rest left as the last expansion of the same
    // vectors gave it. The caller keeps that valid: the other reduced unknowns unchanged, and no
    // block for which definesResting() holds (it writes the row of an explicit variable outside
    // the list) changed its modes. false: an evaluated block does (it may be a function of time),
    // or the operator does not stand; expand() then.
    void selectExpansion(const std::vector<int>& moving);
    bool definesResting(int block) const;
    bool expandMoving(const State& reduced, const double* q, double* y, double* yp);

    // A full unknown as an affine function of the reduced ones, scaled and added into constant and
    // terms (reduced index, coefficient): kept unknowns, combinations and the explicit variables
    // that are constants of the run; false for the others (explicit variables, quadratures),
    // which only an expansion gives.
    struct Term {
        int index = -1;
        double coefficient = 0.0;
    };
    bool addAffine(int unknown, double scale, double& constant, std::vector<Term>& terms) const;

    // A consistent restart without a Newton iteration, for the shape of a chain of masses reduced:
    // the operator stands, a differential unknown's row has one rate entry, its own (a mass's v',
    // x'), and an algebraic one (id 0) is a timed unknown of the plan (ReductionPlan::timed) whose
    // row has none. Those are solved from their rows first (y, in place), then the rates, one
    // division per row; a last residual confirms (a row may read more than it seemed). false: not
    // this shape, or not confirmed; y and yp are then as they were.
    // rows: only these rows and their unknowns (the resting part's moving ones; the others keep
    // their rates, taken as zero)
    bool consistentRates(double t, double* y, const double* id, const double* discrete, unsigned long version,
                         double* yp, const std::vector<int>* rows = nullptr);

    // After consistentRates() succeeded, while its operator stands: the index-1 matrix [F_y(:,
    // alg) | F_y'(:, diff)] on the operator's rows is diagonal there, d_i the coefficient of a
    // differential unknown's own rate or of a timed one's value (restart.hpp). false otherwise.
    // rows: only these (the others' d left as they are)
    bool rateDiagonal(const double* id, double* d, const std::vector<int>* rows = nullptr) const;

    // rows: only these rows of F (reduced indices) are needed, the others are left undefined;
    // null: every row
    void residual(const State& reduced, double* F, const std::vector<int>* rows = nullptr);
    // The rows that can rest (the resting part, docs/engine.md): per row, the coefficient of its
    // own unknown's rate where the row is c + A y_r + b y_i' alone (one rate entry, its own; no
    // explicit variable of an evaluated block, no evaluated block's row), 0 otherwise. false: the
    // operator is not usable in these modes.
    // rows: only these, written into coefficient (sized for all) and the others left as they are
    bool restCoefficients(const State& reduced, std::vector<double>& coefficient,
                          const std::vector<int>* rows = nullptr);
    // The kept rows and quadrature rates of the operator that changed since the last call (in
    // place, after events), the operator made ready for reduced's modes first: a resting row
    // elsewhere keeps its coefficients and, reading resting unknowns, its value. false: every row
    // may have changed (the operator was built again or taken from the cache), or it does not
    // stand.
    bool takeOperatorChanges(const State& reduced, std::vector<int>& rows, std::vector<int>& rates);
    int operatorBuilds() const { return m_operatorBuilds; }   // how often the operator was built, not taken back
    int operatorUpdates() const { return m_operatorUpdates; }         // of those, built in place (updateOperator)
    void jacobian(const State& reduced, double cj, double* values);   // pattern().nnz() values
    // Some of the Jacobian's entries alone (indices into pattern()), for the resting part's moving
    // rows and columns: selectJacobian() restricts the chain to what they read, once per list, so
    // that selectedJacobian() costs those entries and not the network. values[j] is entries[j].
    // false: the operator does not stand in these modes; take jacobian().
    void selectJacobian(const std::vector<int>& entries);
    bool selectedJacobian(const State& reduced, double cj, double* values);
    void quadratureRates(const State& reduced, double* qdot);         // reduction().quadratures.size()
    // only the quadratures listed, qdot[j] the rate of which[j]
    void quadratureRates(const State& reduced, double* qdot, const std::vector<int>& which);
    // Per quadrature, 1 where its rate is an affine row of the operator with no constant and no
    // entry on an unknown that moves (slot >= 0) or on z: zero while those rest (the resting part).
    // Empty: the operator is not usable in these modes.
    std::vector<char> restingQuadratures(const State& reduced, const std::vector<int>& slot);

private:
    struct Instruction {
        int dst, a, b;   // dst += S[a] * S[b]
    };
    struct Segment {       // one explicit variable's derivatives
        int first, last;   // instructions
        int dynFirst, dynLast, diagonal;
    };
    // the linear operator above, for one version of the sums; ok false: a row it cannot express
    // (an explicit variable's rate, a quadrature read by a kept row), so the residual expands all
    struct LinearOperator {
        int version = -1;
        bool ok = false;
        std::vector<double> constant;     // per kept row
        // CSR over the kept rows: a row's entries on y_r [first, ypFirst), on y_r' [ypFirst,
        // zFirst) and on z [zFirst, next first), each column relative to its vector
        std::vector<int> first, ypFirst, zFirst, column;
        std::vector<double> value;
        std::vector<int> keptRead;       // the reduced unknowns the expansion for the operator reads
        std::vector<int> z;              // plan positions of the explicit variables in z (z's index)
        std::vector<char> zOf;           // per explicit variable: in z (its row is not summed)
        // per explicit variable of a summed row: e = constant + entries [exprFirst, exprLast) of
        // the flat storage, over the same columns as a row (an update appends, see updateOperator)
        std::vector<double> exprConstant, exprValue;
        std::vector<int> exprFirst, exprLast, exprColumn;
        std::vector<int> explicits;      // plan positions solved before the evaluated blocks
        std::vector<int> combinations;   // the combinations those read
        std::vector<int> blocks, rows;   // the evaluated blocks and the rows they write
        std::vector<std::pair<int, int>> keptRows;   // those rows that are kept: (reduced index, row)
        // the quadratures' rates alike, per quadrature: rate = constant + entries; no entries
        // and rateEvaluated: one evaluation of its block (not summed, or not expressible)
        std::vector<double> rateConstant, rateValue;
        std::vector<int> rateFirst, rateColumn;
        std::vector<char> rateEvaluated;
    };
    bool operatorReady(const State& reduced);   // synced with the sums, and usable
    bool buildOperator();
    bool updateOperator(const std::vector<int>& changed);   // after the sums changed in these blocks only
    class OperatorRows;
    std::vector<double> m_opAccumulator;   // OperatorRows' accumulator, all zero between uses
    std::vector<char> m_opUsed;
    bool rebuildRowsInPlace(OperatorRows& rows, const std::vector<int>& marked, const std::vector<int>& rates,
                            bool& inPlace);
    bool finishUpdate();   // updateOperator()'s end: expressions compacted, operatorReads()
    bool operatorExplicit(OperatorRows& rows, std::size_t p);
    bool operatorRow(OperatorRows& rows, int i, std::vector<double>& constant, std::vector<int>& ypFirst,
                     std::vector<int>& zFirst, std::vector<int>& column, std::vector<double>& value);
    void operatorRate(OperatorRows& rows, std::size_t k, std::vector<double>& constant, std::vector<int>& column,
                      std::vector<double>& value, std::vector<char>& evaluated);
    void operatorReads();
    double operatorQuadratureRate(const State& reduced, std::size_t k);
    std::vector<double> m_qdot;         // quadratureRates(which) without the operator
    std::vector<int> m_explicitOfRow;   // per row: the plan position of the explicit variable solved from it, -1
    std::vector<int> m_changedBlocks;   // scratch: the blocks whose sums changed (Evaluator::takeChanges)
    void expandForOperator(const State& reduced);   // m_y, m_yp where the evaluated blocks read; z in m_u
    // combinations: only these (positions), or all; the explicit variables listed are solved
    // from 0, and with zeroAll every other one is zeroed too; keptRead: only these kept unknowns
    // (reduced indices) are copied, or all
    void expandInto(const State& reduced, double* y, double* yp, const std::vector<int>& explicits,
                    const std::vector<int>* combinations = nullptr, bool zeroAll = true,
                    const std::vector<int>* keptRead = nullptr);
    void solveExplicit(const ReductionPlan::Derived& e, const State& full, double* y);   // y: full.y, writable
    // the row an explicit variable is solved from: summed (every block writing it), its value at
    // full, and the slots of the blocks writing it
    bool rowSummed(const ReductionPlan::Derived& e) const;
    double rowResidual(const ReductionPlan::Derived& e, const State& full);
    template <class F> void forEachSlotOfRow(const ReductionPlan::Derived& e, F&& f) const {
        if (e.block >= 0) {
            for (const int u : m_sys.bindings[static_cast<std::size_t>(e.block)].slot()) f(u);
            return;
        }
        for (const auto& [block, port] : m_balanceWriters.at(e.row))
            for (const int u : m_sys.bindings[static_cast<std::size_t>(block)].slot()) f(u);
    }
    void compile();
    bool constantJacobian(const State& reduced);   // m_jac0, m_jacB hold it for the operator's version
    void chainJacobian(const State& reduced, double cj, double* values, bool op);
    void fuse();
    std::vector<int> closure(const std::vector<int>& unknowns) const;   // explicit positions, in order
    // closure()'s and operatorReads()' marks, all zero between uses: their cost follows what
    // they mark, not the network (an event of a long chain reads a few blocks). operatorReads()
    // marks rows, then unknowns, in the one array (rows are numbered like unknowns).
    mutable std::vector<char> m_explicitMark;
    std::vector<char> m_unknownMark;
    std::vector<int> m_unknownTouched;
    // updateOperator()'s marks alike, its own since operatorReads() runs inside it: rows and
    // explicit positions, and the explicit positions it marked
    std::vector<char> m_updateRowMark, m_updateExplicitMark;
    std::vector<int> m_updateExplicits;
    void findConstants();
    // per explicit variable (plan position): 1 for a constant of the run (findConstants()); their
    // values, by position
    std::vector<char> m_constant;
    std::map<int, double> m_constantValue;

    const DaeSystem& m_sys;
    const ReductionPlan& m_red;
    Evaluator m_ev;
    bool m_identity = false;
    std::vector<double> m_y, m_yp, m_F;
    std::vector<int> m_all, m_forEvents, m_forQuadratures;   // positions in the plan's explicits
    std::vector<int> m_eventCombinations;                    // the combinations the event functions need
    // the balances pairs solve from (reduce.hpp): row -> (block, conserving port) writing it
    std::map<int, std::vector<std::pair<int, int>>> m_balanceWriters;
    std::vector<int> m_beforeResidual;                       // those not fused into the residual pass (evaluator.hpp)
    std::vector<int> m_fused;                                // those fused: solved before it when their block is summed
    bool m_useSums = false;   // explicit variables of summed blocks from the sums (evaluator.hpp)
    // the combinations, flat: unknown, offset and terms [first, next first)
    // the plan's combinations (ReductionPlan::Combinations)
    const std::vector<int>& m_combUnknown = m_red.combinations.unknown;
    const std::vector<int>& m_combFirst = m_red.combinations.first;
    const std::vector<int>& m_termUnknown = m_red.combinations.termUnknown;
    const std::vector<double>& m_combOffset = m_red.combinations.offset;
    const std::vector<double>& m_termCoefficient = m_red.combinations.termCoefficient;
    Pattern m_pattern;
    std::vector<double> m_scratch;   // full Jacobian values | 1 and the combinations' coefficients | dx/dy_k
    struct MovingExpansion {         // selectExpansion()
        bool ready = false;
        std::vector<int> kept, combinations, explicits;
        std::vector<char> definesResting;   // per block
    } m_moving;
    std::vector<Instruction> m_chain, m_out;
    std::vector<Segment> m_segments;
    struct Selection {   // selectJacobian()
        bool ready = false;
        std::size_t count = 0;           // entries selected
        std::vector<Instruction> out;    // m_out's that write them, dst the selected index
        std::vector<int> segments;       // the segments those read, in order
        std::vector<int> entries;        // the full Jacobian's entries all of them read
        std::vector<char> blocks;        // per block: writes one of those
    } m_selection;
    LinearOperator m_op;
    // Operators of earlier sums, for a small network that switches back and forth between a few
    // modes (stick and slip): the operator is a function of the sums alone (which blocks, their
    // coefficients), so one built for the same sums before is taken back instead of rebuilt.
    static constexpr std::size_t kCachedOperators = 8;
    static constexpr std::size_t kCacheEntries = 1024;   // cached while the sums hold at most this many values
    struct CachedOperator {
        std::vector<char> blocks;
        std::vector<double> a, b, c;
        LinearOperator op;
    };
    bool sameSums(const CachedOperator& e) const;
    std::vector<CachedOperator> m_opCache;
    std::size_t m_opCacheNext = 0;   // the entry replaced next once the cache is full
    int m_operatorBuilds = 0, m_operatorUpdates = 0;
    int m_jacVersion = -1;   // the operator version m_jacConstant was decided at
    bool m_jacConstant = false;
    std::vector<double> m_jac0, m_jacB;               // the reduced Jacobian at cj = 0, and its cj coefficient
    std::vector<int> m_jacAt;                         // where m_jacB's entries go (the others have none)
    // per unknown: its position among the explicit variables, the combinations or the quadratures,
    // as its fate says; -1 for a kept one (solving only: empty otherwise). One vector for the three
    // (0.5 MB less at 40,000 blocks): an unknown has one fate.
    std::vector<int> m_fateIndex;
    int fateIndex(int u, ReductionPlan::Fate fate) const {
        return !m_fateIndex.empty() && m_red.fate[static_cast<std::size_t>(u)] == fate
                   ? m_fateIndex[static_cast<std::size_t>(u)]
                   : -1;
    }
    int explicitAt(int u) const { return fateIndex(u, ReductionPlan::Fate::Explicit); }
    int combinationAt(int u) const { return fateIndex(u, ReductionPlan::Fate::Combination); }
    int quadratureAt(int u) const { return fateIndex(u, ReductionPlan::Fate::Quadrature); }
    std::vector<double> m_u, m_Fop;                   // z; the evaluated rows (zero elsewhere)
    std::vector<double> m_rates, m_F0, m_F1, m_saved;   // consistentRates()
    std::vector<int> m_list;                            // consistentRates(): its rows
    std::vector<double> m_timedCoefficient;             // per kept unknown: of a timed one in its row, or 0 (Solve)
    std::vector<int> m_opChangedRows, m_opChangedRates;   // takeOperatorChanges()
    bool m_opAllChanged = true;
};

}   // namespace endstop::core::dae
