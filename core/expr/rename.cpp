// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/expr/rename.hpp"

#include "core/units/unit.hpp"

#include <vector>

namespace endstop::core::expr {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }
bool isUnitChar(char c) { return isNameChar(c) || static_cast<unsigned char>(c) >= 0x80; }

constexpr std::string_view kFunctions[] = {"sqrt", "exp", "log", "sin", "cos", "tan", "abs", "min", "max"};

// The lexer of expression.cpp, reduced to token boundaries.
class Scanner {
public:
    explicit Scanner(std::string_view text) : m_text(text) {}

    // The end of the number literal starting at p, its unit suffix included.
    std::size_t literalEnd(std::size_t p) const {
        while (p < m_text.size() && isDigit(m_text[p])) ++p;
        if (p < m_text.size() && m_text[p] == '.') ++p;
        while (p < m_text.size() && isDigit(m_text[p])) ++p;
        p = exponentEnd(p);
        return unitEnd(p);
    }

    // The end of the name at p, and whether it is called (a '(' follows after whitespace).
    std::size_t nameEnd(std::size_t p, bool& call) const {
        while (p < m_text.size() && isNameChar(m_text[p])) ++p;
        std::size_t q = p;
        while (q < m_text.size() && isSpace(m_text[q])) ++q;
        call = q < m_text.size() && m_text[q] == '(';
        return p;
    }

private:
    std::size_t exponentEnd(std::size_t p) const {
        if (p >= m_text.size() || (m_text[p] != 'e' && m_text[p] != 'E')) return p;
        std::size_t q = p + 1;
        if (q < m_text.size() && (m_text[q] == '+' || m_text[q] == '-')) ++q;
        if (q >= m_text.size() || !isDigit(m_text[q])) return p;   // "2 em" is not an exponent
        while (q < m_text.size() && isDigit(m_text[q])) ++q;
        return q;
    }

    // After a number: the longest unit candidate Unit::parse accepts; else the first word (the
    // text does not parse, and that word is no reference either).
    std::size_t unitEnd(std::size_t p) const {
        std::size_t start = p;
        while (start < m_text.size() && isSpace(m_text[start])) ++start;
        if (start >= m_text.size() || !isUnitChar(m_text[start]) || isDigit(m_text[start])) return p;
        const std::vector<std::size_t> ends = runEnds(start);
        for (auto end = ends.rbegin(); end != ends.rend(); ++end) {
            std::string candidate(m_text.substr(start, *end - start));
            for (char& c : candidate)
                if (isSpace(c)) c = ' ';
            try {
                (void)Unit::parse(candidate);
                return *end;
            } catch (const UnitError&) {
            }
        }
        return ends.front();
    }

    std::vector<std::size_t> runEnds(std::size_t p) const {
        std::vector<std::size_t> ends;
        int depth = 0;
        for (;;) {
            const char c = p < m_text.size() ? m_text[p] : '\0';
            std::size_t q = p + 1;
            if (isUnitChar(c) && !isDigit(c)) {
                while (q < m_text.size() && isUnitChar(m_text[q])) ++q;
            } else if (c == '^') {
                q = powerEnd(p + 1);
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
            while (p < m_text.size() && isSpace(m_text[p])) ++p;
        }
        return ends;
    }

    std::size_t powerEnd(std::size_t p) const {
        while (p < m_text.size() && isSpace(m_text[p])) ++p;
        if (p < m_text.size() && m_text[p] == '-') ++p;
        const std::size_t digits = p;
        while (p < m_text.size() && isDigit(m_text[p])) ++p;
        if (p == digits || (p < m_text.size() && (m_text[p] == '.' || isUnitChar(m_text[p])))) return 0;
        return p;
    }

    std::string_view m_text;
};

bool isFunction(std::string_view name) {
    for (std::string_view f : kFunctions)
        if (f == name) return true;
    return false;
}

}  // namespace

std::string renameName(std::string_view text, std::string_view from, std::string_view to) {
    const Scanner scan(text);
    std::string out;
    out.reserve(text.size());
    std::size_t p = 0;
    while (p < text.size()) {
        const char c = text[p];
        const bool number = isDigit(c) || (c == '.' && p + 1 < text.size() && isDigit(text[p + 1]));
        if (number) {
            const std::size_t end = scan.literalEnd(p);
            out.append(text.substr(p, end - p));
            p = end;
        } else if (isNameStart(c)) {
            bool call = false;
            const std::size_t end = scan.nameEnd(p, call);
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

}  // namespace endstop::core::expr
