// SPDX-License-Identifier: GPL-3.0-or-later
// Linear viscous damper between R and C.
//   v = v_R - v_C,  f = d * v   (flows from R to C),  power = f * v (dissipated, >= 0)
#include "blocks/common.hpp"

namespace endstop::blocks {

class Damper final : public core::BlockT<Damper> {
public:
    Damper(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          b(real("damping", "Damping coefficient", names(d).damping, d == Domain::Rotational ? 0.01 : 100.0)
                .atLeast(0)),
          R(conserving("R", d, "R")),
          C(conserving("C", d, "C")),
          vRec(computed(names(d).v, "Relative velocity", names(d).velocity)),
          fRec(computed(names(d).f, std::string("Damper ") + names(d).flow, names(d).force)),
          pRec(computed("power", "Dissipated power", "W")) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        const S f = real(b) * (eq.across(R) - eq.across(C));
        eq.flowThrough(R, C, f);
    }

    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        const double v = eq.across(R) - eq.across(C);
        out[static_cast<std::size_t>(vRec.index)] = v;
        out[static_cast<std::size_t>(fRec.index)] = real(b) * v;
        out[static_cast<std::size_t>(pRec.index)] = real(b) * v * v;
    }

private:
    static core::BlockInfo info(Domain d) {
        return {.typeId = typeId(d, "damper"),
                .typeVersion = 1,
                .title = std::string(names(d).category) + " Damper",
                .category = names(d).category,
                .help = "Ideal viscous damper between R and C: its force is proportional to the relative velocity."};
    }
    const core::Param b;
    const core::Port R, C;
    const core::Computed vRec, fRec, pRec;
};

void addDamper(core::Registry& r) { r.addTwins<Damper>(); }

}   // namespace endstop::blocks
