// SPDX-License-Identifier: GPL-3.0-or-later
// Index reduction's second half (dae_system.hpp): the rows Pantelides differentiates ⇒ dummy
// derivative unknowns and derivative rows; and the check that the choice, made once, holds in
// every mode of every block.
#include "core/dae/assemble_stages.hpp"
#include "core/dae/evaluator.hpp"
#include "core/errors.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// Where y' of each unknown enters a row, for one block in one mode: unknown -> number of rows.
void derivativeUse(const DaeSystem& s, int bi, const LocalIncidence& inc, std::vector<std::pair<int, int>>& out) {
    const Binding& b = s.bindings[at(bi)];
    const std::size_t nv = b.ownRow().size();
    out.clear();
    for (std::size_t r = 0; r < inc.size(); ++r) {
        if ((r < nv ? b.ownRow()[r] : b.portRow()[r - nv]) < 0) continue;
        const bool differentiated = (r < nv ? b.ownDiff()[r] : b.portDiff()[r - nv]) >= 0;
        for (const auto& [k, o] : inc[r])
            if (b.derSlot()[at(k)] < 0 && (o == 1 || differentiated)) out.emplace_back(b.slot()[at(k)], 1);
    }
}

}   // namespace

// differentiated rows ⇒ dummy derivatives. Picks, for the rows Pantelides differentiates, the
// unknowns whose derivatives become dummies (the gradient of the differentiated rows at y0 must
// have full rank in them), and gives every block a slot for each dummy it sees and a row for each
// of its rows differentiated.
void chooseDummies(DaeSystem& s, std::vector<BindingDraft>& drafts, const Reduction& red, const Incidence& original) {
    if (red.differentiated.empty()) {
        s.dummyOf.assign(at(s.size()), -1);
        return;
    }
    Evaluator ev(s);
    const State st{0.0, s.y0.data(), nullptr, s.discrete0.data()};
    std::map<int, int> rowIndex;   // original row -> position in D
    for (std::size_t i = 0; i < red.differentiated.size(); ++i) rowIndex[red.differentiated[i]] = static_cast<int>(i);
    const std::size_t k = red.differentiated.size();
    std::map<int, std::vector<double>> columns;   // unknown -> coefficients of u' in dE/dt
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi) {
        const Binding& b = s.bindings[bi];
        bool touches = false;
        for (int r : b.ownRow()) touches = touches || rowIndex.count(r);
        for (int r : b.portRow()) touches = touches || (r >= 0 && rowIndex.count(r));
        if (!touches) continue;
        for (const auto& [localRow, u, value] : ev.blockGradient(static_cast<int>(bi), st)) {
            const std::size_t nv = b.ownRow().size();
            const int row = at(localRow) < nv ? b.ownRow()[at(localRow)] : b.portRow()[at(localRow) - nv];
            const auto it = rowIndex.find(row);
            if (it == rowIndex.end() || red.order[at(u)] != 1) continue;
            auto& col = columns[u];
            col.resize(k, 0.0);
            col[at(it->second)] += value;
        }
    }
    std::vector<int> origOrder(at(s.size()), 0);
    for (const auto& row : original.rows)
        for (const auto& [u, o] : row) origOrder[at(u)] = std::max(origOrder[at(u)], o);
    std::vector<int> candidates;
    for (const auto& [u, col] : columns) candidates.push_back(u);
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](int a, int b) { return origOrder[at(a)] < origOrder[at(b)]; });

    std::vector<std::vector<double>> basis;   // orthonormal, modified Gram-Schmidt
    std::vector<int> chosen;
    for (int u : candidates) {
        std::vector<double> c = columns[u];
        double norm0 = 0.0;
        for (double x : c) norm0 += x * x;
        for (const auto& q : basis) {
            double dot = 0.0;
            for (std::size_t i = 0; i < k; ++i) dot += q[i] * c[i];
            for (std::size_t i = 0; i < k; ++i) c[i] -= dot * q[i];
        }
        double norm = 0.0;
        for (double x : c) norm += x * x;
        if (norm <= 1e-20 * norm0 || norm == 0.0) continue;
        for (double& x : c) x /= std::sqrt(norm);
        basis.push_back(std::move(c));
        chosen.push_back(u);
        if (chosen.size() == k) break;
    }
    if (chosen.size() < k) {
        std::string rows;
        for (int r : red.differentiated) rows += (rows.empty() ? "" : "; ") + s.describeRow(r);
        throw TopologyError(Diagnostics{{Severity::Error,
                                         s.blockOfRow(red.differentiated.front()),
                                         {},
                                         {},
                                         "the constraints " + rows + " are redundant (their Jacobian is singular)",
                                         "remove one of the rigid connections"}});
    }
    s.dummyOf.assign(at(s.size()), -1);
    for (int u : chosen) {
        s.dummyOf[at(u)] = s.size();
        s.unknowns.push_back({Unknown::Kind::Dummy, -1, u});
        s.dummyOf.push_back(-1);
        s.y0.push_back(0.0);
    }
    std::map<int, int> diffRow;
    for (int r : red.differentiated) {
        diffRow[r] = static_cast<int>(s.rows.size());
        s.rows.push_back({Row::Kind::Derivative, -1, r});
    }
    for (BindingDraft& b : drafts) {
        for (int k2 = 0; k2 < b.baseSlots; ++k2) {
            const int du = s.dummyOf[at(b.slot[at(k2)])];
            if (du < 0) continue;
            b.derSlot[at(k2)] = static_cast<int>(b.slot.size());
            b.slot.push_back(du);
        }
        for (std::size_t v = 0; v < b.ownRow.size(); ++v)
            if (auto it = diffRow.find(b.ownRow[v]); it != diffRow.end()) {
                b.ownDiff[v] = it->second;
                b.tangent = true;
            }
        for (std::size_t p = 0; p < b.portRow.size(); ++p)
            if (auto it = diffRow.find(b.portRow[p]); it != diffRow.end()) {
                b.portDiff[p] = it->second;
                b.tangent = true;
            }
    }
}

