// SPDX-License-Identifier: GPL-3.0-or-later
// The nonlinear spring (docs/blocks.md) against closed forms: a mass on it oscillates with the period
// of the energy integral T = 4 int_0^A dx / sqrt(2 (E - U(x)) / m) (both halves for an
// asymmetric spring); a table spring's force is exactly its interpolation; smooth interpolation
// is C1 through the points; validation; no event for an odd polynomial.
#include "blocks/friction_helpers.hpp"
#include "support/model_builder.hpp"

#include "blocks/mechanical/spring_table.hpp"
#include "core/blockapi/block.hpp"
#include "core/errors.hpp"
#include "core/io/project_file.hpp"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

using namespace endstop;
using test::at;

namespace {

constexpr double kPi = std::numbers::pi;
// Over the 20 periods simulated IDA's local errors add up (measured: up to 12 rtol per period in
// the amplitude of an undamped nonlinear oscillation), so the mean period and the largest
// excursion get P = 25 rtol per period (relative); K * rtol bounds what does not accumulate.
constexpr double K = 20.0, P = 25.0 * 20;

// U(x) = int_0^x F for F = sum k_i x^i with sign(x) on the even terms (symmetric) or not
double potential(const std::vector<double>& k, double x, bool signedEven) {
    double u = 0;
    for (std::size_t i = 0; i < k.size(); ++i) {
        const double p = static_cast<double>(i) + 2;   // k_(i+1) x^(i+1) integrates to k x^(i+2) / (i+2)
        const double term = k[i] * std::pow(std::abs(x), p) / p;
        const bool odd = i % 2 == 0;   // k1, k3, k5: F odd, U even
        u += odd ? term : (signedEven ? term : term * (x < 0 ? -1 : 1));
    }
    return u;
}

// the quarter period from x = 0 to the turning point A (U(A) = E) on one side (sign `side`)
struct Quarter {
    double time, amplitude;
};
Quarter quarter(const std::function<double(double)>& U, double E, double m, double side) {
    double lo = 0, hi = 1e-3 * side;
    while (U(hi) < E) hi *= 2;
    for (int i = 0; i < 200; ++i) ((U(0.5 * (lo + hi)) < E) ? lo : hi) = 0.5 * (lo + hi);
    const double A = 0.5 * (lo + hi), a = std::abs(A);
    // x = A sin(theta) takes the singularity out: f(theta) = A cos(theta) / v(A sin(theta)), whose
    // limit at pi/2 is sqrt(m A / F(A)); composite Simpson on it
    const double h = 1e-7 * a, FA = std::abs(U(A) - U(A - h * side)) / h;
    auto f = [&](int i, int n) {
        if (i == n) return std::sqrt(m * a / FA);
        const double th = kPi / 2 * i / n;
        return a * std::cos(th) / std::sqrt(2 * (E - U(A * std::sin(th))) / m);
    };
    const int n = 20000;
    double sum = f(0, n) + f(n, n);
    for (int i = 1; i < n; ++i) sum += (i % 2 ? 4 : 2) * f(i, n);
    return {sum * (kPi / 2 / n) / 3, A};
}

double meanPeriod(const std::vector<double>& up) {
    return (up.back() - up.front()) / static_cast<double>(up.size() - 1);
}

// A body m (mass or inertia) at v0 on a nonlinear spring k to the ground g.
core::model::Model oscillator(const core::ParamValues& springParams, double m, double v0,
                              const std::string& domain = "translational") {
    const bool rot = domain == "rotational";
    test::ModelBuilder b;
    b.block("m", rot ? "rotational.inertia" : "translational.mass",
            {{rot ? "inertia" : "mass", m}, {"initial_velocity", v0}})
        .block("k", domain + ".nonlinear_spring", springParams)
        .block("g", domain + ".reference");
    b.connect(rot ? "m.I" : "m.M", "k.R").connect("k.C", "g.R");
    return b.build();
}

int events(const core::ParamValues& p) {
    return blocks::registry().create("translational.nonlinear_spring", p)->eventCount();
}

}   // namespace

