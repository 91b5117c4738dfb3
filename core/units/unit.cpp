// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/units/unit.hpp"

#include "core/text/quote.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numbers>

namespace endstop::core {
namespace {

struct Named {
    std::string_view symbol;
    Dimension dimension;
    double scale;
};

constexpr double kPi = std::numbers::pi;
// Limits that keep hostile text from crashing or wrapping (docs/reliability.md): parentheses nest
// at most this deep (the parser recurses), an exponent is at most this large in magnitude, and no
// base dimension of a result may exceed it (exponents are stored in 8 bits).
constexpr int kMaxDepth = 32;
constexpr int kMaxExponent = 24;
const Dimension L = Dimension::length(), M = Dimension::mass(), T = Dimension::time(), A = Dimension::angle();
const Dimension kForce = M * L / T.pow(2);

const std::vector<Named>& symbols() {
    static const std::vector<Named> table = {
        {"m", L, 1.0},
        {"mm", L, 1e-3},
        {"cm", L, 1e-2},
        {"km", L, 1e3},
        {"um", L, 1e-6},
        {"µm", L, 1e-6},
        {"s", T, 1.0},
        {"ms", T, 1e-3},
        {"us", T, 1e-6},
        {"min", T, 60.0},
        {"h", T, 3600.0},
        {"kg", M, 1.0},
        {"g", M, 1e-3},
        {"t", M, 1e3},
        {"N", kForce, 1.0},
        {"kN", kForce, 1e3},
        {"mN", kForce, 1e-3},
        {"rad", A, 1.0},
        {"deg", A, kPi / 180},
        {"°", A, kPi / 180},
        {"rev", A, 2 * kPi},
        {"rpm", A / T, 2 * kPi / 60},
        {"Hz", T.pow(-1), 1.0},
        {"W", kForce * L / T, 1.0},
        {"kW", kForce * L / T, 1e3},
        {"J", kForce * L, 1.0},
        {"kJ", kForce * L, 1e3},
        {"mJ", kForce * L, 1e-3},
        // imperial (exact by definition): products such as lbf*in and oz*in^2 are parsed
        {"in", L, 0.0254},
        {"ft", L, 0.3048},
        {"lb", M, 0.45359237},
        {"oz", M, 0.028349523125},
        {"lbf", kForce, 4.4482216152605},
    };
    return table;
}

class Parser {
public:
    explicit Parser(std::string_view text) : m_text(text) {}

    Unit parse() {
        skipSpace();
        Unit u = expression();
        skipSpace();
        if (m_pos != m_text.size()) fail("unexpected " + quoteText(m_text.substr(m_pos, 1)));
        u.symbol = std::string(trimmed(m_text));
        return u;
    }

private:
    Unit expression() {
        Unit acc = term();
        for (;;) {
            const std::size_t before = m_pos;
            const bool hadSpace = skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] == ')') {
                m_pos = before;
                return acc;
            }
            char op = '*';
            if (m_text[m_pos] == '*' || m_text[m_pos] == '/')
                op = m_text[m_pos++];
            else if (atMiddleDot())
                m_pos += 2;
            else if (!hadSpace)
                fail("expected '*' or '/' before " + quoteText(m_text.substr(m_pos, 1)));
            skipSpace();
            const Unit rhs = term();
            acc.dimension = checked(op == '/' ? Dimension::divide(acc.dimension, rhs.dimension)
                                              : Dimension::multiply(acc.dimension, rhs.dimension));
            acc.scale = checked(op == '/' ? acc.scale / rhs.scale : acc.scale * rhs.scale);
        }
    }

    Unit term() {
        Unit base = atom();
        const std::size_t afterAtom = m_pos;
        skipSpace();
        if (m_pos >= m_text.size() || m_text[m_pos] != '^') {
            m_pos = afterAtom;   // a space here may be the product operator of "N m"
        } else {
            ++m_pos;
            skipSpace();
            int n = 0;
            const char* first = m_text.data() + m_pos;
            const auto [ptr, ec] = std::from_chars(first, m_text.data() + m_text.size(), n);
            if (ec == std::errc::result_out_of_range || (ec == std::errc{} && (n > kMaxExponent || n < -kMaxExponent)))
                fail("exponent out of range (at most " + std::to_string(kMaxExponent) + " in magnitude)");
            if (ec != std::errc{}) fail("expected an integer exponent after '^'");
            m_pos += static_cast<std::size_t>(ptr - first);
            base.dimension = checked(Dimension::power(base.dimension, n));
            base.scale = checked(std::pow(base.scale, n));
        }
        return base;
    }

