// SPDX-License-Identifier: GPL-3.0-or-later
// Models for tst_reduce (kept out of the Q_OBJECT file: moc does not read raw strings).
#pragma once

#include <string>

namespace {

// A mass starting at x0 = 0.3 m on a spring to ground that starts deformed by 0.3 m: both the
// spring's deformation and its position are integrals of the one velocity, with offsets.
const char* kOscillator = R"({"blocks":[
    {"name":"m","type":"translational.mass","parameters":{"mass":2,"initial_position":0.3}},
    {"name":"s","type":"translational.spring","parameters":{"stiffness":50,"initial_deformation":0.3}},
    {"name":"g","type":"translational.reference"}],
    "connections":[["m.M","s.R"],["s.C","g.R"]]})";

inline std::string bouncing(const char* law) {
    return std::string(R"({"blocks":[
    {"name":"m","type":"translational.mass","parameters":{"mass":1,"initial_velocity":1,"initial_position":0.02}},
    {"name":"stop","type":"translational.hard_stop","parameters":{"model":")") + law + R"(","upper_bound":0.1,"lower_bound":-0.1,
        "upper_stiffness":1e5,"lower_stiffness":1e5,"upper_damping":20,"lower_damping":20,"transition_region":1e-3}},
    {"name":"g","type":"translational.reference"}],
    "connections":[["m.M","stop.R"],["stop.C","g.R"]]})";
}

// Two masses with a stop between them: its relative position is read by its event functions.
const char* kRelativeStop = R"({"blocks":[
    {"name":"a","type":"translational.mass","parameters":{"mass":1,"initial_velocity":1}},
    {"name":"b","type":"translational.mass","parameters":{"mass":1}},
    {"name":"stop","type":"translational.hard_stop","parameters":{"model":"full_damped","upper_bound":0.05,"lower_bound":-0.05}}],
    "connections":[["a.M","stop.R"],["stop.C","b.M"]]})";

// A mass and a damper to ground: nothing to eliminate.
const char* kDamped = R"({"blocks":[
    {"name":"m","type":"translational.mass","parameters":{"mass":1,"initial_velocity":1}},
    {"name":"d","type":"translational.damper","parameters":{"damping":3}},
    {"name":"g","type":"translational.reference"}],
    "connections":[["m.M","d.R"],["d.C","g.R"]]})";

// The benchmark's model b with n masses: stops to ground, springs and dampers between neighbours,
// a sine force on the first mass.
inline std::string chainJson(int n) {
    std::string blocksJson, wires;
    for (int i = 0; i < n; ++i) {
        const std::string m = "m" + std::to_string(i), s = "st" + std::to_string(i);
        blocksJson += R"({"name":")" + m + R"(","type":"translational.mass"},{"name":")" + s +
                      R"(","type":"translational.hard_stop","parameters":{"model":"full_damped","upper_bound":0.01,"lower_bound":-0.01}},)";
        wires += R"([")" + m + R"(.M",")" + s + R"(.R"],[")" + s + R"(.C","g.R"],)";
        if (i + 1 < n) {
            const std::string k = "k" + std::to_string(i), d = "d" + std::to_string(i), next = "m" + std::to_string(i + 1);
            blocksJson += R"({"name":")" + k + R"(","type":"translational.spring","parameters":{"stiffness":1e4}},{"name":")" + d +
                          R"(","type":"translational.damper","parameters":{"damping":1}},)";
            wires += R"([")" + m + R"(.M",")" + k + R"(.R"],[")" + k + R"(.C",")" + next + R"(.M"],[")" + m + R"(.M",")" + d +
                     R"(.R"],[")" + d + R"(.C",")" + next + R"(.M"],)";
        }
    }
    blocksJson += R"({"name":"F","type":"signal.sine","parameters":{"amplitude":100,"frequency":5}},{"name":"fs","type":"translational.force_source"},{"name":"g","type":"translational.reference"})";
    wires += R"(["F.y","fs.S"],["fs.R","m0.M"],["fs.C","g.R"])";
    return R"({"blocks":[)" + blocksJson + R"(],"connections":[)" + wires + "]}";
}

}  // namespace
