// SPDX-License-Identifier: GPL-3.0-or-later
// Parameter overrides as users type them: "stop1.upper_bound=5 mm" (the CLI's --set and --vary,
// the GUI's tuning panel). The value is parsed against the parameter's descriptor.
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/model/model.hpp"

#include <string>
#include <string_view>

namespace endstop::core::io {

struct ParamTarget {
    std::string block;
    std::string key;
    ParamDesc desc;
};

// "NAME.KEY" -> the block and parameter, checked against the model (ModelError naming what is
// wrong: no such block, no such parameter, with the valid keys).
ParamTarget findParameter(const Model& model, const Registry& registry, std::string_view nameDotKey);

// "NAME.KEY=VALUE" -> SetParameter; throws ModelError naming the part at fault, including a
// value outside the parameter's range.
SetParameter parseAssignment(const Model& model, const Registry& registry, std::string_view assignment);

}  // namespace endstop::core::io
