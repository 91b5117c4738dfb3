// SPDX-License-Identifier: GPL-3.0-or-later
// Expressions for named model parameters, evaluated in SI with dimension checking.
//
// Grammar (whitespace, tabs and newlines anywhere between tokens):
//   expr    := product (('+' | '-') product)*        left-associative
//   product := unary (('*' | '/') unary)*            left-associative
//   unary   := '-' unary | power                     -2^2 = -(2^2) = -4
//   power   := primary ('^' unary)?                  right-associative: 2^3^2 = 2^9, 2^-1 = 0.5
//   primary := literal | name | 'pi' | function '(' expr (',' expr)* ')' | '(' expr ')'
//   literal := number unit?                          number: 123, 1.5, .5, 1e-3, 2.5E+4
//   name    := [A-Za-z_][A-Za-z0-9_]*                a parameter, looked up when evaluated
//   function: sqrt exp log sin cos tan abs (one argument); min max (two or more). log is ln.
//
// Unit suffix. A unit attaches only to a number literal, when the number is followed (after
// optional whitespace) by a word: a run of letters, digits, '_' and non-ASCII bytes (µ, °, ·)
// that does not start with a digit. From there the unit run is the longest sequence of such words,
// '*', '/', '^' with an integer ("^2", "^-1"), '(' and ')' (never closing one it did not open),
// with whitespace between them. Its candidates are the prefixes that end at a token boundary with
// balanced parentheses, tried longest first; the first that Unit::parse accepts is the unit. If
// none does, the text is rejected: a name never directly follows a number. The literal and its
// unit form one primary, binding tighter than every operator:
//   "400 N/m"     400 N/m              "2*400 N/m"   2 * (400 N/m) = 800 N/m
//   "1e6 N*m/deg" "300 rpm"            "1/2 m"       1 / (2 m)
//   "2*k_base"    2 times parameter k_base ('*' after a number never starts a unit)
//   "5 mm + gap"  5 mm plus parameter gap ('+' is not part of a unit)
//   "2 g"         2 grams: after a number a unit symbol wins over a name; "2*g" is 2 times g
//   "2 m * g"     2 m*g (metre-grams), since a unit may contain " * "; "(2 m)*g" is 2 m times g
//
// Dimensions (evaluation throws ExprError naming the operation and the dimensions):
//   a + b, a - b, min, max   equal dimensions
//   a * b, a / b             dimensions multiply / divide; b = 0 is "division by zero"
//   x ^ y                    y dimensionless; if x has a dimension, y must be an integer (within
//                            1e-12) and the resulting exponents stay within [-24, 24]
//   sqrt                     even exponents, halved; argument >= 0
//   exp, log                 dimensionless; log needs a positive argument
//   sin, cos, tan            dimensionless or angle (rad, deg): sin(30 deg) = 0.5
//   abs                      keeps the dimension;  pi is dimensionless
// Every intermediate and the result must be finite, else ExprError naming the operation.
//
// Limits against hostile text: at most kMaxLength bytes and kMaxDepth levels of nesting
// (parentheses, calls, unary minus, '^'); sums and products are flat lists, so a long chain
// "a+b+c+..." costs no recursion. Parse errors read "column N: what was expected" (1-based,
// counted in characters).
#pragma once

#include "core/units/unit.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace endstop::core::expr {

inline constexpr std::size_t kMaxLength = 4096;
inline constexpr int kMaxDepth = 64;

struct Value {
    double si = 0.0;   // in the coherent SI unit of dim
    Dimension dim;
};

class ExprError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The value of a parameter name, or nullopt if there is no such parameter.
using Lookup = std::function<std::optional<Value>(std::string_view name)>;

// A parsed expression: immutable, cheap to copy (the syntax tree is shared).
class Expression {
public:
    static Expression parse(std::string_view text);   // throws ExprError "column N: ..."

    const std::string& text() const;
    // Parameter names referenced (not functions, not pi, not unit symbols), distinct, in order of
    // first appearance.
    std::vector<std::string> names() const;
    // Throws ExprError: "unknown name 'x'", "'+' of m and kg: dimensions differ", ...
    // An empty lookup knows no names.
    Value evaluate(const Lookup& lookup) const;
    // Just a number with an optional unit and an optional leading '-': "10 mm", "-0.5", "1e4 N/m";
    // not "(10 mm)", "-(5)", "pi" or "2*3".
    bool plainQuantity() const;

private:
    struct Tree;   // the text, the syntax tree, the names and whether it is a plain quantity
    explicit Expression(std::shared_ptr<const Tree> tree) : m_tree(std::move(tree)) {}
    std::shared_ptr<const Tree> m_tree;
};

// Expression::parse(text).evaluate(lookup), whose dimension must be `expected`; throws ExprError
// "has dimension <got>, expected <expected>" (Dimension::toString) otherwise.
Value evaluateAs(std::string_view text, const Dimension& expected, const Lookup& lookup);

}   // namespace endstop::core::expr
