// SPDX-License-Identifier: GPL-3.0-or-later
// The plots' min/max decimation cache against brute force: per pixel column the envelope keeps
// exactly the first, lowest, highest and last sample (so the polyline rasterises like the raw
// data), every point it returns is a real sample in order, its size is bounded by the columns and
// not by the samples, it is the same whether the trace grew in pieces or at once, and range()
// agrees with a scan. Uneven time steps, repeated times (the rows around an event) and NaN included.
#include "gui/min_max_cache.hpp"

#include <QTest>

#include <cmath>
#include <limits>
#include <map>
#include <random>

using namespace endstop;
using gui::MinMaxCache;
using gui::PlotPoint;

namespace {

struct Data {
    std::vector<double> t, v;
};

// a noisy oscillation on uneven steps: dense bursts (events) between sparse stretches
Data makeData(std::size_t n, unsigned seed, bool withNaN = false) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Data d;
    double t = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const bool burst = (i / 500) % 3 == 1;
        if (u(rng) > 0.02) t += burst ? 1e-6 * u(rng) : 1e-3 * (0.2 + u(rng));   // else a repeated time
        d.t.push_back(t);
        double v = std::sin(40 * t) + 0.3 * (u(rng) - 0.5) + (burst ? 2 * u(rng) : 0.0);
        if (withNaN && i % 997 == 13) v = std::numeric_limits<double>::quiet_NaN();
        d.v.push_back(v);
    }
    return d;
}

long column(double t, double t0, double pixel) { return static_cast<long>(std::floor((t - t0) / pixel)); }

// For every pixel column inside [t0, t1]: the envelope's points there have the column's
// first, minimum, maximum and last sample, and nothing else.
void checkEnvelope(const Data& d, const MinMaxCache& c, double t0, double t1, int columns) {
    std::vector<PlotPoint> out;
    c.envelope(d.t, t0, t1, columns, out);
    const double pixel = (t1 - t0) / columns;

    // every point is a sample, in sample order
    std::size_t k = 0;
    for (const PlotPoint& p : out) {
        while (k < d.t.size() && !(d.t[k] == p.t && (d.v[k] == p.v || (std::isnan(d.v[k]) && std::isnan(p.v))))) ++k;
        QVERIFY2(k < d.t.size(), qPrintable(QString("point (%1, %2) is not a sample in order").arg(p.t).arg(p.v)));
        ++k;
    }
    QVERIFY2(out.size() <= 4 * static_cast<std::size_t>(columns) + 8,
             qPrintable(QString("%1 points for %2 columns").arg(out.size()).arg(columns)));

    struct Col {
        double min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
        double first = std::numeric_limits<double>::quiet_NaN(), last = std::numeric_limits<double>::quiet_NaN();
        bool any = false;
    };
    std::map<long, Col> truth, drawn;
    const auto add = [](std::map<long, Col>& m, long col, double v) {
        Col& slot = m[col];
        if (!slot.any) slot.first = v;
        slot.any = true;
        slot.last = v;
        if (!std::isnan(v)) {
            slot.min = std::min(slot.min, v);
            slot.max = std::max(slot.max, v);
        }
    };
    for (std::size_t i = 0; i < d.t.size(); ++i)
        if (d.t[i] >= t0 && d.t[i] <= t1) add(truth, column(d.t[i], t0, pixel), d.v[i]);
    for (const PlotPoint& p : out)
        if (p.t >= t0 && p.t <= t1) add(drawn, column(p.t, t0, pixel), p.v);
    QCOMPARE(drawn.size(), truth.size());
    for (const auto& [col, expected] : truth) {
        const Col& got = drawn[col];
        QCOMPARE(got.min, expected.min);
        QCOMPARE(got.max, expected.max);
        QVERIFY(got.first == expected.first || (std::isnan(got.first) && std::isnan(expected.first)));
        QVERIFY(got.last == expected.last || (std::isnan(got.last) && std::isnan(expected.last)));
    }
    // the line enters and leaves the view: the samples just outside are there
    const auto [lo, hi] = MinMaxCache::indexRange(d.t, t0, t1);
    if (lo > 0 && lo < d.t.size()) QCOMPARE(out.front().t, d.t[lo - 1]);
    if (hi < d.t.size() && hi > 0) QCOMPARE(out.back().t, d.t[hi]);
}

}   // namespace

