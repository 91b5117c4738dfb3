// SPDX-License-Identifier: GPL-3.0-or-later
// How a Block stores what it declares. Private to core/blockapi: block authors see only
// block.hpp. A block's descriptors live in a Shape shared by every block of the same type and
// parameters (built by the first, counted through by the others) and by every block of its type
// whose declarations came out equal; what differs between blocks of one shape lives in its
// Instance. The hot values (parameter values) are members of Block.
#pragma once

#include "core/blockapi/block.hpp"

#include <memory>
#include <string>
#include <vector>

namespace endstop::core {

struct Block::Shape {
    std::string key;   // type id and the given parameters of the block that declared it
    BlockInfo info;
    std::vector<ParamDesc> params;
    std::vector<PortDesc> ports;
    // per port: shown by its choice. Blocks given the same parameters have the same choices, so
    // this is the shape's too.
    std::vector<bool> portPresent;
    std::vector<int> outputVar;   // per port: the variable an output carries, -1 for the others
    int conserving = 0;
    std::vector<VarDesc> vars;
    std::vector<VarDesc> computed;
    std::vector<DiscreteDesc> discretes;
    std::vector<RecordedVar> recorded;
    bool grounds = false;
};

// Freed by publishShape(): a 40,000-block network kept 10 MB of given parameters otherwise.
struct Block::Construction {
    ParamValues given;
    int params = 0, ports = 0, vars = 0, computed = 0, discretes = 0, conserving = 0;   // declared so far
};

struct Block::Instance {
    std::unique_ptr<Construction> construction;   // null once published
    std::vector<double> initial;
    std::vector<double> initialDiscretes;   // per discrete
    std::vector<InitialAcross> initialAcross;
    Diagnostics buildErrors;
    mutable std::unique_ptr<ParamValues> values;   // values(), built on first use
};

}   // namespace endstop::core
