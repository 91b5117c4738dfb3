// SPDX-License-Identifier: GPL-3.0-or-later
// The lock and breakaway rules shared by the stiction block and the clutch and brake (their
// physics: docs/blocks.md). A joint between R and C with relative velocity v and friction force f
// (flowing from R through the joint to C) is in one of three modes:
//   sliding: moving in the direction s = +1 or -1, friction from the block's kinetic law
//   locked:  v_R' - v_C' = 0 (with constraint force mixing), f the holding force
//   wait:    just broken away (|v| < velocity_threshold), sliding in the direction s
// and moves between them so:
//   locked -> wait      the holding force reaches a limit (upper: s = +1, lower: s = -1)
//   wait: at the instant of breakaway every waiting joint checks that its relative acceleration
//         agrees with s; one that disagrees goes back to locked once (the engine then recomputes
//         every joint: the search is global); if its force is still outside the limits it is let
//         go, so the search always ends
//   wait -> sliding     s v reaches the threshold (the block's rows stay as they are: a block
//                       using this must give wait and sliding the same rows); wait -> locked:
//                       s v falls to -threshold
//   sliding -> locked   v reaches zero; if the holding force is outside the limits there, the
//                       joint breaks away again at once (a lock and an unlock at one time)
//   locked -> sliding   an impulse elsewhere set the joint moving beyond the threshold: a friction
//                       force carries no impulse (Block::holdsByFriction; within it, it locks again)
// Lock and unlock go to the event log when they are confirmed, with the relative velocity just
// before the event. A block declares the six discrete states in this order and passes them here.
#pragma once

#include "core/blockapi/block.hpp"

#include <cmath>
#include <span>

namespace endstop::blocks {

enum FrictionMode { kSliding = 0, kLocked = 1, kWait = 2 };   // a block may add modes after these
enum LockDirection { kBackward = 0, kForward = 1 };           // the direction discrete: s = -1 / +1

// The two event slots; what each watches depends on the mode. A block may add slots after these.
enum LockEvent : int {
    kUpperLimit = 0,
    kLowerLimit = 1,   // locked: the holding force reaches a limit
    kSlides = 0,
    kRelocks = 1,   // wait: s v rises to the threshold / falls to -threshold
    kStops = 0,
    kIdle = 1,   // sliding: s v falls to zero; the other slot is unused
    kLockEvents = 2
};

// A sliding joint within this share of velocity_threshold of rest at an event has been stopped by
// it (FrictionLock::settleReversed): far below the threshold, far above round-off after a projection.
inline constexpr double kAtRest = 1e-6;
// A locked joint moving faster than this share of velocity_threshold was moved by an impulse
// (FrictionLock::settleLocked): its compliance lets it drift by 1e-9 m/s per second at most.
inline constexpr double kDrift = 1e-2;

struct FrictionLock {
    core::Discrete mode, dir, since, logged, vetoed, vEvent;

    double sign(const core::Eq<double>& eq) const { return eq.mode(dir) == kForward ? 1.0 : -1.0; }

