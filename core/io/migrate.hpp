// SPDX-License-Identifier: GPL-3.0-or-later
// Migrations of whole project files from older formatVersions to the current one, applied by
// io::parseProject before the reader sees the document (docs/file-format.md, "Versions"). There is
// one step so far; a new format version adds its step to migrateFormat().
//
// 1 -> 2: version 2 reads a string value of a real parameter as an expression. Version 1 read it
// as a number with a unit by the unit grammar alone, where "5 1/s" and "3 N m" are quantities; as
// expressions they are not. The step converts every such value to the SI number version 1 stored
// for it, keeps everything else, and stamps formatVersion 2 (no parameters, no subsystems).
#pragma once

#include "core/blockapi/registry.hpp"

#include <QJsonObject>

namespace endstop::core::io {

// A document of formatVersion `from` brought to the current version (kFormatVersion). Values a
// step cannot convert are left as they are, for the reader to report with their JSON path.
QJsonObject migrateFormat(QJsonObject root, int from, const Registry& registry);

}   // namespace endstop::core::io
