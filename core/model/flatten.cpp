// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/flatten.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <set>

namespace endstop::core::model {

namespace {

// Deeper nesting or dependency chains are refused: the recursion stays far from the stack's end.
constexpr std::size_t kMaxDepth = 256;
// Instances multiply: 30 levels of two instances each would be a billion blocks. A flat model
// larger than this is refused before it eats the memory.
constexpr std::size_t kMaxBlocks = 200'000;

[[noreturn]] void fail(const std::string& block, const std::string& param, const std::string& message,
                       const std::string& subsystem = {}) {
    throw HierarchyError(Diagnostic{Severity::Error, block, {}, param, message, {}}, subsystem);
}

std::string names(const std::vector<ParameterDef>& defs) {
    std::string out;
    for (const ParameterDef& d : defs) out += (out.empty() ? "" : ", ") + d.name;
    return out.empty() ? "none" : out;
}

std::string evaluationError(const std::string& text, const std::string& why) { return "\"" + text + "\": " + why; }

}   // namespace

std::optional<expr::Value> Scope::lookup(std::string_view name) const {
    if (const auto it = m_values.find(name); it != m_values.end()) return it->second;
    return m_outer ? m_outer->lookup(name) : std::nullopt;
}

void evaluateParameters(const std::vector<ParameterDef>& defs, Scope& into, const std::string& where,
                        const std::map<std::string, expr::Value>& given, const std::string& block) {
    std::map<std::string, const ParameterDef*, std::less<>> byName;
    for (const ParameterDef& d : defs)
        if (!byName.emplace(d.name, &d).second) fail(block, d.name, "duplicate parameter name (" + where + ")");
    std::map<std::string, int, std::less<>> state;   // 1: being evaluated, 2: done
    std::vector<std::string> chain;
    std::function<void(const ParameterDef&)> visit = [&](const ParameterDef& d) {
        if (state[d.name] == 2) return;
        if (state[d.name] == 1) {
            std::string cycle;
            for (auto it = std::find(chain.begin(), chain.end(), d.name); it != chain.end(); ++it)
                cycle += *it + " -> ";
            fail(block, d.name, "parameters depend on each other in a cycle: " + cycle + d.name + " (" + where + ")");
        }
        if (const auto g = given.find(d.name); g != given.end()) {
            into.set(d.name, g->second);
            state[d.name] = 2;
            return;
        }
        state[d.name] = 1;
        chain.push_back(d.name);
        if (chain.size() > kMaxDepth)
            fail(block, d.name,
                 "parameters depend on each other more than " + std::to_string(kMaxDepth) + " deep (" + where + ")");
        try {
            const expr::Expression e = expr::Expression::parse(d.value);
            for (const std::string& n : e.names())
                if (const auto it = byName.find(n); it != byName.end()) visit(*it->second);
            into.set(d.name, e.evaluate(into.lookupFunction()));
        } catch (const expr::ExprError& e) {
            fail(block, d.name, evaluationError(d.value, e.what()) + " (" + where + ")");
        }
        chain.pop_back();
        state[d.name] = 2;
    };
    for (const ParameterDef& d : defs) visit(d);
}

ParamValue resolveValue(const ParamValue& value, const ParamDesc& desc, const Scope& scope) {
    const auto* text = std::get_if<std::string>(&value);
    if (!text || desc.type != ParamType::Real) return value;
    try {
        const expr::Expression e = expr::Expression::parse(*text);
        const expr::Value v = e.evaluate(scope.lookupFunction());
        const bool bareNumber = e.plainQuantity() && v.dim.dimensionless();
        if (!desc.anyDimension && !bareNumber && v.dim != desc.unit.dimension)
            throw expr::ExprError("has dimension " + v.dim.toString() + ", expected " + desc.unit.dimension.toString() +
                                  " (e.g. " + Unit::si(desc.unit.dimension).display() + ")");
        return v.si;
    } catch (const expr::ExprError& e) {
        throw ModelError(
            Diagnostics{Diagnostic{Severity::Error, {}, {}, desc.key, evaluationError(*text, e.what()), {}}});
    }
}

// ---- ports -------------------------------------------------------------------------------------

std::optional<PortRole> portRole(std::string_view type) {
    if (type == "port:translational") return PortRole::Translational;
    if (type == "port:rotational") return PortRole::Rotational;
    if (type == "port:signal_in") return PortRole::SignalIn;
    if (type == "port:signal_out") return PortRole::SignalOut;
    return std::nullopt;
}

std::string portType(PortRole role) {
    switch (role) {
        case PortRole::Translational:
            return "port:translational";
        case PortRole::Rotational:
            return "port:rotational";
        case PortRole::SignalIn:
            return "port:signal_in";
        case PortRole::SignalOut:
            return "port:signal_out";
    }
    return {};
}

namespace {
PortDesc portDesc(const BlockSpec& b, bool outside) {
    PortDesc p;
    p.name = outside ? b.name : std::string();
    p.label = b.name;
    switch (portRole(b.type).value_or(PortRole::Translational)) {
        case PortRole::Translational:
            p.domain = Domain::Translational;
            p.unit = Unit::parse("m/s");
            break;
        case PortRole::Rotational:
            p.domain = Domain::Rotational;
            p.unit = Unit::parse("rad/s");
            break;
        case PortRole::SignalIn:
            p.domain = Domain::Signal;
            p.kind = outside ? PortKind::Input : PortKind::Output;
            break;
        case PortRole::SignalOut:
            p.domain = Domain::Signal;
            p.kind = outside ? PortKind::Output : PortKind::Input;
            break;
    }
    return p;
}
}   // namespace

PortDesc outerPort(const BlockSpec& portBlock) { return portDesc(portBlock, true); }
PortDesc innerPort(const BlockSpec& portBlock) { return portDesc(portBlock, false); }

std::vector<PortDesc> subsystemPorts(const SubsystemDef& def) {
    std::vector<PortDesc> out;
    for (const BlockSpec* b : def.ports()) out.push_back(outerPort(*b));
    return out;
}

std::vector<ParamDesc> subsystemParams(const Model& model, const SubsystemDef& def) {
    Scope top;
    try {
        evaluateParameters(model.parameters(), top, "model parameters");
    } catch (const ModelError&) {   // the mask is still described; its units fall back to none
    }
    Scope mask(&top);
    std::vector<ParamDesc> out;
    for (const ParameterDef& p : def.body.parameters()) {
        ParamDesc d;
        d.key = p.name;
        d.label = p.name;
        d.group = "Mask";
        d.help = "Parameter of subsystem " + def.name + "; default " + p.value;
        d.defaultValue = p.value;
        try {
            const expr::Value v = expr::Expression::parse(p.value).evaluate(mask.lookupFunction());
            d.unit = Unit::si(v.dim);
            mask.set(p.name, v);
        } catch (const expr::ExprError&) {}
        out.push_back(std::move(d));
    }
    return out;
}

// ---- flattening --------------------------------------------------------------------------------

namespace {

struct Override {
    ParamValue value;
    const Scope* scope;   // where it was written
};
using Overrides = std::map<std::string, Override, std::less<>>;   // relative "block.key" or "inst.key"

class Flattener {
public:
    Flattener(const Model& root, const Registry& registry) : m_root(root), m_registry(registry) {}

