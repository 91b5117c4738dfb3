// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/expr/expression.hpp"

#include "core/expr/lexing.hpp"

#include "core/text/quote.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <numbers>

namespace endstop::core::expr {
namespace {

enum class Func { Sqrt, Exp, Log, Sin, Cos, Tan, Abs, Min, Max };

struct FuncInfo {
    std::string_view name;
    Func func;
    bool variadic;   // min, max: two or more arguments; the others take one
};

constexpr std::array<FuncInfo, 9> kFunctions{{{"sqrt", Func::Sqrt, false},
                                              {"exp", Func::Exp, false},
                                              {"log", Func::Log, false},
                                              {"sin", Func::Sin, false},
                                              {"cos", Func::Cos, false},
                                              {"tan", Func::Tan, false},
                                              {"abs", Func::Abs, false},
                                              {"min", Func::Min, true},
                                              {"max", Func::Max, true}}};

struct Node {
    enum class Kind { Literal, Pi, Name, Negate, Chain, Power, Call };
    Kind kind = Kind::Literal;
    Value value;                               // Literal, in SI
    std::string name;                          // Name; the function of a Call
    Func func = Func::Abs;                     // Call
    std::vector<std::unique_ptr<Node>> args;   // Negate: 1, Power: base and exponent, Chain, Call: n
    std::string ops;                           // Chain: ops[i] joins args[i] (i >= 1) to the left
    bool parenthesized = false;                // written as '(' expr ')'
};
using NodePtr = std::unique_ptr<Node>;

NodePtr makeNode(Node::Kind kind) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    return n;
}

using lexing::isDigit;
using lexing::isNameChar;
using lexing::isNameStart;
using lexing::isSpace;
using lexing::isUnitChar;

}   // namespace

struct Expression::Tree {
    std::string text;
    NodePtr root;
    std::vector<std::string> names;
    bool plain = false;
};

namespace {

// Recursive descent over the characters of the text; the grammar is in the header. Recursion
// happens only through unary(), which counts the depth.
class Parser {
public:
    explicit Parser(std::string_view text) : m_text(text) {}

    NodePtr parse() {
        if (m_text.size() > kMaxLength)
            fail(kMaxLength, "text is too long (at most " + std::to_string(kMaxLength) + " bytes)");
        NodePtr root = sum();
        skipSpace();
        if (!atEnd()) fail(m_pos, "expected an operator, got " + here());
        return root;
    }
    std::vector<std::string> takeNames() { return std::move(m_names); }

private:
    NodePtr sum() { return chain("+-", &Parser::product); }
    NodePtr product() { return chain("*/", &Parser::unary); }

    NodePtr chain(std::string_view ops, NodePtr (Parser::*next)()) {
        NodePtr first = (this->*next)();
        NodePtr list;
        for (;;) {
            skipSpace();
            if (atEnd() || ops.find(peek()) == std::string_view::npos) return list ? std::move(list) : std::move(first);
            const char op = m_text[m_pos++];
            if (!list) {
                list = makeNode(Node::Kind::Chain);
                list->args.push_back(std::move(first));
                list->ops.push_back(' ');
            }
            list->args.push_back((this->*next)());
            list->ops.push_back(op);
        }
    }

    NodePtr unary() {
        if (++m_depth > kMaxDepth) fail(m_pos, "nested more than " + std::to_string(kMaxDepth) + " deep");
        skipSpace();
        NodePtr result;
        if (!atEnd() && peek() == '-') {
            ++m_pos;
            result = makeNode(Node::Kind::Negate);
            result->args.push_back(unary());
        } else {
            result = power();
        }
        --m_depth;
        return result;
    }

    NodePtr power() {
        NodePtr base = primary();
        skipSpace();
        if (atEnd() || peek() != '^') return base;
        ++m_pos;
        NodePtr p = makeNode(Node::Kind::Power);
        p->args.push_back(std::move(base));
        p->args.push_back(unary());
        return p;
    }

