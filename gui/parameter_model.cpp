// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/parameter_model.hpp"

#include "core/expr/rename.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"

#include <algorithm>
#include <stdexcept>

namespace endstop::gui {

namespace {

// The first diagnostic of a model error: "parameter k: ..." without the "(model parameters)" tail.
std::string messageOf(const core::ModelError& e) {
    std::string m = e.diagnostics().empty() ? std::string(e.what()) : e.diagnostics().front().message;
    const std::string tail = " (model parameters)";
    if (m.size() > tail.size() && m.compare(m.size() - tail.size(), tail.size(), tail) == 0)
        m.resize(m.size() - tail.size());
    return m;
}

std::string paramOf(const core::ModelError& e) {
    return e.diagnostics().empty() ? std::string() : e.diagnostics().front().param;
}

// Is `key` of `spec` (inside `model`, a body or the top level) a real parameter? Instances: a mask
// value, or a path into the definition ("spring.stiffness").
bool isReal(const core::model::Model& top, const core::Registry& registry, const core::model::BlockSpec& spec,
            const std::string& key, int depth = 0) {
    const std::string_view sub = core::model::subsystemOf(spec.type);
    if (sub.empty()) {
        if (!registry.find(spec.type) || key.find('.') != std::string::npos) return false;
        const core::BlockDescription block = registry.describe(spec.type);   // param() points into it
        const core::ParamDesc* d = block.param(key);
        return d && d->type == core::ParamType::Real;
    }
    const core::model::SubsystemDef* def = top.findSubsystem(sub);
    const auto dot = key.find('.');
    if (!def || dot == std::string::npos) return def != nullptr;   // a mask value is real
    const core::model::BlockSpec* child = def->body.find(key.substr(0, dot));
    return child && depth < 16 && isReal(top, registry, *child, key.substr(dot + 1), depth + 1);
}

// SetParameter edits for the blocks of `model` (top level or a body) whose real values use `from`.
void blockUses(const core::model::Model& top, const core::model::Model& model, const core::Registry& registry,
               const std::string& from, const std::string& to, std::vector<core::model::Edit>& out) {
    for (const core::model::BlockSpec& b : model.blocks())
        for (const auto& [key, value] : b.params) {
            const auto* text = std::get_if<std::string>(&value);
            if (!text || !core::expr::refersTo(*text, from) || !isReal(top, registry, b, key)) continue;
            out.emplace_back(core::model::SetParameter{b.name, key, core::expr::renameName(*text, from, to)});
        }
}

void parameterUses(const std::vector<core::model::ParameterDef>& defs, const std::string& from, const std::string& to,
                   std::vector<core::model::Edit>& out) {
    for (const core::model::ParameterDef& p : defs)
        if (p.name != from && core::expr::refersTo(p.value, from))
            out.emplace_back(core::model::SetModelParameter{p.name, core::expr::renameName(p.value, from, to)});
}

}   // namespace

std::vector<Resolution> resolveParameters(const core::model::Model& model) {
    const std::vector<core::model::ParameterDef>& defs = model.parameters();
    std::vector<Resolution> out(defs.size());
    for (std::size_t i = 0; i < defs.size(); ++i) {
        // this parameter first: its dependencies are evaluated on the way, then it
        std::vector<core::model::ParameterDef> order = defs;
        std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(i),
                    order.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        core::model::Scope scope;
        try {
            core::model::evaluateParameters(order, scope, "model parameters");
        } catch (const core::ModelError& e) {
            if (!scope.lookup(defs[i].name)) {
                const std::string at = paramOf(e);
                out[i].error =
                    at == defs[i].name || at.empty() ? messageOf(e) : "depends on '" + at + "', which has an error";
                continue;
            }
        }
        out[i].value = scope.lookup(defs[i].name);
    }
    return out;
}

void fillScope(const core::model::Model& model, core::model::Scope& scope) {
    const std::vector<Resolution> rs = resolveParameters(model);
    for (std::size_t i = 0; i < rs.size(); ++i)
        if (rs[i].value) scope.set(model.parameters()[i].name, *rs[i].value);
}

std::optional<std::string> expressionOf(const std::string& text, const core::ParamDesc& desc,
                                        const core::model::Model& model) {
    if (desc.type != core::ParamType::Real) return std::nullopt;
    try {
        const auto known = [&](std::string_view n) { return model.findParameter(n) != nullptr; };
        if (std::holds_alternative<std::string>(core::io::realText(text, desc, known))) return text;
    } catch (const std::exception&) {   // not an expression either: the quantity's error applies
    }
    return std::nullopt;
}

double evaluateField(const std::string& text, const core::ParamDesc& desc, const core::model::Model& model) {
    const std::vector<Resolution> rs = resolveParameters(model);
    core::model::Scope scope;
    for (std::size_t i = 0; i < rs.size(); ++i)
        if (rs[i].value) scope.set(model.parameters()[i].name, *rs[i].value);
    double si = 0.0;
    try {
        si = std::get<double>(core::model::resolveValue(text, desc, scope));
    } catch (const core::ModelError& e) {
        for (const std::string& n : core::expr::Expression::parse(text).names())
            for (std::size_t i = 0; i < rs.size(); ++i)
                if (model.parameters()[i].name == n && !rs[i].value)
                    throw std::runtime_error("parameter '" + n + "' does not resolve: " + rs[i].error);
        std::string m = messageOf(e);
        const std::string quoted = "\"" + text + "\": ";
        if (m.rfind(quoted, 0) == 0) m = m.substr(quoted.size());
        throw std::runtime_error(m);
    }
    if (const std::string e = desc.rangeError(si); !e.empty())
        throw std::runtime_error("= " + core::formatNumber(si) + ": " + e);
    return si;
}

std::vector<core::model::Edit> renameUses(const core::model::Model& model, const core::Registry& registry,
                                          const std::string& from, const std::string& to) {
    std::vector<core::model::Edit> out;
    parameterUses(model.parameters(), from, to, out);
    blockUses(model, model, registry, from, to, out);
    for (const core::model::SubsystemDef& def : model.subsystems()) {
        if (def.body.findParameter(from)) continue;   // the mask's own parameter shadows the model's
        std::vector<core::model::Edit> inner;
        parameterUses(def.body.parameters(), from, to, inner);
        blockUses(model, def.body, registry, from, to, inner);
        if (!inner.empty()) out.emplace_back(core::model::InSubsystem{def.name, std::move(inner)});
    }
    return out;
}

core::model::EditBatch renameParameter(const core::model::Model& model, const core::Registry& registry,
                                       const std::string& from, const std::string& to, bool withUses) {
    core::model::EditBatch batch{{}, "rename parameter"};
    const auto& defs = model.parameters();
    const auto it =
        std::find_if(defs.begin(), defs.end(), [&](const core::model::ParameterDef& p) { return p.name == from; });
    if (it == defs.end()) return batch;
    const int index = static_cast<int>(it - defs.begin());
    batch.edits.emplace_back(core::model::SetModelParameter{from, std::nullopt});
    batch.edits.emplace_back(core::model::SetModelParameter{to, it->value, index});
    if (withUses)
        for (core::model::Edit& e : renameUses(model, registry, from, to)) batch.edits.push_back(std::move(e));
    return batch;
}

}   // namespace endstop::gui
