// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dae/block_structure.hpp"

#include "core/dae/dae_system.hpp"
#include "core/dae/evaluator.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// structures of one type and layout compared with a new one before it is kept
constexpr std::size_t kAlike = 8;

std::string signature(const DaeSystem& s, int bi) {
    const Block& blk = *s.topo.blocks[at(bi)].block;
    const Binding& b = s.bindings[at(bi)];
    // the block itself: a topology builds one block per distinct type and parameters
    // (graph/topology.hpp), and blocks of different parameters may share their descriptors
    std::string sig = std::to_string(reinterpret_cast<std::uintptr_t>(&blk));
    sig += '|';
    for (int k : b.portSlot()) sig += std::to_string(k) + ',';
    sig += '|';
    for (int k : b.varSlot()) sig += std::to_string(k) + ',';
    sig += '|' + std::to_string(b.baseSlots) + '|' + std::to_string(b.portRow().size());
    for (int r : b.portRow()) sig += r < 0 ? '-' : '+';
    return sig;
}

void sortUnique(std::vector<std::pair<int, int>>& row) {
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
}

BlockStructure analyse(const DaeSystem& s, Evaluator& ev, int bi, Sampling& sampling) {
    const Block& blk = *s.topo.blocks[at(bi)].block;
    const Binding& b = s.bindings[at(bi)];
    BlockStructure st;
    int combinations = 1;
    for (std::size_t i = 0; i < blk.discretes().size(); ++i)
        if (blk.discretes()[i].modes > 0) {
            st.modeDiscretes.push_back(static_cast<int>(i));
            st.radix.push_back(blk.discretes()[i].modes);
            combinations *= blk.discretes()[i].modes;
        }
    std::vector<double>& disc = sampling.disc;
    const auto own = disc.begin() + b.discreteOffset;   // set per combination, restored after
    const std::vector<double> saved(own, own + static_cast<std::ptrdiff_t>(blk.discretes().size()));
    const std::size_t nv = b.ownRow().size();
    for (int c = 0; c < combinations; ++c) {
        for (std::size_t i = 0, rest = at(c); i < st.modeDiscretes.size(); ++i) {
            disc[at(b.discreteOffset + st.modeDiscretes[i])] = static_cast<double>(rest % at(st.radix[i]));
            rest /= at(st.radix[i]);
        }
        bool linear = false;
        LocalIncidence inc = ev.blockIncidence(bi, State{0.0, s.y0.data(), nullptr, disc.data()}, &linear);
        std::vector<char> force(nv, 0);
        for (std::size_t v = 0; v < nv; ++v) {
            const int self = b.varSlot()[v];
            if (std::any_of(inc[v].begin(), inc[v].end(), [&](const auto& e) { return e.first == self; })) continue;
            for (std::size_t p = 0; p < b.portRow().size(); ++p)
                if (b.portRow()[p] >= 0 && std::count(inc[nv + p].begin(), inc[nv + p].end(), std::pair{self, 0}))
                    force[v] = 1;
        }
        st.anyConstraintForce = st.anyConstraintForce || std::count(force.begin(), force.end(), 1) > 0;
        st.constraintForce.push_back(std::move(force));
        if (st.all.empty()) st.all.resize(inc.size());
        for (std::size_t r = 0; r < inc.size(); ++r) st.all[r].insert(st.all[r].end(), inc[r].begin(), inc[r].end());
        st.perMode.push_back(std::move(inc));
        st.linear.push_back(linear ? 1 : 0);
    }
    std::copy(saved.begin(), saved.end(), own);
    st.eventReads = analyseEventReads(s, ev, bi, sampling, st.eventRateReads);
    for (auto& row : st.all) sortUnique(row);
    auto derivatives = [](const LocalIncidence& inc) {
        std::vector<std::pair<int, int>> d;
        for (std::size_t r = 0; r < inc.size(); ++r)
            for (const auto& [k, o] : inc[r])
                if (o == 1) d.emplace_back(static_cast<int>(r), k);
        return d;
    };
    const auto first = derivatives(st.perMode.front());
    for (const LocalIncidence& inc : st.perMode)
        st.derivativesChange = st.derivativesChange || derivatives(inc) != first;
    return st;
}

