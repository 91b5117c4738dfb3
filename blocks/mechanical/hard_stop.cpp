// SPDX-License-Identifier: GPL-3.0-or-later
// Double-sided hard stop between slider R and case C, both domains.
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
#include "blocks/common.hpp"
#include "core/blockapi/instant.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace endstop::blocks {

using core::EventCtx;
using core::EventKind;

namespace {

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

ContactLaw lawOf(const std::string& k) {
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
Defaults defaults(Domain d) {
    return d == Domain::Rotational ? Defaults{0.1, 1e6, 0.01, 1e-3} : Defaults{0.1, 1e6, 150.0, 1e-4};
}

template <class S> struct Contact {
    S force;   // F along the penetration
    S power;   // E': dissipated by the damping part; smooth: into the contact, F p' (HardStop::stored)
};

struct Penetration {   // in the current contact mode, for events
    double p = 0.0, pd = 0.0, K = 0.0, D = 0.0;
};

const char* const kHelp =
    "Double-sided hard stop between slider R and case C, x the slider's position relative to the case (0 at the "
    "start): in contact at x >= upper_bound or x <= lower_bound. The stiffness laws let the slider penetrate and "
    "push it back with a spring and a damper: full_damped at once, full_undamped without damping on the rebound, "
    "smooth ramped in over transition_region and never pulling. restitution allows no penetration: an impact "
    "reverses the relative velocity scaled by the restitution coefficient, slower ones stay in contact until the "
    "holding force pulls by more than release_threshold. mode: 0 free, 1 upper contact, 2 lower contact (3, 4 "
    "release and 5 impact are instantaneous).";

}   // namespace

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

HardStop::HardStop(const core::ParamValues& p, Domain d)
    : BlockT(info(d), p),
      gp(real("upper_bound", "Upper bound", names(d).position, defaults(d).bound)
             .group("Bounds")
             .help("Gap between the slider and the upper bound; negative: penetrating at the start")),
      gn(real("lower_bound", "Lower bound", names(d).position, -defaults(d).bound)
             .group("Bounds")
             .help("Gap between the slider and the lower bound; positive: penetrating at the start")),
      contactLaw(choice("model", "Hard stop model", "smooth",
                        {{"smooth", "Stiffness and damping applied smoothly through transition region, damped rebound"},
                         {"full_undamped", "Full stiffness and damping applied at bounds, undamped rebound"},
                         {"full_damped", "Full stiffness and damping applied at bounds, damped rebound"},
                         {"restitution", "Based on coefficient of restitution"}})
                     .group("Bounds")),
      kp(real("upper_stiffness", "Contact stiffness at upper bound", names(d).stiffness, defaults(d).stiffness)
             .above(0)
             .group("Contact")
             .visibleWhen(contactLaw, {"smooth", "full_undamped", "full_damped"})),
      kn(real("lower_stiffness", "Contact stiffness at lower bound", names(d).stiffness, defaults(d).stiffness)
             .above(0)
             .group("Contact")
             .visibleWhen(contactLaw, {"smooth", "full_undamped", "full_damped"})),
      dp(real("upper_damping", "Contact damping at upper bound", names(d).damping, defaults(d).damping)
             .atLeast(0)
             .group("Contact")
             .visibleWhen(contactLaw, {"smooth", "full_undamped", "full_damped"})),
      dn(real("lower_damping", "Contact damping at lower bound", names(d).damping, defaults(d).damping)
             .atLeast(0)
             .group("Contact")
             .visibleWhen(contactLaw, {"smooth", "full_undamped", "full_damped"})),
      delta(real("transition_region", "Transition region", names(d).position, defaults(d).transition)
                .above(0)
                .group("Contact")
                .visibleWhen(contactLaw, {"smooth"})
                .help("Penetration over which force and damping ramp in: s = u^2 (3 - 2u), u = min(p / delta, 1)")),
      e(real("restitution_coefficient", "Coefficient of restitution", "", 0.8)
            .atLeast(0)
            .atMost(1)
            .group("Restitution")
            .visibleWhen(contactLaw, {"restitution"})
            .help("Relative speed after an impact over the speed before it")),
      speedThreshold(real("static_speed_threshold", "Static contact speed threshold", names(d).velocity, 1e-3)
                         .atLeast(0)
                         .group("Restitution")
                         .visibleWhen(contactLaw, {"restitution"})
                         .help("Slower impacts end in static contact instead of a bounce; 0: always bounce")),
      releaseThreshold(real("release_threshold", std::string("Static contact release ") + names(d).flow + " threshold",
                            names(d).force, 1e-3)
                           .atLeast(0)
                           .group("Restitution")
                           .visibleWhen(contactLaw, {"restitution"})
                           .help("The contact is released when the force holding it pulls by more than this")),
      R(conserving("R", d, "Slider")),
      C(conserving("C", d, "Case")),
      x(state(names(d).x, "Slider position relative to the case", names(d).position).recorded().startsAt(0.0)),
      vRec(computed(names(d).v, "Relative velocity", names(d).velocity)),
      f(algebraic(names(d).f, std::string("Contact ") + names(d).flow, names(d).force).recorded().constraintForce()),
      penetrationRec(computed("penetration", "Penetration into the stop", names(d).position)),
      impactsRec(computed("impacts", "Number of impacts", "")),
      energyRec(computed("energy_dissipated", "Energy dissipated (cumulative)", "J")),
      modeRec(computed("mode", "Mode (0 free, 1 upper contact, 2 lower contact)", "")),
      E(state("damping_energy", "Energy dissipated by contact damping (smooth: work done on the contact)", "J")
            .quadrature()),
      mode(discrete("mode", kFree, kModes)),
      branch(discrete("branch", 0, kBranches)),
      impacts(discrete("impacts")),
      loss(discrete("impact_loss")),
      vBefore(discrete("v_before")),
      target(discrete("v_target")),
      side(discrete("side")),
      refUpper(discrete("ref_upper", real(gp))),
      refLower(discrete("ref_lower", real(gn))),
      fastest(discrete("fastest")),
      receding(discrete("receding")),
      cornerTime(discrete("corner_time", -std::numeric_limits<double>::max())),
      heldCorner(discrete("held_corner")),
      heldOffset(discrete("held_offset")),
      rest(discrete("rest")),
      m_law(lawOf(key(contactLaw))) {}

void HardStop::validateMore(core::Diagnostics& out) const {
    if (!(real(gn) < real(gp)))
        out.push_back(paramError("lower_bound", "must be less than upper_bound (" + core::formatNumber(real(gn)) +
                                                    " >= " + core::formatNumber(real(gp)) + ")"));
}

void HardStop::initModes(EventCtx& ctx) const {
    const double x0 = ctx.eq()[x];
    ctx.set(mode, x0 > real(gp) ? kContactUpper : x0 < real(gn) ? kContactLower : kFree);
    if (m_law == ContactLaw::Restitution) return;
    settle(ctx);
    ctx.set(loss, stored(ctx.eq()));   // a contact at the start: its spring energy is no loss
}

void HardStop::eventFunctions(const core::Eq<double>& eq, std::span<double> g) const {
    core::AffineEvent a;
    for (int i = 0; i < kEvents; ++i) {
        affineEvent(eq, i, a);
        g[static_cast<std::size_t>(i)] = a.value(eq);
    }
}

// Every event function of a stop is affine in x, f and the port velocities in each mode; the
// constant 1.0 where it is dead (liveEvents()).
bool HardStop::affineEvent(const core::Eq<double>& eq, int which, core::AffineEvent& out) const {
    const int m = eq.mode(mode);
    out = {};
    out.constant = 1.0;
    if (m_law == ContactLaw::Restitution) {   // instantaneous modes are never integrated
        const bool upper = which == kUpperSide;
        const double r = eq.discrete(rest);
        if (which == kRegionKink && m == kFree && r != 0.0) {   // the slider leaves its rest (release())
            out.constant = r > 0.0 ? -(eq.discrete(refUpper) - 2.0 * r) : eq.discrete(refLower) - 2.0 * r;
            out.add(x, r > 0.0 ? 1.0 : -1.0);
            out.nudge = kTiny;
        }
        if (which > kLowerSide) return true;
        if (m == kFree) {
            out.constant = upper ? eq.discrete(refUpper) : -eq.discrete(refLower);
            out.add(x, upper ? -1.0 : 1.0);
            out.nudge = kTiny;
        } else if (m == (upper ? kContactUpper : kContactLower)) {
            out.constant = real(releaseThreshold);
            out.add(f, upper ? 1.0 : -1.0);
            out.nudge = kTiny;
        }
        return true;
    }
    if (which == kUpperSide || which == kLowerSide) {
        // free: one function for both bounds, min(gp - x, x - gn) in the upper slot (crossBound()
        // tells the bound from x); in contact, the bound of that contact (leaving it comes first);
        // free past a bound while moving away from it, that bound from beyond it (back inside)
        const bool upper = which == kUpperSide;
        if (upper ? m == kContactLower : m != kContactLower) return true;   // dead (liveEvents())
        const int past = m == kFree ? eq.mode(receding) : 0;
        const bool upperBound = past != 0 ? past > 0 : upper;   // which bound this function watches
        out.constant = upperBound ? real(gp) : -real(gn);
        out.add(x, upperBound ? -1.0 : 1.0);
        out.nudge = past != 0 || m == (upper ? kContactUpper : kContactLower) ? -kTiny : kTiny;
        if (m == kFree && past == 0) {
            out.orMin(-real(gn), kTiny);
            out.add(x, 1.0);
        }
        return true;
    }
    if (which == kRegionKink && m == kFree) {   // past a bound while moving away: -s p', the approach starts
        const double s = eq.mode(receding);
        out.constant = 0.0;
        out.add(R, -s);
        out.add(C, s);
        out.nudge = kTiny;
        return true;
    }
    kink(eq, which, out);
    return true;
}

// the slots eventFunctions() does not set to the constant 1.0 in this mode
void HardStop::liveEvents(const core::Eq<double>& eq, std::span<char> live) const {
    const int m = eq.mode(mode);
    const bool contact = m == kContactUpper || m == kContactLower;
    std::fill(live.begin(), live.end(), char(0));
    if (m_law == ContactLaw::Restitution) {
        live[kUpperSide] = m == kFree || m == kContactUpper;
        live[kLowerSide] = m == kFree || m == kContactLower;
        live[kRegionKink] = m == kFree && eq.discrete(rest) != 0.0;
        return;
    }
    live[kUpperSide] = m != kContactLower;   // free: both bounds in one function (affineEvent())
    live[kLowerSide] = m == kContactLower;
    live[kRegionKink] = (contact && (m_law == ContactLaw::FullUndamped || m_law == ContactLaw::Smooth)) ||
                        (m == kFree && eq.mode(receding) != 0);
    live[kLowClampKink] = live[kHighClampKink] = contact && m_law == ContactLaw::Smooth;
}

// p, p' and the law's constants of the contact the current mode is in (zeros when free)
Penetration HardStop::penetration(const core::Eq<double>& eq) const {
    const int m = eq.mode(mode);
    const double v = relativeVelocity(eq);
    if (m == kContactUpper) return {eq[x] - real(gp), v, real(kp), real(dp)};
    if (m == kContactLower) return {real(gn) - eq[x], -v, real(kn), real(dn)};
    return {};
}

// The branch the state is in. Within rounding of a kink (1e-9 of its terms) the current branch
// stands: the crossing that led here chose it (crossKink), and the state settle() sees after a
// root can sit a few ulps on the old side, which would undo the switch and lose the kink.
int HardStop::branchAt(const core::Eq<double>& eq, int current) const {
    const Penetration c = penetration(eq);
    const int m = eq.mode(mode);
    if (m != kContactUpper && m != kContactLower) return m_law == ContactLaw::FullUndamped ? 1 : 0;   // p' = 0
    if (m_law == ContactLaw::FullUndamped) {
        const double band = 1e-9 * (std::abs(eq.across(R)) + std::abs(eq.across(C)));
        return std::abs(c.pd) <= band ? current : c.pd >= 0 ? 1 : 0;
    }
    if (m_law != ContactLaw::Smooth) return 0;
    const double spring = c.K * c.p, damper = c.D * c.pd, band = 1e-9 * (std::abs(spring) + std::abs(damper));
    const int clamp = clampOf(spring, damper), held = current / 2;
    const bool onLow = std::abs(spring + damper) <= band && (clamp == kClampLow || held == kClampLow);
    const bool onHigh = std::abs(spring - damper) <= band && (clamp == kClampHigh || held == kClampHigh);
    // on the ramp or beyond it; within rounding of its end the current region stands
    const double d = real(delta), atEnd = 1e-9 * (d + std::abs(eq[x]));
    const int region = std::abs(c.p - d) <= atEnd ? current % 2 : c.p > d ? 1 : 0;
    return region + 2 * (onLow || onHigh || returning(eq, clamp, held) ? held : clamp);
}

// The state is across a clamp corner from the branch held, within 1e-6 of the law's terms, and
// heading back: a restart's consistent values moved it there (againstRate()). The branch stands.
bool HardStop::returning(const core::Eq<double>& eq, int clamp, int held) const {
    if (clamp == held || (clamp != kUnclamped && held != kUnclamped)) return false;
    const bool low = clamp == kClampLow || held == kClampLow;
    const Corner k = corner(eq, low ? kLowClampKink : kHighClampKink);
    return std::abs(k.g) <= kHeldBand * k.terms &&
           heads(eq, low ? kLowClampKink : kHighClampKink, held == kUnclamped ? core::kRising : core::kFalling);
}

// The branch can stand while the state sits across one of its clamp corners: a crossing refused
// as round-off (crossKink), a restart's values within 1e-6 of the corner (returning()) or within
// rounding of it (branchAt). Each expects the corner's function to come back, and its event
// function, which has just crossed zero or sits across it, would not see it go on instead. At a
// loose tolerance a refused crossing's rate can be wrong: the function went on, and the stop
// kept the low clamp's zero force while the gear it holds went 0.5 rad into the mesh and the
// train spun up to 3,360 rad/s (the gear train example at rtol 1e-2, docs/reliability.md). So
// that corner's event function is moved by 1e-6 of the law's terms (at least twice the
// function's value) so that at the state it reads on the branch's side: going on across the
// corner by that much is a crossing. Should crossKink refuse that one too, it sets a band of
// twice the function's value, and settle() keeps the branch only while the state is within 1e-6
// of the law's terms and heading back (returning()). An offset that still holds the state is
// kept, so that settle() does not change it at every pass of a restart; right after a refused
// crossing the state can still read on the branch's side, within the band crossKink set. It is
// kept, too, where settle() has just left the branch by the state: it then sits on the old
// branch's side, and that corner goes unwatched until a settle() finds the state beyond it or
// the contact ends. That ends, at its first round, a loop in which the solution's error carries
// the function across against its rate (docs/reliability.md, "What an offset left after a
// switch does").
void HardStop::holdAcross(EventCtx& ctx) const {
    int held = 0;
    double offset = 0.0;
    const int m = ctx.mode(mode);
    if (m_law == ContactLaw::Smooth && (m == kContactUpper || m == kContactLower)) {
        const Penetration c = penetration(ctx.eq());
        const int branchClamp = ctx.mode(branch) / 2, clamp = clampOf(c.K * c.p, c.D * c.pd);
        const int armed = ctx.mode(heldCorner);
        const double set = ctx.discrete(heldOffset);
        if (clamp != branchClamp && (clamp == kUnclamped || branchClamp == kUnclamped)) {   // across a corner
            held = clamp == kClampLow || branchClamp == kClampLow ? kLowClampKink : kHighClampKink;
            const Corner k = corner(ctx.eq(), held);
            const double own = sideOf(held, branchClamp);   // the branch's side
            offset = armed == held && set * own > 0.0 && std::abs(set) > std::abs(k.g) ? set : own * k.band();
        } else if (armed != 0 && std::abs(corner(ctx.eq(), armed).g) < std::abs(set)) {
            held = armed;   // on the branch's side, within the band a refused crossing set (crossKink)
            offset = set;
        }
    }
    ctx.set(heldCorner, held);
    ctx.set(heldOffset, offset);
}

// the sign of a clamp corner's function on the branch's side: negative in that corner's clamp
double HardStop::sideOf(int which, int clamp) {
    return (which == kLowClampKink ? kClampLow : kClampHigh) == clamp ? -1.0 : 1.0;
}

// the clamp the law's terms are in: the damping below -K p, above +K p, or neither
int HardStop::clampOf(double spring, double damper) {
    return damper < -spring ? kClampLow : damper > spring ? kClampHigh : kUnclamped;
}

// kink()'s function of a clamp corner, unmoved, and the law's terms
HardStop::Corner HardStop::corner(const core::Eq<double>& eq, int which) const {
    const Penetration c = penetration(eq);
    const double spring = c.K * c.p, damper = c.D * c.pd;
    return {which == kLowClampKink ? spring + damper : spring - damper, std::abs(spring) + std::abs(damper)};
}

// A kink crossed: its direction says which branch the state enters
void HardStop::crossKink(EventCtx& ctx, int which, int direction) const {
    const int b = ctx.mode(branch);
    int region = b % 2, clamp = b / 2;
    const bool rising = direction == core::kRising;
    if (which == kRegionKink && m_law == ContactLaw::Smooth) {   // p - delta: the end of the ramp
        // against the penetration's rate, or back at the instant of the last switch without a rate
        // beyond doubt, the crossing is a restart's round-off (as at a clamp corner): the region
        // stands, and its formula goes on smoothly across the end for the few ulps it is off
        const double pd = penetration(ctx.eq()).pd;
        const double band = 1e-9 * (std::abs(ctx.eq().across(R)) + std::abs(ctx.eq().across(C)));
        const bool heading = pd * direction > band;
        if (pd * direction < -band || (core::sameInstant(ctx.time(), ctx.discrete(cornerTime)) && !heading)) return;
        region = rising ? 1 : 0;
    } else if (which == kRegionKink)
        region = rising ? 1 : 0;   // p' rises through 0
    else if (againstRate(ctx.eq(), which, direction) || backAtOnce(ctx, which, direction)) {
        ctx.set(heldCorner, which);   // round-off, not motion: the branch stands, and the corner
        ctx.set(heldOffset, -direction * corner(ctx.eq(), which).band());   // is watched beyond it (holdAcross())
        return;
    } else if (which == kLowClampKink)
        clamp = rising ? kUnclamped : kClampLow;   // K p + D p' falls through 0: the damping reaches -K p
    else
        clamp = rising ? kUnclamped : kClampHigh;   // K p - D p' falls through 0: it reaches +K p
    if (clamp != b / 2 || (m_law == ContactLaw::Smooth && region != b % 2)) ctx.set(cornerTime, ctx.time());
    ctx.set(branch, region + 2 * clamp);
}

// A clamp corner crossed again at the instant of the last clamp switch (to the chatter guard's
// resolution of time), with no rate beyond doubt carrying the state that way. The branch held
// for no time at all cannot have been left by motion: where the corner's function grazes zero,
// its rate reads as round-off of either sign from the accelerations at the root, and a restart's
// consistent values can put the function a few ulps on either side. Switched back there, the law
// went back and forth at one instant until the chatter guard ended the run (model d as drawn at
// rtol 1e-2, docs/reliability.md). The force is continuous at the corner, so the branch the first
// crossing chose is as good as the other at this state; a later crossing moves it on.
bool HardStop::backAtOnce(const EventCtx& ctx, int which, int direction) const {
    return core::sameInstant(ctx.time(), ctx.discrete(cornerTime)) && !heads(ctx.eq(), which, direction);
}

// A clamp corner crossed against its function's rate. The force is continuous at the corner, so
// the accelerations there, and the rate K p' +- D p'' of the corner's function K p +- D p', are
// the same on both branches. A restart's consistent values can move the function a few ulps of
// its terms back across the corner it was just crossed at, and IDA's next step reads that as a
// crossing the other way while the rate still points on. Switched there, the law went back and
// forth at one instant until the chatter guard ended the run (the engine as drawn at loose
// tolerances, docs/reliability.md). Where the rate's sign is in no doubt and points against the
// crossing, the crossing is round-off: the branch stands, and the function comes back at once.
bool HardStop::againstRate(const core::Eq<double>& eq, int which, int direction) const {
    return heads(eq, which, -direction);
}

// whether the corner's function (+ for the low clamp) moves in the direction given, beyond doubt:
// its rate has that sign, and its two terms do not cancel to within a tenth of their sizes
bool HardStop::heads(const core::Eq<double>& eq, int which, int direction) const {
    const Penetration c = penetration(eq);   // zeros out of contact: never
    const double s = eq.mode(mode) == kContactUpper ? 1.0 : -1.0;
    const double spring = c.K * c.pd, damping = (which == kLowClampKink ? c.D : -c.D) * s * (eq.der(R) - eq.der(C));
    return (spring + damping) * direction > 0.1 * (std::abs(spring) + std::abs(damping));
}

// the kinks: p' = 0 (full_undamped), the damping reaches -Kp / +Kp and p = delta (smooth); offset
// towards the current branch. In contact p = s (x - bound) and p' = s (v_R - v_C), s = +1 upper, -1 lower.
void HardStop::kink(const core::Eq<double>& eq, int which, core::AffineEvent& out) const {
    const int m = eq.mode(mode), b = eq.mode(branch);
    if (m != kContactUpper && m != kContactLower) return;
    const bool upper = m == kContactUpper;
    const double s = upper ? 1.0 : -1.0, bound = upper ? real(gp) : real(gn);
    const double K = upper ? real(kp) : real(kn), D = upper ? real(dp) : real(dn);
    const auto rate = [&](double c) {   // c p'
        out.add(R, c * s);
        out.add(C, -c * s);
    };
    if (which == kRegionKink && m_law == ContactLaw::FullUndamped) {
        out.constant = 0.0;
        rate(1.0);
        out.nudge = b % 2 != 0 ? kTiny : -kTiny;
    } else if (which == kRegionKink && m_law == ContactLaw::Smooth) {   // p - delta
        out.constant = -s * bound - real(delta);
        out.add(x, s);
        out.nudge = b % 2 != 0 ? kTiny : -kTiny;
    } else if (which != kRegionKink && m_law == ContactLaw::Smooth) {   // K p +- D p'
        const bool low = which == kLowClampKink;
        out.constant = -K * s * bound + (eq.mode(heldCorner) == which ? eq.discrete(heldOffset) : 0.0);
        out.add(x, K * s);
        rate(low ? D : -D);
        out.nudge = b / 2 == (low ? kClampLow : kClampHigh) ? -kTiny : kTiny;
    }
}

void HardStop::onEvent(EventCtx& ctx, int which, int direction) const {
    if (m_law != ContactLaw::Restitution) {
        const int m0 = ctx.mode(mode), b0 = ctx.mode(branch), past = ctx.mode(receding);
        if (m0 == kFree && past != 0) {                   // past a bound while moving away (crossBound())
            ctx.set(receding, 0);                         // back inside it: nothing happened
            if (which == kRegionKink) enter(ctx, past);   // turned towards it while still past: contact
        } else if (which >= kRegionKink) {                // free: the approach slot, met with its bound at one root
            if (m0 != kFree) crossKink(ctx, which, direction);
        } else {
            crossBound(ctx, which, direction);
        }
        return markContinuous(ctx, m0, b0);
    }
    if (direction == core::kRising) return;   // every restitution event function falls through zero
    const int m = ctx.mode(mode);
    if (which == kRegionKink) {   // left its rest: the bound is sought where it is again
        endRest(ctx);
        ctx.continuous();   // only an event function moved
    } else if (m == kFree)
        hit(ctx, which == kUpperSide ? +1 : -1);
    else if (m == kContactUpper && which == kUpperSide)
        release(ctx, +1);
    else if (m == kContactLower && which == kLowerSide)
        release(ctx, -1);
}

// A stiffness law's change of mode or branch whose force and dissipated power are the same on both
// sides at this state leaves the rows continuous: the smooth law's bounds (its ramp starts at zero),
// its clamp corners and full_undamped's, the end of a contact whose damping is off or clamped. IDA
// steps over those. The comparison allows the rounding of a located root (1e-9 of the law's terms).
void HardStop::markContinuous(EventCtx& ctx, int modeBefore, int branchBefore) const {
    if (!ctx.changed()) return;
    const core::Eq<double>& eq = ctx.eq();
    const double xv = eq[x], v = relativeVelocity(eq);
    const Contact<double> before = contact(xv, v, modeBefore, branchBefore);
    const Contact<double> after = contact(xv, v, ctx.mode(mode), ctx.mode(branch));
    const double depth = std::min(std::abs(xv - real(gp)), std::abs(xv - real(gn)));
    const double K = std::max(real(kp), real(kn)), D = std::max(real(dp), real(dn));
    const double force = K * depth + D * std::abs(v), band = 1e-9 * force;
    if (!(std::abs(after.force - before.force) <= band && std::abs(after.power - before.power) <= band * std::abs(v)))
        return;
    // the smooth law's branches are formulas in the state, each going on past its corner
    if (m_law == ContactLaw::Smooth && ctx.mode(mode) == modeBefore)
        ctx.continuousAcross();
    else
        ctx.continuous();
}

// A bound reached or left. A bound reached while the slider moves away from it is the round-off of
// a step, not an approach: a step just after a contact ended can carry the slider's position back
// past the bound by more than the stop's own motion (the position of a shaft that has turned far
// is only known to eps of its angle), and entering would end the contact again at once, in a loop
// of events. The stop stays free and waits, past the bound, for the first of: back inside it (the
// round-off undone), or the approach starting there (then the contact begins, where it would have
// if it had been entered: the force law applies to the penetration the slider has).
void HardStop::crossBound(EventCtx& ctx, int which, int direction) const {
    const double v = relativeVelocity(ctx.eq());
    if (direction == core::kRising) {
        ctx.log(EventKind::Bound, v);
        ctx.set(mode, kFree);
        return;
    }
    // from free flight the upper slot watches both bounds: the nearer one was reached
    if (ctx.mode(mode) == kFree) which = ctx.eq()[x] >= 0.5 * (real(gp) + real(gn)) ? kUpperSide : kLowerSide;
    const int s = which == kUpperSide ? +1 : -1;
    // the bound of the contact the stop is in, reached again from outside: its function was read a
    // few ulps outside at the instant of entering (IDA's history moved there, "Correcting IDA's
    // history at a corner" in docs/engine.md) and came back; nothing happened
    if (ctx.mode(mode) == (s > 0 ? kContactUpper : kContactLower)) return;
    if (s * v < 0.0)
        ctx.set(receding, s);
    else
        enter(ctx, s);
}

void HardStop::enter(EventCtx& ctx, int s) const {
    ctx.log(EventKind::Bound, relativeVelocity(ctx.eq()));
    ctx.set(mode, s > 0 ? kContactUpper : kContactLower);
    ctx.set(impacts, ctx.discrete(impacts) + 1);
}

// A bound reached in free motion: bounce or stay, decided on the speed before the impact.
void HardStop::hit(EventCtx& ctx, int s) const {
    const double v = relativeVelocity(ctx.eq());
    const double approach = s * v;
    const double top = std::max(ctx.discrete(fastest), approach);
    const bool bounce = approach > std::max(real(speedThreshold), kZenoRatio * top);
    endRest(ctx);
    ctx.set(fastest, top);
    ctx.set(vBefore, v);
    ctx.set(side, s);
    ctx.set(target, bounce ? -real(e) * v : 0.0);
    ctx.set(impacts, ctx.discrete(impacts) + 1);
    ctx.set(mode, kImpact);
    ctx.log(bounce ? EventKind::Impact : EventKind::Contact, v);
}

void HardStop::settle(EventCtx& ctx) const {
    if (m_law != ContactLaw::Restitution) {
        const int b0 = ctx.mode(branch);
        ctx.set(branch, branchAt(ctx.eq(), b0));
        holdAcross(ctx);
        return markContinuous(ctx, ctx.mode(mode), b0);
    }
    switch (ctx.mode(mode)) {
        case kImpact:
            afterImpact(ctx);
            break;
        case kReleaseUpper:
        case kReleaseLower:
            ctx.set(mode, kFree);
            break;
        case kContactUpper:
            if (ctx.eq()[f] < -real(releaseThreshold)) release(ctx, +1);
            break;
        case kContactLower:
            if (ctx.eq()[f] > real(releaseThreshold)) release(ctx, -1);
            break;
        default:
            break;
    }
}

// After the projection: book the loss of the impulse, then fly or stay.
void HardStop::afterImpact(EventCtx& ctx) const {
    const double vAfter = relativeVelocity(ctx.eq());
    ctx.set(loss, ctx.discrete(loss) + ctx.impulse(f) * (ctx.discrete(vBefore) + vAfter) / 2);
    const int s = ctx.discrete(side) > 0 ? +1 : -1;
    holdReference(ctx, s);
    ctx.set(mode, ctx.discrete(target) != 0.0 ? kFree : s > 0 ? kContactUpper : kContactLower);
}

// A released slider is at rest at the bound, and often stays there: another block (a locked
// stiction, a clutch) holds the same motion, and the contact ended only because that block took
// the force over. Its position then moves by the rounding of each step (an ulp a step, outwards
// as often as not), and a bound sought exactly where it was released was reached again at the
// next step: a contact at a speed of round-off, found pulling at once, released again, every
// 1e-10 s, each time a restart (docs/reliability.md, "Mode changes in a loop that moves time on").
// So the next contact on that side is sought the run's tolerance on x further out (at most
// kRestShare of the gap), until the slider has left its rest by as much in the other direction;
// then the bound is sought where it is (endRest()). A contact after a rest begins at most that
// tolerance beyond the bound, which is what IDA resolves of x.
void HardStop::release(EventCtx& ctx, int s) const {
    ctx.log(EventKind::Release, relativeVelocity(ctx.eq()));
    holdReference(ctx, s);
    const double margin = std::min(ctx.tolerance(ctx.eq()[x]), kRestShare * (real(gp) - real(gn)));
    if (s > 0)
        ctx.set(refUpper, ctx.discrete(refUpper) + margin);
    else
        ctx.set(refLower, ctx.discrete(refLower) - margin);
    ctx.set(rest, s * margin);
    ctx.set(target, 0.0);   // the projection removes what the contact drifted: the slider leaves at rest
    ctx.set(mode, s > 0 ? kReleaseUpper : kReleaseLower);
}

// The next impact is sought where this one happened if the slider already sits a rounding error
// beyond the bound, so the event function starts on the free side.
void HardStop::holdReference(EventCtx& ctx, int s) const {
    const double xv = ctx.eq()[x];
    if (s > 0)
        ctx.set(refUpper, std::max(real(gp), xv));
    else
        ctx.set(refLower, std::min(real(gn), xv));
}

// The rest after a release ends (the slider left it, or a bound was reached): the bound of that
// side is sought where holdReference() puts it for the slider's position now.
void HardStop::endRest(EventCtx& ctx) const {
    const double r = ctx.discrete(rest);
    if (r == 0.0) return;
    ctx.set(rest, 0.0);
    holdReference(ctx, r > 0.0 ? +1 : -1);
}

void HardStop::record(const core::Eq<double>& eq, std::span<double> out) const {
    const int m = eq.mode(mode);
    double depth = 0.0;
    if (m == kContactUpper) depth = std::max(0.0, eq[x] - real(gp));
    if (m == kContactLower) depth = std::max(0.0, real(gn) - eq[x]);
    out[static_cast<std::size_t>(vRec.index)] = relativeVelocity(eq);
    out[static_cast<std::size_t>(penetrationRec.index)] = depth;
    out[static_cast<std::size_t>(impactsRec.index)] = eq.discrete(impacts);
    out[static_cast<std::size_t>(energyRec.index)] = eq[E] - stored(eq) + eq.discrete(loss);
    out[static_cast<std::size_t>(modeRec.index)] = m;
}

void addHardStop(core::Registry& r) { r.addTwins<HardStop>(); }

}   // namespace endstop::blocks
