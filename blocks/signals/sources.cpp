// SPDX-License-Identifier: GPL-3.0-or-later
// Signal sources (output y, SI values). Discontinuities (step, pulse edges, the ramp's start) are
// scheduled time events: the solver stops exactly there and the output changes through a mode, so
// no residual branches on the time.
//   constant: y = value
//   step:     y = initial_value before step_time, final_value from then on
//   ramp:     y = initial_output + slope * max(0, t - start_time)
//   sine:     y = amplitude * sin(2*pi*frequency*t + phase) + bias
//   pulse:    y = amplitude during [start_time + k*period, start_time + k*period + width), else 0
#include "blocks/common.hpp"

#include <cmath>
#include <numbers>

namespace endstop::blocks {

using core::EventCtx;
using core::ParamValues;

class Constant final : public core::BlockT<Constant> {
public:
    explicit Constant(const ParamValues& p)
        : BlockT({.typeId = "signal.constant",
                  .typeVersion = 1,
                  .title = "Constant",
                  .category = "Signals",
                  .help = "A constant physical signal."},
                 p),
          value(real("value", "Value", "", 1.0).anyUnit()),
          y(output("y", "Output", "").recorded()) {}
    template <class S> void equations(core::Eq<S>& eq) const { eq.residual(outVar(y)) = eq[outVar(y)] - real(value); }

private:
    const core::Param value;
    const core::Port y;
};

class Step final : public core::BlockT<Step> {
public:
    explicit Step(const ParamValues& p)
        : BlockT({.typeId = "signal.step",
                  .typeVersion = 1,
                  .title = "Step",
                  .category = "Signals",
                  .help = "Steps from initial_value to final_value at step_time."},
                 p),
          t1(real("step_time", "Step time", "s", 1.0)),
          y0(real("initial_value", "Initial value", "", 0.0).anyUnit()),
          y1(real("final_value", "Final value", "", 1.0).anyUnit()),
          y(output("y", "Output", "").recorded()),
          after(discrete("after", 0.0, 2)) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        eq.residual(outVar(y)) = eq[outVar(y)] - (eq.mode(after) ? real(y1) : real(y0));
    }
    double nextTimeEvent(double t) const override { return real(t1) > t ? real(t1) : kNever; }
    void onTimeEvent(EventCtx& ctx) const override { ctx.set(after, 1.0); }
    void initModes(EventCtx& ctx) const override { ctx.set(after, ctx.time() >= real(t1) ? 1.0 : 0.0); }

private:
    static constexpr double kNever = std::numeric_limits<double>::infinity();
    const core::Param t1, y0, y1;
    const core::Port y;
    const core::Discrete after;
};

class Ramp final : public core::BlockT<Ramp> {
public:
    explicit Ramp(const ParamValues& p)
        : BlockT({.typeId = "signal.ramp",
                  .typeVersion = 1,
                  .title = "Ramp",
                  .category = "Signals",
                  .help = "Rises with the given slope from start_time on."},
                 p),
          slope(real("slope", "Slope", "", 1.0).anyUnit()),
          t0(real("start_time", "Start time", "s", 0.0)),
          y0(real("initial_output", "Initial output", "", 0.0).anyUnit()),
          y(output("y", "Output", "").recorded()),
          started(discrete("started", 0.0, 2)) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        const S rise = eq.mode(started) ? real(slope) * (eq.time() - real(t0)) : S(0.0);
        eq.residual(outVar(y)) = eq[outVar(y)] - (real(y0) + rise);
    }
    double nextTimeEvent(double t) const override {
        return real(t0) > t ? real(t0) : std::numeric_limits<double>::infinity();
    }
    void onTimeEvent(EventCtx& ctx) const override { ctx.set(started, 1.0); }
    void initModes(EventCtx& ctx) const override { ctx.set(started, ctx.time() >= real(t0) ? 1.0 : 0.0); }

private:
    const core::Param slope, t0, y0;
    const core::Port y;
    const core::Discrete started;
};

class Sine final : public core::BlockT<Sine> {
public:
    explicit Sine(const ParamValues& p)
        : BlockT({.typeId = "signal.sine",
                  .typeVersion = 1,
                  .title = "Sine Wave",
                  .category = "Signals",
                  .help = "A sine wave of the given amplitude, frequency and phase, offset by bias."},
                 p),
          amplitude(real("amplitude", "Amplitude", "", 1.0).anyUnit()),
          frequency(real("frequency", "Frequency", "Hz", 1.0).atLeast(0)),
          phase(real("phase", "Phase", "rad", 0.0)),
          bias(real("bias", "Bias", "", 0.0).anyUnit()),
          y(output("y", "Output", "").recorded()) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        const S arg = 2.0 * std::numbers::pi * real(frequency) * eq.time() + real(phase);
        eq.residual(outVar(y)) = eq[outVar(y)] - (real(amplitude) * sin(arg) + real(bias));
    }

private:
    const core::Param amplitude, frequency, phase, bias;
    const core::Port y;
};

class Pulse final : public core::BlockT<Pulse> {
public:
    explicit Pulse(const ParamValues& p)
        : BlockT({.typeId = "signal.pulse",
                  .typeVersion = 1,
                  .title = "Pulse Generator",
                  .category = "Signals",
                  .help = "A rectangular pulse train."},
                 p),
          amplitude(real("amplitude", "Amplitude", "", 1.0).anyUnit()),
          period(real("period", "Period", "s", 1.0).above(0)),
          width(real("width", "Pulse width", "s", 0.5).above(0)),
          t0(real("start_time", "Start time", "s", 0.0)),
          y(output("y", "Output", "").recorded()),
          high(discrete("high", 0.0, 2)) {}

    template <class S> void equations(core::Eq<S>& eq) const {
        eq.residual(outVar(y)) = eq[outVar(y)] - (eq.mode(high) ? real(amplitude) : 0.0);
    }
    double nextTimeEvent(double t) const override {
        const double P = real(period), W = real(width), s = real(t0);
        if (t < s) return s;
        const double k = std::floor((t - s) / P + 1e-12);
        for (double c : {s + k * P + W, s + (k + 1) * P, s + (k + 1) * P + W})
            if (c > t * (1 + 1e-14) + 1e-300 && c > t) return c;
        return s + (k + 2) * P;
    }
    void onTimeEvent(EventCtx& ctx) const override { initModes(ctx); }
    void initModes(EventCtx& ctx) const override {
        const double P = real(period), W = std::min(real(width), real(period)), s = real(t0), t = ctx.time();
        if (t < s) {
            ctx.set(high, 0.0);
            return;
        }
        const double tol = 1e-12 * P;
        const double phaseTime = (t - s) - std::floor((t - s + tol) / P) * P;   // in [-tol, P)
        ctx.set(high, phaseTime < W - tol ? 1.0 : 0.0);
    }
    void validateMore(core::Diagnostics& out) const override {
        if (real(width) > real(period)) out.push_back(paramError("width", "must be <= period"));
    }

private:
    const core::Param amplitude, period, width, t0;
    const core::Port y;
    const core::Discrete high;
};

void addSignalSources(core::Registry& r) {
    r.add<Constant>();
    r.add<Step>();
    r.add<Ramp>();
    r.add<Sine>();
    r.add<Pulse>();
}

}   // namespace endstop::blocks
