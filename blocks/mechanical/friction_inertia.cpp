// SPDX-License-Identifier: GPL-3.0-or-later
// Rotatory mass with friction and end stops, in SI (docs/blocks.md has the physics).
//   J w' = T_ext + T_friction + T_stop
//   phi' = w,  phi(0) = phiinit,  w(0) = nRPMinit
// T_ext is the input Text (0 when open) plus t_F, the torque the network applies through the
// flange F (through(F, t_F): t_F flows from the node into the body, as for an inertia).
//   T_friction, no friction:     -dvisc * w
//   T_friction, Stribeck + stick/Coulomb, DS_fr = 0 (stick), with H = T_ext + T_stop held:
//                                -H (1 - J c / TStick) - J * tauinv * w, c = 1e-5 rad/s^2 the
//                                compliance (w' = c H / TStick - tauinv w), as the locks yield
//   DS_fr = s = +-1 (motion):    -s [TCoulomb + (TStick - TCoulomb) exp(-s w / (3 w_Stri))] - dvisc * w
//   T_stop (elastic, phi >= phimax; mirrored at phimin):
//                                -c (phi - phimax) - sqrt(4 c J / (1 + (pi / ln kimpact)^2)) * w
//   the viscous term dvisc * w is left out while phi is outside ]phimin, phimax[.
//   Pd = Pd_fr + Pd_stop: Pd_fr = dvisc w^2 (no friction), |T_friction w| (motion), 0 (stick);
//   Pd_stop = d_stop w^2 at a stop, else 0
// DS_fr (switching rules of our own): stick -> motion in
// the direction of T_ext + T_stop when its magnitude exceeds TStick (zero crossing, or settle()
// after a step of the input); motion -> stick when s*w falls to epsn, or to -epsn (a body that
// broke away from rest and turns the other way: from s*w = 0 exactly, a crossing of zero is not
// seen); a stick whose torque is already above TStick breaks away again at once; an impulse that
// carries s*w below -epsn at an instant turns the direction of motion (settle()). DS_endstop:
// free / upper / lower by the zero crossings of phi - phimax and phi - phimin. Parameters in the
// customary display units (deg, rpm, N m/rpm, N m/deg), stored in SI. Outputs phi (rad), nRPM (rad/s), Pd (W), SI too.
#include "blocks/common.hpp"

#include <numbers>

