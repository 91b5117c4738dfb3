// SPDX-License-Identifier: GPL-3.0-or-later
// The residual pass, the Jacobian pass (with the blocks linear in their mode summed once per
// discrete state) and the per-block queries of the assembly, over the bindings of dae_system.hpp.
#include "core/dae/evaluator.hpp"

#include "core/dae/seeding.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace endstop::core::dae {

namespace {

using ad::Sym;
using ad::Tan;

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// Points workspaces' EqData::discreteReads at one mask while it lives (also when an evaluation
// throws), so that the blocks evaluated meanwhile note the discretes they read.
template <std::size_t N> class WatchReads {
public:
    WatchReads(std::uint64_t* mask, const std::array<std::uint64_t**, N>& pointers) : m_pointers(pointers) {
        for (std::uint64_t** p : m_pointers) *p = mask;
    }
    ~WatchReads() {
        for (std::uint64_t** p : m_pointers) *p = nullptr;
    }
    WatchReads(const WatchReads&) = delete;
    WatchReads& operator=(const WatchReads&) = delete;

private:
    std::array<std::uint64_t**, N> m_pointers;
};

// The Jet of local slot k in a Jacobian pass: d/dy_k = 1, and d/dy'_k = cj unless y'_k is a
// dummy unknown, whose own direction then carries 1.
struct JacobianSeed {
    const Binding& b;
    const JetPass& pass;
    double cj;
    Jet y(int k, double v) const { return pass.seed(v, k); }
    Jet der(int k, double v) const {
        if (k < b.baseSlots && b.derSlot()[at(k)] >= 0) return pass.seed(v, b.derSlot()[at(k)]);
        return k < b.baseSlots ? pass.seed(v, k, cj) : Jet(v);
    }
};

}   // namespace

Evaluator::Evaluator(const DaeSystem& sys) : m_sys(sys) {
    std::size_t vars = 1, ports = 1;
    for (const Binding& b : sys.bindings) {
        vars = std::max(vars, b.varUnknown().size());
        ports = std::max(ports, b.portRow().size());
    }
    m_res.assign(vars, 0.0);
    m_thr.assign(ports, 0.0);
}

Eq<double> Evaluator::doubleEq(std::size_t block, const State& s) {
    const Binding& b = m_sys.bindings[block];
    if (!b.direct || !s.yp) {
        return prepare(
            m_d, static_cast<int>(block), s,
            [](int, double y, double d, double& yo, double& dout) {
                yo = y;
                dout = d;
            },
            [](double t) { return t; });
    }
    const std::size_t n = static_cast<std::size_t>(m_sys.size());
    std::fill_n(m_res.begin(), b.varUnknown().size(), 0.0);
    std::fill_n(m_thr.begin(), b.portRow().size(), 0.0);
    EqData<double>& d = m_d.data;
    d.y = std::span<const double>(s.y, n);
    d.yp = std::span<const double>(s.yp, n);
    d.portSlot = b.portUnknown();
    d.varSlot = b.varUnknown();
    d.discrete = std::span<const double>(s.discrete + b.discreteOffset, static_cast<std::size_t>(b.discreteCount));
    d.residual = std::span<double>(m_res.data(), b.varUnknown().size());
    d.through = std::span<double>(m_thr.data(), b.portRow().size());
    d.time = s.t;
    return Eq<double>(d);
}

void Evaluator::setFused(const std::vector<std::vector<FusedExplicit>>& perBlock) {
    m_fusedFirst.clear();
    m_fused.clear();
    m_fusedRows.clear();
    for (const std::vector<FusedExplicit>& mine : perBlock) {
        m_fusedFirst.push_back(static_cast<int>(m_fused.size()));
        for (const FusedExplicit& f : mine) {
            m_fused.push_back({f.var, f.unknown, static_cast<int>(m_fusedRows.size()), -1.0 / f.coefficient});
            m_fusedRows.insert(m_fusedRows.end(), f.rowCoefficient.begin(), f.rowCoefficient.end());
        }
    }
    m_fusedFirst.push_back(static_cast<int>(m_fused.size()));
    if (m_fused.empty()) m_fusedFirst.clear();
    m_fusedFirst.shrink_to_fit();   // kept for the whole run: at their sizes, not with the growth's slack
    m_fused.shrink_to_fit();
    m_fusedRows.shrink_to_fit();
    std::size_t most = 0;
    for (std::size_t bi = 0; bi + 1 < m_fusedFirst.size(); ++bi)
        most = std::max(most, static_cast<std::size_t>(m_fusedFirst[bi + 1] - m_fusedFirst[bi]));
    m_delta.assign(most, 0.0);
}

