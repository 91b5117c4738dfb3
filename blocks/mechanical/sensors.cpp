// SPDX-License-Identifier: GPL-3.0-or-later
// Ideal sensors between R and C.
//   motion_sensor: zero force; outputs x (phi) with x' = v_R - v_C, x(0) = initial_position,
//                  v (w) = v_R - v_C and a (alpha) = v_R' - v_C'
//   force_sensor / torque_sensor: rigid, v_R = v_C; output f (t) = the force flowing from R
//                  through the sensor to C
#include "blocks/common.hpp"

namespace endstop::blocks {

class MotionSensor final : public core::BlockT<MotionSensor> {
public:
    MotionSensor(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          x0(real("initial_position", "Initial position", names(d).position, 0.0).group("Initial conditions")),
          R(conserving("R", d, "R")),
          C(conserving("C", d, "C")),
          X(output(names(d).x, "Relative position", names(d).position)),
          V(output(names(d).v, "Relative velocity", names(d).velocity)),
          A(output(d == Domain::Rotational ? "alpha" : "a", "Relative acceleration", names(d).acceleration)) {
        setInitial(outVar(X), real(x0));
    }

    template <class S> void equations(core::Eq<S>& eq) const {
        const S v = eq.across(R) - eq.across(C);
        eq.residual(outVar(X)) = eq.der(outVar(X)) - v;
        eq.residual(outVar(V)) = eq[outVar(V)] - v;
        eq.residual(outVar(A)) = eq[outVar(A)] - (eq.der(R) - eq.der(C));
    }

private:
    static core::BlockInfo info(Domain d) {
        return {.typeId = typeId(d, "motion_sensor"),
                .typeVersion = 1,
                .title = std::string("Ideal ") + names(d).category + " Motion Sensor",
                .category = names(d).category,
                .help = "Measures the relative position, velocity and acceleration of R with respect to C."};
    }
    const core::Param x0;
    const core::Port R, C, X, V, A;
};

class FlowSensor final : public core::BlockT<FlowSensor> {
public:
    FlowSensor(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          R(conserving("R", d, "R")),
          C(conserving("C", d, "C")),
          F(output(names(d).f, std::string("Measured ") + names(d).flow, names(d).force)) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        const S f = eq[outVar(F)];
        eq.residual(outVar(F)) = eq.across(R) - eq.across(C);
        eq.flowThrough(R, C, f);
    }

private:
    static core::BlockInfo info(Domain d) {
        const bool rot = d == Domain::Rotational;
        return {.typeId = rot ? "rotational.torque_sensor" : "translational.force_sensor",
                .typeVersion = 1,
                .title = rot ? "Ideal Torque Sensor" : "Ideal Force Sensor",
                .category = names(d).category,
                .help = std::string("A rigid link from R to C that outputs the ") + names(d).flow + " it transmits."};
    }
    const core::Port R, C, F;
};

void addSensors(core::Registry& r) { r.addTwins<MotionSensor, FlowSensor>(); }

}   // namespace endstop::blocks
