// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/overrides.hpp"

#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "core/model/flatten.hpp"
#include "core/text/quote.hpp"

namespace endstop::core::io {

namespace {

std::string namesOf(const std::vector<ParamDesc>& params) {
    std::string keys;
    for (const ParamDesc& d : params) keys += (keys.empty() ? "" : ", ") + d.key;
    return keys.empty() ? "none" : keys;
}

const ParamDesc* findDesc(const std::vector<ParamDesc>& params, std::string_view key) {
    for (const ParamDesc& d : params)
        if (d.key == key) return &d;
    return nullptr;
}

ParamTarget modelParameter(const model::Model& model, std::string_view name) {
    if (!model.findParameter(name)) {
        std::string names;
        for (const model::ParameterDef& p : model.parameters()) names += (names.empty() ? "" : ", ") + p.name;
        throw ModelError(quoteText(name) + ": expected NAME.KEY (e.g. stop1.upper_bound) or a model parameter (" +
                         (names.empty() ? "this model has none" : "parameters: " + names) + ")");
    }
    model::Scope scope;
    ParamDesc d;
    d.key = d.label = std::string(name);
    try {
        model::evaluateParameters(model.parameters(), scope, "model parameters");
        d.unit = Unit::si(scope.lookup(name)->dim);
    } catch (const ModelError&) {   // flattening reports it; the value is then taken as written
    }
    return {{}, std::string(name), d};
}

// The descriptor of `rest` inside the block `spec` at `path`: a key of a block, a mask parameter of
// an instance, or a path into the instance.
ParamDesc describe(const model::Model& model, const Registry& registry, const model::BlockSpec& spec,
                   const std::string& path, std::string_view rest, std::string_view whole) {
    const std::string_view sub = model::subsystemOf(spec.type);
    if (sub.empty()) {
        const BlockDescription block =
            registry.describe(spec.type, model::currentParams(evaluable(spec, registry), registry));
        if (const ParamDesc* d = rest.find('.') == std::string_view::npos ? findDesc(block.params, rest) : nullptr)
            return *d;
        throw ModelError(quoteText(whole) + ": block '" + path + "' (" + spec.type + ") has no parameter " +
                         quoteText(rest) + " (parameters: " + namesOf(block.params) + ")");
    }
    const model::SubsystemDef* def = model.findSubsystem(sub);
    if (!def)
        throw ModelError(quoteText(whole) + ": block '" + path + "': unknown subsystem '" + std::string(sub) + "'");
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos) {
        const std::vector<ParamDesc> mask = model::subsystemParams(model, *def);
        if (const ParamDesc* d = findDesc(mask, rest)) return *d;
        throw ModelError(quoteText(whole) + ": block '" + path + "' (subsystem " + def->name + ") has no parameter " +
                         quoteText(rest) + " (parameters: " + namesOf(mask) + ")");
    }
    const std::string inner(rest.substr(0, dot));
    const model::BlockSpec* child = def->body.find(inner);
    if (!child || model::isPortType(child->type))
        throw ModelError(quoteText(whole) + ": subsystem " + def->name + " (block '" + path + "') has no block " +
                         quoteText(inner));
    return describe(model, registry, *child, path + "." + inner, rest.substr(dot + 1), whole);
}

}   // namespace

model::BlockSpec evaluable(const model::BlockSpec& spec, const Registry& registry) {
    model::BlockSpec out = spec;
    const BlockType* type = registry.find(spec.type);
    if (!type) return out;
    for (const ParamDesc& d : type->params)
        if (d.type == ParamType::Real && out.params.contains(d.key) &&
            std::holds_alternative<std::string>(out.params[d.key]))
            out.params.erase(d.key);
    return out;
}

ParamTarget findParameter(const model::Model& model, const Registry& registry, std::string_view name) {
    const auto dot = name.find('.');
    if (dot == std::string_view::npos && model::Model::validName(name)) return modelParameter(model, name);
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size())
        throw ModelError(quoteText(name) + ": expected NAME.KEY, e.g. stop1.upper_bound");
    const std::string block(name.substr(0, dot));
    const model::BlockSpec* spec = model.find(block);
    if (!spec || model::isPortType(spec->type))
        throw ModelError(quoteText(name) + ": no block named " + quoteText(block));
    const std::string key(name.substr(dot + 1));
    return {block, key, describe(model, registry, *spec, block, key, name)};
}

model::Edit setValue(const ParamTarget& target, const ParamValue& value) {
    if (!target.block.empty()) return model::SetParameter{target.block, target.key, value};
    std::string text = toString(value);
    if (const double* x = std::get_if<double>(&value); x && !target.desc.unit.dimension.dimensionless())
        text = formatNumber(*x) + " " + Unit::si(target.desc.unit.dimension).display();
    return model::SetModelParameter{target.key, text};
}

model::Edit setExpression(const ParamTarget& target, const std::string& text) {
    if (target.block.empty()) return model::SetModelParameter{target.key, text};
    return model::SetParameter{target.block, target.key, text};
}

model::Edit parseAssignment(const model::Model& model, const Registry& registry, std::string_view assignment) {
    const auto eq = assignment.find('=');
    if (eq == std::string_view::npos)
        throw ModelError(quoteText(assignment) + ": expected NAME.KEY=VALUE, e.g. stop1.upper_bound=5mm");
    const ParamTarget target = findParameter(model, registry, assignment.substr(0, eq));
    const std::string text(assignment.substr(eq + 1));
    ParamValue value;
    try {
        // an expression ("2*k_base") is kept as written and evaluated when the model is flattened
        const auto known = [&](std::string_view name) { return model.findParameter(name) != nullptr; };
        value = target.desc.type == ParamType::Real ? realText(text, target.desc, known)
                                                    : parseParameterText(text, target.desc);
        if (std::holds_alternative<std::string>(value) && target.desc.type == ParamType::Real)
            return setExpression(target, text);
    } catch (const FileFormatError& e) {
        throw ModelError(quoteText(assignment) + ": " + e.what());
    }
    if (const std::string error = target.desc.valueError(value); !error.empty())
        throw ModelError(quoteText(assignment) + ": " +
                         (target.block.empty() ? "parameter '" + target.key + "'"
                                               : "block '" + target.block + "', parameter '" + target.key + "'") +
                         ": " + error);
    return setValue(target, value);
}

}   // namespace endstop::core::io
