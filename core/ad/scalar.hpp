// SPDX-License-Identifier: GPL-3.0-or-later
// Scalar types block equations are written over (docs/engine.md, "Unknowns, rows, Jacobians").
//
//   double    residual evaluation
//   Grad<N>   forward mode with N directions: value and N partial derivatives, for Jacobians
//   Tan<T>    one tangent over any scalar T: d/dt of a residual row (index reduction), with
//             Tan<Grad<N>> giving the Jacobian of the differentiated row
//   Sym       dependency tracking for sparsity and structural analysis: a value plus the set of
//             inputs it depends on; min/max/clamp/select depend on both branches, so a pattern
//             taken at one point covers every point
//
// Block code calls the functions of this namespace unqualified (sin, exp, min, clamp, select, ...)
// and compares with value(x) or the comparison operators, which compare values only.
#pragma once

#include <algorithm>
#include <array>
#include <bitset>
#include <cmath>

namespace endstop::core::ad {

// ---- double ----------------------------------------------------------------------------------
inline double value(double x) { return x; }
using std::abs, std::sin, std::cos, std::exp, std::log, std::sqrt, std::tanh, std::atan, std::pow;
inline double sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }

// ---- Grad<N> ---------------------------------------------------------------------------------
template <int N> struct Grad {
    double v = 0.0;
    std::array<double, N> d{};

    Grad() = default;
    Grad(double x) : v(x) {}   // NOLINT: constants convert implicitly, as doubles do
    static Grad seed(double x, int dir, double weight = 1.0) {
        Grad g(x);
        g.d[static_cast<std::size_t>(dir)] = weight;
        return g;
    }
    Grad& operator+=(const Grad& o) {
        v += o.v;
        for (int i = 0; i < N; ++i) d[i] += o.d[i];
        return *this;
    }
    Grad& operator-=(const Grad& o) {
        v -= o.v;
        for (int i = 0; i < N; ++i) d[i] -= o.d[i];
        return *this;
    }
    Grad& operator*=(const Grad& o) {
        for (int i = 0; i < N; ++i) d[i] = d[i] * o.v + v * o.d[i];
        v *= o.v;
        return *this;
    }
    Grad& operator/=(const Grad& o) {
        const double inv = 1.0 / o.v;
        for (int i = 0; i < N; ++i) d[i] = (d[i] - v * inv * o.d[i]) * inv;
        v *= inv;
        return *this;
    }
};
template <int N> Grad<N> chain(const Grad<N>& x, double fx, double dfx) {
    Grad<N> r(fx);
    for (int i = 0; i < N; ++i) r.d[i] = dfx * x.d[i];
    return r;
}
template <int N> double value(const Grad<N>& x) { return x.v; }

// ---- Tan<T> ----------------------------------------------------------------------------------
template <class T> struct Tan {
    T v{};
    T dt{};

    Tan() = default;
    Tan(double x) : v(x), dt(0.0) {}   // NOLINT
    Tan(T x, T t) : v(std::move(x)), dt(std::move(t)) {}
    Tan& operator+=(const Tan& o) {
        v += o.v;
        dt += o.dt;
        return *this;
    }
    Tan& operator-=(const Tan& o) {
        v -= o.v;
        dt -= o.dt;
        return *this;
    }
    Tan& operator*=(const Tan& o) {
        dt = dt * o.v + v * o.dt;
        v *= o.v;
        return *this;
    }
    Tan& operator/=(const Tan& o) {
        dt = (dt - v / o.v * o.dt) / o.v;
        v /= o.v;
        return *this;
    }
};
template <class T> Tan<T> chain(const Tan<T>& x, const T& fx, const T& dfx) { return {fx, dfx * x.dt}; }
template <class T> double value(const Tan<T>& x) { return value(x.v); }

// ---- Sym -------------------------------------------------------------------------------------
struct Sym {
    static constexpr int kMaxInputs = 128;
    double v = 0.0;
    std::bitset<kMaxInputs> deps;
    bool nonlinear = false;   // some operation made the derivative depend on the inputs' values
    bool time = false;        // depends on the time (a coefficient of an input that varies)

    Sym() = default;
    Sym(double x) : v(x) {}   // NOLINT
    Sym(double x, std::bitset<kMaxInputs> m, bool nl = false) : v(x), deps(m), nonlinear(nl) {}
    static Sym ofTime(double t) {
        Sym s(t);
        s.time = true;
        return s;
    }
    Sym& operator+=(const Sym& o) { return add(o, 1.0); }
    Sym& operator-=(const Sym& o) { return add(o, -1.0); }
    Sym& operator*=(const Sym& o) {
        nonlinear = nonlinear || o.nonlinear || (deps.any() && (o.deps.any() || o.time)) || (time && o.deps.any());
        v *= o.v;
        deps |= o.deps;
        time = time || o.time;
        return *this;
    }
    Sym& operator/=(const Sym& o) {
        nonlinear = nonlinear || o.nonlinear || o.deps.any() || (o.time && deps.any());
        v /= o.v;
        deps |= o.deps;
        time = time || o.time;
        return *this;
    }
    // Set when block code looked at the value of something that depends on the inputs (a
    // comparison, min/max, abs, sign): the equations branch on the state, so their Jacobian is
    // not constant even if every branch is linear. Reset and read by the structural analysis.
    static bool& valueInspected() {
        static thread_local bool flag = false;
        return flag;
    }

private:
    Sym& add(const Sym& o, double sign) {
        v += sign * o.v;
        deps |= o.deps;
        nonlinear = nonlinear || o.nonlinear;
        time = time || o.time;
        return *this;
    }
};
inline Sym chain(const Sym& x, double fx, double /*dfx*/) {
    Sym r(fx, x.deps, x.nonlinear || x.deps.any());
    r.time = x.time;
    return r;
}
inline double value(const Sym& x) {   // a branch on the time may switch coefficients too
    if (x.deps.any() || x.time) Sym::valueInspected() = true;
    return x.v;
}

