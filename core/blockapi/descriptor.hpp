// SPDX-License-Identifier: GPL-3.0-or-later
// Descriptors: the one place a block's ports, parameters and variables are described. The dialog,
// tooltips, validation, the CLI's --set, `endstop-batch blocks` and the file loader all read these.
#pragma once

#include "core/units/unit.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace endstop::core {

enum class Domain { Translational, Rotational, Signal };
enum class PortKind { Conserving, Input, Output };

const char* toString(Domain d);

// A parameter value as stored in a model: SI number, SI vector, or a key (choice / text).
using ParamValue = std::variant<double, std::vector<double>, std::string>;
using ParamValues = std::map<std::string, ParamValue>;

std::string toString(const ParamValue& v);   // "0.1", "[0 0.01]", "smooth"
// Appends name and value to a key of parameters that tells every two sets apart: each part after
// its length, numbers as their bytes (a string holding ';' or '=' cannot pass for two parameters,
// and a spring table of 40,000 points costs a copy, not 40,000 numbers formatted as text)
void appendKey(std::string& key, std::string_view name, const ParamValue& v);

struct BlockInfo {
    std::string typeId;   // file format: never rename
    int typeVersion = 1;
    std::string title;      // "Translational Hard Stop"
    std::string category;   // "Translational", "Rotational", "Signals", ...
    std::string help;       // one paragraph; equations in the block's header comment
    bool operator==(const BlockInfo&) const = default;
};

struct Visibility {
    std::string param;                 // key of a choice parameter
    std::vector<std::string> values;   // visible when that parameter has one of these values
    bool operator==(const Visibility&) const = default;
};

struct PortDesc {
    std::string name;    // "R", "C", "S", "u1"
    std::string label;   // "Slider"
    PortKind kind = PortKind::Conserving;
    Domain domain = Domain::Translational;
    Unit unit;               // signals: the SI unit carried; conserving: the across unit
    bool optional = false;   // an input that reads 0 when left open
    std::optional<Visibility> visibleWhen;
    bool operator==(const PortDesc&) const = default;
};

enum class ParamType { Real, Vector, Choice, Text };

struct ChoiceOption {
    std::string key;     // file format
    std::string label;   // shown in the drop-down
    bool operator==(const ChoiceOption&) const = default;
};

struct ParamDesc {
    std::string key;
    std::string label;
    std::string group = "Parameters";
    std::string help;
    ParamType type = ParamType::Real;
    Unit unit;   // declared (display) unit; values are stored in SI
    ParamValue defaultValue = 0.0;
    std::vector<ChoiceOption> choices;
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool minExclusive = false;
    bool maxExclusive = false;
    std::optional<Visibility> visibleWhen;
    bool tunable = true;         // numeric and changes no structure
    bool anyDimension = false;   // signals: any unit is accepted and converted to SI

    // "" if `x` (SI) is inside the range, else the reason, e.g. "must be > 0"
    std::string rangeError(double x) const;
    // What is wrong with a value for this parameter: "must be a finite number", a range error,
    // or "every element ..." for a vector; empty if it is fine. Block validation, --set and --vary.
    std::string valueError(const ParamValue& v) const;
    bool operator==(const ParamDesc&) const = default;
};

enum class VarKind {
    State,       // a differential variable owned by the block (x' appears)
    Algebraic,   // owned, no derivative (constraint forces, outputs)
    Computed     // recorded only, computed from the solution by Block::record()
};

struct VarDesc {
    std::string name;   // "x", "f", "power"
    std::string label;
    Unit unit;
    VarKind kind = VarKind::Algebraic;
    bool recorded = false;
    bool quadrature = false;   // a running integral (energy): follows the solution, steers no step size
    bool constraintForce = false;   // a lock's holding force: out of IDA's tests (Block::VarBuilder)
    bool operator==(const VarDesc&) const = default;
};

// Its initial value is the block's own (Block::initialDiscrete): blocks that differ only there
// (stops whose initial contact follows their bounds) share one description.
struct DiscreteDesc {
    std::string name;   // "mode", "impacts"
    int modes = 0;   // > 0: equations branch on it and it takes the values 0..modes-1
    bool operator==(const DiscreteDesc&) const = default;
};

// Can a wire join two ports? Conserving ports of one domain, or two signal ports (an input and
// an output, or inputs sharing a net). Two outputs on one net are the topology's concern.
bool connectable(PortKind ka, Domain da, PortKind kb, Domain db);
inline bool connectable(const PortDesc& a, const PortDesc& b) {
    return connectable(a.kind, a.domain, b.kind, b.domain);
}
// "cannot connect m.R (translational) to j.R (rotational): different domains"
std::string differentDomains(std::string_view a, Domain da, std::string_view b, Domain db);

// The visibility rule: `rule` holds when its choice parameter (itself visible) has one of the
// rule's values. `valueOf(i)` is the current value of params[i], or nullptr if it has none yet.
template <class ValueOf>
bool isVisibleBy(const std::optional<Visibility>& rule, const std::vector<ParamDesc>& params, const ValueOf& valueOf) {
    if (!rule) return true;
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (params[i].key != rule->param) continue;
        if (!isVisibleBy(params[i].visibleWhen, params, valueOf)) return false;   // hidden by its own choice
        const ParamValue* v = valueOf(i);
        const auto* current = v ? std::get_if<std::string>(v) : nullptr;
        return current && std::find(rule->values.begin(), rule->values.end(), *current) != rule->values.end();
    }
    return false;
}

// The rule over values as a model holds them: a parameter absent (or not a key) takes its default.
bool isVisible(const std::optional<Visibility>& rule, const ParamValues& values, const std::vector<ParamDesc>& params);

}   // namespace endstop::core
