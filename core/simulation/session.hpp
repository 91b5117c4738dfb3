// SPDX-License-Identifier: GPL-3.0-or-later
// Session: simulations for the GUI, each on its own worker thread and on a copy of the model, so
// the GUI thread never simulates and later edits never touch a running solve.
//
// A Run streams its rows into a ResultBuffer that the GUI reads while it grows. Pause and Stop act
// at the solver's next step (the solver polls the cancel flag and calls the progress callback after
// every step; Pause blocks inside that callback), so they take effect within one step. Starting a
// run cancels the one in flight: it winds down in the background, keeps what it computed, and its
// finished() still arrives. A failed or stopped run keeps its rows; a failure's diagnostics name the
// time, the block and a hint (SolverError) or the blocks and ports at fault (TopologyError).
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/model/model.hpp"
#include "core/simulation/result_buffer.hpp"
#include "core/simulation/simulate.hpp"

#include <QObject>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace endstop::core::simulation {

enum class RunState {
    Building,   // topology and DAE assembly, before the first row
    Running,
    Paused,      // the solver thread waits inside its progress callback
    Finished,    // reached the stop time
    Stopped,     // stop() before the stop time; the rows so far are kept
    Cancelled,   // superseded by a newer run
    Failed       // diagnostics() says why; the rows so far are kept
};
const char* toString(RunState s);

class Run {
public:
    Run(int id, model::Model model, SimulationOptions options);

    int id() const { return m_id; }
    const model::Model& model() const { return m_model; }   // the snapshot being simulated
    const ResultBuffer& results() const { return m_results; }
    double stopTime() const { return m_stopTime; }
    RunState state() const { return m_state.load(std::memory_order_acquire); }
    bool active() const;                                                     // Building, Running or Paused
    double time() const { return m_time.load(std::memory_order_relaxed); }   // simulated time reached
    RunStats stats() const;            // live (refreshed every few ms) while active, final after
    Diagnostics diagnostics() const;   // why it failed (empty otherwise)
    double wallSeconds() const;        // since start, or the whole run once it is over
    // Seconds from stop()/cancellation to the solver thread leaving the solver; negative if the
    // run was never stopped (the measure of "Stop takes effect within one step").
    double stopLatency() const;

private:
    friend class Session;
    using Clock = std::chrono::steady_clock;
    void progress(double t, const RunStats& s);   // solver thread, after every step
    void requestStop(RunState as);
    void setPaused(bool paused);

    const int m_id;
    const model::Model m_model;
    const SimulationOptions m_options;
    double m_stopTime = 0.0;
    ResultBuffer m_results;
    std::atomic<RunState> m_state{RunState::Building};
    std::atomic<RunState> m_stopAs{RunState::Stopped};
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_pause{false};
    std::atomic<double> m_time{0.0};
    mutable std::mutex m_mutex;   // everything below
    std::condition_variable m_wake;
    RunStats m_live;
    Diagnostics m_diagnostics;
    Clock::time_point m_started, m_ended, m_lastStats, m_stopRequested;
    bool m_over = false;
    bool m_stopped = false;
};

class Session : public QObject {
    Q_OBJECT
public:
    explicit Session(const Registry& registry, QObject* parent = nullptr);
    ~Session() override;   // cancels every run and waits for the workers

    // Starts simulating a copy of `model`; a run still in flight is cancelled (state Cancelled).
    // Settings errors are reported like any other failure, by the run's state and diagnostics.
    std::shared_ptr<Run> start(const model::Model& model, const SimulationOptions& options = {});
    void pause();   // the current run
    void resume();
    void stop();

    const std::shared_ptr<Run>& current() const { return m_current; }
    bool active() const { return m_current && m_current->active(); }
    bool paused() const;
    int workers() const { return static_cast<int>(m_workers.size()); }   // threads not joined yet

Q_SIGNALS:
    // In this object's thread, after the run's worker returned (every run, also cancelled ones).
    void finished(int runId);

private:
    void work(const std::shared_ptr<Run>& run);   // on the worker thread
    void reap(int runId);

    struct Worker {
        std::shared_ptr<Run> run;
        std::thread thread;
    };
    const Registry& m_registry;
    std::shared_ptr<Run> m_current;
    std::vector<Worker> m_workers;
    int m_nextId = 1;
};

}   // namespace endstop::core::simulation