// dummies and modes ⇒ nothing, or a TopologyError. The dummy derivatives are chosen once, so a node
// velocity is differential (continuous across events) or algebraic for good. A node without inertia
// next to a block whose modes make its velocity differential in some modes and algebraic in others
// (a contact at acceleration level on a massless node behind a spring) would let the wrong quantity
// jump at that block's events: the spring's deformation instead of the node's velocity, creating
// energy. Refused here. Only the switching block's own rows change with its modes, so each mode is
// checked against the count of rows using y' of the node in the initial modes.
void checkNodeContinuity(const DaeSystem& s) {
    std::vector<int> count(at(s.size()), 0);
    std::vector<std::pair<int, int>> use, initial;
    auto combinationOf = [&](std::size_t bi) {
        const BlockStructure& st = s.structures[at(s.structureOf[bi])];
        return st.combination(
            {s.discrete0.data() + s.bindings[bi].discreteOffset, s.topo.blocks[bi].block->discretes().size()});
    };
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi) {
        derivativeUse(s, static_cast<int>(bi), s.structures[at(s.structureOf[bi])].perMode[at(combinationOf(bi))], use);
        for (const auto& [u, n] : use) count[at(u)] += n;
    }
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi) {
        const BlockStructure& st = s.structures[at(s.structureOf[bi])];
        if (!st.derivativesChange) continue;
        const graph::TopoBlock& tb = s.topo.blocks[bi];
        derivativeUse(s, static_cast<int>(bi), st.perMode[at(combinationOf(bi))], initial);
        for (const LocalIncidence& mode : st.perMode) {
            derivativeUse(s, static_cast<int>(bi), mode, use);
            for (const int n : tb.portNode()) {
                const int u = n >= 0 ? s.nodeUnknown[at(n)] : -1;
                if (u < 0) continue;
                int c = count[at(u)];
                for (const auto& [v, k] : initial) c -= v == u ? k : 0;
                for (const auto& [v, k] : use) c += v == u ? k : 0;
                if ((c > 0) == (count[at(u)] > 0)) continue;
                throw TopologyError(Diagnostics{
                    {Severity::Error,
                     tb.name,
                     {},
                     {},
                     tb.name + " switches modes at node " + s.topo.describe(s.topo.nodes[at(n)]) +
                         ", which has no inertia of its own: its velocity cannot stay continuous across the events",
                     "put a mass (inertia) at that node"}});
            }
        }
    }
}

}   // namespace endstop::core::dae
