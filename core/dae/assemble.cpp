// SPDX-License-Identifier: GPL-3.0-or-later
// assemble(): a topology ⇒ the DaeSystem IDA solves (dae_system.hpp), in stages, each named by
// what it reads and what it produces. This file holds the driver and the stages that lay the
// system out; index reduction is in dummy_derivatives.cpp, sparsity in pattern.cpp, structural
// errors in describe.cpp (assemble_stages.hpp lists them all).
#include "core/dae/assemble_stages.hpp"
#include "core/dae/evaluator.hpp"
#include "core/errors.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// Appends an index array to the packed storage (sized beforehand); the bindings point into it
// once all of it is in.
void append(std::vector<int>& index, const std::vector<int>& v) { index.insert(index.end(), v.begin(), v.end()); }

}   // namespace

// topology ⇒ unknowns, rows and a draft binding per block. Numbers unknowns and rows block by
// block and binds every block to its slots and rows.
std::vector<BindingDraft> layOut(DaeSystem& s) {
    std::size_t nodes = 0, vars = 0;
    for (const graph::Node& n : s.topo.nodes) nodes += n.grounded ? 0 : 1;
    for (const graph::TopoBlock& tb : s.topo.blocks) vars += tb.block->vars().size();
    s.unknowns.reserve(nodes + vars);   // dummy derivatives may add some later
    s.rows.reserve(nodes + vars);
    s.nodeUnknown.assign(s.topo.nodes.size(), -1);
    std::vector<int> nodeRow(s.topo.nodes.size(), -1);
    std::vector<std::vector<int>> ownUnknown(s.topo.blocks.size());
    for (std::size_t bi = 0; bi < s.topo.blocks.size(); ++bi) {
        const graph::TopoBlock& tb = s.topo.blocks[bi];
        for (std::size_t p = 0; p < tb.portNode().size(); ++p) {
            const int n = tb.portNode()[p];
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
    std::vector<BindingDraft> drafts(s.topo.blocks.size());
    for (std::size_t bi = 0; bi < s.topo.blocks.size(); ++bi) {
        const graph::TopoBlock& tb = s.topo.blocks[bi];
        const Block& blk = *tb.block;
        BindingDraft& b = drafts[bi];
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
                const int n = present ? tb.portNode()[p] : -1;
                b.portRow.push_back(n >= 0 ? nodeRow[at(n)] : -1);
                if (n >= 0 && s.nodeUnknown[at(n)] >= 0) b.portSlot[p] = slotOf(s.nodeUnknown[at(n)]);
            } else if (present && d.kind == PortKind::Input && tb.source()[p].block >= 0) {
                b.portSlot[p] = -2;   // resolved after all own unknowns exist
            }
        }
        for (std::size_t v = 0; v < blk.vars().size(); ++v) {
            b.varSlot.push_back(slotOf(ownUnknown[bi][v]));
            b.ownRow.push_back(ownUnknown[bi][v]);   // rows and unknowns are numbered alike
        }
        for (std::size_t p = 0; p < blk.ports().size(); ++p)
            if (b.portSlot[p] == -2) {
                const graph::PortAt src = tb.source()[p];
                b.portSlot[p] = slotOf(ownUnknown[at(src.block)][at(src.port)]);
            }
        b.baseSlots = static_cast<int>(b.slot.size());
        b.derSlot.assign(b.slot.size(), -1);
        b.ownDiff.assign(b.ownRow.size(), -1);
        b.portDiff.assign(b.portRow.size(), -1);
        b.discreteCount = static_cast<int>(blk.discretes().size());
        b.discreteOffset = discrete;
        discrete += b.discreteCount;
        b.eventOffset = events;
        events += blk.eventCount();
    }
    s.eventCount = events;
    return drafts;
}

