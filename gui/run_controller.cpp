// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/run_controller.hpp"

#include "gui/document.hpp"

#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>

namespace endstop::gui {

namespace {
constexpr int kMaxWorkers = 2;   // the current run and one winding down
}

RunController::RunController(Document& doc, QObject* parent)
    : QObject(parent),
      m_doc(doc),
      m_session(new core::simulation::Session(doc.registry(), this)),
      m_timer(new QTimer(this)) {
    m_timer->setInterval(kFrameMs);
    m_timer->setTimerType(Qt::PreciseTimer);
    connect(m_timer, &QTimer::timeout, this, &RunController::tick);
    connect(m_session, &core::simulation::Session::finished, this, &RunController::onFinished);
    connect(&doc, &Document::structureChanged, this, &RunController::updateStale);
    connect(&doc, &Document::simulationChanged, this, &RunController::updateStale);
}

bool RunController::sameInputs(const core::model::Model& a, const core::model::Model& b) {
    if (!(a.simulation() == b.simulation()) || a.blocks().size() != b.blocks().size() ||
        a.connections().size() != b.connections().size())
        return false;
    for (std::size_t i = 0; i < a.blocks().size(); ++i) {
        const core::model::BlockSpec &x = a.blocks()[i], &y = b.blocks()[i];
        if (x.name != y.name || x.type != y.type || x.typeVersion != y.typeVersion || !(x.params == y.params))
            return false;
    }
    for (std::size_t i = 0; i < a.connections().size(); ++i)
        if (!(a.connections()[i] == b.connections()[i])) return false;
    return true;
}

void RunController::updateStale() { setStale(m_current && !sameInputs(m_current->run().model(), m_doc.model())); }

void RunController::setStale(bool stale) {
    if (stale == m_stale) return;
    m_stale = stale;
    Q_EMIT staleChanged(stale);
}

RunController::~RunController() = default;

core::simulation::SimulationOptions RunController::recordingFor(const core::model::Model& model,
                                                                const core::Registry& registry) {
    core::simulation::SimulationOptions options;
    const std::vector<core::Column> all = core::simulation::recordableVariables(model, registry);
    if (all.size() <= kRecordAllLimit) return options;   // empty: everything
    for (const core::model::PlotSpec& p : model.plots())
        for (const std::string& s : p.signals)
            if (std::find(options.signals.begin(), options.signals.end(), s) == options.signals.end() &&
                std::any_of(all.begin(), all.end(), [&](const core::Column& c) { return c.name == s; }))
                options.signals.push_back(s);
    if (options.signals.empty()) options.signals.push_back(all.front().name);   // a row still tells the time
    return options;
}

void RunController::run() { runModel(m_doc.model(), QString(), false); }

void RunController::runModel(const core::model::Model& model, const QString& label, bool replaceCurrent) {
    if (m_session->workers() >= kMaxWorkers) {
        // the current run goes on until the pending one replaces it; a request that keeps the
        // current run wins over a later one that would drop it
        const bool replace = m_pending ? m_pending->replaceCurrent && replaceCurrent : replaceCurrent;
        m_pending = Pending{model, label, replace};
        return;
    }
    start(model, label, replaceCurrent);
}

void RunController::start(const core::model::Model& model, const QString& label, bool replaceCurrent) {
    if (m_current && !m_current->run().active() && !replaceCurrent) {
        m_current->pull();
        m_previous.insert(m_previous.begin(), std::move(m_current));
        trim();
    }
    m_current = std::make_unique<RunSeries>(m_session->start(model, recordingFor(model, m_doc.registry())));
    m_running = true;
    if (!label.isEmpty()) m_current->label += QStringLiteral(" (") + label + ')';
    for (const std::string& c : m_tracked) m_current->track(c);
    m_timer->start(kFirstRowsMs);
    Q_EMIT runStarted();
    setStale(false);   // a tuning preview differs from the document, but on purpose
    Q_EMIT stateChanged();
}

void RunController::togglePause() {
    if (!active()) return;
    if (m_session->paused())
        m_session->resume();
    else
        m_session->pause();
    Q_EMIT stateChanged();
}

void RunController::stop() {
    m_pending.reset();
    m_session->resume();
    m_session->stop();
    Q_EMIT stateChanged();
}

bool RunController::active() const { return m_pending.has_value() || m_running; }

bool RunController::paused() const { return m_session->paused(); }

RunSeries* RunController::find(int runId) const {
    if (m_current && m_current->id() == runId) return m_current.get();
    for (const auto& r : m_previous)
        if (r->id() == runId) return r.get();
    return nullptr;
}

void RunController::setKeepRuns(int n) {
    m_keep = std::max(0, n);
    trim();
    Q_EMIT runsChanged();
}

void RunController::setPinned(int runId, bool pinned) {
    if (RunSeries* r = find(runId)) r->setPinned(pinned);
    trim();
    Q_EMIT runsChanged();
}

void RunController::clearPrevious() {
    std::erase_if(m_previous, [](const auto& r) { return !r->pinned(); });
    Q_EMIT runsChanged();
}

void RunController::clear() {
    stop();
    m_running = false;
    m_current.reset();
    m_previous.clear();
    m_tracked.clear();
    m_timer->stop();
    updateStale();
    Q_EMIT runsChanged();
    Q_EMIT stateChanged();
}

void RunController::trim() {
    int unpinned = 0;
    std::erase_if(m_previous, [&](const auto& r) { return !r->pinned() && ++unpinned > m_keep; });
}

void RunController::track(const std::string& column) {
    if (std::find(m_tracked.begin(), m_tracked.end(), column) != m_tracked.end()) return;
    m_tracked.push_back(column);
    if (m_current) m_current->track(column);
    for (const auto& r : m_previous) r->track(column);
}

void RunController::tick() {
    QElapsedTimer clock;
    clock.start();
    const bool fresh = m_current && m_current->pull();
    m_lastPull = static_cast<double>(clock.nsecsElapsed()) * 1e-9;
    if (m_current && m_current->rows() > 0) m_timer->setInterval(kFrameMs);
    if (fresh) Q_EMIT frame();
    if (!active()) m_timer->stop();
}

void RunController::onFinished(int runId) {
    if (m_pending && m_session->workers() < kMaxWorkers) {
        Pending p = std::move(*m_pending);
        m_pending.reset();
        start(p.model, p.label, p.replaceCurrent);
        return;
    }
    if (!m_current || m_current->id() != runId) return;
    m_running = false;
    m_current->pull();
    Q_EMIT frame();
    Q_EMIT runFinished(runId);
    Q_EMIT stateChanged();
    if (!active()) m_timer->stop();
}

}   // namespace endstop::gui
