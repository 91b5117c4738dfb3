// SPDX-License-Identifier: GPL-3.0-or-later
// Wheel and axle: an ideal transformer between the rotational port A and the translational port P.
//   v_P = r * w_A                          (rolls without slip)
//   f: force flowing from node P into the block; the torque flowing from node A into the block
//   is t = -r * f, so power in = f*v_P + t*w_A = 0.
// A mass m on P seen from A is the reflected inertia m*r^2.
#include "blocks/common.hpp"

namespace endstop::blocks {

class WheelAxle final : public core::BlockT<WheelAxle> {
public:
    explicit WheelAxle(const core::ParamValues& p)
        : BlockT({.typeId = "mechanical.wheel_axle",
                  .typeVersion = 1,
                  .title = "Wheel and Axle",
                  .category = "Mechanical",
                  .help = "Converts rotation at the axle A to translation at the rim P, rolling without slip or loss."},
                 p),
          r(real("radius", "Wheel radius", "m", 0.1).above(0)),
          A(conserving("A", Domain::Rotational, "Axle")),
          P(conserving("P", Domain::Translational, "Rim")),
          tRec(computed("t", "Axle torque", "N*m")),
          f(algebraic("f", "Rim force", "N").recorded()) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        eq.residual(f) = eq.across(P) - real(r) * eq.across(A);
        eq.through(P, eq[f]);
        eq.through(A, -real(r) * eq[f]);
    }
    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        out[static_cast<std::size_t>(tRec.index)] = -real(r) * eq[f];
    }

private:
    const core::Param r;
    const core::Port A, P;
    const core::Computed tRec;
    const core::Var f;
};

void addWheelAxle(core::Registry& r) { r.add<WheelAxle>(); }

}   // namespace endstop::blocks
