// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/expr/rename.hpp"

#include "core/expr/lexing.hpp"

#include <optional>

namespace endstop::core::expr {

namespace {

using lexing::isDigit;
using lexing::isNameChar;
using lexing::isNameStart;
using lexing::isSpace;

constexpr std::string_view kFunctions[] = {"sqrt", "exp", "log", "sin", "cos", "tan", "abs", "min", "max"};

// The end of the number literal starting at p, its unit suffix included as the parser delimits it
// (a word that is no unit ends there too: the text does not parse, and that word is no reference).
std::size_t literalEnd(std::string_view text, std::size_t p) {
    const std::size_t end = lexing::numberEnd(text, p);
    const std::optional<lexing::UnitSuffix> suffix = lexing::unitSuffix(text, end);
    return suffix ? suffix->end : end;
}

// The end of the name at p, and whether it is called (a '(' follows after whitespace).
std::size_t nameEnd(std::string_view text, std::size_t p, bool& call) {
    while (p < text.size() && isNameChar(text[p])) ++p;
    std::size_t q = p;
    while (q < text.size() && isSpace(text[q])) ++q;
    call = q < text.size() && text[q] == '(';
    return p;
}

bool isFunction(std::string_view name) {
    for (std::string_view f : kFunctions)
        if (f == name) return true;
    return false;
}

}   // namespace

std::string renameName(std::string_view text, std::string_view from, std::string_view to) {
    std::string out;
    out.reserve(text.size());
    std::size_t p = 0;
    while (p < text.size()) {
        const char c = text[p];
        const bool number = isDigit(c) || (c == '.' && p + 1 < text.size() && isDigit(text[p + 1]));
        if (number) {
            const std::size_t end = literalEnd(text, p);
            out.append(text.substr(p, end - p));
            p = end;
        } else if (isNameStart(c)) {
            bool call = false;
            const std::size_t end = nameEnd(text, p, call);
            const std::string_view name = text.substr(p, end - p);
            const bool reference = name == from && !(call || isFunction(name)) && name != "pi";
            out.append(reference ? to : name);
            p = end;
        } else {
            out.push_back(c);
            ++p;
        }
    }
    return out;
}

bool refersTo(std::string_view expression, std::string_view name) {
    return renameName(expression, name, std::string(name) + "\x01") != expression;
}

}   // namespace endstop::core::expr
