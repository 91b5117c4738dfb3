// SPDX-License-Identifier: GPL-3.0-or-later
// Registry-wide contract, one data row per block type: descriptors are consistent, defaults are
// valid, and in every mode the forward-mode AD Jacobian of the equations equals central finite
// differences, as does the AD time derivative used by index reduction.
#include "support/compare.hpp"
#include "support/test_support.hpp"

#include "core/blockapi/block.hpp"
#include "core/blockapi/event_ctx.hpp"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <span>

using namespace endstop;
using core::Block;
using core::Eq;
using core::EqData;

namespace {

// One block on its own: local slots are its conserving ports, its own variables and its inputs.
struct Harness {
    const Block& b;
    std::vector<int> portSlot, varSlot;
    int slots = 0;
    std::vector<double> disc;

    explicit Harness(const Block& blk) : b(blk) {
        for (std::size_t p = 0; p < b.ports().size(); ++p) {
            const bool present = b.portPresent(static_cast<int>(p));
            const bool hasSlot = present && b.ports()[p].kind != core::PortKind::Output;
            portSlot.push_back(hasSlot ? slots++ : -1);
        }
        for (std::size_t v = 0; v < b.vars().size(); ++v) varSlot.push_back(slots++);
        for (std::size_t d = 0; d < b.discretes().size(); ++d) disc.push_back(b.initialDiscrete(static_cast<int>(d)));
    }

    // f(eq) on the block at y, y', t, its rows going to res and thr
    template <class S, class F> void withEq(const std::vector<S>& y, const std::vector<S>& yp, S t, std::vector<S>& res,
                                            std::vector<S>& thr, F&& f) const {
        res.assign(b.vars().size(), S(0.0));
        thr.assign(static_cast<std::size_t>(b.conservingCount()), S(0.0));
        EqData<S> d;
        d.y = y;
        d.yp = yp;
        d.portSlot = portSlot;
        d.varSlot = varSlot;
        d.discrete = disc;
        d.residual = res;
        d.through = thr;
        d.time = t;
        Eq<S> eq(d);
        f(eq);
    }

    template <class S>
    void eval(const std::vector<S>& y, const std::vector<S>& yp, S t, std::vector<S>& res, std::vector<S>& thr) const {
        withEq(y, yp, t, res, thr, [&](Eq<S>& eq) { b.eval(eq); });
    }

    // the event functions into g and which of them are live, at y, y', t
    void events(const std::vector<double>& y, const std::vector<double>& yp, double t, std::vector<double>& g,
                std::vector<char>& live) const {
        g.assign(static_cast<std::size_t>(b.eventCount()), 0.0);
        live.assign(g.size(), 0);
        if (g.empty()) return;   // the engine never asks such a block
        std::vector<double> res, thr;
        withEq(y, yp, t, res, thr, [&](const Eq<double>& eq) {
            b.eventFunctions(eq, g);
            const Block::EventWindow w = b.liveWindow(eq);   // the engine reads it unchecked
            QVERIFY2(0 <= w.first && w.first <= w.last && w.last <= b.eventCount(),
                     "the live window must lie within the block's event functions");
            const auto first = static_cast<std::size_t>(w.first), last = static_cast<std::size_t>(w.last);
            std::fill(live.begin() + w.first, live.begin() + w.last, 1);
            b.liveEvents(eq, std::span<char>(live).subspan(first, last - first));
        });
    }

    std::vector<double> rows(const std::vector<double>& y, const std::vector<double>& yp, double t) const {
        std::vector<double> res, thr;
        eval(y, yp, t, res, thr);
        res.insert(res.end(), thr.begin(), thr.end());
        return res;
    }
};

std::vector<std::vector<double>> modeCombinations(const Block& b) {
    std::vector<std::vector<double>> out{{}};
    for (std::size_t i = 0; i < b.discretes().size(); ++i) {
        const core::DiscreteDesc& d = b.discretes()[i];
        std::vector<std::vector<double>> next;
        const int n = d.modes > 0 ? d.modes : 1;
        for (const auto& prefix : out)
            for (int m = 0; m < n; ++m) {
                auto v = prefix;
                v.push_back(d.modes > 0 ? m : b.initialDiscrete(static_cast<int>(i)));
                next.push_back(v);
            }
        out = next;
    }
    return out;
}

}   // namespace