namespace endstop::blocks {

namespace {
enum Friction { kStick = 0, kForward = 1, kReverse = 2 };
// rad/s^2 of a stuck body at the stick torque: with tauinv it creeps at c / tauinv (1e-8 rad/s at
// the default) at most; a stiction's lock (1e-9) beside it on one shaft takes the held torque first
constexpr double kStickCompliance = 1e-5;
enum Stop { kFree = 0, kUpper = 1, kLower = 2 };
enum class FrictionLaw { None, Stribeck };   // the choice frictionmode
enum class EndStop { None, Elastic };        // the choice endstopmode
double si(const char* unit, double value) { return core::Unit::parse(unit).toSI(value); }
}   // namespace

class FrictionInertia final : public core::BlockT<FrictionInertia> {
public:
    explicit FrictionInertia(const core::ParamValues& p)
        : BlockT(
              {.typeId = "rotational.friction_inertia",
               .typeVersion = 1,
               .title = "Rotatory Mass with Friction and End Stops",
               .category = "Rotational",
               .help = "An inertia with Stribeck + stick/Coulomb friction and elastic end stops whose damping follows "
                       "from a coefficient of restitution."},
              p),
          phi0(real("phiinit", "Initial displacement", "deg", 0.0)
                   .atLeast(si("deg", -1e7))
                   .atMost(si("deg", 1e7))
                   .group("Initial values")),
          n0(real("nRPMinit", "Initial rotational speed", "rpm", 0.0)
                 .atLeast(si("rpm", -1e7))
                 .atMost(si("rpm", 1e7))
                 .group("Initial values")),
          J(real("J", "Inertia", "kg*m^2", 0.1).atLeast(1e-8).atMost(1e9)),
          dvisc(real("dvisc", "Viscous damping", "N*m/rpm", si("N*m/rpm", 1e-3)).atLeast(0).atMost(si("N*m/rpm", 1e6))),
          frictionMode(choice("frictionmode", "Friction mode", "none",
                              {{"none", "No friction"}, {"stribeck", "Stribeck + stick/Coulomb friction"}})),
          epsn(real("epsn", "Numerical parameter for friction treatment", "rpm", si("rpm", 1e-3))
                   .atLeast(si("rpm", 1e-6))
                   .atMost(si("rpm", 1e6))
                   .visibleWhen(frictionMode, {"stribeck"})),
          tauinv(real("tauinv", "Inverse of time constant at stiction", "1/s", 1e3)
                     .atLeast(0)
                     .atMost(1e6)
                     .visibleWhen(frictionMode, {"stribeck"})),
          TStick(real("TStick", "Torque at stick friction", "N*m", 1.0)
                     .atLeast(1e-6)
                     .atMost(1e6)
                     .visibleWhen(frictionMode, {"stribeck"})),
          TCoulomb(real("TCoulomb", "Torque at Coulomb friction", "N*m", 0.9)
                       .atLeast(0)
                       .atMost(1e6)
                       .visibleWhen(frictionMode, {"stribeck"})),
          nStri(real("nStri", "Stribeck rotational speed", "rpm", si("rpm", 0.01))
                    .atLeast(si("rpm", 1e-6))
                    .atMost(si("rpm", 1e6))
                    .visibleWhen(frictionMode, {"stribeck"})),
          endstopMode(
              choice("endstopmode", "End stop mode", "none", {{"none", "No end stop"}, {"elastic", "Elastic"}})),
          phimin(real("phimin", "Lower angular displacement limit", "deg", si("deg", -1e6))
                     .atLeast(si("deg", -1e6))
                     .atMost(si("deg", 1e6))
                     .visibleWhen(endstopMode, {"elastic"})),
          phimax(real("phimax", "Upper angular displacement limit", "deg", si("deg", 1e6))
                     .atLeast(si("deg", -1e6))
                     .atMost(si("deg", 1e6))
                     .visibleWhen(endstopMode, {"elastic"})),
          cstop(real("cstop", "Spring coefficient at displacement limit", "N*m/deg", si("N*m/deg", 1e6))
                    .atLeast(0)
                    .atMost(si("N*m/deg", 1e12))
                    .visibleWhen(endstopMode, {"elastic"})),
          kimpact(real("kimpact", "Coefficient of restitution", "", 0.5)
                      .atLeast(0)
                      .atMost(1)
                      .visibleWhen(endstopMode, {"elastic"})),
          F(conserving("F", core::Domain::Rotational, "Flange")),
          Text(input("Text", "Sum of external torques", "N*m").optional()),
          phiOut(output("phi", "Angular displacement", "deg").recorded()),
          omegaRec(computed("omega", "Angular velocity", "rad/s")),
          nOut(output("nRPM", "Rotational speed", "rpm").recorded()),
          PdOut(output("Pd", "Dissipated power", "W").recorded()),
          modeRec(computed("mode", "DS_fr: 0 stick, 1 / -1 motion forward / reverse, 99 no friction", "")),
          stopRec(computed("endstop", "DS_endstop: 0 free, 1 upper stop, -1 lower stop", "")),
          tF(algebraic("t_flange", "Torque applied through the flange", "N*m")),
          fr(discrete("DSfr", kStick, 3)),
          stop(discrete("DSendstop", kFree, 3)),
          m_friction(is(frictionMode, "stribeck") ? FrictionLaw::Stribeck : FrictionLaw::None),
          m_endStop(is(endstopMode, "elastic") ? EndStop::Elastic : EndStop::None) {
        setInitial(outVar(phiOut), real(phi0));
        startAcross(F, real(n0), real(J));
    }

    template <class S> void equations(core::Eq<S>& eq) const {
        const S w = eq.across(F), tf = eq[tF];
        const S Tstop = stopTorque(eq, w);
        const S Tfric = frictionTorque(eq, w, tf, Tstop);
        eq.residual(outVar(phiOut)) = eq.der(outVar(phiOut)) - w;
        eq.residual(outVar(nOut)) = eq[outVar(nOut)] - w;
        eq.residual(outVar(PdOut)) = eq[outVar(PdOut)] - dissipated(eq, w, Tfric);
        eq.residual(tF) = real(J) * eq.der(F) - (eq.input(Text) + tf + Tfric + Tstop);
        eq.through(F, tf);
    }

