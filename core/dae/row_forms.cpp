// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dae/row_forms.hpp"

#include "core/dae/dae_system.hpp"
#include "core/dae/evaluator.hpp"
#include "core/dae/seeding.hpp"

#include <cmath>
#include <random>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

constexpr int kSamples = 4;   // pseudo-random states per mode combination
constexpr int kMaxCombinations = 256;

// A block's evaluations, one after the other in flat arrays that the next block reuses (a vector
// per sample and array made most of the allocations of building a network whose blocks all
// differ). Per sample: each own row's value; per local row (own, then ports) its derivative along
// every direction, 2 * slots of them, (k, 0) at 2k and (k, 1) at 2k + 1; and the point, the slot
// values and rates.
class Samples {
public:
    explicit Samples(Sampling::Store& store, std::size_t ownRows, std::size_t rows, std::size_t width)
        : m_s(store), m_nv(ownRows), m_rows(rows), m_width(width) {
        m_s.value.clear();
        m_s.grads.clear();
        m_s.point.clear();
    }
    std::size_t size() const { return m_count; }
    std::size_t rows() const { return m_rows; }
    double value(std::size_t smp, std::size_t v) const { return m_s.value[smp * m_nv + v]; }
    const double* grad(std::size_t smp, std::size_t row) const {
        return m_s.grads.data() + (smp * m_rows + row) * m_width;
    }
    const double* point(std::size_t smp) const { return m_s.point.data() + smp * m_width; }

    // One more sample, zero: its value, gradient and point arrays
    void add() {
        ++m_count;
        m_s.value.resize(m_count * m_nv, 0.0);
        m_s.grads.resize(m_count * m_rows * m_width, 0.0);
        m_s.point.resize(m_count * m_width, 0.0);
    }
    double* lastValue() { return m_s.value.data() + (m_count - 1) * m_nv; }
    double* lastGrads() { return m_s.grads.data() + (m_count - 1) * m_rows * m_width; }
    double* lastPoint() { return m_s.point.data() + (m_count - 1) * m_width; }

private:
    Sampling::Store& m_s;
    std::size_t m_nv, m_rows, m_width, m_count = 0;
};

// One evaluation of block bi at st, appended to out.
void evaluate(const DaeSystem& s, Evaluator& ev, int bi, const State& st, Samples& out) {
    const Binding& b = s.bindings[at(bi)];
    const Block& blk = *b.block;
    const int ns = static_cast<int>(b.slot().size()), nv = static_cast<int>(b.ownRow().size());
    const int np = static_cast<int>(b.portRow().size());
    out.add();
    double* value = out.lastValue();
    double* grads = out.lastGrads();
    double* point = out.lastPoint();
    const auto grad = [&](int row, int dir) -> double& { return grads[at(row) * at(2 * ns) + at(dir)]; };
    // two directions per slot: its value at 2k, its rate at 2k + 1
    forEachJetPass(2 * ns, [&](const JetPass& pass) {
        Workspace<Jet>& w = ev.jets();
        Eq<Jet> eq = ev.prepare(
            w, bi, st,
            [&](int k, double y, double d, Jet& yo, Jet& dout) {
                yo = pass.seed(y, 2 * k);
                dout = pass.seed(d, 2 * k + 1);
                point[at(2 * k)] = y;
                point[at(2 * k + 1)] = d;
            },
            [](double t) { return Jet(t); });
        blk.eval(eq);
        for (int v = 0; v < nv; ++v) {
            value[at(v)] = w.res[at(v)].v;
            pass.derivatives(w.res[at(v)], [&](int dir, double g) { grad(v, dir) = g; });
        }
        for (int p = 0; p < np; ++p)
            pass.derivatives(w.thr[at(p)], [&](int dir, double g) { grad(nv + p, dir) = g; });
    });
}

// The draws of a stream, replayed, drawing more only past their end: the same numbers as a
// generator seeded afresh. A draw is a sign, then a magnitude in [0.25, 1.25); kept as the number
// it makes, not as the generator's words, it is made once per stream instead of once per block.
class Draws {
public:
    explicit Draws(Sampling::Stream& stream) : m_stream(stream) {}
    double operator()() {
        if (m_next == m_stream.drawn.size()) {
            std::mt19937& g = m_stream.generator;
            const double sign = (g() & 1u) ? 1.0 : -1.0;
            m_stream.drawn.push_back(sign * m_magnitude(g));
        }
        return m_stream.drawn[m_next++];
    }

private:
    Sampling::Stream& m_stream;
    std::size_t m_next = 0;
    std::uniform_real_distribution<double> m_magnitude{0.25, 1.25};
};

