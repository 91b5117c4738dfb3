// SPDX-License-Identifier: GPL-3.0-or-later
// Lookup table in time: breakpoints `times` (strictly increasing) and `values`.
//   linear: y = values[i] + (t - times[i]) * (values[i+1] - values[i]) / (times[i+1] - times[i])
//   hold:   y = values[i] for times[i] <= t < times[i+1]
// Before the first breakpoint y = values[0], after the last y = values[n-1]. Every breakpoint is a
// time event; the segment index i is a mode, so each step integrates one smooth piece.
#include "blocks/common.hpp"

#include <algorithm>

namespace endstop::blocks {

namespace {
enum class Interpolation { Linear, Hold };   // the choice interpolation
}   // namespace

class Table final : public core::BlockT<Table> {
public:
    explicit Table(const core::ParamValues& p)
        : BlockT({.typeId = "signal.table",
                  .typeVersion = 1,
                  .title = "Time Table",
                  .category = "Signals",
                  .help = "Piecewise linear or piecewise constant signal of time."},
                 p),
          times(vector("times", "Breakpoint times", "s", {0.0, 1.0})),
          values(vector("values", "Values", "", {0.0, 1.0})),
          interpolation(choice("interpolation", "Interpolation", "linear",
                               {{"linear", "Linear"}, {"hold", "Hold (zero order)"}})),
          m_interpolation(is(interpolation, "hold") ? Interpolation::Hold : Interpolation::Linear),
          y(output("y", "Output", "").recorded()),
          segment(discrete("segment", 0.0)) {}

    // segment: -1 before the first breakpoint, i in [0, n-1) inside, n-1 after the last
    template <class S> void equations(core::Eq<S>& eq) const {
        const auto& T = vec(times);
        const auto& V = vec(values);
        const int n = static_cast<int>(std::min(T.size(), V.size()));
        const int i = eq.mode(segment);
        S out(V.empty() ? 0.0 : V.front());
        if (n > 0 && i >= n - 1)
            out = S(V[static_cast<std::size_t>(n - 1)]);
        else if (i >= 0 && n > 1) {
            const auto a = static_cast<std::size_t>(i);
            out = m_interpolation == Interpolation::Hold
                      ? S(V[a])
                      : V[a] + (eq.time() - T[a]) * ((V[a + 1] - V[a]) / (T[a + 1] - T[a]));
        }
        eq.residual(outVar(y)) = eq[outVar(y)] - out;
    }
    double nextTimeEvent(double t) const override {
        const auto& T = vec(times);
        const auto it = std::upper_bound(T.begin(), T.end(), t);
        return it == T.end() ? std::numeric_limits<double>::infinity() : *it;
    }
    void onTimeEvent(core::EventCtx& ctx) const override { initModes(ctx); }
    void initModes(core::EventCtx& ctx) const override {
        const auto& T = vec(times);
        const auto it = std::upper_bound(T.begin(), T.end(), ctx.time());
        ctx.set(segment, static_cast<double>(it - T.begin()) - 1.0);
    }
    void validateMore(core::Diagnostics& out) const override {
        const auto& T = vec(times);
        if (T.empty()) out.push_back(paramError("times", "needs at least one breakpoint"));
        if (T.size() != vec(values).size())
            out.push_back(paramError("values", "must have as many elements as times (" + std::to_string(T.size()) +
                                                   "), got " + std::to_string(vec(values).size())));
        for (std::size_t i = 1; i < T.size(); ++i)
            if (!(T[i] > T[i - 1])) {
                out.push_back(
                    paramError("times", "must be strictly increasing (element " + std::to_string(i + 1) + ")"));
                break;
            }
    }

private:
    const core::VecParam times, values;
    const core::Choice interpolation;
    const Interpolation m_interpolation;
    const core::Port y;
    const core::Discrete segment;
};

void addTable(core::Registry& r) { r.add<Table>(); }

}   // namespace endstop::blocks
