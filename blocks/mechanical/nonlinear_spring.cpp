// SPDX-License-Identifier: GPL-3.0-or-later
// Nonlinear spring between R and C, translational and rotational.
//   v = v_R - v_C,  dx/dt = v,  x(0) = initial_deformation,  f = F(x) flows from R through the
//   spring to C (tension, x > 0, pulls R back)
//   polynomial, symmetric:  F = k1 x + sign(x) k2 x^2 + k3 x^3 + sign(x) k4 x^4 + k5 x^5
//   polynomial, asymmetric: F = sum k_it x^i for x >= 0, sum k_ic x^i for x < 0
//   table: the points (displacements, forces), with (0, 0) added if no displacement is 0;
//          linear or smooth (modified Akima, C1) interpolation; outside, linear (the end
//          slope) or nearest (the end force) extrapolation
//   breakpoints: through (the default since type version 2; no events: the segment is read from
//          x wherever the equations are evaluated, and IDA integrates across breakpoints) or
//          events (each is located, as below; what a block written by version 1 keeps)
// sign(x) and the branch of an asymmetric polynomial are a mode switched by the zero crossing of
// x, and only when they change something: an odd symmetric polynomial, or equal tension and
// compression sets, need no event. With events a table's segment is a mode switched at its
// breakpoints, so every step integrates one smooth piece; root finding watches only the two
// breakpoints around it. Stepped through, a table has no events and no segment mode: a long
// measured curve then costs what a polynomial does, and each breakpoint is a corner inside a step;
// measured from 11 to 501 points it takes fewer steps every time and is as close or closer in 36
// of 40 runs (docs/blocks.md).
#include "blocks/common.hpp"

#include "blocks/mechanical/spring_table.hpp"

#include <sstream>

namespace endstop::blocks {

namespace {
enum class Form { Polynomial, Table };           // the choice parameterization
enum class Symmetry { Symmetric, Asymmetric };   // the choice symmetry
}   // namespace

class NonlinearSpring final : public core::BlockT<NonlinearSpring> {
public:
    NonlinearSpring(const core::ParamValues& p, Domain d)
        : BlockT(info(d), p),
          param(choice("parameterization", "Parameterization", "polynomial",
                       {{"polynomial", "Polynomial"}, {"table", "Table lookup"}})),
          symmetry(
              choice("symmetry", "Polynomial", "symmetric", {{"symmetric", "Symmetric"}, {"asymmetric", "Asymmetric"}})
                  .visibleWhen(param, {"polynomial"})),
          m_form(is(param, "table") ? Form::Table : Form::Polynomial),
          m_symmetry(is(symmetry, "symmetric") ? Symmetry::Symmetric : Symmetry::Asymmetric),
          coefficients(vector("coefficients", "Spring coefficients [k1 .. k5]", "", {defaultK1(d), 0, 0, 0, 0})
                           .visibleWhen(symmetry, {"symmetric"})
                           .help(kCoefficientHelp)),
          tension(vector("tension_coefficients", "Tension coefficients [k1 .. k5]", "", {defaultK1(d), 0, 0, 0, 0})
                      .visibleWhen(symmetry, {"asymmetric"})
                      .help(kCoefficientHelp)),
          compression(
              vector("compression_coefficients", "Compression coefficients [k1 .. k5]", "", {defaultK1(d), 0, 0, 0, 0})
                  .visibleWhen(symmetry, {"asymmetric"})
                  .help(kCoefficientHelp)),
          xs(vector("displacements", "Displacements", names(d).position, {0.0, 0.01, 0.02, 0.03})
                 .visibleWhen(param, {"table"})
                 .help("strictly increasing; (0, 0) is added if 0 is missing")),
          fs(vector("forces", "Forces", names(d).force, defaultForces(d)).visibleWhen(param, {"table"})),
          interpolation(choice("interpolation", "Interpolation", "linear",
                               {{"linear", "Linear"}, {"smooth", "Smooth (modified Akima)"}})
                            .visibleWhen(param, {"table"})),
          extrapolation(
              choice("extrapolation", "Extrapolation", "linear", {{"linear", "Linear"}, {"nearest", "Nearest"}})
                  .visibleWhen(param, {"table"})),
          breakpoints(
              choice("breakpoints", "Breakpoints", "through",
                     {{"events", "Located (an event at each)"}, {"through", "Stepped through (no events)"}})
                  .visibleWhen(param, {"table"})
                  .help("through: IDA integrates across the breakpoints, in fewer steps and mostly closer to the "
                        "tolerance; events: each crossing located, for a few points with large corners")),
          m_through(m_form == Form::Table && is(breakpoints, "through")),
          x0(real("initial_deformation", "Initial deformation", names(d).position, 0.0).group("Initial conditions")),
          R(conserving("R", d, "R")),
          C(conserving("C", d, "C")),
          x(state(names(d).x, "Deformation", names(d).position).recorded().startsAt(real(x0))),
          fRec(computed(names(d).f, std::string("Spring ") + names(d).flow, names(d).force)),
          table(m_form == Form::Table
                    ? SpringTable(vec(xs), vec(fs), is(interpolation, "smooth"), is(extrapolation, "linear"))
                    : SpringTable()),
          region(discrete("region", 0.0, regionCount())) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        eq.residual(x) = eq.der(x) - (eq.across(R) - eq.across(C));
        eq.flowThrough(R, C, force(eq[x], eq.mode(region)));
    }

