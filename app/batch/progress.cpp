// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/batch/progress.hpp"

#include "app/batch/cli.hpp"
#include "core/units/unit.hpp"

#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace endstop::batch {

namespace {
using Clock = std::chrono::steady_clock;

std::string seconds(double s) {
    char buf[32];
    if (!std::isfinite(s)) return "?";
    if (s < 10)
        std::snprintf(buf, sizeof buf, "%.1f s", s);
    else if (s < 60)
        std::snprintf(buf, sizeof buf, "%.0f s", s);
    else if (s < 3600)
        std::snprintf(buf, sizeof buf, "%.0f min %02.0f s", std::floor(s / 60), std::fmod(s, 60));
    else
        std::snprintf(buf, sizeof buf, "%.0f h %02.0f min", std::floor(s / 3600), std::fmod(s / 60, 60));
    return buf;
}
}   // namespace

Progress::Progress(Args& args) {
    const bool on = args.flag("--progress"), off = args.flag("--no-progress");
    if (on && off) throw UsageError("flags --progress and --no-progress contradict each other");
    m_terminal = ::isatty(STDERR_FILENO) == 1;
    m_enabled = on || (!off && m_terminal);
}

double Progress::elapsed() const { return std::chrono::duration<double>(Clock::now() - m_start).count(); }

void Progress::run(double t, double stopTime, long steps, long events) {
    // called after every step: the clock decides before any formatting (one thread, no lock needed)
    if (!m_enabled || Clock::now() - m_shown < std::chrono::milliseconds(200)) return;
    const double e = elapsed(), left = t > 0 ? e * (stopTime - t) / t : NAN;
    char buf[200];
    std::snprintf(buf, sizeof buf, "t = %.4g s of %.4g s (%.0f%%), %ld steps, %ld events, %s elapsed, about %s left", t,
                  stopTime, 100.0 * t / stopTime, steps, events, seconds(e).c_str(), seconds(left).c_str());
    show(buf, false);
}

void Progress::study(long done, long total, long failed) {
    if (!m_enabled) return;
    const double e = elapsed(), rate = e > 0 ? static_cast<double>(done) / e : 0.0;
    char buf[200];
    std::snprintf(buf, sizeof buf, "runs %ld/%ld (%.0f%%), %ld failed, %.3g runs/s, about %s left", done, total,
                  total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0, failed, rate,
                  rate > 0 ? seconds(static_cast<double>(total - done) / rate).c_str() : "?");
    show(buf, done == total);
}

void Progress::show(std::string line, bool last) {
    const std::lock_guard lock(m_mutex);
    const auto now = Clock::now();
    m_last = std::move(line);
    m_pending = true;
    if (!last && now - m_shown < (m_terminal ? std::chrono::milliseconds(200) : std::chrono::milliseconds(1000)))
        return;
    m_shown = now;
    m_pending = false;
    // progress is a courtesy: a failed write to standard error is not worth stopping a run for
    if (m_terminal)
        std::fprintf(stderr, "\r%s\x1b[K", m_last.c_str());
    else
        std::fprintf(stderr, "%s\n", m_last.c_str());
    std::fflush(stderr);
}

void Progress::finish() {
    const std::lock_guard lock(m_mutex);
    if (!m_enabled) return;
    if (m_terminal)
        std::fputs("\r\x1b[K", stderr);
    else if (m_pending)
        std::fprintf(stderr, "%s\n", m_last.c_str());
    std::fflush(stderr);
    m_enabled = false;
}

}   // namespace endstop::batch
