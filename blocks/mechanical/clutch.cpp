// SPDX-License-Identifier: GPL-3.0-or-later
// Clutch (rotational, between R and C) and brake (translational; C is usually grounded): friction
// whose limits follow a normal force. See docs/blocks.md.
//   fn = fn_max * u (u is not clamped); v = v_R - v_C; f flows from R through the block to C
//   free     (fn <= 0):        f = 0
//   sliding / wait:            f = s * cgeo * mu(s * v) * fn, s = +1 or -1 the direction of motion
//   locked:                    v_R' - v_C' - eps * h = 0, f the holding force, h = f (as stiction)
//   mu: linear interpolation in (mu_speeds, mu_values), linear extrapolation past both ends
// A locked clutch holds |f| <= peak * cgeo * mu(0) * fn. Locking and breakaway follow the rules
// the stiction block uses (blocks/mechanical/friction_lock.hpp), so several clutches that change
// at once end in a consistent set of modes.
//   engage   (fn rises above 0): slides in the direction of v, or locks if v is at rest
//   disengage (fn falls to 0): free
// IDA locates a crossing of fn to within its time tolerance, on either side: a clutch that
// engaged or disengaged at an instant is not switched back by settle() in the same instant (it
// checks fn only for jumps of u at scheduled events). Engaging takes fn > 1e-12 * fn_max, and at
// a scheduled event a clutch with fn <= 1e-15 * fn_max is free.
// Recorded mode: -1 backward, 0 locked, 1 forward, 2 free.
#include "blocks/common.hpp"
#include "blocks/mechanical/friction_lock.hpp"

#include <algorithm>

namespace endstop::blocks {

namespace {
constexpr int kFree = 3;                    // after the FrictionMode values
constexpr double kCfmAcceleration = 1e-9;   // SI acceleration error at the largest holding force
constexpr double kEngageFraction = 1e-12;   // of fn_max
constexpr double kFreeFraction = 1e-15;     // of fn_max: a normal force of round-off (settle())
// Event slots: the friction joint's (friction_lock.hpp), then the normal force's.
enum Event : int { kNormalForce = kLockEvents, kEvents };
}   // namespace

class Clutch final : public core::BlockT<Clutch> {
public:
    Clutch(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          fnMax(real("fn_max", "Maximum normal force", "N", 0.0)
                    .atLeast(0)
                    .help("fn = fn_max * u; with 0 the block never engages")),
          cgeo(real("cgeo", "Geometry constant", d == Domain::Rotational ? "m" : "", 1.0)
                   .above(0)
                   .help(d == Domain::Rotational ? "effective friction radius times the number of friction surfaces"
                                                 : "friction force per unit of mu * fn")),
          muSpeeds(vector("mu_speeds", "Friction table: relative speeds", names(d).velocity, {0.0})
                       .atLeast(0)
                       .group("Friction coefficient")),
          muValues(
              vector("mu_values", "Friction table: coefficients", "", {0.5}).atLeast(0).group("Friction coefficient")),
          peak(real("peak", "Peak factor (static / kinetic at rest)", "", 1.0).atLeast(1)),
          vth(real("velocity_threshold", "Velocity threshold", names(d).velocity, 1e-4)
                  .above(0)
                  .help("set it well above the absolute tolerance")),
          R(conserving("R", d, "R")),
          C(conserving("C", d, "C")),
          U(input("u", "Normalized normal force", "")),
          vRec(computed(names(d).v, "Relative velocity", names(d).velocity)),
          f(algebraic(names(d).f, std::string("Friction ") + names(d).flow, names(d).force)
                .recorded()
                .constraintForce()),
          fnRec(computed("fn", "Normal force", "N")),
          modeRec(computed("mode", "Mode: -1 backward, 0 locked, 1 forward, 2 free", "")),
          h(algebraic("holding", std::string("Copy of the ") + names(d).flow + " for the lock", names(d).force)
                .constraintForce()),
          lock{discrete("mode", kFree, 4), discrete("direction", 1.0, 2), discrete("since", -1.0),
               discrete("logged", -1.0),   discrete("vetoed", -1.0),      discrete("v_event", 0.0)},
          switched(discrete("switched", -1.0)) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        switch (eq.mode(lock.mode)) {
            case kFree:
                eq.residual(f) = eq[f];
                break;
            case kLocked:
                eq.residual(f) = eq.der(R) - eq.der(C) - cfm() * eq[h];
                break;
            default: {
                const double s = eq.mode(lock.dir) == kForward ? 1.0 : -1.0;
                const S v = eq.across(R) - eq.across(C);
                eq.residual(f) = eq[f] - s * real(cgeo) * mu(s * v) * (real(fnMax) * eq.input(U));
            }
        }
        eq.residual(h) = eq[h] - eq[f];
        eq.flowThrough(R, C, eq[f]);
    }
    template <class S> void velocityConstraints(core::Eq<S>& eq) const {
        if (eq.mode(lock.mode) == kLocked) eq.residual(f) = eq.across(R) - eq.across(C);
    }