void Evaluator::applyFused(std::size_t block, double* res, double* thr, double* y) {
    const Fused* first = m_fused.data() + m_fusedFirst[block];
    const std::size_t count = static_cast<std::size_t>(m_fusedFirst[block + 1] - m_fusedFirst[block]);
    const Binding& b = m_sys.bindings[block];
    const std::size_t nv = b.ownRow().size(), np = b.portRow().size();
    double* delta = m_delta.data();
    for (std::size_t i = 0; i < count; ++i) delta[i] = res[first[i].var] * first[i].negInverse;
    for (std::size_t i = 0; i < count; ++i) {
        const double d = delta[i];
        const double* c = m_fusedRows.data() + first[i].coefficients;
        y[first[i].unknown] += d;
        for (std::size_t v = 0; v < nv; ++v) res[v] += c[v] * d;
        for (std::size_t p = 0; p < np; ++p) thr[p] += c[nv + p] * d;
    }
}

void Evaluator::residual(const State& s, double* F, double* fusedY, bool synced) {
    const std::size_t nb = m_sys.bindings.size();
    if (m_linearResidual && s.yp) {
        if (!synced) syncLinear(s);
        const Pattern& pat = m_sys.pattern;
        std::copy(m_linearC.begin(), m_linearC.end(), F);
        const double* a = m_linearA.data();
        const double* b = m_linearB.data();
        for (int j = 0; j < pat.n; ++j) {
            const double y = s.y[j], yp = s.yp[j];
            for (int k = pat.colPtr[at(j)]; k < pat.colPtr[at(j + 1)]; ++k) F[pat.rowIdx[at(k)]] += a[k] * y + b[k] * yp;
        }
        const std::size_t nn = m_nonlinearBlocks.size();
        for (std::size_t i = 0; i < nn; ++i) {
            if (i + 4 < nn) __builtin_prefetch(m_sys.bindings[at(m_nonlinearBlocks[i + 4])].block);
            blockResidual(at(m_nonlinearBlocks[i]), s, F, fusedY);
        }
        return;
    }
    std::fill(F, F + m_sys.size(), 0.0);
    for (std::size_t bi = 0; bi < nb; ++bi) {
        if (bi + 4 < nb) {   // the next blocks' objects and parameters are scattered on the heap
            __builtin_prefetch(m_sys.bindings[bi + 4].block);
            __builtin_prefetch(m_sys.bindings[bi + 4].parameters);
        }
        blockResidual(bi, s, F, fusedY);
    }
}

// One block's rows: set (own rows) or added (node balances) into F. Blocks with differentiated
// rows are evaluated once with Tan<double>, giving each row and its time derivative together.
void Evaluator::blockResidual(std::size_t bi, const State& s, double* F, double* fusedY) {
    const Binding& b = m_sys.bindings[bi];
    if (!b.tangent) {
        Eq<double> eq = doubleEq(bi, s);
        b.block->eval(eq);
        const std::span<double> res = m_d.data.residual, thr = m_d.data.through;
        if (fusedY && !m_fusedFirst.empty() && m_fusedFirst[bi] != m_fusedFirst[bi + 1])
            applyFused(bi, res.data(), thr.data(), fusedY);
        for (std::size_t v = 0; v < b.ownRow().size(); ++v) F[b.ownRow()[v]] = res[v];
        for (std::size_t p = 0; p < b.portRow().size(); ++p)
            if (b.portRow()[p] >= 0) F[b.portRow()[p]] += thr[p];
        return;
    }
    Eq<Tan<double>> eq = tangentEq(bi, s);
    b.block->eval(eq);
    for (std::size_t v = 0; v < b.ownRow().size(); ++v) {
        F[b.ownRow()[v]] = m_t.res[v].v;
        if (b.ownDiff()[v] >= 0) F[b.ownDiff()[v]] = m_t.res[v].dt;
    }
    for (std::size_t p = 0; p < b.portRow().size(); ++p) {
        if (b.portRow()[p] >= 0) F[b.portRow()[p]] += m_t.thr[p].v;
        if (b.portDiff()[p] >= 0) F[b.portDiff()[p]] += m_t.thr[p].dt;
    }
}

