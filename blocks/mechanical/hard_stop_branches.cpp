// SPDX-License-Identifier: GPL-3.0-or-later
// The hard stop's branches (hard_stop.hpp): which piece of a stiffness law applies, the corners
// and the end of the smooth ramp as events, and the guards that keep round-off from switching a
// branch back and forth.
#include "blocks/mechanical/hard_stop.hpp"

namespace endstop::blocks::hard_stop {

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

}   // namespace endstop::blocks::hard_stop
