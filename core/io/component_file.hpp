// SPDX-License-Identifier: GPL-3.0-or-later
// Component files (*.endstopc, JSON; docs/file-format.md, "Component files"): one subsystem
// definition kept in a library folder for reuse across projects, with every definition it uses.
//   { "format": "endstop-component", "formatVersion": 2, "generator": ..., "component": "Stage",
//     "subsystems": { "Stage": {...}, "Inner": {...} } }
// A definition is written exactly as a project writes it. A component carries no model
// parameters: its expressions may use only its own mask (and, inside, the masks of the instances
// around them); saving one that needs a model parameter is refused, naming it.
// Loading reads the definitions with the project reader's checks, so every error names the file,
// the JSON path and what was expected (FileFormatError). Saving is deterministic and atomic.
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/model/model.hpp"

#include <QByteArray>
#include <QString>

#include <string>
#include <string_view>
#include <vector>

namespace endstop::core::io {

inline constexpr const char* kComponentSuffix = ".endstopc";   // "Stage.endstopc"

struct Component {
    std::string name;                               // the definition the file holds
    std::vector<model::SubsystemDef> definitions;   // it and every definition it uses, leaves first
    const model::SubsystemDef* find(std::string_view defName) const;
};

// `defName` and the definitions it uses, recursively, leaves first. Throws ModelError for an
// unknown definition or a cycle.
std::vector<const model::SubsystemDef*> definitionsUsed(const model::Model& project, const std::string& defName);

QByteArray serializeComponent(const model::Model& project, const std::string& defName);   // throws ModelError
// Throws ModelError when the definition does not stand alone (it needs a model parameter).
void checkComponent(const model::Model& project, const std::string& defName, const Registry& registry);
// checkComponent, then writes through io::writeFile. Throws ModelError or IoError.
void saveComponent(const model::Model& project, const std::string& defName, const QString& path,
                   const Registry& registry);

Component parseComponent(const QByteArray& bytes, const QString& fileLabel, const Registry& registry);
Component loadComponent(const QString& path, const Registry& registry);   // throws FileFormatError

// One undo step that inserts an instance `instanceName` of the component at (x, y) into the
// project's top level (the editor wraps the AddBlock for a subsystem level). Each definition the
// project lacks is added; one the project already holds identically (under its name, or a fresh
// name an earlier insert gave it) is reused; one that differs from the project's definition of
// the same name is added under a fresh name ("Stage_2"), and the instance and the nested
// references follow it. Throws ModelError.
model::EditBatch insertComponent(const model::Model& project, const Component& component,
                                 const std::string& instanceName, double x, double y);

}   // namespace endstop::core::io