    int eventCount() const override {
        if (m_through) return 0;
        if (m_form == Form::Table) return static_cast<int>(table.breakpoints().size());
        return needsSignEvent() ? 1 : 0;
    }
    // A table has one function per breakpoint, but only the two around the current piece can reach
    // zero before the next event; the others are dead (affineEvent()). Root finding then scans two
    // functions however long the table, and a restart looks at two: a measured curve of 40,000
    // points scanned all 40,000 at every step and every iteration of every root search
    // (docs/engine.md, "Modes and events").
    EventWindow liveWindow(const core::Eq<double>& eq) const override {
        if (m_form != Form::Table || m_through) return {0, eventCount()};
        const int r = eq.mode(region);
        return {std::max(r - 1, 0), std::min(r + 1, eventCount())};
    }
    // x less each breakpoint, moved off it by a few ulps towards the piece the spring is in: a
    // spring that starts exactly on a breakpoint (at rest length, where an asymmetric spring's
    // two laws meet and a table's added origin sits) then reads a nonzero function, and IDA reports
    // it leaving that way. A function that starts at exactly zero IDA sets aside and does not
    // report leaving: a spring compressed from rest kept its tension law until x came back through
    // 0, and a smooth table evaluated its first cubic below the origin and diverged. The pieces
    // meet at the breakpoint, so switching a few ulps past it changes nothing that counts.
    // A dead breakpoint of a table (not next to the current piece) is the constant 1 below the
    // piece and -1 above it, the sign its function has there.
    bool affineEvent(const core::Eq<double>& eq, int which, core::AffineEvent& out) const override {
        const int r = eq.mode(region);
        out = {};
        if (const EventWindow w = liveWindow(eq); which < w.first || which >= w.last) {
            out.constant = which < r ? 1.0 : -1.0;
            return true;
        }
        const double bp = m_form == Form::Table ? table.breakpoints()[static_cast<std::size_t>(which)] : 0.0;
        const double off = std::max(4 * (std::nextafter(std::abs(bp), HUGE_VAL) - std::abs(bp)), core::kEventNudge);
        out.constant = -bp;
        out.add(x, 1.0);
        out.nudge = r > which ? off : -off;
        return true;
    }
    void eventFunctions(const core::Eq<double>& eq, std::span<double> g) const override {
        core::AffineEvent a;
        for (std::size_t i = 0; i < g.size(); ++i) {
            affineEvent(eq, static_cast<int>(i), a);
            g[i] = a.value(eq);
        }
    }
    // crossing breakpoint i upwards enters region i + 1, downwards region i (the sign: 0 / 1).
    // Every curve is continuous there (the polynomial's pieces meet at 0, the table's segments at
    // their points), so the change is marked continuous where the two pieces agree (docs/engine.md,
    // "Events IDA steps over").
    void onEvent(core::EventCtx& ctx, int which, int direction) const override {
        const int before = ctx.mode(region);
        ctx.set(region, direction == core::kRising ? which + 1 : which);
        const double xv = ctx.eq()[x], f0 = force(xv, before), f1 = force(xv, ctx.mode(region));
        if (std::abs(f1 - f0) <= 1e-9 * std::max(std::abs(f0), std::abs(f1))) ctx.continuous();
    }
    void initModes(core::EventCtx& ctx) const override {
        if (!m_through) ctx.set(region, regionOf(ctx.eq()[x]));
    }
    void record(const core::Eq<double>& eq, std::span<double> out) const override {
        out[static_cast<std::size_t>(fRec.index)] = force(eq[x], eq.mode(region));
    }
    void validateMore(core::Diagnostics& out) const override;

private:
    static constexpr std::size_t kManyBreakpoints = 50;   // from here a table with events gets a note
    static constexpr const char* kCoefficientHelp = "SI: k_i in N/m^i (N*m/rad^i); unused orders are 0";
    static core::BlockInfo info(Domain d) {
        return {.typeId = typeId(d, "nonlinear_spring"),
                .typeVersion = 2,   // 2: breakpoints = through by default (migrate)
                .title = std::string(names(d).category) + " Nonlinear Spring",
                .category = names(d).category,
                .help =
                    "Spring with a nonlinear force-deformation curve: a 5th-order polynomial (symmetric or "
                    "asymmetric) or a table lookup."};
    }
    static double defaultK1(Domain d) { return d == Domain::Rotational ? 10.0 : 1000.0; }
    static std::vector<double> defaultForces(Domain d) {
        const double s = d == Domain::Rotational ? 0.1 : 1.0;
        return {0.0, 10 * s, 30 * s, 60 * s};
    }

