// SPDX-License-Identifier: GPL-3.0-or-later
// Stiction between R and C (a joint stiction actuator as a network element).
//   v = v_R - v_C; f flows from R through the block to C (it has the sign of v while slipping,
//   like a damper's force, so it decelerates R relative to C).
//   unlocked / wait:  f = s * Fkin(v) + c_v * v, with s = +1 or -1 the direction of motion (a
//                     mode: v is near zero when the motion starts) and
//                     Fkin = Fk (coulomb) or Fk + (Fs_s - Fk) * exp(-s v / v_S) (stribeck),
//                     Fs_s = breakaway_positive for s = +1, -breakaway_negative for s = -1
//   locked:           v_R' - v_C' + eps * h = 0, f the holding force (an algebraic unknown,
//                     absent from its own row, so the engine's projection sets v = 0 exactly at
//                     lock-in); h = f is a copy of it. eps * h is constraint force mixing: an
//                     acceleration error of at most 1e-9 per second squared at the breakaway
//                     force that splits redundant locks (two stictions, or a stiction and a stop,
//                     locking the same motion) by minimum norm instead of making the DAE singular.
// Modes: locked; wait: just broken away (|v| < velocity_threshold), moving with
// kinetic friction in the direction s; unlocked: |v| has exceeded the threshold.
//   locked -> wait      the holding force leaves [breakaway_negative, breakaway_positive]
//   wait: at the instant of breakaway every waiting joint checks that the relative acceleration
//         computed with kinetic friction agrees with s; a joint that disagrees goes back to
//         locked once (the engine then recomputes every joint: the search is global); if its
//         holding force is still outside the limits it is let go, so the search always ends
//   wait -> unlocked    s*v reaches the threshold; wait -> locked: s*v falls to -threshold
//   unlocked -> locked  v reaches zero; if the holding force is outside the limits there, the
//                       joint breaks away again at once (a reversal: lock and unlock at one time)
// Lock and unlock go to the event log when they are confirmed, with the relative velocity just
// before the event. With limits_from = signals, FK, FSf (< 0) and FSr (> 0) replace
// kinetic_friction, breakaway_negative and breakaway_positive.
#include "blocks/common.hpp"

namespace endstop::blocks {

namespace {
enum Mode { kUnlocked = 0, kLocked = 1, kWait = 2 };
constexpr double kCfmAcceleration = 1e-9;   // SI acceleration error at the breakaway force
}  // namespace

class Stiction final : public core::BlockT<Stiction> {
public:
    Stiction(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          limitsFrom(choice("limits_from", "Friction limits from", "parameters",
                            {{"parameters", "Parameters"}, {"signals", "Input signals FK, FSf, FSr"}})),
          fsPos(real("breakaway_positive", "Breakaway force, positive direction", names(d).force, scale(d)).above(0)
                    .visibleWhen(limitsFrom, {"parameters"})),
          fsNeg(real("breakaway_negative", "Breakaway force, negative direction", names(d).force, -scale(d)).below(0)
                    .visibleWhen(limitsFrom, {"parameters"})),
          fk(real("kinetic_friction", "Kinetic friction", names(d).force, 0.8 * scale(d)).atLeast(0)
                 .visibleWhen(limitsFrom, {"parameters"}).help("magnitude; opposes the relative motion")),
          model(choice("kinetic_model", "Kinetic friction model", "coulomb",
                       {{"coulomb", "Coulomb"}, {"stribeck", "Stribeck (decays from breakaway to kinetic)"}})),
          vS(real("stribeck_velocity", "Stribeck velocity", names(d).velocity, 0.01).above(0)
                 .visibleWhen(model, {"stribeck"})),
          cv(real("viscous_coefficient", "Viscous friction coefficient", names(d).damping, 0.0).atLeast(0)),
          vth(real("velocity_threshold", "Velocity threshold", names(d).velocity, 1e-4).above(0)
                  .help("set it well above the absolute tolerance")),
          R(conserving("R", d, "R")), C(conserving("C", d, "C")),
          FK(input("FK", "Kinetic friction", names(d).force).visibleWhen(limitsFrom, {"signals"})),
          FSf(input("FSf", "Lower static limit (< 0)", names(d).force).visibleWhen(limitsFrom, {"signals"})),
          FSr(input("FSr", "Upper static limit (> 0)", names(d).force).visibleWhen(limitsFrom, {"signals"})),
          vRec(computed(names(d).v, "Relative velocity", names(d).velocity)),
          f(algebraic(names(d).f, std::string("Friction ") + names(d).flow, names(d).force).recorded()),
          h(algebraic("holding", std::string("Copy of the ") + names(d).flow + " for the lock", names(d).force)),
          modeRec(computed("mode", "Mode: 0 unlocked, 1 locked, 2 wait", "")),
          mode(discrete("mode", kUnlocked, 3)), dir(discrete("direction", 1.0, 2)),
          since(discrete("since", -1.0)), logged(discrete("logged", -1.0)), vetoed(discrete("vetoed", -1.0)),
          vEvent(discrete("v_event", 0.0)) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        const S v = eq.across(R) - eq.across(C);
        if (eq.mode(mode) == kLocked) eq.residual(f) = eq.der(R) - eq.der(C) + cfm() * eq[h];
        else eq.residual(f) = eq[f] - kinetic(eq, v);
        eq.residual(h) = eq[h] - eq[f];
        eq.through(R, eq[f]);
        eq.through(C, -eq[f]);
    }
    template <class S> void velocityConstraints(core::Eq<S>& eq) const {
        if (eq.mode(mode) == kLocked) eq.residual(f) = eq.across(R) - eq.across(C);
    }