    Model run() {
        Scope top;
        evaluateParameters(m_root.parameters(), top, "model parameters");
        std::vector<std::string> chain;
        expand(m_root, "", top, {}, chain);
        join();
        m_out.apply(SetSimulation{m_root.simulation()});
        m_out.apply(SetPlots{m_root.plots()});
        return std::move(m_out);
    }

private:
    // prefix: "" at the top, "st1." inside instance st1
    void expand(const Model& body, const std::string& prefix, const Scope& scope, const Overrides& overrides,
                std::vector<std::string>& chain) {
        for (const BlockSpec& b : body.blocks()) {
            if (isPortType(b.type)) continue;
            if (!subsystemOf(b.type).empty())
                instance(b, prefix, scope, overrides, chain);
            else
                leaf(b, prefix, scope, overrides);
        }
        for (const Connection& c : body.connections()) connect(endpoint(c.a, prefix), endpoint(c.b, prefix));
    }

    void leaf(const BlockSpec& b, const std::string& prefix, const Scope& scope, const Overrides& overrides) {
        const std::string path = prefix + b.name;
        if (m_out.blocks().size() >= kMaxBlocks)
            fail(path, {}, "the flattened model would have more than " + std::to_string(kMaxBlocks) + " blocks");
        BlockSpec flat = b;
        flat.name = path;
        const BlockDescription* proto = prototype(b.type, path);
        for (const auto& [key, o] : overrides)
            if (key.starts_with(b.name + ".") && key.find('.', b.name.size() + 1) == std::string::npos) {
                const std::string k = key.substr(b.name.size() + 1);
                if (!proto->param(k)) fail(path, k, b.type + " has no such parameter");
                flat.params[k] = resolve(o.value, *proto->param(k), *o.scope, path);
            }
        for (auto& [key, value] : flat.params)
            if (const ParamDesc* d = proto->param(key); d && !overrides.contains(b.name + "." + key))
                value = resolve(value, *d, scope, path);
        m_out.apply(AddBlock{std::move(flat)});
    }

