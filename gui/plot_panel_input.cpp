// SPDX-License-Identifier: GPL-3.0-or-later
// The plot panel's input: toolbar and menus, the mouse (select, pan, zoom, cursor, event
// tooltips), the context menu, and the plot setup edits (SetPlots through the undo stack).
#include "gui/document.hpp"
#include "gui/plot_panel.hpp"
#include "gui/run_controller.hpp"
#include "gui/subplot.hpp"

#include <QActionGroup>
#include <QInputDialog>
#include <QMenu>
#include <QToolBar>
#include <QToolButton>
#include <QToolTip>

namespace endstop::gui {

namespace {
constexpr double kEventStripPx = 16;   // height above the time axis where event tooltips show
constexpr double kEventTolerancePx = 5;
}   // namespace

void PlotPanel::createToolBar() {
    m_toolbar = new QToolBar(this);
    m_toolbar->setObjectName(QStringLiteral("plotToolBar"));
    m_toolbar->setIconSize(QSize(16, 16));
    m_toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    QAction* add = m_toolbar->addAction(tr("+ Subplot"), this, [this] { addSubplot(); });
    add->setObjectName(QStringLiteral("addSubplot"));
    add->setToolTip(tr("Add an empty subplot below; new signals go to the selected subplot"));
    QAction* fit = m_toolbar->addAction(tr("Fit"), this, &PlotPanel::autoscale);
    fit->setObjectName(QStringLiteral("plotFit"));
    fit->setToolTip(tr("Show the whole run and follow it (double-click the plot)"));
    m_siAction = m_toolbar->addAction(tr("SI"), this, &PlotPanel::setSiUnits);
    m_siAction->setObjectName(QStringLiteral("plotSiUnits"));
    m_siAction->setCheckable(true);
    m_siAction->setChecked(m_si);
    m_siAction->setToolTip(tr("Plot, read out and export in SI units instead of each signal's display unit"));

    m_runsMenu = new QMenu(tr("Runs"), this);
    connect(m_runsMenu, &QMenu::aboutToShow, this, &PlotPanel::fillRunsMenu);
    auto* runs = new QToolButton(m_toolbar);
    runs->setText(tr("Runs"));
    runs->setToolTip(tr("Previous runs stay as faded traces: keep, pin or clear them"));
    runs->setMenu(m_runsMenu);
    runs->setPopupMode(QToolButton::InstantPopup);
    m_toolbar->addWidget(runs);

    auto* exportMenu = new QMenu(tr("Export"), this);
    exportMenu->addAction(tr("Image (PNG)\u2026"), this, [this] { exportDialog(QStringLiteral("png")); });
    exportMenu->addAction(tr("Image (PDF)\u2026"), this, [this] { exportDialog(QStringLiteral("pdf")); });
    exportMenu->addAction(tr("Data (CSV)\u2026"), this, [this] { exportDialog(QStringLiteral("csv")); });
    auto* exportButton = new QToolButton(m_toolbar);
    exportButton->setText(tr("Export"));
    exportButton->setMenu(exportMenu);
    exportButton->setPopupMode(QToolButton::InstantPopup);
    m_toolbar->addWidget(exportButton);
}

void PlotPanel::fillRunsMenu() {
    m_runsMenu->clear();
    QMenu* keep = m_runsMenu->addMenu(tr("Keep previous runs"));
    auto* group = new QActionGroup(keep);
    for (int n : {0, 1, 3, 5, 10}) {
        QAction* a = keep->addAction(QString::number(n), this, [this, n] { m_runs.setKeepRuns(n); });
        a->setCheckable(true);
        a->setChecked(n == m_runs.keepRuns());
        group->addAction(a);
    }
    m_runsMenu->addSeparator();
    const auto pinAction = [this](const RunSeries& r, const QString& text) {
        QAction* a = m_runsMenu->addAction(text, this,
                                           [this, id = r.id(), pinned = r.pinned()] { m_runs.setPinned(id, !pinned); });
        a->setCheckable(true);
        a->setChecked(r.pinned());
        a->setToolTip(tr("Pinned runs stay until unpinned"));
    };
    if (const RunSeries* c = m_runs.current()) pinAction(*c, tr("Pin %1 (current)").arg(c->label));
    for (const auto& r : m_runs.previous()) pinAction(*r, tr("Pin %1").arg(r->label));
    m_runsMenu->addSeparator();
    m_runsMenu->addAction(tr("Clear previous runs"), this, [this] { m_runs.clearPrevious(); })
        ->setEnabled(!m_runs.previous().empty());
}

int PlotPanel::subplotAt(const QPointF& pos) const {
    for (int i = 0; i < subplotCount(); ++i) {
        const QRect r = m_subplots[static_cast<std::size_t>(i)]->rect()->outerRect();
        if (r.contains(pos.toPoint())) return i;
    }
    return -1;
}

void PlotPanel::onMousePress(QMouseEvent* event) {
    const int i = subplotAt(event->position());
    if (i >= 0 && i != m_selected) selectSubplot(i);
}

void PlotPanel::onWheel(QWheelEvent* event) {
    const int i = subplotAt(event->position());
    if (i < 0) return;
    const bool value = event->modifiers() & (Qt::ShiftModifier | Qt::ControlModifier);
    for (const auto& s : m_subplots) s->rect()->setRangeZoom(value ? Qt::Vertical : Qt::Horizontal);
}

void PlotPanel::onMouseMove(QMouseEvent* event) {
    const QPointF pos = event->position();
    const int i = subplotAt(pos);
    if (i < 0 || !m_subplots[static_cast<std::size_t>(i)]->rect()->rect().contains(pos.toPoint())) {
        hideCursor();
        QToolTip::hideText();
        return;
    }
    const Subplot& s = *m_subplots[static_cast<std::size_t>(i)];
    for (int k = 0; k < subplotCount(); ++k)
        m_subplots[static_cast<std::size_t>(k)]->setLevel(s.rect()->axis(QCPAxis::atLeft)->pixelToCoord(pos.y()),
                                                          k == i);
    showCursor(s.rect()->axis(QCPAxis::atBottom)->pixelToCoord(pos.x()));
    const QString events =
        pos.y() > s.rect()->bottom() - kEventStripPx ? s.eventsNear(pos.x(), kEventTolerancePx) : QString();
    if (events.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(m_plot->mapToGlobal(pos.toPoint()), events, m_plot);
}

void PlotPanel::showCursor(double t) {
    for (const auto& s : m_subplots) s->setCursor(t, true);
    m_cursorLayer->replot();
}

void PlotPanel::hideCursor() {
    for (const auto& s : m_subplots) {
        s->setCursor(0, false);
        s->setLevel(0, false);
    }
    m_cursorLayer->replot();
}

bool PlotPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_plot && event->type() == QEvent::Leave) hideCursor();
    return QWidget::eventFilter(watched, event);
}

