// SPDX-License-Identifier: GPL-3.0-or-later
// IDA's history (ida_history.hpp). IDA keeps its solution as modified divided differences
// phi_j = psi_0 ... psi_{j-1} [y_n, ..., y_{n-j}] over the points t_n and t_n - psi_{i-1}
// (j = 0 .. order + 1; the last is the last step's correction, kept below the maximum order);
// its predictor, interpolant and error estimate all read them. Values added at those points add
// their own divided differences, scaled the same way. The layout is IDA's implementation header,
// installed with SUNDIALS 6 (ida/ida_impl.h); with another major version the history is left
// alone.
#include "core/solver/ida_history.hpp"

#include <sundials/sundials_config.h>

#if SUNDIALS_VERSION_MAJOR == 6
#include <ida/ida_impl.h>
#endif

#include <algorithm>

namespace endstop::core::solver {

#if SUNDIALS_VERSION_MAJOR == 6

bool canShiftHistory() { return true; }

IdaHistory historyOf(void* mem) {
    const auto* ida = static_cast<IDAMem>(mem);
    IdaHistory h;
    if (ida->ida_kused < 1) return h;
    h.points = std::min({ida->ida_kused + 2, ida->ida_maxord + 1, kMaxHistoryPoints});
    for (int i = 0; i < h.points; ++i) h.t[static_cast<std::size_t>(i)] = i == 0 ? ida->ida_tn : ida->ida_tn - ida->ida_psi[i - 1];
    h.cj = ida->ida_cj;
    h.cjOld = ida->ida_cjold;
    return h;
}

// Newton's form over all the points (IDAGetSolution's recurrence, one term further)
void historyAt(void* mem, double t, N_Vector y, N_Vector yp) {
    const auto* ida = static_cast<IDAMem>(mem);
    const int points = std::min({ida->ida_kused + 2, ida->ida_maxord + 1, kMaxHistoryPoints});
    N_VScale(1.0, ida->ida_phi[0], y);
    N_VConst(0.0, yp);
    const double delt = t - ida->ida_tn;
    double c = 1.0, d = 0.0, gam = delt / ida->ida_psi[0];
    for (int j = 1; j < points; ++j) {
        d = d * gam + c / ida->ida_psi[j - 1];
        c = c * gam;
        gam = (delt + ida->ida_psi[j - 1]) / ida->ida_psi[j];
        N_VLinearSum(1.0, y, c, ida->ida_phi[j], y);
        N_VLinearSum(1.0, yp, d, ida->ida_phi[j], yp);
    }
}

void shiftHistory(void* mem, const IdaHistory& h, const N_Vector* delta) {
    auto* ida = static_cast<IDAMem>(mem);
    const int n = h.points;
    // divided differences of the values in place, in the first vector of each: after pass j,
    // delta[i] (i >= j) holds the difference over points i-j .. i
    for (int j = 1; j < n; ++j)
        for (int i = n - 1; i >= j; --i)
            N_VLinearSum(1.0 / (h.t[static_cast<std::size_t>(i)] - h.t[static_cast<std::size_t>(i - j)]), delta[i],
                         -1.0 / (h.t[static_cast<std::size_t>(i)] - h.t[static_cast<std::size_t>(i - j)]), delta[i - 1],
                         delta[i]);
    double scale = 1.0;
    for (int j = 0; j < n; ++j) {
        N_VLinearSum(1.0, ida->ida_phi[j], scale, delta[j], ida->ida_phi[j]);
        scale *= ida->ida_psi[j];
    }
}

#else

bool canShiftHistory() { return false; }
IdaHistory historyOf(void*) { return {}; }
void historyAt(void*, double, N_Vector, N_Vector) {}
void shiftHistory(void*, const IdaHistory&, const N_Vector*) {}

#endif

}   // namespace endstop::core::solver
