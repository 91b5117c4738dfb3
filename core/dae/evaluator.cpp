// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dae/evaluator.hpp"

#include <algorithm>

namespace endstop::core::dae {

namespace {

using ad::Sym;
using ad::Tan;
constexpr int kDirs = 8;   // Jet width

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// A Jet for local slot k in the chunk [c0, c0 + kDirs): d/dy_k = 1, and d/dy'_k = cj unless
// y'_k is a dummy unknown, whose own direction then carries 1.
struct JetSeed {
    const Binding& b;
    int c0;
    double cj;
    Jet y(int k, double v) const { return inChunk(k) ? Jet::seed(v, k - c0) : Jet(v); }
    Jet der(int k, double v) const {
        if (k < b.baseSlots && b.derSlot[at(k)] >= 0) {
            const int ds = b.derSlot[at(k)];
            return inChunk(ds) ? Jet::seed(v, ds - c0) : Jet(v);
        }
        return inChunk(k) && k < b.baseSlots ? Jet::seed(v, k - c0, cj) : Jet(v);
    }
    bool inChunk(int k) const { return k >= c0 && k < c0 + kDirs; }
};

}  // namespace

Eq<double> Evaluator::doubles(int block, const State& s) {
    const Binding& b = m_sys.bindings[at(block)];
    if (!b.direct || !s.yp)
        return prepare(m_d, block, s, [](int, double y, double d, double& yo, double& dout) { yo = y; dout = d; },
                       [](double t) { return t; });
    const std::size_t n = static_cast<std::size_t>(m_sys.size());
    m_d.res.assign(b.ownRow.size(), 0.0);
    m_d.thr.assign(b.portRow.size(), 0.0);
    m_d.data.y = std::span<const double>(s.y, n);
    m_d.data.yp = std::span<const double>(s.yp, n);
    m_d.data.portSlot = b.portUnknown;
    m_d.data.varSlot = b.varUnknown;
    m_d.data.discrete = std::span<const double>(s.discrete + b.discreteOffset, static_cast<std::size_t>(b.discreteCount));
    m_d.data.residual = m_d.res;
    m_d.data.through = m_d.thr;
    m_d.data.time = s.t;
    return Eq<double>(m_d.data);
}

Eq<double> Evaluator::hotEq(const HotBlock& h, const State& s) {
    const int* idx = m_sys.hotIndex.data() + h.first;
    std::fill_n(m_hotRes.begin(), h.vars, 0.0);
    std::fill_n(m_hotThr.begin(), h.conserving, 0.0);
    EqData<double>& d = m_d.data;
    d.y = std::span<const double>(s.y, static_cast<std::size_t>(m_sys.size()));
    d.yp = std::span<const double>(s.yp, static_cast<std::size_t>(m_sys.size()));
    d.portSlot = std::span<const int>(idx, static_cast<std::size_t>(h.ports));
    d.varSlot = std::span<const int>(idx + h.ports, static_cast<std::size_t>(h.vars));
    d.discrete = std::span<const double>(s.discrete + h.discreteOffset, static_cast<std::size_t>(h.discreteCount));
    d.residual = std::span<double>(m_hotRes.data(), static_cast<std::size_t>(h.vars));
    d.through = std::span<double>(m_hotThr.data(), static_cast<std::size_t>(h.conserving));
    d.time = s.t;
    return Eq<double>(d);
}

void Evaluator::reserveHot() {
    if (!m_hotRes.empty()) return;
    std::size_t vars = 1, ports = 1;
    for (const HotBlock& h : m_sys.hot) {
        vars = std::max(vars, static_cast<std::size_t>(h.vars));
        ports = std::max(ports, static_cast<std::size_t>(h.conserving));
    }
    m_hotRes.assign(vars, 0.0);
    m_hotThr.assign(ports, 0.0);
}

void Evaluator::applyFused(std::size_t block, double* res, double* thr, double* y) {
    const std::vector<FusedExplicit>& fused = m_fused[block];
    const HotBlock& h = m_sys.hot[block];
    m_delta.resize(fused.size());
    for (std::size_t i = 0; i < fused.size(); ++i) m_delta[i] = -res[fused[i].var] / fused[i].coefficient;
    for (std::size_t i = 0; i < fused.size(); ++i) {
        const FusedExplicit& f = fused[i];
        const double d = m_delta[i];
        y[f.unknown] += d;
        for (int v = 0; v < h.vars; ++v) res[v] += f.rowCoefficient[at(v)] * d;
        for (int p = 0; p < h.conserving; ++p) thr[p] += f.rowCoefficient[at(h.vars + p)] * d;
    }
}

void Evaluator::residual(const State& s, double* F, double* fusedY) {
    std::fill(F, F + m_sys.size(), 0.0);
    reserveHot();
    const bool fuse = fusedY && !m_fused.empty();
    const std::size_t nb = m_sys.hot.size();
    for (std::size_t bi = 0; bi < nb; ++bi) {
        if (bi + 4 < nb) {   // the next blocks' objects and parameters are scattered on the heap
            __builtin_prefetch(m_sys.hot[bi + 4].block);
            __builtin_prefetch(m_sys.hot[bi + 4].parameters);
        }
        const HotBlock& h = m_sys.hot[bi];
        if (h.direct && s.yp) {
            Eq<double> eq = hotEq(h, s);
            h.block->eval(eq);
            if (fuse && !m_fused[bi].empty()) applyFused(bi, m_hotRes.data(), m_hotThr.data(), fusedY);
            const int* rows = m_sys.hotIndex.data() + h.first + h.ports + h.vars;
            for (int v = 0; v < h.vars; ++v) F[rows[v]] = m_hotRes[at(v)];
            for (int p = 0; p < h.conserving; ++p)
                if (rows[h.vars + p] >= 0) F[rows[h.vars + p]] += m_hotThr[at(p)];
            continue;
        }
        const Binding& b = m_sys.bindings[bi];
        const Block& blk = *b.block;
        if (!b.tangent) {
            Eq<double> eq = doubles(static_cast<int>(bi), s);
            blk.eval(eq);
            if (fuse && !m_fused[bi].empty()) applyFused(bi, m_d.res.data(), m_d.thr.data(), fusedY);
            for (std::size_t v = 0; v < b.ownRow.size(); ++v) F[b.ownRow[v]] = m_d.res[v];
            for (std::size_t p = 0; p < b.portRow.size(); ++p)
                if (b.portRow[p] >= 0) F[b.portRow[p]] += m_d.thr[p];
            continue;
        }
        Eq<Tan<double>> eq = prepare(m_t, static_cast<int>(bi), s,
                                     [](int, double y, double d, Tan<double>& yo, Tan<double>& dout) {
                                         yo = {y, d};
                                         dout = {d, 0.0};
                                     },
                                     [](double t) { return Tan<double>{t, 1.0}; });
        blk.eval(eq);
        for (std::size_t v = 0; v < b.ownRow.size(); ++v) {
            F[b.ownRow[v]] = m_t.res[v].v;
            if (b.ownDiff[v] >= 0) F[b.ownDiff[v]] = m_t.res[v].dt;
        }
        for (std::size_t p = 0; p < b.portRow.size(); ++p) {
            if (b.portRow[p] >= 0) F[b.portRow[p]] += m_t.thr[p].v;
            if (b.portDiff[p] >= 0) F[b.portDiff[p]] += m_t.thr[p].dt;
        }
    }
}

// Blocks linear in their current mode contribute A + cj B with constant A and B: those are summed
// once per discrete state (after each event) and the blocks skipped until the next one.
void Evaluator::jacobian(const State& s, double cj, double* values) {
    const std::size_t nnz = static_cast<std::size_t>(m_sys.pattern.nnz());
    const std::size_t nd = m_sys.discrete0.size();
    if (!m_linearValid || (nd > 0 && !std::equal(m_linearDiscrete.begin(), m_linearDiscrete.end(), s.discrete)))
        rebuildLinear(s);
    const double* a = m_linearA.data();
    const double* b = m_linearB.data();
    for (std::size_t i = 0; i < nnz; ++i) values[i] = a[i] + cj * b[i];
    for (const int bi : m_nonlinearBlocks) blockJacobian(bi, s, cj, values);
}

void Evaluator::rebuildLinear(const State& s) {
    const std::size_t nnz = static_cast<std::size_t>(m_sys.pattern.nnz());
    m_linearA.assign(nnz, 0.0);
    m_linearB.assign(nnz, 0.0);
    m_nonlinearBlocks.clear();
    for (std::size_t bi = 0; bi < m_sys.bindings.size(); ++bi) {
        const Binding& b = m_sys.bindings[bi];
        const BlockStructure& st = m_sys.structures[at(m_sys.structureOf[bi])];
        const int c = st.combination({s.discrete + b.discreteOffset, static_cast<std::size_t>(b.discreteCount)});
        if (b.tangent || !st.linear[at(c)]) {
            m_nonlinearBlocks.push_back(static_cast<int>(bi));
            continue;
        }
        blockJacobian(static_cast<int>(bi), s, 0.0, m_linearA.data());   // dF/dy
        blockJacobian(static_cast<int>(bi), s, 1.0, m_linearB.data());   // dF/dy + dF/dy'
    }
    for (std::size_t i = 0; i < nnz; ++i) m_linearB[i] -= m_linearA[i];
    m_linearDiscrete.assign(s.discrete, s.discrete + m_sys.discrete0.size());
    m_linearValid = true;
}

void Evaluator::blockJacobian(int block, const State& s, double cj, double* values) {
    const std::size_t bi = at(block);
    const Binding& b = m_sys.bindings[bi];
    const Block& blk = *m_sys.bindings[bi].block;
    const int ns = static_cast<int>(b.slot.size());
    const int nv = static_cast<int>(b.ownRow.size()), np = static_cast<int>(b.portRow.size());
    auto scatter = [&](int localRow, const Jet& g, int c0) {
        const int* pos = &b.jac[at(localRow * ns)];
        for (int j = 0; j < kDirs && c0 + j < ns; ++j)
            if (g.d[at(j)] != 0.0 && pos[c0 + j] >= 0) values[pos[c0 + j]] += g.d[at(j)];
    };
    for (int c0 = 0; c0 < ns; c0 += kDirs) {
        const JetSeed seed{b, c0, cj};
        if (!b.tangent) {
            Eq<Jet> eq = prepare(m_j, block, s,
                                 [&](int k, double y, double d, Jet& yo, Jet& dout) { yo = seed.y(k, y); dout = seed.der(k, d); },
                                 [](double t) { return Jet(t); });
            blk.eval(eq);
            for (int v = 0; v < nv; ++v) scatter(v, m_j.res[at(v)], c0);
            for (int p = 0; p < np; ++p)
                if (b.portRow[at(p)] >= 0) scatter(nv + p, m_j.thr[at(p)], c0);
            continue;
        }
        Eq<Tan<Jet>> eq = prepare(m_tj, block, s,
                                  [&](int k, double y, double d, Tan<Jet>& yo, Tan<Jet>& dout) {
                                      const Jet jd = seed.der(k, d);
                                      yo = {seed.y(k, y), jd};
                                      dout = {jd, Jet(0.0)};
                                  },
                                  [](double t) { return Tan<Jet>{Jet(t), Jet(1.0)}; });
        blk.eval(eq);
        for (int v = 0; v < nv; ++v) {
            scatter(v, m_tj.res[at(v)].v, c0);
            if (b.ownDiff[at(v)] >= 0) scatter(nv + np + v, m_tj.res[at(v)].dt, c0);
        }
        for (int p = 0; p < np; ++p) {
            if (b.portRow[at(p)] >= 0) scatter(nv + p, m_tj.thr[at(p)].v, c0);
            if (b.portDiff[at(p)] >= 0) scatter(2 * nv + np + p, m_tj.thr[at(p)].dt, c0);
        }
    }
}

double Evaluator::ownResidual(int block, const State& s, int var) {
    const HotBlock& h = m_sys.hot[at(block)];
    if (h.direct && s.yp) {
        reserveHot();
        Eq<double> eq = hotEq(h, s);
        h.block->eval(eq);
        return m_hotRes[at(var)];
    }
    Eq<double> eq = doubles(block, s);
    h.block->eval(eq);
    return m_d.res[at(var)];
}

void Evaluator::withEq(int block, const State& s, const std::function<void(const Eq<double>&)>& f) {
    const Eq<double> eq = doubles(block, s);
    f(eq);
}

void Evaluator::eventFunctions(const State& s, double* g) {
    reserveHot();
    for (std::size_t i = 0; i < m_sys.eventBlocks.size(); ++i) {
        if (i + 4 < m_sys.eventBlocks.size()) __builtin_prefetch(m_sys.hot[at(m_sys.eventBlocks[i + 4])].block);
        const int bi = m_sys.eventBlocks[i];
        const HotBlock& h = m_sys.hot[at(bi)];
        const Eq<double> eq = h.direct && s.yp ? hotEq(h, s) : doubles(bi, s);
        h.block->eventFunctions(eq, std::span<double>(g + h.eventOffset, at(h.events)));
    }
}

std::vector<std::vector<std::pair<int, int>>> Evaluator::blockIncidence(int block, const State& s, bool* linear) {
    const Binding& b = m_sys.bindings[at(block)];
    const Block& blk = *m_sys.topo.blocks[at(block)].block;
    if (2 * b.slot.size() > static_cast<std::size_t>(Sym::kMaxInputs))
        throw std::length_error("block has more than 64 connections");
    Eq<Sym> eq = prepare(m_s, block, s,
                         [&](int k, double y, double d, Sym& yo, Sym& dout) {
                             yo = Sym(y);
                             yo.deps.set(at(2 * k));
                             dout = Sym(d);
                             const int ds = k < b.baseSlots ? b.derSlot[at(k)] : -1;
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
    std::vector<std::vector<std::pair<int, int>>> out;
    auto add = [&](const Sym& x) {
        std::vector<std::pair<int, int>> row;
        for (std::size_t bit = 0; bit < 2 * b.slot.size(); ++bit)
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
    const int ns = static_cast<int>(b.slot.size());
    std::vector<std::tuple<int, int, double>> out;
    for (int c0 = 0; c0 < ns; c0 += kDirs) {
        Eq<Jet> eq = prepare(m_j, block, s,
                             [&](int k, double y, double d, Jet& yo, Jet& dout) {
                                 yo = k >= c0 && k < c0 + kDirs ? Jet::seed(y, k - c0) : Jet(y);
                                 dout = Jet(d);
                             },
                             [](double t) { return Jet(t); });
        blk.eval(eq);
        auto take = [&](int localRow, const Jet& g) {
            for (int j = 0; j < kDirs && c0 + j < ns; ++j)
                if (g.d[at(j)] != 0.0) out.emplace_back(localRow, b.slot[at(c0 + j)], g.d[at(j)]);
        };
        const int nv = static_cast<int>(m_j.res.size());
        for (int v = 0; v < nv; ++v) take(v, m_j.res[at(v)]);
        for (std::size_t p = 0; p < m_j.thr.size(); ++p) take(nv + static_cast<int>(p), m_j.thr[p]);
    }
    return out;
}

}  // namespace endstop::core::dae
