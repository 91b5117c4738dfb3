// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dae/dae_system.hpp"
#include "core/dae/evaluator.hpp"
#include "core/dae/structure.hpp"
#include "core/model/errors.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

const char* flowName(Domain d) { return d == Domain::Rotational ? "torque" : "force"; }

// Numbers unknowns and rows block by block and binds every block to its slots and rows.
void layOut(DaeSystem& s) {
    s.nodeUnknown.assign(s.topo.nodes.size(), -1);
    std::vector<int> nodeRow(s.topo.nodes.size(), -1);
    std::vector<std::vector<int>> ownUnknown(s.topo.blocks.size());
    for (std::size_t bi = 0; bi < s.topo.blocks.size(); ++bi) {
        const TopoBlock& tb = s.topo.blocks[bi];
        for (std::size_t p = 0; p < tb.portNode.size(); ++p) {
            const int n = tb.portNode[p];
            if (n < 0 || s.topo.nodes[at(n)].grounded || s.nodeUnknown[at(n)] >= 0) continue;
            s.nodeUnknown[at(n)] = s.size();
            nodeRow[at(n)] = static_cast<int>(s.rows.size());
            s.unknowns.push_back({Unknown::Kind::Node, -1, n});
            s.rows.push_back({Row::Kind::Node, -1, n});
        }
        for (std::size_t v = 0; v < tb.block->vars().size(); ++v) {
            ownUnknown[bi].push_back(s.size());
            s.unknowns.push_back({Unknown::Kind::Own, static_cast<int>(bi), static_cast<int>(v)});
            s.rows.push_back({Row::Kind::Own, static_cast<int>(bi), static_cast<int>(v)});
        }
    }
    int discrete = 0, events = 0;
    s.bindings.resize(s.topo.blocks.size());
    for (std::size_t bi = 0; bi < s.topo.blocks.size(); ++bi) {
        const TopoBlock& tb = s.topo.blocks[bi];
        const Block& blk = *tb.block;
        Binding& b = s.bindings[bi];
        auto slotOf = [&](int unknown) {
            const auto it = std::find(b.slot.begin(), b.slot.end(), unknown);
            if (it != b.slot.end()) return static_cast<int>(it - b.slot.begin());
            b.slot.push_back(unknown);
            return static_cast<int>(b.slot.size()) - 1;
        };
        b.portSlot.assign(blk.ports().size(), -1);
        for (std::size_t p = 0; p < blk.ports().size(); ++p) {
            const PortDesc& d = blk.ports()[p];
            const bool present = blk.portPresent(static_cast<int>(p));
            if (d.kind == PortKind::Conserving) {
                const int n = present ? tb.portNode[p] : -1;
                b.portRow.push_back(n >= 0 ? nodeRow[at(n)] : -1);
                if (n >= 0 && s.nodeUnknown[at(n)] >= 0) b.portSlot[p] = slotOf(s.nodeUnknown[at(n)]);
            } else if (present && d.kind == PortKind::Input && tb.source[p].block >= 0) {
                b.portSlot[p] = -2;   // resolved after all own unknowns exist
            }
        }
        for (std::size_t v = 0; v < blk.vars().size(); ++v) {
            b.varSlot.push_back(slotOf(ownUnknown[bi][v]));
            b.ownRow.push_back(ownUnknown[bi][v]);   // rows and unknowns are numbered alike
        }
        for (std::size_t p = 0; p < blk.ports().size(); ++p)
            if (b.portSlot[p] == -2) {
                const PortAt src = tb.source[p];
                b.portSlot[p] = slotOf(ownUnknown[at(src.block)][at(src.port)]);
            }
        b.baseSlots = static_cast<int>(b.slot.size());
        b.derSlot.assign(b.slot.size(), -1);
        b.ownDiff.assign(b.ownRow.size(), -1);
        b.portDiff.assign(b.portRow.size(), -1);
        b.block = &blk;
        b.discreteCount = static_cast<int>(blk.discretes().size());
        b.discreteOffset = discrete;
        discrete += b.discreteCount;
        b.eventOffset = events;
        events += blk.eventCount();
    }
    s.eventCount = events;
}