    // the LockEvent slots for the three modes; every transition is a decreasing crossing:
    // locked: upper - f, f - lower; wait: vth - s v, s v + vth; sliding: s v (g[1] unused)
    void eventFunctions(const core::Eq<double>& eq, double v, double f, double upper, double lower, double vth,
                        std::span<double> g) const {
        const double sv = sign(eq) * v;
        switch (eq.mode(mode)) {
            case kLocked:
                g[kUpperLimit] = upper - f;
                g[kLowerLimit] = f - lower;
                break;
            case kWait:
                g[kSlides] = vth - sv;
                g[kRelocks] = sv + vth;
                break;
            default:
                g[kStops] = sv;
                g[kIdle] = 1.0;
        }
    }
    // The same slots as affine forms (Block::affineEvent), for a joint whose v is across(R) -
    // across(C) and whose limits are constants until the next event
    void affineEvent(const core::Eq<double>& eq, int which, core::Port R, core::Port C, core::Var f, double upper,
                     double lower, double vth, core::AffineEvent& out) const {
        out = {};
        const auto addV = [&](double scale) {
            out.add(R, scale);
            out.add(C, -scale);
        };
        const double s = sign(eq);
        switch (eq.mode(mode)) {
            case kLocked:
                out.constant = which == kUpperLimit ? upper : -lower;
                out.add(f, which == kUpperLimit ? -1.0 : 1.0);
                break;
            case kWait:
                out.constant = vth;
                addV(which == kSlides ? -s : s);
                break;
            default:
                if (which == kStops)
                    addV(s);
                else
                    out.constant = 1.0;
        }
    }
    // sliding: the second slot is the constant 1 (Block::liveEvents)
    void liveEvents(const core::Eq<double>& eq, std::span<char> live) const {
        live[kStops] = 1;
        live[kIdle] = eq.mode(mode) == kSliding ? 0 : 1;
    }
    void onEvent(core::EventCtx& ctx, int which, int direction, double v) const {
        if (direction == core::kRising) return;
        switch (ctx.mode(mode)) {
            case kLocked:
                ctx.set(dir, which == kUpperLimit ? kForward : kBackward);
                enter(ctx, kWait, v);
                break;
            case kWait:
                if (which == kSlides) {
                    ctx.set(mode, kSliding);
                    ctx.continuous();   // wait and sliding share their rows: stepped over, not restarted at
                } else {
                    enter(ctx, kLocked, v);
                }
                break;
            case kSliding:
                if (which == kStops) enter(ctx, kLocked, v);
                break;
            default:
                break;
        }
    }
    // what settle() does in the friction modes; `a` is the relative acceleration v_R' - v_C'
    void settle(core::EventCtx& ctx, double f, double upper, double lower, double v, double a, double vth) const {
        if (ctx.mode(mode) == kLocked)
            settleLocked(ctx, f, upper, lower, v, vth);
        else if (settleReversed(ctx, v, vth))
            return;
        else if (ctx.mode(mode) == kWait && ctx.discrete(since) == ctx.time())
            settleWait(ctx, a);
    }
    // at rest (|v| <= vth): locked, else sliding in the direction of v with nothing to log
    void start(core::EventCtx& ctx, double v, double vth) const {
        if (std::abs(v) <= vth) return enter(ctx, kLocked, v);
        ctx.set(dir, v > 0 ? kForward : kBackward);
        ctx.set(logged, 0.0);
        enter(ctx, kSliding, v);
    }
    void enter(core::EventCtx& ctx, int m, double v) const {
        ctx.set(mode, m);
        ctx.set(since, ctx.time());
        ctx.set(vEvent, v);
    }

private:
    // logs a confirmed lock (locked = 1) or unlock (0) unless the log already says so
    void confirm(core::EventCtx& ctx, double locked) const {
        if (ctx.discrete(logged) == locked) return;
        ctx.log(locked > 0 ? core::EventKind::Lock : core::EventKind::Unlock, ctx.discrete(vEvent));
        ctx.set(logged, locked);
    }
    // A locked joint that an impulse elsewhere set moving (Block::holdsByFriction: a friction
    // force carries no impulse) slides the way it moves; if the impulse left it within the
    // threshold of rest it locks again, and the projection sets v to zero. Below kDrift of the
    // threshold v is the lock's own drift (its compliance), left as it is.
    void settleLocked(core::EventCtx& ctx, double f, double upper, double lower, double v, double vth) const {
        if (std::abs(v) > vth) {
            confirm(ctx, 1.0);
            confirm(ctx, 0.0);
            ctx.set(dir, v > 0 ? kForward : kBackward);
            enter(ctx, kSliding, v);
            return;
        }
        if (std::abs(v) > kDrift * vth && ctx.discrete(since) != ctx.time()) return enter(ctx, kLocked, v);
        confirm(ctx, 1.0);   // a reversal through v = 0 is a lock and an unlock at the same instant
        // at the limit counts as outside: IDA ignores an event function that restarts at exactly 0
        if (f >= upper || f <= lower) {
            ctx.set(dir, f >= upper ? kForward : kBackward);
            enter(ctx, kWait, v);
        }
    }
    // An impulse elsewhere (an impact, a lock's projection) can carry v through zero at an instant,
    // where no event function sees it cross. Sliding or waiting against v, the kinetic law would
    // push the joint along (and a Stribeck curve, read at -|v|, grows without bound): within the
    // threshold of rest the joint locks as at v = 0, beyond it it slides the way v now goes. Its
    // friction cannot have stopped it within the impulse: a friction force is finite. An impulse
    // that leaves a sliding joint at rest (a stop beside it comes into contact) is v reaching zero
    // too: IDA would set aside an event function that restarts at zero, and the joint slid on at
    // v = 0 until round-off drift crossed it, or never (kAtRest).
    bool settleReversed(core::EventCtx& ctx, double v, double vth) const {
        const double sv = sign(ctx.eq()) * v;
        const bool atRest = ctx.mode(mode) == kSliding && sv <= kAtRest * vth;
        if ((sv >= 0.0 && !atRest) || (ctx.mode(mode) == kWait && sv >= -vth)) return false;
        if (sv >= -vth) {
            enter(ctx, kLocked, v);
            return true;
        }
        ctx.set(dir, v > 0 ? kForward : kBackward);
        if (ctx.mode(mode) == kWait) confirm(ctx, 0.0);
        enter(ctx, kSliding, v);
        return true;
    }
    // just broken away (v = 0): does the friction let the joint move in its direction?
    void settleWait(core::EventCtx& ctx, double a) const {
        if (sign(ctx.eq()) * a < 0 && ctx.discrete(vetoed) != ctx.time()) {
            ctx.set(mode, kLocked);
            ctx.set(vetoed, ctx.time());
            return;
        }
        confirm(ctx, 0.0);
    }
};

}   // namespace endstop::blocks
