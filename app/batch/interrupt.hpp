// SPDX-License-Identifier: GPL-3.0-or-later
// SIGINT and SIGTERM stop the running simulations instead of killing the process: the solver
// stops between steps, what was computed is written as complete files, and the command exits
// with 128 + the signal's number (130, 143). A second signal kills the process as usual.
#pragma once

#include <atomic>

namespace endstop::batch {

class InterruptGuard {
public:
    InterruptGuard();    // installs the handlers
    ~InterruptGuard();   // restores the defaults
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    const std::atomic<bool>* flag() const;   // for RunControl::cancel
    int signal() const;                      // 0, or the signal that arrived
    const char* signalName() const;          // "SIGINT", "SIGTERM"
};

}   // namespace endstop::batch
