// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace endstop::gui {

// Registers the icons and examples compiled into this static library (resources/endstop.qrc).
// Idempotent; called by everything that reads ":/icons" or ":/examples".
void initResources();

}   // namespace endstop::gui