void initialValues(DaeSystem& s) {
    s.y0.assign(at(s.size()), 0.0);
    std::vector<double> momentum(s.topo.nodes.size(), 0.0), weight(s.topo.nodes.size(), 0.0);
    for (std::size_t bi = 0; bi < s.topo.blocks.size(); ++bi) {
        const TopoBlock& tb = s.topo.blocks[bi];
        const Binding& b = s.bindings[bi];
        for (std::size_t v = 0; v < b.varSlot.size(); ++v)
            s.y0[at(b.slot[at(b.varSlot[v])])] = tb.block->initialValue(static_cast<int>(v));
        for (const InitialAcross& w : tb.block->initialAcross()) {
            const int n = tb.portNode[at(w.port.index)];
            if (n < 0) continue;
            momentum[at(n)] += w.value * w.weight;
            weight[at(n)] += w.weight;
        }
    }
    for (std::size_t n = 0; n < s.topo.nodes.size(); ++n)
        if (s.nodeUnknown[n] >= 0 && weight[n] > 0) s.y0[at(s.nodeUnknown[n])] = momentum[n] / weight[n];
    for (std::size_t bi = 0; bi < s.topo.blocks.size(); ++bi)
        for (const DiscreteDesc& d : s.topo.blocks[bi].block->discretes()) s.discrete0.push_back(d.initial);
}

void initModes(DaeSystem& s) {
    Evaluator ev(s);
    std::vector<EventRecord> ignored;
    const State st{0.0, s.y0.data(), nullptr, s.discrete0.data()};
    for (std::size_t bi = 0; bi < s.topo.blocks.size(); ++bi) {
        const Block& blk = *s.topo.blocks[bi].block;
        if (blk.discretes().empty()) continue;
        ev.withEq(static_cast<int>(bi), st, [&](const Eq<double>& eq) {
            EventCtx ctx(eq, std::span<double>(s.discrete0.data() + s.bindings[bi].discreteOffset, blk.discretes().size()),
                         s.topo.blocks[bi].name, ignored);
            blk.initModes(ctx);
        });
    }
}

// A node whose motion nothing sets. An unconnected port there is a missing reference: the block
// applies a force with nothing to take it up (a force source whose C end is left free).
Diagnostic freeNodeDiagnostic(const DaeSystem& s, int u, const Node& n) {
    const std::string flow = flowName(n.domain);
    const std::string what = "under-determined: nothing sets the " + s.describeUnknown(u) + ": ";
    if (n.ports.size() == 1) {
        const std::string port = s.topo.portName(n.ports[0]);
        return {Severity::Error, s.blockOfUnknown(u), s.topo.blocks[at(n.ports[0].block)].block->ports()[at(n.ports[0].port)].name, {},
                what + "the port is not connected and only prescribed " + flow + "s act there, with no reference to take them up",
                "connect " + port + " to a Reference (ground) or to what it acts against"};
    }
    return {Severity::Error, s.blockOfUnknown(u), {}, {},
            what + "no mass, damper or constraint acts on it, only prescribed " + flow + "s",
            "add a mass or damper there, or connect it to a Reference (ground)"};
}

[[noreturn]] void reportSingular(const DaeSystem& s, const Singularity& sing) {
    Diagnostics under, over;
    std::set<int> freeNodes;
    for (int u : sing.vars) {
        const Unknown& k = s.unknowns[at(u)];
        if (k.kind != Unknown::Kind::Node) continue;   // a node without anything that sets its motion
        freeNodes.insert(k.index);
        under.push_back(freeNodeDiagnostic(s, u, s.topo.nodes[at(k.index)]));
    }
    // the balance of a free node is over-determined too, but that is the same missing reference:
    // "remove one of them" would be wrong advice
    const bool onlyFreeBalances = !freeNodes.empty() && std::all_of(sing.rows.begin(), sing.rows.end(), [&](int r) {
        const Row& row = s.rows[at(r)];
        return row.kind != Row::Kind::Node || freeNodes.count(row.index) > 0;
    });
    if (!sing.rows.empty() && !onlyFreeBalances) {
        // blocks whose rows touch mechanical unknowns are the ones to name; signal rows only tag along
        std::set<std::string> mech, all;
        std::string rows;
        for (int r : sing.rows) {
            const std::string b = s.blockOfRow(r);
            all.insert(b);
            const Row& row = s.rows[at(r)];
            const bool mechanical = row.kind == Row::Kind::Node ||
                                    (row.kind == Row::Kind::Own && s.topo.blocks[at(row.block)].block->conservingCount() > 0);
            if (mechanical) {
                mech.insert(b);
                rows += (rows.empty() ? "" : "; ") + s.describeRow(r);
            }
        }
        const std::set<std::string>& named = mech.empty() ? all : mech;
        std::string names;
        for (const std::string& b : named) names += (names.empty() ? "" : ", ") + b;
        over.push_back({Severity::Error, named.empty() ? "" : *named.begin(), {}, {},
                        "over-determined: " + names + " constrain the same motion" + (rows.empty() ? "" : " (" + rows + ")"),
                        "remove one of them, or put compliance (a spring) between them"});
    }
    const bool nodeUnder = !under.empty();   // a free node is the clearest thing to tell
    if (!nodeUnder)
        for (int u : sing.vars)
            under.push_back({Severity::Error, s.blockOfUnknown(u), {}, {}, "under-determined: nothing sets the " + s.describeUnknown(u), {}});
    Diagnostics out = nodeUnder || over.empty() ? under : over;
    const Diagnostics& rest = nodeUnder || over.empty() ? over : under;
    out.insert(out.end(), rest.begin(), rest.end());
    if (out.size() > 6) out.resize(6);
    throw TopologyError(out);
}

