// SPDX-License-Identifier: GPL-3.0-or-later
// Migrations of whole project files from older formatVersions, one step per version, applied by
// io::parseProject before the reader sees the document (docs/file-format.md, "Versions").
//
// 1 -> 2: version 2 reads a string value of a real parameter as an expression. Version 1 read it
// as a number with a unit by the unit grammar alone, where "5 1/s" and "3 N m" are quantities; as
// expressions they are not. The step converts every such value to the SI number version 1 stored
// for it, keeps everything else, and stamps formatVersion 2 (no parameters, no subsystems).
#pragma once

#include "core/blockapi/registry.hpp"

#include <QJsonObject>

namespace endstop::core::io {

// One step: a document of formatVersion `from` to `from + 1`. Values the step cannot convert are
// left as they are, for the reader to report with their JSON path.
QJsonObject migrateFormat(QJsonObject root, int from, const Registry& registry);

}  // namespace endstop::core::io
