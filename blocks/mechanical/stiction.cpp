// SPDX-License-Identifier: GPL-3.0-or-later
// Stiction between R and C (a joint stiction actuator as a network element).
//   v = v_R - v_C; f flows from R through the block to C (it has the sign of v while slipping,
//   like a damper's force, so it decelerates R relative to C).
//   unlocked / wait:  f = s * Fkin(v) + c_v * v, with s = +1 or -1 the direction of motion (a
//                     mode: v is near zero when the motion starts) and
//                     Fkin = Fk (coulomb) or Fk + (Fs_s - Fk) * exp(-s v / v_S) (stribeck),
//                     Fs_s = breakaway_positive for s = +1, -breakaway_negative for s = -1
//   locked:           v_R' - v_C' - eps * h = 0, f the holding force (an algebraic unknown,
//                     absent from its own row, so the engine's projection sets v = 0 exactly at
//                     lock-in); h = f is a copy of it. eps * h is constraint force mixing: an
//                     acceleration error of at most 1e-9 per second squared at the breakaway
//                     force that splits redundant locks (two stictions, or a stiction and a stop,
//                     locking the same motion) by minimum norm instead of making the DAE singular.
//                     The lock yields the way its force pushes (a positive f, which holds R back,
//                     lets R gain on C), so a motion the network imposes (a velocity source across
//                     the joint) reads as a holding force far beyond the limit in its direction.
// Modes (locked, wait, sliding) and their transitions: blocks/mechanical/friction_lock.hpp.
// With limits_from = signals, FK, FSf (< 0) and FSr (> 0) replace
// kinetic_friction, breakaway_negative and breakaway_positive.
#include "blocks/common.hpp"
#include "blocks/mechanical/friction_lock.hpp"

namespace endstop::blocks {

namespace {
constexpr double kCfmAcceleration = 1e-9;        // SI acceleration error at the breakaway force
enum class LimitsFrom { Parameters, Signals };   // the choice limits_from
enum class KineticLaw { Coulomb, Stribeck };     // the choice kinetic_model
}   // namespace

class Stiction final : public core::BlockT<Stiction> {
public:
    Stiction(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          limitsFrom(choice("limits_from", "Friction limits from", "parameters",
                            {{"parameters", "Parameters"}, {"signals", "Input signals FK, FSf, FSr"}})),
          fsPos(real("breakaway_positive", "Breakaway force, positive direction", names(d).force, scale(d))
                    .above(0)
                    .visibleWhen(limitsFrom, {"parameters"})),
          fsNeg(real("breakaway_negative", "Breakaway force, negative direction", names(d).force, -scale(d))
                    .below(0)
                    .visibleWhen(limitsFrom, {"parameters"})),
          fk(real("kinetic_friction", "Kinetic friction", names(d).force, 0.8 * scale(d))
                 .atLeast(0)
                 .visibleWhen(limitsFrom, {"parameters"})
                 .help("magnitude; opposes the relative motion")),
          kineticModel(choice("kinetic_model", "Kinetic friction model", "coulomb",
                              {{"coulomb", "Coulomb"}, {"stribeck", "Stribeck (decays from breakaway to kinetic)"}})),
          vS(real("stribeck_velocity", "Stribeck velocity", names(d).velocity, 0.01)
                 .above(0)
                 .visibleWhen(kineticModel, {"stribeck"})),
          cv(real("viscous_coefficient", "Viscous friction coefficient", names(d).damping, 0.0).atLeast(0)),
          vth(real("velocity_threshold", "Velocity threshold", names(d).velocity, 1e-4)
                  .above(0)
                  .help("set it well above the absolute tolerance")),
          R(conserving("R", d, "R")),
          C(conserving("C", d, "C")),
          FK(input("FK", "Kinetic friction", names(d).force).visibleWhen(limitsFrom, {"signals"})),
          FSf(input("FSf", "Lower static limit (< 0)", names(d).force).visibleWhen(limitsFrom, {"signals"})),
          FSr(input("FSr", "Upper static limit (> 0)", names(d).force).visibleWhen(limitsFrom, {"signals"})),
          vRec(computed(names(d).v, "Relative velocity", names(d).velocity)),
          f(algebraic(names(d).f, std::string("Friction ") + names(d).flow, names(d).force)
                .recorded()
                .constraintForce()),
          h(algebraic("holding", std::string("Copy of the ") + names(d).flow + " for the lock", names(d).force)
                .constraintForce()),
          modeRec(computed("mode", "Mode: 0 unlocked, 1 locked, 2 wait", "")),
          lock{discrete("mode", kSliding, 3), discrete("direction", 1.0, 2), discrete("since", -1.0),
               discrete("logged", -1.0),      discrete("vetoed", -1.0),      discrete("v_event", 0.0)},
          m_limitsFrom(is(limitsFrom, "signals") ? LimitsFrom::Signals : LimitsFrom::Parameters),
          m_law(is(kineticModel, "stribeck") ? KineticLaw::Stribeck : KineticLaw::Coulomb) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        const S v = eq.across(R) - eq.across(C);
        if (eq.mode(lock.mode) == kLocked)
            eq.residual(f) = eq.der(R) - eq.der(C) - cfm() * eq[h];
        else
            eq.residual(f) = eq[f] - kinetic(eq, v);
        eq.residual(h) = eq[h] - eq[f];
        eq.flowThrough(R, C, eq[f]);
    }
    template <class S> void velocityConstraints(core::Eq<S>& eq) const {
        if (eq.mode(lock.mode) == kLocked) eq.residual(f) = eq.across(R) - eq.across(C);
    }

