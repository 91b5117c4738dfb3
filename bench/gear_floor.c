/*
 * A hand-written SUNDIALS IDA program for the benchmark gear train (model d, bench/models.cpp):
 * the floor the engine's smooth-law target is measured against (docs/engine.md, "Events IDA steps
 * over"). Eleven inertias with viscous losses, a sine torque on the first, and between each pair an
 * ideal gear and a backlash stop, written by hand as y' - f(t, y) = 0 in 22 unknowns (angle and
 * speed of each inertia). The gear's output node carries no inertia, so the stop's torque T acts on
 * the next inertia and, divided by the ratio, on the one before:
 *
 *     J w_i' = tau(t)[i = 0] - c w_i - T_i / r + T_(i-1),   x_i = phi_i / r - phi_(i+1)
 *
 * Laws (docs/blocks.md, "Hard stop"): full_damped F = K p + D p'; smooth
 * F = s(u) (K p + clamp(D p', -K p, K p)), s = u^2 (3 - 2u), u = min(p / delta, 1).
 *
 * Handling: "events" locates every place where the force is not smooth (the bounds, and for the
 * smooth law the two clamp corners) with IDA's root finding and restarts IDA there, as a
 * hand-written program does; "through" (smooth law only) has no root functions and integrates the
 * law from the current values straight through its corners.
 *
 *   gear_floor --law smooth|full_damped [--handling events|through] [--rtol 1e-6] [--atol 1e-8]
 *
 * Prints one line of JSON: steps, error-test failures, restarts, and the last inertia's angle and
 * speed (to check the model against endstop-batch). Dense linear solver, IDA's difference-quotient
 * Jacobian: at 22 unknowns the Jacobian's cost does not matter here, only the steps.
 */
#include <ida/ida.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

enum { kStages = 10, kInertias = kStages + 1, kUnknowns = 2 * kInertias };

typedef struct {
    int smooth;           /* 1: smooth law, 0: full_damped */
    int located;          /* 1: modes from the discretes below, 0: from the current values */
    int contact[kStages]; /* +1 upper bound, -1 lower bound, 0 free */
    int clamp[kStages];   /* smooth law in contact: +1 damping clamped at +Kp, 0 free, -1 at -Kp */
} Train;

static const double kJ = 0.01, kLoss = 0.02, kRatio = 1.1, kBound = 0.02, kK = 1e4, kD = 2.0, kDelta = 1e-3,
                    kAmplitude = 20.0, kFrequency = 2.0, kEnd = 2.0;

/* relative angle and speed of stop i (R on the gear's output, C on the next inertia) */
static void relative(const double* y, int i, double* x, double* v) {
    *x = y[2 * i] / kRatio - y[2 * i + 2];
    *v = y[2 * i + 1] / kRatio - y[2 * i + 3];
}

/* the force of one contact from its penetration p and rate q, in the given clamp mode */
static double contactForce(const Train* T, double p, double q, int clamp) {
    if (!T->smooth) return kK * p + kD * q;
    const double u = fmin(fmax(p / kDelta, 0.0), 1.0), s = u * u * (3.0 - 2.0 * u);
    const double spring = kK * p;
    double damping = kD * q;
    if (clamp > 0)
        damping = spring;
    else if (clamp < 0)
        damping = -spring;
    else if (!T->located)
        damping = fmin(fmax(damping, -spring), spring);
    return s * (spring + damping);
}

/* the torque stop i passes from R to C (positive at the upper bound) */
static double stopTorque(const Train* T, int i, double x, double v) {
    int side = T->contact[i];
    if (!T->located) side = x > kBound ? 1 : (x < -kBound ? -1 : 0);
    if (side > 0) return contactForce(T, x - kBound, v, T->clamp[i]);
    if (side < 0) return -contactForce(T, -kBound - x, -v, T->clamp[i]);
    return 0.0;
}

static void rates(const Train* T, double t, const double* y, double* f) {
    double torque[kStages];
    for (int i = 0; i < kStages; ++i) {
        double x, v;
        relative(y, i, &x, &v);
        torque[i] = stopTorque(T, i, x, v);
    }
    for (int i = 0; i < kInertias; ++i) {
        double tau = -kLoss * y[2 * i + 1];
        if (i == 0) tau += kAmplitude * sin(2.0 * M_PI * kFrequency * t);
        if (i < kStages) tau -= torque[i] / kRatio;
        if (i > 0) tau += torque[i - 1];
        f[2 * i] = y[2 * i + 1];
        f[2 * i + 1] = tau / kJ;
    }
}

static int residual(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, void* data) {
    const double *y = N_VGetArrayPointer(yy), *p = N_VGetArrayPointer(yp);
    double *r = N_VGetArrayPointer(rr), f[kUnknowns];
    rates((const Train*)data, t, y, f);
    for (int k = 0; k < kUnknowns; ++k) r[k] = p[k] - f[k];
    return 0;
}

/* per stop: the two bounds, and (smooth law) the clamp corners D q - K p and D q + K p of the
   contact it is in; a function that watches nothing stays at 1 */
enum { kRootsPerStop = 4 };

