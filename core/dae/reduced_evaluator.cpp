// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dae/reduced_evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }
using Fate = ReductionPlan::Fate;

}   // namespace

ReducedEvaluator::ReducedEvaluator(const DaeSystem& sys, const ReductionPlan& red, Purpose purpose)
    : m_sys(sys), m_red(red), m_ev(sys), m_identity(red.eliminated() == 0) {
    if (m_identity) return;
    for (const ReductionPlan::Derived& e : red.explicits)
        if (e.block < 0) m_balanceWriters[e.row];
    if (!m_balanceWriters.empty())
        for (std::size_t bi = 0; bi < sys.bindings.size(); ++bi) {
            const Binding& b = sys.bindings[bi];
            for (std::size_t p = 0; p < b.portRow().size(); ++p)
                if (const auto w = m_balanceWriters.find(b.portRow()[p]); w != m_balanceWriters.end())
                    w->second.emplace_back(static_cast<int>(bi), static_cast<int>(p));
        }
    const bool solve = purpose == Purpose::Solve;
    m_useSums = solve;
    if (solve) {
        m_y = sys.y0;
        m_yp.assign(at(sys.size()), 0.0);
        m_F.assign(at(sys.size()), 0.0);
        compile();
    }
    for (std::size_t i = 0; i < red.explicits.size(); ++i) m_all.push_back(static_cast<int>(i));
    findConstants();
    if (solve) {
        m_fateIndex.assign(at(sys.size()), -1);
        auto place = [&](int u, std::size_t position, Fate fate) {
            if (red.fate[at(u)] != fate)
                throw std::logic_error("reduction: an unknown's place disagrees with its fate");
            m_fateIndex[at(u)] = static_cast<int>(position);
        };
        for (std::size_t k = 0; k < red.quadratures.size(); ++k) place(red.quadratures[k].unknown, k, Fate::Quadrature);
        for (std::size_t i = 0; i < red.explicits.size(); ++i) place(red.explicits[i].unknown, i, Fate::Explicit);
        for (std::size_t c = 0; c < m_combUnknown.size(); ++c) place(m_combUnknown[c], c, Fate::Combination);
        m_explicitOfRow.assign(at(sys.size()), -1);
        for (std::size_t i = 0; i < red.explicits.size(); ++i)
            m_explicitOfRow[at(red.explicits[i].row)] = static_cast<int>(i);
        m_timedCoefficient.assign(at(red.size()), 0.0);
        for (const ReductionPlan::Derived& d : red.timed)
            m_timedCoefficient[at(red.reducedIndex[at(d.unknown)])] = d.coefficient;
    }
    std::vector<int> read;
    if (solve) {
        fuse();
        for (const ReductionPlan::Derived& q : red.quadratures) {
            const std::span<const int> r = red.reads(q);
            read.insert(read.end(), r.begin(), r.end());
        }
        m_forQuadratures = closure(read);
        read.clear();
    }
    for (const int bi : sys.eventBlocks) {
        const Binding& b = sys.bindings[at(bi)];
        const BlockStructure& st = sys.structures[at(sys.structureOf[at(bi)])];
        for (std::size_t k = 0; k < b.slot().size(); ++k)
            if (st.eventRead(b, k)) read.push_back(b.slot()[k]);
    }
    m_forEvents = closure(read);
    // the combinations those read: the event blocks' slots, and every slot of the blocks whose
    // explicit variables are solved for them (one evaluation of the block each)
    std::vector<char> need(at(sys.size()), 0);
    for (const int u : read) need[at(u)] = 1;
    for (const int i : m_forEvents) forEachSlotOfRow(red.explicits[at(i)], [&](int u) { need[at(u)] = 1; });
    for (std::size_t c = 0; c < m_combUnknown.size(); ++c)
        if (need[at(m_combUnknown[c])]) m_eventCombinations.push_back(static_cast<int>(c));
}

std::vector<int> ReducedEvaluator::closure(const std::vector<int>& unknowns) const {
    std::vector<int> local;   // explicit unknown -> position in the plan, -1
    if (m_fateIndex.empty()) {
        local.assign(at(m_sys.size()), -1);
        for (std::size_t i = 0; i < m_red.explicits.size(); ++i)
            local[at(m_red.explicits[i].unknown)] = static_cast<int>(i);
    }
    auto position = [&](int u) { return m_fateIndex.empty() ? local[at(u)] : explicitAt(u); };
    // the positions read, and what their rows read in turn (a work list), then in plan order
    std::vector<char>& need = m_explicitMark;
    need.resize(m_red.explicits.size(), 0);
    std::vector<int> out;
    auto mark = [&](int p) {
        if (p >= 0 && !need[at(p)]) need[at(p)] = 1, out.push_back(p);
    };
    for (const int u : unknowns) mark(position(u));
    for (std::size_t k = 0; k < out.size(); ++k)
        for (const int w : m_red.reads(m_red.explicits[at(out[k])])) mark(position(w));
    for (const int p : out) need[at(p)] = 0;
    std::sort(out.begin(), out.end());
    return out;
}

