// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/plot_panel.hpp"

#include "gui/document.hpp"
#include "gui/run_controller.hpp"
#include "gui/signal_catalog.hpp"
#include "gui/subplot.hpp"

#include <QLabel>
#include <QSettings>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace endstop::gui {

PlotPanel::PlotPanel(Document& doc, RunController& runs, QWidget* parent)
    : QWidget(parent),
      m_doc(doc),
      m_runs(runs),
      m_plot(new QCustomPlot(this)),
      m_si(QSettings().value(QStringLiteral("plots/siUnits"), false).toBool()) {
    m_plot->setObjectName(QStringLiteral("plot"));
    m_plot->setMinimumSize(200, 120);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setPlottingHint(QCP::phFastPolylines, true);
    m_plot->setAutoAddPlottableToLegend(false);
    m_plot->addLayer(QStringLiteral("cursor"), m_plot->layer(QStringLiteral("overlay")), QCustomPlot::limBelow);
    m_cursorLayer = m_plot->layer(QStringLiteral("cursor"));
    m_cursorLayer->setMode(QCPLayer::lmBuffered);   // the cursor redraws alone
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
    createToolBar();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_toolbar);
    m_staleBanner =
        new QLabel(tr("Out of date: the model changed since this run. Run (F5) to update the plots."), this);
    m_staleBanner->setObjectName(QStringLiteral("staleBanner"));
    m_staleBanner->setWordWrap(true);
    m_staleBanner->setStyleSheet(QStringLiteral("background: #fff4d6; color: #6b4500; padding: 3px 6px"));
    m_staleBanner->setVisible(false);
    layout->addWidget(m_staleBanner);
    layout->addWidget(m_plot, 1);

    connect(m_plot, &QCustomPlot::beforeReplot, this, &PlotPanel::beforeReplot);
    connect(m_plot, &QCustomPlot::mouseMove, this, &PlotPanel::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &PlotPanel::onMousePress);
    connect(m_plot, &QCustomPlot::mouseWheel, this, &PlotPanel::onWheel);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { autoscale(); });
    connect(m_plot, &QWidget::customContextMenuRequested, this, &PlotPanel::contextMenu);
    connect(&doc, &Document::plotsChanged, this, &PlotPanel::rebuild);
    connect(&doc, &Document::modelReset, this, [this] {
        m_auto = true;
        m_selected = -1;
        rebuild();
    });
    connect(&doc, &Document::blockRenamed, this, &PlotPanel::rebuild);
    connect(&runs, &RunController::runStarted, this, &PlotPanel::rebuild);
    connect(&runs, &RunController::runsChanged, this, &PlotPanel::rebuild);
    connect(&runs, &RunController::frame, this, &PlotPanel::onFrame);
    connect(&runs, &RunController::staleChanged, m_staleBanner, &QLabel::setVisible);
    // antialiased traces cost about half a frame: only the still picture gets them
    connect(&runs, &RunController::stateChanged, this, [this] {
        const bool live = m_runs.active();
        if (live == m_plot->notAntialiasedElements().testFlag(QCP::aePlottables)) return;
        m_plot->setNotAntialiasedElements(live ? QCP::aePlottables : QCP::aeNone);
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    rebuild();
}

PlotPanel::~PlotPanel() = default;

Subplot* PlotPanel::subplot(int index) const {
    return index >= 0 && index < subplotCount() ? m_subplots[static_cast<std::size_t>(index)].get() : nullptr;
}

std::optional<SignalInfo> PlotPanel::shownSignal(const std::string& column) const {
    std::optional<SignalInfo> info = signalInfo(m_doc, column);
    if (info && m_si) info->display = info->si;
    return info;
}

void PlotPanel::setSiUnits(bool si) {
    if (si == m_si) return;
    m_si = si;
    QSettings().setValue(QStringLiteral("plots/siUnits"), si);
    if (m_siAction) m_siAction->setChecked(si);
    m_auto = true;   // the value ranges change scale
    rebuild();
}

void PlotPanel::selectSubplot(int index) {
    m_selected = index >= 0 && index < subplotCount() ? index : -1;
    for (int i = 0; i < subplotCount(); ++i) m_subplots[static_cast<std::size_t>(i)]->setSelected(i == m_selected);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

// Everything is rebuilt from the model's plots and the runs: graphs are cheap, their data is
// in the runs' caches, and a zoomed view keeps its ranges.
void PlotPanel::rebuild() {
    const QCPRange x = timeRange();
    std::vector<std::vector<QCPRange>> y;
    for (const auto& s : m_subplots) y.push_back(s->valueRanges());
    m_plot->clearItems();
    m_plot->clearGraphs();
    m_plot->plotLayout()->clear();
    m_subplots.clear();
    delete m_margins;
    m_margins = new QCPMarginGroup(m_plot);

    std::vector<core::model::PlotSpec> plots = m_doc.model().plots();
    if (plots.empty()) plots.push_back({tr("Plot").toStdString(), {}});
    std::vector<const RunSeries*> previous;
    for (const auto& r : m_runs.previous()) previous.push_back(r.get());
    for (const core::model::PlotSpec& spec : plots) {
        std::vector<TraceSpec> traces;
        for (const std::string& s : spec.signals) {
            m_runs.track(s);
            TraceSpec t{s, {}, 1.0};
            if (const std::optional<SignalInfo> info = shownSignal(s)) {
                t.unit = QString::fromStdString(info->unitText());
                t.scale = info->display.scale;
            }
            traces.push_back(std::move(t));
        }
        auto sub = std::make_unique<Subplot>(m_plot, QString::fromStdString(spec.title), m_margins, m_cursorLayer);
        sub->setTraces(traces, m_runs.current(), previous);
        m_subplots.push_back(std::move(sub));
    }
    for (std::size_t i = 0; i < m_subplots.size(); ++i) {
        QCPAxis* time = m_subplots[i]->rect()->axis(QCPAxis::atBottom);
        const bool last = i + 1 == m_subplots.size();
        time->setTickLabels(last);
        time->setLabel(last ? tr("t [s]") : QString());
    }
    linkTimeAxes();
    if (m_selected >= subplotCount()) m_selected = subplotCount() - 1;
    selectSubplot(m_selected);
    if (m_auto || y.size() != m_subplots.size()) {
        applyAuto();
    } else {
        m_programmatic = true;
        m_subplots.front()->rect()->axis(QCPAxis::atBottom)->setRange(x);   // linked
        for (std::size_t i = 0; i < y.size(); ++i) m_subplots[i]->setValueRanges(y[i]);
        m_programmatic = false;
    }
    for (const auto& s : m_subplots) s->stream();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

// Time axes move together; any range change the panel did not make itself (drag, wheel) ends
// auto-scaling until Fit or a double-click.
void PlotPanel::linkTimeAxes() {
    for (const auto& s : m_subplots) {
        QCPAxis* axis = s->rect()->axis(QCPAxis::atBottom);
        for (QCPAxis* value : s->valueAxes())
            connect(value, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
                if (!m_programmatic) m_auto = false;
            });
        connect(axis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this, axis](const QCPRange& r) {
            if (m_linking) return;
            if (!m_programmatic) m_auto = false;
            m_linking = true;
            for (const auto& other : m_subplots)
                if (QCPAxis* a = other->rect()->axis(QCPAxis::atBottom); a != axis) a->setRange(r);
            m_linking = false;
        });
    }
}

void PlotPanel::onFrame() {
    for (const auto& s : m_subplots) {
        s->stream();
        s->updateEvents();
    }
    if (m_auto) applyAuto();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::beforeReplot() {
    for (const auto& s : m_subplots) s->updateEnvelopes();
}

QCPRange PlotPanel::timeRange() const {
    return m_subplots.empty() ? fullTimeRange() : m_subplots.front()->rect()->axis(QCPAxis::atBottom)->range();
}

void PlotPanel::setTimeRange(const QCPRange& range) {
    m_auto = false;
    if (!m_subplots.empty()) m_subplots.front()->rect()->axis(QCPAxis::atBottom)->setRange(range);   // linked
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QCPRange PlotPanel::fullTimeRange() const {
    if (const RunSeries* c = m_runs.current()) return QCPRange(0, c->run().stopTime());
    double end = 0;
    for (const auto& r : m_runs.previous()) end = std::max(end, r->time().empty() ? 0.0 : r->time().back());
    return QCPRange(0, end > 0 ? end : m_doc.model().simulation().stopTime);
}

void PlotPanel::autoscale() {
    m_auto = true;
    applyAuto();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::applyAuto() {
    const QCPRange x = fullTimeRange();
    if (m_subplots.empty()) return;
    m_programmatic = true;
    m_subplots.front()->rect()->axis(QCPAxis::atBottom)->setRange(x);
    for (const auto& s : m_subplots) s->autoscaleValues(x);
    m_programmatic = false;
}

}   // namespace endstop::gui