// Blocks linear in their current mode and independent of the time contribute c + A y + B y' with
// constant c, A and B: those are summed once and the blocks skipped, in the Jacobian and in the
// residual. A block whose rows index reduction differentiated (a velocity source) is summed with
// those derivatives, linear too (in y' and the dummy derivatives). After an event only the blocks
// whose discrete state changed leave the sums (evaluated in their old state) and re-enter them (in
// the new one), so an event costs what changed, not the whole network; every kFullRebuildEvery
// updates (one per 16 blocks in a larger network) the sums are rebuilt from scratch so that
// rounding cannot pile up.
void Evaluator::jacobian(const State& s, double cj, double* values, bool synced) {
    const std::size_t nnz = static_cast<std::size_t>(m_sys.pattern.nnz());
    if (!synced) syncLinear(s);
    const double* a = m_linearA.data();
    const double* b = m_linearB.data();
    for (std::size_t i = 0; i < nnz; ++i) values[i] = a[i] + cj * b[i];
    for (const int bi : m_nonlinearBlocks) blockJacobian(bi, s, cj, values);
}

void Evaluator::jacobianAt(const State& s, double cj, const std::vector<int>& entries, const std::vector<char>& blocks,
                           double* values) {
    const double* a = m_linearA.data();
    const double* b = m_linearB.data();
    for (const int k : entries) values[k] = a[k] + cj * b[k];
    for (const int bi : m_nonlinearBlocks)
        if (blocks[at(bi)] != 0) blockJacobian(bi, s, cj, values);
}

void Evaluator::syncLinear(const State& s) {
    if (!m_linearValid) rebuildLinear(s);
    else if (s.discreteVersion != 0 && s.discreteVersion == m_linearSeen)
        return;
    else if (!m_linearDiscrete.empty() &&   // bitwise: a -0 for a 0 only costs an update
             std::memcmp(m_linearDiscrete.data(), s.discrete, m_linearDiscrete.size() * sizeof(double)) != 0)
        updateLinear(s);
    m_linearSeen = s.discreteVersion;
}

void Evaluator::rowsOfPattern() {
    if (!m_rowFirst.empty()) return;
    const Pattern& pat = m_sys.pattern;   // transposed: two ints per entry
    m_rowFirst.assign(at(pat.n) + 1, 0);
    for (int k = 0; k < pat.nnz(); ++k) ++m_rowFirst[at(pat.rowIdx[at(k)]) + 1];
    for (int r = 0; r < pat.n; ++r) m_rowFirst[at(r) + 1] += m_rowFirst[at(r)];
    m_rowColumn.assign(at(pat.nnz()), 0);
    m_rowValue.assign(at(pat.nnz()), 0);
    std::vector<int> next(m_rowFirst.begin(), m_rowFirst.end() - 1);
    for (int j = 0; j < pat.n; ++j)
        for (int k = pat.colPtr[at(j)]; k < pat.colPtr[at(j + 1)]; ++k) {
            const int slot = next[at(pat.rowIdx[at(k)])]++;
            m_rowColumn[at(slot)] = j;
            m_rowValue[at(slot)] = k;
        }
}

void Evaluator::blockResiduals(std::span<const int> blocks, const State& s, double* F) {
    for (const int bi : blocks) blockResidual(at(bi), s, F, nullptr);
}

bool Evaluator::solveSummedRow(int row, int unknown, const double* y, const double* yp, double& value, bool rate) {
    rowsOfPattern();
    double r = m_linearC[at(row)], diagonal = 0.0;
    for (int i = m_rowFirst[at(row)]; i < m_rowFirst[at(row) + 1]; ++i) {
        const int j = m_rowColumn[at(i)], k = m_rowValue[at(i)];
        if (j == unknown) {
            diagonal = rate ? m_linearB[at(k)] : m_linearA[at(k)];
            continue;
        }
        r += m_linearA[at(k)] * y[j] + m_linearB[at(k)] * yp[j];
    }
    if (diagonal == 0.0) return false;
    value = -r / diagonal;
    return true;
}