void ReducedEvaluator::expandInto(const State& r, double* y, double* yp, const std::vector<int>& explicits,
                                  const std::vector<int>* combinations, bool zeroAll,
                                  const std::vector<int>* keptRead) {
    const std::vector<int>& kept = m_red.kept;
    if (keptRead) {
        for (const int i : *keptRead) {
            y[kept[at(i)]] = r.y[i];
            yp[kept[at(i)]] = r.yp ? r.yp[i] : 0.0;
        }
    } else {
        for (std::size_t i = 0; i < kept.size(); ++i) {
            y[kept[i]] = r.y[i];
            yp[kept[i]] = r.yp ? r.yp[i] : 0.0;
        }
    }
    auto combine = [&](std::size_t c) {
        double v = m_combOffset[c], d = 0.0;
        for (int k = m_combFirst[c]; k < m_combFirst[c + 1]; ++k) {
            v += m_termCoefficient[at(k)] * y[m_termUnknown[at(k)]];
            d += m_termCoefficient[at(k)] * yp[m_termUnknown[at(k)]];
        }
        y[m_combUnknown[c]] = v;
        yp[m_combUnknown[c]] = d;
    };
    if (combinations)
        for (const int c : *combinations) combine(at(c));
    else
        for (std::size_t c = 0; c < m_combUnknown.size(); ++c) combine(c);
    // solved from 0, not from the last value: a wild Newton iterate would otherwise cancel
    if (zeroAll)
        for (const ReductionPlan::Derived& e : m_red.explicits) y[e.unknown] = 0.0;
    else
        for (const int i : explicits) y[m_red.explicits[at(i)].unknown] = 0.0;
    const State full{r.t, y, yp, r.discrete, r.discreteVersion};
    if (m_useSums) m_ev.syncLinear(full);
    for (const int i : explicits) {
        const ReductionPlan::Derived& e = m_red.explicits[at(i)];
        if (m_constant[at(i)] != 0)
            y[e.unknown] = m_constantValue.at(i);
        else
            solveExplicit(e, full, y);
    }
}

// exact either way: the row is linear in the variable. A block summed in its current mode
// (evaluator.hpp) gives it from the sums, the others by one evaluation.
void ReducedEvaluator::solveExplicit(const ReductionPlan::Derived& e, const State& full, double* y) {
    if (m_useSums && rowSummed(e) && m_ev.solveSummedRow(e.row, e.unknown, full.y, full.yp, y[e.unknown])) return;
    y[e.unknown] = -rowResidual(e, full) / e.coefficient;
}

bool ReducedEvaluator::rowSummed(const ReductionPlan::Derived& e) const {
    if (e.block >= 0) return m_ev.summed(e.block);
    const std::vector<std::pair<int, int>>& writers = m_balanceWriters.at(e.row);
    return std::all_of(writers.begin(), writers.end(), [&](const auto& w) { return m_ev.summed(w.first); });
}

double ReducedEvaluator::rowResidual(const ReductionPlan::Derived& e, const State& full) {
    if (e.block >= 0 && m_sys.rows[at(e.row)].kind == Row::Kind::Derivative)   // a dummy derivative
        return m_ev.ownDerivativeResidual(e.block, full, e.var);
    if (e.block >= 0) return m_ev.ownResidual(e.block, full, e.var);
    double r = 0.0;
    for (const auto& [block, port] : m_balanceWriters.at(e.row)) r += m_ev.throughResidual(block, full, port);
    return r;
}

bool ReducedEvaluator::addAffine(int u, double scale, double& constant, std::vector<Term>& terms) const {
    if (m_identity) {
        terms.push_back({u, scale});
        return true;
    }
    if (const int r = m_red.reducedIndex[at(u)]; r >= 0) {
        terms.push_back({r, scale});
        return true;
    }
    if (const int p = explicitAt(u); p >= 0 && m_constant[at(p)] != 0) {
        constant += scale * m_constantValue.at(p);
        return true;
    }
    const int c = combinationAt(u);
    if (c < 0) return false;
    constant += scale * m_combOffset[at(c)];
    for (int k = m_combFirst[at(c)]; k < m_combFirst[at(c + 1)]; ++k)
        terms.push_back({m_red.reducedIndex[at(m_termUnknown[at(k)])], scale * m_termCoefficient[at(k)]});
    return true;
}

void ReducedEvaluator::expand(const State& reduced, const double* q, double* y, double* yp, For what) {
    if (m_identity) {
        std::copy(reduced.y, reduced.y + m_sys.size(), y);
        if (reduced.yp) std::copy(reduced.yp, reduced.yp + m_sys.size(), yp);
        return;
    }
    if (q)
        for (std::size_t k = 0; k < m_red.quadratures.size(); ++k) y[m_red.quadratures[k].unknown] = q[k];
    if (what == For::Events)
        expandInto(reduced, y, yp, m_forEvents, &m_eventCombinations, false);
    else
        expandInto(reduced, y, yp, m_all);
}

