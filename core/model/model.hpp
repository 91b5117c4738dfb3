// SPDX-License-Identifier: GPL-3.0-or-later
// Model: the document. Blocks (name, type, parameters, ui), connections between ports, named
// parameters, subsystem definitions, simulation settings and plots. It knows nothing of physics;
// Registry and the pipeline do. Every change is an Edit value; apply() returns the inverse edit, so
// undo is data.
//
// A parameter value is an SI number, an SI vector, a key (choice, text) or, for a real parameter,
// an expression string ("2*k_base", "gap + 1 mm"; core/expr). A subsystem definition is a Model
// of its own (its body): its parameters are the mask, its ports are pseudo-blocks of type
// "port:translational", "port:rotational", "port:signal_in" or "port:signal_out" named by the port,
// and a connection to a port is PortRef{port name, ""}. An instance is a block of type
// "subsystem:NAME" whose parameters are the mask's values. core/model/flatten.hpp turns the
// hierarchy into the flat model the pipeline simulates (docs/file-format.md).
#pragma once

#include "core/blockapi/descriptor.hpp"
#include "core/model/solver_settings.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace endstop::core::model {

struct PortRef {
    std::string block;
    std::string port;
    std::string toString() const { return port.empty() ? block : block + "." + port; }
    // "mass1.M"; a flattened block's path has dots ("st1.spring.R"): the port follows the last one
    static std::optional<PortRef> parse(std::string_view text);
    bool operator==(const PortRef&) const = default;
    auto operator<=>(const PortRef&) const = default;
};

struct Connection {
    PortRef a, b;
    bool operator==(const Connection& o) const { return (a == o.a && b == o.b) || (a == o.b && b == o.a); }
};

struct BlockUi {
    double x = 0.0, y = 0.0;
    int rotation = 0;   // degrees, multiple of 90
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
    LinearSolver linearSolver = LinearSolver::Auto;
    bool reduce = true;   // the reduction stage (docs/engine.md, "Reduction"); off: the network as drawn
    bool operator==(const SimulationSettings&) const = default;
};

struct PlotSpec {
    std::string title;
    std::vector<std::string> signals;   // "block.var"
    bool operator==(const PlotSpec&) const = default;
};

// A named parameter: of the model, or of a subsystem (its mask). `value` is an expression.
struct ParameterDef {
    std::string name;
    std::string value;   // "1e4 N/m", "2*k_base"
    bool operator==(const ParameterDef&) const = default;
};

inline constexpr std::string_view kSubsystemPrefix = "subsystem:";   // instance type: "subsystem:Stage"
inline constexpr std::string_view kPortPrefix = "port:";             // port pseudo-block in a body
// "Stage" for "subsystem:Stage", empty for any other type
std::string_view subsystemOf(std::string_view type);
bool isPortType(std::string_view type);   // "port:translational", ...

struct SubsystemDef;

// ---- edits -----------------------------------------------------------------------------------
struct Edit;
struct AddBlock {
    BlockSpec block;
    int index = -1;
};   // -1: append
struct RemoveBlock {
    std::string name;
};   // with its connections
struct Connect {
    Connection connection;
    int index = -1;
};   // -1: append; undo puts it back in place
struct Disconnect {
    Connection connection;
};
struct SetParameter {
    std::string block, key;
    std::optional<ParamValue> value;
};   // nullopt: default
struct RenameBlock {
    std::string from, to;
};   // connections and plots follow
struct MoveBlock {
    std::string name;
    double x = 0.0, y = 0.0;
};
struct SetBlockUi {
    std::string name;
    BlockUi ui;
};
struct SetSimulation {
    SimulationSettings settings;
};
struct SetPlots {
    std::vector<PlotSpec> plots;
};
struct EditBatch {
    std::vector<Edit> edits;
    std::string label;
};
// A named parameter added (at index, -1: append), changed, or removed (value nullopt).
struct SetModelParameter {
    std::string name;
    std::optional<std::string> value;
    int index = -1;
};
struct AddSubsystem {
    std::shared_ptr<const SubsystemDef> def;
    int index = -1;
};   // -1: append
struct RemoveSubsystem {
    std::string name;
};   // refused while an instance uses it
struct InSubsystem {
    std::string name;
    std::vector<Edit> edit;
};   // one edit of a definition's body
struct SetBlockType {
    std::string name, type;
};   // "make unique": point an instance elsewhere

struct Edit {
    using Value = std::variant<AddBlock, RemoveBlock, Connect, Disconnect, SetParameter, RenameBlock, MoveBlock,
                               SetBlockUi, SetSimulation, SetPlots, EditBatch, SetModelParameter, AddSubsystem,
                               RemoveSubsystem, InSubsystem, SetBlockType>;
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
    const std::vector<ParameterDef>& parameters() const { return m_parameters; }
    const std::vector<SubsystemDef>& subsystems() const { return m_subsystems; }
    const ParameterDef* findParameter(std::string_view name) const;
    const SubsystemDef* findSubsystem(std::string_view name) const;
    // Parameters, subsystems or an expression anywhere: the pipeline must flatten first
    bool hierarchical() const;

    const BlockSpec* find(std::string_view name) const;
    int indexOf(std::string_view name) const;
    std::vector<Connection> connectionsOf(std::string_view block) const;
    // a fresh valid name: base, base1, base2, ...
    std::string uniqueName(std::string_view base) const;
    static bool validName(std::string_view name);   // [A-Za-z_][A-Za-z0-9_]*
    static bool validPath(std::string_view path);   // valid names joined by dots: "st1.spring"

    // Room for this many blocks and connections in all: a reader that knows the counts of a
    // 40,000-block file keeps its vectors from doubling on the way.
    void reserve(std::size_t blocks, std::size_t connections);

    // Applies the edit, returns its inverse. Throws ModelError (and changes nothing) if the edit
    // does not fit the model: duplicate or invalid name, unknown block, missing connection.
    Edit apply(const Edit& edit);
    Edit apply(Edit&& edit);   // the same; an added block is moved in, not copied

private:
    Edit applyOne(const Edit& edit);
    Edit addBlock(BlockSpec&& block, int index);
    Edit setModelParameter(const SetModelParameter& e);
    BlockSpec& get(std::string_view name);
    static std::string key(const Connection& c);   // order-independent
    void reindexConnections();

    std::vector<BlockSpec> m_blocks;
    std::vector<Connection> m_connections;
    // lookups stay O(1) for models of thousands of blocks, and take a string_view as it is
    struct NameHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    mutable std::unordered_map<std::string, int, NameHash, std::equal_to<>> m_index;   // name -> position in m_blocks
    mutable bool m_indexStale = false;
    std::unordered_set<std::string> m_connectionKeys;
    SimulationSettings m_simulation;
    std::vector<PlotSpec> m_plots;
    std::vector<ParameterDef> m_parameters;
    std::vector<SubsystemDef> m_subsystems;
};

// A subsystem definition: ports (pseudo-blocks in the body), mask parameters (body.parameters()),
// blocks and connections.
struct SubsystemDef {
    std::string name;
    Model body;
    std::vector<const BlockSpec*> ports() const;   // the port pseudo-blocks, in body order
};

// A definition as an edit (copied into the model)
AddSubsystem addSubsystem(SubsystemDef def, int index = -1);

}   // namespace endstop::core::model
