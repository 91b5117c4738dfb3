// SPDX-License-Identifier: GPL-3.0-or-later
// EventCtx: what a block sees when one of its event functions fired, at a time event, or during the
// mode iteration that follows every event. It reads the solution at the event (left limit) and
// may change discrete state and write to the event log. In settle(), impulse() tells what a
// constraint force carried in the momentum-conserving projection of this restart (impact losses).
#pragma once

#include "core/blockapi/eq.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace endstop::core {

// The direction onEvent() is called with: the sign of the event function's change at its zero.
enum EventDirection : int { kFalling = -1, kRising = 1 };

enum class EventKind { Impact, Contact, Release, Lock, Unlock, Bound, Time, Engage, Disengage };
const char* toString(EventKind k);

struct EventRecord {
    double time = 0.0;
    std::string block;
    EventKind kind = EventKind::Time;
    double velocity = 0.0;   // the block's relative velocity just before the event
};

class EventCtx {
public:
    EventCtx(const Eq<double>& eq, std::span<double> discrete, std::string_view block, std::vector<EventRecord>& log,
             std::span<const double> impulses = {})
        : m_eq(eq), m_discrete(discrete), m_block(block), m_log(log), m_impulses(impulses) {}

    const Eq<double>& eq() const { return m_eq; }
    double time() const { return m_eq.time(); }
    double discrete(Discrete d) const { return m_discrete[static_cast<std::size_t>(d.index)]; }
    int mode(Discrete d) const { return static_cast<int>(discrete(d)); }
    void set(Discrete d, double value) {
        double& slot = m_discrete[static_cast<std::size_t>(d.index)];
        if (slot != value) {
            slot = value;
            m_changed = true;
        }
    }
    void log(EventKind kind, double velocity) { m_log.push_back({time(), std::string(m_block), kind, velocity}); }
    bool changed() const { return m_changed; }
    // The changes of this call leave the block's rows where they were at this state: a corner or
    // the end of a ramp of a continuous law (a smooth stop's clamp), not a jump. IDA then goes on
    // across the event without a restart when every block that changed says so (docs/engine.md,
    // "Events IDA steps over").
    void continuous() { m_continuous = true; }
    // Continuous, and each piece of the rows on either side continues smoothly past this state (a
    // branch the block holds by its discretes, not by the value): the run may then move IDA's
    // history onto the new rows instead of restarting (docs/engine.md, "Correcting IDA's history
    // at a corner").
    void continuousAcross() {
        m_continuous = true;
        m_across = true;
    }
    bool jumped() const { return m_changed && !m_continuous; }
    bool across() const { return m_changed && m_across; }
    // The impulse (time integral of the force over the instant, same sign as the force) that the
    // own constraint force v carried in the projection just before this settle(); 0 if none.
    double impulse(Var v) const {
        const auto i = static_cast<std::size_t>(v.index);
        return i < m_impulses.size() ? m_impulses[i] : 0.0;
    }
    // How closely the run resolves a value of this size: rtol |value| + atol, what IDA's error test
    // treats as one value. 0 outside a run (the initial modes).
    double tolerance(double value) const { return m_rtol * std::abs(value) + m_atol; }
    void setTolerances(double rtol, double atol) {
        m_rtol = rtol;
        m_atol = atol;
    }

private:
    const Eq<double>& m_eq;
    std::span<double> m_discrete;
    std::string_view m_block;
    std::vector<EventRecord>& m_log;
    std::span<const double> m_impulses;   // per own variable
    double m_rtol = 0.0, m_atol = 0.0;
    bool m_changed = false;
    bool m_continuous = false;
    bool m_across = false;
};

}   // namespace endstop::core