    int eventCount() const override { return kEvents; }
    void eventFunctions(const core::Eq<double>& eq, std::span<double> g) const override;
    void onEvent(core::EventCtx& ctx, int which, int direction) const override;
    bool hasSettle() const override { return stribeck(); }
    void settle(core::EventCtx& ctx) const override;
    void initModes(core::EventCtx& ctx) const override;
    void record(const core::Eq<double>& eq, std::span<double> out) const override;
    void validateMore(core::Diagnostics& out) const override;

private:
    enum Event : int {   // the event slots
        kBreakForward = 0,
        kBreakReverse = 1,   // stick: the torque reaches +TStick / -TStick
        kSlowed = 0,
        kTurned = 1,   // motion: s w falls to epsn / to -epsn
        kUpperStop = 2,
        kLowerStop = 3,   // phi crosses phimax / phimin
        kEvents = 4
    };

    bool stribeck() const { return m_friction == FrictionLaw::Stribeck; }
    bool elastic() const { return m_endStop == EndStop::Elastic; }
    // eq. 9: the damping that gives a restitution of kimpact for a linear spring-damper contact
    double stopDamping() const {
        const double k = real(kimpact), c = real(cstop);
        if (k <= 0) return std::sqrt(4 * c * real(J));
        const double ln = std::log(k);
        return std::sqrt(4 * c * real(J) / (1 + std::pow(std::numbers::pi / ln, 2)));
    }
    bool atStop(int s) const { return elastic() && s != kFree; }

    template <class S> S stopTorque(const core::Eq<S>& eq, const S& w) const {
        const int s = eq.mode(stop);
        if (!atStop(s)) return S(0.0);
        const S phi = eq[outVar(phiOut)];
        return -real(cstop) * (phi - real(s == kUpper ? phimax : phimin)) - stopDamping() * w;
    }
    template <class S> S frictionTorque(const core::Eq<S>& eq, const S& w, const S& tf, const S& Tstop) const {
        const S viscous = atStop(eq.mode(stop)) ? S(0.0) : real(dvisc) * w;
        if (!stribeck()) return -viscous;
        const int m = eq.mode(fr);
        if (m == kStick) {
            // the torque the stick holds, less a compliance: J w' = -J tauinv w + J c H / TStick,
            // an acceleration of 1e-5 rad/s^2 at the stick torque, the way the locks of the
            // stiction yield (docs/blocks.md). Without it two bodies stuck on one shaft (or a body stuck
            // on a shaft a speed source drives) made the same row twice and no start was found.
            const S held = eq.input(Text) + tf + Tstop;
            return -held * (1.0 - real(J) * kStickCompliance / real(TStick)) - real(J) * real(tauinv) * w;
        }
        const double s = m == kForward ? 1.0 : -1.0;
        const double Tc = real(TCoulomb), Ts = real(TStick);
        // against the motion only down to -epsn (the event kTurned), as for the stiction
        const double most = std::max(real(epsn) / (3 * real(nStri)), 1.0);
        return -s * (Tc + (Ts - Tc) * exp(min(-s * w / (3 * real(nStri)), most))) - viscous;
    }
    template <class S> S dissipated(const core::Eq<S>& eq, const S& w, const S& Tfric) const {
        const bool inStop = atStop(eq.mode(stop));
        S Pfr(0.0);
        if (!stribeck())
            Pfr = inStop ? S(0.0) : real(dvisc) * w * w;
        else if (eq.mode(fr) != kStick)
            Pfr = abs(Tfric * w);
        return Pfr + (inStop ? stopDamping() * w * w : S(0.0));
    }
    double externalTorque(const core::Eq<double>& eq) const {   // T_ext + T_stop, the stick test
        return eq.input(Text) + eq[tF] + stopTorque(eq, eq.across(F));
    }
    void setFriction(core::EventCtx& ctx, Friction m) const;