void ReducedEvaluator::selectExpansion(const std::vector<int>& moving) {
    MovingExpansion& m = m_moving;
    m = MovingExpansion{};
    if (m_identity) return;
    m.kept = moving;
    std::vector<char> reached(at(m_sys.size()), 0);   // changes with the moving unknowns
    for (const int i : moving) reached[at(m_red.kept[at(i)])] = 1;
    for (std::size_t c = 0; c < m_combUnknown.size(); ++c)
        for (int k = m_combFirst[c]; k < m_combFirst[c + 1]; ++k)
            if (reached[at(m_termUnknown[at(k)])] != 0) {
                m.combinations.push_back(static_cast<int>(c));
                break;
            }
    for (const int c : m.combinations) reached[at(m_combUnknown[at(c)])] = 1;
    m.definesResting.assign(m_sys.bindings.size(), 0);
    for (std::size_t p = 0; p < m_red.explicits.size(); ++p) {   // in order: what they read comes first
        const ReductionPlan::Derived& e = m_red.explicits[p];
        bool reads = false;
        forEachSlotOfRow(e, [&](int u) { reads = reads || (u >= 0 && reached[at(u)] != 0); });
        if (reads) {
            m.explicits.push_back(static_cast<int>(p));
            reached[at(e.unknown)] = 1;
        } else if (e.block >= 0) {
            m.definesResting[at(e.block)] = 1;
        } else {
            for (const auto& [block, port] : m_balanceWriters.at(e.row)) m.definesResting[at(block)] = 1;
        }
    }
    m.ready = true;
}

bool ReducedEvaluator::definesResting(int block) const {
    return !m_moving.ready || m_moving.definesResting[at(block)] != 0;
}

bool ReducedEvaluator::expandMoving(const State& reduced, const double* q, double* y, double* yp) {
    const MovingExpansion& m = m_moving;
    if (!m.ready || !operatorReady(reduced)) return false;
    // an evaluated block's explicit variable may be a function of time (or not affine): if one
    // is outside the selection, expand all
    for (const int b : m_ev.evaluatedBlocks())
        if (m.definesResting[at(b)] != 0) return false;
    if (q)
        for (std::size_t k = 0; k < m_red.quadratures.size(); ++k) y[m_red.quadratures[k].unknown] = q[k];
    expandInto(reduced, y, yp, m.explicits, &m.combinations, false, &m.kept);
    return true;
}

void ReducedEvaluator::gather(const double* y, const double* yp, double* yr, double* ypr) const {
    for (std::size_t i = 0; i < m_red.kept.size(); ++i) {
        yr[i] = y[m_red.kept[i]];
        if (yp && ypr) ypr[i] = yp[m_red.kept[i]];
    }
}

void ReducedEvaluator::residual(const State& reduced, double* F, const std::vector<int>* rows) {
    if (m_identity) return m_ev.residual(reduced, F);
    if (operatorReady(reduced)) {
        expandForOperator(reduced);
        const State full{reduced.t, m_y.data(), m_yp.data(), reduced.discrete, reduced.discreteVersion};
        for (const int row : m_op.rows) m_Fop[at(row)] = 0.0;   // the rest of m_Fop is never read
        m_ev.blockResiduals(m_op.blocks, full, m_Fop.data());
        // per row the entries on y_r, then y_r', then z (columns relative to each)
        const double *y = reduced.y, *yp = reduced.yp, *z = m_u.data();
        const int *first = m_op.first.data(), *ypFirst = m_op.ypFirst.data(), *zFirst = m_op.zFirst.data();
        const int* column = m_op.column.data();
        const double* value = m_op.value.data();
        const double* constant = m_op.constant.data();
        // The rates' terms are summed apart and then added: in an acceleration-level constraint
        // they cancel exactly (a_R - a_C of a locked joint), and its small value term (the lock's
        // compliance, 1e-9 of the accelerations) keeps its digits. Added to the running sum one
        // by one, a_R came first and the compliance kept a few: two locks in parallel split their
        // force with a noise of 1e-5 of it, which IDA's error test read as an error until the
        // step collapsed. The constant still meets the values first (a stiff contact's K x less
        // K times its bound).
        auto rowValue = [&](int i) {
            double f = constant[i], rates = 0.0;
            for (int k = first[i]; k < ypFirst[i]; ++k) f += value[k] * y[column[k]];
            for (int k = ypFirst[i]; k < zFirst[i]; ++k) rates += value[k] * yp[column[k]];
            f += rates;
            for (int k = zFirst[i]; k < first[i + 1]; ++k) f += value[k] * z[column[k]];
            F[i] = f;
        };
        if (rows != nullptr) {
            for (const int i : *rows) rowValue(i);
        } else {
            for (int i = 0; i < m_red.size(); ++i) rowValue(i);
        }
        for (const auto& [i, row] : m_op.keptRows) F[i] += m_Fop[at(row)];   // undefined rows stay undefined
        return;
    }
    expandInto(reduced, m_y.data(), m_yp.data(), m_beforeResidual);
    const State full{reduced.t, m_y.data(), m_yp.data(), reduced.discrete, reduced.discreteVersion};
    // a fused variable of a summed block is not evaluated in the pass: solved here, from the sums
    for (const int i : m_fused)
        if (m_ev.summed(m_red.explicits[at(i)].block)) solveExplicit(m_red.explicits[at(i)], full, m_y.data());
    m_ev.residual(full, m_F.data(), m_y.data(), m_useSums);   // expandInto() synced the sums
    for (std::size_t i = 0; i < m_red.kept.size(); ++i) F[i] = m_F[at(m_red.kept[i])];
}

