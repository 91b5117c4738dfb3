// SPDX-License-Identifier: GPL-3.0-or-later
// A progress line on standard error for long runs and studies: runs done, failures, rate and time
// left. On by default when standard error is a terminal (one line redrawn in place, erased at the
// end), off when it is not (a log stays clean); --progress turns it on anyway (then one line per
// second, each ending with a line break), --no-progress off. Thread-safe: sweep workers report.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace endstop::batch {

class Args;

class Progress {
public:
    explicit Progress(Args& args);   // takes --progress / --no-progress
    bool enabled() const { return m_enabled; }

    void run(double t, double stopTime, long steps, long events);   // a run's progress
    void study(long done, long total, long failed);                 // a sweep's
    void finish();   // a terminal's line is erased; a log gets the last state

private:
    void show(std::string line, bool last);
    double elapsed() const;

    bool m_enabled = false, m_terminal = false, m_pending = false;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now(),
                                          m_shown = m_start;   // first line after a moment: a rate needs some time
    std::string m_last;
    std::mutex m_mutex;
};

}   // namespace endstop::batch
