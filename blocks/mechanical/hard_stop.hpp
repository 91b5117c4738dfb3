// SPDX-License-Identifier: GPL-3.0-or-later
// Double-sided hard stop between slider R and case C, both domains (its declaration; definitions in
// hard_stop.cpp, the branches and corners of the stiffness laws in hard_stop_branches.cpp).
//   v = v_R - v_C,  x' = v,  x(0) = 0,  gp = upper_bound,  gn = lower_bound
//   f flows from R through the stop to C: f > 0 decelerates R once the upper gap is closed.
// Modes change only at events. Stiffness laws (the parameter `model`): the event functions gp - x
// and x - gn (located by IDA) switch FREE (0) <-> CONTACT_UPPER (1, p = x - gp >= 0) /
// CONTACT_LOWER (2, p = gn - x >= 0).
// Upper bound (the lower bound mirrors it with Kn, Dn, p' = -v and f = -F):
//   full_damped:    F = Kp p + Dp p'
//   full_undamped:  F = Kp p + Dp p' ge(p', 0)                    no damping on the rebound
//   smooth:         u = clamp(p / delta, 0, 1),  s = u^2 (3 - 2u),
//                   F = s (Kp p + clamp(Dp p', -Kp p, Kp p))      never pulls, C1 at p = 0 and delta
//   between the bounds F = 0.  E' = (damping part of F) p' >= 0, the dissipated power; smooth:
//   E' = F p', the work done on the contact, and energy_dissipated = E - V(p), V the potential of
//   F's spring part, K delta^2 (3 u^4 / 4 - 2 u^5 / 5) up to delta and 0.35 K delta^2 +
//   K (p^2 - delta^2) / 2 beyond. The dissipated power is the same (the clamped damping part
//   times p'), but where the clamp cancels the force nothing is integrated at all: the spring
//   energy left in the ramp is booked exactly however long IDA's step over that stretch.
//   The corners where the force's slope jumps are events: a second discrete, the branch, fixes
//   which piece applies (smooth: clamp inactive / at -Kp / at +Kp, and on the ramp or beyond it;
//   full_undamped: p' >= 0 or not), so that Newton never iterates across a corner (it did not
//   converge there at tight tolerances); event functions Kp + Dp p', Kp - Dp p', p - delta and p';
//   settle() reclassifies after every event. The end of the smooth law's ramp (p = delta) is C1,
//   an event too, so that IDA's history can be moved across it (on the ramp branch, s continues
//   its cubic past delta for the part of a step before the event is located). A change of mode or
//   branch that leaves the force where it was (the smooth law's bounds, corners and the end of its
//   ramp) is marked continuous, and the solver steps over it when it can (docs/engine.md, "Events
//   IDA steps over").
// Restitution law (a mode chart; no penetration):
//   FREE: f = 0.  CONTACT_UPPER / CONTACT_LOWER: v' = 0 (acceleration level), f the constraint force.
//   IMPACT (instantaneous): a bound reached with approach speed above static_speed_threshold gets
//     v+ = -e v- from the core's momentum-conserving projection (an impulse between the bodies on
//     both sides); at or below it v+ = 0 and the stop goes to contact. The loss P (v- + v+) / 2,
//     P the impulse, adds to energy_dissipated.
//   RELEASE_UPPER / RELEASE_LOWER (instantaneous): contact ends when the force holding it pulls by
//     more than release_threshold (f < -threshold at the upper bound, f > threshold at the lower);
//     the release mode sets the initial speed v = 0 exactly (a velocity-level target) before FREE.
//   Zeno: an approach speed below kZenoRatio times the fastest impact seen so far also counts as
//     contact, so a bouncing sequence with threshold 0 ends in contact instead of stalling.
#pragma once

#include "blocks/common.hpp"
#include "core/blockapi/instant.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace endstop::blocks::hard_stop {

using core::EventCtx;
using core::EventKind;

enum Mode { kFree, kContactUpper, kContactLower, kReleaseUpper, kReleaseLower, kImpact, kModes };
// branch = region + 2 * clamp; region: full_undamped p' >= 0, smooth p >= delta; clamp: smooth only
enum Clamp { kUnclamped, kClampLow, kClampHigh };
constexpr int kBranches = 6;
enum class ContactLaw { Smooth, FullUndamped, FullDamped, Restitution };   // the choice `model`
enum Event : int {                                                         // the event slots
    kUpperSide = 0,
    kLowerSide = 1,       // x reaches a bound; restitution: or the contact there releases
    kRegionKink = 2,      // full_undamped: p' crosses 0; smooth: p crosses delta; free past a bound:
                          // the approach starts;
                          // restitution: free after a release, the slider has left its rest
    kLowClampKink = 3,    // smooth: the damping reaches -K p
    kHighClampKink = 4,   // smooth: the damping reaches +K p
    kEvents = 5
};

