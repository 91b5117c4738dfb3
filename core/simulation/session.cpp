// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/simulation/session.hpp"

#include "core/errors.hpp"

#include <QMetaObject>

namespace endstop::core::simulation {

namespace {
constexpr auto kStatsEvery = std::chrono::milliseconds(20);
}

const char* toString(RunState s) {
    switch (s) {
        case RunState::Building:
            return "building";
        case RunState::Running:
            return "running";
        case RunState::Paused:
            return "paused";
        case RunState::Finished:
            return "finished";
        case RunState::Stopped:
            return "stopped";
        case RunState::Cancelled:
            return "cancelled";
        case RunState::Failed:
            return "failed";
    }
    return "?";
}

// ---- Run ----------------------------------------------------------------------------------------

Run::Run(int id, model::Model model, SimulationOptions options)
    : m_id(id), m_model(std::move(model)), m_options(std::move(options)), m_started(Clock::now()) {
    try {
        m_stopTime = resolveSettings(m_model.simulation(), m_options).stopTime;
    } catch (const Error&) {
        m_stopTime = m_model.simulation().stopTime;   // simulate() reports the bad setting
    }
}

bool Run::active() const {
    const RunState s = state();
    return s == RunState::Building || s == RunState::Running || s == RunState::Paused;
}

RunStats Run::stats() const {
    if (m_results.ended()) return m_results.stats();
    const std::lock_guard lock(m_mutex);
    return m_live;
}

Diagnostics Run::diagnostics() const {
    const std::lock_guard lock(m_mutex);
    return m_diagnostics;
}

double Run::wallSeconds() const {
    const std::lock_guard lock(m_mutex);
    return std::chrono::duration<double>((m_over ? m_ended : Clock::now()) - m_started).count();
}

double Run::stopLatency() const {
    const std::lock_guard lock(m_mutex);
    if (!m_stopped || !m_over) return -1.0;
    return std::chrono::duration<double>(m_ended - m_stopRequested).count();
}

void Run::progress(double t, const RunStats& s) {
    m_time.store(t, std::memory_order_relaxed);
    if (m_state.load(std::memory_order_relaxed) == RunState::Building)
        m_state.store(RunState::Running, std::memory_order_release);
    const auto now = Clock::now();
    std::unique_lock lock(m_mutex);
    if (now - m_lastStats >= kStatsEvery) {
        m_live = s;
        m_lastStats = now;
    }
    if (!m_pause.load() || m_cancel.load()) return;
    m_live = s;
    m_state.store(RunState::Paused, std::memory_order_release);
    m_wake.wait(lock, [this] { return !m_pause.load() || m_cancel.load(); });
    if (!m_cancel.load()) m_state.store(RunState::Running, std::memory_order_release);
}

void Run::requestStop(RunState as) {
    const std::lock_guard lock(m_mutex);
    if (!m_stopped) {
        m_stopped = true;
        m_stopRequested = Clock::now();
        m_stopAs.store(as);
    }
    m_cancel.store(true);
    m_wake.notify_all();
}

void Run::setPaused(bool paused) {
    const std::lock_guard lock(m_mutex);
    m_pause.store(paused);
    m_wake.notify_all();
}

// ---- Session ------------------------------------------------------------------------------------

Session::Session(const Registry& registry, QObject* parent) : QObject(parent), m_registry(registry) {}

Session::~Session() {
    for (Worker& w : m_workers) w.run->requestStop(RunState::Cancelled);
    for (Worker& w : m_workers)
        if (w.thread.joinable()) w.thread.join();
}

std::shared_ptr<Run> Session::start(const model::Model& model, const SimulationOptions& options) {
    if (m_current && m_current->active()) m_current->requestStop(RunState::Cancelled);
    auto run = std::make_shared<Run>(m_nextId++, model, options);
    m_current = run;
    m_workers.push_back({run, std::thread([this, run] { work(run); })});
    return run;
}

void Session::pause() {
    if (active()) m_current->setPaused(true);
}

void Session::resume() {
    if (m_current) m_current->setPaused(false);
}

void Session::stop() {
    if (active()) m_current->requestStop(RunState::Stopped);
}

bool Session::paused() const { return active() && m_current->m_pause.load(); }

void Session::work(const std::shared_ptr<Run>& run) {
    solver::RunControl control;
    control.cancel = &run->m_cancel;
    control.progress = [r = run.get()](double t, const RunStats& s) { r->progress(t, s); };
    RunState outcome = RunState::Finished;
    Diagnostics diagnostics;
    try {
        const RunStats stats = simulate(run->m_model, m_registry, run->m_options, run->m_results, control);
        if (!stats.completed) outcome = run->m_stopAs.load();
    } catch (const Error& e) {
        outcome = RunState::Failed;
        diagnostics = e.diagnostics();
        if (diagnostics.empty()) diagnostics.push_back({Severity::Error, {}, {}, {}, e.what(), {}});
    } catch (const std::exception& e) {
        outcome = RunState::Failed;
        diagnostics.push_back({Severity::Error, {}, {}, {}, e.what(), {}});
    }
    if (!run->m_results.ended()) run->m_results.end(run->stats());   // failed before the solver started
    {
        const std::lock_guard lock(run->m_mutex);
        run->m_diagnostics = std::move(diagnostics);
        run->m_ended = Run::Clock::now();
        run->m_over = true;
    }
    run->m_state.store(outcome, std::memory_order_release);
    QMetaObject::invokeMethod(
        this, [this, id = run->id()] { reap(id); }, Qt::QueuedConnection);
}

void Session::reap(int runId) {
    for (auto it = m_workers.begin(); it != m_workers.end(); ++it) {
        if (it->run->id() != runId) continue;
        if (it->thread.joinable()) it->thread.join();   // it has returned from work()
        m_workers.erase(it);
        break;
    }
    Q_EMIT finished(runId);
}

}   // namespace endstop::core::simulation
