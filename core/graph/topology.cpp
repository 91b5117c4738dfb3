// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/topology.hpp"

#include "core/model/flatten.hpp"

#include "core/errors.hpp"

#include <boost/pending/disjoint_sets.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>

namespace endstop::core::graph {

namespace {

Diagnostic error(std::string block, std::string port, std::string message, std::string hint = {}) {
    return Diagnostic{Severity::Error, std::move(block), std::move(port), {}, std::move(message), std::move(hint)};
}

// The blocks built so far, by specification (type, its version and the parameters as written). A
// block is immutable once built, and what it declares, computes and reports follows from its type
// and parameters alone (its name lives in the topology), so equal specifications share one object:
// a chain of 10,000 equal masses, springs, dampers and stops holds four blocks, not 40,000
// (docs/architecture.md, "Memory"). Values are compared to the bit. The specifications stay in the
// model, which outlives the build: nothing is copied.
class SharedBlocks {
public:
    struct Built {
        const Block* block = nullptr;
        Diagnostics diagnostics;   // validate()'s, named by the caller
    };

    explicit SharedBlocks(std::vector<std::unique_ptr<const Block>>& owner) : m_owner(owner) {}

    const Built& get(const Registry& registry, const model::BlockSpec& spec) {
        const std::size_t h = hash(spec);
        auto [first, last] = m_built.equal_range(h);
        for (auto it = first; it != last; ++it) {
            const model::BlockSpec& seen = *it->second.first;
            if (seen.type == spec.type && seen.typeVersion == spec.typeVersion && sameValues(seen.params, spec.params))
                return it->second.second;
        }
        Built b;
        std::unique_ptr<Block> made = registry.create(spec.type, model::currentParams(spec, registry));   // throws
        b.diagnostics = made->validate();
        b.block = made.get();
        m_owner.push_back(std::move(made));
        return m_built.emplace(h, std::make_pair(&spec, std::move(b)))->second.second;
    }

private:
    // Equal to the bit: -0 and 0 are two specifications (a block may read a sign), and so are two
    // NaNs of different bits.
    static bool sameBits(double a, double b) {
        return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
    }
    static bool sameValues(const ParamValues& a, const ParamValues& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
            if (x.first != y.first || x.second.index() != y.second.index()) return false;
            if (const double* d = std::get_if<double>(&x.second)) return sameBits(*d, std::get<double>(y.second));
            if (const auto* v = std::get_if<std::vector<double>>(&x.second)) {
                const auto& w = std::get<std::vector<double>>(y.second);
                return std::equal(v->begin(), v->end(), w.begin(), w.end(), sameBits);
            }
            return x.second == y.second;
        });
    }

    static std::size_t hash(const model::BlockSpec& spec) {
        std::size_t h = std::hash<std::string>{}(spec.type);
        const auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
        mix(static_cast<std::size_t>(spec.typeVersion));
        for (const auto& [name, value] : spec.params) {
            mix(std::hash<std::string>{}(name));
            mix(value.index());
            if (const double* d = std::get_if<double>(&value))
                mix(std::hash<std::uint64_t>{}(std::bit_cast<std::uint64_t>(*d)));
            else if (const auto* v = std::get_if<std::vector<double>>(&value))
                for (double x : *v) mix(std::hash<std::uint64_t>{}(std::bit_cast<std::uint64_t>(x)));
            else
                mix(std::hash<std::string>{}(std::get<std::string>(value)));
        }
        return h;
    }

    std::vector<std::unique_ptr<const Block>>& m_owner;
    std::unordered_multimap<std::size_t, std::pair<const model::BlockSpec*, Built>> m_built;
};

// Vertex numbering: one vertex per port of every block.
struct PortIndex {
    std::vector<int> first;   // per block: index of its first port vertex
    std::vector<PortAt> at;   // per vertex
};

