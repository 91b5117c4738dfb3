// SPDX-License-Identifier: GPL-3.0-or-later
// The stages of assemble() (dae_system.hpp), shared by the files that implement them:
// assemble.cpp (layout, initial values, modes, packing), dummy_derivatives.cpp (index reduction's
// choice of dummies, mode continuity), pattern.cpp (sparsity) and describe.cpp (names for
// messages, structural errors). Internal to core/dae.
//
// The bindings every evaluation reads are packed views (Binding); the stages that change them
// work on a BindingDraft per block, with growable vectors, and pack the drafts again afterwards.
#pragma once

#include "core/dae/dae_system.hpp"
#include "core/dae/structure.hpp"

#include <vector>

namespace endstop::core::dae {

struct BindingDraft {
    std::vector<int> slot, derSlot, portSlot, varSlot, ownRow, portRow, ownDiff, portDiff, jac;
    int baseSlots = 0;
    bool tangent = false;
    int discreteOffset = 0, discreteCount = 0, eventOffset = 0;
};

// drafts ⇒ sys.bindings and sys.index (packed as Binding describes)
void pack(DaeSystem& s, const std::vector<BindingDraft>& drafts);

// topology ⇒ unknowns, rows and a draft binding per block
std::vector<BindingDraft> layOut(DaeSystem& s);

// a structurally singular incidence ⇒ TopologyError naming the blocks to change (never returns)
[[noreturn]] void reportSingular(const DaeSystem& s, const Singularity& sing);

// the rows Pantelides differentiates ⇒ dummy derivative unknowns, derivative rows, their slots
void chooseDummies(DaeSystem& s, std::vector<BindingDraft>& drafts, const Reduction& red, const Incidence& original);

// the dummies and every block's modes ⇒ TopologyError if a massless node's velocity would jump
void checkNodeContinuity(const DaeSystem& s);

// block structures and bindings ⇒ the Jacobian pattern and each draft's Jacobian map
void buildPattern(DaeSystem& s, std::vector<BindingDraft>& drafts);

}   // namespace endstop::core::dae