// Picks, for the rows Pantelides differentiates, the unknowns whose derivatives become dummies.
void chooseDummies(DaeSystem& s, const Reduction& red, const Incidence& original) {
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
        for (int r : b.ownRow) touches = touches || rowIndex.count(r);
        for (int r : b.portRow) touches = touches || (r >= 0 && rowIndex.count(r));
        if (!touches) continue;
        for (const auto& [localRow, u, value] : ev.blockGradient(static_cast<int>(bi), st)) {
            const std::size_t nv = b.ownRow.size();
            const int row = at(localRow) < nv ? b.ownRow[at(localRow)] : b.portRow[at(localRow) - nv];
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
    std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) { return origOrder[at(a)] < origOrder[at(b)]; });

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
        throw TopologyError(Diagnostics{{Severity::Error, s.blockOfRow(red.differentiated.front()), {}, {},
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
    for (Binding& b : s.bindings) {
        for (int k2 = 0; k2 < b.baseSlots; ++k2) {
            const int du = s.dummyOf[at(b.slot[at(k2)])];
            if (du < 0) continue;
            b.derSlot[at(k2)] = static_cast<int>(b.slot.size());
            b.slot.push_back(du);
        }
        for (std::size_t v = 0; v < b.ownRow.size(); ++v)
            if (auto it = diffRow.find(b.ownRow[v]); it != diffRow.end()) { b.ownDiff[v] = it->second; b.tangent = true; }
        for (std::size_t p = 0; p < b.portRow.size(); ++p)
            if (auto it = diffRow.find(b.portRow[p]); it != diffRow.end()) { b.portDiff[p] = it->second; b.tangent = true; }
    }
}

// Where y' of each unknown enters a row, for one block in one mode: unknown -> number of rows.
void derivativeUse(const DaeSystem& s, int bi, const LocalIncidence& inc, std::vector<std::pair<int, int>>& out) {
    const Binding& b = s.bindings[at(bi)];
    const std::size_t nv = b.ownRow.size();
    out.clear();
    for (std::size_t r = 0; r < inc.size(); ++r) {
        if ((r < nv ? b.ownRow[r] : b.portRow[r - nv]) < 0) continue;
        const bool differentiated = (r < nv ? b.ownDiff[r] : b.portDiff[r - nv]) >= 0;
        for (const auto& [k, o] : inc[r])
            if (b.derSlot[at(k)] < 0 && (o == 1 || differentiated)) out.emplace_back(b.slot[at(k)], 1);
    }
}

// The dummy derivatives are chosen once, so a node velocity is differential (continuous across
// events) or algebraic for good. A node without inertia next to a block whose modes make its
// velocity differential in some modes and algebraic in others (a contact at acceleration level on
// a massless node behind a spring) would let the wrong quantity jump at that block's events: the
// spring's deformation instead of the node's velocity, creating energy. Refused here. Only the
// switching block's own rows change with its modes, so each mode is checked against the count of
// rows using y' of the node in the initial modes.
void checkNodeContinuity(const DaeSystem& s) {
    std::vector<int> count(at(s.size()), 0);
    std::vector<std::pair<int, int>> use, initial;
    auto combinationOf = [&](std::size_t bi) {
        const BlockStructure& st = s.structures[at(s.structureOf[bi])];
        return st.combination({s.discrete0.data() + s.bindings[bi].discreteOffset, s.topo.blocks[bi].block->discretes().size()});
    };
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi) {
        derivativeUse(s, static_cast<int>(bi), s.structures[at(s.structureOf[bi])].perMode[at(combinationOf(bi))], use);
        for (const auto& [u, n] : use) count[at(u)] += n;
    }
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi) {
        const BlockStructure& st = s.structures[at(s.structureOf[bi])];
        if (!st.derivativesChange) continue;
        const TopoBlock& tb = s.topo.blocks[bi];
        derivativeUse(s, static_cast<int>(bi), st.perMode[at(combinationOf(bi))], initial);
        for (const LocalIncidence& mode : st.perMode) {
            derivativeUse(s, static_cast<int>(bi), mode, use);
            for (const int n : tb.portNode) {
                const int u = n >= 0 ? s.nodeUnknown[at(n)] : -1;
                if (u < 0) continue;
                int c = count[at(u)];
                for (const auto& [v, k] : initial) c -= v == u ? k : 0;
                for (const auto& [v, k] : use) c += v == u ? k : 0;
                if ((c > 0) == (count[at(u)] > 0)) continue;
                throw TopologyError(Diagnostics{{Severity::Error, tb.name, {}, {},
                                                 tb.name + " switches modes at node " + s.topo.describe(s.topo.nodes[at(n)]) +
                                                     ", which has no inertia of its own: its velocity cannot stay continuous across the events",
                                                 "put a mass (inertia) at that node"}});
            }
        }
    }
}