bool same(double a, double b) { return a == b || std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

// Calls f(state) at kSamples pseudo-random states in every combination of the block's modes;
// false if there are too many combinations to try.
template <class F> bool forEachSample(const DaeSystem& s, int bi, Sampling& sampling, F&& f) {
    const Binding& b = s.bindings[at(bi)];
    const Block& blk = *b.block;
    std::vector<int> modeDiscretes, radix;
    int combinations = 1;
    for (std::size_t i = 0; i < blk.discretes().size(); ++i)
        if (blk.discretes()[i].modes > 0) {
            modeDiscretes.push_back(static_cast<int>(i));
            radix.push_back(blk.discretes()[i].modes);
            combinations *= blk.discretes()[i].modes;
            if (combinations > kMaxCombinations) return false;
        }
    std::vector<double>& disc = sampling.disc;
    std::vector<double>& y = sampling.y;
    std::vector<double>& yp = sampling.yp;
    const auto own = disc.begin() + b.discreteOffset;
    const std::vector<double> saved(own, own + static_cast<std::ptrdiff_t>(blk.discretes().size()));
    const auto restore = [&] {   // the block's discretes as they were, its slots zero again
        std::copy(saved.begin(), saved.end(), own);
        for (int u : b.slot()) y[at(u)] = yp[at(u)] = 0.0;
    };
    const unsigned seed = 12345u + static_cast<unsigned>(b.slot().size());   // reproducible
    Draws draw(sampling.streams.try_emplace(seed, seed).first->second);
    try {
        for (int c = 0; c < combinations; ++c)
            for (int k = 0; k < kSamples; ++k) {
                for (std::size_t i = 0; i < blk.discretes().size(); ++i) disc[at(b.discreteOffset) + i] = draw();
                for (std::size_t i = 0, rest = at(c); i < modeDiscretes.size(); ++i) {
                    disc[at(b.discreteOffset + modeDiscretes[i])] = static_cast<double>(rest % at(radix[i]));
                    rest /= at(radix[i]);
                }
                for (int u : b.slot()) {
                    y[at(u)] = draw();
                    yp[at(u)] = draw();
                }
                f(State{0.5 + 0.25 * draw(), y.data(), yp.data(), disc.data()}, y, draw);
            }
    } catch (...) {
        restore();
        return false;   // a block that cannot be evaluated anywhere
    }
    restore();
    return true;
}

}   // namespace

Sampling::Sampling(const DaeSystem& s) : disc(s.discrete0), y(at(s.size()), 0.0), yp(at(s.size()), 0.0) {}

std::vector<char> analyseEventReads(const DaeSystem& s, Evaluator& ev, int bi, Sampling& sampling,
                                    std::vector<char>& rates) {
    const Binding& b = s.bindings[at(bi)];
    const Block& blk = *b.block;
    std::vector<char> reads(b.slot().size(), 0);
    rates.assign(b.slot().size(), 0);
    const std::size_t ne = at(blk.eventCount());
    if (ne == 0) return reads;
    std::vector<double> g0(ne), g1(ne);
    auto events = [&](const State& st, std::vector<double>& g) {
        const Eq<double> eq = ev.prepare(
            ev.doubles(), bi, st,
            [](int, double y, double d, double& yo, double& dout) {
                yo = y;
                dout = d;
            },
            [](double t) { return t; });
        blk.eventFunctions(eq, g);
    };
    std::vector<double>& yp = sampling.yp;
    // the rates all moved at once first (most event functions read none), by a fixed step so
    // that the draws, and so the states sampled, are those of the values alone
    std::vector<double> savedRates(b.slot().size());
    const auto moveRates = [&](std::size_t from, std::size_t to, bool back) {
        for (std::size_t k = from; k < to; ++k) {
            double& rate = yp[at(b.slot()[k])];
            if (!back) savedRates[k] = rate;
            rate = back ? savedRates[k] : rate + 1.0;
        }
    };
    const bool sampled = forEachSample(s, bi, sampling, [&](const State& st, std::vector<double>& y, auto& draw) {
        events(st, g0);
        for (std::size_t k = 0; k < b.slot().size(); ++k) {
            const double saved = y[at(b.slot()[k])];
            y[at(b.slot()[k])] = saved + draw();
            events(st, g1);
            y[at(b.slot()[k])] = saved;
            if (g1 != g0) reads[k] = 1;
        }
        const std::size_t n = b.slot().size();
        moveRates(0, n, false);
        events(st, g1);
        moveRates(0, n, true);
        if (g1 == g0) return;
        for (std::size_t k = 0; k < n; ++k) {
            moveRates(k, k + 1, false);
            events(st, g1);
            moveRates(k, k + 1, true);
            if (g1 != g0) rates[k] = 1;
        }
    });
    if (!sampled) {
        reads.assign(b.slot().size(), 1);
        rates.assign(b.slot().size(), 1);
    }
    return reads;
}

