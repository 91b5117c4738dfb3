// SPDX-License-Identifier: GPL-3.0-or-later
// The reduced engine's linear operator (reduced_evaluator.hpp, docs/engine.md "Reduction"): built
// from the sums once per set of modes, or in place after an event on a large network.
#include "core/dae/reduced_evaluator.hpp"

#include <algorithm>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }
using Fate = ReductionPlan::Fate;

// entries [from, to) of one sparse storage appended to another
void appendEntries(const std::vector<int>& column, const std::vector<double>& value, int from, int to,
                   std::vector<int>& columnOut, std::vector<double>& valueOut) {
    columnOut.insert(columnOut.end(), column.begin() + from, column.begin() + to);
    valueOut.insert(valueOut.end(), value.begin() + from, value.begin() + to);
}

}   // namespace

// One row of the operator at a time: the unknowns a row of the sums reads, each as an affine
// combination of [y_r | y_r' | z] (columns 0..n-1, n..2n-1 and 2n + the plan position of an
// explicit variable of an evaluated block): kept ones and combinations directly, explicit
// variables of summed rows through their expressions (computed in the plan's dependency order, so
// what they read is known).
class ReducedEvaluator::OperatorRows {
public:
    // the accumulator is the evaluator's, zero between uses: an update after an event does not
    // clear 2n + explicits entries again
    explicit OperatorRows(ReducedEvaluator& re)
        : r(re), n(re.m_red.size()), acc(re.m_opAccumulator), used(re.m_opUsed) {
        acc.resize(at(2 * n) + re.m_red.explicits.size(), 0.0);
        used.resize(acc.size(), 0);
    }
    ~OperatorRows() { discard(); }   // an expression given up halfway leaves it zero too
    OperatorRows(const OperatorRows&) = delete;
    OperatorRows& operator=(const OperatorRows&) = delete;

    // row's summed entries into the accumulator and constant, except skip's value (its diagonal),
    // or with ofRate its rate; false where the row reads what the operator cannot express
    bool expand(int row, int skip, double& diagonal, bool ofRate = false) {
        bool ok = true;
        constant = r.m_ev.summedConstant(row);
        r.m_ev.forEachSummedEntry(row, [&](int j, double a, double b) {
            if (j == skip) {
                diagonal = ofRate ? b : a;
                ok = ok && (ofRate ? a : b) == 0.0;
                return;
            }
            ok = ok && value(j, a) && rate(j, b);
        });
        return ok;
    }
    void flush(double scale, std::vector<int>& column, std::vector<double>& values) {
        std::sort(touched.begin(), touched.end());
        for (const int c : touched) {
            if (acc[at(c)] != 0.0) column.push_back(c), values.push_back(scale * acc[at(c)]);
            acc[at(c)] = 0.0;
            used[at(c)] = 0;
        }
        touched.clear();
    }
    void discard() {
        for (const int c : touched) acc[at(c)] = 0.0, used[at(c)] = 0;
        touched.clear();
    }
    double constant = 0.0;

private:
    void add(int column, double w) {
        if (!used[at(column)]) used[at(column)] = 1, touched.push_back(column);
        acc[at(column)] += w;
    }
    bool value(int j, double w) {   // w y_j
        if (w == 0.0) return true;
        const LinearOperator& op = r.m_op;
        switch (r.m_red.fate[at(j)]) {
            case Fate::Kept:
                add(r.m_red.reducedIndex[at(j)], w);
                return true;
            case Fate::Combination: {
                const int c = r.combinationAt(j);
                constant += w * r.m_combOffset[at(c)];
                for (int k = r.m_combFirst[at(c)]; k < r.m_combFirst[at(c) + 1]; ++k)
                    add(r.m_red.reducedIndex[at(r.m_termUnknown[at(k)])], w * r.m_termCoefficient[at(k)]);
                return true;
            }
            case Fate::Explicit: {
                const int p = r.explicitAt(j);
                if (op.zOf[at(p)]) return add(2 * n + p, w), true;
                constant += w * op.exprConstant[at(p)];
                for (int k = op.exprFirst[at(p)]; k < op.exprLast[at(p)]; ++k)
                    add(op.exprColumn[at(k)], w * op.exprValue[at(k)]);
                return true;
            }
            case Fate::Quadrature:
                return false;
        }
        return false;
    }
    bool rate(int j, double w) {   // w y_j'
        if (w == 0.0) return true;
        if (r.m_red.fate[at(j)] == Fate::Kept) return add(n + r.m_red.reducedIndex[at(j)], w), true;
        if (r.m_red.fate[at(j)] != Fate::Combination) return false;
        const int c = r.combinationAt(j);
        for (int k = r.m_combFirst[at(c)]; k < r.m_combFirst[at(c) + 1]; ++k)
            add(n + r.m_red.reducedIndex[at(r.m_termUnknown[at(k)])], w * r.m_termCoefficient[at(k)]);
        return true;
    }

