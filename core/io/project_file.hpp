// SPDX-License-Identifier: GPL-3.0-or-later
// Project files (*.endstop, JSON; docs/file-format.md). Loading checks everything it can without
// building the network: syntax (line and column), format and versions (newer refused, older
// migrated), block types, names, parameter keys, types and units, expressions, subsystems and each
// connection end (the port exists on that block as its parameters configure it; both ends of one
// domain). Every error names the file, the JSON path and what was expected. Saving writes SI
// numbers with round-trip precision and sorted keys, so saving twice gives identical bytes, through
// io::OutputFile (atomic; the previous file stays intact if anything fails).
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/model/model.hpp"

#include <QByteArray>
#include <QString>

#include <functional>
#include <string_view>

namespace endstop::core::io {

constexpr int kFormatVersion = 2;
inline constexpr const char* kGenerator = "endstop 0.1.0";

model::Model loadProject(const QString& path, const Registry& registry);   // throws FileFormatError
model::Model parseProject(const QByteArray& bytes, const QString& fileLabel, const Registry& registry);
QByteArray serializeProject(const model::Model& model);
void saveProject(const model::Model& model, const QString& path);   // throws IoError

// A parameter value from user text for parameter `key` of block type `type`: "10 mm", "0.5",
// "[0 0.01 0.02]", "[0 1 2] mm", a choice key. Throws FileFormatError with "what: reason".
ParamValue parseParameterText(const std::string& text, const ParamDesc& desc);
// A real parameter's value from user text: a quantity as parseParameterText reads it (an SI
// number), else an expression kept as written ("2*k_base"; evaluated when the model is flattened).
// The error is the quantity's for text that starts like a number or for a lone word that `known`
// does not name ("heavy"), the expression's otherwise.
ParamValue realText(const std::string& text, const ParamDesc& desc,
                    const std::function<bool(std::string_view)>& known = {});

}   // namespace endstop::core::io
