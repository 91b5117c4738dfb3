// SPDX-License-Identifier: GPL-3.0-or-later
// RunController: Run, Pause/Resume and Stop for the window, over a core::Session (the simulation
// runs on a worker thread on a copy of the model), and the runs the plots show: the current one
// and the previous ones kept as faded traces (the last keepRuns(), plus any pinned).
//
// While a run is active a ~30 Hz timer pulls its new rows (RunSeries::pull) and emits frame(); the
// plots and the status bar redraw from that, never from the solver thread. A run superseded before
// it ended (Run pressed again, a tuning slider moved on) is dropped; one that ended (finished,
// stopped, failed) becomes the newest previous run when the next one starts. If two workers are
// still winding down, a new start waits for one of them (only the newest request is kept), so a
// fast slider on a slow model never piles up threads.
//
// A run records every variable of the model (any signal can be plotted afterwards) unless the model
// has more than kRecordAllLimit of them: a large model records only the plotted signals, or every
// row would hold thousands of columns (a 1,000-mass chain: 15,000 doubles a step).
#pragma once

#include "core/simulation/session.hpp"
#include "gui/run_series.hpp"

#include <QObject>

#include <memory>
#include <optional>
#include <vector>

class QTimer;

namespace endstop::gui {

class Document;

class RunController : public QObject {
    Q_OBJECT
public:
    static constexpr int kFrameMs = 33;
    static constexpr int kFirstRowsMs = 5;   // until the first rows arrive: a fast first picture
    static constexpr std::size_t kRecordAllLimit = 400;

    // What a run of `model` records (the benchmark runs its headless reference with the same).
    static core::simulation::SimulationOptions recordingFor(const core::model::Model& model,
                                                            const core::Registry& registry);

    explicit RunController(Document& doc, QObject* parent = nullptr);
    ~RunController() override;

    core::simulation::Session& session() { return *m_session; }
    // Runs a copy of the document's model.
    void run();
    // Runs `model` (the document's model with tuned values). replaceCurrent: the current run is an
    // earlier step of the same tuning gesture; it is dropped rather than kept as a previous run.
    void runModel(const core::model::Model& model, const QString& label, bool replaceCurrent);
    void togglePause();
    void stop();
    bool active() const;
    bool paused() const;

    RunSeries* current() const { return m_current.get(); }
    const std::vector<std::unique_ptr<RunSeries>>& previous() const { return m_previous; }   // newest first
    RunSeries* find(int runId) const;
    int keepRuns() const { return m_keep; }
    void setKeepRuns(int n);
    void setPinned(int runId, bool pinned);
    void clearPrevious();   // pinned runs stay
    void clear();           // every run, pinned or not (another document)
    // Follows a column in every run (the plots call it for each signal they show).
    void track(const std::string& column);
    double lastPullSeconds() const { return m_lastPull; }   // the last frame's pull (benchmark)
    // The current run was made from a model that differs from the document's now (an edit or an
    // undo since; layout and plot setup do not count): its results are out of date.
    bool stale() const { return m_stale; }
    // Whether two models give the same results: blocks (types, parameters), wiring, settings.
    static bool sameInputs(const core::model::Model& a, const core::model::Model& b);

Q_SIGNALS:
    void runStarted();             // a new current run; the previous list may have changed too
    void runsChanged();            // previous runs kept, pinned, cleared
    void frame();                  // new rows pulled (about 30 times a second while running)
    void runFinished(int runId);   // the current run ended; its state and diagnostics say how
    void stateChanged();           // active / paused changed (toolbar)
    void staleChanged(bool stale);

private:
    void start(const core::model::Model& model, const QString& label, bool replaceCurrent);
    void tick();
    void onFinished(int runId);
    void trim();
    void updateStale();   // after an edit: compares the current run's model with the document
    void setStale(bool stale);

    Document& m_doc;
    core::simulation::Session* m_session;
    QTimer* m_timer;
    std::unique_ptr<RunSeries> m_current;
    std::vector<std::unique_ptr<RunSeries>> m_previous;
    std::vector<std::string> m_tracked;
    int m_keep = 3;
    double m_lastPull = 0.0;
    struct Pending {
        core::model::Model model;
        QString label;
        bool replaceCurrent;
    };
    std::optional<Pending> m_pending;
    bool m_running = false;   // the current run's finished() has not been handled yet
    bool m_stale = false;
};

}   // namespace endstop::gui
