// SPDX-License-Identifier: GPL-3.0-or-later
// Model: the document. Blocks (name, type, SI parameters, ui), connections between ports,
// simulation settings and plots. It knows nothing of physics; Registry and the pipeline do.
// Every change is an Edit value; apply() returns the inverse edit, so undo is data.
#pragma once

#include "core/blockapi/descriptor.hpp"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace endstop::core {

struct PortRef {
    std::string block;
    std::string port;
    std::string toString() const { return block + "." + port; }
    static std::optional<PortRef> parse(std::string_view text);   // "mass1.M"
    bool operator==(const PortRef&) const = default;
    auto operator<=>(const PortRef&) const = default;
};

struct Connection {
    PortRef a, b;
    bool operator==(const Connection& o) const { return (a == o.a && b == o.b) || (a == o.b && b == o.a); }
};

struct BlockUi {
    double x = 0.0, y = 0.0;
    int rotation = 0;     // degrees, multiple of 90
    bool flipped = false;
    std::map<std::string, std::string> displayUnits;   // parameter key -> unit symbol
    bool operator==(const BlockUi&) const = default;
};

struct BlockSpec {
    std::string name;
    std::string type;
    int typeVersion = 1;
    ParamValues params;   // only what differs from / was set over the defaults; SI
    BlockUi ui;
    bool operator==(const BlockSpec&) const = default;
};

struct SimulationSettings {
    double stopTime = 1.0;
    double relativeTolerance = 1e-6;
    double absoluteTolerance = 1e-8;
    double maxStep = 0.0;          // 0: unlimited
    double outputInterval = 0.0;   // 0: every solver step
    std::string linearSolver = "auto";   // auto | dense | klu
    bool operator==(const SimulationSettings&) const = default;
};

struct PlotSpec {
    std::string title;
    std::vector<std::string> signals;   // "block.var"
    bool operator==(const PlotSpec&) const = default;
};

// ---- edits -----------------------------------------------------------------------------------
struct Edit;
struct AddBlock { BlockSpec block; int index = -1; };           // -1: append
struct RemoveBlock { std::string name; };                       // with its connections
struct Connect { Connection connection; int index = -1; };   // -1: append; undo puts it back in place
struct Disconnect { Connection connection; };
struct SetParameter { std::string block, key; std::optional<ParamValue> value; };   // nullopt: default
struct RenameBlock { std::string from, to; };                   // connections and plots follow
struct MoveBlock { std::string name; double x = 0.0, y = 0.0; };
struct SetBlockUi { std::string name; BlockUi ui; };
struct SetSimulation { SimulationSettings settings; };
struct SetPlots { std::vector<PlotSpec> plots; };
struct EditBatch { std::vector<Edit> edits; std::string label; };

struct Edit {
    using Value = std::variant<AddBlock, RemoveBlock, Connect, Disconnect, SetParameter, RenameBlock,
                               MoveBlock, SetBlockUi, SetSimulation, SetPlots, EditBatch>;
    Value value;
    template <class T> Edit(T v) : value(std::move(v)) {}   // NOLINT: edits are values
    // true for edits that change only layout (position, rotation, plots): no DAE rebuild
    bool cosmetic() const;
};

class Model {
public:
    const std::vector<BlockSpec>& blocks() const { return m_blocks; }
    const std::vector<Connection>& connections() const { return m_connections; }
    const SimulationSettings& simulation() const { return m_simulation; }
    const std::vector<PlotSpec>& plots() const { return m_plots; }

    const BlockSpec* find(std::string_view name) const;
    int indexOf(std::string_view name) const;
    std::vector<Connection> connectionsOf(std::string_view block) const;
    // a fresh valid name: base, base1, base2, ...
    std::string uniqueName(std::string_view base) const;
    static bool validName(std::string_view name);   // [A-Za-z_][A-Za-z0-9_]*

    // Applies the edit, returns its inverse. Throws ModelError (and changes nothing) if the edit
    // does not fit the model: duplicate or invalid name, unknown block, missing connection.
    Edit apply(const Edit& edit);

private:
    Edit applyOne(const Edit& edit);
    BlockSpec& get(std::string_view name);
    static std::string key(const Connection& c);   // order-independent
    void reindexConnections();

    std::vector<BlockSpec> m_blocks;
    std::vector<Connection> m_connections;
    // lookups stay O(1) for models of thousands of blocks
    mutable std::unordered_map<std::string, int> m_index;   // name -> position in m_blocks
    mutable bool m_indexStale = false;
    std::unordered_set<std::string> m_connectionKeys;
    SimulationSettings m_simulation;
    std::vector<PlotSpec> m_plots;
};

}  // namespace endstop::core