    ReducedEvaluator& r;
    int n;
    std::vector<double>& acc;
    std::vector<char>& used;
    std::vector<int> touched;
};

// explicit variable p: a z where its row is not summed, else its expression appended to the flat
// storage; false: not expressible
bool ReducedEvaluator::operatorExplicit(OperatorRows& rows, std::size_t p) {
    const ReductionPlan::Derived& e = m_red.explicits[p];
    m_op.zOf[p] = rowSummed(e) ? 0 : 1;
    m_op.exprConstant[p] = 0.0;
    m_op.exprFirst[p] = m_op.exprLast[p] = static_cast<int>(m_op.exprColumn.size());
    if (m_op.zOf[p]) return true;
    double diagonal = 0.0;
    if (!rows.expand(e.row, e.unknown, diagonal) || diagonal == 0.0) return rows.discard(), false;
    m_op.exprConstant[p] = -rows.constant / diagonal;
    rows.flush(-1.0 / diagonal, m_op.exprColumn, m_op.exprValue);
    m_op.exprLast[p] = static_cast<int>(m_op.exprColumn.size());
    return true;
}

// kept row i appended to the CSR arrays given (column relative to its vector, split y_r | y_r' | z)
bool ReducedEvaluator::operatorRow(OperatorRows& rows, int i, std::vector<double>& constant, std::vector<int>& ypFirst,
                                   std::vector<int>& zFirst, std::vector<int>& column, std::vector<double>& value) {
    const int n = m_red.size();
    double unused = 0.0;
    if (!rows.expand(m_red.kept[at(i)], -1, unused)) return rows.discard(), false;
    constant.push_back(rows.constant);
    const std::size_t from = column.size();
    rows.flush(1.0, column, value);   // sorted: y_r, then y_r', then z
    int yp = static_cast<int>(column.size()), z = yp;
    for (std::size_t k = column.size(); k-- > from;) {
        int& c = column[k];
        if (c >= n) yp = static_cast<int>(k);
        if (c >= 2 * n) z = static_cast<int>(k);
        c -= c >= 2 * n ? 2 * n : c >= n ? n : 0;
    }
    ypFirst.push_back(yp);
    zFirst.push_back(z);
    return true;
}

// quadrature k's rate appended: from its row of the sums where it can be, else evaluated
void ReducedEvaluator::operatorRate(OperatorRows& rows, std::size_t k, std::vector<double>& constant,
                                    std::vector<int>& column, std::vector<double>& value,
                                    std::vector<char>& evaluated) {
    const ReductionPlan::Derived& q = m_red.quadratures[k];
    double diagonal = 0.0;
    bool summed = m_ev.summed(q.block);
    if (summed && (!rows.expand(q.unknown, q.unknown, diagonal, true) || diagonal == 0.0)) summed = false;
    if (summed) {
        constant.push_back(-rows.constant / diagonal);
        rows.flush(-1.0 / diagonal, column, value);
    } else {
        rows.discard();
        constant.push_back(0.0);
    }
    evaluated.push_back(summed ? 0 : 1);
}