// drafts ⇒ the packed bindings (dae_system.hpp, Binding) and the blocks with event functions
void pack(DaeSystem& s, const std::vector<BindingDraft>& drafts) {
    const auto unknownAt = [](const BindingDraft& d, int k) { return k < 0 ? -1 : d.slot[at(k)]; };
    const auto allNone = [](const std::vector<int>& v) {
        return v.size() <= kNoDerivatives.size() && std::all_of(v.begin(), v.end(), [](int k) { return k == -1; });
    };
    // what Binding does not store: portRow where it is portUnknown's first entries, and a plain
    // block's derivative arrays
    std::vector<char> alike(drafts.size()), plain(drafts.size());
    std::size_t total = 0;
    for (std::size_t bi = 0; bi < drafts.size(); ++bi) {
        const BindingDraft& d = drafts[bi];
        for (std::size_t v = 0; v < d.varSlot.size(); ++v)
            if (v >= d.ownRow.size() || d.ownRow[v] != unknownAt(d, d.varSlot[v]))
                throw std::logic_error("pack: block " + s.topo.blocks[bi].name +
                                       "'s own rows are not numbered like its unknowns");
        bool same = d.portRow.size() <= d.portSlot.size();
        for (std::size_t c = 0; same && c < d.portRow.size(); ++c) same = d.portRow[c] == unknownAt(d, d.portSlot[c]);
        alike[bi] = same ? 1 : 0;
        plain[bi] = allNone(d.derSlot) && allNone(d.ownDiff) && allNone(d.portDiff) ? 1 : 0;
        total += 2 * d.portSlot.size() + 2 * d.varSlot.size() + (same ? 0 : d.portRow.size()) + d.slot.size() +
                 d.jac.size() + (plain[bi] != 0 ? 0 : d.derSlot.size() + d.ownDiff.size() + d.portDiff.size());
    }
    s.index.clear();
    s.index.reserve(total);
    s.bindings.assign(drafts.size(), Binding{});
    std::vector<std::size_t> hot(drafts.size()), cold(drafts.size());   // offsets into index
    // the residual's arrays first, for all blocks, so that a residual pass reads them in order
    for (std::size_t bi = 0; bi < drafts.size(); ++bi) {
        const BindingDraft& d = drafts[bi];
        Binding& b = s.bindings[bi];
        const auto count = [&](std::size_t k) {   // a block's own count, held in 16 bits (Binding)
            if (k > static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max()))
                throw std::logic_error("pack: block " + s.topo.blocks[bi].name + " has " + std::to_string(k) +
                                       " slots, ports, variables or discretes: at most 32767 each");
            return static_cast<std::int16_t>(k);
        };
        b.ports = count(d.portSlot.size());
        b.vars = count(d.varSlot.size());
        b.conserving = count(d.portRow.size());
        b.slots = count(d.slot.size());
        b.baseSlots = count(static_cast<std::size_t>(d.baseSlots));
        b.discreteCount = count(static_cast<std::size_t>(d.discreteCount));
        const auto events = static_cast<std::size_t>(std::max(0, s.topo.blocks[bi].block->eventCount()));
        if (events > Binding::kMaxEvents)
            throw std::logic_error("pack: block " + s.topo.blocks[bi].name + " has " + std::to_string(events) +
                                   " event functions: at most " + std::to_string(Binding::kMaxEvents));
        b.events = static_cast<unsigned>(events);
        b.mapped = !d.jac.empty();
        b.tangent = d.tangent;
        b.rowsAlike = alike[bi] != 0;
        b.plain = plain[bi] != 0;
        // the lengths Binding derives from these
        if (d.ownRow.size() != d.varSlot.size() || d.ownDiff.size() != d.varSlot.size() ||
            d.portDiff.size() != d.portRow.size() || d.derSlot.size() != static_cast<std::size_t>(d.baseSlots) ||
            (!d.jac.empty() && d.jac.size() != static_cast<std::size_t>(b.jacRows() * b.slots)))
            throw std::logic_error("pack: block " + s.topo.blocks[bi].name + "'s index arrays disagree in length");
        hot[bi] = s.index.size();
        for (const int k : d.portSlot) s.index.push_back(unknownAt(d, k));
        for (const int k : d.varSlot) s.index.push_back(unknownAt(d, k));
        if (!b.rowsAlike) append(s.index, d.portRow);
    }
    for (std::size_t bi = 0; bi < drafts.size(); ++bi) {
        const BindingDraft& d = drafts[bi];
        cold[bi] = s.index.size();
        for (const std::vector<int>* v : {&d.slot, &d.portSlot, &d.varSlot, &d.jac}) append(s.index, *v);
        if (plain[bi] == 0)
            for (const std::vector<int>* v : {&d.derSlot, &d.ownDiff, &d.portDiff}) append(s.index, *v);
    }
    s.eventBlocks.clear();
    for (std::size_t bi = 0; bi < drafts.size(); ++bi) {
        const BindingDraft& d = drafts[bi];
        Binding& b = s.bindings[bi];
        b.hot = s.index.data() + hot[bi];
        b.cold = s.index.data() + cold[bi];
        b.block = &*s.topo.blocks[bi].block;
        b.parameters = b.block->realsData();
        b.direct = std::all_of(d.derSlot.begin(), d.derSlot.end(), [](int k) { return k < 0; });
        b.tangent = d.tangent;
        b.discreteOffset = d.discreteOffset;
        b.eventOffset = d.eventOffset;
        if (b.events > 0) s.eventBlocks.push_back(static_cast<int>(bi));
    }
}