void PlotPanel::contextMenu(const QPoint& pos) {
    const int i = subplotAt(pos);
    if (i >= 0) selectSubplot(i);
    QMenu menu(this);
    menu.addAction(tr("Add subplot"), this, [this] { addSubplot(); });
    if (const Subplot* s = subplot(i); s && i < static_cast<int>(m_doc.model().plots().size())) {
        menu.addAction(tr("Rename subplot\u2026"), this, [this, i] {
            bool ok = false;
            const QString title = QInputDialog::getText(
                this, tr("Rename subplot"), tr("Title:"), QLineEdit::Normal,
                QString::fromStdString(m_doc.model().plots()[static_cast<std::size_t>(i)].title), &ok);
            if (ok) renameSubplot(i, title);
        });
        menu.addAction(tr("Remove subplot"), this, [this, i] { removeSubplot(i); });
        if (!s->signalNames().empty()) {
            QMenu* remove = menu.addMenu(tr("Remove signal"));
            for (const std::string& sig : s->signalNames()) {
                const QString name = QString::fromStdString(sig);
                remove->addAction(name, this, [this, i, name] { removeSignal(i, name); });
            }
        }
    }
    menu.addSeparator();
    menu.addAction(tr("Fit"), this, &PlotPanel::autoscale);
    menu.addSeparator();
    menu.addAction(tr("Export image\u2026"), this, [this] { exportDialog(QStringLiteral("png")); });
    menu.addAction(tr("Export data (CSV)\u2026"), this, [this] { exportDialog(QStringLiteral("csv")); });
    menu.exec(m_plot->mapToGlobal(pos));
}

// ---- plot setup edits ---------------------------------------------------------------------------

void PlotPanel::applyPlots(std::vector<core::model::PlotSpec> plots, const QString& label) {
    if (plots == m_doc.model().plots()) return;
    if (const auto error = m_doc.apply(core::model::SetPlots{std::move(plots)}, label)) Q_EMIT statusMessage(*error);
}

bool PlotPanel::addSignal(const QString& column, int subplot) {
    std::vector<core::model::PlotSpec> plots = m_doc.model().plots();
    if (plots.empty()) plots.push_back({tr("Plot 1").toStdString(), {}});
    int i = subplot >= 0 ? subplot : m_selected;
    if (i < 0 || i >= static_cast<int>(plots.size())) i = static_cast<int>(plots.size()) - 1;
    std::vector<std::string>& signalList = plots[static_cast<std::size_t>(i)].signals;
    const std::string name = column.toStdString();
    if (std::find(signalList.begin(), signalList.end(), name) != signalList.end()) return false;
    signalList.push_back(name);
    m_selected = i;
    applyPlots(std::move(plots), tr("Plot %1").arg(column));
    return true;
}

void PlotPanel::addSubplot(const QString& firstSignal) {
    std::vector<core::model::PlotSpec> plots = m_doc.model().plots();
    core::model::PlotSpec spec{tr("Plot %1").arg(plots.size() + 1).toStdString(), {}};
    if (!firstSignal.isEmpty()) spec.signals.push_back(firstSignal.toStdString());
    plots.push_back(spec);
    m_selected = static_cast<int>(plots.size()) - 1;
    applyPlots(std::move(plots), tr("Add subplot"));
}

void PlotPanel::removeSignal(int subplot, const QString& column) {
    std::vector<core::model::PlotSpec> plots = m_doc.model().plots();
    if (subplot < 0 || subplot >= static_cast<int>(plots.size())) return;
    std::erase(plots[static_cast<std::size_t>(subplot)].signals, column.toStdString());
    applyPlots(std::move(plots), tr("Remove %1 from the plot").arg(column));
}

void PlotPanel::removeSubplot(int subplot) {
    std::vector<core::model::PlotSpec> plots = m_doc.model().plots();
    if (subplot < 0 || subplot >= static_cast<int>(plots.size())) return;
    plots.erase(plots.begin() + subplot);
    applyPlots(std::move(plots), tr("Remove subplot"));
}

void PlotPanel::renameSubplot(int subplot, const QString& title) {
    std::vector<core::model::PlotSpec> plots = m_doc.model().plots();
    if (subplot < 0 || subplot >= static_cast<int>(plots.size())) return;
    plots[static_cast<std::size_t>(subplot)].title = title.toStdString();
    applyPlots(std::move(plots), tr("Rename subplot"));
}

}   // namespace endstop::gui