    int eventCount() const override { return kEvents; }
    void eventFunctions(const core::Eq<double>& eq, std::span<double> g) const override;
    void onEvent(core::EventCtx& ctx, int which, int direction) const override;
    bool hasSettle() const override { return true; }
    void settle(core::EventCtx& ctx) const override;
    bool holding(const core::Eq<double>& eq) const override { return eq.mode(lock.mode) == kLocked; }
    bool holdsByFriction() const override { return true; }
    void initModes(core::EventCtx& ctx) const override {
        ctx.set(lock.mode, kFree);
        ctx.set(lock.dir, relVelocity(ctx.eq()) < 0 ? kBackward : kForward);
    }
    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        out[static_cast<std::size_t>(vRec.index)] = relVelocity(eq);
        out[static_cast<std::size_t>(fnRec.index)] = normalForce(eq);
        const int m = eq.mode(lock.mode);
        out[static_cast<std::size_t>(modeRec.index)] = m == kFree ? 2.0 : m == kLocked ? 0.0 : lock.sign(eq);
    }
    void validateMore(core::Diagnostics& out) const override;

private:
    static core::BlockInfo info(Domain d) {
        const bool rot = d == Domain::Rotational;
        return {.typeId = rot ? "rotational.clutch" : "translational.brake",
                .typeVersion = 1,
                .title = rot ? "Clutch" : "Brake",
                .category = names(d).category,
                .help = std::string("Friction between R and C pressed by a normal force that follows the input u: free "
                                    "while the normal force is not positive, slides with a friction coefficient that "
                                    "depends on the relative speed, locks while the ") +
                        names(d).flow + " stays within the peak static friction."};
    }
    // mu at a relative speed: the table's segment around it (the end segments beyond the ends)
    template <class S> S mu(const S& speed) const {
        const std::vector<double>& xs = vec(muSpeeds);
        const std::vector<double>& ys = vec(muValues);
        if (xs.size() < 2 || ys.size() != xs.size()) return S(ys.empty() ? 0.0 : ys.front());
        const auto upper = std::upper_bound(xs.begin() + 1, xs.end() - 1, core::ad::value(speed));
        const auto i = static_cast<std::size_t>(upper - xs.begin());
        const double slope = (ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1]);
        return ys[i - 1] + slope * (speed - xs[i - 1]);
    }
    double normalForce(const core::Eq<double>& eq) const { return real(fnMax) * eq.input(U); }
    double holdingLimit(const core::Eq<double>& eq) const {
        return real(peak) * real(cgeo) * mu(0.0) * normalForce(eq);
    }
    double engageAbove() const { return kEngageFraction * real(fnMax); }
    double cfm() const { return kCfmAcceleration / std::max(real(peak) * real(cgeo) * mu(0.0) * real(fnMax), 1e-12); }
    double relVelocity(const core::Eq<double>& eq) const { return eq.across(R) - eq.across(C); }

    void engage(core::EventCtx& ctx, bool log) const;
    void disengage(core::EventCtx& ctx) const;

    const core::Param fnMax, cgeo;
    const core::VecParam muSpeeds, muValues;
    const core::Param peak, vth;
    const core::Port R, C, U;
    const core::Computed vRec;
    const core::Var f;
    const core::Computed fnRec, modeRec;
    const core::Var h;
    const FrictionLock lock;
    const core::Discrete switched;
};