    NodePtr primary() {
        skipSpace();
        const char c = atEnd() ? '\0' : peek();
        if (isDigit(c) || (c == '.' && m_pos + 1 < m_text.size() && isDigit(m_text[m_pos + 1]))) return literal();
        if (isNameStart(c)) return word();
        if (c != '(') fail(m_pos, "expected a number, a name or '(', got " + here());
        const std::size_t open = m_pos++;
        NodePtr inner = sum();
        close(open);
        inner->parenthesized = true;
        return inner;
    }

    NodePtr literal() {
        const std::size_t start = m_pos;
        m_pos = lexing::numberEnd(m_text, start);
        NodePtr n = makeNode(Node::Kind::Literal);
        const auto [ptr, ec] = std::from_chars(m_text.data() + start, m_text.data() + m_pos, n->value.si);
        if (ec != std::errc{} || ptr != m_text.data() + m_pos)
            fail(start, quoteText(m_text.substr(start, m_pos - start)) + " is out of the range of a double");
        if (const std::optional<lexing::UnitSuffix> suffix = lexing::unitSuffix(m_text, m_pos)) {
            if (!suffix->unit)
                fail(suffix->start, quoteText(m_text.substr(suffix->start, suffix->end - suffix->start)) +
                                        " is not a unit (a name after a number needs an operator, e.g. '*')");
            m_pos = suffix->end;
            n->value = Value{suffix->unit->toSI(n->value.si), suffix->unit->dimension};
            if (!std::isfinite(n->value.si))
                fail(start, quoteText(m_text.substr(start, m_pos - start)) + " is out of the range of a double in SI");
        }
        return n;
    }

    // A parameter name, pi or a function call.
    NodePtr word() {
        const std::size_t start = m_pos;
        while (!atEnd() && isNameChar(peek())) ++m_pos;
        const std::string name(m_text.substr(start, m_pos - start));
        const std::size_t afterName = m_pos;
        skipSpace();
        const bool call = !atEnd() && peek() == '(';
        for (const FuncInfo& f : kFunctions)
            if (f.name == name) {
                if (!call) fail(afterName, "expected '(' after the function " + quoteText(name));
                return arguments(f, start);
            }
        if (call) fail(start, "unknown function " + quoteText(name));
        m_pos = afterName;
        if (name == "pi") return makeNode(Node::Kind::Pi);
        if (std::find(m_names.begin(), m_names.end(), name) == m_names.end()) m_names.push_back(name);
        NodePtr n = makeNode(Node::Kind::Name);
        n->name = name;
        return n;
    }

    NodePtr arguments(const FuncInfo& f, std::size_t start) {
        const std::size_t open = m_pos++;
        NodePtr n = makeNode(Node::Kind::Call);
        n->name = f.name;
        n->func = f.func;
        for (;;) {
            n->args.push_back(sum());
            skipSpace();
            if (atEnd() || peek() != ',') break;
            ++m_pos;
        }
        close(open);
        const std::size_t count = n->args.size();
        if (!f.variadic && count != 1)
            fail(start, std::string(f.name) + " takes 1 argument, got " + std::to_string(count));
        if (f.variadic && count < 2) fail(start, std::string(f.name) + " takes 2 or more arguments, got 1");
        return n;
    }

