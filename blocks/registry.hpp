// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/blockapi/registry.hpp"

namespace endstop::blocks {

// Every block Endstop ships, registered once (thread-safe static).
const core::Registry& registry();

}   // namespace endstop::blocks