    int eventCount() const override { return 2; }
    void eventFunctions(const core::Eq<double>& eq, std::span<double> g) const override;
    void onEvent(core::EventCtx& ctx, int which, int direction) const override;
    bool hasSettle() const override { return true; }
    void settle(core::EventCtx& ctx) const override;
    void initModes(core::EventCtx& ctx) const override {
        ctx.set(mode, kUnlocked);
        ctx.set(dir, relVelocity(ctx.eq()) < 0 ? 0.0 : 1.0);
    }
    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        out[static_cast<std::size_t>(vRec.index)] = relVelocity(eq);
        out[static_cast<std::size_t>(modeRec.index)] = eq.mode(mode);
    }
    void validateMore(core::Diagnostics& out) const override {
        if (is(limitsFrom, "parameters") && real(fk) > std::min(real(fsPos), -real(fsNeg))) {
            core::Diagnostic w = paramError("kinetic_friction", "is above a breakaway force: the joint will hold up to the "
                                                                "kinetic friction instead");
            w.severity = core::Severity::Warning;
            out.push_back(w);
        }
    }

private:
    static core::BlockInfo info(Domain d) {
        return {typeId(d, "stiction"), 1, std::string(names(d).category) + " Stiction", names(d).category,
                "Static and kinetic friction between R and C: locks when the relative velocity reaches zero and the "
                "holding force is inside the breakaway limits, unlocks when it leaves them."};
    }
    static double scale(Domain d) { return d == Domain::Rotational ? 1.0 : 10.0; }
    double cfm() const { return kCfmAcceleration / std::max(real(fsPos), -real(fsNeg)); }
    double sign(const core::Eq<double>& eq) const { return eq.mode(dir) ? 1.0 : -1.0; }
    double relVelocity(const core::Eq<double>& eq) const { return eq.across(R) - eq.across(C); }
    bool fromSignals() const { return is(limitsFrom, "signals"); }
    // The static limits a locked joint holds. With Coulomb friction above a limit no mode would
    // be consistent between the two (locked: force too high; sliding: it decelerates at once),
    // so the joint then holds up to the kinetic friction, as a search for a consistent mode would.
    double upper(const core::Eq<double>& eq) const {
        const double limit = fromSignals() ? eq.input(FSr) : real(fsPos);
        return is(model, "coulomb") ? std::max(limit, kineticAtRest(eq)) : limit;
    }
    double lower(const core::Eq<double>& eq) const {
        const double limit = fromSignals() ? eq.input(FSf) : real(fsNeg);
        return is(model, "coulomb") ? std::min(limit, -kineticAtRest(eq)) : limit;
    }
    double kineticAtRest(const core::Eq<double>& eq) const { return fromSignals() ? eq.input(FK) : real(fk); }

    template <class S> S kinetic(const core::Eq<S>& eq, const S& v) const {
        const double s = eq.mode(dir) ? 1.0 : -1.0;
        const S fkin = fromSignals() ? eq.input(FK) : S(real(fk));
        S magnitude = fkin;
        if (is(model, "stribeck")) {
            const S fs = fromSignals() ? (s > 0 ? eq.input(FSr) : -eq.input(FSf)) : S(s > 0 ? real(fsPos) : -real(fsNeg));
            magnitude = fkin + (fs - fkin) * exp(-s * v / real(vS));
        }
        return s * magnitude + real(cv) * v;
    }

