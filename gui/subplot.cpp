// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/subplot.hpp"

#include "gui/run_series.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace endstop::gui {

namespace {

constexpr double kMarkerLevel = 0.035;   // event markers, as a fraction of the rect's height

// impacts and contacts, friction locks and clutch engagement, scheduled time events
int markerGroup(core::EventKind k) {
    switch (k) {
        case core::EventKind::Lock:
        case core::EventKind::Unlock:
        case core::EventKind::Engage:
        case core::EventKind::Disengage:
            return 1;
        case core::EventKind::Time:
            return 2;
        default:
            return 0;
    }
}

QString number(double v) { return QString::number(v, 'g', 6); }

}   // namespace

QColor traceColour(int index) {
    static const std::array<QColor, 8> kColours{QColor(31, 119, 180),  QColor(214, 39, 40),   QColor(44, 160, 44),
                                                QColor(255, 127, 14),  QColor(148, 103, 189), QColor(140, 86, 75),
                                                QColor(227, 119, 194), QColor(23, 190, 207)};
    return kColours[static_cast<std::size_t>(index) % kColours.size()];
}

Subplot::Subplot(QCustomPlot* plot, const QString& title, QCPMarginGroup* margins, QCPLayer* cursorLayer)
    : m_plot(plot),
      m_rect(new QCPAxisRect(plot, true)),
      m_title(new QCPTextElement(plot, title)),
      m_legend(new QCPLegend) {
    // a head row above the data: the title left, the legend (or, under the cursor, the read-out)
    // right, so neither covers a trace
    QCPLayoutGrid* layout = plot->plotLayout();
    const int row = layout->rowCount();
    m_head = new QCPLayoutGrid;
    layout->addElement(row, 0, m_head);
    layout->addElement(row + 1, 0, m_rect);
    layout->setRowStretchFactor(row, 0.001);
    m_head->addElement(0, 0, m_title);
    m_head->addElement(0, 1, m_legend);
    m_head->setColumnStretchFactor(1, 0.001);
    m_head->setMargins(QMargins(0, 0, 0, 0));
    m_title->setMargins(QMargins(6, 2, 6, 0));
    m_title->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    setSelected(false);
    m_rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_rect->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    m_rect->setRangeZoom(Qt::Horizontal);
    for (QCPAxis* a : m_rect->axes()) a->setLayer(QStringLiteral("axes"));
    for (QCPAxis* a : {m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft)})
        a->grid()->setLayer(QStringLiteral("grid"));
    m_rect->axis(QCPAxis::atTop)->setVisible(false);
    QCPAxis* markers = m_rect->axis(QCPAxis::atRight);
    markers->setVisible(false);
    markers->setRange(0, 1);

    m_legend->setLayer(QStringLiteral("legend"));
    m_legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_legend->setWrap(4);
    m_legend->setBrush(Qt::NoBrush);
    m_legend->setBorderPen(Qt::NoPen);
    m_legend->setMargins(QMargins(2, 2, 6, 0));
    m_legend->setRowSpacing(0);
    m_legend->setColumnSpacing(10);
    QFont small = plot->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    m_legend->setFont(small);
    m_legend->setIconSize(18, 12);

    m_cursor = new QCPItemStraightLine(plot);
    m_cursor->setLayer(cursorLayer);
    m_cursor->setClipAxisRect(m_rect);
    m_cursor->setPen(QPen(QColor(60, 60, 60, 160), 1, Qt::DashLine));
    for (QCPItemPosition* p : {m_cursor->point1, m_cursor->point2}) {
        p->setAxes(m_rect->axis(QCPAxis::atBottom), markers);
        p->setCoords(0, p == m_cursor->point1 ? 0 : 1);
    }
    m_level = new QCPItemStraightLine(plot);
    m_level->setLayer(cursorLayer);
    m_level->setClipAxisRect(m_rect);
    m_level->setPen(m_cursor->pen());
    for (QCPItemPosition* p : {m_level->point1, m_level->point2})
        p->setAxes(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
    setLevel(0, false);
    m_readout = new QCPItemText(plot);   // one line over the legend, in the head row
    m_readout->setLayer(cursorLayer);
    m_readout->setClipToAxisRect(false);
    m_readout->position->setType(QCPItemPosition::ptAbsolute);
    m_readout->setPositionAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_readout->setTextAlignment(Qt::AlignLeft);
    m_readout->setFont(small);
    m_readout->setBrush(QColor(255, 255, 255));
    m_readout->setPen(Qt::NoPen);
    m_readout->setPadding(QMargins(6, 1, 6, 1));
    setCursor(0, false);
}