// the friction slots: the friction modes' (friction_lock.hpp); kNormalForce: free: fn - threshold
// (rising: engage), engaged: fn (falling: disengage).
void Clutch::eventFunctions(const core::Eq<double>& eq, std::span<double> g) const {
    const double fn = normalForce(eq);
    if (eq.mode(lock.mode) == kFree) {
        g[kUpperLimit] = g[kLowerLimit] = 1.0;
        g[kNormalForce] = real(fnMax) > 0 ? fn - engageAbove() : -1.0;
        return;
    }
    lock.eventFunctions(eq, relVelocity(eq), eq[f], holdingLimit(eq), -holdingLimit(eq), real(vth), g);
    g[kNormalForce] = fn;
}

void Clutch::onEvent(core::EventCtx& ctx, int which, int direction) const {
    const int m = ctx.mode(lock.mode);
    if (which == kNormalForce) {
        if (m == kFree && direction == core::kRising)
            engage(ctx, true);
        else if (m != kFree && direction == core::kFalling)
            disengage(ctx);
        return;
    }
    if (m != kFree) lock.onEvent(ctx, which, direction, relVelocity(ctx.eq()));
}

void Clutch::settle(core::EventCtx& ctx) const {
    const core::Eq<double>& eq = ctx.eq();
    const double fn = normalForce(eq);
    if (ctx.discrete(lock.since) < 0) {   // the first settle after the consistent start
        if (fn > engageAbove())
            engage(ctx, false);
        else
            lock.enter(ctx, kFree, relVelocity(eq));
        return;
    }
    const bool justSwitched = ctx.discrete(switched) == ctx.time();
    if (ctx.mode(lock.mode) == kFree) {
        if (fn > engageAbove() && !justSwitched) engage(ctx, true);   // u stepped up at a scheduled event
        return;
    }
    // free at a normal force of round-off, not only at 0: a pulse's output that IDA solves (the
    // engine as drawn) fell to 2e-35, not 0, at its falling edge, and the brake stayed engaged
    // under 2e-34 N until a root found the force at 0, 5e-5 s late. Not at the engage threshold
    // itself: IDA locates that root to within its time tolerance, and a clutch engaged 3e-13 s
    // early by cos(2 pi t) met another event 1e-14 s after the crossing, below that threshold.
    if (fn <= kFreeFraction * real(fnMax) && !justSwitched) return disengage(ctx);
    lock.settle(ctx, eq[f], holdingLimit(eq), -holdingLimit(eq), relVelocity(eq), eq.der(R) - eq.der(C), real(vth));
}

// Slides in the direction of v, or locks if v is at rest (settle() then checks the limits).
void Clutch::engage(core::EventCtx& ctx, bool log) const {
    const double v = relVelocity(ctx.eq());
    if (log) ctx.log(core::EventKind::Engage, v);
    ctx.set(switched, ctx.time());
    lock.start(ctx, v, real(vth));
}

void Clutch::disengage(core::EventCtx& ctx) const {
    const double v = relVelocity(ctx.eq());
    ctx.log(core::EventKind::Disengage, v);
    ctx.set(switched, ctx.time());
    ctx.set(lock.logged, -1.0);
    lock.enter(ctx, kFree, v);
}

void Clutch::validateMore(core::Diagnostics& out) const {
    const std::vector<double>& xs = vec(muSpeeds);
    const std::vector<double>& ys = vec(muValues);
    if (xs.empty()) out.push_back(paramError("mu_speeds", "needs at least one speed"));
    if (ys.size() != xs.size())
        out.push_back(paramError("mu_values", "must have as many elements as mu_speeds (" + std::to_string(xs.size()) +
                                                  "), got " + std::to_string(ys.size())));
    for (std::size_t i = 1; i < xs.size(); ++i)
        if (!(xs[i] > xs[i - 1])) {
            out.push_back(
                paramError("mu_speeds", "must be strictly increasing (element " + std::to_string(i + 1) + ")"));
            break;
        }
    if (real(fnMax) == 0.0) out.push_back(paramWarning("fn_max", "is 0: the block never engages"));
}

void addClutch(core::Registry& r) {
    r.addTwins<Clutch>({Domain::Rotational, Domain::Translational});   // the clutch first in the library
}

}   // namespace endstop::blocks
