// SPDX-License-Identifier: GPL-3.0-or-later
// The resting part of a run (run.hpp, docs/engine.md "The resting part"): on a large reduced
// network IDA solves only the unknowns that move. A reduced unknown rests while its row is
// c + A y_r + b y_i' alone (ReducedEvaluator::restCoefficients) and holds at its value with a zero
// rate; the run watches the resting rows that read a moving unknown, bounds how far each unknown
// would have drifted since (the integral of |F_i / b|, the rate the row asks for), and lets it and
// its neighbours move, with a new IDA, before that bound reaches a tenth of its tolerance.
#include "core/solver/fast_vector.hpp"
#include "core/solver/run.hpp"

#include <algorithm>

namespace endstop::core::solver::detail {

namespace {

// A resting unknown starts moving once its drift bound reaches this share of rtol |y| + atol.
constexpr double kDriftShare = 0.1;
// Neighbours that start moving with it, in steps along the Jacobian's pattern: fewer growths
// (each a restart) against more unknowns carried early.
constexpr int kLayers = 16;

}   // namespace

void Run::startResting(double t) {
    const int n = m_rev.size();
    if (!m_opt.reduce || m_opt.restingMinimum < 0 || n < m_opt.restingMinimum || !m_sparse) return;
    const dae::State st{t, data(m_y), data(m_yp), m_disc.data(), m_discVersion};
    if (!m_rev.restCoefficients(st, m_restCoefficient)) return;
    m_Fr.assign(at(n), 0.0);
    m_rev.residual(st, m_Fr.data());
    // what each row reads, from the pattern's columns (its rows are the readers of a column)
    const dae::Pattern& p = m_rev.pattern();
    m_readsFirst.assign(at(n) + 1, 0);
    for (const int r : p.rowIdx) ++m_readsFirst[at(r) + 1];
    for (int i = 0; i < n; ++i) m_readsFirst[at(i) + 1] += m_readsFirst[at(i)];
    m_reads.resize(p.rowIdx.size());
    std::vector<int> fill(m_readsFirst.begin(), m_readsFirst.end() - 1);
    for (int c = 0; c < n; ++c)
        for (int k = p.colPtr[at(c)]; k < p.colPtr[at(c + 1)]; ++k) m_reads[at(fill[at(p.rowIdx[at(k)])]++)] = c;
    m_active.clear();
    m_grow.clear();
    for (int i = 0; i < n; ++i)
        if (m_restCoefficient[at(i)] == 0.0 || m_Fr[at(i)] != 0.0) m_grow.push_back(i);   // the rates are zero yet
    m_slot.assign(at(n), -1);
    growResting(t);
}

// m_grow's rows, and every unknown within kLayers of them along the pattern, join the moving
// part; if that leaves less than half of the network resting, all of it moves.
void Run::growResting(double t) {
    const int n = m_rev.size();
    const dae::Pattern& p = m_rev.pattern();
    std::vector<char> moving(at(n), 0);
    for (const int i : m_active) moving[at(i)] = 1;
    std::vector<int> front;
    for (const int i : m_grow)
        if (moving[at(i)] == 0) {
            moving[at(i)] = 1;
            front.push_back(i);
        }
    m_grow.clear();
    std::vector<int> next;
    auto reach = [&](int j) {
        if (moving[at(j)] != 0) return;
        moving[at(j)] = 1;
        next.push_back(j);
    };
    for (int layer = 0; layer < kLayers && !front.empty(); ++layer) {
        next.clear();
        for (const int u : front) {
            for (int k = p.colPtr[at(u)]; k < p.colPtr[at(u + 1)]; ++k) reach(p.rowIdx[at(k)]);   // its readers
            for (int k = m_readsFirst[at(u)]; k < m_readsFirst[at(u + 1)]; ++k) reach(m_reads[at(k)]);
        }
        front.swap(next);
    }
    const auto count = static_cast<int>(std::count(moving.begin(), moving.end(), 1));
    const bool starting = !m_resting;
    if (2 * count > n || count == 0) {   // not worth it (any more), or nothing moves: IDA takes it all
        if (starting) {
            m_readsFirst = {};
            m_reads = {};
            return;
        }
        std::fill(moving.begin(), moving.end(), 1);
    }
    m_active.clear();
    for (int i = 0; i < n; ++i)
        if (moving[at(i)] != 0) m_active.push_back(i);
    m_resting = true;
    m_restT = t;
    buildMoving();
    m_drift.assign(at(n), 0.0);
    if (!starting) ++m_stats.restingGrowths;
    m_stats.movingUnknowns = std::max(starting ? 0 : m_stats.movingUnknowns, idaSize());
    if (starting) return;   // setUp() creates the first IDA, for the moving part alone
    accumulate();           // the old IDA's counters
    createIda(t);
    restart(t);
}

void Run::buildMoving() {
    const int n = m_rev.size(), na = idaSize();
    const dae::Pattern& p = m_rev.pattern();
    m_slot.assign(at(n), -1);
    for (int s = 0; s < na; ++s) m_slot[at(m_active[at(s)])] = s;
    ++m_slotVersion;
    m_subColPtr.assign(1, 0);
    m_subRowIdx.clear();
    m_subSource.clear();
    m_frontier.clear();
    m_onFrontier.assign(at(n), 0);
    for (const int c : m_active) {
        for (int k = p.colPtr[at(c)]; k < p.colPtr[at(c + 1)]; ++k) {
            const int r = p.rowIdx[at(k)];
            if (m_slot[at(r)] >= 0) {
                m_subRowIdx.push_back(m_slot[at(r)]);
                m_subSource.push_back(k);
            } else if (m_onFrontier[at(r)] == 0) {   // a resting row reading a moving unknown
                m_onFrontier[at(r)] = 1;
                m_frontier.push_back(r);
            }
        }
        m_subColPtr.push_back(static_cast<int>(m_subRowIdx.size()));
    }
    std::sort(m_frontier.begin(), m_frontier.end());
    m_rev.selectJacobian(m_subSource);
    m_rev.selectExpansion(m_active);
    m_expandAll = true;
    m_checkAll = true;   // the next look after an event takes every resting row
    m_yr.assign(data(m_y), data(m_y) + n);
    m_ypr.assign(data(m_yp), data(m_yp) + n);
    for (int i = 0; i < n; ++i)
        if (m_slot[at(i)] < 0) m_ypr[at(i)] = 0.0;
    m_Fr.assign(at(n), 0.0);
    m_jr.assign(at(p.nnz()), 0.0);
    m_ya = makeVector(na, m_ctx);
    m_ypa = makeVector(na, m_ctx);
    m_ida = makeVector(na, m_ctx);
    for (const NVector* v : {&m_ya, &m_ypa, &m_ida}) accelerate(v->get());
    // the quadratures whose rates are zero while this part rests are not integrated
    m_qMoving.clear();
    if (!m_q) return;
    m_qRests = m_rev.restingQuadratures({m_restT, data(m_y), data(m_yp), m_disc.data(), m_discVersion}, m_slot);
    m_qRests.resize(m_red.quadratures.size(), 0);   // empty: the operator is not usable, all of them move
    // and a quadrature of a block that reads a moving unknown moves with it (a stop's energy is
    // zero out of contact, but its block may come into contact at any step)
    for (std::size_t k = 0; k < m_qRests.size(); ++k) {
        const dae::Binding& bind = m_sys.bindings[at(m_red.quadratures[k].block)];
        for (std::size_t s = 0; m_qRests[k] != 0 && s < bind.slot().size(); ++s) {
            double constant = 0.0;
            m_terms.clear();
            if (bind.slot()[s] < 0 || !m_rev.addAffine(bind.slot()[s], 1.0, constant, m_terms)) continue;
            for (const dae::ReducedEvaluator::Term& term : m_terms)
                if (m_slot[at(term.index)] >= 0) m_qRests[k] = 0;
        }
    }
    for (std::size_t k = 0; k < m_qRests.size(); ++k)
        if (m_qRests[k] == 0) m_qMoving.push_back(static_cast<int>(k));
}

// After an accepted step: each frontier row's drift bound grows by |F_i / b| over the step, F_i
// taken with the resting rates zero. After an event (everyRow) every resting row is looked at:
// one that no longer has the resting form, was moved by a projection, or is no longer satisfied
// away from the frontier (a scheduled change in the resting part) starts moving at once.
void Run::watchResting(double t, bool everyRow) {
    if (!m_resting || idaSize() == m_rev.size()) return;
    const int n = m_rev.size();
    const double dt = std::max(0.0, t - m_restT);
    m_restT = t;
    const double* y = data(m_y);
    const double* yp = data(m_yp);
    for (const int i : m_active) {
        m_yr[at(i)] = y[i];
        m_ypr[at(i)] = yp[i];
    }
    const dae::State st{t, m_yr.data(), m_ypr.data(), m_disc.data(), m_discVersion};
    m_grow.clear();
    bool rebuild = false;   // a resting quadrature's rate may no longer be zero
    // after an event only the operator's rows that changed (in place) need a look: a resting row
    // elsewhere keeps its form, and its value, which reads resting unknowns alone
    const bool listed = everyRow && !m_checkAll && m_rev.takeOperatorChanges(st, m_changedRows, m_changedRates);
    if (everyRow) m_checkAll = false;
    if (everyRow && m_q && (!listed || std::any_of(m_changedRates.begin(), m_changedRates.end(), [&](int k) {
            return m_qRests[at(k)] != 0;
        }))) {
        const std::vector<char> rests = m_rev.restingQuadratures(st, m_slot);
        for (std::size_t k = 0; !rebuild && k < m_qRests.size(); ++k)
            rebuild = m_qRests[k] != 0 && (rests.empty() || rests[k] == 0);
    }
    if (everyRow) {
        m_check.clear();
        if (listed) {
            for (const int i : m_changedRows)
                if (m_slot[at(i)] < 0) m_check.push_back(i);
        } else {
            for (int i = 0; i < n; ++i)
                if (m_slot[at(i)] < 0) m_check.push_back(i);
        }
        m_coefficient.resize(at(n));
        const bool usable = m_rev.restCoefficients(st, m_coefficient, &m_check);
        m_rows = m_check;
        m_rows.insert(m_rows.end(), m_frontier.begin(), m_frontier.end());
        m_rev.residual(st, m_Fr.data(), &m_rows);
        for (const int i : m_check)
            if (!usable || m_coefficient[at(i)] != m_restCoefficient[at(i)] ||
                (m_onFrontier[at(i)] == 0 && m_Fr[at(i)] != 0.0))
                m_grow.push_back(i);
        for (int i = 0; i < n; ++i)   // moved by a projection
            if (m_slot[at(i)] < 0 && y[i] != m_yr[at(i)]) m_grow.push_back(i);
    } else {
        m_rev.residual(st, m_Fr.data(), &m_frontier);
    }
    const double* atol = data(m_atol);
    for (const int i : m_frontier) {
        m_drift[at(i)] += std::abs(m_Fr[at(i)] / m_restCoefficient[at(i)]) * dt;
        if (!(m_drift[at(i)] <= kDriftShare * (m_opt.relativeTolerance * std::abs(y[i]) + atol[i])))
            m_grow.push_back(i);
    }
    if (!m_grow.empty() || rebuild) growResting(t);
}

void Run::toIda() {
    if (!m_resting) return;
    double *ya = data(m_ya), *ypa = data(m_ypa), *ida = data(m_ida);
    const double *y = data(m_y), *yp = data(m_yp), *id = data(m_id);
    for (std::size_t s = 0; s < m_active.size(); ++s) {
        const int i = m_active[s];
        ya[s] = y[i];
        ypa[s] = yp[i];
        ida[s] = id[i];
    }
}

void Run::fromIda() {
    if (!m_resting) return;
    const double *ya = data(m_ya), *ypa = data(m_ypa);
    double *y = data(m_y), *yp = data(m_yp);
    for (std::size_t s = 0; s < m_active.size(); ++s) {
        y[m_active[s]] = ya[s];
        yp[m_active[s]] = ypa[s];
    }
}

dae::State Run::reducedState(double t, N_Vector y, N_Vector yp) {
    if (!m_resting) return {t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), m_disc.data(), m_discVersion};
    const double *ya = N_VGetArrayPointer(y), *ypa = N_VGetArrayPointer(yp);
    for (std::size_t s = 0; s < m_active.size(); ++s) {
        m_yr[at(m_active[s])] = ya[s];
        m_ypr[at(m_active[s])] = ypa[s];
    }
    return {t, m_yr.data(), m_ypr.data(), m_disc.data(), m_discVersion};
}

}   // namespace endstop::core::solver::detail