PortIndex indexPorts(const std::vector<TopoBlock>& blocks) {
    PortIndex idx;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        idx.first.push_back(static_cast<int>(idx.at.size()));
        for (std::size_t p = 0; p < blocks[b].block->ports().size(); ++p)
            idx.at.push_back({static_cast<int>(b), static_cast<int>(p)});
    }
    return idx;
}

}   // namespace

std::string Topology::portName(PortAt p) const {
    const TopoBlock& b = blocks[static_cast<std::size_t>(p.block)];
    return b.name + "." + b.block->ports()[static_cast<std::size_t>(p.port)].name;
}

std::string Topology::describe(const Node& n) const {
    std::string s = "{";
    for (std::size_t i = 0; i < n.ports.size(); ++i) s += (i ? ", " : "") + portName(n.ports[i]);
    return s + "}";
}

int Topology::blockIndex(std::string_view name) const {
    for (std::size_t i = 0; i < blocks.size(); ++i)
        if (blocks[i].name == name) return static_cast<int>(i);
    return -1;
}

Topology buildTopology(const model::Model& model, const Registry& registry) {
    if (model.hierarchical()) return buildFlatTopology(model::flatten(model, registry), registry);
    return buildFlatTopology(model, registry);
}

Topology buildFlatTopology(const model::Model& model, const Registry& registry) {
    Topology topo;
    Diagnostics errors;

    topo.blocks.reserve(model.blocks().size());
    SharedBlocks shared(topo.owned);
    for (const model::BlockSpec& spec : model.blocks()) {
        TopoBlock tb;
        tb.name = spec.name;
        const SharedBlocks::Built* built = nullptr;
        try {
            built = &shared.get(registry, spec);
        } catch (const ModelError& e) {
            for (Diagnostic d : e.diagnostics()) {
                d.block = spec.name;
                errors.push_back(d);
            }
            continue;
        }
        tb.block = built->block;
        for (Diagnostic d : built->diagnostics) {
            d.block = spec.name;
            (d.severity == Severity::Error ? errors : topo.diagnostics).push_back(d);
        }
        topo.blocks.push_back(std::move(tb));
    }
    if (!errors.empty()) throw TopologyError(errors);
    std::size_t ports = 0;
    for (const TopoBlock& tb : topo.blocks) ports += tb.block->ports().size();
    topo.portNodes.assign(ports, -1);
    topo.sources.assign(ports, PortAt{});
    ports = 0;
    for (TopoBlock& tb : topo.blocks) {
        const std::size_t n = tb.block->ports().size();
        tb.m_portNode = topo.portNodes.data() + ports;
        tb.m_source = topo.sources.data() + ports;
        ports += n;
    }

    // Ports joined by a wire share a node: the connected components of the graph whose vertices
    // are the ports and whose edges are the connections, found by union-find over the vertices (an
    // adjacency list held 5 MB at 40,000 blocks only to be searched once)
    const PortIndex idx = indexPorts(topo.blocks);
    boost::disjoint_sets_with_storage<> joined(idx.at.size());
    auto vertexOf = [&](const model::PortRef& ref) -> int {
        const int b = model.indexOf(ref.block);   // every block was built: the topology's order is the model's
        if (b < 0) {
            errors.push_back(
                error(ref.block, ref.port, "connection names block '" + ref.block + "', which does not exist"));
            return -1;
        }
        const Block& blk = *topo.blocks[static_cast<std::size_t>(b)].block;
        const int p = blk.portIndex(ref.port);
        if (p < 0) {
            errors.push_back(error(ref.block, ref.port,
                                   "block type " + blk.info().typeId + " has no port '" + ref.port +
                                       "' (ports: " + BlockDescription::of(blk).portList() + ")"));
            return -1;
        }
        return idx.first[static_cast<std::size_t>(b)] + p;
    };
    for (const model::Connection& c : model.connections()) {
        const int va = vertexOf(c.a), vb = vertexOf(c.b);
        if (va < 0 || vb < 0) continue;
        const PortDesc& pa = topo.blocks[static_cast<std::size_t>(idx.at[static_cast<std::size_t>(va)].block)]
                                 .block->ports()[static_cast<std::size_t>(idx.at[static_cast<std::size_t>(va)].port)];
        const PortDesc& pb = topo.blocks[static_cast<std::size_t>(idx.at[static_cast<std::size_t>(vb)].block)]
                                 .block->ports()[static_cast<std::size_t>(idx.at[static_cast<std::size_t>(vb)].port)];
        if (!connectable(pa, pb)) {
            errors.push_back(
                error(c.a.block, c.a.port, differentDomains(c.a.toString(), pa.domain, c.b.toString(), pb.domain)));
            continue;
        }
        joined.union_set(static_cast<std::size_t>(va), static_cast<std::size_t>(vb));
    }

    // components numbered in the order of their first port, as a depth-first search over the
    // ports in order numbers them: the nodes, and so the unknowns, keep their order
    std::vector<int> componentOfRoot(idx.at.size(), -1);
    std::vector<std::vector<PortAt>> members;
    for (std::size_t v = 0; v < idx.at.size(); ++v) {
        int& c = componentOfRoot[joined.find_set(v)];
        if (c < 0) {
            c = static_cast<int>(members.size());
            members.emplace_back();
        }
        const PortAt p = idx.at[v];
        if (topo.blocks[static_cast<std::size_t>(p.block)].block->portPresent(p.port))
            members[static_cast<std::size_t>(c)].push_back(p);
    }

    for (const std::vector<PortAt>& net : members) {
        if (net.empty()) continue;
        auto desc = [&](PortAt p) -> const PortDesc& {
            return topo.blocks[static_cast<std::size_t>(p.block)].block->ports()[static_cast<std::size_t>(p.port)];
        };
        if (desc(net.front()).kind == PortKind::Conserving) {
            Node node;
            node.domain = desc(net.front()).domain;
            node.ports = net;
            for (PortAt p : net)
                node.grounded = node.grounded || topo.blocks[static_cast<std::size_t>(p.block)].block->grounds();
            const int n = static_cast<int>(topo.nodes.size());
            for (PortAt p : net)
                topo.blocks[static_cast<std::size_t>(p.block)].portNode()[static_cast<std::size_t>(p.port)] = n;
            if (net.size() == 1 && !node.grounded)
                topo.diagnostics.push_back({Severity::Info,
                                            topo.blocks[static_cast<std::size_t>(net[0].block)].name,
                                            desc(net[0]).name,
                                            {},
                                            std::string("port is not connected: it is a free end (zero ") +
                                                (node.domain == Domain::Rotational ? "torque" : "force") + ")",
                                            {}});
            topo.nodes.push_back(std::move(node));
            continue;
        }
        std::vector<PortAt> outputs, inputs;
        for (PortAt p : net) (desc(p).kind == PortKind::Output ? outputs : inputs).push_back(p);
        if (outputs.size() > 1) {
            for (std::size_t i = 1; i < outputs.size(); ++i)
                errors.push_back(
                    error(topo.blocks[static_cast<std::size_t>(outputs[i].block)].name, desc(outputs[i]).name,
                          "signal outputs " + topo.portName(outputs[0]) + " and " + topo.portName(outputs[i]) +
                              " are wired together: an input takes exactly one output"));
            continue;
        }
        for (PortAt in : inputs) {
            TopoBlock& tb = topo.blocks[static_cast<std::size_t>(in.block)];
            if (outputs.empty()) {
                if (!desc(in).optional)
                    errors.push_back(error(tb.name, desc(in).name, "input signal port has no source",
                                           "connect it to a signal output such as a constant or a sensor"));
                continue;
            }
            const PortAt out = outputs.front();
            tb.source()[static_cast<std::size_t>(in.port)] =
                PortAt{out.block, topo.blocks[static_cast<std::size_t>(out.block)].block->outputVar(out.port)};
        }
    }
    if (!errors.empty()) throw TopologyError(errors);
    topo.nodes.shrink_to_fit();   // kept for the whole run: without the growth's slack
    return topo;
}

}   // namespace endstop::core::graph
