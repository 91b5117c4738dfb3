// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/blockapi/descriptor.hpp"
#include "core/blockapi/diagnostic.hpp"
#include "core/blockapi/event_ctx.hpp"

#include <algorithm>
#include <cmath>

namespace endstop::core {

const char* toString(Domain d) {
    switch (d) {
        case Domain::Translational:
            return "translational";
        case Domain::Rotational:
            return "rotational";
        case Domain::Signal:
            return "signal";
    }
    return "?";
}

const char* toString(Severity s) {
    switch (s) {
        case Severity::Info:
            return "info";
        case Severity::Warning:
            return "warning";
        case Severity::Error:
            return "error";
    }
    return "?";
}

const char* toString(EventKind k) {
    switch (k) {
        case EventKind::Impact:
            return "impact";
        case EventKind::Contact:
            return "contact";
        case EventKind::Release:
            return "release";
        case EventKind::Lock:
            return "lock";
        case EventKind::Unlock:
            return "unlock";
        case EventKind::Bound:
            return "bound";
        case EventKind::Time:
            return "time";
        case EventKind::Engage:
            return "engage";
        case EventKind::Disengage:
            return "disengage";
    }
    return "?";
}

std::string toString(const ParamValue& v) {
    if (const double* x = std::get_if<double>(&v)) return formatNumber(*x);
    if (const auto* xs = std::get_if<std::vector<double>>(&v)) {
        std::string s = "[";
        for (std::size_t i = 0; i < xs->size(); ++i) s += (i ? " " : "") + formatNumber((*xs)[i]);
        return s + "]";
    }
    return std::get<std::string>(v);
}

void appendKey(std::string& key, std::string_view name, const ParamValue& v) {
    const auto text = [&key](std::string_view s) {
        key += std::to_string(s.size());
        key += ':';
        key += s;
    };
    const auto numbers = [&key](const double* x, std::size_t n) {
        key += std::to_string(n);
        key += '#';
        key.append(reinterpret_cast<const char*>(x), n * sizeof(double));
    };
    text(name);
    if (const double* x = std::get_if<double>(&v)) {
        numbers(x, 1);
    } else if (const auto* xs = std::get_if<std::vector<double>>(&v)) {
        key += 'v';
        numbers(xs->data(), xs->size());
    } else {
        key += 's';
        text(std::get<std::string>(v));
    }
}

std::string ParamDesc::rangeError(double x) const {
    const bool low = minExclusive ? !(x > min) : !(x >= min), high = maxExclusive ? !(x < max) : !(x <= max);
    if (!low && !high) return {};   // most calls: no message to build
    const std::string u = unit.symbol.empty() ? "" : " " + Unit::si(unit.dimension).display();
    if (low)
        return std::string("must be ") + (minExclusive ? "> " : ">= ") + formatNumber(min) + u + ", got " +
               formatNumber(x) + u;
    return std::string("must be ") + (maxExclusive ? "< " : "<= ") + formatNumber(max) + u + ", got " +
           formatNumber(x) + u;
}

std::string ParamDesc::valueError(const ParamValue& v) const {
    if (const double* x = std::get_if<double>(&v))
        return std::isfinite(*x) ? rangeError(*x) : "must be a finite number";
    if (const auto* xs = std::get_if<std::vector<double>>(&v))
        for (double element : *xs) {
            if (!std::isfinite(element)) return "all elements must be finite";
            if (std::string e = rangeError(element); !e.empty()) return "every element " + e;
        }
    return {};
}

bool isVisible(const std::optional<Visibility>& rule, const ParamValues& values, const std::vector<ParamDesc>& params) {
    return isVisibleBy(rule, params, [&](std::size_t i) -> const ParamValue* {
        const auto it = values.find(params[i].key);
        return it != values.end() && std::holds_alternative<std::string>(it->second) ? &it->second
                                                                                     : &params[i].defaultValue;
    });
}

bool connectable(PortKind ka, Domain da, PortKind kb, Domain db) {
    return (ka == PortKind::Conserving) == (kb == PortKind::Conserving) && da == db;
}

std::string differentDomains(std::string_view a, Domain da, std::string_view b, Domain db) {
    return "cannot connect " + std::string(a) + " (" + toString(da) + ") to " + std::string(b) + " (" + toString(db) +
           "): different domains";
}

std::string Diagnostic::text() const {
    std::string where;
    if (!block.empty()) where += "block '" + block + "'";
    if (!port.empty()) where += (where.empty() ? "" : ", ") + std::string("port '") + port + "'";
    if (!param.empty()) where += (where.empty() ? "" : ", ") + std::string("parameter '") + param + "'";
    std::string s = where.empty() ? message : where + ": " + message;
    if (!hint.empty()) s += " (" + hint + ")";
    return s;
}

bool hasErrors(const Diagnostics& d) {
    return std::any_of(d.begin(), d.end(), [](const Diagnostic& x) { return x.severity == Severity::Error; });
}

}   // namespace endstop::core
