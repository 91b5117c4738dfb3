// SPDX-License-Identifier: GPL-3.0-or-later
// Renaming a parameter inside expression text (core/expr/expression.hpp's grammar), for "rename a
// parameter and update its uses". Only whole-name tokens that the parser reads as a parameter
// reference are replaced:
//   renameName("2*k + k2", "k", "q")      -> "2*q + k2"      (not part of another name)
//   renameName("5 m + m", "m", "len")     -> "5 m + len"     (not a unit suffix after a number)
//   renameName("sqrt(sqrt)", "sqrt", "r") -> "sqrt(sqrt)"    (a function name is never a parameter)
// Everything else (spacing, other tokens) is kept byte for byte. The unit
// suffix after a number is delimited exactly as the parser does (longest candidate Unit::parse
// accepts). Text that does not parse is still processed token by token.
#pragma once

#include <string>
#include <string_view>

namespace endstop::core::expr {

std::string renameName(std::string_view expression, std::string_view from, std::string_view to);

// true if renameName would change something: the expression refers to `name`
bool refersTo(std::string_view expression, std::string_view name);

}   // namespace endstop::core::expr