class TestNonlinearSpring : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void symmetricPeriod_data() {
        QTest::addColumn<std::vector<double>>("k");
        QTest::addColumn<double>("rtol");
        const std::vector<double> odd{100, 0, 1e5, 0, 0}, even{100, 3000, 1e5, 2e6, 0};
        QTest::newRow("odd, rtol 1e-6") << odd << 1e-6;
        QTest::newRow("odd, rtol 1e-8") << odd << 1e-8;
        QTest::newRow("sign terms, rtol 1e-6") << even << 1e-6;
        QTest::newRow("sign terms, rtol 1e-8") << even << 1e-8;
    }
    void symmetricPeriod() {
        QFETCH(std::vector<double>, k);
        QFETCH(double, rtol);
        const double m = 0.5, v0 = 1, E = 0.5 * m * v0 * v0;
        const auto q = quarter([&](double x) { return potential(k, x, true); }, E, m, 1.0);
        const double T = 4 * q.time;
        const auto r = test::run(oscillator({{"coefficients", k}}, m, v0), test::solverOptions(20 * T, rtol, 1e-4));
        const auto up = test::crossings(r, "k.x", 0.0, +1);
        QVERIFY(up.size() >= 18);
        QCOMPARE_NEAR(meanPeriod(up), T, P * rtol * T, "period");
        QCOMPARE_NEAR(test::maxOf(r, "k.x"), q.amplitude, P * rtol * q.amplitude + 1e-8, "amplitude");
        QCOMPARE_NEAR(-test::minOf(r, "k.x"), q.amplitude, P * rtol * q.amplitude + 1e-8, "symmetry");
        QCOMPARE(events({{"coefficients", k}}), k[1] != 0 || k[3] != 0 ? 1 : 0);   // no event for an odd polynomial
    }

    // tension k1t x + k3t x^3, compression k1c x + k2c x^2 (k2c < 0 stiffens it): a quarter on each
    // side, twice. Started at rest length towards compression, the spring kept its tension law for
    // the first half: x = 0 is where the two laws meet, and IDA does not report a root function
    // leaving the zero it starts at (the minimum was the tension amplitude).
    void asymmetricPeriod_data() {
        QTest::addColumn<double>("rtol");
        QTest::addColumn<double>("v0");
        for (const double v0 : {1.0, -1.0}) {
            const char* first = v0 > 0 ? "tension first" : "compression first";
            QTest::addRow("rtol 1e-6, %s", first) << 1e-6 << v0;
            QTest::addRow("rtol 1e-8, %s", first) << 1e-8 << v0;
        }
    }
    void asymmetricPeriod() {
        QFETCH(double, rtol);
        QFETCH(double, v0);
        const std::vector<double> kt{100, 0, 1e5, 0, 0}, kc{400, -5000, 0, 0, 0};
        const double m = 0.5, E = 0.5 * m * v0 * v0;
        const auto qt = quarter([&](double x) { return potential(kt, x, false); }, E, m, 1.0);
        const auto qc = quarter([&](double x) { return potential(kc, x, false); }, E, m, -1.0);
        const double T = 2 * qt.time + 2 * qc.time;
        const auto r = test::run(
            oscillator({{"symmetry", "asymmetric"}, {"tension_coefficients", kt}, {"compression_coefficients", kc}}, m,
                       v0),
            test::solverOptions(20 * T, rtol, 1e-4));
        QCOMPARE_NEAR(meanPeriod(test::crossings(r, "k.x", 0.0, +1)), T, P * rtol * T, "period");
        QCOMPARE_NEAR(test::maxOf(r, "k.x"), qt.amplitude, P * rtol * qt.amplitude + 1e-8, "tension amplitude");
        QCOMPARE_NEAR(test::minOf(r, "k.x"), qc.amplitude, P * rtol * std::abs(qc.amplitude) + 1e-8,
                      "compression amplitude");
        QCOMPARE(events({{"symmetry", std::string("asymmetric")},
                         {"tension_coefficients", kt},
                         {"compression_coefficients", kc}}),
                 1);
        QCOMPARE(events({{"symmetry", std::string("asymmetric")},
                         {"tension_coefficients", kt},
                         {"compression_coefficients", kt}}),
                 0);
    }

    // A table spring at rest length (the origin a breakpoint) stretched the other way, below its
    // first point, with the end force held (nearest): no force, x = v0 t. Its region stayed the
    // one above 0, whose segment went on below it: linear, a spring of the first slope; smooth,
    // a cubic that grew until the run failed (tools/engine-diff --wide, seed 426).
    void tableBelowItsFirstPointFromRest_data() {
        QTest::addColumn<QString>("interpolation");
        QTest::addColumn<bool>("pushed");   // from rest by a constant force, or moving at v0
        for (const char* i : {"linear", "smooth"})
            for (const bool pushed : {false, true})
                QTest::addRow("%s, %s", i, pushed ? "pushed from rest" : "moving") << QString(i) << pushed;
    }
    void tableBelowItsFirstPointFromRest() {
        QFETCH(QString, interpolation);
        QFETCH(bool, pushed);
        const double v0 = pushed ? 0.0 : -0.5, F = pushed ? -2.0 : 0.0, m = 1.0;
        test::ModelBuilder b;
        b.block("m", "translational.mass", {{"mass", m}, {"initial_velocity", v0}})
            .block("k", "translational.nonlinear_spring",
                   {{"parameterization", "table"},
                    {"displacements", std::vector<double>{0.01, 0.02, 0.03}},
                    {"forces", std::vector<double>{10, 30, 60}},
                    {"interpolation", interpolation.toStdString()},
                    {"extrapolation", "nearest"}})
            .block("push", "signal.constant", {{"value", F}})
            .block("src", "translational.force_source")
            .block("g", "translational.reference");
        b.connect("m.M", "k.R").connect("k.C", "g.R");
        b.connect("push.y", "src.S").connect("src.R", "m.M").connect("src.C", "g.R");
        const auto r = test::run(b.build(), test::solverOptions(1.0, 1e-8, 1e-3));
        for (std::size_t i = 0; i < r.rows(); ++i) {
            const double t = r.time()[i];
            QCOMPARE(r.values("k.f")[i], 0.0);
            QCOMPARE_NEAR(r.values("k.x")[i], v0 * t + F * t * t / (2 * m), 1e-9, "free motion");
        }
        QCOMPARE(r.time().back(), 1.0);
    }

    // A table spring whose deformation swings across its origin, a breakpoint, at ten times the
    // offset its event functions carry towards the current piece (core::kEventNudge), far below
    // the absolute tolerance, while a second oscillator keeps IDA's steps short. Near a root IDA's
    // sign test multiplies two values of one function, about 1e-12 of its swing: with an offset of
    // 1e-150 that product underflowed to 0, IDA reported a root without naming any function and
    // found it again after every restart, and the chatter guard ended the run (a spring deep in the
    // resting part of a long chain, tools/engine-diff --chains --wide, seed 219). The run ends, the
    // crossings are events, and the force is the table's slope times x throughout.
    void crossesItsOriginAtTheOffsetScale_data() { test::engineRows(); }
    void crossesItsOriginAtTheOffsetScale() {
        QFETCH(bool, reduce);
        const double swing = 10 * core::kEventNudge, k = 1000.0;   // the slope from the origin to (0.01, 10)
        test::ModelBuilder b;
        b.block("m", "translational.mass", {{"mass", 1.0}})
            .block("k", "translational.nonlinear_spring",
                   {{"parameterization", "table"},
                    {"displacements", std::vector<double>{0.01, 0.02, 0.03}},
                    {"forces", std::vector<double>{10, 30, 60}},
                    {"breakpoints", "events"}})
            .block("push", "signal.sine", {{"amplitude", k * swing}, {"frequency", 1.0}})
            .block("src", "translational.force_source")
            .block("pace", "translational.mass", {{"mass", 1.0}, {"initial_velocity", 1.0}})
            .block("kp", "translational.spring", {{"stiffness", k}})
            .block("g", "translational.reference");
        b.connect("m.M", "k.R").connect("k.C", "g.R");
        b.connect("push.y", "src.S").connect("src.R", "m.M").connect("src.C", "g.R");
        b.connect("pace.M", "kp.R").connect("kp.C", "g.R");
        core::simulation::SimulationOptions o = test::solverOptions(2.0, 1e-8);   // a row per step
        o.reduce = reduce;
        core::MemorySink r;
        try {
            r = test::run(b.build(), o);
        } catch (const core::Error& e) {
            QFAIL(e.what());
        }
        QCOMPARE(r.time().back(), 2.0);
        const auto &x = r.values("k.x"), &f = r.values("k.f");
        int crossings = 0, side = 0;   // from beyond the offset on one side to beyond it on the other
        for (const double xi : x) {
            const int now = xi > core::kEventNudge ? 1 : xi < -core::kEventNudge ? -1 : side;
            crossings += side != 0 && now != side ? 1 : 0;
            side = now;
        }
        const long events = r.stats().reinits + r.stats().steppedOver - 1;   // the start is a restart
        QVERIFY2(r.rows() > 1000 && crossings >= 3 && events >= crossings,
                 qPrintable(QString("%1 rows, %2 crossings, %3 events").arg(r.rows()).arg(crossings).arg(events)));
        const double fMax = test::maxOf(r, "k.f");
        for (std::size_t i = 0; i < r.rows(); ++i) QCOMPARE_NEAR(f[i], k * x[i], 1e-9 * fMax, "force");
    }

    // The rotational twin: same keys, records phi and t; J phi'' = -(k1 phi + k3 phi^3)
    void rotationalTwin() {
        const std::vector<double> k{2, 0, 50, 0, 0};
        const double J = 0.01, w0 = 3, E = 0.5 * J * w0 * w0;
        const double T = 4 * quarter([&](double x) { return potential(k, x, true); }, E, J, 1.0).time;
        const auto r =
            test::run(oscillator({{"coefficients", k}}, J, w0, "rotational"), test::solverOptions(10 * T, 1e-8, 1e-4));
        QCOMPARE_NEAR(meanPeriod(test::crossings(r, "k.phi", 0.0, +1)), T, P * 1e-8 * T, "period");
        const double phi = at(r, "k.phi", 0.37);
        QCOMPARE_NEAR(at(r, "k.t", 0.37), 2 * phi + 50 * phi * phi * phi, 1e-9, "torque");
    }

    // x' = 0.02 m/s from x = -0.03 through a table without 0 (the origin is added): the force is
    // exactly the piecewise linear interpolation, extrapolated linearly or held (nearest)
    // (events or stepped through: the segment located at its breakpoint or read from x).
    void tableEqualsLinearInterpolation_data() {
        QTest::addColumn<QString>("extrapolation");
        QTest::addColumn<QString>("breakpoints");
        for (const char* b : {"events", "through"}) {
            QTest::addRow("linear, %s", b) << "linear" << b;
            QTest::addRow("nearest, %s", b) << "nearest" << b;
        }
    }
    void tableEqualsLinearInterpolation() {
        QFETCH(QString, extrapolation);
        QFETCH(QString, breakpoints);
        const std::vector<double> X{-0.02, -0.005, 0.0, 0.01, 0.03}, F{-30, -5, 0, 10, 50};   // with the origin
        test::ModelBuilder b;
        b.block("v", "signal.constant", {{"value", 0.02}})
            .block("src", "translational.velocity_source")
            .block("k", "translational.nonlinear_spring",
                   {{"parameterization", "table"},
                    {"displacements", std::vector<double>{-0.02, -0.005, 0.01, 0.03}},
                    {"forces", std::vector<double>{-30, -5, 10, 50}},
                    {"initial_deformation", -0.03},
                    {"extrapolation", extrapolation.toStdString()},
                    {"breakpoints", breakpoints.toStdString()}})
            .block("g", "translational.reference");
        b.connect("v.y", "src.S").connect("src.R", "k.R").connect("src.C", "g.R").connect("k.C", "g.R");
        const core::model::Model model = b.build();
        const auto r = test::run(model, test::solverOptions(4.0, 1e-8));
        const bool linear = extrapolation == "linear";
        auto expected = [&](double x) {
            const std::size_t n = X.size();
            if (x <= X[0]) return linear ? F[0] + (x - X[0]) * (F[1] - F[0]) / (X[1] - X[0]) : F[0];
            if (x >= X[n - 1])
                return linear ? F[n - 1] + (x - X[n - 1]) * (F[n - 1] - F[n - 2]) / (X[n - 1] - X[n - 2]) : F[n - 1];
            std::size_t i = 0;
            while (x > X[i + 1]) ++i;
            return F[i] + (x - X[i]) * (F[i + 1] - F[i]) / (X[i + 1] - X[i]);
        };
        QVERIFY(test::minOf(r, "k.x") < -0.029 && test::maxOf(r, "k.x") > 0.049);
        double worst = 0;
        for (std::size_t i = 0; i < r.rows(); ++i)
            worst = std::max(worst, std::abs(r.values("k.f")[i] - expected(r.values("k.x")[i])));
        QCOMPARE_NEAR(worst, 0.0, 1e-9, "largest deviation from the interpolation");
        QCOMPARE_NEAR(test::last(r, "k.f"), linear ? 50 + 0.02 * 2000 : 50.0, 1e-6, "force at the end");
        // five breakpoints passed: restarts or steps over with events, neither stepped through
        const long crossings = r.stats().steppedOver + r.stats().reinits - 1;
        QCOMPARE(crossings, breakpoints == "events" ? 5L : 0L);
    }

    // Smooth (modified Akima): through every point, C1 at the breakpoints, exact on a straight
    // line, flat where the data are flat; the linear table has kinks (the check can fail).
    void smoothInterpolation() {
        const std::vector<double> X{-0.02, 0.0, 0.01, 0.02, 0.03, 0.05}, F{-30, 0, 10, 10, 10, 60};
        const blocks::SpringTable smooth(X, F, true, true), linear(X, F, false, true);
        using G = core::ad::Grad<1>;
        auto slope = [](const blocks::SpringTable& t, double x, int region) {
            return t.force(G::seed(x, 0), region).d[0];
        };
        double worstKink = 0, linearKink = 0;
        for (std::size_t i = 0; i < X.size(); ++i) {
            const int region = static_cast<int>(i) + 1;   // the segment above point i
            QCOMPARE(smooth.force(X[i], region), F[i]);
            QCOMPARE(smooth.force(X[i], region - 1), F[i]);
            worstKink = std::max(worstKink, std::abs(slope(smooth, X[i], region) - slope(smooth, X[i], region - 1)));
            linearKink = std::max(linearKink, std::abs(slope(linear, X[i], region) - slope(linear, X[i], region - 1)));
        }
        QVERIFY2(worstKink < 1e-9, qPrintable(QString("slope jump %1").arg(worstKink)));
        QVERIFY(linearKink > 100);
        for (double x = 0.01; x <= 0.03; x += 0.001) QCOMPARE_NEAR(smooth.force(x, smooth.regionOf(x)), 10, 1e-12);
        const blocks::SpringTable line({-1, 0.5, 2, 3}, {-3, 1.5, 6, 9}, true, true);
        for (double x : {-2.0, -0.3, 0.7, 2.5, 4.0}) QCOMPARE_NEAR(line.force(x, line.regionOf(x)), 3 * x, 1e-12);
    }

    void initialDeformation() {
        const auto r = test::run(
            oscillator({{"coefficients", std::vector<double>{100, 0, 1e5, 0, 0}}, {"initial_deformation", 0.02}}, 0.5,
                       0),
            test::solverOptions(1.0, 1e-8, 1e-4));
        QCOMPARE(r.values("k.x").front(), 0.02);
        QCOMPARE_NEAR(r.values("k.f").front(), 100 * 0.02 + 1e5 * std::pow(0.02, 3), 1e-12, "f(0)");
        QCOMPARE_NEAR(test::minOf(r, "k.x"), -0.02, 1e-8, "turning point");
    }

    // A measured curve: 40,000 points, an event function each (more than 16 bits hold). The run
    // used to abort in the assembly (a binding's event count was 16-bit); it must build and give
    // the interpolation. x' = 0.02 m/s for 1 ms from x = -0.03 crosses eight breakpoints.
    void largeMeasuredTable() {
        const std::size_t n = 40'000;
        std::vector<double> X(n), F(n);
        for (std::size_t i = 0; i < n; ++i) {
            X[i] = -0.05 + 0.1 * static_cast<double>(i) / static_cast<double>(n - 1);
            F[i] = 1000 * X[i] + 4e5 * X[i] * X[i] * X[i];
        }
        test::ModelBuilder b;
        b.block("v", "signal.constant", {{"value", 0.02}})
            .block("src", "translational.velocity_source")
            .block("k", "translational.nonlinear_spring",
                   {{"parameterization", "table"},
                    {"displacements", X},
                    {"forces", F},
                    {"initial_deformation", -0.03},
                    {"breakpoints", "events"}})
            .block("g", "translational.reference");
        b.connect("v.y", "src.S").connect("src.R", "k.R").connect("src.C", "g.R").connect("k.C", "g.R");
        const auto r = test::run(b.build(), test::solverOptions(1e-3, 1e-8));
        QVERIFY(r.stats().completed);
        const double x = test::last(r, "k.x");
        QCOMPARE_NEAR(x, -0.03 + 0.02 * 1e-3, 1e-12, "deformation at the end");
        const auto hi = static_cast<std::size_t>(std::upper_bound(X.begin(), X.end(), x) - X.begin());
        const double expected = F[hi - 1] + (x - X[hi - 1]) * (F[hi] - F[hi - 1]) / (X[hi] - X[hi - 1]);
        QCOMPARE_NEAR(test::last(r, "k.f"), expected, 1e-9, "force: the table's interpolation");
    }

    // A mass swinging on a 40,000-point linear table: root finding watches only the breakpoints
    // around the current piece (liveWindow), so every breakpoint the mass passes must still be
    // found, in order, once: x(t) = x0 cos(wt), and as many crossings as breakpoints between x(T)
    // and x0. A crossing is not logged (the force is continuous there): IDA steps over it or, when
    // its last step is too far off the new piece, restarts; nothing else restarts this run. A
    // skipped breakpoint leaves the spring on a piece it has left (an extrapolated segment, the
    // same line here), so the trajectory would hold, but the count would be short.
    void largeTableOscillation() {
        const std::size_t n = 40'000;
        const double k = 1000, m = 1, x0 = 1e-3, T = 0.04;
        std::vector<double> X(n), F(n);
        for (std::size_t i = 0; i < n; ++i) {
            X[i] = -0.05 + 0.1 * static_cast<double>(i) / static_cast<double>(n - 1);
            F[i] = k * X[i];
        }
        const auto r = test::run(oscillator({{"parameterization", "table"},
                                             {"displacements", X},
                                             {"forces", F},
                                             {"initial_deformation", x0},
                                             {"breakpoints", "events"}},
                                            m, 0),
                                 test::solverOptions(T, 1e-8, 1e-4));
        QVERIFY(r.stats().completed);
        const double xT = test::last(r, "k.x");
        QCOMPARE_NEAR(xT, x0 * std::cos(std::sqrt(k / m) * T), 1e-9, "x(T)");
        const long crossed = std::count_if(X.begin(), X.end(), [&](double b) { return b > xT && b < x0; });
        QVERIFY(crossed > 200);
        QCOMPARE(r.stats().events, 0L);
        QCOMPARE(r.stats().steppedOver + r.stats().reinits - 1, crossed);   // the first restart: t = 0
    }

    // breakpoints = through: no event per breakpoint. A mass on a hardening spring sampled as a
    // table of 1,201 points (k1 x + k3 x^3 on +-0.06 m) has the polynomial's period and amplitude
    // to the tolerance (the interpolation is off by about 2e-6 of the force), and meets no
    // breakpoint as a crossing: no restart after t = 0, none stepped over. The same table with
    // events meets about 38,000 in these 20 periods and drifts further: a breakpoint stepped over
    // leaves part of its step's error unseen by IDA's error test (docs/blocks.md, measured there).
    void hardeningTableSteppedThrough_data() {
        QTest::addColumn<QString>("interpolation");
        QTest::newRow("linear") << "linear";
        QTest::newRow("smooth") << "smooth";
    }
    void hardeningTableSteppedThrough() {
        QFETCH(QString, interpolation);
        const std::vector<double> k{100, 0, 1e5, 0, 0};
        const double m = 0.5, v0 = 1, E = 0.5 * m * v0 * v0, rtol = 1e-6;
        const auto q = quarter([&](double x) { return potential(k, x, true); }, E, m, 1.0);
        const double T = 4 * q.time;
        const std::size_t n = 1'201;
        std::vector<double> X(n), F(n);
        for (std::size_t i = 0; i < n; ++i) {
            X[i] = -0.06 + 0.12 * static_cast<double>(i) / static_cast<double>(n - 1);
            F[i] = k[0] * X[i] + k[2] * X[i] * X[i] * X[i];
        }
        const core::ParamValues spring{{"parameterization", "table"},
                                       {"displacements", X},
                                       {"forces", F},
                                       {"interpolation", interpolation.toStdString()},
                                       {"breakpoints", "through"}};
        const auto r = test::run(oscillator(spring, m, v0), test::solverOptions(20 * T, rtol, 1e-4));
        QVERIFY(r.stats().completed);
        const auto up = test::crossings(r, "k.x", 0.0, +1);
        QVERIFY(up.size() >= 18);
        QCOMPARE_NEAR(meanPeriod(up), T, P * rtol * T, "period");
        QCOMPARE_NEAR(test::maxOf(r, "k.x"), q.amplitude, P * rtol * q.amplitude + 1e-8, "amplitude");
        QCOMPARE_NEAR(-test::minOf(r, "k.x"), q.amplitude, P * rtol * q.amplitude + 1e-8, "symmetry");
        QCOMPARE(r.stats().steppedOver + r.stats().reinits - 1, 0L);
        QCOMPARE(r.stats().events, 0L);
        QCOMPARE(events(spring), 0);
        core::ParamValues located = spring;
        located["breakpoints"] = std::string("events");
        QCOMPARE(events(located), static_cast<int>(n));   // the origin is one of the points
    }

    // A coarse linear table (nine points, slopes from 500 to 8,000 N/m) has a corner at every
    // breakpoint: stepped through, IDA meets each inside a step and shortens its steps there. At
    // rtol 1e-10 it must follow a reference with events at rtol 1e-12 as closely as the run with
    // events at rtol 1e-10 does (measured: 1.6e-6 and 1.5e-6 of the amplitude as drawn, 1.4e-6 and
    // 0.9e-6 reduced), with either engine, and meet none of the breakpoints as a crossing.
    void coarseTableThroughFollowsEvents_data() { test::engineRows(); }
    void coarseTableThroughFollowsEvents() {
        QFETCH(bool, reduce);
        const std::vector<double> X{-0.04, -0.03, -0.02, -0.01, 0.0, 0.01, 0.02, 0.03, 0.04},
            F{-150, -70, -20, -5, 0, 5, 20, 70, 150};
        const double m = 0.2, v0 = 2, stop = 1.0;
        auto runWith = [&](const char* breakpoints, double rtol) {
            core::simulation::SimulationOptions o = test::solverOptions(stop, rtol, 1e-3);
            o.reduce = reduce;
            return test::run(oscillator({{"parameterization", "table"},
                                         {"displacements", X},
                                         {"forces", F},
                                         {"breakpoints", std::string(breakpoints)}},
                                        m, v0),
                             o);
        };
        const auto reference = runWith("events", 1e-12), located = runWith("events", 1e-10),
                   through = runWith("through", 1e-10);
        QVERIFY(reference.stats().completed && located.stats().completed && through.stats().completed);
        const double amplitude = test::maxOf(reference, "k.x");
        QVERIFY(amplitude > 0.02 && amplitude < 0.03);   // each swing crosses five breakpoints
        auto gap = [&](const core::MemorySink& r) {
            double worst = 0;
            for (int i = 0; i <= 1000; ++i) {
                const double t = stop * i / 1000;
                worst = std::max(worst, std::abs(test::at(r, "k.x", t) - test::at(reference, "k.x", t)));
            }
            return worst / amplitude;
        };
        const double throughGap = gap(through), locatedGap = gap(located);
        QCOMPARE_NEAR(throughGap, 0.0, 2e-5, "stepped through, from the reference, of the amplitude");
        QVERIFY2(throughGap <= 4 * locatedGap,
                 qPrintable(QString("through %1, events %2").arg(throughGap).arg(locatedGap)));
        QVERIFY(located.stats().steppedOver + located.stats().reinits - 1 > 100);
        QCOMPARE(through.stats().steppedOver + through.stats().reinits - 1, 0L);
    }

    void validation() {
        auto errorKey = [](const core::ParamValues& p) {
            core::ParamValues q = p;
            q.emplace("parameterization", std::string("table"));
            for (const core::Diagnostic& d : blocks::registry().create("translational.nonlinear_spring", q)->validate())
                if (d.severity == core::Severity::Error) return d.param;
            return std::string();
        };
        using V = std::vector<double>;
        QCOMPARE(errorKey({}), std::string());
        QCOMPARE(errorKey({{"displacements", V{0, 0.02, 0.01}}, {"forces", V{0, 1, 2}}}), std::string("displacements"));
        QCOMPARE(errorKey({{"displacements", V{0, 0.01, 0.01}}, {"forces", V{0, 1, 2}}}), std::string("displacements"));
        QCOMPARE(errorKey({{"displacements", V{0, 0.01}}, {"forces", V{0, 1, 2}}}), std::string("forces"));
        QCOMPARE(errorKey({{"displacements", V{0}}, {"forces", V{0}}}), std::string("displacements"));
        QCOMPARE(errorKey({{"displacements", V{0.01}}, {"forces", V{1}}}),
                 std::string());   // the origin makes two points
        const auto six = blocks::registry()
                             .create("translational.nonlinear_spring", {{"coefficients", V{1, 2, 3, 4, 5, 6}}})
                             ->validate();
        QVERIFY(core::hasErrors(six) && six[0].param == "coefficients");
        QCOMPARE(events({{"parameterization", std::string("table")}, {"breakpoints", std::string("events")}}),
                 4);                                                         // one per point, origin included
        QCOMPARE(events({{"parameterization", std::string("table")}}), 0);   // stepped through by default
    }

    // Type version 1 had no `breakpoints` and located every breakpoint: a block it wrote still
    // does (Registry::migrated, as every reader of a model applies it), one of version 2 without
    // the key steps through them, and a key given is kept. Through a file, as a user meets it:
    // the same table swinging across its points restarts or steps over at each crossing written
    // as version 1, and not at all written as version 2; saved again, the version and the
    // parameters are written as they were read.
    void typeVersion1KeepsEvents() {
        const core::Registry& reg = blocks::registry();
        const std::string type = "translational.nonlinear_spring";
        const core::ParamValues table{{"parameterization", std::string("table")}};
        QCOMPARE(events(reg.migrated(type, 1, table)), 4);
        QCOMPARE(events(reg.migrated(type, 2, table)), 0);
        core::ParamValues through = table;
        through["breakpoints"] = std::string("through");
        QCOMPARE(events(reg.migrated(type, 1, through)), 0);

        const auto file = [](int version) {
            return QStringLiteral(R"({ "format": "endstop-project", "formatVersion": 2,
  "simulation": { "stop_time": 1, "relative_tolerance": 1e-8, "absolute_tolerance": 1e-10 },
  "blocks": [
    { "name": "m", "type": "translational.mass", "typeVersion": 1, "parameters": { "mass": 1 } },
    { "name": "k", "type": "translational.nonlinear_spring", "typeVersion": %1,
      "parameters": { "parameterization": "table", "displacements": [-0.02, -0.01, 0.01, 0.02],
                      "forces": [-30, -10, 10, 30], "initial_deformation": 0.015 } },
    { "name": "g", "type": "translational.reference", "typeVersion": 1 } ],
  "connections": [ ["m.M", "k.R"], ["k.C", "g.R"] ] })")
                .arg(version)
                .toUtf8();
        };
        std::vector<long> crossings;
        for (const int version : {1, 2}) {
            const core::model::Model model = core::io::parseProject(file(version), "spring.endstop", reg);
            QCOMPARE(model.find("k")->typeVersion, version);
            QVERIFY(model.find("k")->params.count("breakpoints") == 0);   // read as written
            const auto r = test::run(model, test::solverOptions(1.0, 1e-8));
            QVERIFY(r.stats().completed);
            crossings.push_back(r.stats().steppedOver + r.stats().reinits - 1);   // the start is a restart
            const QByteArray saved = core::io::serializeProject(model);
            QVERIFY2(saved.contains(QStringLiteral("\"typeVersion\": %1").arg(version).toUtf8()), saved.constData());
            QVERIFY(!saved.contains("breakpoints"));
        }
        // about six periods of about 0.16 s, each across the origin and both inner points, twice
        QVERIFY2(crossings[0] >= 30 && crossings[1] == 0,
                 qPrintable(QString("crossings: %1 (version 1), %2 (version 2)").arg(crossings[0]).arg(crossings[1])));
    }

    // An end slope that falls, extrapolated linearly, is a negative stiffness without bound: a
    // deformation beyond the table is pushed further out. Validation warns about it, naming the
    // extrapolation and the slope; nearest extrapolation, or a table that ends rising, does not.
    // The smooth curve's end slopes can fall where every point rises (tools/engine-diff --wide,
    // seed 248, which ran to the step limit): its secants are extended past the ends.
    void fallingEndSlopeWarns() {
        using V = std::vector<double>;
        auto warnings = [](const V& x, const V& f, const char* interpolation, const char* extrapolation) {
            const core::ParamValues p{{"parameterization", std::string("table")},
                                      {"displacements", x},
                                      {"forces", f},
                                      {"interpolation", std::string(interpolation)},
                                      {"extrapolation", std::string(extrapolation)}};
            std::vector<std::string> out;
            for (const core::Diagnostic& d : blocks::registry().create("translational.nonlinear_spring", p)->validate())
                out.push_back(std::string(core::toString(d.severity)) + " on " + d.param + ": " + d.message);
            return out;
        };
        const V x{0, 0.01, 0.02}, falling{0, 10, 5}, rising{0, 10, 30};
        const auto last = warnings(x, falling, "linear", "linear");
        QCOMPARE(last.size(), std::size_t(1));
        QVERIFY2(last[0].find("warning on extrapolation: linear extrapolation above the last point, x = 0.02 m") !=
                     std::string::npos,
                 last[0].c_str());
        QVERIFY2(last[0].find("end slope of -500 N/m") != std::string::npos, last[0].c_str());
        QVERIFY(warnings(x, falling, "linear", "nearest").empty());
        QVERIFY(warnings(x, rising, "linear", "linear").empty());
        QVERIFY(warnings(x, rising, "smooth", "linear").empty());
        const V x248{0.0191, 0.0217, 0.0238}, f248{3.576, 59.352, 69.344};   // the origin is added
        const auto both = warnings(x248, f248, "smooth", "linear");
        QCOMPARE(both.size(), std::size_t(2));
        QVERIFY2(both[0].find("warning on extrapolation: linear extrapolation below the first point, x = 0 m") !=
                     std::string::npos,
                 both[0].c_str());
        QVERIFY2(both[1].find("warning on extrapolation: linear extrapolation above the last point, x = 0.0238 m") !=
                     std::string::npos,
                 both[1].c_str());
        QVERIFY(warnings(x248, f248, "linear", "linear").empty());
        QVERIFY(warnings(x248, f248, "smooth", "nearest").empty());
    }

    // A table of 50 breakpoints or more, located as events, gets a note (info, not a warning: the
    // run is right, only slower and less accurate than it need be) that names the breakpoints
    // parameter and the way to step through them; stepped through, or shorter, none.
    void longTableWithEventsGetsANote() {
        auto notes = [](std::size_t points, const char* breakpoints) {
            std::vector<double> x(points), f(points);
            for (std::size_t i = 0; i < points; ++i) x[i] = f[i] = 0.001 * static_cast<double>(i);   // 0 included
            const core::ParamValues p{{"parameterization", std::string("table")},
                                      {"displacements", x},
                                      {"forces", f},
                                      {"breakpoints", std::string(breakpoints)}};
            std::vector<std::string> out;
            for (const core::Diagnostic& d : blocks::registry().create("translational.nonlinear_spring", p)->validate())
                out.push_back(std::string(core::toString(d.severity)) + " on " + d.param + ": " + d.message);
            return out;
        };
        const auto many = notes(50, "events");
        QCOMPARE(many.size(), std::size_t(1));
        QVERIFY2(many[0].rfind("info on breakpoints: 50 breakpoints, each located as an event", 0) == 0,
                 many[0].c_str());
        QVERIFY2(many[0].find("breakpoints = through") != std::string::npos, many[0].c_str());
        QVERIFY(notes(49, "events").empty());
        QVERIFY(notes(40'000, "through").empty());
    }
};

QTEST_GUILESS_MAIN(TestNonlinearSpring)
#include "tst_nonlinear_spring.moc"