// Rows of one block in global numbering: local row -> row, or -1.
int globalRow(const Binding& b, std::size_t localRow) {
    return localRow < b.ownRow().size() ? b.ownRow()[localRow] : b.portRow()[localRow - b.ownRow().size()];
}

// The unknowns whose y' a block's rows take in one mode combination: y' of a slot enters a row
// itself (order 1) or the row's derivative (order 0); dummy derivatives stand in for their own.
// Once per row that takes it.
template <class F> void forEachRateTaken(const Binding& b, const LocalIncidence& inc, F&& f) {
    const std::size_t nv = b.ownRow().size();
    for (std::size_t r = 0; r < inc.size(); ++r) {
        if (globalRow(b, r) < 0) continue;
        const bool differentiated = (r < nv ? b.ownDiff()[r] : b.portDiff()[r - nv]) >= 0;
        for (const auto& [k, o] : inc[r])
            if (b.derSlot()[at(k)] < 0 && (o == 1 || differentiated)) f(b.slot()[at(k)]);
    }
}

void addLocal(const DaeSystem& s, int bi, const LocalIncidence& inc, Incidence& out) {
    const Binding& b = s.bindings[at(bi)];
    for (std::size_t r = 0; r < inc.size(); ++r) {
        const int row = globalRow(b, r);
        if (row < 0) continue;
        for (const auto& [k, o] : inc[r]) out.rows[at(row)].emplace_back(b.slot()[at(k)], o);
    }
}

}   // namespace

int BlockStructure::combination(std::span<const double> discrete) const {
    int c = 0;
    for (std::size_t i = modeDiscretes.size(); i-- > 0;)
        c = c * radix[i] + static_cast<int>(discrete[at(modeDiscretes[i])]);
    return c;
}

bool BlockStructure::eventRead(const Binding& b, std::size_t k) const {
    if (k < eventReads.size()) return eventReads[k] != 0;
    const std::span<const int> der = b.derSlot();
    for (std::size_t j = 0; j < der.size(); ++j)
        if (der[j] == static_cast<int>(k)) return j >= eventRateReads.size() || eventRateReads[j] != 0;
    return true;
}

void analyseBlocks(DaeSystem& s) {
    Evaluator ev(s);
    Sampling sampling(s);
    std::map<std::string, std::pair<int, int>> known;   // signature -> (structure, row forms)
    std::map<std::string, std::vector<int>> alike;      // type and layout -> structures to compare with
    s.structureOf.assign(s.topo.blocks.size(), -1);
    s.rowFormsOf.assign(s.topo.blocks.size(), -1);
    for (std::size_t bi = 0; bi < s.topo.blocks.size(); ++bi) {
        const int b = static_cast<int>(bi);
        const std::string sig = signature(s, b);
        auto it = known.find(sig);
        if (it == known.end()) {
            BlockStructure st = analyse(s, ev, b, sampling);
            std::vector<int>& candidates = alike[s.topo.blocks[bi].block->info().typeId + sig.substr(sig.find('|'))];
            int found = -1;
            for (const int c : candidates)
                if (s.structures[at(c)] == st) found = c;
            if (found < 0) {
                found = static_cast<int>(s.structures.size());
                s.structures.push_back(std::move(st));
                if (candidates.size() < kAlike) candidates.push_back(found);
            }
            s.rowForms.push_back(analyseRowForms(s, ev, b, sampling));
            it = known.emplace(sig, std::pair{found, static_cast<int>(s.rowForms.size()) - 1}).first;
        }
        s.structureOf[bi] = it->second.first;
        s.rowFormsOf[bi] = it->second.second;
    }
}