bool ReducedEvaluator::restCoefficients(const State& reduced, std::vector<double>& coefficient,
                                        const std::vector<int>* rows) {
    const int n = m_red.size();
    if (rows == nullptr) coefficient.assign(at(n), 0.0);
    if (m_identity || !operatorReady(reduced)) return false;
    auto rest = [&](int i) {   // the evaluated blocks' rows are few
        const int k = m_op.ypFirst[at(i)];
        const bool evaluated = std::any_of(m_op.keptRows.begin(), m_op.keptRows.end(),
                                           [&](const std::pair<int, int>& e) { return e.first == i; });
        coefficient[at(i)] = evaluated || m_op.zFirst[at(i)] != m_op.first[at(i + 1)] || m_op.zFirst[at(i)] - k != 1 ||
                                     m_op.column[at(k)] != i
                                 ? 0.0
                                 : m_op.value[at(k)];
    };
    if (rows != nullptr)
        for (const int i : *rows) rest(i);
    else
        for (int i = 0; i < n; ++i) rest(i);
    return true;
}

bool ReducedEvaluator::consistentRates(double t, double* y, const double* id, const double* discrete,
                                       unsigned long version, double* yp, const std::vector<int>* rows) {
    const int n = m_red.size();
    if (m_identity || n == 0 || m_timedCoefficient.size() != at(n)) return false;
    m_list.clear();
    if (rows != nullptr) {
        m_list = *rows;
    } else {
        for (int i = 0; i < n; ++i) m_list.push_back(i);
    }
    for (const int i : m_list)   // an algebraic unknown that is no timed output: the operator cannot help
        if (id[i] == 0.0 && m_timedCoefficient[at(i)] == 0.0) return false;
    m_rates.assign(at(n), 0.0);
    const State zero{t, y, m_rates.data(), discrete, version};
    if (!operatorReady(zero)) return false;
    m_saved.clear();
    for (const int i : m_list) {   // the shape: rate entries on its own unknown, or none for a timed one
        const int k = m_op.ypFirst[at(i)], entries = m_op.zFirst[at(i)] - k;
        if (id[i] == 0.0) {
            if (entries != 0) return false;   // a timed one (checked above) takes no rate
            m_saved.push_back(y[i]);
        } else if (entries != 1 || m_op.column[at(k)] != i || m_op.value[at(k)] == 0.0) {
            return false;
        }
    }
    m_F0.resize(at(n));
    m_F1.resize(at(n));
    auto restore = [&] {
        std::size_t k = 0;
        for (const int i : m_list)
            if (id[i] == 0.0) y[i] = m_saved[k++];
        return false;
    };
    if (!m_saved.empty()) {   // the timed unknowns: their rows are linear in them
        residual(zero, m_F0.data(), &m_list);
        for (const int i : m_list)
            if (id[i] == 0.0) y[i] -= m_F0[at(i)] / m_timedCoefficient[at(i)];
    }
    residual(zero, m_F0.data(), &m_list);
    for (const int i : m_list)
        m_rates[at(i)] = id[i] == 0.0 ? yp[i] : -m_F0[at(i)] / m_op.value[at(m_op.ypFirst[at(i)])];
    residual({t, y, m_rates.data(), discrete, version}, m_F1.data(), &m_list);
    for (const int i : m_list) {
        const double scale = std::abs(m_F0[at(i)]) + std::abs(m_op.constant[at(i)]) + 1e-300;
        if (!(std::abs(m_F1[at(i)]) <= 1e-10 * scale)) return restore();
    }
    for (const int i : m_list) yp[i] = m_rates[at(i)];
    return true;
}

bool ReducedEvaluator::rateDiagonal(const double* id, double* d, const std::vector<int>* rows) const {
    const int n = m_red.size();
    if (m_identity || !m_op.ok || m_op.version != m_ev.summedVersion() || m_timedCoefficient.size() != at(n))
        return false;
    auto diagonal = [&](int i) {
        const int k = m_op.ypFirst[at(i)], entries = m_op.zFirst[at(i)] - k;
        if (id[i] == 0.0) {
            if (entries != 0 || m_timedCoefficient[at(i)] == 0.0) return false;
            d[i] = m_timedCoefficient[at(i)];
        } else {
            if (entries != 1 || m_op.column[at(k)] != i || m_op.value[at(k)] == 0.0) return false;
            d[i] = m_op.value[at(k)];
        }
        return true;
    };
    if (rows != nullptr) return std::all_of(rows->begin(), rows->end(), diagonal);
    for (int i = 0; i < n; ++i)
        if (!diagonal(i)) return false;
    return true;
}

