// SPDX-License-Identifier: GPL-3.0-or-later
// Linear spring between R and C.
//   v = v_R - v_C,  dx/dt = v,  x(0) = initial_deformation
//   f = k * x       (flows from R through the spring to C: tension pulls R back)
#include "blocks/common.hpp"

namespace endstop::blocks {

class Spring final : public core::BlockT<Spring> {
public:
    Spring(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          k(real("stiffness", "Spring stiffness", names(d).stiffness, d == Domain::Rotational ? 10.0 : 1000.0)
                .atLeast(0)),
          x0(real("initial_deformation", "Initial deformation", names(d).position, 0.0).group("Initial conditions")),
          R(conserving("R", d, "R")),
          C(conserving("C", d, "C")),
          x(state(names(d).x, "Deformation", names(d).position).recorded().startsAt(real(x0))),
          fRec(computed(names(d).f, std::string("Spring ") + names(d).flow, names(d).force)) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        eq.residual(x) = eq.der(x) - (eq.across(R) - eq.across(C));
        const S f = real(k) * eq[x];
        eq.flowThrough(R, C, f);
    }

    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        out[static_cast<std::size_t>(fRec.index)] = real(k) * eq[x];
    }

private:
    static core::BlockInfo info(Domain d) {
        return {.typeId = typeId(d, "spring"),
                .typeVersion = 1,
                .title = std::string(names(d).category) + " Spring",
                .category = names(d).category,
                .help = "Ideal linear spring between R and C: its force is proportional to its deformation."};
    }
    const core::Param k, x0;
    const core::Port R, C;
    const core::Var x;
    const core::Computed fRec;
};

void addSpring(core::Registry& r) { r.addTwins<Spring>(); }

}   // namespace endstop::blocks