// Local rows in global numbering: own rows, port rows, then their derivatives.
int globalRow(const Binding& b, int lr) {
    const int nv = static_cast<int>(b.ownRow.size()), np = static_cast<int>(b.portRow.size());
    if (lr < nv) return b.ownRow[at(lr)];
    if (lr < nv + np) return b.portRow[at(lr - nv)];
    if (lr < 2 * nv + np) return b.ownDiff[at(lr - nv - np)];
    return b.portDiff[at(lr - 2 * nv - np)];
}

// Sparsity: the union over every mode (BlockStructure::all), with dummy derivatives and the
// rows' time derivatives.
void buildPattern(DaeSystem& s) {
    const int n = s.size();
    std::vector<std::vector<int>> colRows(at(n));
    std::vector<std::pair<int, int>> local;   // (local row, slot)
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi) {
        const Binding& b = s.bindings[bi];
        const LocalIncidence& inc = s.structures[at(s.structureOf[bi])].all;
        const int nv = static_cast<int>(b.ownRow.size()), np = static_cast<int>(b.portRow.size());
        local.clear();
        for (int lr = 0; lr < nv + np; ++lr) {
            const bool own = lr < nv;
            const int diffRow = own ? b.ownDiff[at(lr)] : b.portDiff[at(lr - nv)];
            const int dlr = own ? nv + np + lr : 2 * nv + np + (lr - nv);
            for (const auto& [k, o] : inc[at(lr)]) {
                const int ds = k < b.baseSlots ? b.derSlot[at(k)] : -1;
                local.emplace_back(lr, o == 1 && ds >= 0 ? ds : k);
                if (diffRow < 0) continue;
                local.emplace_back(dlr, k);
                local.emplace_back(dlr, ds >= 0 ? ds : k);
            }
        }
        for (const auto& [lr, k] : local) {
            const int row = globalRow(b, lr);
            if (row >= 0) colRows[at(b.slot[at(k)])].push_back(row);
        }
    }
    s.pattern = Pattern::fromColumns(colRows);
    for (Binding& b : s.bindings) {
        const int ns = static_cast<int>(b.slot.size());
        b.jac.assign(at(b.localRows() * ns), -1);
        for (int lr = 0; lr < b.localRows(); ++lr) {
            const int row = globalRow(b, lr);
            if (row < 0) continue;
            for (int k = 0; k < ns; ++k) b.jac[at(lr * ns + k)] = s.pattern.find(row, b.slot[at(k)]);
        }
    }
}

void findImpulsive(DaeSystem& s) {
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi)
        if (s.topo.blocks[bi].block->hasImpulseRows() || s.structures[at(s.structureOf[bi])].anyConstraintForce)
            s.impulsiveBlocks.push_back(static_cast<int>(bi));
}

void packHotPath(DaeSystem& s) {
    s.hot.clear();
    s.hotIndex.clear();
    s.eventBlocks.clear();
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi) {
        Binding& b = s.bindings[bi];
        b.direct = std::all_of(b.derSlot.begin(), b.derSlot.end(), [](int d) { return d < 0; });
        b.portUnknown.clear();
        for (int k : b.portSlot) b.portUnknown.push_back(k < 0 ? -1 : b.slot[at(k)]);
        b.varUnknown.clear();
        for (int k : b.varSlot) b.varUnknown.push_back(b.slot[at(k)]);
        HotBlock h;
        h.block = b.block;
        h.parameters = b.block->realsData();
        h.first = static_cast<int>(s.hotIndex.size());
        h.ports = static_cast<int>(b.portUnknown.size());
        h.vars = static_cast<int>(b.varUnknown.size());
        h.conserving = static_cast<int>(b.portRow.size());
        h.discreteOffset = b.discreteOffset;
        h.discreteCount = b.discreteCount;
        h.events = b.block->eventCount();
        h.eventOffset = b.eventOffset;
        h.direct = b.direct && !b.tangent;
        for (const std::vector<int>* v : {&b.portUnknown, &b.varUnknown, &b.ownRow, &b.portRow})
            s.hotIndex.insert(s.hotIndex.end(), v->begin(), v->end());
        if (h.events > 0) s.eventBlocks.push_back(static_cast<int>(bi));
        s.hot.push_back(h);
    }
}

}  // namespace