// ---- arithmetic shared by the three types ----------------------------------------------------
template <class X>
concept Active = requires(X x) {
    x.v;
}
&&!std::is_arithmetic_v<X>;

template <Active X> X operator+(X a, const X& b) { return a += b; }
template <Active X> X operator-(X a, const X& b) { return a -= b; }
template <Active X> X operator*(X a, const X& b) { return a *= b; }
template <Active X> X operator/(X a, const X& b) { return a /= b; }
template <Active X> X operator+(X a, double b) { return a += X(b); }
template <Active X> X operator-(X a, double b) { return a -= X(b); }
template <Active X> X operator*(X a, double b) { return a *= X(b); }
template <Active X> X operator/(X a, double b) { return a /= X(b); }
template <Active X> X operator+(double a, const X& b) { return X(a) += b; }
template <Active X> X operator-(double a, const X& b) { return X(a) -= b; }
template <Active X> X operator*(double a, const X& b) { return X(a) *= b; }
template <Active X> X operator/(double a, const X& b) { return X(a) /= b; }
template <Active X> X operator-(const X& a) { return X(0.0) -= a; }
template <Active X> X operator+(const X& a) { return a; }

template <Active X> bool operator<(const X& a, const X& b) { return value(a) < value(b); }
template <Active X> bool operator>(const X& a, const X& b) { return value(a) > value(b); }
template <Active X> bool operator<=(const X& a, const X& b) { return value(a) <= value(b); }
template <Active X> bool operator>=(const X& a, const X& b) { return value(a) >= value(b); }
template <Active X> bool operator<(const X& a, double b) { return value(a) < b; }
template <Active X> bool operator>(const X& a, double b) { return value(a) > b; }
template <Active X> bool operator<=(const X& a, double b) { return value(a) <= b; }
template <Active X> bool operator>=(const X& a, double b) { return value(a) >= b; }
template <Active X> bool operator<(double a, const X& b) { return a < value(b); }
template <Active X> bool operator>(double a, const X& b) { return a > value(b); }
template <Active X> bool operator<=(double a, const X& b) { return a <= value(b); }
template <Active X> bool operator>=(double a, const X& b) { return a >= value(b); }

// ---- elementary functions: f(x) with f'(x), lifted through chain() ---------------------------
#define ENDSTOP_AD_UNARY(name, fexpr, dexpr)                      \
    template <int N> Grad<N> name(const Grad<N>& x) {             \
        const double u = x.v;                                     \
        return chain(x, fexpr, dexpr);                            \
    }                                                             \
    inline Sym name(const Sym& x) {                               \
        const double u = x.v;                                     \
        return chain(x, fexpr, 0.0);                              \
    }                                                             \
    template <class T> Tan<T> name(const Tan<T>& x) {             \
        using std::sin, std::cos, std::exp, std::sqrt, std::tanh; \
        const T& u = x.v;                                         \
        return chain(x, T(fexpr), T(dexpr));                      \
    }
ENDSTOP_AD_UNARY(sin, sin(u), cos(u))
ENDSTOP_AD_UNARY(cos, cos(u), -sin(u))
ENDSTOP_AD_UNARY(exp, exp(u), exp(u))
ENDSTOP_AD_UNARY(log, log(u), 1.0 / u)
ENDSTOP_AD_UNARY(sqrt, sqrt(u), 0.5 / sqrt(u))
ENDSTOP_AD_UNARY(tanh, tanh(u), 1.0 - tanh(u) * tanh(u))
ENDSTOP_AD_UNARY(atan, atan(u), 1.0 / (1.0 + u * u))
#undef ENDSTOP_AD_UNARY

template <Active X> X abs(const X& x) { return value(x) < 0 ? -x : x; }
template <Active X> X pow(const X& x, int n) {
    X r(1.0);
    for (int i = 0; i < std::abs(n); ++i) r *= x;
    return n < 0 ? X(1.0) / r : r;
}
// sign() is piecewise constant: zero derivative, but a dependency for structure
template <Active X> X sign(const X& x) { return x * 0.0 + ad::sign(value(x)); }

// Piecewise selections. For Sym both branches count, so structure covers every branch.
template <class X> X select(bool cond, const X& a, const X& b) { return cond ? a : b; }
inline Sym select(bool cond, const Sym& a, const Sym& b) {
    Sym r(cond ? a.v : b.v, a.deps | b.deps, a.nonlinear || b.nonlinear);
    r.time = a.time || b.time;
    return r;
}
template <class X> X min(const X& a, const X& b) { return select(value(a) <= value(b), a, b); }
template <class X> X max(const X& a, const X& b) { return select(value(a) >= value(b), a, b); }
template <class X> X clamp(const X& x, const X& lo, const X& hi) { return min(max(x, lo), hi); }
template <Active X> X min(const X& a, double b) { return min(a, X(b)); }
template <Active X> X max(const X& a, double b) { return max(a, X(b)); }
template <Active X> X min(double a, const X& b) { return min(X(a), b); }
template <Active X> X max(double a, const X& b) { return max(X(a), b); }
inline double min(double a, double b) { return std::min(a, b); }
inline double max(double a, double b) { return std::max(a, b); }
inline double clamp(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }

}   // namespace endstop::core::ad