// Whether a block is summed at a discrete state: its rows linear in the slots and free of the
// time there. The block structure says so per mode combination, but a block's other discretes
// (a table's segment) may bring the time in, so the rows are evaluated symbolically at the actual
// discrete values, once per structure and discrete values.
bool Evaluator::linearAt(std::size_t bi, const double* discrete) {
    const Binding& b = m_sys.bindings[bi];
    const BlockStructure& st = m_sys.structures[at(m_sys.structureOf[bi])];
    const std::span<const double> own(discrete + b.discreteOffset, static_cast<std::size_t>(b.discreteCount));
    if (!st.linear[at(st.combination(own))]) return false;
    m_summable.resize(m_sys.structures.size());
    std::vector<Summable>& known = m_summable[at(m_sys.structureOf[bi])];
    const auto same = [&](const Summable& e) { return e.key.matches(own); };
    if (const auto it = std::find_if(known.begin(), known.end(), same); it != known.end()) return it->summed;
    bool linear = false, timed = false;
    Summable entry;
    {
        const WatchReads<1> watch(&entry.key.reads, {&m_s.data.discreteReads});
        blockIncidence(static_cast<int>(bi), State{0.0, m_sys.y0.data(), nullptr, discrete}, &linear, &timed);
    }
    entry.key.values.assign(own.begin(), own.end());
    entry.summed = linear && !timed;
    if (known.size() == kSummableKept) known.clear();
    known.push_back(std::move(entry));
    return known.back().summed;
}

bool Evaluator::ReadDiscretes::matches(std::span<const double> own) const {
    for (std::size_t i = 0; i < own.size(); ++i)
        if ((reads >> std::min<std::size_t>(i, 63) & 1) != 0 && own[i] != values[i]) return false;
    return true;
}

// dF/dy + cj dF/dy' of one block by entries: add(position in the pattern's values, derivative)
template <class Add> void Evaluator::blockJacobianTo(int block, const State& s, double cj, Add&& add) {
    const std::size_t bi = at(block);
    const Binding& b = m_sys.bindings[bi];
    const Block& blk = *b.block;
    const int ns = static_cast<int>(b.slot().size());
    const int nv = static_cast<int>(b.ownRow().size()), np = static_cast<int>(b.portRow().size());
    forEachJetPass(ns, [&](const JetPass& pass) {
        const JacobianSeed seed{b, pass, cj};
        auto scatter = [&](int localRow, const Jet& g) {
            const int* pos = &b.jac()[at(localRow * ns)];
            pass.derivatives(g, [&](int k, double d) {
                if (d != 0.0 && pos[k] >= 0) add(pos[k], d);
            });
        };
        if (!b.tangent) {
            Eq<Jet> eq = prepare(
                m_j, block, s,
                [&](int k, double y, double d, Jet& yo, Jet& dout) {
                    yo = seed.y(k, y);
                    dout = seed.der(k, d);
                },
                [](double t) { return Jet(t); });
            blk.eval(eq);
            for (int v = 0; v < nv; ++v) scatter(v, m_j.res[at(v)]);
            for (int p = 0; p < np; ++p)
                if (b.portRow()[at(p)] >= 0) scatter(nv + p, m_j.thr[at(p)]);
            return;
        }
        Eq<Tan<Jet>> eq = prepare(
            m_tj, block, s,
            [&](int k, double y, double d, Tan<Jet>& yo, Tan<Jet>& dout) {
                const Jet jd = seed.der(k, d);
                yo = {seed.y(k, y), jd};
                dout = {jd, Jet(0.0)};
            },
            [](double t) {
                return Tan<Jet>{Jet(t), Jet(1.0)};
            });
        blk.eval(eq);
        for (int v = 0; v < nv; ++v) {
            scatter(v, m_tj.res[at(v)].v);
            if (b.ownDiff()[at(v)] >= 0) scatter(nv + np + v, m_tj.res[at(v)].dt);
        }
        for (int p = 0; p < np; ++p) {
            if (b.portRow()[at(p)] >= 0) scatter(nv + p, m_tj.thr[at(p)].v);
            if (b.portDiff()[at(p)] >= 0) scatter(2 * nv + np + p, m_tj.thr[at(p)].dt);
        }
    });
}

