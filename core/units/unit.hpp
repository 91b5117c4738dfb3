// SPDX-License-Identifier: GPL-3.0-or-later
// Units: SI storage, parsing and display of unit expressions.
//
// A unit is a scale to SI and a dimension over four base quantities: length (m), mass (kg),
// time (s) and plane angle (rad). Angle is kept as its own dimension so that a rotational
// stiffness in N*m/deg cannot be mistaken for a torque; it is only used to check input against a
// parameter's declared unit, not to check equations. Grammar of a unit expression:
//   expr := term (('*' | '/' | ' ' | '·') term)*      a/b*c means (a/b)*c
//   term := atom ('^' integer)?                         |integer| <= 24
//   atom := symbol | '(' expr ')' | '1'                   at most 32 parentheses deep
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace endstop::core {

struct Dimension {
    std::array<std::int8_t, 4> exponents{};   // length, mass, time, angle

    static Dimension length() { return {{1, 0, 0, 0}}; }
    static Dimension mass() { return {{0, 1, 0, 0}}; }
    static Dimension time() { return {{0, 0, 1, 0}}; }
    static Dimension angle() { return {{0, 0, 0, 1}}; }
    static Dimension none() { return {}; }

    // Products, quotients and powers; nullopt if an exponent would leave [-24, 24].
    static std::optional<Dimension> multiply(const Dimension& a, const Dimension& b);
    static std::optional<Dimension> divide(const Dimension& a, const Dimension& b);
    static std::optional<Dimension> power(const Dimension& a, int n);
    // The same for dimensions known to be in range; throw UnitError otherwise.
    Dimension operator*(const Dimension& o) const;
    Dimension operator/(const Dimension& o) const;
    Dimension pow(int n) const;
    bool operator==(const Dimension&) const = default;
    bool dimensionless() const { return *this == Dimension{}; }
    std::string toString() const;   // e.g. "kg*m/s^2"
};

class UnitError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Unit {
    std::string symbol;   // as written, e.g. "N*m/deg"; empty means dimensionless SI
    Dimension dimension;
    double scale = 1.0;   // SI value = value in this unit * scale

    static Unit parse(std::string_view text);   // throws UnitError naming the bad token
    static Unit si(const Dimension& d);         // the coherent SI unit of a dimension

    double toSI(double value) const { return value * scale; }
    double fromSI(double value) const { return value / scale; }
    std::string display() const { return symbol.empty() ? std::string("1") : symbol; }
    bool operator==(const Unit&) const = default;
};

// A number with an optional unit, as a user types it: "10 mm", "-0.1", "300 rpm", "1e6 N*m/deg".
struct Quantity {
    double value = 0.0;         // in the written unit
    std::optional<Unit> unit;   // none: the number is already SI
};
Quantity parseQuantity(std::string_view text);   // throws UnitError

// value in SI if `text` is a quantity whose unit has dimension `expected`; throws UnitError with
// "unit '<unit>' has dimension <dimension>, expected <dimension> (e.g. <si symbol>)" otherwise.
double parseSI(std::string_view text, const Dimension& expected);
// `si` if it is finite; UnitError quoting `text` otherwise.
double checkedSI(std::string_view text, double si);

// Display units offered for a dimension, most common first; always contains `preferred` if given.
std::vector<Unit> compatibleUnits(const Dimension& d, const std::string& preferred = {});

// Shortest round-trip text of a double, locale independent ("0.1", "1e-06", "1e+06", "42").
std::string formatNumber(double value);
// The same text written at `first`, which must have kMaxNumberChars bytes; returns its end. For
// writers of many numbers (CSV rows), without a string per number.
inline constexpr std::size_t kMaxNumberChars = 32;
char* writeNumber(char* first, double value);

}   // namespace endstop::core
