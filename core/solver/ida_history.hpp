// SPDX-License-Identifier: GPL-3.0-or-later
// IDA's step history between two steps, which IDA's public interface does not reach: after a
// corner of a contact law that IDA steps over (docs/engine.md, "Correcting IDA's history at a
// corner"), the run moves the history onto the new modes' solution, so that the next steps
// predict from it instead of from the old modes' polynomial.
#pragma once

#include <sundials/sundials_nvector.h>

#include <array>

namespace endstop::core::solver {

constexpr int kMaxHistoryPoints = 6;   // IDA's maximum order 5, plus one

// The points IDA's history keeps after its last step: t[0] = tn, the end of that step, then the
// earlier step ends, oldest last; its polynomial interpolates the solution at all of them.
struct IdaHistory {
    int points = 0;
    std::array<double, kMaxHistoryPoints> t{};
    double cj = 0.0;      // the last step's BDF coefficient alpha_s / h
    double cjOld = 0.0;   // the coefficient IDA's iteration matrix was made with
};

// Whether this build can read and move IDA's history (the layout of IDA's memory it was compiled
// against is the library's: SUNDIALS 6). Without it, events are stepped over uncorrected.
bool canShiftHistory();
IdaHistory historyOf(void* mem);
// The history's polynomial and its derivative at time t.
void historyAt(void* mem, double t, N_Vector y, N_Vector yp);
// Adds delta[i] to the solution at the history's point i, for every point: the polynomial then
// interpolates the moved values.
void shiftHistory(void* mem, const IdaHistory& h, const N_Vector* delta);

}   // namespace endstop::core::solver