    void enter(core::EventCtx& ctx, Mode m, double velocity) const {
        ctx.set(mode, m);
        ctx.set(since, ctx.time());
        ctx.set(vEvent, velocity);
    }
    // logs a confirmed lock (locked = 1) or unlock (0) unless the log already says so
    void confirm(core::EventCtx& ctx, double locked) const {
        if (ctx.discrete(logged) == locked) return;
        ctx.log(locked > 0 ? core::EventKind::Lock : core::EventKind::Unlock, ctx.discrete(vEvent));
        ctx.set(logged, locked);
    }
    void start(core::EventCtx& ctx) const;
    void settleLocked(core::EventCtx& ctx) const;
    void settleWait(core::EventCtx& ctx) const;

    const core::Choice limitsFrom;
    const core::Param fsPos, fsNeg, fk;
    const core::Choice model;
    const core::Param vS, cv, vth;
    const core::Port R, C, FK, FSf, FSr;
    const core::Computed vRec;
    const core::Var f, h;
    const core::Computed modeRec;
    const core::Discrete mode, dir, since, logged, vetoed, vEvent;
};

// locked: g0 = upper - f, g1 = f - lower; wait: g0 = vth - s v, g1 = s v + vth;
// unlocked: g0 = s v, g1 unused. Every transition is a decreasing crossing.
void Stiction::eventFunctions(const core::Eq<double>& eq, std::span<double> g) const {
    const double sv = sign(eq) * relVelocity(eq);
    switch (eq.mode(mode)) {
    case kLocked: g[0] = upper(eq) - eq[f]; g[1] = eq[f] - lower(eq); break;
    case kWait: g[0] = real(vth) - sv; g[1] = sv + real(vth); break;
    default: g[0] = sv; g[1] = 1.0;
    }
}

void Stiction::onEvent(core::EventCtx& ctx, int which, int direction) const {
    if (direction > 0) return;
    const double v = relVelocity(ctx.eq());
    switch (ctx.mode(mode)) {
    case kLocked:
        ctx.set(dir, which == 0 ? 1.0 : 0.0);
        enter(ctx, kWait, v);
        break;
    case kWait:
        if (which == 0) ctx.set(mode, kUnlocked);
        else enter(ctx, kLocked, v);
        break;
    default:
        if (which == 0) enter(ctx, kLocked, v);
    }
}

void Stiction::settle(core::EventCtx& ctx) const {
    if (ctx.discrete(since) < 0) return start(ctx);
    if (ctx.mode(mode) == kLocked) settleLocked(ctx);
    else if (ctx.mode(mode) == kWait && ctx.discrete(since) == ctx.time()) settleWait(ctx);
}

// First settle after the consistent start: lock if at rest, else slide in the direction of v.
void Stiction::start(core::EventCtx& ctx) const {
    const double v = relVelocity(ctx.eq());
    if (std::abs(v) <= real(vth)) return enter(ctx, kLocked, v);
    ctx.set(dir, v > 0 ? 1.0 : 0.0);
    ctx.set(logged, 0.0);   // moving from the start: nothing to log
    enter(ctx, kUnlocked, v);
}

void Stiction::settleLocked(core::EventCtx& ctx) const {
    const core::Eq<double>& eq = ctx.eq();
    confirm(ctx, 1.0);   // a reversal through v = 0 is a lock and an unlock at the same instant
    // at the limit counts as outside: IDA ignores an event function that restarts at exactly 0
    const double force = eq[f];
    if (force >= upper(eq) || force <= lower(eq)) {
        ctx.set(dir, force >= upper(eq) ? 1.0 : 0.0);
        enter(ctx, kWait, relVelocity(eq));
    }
}

// Just broken away (v = 0): does kinetic friction let the joint move in its direction?
void Stiction::settleWait(core::EventCtx& ctx) const {
    const core::Eq<double>& eq = ctx.eq();
    const double a = eq.der(R) - eq.der(C);
    if (sign(eq) * a < 0 && ctx.discrete(vetoed) != ctx.time()) {
        ctx.set(mode, kLocked);
        ctx.set(vetoed, ctx.time());
        return;
    }
    confirm(ctx, 0.0);
}

void addStiction(core::Registry& r) {
    for (Domain d : {Domain::Translational, Domain::Rotational})
        r.add([d](const core::ParamValues& p) -> std::unique_ptr<core::Block> { return std::make_unique<Stiction>(p, d); });
}

}  // namespace endstop::blocks