    void instance(const BlockSpec& b, const std::string& prefix, const Scope& scope, const Overrides& overrides,
                  std::vector<std::string>& chain) {
        const std::string path = prefix + b.name;
        const std::string name(subsystemOf(b.type));
        const SubsystemDef* def = m_root.findSubsystem(name);
        if (!def) fail(path, {}, "unknown subsystem '" + name + "'");
        if (chain.size() >= kMaxDepth)
            fail({}, {}, "subsystems nested more than " + std::to_string(kMaxDepth) + " deep, down to " + name, name);
        if (std::find(chain.begin(), chain.end(), name) != chain.end()) {
            std::string c;
            for (auto it = std::find(chain.begin(), chain.end(), name); it != chain.end(); ++it) c += *it + " -> ";
            fail(path, {}, "subsystem '" + name + "' contains itself: " + c + name, name);
        }
        checkPortsWired(*def);
        m_instances.insert(path);
        // the instance's own values and the overrides written above it, by path relative to it
        Overrides inner;
        std::map<std::string, expr::Value> mask;
        auto take = [&](const std::string& key, const ParamValue& value, const Scope* where) {
            if (key.find('.') != std::string::npos) {
                inner[key] = Override{value, where};
                return;
            }
            const auto p = std::find_if(def->body.parameters().begin(), def->body.parameters().end(),
                                        [&](const ParameterDef& d) { return d.name == key; });
            if (p == def->body.parameters().end())
                fail(
                    path, key,
                    "subsystem " + name + " has no such parameter (parameters: " + names(def->body.parameters()) + ")");
            mask[key] = maskValue(value, *p, *def, *where, path);
        };
        for (const auto& [key, value] : b.params) take(key, value, &scope);
        for (const auto& [key, o] : overrides)
            if (key.starts_with(b.name + ".")) take(key.substr(b.name.size() + 1), o.value, o.scope);
        Scope own(&scope);
        evaluateParameters(def->body.parameters(), own, "parameters of subsystem " + name, mask, path);
        chain.push_back(name);
        expand(def->body, path + ".", own, inner, chain);
        chain.pop_back();
    }

    // An instance's value for a mask parameter: its dimension must be the default's.
    expr::Value maskValue(const ParamValue& value, const ParameterDef& p, const SubsystemDef& def, const Scope& where,
                          const std::string& path) {
        Scope defaults(&where);
        std::optional<expr::Value> fallback;
        try {
            evaluateParameters(def.body.parameters(), defaults, "parameters of subsystem " + def.name);
            fallback = defaults.lookup(p.name);
        } catch (const ModelError&) {   // a default that needs the instance's values: no check
        }
        expr::Value v;
        if (const double* x = std::get_if<double>(&value)) {
            v.si = *x;
            if (fallback) v.dim = fallback->dim;
        } else if (const auto* text = std::get_if<std::string>(&value)) {
            try {
                const expr::Expression e = expr::Expression::parse(*text);
                v = e.evaluate(where.lookupFunction());
                if (fallback && e.plainQuantity() && v.dim.dimensionless()) v.dim = fallback->dim;
            } catch (const expr::ExprError& e) {
                fail(path, p.name, evaluationError(*text, e.what()));
            }
        } else {
            fail(path, p.name, "expected a number or an expression");
        }
        if (fallback && v.dim != fallback->dim)
            fail(path, p.name,
                 "has dimension " + v.dim.toString() + ", expected " + fallback->dim.toString() + " (as its default " +
                     p.value + " in subsystem " + def.name + ")");
        return v;
    }

    ParamValue resolve(const ParamValue& v, const ParamDesc& d, const Scope& scope, const std::string& path) {
        try {
            return resolveValue(v, d, scope);
        } catch (const ModelError& e) {
            fail(path, d.key, e.diagnostics().front().message);
        }
    }

    void checkPortsWired(const SubsystemDef& def) {
        if (!m_checked.insert(def.name).second) return;
        for (const BlockSpec* p : def.ports()) {
            const bool wired =
                std::any_of(def.body.connections().begin(), def.body.connections().end(),
                            [&](const Connection& c) { return c.a.block == p->name || c.b.block == p->name; });
            if (!wired)
                fail({}, {}, "subsystem '" + def.name + "': port '" + p->name + "' is not connected inside", def.name);
        }
    }

    // ---- wiring: union of endpoints; a junction is an instance's port ("st1#A") ----
    struct End {
        std::string key;
        bool junction = false;
        PortRef ref;   // a leaf block's port
    };

    End endpoint(const PortRef& r, const std::string& prefix) {
        const std::string inst = prefix.empty() ? std::string() : prefix.substr(0, prefix.size() - 1);
        if (r.port.empty()) return {inst + "#" + r.block, true, {}};   // a port of the body being expanded
        const std::string path = prefix + r.block;
        if (m_instances.contains(path)) return {path + "#" + r.port, true, {}};
        return {path + "." + r.port, false, PortRef{path, r.port}};
    }

