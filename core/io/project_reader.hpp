// SPDX-License-Identifier: GPL-3.0-or-later
// The project file reader behind io::parseProject (docs/file-format.md). It reads a formatVersion 2
// document (older ones are migrated first, core/io/migrate.hpp): named parameters, subsystem
// definitions, blocks, connections and plots, checking every value where it stands so that an
// error names the file and the JSON path, then flattens the model once to check what only the
// whole hierarchy shows (scopes, recursion, ports wired inside).
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/io/project_outline.hpp"
#include "core/model/model.hpp"

#include <QJsonObject>
#include <QString>

namespace endstop::core::io {

model::Model readProject(const QJsonObject& root, const QString& fileLabel, const Registry& registry);
// An outlined file (project_outline.hpp): `skeleton` is the parsed skeleton, and the top-level
// blocks and connections are parsed from `text` (the file's text, or the file) a chunk at a time.
model::Model readProject(const QJsonObject& skeleton, const Outline& outline, const OutlinedText& text,
                         const QString& fileLabel, const Registry& registry);

}   // namespace endstop::core::io