bool ReducedEvaluator::takeOperatorChanges(const State& reduced, std::vector<int>& rows, std::vector<int>& rates) {
    rows.clear();
    rates.clear();
    const bool ready = operatorReady(reduced);
    const bool listed = ready && !m_opAllChanged && m_opChangedRows.size() <= at(m_red.size());
    if (listed) {
        rows.swap(m_opChangedRows);
        rates.swap(m_opChangedRates);
    }
    m_opChangedRows.clear();
    m_opChangedRates.clear();
    m_opAllChanged = false;
    return listed;
}

bool ReducedEvaluator::operatorReady(const State& reduced) {
    if (!m_useSums || !reduced.yp) return false;
    m_ev.syncLinear({reduced.t, m_y.data(), m_yp.data(), reduced.discrete, reduced.discreteVersion});
    if (m_op.version == m_ev.summedVersion()) return m_op.ok;
    const bool cacheable = m_ev.summedA().size() + m_ev.summedC().size() <= kCacheEntries;
    const auto cached = std::find_if(m_opCache.begin(), m_opCache.end(),
                                     [&](const CachedOperator& e) { return cacheable && sameSums(e); });
    const bool allBefore = m_opAllChanged;
    m_opAllChanged = true;   // unless updated in place below, which lists the rows it changed
    if (cached != m_opCache.end()) {
        m_op = cached->op;
        m_u.resize(m_red.explicits.size());   // z is written before it is read
        m_Fop.resize(at(m_sys.size()));
    } else {
        // a large network after an event: only what the changed blocks touch is built again
        const bool changes = m_ev.takeChanges(m_changedBlocks);
        if (!cacheable && m_op.ok && changes) {
            m_op.ok = updateOperator(m_changedBlocks);
            m_opAllChanged = allBefore || !m_op.ok;
            ++m_operatorUpdates;
        } else {
            m_op.ok = buildOperator();
        }
        ++m_operatorBuilds;
        if (cacheable) {
            CachedOperator e{m_ev.summedBlocks(), m_ev.summedA(), m_ev.summedB(), m_ev.summedC(), m_op};
            if (m_opCache.size() < kCachedOperators)
                m_opCache.push_back(std::move(e));
            else
                m_opCache[m_opCacheNext++ % kCachedOperators] = std::move(e);
        }
    }
    m_op.version = m_ev.summedVersion();
    return m_op.ok;
}

bool ReducedEvaluator::sameSums(const CachedOperator& e) const {   // bitwise: a rounding apart is a miss
    auto same = [](const auto& x, const auto& y) {
        return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
    };
    return same(e.blocks, m_ev.summedBlocks()) && same(e.a, m_ev.summedA()) && same(e.b, m_ev.summedB()) &&
           same(e.c, m_ev.summedC());
}

void ReducedEvaluator::expandForOperator(const State& r) {
    expandInto(r, m_y.data(), m_yp.data(), m_op.explicits, &m_op.combinations, false, &m_op.keptRead);
    for (const int p : m_op.z) m_u[at(p)] = m_y[at(m_red.explicits[at(p)].unknown)];
}

void ReducedEvaluator::jacobian(const State& reduced, double cj, double* values) {
    if (m_identity) return m_ev.jacobian(reduced, cj, values);
    const bool op = operatorReady(reduced);
    if (op && constantJacobian(reduced)) {
        std::copy(m_jac0.begin(), m_jac0.end(), values);
        for (std::size_t k = 0; k < m_jacB.size(); ++k) values[m_jacAt[k]] += cj * m_jacB[k];
        return;
    }
    chainJacobian(reduced, cj, values, op);
}

// While the operator stands the summed blocks' entries are constants; if every evaluated block is
// linear in its current modes too (a sine source: its coefficients depend on neither values nor
// the time, Sym), the whole reduced Jacobian is J0 + cj JB, taken once per version of the sums.
bool ReducedEvaluator::constantJacobian(const State& reduced) {
    if (m_jacVersion == m_op.version) return m_jacConstant;
    m_jacVersion = m_op.version;
    const State at0{reduced.t, m_sys.y0.data(), nullptr, reduced.discrete};
    // linear in the rows IDA sees: a quadrature's row (a stop's dissipated energy, D p'^2) is not
    m_jacConstant = std::all_of(m_op.blocks.begin(), m_op.blocks.end(), [&](int b) {
        m_ev.blockIncidence(b, at0);
        if (ad::Sym::valueInspected()) return false;
        const Binding& bind = m_sys.bindings[at(b)];
        const Workspace<ad::Sym>& w = m_ev.syms();
        for (std::size_t v = 0; v < w.res.size(); ++v)
            if (w.res[v].nonlinear && m_red.fate[at(bind.varUnknown()[v])] != Fate::Quadrature) return false;
        return std::none_of(w.thr.begin(), w.thr.end(), [](const ad::Sym& r) { return r.nonlinear; });
    });
    if (m_jacConstant) {   // JB only where cj enters (the rates' entries), J0 everywhere
        std::vector<double> j1(at(m_pattern.nnz()));
        m_jac0.resize(j1.size());
        chainJacobian(reduced, 0.0, m_jac0.data(), true);
        chainJacobian(reduced, 1.0, j1.data(), true);
        m_jacB.clear();
        m_jacAt.clear();
        for (std::size_t k = 0; k < j1.size(); ++k)
            if (j1[k] != m_jac0[k]) m_jacAt.push_back(static_cast<int>(k)), m_jacB.push_back(j1[k] - m_jac0[k]);
    }
    return m_jacConstant;
}

