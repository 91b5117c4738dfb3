// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/overrides.hpp"

#include "core/graph/topology.hpp"
#include "core/io/project_file.hpp"
#include "core/model/errors.hpp"
#include "core/text/quote.hpp"

namespace endstop::core::io {

ParamTarget findParameter(const Model& model, const Registry& registry, std::string_view nameDotKey) {
    const auto dot = nameDotKey.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == nameDotKey.size())
        throw ModelError(quoteText(nameDotKey) + ": expected NAME.KEY, e.g. stop1.upper_bound");
    const std::string name(nameDotKey.substr(0, dot)), key(nameDotKey.substr(dot + 1));
    const BlockSpec* spec = model.find(name);
    if (!spec) throw ModelError(quoteText(nameDotKey) + ": no block named " + quoteText(name));
    const std::unique_ptr<Block> block = registry.create(spec->type, currentParams(*spec, registry));
    std::string keys;
    for (const ParamDesc& d : block->params()) {
        if (d.key == key) return {name, key, d};
        keys += (keys.empty() ? "" : ", ") + d.key;
    }
    throw ModelError(quoteText(nameDotKey) + ": block '" + name + "' (" + spec->type + ") has no parameter " + quoteText(key) +
                     " (parameters: " + keys + ")");
}

SetParameter parseAssignment(const Model& model, const Registry& registry, std::string_view assignment) {
    const auto eq = assignment.find('=');
    if (eq == std::string_view::npos)
        throw ModelError(quoteText(assignment) + ": expected NAME.KEY=VALUE, e.g. stop1.upper_bound=5mm");
    const ParamTarget target = findParameter(model, registry, assignment.substr(0, eq));
    ParamValue value;
    try {
        value = parseParameterText(std::string(assignment.substr(eq + 1)), target.desc);
    } catch (const FileFormatError& e) {
        throw ModelError(quoteText(assignment) + ": " + e.what());
    }
    if (const std::string error = target.desc.valueError(value); !error.empty())
        throw ModelError(quoteText(assignment) + ": block '" + target.block + "', parameter '" + target.key + "': " + error);
    return SetParameter{target.block, target.key, value};
}


}  // namespace endstop::core::io
