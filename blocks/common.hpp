// SPDX-License-Identifier: GPL-3.0-or-later
// What the translational and rotational twins of a block share: units and variable names per
// domain (x/v/f/a become phi/w/t/alpha; keys stay the same; docs/blocks.md). A twin class is
// constructed as B(params, domain) and registered once per domain with Registry::addTwins<B>().
#pragma once

#include "core/blockapi/block.hpp"
#include "core/blockapi/registry.hpp"

#include <string>

namespace endstop::blocks {

using namespace endstop::core::ad;   // sin, exp, min, clamp, select, value, ... for equations
using core::Domain;

struct DomainNames {
    const char* prefix;     // "translational" / "rotational"
    const char* category;   // "Translational" / "Rotational"
    const char* position;   // unit symbols
    const char* velocity;
    const char* acceleration;
    const char* force;
    const char* stiffness;
    const char* damping;
    const char* x;   // variable names
    const char* v;
    const char* a;
    const char* f;
    const char* flow;   // "force" / "torque"
};

inline const DomainNames& names(Domain d) {
    static const DomainNames t{
        "translational", "Translational", "m", "m/s", "m/s^2", "N", "N/m", "N*s/m", "x", "v", "a", "f", "force"};
    static const DomainNames r{"rotational", "Rotational", "rad", "rad/s", "rad/s^2", "N*m",   "N*m/rad",
                               "N*m*s/rad",  "phi",        "w",   "alpha", "t",       "torque"};
    return d == Domain::Rotational ? r : t;
}

inline std::string typeId(Domain d, const char* name) { return std::string(names(d).prefix) + "." + name; }

}   // namespace endstop::blocks