void Subplot::setSelected(bool selected) {
    QFont f = m_plot->font();
    f.setBold(true);
    m_title->setFont(f);
    m_title->setTextColor(selected ? QColor(25, 90, 170) : QColor(70, 70, 70));
}

std::vector<std::string> Subplot::signalNames() const {
    std::vector<std::string> out;
    for (const TraceSpec& s : m_specs) out.push_back(s.signal);
    return out;
}

void Subplot::setUpValueAxes(const std::vector<TraceSpec>& specs) {
    m_valueAxes = {m_rect->axis(QCPAxis::atLeft)};
    m_axisUnits = {specs.empty() ? QString() : specs.front().unit};
    for (const TraceSpec& t : specs) {
        if (std::find(m_axisUnits.begin(), m_axisUnits.end(), t.unit) != m_axisUnits.end()) continue;
        QCPAxis* axis = m_rect->addAxis(QCPAxis::atRight);
        axis->setLayer(QStringLiteral("axes"));
        axis->grid()->setVisible(false);
        m_valueAxes.push_back(axis);
        m_axisUnits.push_back(t.unit);
    }
    for (std::size_t i = 0; i < m_valueAxes.size(); ++i) {
        QCPAxis* axis = m_valueAxes[i];
        axis->setLabel(m_axisUnits[i].isEmpty() ? QString() : QStringLiteral("[%1]").arg(m_axisUnits[i]));
        // with several axes, each label takes the colour of its first trace
        std::size_t first = 0;
        while (first < specs.size() && specs[first].unit != m_axisUnits[i]) ++first;
        axis->setLabelColor(m_valueAxes.size() > 1 ? traceColour(static_cast<int>(first)) : QColor(Qt::black));
    }
    const QList<QCPAxis*> values(m_valueAxes.begin(), m_valueAxes.end());
    m_rect->setRangeDragAxes({m_rect->axis(QCPAxis::atBottom)}, values);
    m_rect->setRangeZoomAxes({m_rect->axis(QCPAxis::atBottom)}, values);
}

QCPAxis* Subplot::valueAxis(const QString& unit) const {
    const auto it = std::find(m_axisUnits.begin(), m_axisUnits.end(), unit);
    return it == m_axisUnits.end() ? nullptr : m_valueAxes[static_cast<std::size_t>(it - m_axisUnits.begin())];
}

void Subplot::setTraces(const std::vector<TraceSpec>& specs, const RunSeries* current,
                        const std::vector<const RunSeries*>& previous) {
    m_specs = specs;
    m_current = current;
    setUpValueAxes(specs);
    for (std::size_t age = previous.size(); age >= 1; --age)   // oldest first, underneath
        for (std::size_t i = 0; i < specs.size(); ++i)
            addTrace(specs[i], previous[age - 1], static_cast<int>(i), static_cast<int>(age));
    for (std::size_t i = 0; i < specs.size(); ++i) addTrace(specs[i], current, static_cast<int>(i), 0);
    m_legend->setVisible(!specs.empty());
    if (specs.empty()) {
        m_hint = new QCPItemText(m_plot);
        m_hint->setClipAxisRect(m_rect);
        m_hint->position->setType(QCPItemPosition::ptAxisRectRatio);
        m_hint->position->setAxisRect(m_rect);
        m_hint->position->setCoords(0.5, 0.5);
        m_hint->setColor(QColor(120, 120, 120));
        m_hint->setText(QObject::tr("Right-click a block and choose Plot, or double-click a signal in Signals"));
    }
    m_eventsDrawn = 0;
    updateEvents();
}