namespace {

// block descriptors ⇒ initial values of the unknowns and the discrete state
void initialValues(DaeSystem& s) {
    s.y0.assign(at(s.size()), 0.0);
    std::vector<double> momentum(s.topo.nodes.size(), 0.0), weight(s.topo.nodes.size(), 0.0);
    for (std::size_t bi = 0; bi < s.topo.blocks.size(); ++bi) {
        const graph::TopoBlock& tb = s.topo.blocks[bi];
        const Binding& b = s.bindings[bi];
        for (std::size_t v = 0; v < b.varSlot().size(); ++v)
            s.y0[at(b.slot()[at(b.varSlot()[v])])] = tb.block->initialValue(static_cast<int>(v));
        for (const InitialAcross& w : tb.block->initialAcross()) {
            const int n = tb.portNode()[at(w.port.index)];
            if (n < 0) continue;
            momentum[at(n)] += w.value * w.weight;
            weight[at(n)] += w.weight;
        }
    }
    for (std::size_t n = 0; n < s.topo.nodes.size(); ++n)
        if (s.nodeUnknown[n] >= 0 && weight[n] > 0) s.y0[at(s.nodeUnknown[n])] = momentum[n] / weight[n];
    std::size_t discretes = 0;
    for (const graph::TopoBlock& tb : s.topo.blocks) discretes += tb.block->discretes().size();
    s.discrete0.reserve(discretes);
    for (const graph::TopoBlock& tb : s.topo.blocks)
        for (std::size_t d = 0; d < tb.block->discretes().size(); ++d)
            s.discrete0.push_back(tb.block->initialDiscrete(static_cast<int>(d)));
}

// initial values ⇒ the blocks' initial modes (their initModes on the initial state)
void initModes(DaeSystem& s) {
    Evaluator ev(s);
    std::vector<EventRecord> ignored;
    const State st{0.0, s.y0.data(), nullptr, s.discrete0.data()};
    for (std::size_t bi = 0; bi < s.topo.blocks.size(); ++bi) {
        const Block& blk = *s.topo.blocks[bi].block;
        if (blk.discretes().empty()) continue;
        ev.withEq(static_cast<int>(bi), st, [&](const Eq<double>& eq) {
            EventCtx ctx(eq,
                         std::span<double>(s.discrete0.data() + s.bindings[bi].discreteOffset, blk.discretes().size()),
                         s.topo.blocks[bi].name, ignored);
            blk.initModes(ctx);
        });
    }
}

// block structures ⇒ the blocks whose constraint forces may carry impulses (projection.hpp): those
// with a constraint force in some mode, whatever their class can state (a hard stop with a
// stiffness law has impulse rows but never a constraint force, and the projection would only ask)
void findImpulsive(DaeSystem& s) {
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi)
        if (s.structures[at(s.structureOf[bi])].anyConstraintForce) s.impulsiveBlocks.push_back(static_cast<int>(bi));
}

}   // namespace

DaeSystem assemble(graph::Topology topo) {
    DaeSystem s;
    s.topo = std::move(topo);
    std::vector<BindingDraft> drafts = layOut(s);   // topology ⇒ unknowns, rows, bindings
    pack(s, drafts);
    initialValues(s);   // descriptors ⇒ y0, discrete0
    initModes(s);       // y0 ⇒ initial modes
    s.dummyOf.assign(at(s.size()), -1);

    analyseBlocks(s);   // bindings ⇒ block structures (block_structure.hpp)
    // Each incidence (a list per row) lives only as long as its stage: at 40,000 blocks each is
    // about 4 MB, and the pattern below is the assembly's largest moment.
    if (const auto sing = findSingularity(currentIncidence(s, s.discrete0.data())))
        reportSingular(s, *sing);   // structure ⇒ or a singularity
    {
        const Incidence all = unionIncidence(s);
        Reduction red;
        try {
            red = pantelides(all);   // structure ⇒ rows to differentiate
        } catch (const IndexTooHigh& e) {
            throw TopologyError(Diagnostics{
                {Severity::Error,
                 s.blockOfRow(e.row()),
                 {},
                 {},
                 "solving the " + s.describeRow(e.row()) + " needs equations differentiated twice (index above 2)",
                 "avoid feeding an acceleration back into a velocity constraint"}});
        }
        chooseDummies(s, drafts, red, all);   // differentiated rows ⇒ dummy derivatives
    }
    pack(s, drafts);
    buildPattern(s, drafts);   // structures and dummies ⇒ Jacobian pattern
    pack(s, drafts);
    checkNodeContinuity(s);
    findImpulsive(s);
    return s;
}

}   // namespace endstop::core::dae
