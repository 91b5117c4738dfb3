// SPDX-License-Identifier: GPL-3.0-or-later
#include "python/runner.hpp"

#include "blocks/registry.hpp"
#include "core/io/overrides.hpp"
#include "core/errors.hpp"

#include <algorithm>

namespace endstop::python {

const char* toString(Status s) {
    switch (s) {
        case Status::Ok:
            return "ok";
        case Status::Failed:
            return "failed";
        case Status::Timeout:
            return "timeout";
        case Status::Cancelled:
            return "cancelled";
        case Status::Invalid:
            return "invalid";
    }
    return "?";
}

const std::vector<double>* Outcome::column(const std::string& name) const {
    const auto it = index.find(name);
    return it == index.end() ? nullptr : &sink.values(it->second);
}

void Outcome::buildIndex() {
    index.clear();
    for (std::size_t i = 0; i < sink.columns().size(); ++i) index.emplace(sink.columns()[i].name, i);
}

core::model::Model withOverrides(const core::model::Model& base, const Assignments& sets) {
    core::model::Model model = base;
    for (const Assignment& a : sets)
        model.apply(core::io::parseAssignment(model, blocks::registry(), a.name + "=" + a.value));
    return model;
}

std::string firstError(const core::model::Model& model) {
    for (const core::Diagnostic& d : core::simulation::validateModel(model, blocks::registry()))
        if (d.severity == core::Severity::Error) return d.text();
    return {};
}

std::shared_ptr<Outcome> runModel(const core::model::Model& model, const core::simulation::SimulationOptions& options,
                                  const std::atomic<bool>& cancel) {
    auto out = std::make_shared<Outcome>();
    core::solver::RunControl control;
    control.cancel = &cancel;
    try {
        const core::RunStats stats = core::simulation::simulate(model, blocks::registry(), options, out->sink, control);
        out->status = stats.cancelled ? Status::Cancelled : Status::Ok;
    } catch (const core::RunLimitError& e) {   // before SolverError: it is one
        out->status = Status::Timeout;
        out->message = e.what();
    } catch (const core::SolverError& e) {
        out->status = Status::Failed;
        out->message = e.what();
    } catch (const std::exception& e) {   // the model or the options cannot be simulated
        out->status = Status::Invalid;
        out->message = e.what();
    }
    out->buildIndex();
    return out;
}

TaskPool::TaskPool(std::size_t count, int jobs, std::function<void(std::size_t)> task, const std::atomic<bool>& stop)
    : m_task(std::move(task)), m_stop(stop), m_count(count) {
    const auto threads = static_cast<int>(std::min<std::size_t>(count, static_cast<std::size_t>(std::max(1, jobs))));
    m_running = threads;
    m_threads.reserve(static_cast<std::size_t>(threads));
    for (int i = 0; i < threads; ++i) m_threads.emplace_back([this] { work(); });
}

TaskPool::~TaskPool() {
    for (std::thread& t : m_threads) t.join();
}

void TaskPool::work() {
    try {
        for (std::size_t i = m_next++; i < m_count && !m_stop.load(); i = m_next++) m_task(i);
    } catch (...) {   // an exception leaving a std::thread would terminate the Python process
        const std::lock_guard lock(m_mutex);
        if (!m_error) m_error = std::current_exception();
    }
    const std::lock_guard lock(m_mutex);
    --m_running;
    m_finished.notify_all();
}

bool TaskPool::waitFor(std::chrono::milliseconds timeout) {
    std::unique_lock lock(m_mutex);
    return m_finished.wait_for(lock, timeout, [this] { return m_running == 0; });
}

void TaskPool::rethrow() const {
    if (m_error) std::rethrow_exception(m_error);
}

}   // namespace endstop::python