void Evaluator::blockJacobian(int block, const State& s, double cj, double* values, double sign) {
    blockJacobianTo(block, s, cj, [&](int k, double d) { values[k] += sign * d; });
}

template <class Add> void Evaluator::linearContribution(std::size_t bi, const State& s, Add&& add) {
    const int block = static_cast<int>(bi);
    blockJacobianTo(block, s, 0.0, [&](int k, double d) { add(0, k, d); });    // dF/dy
    blockJacobianTo(block, s, 1.0, [&](int k, double d) { add(1, k, d); });    // + (dF/dy + dF/dy')
    blockJacobianTo(block, s, 0.0, [&](int k, double d) { add(1, k, -d); });   // - dF/dy
    const Binding& b = m_sys.bindings[bi];
    if (b.tangent) {   // its rows and their time derivatives (which are 0 at 0: linear, free of the time)
        Eq<Tan<double>> eq = prepare(
            m_t, block, s,
            [](int, double, double, Tan<double>& yo, Tan<double>& dout) {
                yo = {0.0, 0.0};
                dout = {0.0, 0.0};
            },
            [](double t) {
                return Tan<double>{t, 1.0};
            });
        b.block->eval(eq);
        for (std::size_t v = 0; v < b.ownRow().size(); ++v) {
            add(2, b.ownRow()[v], m_t.res[v].v);
            if (b.ownDiff()[v] >= 0) add(2, b.ownDiff()[v], m_t.res[v].dt);
        }
        for (std::size_t p = 0; p < b.portRow().size(); ++p) {
            if (b.portRow()[p] >= 0) add(2, b.portRow()[p], m_t.thr[p].v);
            if (b.portDiff()[p] >= 0) add(2, b.portDiff()[p], m_t.thr[p].dt);
        }
        return;
    }
    Eq<double> eq = prepare(
        m_d, block, s,
        [](int, double, double, double& yo, double& dout) {
            yo = 0.0;
            dout = 0.0;
        },
        [](double t) { return t; });
    b.block->eval(eq);
    for (std::size_t v = 0; v < b.ownRow().size(); ++v) add(2, b.ownRow()[v], m_d.res[v]);
    for (std::size_t p = 0; p < b.portRow().size(); ++p)
        if (b.portRow()[p] >= 0) add(2, b.portRow()[p], m_d.thr[p]);
}

// sign * (dF/dy, dF/dy') of one block into A and B, sign * its rows at y = y' = 0 into c
void Evaluator::addLinear(std::size_t bi, const State& s, double sign) {
    double* const target[3] = {m_linearA.data(), m_linearB.data(), m_linearC.data()};
    linearContribution(bi, s, [&](int t, int k, double v) { target[t][k] += sign * v; });
}

// The same additions in the same order (sign * -d is (-sign) * d to the bit), taken from the
// record for the discretes the block's equations read, recorded first if there is none.
void Evaluator::addLinearRecorded(std::size_t bi, const State& s, double sign) {
    if (!m_recordLinear) return addLinear(bi, s, sign);
    const Binding& b = m_sys.bindings[bi];
    const std::span<const double> own(s.discrete + b.discreteOffset, static_cast<std::size_t>(b.discreteCount));
    std::vector<Recorded>& known = m_recorded[static_cast<int>(bi)];
    auto it = std::find_if(known.begin(), known.end(), [&](const Recorded& e) { return e.key.matches(own); });
    if (it == known.end()) {
        Recorded r;
        {   // the four workspaces linearContribution() evaluates in note what the block reads
            const WatchReads<4> watch(&r.key.reads, {&m_j.data.discreteReads, &m_tj.data.discreteReads,
                                                  &m_d.data.discreteReads, &m_t.data.discreteReads});
            linearContribution(bi, s, [&](int t, int k, double v) { r.adds.push_back({t, k, v}); });
        }
        r.key.values.assign(own.begin(), own.end());
        if (m_recordedAdds + r.adds.size() > kRecordedKept) {
            m_recorded.clear();
            m_recordedAdds = 0;
        }
        m_recordedAdds += r.adds.size();
        std::vector<Recorded>& list = m_recorded[static_cast<int>(bi)];
        if (list.size() == kRecordedPerBlock) {
            for (const Recorded& e : list) m_recordedAdds -= e.adds.size();
            list.clear();
        }
        list.push_back(std::move(r));
        it = list.end() - 1;
    }
    double* const target[3] = {m_linearA.data(), m_linearB.data(), m_linearC.data()};
    for (const LinearAdd& a : it->adds) target[a.target][a.index] += sign * a.value;
}

