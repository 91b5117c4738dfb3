// SPDX-License-Identifier: GPL-3.0-or-later
// IDA's history read and moved (core/solver/ida_history.hpp) on a real IDA memory: y' = -y from
// y(0) = 1 at rtol 1e-8, a few dozen steps, then the history's polynomial against the closed form
// at its own points, and a move of the values by a known function read back at every point and
// between them (the polynomial through the moved values), and in IDA's own interpolant.
#include "core/solver/ida_history.hpp"

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <QtTest>

#include <cmath>
#include <vector>

using namespace endstop::core::solver;

namespace {

int decay(double, N_Vector y, N_Vector yp, N_Vector r, void*) {
    NV_Ith_S(r, 0) = NV_Ith_S(yp, 0) + NV_Ith_S(y, 0);
    NV_Ith_S(r, 1) = NV_Ith_S(yp, 1) - 1.0;   // y1 = t
    return 0;
}

struct Ida {
    SUNContext ctx = nullptr;
    N_Vector y = nullptr, yp = nullptr;
    SUNMatrix A = nullptr;
    SUNLinearSolver ls = nullptr;
    void* mem = nullptr;
    Ida() {
        SUNContext_Create(nullptr, &ctx);
        y = N_VNew_Serial(2, ctx);
        yp = N_VNew_Serial(2, ctx);
        NV_Ith_S(y, 0) = 1.0;
        NV_Ith_S(y, 1) = 0.0;
        NV_Ith_S(yp, 0) = -1.0;
        NV_Ith_S(yp, 1) = 1.0;
        mem = IDACreate(ctx);
        IDAInit(mem, decay, 0.0, y, yp);
        IDASStolerances(mem, 1e-8, 1e-10);
        A = SUNDenseMatrix(2, 2, ctx);
        ls = SUNLinSol_Dense(y, A, ctx);
        IDASetLinearSolver(mem, ls, A);
    }
    ~Ida() {
        IDAFree(&mem);
        SUNLinSolFree(ls);
        SUNMatDestroy(A);
        N_VDestroy(y);
        N_VDestroy(yp);
        SUNContext_Free(&ctx);
    }
    void steps(int n) {
        double t = 0.0;
        for (int i = 0; i < n; ++i) IDASolve(mem, 10.0, &t, y, yp, IDA_ONE_STEP);
    }
};

}   // namespace

class TestIdaHistory : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsThePointsIdaKeeps() {
        QVERIFY(canShiftHistory());
        Ida ida;
        ida.steps(40);
        const IdaHistory h = historyOf(ida.mem);
        double tn = 0.0, hu = 0.0;
        IDAGetCurrentTime(ida.mem, &tn);
        IDAGetLastStep(ida.mem, &hu);
        QVERIFY(h.points >= 3);
        QCOMPARE(h.t[0], tn);
        QCOMPARE_LE(std::abs(h.t[1] - (tn - hu)), 1e-15 * tn);
        QVERIFY(h.cj > 0.0 && h.cjOld > 0.0);
        N_Vector y = N_VClone(ida.y), yp = N_VClone(ida.y);
        for (int i = 0; i < h.points; ++i) {   // the solution there, to the tolerance
            const double t = h.t[static_cast<std::size_t>(i)];
            historyAt(ida.mem, t, y, yp);
            QCOMPARE_LE(std::abs(NV_Ith_S(y, 0) - std::exp(-t)), 1e-7);
            QCOMPARE_LE(std::abs(NV_Ith_S(yp, 0) + std::exp(-t)), 1e-5);
            QCOMPARE_LE(std::abs(NV_Ith_S(y, 1) - t), 1e-12);
        }
        N_VDestroy(y);
        N_VDestroy(yp);
    }

    // Values moved by d(t) = c (t - tc)^2 (c = 1e-3, 2e-3 in the two components, tc inside the
    // last step): read back at every point and, d being a polynomial of a degree the history
    // holds, anywhere in the last step, value and slope, and in IDA's own interpolant at tn.
    void movesTheValuesItKeeps() {
        Ida ida;
        ida.steps(40);
        const IdaHistory h = historyOf(ida.mem);
        QVERIFY(h.points >= 4);   // the polynomial holds degree 2
        const double tc = 0.5 * (h.t[0] + h.t[1]);
        const auto d = [&](double t, int k) { return (k + 1) * 1e-3 * (t - tc) * (t - tc); };
        const auto dd = [&](double t, int k) { return (k + 1) * 2e-3 * (t - tc); };
        std::vector<N_Vector> before, move;
        N_Vector y = N_VClone(ida.y), yp = N_VClone(ida.y);
        for (int i = 0; i < h.points; ++i) {
            const double t = h.t[static_cast<std::size_t>(i)];
            before.push_back(N_VClone(ida.y));
            N_Vector ypi = N_VClone(ida.y);
            historyAt(ida.mem, t, before.back(), ypi);
            N_VDestroy(ypi);
            move.push_back(N_VClone(ida.y));
            NV_Ith_S(move.back(), 0) = d(t, 0);
            NV_Ith_S(move.back(), 1) = d(t, 1);
        }
        N_Vector y0 = N_VClone(ida.y), yp0 = N_VClone(ida.y);
        const double mid = tc + 0.25 * (h.t[0] - h.t[1]);
        historyAt(ida.mem, mid, y0, yp0);
        shiftHistory(ida.mem, h, move.data());
        for (int i = 0; i < h.points; ++i) {
            const double t = h.t[static_cast<std::size_t>(i)];
            historyAt(ida.mem, t, y, yp);
            for (int k = 0; k < 2; ++k)
                QCOMPARE_LE(std::abs(NV_Ith_S(y, k) - NV_Ith_S(before[static_cast<std::size_t>(i)], k) - d(t, k)), 1e-14);
        }
        historyAt(ida.mem, mid, y, yp);
        for (int k = 0; k < 2; ++k) {
            QCOMPARE_LE(std::abs(NV_Ith_S(y, k) - NV_Ith_S(y0, k) - d(mid, k)), 1e-14);
            QCOMPARE_LE(std::abs(NV_Ith_S(yp, k) - NV_Ith_S(yp0, k) - dd(mid, k)), 1e-10);
        }
        IDAGetDky(ida.mem, h.t[0], 0, y);
        QCOMPARE_LE(std::abs(NV_Ith_S(y, 0) - NV_Ith_S(before[0], 0) - d(h.t[0], 0)), 1e-14);
        for (N_Vector v : before) N_VDestroy(v);
        for (N_Vector v : move) N_VDestroy(v);
        for (N_Vector v : {y, yp, y0, yp0}) N_VDestroy(v);
    }
};

QTEST_GUILESS_MAIN(TestIdaHistory)
#include "tst_ida_history.moc"
