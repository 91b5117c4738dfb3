// SPDX-License-Identifier: GPL-3.0-or-later
// Eq<S>: what a block's equations see. Only the block's own ports, variables, discrete state and
// time; parameters come from the block itself. The engine fills the spans; S is any scalar of
// core/ad/scalar.hpp. Sign convention (docs/engine.md): through(R, f) means f leaves node R into the
// block; through(C, -f) brings it back out at C (both: flowThrough(R, C, f)). A mass writes
// through(M, m*der(M)).
#pragma once

#include "core/ad/scalar.hpp"
#include "core/blockapi/handles.hpp"

#include <cstdint>
#include <span>

namespace endstop::core {

template <class S> struct EqData {
    std::span<const S> y;               // per local slot
    std::span<const S> yp;              // per local slot: the time derivative
    std::span<const int> portSlot;      // per port: slot of its node / source output, -1 if none
    std::span<const int> varSlot;       // per own variable
    std::span<const double> discrete;   // per discrete state
    std::span<S> residual;              // per own variable: its row
    std::span<S> through;               // per conserving port: flow into the block
    S time{};
    // when set, bit i is set as the block reads discrete i (bit 63: some discrete from the 63rd on):
    // the engine learns which discretes a block's equations depend on (Evaluator::linearAt)
    std::uint64_t* discreteReads = nullptr;
    // when set, becomes true as the block reads the time (the reduction's constants, row_forms.hpp)
    bool* timeRead = nullptr;
};

template <class S> class Eq {
public:
    explicit Eq(EqData<S>& d) : m_d(d) {}

    // across variable (velocity / angular velocity) at a conserving port; 0 at a reference
    S across(Port p) const { return slotValue(m_d.y, p); }
    S der(Port p) const { return slotValue(m_d.yp, p); }
    // a signal input: the value of the output it is wired to (0 for an open optional input)
    S input(Port p) const { return slotValue(m_d.y, p); }
    bool connected(Port p) const { return m_d.portSlot[idx(p.index)] >= 0; }

    S operator[](Var v) const { return m_d.y[idx(m_d.varSlot[idx(v.index)])]; }
    S der(Var v) const { return m_d.yp[idx(m_d.varSlot[idx(v.index)])]; }
    S time() const {
        if (m_d.timeRead) *m_d.timeRead = true;
        return m_d.time;
    }
    double discrete(Discrete d) const {
        noteRead(d);
        return m_d.discrete[idx(d.index)];
    }
    int mode(Discrete d) const {
        noteRead(d);
        return static_cast<int>(m_d.discrete[idx(d.index)]);
    }

    S& residual(Var v) { return m_d.residual[idx(v.index)]; }
    void through(Port p, const S& f) { m_d.through[idx(p.conserving)] += f; }
    // f flows from node R through the block and back out into node C (a two-port element)
    void flowThrough(Port R, Port C, const S& f) {
        through(R, f);
        through(C, -f);
    }

private:
    static std::size_t idx(int i) { return static_cast<std::size_t>(i); }
    void noteRead(Discrete d) const {
        if (m_d.discreteReads) *m_d.discreteReads |= std::uint64_t(1) << (d.index < 63 ? d.index : 63);
    }
    S slotValue(std::span<const S> values, Port p) const {
        const int s = m_d.portSlot[idx(p.index)];
        return s < 0 ? S(0.0) : values[idx(s)];
    }
    EqData<S>& m_d;
};

}   // namespace endstop::core
