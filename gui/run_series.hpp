// SPDX-License-Identifier: GPL-3.0-or-later
// RunSeries: one run as the plots see it. It holds the session's Run (whose ResultBuffer keeps the
// whole result) and, on the GUI thread, the rows pulled so far of the time and of the columns some
// plot shows, each in a MinMaxCache, plus the event log. pull() reads only what was added since the
// last pull; track() starts following another column (reading its history once).
#pragma once

#include "core/simulation/session.hpp"
#include "gui/min_max_cache.hpp"

#include <QString>

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace endstop::gui {

class RunSeries {
public:
    explicit RunSeries(std::shared_ptr<core::simulation::Run> run);

    const core::simulation::Run& run() const { return *m_run; }
    const std::shared_ptr<core::simulation::Run>& runPtr() const { return m_run; }
    int id() const { return m_run->id(); }
    bool pinned() const { return m_pinned; }
    void setPinned(bool pinned) { m_pinned = pinned; }
    QString label;   // "Run 3", with the tuned value when it came from the tuning panel

    // Follows a column from now on; its data is there after the next pull() (or at once if the
    // run has begun). Columns the run does not record stay empty.
    void track(const std::string& column);
    const MinMaxCache* trace(const std::string& column) const;   // nullptr: not recorded (yet)
    bool records(const std::string& column) const;
    const core::Column* column(const std::string& name) const;   // name, unit, label

    // Reads the rows and events added since the last pull; true if there was anything new.
    bool pull();
    std::span<const double> time() const { return m_time; }
    std::size_t rows() const { return m_time.size(); }
    const std::vector<core::EventRecord>& events() const { return m_events; }
    // Linear interpolation at t (the later value at an event's time); NaN outside the data.
    double valueAt(const std::string& column, double t) const;

private:
    struct Tracked {
        int index = -2;   // buffer column, -1: not recorded, -2: not resolved yet (run not begun)
        MinMaxCache cache;
    };
    void resolve(Tracked& t, const std::string& name);

    std::shared_ptr<core::simulation::Run> m_run;
    bool m_pinned = false;
    std::vector<double> m_time;
    std::map<std::string, Tracked> m_tracked;
    std::vector<core::EventRecord> m_events;
    std::vector<double> m_scratch;
    std::vector<std::vector<double>> m_pulled;   // per tracked column, reused by pull()
};

}   // namespace endstop::gui