inline ContactLaw lawOf(const std::string& k) {
    if (k == "restitution") return ContactLaw::Restitution;
    if (k == "full_damped") return ContactLaw::FullDamped;
    return k == "full_undamped" ? ContactLaw::FullUndamped : ContactLaw::Smooth;
}

constexpr double kZenoRatio = 1e-6;
constexpr double kRestShare = 1e-3;           // of the gap: the most a rest after a release moves the bound (release())
constexpr double kHeldBand = 1e-6;            // of the law's terms: a corner held across (returning(), holdAcross())
constexpr double kTiny = core::kEventNudge;   // towards the current mode's side (block.hpp)

struct Defaults {
    double bound, stiffness, damping, transition;
};
inline Defaults defaults(Domain d) {
    return d == Domain::Rotational ? Defaults{0.1, 1e6, 0.01, 1e-3} : Defaults{0.1, 1e6, 150.0, 1e-4};
}

template <class S> struct Contact {
    S force;   // F along the penetration
    S power;   // E': dissipated by the damping part; smooth: into the contact, F p' (HardStop::stored)
};

struct Penetration {   // in the current contact mode, for events
    double p = 0.0, pd = 0.0, K = 0.0, D = 0.0;
};

inline const char* const kHelp =
    "Double-sided hard stop between slider R and case C, x the slider's position relative to the case (0 at the "
    "start): in contact at x >= upper_bound or x <= lower_bound. The stiffness laws let the slider penetrate and "
    "push it back with a spring and a damper: full_damped at once, full_undamped without damping on the rebound, "
    "smooth ramped in over transition_region and never pulling. restitution allows no penetration: an impact "
    "reverses the relative velocity scaled by the restitution coefficient, slower ones stay in contact until the "
    "holding force pulls by more than release_threshold. mode: 0 free, 1 upper contact, 2 lower contact (3, 4 "
    "release and 5 impact are instantaneous).";

class HardStop final : public core::BlockT<HardStop> {
public:
    HardStop(const core::ParamValues& p, Domain d);

    template <class S> void equations(core::Eq<S>& eq) const {
        const S v = eq.across(R) - eq.across(C);
        eq.residual(x) = eq.der(x) - v;
        if (m_law == ContactLaw::Restitution)
            restitutionRows(eq);
        else
            stiffnessRows(eq, v);
        eq.flowThrough(R, C, eq[f]);
    }

    // the velocity-level form of the contact / impact constraint for the projection
    template <class S> void velocityConstraints(core::Eq<S>& eq) const {
        eq.residual(f) = eq.across(R) - eq.across(C) - eq.discrete(target);
    }

    int eventCount() const override { return kEvents; }
    void eventFunctions(const core::Eq<double>& eq, std::span<double> g) const override;
    void onEvent(EventCtx& ctx, int which, int direction) const override;
    void liveEvents(const core::Eq<double>& eq, std::span<char> live) const override;
    bool affineEvent(const core::Eq<double>& eq, int which, core::AffineEvent& out) const override;
    // a restitution stop's contact is a lock (v_R' - v_C' = 0), its force a constraint force
    bool holding(const core::Eq<double>& eq) const override {
        return m_law == ContactLaw::Restitution && eq.mode(mode) != kFree;
    }
    bool hasSettle() const override { return m_law != ContactLaw::FullDamped; }
    bool changesAcross() const override { return m_law == ContactLaw::Smooth; }
    void settle(EventCtx& ctx) const override;
    void initModes(EventCtx& ctx) const override;
    void record(const core::Eq<double>& eq, std::span<double> out) const override;

private:
    static core::BlockInfo info(Domain d) {
        return {.typeId = typeId(d, "hard_stop"),
                .typeVersion = 1,
                .title = std::string(names(d).category) + " Hard Stop",
                .category = names(d).category,
                .help = kHelp};
    }
    void validateMore(core::Diagnostics& out) const override;

    template <class S> void stiffnessRows(core::Eq<S>& eq, const S& v) const {
        const Contact<S> c = contact(eq[x], v, eq.mode(mode), eq.mode(branch));
        eq.residual(f) = eq[f] - c.force;
        eq.residual(E) = eq.der(E) - c.power;
    }

    // f (along f, not along the penetration) and the dissipated power in mode m and branch b
    template <class S> Contact<S> contact(const S& xv, const S& v, int m, int b) const {
        Contact<S> c{S(0.0), S(0.0)};
        if (m == kContactUpper) {
            c = law(xv - real(gp), v, real(kp), real(dp), b);
        } else if (m == kContactLower) {
            c = law(real(gn) - xv, -v, real(kn), real(dn), b);
            c.force = -c.force;
        }
        return c;
    }

