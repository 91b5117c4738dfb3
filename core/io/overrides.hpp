// SPDX-License-Identifier: GPL-3.0-or-later
// Parameter overrides as users type them (the CLI's --set and --vary, the Python module, the GUI's
// tuning panel). A target is
//   NAME            a model parameter                    k_base="2e4 N/m"
//   BLOCK.KEY       a block's parameter                  stop1.upper_bound=5 mm
//   INST.KEY        a subsystem instance's mask value    st1.k=2e4
//   INST.PATH.KEY   a parameter inside an instance       st1.spring.stiffness=3e4, st1.inner.k=...
// The value is parsed against the parameter's descriptor.
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/model/model.hpp"

#include <string>
#include <string_view>

namespace endstop::core::io {

struct ParamTarget {
    std::string block;   // the top-level block (or instance); empty for a model parameter
    std::string key;     // its key, a path inside an instance ("spring.stiffness"), or the model parameter's name
    ParamDesc desc;      // for a mask or model parameter: a real one in the SI unit of its value
    std::string text() const { return block.empty() ? key : block + "." + key; }
};

// The target a name denotes, checked against the model (ModelError naming what is wrong: no such
// block, parameter or model parameter, with the valid names).
ParamTarget findParameter(const model::Model& model, const Registry& registry, std::string_view name);

// The edit that gives the target a value (SI, as parseParameterText returns it).
model::Edit setValue(const ParamTarget& target, const ParamValue& value);
// The edit that gives a real target an expression ("2*k_base"), evaluated when the model is flattened.
model::Edit setExpression(const ParamTarget& target, const std::string& text);

// The block with its expressions left out (they take their defaults): what decides its ports and
// the shape of its parameters never depends on a number.
model::BlockSpec evaluable(const model::BlockSpec& spec, const Registry& registry);

// "NAME=VALUE" -> the edit; throws ModelError naming the part at fault, including a value outside
// the parameter's range.
model::Edit parseAssignment(const model::Model& model, const Registry& registry, std::string_view assignment);

}   // namespace endstop::core::io