    void close(std::size_t open) {
        skipSpace();
        if (atEnd() || peek() != ')')
            fail(m_pos, "expected ')' to close '(' at column " + std::to_string(column(open)) + ", got " + here());
        ++m_pos;
    }

    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek() const { return m_text[m_pos]; }
    void skipSpace() {
        while (!atEnd() && isSpace(peek())) ++m_pos;
    }
    // the character at the current position, quoted, for "got ..."
    std::string here() const {
        if (atEnd()) return "the end";
        std::size_t end = m_pos + 1;
        while (end < m_text.size() && (static_cast<unsigned char>(m_text[end]) & 0xC0) == 0x80) ++end;
        return quoteText(m_text.substr(m_pos, end - m_pos));
    }
    std::size_t column(std::size_t pos) const {
        std::size_t col = 1;
        for (std::size_t i = 0; i < pos && i < m_text.size(); ++i)
            if ((static_cast<unsigned char>(m_text[i]) & 0xC0) != 0x80) ++col;   // count UTF-8 characters
        return col;
    }
    [[noreturn]] void fail(std::size_t pos, const std::string& what) const {
        throw ExprError("column " + std::to_string(column(pos)) + ": " + what);
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    int m_depth = 0;
    std::vector<std::string> m_names;
};

// ---- evaluation --------------------------------------------------------------------------

std::string dims(const Value& a, const Value& b) { return a.dim.toString() + " and " + b.dim.toString(); }

double finite(double v, const std::string& what) {
    if (!std::isfinite(v)) throw ExprError(what + " is not finite");
    return v;
}

Dimension inRange(const std::optional<Dimension>& d, const std::string& what) {
    if (!d) throw ExprError(what + ": dimension exponent out of range (at most 24 in magnitude)");
    return *d;
}

Value binary(char op, const Value& a, const Value& b) {
    const std::string what = std::string("'") + op + "' of ";
    const std::string numbers = what + formatNumber(a.si) + " and " + formatNumber(b.si);
    switch (op) {
        case '+':
        case '-':
            if (a.dim != b.dim) throw ExprError(what + dims(a, b) + ": dimensions differ");
            return {finite(op == '+' ? a.si + b.si : a.si - b.si, numbers), a.dim};
        case '*':
            return {finite(a.si * b.si, numbers), inRange(Dimension::multiply(a.dim, b.dim), what + dims(a, b))};
        default:
            if (b.si == 0.0) throw ExprError("division by zero");
            return {finite(a.si / b.si, numbers), inRange(Dimension::divide(a.dim, b.dim), what + dims(a, b))};
    }
}

Value power(const Value& x, Value y) {
    if (!y.dim.dimensionless())
        throw ExprError("exponent of '^' has dimension " + y.dim.toString() + ", expected it dimensionless");
    Dimension d;
    if (!x.dim.dimensionless()) {
        const std::string what = "'^' of " + x.dim.toString() + " with exponent " + formatNumber(y.si);
        const double n = std::round(y.si);
        if (std::abs(y.si - n) > 1e-12) throw ExprError(what + ": exponent is not an integer");
        d = inRange(std::abs(n) <= 1e3 ? Dimension::power(x.dim, static_cast<int>(n)) : std::nullopt, what);
        y.si = n;
    }
    return {finite(std::pow(x.si, y.si), "'^' of " + formatNumber(x.si) + " and " + formatNumber(y.si)), d};
}

Value squareRoot(const Value& x) {
    Dimension half;
    for (std::size_t i = 0; i < half.exponents.size(); ++i) {
        if (x.dim.exponents[i] % 2 != 0) throw ExprError("sqrt of " + x.dim.toString() + ": odd exponent");
        half.exponents[i] = static_cast<std::int8_t>(x.dim.exponents[i] / 2);
    }
    if (x.si < 0) throw ExprError("sqrt of a negative number (" + formatNumber(x.si) + ")");
    return {std::sqrt(x.si), half};
}

// exp, log, sin, cos, tan, abs of one argument
Value elementary(Func f, const std::string& name, const Value& x) {
    const bool angle = x.dim == Dimension::angle();
    if ((f == Func::Exp || f == Func::Log) && !x.dim.dimensionless())
        throw ExprError(name + " of " + x.dim.toString() + ": argument must be dimensionless");
    if ((f == Func::Sin || f == Func::Cos || f == Func::Tan) && !x.dim.dimensionless() && !angle)
        throw ExprError(name + " of " + x.dim.toString() + ": argument must be an angle or dimensionless");
    if (f == Func::Log && x.si <= 0) throw ExprError("log of a non-positive number (" + formatNumber(x.si) + ")");
    const std::string what = name + " of " + formatNumber(x.si);
    switch (f) {
        case Func::Exp:
            return {finite(std::exp(x.si), what), {}};
        case Func::Log:
            return {std::log(x.si), {}};
        case Func::Sin:
            return {std::sin(x.si), {}};
        case Func::Cos:
            return {std::cos(x.si), {}};
        case Func::Tan:
            return {finite(std::tan(x.si), what), {}};
        default:
            return {std::abs(x.si), x.dim};
    }
}

Value evaluateNode(const Node& n, const Lookup& lookup);

Value evaluateCall(const Node& n, const Lookup& lookup) {
    Value result = evaluateNode(*n.args.front(), lookup);
    if (n.func == Func::Sqrt) return squareRoot(result);
    if (n.func != Func::Min && n.func != Func::Max) return elementary(n.func, n.name, result);
    for (std::size_t i = 1; i < n.args.size(); ++i) {
        const Value v = evaluateNode(*n.args[i], lookup);
        if (v.dim != result.dim) throw ExprError(n.name + " of " + dims(result, v) + ": dimensions differ");
        if (n.func == Func::Min ? v.si < result.si : v.si > result.si) result = v;
    }
    return result;
}

Value lookUp(const std::string& name, const Lookup& lookup) {
    const std::optional<Value> v = lookup ? lookup(name) : std::nullopt;
    if (!v) throw ExprError("unknown name " + quoteText(name));
    if (!std::isfinite(v->si)) throw ExprError("value of " + quoteText(name) + " is not finite");
    return *v;
}

// Recursion follows the tree, whose depth the parser bounded (kMaxDepth); chains are loops.
Value evaluateNode(const Node& n, const Lookup& lookup) {
    switch (n.kind) {
        case Node::Kind::Literal:
            return n.value;
        case Node::Kind::Pi:
            return {std::numbers::pi, {}};
        case Node::Kind::Name:
            return lookUp(n.name, lookup);
        case Node::Kind::Negate: {
            const Value v = evaluateNode(*n.args.front(), lookup);
            return {-v.si, v.dim};
        }
        case Node::Kind::Power:
            return power(evaluateNode(*n.args[0], lookup), evaluateNode(*n.args[1], lookup));
        case Node::Kind::Call:
            return evaluateCall(n, lookup);
        case Node::Kind::Chain:
            break;
    }
    Value acc = evaluateNode(*n.args.front(), lookup);
    for (std::size_t i = 1; i < n.args.size(); ++i) acc = binary(n.ops[i], acc, evaluateNode(*n.args[i], lookup));
    return acc;
}

bool isPlainLiteral(const Node& n) { return n.kind == Node::Kind::Literal && !n.parenthesized; }

}   // namespace

Expression Expression::parse(std::string_view text) {
    auto tree = std::make_shared<Tree>();
    tree->text = std::string(text);
    Parser parser(tree->text);
    tree->root = parser.parse();
    tree->names = parser.takeNames();
    const Node& root = *tree->root;
    tree->plain = isPlainLiteral(root) ||
                  (root.kind == Node::Kind::Negate && !root.parenthesized && isPlainLiteral(*root.args.front()));
    return Expression(std::move(tree));
}

const std::string& Expression::text() const { return m_tree->text; }
std::vector<std::string> Expression::names() const { return m_tree->names; }
bool Expression::plainQuantity() const { return m_tree->plain; }

Value Expression::evaluate(const Lookup& lookup) const {
    const Value v = evaluateNode(*m_tree->root, lookup);
    if (!std::isfinite(v.si)) throw ExprError("result is not finite");
    return v;
}

Value evaluateAs(std::string_view text, const Dimension& expected, const Lookup& lookup) {
    const Value v = Expression::parse(text).evaluate(lookup);
    if (v.dim != expected) throw ExprError("has dimension " + v.dim.toString() + ", expected " + expected.toString());
    return v;
}

}   // namespace endstop::core::expr