class TestContract : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void descriptors_data() { rows(); }
    void descriptors() {
        const auto b = fetchBlock();
        std::set<std::string> keys, ports, recorded;
        for (const core::ParamDesc& d : b->params()) {
            QVERIFY2(keys.insert(d.key).second, qPrintable("duplicate parameter key " + QString::fromStdString(d.key)));
            if (const double* x = std::get_if<double>(&d.defaultValue))
                QVERIFY2(d.rangeError(*x).empty(),
                         qPrintable(QString::fromStdString(d.key + ": default " + d.rangeError(*x))));
            if (d.visibleWhen) {
                const core::ParamDesc* ctl = nullptr;
                for (const core::ParamDesc& c : b->params())
                    if (c.key == d.visibleWhen->param) ctl = &c;
                QVERIFY2(ctl && ctl->type == core::ParamType::Choice,
                         qPrintable("visibility of " + QString::fromStdString(d.key)));
                for (const std::string& v : d.visibleWhen->values)
                    QVERIFY2(std::any_of(ctl->choices.begin(), ctl->choices.end(),
                                         [&](const auto& c) { return c.key == v; }),
                             qPrintable("visibility value " + QString::fromStdString(v) + " is not a choice"));
            }
            QVERIFY(!d.label.empty());
        }
        for (const core::PortDesc& p : b->ports()) QVERIFY2(ports.insert(p.name).second, "duplicate port name");
        for (const core::RecordedVar& r : b->recorded())
            QVERIFY2(recorded.insert(b->describe(r).name).second, "duplicate recorded name");
        QVERIFY2(!core::hasErrors(b->validate()), "defaults do not validate");
        QVERIFY(!b->info().title.empty() && !b->info().category.empty());
    }

    // A tunable parameter is a number that changes no structure (ParamDesc::tunable): the same
    // ports, variables, discretes and event functions for any valid value. The project reader
    // describes one block per type and non-tunable parameters to learn the ports of all
    // (docs/architecture.md, "Memory"), so a block that broke this would be read with wrong ports.
    void tunableKeepsStructure_data() { rows(); }
    void tunableKeepsStructure() {
        QFETCH(QString, type);
        QFETCH(QString, choice);
        QFETCH(QString, value);
        const auto base = fetchBlock();
        int tried = 0;
        for (const core::ParamDesc& d : base->params()) {
            if (!d.tunable) continue;
            QVERIFY2(d.type == core::ParamType::Real, qPrintable(QString::fromStdString(d.key)));
            const double x = std::get<double>(base->values().at(d.key));
            for (const double candidate : {2.0 * x + 1.0, 0.5 * x, x - 1.0, -2.0 * x - 1.0}) {
                core::ParamValues params;
                if (!choice.isEmpty()) params[choice.toStdString()] = value.toStdString();
                params[d.key] = candidate;
                std::unique_ptr<Block> other;
                try {
                    other = blocks::registry().create(type.toStdString(), params);
                } catch (const std::exception&) {
                    continue;
                }
                if (core::hasErrors(other->validate())) continue;
                ++tried;
                const QByteArray what = QByteArray::fromStdString(d.key + " = " + std::to_string(candidate));
                QVERIFY2(other->ports().size() == base->ports().size(), what);
                for (std::size_t i = 0; i < base->ports().size(); ++i) {
                    QVERIFY2(other->ports()[i].name == base->ports()[i].name, what);
                    QVERIFY2(other->ports()[i].kind == base->ports()[i].kind, what);
                    QVERIFY2(other->ports()[i].domain == base->ports()[i].domain, what);
                    QVERIFY2(other->portPresent(static_cast<int>(i)) == base->portPresent(static_cast<int>(i)), what);
                }
                QVERIFY2(other->vars().size() == base->vars().size(), what);
                for (std::size_t i = 0; i < base->vars().size(); ++i)
                    QVERIFY2(other->vars()[i].kind == base->vars()[i].kind, what);
                QVERIFY2(other->discretes().size() == base->discretes().size(), what);
                QVERIFY2(other->eventCount() == base->eventCount(), what);
                break;
            }
        }
        // every type with a tunable parameter had a second valid value tried
        const bool anyTunable = std::any_of(base->params().begin(), base->params().end(),
                                            [](const core::ParamDesc& d) { return d.tunable; });
        QVERIFY(!anyTunable || tried > 0);
    }

    void jacobian_data() { rows(); }
    void jacobian() {
        const auto b = fetchBlock();
        Harness h(*b);
        std::mt19937 rng(42);
        std::uniform_real_distribution<double> u(-0.5, 0.5);
        for (const std::vector<double>& modes : modeCombinations(*b)) {
            h.disc = modes;
            for (int sample = 0; sample < 3; ++sample) {
                std::vector<double> y(static_cast<std::size_t>(h.slots)), yp(y.size());
                for (double& x : y) x = u(rng);
                for (double& x : yp) x = u(rng);
                const double t = 0.3 + 0.1 * sample, cj = 7.0;
                checkJacobian(h, y, yp, t, cj);
                checkTimeDerivative(h, y, yp, t);
            }
        }
    }

    // The structural analysis takes a block as linear in a mode when its Sym evaluation shows no
    // product of unknowns, no nonlinear function of one and no look at their values; the engine
    // then reuses one Jacobian for the whole mode. That must hold at any point.
    void linearity_data() { rows(); }
    void linearity() {
        const auto b = fetchBlock();
        QFETCH(QString, type);
        QFETCH(QString, choice);
        Harness h(*b);
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        const std::size_t n = static_cast<std::size_t>(h.slots);
        int linearModes = 0;
        for (const std::vector<double>& modes : modeCombinations(*b)) {
            h.disc = modes;
            std::vector<core::ad::Sym> sy(n), syp(n);
            for (std::size_t i = 0; i < n; ++i) {
                sy[i] = core::ad::Sym(0.1 * u(rng));
                sy[i].deps.set(2 * i);
                syp[i] = core::ad::Sym(0.1 * u(rng));
                syp[i].deps.set(2 * i + 1);
            }
            std::vector<core::ad::Sym> res, thr;
            core::ad::Sym::valueInspected() = false;
            h.eval(sy, syp, core::ad::Sym::ofTime(0.5), res, thr);
            bool linear = !core::ad::Sym::valueInspected();
            for (const auto& r : res) linear = linear && !r.nonlinear;
            for (const auto& r : thr) linear = linear && !r.nonlinear;
            if (!linear) continue;
            ++linearModes;
            std::vector<double> first;
            for (int sample = 0; sample < 6; ++sample) {   // values over six decades, and time
                std::vector<double> y(n), yp(n);
                for (double& x : y) x = u(rng) * std::pow(10.0, 3.0 * u(rng));
                for (double& x : yp) x = u(rng) * std::pow(10.0, 3.0 * u(rng));
                const std::vector<double> J = jacobianAt(h, y, yp, 10.0 * (u(rng) + 1.0));
                if (first.empty()) first = J;
                for (std::size_t i = 0; i < J.size(); ++i)
                    QCOMPARE_NEAR(J[i], first[i], 1e-12 * (1 + std::abs(first[i])),
                                  QString("taken as linear, but entry %1 differs here and there").arg(i));
            }
        }
        // the blocks the large chains are made of must be recognised
        static const std::set<QString> linearTypes = {"translational.mass",         "translational.spring",
                                                      "translational.damper",       "rotational.inertia",
                                                      "translational.force_source", "signal.sine"};
        if (choice.isEmpty() && linearTypes.count(type)) QVERIFY2(linearModes > 0, "expected linear equations");
        if (type == "translational.hard_stop" && (choice.isEmpty() || choice == "model")) {
            QFETCH(QString, value);
            // smooth: the ramp over the transition region is nonlinear; full_damped: linear in each region
            if (value.isEmpty() || value == "smooth")
                QVERIFY(linearModes < static_cast<int>(modeCombinations(*b).size()));
            if (value == "full_damped") QVERIFY(linearModes > 0);
        }
    }

    // The solver leaves the event functions a block calls dead in a mode out of its root finding
    // until the next event: in that mode they must hold one nonzero value whatever the state.
    void liveEvents_data() { rows(); }
    void liveEvents() {
        const auto b = fetchBlock();
        QFETCH(QString, type);
        Harness h(*b);
        std::mt19937 rng(11);
        std::uniform_real_distribution<double> u(-2.0, 2.0);
        int dead = 0;
        for (const std::vector<double>& modes : modeCombinations(*b)) {
            h.disc = modes;
            std::vector<double> g, first;
            std::vector<char> live, firstLive;
            for (int sample = 0; sample < 8; ++sample) {
                std::vector<double> y(static_cast<std::size_t>(h.slots)), yp(y.size());
                for (double& x : y) x = u(rng);
                for (double& x : yp) x = u(rng);
                h.events(y, yp, 0.5 * sample, g, live);
                if (sample == 0) first = g, firstLive = live;
                QVERIFY2(live == firstLive, "liveness must follow the discrete state alone");
                for (std::size_t i = 0; i < g.size(); ++i) {
                    if (live[i] != 0) continue;
                    QVERIFY2(
                        g[i] != 0.0 && g[i] == first[i],
                        qPrintable(
                            QString("event function %1 is dead but moves: %2, %3").arg(i).arg(first[i]).arg(g[i])));
                }
            }
            for (char l : live) dead += l == 0 ? 1 : 0;
        }
        // a hard stop out of contact watches its two bounds with one function; a sliding stiction
        // joint watches its velocity alone
        if (type.endsWith(".hard_stop") || type.endsWith(".stiction")) QVERIFY(dead > 0);
    }

    // An event function a block states as affine (Block::affineEvent) is evaluated by the solver
    // as a row built once per discrete state: the form must follow the discrete state alone and
    // give eventFunctions()'s value at any state.
    void affineEvents_data() { rows(); }
    void affineEvents() {
        const auto b = fetchBlock();
        QFETCH(QString, type);
        Harness h(*b);
        std::mt19937 rng(12);
        std::uniform_real_distribution<double> u(-2.0, 2.0);
        int affine = 0;
        for (const std::vector<double>& modes : modeCombinations(*b)) {
            h.disc = modes;
            for (int sample = 0; sample < 8; ++sample) {
                std::vector<double> y(static_cast<std::size_t>(h.slots)), yp(y.size()), g, res, thr, res2, thr2;
                std::vector<char> live;
                for (double& x : y) x = u(rng);
                for (double& x : yp) x = u(rng);
                h.events(y, yp, 0.5 * sample, g, live);
                for (int i = 0; i < b->eventCount(); ++i) {
                    core::AffineEvent form, again;
                    bool is = false, still = false;
                    h.withEq(y, yp, 0.5 * sample, res, thr, [&](const Eq<double>& eq) {
                        is = b->affineEvent(eq, i, form);
                        std::vector<double> other(y.size());
                        for (double& x : other) x = u(rng);
                        h.withEq(other, other, 1.0, res2, thr2,
                                 [&](const Eq<double>& eq2) { still = b->affineEvent(eq2, i, again); });
                    });
                    if (!is) continue;
                    ++affine;
                    QVERIFY2(still && again.constant == form.constant && again.count == form.count &&
                                 again.nudge == form.nudge && again.split == form.split &&
                                 again.constant2 == form.constant2 && again.nudge2 == form.nudge2,
                             qPrintable(QString("affine form of event function %1 moves with the state").arg(i)));
                    QVERIFY(form.split < form.count);
                    double scale = std::abs(form.constant) + std::abs(form.constant2);
                    // one form, terms [from, to), by hand through the harness's slots
                    const auto sum = [&](double c, int from, int to, double nudge) {
                        for (int k = from; k < to; ++k) {
                            const core::AffineEvent::Term& t = form.terms[static_cast<std::size_t>(k)];
                            const core::AffineEvent::Term& t2 = again.terms[static_cast<std::size_t>(k)];
                            if (t.var != t2.var || t.port != t2.port || t.coefficient != t2.coefficient ||
                                (t.var >= 0) == (t.port >= 0))
                                return std::numeric_limits<double>::quiet_NaN();
                            const int slot = t.var >= 0 ? h.varSlot[static_cast<std::size_t>(t.var)]
                                                        : h.portSlot[static_cast<std::size_t>(t.port)];
                            const double v = slot < 0 ? 0.0 : y[static_cast<std::size_t>(slot)];
                            c += t.coefficient * v;
                            scale += std::abs(t.coefficient * v);
                        }
                        return c + nudge;
                    };
                    const double first = sum(form.constant, 0, form.split < 0 ? form.count : form.split, form.nudge);
                    const double second =
                        form.split < 0 ? first : sum(form.constant2, form.split, form.count, form.nudge2);
                    QVERIFY2(!std::isnan(first) && !std::isnan(second),
                             "a term is neither a variable nor a port, or moves with the state");
                    const double value = std::min(first, second);
                    QVERIFY2(std::abs(value - g[static_cast<std::size_t>(i)]) <= 1e-13 * (1.0 + scale),
                             qPrintable(QString("event function %1: affine form %2, eventFunctions %3")
                                            .arg(i)
                                            .arg(value, 0, 'g', 17)
                                            .arg(g[static_cast<std::size_t>(i)], 0, 'g', 17)));
                }
            }
        }
        // every event function of a stop is affine in every mode, and of a stiction joint whose
        // limits are parameters
        QFETCH(QString, choice);
        QFETCH(QString, value);
        if (type.endsWith(".hard_stop")) QVERIFY(affine > 0);
        if (type.endsWith(".stiction")) QCOMPARE(affine > 0, !(choice == "limits_from" && value == "signals"));
    }

    // The end of a smooth stop's ramp (p = delta) is an event in contact, p - delta, and its
    // branch's region says which piece of the law applies (HardStop::law): crossed outwards the
    // stop goes beyond the ramp, continuously and across (the run may move IDA's history there,
    // EventCtx::continuousAcross); crossed against the penetration's rate (a restart's round-off)
    // the region stands. Here K = 2, D = 4 (the damping unclamped: K p > |D p'|), delta = 0.1,
    // p = 0.1 exactly at the event, p' = +-0.01.
    void smoothStopMeetsTheEndOfItsRamp() {
        const auto b = blocks::registry().create("translational.hard_stop",
                                                 {{"upper_bound", 1.0},
                                                  {"upper_stiffness", 2.0},
                                                  {"upper_damping", 4.0},
                                                  {"transition_region", 0.1}});
        const auto named = [](const auto& list, const char* name) {
            const auto at = std::ranges::find_if(list, [&](const auto& d) { return d.name == name; });
            return static_cast<std::size_t>(at - list.begin());
        };
        Harness h(*b);
        const std::size_t mode = named(b->discretes(), "mode"), branch = named(b->discretes(), "branch");
        const auto x = static_cast<std::size_t>(h.varSlot[named(b->vars(), "x")]);
        const auto slider = static_cast<std::size_t>(h.portSlot[named(b->ports(), "R")]);
        h.disc[mode] = 1.0;   // in contact with the upper bound, on the ramp, unclamped
        h.disc[branch] = 0.0;
        std::vector<double> y(static_cast<std::size_t>(h.slots)), yp(y.size()), res, thr, events;
        std::vector<char> live;
        y[x] = 1.05;
        y[slider] = 0.01;
        h.events(y, yp, 0.0, events, live);
        QVERIFY(live[2]);
        QCOMPARE_NEAR(events[2], -0.05, 1e-15);
        std::vector<core::EventRecord> log;
        const auto cross = [&](double pd, int direction) {
            y[x] = 1.1;
            y[slider] = pd;
            bool across = false, jumped = true;
            h.withEq(y, yp, 0.0, res, thr, [&](const Eq<double>& eq) {
                core::EventCtx ctx(eq, h.disc, "stop", log);
                b->onEvent(ctx, 2, direction);
                across = ctx.across();
                jumped = ctx.jumped();
            });
            return std::pair{across, jumped};
        };
        const auto [inwardAcross, inwardJumped] = cross(-0.01, core::kRising);   // against p' < 0
        QCOMPARE(h.disc[branch], 0.0);
        QVERIFY(!inwardAcross && !inwardJumped);   // nothing changed
        const auto [outAcross, outJumped] = cross(0.01, core::kRising);
        QCOMPARE(h.disc[branch], 1.0);   // beyond the ramp
        QVERIFY(outAcross && !outJumped);
        QVERIFY(log.empty());   // not a logged event
        y[x] = 1.15;   // beyond: the same function, now positive
        h.events(y, yp, 0.0, events, live);
        QVERIFY(live[2]);
        QCOMPARE_NEAR(events[2], 0.05, 1e-15);
    }

    // Blocks share their declarations by a key of their parameters (core::appendKey): two sets
    // give one key only when they are the same, or a block would take another's ports and modes.
    // A smooth stop settled with its branch across a clamp corner (HardStop::holdAcross) moves that
    // corner's event function beyond the state, towards the branch's side, so that the state going
    // on across the corner is a crossing. Settled exactly on the corner (K p + D p' = 0, the low
    // clamp held) the function went the other way, onto the state's side of zero at once, and no
    // later root could see the state go on (found 2026-12-07; docs/reliability.md, "a clamp corner
    // held across"). The contact here: p = 0.5, K = 2, D = 4, so K p = 1 and D p' = g - 1.
    void smoothStopWatchesACornerHeldAcross_data() {
        QTest::addColumn<double>("g");   // K p + D p' at the state settled
        QTest::newRow("on the corner") << 0.0;
        QTest::newRow("just across") << 1e-12;
    }
    void smoothStopWatchesACornerHeldAcross() {
        QFETCH(double, g);
        const auto b = blocks::registry().create(
            "translational.hard_stop", {{"upper_bound", 1.0}, {"upper_stiffness", 2.0}, {"upper_damping", 4.0}});
        const auto named = [](const auto& list, const char* name) {
            const auto at = std::ranges::find_if(list, [&](const auto& d) { return d.name == name; });
            return static_cast<std::size_t>(at - list.begin());
        };
        Harness h(*b);
        const std::size_t mode = named(b->discretes(), "mode"), branch = named(b->discretes(), "branch");
        h.disc[mode] = 1.0;     // in contact with the upper bound
        h.disc[branch] = 3.0;   // on the low clamp (2, the damping held to -K p), past the ramp (+1)
        std::vector<double> y(static_cast<std::size_t>(h.slots)), yp(y.size()), res, thr, events;
        std::vector<char> live;
        y[static_cast<std::size_t>(h.varSlot[named(b->vars(), "x")])] = 1.5;
        const auto slider = static_cast<std::size_t>(h.portSlot[named(b->ports(), "R")]);
        y[slider] = (g - 1.0) / 4.0;   // p', the case at rest
        std::vector<core::EventRecord> log;
        h.withEq(y, yp, 0.0, res, thr, [&](const Eq<double>& eq) {
            core::EventCtx ctx(eq, h.disc, "stop", log);
            b->settle(ctx);
        });
        QCOMPARE(h.disc[branch], 3.0);   // within rounding of the corner the branch stands
        h.events(y, yp, 0.0, events, live);
        QVERIFY2(live[3] && events[3] < 0.0, qPrintable(QString("low corner's function %1").arg(events[3])));
        y[slider] = (1e-5 - 1.0) / 4.0;   // on across by 1e-5 of K p + D p', five times the band
        h.events(y, yp, 0.0, events, live);
        QVERIFY2(events[3] > 0.0,
                 qPrintable(QString("low corner's function %1 once the state went on").arg(events[3])));
    }

    void parameterKeysTellSetsApart() {
        const auto key = [](const core::ParamValues& ps) {
            std::string k;
            for (const auto& [name, v] : ps) core::appendKey(k, name, v);
            return k;
        };
        std::vector<double> table(40'000);
        for (std::size_t i = 0; i < table.size(); ++i) table[i] = 1e-3 * static_cast<double>(i);
        std::vector<double> last = table;
        last.back() = std::nextafter(last.back(), 1e9);
        const std::vector<core::ParamValues> sets{
            {{"a", std::string("x;b=1")}},   // as text, a=x;b=1 both
            {{"a", std::string("x")}, {"b", std::string("1")}},
            {{"a", 1.0}},
            {{"a", std::vector<double>{1.0}}},
            {{"a", std::string("1")}},
            {{"ab", 1.0}},
            {{"a", std::string("b")}},
            {{"a", std::vector<double>{}}},
            {{"a", std::string()}},
            {{"a", table}},
            {{"a", last}},   // the last number one ulp apart
            {{"a", 1.0}, {"b", table}},
        };
        std::set<std::string> keys;
        for (const core::ParamValues& ps : sets) keys.insert(key(ps));
        QCOMPARE(keys.size(), sets.size());
        for (const core::ParamValues& ps : sets) QCOMPARE(key(ps), key(core::ParamValues(ps)));   // a copy, the same
    }

private:
    // dF/dy and dF/dy' of every row, flattened
    static std::vector<double> jacobianAt(const Harness& h, const std::vector<double>& y, const std::vector<double>& yp,
                                          double t) {
        const std::size_t n = y.size();
        std::vector<double> out;
        for (const bool derivative : {false, true})
            for (std::size_t k = 0; k < n; ++k) {
                std::vector<core::Jet> jy(n), jyp(n);
                for (std::size_t i = 0; i < n; ++i) {
                    jy[i] = i == k && !derivative ? core::Jet::seed(y[i], 0) : core::Jet(y[i]);
                    jyp[i] = i == k && derivative ? core::Jet::seed(yp[i], 0) : core::Jet(yp[i]);
                }
                std::vector<core::Jet> res, thr;
                h.eval(jy, jyp, core::Jet(t), res, thr);
                for (const auto& r : res) out.push_back(r.d[0]);
                for (const auto& r : thr) out.push_back(r.d[0]);
            }
        return out;
    }

    // One row per block type with its defaults, plus one per other value of each choice parameter.
    static void rows() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("choice");
        QTest::addColumn<QString>("value");
        for (const core::BlockType& t : blocks::registry().types()) {
            const QString type = QString::fromStdString(t.info.typeId);
            QTest::newRow(t.info.typeId.c_str()) << type << QString() << QString();
            const auto prototype = blocks::registry().prototype(t.info.typeId);
            for (const core::ParamDesc& d : prototype->params())
                for (const core::ChoiceOption& o : d.choices) {
                    if (core::ParamValue(o.key) == d.defaultValue) continue;
                    const std::string name = t.info.typeId + " " + d.key + "=" + o.key;
                    QTest::newRow(name.c_str())
                        << type << QString::fromStdString(d.key) << QString::fromStdString(o.key);
                }
        }
    }

    static std::unique_ptr<Block> fetchBlock() {
        QFETCH(QString, type);
        QFETCH(QString, choice);
        QFETCH(QString, value);
        core::ParamValues params;
        if (!choice.isEmpty()) params[choice.toStdString()] = value.toStdString();
        return blocks::registry().create(type.toStdString(), params);
    }

    static void checkJacobian(const Harness& h, const std::vector<double>& y, const std::vector<double>& yp, double t,
                              double cj) {
        const std::size_t n = y.size();
        for (std::size_t k = 0; k < n; ++k) {
            // AD: seed y_k with 1 and y'_k with cj, as the engine does
            std::vector<core::Jet> jy(n), jyp(n);
            for (std::size_t i = 0; i < n; ++i) {
                jy[i] = i == k ? core::Jet::seed(y[i], 0) : core::Jet(y[i]);
                jyp[i] = i == k ? core::Jet::seed(yp[i], 0, cj) : core::Jet(yp[i]);
            }
            std::vector<core::Jet> res, thr;
            h.eval(jy, jyp, core::Jet(t), res, thr);
            res.insert(res.end(), thr.begin(), thr.end());
            // central differences along the same direction
            const double eps = 1e-6;
            auto shifted = [&](double s) {
                auto y2 = y, yp2 = yp;
                y2[k] += s;
                yp2[k] += s * cj;
                return h.rows(y2, yp2, t);
            };
            const auto plus = shifted(eps), minus = shifted(-eps), base = h.rows(y, yp, t);
            for (std::size_t r = 0; r < res.size(); ++r) {
                QVERIFY2(std::isfinite(base[r]), "residual not finite");
                QCOMPARE_NEAR(res[r].v, base[r], 1e-12 * (1 + std::abs(base[r])), "Jet value differs from double");
                const double fd = (plus[r] - minus[r]) / (2 * eps);
                const double ad = res[r].d[0];
                // the difference quotient loses about 1e-16 |terms| / eps to rounding (stiff contacts)
                const double rounding = 1e-9 * (std::abs(plus[r]) + std::abs(minus[r]));
                QCOMPARE_NEAR(ad, fd, 1e-5 * (1 + std::abs(fd)) + rounding,
                              QString("row %1, slot %2: AD vs FD").arg(r).arg(k));
            }
        }
    }

    // Tan<double>: d/dt of every row along y' (y'' = 0), against central differences in time
    static void checkTimeDerivative(const Harness& h, const std::vector<double>& y, const std::vector<double>& yp,
                                    double t) {
        const std::size_t n = y.size();
        std::vector<core::ad::Tan<double>> ty(n), typ(n);
        for (std::size_t i = 0; i < n; ++i) {
            ty[i] = {y[i], yp[i]};
            typ[i] = {yp[i], 0.0};
        }
        std::vector<core::ad::Tan<double>> res, thr;
        h.eval(ty, typ, core::ad::Tan<double>{t, 1.0}, res, thr);
        res.insert(res.end(), thr.begin(), thr.end());
        // Richardson-extrapolated central differences with a larger step: rows whose terms cancel
        // (an end stop's c * (phi - phi_max) with phi_max = 1e6 deg) lose too much to rounding at 1e-6
        const double eps = 1e-5;
        auto at = [&](double s) {
            auto y2 = y;
            for (std::size_t i = 0; i < n; ++i) y2[i] += s * yp[i];
            return h.rows(y2, yp, t + s);
        };
        const auto plus = at(eps), minus = at(-eps), plus2 = at(2 * eps), minus2 = at(-2 * eps);
        for (std::size_t r = 0; r < res.size(); ++r) {
            const double d1 = (plus[r] - minus[r]) / (2 * eps), d2 = (plus2[r] - minus2[r]) / (4 * eps);
            const double fd = (4 * d1 - d2) / 3;
            QCOMPARE_NEAR(res[r].dt, fd, 1e-5 * (1 + std::abs(fd)), QString("d/dt of row %1: AD vs FD").arg(r));
        }
    }
};

QTEST_GUILESS_MAIN(TestContract)
#include "tst_contract.moc"