std::vector<RowForm> analyseRowForms(const DaeSystem& s, Evaluator& ev, int bi, Sampling& sampling) {
    const Binding& b = s.bindings[at(bi)];
    const std::size_t nv = b.ownRow().size();
    std::vector<RowForm> forms(nv);
    const std::size_t width = 2 * b.slot().size();
    Samples samples(sampling.store, nv, nv + b.portRow().size(), width);
    std::vector<char> timed(nv, 0);
    std::vector<double> now(nv), later(nv);
    bool readsTime = false;
    // the own rows' values alone, in doubles: whether they change with the time, and whether the
    // block reads it at all
    const auto values = [&](const State& st, std::vector<double>& out) {
        Workspace<double>& w = ev.doubles();
        struct Watch {   // the workspace outlives this analysis: never left pointing at it
            Workspace<double>& w;
            ~Watch() { w.data.timeRead = nullptr; }
        } watch{w};
        Eq<double> eq = ev.prepare(
            w, bi, st,
            [](int, double y, double d, double& yo, double& dout) {
                yo = y;
                dout = d;
            },
            [](double t) { return t; });
        w.data.timeRead = &readsTime;
        b.block->eval(eq);
        for (std::size_t v = 0; v < nv; ++v) out[v] = w.res[v];
    };
    const bool sampled = forEachSample(s, bi, sampling, [&](const State& st, std::vector<double>&, auto&) {
        evaluate(s, ev, bi, st, samples);
        values(st, now);
        values({st.t + 0.37, st.y, st.yp, st.discrete}, later);
        for (std::size_t v = 0; v < nv; ++v)
            if (!same(later[v], now[v])) timed[v] = 1;
    });
    if (!sampled || samples.size() == 0) return forms;   // keep everything
    for (std::size_t v = 0; v < nv; ++v) {
        RowForm& f = forms[v];
        const std::size_t self = at(b.varSlot()[v]);
        bool constant = true, exact = true, self0 = true, self1 = true;
        const double* g0 = samples.grad(0, v);
        for (std::size_t smp = 0; smp < samples.size(); ++smp) {
            const double* g = samples.grad(smp, v);
            const double* point = samples.point(smp);
            double sum = 0.0, scale = 0.0;
            for (std::size_t d = 0; d < width; ++d) {
                constant = constant && same(g[d], g0[d]);
                sum += g[d] * point[d];
                scale += std::abs(g[d] * point[d]);
            }
            const double value = samples.value(smp, v);
            exact = exact && std::isfinite(value) && std::abs(value - sum) <= 1e-12 * scale;
            self0 = self0 && same(g[2 * self], g0[2 * self]);
            self1 = self1 && same(g[2 * self + 1], g0[2 * self + 1]);
        }
        if (self0 && std::isfinite(g0[2 * self])) f.self0 = g0[2 * self];
        if (self1 && std::isfinite(g0[2 * self + 1])) f.self1 = g0[2 * self + 1];
        f.linear = constant && exact;
        f.timed = timed[v] != 0;
        f.readsTime = readsTime;
        const std::size_t rows = samples.rows();
        f.in.assign(rows, 0.0);
        for (std::size_t r = 0; r < rows; ++r) {
            const double c = samples.grad(0, r)[2 * self];
            bool fixed = std::isfinite(c);
            for (std::size_t smp = 0; smp < samples.size(); ++smp)
                fixed = fixed && same(samples.grad(smp, r)[2 * self], c) && samples.grad(smp, r)[2 * self + 1] == 0.0;
            f.in[r] = fixed ? c : std::numeric_limits<double>::quiet_NaN();
        }
        if (!f.linear) continue;
        for (std::size_t d = 0; d < width; ++d)
            if (g0[d] != 0.0) f.terms.emplace_back(static_cast<int>(d / 2), static_cast<int>(d % 2), g0[d]);
    }
    return forms;
}

}   // namespace endstop::core::dae
