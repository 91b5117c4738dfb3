// SPDX-License-Identifier: GPL-3.0-or-later
#include "bench/models.hpp"

#include "blocks/registry.hpp"

#include <string>
#include <variant>
#include <vector>

namespace endstop::bench {

namespace {

using core::ParamValues;
using core::model::AddBlock;
using core::model::BlockSpec;
using core::model::Connect;
using core::model::Connection;

void add(core::model::Model& m, const std::string& name, const std::string& type, ParamValues p = {}, double x = 0,
         double y = 0) {
    BlockSpec b;
    b.name = name;
    b.type = type;
    b.typeVersion = blocks::registry().find(type)->info.typeVersion;   // as the GUI adds a block
    b.params = std::move(p);
    b.ui.x = x;
    b.ui.y = y;
    m.apply(AddBlock{b});
}

void wire(core::model::Model& m, const std::string& a, const std::string& b) {
    m.apply(Connect{Connection{*core::model::PortRef::parse(a), *core::model::PortRef::parse(b)}});
}

void settings(core::model::Model& m, double stop) {
    core::model::SimulationSettings s;
    s.stopTime = stop;
    s.relativeTolerance = 1e-6;
    s.absoluteTolerance = 1e-8;
    m.apply(core::model::SetSimulation{s});
}

ParamValues stop(double bound, double k, double d) {
    return {{"model", std::string("full_damped")},
            {"upper_bound", bound},
            {"lower_bound", -bound},
            {"upper_stiffness", k},
            {"lower_stiffness", k},
            {"upper_damping", d},
            {"lower_damping", d}};
}

}   // namespace

core::model::Model modelA() {
    core::model::Model m;
    settings(m, 10.0);
    add(m, "mass", "translational.mass", {{"mass", 1.0}, {"initial_velocity", 1.0}});
    add(m, "stop", "translational.hard_stop", stop(0.1, 1e6, 100.0), 160);
    add(m, "ground", "translational.reference", {}, 320);
    wire(m, "mass.M", "stop.R");
    wire(m, "stop.C", "ground.R");
    return m;
}

namespace {

// the i-th block's real parameters times 1 + spread i / n
ParamValues scaled(ParamValues p, int i, int n, double spread) {
    for (auto& [key, value] : p)
        if (double* x = std::get_if<double>(&value)) *x *= 1.0 + spread * i / n;
    return p;
}

core::model::Model chainB(int n, double spread) {
    core::model::Model m;
    settings(m, 1.0);
    add(m, "drive", "signal.sine", {{"amplitude", 100.0}, {"frequency", 5.0}}, -320);
    add(m, "force", "translational.force_source", {}, -160);
    add(m, "ground", "translational.reference", {}, 0, 200);
    wire(m, "drive.y", "force.S");
    wire(m, "force.C", "ground.R");
    for (int i = 1; i <= n; ++i) {
        const std::string s = std::to_string(i);
        const double x = 200.0 * i;
        add(m, "m" + s, "translational.mass", scaled({{"mass", 1.0}}, i, n, spread), x);
        add(m, "stop" + s, "translational.hard_stop", scaled(stop(0.01, 1e6, 10.0), i, n, spread), x, 100);
        wire(m, "m" + s + ".M", "stop" + s + ".R");
        wire(m, "stop" + s + ".C", "ground.R");
        if (i == 1) continue;
        const std::string prev = std::to_string(i - 1);
        add(m, "k" + prev, "translational.spring", scaled({{"stiffness", 1e4}}, i, n, spread), x - 100, -50);
        add(m, "d" + prev, "translational.damper", scaled({{"damping", 1.0}}, i, n, spread), x - 100, 50);
        wire(m, "m" + prev + ".M", "k" + prev + ".R");
        wire(m, "k" + prev + ".C", "m" + s + ".M");
        wire(m, "m" + prev + ".M", "d" + prev + ".R");
        wire(m, "d" + prev + ".C", "m" + s + ".M");
    }
    wire(m, "force.R", "m1.M");
    return m;
}

}   // namespace

core::model::Model modelB(int n) { return chainB(n, 0.0); }
core::model::Model modelBVaried(int n) { return chainB(n, 1e-3); }

core::model::Model modelC() {
    core::model::Model m;
    settings(m, 20.0);
    add(m, "mass", "translational.mass", {{"mass", 1.0}});
    add(m, "spring", "translational.spring", {{"stiffness", 100.0}}, -160);
    add(m, "friction", "translational.stiction",
        {{"breakaway_positive", 10.0}, {"breakaway_negative", -10.0}, {"kinetic_friction", 8.0}}, 160);
    add(m, "belt_speed", "signal.constant", {{"value", 0.1}}, 320, -100);
    add(m, "belt", "translational.velocity_source", {}, 320);
    add(m, "ground", "translational.reference", {}, 0, 200);
    wire(m, "spring.R", "mass.M");
    wire(m, "spring.C", "ground.R");
    wire(m, "mass.M", "friction.R");
    wire(m, "friction.C", "belt.R");
    wire(m, "belt_speed.y", "belt.S");
    wire(m, "belt.C", "ground.R");
    return m;
}

core::model::Model modelD(const std::string& law) {
    core::model::Model m;
    settings(m, 2.0);
    add(m, "drive", "signal.sine", {{"amplitude", 20.0}, {"frequency", 2.0}}, -320);
    add(m, "motor", "rotational.torque_source", {}, -160);
    add(m, "ground", "rotational.reference", {}, 0, 200);
    wire(m, "drive.y", "motor.S");
    wire(m, "motor.C", "ground.R");
    constexpr int kStages = 10;
    for (int i = 0; i <= kStages; ++i) {
        const std::string s = std::to_string(i);
        const double x = 300.0 * i;
        add(m, "j" + s, "rotational.inertia", {{"inertia", 0.01}}, x);
        add(m, "loss" + s, "rotational.damper", {{"damping", 0.02}}, x, 100);
        wire(m, "j" + s + ".I", "loss" + s + ".R");
        wire(m, "loss" + s + ".C", "ground.R");
        if (i == kStages) break;
        add(m, "gear" + s, "rotational.ideal_gear", {{"ratio", 1.1}}, x + 100);
        add(m, "lash" + s, "rotational.hard_stop",
            {{"model", law},
             {"upper_bound", 0.02},
             {"lower_bound", -0.02},
             {"upper_stiffness", 1e4},
             {"lower_stiffness", 1e4},
             {"upper_damping", 2.0},
             {"lower_damping", 2.0},
             {"transition_region", 1e-3}},
            x + 200);
        wire(m, "j" + s + ".I", "gear" + s + ".A");
        wire(m, "gear" + s + ".B", "lash" + s + ".R");
    }
    for (int i = 0; i < kStages; ++i) wire(m, "lash" + std::to_string(i) + ".C", "j" + std::to_string(i + 1) + ".I");
    wire(m, "motor.R", "j0.I");
    return m;
}

core::model::Model modelE(int points, bool through) {
    core::model::Model m;
    settings(m, 1.0);
    add(m, "mass", "translational.mass", {{"mass", 1.0}});
    ParamValues spring{{"initial_deformation", 0.04}};
    if (points > 0) {
        std::vector<double> x(static_cast<std::size_t>(points)), f(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            x[i] = -0.05 + 0.1 * static_cast<double>(i) / static_cast<double>(points - 1);
            f[i] = 1000 * x[i] + 4e5 * x[i] * x[i] * x[i];
        }
        spring.emplace("parameterization", std::string("table"));
        spring.emplace("displacements", x);
        spring.emplace("forces", f);
        spring.emplace("breakpoints", std::string(through ? "through" : "events"));
    } else {
        spring.emplace("coefficients", std::vector<double>{1000, 0, 4e5, 0, 0});
    }
    add(m, "spring", "translational.nonlinear_spring", spring, 160);
    add(m, "ground", "translational.reference", {}, 320);
    wire(m, "mass.M", "spring.R");
    wire(m, "spring.C", "ground.R");
    return m;
}

}   // namespace endstop::bench
