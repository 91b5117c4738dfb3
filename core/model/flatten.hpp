// SPDX-License-Identifier: GPL-3.0-or-later
// Named parameters, expressions and subsystems, resolved: the stage between a project's Model and
// the topology (docs/file-format.md, "Parameters and subsystems").
//
// Scope: inside a subsystem instance, the mask parameters of its definition (with the instance's
// values), then the scopes of the enclosing instances outwards, then the model's parameters.
// Parameters of one list are evaluated in dependency order; a cycle or an unknown name is an
// error naming the names.
//
// flatten(): every instance is replaced by its definition's blocks, named by path ("st1.spring"),
// every wire through a subsystem port is joined to what the port meets on the other side, and every
// expression is evaluated to an SI value checked against the parameter's dimension. An instance's
// parameters are its mask values ("k") and, for this instance only, values of blocks inside it by
// relative path ("spring.stiffness", "inner.k"): that is how --set reaches into a subsystem.
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/expr/expression.hpp"
#include "core/errors.hpp"
#include "core/model/model.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace endstop::core::model {

// A flattening error: its diagnostic names the block by path and the parameter; subsystem() is the
// definition at fault when the error is in one (a port not wired inside, recursion).
class HierarchyError : public ModelError {
public:
    HierarchyError(Diagnostic d, std::string subsystem)
        : ModelError(Diagnostics{std::move(d)}), m_subsystem(std::move(subsystem)) {}
    const std::string& subsystem() const { return m_subsystem; }

private:
    std::string m_subsystem;
};

// The values of named parameters visible at one level of the hierarchy.
class Scope {
public:
    explicit Scope(const Scope* outer = nullptr) : m_outer(outer) {}
    std::optional<expr::Value> lookup(std::string_view name) const;
    void set(const std::string& name, expr::Value v) { m_values[name] = v; }
    expr::Lookup lookupFunction() const {
        return [this](std::string_view n) { return lookup(n); };
    }

private:
    const Scope* m_outer;
    std::map<std::string, expr::Value, std::less<>> m_values;
};

// Evaluates `defs` in dependency order on top of `outer`. `given` replaces the value of a
// definition (an instance's mask values, already evaluated). Throws HierarchyError naming the
// parameter, the unknown names or the cycle, and `where` ("model parameters", "parameters of
// subsystem Stage"); the diagnostic's block is `block` (an instance's path; empty for the model).
void evaluateParameters(const std::vector<ParameterDef>& defs, Scope& into, const std::string& where,
                        const std::map<std::string, expr::Value>& given = {}, const std::string& block = {});

// A block parameter's value in a scope: an SI number stays, an expression is evaluated and checked
// against desc's dimension (an expression that is a bare number is SI, as a number is). Throws
// ModelError with "expected DIM, got DIM" or the expression's error.
ParamValue resolveValue(const ParamValue& value, const ParamDesc& desc, const Scope& scope);

// The flat model the pipeline simulates. Throws ModelError; each diagnostic's block is the path
// ("st1.spring", or "Stage" for a definition) and its message names the parameter or port.
Model flatten(const Model& model, const Registry& registry);

// The parameter values a model block holds, migrated to the registered typeVersion
// (Registry::migrated). ModelError naming the block for an unknown type or a newer version.
ParamValues currentParams(const BlockSpec& spec, const Registry& registry);

// A top-level block's parameters with expressions evaluated in the model's scope, for the editor
// (ports and shapes that follow parameters). An expression that does not evaluate is left out, so
// the block shows its default there; validation reports it.
ParamValues evaluatedParams(const Model& model, const BlockSpec& spec, const Registry& registry);

// What a subsystem instance offers: its ports as seen from outside (a signal_in port is an input)
// and its mask, one real parameter per definition parameter, with the unit of its default's
// dimension and the default expression as text.
enum class PortRole { Translational, Rotational, SignalIn, SignalOut };
std::optional<PortRole> portRole(std::string_view portType);   // "port:translational" -> Translational
std::string portType(PortRole role);
PortDesc outerPort(const BlockSpec& portBlock);   // seen by wires outside the instance
PortDesc innerPort(const BlockSpec& portBlock);   // seen by wires inside the body (named "")
std::vector<PortDesc> subsystemPorts(const SubsystemDef& def);
std::vector<ParamDesc> subsystemParams(const Model& model, const SubsystemDef& def);

}   // namespace endstop::core::model
