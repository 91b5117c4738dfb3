// SPDX-License-Identifier: GPL-3.0-or-later
// Names of unknowns and rows for messages (DaeSystem::describe*), and the structural errors of
// assembly: a structurally singular system ⇒ a TopologyError that names the blocks to change.
#include "core/dae/assemble_stages.hpp"
#include "core/errors.hpp"

#include <algorithm>
#include <set>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

const char* flowName(Domain d) { return d == Domain::Rotational ? "torque" : "force"; }

// A node whose motion nothing sets. An unconnected port there is a missing reference: the block
// applies a force with nothing to take it up (a force source whose C end is left free).
Diagnostic freeNodeDiagnostic(const DaeSystem& s, int u, const graph::Node& n) {
    const std::string flow = flowName(n.domain);
    const std::string what = "under-determined: nothing sets the " + s.describeUnknown(u) + ": ";
    if (n.ports.size() == 1) {
        const std::string port = s.topo.portName(n.ports[0]);
        return {Severity::Error,
                s.blockOfUnknown(u),
                s.topo.blocks[at(n.ports[0].block)].block->ports()[at(n.ports[0].port)].name,
                {},
                what + "the port is not connected and only prescribed " + flow +
                    "s act there, with no reference to take them up",
                "connect " + port + " to a Reference (ground) or to what it acts against"};
    }
    return {Severity::Error,
            s.blockOfUnknown(u),
            {},
            {},
            what + "no mass, damper or constraint acts on it, only prescribed " + flow + "s",
            "add a mass or damper there, or connect it to a Reference (ground)"};
}

}   // namespace

// singularity ⇒ a TopologyError: free nodes first (a missing reference), else the blocks that
// over-determine a motion, at most six messages.
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
            const bool mechanical =
                row.kind == Row::Kind::Node ||
                (row.kind == Row::Kind::Own && s.topo.blocks[at(row.block)].block->conservingCount() > 0);
            if (mechanical) {
                mech.insert(b);
                rows += (rows.empty() ? "" : "; ") + s.describeRow(r);
            }
        }
        const std::set<std::string>& named = mech.empty() ? all : mech;
        std::string names;
        for (const std::string& b : named) names += (names.empty() ? "" : ", ") + b;
        over.push_back(
            {Severity::Error,
             named.empty() ? "" : *named.begin(),
             {},
             {},
             "over-determined: " + names + " constrain the same motion" + (rows.empty() ? "" : " (" + rows + ")"),
             "remove one of them, or put compliance (a spring) between them"});
    }
    const bool nodeUnder = !under.empty();   // a free node is the clearest thing to tell
    if (!nodeUnder)
        for (int u : sing.vars)
            under.push_back({Severity::Error,
                             s.blockOfUnknown(u),
                             {},
                             {},
                             "under-determined: nothing sets the " + s.describeUnknown(u),
                             {}});
    Diagnostics out = nodeUnder || over.empty() ? under : over;
    const Diagnostics& rest = nodeUnder || over.empty() ? over : under;
    out.insert(out.end(), rest.begin(), rest.end());
    if (out.size() > 6) out.resize(6);
    throw TopologyError(out);
}

std::string DaeSystem::describeUnknown(int u) const {
    const Unknown& k = unknowns[at(u)];
    switch (k.kind) {
        case Unknown::Kind::Node: {
            const graph::Node& n = topo.nodes[at(k.index)];
            return std::string(n.domain == Domain::Rotational ? "angular velocity" : "velocity") + " of node " +
                   topo.describe(n);
        }
        case Unknown::Kind::Own: {
            const graph::TopoBlock& b = topo.blocks[at(k.block)];
            return b.block->vars()[at(k.index)].name + " of " + b.name;
        }
        case Unknown::Kind::Dummy:
            return "derivative of the " + describeUnknown(k.index);
    }
    return "?";
}

std::string DaeSystem::describeRow(int r) const {
    const Row& row = rows[at(r)];
    switch (row.kind) {
        case Row::Kind::Node: {
            const graph::Node& n = topo.nodes[at(row.index)];
            return std::string(flowName(n.domain)) + " balance at node " + topo.describe(n);
        }
        case Row::Kind::Own: {
            const graph::TopoBlock& b = topo.blocks[at(row.block)];
            return "equation of " + b.name + " for " + b.block->vars()[at(row.index)].name;
        }
        case Row::Kind::Derivative:
            return "time derivative of the " + describeRow(row.index);
    }
    return "?";
}

std::string DaeSystem::blockOfUnknown(int u) const {
    const Unknown& k = unknowns[at(u)];
    if (k.kind == Unknown::Kind::Own) return topo.blocks[at(k.block)].name;
    if (k.kind == Unknown::Kind::Dummy) return blockOfUnknown(k.index);
    const graph::Node& n = topo.nodes[at(k.index)];
    return n.ports.empty() ? std::string() : topo.blocks[at(n.ports.front().block)].name;
}

std::string DaeSystem::blockOfRow(int r) const {
    const Row& row = rows[at(r)];
    if (row.kind == Row::Kind::Own) return topo.blocks[at(row.block)].name;
    if (row.kind == Row::Kind::Derivative) return blockOfRow(row.index);
    const graph::Node& n = topo.nodes[at(row.index)];
    return n.ports.empty() ? std::string() : topo.blocks[at(n.ports.front().block)].name;
}

}   // namespace endstop::core::dae
