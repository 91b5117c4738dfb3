// SPDX-License-Identifier: GPL-3.0-or-later
// Signal arithmetic.
//   gain: y = gain * u
//   sum:  y = sum_i s_i * u_i with s_i the i-th character of `signs` ('+' or '-'); one input u_i
//         per character, so "+-" gives inputs u1 and u2 and y = u1 - u2
#include "blocks/common.hpp"

namespace endstop::blocks {

class Gain final : public core::BlockT<Gain> {
public:
    explicit Gain(const core::ParamValues& p)
        : BlockT({.typeId = "signal.gain",
                  .typeVersion = 1,
                  .title = "Gain",
                  .category = "Signals",
                  .help = "Multiplies its input by a constant."},
                 p),
          k(real("gain", "Gain", "", 1.0).anyUnit()),
          u(input("u", "Input", "")),
          y(output("y", "Output", "").recorded()) {}
    template <class S> void equations(core::Eq<S>& eq) const {
        eq.residual(outVar(y)) = eq[outVar(y)] - real(k) * eq.input(u);
    }

private:
    const core::Param k;
    const core::Port u, y;
};

class Sum final : public core::BlockT<Sum> {
public:
    explicit Sum(const core::ParamValues& p)
        : BlockT({.typeId = "signal.sum",
                  .typeVersion = 1,
                  .title = "Sum",
                  .category = "Signals",
                  .help = "Adds and subtracts its inputs."},
                 p),
          signs(text("signs", "List of signs", "++").help("one '+' or '-' per input, e.g. \"+-\"")) {
        const std::string& s = text(signs);
        for (std::size_t i = 0; i < s.size() && i < kMaxInputs; ++i)
            m_inputs.push_back(input("u" + std::to_string(i + 1), "Input " + std::to_string(i + 1), ""));
        m_y = output("y", "Output", "").recorded();
    }
    template <class S> void equations(core::Eq<S>& eq) const {
        const std::string& s = text(signs);
        S total(0.0);
        for (std::size_t i = 0; i < m_inputs.size(); ++i) total += (s[i] == '-' ? -1.0 : 1.0) * eq.input(m_inputs[i]);
        eq.residual(outVar(m_y)) = eq[outVar(m_y)] - total;
    }
    void validateMore(core::Diagnostics& out) const override {
        const std::string& s = text(signs);
        if (s.empty() || s.size() > kMaxInputs || s.find_first_not_of("+-") != std::string::npos)
            out.push_back(paramError(
                "signs", "expected 1 to " + std::to_string(kMaxInputs) + " characters '+' or '-', got \"" + s + "\""));
    }

private:
    static constexpr std::size_t kMaxInputs = 32;
    const core::TextParam signs;
    std::vector<core::Port> m_inputs;
    core::Port m_y;
};

void addSignalMath(core::Registry& r) {
    r.add<Gain>();
    r.add<Sum>();
}

}   // namespace endstop::blocks