void Subplot::addTrace(const TraceSpec& spec, const RunSeries* run, int colour, int age) {
    Trace t;
    t.signal = spec.signal;
    t.scale = spec.scale;
    t.run = run;
    const std::string& signal = spec.signal;
    t.current = age == 0;
    t.axis = valueAxis(spec.unit);
    t.graph = m_plot->addGraph(m_rect->axis(QCPAxis::atBottom), t.axis);
    QColor c = traceColour(colour);
    if (!t.current) c.setAlpha(std::max(45, 120 - 30 * (age - 1)));
    t.graph->setPen(QPen(c, 1.0));
    t.graph->removeFromLegend();
    if (t.current) {
        QString name = QString::fromStdString(signal);
        if (!spec.unit.isEmpty()) name += QStringLiteral(" [%1]").arg(spec.unit);
        t.graph->setName(name);
        t.graph->addToLegend(m_legend);
        if (QCPAbstractLegendItem* item = m_legend->itemWithPlottable(t.graph))
            item->setMargins(QMargins(0, 0, 0, 3));   // item clipping would cut underscores off
    } else {
        t.graph->setName(QString::fromStdString(signal) + QStringLiteral(" (") + run->label + ')');
    }
    fill(t);
    m_traces.push_back(t);
}

std::size_t Subplot::available(const Trace& t) const {
    const MinMaxCache* c = t.run ? t.run->trace(t.signal) : nullptr;
    return c ? std::min(c->size(), t.run->rows()) : 0;
}

void Subplot::fill(Trace& t) {
    const std::size_t n = available(t);
    if (!t.envelope && n > kRawLimit) {
        t.envelope = true;
        t.drawn = 0;
        t.graph->data()->clear();
    }
    if (t.envelope || n <= t.drawn) return;
    const std::vector<double>& v = t.run->trace(t.signal)->values();
    const std::span<const double> time = t.run->time();
    QVector<double> keys(time.begin() + static_cast<std::ptrdiff_t>(t.drawn),
                         time.begin() + static_cast<std::ptrdiff_t>(n));
    QVector<double> values;
    values.reserve(static_cast<qsizetype>(n - t.drawn));
    for (std::size_t i = t.drawn; i < n; ++i) values.push_back(v[i] / t.scale);
    t.graph->addData(keys, values, true);
    t.drawn = n;
}

void Subplot::stream() {
    for (Trace& t : m_traces)
        if (t.current) fill(t);
}

void Subplot::drawEnvelope(Trace& t) {
    const QCPRange range = m_rect->axis(QCPAxis::atBottom)->range();
    const int width = std::max(1, m_rect->width());
    const std::size_t n = available(t);
    if (n == t.drawn && width == t.drawnWidth && range == t.drawnRange) return;
    std::vector<PlotPoint> points;
    t.run->trace(t.signal)->envelope(t.run->time().first(n), range.lower, range.upper, width, points);
    QVector<QCPGraphData> data;
    data.reserve(static_cast<qsizetype>(points.size()));
    for (const PlotPoint& p : points) data.push_back(QCPGraphData(p.t, p.v / t.scale));
    t.graph->data()->set(data, true);
    t.drawn = n;
    t.drawnRange = range;
    t.drawnWidth = width;
}

void Subplot::updateEnvelopes() {
    for (Trace& t : m_traces)
        if (t.envelope) drawEnvelope(t);
    // a short subplot gets fewer value ticks, so their labels never crowd each other
    const int ticks = std::clamp(m_rect->height() / 40, 2, 5);
    for (QCPAxis* axis : m_valueAxes)
        if (axis->ticker()->tickCount() != ticks) axis->ticker()->setTickCount(ticks);
}

QCPGraph* Subplot::graph(const std::string& signal, int runId) const {
    for (const Trace& t : m_traces)
        if (t.signal == signal && (t.run ? t.run->id() : 0) == runId) return t.graph;
    return nullptr;
}

QCPRange Subplot::valueRange(const QCPRange& time, const QCPAxis* axis) const {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const Trace& t : m_traces) {
        const MinMaxCache* c = t.run ? t.run->trace(t.signal) : nullptr;
        if (!c || (axis && t.axis != axis)) continue;
        const auto [a, b] = c->range(t.run->time(), time.lower, time.upper);
        if (a > b) continue;
        lo = std::min(lo, a / t.scale);
        hi = std::max(hi, b / t.scale);
    }
    QCPRange r;   // set field by field: QCPRange(lo, hi) would swap an empty (inf, -inf) into (-inf, inf)
    r.lower = lo;
    r.upper = hi;
    return r;   // lower > upper: no data
}

