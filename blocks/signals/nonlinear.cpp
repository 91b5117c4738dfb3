// SPDX-License-Identifier: GPL-3.0-or-later
// Signal blocks with a kink or a memory. See docs/blocks.md.
//   limiter:    y = min(max(u, lower_limit), upper_limit)
//   abs:        y = |u|
//   product:    y = u1 * u2
//   integrator: y' = u, y(0) = initial_value
// The kinks of the limiter and of abs are events: the solver stops where u reaches a limit (or
// zero) and the output follows a mode (below / between / above, negative / positive), so no
// residual branches on a value inside a step. The first settle() after the start classifies u,
// whose value is only known once the start is consistent.
#include "blocks/common.hpp"

namespace endstop::blocks {

namespace {
enum Side { kBelow = 0, kBetween = 1, kAbove = 2 };
}   // namespace

class Limiter final : public core::BlockT<Limiter> {
public:
    explicit Limiter(const core::ParamValues& p)
        : BlockT({.typeId = "signal.limiter",
                  .typeVersion = 1,
                  .title = "Limiter",
                  .category = "Signals",
                  .help = "Passes its input, clamped to [lower_limit, upper_limit]."},
                 p),
          upper(real("upper_limit", "Upper limit", "", 1.0).anyUnit()),
          lower(real("lower_limit", "Lower limit", "", -1.0).anyUnit()),
          u(input("u", "Input", "")),
          y(output("y", "Output", "").recorded()),
          side(discrete("side", kBetween, 3)),
          started(discrete("started", 0.0)) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        const int m = eq.mode(side);
        const S out = m == kBelow ? S(real(lower)) : m == kAbove ? S(real(upper)) : eq.input(u);
        eq.residual(outVar(y)) = eq[outVar(y)] - out;
    }
    int eventCount() const override { return kEvents; }
    // u - lower, upper - u: a decreasing crossing leaves the band, an increasing one enters it
    void eventFunctions(const core::Eq<double>& eq, std::span<double> g) const override {
        g[kLowerLimit] = eq.input(u) - real(lower);
        g[kUpperLimit] = real(upper) - eq.input(u);
    }
    void onEvent(core::EventCtx& ctx, int which, int direction) const override {
        if (direction == core::kFalling)
            ctx.set(side, which == kLowerLimit ? kBelow : kAbove);
        else
            ctx.set(side, kBetween);
    }
    bool hasSettle() const override { return true; }
    void settle(core::EventCtx& ctx) const override {
        if (ctx.discrete(started) > 0) return;
        const double x = ctx.eq().input(u);
        ctx.set(side, x < real(lower) ? kBelow : x > real(upper) ? kAbove : kBetween);
        ctx.set(started, 1.0);
    }
    void validateMore(core::Diagnostics& out) const override {
        if (real(lower) > real(upper))
            out.push_back(
                paramError("lower_limit", "must be <= upper_limit (" + core::formatNumber(real(upper)) + ")"));
    }

private:
    enum Event : int { kLowerLimit, kUpperLimit, kEvents };
    const core::Param upper, lower;
    const core::Port u, y;
    const core::Discrete side, started;
};

class Abs final : public core::BlockT<Abs> {
public:
    explicit Abs(const core::ParamValues& p)
        : BlockT({.typeId = "signal.abs",
                  .typeVersion = 1,
                  .title = "Absolute Value",
                  .category = "Signals",
                  .help = "The magnitude of its input."},
                 p),
          u(input("u", "Input", "")),
          y(output("y", "Output", "").recorded()),
          negative(discrete("negative", 0.0, 2)),
          started(discrete("started", 0.0)) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        eq.residual(outVar(y)) = eq[outVar(y)] - (eq.mode(negative) ? -eq.input(u) : eq.input(u));
    }
    int eventCount() const override { return kEvents; }
    void eventFunctions(const core::Eq<double>& eq, std::span<double> g) const override { g[kZero] = eq.input(u); }
    void onEvent(core::EventCtx& ctx, int, int direction) const override {
        ctx.set(negative, direction == core::kFalling ? 1.0 : 0.0);
    }
    bool hasSettle() const override { return true; }
    void settle(core::EventCtx& ctx) const override {
        if (ctx.discrete(started) > 0) return;
        ctx.set(negative, ctx.eq().input(u) < 0 ? 1.0 : 0.0);
        ctx.set(started, 1.0);
    }

private:
    enum Event : int { kZero, kEvents };   // u crosses zero
    const core::Port u, y;
    const core::Discrete negative, started;
};

class Product final : public core::BlockT<Product> {
public:
    explicit Product(const core::ParamValues& p)
        : BlockT({.typeId = "signal.product",
                  .typeVersion = 1,
                  .title = "Product",
                  .category = "Signals",
                  .help = "Multiplies its two inputs."},
                 p),
          u1(input("u1", "Input 1", "")),
          u2(input("u2", "Input 2", "")),
          y(output("y", "Output", "").recorded()) {}
    template <class S> void equations(core::Eq<S>& eq) const {
        eq.residual(outVar(y)) = eq[outVar(y)] - eq.input(u1) * eq.input(u2);
    }

private:
    const core::Port u1, u2, y;
};

class Integrator final : public core::BlockT<Integrator> {
public:
    explicit Integrator(const core::ParamValues& p)
        : BlockT({.typeId = "signal.integrator",
                  .typeVersion = 1,
                  .title = "Integrator",
                  .category = "Signals",
                  .help = "Integrates its input over time, starting from initial_value."},
                 p),
          y0(real("initial_value", "Initial value", "", 0.0).anyUnit()),
          u(input("u", "Input", "")),
          y(output("y", "Output", "").recorded()) {
        setInitial(outVar(y), real(y0));
    }
    template <class S> void equations(core::Eq<S>& eq) const {
        eq.residual(outVar(y)) = eq.der(outVar(y)) - eq.input(u);
    }

private:
    const core::Param y0;
    const core::Port u, y;
};

void addSignalNonlinear(core::Registry& r) {
    r.add<Limiter>();
    r.add<Product>();
    r.add<Abs>();
    r.add<Integrator>();
}

}   // namespace endstop::blocks
