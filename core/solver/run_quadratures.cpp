// SPDX-License-Identifier: GPL-3.0-or-later
// The quadratures (run.hpp, docs/engine.md "Reduction", Quadratures): the running integrals a
// block declares (`energy_dissipated`) that no row reads are not IDA's unknowns. After each step
// IDA returns, their rates are integrated over the part of the step not yet covered, outside the
// Newton system and outside IDA's error test, so they never shorten a step, and each to the
// run's tolerance, so they follow it also where no unknown IDA tests sees what they integrate.
#include "core/errors.hpp"
#include "core/solver/run.hpp"

#include <ida/ida.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace endstop::core::solver::detail {

namespace {

// A piece is accepted when the estimate of its error is at most this share of rtol |Q| + atol
// for every quadrature.
constexpr double kQuadratureShare = 0.5;
// Halvings of one piece at most (a piece of 2^-12 of it is accepted as it is), and evaluations
// of the rates for one piece at most: beyond them, what is left is accepted as it is (a rate that
// is not finite, in a runaway, fails every test and would be halved to the end; a bound like
// these kept a contact of 1e300 N/m from taking minutes for each step).
constexpr int kMaxDepth = 12;
constexpr std::size_t kMaxEvaluations = 256;

}   // namespace

void Run::quadratureRatesAt(double tau, double* out) {
    N_Vector y = idaY(), yp = idaYp();
    if (tau != m_idaT) {   // else IDA's own y and y' at the time it returned
        void* mem = m_mem.get();
        check(IDAGetDky(mem, tau, 0, m_qy.get()), "IDAGetDky");
        check(IDAGetDky(mem, tau, 1, m_qyp.get()), "IDAGetDky");
        y = m_qy.get();
        yp = m_qyp.get();
    }
    const dae::State st = reducedState(tau, y, yp);
    if (m_resting)
        m_rev.quadratureRates(st, out, m_qMoving);
    else
        m_rev.quadratureRates(st, out);
    ++m_stats.quadratureEvals;
}