    int id(const End& e) {
        const auto [it, added] = m_ids.emplace(e.key, static_cast<int>(m_parent.size()));
        if (added) {
            m_parent.push_back(it->second);
            m_ends.push_back(e);
        }
        return it->second;
    }
    int root(int i) {
        while (m_parent[static_cast<std::size_t>(i)] != i)
            i = m_parent[static_cast<std::size_t>(i)] =
                m_parent[static_cast<std::size_t>(m_parent[static_cast<std::size_t>(i)])];
        return i;
    }

    void connect(const End& a, const End& b) {
        if (!a.junction && !b.junction) {
            m_out.apply(Connect{Connection{a.ref, b.ref}});
            return;
        }
        m_parent[static_cast<std::size_t>(root(id(a)))] = root(id(b));
    }

    void join() {
        std::map<int, std::vector<PortRef>> classes;
        for (std::size_t i = 0; i < m_ends.size(); ++i)
            if (!m_ends[i].junction) classes[root(static_cast<int>(i))].push_back(m_ends[i].ref);
        for (const auto& [r, ends] : classes) {
            if (ends.size() < 2) continue;
            std::vector<PortRef> outputs, others;
            for (const PortRef& e : ends) (kind(e) == PortKind::Output ? outputs : others).push_back(e);
            if (outputs.size() > 1)
                fail(outputs[1].block, outputs[1].port,
                     "signal " + outputs[1].toString() + " meets another output, " + outputs[0].toString() +
                         ", through a subsystem port");
            const PortRef hub = outputs.empty() ? others.front() : outputs.front();
            if (outputs.empty() && kind(hub) == PortKind::Input) continue;   // inputs with no source stay open
            for (const PortRef& e : others) {
                if (e == hub) continue;
                try {
                    m_out.apply(Connect{Connection{hub, e}});
                } catch (const ModelError&) {   // already wired directly as well
                }
            }
        }
    }

    PortKind kind(const PortRef& r) {
        const BlockSpec* spec = m_out.find(r.block);
        if (!spec) return PortKind::Conserving;
        auto& kinds = m_portKinds[r.block];   // per block only its present ports' kinds, not a description
        if (!kinds) {
            BlockDescription b;
            try {
                b = m_registry.describe(spec->type, currentParams(*spec, m_registry));
            } catch (const Error&) {
                return PortKind::Conserving;   // the topology reports the block
            }
            kinds.emplace();
            for (const PortDesc& p : b.presentPorts()) kinds->emplace(p.name, p.kind);
        }
        const auto it = kinds->find(r.port);
        return it == kinds->end() ? PortKind::Conserving : it->second;
    }

    const BlockDescription* prototype(const std::string& type, const std::string& path) {
        auto& p = m_prototypes[type];
        if (!p) {
            if (!m_registry.find(type)) fail(path, {}, "unknown block type '" + type + "'");
            p = m_registry.describe(type);
        }
        return &*p;
    }

    const Model& m_root;
    const Registry& m_registry;
    Model m_out;
    std::set<std::string> m_checked;
    std::set<std::string> m_instances;   // paths of the instances expanded so far
    std::map<std::string, int> m_ids;
    std::vector<int> m_parent;
    std::vector<End> m_ends;
    std::map<std::string, std::optional<BlockDescription>> m_prototypes;
    std::map<std::string, std::optional<std::map<std::string, PortKind>>> m_portKinds;
};

}   // namespace

Model flatten(const Model& model, const Registry& registry) { return Flattener(model, registry).run(); }

ParamValues currentParams(const BlockSpec& spec, const Registry& registry) {
    try {
        return registry.migrated(spec.type, spec.typeVersion, spec.params);
    } catch (const ModelError& e) {
        Diagnostics named = e.diagnostics();
        for (Diagnostic& d : named) d.block = spec.name;
        throw ModelError(named);
    }
}

ParamValues evaluatedParams(const Model& model, const BlockSpec& spec, const Registry& registry) {
    ParamValues p = spec.params;
    // the editor asks for every block it draws: without a string there is nothing to evaluate
    const bool text =
        std::any_of(p.begin(), p.end(), [](const auto& kv) { return std::holds_alternative<std::string>(kv.second); });
    const BlockType* type = registry.find(spec.type);
    if (!text || !type) return p;
    Scope top;
    try {
        evaluateParameters(model.parameters(), top, "model parameters");
    } catch (const ModelError&) {}
    for (auto it = p.begin(); it != p.end();) {
        const ParamDesc* d = type->param(it->first);
        try {
            if (d) it->second = resolveValue(it->second, *d, top);
            ++it;
        } catch (const ModelError&) {
            it = p.erase(it);
        }
    }
    return p;
}

}   // namespace endstop::core::model
