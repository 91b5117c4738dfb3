// SPDX-License-Identifier: GPL-3.0-or-later
// The JSON writers shared by project files and component files (docs/file-format.md): a block
// list, connections, a parameter list and a subsystem definition, exactly as a project stores
// them, and the position of a JSON syntax error. Deterministic: the same model gives the same JSON.
#pragma once

#include "core/model/model.hpp"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>

#include <utility>

namespace endstop::core::io {

// line and column (1-based, in characters) of a byte offset, for syntax errors
std::pair<int, int> lineColumn(const QByteArray& bytes, int offset);
// The top-level object of a JSON document; FileFormatError "FILE:LINE:COL: malformed JSON: ..." or
// "FILE: expected a JSON object at the top level".
QJsonObject parseJsonObject(const QByteArray& bytes, const QString& fileLabel);

QJsonValue toJson(const ParamValue& v);
QJsonObject uiJson(const model::BlockUi& u);
QJsonArray blocksJson(const model::Model& model);   // without port pseudo-blocks
QJsonArray connectionsJson(const model::Model& model);
QJsonArray parametersJson(const std::vector<model::ParameterDef>& params);
QJsonObject subsystemJson(const model::SubsystemDef& d);   // {"ports", "blocks", "connections"[, "parameters"]}

}   // namespace endstop::core::io