// m_q from m_tq to `to`, both inside IDA's last step, from one evaluation of the rates at `to`
// where that is enough: the polynomial through the rates at `to`, at m_tq and at up to two
// points before it (ends of earlier pieces since the last restart: across an event IDA steps
// over the rates are continuous), integrated over the piece, with the next term of its Newton
// form (through one point more) as the estimate of its error, as a variable-step Adams-Moulton
// formula of order up to 4 would. With no point before m_tq, Simpson's rule if the trapezoid
// rule is within the tolerance of it. Where an estimate is above kQuadratureShare of
// rtol |Q| + atol for some quadrature, the piece is integrated adaptively instead: Simpson's
// rule on it against Simpson's rule on its halves, Richardson's estimate of their difference,
// and halves done in turn until each passes, from IDA's interpolant inside the step.
void Run::advanceQuadratures(double to) {
    if (!m_q || !(to > m_tq)) return;
    const std::size_t nq = m_resting ? m_qMoving.size() : static_cast<std::size_t>(N_VGetLength(m_q.get()));
    if (nq == 0) {
        m_tq = to;
        return;
    }
    // the rates kept, nq each: the points before (oldest first, m_qPoints of them, the last one at
    // m_tq), then this call's
    const auto rates = [&](double tau) {
        m_qRates.resize(m_qRates.size() + nq);
        quadratureRatesAt(tau, m_qRates.data() + m_qRates.size() - nq);
        return m_qRates.size() / nq - 1;   // its index among the rates kept
    };
    if (!m_qStartValid) {
        m_qRates.clear();
        m_qTimes.clear();
        rates(m_tq);
        m_qTimes.push_back(m_tq);
    }
    m_qRates.resize(m_qTimes.size() * nq);
    const auto f = [&](std::size_t at, std::size_t k) { return m_qRates[at * nq + k]; };
    double* q = data(m_q);
    const auto qIndex = [&](std::size_t k) { return m_resting ? static_cast<std::size_t>(m_qMoving[k]) : k; };
    const double rtol = m_opt.relativeTolerance, atol = m_opt.absoluteTolerance;
    const auto scale = [&](std::size_t k, double piece) {
        const double v = q[qIndex(k)];
        return kQuadratureShare * (rtol * std::max(std::abs(v), std::abs(v + piece)) + atol);
    };
    const double a = m_tq, b = to, h = b - a;
    const std::size_t before = m_qTimes.size(), fa = before - 1, fb = rates(b);
    // Newton's form on the nodes b, a, and the points before a, latest first: W[j] is the
    // integral over [a, b] of prod_{i<j} (t - z_i), by 3-point Gauss-Legendre (exact to degree 5)
    const std::size_t n = before + 1;   // nodes
    std::array<double, 5> z{}, W{};
    std::array<std::size_t, 5> at{};
    z[0] = b;
    at[0] = fb;
    for (std::size_t i = 1; i < n; ++i) {
        z[i] = m_qTimes[before - i];
        at[i] = before - i;
    }
    if (n >= 3) {
        const double c = 0.5 * (a + b), r = 0.5 * h * std::sqrt(0.6);
        const std::array<double, 3> node{c - r, c, c + r}, weight{5.0 / 18 * h, 8.0 / 18 * h, 5.0 / 18 * h};
        for (std::size_t g = 0; g < 3; ++g) {
            double w = 1.0;
            for (std::size_t j = 0; j < n; ++j) {
                W[j] += weight[g] * w;
                w *= node[g] - z[j];
            }
        }
    }
    m_qPiece.resize(nq);
    bool estimated = n >= 3;
    for (std::size_t k = 0; estimated && k < nq; ++k) {
        std::array<double, 5> d{};
        for (std::size_t i = 0; i < n; ++i) d[i] = f(at[i], k);
        for (std::size_t order = 1; order < n; ++order)
            for (std::size_t i = n - 1; i >= order; --i) d[i] = (d[i] - d[i - 1]) / (z[i] - z[i - order]);
        double piece = 0.0;
        for (std::size_t j = 0; j + 1 < n; ++j) piece += d[j] * W[j];
        m_qPiece[k] = piece;
        estimated = std::abs(d[n - 1] * W[n - 1]) <= scale(k, piece);
    }
    std::size_t fm = 0;
    if (!estimated && n == 2) {   // no earlier point: Simpson's rule, if the trapezoid rule passes
        fm = rates(0.5 * (a + b));
        estimated = true;
        for (std::size_t k = 0; estimated && k < nq; ++k) {
            m_qPiece[k] = h / 6 * (f(fa, k) + 4 * f(fm, k) + f(fb, k));
            estimated = std::abs(m_qPiece[k] - h / 2 * (f(fa, k) + f(fb, k))) <= scale(k, m_qPiece[k]);
        }
    }
    if (estimated) {
        for (std::size_t k = 0; k < nq; ++k) q[qIndex(k)] += m_qPiece[k];
    } else {
        m_qPieces.clear();
        m_qPieces.push_back({a, b, fa, n == 2 ? fm : rates(0.5 * (a + b)), fb, 0});
        while (!m_qPieces.empty()) {
            const QuadraturePiece p = m_qPieces.back();
            m_qPieces.pop_back();
            const double hp = p.b - p.a, m = 0.5 * (p.a + p.b);
            const std::size_t fl = rates(0.5 * (p.a + m)), fr = rates(0.5 * (m + p.b));
            const auto whole = [&](std::size_t k) { return hp / 6 * (f(p.fa, k) + 4 * f(p.fm, k) + f(p.fb, k)); };
            const auto halves = [&](std::size_t k) {
                return hp / 12 * (f(p.fa, k) + 4 * f(fl, k) + 2 * f(p.fm, k) + 4 * f(fr, k) + f(p.fb, k));
            };
            bool accept = true;
            const bool refine = p.depth < kMaxDepth && m_qRates.size() / nq - before < kMaxEvaluations;
            for (std::size_t k = 0; accept && refine && k < nq; ++k)
                accept = std::abs(halves(k) - whole(k)) / 15 <= scale(k, halves(k));
            if (!accept) {   // the right half waits under the left
                m_qPieces.push_back({m, p.b, p.fm, fr, p.fb, p.depth + 1});
                m_qPieces.push_back({p.a, m, p.fa, fl, p.fm, p.depth + 1});
                continue;
            }
            for (std::size_t k = 0; k < nq; ++k) q[qIndex(k)] += halves(k) + (halves(k) - whole(k)) / 15;
        }
    }
    // the points the next piece reads: the last three before `to`, and `to`, unless an event
    // changes the state or the modes first
    const std::size_t keep = std::min<std::size_t>(before, 3);
    std::copy(m_qRates.begin() + static_cast<std::ptrdiff_t>((before - keep) * nq),
              m_qRates.begin() + static_cast<std::ptrdiff_t>(before * nq), m_qRates.begin());
    std::copy(m_qRates.begin() + static_cast<std::ptrdiff_t>(fb * nq),
              m_qRates.begin() + static_cast<std::ptrdiff_t>((fb + 1) * nq),
              m_qRates.begin() + static_cast<std::ptrdiff_t>(keep * nq));
    m_qTimes.erase(m_qTimes.begin(), m_qTimes.begin() + static_cast<std::ptrdiff_t>(before - keep));
    m_qTimes.push_back(to);
    m_qStartValid = true;
    m_tq = to;
    m_fullStale = true;
}

}   // namespace endstop::core::solver::detail