Pattern Pattern::fromColumns(std::vector<std::vector<int>>& colRows) {
    Pattern p;
    p.n = static_cast<int>(colRows.size());
    p.colPtr.assign(colRows.size() + 1, 0);
    for (std::size_t c = 0; c < colRows.size(); ++c) {
        auto& rows = colRows[c];
        std::sort(rows.begin(), rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
        p.rowIdx.insert(p.rowIdx.end(), rows.begin(), rows.end());
        p.colPtr[c + 1] = static_cast<int>(p.rowIdx.size());
    }
    return p;
}

int Pattern::find(int row, int col) const {
    const auto first = rowIdx.begin() + colPtr[at(col)], last = rowIdx.begin() + colPtr[at(col + 1)];
    const auto it = std::lower_bound(first, last, row);
    return it != last && *it == row ? static_cast<int>(it - rowIdx.begin()) : -1;
}

std::string DaeSystem::describeUnknown(int u) const {
    const Unknown& k = unknowns[at(u)];
    switch (k.kind) {
    case Unknown::Kind::Node: {
        const Node& n = topo.nodes[at(k.index)];
        return std::string(n.domain == Domain::Rotational ? "angular velocity" : "velocity") + " of node " + topo.describe(n);
    }
    case Unknown::Kind::Own: {
        const TopoBlock& b = topo.blocks[at(k.block)];
        return b.block->vars()[at(k.index)].name + " of " + b.name;
    }
    case Unknown::Kind::Dummy: return "derivative of the " + describeUnknown(k.index);
    }
    return "?";
}

std::string DaeSystem::describeRow(int r) const {
    const Row& row = rows[at(r)];
    switch (row.kind) {
    case Row::Kind::Node: {
        const Node& n = topo.nodes[at(row.index)];
        return std::string(flowName(n.domain)) + " balance at node " + topo.describe(n);
    }
    case Row::Kind::Own: {
        const TopoBlock& b = topo.blocks[at(row.block)];
        return "equation of " + b.name + " for " + b.block->vars()[at(row.index)].name;
    }
    case Row::Kind::Derivative: return "time derivative of the " + describeRow(row.index);
    }
    return "?";
}

std::string DaeSystem::blockOfUnknown(int u) const {
    const Unknown& k = unknowns[at(u)];
    if (k.kind == Unknown::Kind::Own) return topo.blocks[at(k.block)].name;
    if (k.kind == Unknown::Kind::Dummy) return blockOfUnknown(k.index);
    const Node& n = topo.nodes[at(k.index)];
    return n.ports.empty() ? std::string() : topo.blocks[at(n.ports.front().block)].name;
}

std::string DaeSystem::blockOfRow(int r) const {
    const Row& row = rows[at(r)];
    if (row.kind == Row::Kind::Own) return topo.blocks[at(row.block)].name;
    if (row.kind == Row::Kind::Derivative) return blockOfRow(row.index);
    const Node& n = topo.nodes[at(row.index)];
    return n.ports.empty() ? std::string() : topo.blocks[at(n.ports.front().block)].name;
}

DaeSystem assemble(Topology topo) {
    DaeSystem s;
    s.topo = std::move(topo);
    layOut(s);
    initialValues(s);
    initModes(s);
    s.dummyOf.assign(at(s.size()), -1);

    analyseBlocks(s);
    const Incidence inc = currentIncidence(s, s.discrete0.data());
    if (const auto sing = findSingularity(inc)) reportSingular(s, *sing);
    const Incidence all = unionIncidence(s);
    Reduction red;
    try {
        red = pantelides(all);
    } catch (const IndexTooHigh& e) {
        throw TopologyError(Diagnostics{{Severity::Error, s.blockOfRow(e.row()), {}, {},
                                         "solving the " + s.describeRow(e.row()) +
                                             " needs equations differentiated twice (index above 2)",
                                         "avoid feeding an acceleration back into a velocity constraint"}});
    }
    chooseDummies(s, red, all);
    buildPattern(s);
    packHotPath(s);
    checkNodeContinuity(s);
    findImpulsive(s);
    return s;
}

}  // namespace endstop::core::dae