// The operator for the current sums, from scratch.
bool ReducedEvaluator::buildOperator() {
    const int n = m_red.size();
    const std::size_t explicits = m_red.explicits.size();
    m_op = LinearOperator{};
    m_op.zOf.assign(explicits, 0);
    m_op.exprConstant.assign(explicits, 0.0);
    m_op.exprFirst.assign(explicits, 0);
    m_op.exprLast.assign(explicits, 0);
    m_op.constant.reserve(at(n));
    m_op.first.reserve(at(n) + 1);
    m_op.ypFirst.reserve(at(n));
    m_op.zFirst.reserve(at(n));
    OperatorRows rows(*this);
    for (std::size_t p = 0; p < explicits; ++p)
        if (!operatorExplicit(rows, p)) return false;
    m_op.first.push_back(0);
    for (int i = 0; i < n; ++i) {
        if (!operatorRow(rows, i, m_op.constant, m_op.ypFirst, m_op.zFirst, m_op.column, m_op.value)) return false;
        m_op.first.push_back(static_cast<int>(m_op.column.size()));
    }
    m_op.rateFirst.push_back(0);
    for (std::size_t k = 0; k < m_red.quadratures.size(); ++k) {
        operatorRate(rows, k, m_op.rateConstant, m_op.rateColumn, m_op.rateValue, m_op.rateEvaluated);
        m_op.rateFirst.push_back(static_cast<int>(m_op.rateColumn.size()));
    }
    // the entries grew without knowing their count; the operator stays until the sums change
    for (std::vector<int>* v : {&m_op.column, &m_op.exprColumn, &m_op.rateColumn}) v->shrink_to_fit();
    for (std::vector<double>* v : {&m_op.value, &m_op.exprValue, &m_op.rateValue}) v->shrink_to_fit();
    operatorReads();
    return true;
}

// The operator after the sums changed in `changed` blocks only: their rows, the explicit variables
// solved from those rows, and (following the Jacobian's pattern) every row that reads one of them,
// again; the other rows are copied. An event in a chain of 10,000 stops touches a few rows, not
// 20,001.
bool ReducedEvaluator::updateOperator(const std::vector<int>& changed) {
    const int n = m_red.size();
    const Pattern& pat = m_sys.pattern;
    // the marks are kept between calls, all zero, and cleared on every way out: an event costs
    // the rows it marks, not the network
    std::vector<char>& rowMark = m_updateRowMark;
    std::vector<char>& explicitMark = m_updateExplicitMark;
    rowMark.resize(at(m_sys.size()), 0);
    explicitMark.resize(m_red.explicits.size(), 0);
    std::vector<int> marked;
    m_updateExplicits.clear();
    struct Clear {
        ReducedEvaluator& self;
        const std::vector<int>& marked;
        ~Clear() {
            for (const int row : marked) self.m_updateRowMark[at(row)] = 0;
            for (const int p : self.m_updateExplicits) self.m_updateExplicitMark[at(p)] = 0;
        }
    } clear{*this, marked};
    auto mark = [&](int row) {
        if (row >= 0 && !rowMark[at(row)]) rowMark[at(row)] = 1, marked.push_back(row);
    };
    for (const int bi : changed) {
        const Binding& b = m_sys.bindings[at(bi)];
        for (const std::span<const int> rs : {b.ownRow(), b.portRow(), b.ownDiff(), b.portDiff()})
            for (const int row : rs) mark(row);
    }
    for (std::size_t k = 0; k < marked.size(); ++k) {   // grows: the readers of what changed
        const int p = m_explicitOfRow[at(marked[k])];
        if (p < 0 || explicitMark[at(p)]) continue;
        explicitMark[at(p)] = 1;
        m_updateExplicits.push_back(p);
        const int u = m_red.explicits[at(p)].unknown;
        for (int e = pat.colPtr[at(u)]; e < pat.colPtr[at(u + 1)]; ++e) mark(pat.rowIdx[at(e)]);
    }
    for (const int row : marked)   // for takeOperatorChanges(); past n of them, all may have changed
        if (const int i = m_red.reducedIndex[at(row)]; i >= 0 && m_opChangedRows.size() <= at(n))
            m_opChangedRows.push_back(i);
    std::vector<int> rates;   // the quadratures whose rows are marked, in order
    for (const int row : marked)
        if (const int k = quadratureAt(row); k >= 0) rates.push_back(k);
    std::sort(rates.begin(), rates.end());
    m_opChangedRates.insert(m_opChangedRates.end(), rates.begin(), rates.end());
    OperatorRows rows(*this);
    std::sort(m_updateExplicits.begin(), m_updateExplicits.end());   // in plan order
    for (const int p : m_updateExplicits)
        if (!operatorExplicit(rows, at(p))) return false;
    LinearOperator& op = m_op;
    bool inPlace = false;
    if (!rebuildRowsInPlace(rows, marked, rates, inPlace)) return false;
    if (inPlace) return finishUpdate();
    // the kept rows: marked ones built again, the others copied
    std::vector<double> constant, value;
    std::vector<int> first{0}, ypFirst, zFirst, column;
    constant.reserve(op.constant.size());
    first.reserve(op.first.size());
    ypFirst.reserve(op.ypFirst.size());
    zFirst.reserve(op.zFirst.size());
    column.reserve(op.column.size());
    value.reserve(op.value.size());
    for (int i = 0; i < n; ++i) {
        if (rowMark[at(m_red.kept[at(i)])]) {
            if (!operatorRow(rows, i, constant, ypFirst, zFirst, column, value)) return false;
        } else {
            const int from = op.first[at(i)], to = op.first[at(i + 1)], shift = static_cast<int>(column.size()) - from;
            constant.push_back(op.constant[at(i)]);
            ypFirst.push_back(op.ypFirst[at(i)] + shift);
            zFirst.push_back(op.zFirst[at(i)] + shift);
            appendEntries(op.column, op.value, from, to, column, value);
        }
        first.push_back(static_cast<int>(column.size()));
    }
    op.constant.swap(constant);
    op.first.swap(first);
    op.ypFirst.swap(ypFirst);
    op.zFirst.swap(zFirst);
    op.column.swap(column);
    op.value.swap(value);
    // the quadratures' rates alike
    std::vector<double> rateConstant, rateValue;
    std::vector<int> rateFirst{0}, rateColumn;
    std::vector<char> rateEvaluated;
    for (std::size_t k = 0; k < m_red.quadratures.size(); ++k) {
        if (rowMark[at(m_red.quadratures[k].unknown)]) {
            operatorRate(rows, k, rateConstant, rateColumn, rateValue, rateEvaluated);
        } else {
            const int from = op.rateFirst[k], to = op.rateFirst[k + 1];
            rateConstant.push_back(op.rateConstant[k]);
            appendEntries(op.rateColumn, op.rateValue, from, to, rateColumn, rateValue);
            rateEvaluated.push_back(op.rateEvaluated[k]);
        }
        rateFirst.push_back(static_cast<int>(rateColumn.size()));
    }
    op.rateConstant.swap(rateConstant);
    op.rateValue.swap(rateValue);
    op.rateFirst.swap(rateFirst);
    op.rateColumn.swap(rateColumn);
    op.rateEvaluated.swap(rateEvaluated);
    return finishUpdate();
}