    Unit atom() {
        if (m_pos >= m_text.size()) fail("expected a unit");
        if (m_text[m_pos] == '(') {
            if (++m_depth > kMaxDepth) fail("parentheses nested more than " + std::to_string(kMaxDepth) + " deep");
            ++m_pos;
            skipSpace();
            Unit inner = expression();
            --m_depth;
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != ')') fail("missing ')'");
            ++m_pos;
            return inner;
        }
        if (m_text[m_pos] == '1') {
            ++m_pos;
            return Unit{{}, Dimension::none(), 1.0};
        }
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() && isSymbolChar(m_text[m_pos]) && !atMiddleDot()) ++m_pos;
        const std::string_view name = m_text.substr(start, m_pos - start);
        if (name.empty()) fail("unexpected " + quoteText(m_text.substr(m_pos, 1)));
        for (const Named& n : symbols())
            if (n.symbol == name) return Unit{std::string(name), n.dimension, n.scale};
        fail("unknown unit " + quoteText(name));
    }

    bool atMiddleDot() const { return m_text.substr(m_pos, 2) == "\xC2\xB7"; }   // U+00B7 in UTF-8
    static bool isSymbolChar(char c) {
        const auto u = static_cast<unsigned char>(c);
        return std::isalpha(u) || u >= 0x80;   // letters and the UTF-8 bytes of µ and °
    }
    bool skipSpace() {
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t')) ++m_pos;
        return m_pos != start;
    }
    static std::string_view trimmed(std::string_view s) {
        while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
        return s;
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw UnitError("bad unit " + quoteText(trimmed(m_text)) + ": " + what);
    }
    Dimension checked(const std::optional<Dimension>& d) const {
        if (!d) fail("dimension exponent out of range (at most " + std::to_string(kMaxExponent) + " in magnitude)");
        return *d;
    }
    double checked(double scale) const {
        if (!std::isfinite(scale) || scale == 0.0) fail("scale factor out of the range of a double");
        return scale;
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    int m_depth = 0;
};

}   // namespace

namespace {
template <class F> std::optional<Dimension> combine(F&& exponent) {
    Dimension r;
    for (std::size_t i = 0; i < r.exponents.size(); ++i) {
        const long e = exponent(i);
        if (std::abs(e) > kMaxExponent) return std::nullopt;
        r.exponents[i] = static_cast<std::int8_t>(e);
    }
    return r;
}
Dimension orThrow(const std::optional<Dimension>& d) {
    if (!d)
        throw UnitError("dimension exponent out of range (at most " + std::to_string(kMaxExponent) + " in magnitude)");
    return *d;
}
}   // namespace

std::optional<Dimension> Dimension::multiply(const Dimension& a, const Dimension& b) {
    return combine([&](std::size_t i) { return long{a.exponents[i]} + b.exponents[i]; });
}

std::optional<Dimension> Dimension::divide(const Dimension& a, const Dimension& b) {
    return combine([&](std::size_t i) { return long{a.exponents[i]} - b.exponents[i]; });
}

std::optional<Dimension> Dimension::power(const Dimension& a, int n) {
    if (n > kMaxExponent || n < -kMaxExponent) return std::nullopt;
    return combine([&](std::size_t i) { return long{a.exponents[i]} * n; });
}

Dimension Dimension::operator*(const Dimension& o) const { return orThrow(multiply(*this, o)); }
Dimension Dimension::operator/(const Dimension& o) const { return orThrow(divide(*this, o)); }
Dimension Dimension::pow(int n) const { return orThrow(power(*this, n)); }

std::string Dimension::toString() const {
    static constexpr std::array<const char*, 4> kBase = {"m", "kg", "s", "rad"};
    std::string num, den;
    for (std::size_t i : {1u, 0u, 3u, 2u}) {   // kg, m, rad, s reads most naturally
        const int e = exponents[i];
        if (e == 0) continue;
        std::string& side = e > 0 ? num : den;
        if (!side.empty()) side += '*';
        side += kBase[i];
        if (std::abs(e) != 1) side += '^' + std::to_string(std::abs(e));
    }
    if (num.empty()) num = "1";
    if (den.find('*') != std::string::npos) den = "(" + den + ")";   // a/b*c would read as (a/b)*c
    return den.empty() ? num : num + "/" + den;
}

Unit Unit::parse(std::string_view text) { return Parser(text).parse(); }

