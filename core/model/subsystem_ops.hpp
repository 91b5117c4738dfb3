// SPDX-License-Identifier: GPL-3.0-or-later
// Editor operations on subsystems, each returned as one EditBatch (one undo step; the model's
// inverse of the batch restores the exact original Model):
//
// groupIntoSubsystem: the selected blocks move into a new definition `defName` (positions kept,
//   relative to the selection's centre) and one instance `instanceName` replaces them at that
//   centre. Every net that crosses the selection's border becomes one port, whatever the number of
//   wires on either side: a conserving net keeps its domain; a signal net whose source is outside
//   becomes port:signal_in, one whose source is inside port:signal_out. The flattened model is the
//   same network as before (blocks renamed "instance.block"; plots follow), so results do not change.
// expandInstance: the inverse. The definition's blocks come back into the level where the instance was
//   (in the body's order, so grouping then expanding gives the same order back), named as they
//   were unless a name is taken (then "instance_block"), wires through the ports rejoined, the
//   instance's mask values substituted into the inner expressions (a mask name becomes
//   "(value)"), per-instance overrides applied. The definition is removed if nothing else uses it.
// makeUnique: a copy of the instance's definition under a fresh name, the instance pointed at it.
//
// `level` is the model the selection lives in: the project's Model, or a definition's body when
// editing inside a subsystem; `top` is the project (definitions, model parameters). AddSubsystem and
// RemoveSubsystem edits in the batch are meant for `top`; all other edits for `level`
// (gui wraps them in InSubsystem when level is a body). Throws ModelError when the operation does
// not apply (empty selection, unknown instance).
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/model/model.hpp"

#include <string>
#include <vector>

namespace endstop::core::model {

EditBatch groupIntoSubsystem(const Model& level, const Registry& registry, const std::vector<std::string>& selection,
                             const std::string& defName, const std::string& instanceName, const Model* top = nullptr);
EditBatch expandInstance(const Model& level, const Registry& registry, const std::string& instance,
                         const Model* top = nullptr);
EditBatch makeUnique(const Model& level, const std::string& instance, const Model* top = nullptr);

// A definition name not used by `top`: "Subsystem1", "Subsystem2", ... for base "Subsystem"
std::string uniqueSubsystemName(const Model& top, const std::string& base);
// Replaces the parameter names in `expression` by "(replacement)", leaving unit suffixes after
// number literals alone ("2*k + 1 m" with k -> 3 N: "2*(3 N) + 1 m").
std::string substituteNames(const std::string& expression, const std::map<std::string, std::string>& by);

}   // namespace endstop::core::model