    // regions: the table's (breakpoints + 1); the polynomial's sign of x (0: x < 0, 1: x >= 0)
    int regionCount() const {
        if (m_through) return 1;
        return m_form == Form::Table ? static_cast<int>(table.breakpoints().size()) + 1 : 2;
    }
    int regionOf(double xv) const { return m_form == Form::Table ? table.regionOf(xv) : (xv >= 0 ? 1 : 0); }
    bool needsSignEvent() const {
        if (m_symmetry == Symmetry::Symmetric) return coef(coefficients, 1) != 0 || coef(coefficients, 3) != 0;
        for (int i = 0; i < 5; ++i)
            if (coef(tension, i) != coef(compression, i)) return true;
        return false;
    }
    double coef(core::VecParam v, int i) const {
        const auto& k = vec(v);
        return static_cast<std::size_t>(i) < k.size() ? k[static_cast<std::size_t>(i)] : 0.0;
    }

    // the law in the segment or sign given by the mode; stepped through, in the segment x is in
    template <class S> S force(const S& xv, int mode) const {
        if (m_through) return table.force(xv, table.regionOf(core::ad::value(xv)));
        if (m_form == Form::Table) return table.force(xv, mode);
        const bool positive = needsSignEvent() ? mode == 1 : true;
        if (m_symmetry == Symmetry::Symmetric) {
            const double s = positive ? 1.0 : -1.0;   // sign(x), constant within the mode
            const S x2 = xv * xv;
            return coef(coefficients, 0) * xv + s * coef(coefficients, 1) * x2 + coef(coefficients, 2) * x2 * xv +
                   s * coef(coefficients, 3) * x2 * x2 + coef(coefficients, 4) * x2 * x2 * xv;
        }
        const core::VecParam k = positive ? tension : compression;
        S sum(0.0);
        for (int i = 4; i >= 0; --i) sum = (sum + coef(k, i)) * xv;   // Horner, no constant term
        return sum;
    }

    const core::Choice param, symmetry;
    const Form m_form;
    const Symmetry m_symmetry;
    const core::VecParam coefficients, tension, compression, xs, fs;
    const core::Choice interpolation, extrapolation, breakpoints;
    const bool m_through;   // a table whose breakpoints are stepped through
    const core::Param x0;
    const core::Port R, C;
    const core::Var x;
    const core::Computed fRec;
    const SpringTable table;
    const core::Discrete region;
};

void NonlinearSpring::validateMore(core::Diagnostics& out) const {
    if (m_form != Form::Table) {
        for (core::VecParam v : {coefficients, tension, compression})
            if (vec(v).size() > 5)
                out.push_back(
                    paramError(params()[static_cast<std::size_t>(v.index)].key, "at most 5 coefficients (k1 .. k5)"));
        return;
    }
    if (std::string e = SpringTable::check(vec(xs), vec(fs)); !e.empty()) {
        out.push_back(paramError(e.rfind("forces", 0) == 0 ? "forces" : "displacements", e));
        return;
    }
    // A table with events restarts or steps over at each breakpoint passed, however close they are,
    // and each adds error the error test does not see: a note (not a warning) points at the other
    // way (docs/blocks.md, "Breakpoints: stepped through or events").
    if (!m_through && table.breakpoints().size() >= kManyBreakpoints) {
        core::Diagnostic d = paramWarning(
            "breakpoints", std::to_string(table.breakpoints().size()) +
                               " breakpoints, each located as an event when the deformation passes it; for a "
                               "measured curve, breakpoints = through steps through them, in fewer steps and "
                               "mostly closer to the tolerance");
        d.severity = core::Severity::Info;
        out.push_back(std::move(d));
    }
    // A falling end slope, extrapolated, is a negative stiffness without bound: the spring pushes
    // a deformation beyond the table further out, faster and faster (the smooth curve's end slope
    // can fall where the points rise, as MATLAB's makima's does).
    const core::Unit& position = params()[static_cast<std::size_t>(xs.index)].unit;
    const core::Unit& force = params()[static_cast<std::size_t>(fs.index)].unit;
    for (const bool upper : {false, true}) {
        const double k = table.endSlope(upper);
        if (!(k < 0)) continue;
        std::ostringstream m;
        m << "linear extrapolation " << (upper ? "above" : "below") << " the " << (upper ? "last" : "first")
          << " point, x = " << position.fromSI(table.endPoint(upper)) << " " << position.display()
          << ", goes on with the " << (is(interpolation, "smooth") ? "smooth curve's" : "table's") << " end slope of "
          << force.fromSI(k) / position.fromSI(1.0) << " " << force.display() << "/" << position.display()
          << ", a negative stiffness that drives the deformation further out; choose nearest, or end the "
             "table with a rising point";
        out.push_back(paramWarning("extrapolation", m.str()));
    }
}

// Type version 1 located every breakpoint of a table as an event, and had no choice: a block it
// wrote keeps that (docs/blocks.md, "Breakpoints: stepped through or events").
namespace {
void migrate(int fromVersion, core::ParamValues& p) {
    if (fromVersion < 2) p.try_emplace("breakpoints", std::string("events"));
}
}   // namespace

void addNonlinearSpring(core::Registry& r) { r.addTwins<NonlinearSpring>(migrate); }

}   // namespace endstop::blocks