void Evaluator::rebuildLinear(const State& s) {
    const std::size_t nnz = static_cast<std::size_t>(m_sys.pattern.nnz());
    m_linearA.assign(nnz, 0.0);
    m_linearB.assign(nnz, 0.0);
    m_linearC.assign(at(m_sys.size()), 0.0);
    m_isLinear.assign(m_sys.bindings.size(), 0);
    m_changedAll = true;
    for (std::size_t bi = 0; bi < m_sys.bindings.size(); ++bi) {
        if (!linearAt(bi, s.discrete)) continue;
        m_isLinear[bi] = 1;
        addLinear(bi, s, 1.0);
    }
    listNonlinear();
    m_linearDiscrete.assign(s.discrete, s.discrete + m_sys.discrete0.size());
    m_linearValid = true;
    m_linearUpdates = 0;
    ++m_linearVersion;
}

void Evaluator::updateLinear(const State& s) {
    // one per 16 blocks in a large network: a rebuild then costs no more than the updates it follows
    const int every = std::max(kFullRebuildEvery, static_cast<int>(m_sys.bindings.size() / 16));
    if (++m_linearUpdates >= every) return rebuildLinear(s);
    const State before{s.t, s.y, s.yp, m_linearDiscrete.data()};
    m_changedFlag.resize(m_sys.bindings.size(), 0);
    m_changes.forEach(m_linearDiscrete.data(), s.discrete, [&](int block) {
        const std::size_t bi = at(block);
        m_copied.push_back(block);
        if (!m_changedFlag[bi]) m_changedFlag[bi] = 1, m_changedBlocks.push_back(block);
        const bool linearNow = linearAt(bi, s.discrete);
        if (m_isLinear[bi]) addLinearRecorded(bi, before, -1.0);
        if (linearNow) addLinearRecorded(bi, s, 1.0);
        if ((m_isLinear[bi] != 0) != linearNow) {   // the evaluated list, kept in block order
            const auto it = std::lower_bound(m_nonlinearBlocks.begin(), m_nonlinearBlocks.end(), block);
            if (linearNow)
                m_nonlinearBlocks.erase(it);
            else
                m_nonlinearBlocks.insert(it, block);
        }
        m_isLinear[bi] = linearNow ? 1 : 0;
    });
    m_changes.copy(m_copied, s.discrete, m_linearDiscrete.data());   // the discretes that differ, not all
    m_copied.clear();
    ++m_linearVersion;
}

bool Evaluator::takeChanges(std::vector<int>& out) {
    out.clear();
    for (const int b : m_changedBlocks) m_changedFlag[at(b)] = 0;
    out.swap(m_changedBlocks);
    const bool some = !m_changedAll;
    m_changedAll = false;
    return some;
}

void Evaluator::listNonlinear() {
    m_nonlinearBlocks.clear();
    for (std::size_t bi = 0; bi < m_isLinear.size(); ++bi)
        if (!m_isLinear[bi]) m_nonlinearBlocks.push_back(static_cast<int>(bi));
}

double Evaluator::ownResidual(int block, const State& s, int var) {
    const Binding& b = m_sys.bindings[at(block)];
    Eq<double> eq = doubleEq(at(block), s);
    b.block->eval(eq);
    return m_d.data.residual[at(var)];
}

// A block's values with their time derivatives (y' or the dummy standing for it), for its rows
// and their derivative rows at once
Eq<Tan<double>> Evaluator::tangentEq(std::size_t block, const State& s) {
    return prepare(
        m_t, static_cast<int>(block), s,
        [](int, double y, double d, Tan<double>& yo, Tan<double>& dout) {
            yo = {y, d};
            dout = {d, 0.0};
        },
        [](double t) {
            return Tan<double>{t, 1.0};
        });
}

double Evaluator::ownDerivativeResidual(int block, const State& s, int var) {
    Eq<Tan<double>> eq = tangentEq(at(block), s);
    m_sys.bindings[at(block)].block->eval(eq);
    return m_t.res[at(var)].dt;
}