class TestMinMaxCache : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void envelopeIsExactPerColumn_data() {
        QTest::addColumn<int>("samples");
        QTest::addColumn<double>("from");   // fractions of the time span
        QTest::addColumn<double>("to");
        QTest::addColumn<int>("columns");
        QTest::newRow("all, 800 px") << 200000 << 0.0 << 1.0 << 800;
        QTest::newRow("all, 3 px") << 200000 << 0.0 << 1.0 << 3;
        QTest::newRow("zoomed") << 200000 << 0.4 << 0.45 << 640;
        QTest::newRow("deep zoom, raw") << 200000 << 0.5 << 0.5005 << 1000;
        QTest::newRow("short trace") << 37 << 0.0 << 1.0 << 500;
        QTest::newRow("tail only") << 100003 << 0.99 << 1.2 << 300;
        QTest::newRow("beyond the data") << 5000 << 1.5 << 2.0 << 100;
    }
    void envelopeIsExactPerColumn() {
        QFETCH(int, samples);
        QFETCH(double, from);
        QFETCH(double, to);
        QFETCH(int, columns);
        const Data d = makeData(static_cast<std::size_t>(samples), 7);
        MinMaxCache c;
        c.append(d.v);
        const double span = d.t.back() - d.t.front();
        checkEnvelope(d, c, d.t.front() + from * span, d.t.front() + to * span, columns);
    }

    void nanSamplesNeverWin() {
        const Data d = makeData(50000, 3, true);
        MinMaxCache c;
        c.append(d.v);
        checkEnvelope(d, c, d.t.front(), d.t.back(), 500);
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (double v : d.v)
            if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
        QCOMPARE(c.minimum(), lo);
        QCOMPARE(c.maximum(), hi);
    }

    // a trace that grew frame by frame is the same as one appended at once
    void growingEqualsWhole() {
        const Data d = makeData(123457, 11);
        MinMaxCache whole, grown;
        whole.append(d.v);
        std::mt19937 rng(5);
        for (std::size_t i = 0; i < d.v.size();) {
            const std::size_t n = std::min<std::size_t>(d.v.size() - i, rng() % 3000);
            grown.append(std::span<const double>(d.v).subspan(i, n));
            i += n;
        }
        std::vector<PlotPoint> a, b;
        whole.envelope(d.t, 0.1, 0.9 * d.t.back(), 700, a);
        grown.envelope(d.t, 0.1, 0.9 * d.t.back(), 700, b);
        QCOMPARE(a, b);
        // and while it grows, the tail that fills no node yet is drawn too
        MinMaxCache part;
        part.append(std::span<const double>(d.v).first(70001));
        const std::span<const double> t = std::span<const double>(d.t).first(70001);
        checkEnvelope({{t.begin(), t.end()}, {d.v.begin(), d.v.begin() + 70001}}, part, 0.0, t.back(), 400);
    }

    void rangeAgreesWithAScan() {
        const Data d = makeData(100000, 19);
        MinMaxCache c;
        c.append(d.v);
        std::mt19937 rng(2);
        std::uniform_real_distribution<double> u(0.0, d.t.back());
        for (int k = 0; k < 50; ++k) {
            double t0 = u(rng), t1 = u(rng);
            if (t0 > t1) std::swap(t0, t1);
            double lo = std::numeric_limits<double>::infinity(), hi = -lo;
            for (std::size_t i = 0; i < d.t.size(); ++i)
                if (d.t[i] >= t0 && d.t[i] <= t1) lo = std::min(lo, d.v[i]), hi = std::max(hi, d.v[i]);
            const auto [a, b] = c.range(d.t, t0, t1);
            QCOMPARE(a, lo);
            QCOMPARE(b, hi);
        }
    }

    // the point of the cache: a million samples give a few points per column
    void millionSamplesGiveAFewPointsPerColumn() {
        const Data d = makeData(1000000, 23);
        MinMaxCache c;
        c.append(d.v);
        std::vector<PlotPoint> out;
        c.envelope(d.t, 0, d.t.back(), 1000, out);
        QVERIFY2(out.size() <= 4000 + 2, qPrintable(QString::number(out.size())));
        QVERIFY(out.size() >= 1000);
    }
};

QTEST_GUILESS_MAIN(TestMinMaxCache)
#include "tst_min_max_cache.moc"
