// SPDX-License-Identifier: GPL-3.0-or-later
// Subplot: one axis rect of the plot panel (one PlotSpec of the model) under a head row with its
// title and legend (the cursor's read-out takes the legend's place), a
// graph per signal and run (the current run in full colour, previous runs faded behind it),
// the event markers of the current run along the time axis, and the cursor line with its read-out.
//
// A trace is drawn raw while it is short: new rows are appended with addData(..., alreadySorted =
// true). Past kRawLimit samples it switches to the MinMaxCache envelope of the visible time range,
// recomputed before a replot only when that range, the width or the data changed.
#pragma once

#include "core/blockapi/event_ctx.hpp"

#include "gui/qcp.hpp"

#include <string>
#include <vector>

namespace endstop::gui {

class RunSeries;

struct TraceSpec {
    std::string signal;   // result column
    QString unit;         // display unit, "" for a plain number
    double scale = 1.0;   // SI value = shown value * scale
};

class Subplot {
public:
    static constexpr std::size_t kRawLimit = 4000;

    Subplot(QCustomPlot* plot, const QString& title, QCPMarginGroup* margins, QCPLayer* cursorLayer);
    Subplot(const Subplot&) = delete;
    Subplot& operator=(const Subplot&) = delete;

    QCPAxisRect* rect() const { return m_rect; }
    QCPTextElement* title() const { return m_title; }
    QCPLegend* legend() const { return m_legend; }
    std::vector<std::string> signalNames() const;

    // Graphs for every signal of every run (current last, drawn on top). `current` may be null.
    void setTraces(const std::vector<TraceSpec>& specs, const RunSeries* current,
                   const std::vector<const RunSeries*>& previous);
    QCPGraph* graph(const std::string& signal, int runId) const;   // nullptr if none
    int graphCount() const { return static_cast<int>(m_traces.size()); }

    void stream();            // new rows of the current run
    void updateEnvelopes();   // before a replot
    void updateEvents();      // new events of the current run
    // One value axis per unit: the first unit on the left, each further one on its own axis on
    // the right, so a force beside a position keeps both readable.
    const std::vector<QCPAxis*>& valueAxes() const { return m_valueAxes; }
    QCPAxis* valueAxis(const QString& unit) const;   // nullptr if no trace has that unit
    QCPRange valueRange(const QCPRange& time,
                        const QCPAxis* axis = nullptr) const;   // traces on axis (all: nullptr); empty if none
    void autoscaleValues(const QCPRange& time);                 // every value axis to its traces within `time`
    std::vector<QCPRange> valueRanges() const;
    void setValueRanges(const std::vector<QCPRange>& ranges);   // ignored unless one per axis
    void setSelected(bool selected);

    // cursor
    void setCursor(double t, bool visible);
    void setLevel(double value, bool visible);   // the crosshair's horizontal line (hovered subplot)
    QString readout(double t) const;             // one line: "t = 0.25 s" and each current trace's value there
    QString eventsNear(double pixelX, double tolerancePx) const;   // tooltip text, empty if none
    const QCPItemText* readoutItem() const { return m_readout; }

private:
    struct Trace {
        std::string signal;
        double scale = 1.0;
        const RunSeries* run = nullptr;
        QCPGraph* graph = nullptr;
        QCPAxis* axis = nullptr;   // its value axis
        bool current = false;
        bool envelope = false;
        std::size_t drawn = 0;   // raw: samples added; envelope: data size it was drawn for
        QCPRange drawnRange;
        int drawnWidth = 0;
    };
    void addTrace(const TraceSpec& spec, const RunSeries* run, int colour, int age);
    void setUpValueAxes(const std::vector<TraceSpec>& specs);
    void fill(Trace& t);
    void drawEnvelope(Trace& t);
    std::size_t available(const Trace& t) const;
    void clearEventGraphs();

    QCustomPlot* m_plot;
    QCPAxisRect* m_rect;
    QCPLayoutGrid* m_head;   // title and legend
    QCPTextElement* m_title;
    QCPLegend* m_legend;
    QCPItemStraightLine* m_cursor;
    QCPItemStraightLine* m_level;
    QCPItemText* m_readout;
    std::vector<TraceSpec> m_specs;
    std::vector<QCPAxis*> m_valueAxes;
    std::vector<QString> m_axisUnits;   // per value axis
    QCPItemText* m_hint = nullptr;
    std::vector<Trace> m_traces;
    const RunSeries* m_current = nullptr;
    std::vector<QCPGraph*> m_eventGraphs;   // by marker group
    std::size_t m_eventsDrawn = 0;
};

QColor traceColour(int index);

}   // namespace endstop::gui
