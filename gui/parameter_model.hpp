// SPDX-License-Identifier: GPL-3.0-or-later
// What the Parameters panel and the parameter fields compute from the core model (no Qt, no
// storage): each model parameter resolved on its own, so one broken row does not hide the others'
// values, and the edits that rename a parameter together with its uses.
//
// Uses of a model parameter `name`: the other model parameters, real parameters of top-level
// blocks, subsystem instances' values (mask values and inner paths), and inside every subsystem
// definition whose mask does not define `name` itself (a mask parameter of the same name shadows
// the model's): its mask defaults and its blocks' real values.
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/expr/expression.hpp"
#include "core/model/flatten.hpp"
#include "core/model/model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace endstop::gui {

struct Resolution {
    std::optional<core::expr::Value> value;   // nullopt: see error
    std::string error;                        // "unknown name 'x'", the cycle, the dimension clash
};

// One entry per model parameter, in order. A parameter whose own text is fine but that depends on
// a broken one says so ("depends on 'k', which has an error").
std::vector<Resolution> resolveParameters(const core::model::Model& model);

// The model's scope with every parameter that resolves (the broken ones are absent).
void fillScope(const core::model::Model& model, core::model::Scope& scope);

// A block field's text as an expression: the text if core::io::realText keeps it as one (not a
// plain quantity, not a lone word that names no model parameter), else nullopt.
std::optional<std::string> expressionOf(const std::string& text, const core::ParamDesc& desc,
                                        const core::model::Model& model);
// Its SI value in the model's scope, checked against desc's dimension and range; throws
// std::runtime_error with the reason ("unknown name 'kk'", "parameter 'k' does not resolve: ...").
double evaluateField(const std::string& text, const core::ParamDesc& desc, const core::model::Model& model);

// The edits that rewrite every use of `from` to `to` (none for renaming the parameter itself).
std::vector<core::model::Edit> renameUses(const core::model::Model& model, const core::Registry& registry,
                                          const std::string& from, const std::string& to);

// The parameter renamed in place (same index) and, if `withUses`, its uses: one batch.
core::model::EditBatch renameParameter(const core::model::Model& model, const core::Registry& registry,
                                       const std::string& from, const std::string& to, bool withUses);

}   // namespace endstop::gui