    const core::Param phi0, n0, J, dvisc;
    const core::Choice frictionMode;
    const core::Param epsn, tauinv, TStick, TCoulomb, nStri;
    const core::Choice endstopMode;
    const core::Param phimin, phimax, cstop, kimpact;
    const core::Port F, Text, phiOut;
    const core::Computed omegaRec;
    const core::Port nOut, PdOut;
    const core::Computed modeRec, stopRec;
    const core::Var tF;
    const core::Discrete fr, stop;
    const FrictionLaw m_friction;
    const EndStop m_endStop;
};

// friction slots (stick: TStick -+ T; motion: s w - epsn, s w); stop slots: phi - phimax, phi - phimin
void FrictionInertia::eventFunctions(const core::Eq<double>& eq, std::span<double> g) const {
    g[kBreakForward] = g[kBreakReverse] = g[kUpperStop] = g[kLowerStop] = 1.0;
    if (stribeck()) {
        const int m = eq.mode(fr);
        if (m == kStick) {
            const double T = externalTorque(eq);
            g[kBreakForward] = real(TStick) - T;
            g[kBreakReverse] = real(TStick) + T;
        } else {
            const double sw = (m == kForward ? 1.0 : -1.0) * eq.across(F);
            g[kSlowed] = sw - real(epsn);
            g[kTurned] = sw + real(epsn);
        }
    }
    if (elastic()) {
        g[kUpperStop] = eq[outVar(phiOut)] - real(phimax);
        g[kLowerStop] = eq[outVar(phiOut)] - real(phimin);
    }
}

void FrictionInertia::onEvent(core::EventCtx& ctx, int which, int direction) const {
    if (which < kUpperStop) {
        if (direction == core::kRising) return;   // every friction transition is a decreasing crossing
        if (ctx.mode(fr) == kStick)
            setFriction(ctx, which == kBreakForward ? kForward : kReverse);
        else
            setFriction(ctx, kStick);
        return;
    }
    const int s = ctx.mode(stop);
    const bool upperCrossing = which == kUpperStop;
    const bool rising = direction == core::kRising;
    int next = s;
    if (s == kFree)
        next = upperCrossing ? (rising ? kUpper : s) : (!rising ? kLower : s);
    else if (s == kUpper && upperCrossing && !rising)
        next = kFree;
    else if (s == kLower && !upperCrossing && rising)
        next = kFree;
    if (next == s) return;
    ctx.set(stop, next);
    ctx.log(core::EventKind::Bound, ctx.eq().across(F));
}

// A stick whose torque is above TStick (after a step of Text, or at once after sticking) moves.
// In motion, an impulse elsewhere (an impact, a lock's projection) may have turned w past -epsn
// at an instant: the body goes on the way it now turns (the Stribeck curve read against the
// motion would grow as exp(|w| / (3 w_Stri))).
void FrictionInertia::settle(core::EventCtx& ctx) const {
    if (ctx.mode(fr) != kStick) {
        const double w = ctx.eq().across(F), s = ctx.mode(fr) == kForward ? 1.0 : -1.0;
        if (s * w < -real(epsn)) ctx.set(fr, w > 0 ? kForward : kReverse);
        return;
    }
    const double T = externalTorque(ctx.eq());
    if (std::abs(T) > real(TStick)) setFriction(ctx, T > 0 ? kForward : kReverse);
}

void FrictionInertia::setFriction(core::EventCtx& ctx, Friction m) const {
    ctx.set(fr, m);
    ctx.log(m == kStick ? core::EventKind::Lock : core::EventKind::Unlock, ctx.eq().across(F));
}

void FrictionInertia::initModes(core::EventCtx& ctx) const {
    const double w = real(n0), phi = real(phi0);
    ctx.set(fr, std::abs(w) > real(epsn) ? (w > 0 ? kForward : kReverse) : kStick);
    ctx.set(stop, phi >= real(phimax) ? kUpper : (phi <= real(phimin) ? kLower : kFree));
}

void FrictionInertia::record(const core::Eq<double>& eq, std::span<double> out) const {
    static constexpr double kDs[] = {0.0, 1.0, -1.0};
    out[static_cast<std::size_t>(omegaRec.index)] = eq.across(F);
    out[static_cast<std::size_t>(modeRec.index)] = stribeck() ? kDs[eq.mode(fr)] : 99.0;
    out[static_cast<std::size_t>(stopRec.index)] = elastic() ? kDs[eq.mode(stop)] : 0.0;
}

void FrictionInertia::validateMore(core::Diagnostics& out) const {
    auto warn = [&](const char* key, std::string message) { out.push_back(paramWarning(key, std::move(message))); };
    if (stribeck() && real(TStick) < real(TCoulomb))
        warn("TStick", "should be >= TCoulomb (the model assumes TStick >= TCoulomb)");
    if (!elastic()) return;
    if (!(real(phimin) < real(phimax))) warn("phimin", "should be < phimax (the model assumes phimin < phimax)");
    if (real(phi0) < real(phimin) || real(phi0) > real(phimax))
        warn("phiinit", "the initial displacement is outside [phimin, phimax]: the body starts inside an end stop");
    if (real(cstop) >= si("N*m/deg", 1e9)) warn("cstop", "is >= 1e9 N*m/deg: the end stop is extremely stiff");
}

void addFrictionInertia(core::Registry& r) { r.add<FrictionInertia>(); }

}   // namespace endstop::blocks