double Evaluator::throughResidual(int block, const State& s, int port) {
    const Binding& b = m_sys.bindings[at(block)];
    Eq<double> eq = doubleEq(at(block), s);
    b.block->eval(eq);
    return m_d.data.through[at(port)];
}

void Evaluator::withEq(int block, const State& s, const std::function<void(const Eq<double>&)>& f) {
    const Eq<double> eq = doubleEq(at(block), s);
    f(eq);
}

void Evaluator::eventFunctions(const State& s, double* g) { eventFunctions(s, g, m_sys.eventBlocks); }

void Evaluator::eventFunctions(const State& s, double* g, std::span<const int> blocks) {
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (i + 4 < blocks.size()) __builtin_prefetch(m_sys.bindings[at(blocks[i + 4])].block);
        const Binding& b = m_sys.bindings[at(blocks[i])];
        const Eq<double> eq = doubleEq(at(blocks[i]), s);
        b.block->eventFunctions(eq, std::span<double>(g + b.eventOffset, at(b.events)));
    }
}

std::vector<std::vector<std::pair<int, int>>> Evaluator::blockIncidence(int block, const State& s, bool* linear,
                                                                        bool* timed) {
    const Binding& b = m_sys.bindings[at(block)];
    const Block& blk = *m_sys.topo.blocks[at(block)].block;
    if (2 * b.slot().size() > static_cast<std::size_t>(Sym::kMaxInputs))
        throw std::length_error("block has more than 64 connections");
    Eq<Sym> eq = prepare(
        m_s, block, s,
        [&](int k, double y, double d, Sym& yo, Sym& dout) {
            yo = Sym(y);
            yo.deps.set(at(2 * k));
            dout = Sym(d);
            const int ds = k < b.baseSlots ? b.derSlot()[at(k)] : -1;
            dout.deps.set(ds >= 0 ? at(2 * ds) : at(2 * k + 1));
        },
        [](double t) { return Sym::ofTime(t); });
    Sym::valueInspected() = false;
    blk.eval(eq);
    if (linear) {
        *linear = !Sym::valueInspected();
        for (const Sym& r : m_s.res) *linear = *linear && !r.nonlinear;
        for (const Sym& r : m_s.thr) *linear = *linear && !r.nonlinear;
    }
    if (timed) {
        *timed = false;
        for (const Sym& r : m_s.res) *timed = *timed || r.time;
        for (const Sym& r : m_s.thr) *timed = *timed || r.time;
    }
    std::vector<std::vector<std::pair<int, int>>> out;
    auto add = [&](const Sym& x) {
        std::vector<std::pair<int, int>> row;
        for (std::size_t bit = 0; bit < 2 * b.slot().size(); ++bit)
            if (x.deps.test(bit)) row.emplace_back(static_cast<int>(bit / 2), static_cast<int>(bit % 2));
        out.push_back(std::move(row));
    };
    for (const Sym& r : m_s.res) add(r);
    for (const Sym& r : m_s.thr) add(r);
    return out;
}

std::vector<std::tuple<int, int, double>> Evaluator::blockGradient(int block, const State& s) {
    const Binding& b = m_sys.bindings[at(block)];
    const Block& blk = *m_sys.topo.blocks[at(block)].block;
    const int ns = static_cast<int>(b.slot().size());
    std::vector<std::tuple<int, int, double>> out;
    forEachJetPass(ns, [&](const JetPass& pass) {
        Eq<Jet> eq = prepare(
            m_j, block, s,
            [&](int k, double y, double d, Jet& yo, Jet& dout) {
                yo = pass.seed(y, k);
                dout = Jet(d);
            },
            [](double t) { return Jet(t); });
        blk.eval(eq);
        auto take = [&](int localRow, const Jet& g) {
            pass.derivatives(g, [&](int k, double d) {
                if (d != 0.0) out.emplace_back(localRow, b.slot()[at(k)], d);
            });
        };
        const int nv = static_cast<int>(m_j.res.size());
        for (int v = 0; v < nv; ++v) take(v, m_j.res[at(v)]);
        for (std::size_t p = 0; p < m_j.thr.size(); ++p) take(nv + static_cast<int>(p), m_j.thr[p]);
    });
    return out;
}

}   // namespace endstop::core::dae
