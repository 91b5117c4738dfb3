// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/run_series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace endstop::gui {

RunSeries::RunSeries(std::shared_ptr<core::simulation::Run> run) : m_run(std::move(run)) {
    label = QStringLiteral("Run %1").arg(m_run->id());
}

void RunSeries::resolve(Tracked& t, const std::string& name) {
    const core::simulation::ResultBuffer& buffer = m_run->results();
    if (t.index != -2 || !buffer.begun()) return;
    t.index = buffer.columnIndex(name);
    if (t.index < 0) return;
    m_scratch.clear();
    buffer.read(t.index, 0, m_time.size(), m_scratch);   // catch up with the rows already pulled
    t.cache.append(m_scratch);
}

void RunSeries::track(const std::string& column) {
    auto [it, added] = m_tracked.try_emplace(column);
    if (added) resolve(it->second, column);
}

const MinMaxCache* RunSeries::trace(const std::string& column) const {
    const auto it = m_tracked.find(column);
    return it != m_tracked.end() && it->second.index >= 0 ? &it->second.cache : nullptr;
}

bool RunSeries::records(const std::string& column) const { return m_run->results().columnIndex(column) >= 0; }

const core::Column* RunSeries::column(const std::string& name) const {
    const core::simulation::ResultBuffer& buffer = m_run->results();
    const int i = buffer.columnIndex(name);
    return i < 0 ? nullptr : &buffer.columns()[static_cast<std::size_t>(i)];
}

bool RunSeries::pull() {
    const core::simulation::ResultBuffer& buffer = m_run->results();
    if (!buffer.begun()) return false;
    for (auto& [name, t] : m_tracked) resolve(t, name);
    const std::size_t have = m_time.size();
    const std::size_t n = buffer.rows();
    const std::size_t eventsBefore = m_events.size();
    buffer.readEvents(eventsBefore, m_events);
    if (n <= have) return m_events.size() != eventsBefore;
    std::vector<int> columns{core::simulation::ResultBuffer::kTime};
    std::vector<MinMaxCache*> caches{nullptr};
    for (auto& [name, t] : m_tracked)
        if (t.index >= 0) {
            columns.push_back(t.index);
            caches.push_back(&t.cache);
        }
    m_pulled.resize(columns.size());
    std::vector<std::vector<double>*> out;
    for (std::vector<double>& v : m_pulled) {
        v.clear();
        out.push_back(&v);
    }
    out[0] = &m_time;   // the time goes straight to its place
    buffer.read(columns, have, n, out);
    for (std::size_t i = 1; i < caches.size(); ++i) caches[i]->append(m_pulled[i]);
    return true;
}

double RunSeries::valueAt(const std::string& column, double t) const {
    const MinMaxCache* c = trace(column);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (!c || c->size() == 0) return nan;
    const std::span<const double> time = std::span<const double>(m_time).first(std::min(m_time.size(), c->size()));
    if (t < time.front() || t > time.back()) return nan;
    const auto after = std::upper_bound(time.begin(), time.end(), t);
    const std::size_t j = static_cast<std::size_t>(after - time.begin());
    const std::vector<double>& v = c->values();
    if (j == 0) return v.front();
    if (j == time.size()) return v[j - 1];
    const double t0 = time[j - 1], t1 = time[j];
    if (t1 <= t0) return v[j];
    return v[j - 1] + (v[j] - v[j - 1]) * (t - t0) / (t1 - t0);
}

}   // namespace endstop::gui