    // force along the penetration p entering with speed pd, in branch b. A step may overshoot the
    // bound before IDA locates it (p < 0): the smooth law gives no force and no power there
    // instead of extrapolating its ramp (which booked huge negative dissipated energy).
    template <class S> Contact<S> law(const S& p, const S& pd, double K, double D, int b) const {
        const S spring = K * p;
        const bool region = b % 2 != 0;
        const S damping = m_law == ContactLaw::FullUndamped && !region ? S(0.0) : D * pd;
        if (m_law != ContactLaw::Smooth) return {spring + damping, damping * pd};
        const double d = real(delta);
        // on the ramp past its end (a step not yet cut at the event): s = 1 - 3 e^2 / (1 + 6 e^2)
        // = (1 + 1 / (1 + 6 e^2)) / 2, e = u - 1: the cubic to second order, never below 1/2, and
        // held from twice the ramp on (p / delta there can overflow: delta is any positive number)
        const S u = p <= 0.0 ? S(0.0) : region ? S(1.0) : p >= 2.0 * d ? S(2.0) : p / d;
        const S past = u - 1.0;
        const S s = u <= 1.0 ? u * u * (3.0 - 2.0 * u) : 0.5 + 0.5 / (1.0 + 6.0 * past * past);
        const S limited = b / 2 == kClampLow ? -spring : b / 2 == kClampHigh ? spring : damping;
        return {s * (spring + limited), s * (spring + limited) * pd};
    }
    // V(p): what of E the smooth law's spring part holds in the current contact (0 when free and
    // below the bound, where the ramp gives no force); the other laws integrate the dissipated
    // power itself
    double stored(const core::Eq<double>& eq) const {
        if (m_law != ContactLaw::Smooth) return 0.0;
        const Penetration c = penetration(eq);   // p = 0 when free
        const double d = real(delta);
        if (c.p <= 0.0) return 0.0;
        if (eq.mode(branch) % 2 != 0) return c.K * (0.35 * d * d + 0.5 * (c.p * c.p - d * d));   // beyond the ramp
        const double u = c.p / d;
        return c.K * d * d * u * u * u * u * (0.75 - 0.4 * u);
    }

    template <class S> void restitutionRows(core::Eq<S>& eq) const {
        const int m = eq.mode(mode);
        eq.residual(f) = m != kFree ? eq.der(R) - eq.der(C) : eq[f];   // held: contact, impact, release
        eq.residual(E) = eq.der(E);
    }

    double relativeVelocity(const core::Eq<double>& eq) const { return eq.across(R) - eq.across(C); }
    void crossBound(EventCtx& ctx, int which, int direction) const;
    void enter(EventCtx& ctx, int side) const;
    Penetration penetration(const core::Eq<double>& eq) const;
    int branchAt(const core::Eq<double>& eq, int current) const;
    void crossKink(EventCtx& ctx, int which, int direction) const;
    bool againstRate(const core::Eq<double>& eq, int which, int direction) const;
    bool backAtOnce(const EventCtx& ctx, int which, int direction) const;
    bool heads(const core::Eq<double>& eq, int which, int direction) const;
    bool returning(const core::Eq<double>& eq, int clamp, int held) const;
    void holdAcross(EventCtx& ctx) const;
    struct Corner {
        double g, terms;   // K p +- D p', and |K p| + |D p'|
        // how far beyond the state a corner held across is watched: kHeldBand of the terms, at
        // least twice the function's value
        double band() const { return std::max(kHeldBand * terms, 2.0 * std::abs(g)); }
    };
    Corner corner(const core::Eq<double>& eq, int which) const;
    static double sideOf(int which, int clamp);
    static int clampOf(double spring, double damper);
    void markContinuous(EventCtx& ctx, int modeBefore, int branchBefore) const;
    void kink(const core::Eq<double>& eq, int which, core::AffineEvent& out) const;
    void hit(EventCtx& ctx, int side) const;
    void afterImpact(EventCtx& ctx) const;
    void release(EventCtx& ctx, int side) const;
    void holdReference(EventCtx& ctx, int side) const;
    void endRest(EventCtx& ctx) const;

    const core::Param gp, gn;
    const core::Choice contactLaw;
    const core::Param kp, kn, dp, dn, delta, e, speedThreshold, releaseThreshold;
    const core::Port R, C;
    const core::Var x;
    const core::Computed vRec;
    const core::Var f;
    const core::Computed penetrationRec, impactsRec, energyRec, modeRec;
    const core::Var E;
    const core::Discrete mode, branch, impacts, loss, vBefore, target, side, refUpper, refLower, fastest, receding,
        cornerTime, heldCorner, heldOffset, rest;
    const ContactLaw m_law;
};

}   // namespace endstop::blocks::hard_stop