void ReducedEvaluator::chainJacobian(const State& reduced, double cj, double* values, bool op) {
    // with the operator only the evaluated blocks' entries depend on the state: the summed ones
    // are the sums' coefficients, so only what those blocks read is expanded
    if (op)
        expandForOperator(reduced);
    else
        expandInto(reduced, m_y.data(), m_yp.data(), m_all);
    double* S = m_scratch.data();
    m_ev.jacobian({reduced.t, m_y.data(), m_yp.data(), reduced.discrete}, cj, S, m_useSums);
    for (const Segment& g : m_segments) {
        std::fill(S + g.dynFirst, S + g.dynLast, 0.0);
        for (int i = g.first; i < g.last; ++i) {
            const Instruction& in = m_chain[at(i)];
            S[in.dst] += S[in.a] * S[in.b];
        }
        const double inv = -1.0 / S[g.diagonal];
        for (int k = g.dynFirst; k < g.dynLast; ++k) S[k] *= inv;
    }
    std::fill(values, values + m_pattern.nnz(), 0.0);
    for (const Instruction& in : m_out) values[in.dst] += S[in.a] * S[in.b];
}

void ReducedEvaluator::selectJacobian(const std::vector<int>& entries) {
    Selection& sel = m_selection;
    sel = Selection{};
    if (m_identity) return;
    const int nnz = m_sys.pattern.nnz();
    std::vector<int> position(at(m_pattern.nnz()), -1);
    for (std::size_t j = 0; j < entries.size(); ++j) position[at(entries[j])] = static_cast<int>(j);
    sel.count = entries.size();
    // what the selected entries read: full entries, and explicit variables' derivatives (the
    // segments, whose own reads are those of earlier segments only)
    std::vector<char> read(at(nnz), 0), needed(m_segments.size(), 0);
    const int dynFirst = m_segments.empty() ? 0 : m_segments.front().dynFirst;
    std::vector<int> owner(m_segments.empty() ? 0 : m_scratch.size() - at(dynFirst), -1);
    for (std::size_t g = 0; g < m_segments.size(); ++g)
        for (int d = m_segments[g].dynFirst; d < m_segments[g].dynLast; ++d) owner[at(d - dynFirst)] = static_cast<int>(g);
    auto source = [&](int src) {
        if (src < nnz) read[at(src)] = 1;
        else if (!m_segments.empty() && src >= dynFirst) needed[at(owner[at(src - dynFirst)])] = 1;
    };
    for (const Instruction& in : m_out)
        if (const int j = position[at(in.dst)]; j >= 0) {
            sel.out.push_back({j, in.a, in.b});
            source(in.a);
            source(in.b);
        }
    for (std::size_t g = m_segments.size(); g-- > 0;) {
        if (needed[g] == 0) continue;
        read[at(m_segments[g].diagonal)] = 1;
        for (int i = m_segments[g].first; i < m_segments[g].last; ++i) {
            source(m_chain[at(i)].a);
            source(m_chain[at(i)].b);
        }
    }
    for (std::size_t g = 0; g < m_segments.size(); ++g)
        if (needed[g] != 0) sel.segments.push_back(static_cast<int>(g));
    for (int k = 0; k < nnz; ++k)
        if (read[at(k)] != 0) sel.entries.push_back(k);
    sel.blocks.assign(m_sys.bindings.size(), 0);
    for (std::size_t b = 0; b < m_sys.bindings.size(); ++b)
        sel.blocks[b] = std::any_of(m_sys.bindings[b].jac().begin(), m_sys.bindings[b].jac().end(),
                                    [&](int k) { return k >= 0 && read[at(k)] != 0; });
    sel.ready = true;
}

bool ReducedEvaluator::selectedJacobian(const State& reduced, double cj, double* values) {
    const Selection& sel = m_selection;
    if (!sel.ready || !operatorReady(reduced)) return false;
    expandForOperator(reduced);
    double* S = m_scratch.data();
    m_ev.jacobianAt({reduced.t, m_y.data(), m_yp.data(), reduced.discrete}, cj, sel.entries, sel.blocks, S);
    for (const int gi : sel.segments) {   // as chainJacobian()
        const Segment& g = m_segments[at(gi)];
        std::fill(S + g.dynFirst, S + g.dynLast, 0.0);
        for (int i = g.first; i < g.last; ++i) {
            const Instruction& in = m_chain[at(i)];
            S[in.dst] += S[in.a] * S[in.b];
        }
        const double inv = -1.0 / S[g.diagonal];
        for (int k = g.dynFirst; k < g.dynLast; ++k) S[k] *= inv;
    }
    std::fill(values, values + sel.count, 0.0);
    for (const Instruction& in : sel.out) values[in.dst] += S[in.a] * S[in.b];
    return true;
}

