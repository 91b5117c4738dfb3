// SPDX-License-Identifier: GPL-3.0-or-later
// Models for tst_reduce, tst_reduced_evaluator and tst_block_analysis: small networks whose unknowns the reduction stage
// can (or cannot) remove, and running one reduced and as drawn to compare the two.
#pragma once

#include "support/compare.hpp"
#include "support/model_builder.hpp"
#include "support/test_support.hpp"

#include "blocks/registry.hpp"
#include "core/dae/dae_system.hpp"
#include "core/dae/reduce.hpp"
#include "core/graph/topology.hpp"

#include <QTest>

#include <cmath>
#include <string>
#include <vector>

namespace {

// A network assembled and the reduction stage's plan for it
struct Planned {
    endstop::core::dae::DaeSystem sys;
    endstop::core::dae::ReductionPlan plan;
};

inline Planned plan(const endstop::core::model::Model& model) {
    Planned p{endstop::core::dae::assemble(endstop::core::graph::buildTopology(model, endstop::blocks::registry())),
              {}};
    p.plan = endstop::core::dae::planReduction(p.sys);
    return p;
}

// The modes at the start, with the block named "stop" in contact at its upper bound.
inline std::vector<double> stopInContact(const endstop::core::dae::DaeSystem& sys) {
    std::vector<double> modes = sys.discrete0;
    const int stop = sys.topo.blockIndex("stop");
    modes[static_cast<std::size_t>(sys.bindings[static_cast<std::size_t>(stop)].discreteOffset)] =
        1.0;   // kContactUpper
    return modes;
}

// The fate of the unknown described as `what` ("x of s", "f of stop"), by the engine's own names.
inline endstop::core::dae::ReductionPlan::Fate fateOf(const Planned& p, const std::string& what) {
    for (int u = 0; u < p.sys.size(); ++u)
        if (p.sys.describeUnknown(u).find(what) != std::string::npos) return p.plan.fate[static_cast<std::size_t>(u)];
    qFatal("no unknown named %s", what.c_str());
}

// A mass starting at x0 = 0.3 m on a spring to ground that starts deformed by 0.3 m: both the
// spring's deformation and its position are integrals of the one velocity, with offsets.
inline endstop::core::model::Model oscillator() {
    endstop::test::ModelBuilder b;
    b.block("m", "translational.mass", {{"mass", 2.0}, {"initial_position", 0.3}})
        .block("s", "translational.spring", {{"stiffness", 50.0}, {"initial_deformation", 0.3}})
        .block("g", "translational.reference");
    b.connect("m.M", "s.R").connect("s.C", "g.R");
    return b.build();
}

// A mass bouncing between two stops of the given contact law.
inline endstop::core::model::Model bouncing(const char* law) {
    endstop::test::ModelBuilder b;
    b.block("m", "translational.mass", {{"mass", 1.0}, {"initial_velocity", 1.0}, {"initial_position", 0.02}})
        .block("stop", "translational.hard_stop",
               {{"model", law},
                {"upper_bound", 0.1},
                {"lower_bound", -0.1},
                {"upper_stiffness", 1e5},
                {"lower_stiffness", 1e5},
                {"upper_damping", 20.0},
                {"lower_damping", 20.0},
                {"transition_region", 1e-3}})
        .block("g", "translational.reference");
    b.connect("m.M", "stop.R").connect("stop.C", "g.R");
    return b.build();
}

// A mass on a spring to ground with a full_damped stop at +0.01 m; driven: a 5 Hz sine force of
// 100 N on the mass too.
inline endstop::core::model::Model springStop(bool driven = false) {
    endstop::test::ModelBuilder b;
    b.block("m", "translational.mass", {{"mass", 2.0}})
        .block("k", "translational.spring", {{"stiffness", 1e4}})
        .block("stop", "translational.hard_stop", {{"model", "full_damped"}, {"upper_bound", 0.01}})
        .block("g", "translational.reference");
    b.connect("m.M", "k.R").connect("k.C", "g.R").connect("m.M", "stop.R").connect("stop.C", "g.R");
    if (driven) {
        b.block("drive", "signal.sine", {{"amplitude", 100.0}, {"frequency", 5.0}})
            .block("force", "translational.force_source");
        b.connect("drive.y", "force.S").connect("force.R", "m.M").connect("force.C", "g.R");
    }
    return b.build();
}

// Two masses with a stop between them: its relative position is read by its event functions.
inline endstop::core::model::Model relativeStop() {
    endstop::test::ModelBuilder b;
    b.block("a", "translational.mass", {{"mass", 1.0}, {"initial_velocity", 1.0}})
        .block("b", "translational.mass", {{"mass", 1.0}})
        .block("stop", "translational.hard_stop",
               {{"model", "full_damped"}, {"upper_bound", 0.05}, {"lower_bound", -0.05}});
    b.connect("a.M", "stop.R").connect("stop.C", "b.M");
    return b.build();
}

// A sine torque on inertia a, a gear (1.1) and a full_damped backlash stop of +-0.02 rad to
// inertia b, viscous losses on both: the stop's R side is the gear's massless output node.
inline endstop::core::model::Model gearWithBacklash() {
    endstop::test::ModelBuilder b;
    b.block("drive", "signal.sine", {{"amplitude", 20.0}, {"frequency", 2.0}})
        .block("motor", "rotational.torque_source")
        .block("a", "rotational.inertia", {{"inertia", 0.01}})
        .block("la", "rotational.damper", {{"damping", 0.02}})
        .block("gear", "rotational.ideal_gear", {{"ratio", 1.1}})
        .block("lash", "rotational.hard_stop",
               {{"model", "full_damped"},
                {"upper_bound", 0.02},
                {"lower_bound", -0.02},
                {"upper_stiffness", 1e4},
                {"lower_stiffness", 1e4},
                {"upper_damping", 2.0},
                {"lower_damping", 2.0}})
        .block("b", "rotational.inertia", {{"inertia", 0.01}})
        .block("lb", "rotational.damper", {{"damping", 0.02}})
        .block("g", "rotational.reference");
    b.connect("drive.y", "motor.S").connect("motor.R", "a.I").connect("motor.C", "g.R");
    b.connect("a.I", "la.R").connect("la.C", "g.R").connect("b.I", "lb.R").connect("lb.C", "g.R");
    b.connect("a.I", "gear.A").connect("gear.B", "lash.R").connect("lash.C", "b.I");
    return b.build();
}

// The benchmark's gear train (model d) with `stages` stages: a sine torque on inertia j0, and per
// stage an ideal gear (1.1) whose output node is massless, a backlash stop of the given law
// (+-0.02 rad, 1e4 N m/rad) to the next inertia, viscous losses on every inertia.
inline endstop::core::model::Model gearTrain(int stages, const char* law = "full_damped") {
    endstop::test::ModelBuilder b;
    auto name = [](const char* prefix, int i) { return prefix + std::to_string(i); };
    b.block("drive", "signal.sine", {{"amplitude", 20.0}, {"frequency", 2.0}})
        .block("motor", "rotational.torque_source")
        .block("g", "rotational.reference");
    for (int i = 0; i <= stages; ++i) {
        b.block(name("j", i), "rotational.inertia", {{"inertia", 0.01}})
            .block(name("loss", i), "rotational.damper", {{"damping", 0.02}});
        if (i < stages)
            b.block(name("gear", i), "rotational.ideal_gear", {{"ratio", 1.1}})
                .block(name("lash", i), "rotational.hard_stop",
                       {{"model", law},
                        {"upper_bound", 0.02},
                        {"lower_bound", -0.02},
                        {"upper_stiffness", 1e4},
                        {"lower_stiffness", 1e4},
                        {"upper_damping", 2.0},
                        {"lower_damping", 2.0},
                        {"transition_region", 1e-3}});
    }
    b.connect("drive.y", "motor.S").connect("motor.C", "g.R").connect("motor.R", "j0.I");
    for (int i = 0; i <= stages; ++i) {
        const std::string j = name("j", i);
        b.connect(j + ".I", name("loss", i) + ".R").connect(name("loss", i) + ".C", "g.R");
        if (i < stages)
            b.connect(j + ".I", name("gear", i) + ".A")
                .connect(name("gear", i) + ".B", name("lash", i) + ".R")
                .connect(name("lash", i) + ".C", name("j", i + 1) + ".I");
    }
    return b.build();
}

// A mass and a damper to ground: nothing to eliminate.
inline endstop::core::model::Model damped() {
    endstop::test::ModelBuilder b;
    b.block("m", "translational.mass", {{"mass", 1.0}, {"initial_velocity", 1.0}})
        .block("d", "translational.damper", {{"damping", 3.0}})
        .block("g", "translational.reference");
    b.connect("m.M", "d.R").connect("d.C", "g.R");
    return b.build();
}

// The benchmark's model b with n masses: stops to ground, springs and dampers between neighbours,
// a sine force of the given amplitude on the first mass; and, if kicked >= 0, a step force of 5 N
// on mass `kicked` at t = 0.2 s.
// sensed: a motion sensor on every mass, its position scaled by a gain (explicit variables of
// summed blocks that read the masses, and one another)
inline endstop::core::model::Model chain(int n, double amplitude = 100.0, int kicked = -1, bool sensed = false) {
    endstop::test::ModelBuilder b;
    auto name = [](const char* prefix, int i) { return prefix + std::to_string(i); };
    for (int i = 0; i < n; ++i) {
        b.block(name("m", i), "translational.mass")
            .block(name("st", i), "translational.hard_stop",
                   {{"model", "full_damped"}, {"upper_bound", 0.01}, {"lower_bound", -0.01}});
        if (i + 1 < n)
            b.block(name("k", i), "translational.spring", {{"stiffness", 1e4}})
                .block(name("d", i), "translational.damper", {{"damping", 1.0}});
    }
    b.block("F", "signal.sine", {{"amplitude", amplitude}, {"frequency", 5.0}})
        .block("fs", "translational.force_source")
        .block("g", "translational.reference");
    for (int i = 0; i < n; ++i) {
        const std::string m = name("m", i), s = name("st", i);
        b.connect(m + ".M", s + ".R").connect(s + ".C", "g.R");
        if (i + 1 < n) {
            const std::string k = name("k", i), d = name("d", i), next = name("m", i + 1);
            b.connect(m + ".M", k + ".R")
                .connect(k + ".C", next + ".M")
                .connect(m + ".M", d + ".R")
                .connect(d + ".C", next + ".M");
        }
    }
    b.connect("F.y", "fs.S").connect("fs.R", "m0.M").connect("fs.C", "g.R");
    for (int i = 0; sensed && i < n; ++i) {
        const std::string sense = name("sense", i), gain = name("gain", i);
        b.block(sense, "translational.motion_sensor").block(gain, "signal.gain", {{"gain", 3.0}});
        b.connect(name("m", i) + ".M", sense + ".R").connect(sense + ".C", "g.R").connect(sense + ".x", gain + ".u");
    }
    if (kicked >= 0) {
        b.block("kick", "signal.step", {{"step_time", 0.2}, {"final_value", 5.0}})
            .block("ks", "translational.force_source")
            .connect("kick.y", "ks.S")
            .connect("ks.R", name("m", kicked) + ".M")
            .connect("ks.C", "g.R");
    }
    return b.build();
}

// A mass on a spring with stiction to a belt (a constant speed through a velocity source) and a
// restitution stop: a friction lock and a stop, each with discretes beside its modes.
inline endstop::core::model::Model beltAndStop() {
    endstop::test::ModelBuilder b;
    b.block("m", "translational.mass")
        .block("k", "translational.spring", {{"stiffness", 100.0}})
        .block("f", "translational.stiction",
               {{"breakaway_positive", 10.0}, {"breakaway_negative", -10.0}, {"kinetic_friction", 8.0}})
        .block("speed", "signal.constant", {{"value", 0.1}})
        .block("belt", "translational.velocity_source")
        .block("st", "translational.hard_stop", {{"model", "restitution"}, {"upper_bound", 0.01}})
        .block("g", "translational.reference");
    b.connect("k.R", "m.M").connect("k.C", "g.R").connect("m.M", "f.R").connect("f.C", "belt.R");
    b.connect("speed.y", "belt.S").connect("belt.C", "g.R").connect("m.M", "st.R").connect("st.C", "g.R");
    return b.build();
}

// The benchmark's model c: a mass on a spring to ground, with stiction to a belt driven by a
// velocity source at a constant 0.1 m/s, or at a sine of 0.5 m/s and 0.5 Hz (the belt swings by
// 0.16 m, and the spring breaks the friction loose both ways).
inline endstop::core::model::Model stickSlip(bool sine = false) {
    endstop::test::ModelBuilder b;
    if (sine)
        b.block("speed", "signal.sine", {{"amplitude", 0.5}, {"frequency", 0.5}});
    else
        b.block("speed", "signal.constant", {{"value", 0.1}});
    b.block("belt", "translational.velocity_source")
        .block("m", "translational.mass")
        .block("k", "translational.spring", {{"stiffness", 100.0}})
        .block("f", "translational.stiction",
               {{"breakaway_positive", 10.0}, {"breakaway_negative", -10.0}, {"kinetic_friction", 8.0}})
        .block("g", "translational.reference");
    b.connect("k.R", "m.M").connect("k.C", "g.R").connect("m.M", "f.R").connect("f.C", "belt.R");
    b.connect("speed.y", "belt.S").connect("belt.C", "g.R");
    return b.build();
}

// A run on a grid of rows (IDA interpolates), with or without the reduction.
inline endstop::core::MemorySink runWith(const endstop::core::model::Model& model, bool reduce, double stop,
                                         double rtol) {
    endstop::core::simulation::SimulationOptions o = endstop::test::solverOptions(stop, rtol, 0.01);
    o.absoluteTolerance = rtol * 1e-2;
    o.reduce = reduce;
    return endstop::test::run(model, o);
}

// The columns of a reduced and an unreduced run agree to tol (relative) at five times.
inline void compareColumns(const endstop::core::MemorySink& a, const endstop::core::MemorySink& b,
                           const std::vector<std::string>& columns, double tol) {
    for (const std::string& c : columns)
        for (double t : {0.1, 0.37, 0.5, 0.81, 1.0}) {
            const double x = endstop::test::at(a, c, t), y = endstop::test::at(b, c, t);
            QCOMPARE_NEAR(x, y, tol * (1.0 + std::abs(x)),
                          QString("%1 at %2 s, reduced vs unreduced").arg(c.c_str()).arg(t));
        }
}

}   // namespace
