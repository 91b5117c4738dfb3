// SPDX-License-Identifier: GPL-3.0-or-later
// The token boundaries of the expression grammar (core/expr/expression.hpp) that more than one
// reader needs: the parser, and renameName(), which must delimit a number's unit suffix exactly
// as the parser does.
#pragma once

#include "core/units/unit.hpp"

#include <cstddef>
#include <optional>
#include <string_view>

namespace endstop::core::expr::lexing {

inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
inline bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }
// a character of a unit word: a name character or a byte of a UTF-8 sequence (µ, °, ·)
inline bool isUnitChar(char c) { return isNameChar(c) || static_cast<unsigned char>(c) >= 0x80; }

// The end of the number literal starting at p: digits, an optional '.', digits and an exponent
// ("2 em" has none).
std::size_t numberEnd(std::string_view text, std::size_t p);

// The unit after a number ending at p (the rule is in expression.hpp). nullopt if no word follows;
// else where the word starts and, if some candidate run parses, the longest one's end and unit;
// if none does, `unit` is empty and `end` closes the first word.
struct UnitSuffix {
    std::size_t start = 0, end = 0;
    std::optional<Unit> unit;
};
std::optional<UnitSuffix> unitSuffix(std::string_view text, std::size_t p);

}   // namespace endstop::core::expr::lexing
