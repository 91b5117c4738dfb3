// SPDX-License-Identifier: GPL-3.0-or-later
// Typed handles a block keeps as members. Each is an index into the block's own descriptor lists.
#pragma once

namespace endstop::core {

struct Port {
    int index = -1;
    int conserving = -1;   // among the conserving ports, -1 for signals
    bool present = true;
    int var = -1;   // an output port: the own variable that carries its value
};
struct Param {
    int index = -1;
};
// The parameters that are not reals also name their place among the block's other values.
struct Choice {
    int index = -1;
    int value = -1;
};
struct VecParam {
    int index = -1;
    int value = -1;
};
struct TextParam {
    int index = -1;
    int value = -1;
};
struct Var {
    int index = -1;
};
struct Computed {
    int index = -1;
};
struct Discrete {
    int index = -1;
};

}   // namespace endstop::core
