// SPDX-License-Identifier: GPL-3.0-or-later
// Mass (translational, port M) and inertia (rotational, port I).
//   m * dv/dt = f       f flows from the node into the mass: through(M, m * v')
//   dx/dt = v,          x(0) = initial_position, v(0) = initial_velocity
// Recorded: v (w), x (phi), a (alpha) = dv/dt.
#include "blocks/common.hpp"

namespace endstop::blocks {

class Mass final : public core::BlockT<Mass> {
public:
    Mass(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          m(real(d == Domain::Rotational ? "inertia" : "mass", d == Domain::Rotational ? "Inertia" : "Mass",
                 d == Domain::Rotational ? "kg*m^2" : "kg", d == Domain::Rotational ? 0.01 : 1.0)
                .above(0)),
          v0(real("initial_velocity", "Initial velocity", names(d).velocity, 0.0).group("Initial conditions")),
          x0(real("initial_position", "Initial position", names(d).position, 0.0).group("Initial conditions")),
          M(conserving(d == Domain::Rotational ? "I" : "M", d, d == Domain::Rotational ? "Inertia" : "Mass")),
          vRec(computed(names(d).v, "Velocity", names(d).velocity)),
          x(state(names(d).x, "Position", names(d).position).recorded().startsAt(real(x0))),
          aRec(computed(names(d).a, "Acceleration", names(d).acceleration)) {
        startAcross(M, real(v0), real(m));
    }

    template <class S> void equations(core::Eq<S>& eq) const {
        eq.through(M, real(m) * eq.der(M));
        eq.residual(x) = eq.der(x) - eq.across(M);
    }

    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        out[static_cast<std::size_t>(vRec.index)] = eq.across(M);
        out[static_cast<std::size_t>(aRec.index)] = eq.der(M);
    }

private:
    static core::BlockInfo info(Domain d) {
        if (d == Domain::Rotational)
            return {.typeId = "rotational.inertia",
                    .typeVersion = 1,
                    .title = "Inertia",
                    .category = "Rotational",
                    .help = "A rotating rigid body: the torques on its port I change its angular velocity."};
        return {.typeId = "translational.mass",
                .typeVersion = 1,
                .title = "Mass",
                .category = "Translational",
                .help = "A rigid body: the forces on its port M change its velocity."};
    }
    const core::Param m, v0, x0;
    const core::Port M;
    const core::Computed vRec;
    const core::Var x;
    const core::Computed aRec;
};

void addMass(core::Registry& r) { r.addTwins<Mass>(); }

}   // namespace endstop::blocks
