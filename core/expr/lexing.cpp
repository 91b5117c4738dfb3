// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/expr/lexing.hpp"

#include <string>
#include <vector>

namespace endstop::core::expr::lexing {

namespace {

// End of "[ws] [-] digits" at `p` if nothing numeric continues it ("^2.5" is not), else 0.
std::size_t powerEnd(std::string_view text, std::size_t p) {
    while (p < text.size() && isSpace(text[p])) ++p;
    if (p < text.size() && text[p] == '-') ++p;
    const std::size_t digits = p;
    while (p < text.size() && isDigit(text[p])) ++p;
    if (p == digits || (p < text.size() && (text[p] == '.' || isUnitChar(text[p])))) return 0;
    return p;
}

// Ends of the candidate units starting at `p`, ascending; the first ends after one word.
std::vector<std::size_t> runEnds(std::string_view text, std::size_t p) {
    std::vector<std::size_t> ends;
    int depth = 0;
    for (;;) {
        const char c = p < text.size() ? text[p] : '\0';
        std::size_t q = p + 1;
        if (isUnitChar(c) && !isDigit(c)) {
            while (q < text.size() && isUnitChar(text[q])) ++q;
        } else if (c == '^') {
            q = powerEnd(text, p + 1);
            if (q == 0) break;
        } else if (c == '(') {
            ++depth;
        } else if (c == ')' && depth > 0) {
            --depth;
        } else if (c != '*' && c != '/') {
            break;
        }
        if (depth == 0 && c != '*' && c != '/' && c != '(') ends.push_back(q);
        p = q;
        while (p < text.size() && isSpace(text[p])) ++p;
    }
    return ends;
}

}   // namespace

std::size_t numberEnd(std::string_view text, std::size_t p) {
    while (p < text.size() && isDigit(text[p])) ++p;
    if (p < text.size() && text[p] == '.') ++p;
    while (p < text.size() && isDigit(text[p])) ++p;
    if (p >= text.size() || (text[p] != 'e' && text[p] != 'E')) return p;
    std::size_t q = p + 1;
    if (q < text.size() && (text[q] == '+' || text[q] == '-')) ++q;
    if (q >= text.size() || !isDigit(text[q])) return p;   // "2 em" is not an exponent
    while (q < text.size() && isDigit(text[q])) ++q;
    return q;
}

std::optional<UnitSuffix> unitSuffix(std::string_view text, std::size_t p) {
    std::size_t start = p;
    while (start < text.size() && isSpace(text[start])) ++start;
    if (start >= text.size() || !isUnitChar(text[start]) || isDigit(text[start])) return std::nullopt;
    const std::vector<std::size_t> ends = runEnds(text, start);
    for (auto end = ends.rbegin(); end != ends.rend(); ++end) {
        std::string candidate(text.substr(start, *end - start));
        for (char& c : candidate)
            if (isSpace(c)) c = ' ';   // Unit::parse knows ' ' and '\t' only
        try {
            return UnitSuffix{start, *end, Unit::parse(candidate)};
        } catch (const UnitError&) {}
    }
    return UnitSuffix{start, ends.front(), std::nullopt};
}

}   // namespace endstop::core::expr::lexing