void Subplot::autoscaleValues(const QCPRange& time) {
    for (QCPAxis* axis : m_valueAxes) {
        QCPRange y = valueRange(time, axis);
        if (!(y.lower <= y.upper)) y = QCPRange(-1, 1);
        const double pad = y.size() > 0 ? 0.06 * y.size() : std::max(1e-9, 0.1 * std::abs(y.center()));
        axis->setRange(y.lower - pad, y.upper + pad);
    }
}

std::vector<QCPRange> Subplot::valueRanges() const {
    std::vector<QCPRange> out;
    for (const QCPAxis* axis : m_valueAxes) out.push_back(axis->range());
    return out;
}

void Subplot::setValueRanges(const std::vector<QCPRange>& ranges) {
    if (ranges.size() != m_valueAxes.size()) return;
    for (std::size_t i = 0; i < ranges.size(); ++i) m_valueAxes[i]->setRange(ranges[i]);
}

void Subplot::clearEventGraphs() {
    for (QCPGraph* g : m_eventGraphs) m_plot->removeGraph(g);
    m_eventGraphs.clear();
}

void Subplot::updateEvents() {
    const std::vector<core::EventRecord> none;
    const std::vector<core::EventRecord>& events = m_current ? m_current->events() : none;
    if (m_eventsDrawn == 0) clearEventGraphs();
    if (events.size() <= m_eventsDrawn) return;
    if (m_eventGraphs.empty()) {
        const std::array<std::pair<QCPScatterStyle::ScatterShape, QColor>, 3> styles{
            {{QCPScatterStyle::ssTriangle, QColor(200, 40, 40)},
             {QCPScatterStyle::ssDiamond, QColor(30, 90, 200)},
             {QCPScatterStyle::ssPlus, QColor(130, 130, 130)}}};
        for (const auto& [shape, colour] : styles) {
            QCPGraph* g = m_plot->addGraph(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atRight));
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(shape, colour, colour, 6));
            g->removeFromLegend();
            g->setName(QStringLiteral("events"));
            m_eventGraphs.push_back(g);
        }
    }
    std::array<QVector<double>, 3> keys;
    for (std::size_t i = m_eventsDrawn; i < events.size(); ++i)
        keys[static_cast<std::size_t>(markerGroup(events[i].kind))].push_back(events[i].time);
    for (std::size_t g = 0; g < keys.size(); ++g)
        if (!keys[g].isEmpty()) m_eventGraphs[g]->addData(keys[g], QVector<double>(keys[g].size(), kMarkerLevel), true);
    m_eventsDrawn = events.size();
}

void Subplot::setCursor(double t, bool visible) {
    m_cursor->setVisible(visible);
    m_readout->setVisible(visible && !m_traces.empty());
    if (!visible) return;
    m_cursor->point1->setCoords(t, 0);
    m_cursor->point2->setCoords(t, 1);
    m_readout->setText(readout(t));
    const QRect head = m_head->outerRect();
    m_readout->position->setCoords(head.right() - 2, head.center().y() + 1);
}

void Subplot::setLevel(double value, bool visible) {
    m_level->setVisible(visible);
    m_level->point1->setCoords(0, value);
    m_level->point2->setCoords(1, value);
}

QString Subplot::readout(double t) const {
    QStringList lines{QStringLiteral("t = %1 s").arg(number(t))};
    for (const Trace& tr : m_traces) {
        if (!tr.current || !tr.run) continue;
        const double v = tr.run->valueAt(tr.signal, t) / tr.scale;
        lines << QStringLiteral("%1 = %2").arg(tr.graph->name(), std::isnan(v) ? QStringLiteral("\u2013") : number(v));
    }
    return lines.join(QStringLiteral("   "));
}

QString Subplot::eventsNear(double pixelX, double tolerancePx) const {
    if (!m_current) return {};
    const QCPAxis* x = m_rect->axis(QCPAxis::atBottom);
    QStringList lines;
    int more = 0;
    for (const core::EventRecord& e : m_current->events()) {
        if (std::abs(x->coordToPixel(e.time) - pixelX) > tolerancePx) continue;
        if (lines.size() >= 8) {
            ++more;
            continue;
        }
        lines << QStringLiteral("t = %1 s  %2: %3, v = %4")
                     .arg(number(e.time), QString::fromStdString(e.block), QString::fromLatin1(core::toString(e.kind)),
                          number(e.velocity));
    }
    if (more > 0) lines << QStringLiteral("(%1 more)").arg(more);
    return lines.join('\n');
}

}   // namespace endstop::gui