    int eventCount() const override { return kLockEvents; }
    void eventFunctions(const core::Eq<double>& eq, std::span<double> g) const override {
        if (fromSignals()) return lock.eventFunctions(eq, relVelocity(eq), eq[f], upper(eq), lower(eq), real(vth), g);
        core::AffineEvent a;   // the forms the solver evaluates, so that both give the same bits
        for (int i = 0; i < kLockEvents; ++i) {
            affineEvent(eq, i, a);
            g[static_cast<std::size_t>(i)] = a.value(eq);
        }
    }
    // affine while the limits are parameters; from signals they are what the inputs say
    bool affineEvent(const core::Eq<double>& eq, int which, core::AffineEvent& out) const override {
        if (fromSignals()) return false;
        lock.affineEvent(eq, which, R, C, f, upper(eq), lower(eq), real(vth), out);
        return true;
    }
    void liveEvents(const core::Eq<double>& eq, std::span<char> live) const override { lock.liveEvents(eq, live); }
    bool holding(const core::Eq<double>& eq) const override { return eq.mode(lock.mode) == kLocked; }
    bool holdsByFriction() const override { return true; }
    void onEvent(core::EventCtx& ctx, int which, int direction) const override {
        lock.onEvent(ctx, which, direction, relVelocity(ctx.eq()));
    }
    bool hasSettle() const override { return true; }
    // the first settle after the consistent start: locked if at rest, else sliding in the direction of v
    void settle(core::EventCtx& ctx) const override {
        const core::Eq<double>& eq = ctx.eq();
        if (ctx.discrete(lock.since) < 0) return lock.start(ctx, relVelocity(eq), real(vth));
        lock.settle(ctx, eq[f], upper(eq), lower(eq), relVelocity(eq), eq.der(R) - eq.der(C), real(vth));
    }
    void initModes(core::EventCtx& ctx) const override {
        ctx.set(lock.mode, kSliding);
        ctx.set(lock.dir, relVelocity(ctx.eq()) < 0 ? kBackward : kForward);
    }
    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        out[static_cast<std::size_t>(vRec.index)] = relVelocity(eq);
        out[static_cast<std::size_t>(modeRec.index)] = eq.mode(lock.mode);
    }
    void validateMore(core::Diagnostics& out) const override {
        if (!fromSignals() && real(fk) > std::min(real(fsPos), -real(fsNeg)))
            out.push_back(paramWarning("kinetic_friction",
                                       "is above a breakaway force: the joint will hold up to the "
                                       "kinetic friction instead"));
    }

private:
    static core::BlockInfo info(Domain d) {
        return {.typeId = typeId(d, "stiction"),
                .typeVersion = 1,
                .title = std::string(names(d).category) + " Stiction",
                .category = names(d).category,
                .help =
                    "Static and kinetic friction between R and C: locks when the relative velocity reaches zero and "
                    "the holding force is inside the breakaway limits, unlocks when it leaves them."};
    }
    static double scale(Domain d) { return d == Domain::Rotational ? 1.0 : 10.0; }
    double cfm() const { return kCfmAcceleration / std::max(real(fsPos), -real(fsNeg)); }
    double relVelocity(const core::Eq<double>& eq) const { return eq.across(R) - eq.across(C); }
    bool fromSignals() const { return m_limitsFrom == LimitsFrom::Signals; }
    // The static limits a locked joint holds. With Coulomb friction above a limit no mode would
    // be consistent between the two (locked: force too high; sliding: it decelerates at once),
    // so the joint then holds up to the kinetic friction, as a search for a consistent mode would.
    double upper(const core::Eq<double>& eq) const {
        const double limit = fromSignals() ? eq.input(FSr) : real(fsPos);
        return m_law == KineticLaw::Coulomb ? std::max(limit, kineticAtRest(eq)) : limit;
    }
    double lower(const core::Eq<double>& eq) const {
        const double limit = fromSignals() ? eq.input(FSf) : real(fsNeg);
        return m_law == KineticLaw::Coulomb ? std::min(limit, -kineticAtRest(eq)) : limit;
    }
    double kineticAtRest(const core::Eq<double>& eq) const { return fromSignals() ? eq.input(FK) : real(fk); }

    template <class S> S kinetic(const core::Eq<S>& eq, const S& v) const {
        const double s = eq.mode(lock.dir) == kForward ? 1.0 : -1.0;
        const S fkin = fromSignals() ? eq.input(FK) : S(real(fk));
        S magnitude = fkin;
        if (m_law == KineticLaw::Stribeck) {
            const S fs =
                fromSignals() ? (s > 0 ? eq.input(FSr) : -eq.input(FSf)) : S(s > 0 ? real(fsPos) : -real(fsNeg));
            // read against the motion only as far as the wait mode goes (s v down to -vth): an
            // impulse that carries v the other way is settled at once (FrictionLock::settleReversed),
            // but the consistent restart before that must not meet exp(|v| / v_S) = inf
            const double most = std::max(real(vth) / real(vS), 1.0);
            magnitude = fkin + (fs - fkin) * exp(min(-s * v / real(vS), most));
        }
        return s * magnitude + real(cv) * v;
    }

    const core::Choice limitsFrom;
    const core::Param fsPos, fsNeg, fk;
    const core::Choice kineticModel;
    const core::Param vS, cv, vth;
    const core::Port R, C, FK, FSf, FSr;
    const core::Computed vRec;
    const core::Var f, h;
    const core::Computed modeRec;
    const FrictionLock lock;
    const LimitsFrom m_limitsFrom;
    const KineticLaw m_law;
};

void addStiction(core::Registry& r) { r.addTwins<Stiction>(); }

}   // namespace endstop::blocks