// The marked rows (of the whole network) that are kept rows or quadratures, built again where they
// stand when each keeps its number of entries in every part (a mode change that keeps the shape of
// its rows, the common case): costs those rows, not the operator. inPlace false: some row changed
// its shape; the rows already written are built again by the copy. rates: the quadratures among
// the marked rows, in order.
bool ReducedEvaluator::rebuildRowsInPlace(OperatorRows& rows, const std::vector<int>& marked,
                                          const std::vector<int>& rates, bool& inPlace) {
    LinearOperator& op = m_op;
    inPlace = false;
    std::vector<double> constant, value;
    std::vector<int> ypFirst, zFirst, column;
    std::vector<char> evaluated;
    for (const int row : marked) {
        const int i = m_red.reducedIndex[at(row)];
        if (i < 0) continue;
        constant.clear(), value.clear(), ypFirst.clear(), zFirst.clear(), column.clear();
        if (!operatorRow(rows, i, constant, ypFirst, zFirst, column, value)) return false;
        const int from = op.first[at(i)];
        if (at(op.first[at(i + 1)] - from) != column.size() || op.ypFirst[at(i)] - from != ypFirst[0] ||
            op.zFirst[at(i)] - from != zFirst[0])
            return true;
        op.constant[at(i)] = constant[0];
        std::copy(column.begin(), column.end(), op.column.begin() + from);
        std::copy(value.begin(), value.end(), op.value.begin() + from);
    }
    for (const int q : rates) {
        const auto k = at(q);
        constant.clear(), value.clear(), column.clear(), evaluated.clear();
        operatorRate(rows, k, constant, column, value, evaluated);
        const int from = op.rateFirst[k];
        if (at(op.rateFirst[k + 1] - from) != column.size()) return true;
        op.rateConstant[k] = constant[0];
        op.rateEvaluated[k] = evaluated[0];
        std::copy(column.begin(), column.end(), op.rateColumn.begin() + from);
        std::copy(value.begin(), value.end(), op.rateValue.begin() + from);
    }
    inPlace = true;
    return true;
}

