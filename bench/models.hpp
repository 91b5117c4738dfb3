// SPDX-License-Identifier: GPL-3.0-or-later
// The benchmark models (a, b, c, d, e; bench/run.sh), built through the model's edits (the normal network builder).
#pragma once

#include "core/model/model.hpp"

#include <string>

namespace endstop::bench {

core::model::Model modelA();        // 1 kg between full_damped stops +-0.1 m, v0 = 1 m/s, 10 s
core::model::Model modelB(int n);   // n masses, springs + dampers, every mass in a stop, sine on the first, 1 s
// b with every mass, spring, damper and stop a little different (each real parameter of the i-th
// times 1 + 1e-3 i / n), as in a real model: no two blocks of the chain share an object
core::model::Model modelBVaried(int n);
core::model::Model modelC();        // mass on a spring, stiction to a belt at 0.1 m/s, 20 s
// a rotational gear train: 11 inertias, 10 gears each followed by a backlash stop of the given
// law (smooth, full_damped, ...), a sine torque on the first inertia, viscous losses, 2 s
core::model::Model modelD(const std::string& law);
// a 1 kg mass on a hardening spring, f = 1000 x + 4e5 x^3, released at 0.04 m, 1 s: as the
// polynomial (points = 0) or as a measured table of that many points on +-0.05 m, a segment
// (a mode, two live event functions) per breakpoint, 387,789 breakpoints crossed at 40,000;
// with through, the table's breakpoints are stepped through (no events)
core::model::Model modelE(int points, bool through = false);

}   // namespace endstop::bench
