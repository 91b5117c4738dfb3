// SPDX-License-Identifier: GPL-3.0-or-later
// Running models in the main window: Run, Pause/Resume and Stop with the stop time and the solver
// settings on a toolbar and in the Simulation menu; progress and live statistics in the status
// bar; a failed run's diagnostics in the diagnostics list; the Plots, Signals and Tuning docks; and
// Plot / Tune on the canvas context menu.
#include "core/units/unit.hpp"
#include "gui/diagnostics_panel.hpp"
#include "gui/diagram_view.hpp"
#include "gui/document.hpp"
#include "gui/help_text.hpp"
#include "gui/main_window.hpp"
#include "gui/parameters_panel.hpp"
#include "gui/plot_panel.hpp"
#include "gui/run_controller.hpp"
#include "gui/signal_browser.hpp"
#include "gui/signal_catalog.hpp"
#include "gui/solver_settings_dialog.hpp"
#include "gui/tuning_panel.hpp"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>

namespace endstop::gui {

namespace {
QString seconds(double s) { return QString::number(s, 'g', 4) + QStringLiteral(" s"); }

// The run status's tooltip: what the solver solved and how, as `endstop-batch run --stats` gives it
// (docs/engine.md, "Reduction"); empty until the network is built
QString statistics(const core::RunStats& s) {
    if (s.unknownsBefore <= 0) return {};
    const int eliminated = s.aliases + s.explicitVariables + s.quadratures;
    QString text = eliminated == 0 ? QObject::tr("IDA solved all %1 of the network's unknowns.").arg(s.unknownsBefore)
                                   : QObject::tr(
                                         "IDA solved %1 of the network's %2 unknowns; the reduction computes the other "
                                         "%3: %4, %5 explicit, %6 (docs/engine.md, \"Reduction\").")
                                         .arg(s.unknowns)
                                         .arg(s.unknownsBefore)
                                         .arg(eliminated)
                                         .arg(countOf(s.aliases, "alias", "aliases"))
                                         .arg(s.explicitVariables)
                                         .arg(countOf(s.quadratures, "quadrature", "quadratures"));
    if (s.movingUnknowns < s.unknowns)
        text += QObject::tr("\nAt most %1 of them moved at once (the resting part left out).").arg(s.movingUnknowns);
    return text + QObject::tr("\n%1, %2 stepped over, %3; %4 linear solver.")
                      .arg(countOf(s.reinits, "restart", "restarts"))
                      .arg(countOf(s.steppedOver, "event", "events"))
                      .arg(countOf(s.errorTestFails, "failed error test", "failed error tests"))
                      .arg(QString::fromStdString(s.linearSolver));
}
}   // namespace

void MainWindow::createRunControls() {
    QAction* run = makeAction("run", tr("&Run"), QKeySequence(Qt::Key_F5), [this] { m_runs->run(); });
    QAction* pause = makeAction("pause", tr("&Pause"), QKeySequence(Qt::Key_F6), [this] { m_runs->togglePause(); });
    QAction* stop = makeAction("stop", tr("&Stop"), QKeySequence(Qt::SHIFT | Qt::Key_F5), [this] { m_runs->stop(); });
    QAction* settings =
        makeAction("solverSettings", tr("Solver &Settings\u2026"), {}, [this] { openSolverSettings(); });
    run->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    pause->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    stop->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
    settings->setIcon(style()->standardIcon(QStyle::SP_FileDialogDetailedView));
    pause->setCheckable(true);
    run->setToolTip(tr("Run the simulation (F5); the plots follow it live"));
    pause->setToolTip(tr("Pause or resume the run (F6)"));
    stop->setToolTip(tr("Stop the run and keep what it computed (Shift+F5)"));
    settings->setToolTip(tr("Tolerances, maximum step, output interval, linear solver, reduction"));

    QMenu* sim = new QMenu(tr("&Simulation"), this);
    menuBar()->insertMenu(menuBar()->actions().at(3), sim);   // before Help
    sim->addActions({run, pause, stop});
    sim->addSeparator();
    sim->addAction(settings);

    m_runToolbar = addToolBar(tr("Simulation"));
    m_runToolbar->setObjectName("simulationToolBar");
    m_runToolbar->addActions({run, pause, stop});
    m_runToolbar->addWidget(new QLabel(tr(" Stop time "), m_runToolbar));
    m_stopTime = new QLineEdit(m_runToolbar);
    m_stopTime->setObjectName("stopTime");
    m_stopTime->setMaximumWidth(80);
    m_stopTime->setToolTip(tr("Simulated time to stop at (\"2\", \"2 s\", \"500 ms\")"));
    m_runToolbar->addWidget(m_stopTime);
    m_runToolbar->addAction(settings);
    connect(m_stopTime, &QLineEdit::editingFinished, this, &MainWindow::commitStopTime);
    connect(m_doc, &Document::simulationChanged, this, &MainWindow::showStopTime);
    connect(m_doc, &Document::modelReset, this, &MainWindow::showStopTime);
    showStopTime();

    m_progress = new QProgressBar(this);
    m_progress->setObjectName("runProgress");
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(140);
    m_progress->setTextVisible(false);
    m_runStatus = new QLabel(this);
    m_runStatus->setObjectName("runStatus");
    // a long status message is drawn unclipped by QStatusBar: the summary's own background and a
    // gap keep the two apart
    m_runStatus->setAutoFillBackground(true);
    m_runStatus->setContentsMargins(12, 0, 4, 0);
    statusBar()->addPermanentWidget(m_runStatus);
    statusBar()->addPermanentWidget(m_progress);

    connect(m_runs, &RunController::stateChanged, this, &MainWindow::updateRunActions);
    connect(m_runs, &RunController::frame, this, &MainWindow::updateRunStatus);
    connect(m_runs, &RunController::runFinished, this, &MainWindow::runFinished);
    connect(m_runs, &RunController::runStarted, this, [this] { m_diagnostics->setRunDiagnostics({}); });
    // a failed run's findings describe a model that is gone once it is edited
    connect(m_runs, &RunController::staleChanged, this, [this](bool stale) {
        if (stale) m_diagnostics->setRunDiagnostics({});
        updateRunStatus();
    });
    connect(m_doc, &Document::modelReset, m_runs, [this] {   // the runs belong to the previous document
        m_runs->clear();
        m_diagnostics->setRunDiagnostics({});
    });
    connect(m_view, &DiagramView::contextMenuAboutToShow, this, &MainWindow::addBlockMenus);
    updateRunActions();
}

void MainWindow::createRunDocks() {
    m_plots = new PlotPanel(*m_doc, *m_runs, this);
    m_signals = new SignalBrowser(*m_doc, this);
    m_tuning = new TuningPanel(*m_doc, *m_runs, this);
    QDockWidget* plots = addDock("plotsDock", tr("Plots"), m_plots, Qt::BottomDockWidgetArea);
    QDockWidget* signalDock = addDock("signalsDock", tr("Signals"), m_signals, Qt::LeftDockWidgetArea);
    QDockWidget* tuning = addDock("tuningDock", tr("Tuning"), m_tuning, Qt::RightDockWidgetArea);
    auto* library = findChild<QDockWidget*>("libraryDock");
    auto* diagnostics = findChild<QDockWidget*>("diagnosticsDock");
    auto* properties = findChild<QDockWidget*>("propertiesDock");
    tabifyDockWidget(library, signalDock);
    library->raise();
    splitDockWidget(plots, diagnostics, Qt::Horizontal);
    splitDockWidget(properties, tuning, Qt::Vertical);
    QTimer::singleShot(0, this, [this, plots, diagnostics, properties, tuning] {
        if (QSettings().contains("window/state")) return;
        resizeDocks({plots}, {height() * 2 / 5}, Qt::Vertical);
        resizeDocks({plots, diagnostics}, {width() * 3 / 4, width() / 4}, Qt::Horizontal);
        resizeDocks({properties, tuning}, {3, 2}, Qt::Vertical);
    });

    connect(m_signals, &SignalBrowser::plotRequested, this, [this, plots](const QString& column, bool newSubplot) {
        if (newSubplot)
            m_plots->addSubplot(column);
        else
            m_plots->addSignal(column);
        plots->show();
    });
    connect(m_tuning, &TuningPanel::pinned, tuning, [tuning] {
        tuning->show();
        tuning->raise();
    });
    const auto show = [this](const QString& m) { statusBar()->showMessage(m, 8000); };
    connect(m_plots, &PlotPanel::statusMessage, this, show);
    connect(m_tuning, &TuningPanel::statusMessage, this, show);
    createParametersDock();
}

// The model parameters beside the diagnostics; Tune pins one in the Tuning dock.
void MainWindow::createParametersDock() {
    auto* panel = new ParametersPanel(*m_doc, this);
    QDockWidget* dock = addDock("parametersDock", tr("Parameters"), panel, Qt::BottomDockWidgetArea);
    splitDockWidget(findChild<QDockWidget*>("diagnosticsDock"), dock, Qt::Horizontal);
    connect(panel, &ParametersPanel::tuneRequested, this, [this](const QString& name) { m_tuning->pin({}, name); });
    connect(panel, &ParametersPanel::statusMessage, this,
            [this](const QString& m) { statusBar()->showMessage(m, 8000); });
}

void MainWindow::addBlockMenus(QMenu* menu, const QString& block) {
    if (block.isEmpty()) return;
    menu->addSeparator();
    QMenu* plot = menu->addMenu(tr("Plot"));
    plot->setObjectName("plotMenu");
    for (const SignalInfo& s : signalsOf(*m_doc, block.toStdString())) {
        const QString column = QString::fromStdString(s.name);
        const QString unit = QString::fromStdString(s.unitText());
        plot->addAction(QStringLiteral("%1 \u2014 %2%3")
                            .arg(QString::fromStdString(s.var), QString::fromStdString(s.label),
                                 unit.isEmpty() ? QString() : QStringLiteral(" [%1]").arg(unit)),
                        this, [this, column] { m_plots->addSignal(column); })
            ->setData(column);
    }
    plot->setEnabled(!plot->isEmpty());
    QMenu* tune = menu->addMenu(tr("Tune"));
    tune->setObjectName("tuneMenu");
    const core::model::BlockSpec* spec = m_doc->model().find(block.toStdString());
    const std::optional<core::BlockDescription> b = spec ? m_doc->describe(*spec) : std::nullopt;
    if (b)
        for (const core::ParamDesc& d : b->params) {
            const QString key = QString::fromStdString(d.key);
            if (!core::isVisible(d.visibleWhen, b->values, b->params) || !TuningPanel::tunable(*m_doc, block, key))
                continue;
            tune->addAction(QString::fromStdString(d.label), this, [this, block, key] { m_tuning->pin(block, key); })
                ->setData(key);
        }
    tune->setEnabled(!tune->isEmpty());
}

void MainWindow::openSolverSettings() {
    SolverSettingsDialog dialog(*m_doc, this);
    dialog.exec();
}

void MainWindow::showStopTime() { m_stopTime->setText(seconds(m_doc->model().simulation().stopTime)); }

void MainWindow::commitStopTime() {
    const auto t = SolverSettingsDialog::parseTime(m_stopTime->text());
    core::model::SimulationSettings s = m_doc->model().simulation();
    if (!t || !(*t > 0)) {
        statusBar()->showMessage(tr("The stop time must be a positive time, e.g. 2 or 500 ms"), 8000);
        showStopTime();
        return;
    }
    if (*t == s.stopTime) return showStopTime();
    s.stopTime = *t;
    if (const auto error = m_doc->apply(core::model::SetSimulation{s}, tr("Stop time")))
        statusBar()->showMessage(*error, 8000);
}

void MainWindow::updateRunActions() {
    const bool active = m_runs->active();
    action("pause")->setEnabled(active);
    action("stop")->setEnabled(active);
    action("pause")->setChecked(m_runs->paused());
    action("pause")->setText(m_runs->paused() ? tr("Resume") : tr("&Pause"));
    updateRunStatus();
}

void MainWindow::updateRunStatus() {
    const RunSeries* series = m_runs->current();
    if (!series) {
        m_progress->setValue(0);
        m_runStatus->setText(tr("Not run yet (F5 runs)"));
        return;
    }
    const core::simulation::Run& run = series->run();
    const core::RunStats stats = run.stats();
    m_progress->setValue(static_cast<int>(1000 * std::min(1.0, run.time() / std::max(1e-300, run.stopTime()))));
    const QString numbers = tr("t = %1 / %2 \u00b7 %3 steps \u00b7 %4 events \u00b7 %5 wall")
                                .arg(seconds(run.time()), seconds(run.stopTime()))
                                .arg(stats.steps)
                                .arg(series->events().size())
                                .arg(seconds(run.wallSeconds()));
    QString state;
    switch (run.state()) {
        case core::simulation::RunState::Building:
            state = tr("Building");
            break;
        case core::simulation::RunState::Running:
            state = tr("Running");
            break;
        case core::simulation::RunState::Paused:
            state = tr("Paused");
            break;
        case core::simulation::RunState::Finished:
            state = tr("Finished");
            break;
        case core::simulation::RunState::Stopped:
            state = tr("Stopped");
            break;
        case core::simulation::RunState::Cancelled:
            state = tr("Cancelled");
            break;
        case core::simulation::RunState::Failed:
            state = tr("Failed");
            break;
    }
    QString text = series->label + QStringLiteral(": ") + state + QStringLiteral(" \u00b7 ") + numbers;
    if (m_runs->stale()) text = tr("Out of date (the model changed; F5 runs it again) \u00b7 ") + text;
    m_runStatus->setText(text);
    m_runStatus->setToolTip(statistics(stats));
    m_runStatus->setStyleSheet(m_runs->stale() ? QStringLiteral("color: #b26a00") : QString());
}

void MainWindow::runFinished(int runId) {
    updateRunActions();
    const RunSeries* series = m_runs->find(runId);
    if (!series) return;
    const core::simulation::Run& run = series->run();
    if (run.state() == core::simulation::RunState::Finished && !m_runs->stale())
        m_diagnostics->setRunFinished(series->label);
    if (run.state() == core::simulation::RunState::Failed) {
        m_diagnostics->setRunDiagnostics(run.diagnostics());
        const auto& d = run.diagnostics();
        statusBar()->showMessage(
            tr("The run failed: %1").arg(d.empty() ? QString() : QString::fromStdString(d.front().message)), 15000);
        if (auto* dock = findChild<QDockWidget*>("diagnosticsDock")) dock->show();
    }
}

}   // namespace endstop::gui
