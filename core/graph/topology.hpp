// SPDX-License-Identifier: GPL-3.0-or-later
// Topology: the model's blocks instantiated from the registry, and its wiring resolved. Conserving
// ports joined by connections form nodes (connected components, by Boost's union-find); signal
// ports form nets that must hold exactly one output. Every problem is a Diagnostic naming blocks and
// ports; errors are thrown as one TopologyError holding all of them.
#pragma once

#include "core/blockapi/block.hpp"
#include "core/blockapi/registry.hpp"
#include "core/model/model.hpp"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace endstop::core::graph {

struct PortAt {
    int block = -1;
    int port = -1;
};

struct Node {
    Domain domain = Domain::Translational;
    std::vector<PortAt> ports;
    bool grounded = false;   // a reference is attached: across value 0, no unknown
};

struct TopoBlock {
    std::string name;
    // Blocks are immutable once built, and the blocks of one type with equal parameters share one
    // object (buildFlatTopology), owned by Topology::owned: a chain of 10,000 equal masses holds one
    // mass.
    const Block* block = nullptr;
    // per port: node index for a conserving port, else -1
    std::span<int> portNode() const { return {m_portNode, block->ports().size()}; }
    // per port: for an input, the output it reads (block, output var)
    std::span<PortAt> source() const { return {m_source, block->ports().size()}; }
    // where those start in Topology::portNodes and ::sources (a view each with its own length
    // was 0.6 MB more at 40,000 blocks: the block knows how many ports it has)
    int* m_portNode = nullptr;
    PortAt* m_source = nullptr;
};

struct Topology {
    std::vector<TopoBlock> blocks;
    std::vector<std::unique_ptr<const Block>> owned;   // the distinct blocks (a move keeps them where they are)
    std::vector<Node> nodes;
    Diagnostics diagnostics;   // infos and warnings that did not stop the build
    // what the blocks' portNode and source view: two allocations, not two per block (2 MB at
    // 40,000 blocks). A move keeps the views valid; a topology is never copied.
    std::vector<int> portNodes;
    std::vector<PortAt> sources;

    std::string portName(PortAt p) const;        // "mass1.M"
    std::string describe(const Node& n) const;   // "{mass1.M, spring1.R}"
    int blockIndex(std::string_view name) const;
};

// Instantiates and validates every block (parameter ranges, cross-parameter rules) and resolves
// the wiring. Throws TopologyError with every error found. A model with parameters, expressions or
// subsystems is flattened first (core/model/flatten.hpp; ModelError if that fails): block names
// are then paths.
Topology buildTopology(const model::Model& model, const Registry& registry);
Topology buildFlatTopology(const model::Model& flat, const Registry& registry);

}   // namespace endstop::core::graph
