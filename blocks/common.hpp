// SPDX-License-Identifier: GPL-3.0-or-later
// What the translational and rotational twins of a block share: units and variable names per
// domain (x/v/f/a become phi/w/t/alpha; keys stay the same; docs/blocks.md).
#pragma once

#include "core/blockapi/block.hpp"
#include "core/blockapi/registry.hpp"

#include <string>

namespace endstop::blocks {

using namespace endstop::ad;   // sin, exp, min, clamp, select, value, ... for equations
using core::Domain;

struct DomainNames {
    Domain domain;
    const char* prefix;        // "translational" / "rotational"
    const char* category;      // "Translational" / "Rotational"
    const char* position;      // unit symbols
    const char* velocity;
    const char* acceleration;
    const char* force;
    const char* stiffness;
    const char* damping;
    const char* x;             // variable names
    const char* v;
    const char* a;
    const char* f;
    const char* flow;          // "force" / "torque"
    const char* motion;        // "translational" / "rotational"
};

inline const DomainNames& names(Domain d) {
    static const DomainNames t{Domain::Translational, "translational", "Translational", "m", "m/s", "m/s^2", "N", "N/m",
                               "N*s/m", "x", "v", "a", "f", "force", "translational"};
    static const DomainNames r{Domain::Rotational, "rotational", "Rotational", "rad", "rad/s", "rad/s^2", "N*m", "N*m/rad",
                               "N*m*s/rad", "phi", "w", "alpha", "t", "torque", "rotational"};
    return d == Domain::Rotational ? r : t;
}

inline std::string typeId(Domain d, const char* name) { return std::string(names(d).prefix) + "." + name; }

}  // namespace endstop::blocks