static int roots(sunrealtype t, N_Vector yy, N_Vector yp, sunrealtype* g, void* data) {
    const Train* T = (const Train*)data;
    const double* y = N_VGetArrayPointer(yy);
    (void)t;
    (void)yp;
    for (int i = 0; i < kStages; ++i) {
        double x, v;
        relative(y, i, &x, &v);
        double* gi = g + kRootsPerStop * i;
        gi[0] = x - kBound;
        gi[1] = -kBound - x;
        gi[2] = gi[3] = 1.0;
        if (T->smooth && T->contact[i] != 0) {
            const double p = T->contact[i] > 0 ? x - kBound : -kBound - x, q = T->contact[i] > 0 ? v : -v;
            gi[2] = kD * q - kK * p;
            gi[3] = kD * q + kK * p;
        }
    }
    return 0;
}

/* the modes after a root, from the direction each function crossed zero in */
static void settle(Train* T, const int* found) {
    for (int i = 0; i < kStages; ++i) {
        const int* f = found + kRootsPerStop * i;
        if (f[0] > 0) T->contact[i] = 1, T->clamp[i] = 1; /* touches the upper bound, p' > 0 */
        if (f[1] > 0) T->contact[i] = -1, T->clamp[i] = 1;
        if ((f[0] < 0 && T->contact[i] > 0) || (f[1] < 0 && T->contact[i] < 0)) T->contact[i] = 0, T->clamp[i] = 0;
        if (T->contact[i] == 0) continue;
        if (f[2] < 0 && T->clamp[i] > 0) T->clamp[i] = 0; /* D p' falls below K p */
        if (f[2] > 0 && T->clamp[i] == 0) T->clamp[i] = 1;
        if (f[3] < 0 && T->clamp[i] == 0) T->clamp[i] = -1; /* D p' falls below -K p */
        if (f[3] > 0 && T->clamp[i] < 0) T->clamp[i] = 0;
    }
}

static long counter(void* mem, int (*get)(void*, long*)) {
    long n = 0;
    get(mem, &n);
    return n;
}

int main(int argc, char** argv) {
    const char *law = "smooth", *handling = "events";
    double rtol = 1e-6, atol = 1e-8;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--law"))
            law = argv[i + 1];
        else if (!strcmp(argv[i], "--handling"))
            handling = argv[i + 1];
        else if (!strcmp(argv[i], "--rtol"))
            rtol = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--atol"))
            atol = atof(argv[i + 1]);
        else {
            fprintf(stderr, "gear_floor: unknown flag %s\n", argv[i]);
            return 2;
        }
    }
    Train T;
    memset(&T, 0, sizeof T);
    T.smooth = !strcmp(law, "smooth");
    T.located = strcmp(handling, "through") != 0;
    if ((!T.smooth && strcmp(law, "full_damped")) || (!T.located && !T.smooth) ||
        (T.located && strcmp(handling, "events"))) {
        fprintf(stderr, "gear_floor: --law smooth|full_damped, --handling events|through (through: smooth only)\n");
        return 2;
    }

    SUNContext ctx;
    SUNContext_Create(NULL, &ctx);
    N_Vector y = N_VNew_Serial(kUnknowns, ctx), yp = N_VNew_Serial(kUnknowns, ctx);
    N_VConst(0.0, y);
    rates(&T, 0.0, N_VGetArrayPointer(y), N_VGetArrayPointer(yp));
    void* mem = IDACreate(ctx);
    IDAInit(mem, residual, 0.0, y, yp);
    IDASStolerances(mem, rtol, atol);
    IDASetUserData(mem, &T);
    IDASetStopTime(mem, kEnd);
    IDASetMaxNumSteps(mem, 10000000);
    if (T.located) IDARootInit(mem, kRootsPerStop * kStages, roots);
    SUNMatrix A = SUNDenseMatrix(kUnknowns, kUnknowns, ctx);
    SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
    IDASetLinearSolver(mem, LS, A);

    long steps = 0, fails = 0, restarts = 0, roots_met = 0;
    int found[kRootsPerStop * kStages];
    double t = 0.0;
    for (;;) {
        const int flag = IDASolve(mem, kEnd, &t, y, yp, IDA_NORMAL);
        if (flag < 0) {
            fprintf(stderr, "gear_floor: IDASolve failed (%d) at t = %g\n", flag, t);
            return 1;
        }
        steps += counter(mem, IDAGetNumSteps);
        fails += counter(mem, IDAGetNumErrTestFails);
        if (flag != IDA_ROOT_RETURN || t >= kEnd) break;
        IDAGetRootInfo(mem, found);
        for (int k = 0; k < kRootsPerStop * kStages; ++k) roots_met += found[k] != 0;
        settle(&T, found);
        rates(&T, t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp));
        IDAReInit(mem, t, y, yp); /* its counters start again: summed above */
        ++restarts;
    }
    const double* Y = N_VGetArrayPointer(y);
    printf(
        "{\"law\": \"%s\", \"handling\": \"%s\", \"rtol\": %g, \"atol\": %g, \"steps\": %ld, "
        "\"error_test_fails\": %ld, \"roots\": %ld, \"restarts\": %ld, \"t\": %.17g, "
        "\"j10.phi\": %.17g, \"j10.w\": %.17g}\n",
        law, handling, rtol, atol, steps, fails, roots_met, restarts, t, Y[2 * kStages], Y[2 * kStages + 1]);
    IDAFree(&mem);
    SUNLinSolFree(LS);
    SUNMatDestroy(A);
    N_VDestroy(y);
    N_VDestroy(yp);
    SUNContext_Free(&ctx);
    return 0;
}