Unit Unit::si(const Dimension& d) {
    // the symbols are parsed once; results are looked up by dimension afterwards
    static const std::vector<Unit> known = [] {
        std::vector<Unit> v;
        for (const char* sym : {"m", "kg", "s", "rad", "N", "N*m", "m/s", "rad/s", "m/s^2", "rad/s^2", "N/m", "N*m/rad",
                                "N*s/m", "N*m*s/rad", "kg*m^2", "W", "Hz"})
            v.push_back(parse(sym));
        return v;
    }();
    for (const Unit& u : known)
        if (u.dimension == d) return u;
    return Unit{d.dimensionless() ? std::string() : d.toString(), d, 1.0};
}

Quantity parseQuantity(std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    Quantity q;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (!text.empty() && *first == '+' && text.size() > 1 && first[1] != '-') ++first;   // "+2", not "+-2"
    const auto [ptr, ec] = std::from_chars(first, last, q.value);
    if (ec == std::errc::result_out_of_range) throw UnitError(quoteText(text) + " is out of the range of a double");
    if (ec != std::errc{} || text.empty())
        throw UnitError(quoteText(text) + " is not a number (expected e.g. \"0.5\" or \"10 mm\")");
    if (!std::isfinite(q.value)) throw UnitError(quoteText(text) + " is not a finite number");
    const std::string_view rest(ptr, static_cast<std::size_t>(last - ptr));
    if (rest.find_first_not_of(' ') != std::string_view::npos) q.unit = Unit::parse(rest);
    return q;
}

double parseSI(std::string_view text, const Dimension& expected) {
    const Quantity q = parseQuantity(text);
    if (!q.unit) return q.value;
    if (q.unit->dimension != expected)
        throw UnitError("unit " + quoteText(q.unit->display()) + " has dimension " + q.unit->dimension.toString() +
                        ", expected " + expected.toString() + " (e.g. " + Unit::si(expected).display() + ")");
    return checkedSI(text, q.unit->toSI(q.value));
}

double checkedSI(std::string_view text, double si) {
    // 1e308 N*m/deg is finite as typed but not in SI: a file saved with it would hold null
    if (!std::isfinite(si)) throw UnitError(quoteText(text) + " is out of the range of a double in SI units");
    return si;
}

std::vector<Unit> compatibleUnits(const Dimension& d, const std::string& preferred) {
    static const std::vector<std::string_view> kCatalogue = {
        "m",       "mm",        "cm",      "um",        "km",       "rad",        "deg",     "rev",    "s",
        "ms",      "min",       "kg",      "g",         "N",        "kN",         "mN",      "N*m",    "N*mm",
        "kN*m",    "m/s",       "mm/s",    "km/h",      "rad/s",    "rpm",        "deg/s",   "m/s^2",  "mm/s^2",
        "rad/s^2", "deg/s^2",   "N/m",     "N/mm",      "kN/m",     "N*m/rad",    "N*m/deg", "N*s/m",  "N*s/mm",
        "kN*s/m",  "N*m*s/rad", "N*m/rpm", "N*m*s/deg", "kg*m^2",   "g*cm^2",     "kg*mm^2", "W",      "kW",
        "J",       "kJ",        "Hz",      "1/s",       "N/s",      "in",         "ft",      "lb",     "lbf",
        "lbf*in",  "in/s",      "ft/s",    "lbf/in",    "lbf*s/in", "lbf*in/deg", "oz*in^2", "lb*in^2"};
    std::vector<Unit> out;
    auto add = [&](const Unit& u) {
        for (const Unit& have : out)
            if (have.symbol == u.symbol) return;
        out.push_back(u);
    };
    if (!preferred.empty()) {
        const Unit p = Unit::parse(preferred);
        if (p.dimension == d) add(p);
    }
    add(Unit::si(d));
    for (std::string_view sym : kCatalogue) {
        const Unit u = Unit::parse(sym);
        if (u.dimension == d) add(u);
    }
    return out;
}

char* writeNumber(char* first, double value) {
    // the shortest round-trip form of a double takes at most 24 characters ("-2.2250738585072014e-308")
    const auto [ptr, ec] = std::to_chars(first, first + kMaxNumberChars, value);
    if (ec == std::errc{}) return ptr;
    constexpr std::string_view nan = "nan";
    return std::copy(nan.begin(), nan.end(), first);
}

std::string formatNumber(double value) {
    char buf[kMaxNumberChars];
    return std::string(buf, writeNumber(buf, value));
}

}   // namespace endstop::core