Incidence currentIncidence(const DaeSystem& s, const double* discrete) {
    Incidence out;
    out.vars = s.size();
    out.rows.resize(s.rows.size());
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi) {
        const BlockStructure& st = s.structures[at(s.structureOf[bi])];
        const Binding& b = s.bindings[bi];
        const int c = st.combination({discrete + b.discreteOffset, static_cast<std::size_t>(b.discreteCount)});
        addLocal(s, static_cast<int>(bi), st.perMode[at(c)], out);
    }
    for (auto& row : out.rows) sortUnique(row);
    return out;
}

Incidence unionIncidence(const DaeSystem& s) {
    Incidence out;
    out.vars = s.size();
    out.rows.resize(s.rows.size());
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi)
        addLocal(s, static_cast<int>(bi), s.structures[at(s.structureOf[bi])].all, out);
    for (auto& row : out.rows) sortUnique(row);
    return out;
}

void differentialMask(const DaeSystem& s, const double* discrete, std::vector<double>& id) {
    id.assign(at(s.size()), 0.0);
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi) {
        const Binding& b = s.bindings[bi];
        const BlockStructure& st = s.structures[at(s.structureOf[bi])];
        const LocalIncidence& inc =
            st.perMode[at(st.combination({discrete + b.discreteOffset, static_cast<std::size_t>(b.discreteCount)}))];
        forEachRateTaken(b, inc, [&](int u) { id[at(u)] = 1.0; });
    }
}

DifferentialMask::DifferentialMask(const DaeSystem& sys)
    : m_s(sys), m_count(at(sys.size()), 0), m_combination(sys.bindings.size(), -1), m_id(at(sys.size()), 0.0) {
    for (std::size_t bi = 0; bi < sys.bindings.size(); ++bi) {
        if (sys.structures[at(sys.structureOf[bi])].modeDiscretes.empty())
            count(bi, 0, 1);   // once
        else
            m_moded.push_back(static_cast<int>(bi));
    }
}

const std::vector<double>& DifferentialMask::update(const double* discrete) { return update(discrete, m_moded); }

const std::vector<double>& DifferentialMask::update(const double* discrete, std::span<const int> changed) {
    for (const int block : changed) {
        const std::size_t bi = at(block);
        const Binding& b = m_s.bindings[bi];
        const BlockStructure& st = m_s.structures[at(m_s.structureOf[bi])];
        if (st.modeDiscretes.empty()) continue;   // counted once, in the constructor
        const int c = st.combination({discrete + b.discreteOffset, static_cast<std::size_t>(b.discreteCount)});
        if (c == m_combination[bi]) continue;
        if (m_combination[bi] >= 0) count(bi, m_combination[bi], -1);
        count(bi, c, 1);
        m_combination[bi] = c;
    }
    return m_id;
}

void DifferentialMask::count(std::size_t bi, int combination, int sign) {
    const Binding& b = m_s.bindings[bi];
    forEachRateTaken(b, m_s.structures[at(m_s.structureOf[bi])].perMode[at(combination)], [&](int u) {
        m_count[at(u)] += sign;
        m_id[at(u)] = m_count[at(u)] > 0 ? 1.0 : 0.0;
    });
}

std::vector<int> constraintForces(const DaeSystem& s, int bi, const double* discrete) {
    const BlockStructure& st = s.structures[at(s.structureOf[at(bi)])];
    std::vector<int> out;
    if (!st.anyConstraintForce) return out;
    const Binding& b = s.bindings[at(bi)];
    const auto& force = st.constraintForce[at(
        st.combination({discrete + b.discreteOffset, static_cast<std::size_t>(b.discreteCount)}))];
    for (std::size_t v = 0; v < force.size(); ++v)
        if (force[v]) out.push_back(static_cast<int>(v));
    return out;
}

}   // namespace endstop::core::dae
