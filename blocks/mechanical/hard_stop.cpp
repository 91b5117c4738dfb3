// SPDX-License-Identifier: GPL-3.0-or-later
// Double-sided hard stop (hard_stop.hpp): parameters, event functions, bounds, restitution's
// impacts and releases, the recorded values. The branches and corners of the stiffness laws are
// in hard_stop_branches.cpp.
#include "blocks/mechanical/hard_stop.hpp"

namespace endstop::blocks {

namespace hard_stop {

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

}   // namespace hard_stop

void addHardStop(core::Registry& r) { r.addTwins<hard_stop::HardStop>(); }

}   // namespace endstop::blocks