void ReducedEvaluator::quadratureRates(const State& reduced, double* qdot) {
    if (operatorReady(reduced)) {
        expandForOperator(reduced);
        for (std::size_t k = 0; k < m_red.quadratures.size(); ++k) qdot[k] = operatorQuadratureRate(reduced, k);
        return;
    }
    expandInto(reduced, m_y.data(), m_yp.data(), m_forQuadratures);
    const State full{reduced.t, m_y.data(), m_yp.data(), reduced.discrete, reduced.discreteVersion};
    for (std::size_t k = 0; k < m_red.quadratures.size(); ++k) {
        const ReductionPlan::Derived& q = m_red.quadratures[k];
        m_yp[at(q.unknown)] = 0.0;
        // a summed block's rate from its row of the sums (a stop out of contact), else one evaluation
        if (m_useSums && m_ev.summed(q.block) &&
            m_ev.solveSummedRow(q.unknown, q.unknown, full.y, full.yp, qdot[k], true))
            continue;
        qdot[k] = -m_ev.ownResidual(q.block, full, q.var) / q.coefficient;
    }
}

// quadrature k's rate while the operator stands, expandForOperator() done
double ReducedEvaluator::operatorQuadratureRate(const State& reduced, std::size_t k) {
    const ReductionPlan::Derived& q = m_red.quadratures[k];
    if (m_op.rateEvaluated[k]) {
        const State full{reduced.t, m_y.data(), m_yp.data(), reduced.discrete, reduced.discreteVersion};
        m_yp[at(q.unknown)] = 0.0;
        return -m_ev.ownResidual(q.block, full, q.var) / q.coefficient;
    }
    const double* u = m_u.data();
    const int n = m_red.size();
    double rate = m_op.rateConstant[k];
    for (int i = m_op.rateFirst[k]; i < m_op.rateFirst[k + 1]; ++i) {
        const int c = m_op.rateColumn[at(i)];
        rate += m_op.rateValue[at(i)] * (c < n ? reduced.y[c] : c < 2 * n ? reduced.yp[c - n] : u[c - 2 * n]);
    }
    return rate;
}

void ReducedEvaluator::quadratureRates(const State& reduced, double* qdot, const std::vector<int>& which) {
    if (operatorReady(reduced)) {
        expandForOperator(reduced);
        for (std::size_t j = 0; j < which.size(); ++j) qdot[j] = operatorQuadratureRate(reduced, at(which[j]));
        return;
    }
    m_qdot.resize(m_red.quadratures.size());
    quadratureRates(reduced, m_qdot.data());
    for (std::size_t j = 0; j < which.size(); ++j) qdot[j] = m_qdot[at(which[j])];
}

std::vector<char> ReducedEvaluator::restingQuadratures(const State& reduced, const std::vector<int>& slot) {
    if (m_identity || !operatorReady(reduced)) return {};
    const int n = m_red.size();
    std::vector<char> rests(m_red.quadratures.size(), 0);
    for (std::size_t k = 0; k < rests.size(); ++k) {
        if (m_op.rateEvaluated[k] || m_op.rateConstant[k] != 0.0) continue;
        bool still = true;
        for (int i = m_op.rateFirst[k]; still && i < m_op.rateFirst[k + 1]; ++i) {
            const int c = m_op.rateColumn[at(i)];
            still = c < 2 * n && slot[at(c < n ? c : c - n)] < 0;
        }
        rests[k] = still ? 1 : 0;
    }
    return rests;
}

// Explicit variables that only their own block reads, that no other explicit row reads and in
// which all of the block's rows are linear are solved in the residual pass itself (one evaluation
// of the block instead of two); the others before it.
void ReducedEvaluator::fuse() {
    std::vector<int> users(at(m_sys.size()), 0);
    for (const Binding& b : m_sys.bindings)
        for (int u : b.slot()) ++users[at(u)];
    std::vector<char> readByExplicit(at(m_sys.size()), 0);
    for (const ReductionPlan::Derived& e : m_red.explicits)
        for (int w : m_red.reads(e)) readByExplicit[at(w)] = 1;
    std::vector<std::vector<FusedExplicit>> perBlock(m_sys.bindings.size());
    bool any = false;
    for (std::size_t i = 0; i < m_red.explicits.size(); ++i) {
        const ReductionPlan::Derived& e = m_red.explicits[i];
        // a pair's half (solved from another row than its block's own), a dummy derivative (from
        // a derivative row), or any variable of a block evaluated with its derivative rows (the
        // pass applies no fused variable there)
        if (!e.ownRow() || m_sys.rows[at(e.row)].kind == Row::Kind::Derivative || m_sys.bindings[at(e.block)].tangent) {
            m_beforeResidual.push_back(static_cast<int>(i));
            continue;
        }
        const RowForm& form = m_sys.rowFormsOfBlock(e.block)[at(e.var)];
        const bool linear = std::all_of(form.in.begin(), form.in.end(), [](double c) { return std::isfinite(c); });
        std::vector<FusedExplicit>& mine = perBlock[at(e.block)];
        // the block's rows of the variables fused so far must not contain this one, nor theirs it
        bool independent = true;
        for (const FusedExplicit& f : mine) {
            const RowForm& other = m_sys.rowFormsOfBlock(e.block)[at(f.var)];
            independent = independent && form.in[at(f.var)] == 0.0 && other.in[at(e.var)] == 0.0;
        }
        if (users[at(e.unknown)] != 1 || readByExplicit[at(e.unknown)] || !linear || form.in.empty() || !independent) {
            m_beforeResidual.push_back(static_cast<int>(i));
            continue;
        }
        mine.push_back({e.var, e.unknown, e.coefficient, form.in});
        m_fused.push_back(static_cast<int>(i));
        any = true;
    }
    if (any) m_ev.setFused(perBlock);
}

