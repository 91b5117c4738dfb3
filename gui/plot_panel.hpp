// SPDX-License-Identifier: GPL-3.0-or-later
// PlotPanel: the live plots. One Subplot per PlotSpec of the model (its `plots`, changed only by
// SetPlots edits through the undo stack, so the setup is saved with the project), stacked with one
// shared, linked time axis. Each frame of the RunController (~30 Hz while a run is active) appends
// the new rows and asks for a queued replot; long traces are drawn through their min/max envelope.
//
// Mouse: drag pans, the wheel zooms the time axis (Shift+wheel the value axis), a double-click
// or Fit returns to auto-scale (the whole run, following a live one). A dashed cursor follows the
// mouse through every subplot with the values of all traces at that time; hovering an event marker
// on the time axis tells what happened. Right-click: signals, subplots, export.
//   plot_panel.cpp          layout from the model, frames, ranges, envelopes
//   plot_panel_input.cpp    mouse, cursor, context menu, the toolbar's menus, plot setup edits
//   plot_panel_export.cpp   PNG/PDF and CSV
#pragma once

#include "core/model/model.hpp"
#include "gui/qcp.hpp"
#include "gui/signal_catalog.hpp"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QMenu;
class QToolBar;

namespace endstop::gui {

class Document;
class RunController;
class Subplot;

class PlotPanel : public QWidget {
    Q_OBJECT
public:
    PlotPanel(Document& doc, RunController& runs, QWidget* parent = nullptr);
    ~PlotPanel() override;

    QCustomPlot* plot() const { return m_plot; }
    QToolBar* toolBar() const { return m_toolbar; }
    QLabel* staleBanner() const { return m_staleBanner; }   // shown while the run is out of date
    int subplotCount() const { return static_cast<int>(m_subplots.size()); }
    Subplot* subplot(int index) const;
    int selectedSubplot() const { return m_selected; }
    void selectSubplot(int index);

    // Plot setup, each one undo step (SetPlots). subplot -1: the selected one (a new one if none).
    bool addSignal(const QString& column, int subplot = -1);
    void addSubplot(const QString& firstSignal = {});
    void removeSignal(int subplot, const QString& column);
    void removeSubplot(int subplot);
    void renameSubplot(int subplot, const QString& title);

    void autoscale();   // and keep following the data
    bool autoScaling() const { return m_auto; }
    QCPRange timeRange() const;
    void setTimeRange(const QCPRange& range);   // as a user zoom: auto-scale off
    void showCursor(double t);                  // the mouse cursor at time t
    void hideCursor();

    bool exportImage(const QString& path, int width = 0, int height = 0);   // .png or .pdf
    // current run: time and every plotted signal, in the units shown (a header entry names a unit
    // other than SI: "mass1.x [mm]"); with SI units on, exactly endstop-batch's CSV
    bool exportCsv(const QString& path) const;

    // Plots, read-out and export in each signal's display unit, or all in SI (remembered).
    bool siUnits() const { return m_si; }
    void setSiUnits(bool si);

Q_SIGNALS:
    void statusMessage(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void createToolBar();
    void fillRunsMenu();
    void rebuild();
    void onFrame();
    void beforeReplot();
    void linkTimeAxes();
    void applyAuto();
    QCPRange fullTimeRange() const;
    int subplotAt(const QPointF& pos) const;
    void onMouseMove(QMouseEvent* event);
    void onMousePress(QMouseEvent* event);
    void onWheel(QWheelEvent* event);
    void contextMenu(const QPoint& pos);
    void applyPlots(std::vector<core::model::PlotSpec> plots, const QString& label);
    void exportDialog(const QString& kind);
    std::optional<SignalInfo> shownSignal(const std::string& column) const;   // in the unit shown

    Document& m_doc;
    RunController& m_runs;
    QToolBar* m_toolbar = nullptr;
    QLabel* m_staleBanner = nullptr;
    QAction* m_siAction = nullptr;
    QMenu* m_runsMenu = nullptr;
    QCustomPlot* m_plot;
    QCPMarginGroup* m_margins = nullptr;
    QCPLayer* m_cursorLayer = nullptr;
    std::vector<std::unique_ptr<Subplot>> m_subplots;
    int m_selected = -1;
    bool m_auto = true;
    bool m_linking = false;
    bool m_programmatic = false;   // the panel itself is setting ranges (auto-scale, rebuild)
    bool m_si = false;
};

}   // namespace endstop::gui
