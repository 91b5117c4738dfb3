// SPDX-License-Identifier: GPL-3.0-or-later
// Ideal gear: a lossless ratio between the flanges A and B, housing grounded. See docs/blocks.md.
//   w_A = ratio * w_B                     (so phi_A - phi_A(0) = ratio * (phi_B - phi_B(0)))
//   t: torque flowing from node A into the gear; the torque flowing from node B into it is
//   t_B = -ratio * t, so ratio * t_A + t_B = 0 and the power in, t * w_A + t_B * w_B, is zero.
// Two inertias on either side are rigidly coupled: the constraint is one derivative above the
// inertias' states (index 2), which the structure analysis reduces as for the wheel and axle. An
// inertia J_B on B is felt at A as J_B / ratio^2, an inertia J_A on A at B as ratio^2 * J_A.
#include "blocks/common.hpp"

namespace endstop::blocks {

class IdealGear final : public core::BlockT<IdealGear> {
public:
    explicit IdealGear(const core::ParamValues& p)
        : BlockT(
              {.typeId = "rotational.ideal_gear",
               .typeVersion = 1,
               .title = "Ideal Gear",
               .category = "Rotational",
               .help = "A lossless gear between the flanges A and B: A turns ratio times as fast as B, and the power "
                       "that enters at one flange leaves at the other."},
              p),
          ratio(real("ratio", "Transmission ratio (w_A / w_B)", "", 1.0)
                    .help("not 0; negative reverses the sense of rotation")),
          A(conserving("A", Domain::Rotational, "Flange A")),
          B(conserving("B", Domain::Rotational, "Flange B")),
          wRec(computed("w", "Angular velocity at A", "rad/s")),
          t(algebraic("t", "Torque at A", "N*m").recorded()) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        eq.residual(t) = eq.across(A) - real(ratio) * eq.across(B);
        eq.through(A, eq[t]);
        eq.through(B, -real(ratio) * eq[t]);
    }
    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        out[static_cast<std::size_t>(wRec.index)] = eq.across(A);
    }
    void validateMore(core::Diagnostics& out) const override {
        if (real(ratio) == 0.0) out.push_back(paramError("ratio", "must not be 0 (B would turn at infinite speed)"));
    }

private:
    const core::Param ratio;
    const core::Port A, B;
    const core::Computed wRec;
    const core::Var t;
};

void addIdealGear(core::Registry& r) { r.add<IdealGear>(); }

}   // namespace endstop::blocks
