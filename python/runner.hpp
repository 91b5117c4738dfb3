// SPDX-License-Identifier: GPL-3.0-or-later
// The Python module's C++ side, free of Python objects so that it runs with the GIL released:
// a copy of the loaded model with overrides, one run into memory, and a pool of threads.
// (loaded model, overrides, options) => copy of the model => simulate() => Outcome
#pragma once

#include "core/model/model.hpp"
#include "core/results/results.hpp"
#include "core/simulation/simulate.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace endstop::python {

struct Assignment {
    std::string name;    // "stop1.upper_bound"
    std::string value;   // as a user types it: "5 mm", "0.005" (SI), "[0 1 2] s", a choice key
};
using Assignments = std::vector<Assignment>;

// The batch sweep's words for how a run ended (summary.csv), so both tools say the same.
enum class Status { Ok, Failed, Timeout, Cancelled, Invalid };
const char* toString(Status s);

// One run as it ended: every row, the event log and the statistics, also of a run that failed
// part-way (the solver calls the sink's end() before it throws).
struct Outcome {
    Status status = Status::Ok;
    std::string message;   // why it did not end ok; empty if it did
    core::MemorySink sink;
    std::unordered_map<std::string, std::size_t> index;   // column name -> position in sink

    const std::vector<double>* column(const std::string& name) const;   // nullptr if not recorded
    void buildIndex();
};

// A copy of `base` with the assignments applied in order. Throws core::ModelError naming the
// assignment at fault (unknown block or parameter, bad unit, value out of range).
core::model::Model withOverrides(const core::model::Model& base, const Assignments& sets);

// The first error validateModel() finds, "" if the model can be simulated.
std::string firstError(const core::model::Model& model);

// Runs the model to its stop time (or a limit, a failure, `cancel`). Never throws for a bad model
// or a solver failure: they become the outcome's status and message.
std::shared_ptr<Outcome> runModel(const core::model::Model& model, const core::simulation::SimulationOptions& options,
                                  const std::atomic<bool>& cancel);

// Calls task(i) once for each i in [0, count) on up to `jobs` threads. Tasks not yet started are
// skipped once `stop` is set. The destructor joins every thread.
class TaskPool {
public:
    TaskPool(std::size_t count, int jobs, std::function<void(std::size_t)> task, const std::atomic<bool>& stop);
    ~TaskPool();
    TaskPool(const TaskPool&) = delete;
    TaskPool& operator=(const TaskPool&) = delete;

    bool waitFor(std::chrono::milliseconds timeout);   // true once every thread has finished
    void rethrow() const;                              // the first exception a task let out, if any

private:
    void work();

    std::function<void(std::size_t)> m_task;
    const std::atomic<bool>& m_stop;
    std::size_t m_count;
    std::atomic<std::size_t> m_next{0};
    std::mutex m_mutex;
    std::condition_variable m_finished;
    int m_running = 0;
    std::exception_ptr m_error;
    std::vector<std::thread> m_threads;
};

}   // namespace endstop::python
