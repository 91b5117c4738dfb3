// SPDX-License-Identifier: GPL-3.0-or-later
// Ideal sources between R and C, driven by the physical signal S (SI: N | N*m, m/s | rad/s).
//   force_source / torque_source:   pushes R by +S and C by -S: through(R, -S), through(C, +S)
//   velocity_source / speed_source: v_R - v_C = S, with the force f it takes as an unknown
//                                   (flows from R through the source to C)
#include "blocks/common.hpp"

namespace endstop::blocks {

class FlowSource final : public core::BlockT<FlowSource> {
public:
    FlowSource(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          R(conserving("R", d, "R")),
          C(conserving("C", d, "C")),
          S(input("S", std::string("Applied ") + names(d).flow, names(d).force)),
          fRec(computed(names(d).f, std::string("Applied ") + names(d).flow, names(d).force)) {}

    template <class S_> void equations(core::Eq<S_>& eq) const {
        const S_ s = eq.input(S);
        eq.through(R, -s);
        eq.through(C, s);
    }
    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        out[static_cast<std::size_t>(fRec.index)] = eq.input(S);
    }

private:
    static core::BlockInfo info(Domain d) {
        const bool rot = d == Domain::Rotational;
        return {.typeId = rot ? "rotational.torque_source" : "translational.force_source",
                .typeVersion = 1,
                .title = rot ? "Ideal Torque Source" : "Ideal Force Source",
                .category = names(d).category,
                .help = std::string("Applies the signal S as a ") + names(d).flow + " pushing R forward and C back."};
    }
    const core::Port R, C, S;
    const core::Computed fRec;
};

class AcrossSource final : public core::BlockT<AcrossSource> {
public:
    AcrossSource(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          R(conserving("R", d, "R")),
          C(conserving("C", d, "C")),
          S(input("S", "Imposed velocity", names(d).velocity)),
          vRec(computed(names(d).v, "Velocity", names(d).velocity)),
          f(algebraic(names(d).f, std::string("Source ") + names(d).flow, names(d).force).recorded()) {}

    template <class S_> void equations(core::Eq<S_>& eq) const {
        eq.residual(f) = eq.across(R) - eq.across(C) - eq.input(S);
        eq.flowThrough(R, C, eq[f]);
    }
    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        out[static_cast<std::size_t>(vRec.index)] = eq.across(R) - eq.across(C);
    }

private:
    static core::BlockInfo info(Domain d) {
        const bool rot = d == Domain::Rotational;
        return {.typeId = rot ? "rotational.speed_source" : "translational.velocity_source",
                .typeVersion = 1,
                .title = rot ? "Ideal Angular Velocity Source" : "Ideal Velocity Source",
                .category = names(d).category,
                .help = std::string("Imposes the signal S as the velocity of R relative to C, whatever ") +
                        names(d).flow + " it takes."};
    }
    const core::Port R, C, S;
    const core::Computed vRec;
    const core::Var f;
};

void addSources(core::Registry& r) { r.addTwins<FlowSource, AcrossSource>(); }

}   // namespace endstop::blocks
