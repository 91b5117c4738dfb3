// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/batch/interrupt.hpp"

#include <csignal>

namespace endstop::batch {

namespace {
// lock-free atomics are async-signal-safe; the handler touches nothing else
std::atomic<bool> g_cancel{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

extern "C" void onSignal(int sig) {
    g_signal.store(sig);
    g_cancel.store(true);
    std::signal(sig, SIG_DFL);   // a second Ctrl+C ends the process at once
}
}   // namespace

InterruptGuard::InterruptGuard() {
    g_cancel = false;
    g_signal = 0;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
}

InterruptGuard::~InterruptGuard() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
}

const std::atomic<bool>* InterruptGuard::flag() const { return &g_cancel; }
int InterruptGuard::signal() const { return g_signal.load(); }
const char* InterruptGuard::signalName() const { return g_signal.load() == SIGINT ? "SIGINT" : "SIGTERM"; }

}   // namespace endstop::batch