bool ReducedEvaluator::finishUpdate() {
    LinearOperator& op = m_op;
    // the expressions built again left their old entries behind: compacted when they are most
    std::size_t live = 0;
    for (std::size_t p = 0; p < op.exprFirst.size(); ++p) live += at(op.exprLast[p] - op.exprFirst[p]);
    if (op.exprColumn.size() > 2 * live + 1024) {
        std::vector<int> columnKept;
        std::vector<double> valueKept;
        columnKept.reserve(live);
        valueKept.reserve(live);
        for (std::size_t p = 0; p < op.exprFirst.size(); ++p) {
            const int from = op.exprFirst[p], to = op.exprLast[p];
            op.exprFirst[p] = static_cast<int>(columnKept.size());
            appendEntries(op.exprColumn, op.exprValue, from, to, columnKept, valueKept);
            op.exprLast[p] = static_cast<int>(columnKept.size());
        }
        op.exprColumn.swap(columnKept);
        op.exprValue.swap(valueKept);
    }
    operatorReads();
    return true;
}

// What the evaluated blocks read and the rows they write, the explicit variables and combinations
// the expansion for the operator computes, and the kept unknowns it copies.
void ReducedEvaluator::operatorReads() {
    std::vector<int> reads;
    for (std::size_t k = 0; k < m_red.quadratures.size(); ++k)
        if (m_op.rateEvaluated[k]) {
            const std::span<const int> slots = m_sys.bindings[at(m_red.quadratures[k].block)].slot();
            reads.insert(reads.end(), slots.begin(), slots.end());
        }
    m_op.blocks = m_ev.evaluatedBlocks();
    m_op.rows.clear();
    m_op.keptRows.clear();
    std::vector<char>& written = m_unknownMark;   // all zero between calls; cleared before `need` below
    written.resize(at(m_sys.size()), 0);
    for (const int bi : m_op.blocks) {
        const Binding& b = m_sys.bindings[at(bi)];
        reads.insert(reads.end(), b.slot().begin(), b.slot().end());
        for (const std::span<const int> rows : {b.ownRow(), b.portRow(), b.ownDiff(), b.portDiff()})
            for (const int row : rows)
                if (row >= 0 && !written[at(row)]) written[at(row)] = 1, m_op.rows.push_back(row);
    }
    for (const int row : m_op.rows) {
        written[at(row)] = 0;
        if (const int i = m_red.reducedIndex[at(row)]; i >= 0) m_op.keptRows.emplace_back(i, row);
    }
    // z: each is solved in the expansion, also a pair's half that no evaluated block reads
    m_op.z.clear();
    for (std::size_t p = 0; p < m_op.zOf.size(); ++p)
        if (m_op.zOf[p]) {
            m_op.z.push_back(static_cast<int>(p));
            reads.push_back(m_red.explicits[p].unknown);
        }
    m_op.explicits = closure(reads);
    // the combinations read by those blocks and by the rows or blocks of those explicit
    // variables, and the kept unknowns those read, each in plan order: what is marked is listed in
    // m_unknownTouched, so the cost follows the reads and not the network
    std::vector<char>& need = m_unknownMark;   // all zero between calls
    need.resize(at(m_sys.size()), 0);
    std::vector<int>& touched = m_unknownTouched;
    touched.clear();
    auto mark = [&](int u) {
        if (!need[at(u)]) need[at(u)] = 1, touched.push_back(u);
    };
    for (const int u : reads) mark(u);
    for (const int p : m_op.explicits) {
        const ReductionPlan::Derived& e = m_red.explicits[at(p)];
        if (rowSummed(e))
            m_ev.forEachSummedEntry(e.row, [&](int j, double, double) { mark(j); });
        else
            forEachSlotOfRow(e, mark);
    }
    m_op.combinations.clear();
    for (const int u : touched)
        if (const int c = combinationAt(u); c >= 0) m_op.combinations.push_back(c);
    std::sort(m_op.combinations.begin(), m_op.combinations.end());
    for (const int c : m_op.combinations)   // their terms are kept unknowns
        for (int k = m_combFirst[at(c)]; k < m_combFirst[at(c + 1)]; ++k) mark(m_termUnknown[at(k)]);
    m_op.keptRead.clear();
    for (const int u : touched) {
        if (const int i = m_red.reducedIndex[at(u)]; i >= 0) m_op.keptRead.push_back(i);
        need[at(u)] = 0;
    }
    std::sort(m_op.keptRead.begin(), m_op.keptRead.end());
    m_u.resize(m_red.explicits.size());   // z is written before it is read
    m_Fop.resize(at(m_sys.size()));       // the evaluated rows are zeroed before each residual
    m_op.ok = true;
}

}   // namespace endstop::core::dae