// The chain rule as instructions. Every unknown u of the full system expands into kept columns:
// itself (kept), its terms (combination), the derivatives computed for it (explicit), nothing
// (quadrature: no kept row reads it).
void ReducedEvaluator::compile() {
    const Pattern& full = m_sys.pattern;
    const int nnz = full.nnz();
    std::vector<double> constants{1.0};
    std::vector<std::vector<std::pair<int, int>>> expansion(at(m_sys.size()));   // (reduced column, S index)
    const int one = nnz;
    for (int u = 0; u < m_sys.size(); ++u)
        if (m_red.fate[at(u)] == Fate::Kept) expansion[at(u)].emplace_back(m_red.reducedIndex[at(u)], one);
    for (std::size_t c = 0; c < m_combUnknown.size(); ++c)
        for (int k = m_combFirst[c]; k < m_combFirst[c + 1]; ++k) {
            expansion[at(m_combUnknown[c])].emplace_back(m_red.reducedIndex[at(m_termUnknown[at(k)])],
                                                         nnz + static_cast<int>(constants.size()));
            constants.push_back(m_termCoefficient[at(k)]);
        }
    // the entries of every explicit row and of every kept row, from the column-major pattern
    std::map<int, std::vector<std::pair<int, int>>> explicitRow;   // row -> (value index, column)
    for (int u = 0; u < full.n; ++u)
        for (int k = full.colPtr[at(u)]; k < full.colPtr[at(u + 1)]; ++k)
            if (m_red.fate[at(full.rowIdx[at(k)])] == Fate::Explicit)
                explicitRow[full.rowIdx[at(k)]].emplace_back(k, u);
    int dyn = nnz + static_cast<int>(constants.size());
    for (const ReductionPlan::Derived& e : m_red.explicits) {
        Segment g{static_cast<int>(m_chain.size()), 0, dyn, 0, -1};
        std::map<int, int> column;   // reduced column -> S index
        for (const auto& [k, u] : explicitRow[e.row]) {
            if (u == e.unknown) {
                g.diagonal = k;
                continue;
            }
            for (const auto& [c, src] : expansion[at(u)]) {
                auto [it, fresh] = column.emplace(c, dyn);
                if (fresh) ++dyn;
                m_chain.push_back({it->second, k, src});
            }
        }
        if (g.diagonal < 0)
            throw std::logic_error("reduction: an explicit variable is missing from the row it is solved from");
        g.last = static_cast<int>(m_chain.size());
        g.dynLast = dyn;
        m_segments.push_back(g);
        for (const auto& [c, idx] : column) expansion[at(e.unknown)].emplace_back(c, idx);
    }
    m_scratch.assign(at(dyn), 0.0);
    std::copy(constants.begin(), constants.end(), m_scratch.begin() + nnz);
    // the reduced pattern: kept rows times the columns their entries expand into
    const int n = m_red.size();
    std::vector<std::vector<int>> colRows(at(n));
    for (int u = 0; u < full.n; ++u)
        for (int k = full.colPtr[at(u)]; k < full.colPtr[at(u + 1)]; ++k) {
            const int r = m_red.reducedIndex[at(full.rowIdx[at(k)])];
            if (r < 0) continue;
            for (const auto& [c, src] : expansion[at(u)]) colRows[at(c)].push_back(r);
        }
    m_pattern = Pattern::fromColumns(colRows);
    for (int u = 0; u < full.n; ++u)
        for (int k = full.colPtr[at(u)]; k < full.colPtr[at(u + 1)]; ++k) {
            const int r = m_red.reducedIndex[at(full.rowIdx[at(k)])];
            if (r < 0) continue;
            for (const auto& [c, src] : expansion[at(u)]) m_out.push_back({m_pattern.find(r, c), k, src});
        }
    m_chain.shrink_to_fit();   // kept for the whole run: without the slack of growing them
    m_out.shrink_to_fit();
    m_segments.shrink_to_fit();
}

}   // namespace endstop::core::dae
