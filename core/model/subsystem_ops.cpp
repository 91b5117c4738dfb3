// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/subsystem_ops.hpp"

#include "core/expr/expression.hpp"
#include "core/errors.hpp"
#include "core/model/flatten.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

namespace endstop::core::model {

namespace {

constexpr double kGridStep = 10.0;
double snap(double v) { return std::round(v / kGridStep) * kGridStep; }

[[noreturn]] void fail(const std::string& message) {
    throw ModelError(Diagnostics{Diagnostic{Severity::Error, {}, {}, {}, message, {}}});
}

// Union-find over port references written as text ("block.port", or "port" for a port block)
class Nets {
public:
    std::string root(const std::string& k) {
        auto it = m_parent.find(k);
        if (it == m_parent.end()) return m_parent[k] = k;
        if (it->second == k) return k;
        return it->second = root(it->second);
    }
    void join(const std::string& a, const std::string& b) { m_parent[root(a)] = root(b); }

private:
    std::map<std::string, std::string> m_parent;
};

// The port `ref` has as seen from its level: a registered block's, an instance's or a port block's
std::optional<PortDesc> portOf(const Model& level, const Model& top, const Registry& registry, const PortRef& ref) {
    const BlockSpec* spec = level.find(ref.block);
    if (!spec) return std::nullopt;
    if (isPortType(spec->type)) return innerPort(*spec);
    if (const std::string_view sub = subsystemOf(spec->type); !sub.empty()) {
        const SubsystemDef* def = top.findSubsystem(sub);
        if (!def) return std::nullopt;
        for (const PortDesc& p : subsystemPorts(*def))
            if (p.name == ref.port) return p;
        return std::nullopt;
    }
    if (!registry.find(spec->type)) return std::nullopt;
    try {
        BlockSpec evaluated = *spec;
        evaluated.params = evaluatedParams(top, *spec, registry);
        const BlockDescription block = registry.describe(spec->type, currentParams(evaluated, registry));
        if (const int i = block.portIndex(ref.port); i >= 0) return block.ports[static_cast<std::size_t>(i)];
    } catch (const std::exception&) {}
    return std::nullopt;
}

// "blk.var" -> "inst.blk.var" (group) or back (expand), for plots that name moved blocks
std::optional<EditBatch> renamePlots(const Model& level,
                                     const std::function<std::optional<std::string>(const std::string&)>& map) {
    std::vector<PlotSpec> plots = level.plots();
    bool changed = false;
    for (PlotSpec& p : plots)
        for (std::string& s : p.signals)
            if (auto to = map(s)) {
                s = *to;
                changed = true;
            }
    if (!changed) return std::nullopt;
    return EditBatch{{SetPlots{plots}}, "plots"};
}

struct Crossing {
    PortRef inside, outside;
    std::string net;
};

std::string portName(PortRole role, const Model& body, std::map<PortRole, int>& counters) {
    const char* stem = role == PortRole::SignalIn ? "In" : role == PortRole::SignalOut ? "Out" : "P";
    for (;;) {
        std::string name = stem + std::to_string(++counters[role]);
        if (!body.find(name)) return name;
    }
}

}   // namespace

std::string uniqueSubsystemName(const Model& top, const std::string& base) {
    std::string stem = base;
    while (!stem.empty() && std::isdigit(static_cast<unsigned char>(stem.back()))) stem.pop_back();
    if (!Model::validName(stem)) stem = "Subsystem";
    for (int i = 1;; ++i)
        if (!top.findSubsystem(stem + std::to_string(i))) return stem + std::to_string(i);
}

EditBatch groupIntoSubsystem(const Model& level, const Registry& registry, const std::vector<std::string>& selection,
                             const std::string& defName, const std::string& instanceName, const Model* topModel) {
    const Model& top = topModel ? *topModel : level;
    if (selection.empty()) fail("Create Subsystem: nothing is selected");
    if (top.findSubsystem(defName)) fail("Create Subsystem: a subsystem named " + defName + " already exists");
    const std::set<std::string> sel(selection.begin(), selection.end());
    std::vector<const BlockSpec*> chosen;   // model order
    for (const BlockSpec& b : level.blocks())
        if (sel.count(b.name)) chosen.push_back(&b);
    if (chosen.size() != sel.size()) fail("Create Subsystem: a selected block does not exist");
    if (std::any_of(chosen.begin(), chosen.end(), [](const BlockSpec* b) { return isPortType(b->type); }))
        fail("Create Subsystem: a subsystem port cannot move into a new subsystem");

    double minX = 1e300, minY = 1e300, maxX = -1e300, maxY = -1e300;
    for (const BlockSpec* b : chosen) {
        minX = std::min(minX, b->ui.x), maxX = std::max(maxX, b->ui.x);
        minY = std::min(minY, b->ui.y), maxY = std::max(maxY, b->ui.y);
    }
    const double cx = snap((minX + maxX) / 2), cy = snap((minY + maxY) / 2);

    Nets nets;
    for (const Connection& c : level.connections()) nets.join(c.a.toString(), c.b.toString());
    std::vector<Crossing> crossings;
    std::vector<std::string> netOrder;
    SubsystemDef def{defName, {}};
    for (const BlockSpec* b : chosen) {
        BlockSpec moved = *b;
        moved.ui.x -= cx;
        moved.ui.y -= cy;
        def.body.apply(AddBlock{moved});
    }
    for (const Connection& c : level.connections()) {
        const bool inA = sel.count(c.a.block) > 0, inB = sel.count(c.b.block) > 0;
        if (inA && inB) def.body.apply(Connect{c});
        if (inA == inB) continue;
        Crossing x{inA ? c.a : c.b, inA ? c.b : c.a, nets.root(c.a.toString())};
        if (std::find(netOrder.begin(), netOrder.end(), x.net) == netOrder.end()) netOrder.push_back(x.net);
        crossings.push_back(std::move(x));
    }

    // one port per crossing net: its role from the ports on it, its place beside the selection
    std::map<std::string, std::string> portOfNet;
    std::map<PortRole, int> counters;
    std::set<std::pair<double, double>> taken;
    for (const std::string& net : netOrder) {
        std::optional<PortRole> role;
        bool sourceInside = false;
        double ox = 0, oy = 0;
        int outside = 0;
        for (const Crossing& x : crossings) {
            if (x.net != net) continue;
            const auto desc = portOf(level, top, registry, x.inside);
            if (desc && desc->kind == PortKind::Conserving && !role)
                role = desc->domain == Domain::Rotational ? PortRole::Rotational : PortRole::Translational;
            if (desc && desc->kind == PortKind::Output) sourceInside = true;
            if (desc && desc->kind != PortKind::Conserving && !role) role = PortRole::SignalIn;
            const BlockSpec* o = level.find(x.outside.block);
            ox += o->ui.x, oy += o->ui.y, ++outside;
        }
        if (!role) role = PortRole::Translational;   // an unknown type: keep the wire anyway
        if (*role == PortRole::SignalIn && sourceInside) role = PortRole::SignalOut;
        BlockSpec port{portName(*role, def.body, counters), portType(*role), 1, {}, {}};
        ox /= outside, oy /= outside;
        const bool left = *role == PortRole::SignalIn || (*role != PortRole::SignalOut && ox < cx);
        port.ui.x = snap((left ? minX - 80 : maxX + 80) - cx);
        port.ui.y = snap(std::clamp(oy, minY, maxY) - cy);
        while (!taken.insert({port.ui.x, port.ui.y}).second) port.ui.y += 4 * kGridStep;
        if (!left) port.ui.rotation = 180;   // its one port faces the blocks
        def.body.apply(AddBlock{port});
        portOfNet[net] = port.name;
    }
    for (const Crossing& x : crossings) {
        const Connection inner{x.inside, PortRef{portOfNet[x.net], ""}};
        const auto& have = def.body.connections();
        if (std::find(have.begin(), have.end(), inner) == have.end()) def.body.apply(Connect{inner});
    }

    EditBatch batch{{}, "create subsystem"};
    batch.edits.emplace_back(addSubsystem(def));
    if (auto plots = renamePlots(level, [&](const std::string& s) -> std::optional<std::string> {
            const auto dot = s.find('.');
            if (dot == std::string::npos || !sel.count(s.substr(0, dot))) return std::nullopt;
            return instanceName + "." + s;
        }))
        batch.edits.emplace_back(std::move(*plots));
    for (const BlockSpec* b : chosen) batch.edits.emplace_back(RemoveBlock{b->name});
    BlockSpec instance{instanceName, std::string(kSubsystemPrefix) + defName, 1, {}, {}};
    instance.ui.x = cx;
    instance.ui.y = cy;
    // where the first selected block was: the flattened model keeps the order of the equations
    batch.edits.emplace_back(AddBlock{instance, level.indexOf(chosen.front()->name)});
    std::vector<Connection> outer;
    for (const Crossing& x : crossings) {
        const Connection c{x.outside, PortRef{instanceName, portOfNet[x.net]}};
        if (std::find(outer.begin(), outer.end(), c) != outer.end()) continue;
        outer.push_back(c);
        batch.edits.emplace_back(Connect{c});
    }
    return batch;
}

std::string substituteNames(const std::string& text, const std::map<std::string, std::string>& by) {
    // 0: an operand may follow; 1: after a number literal (a word is its unit); 2: inside a unit run
    int state = 0, depth = 0;
    std::string out;
    std::size_t i = 0;
    const auto digit = [&](std::size_t k) {
        return k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]));
    };
    const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); };
    while (i < text.size()) {
        const char c = text[i];
        if (state == 0 && (digit(i) || (c == '.' && digit(i + 1)))) {
            std::size_t j = i;
            while (digit(j) || (j < text.size() && text[j] == '.')) ++j;
            if (j < text.size() && (text[j] == 'e' || text[j] == 'E') &&
                (digit(j + 1) || ((text[j + 1] == '-' || text[j + 1] == '+') && digit(j + 2)))) {
                j += 2;
                while (digit(j)) ++j;
            }
            out.append(text, i, j - i);
            i = j;
            state = 1;
            continue;
        }
        if (word(c) && !(state == 2 && digit(i))) {
            std::size_t j = i;
            while (j < text.size() && word(text[j])) ++j;
            const std::string name = text.substr(i, j - i);
            std::size_t k = j;
            while (k < text.size() && text[k] == ' ') ++k;
            const auto it = by.find(name);
            if (state != 0 || (k < text.size() && text[k] == '(') || it == by.end())
                out += name;
            else
                out += "(" + it->second + ")";
            state = state == 0 ? 0 : 2;
            i = j;
            continue;
        }
        if (state == 1 && c != ' ') state = 0;
        if (state == 2) {
            if (c == '(')
                ++depth;
            else if (c == ')' && depth > 0)
                --depth;
            else if (!(c == ' ' || c == '*' || c == '/' || c == '^' || digit(i) ||
                       (c == '-' && !out.empty() && out.back() == '^')))
                state = 0, depth = 0;
        }
        out += c;
        ++i;
    }
    return out;
}

namespace {

// The mask of `def` for one instance as expression text per name, in the instance's parent scope
std::map<std::string, std::string> maskTexts(const Model& top, const SubsystemDef& def, const BlockSpec& inst) {
    std::map<std::string, std::string> defaults, unitOf, out;
    for (const ParameterDef& p : def.body.parameters()) defaults[p.name] = p.value;
    for (const ParamDesc& d : subsystemParams(top, def)) unitOf[d.key] = d.unit.symbol;
    std::set<std::string> busy;
    std::function<std::string(const std::string&)> resolve = [&](const std::string& name) -> std::string {
        if (auto it = out.find(name); it != out.end()) return it->second;
        std::string text;
        if (auto given = inst.params.find(name); given != inst.params.end()) {
            if (const double* v = std::get_if<double>(&given->second)) {
                char buf[64];
                std::snprintf(buf, sizeof buf, "%.17g", *v);
                text = buf;
                if (!unitOf[name].empty()) text += " " + unitOf[name];
            } else {
                text = core::toString(given->second);
            }
        } else {
            if (!busy.insert(name).second) return defaults[name];   // a cycle: validation reports it
            std::map<std::string, std::string> inner;
            try {
                for (const std::string& n : expr::Expression::parse(defaults[name]).names())
                    if (defaults.count(n)) inner[n] = resolve(n);
            } catch (const expr::ExprError&) {}
            text = substituteNames(defaults[name], inner);
        }
        return out[name] = text;
    };
    for (const auto& [name, value] : defaults) resolve(name);
    return out;
}

bool isExpressionParam(const Registry& registry, const BlockSpec& spec, const std::string& key) {
    if (!subsystemOf(spec.type).empty()) return true;
    if (!registry.find(spec.type)) return false;
    const BlockDescription block = registry.describe(spec.type);
    const ParamDesc* d = block.param(key);
    return d && d->type == ParamType::Real;
}

int uses(const Model& top, const std::string& defName) {
    const std::string type = std::string(kSubsystemPrefix) + defName;
    const auto count = [&](const Model& m) {
        return static_cast<int>(
            std::count_if(m.blocks().begin(), m.blocks().end(), [&](const BlockSpec& b) { return b.type == type; }));
    };
    int n = count(top);
    for (const SubsystemDef& d : top.subsystems()) n += count(d.body);
    return n;
}

}   // namespace

EditBatch expandInstance(const Model& level, const Registry& registry, const std::string& instance,
                         const Model* topModel) {
    const Model& top = topModel ? *topModel : level;
    const BlockSpec* inst = level.find(instance);
    if (!inst || subsystemOf(inst->type).empty())
        fail("Expand Subsystem: " + instance + " is not a subsystem instance");
    const SubsystemDef* def = top.findSubsystem(subsystemOf(inst->type));
    if (!def) fail("Expand Subsystem: the definition of " + instance + " is missing");
    const std::map<std::string, std::string> mask = maskTexts(top, *def, *inst);

    Model names = level;   // scratch: fresh names against the level and each other
    names.apply(RemoveBlock{instance});
    std::map<std::string, std::string> renamed;
    EditBatch batch{{}, "expand subsystem"};
    batch.edits.emplace_back(RemoveBlock{instance});
    // where the instance was, in the body's order: grouping then expanding gives the same order back
    int at = level.indexOf(instance);
    for (const BlockSpec& b : def->body.blocks()) {
        if (isPortType(b.type)) continue;
        BlockSpec out = b;
        out.name = names.find(b.name) ? names.uniqueName(instance + "_" + b.name) : b.name;
        renamed[b.name] = out.name;
        out.ui.x += inst->ui.x;
        out.ui.y += inst->ui.y;
        for (auto& [key, value] : out.params) {
            const std::string* text = std::get_if<std::string>(&value);
            if (text && isExpressionParam(registry, b, key)) value = substituteNames(*text, mask);
        }
        for (const auto& [key, value] : inst->params) {   // per-instance overrides: "spring.stiffness"
            const auto dot = key.find('.');
            if (dot != std::string::npos && key.substr(0, dot) == b.name) out.params[key.substr(dot + 1)] = value;
        }
        names.apply(AddBlock{out, at});
        batch.edits.emplace_back(AddBlock{out, at++});
    }

    // the nets through the ports: the wires outside and inside meet again, without the port
    Nets nets;
    std::map<std::string, std::vector<PortRef>> members;   // port name -> real ends on it
    std::vector<std::string> order;
    const auto portKey = [](const std::string& p) { return "#" + p; };
    for (const Connection& c : def->body.connections()) {
        const bool pa = c.a.port.empty(), pb = c.b.port.empty();
        if (pa && pb) nets.join(portKey(c.a.block), portKey(c.b.block));
        if (!pa && !pb)
            batch.edits.emplace_back(Connect{{{renamed[c.a.block], c.a.port}, {renamed[c.b.block], c.b.port}}});
    }
    const auto attach = [&](const std::string& port, const PortRef& end) {
        auto& list = members[port];
        if (std::find(list.begin(), list.end(), end) == list.end()) list.push_back(end);
        if (std::find(order.begin(), order.end(), port) == order.end()) order.push_back(port);
    };
    for (const Connection& c : level.connectionsOf(instance)) {
        const PortRef& mine = c.a.block == instance ? c.a : c.b;
        const PortRef& other = c.a.block == instance ? c.b : c.a;
        attach(mine.port, other);
    }
    for (const Connection& c : def->body.connections()) {
        if (c.a.port.empty() != c.b.port.empty()) {
            const PortRef& port = c.a.port.empty() ? c.a : c.b;
            const PortRef& end = c.a.port.empty() ? c.b : c.a;
            attach(port.block, PortRef{renamed[end.block], end.port});
        }
    }
    std::map<std::string, std::vector<PortRef>> byNet;
    std::map<std::string, bool> sourceInside;
    std::vector<std::string> netOrder;
    for (const std::string& p : order) {
        const std::string net = nets.root(portKey(p));
        if (std::find(netOrder.begin(), netOrder.end(), net) == netOrder.end()) netOrder.push_back(net);
        for (const PortRef& r : members[p]) byNet[net].push_back(r);
        if (const BlockSpec* pb = def->body.find(p); pb && pb->type == portType(PortRole::SignalOut))
            sourceInside[net] = true;
    }
    for (const std::string& net : netOrder) {
        std::vector<PortRef>& ends = byNet[net];
        if (ends.size() < 2) continue;
        // a signal's source first (an outside end for an input port, an inside one for an output)
        const auto inside = [&](const PortRef& r) { return names.find(r.block) && !level.find(r.block); };
        std::stable_partition(ends.begin(), ends.end(),
                              [&](const PortRef& r) { return inside(r) == sourceInside[net]; });
        for (std::size_t i = 1; i < ends.size(); ++i) batch.edits.emplace_back(Connect{{ends[0], ends[i]}});
    }
    if (auto plots = renamePlots(level, [&](const std::string& s) -> std::optional<std::string> {
            const std::string prefix = instance + ".";
            if (s.rfind(prefix, 0) != 0) return std::nullopt;
            const std::string rest = s.substr(prefix.size());
            const auto dot = rest.find('.');
            const auto it = renamed.find(rest.substr(0, dot));
            if (dot == std::string::npos || it == renamed.end()) return std::nullopt;
            return it->second + rest.substr(dot);
        }))
        batch.edits.emplace_back(std::move(*plots));
    if (uses(top, def->name) == 1) batch.edits.emplace_back(RemoveSubsystem{def->name});
    return batch;
}

EditBatch makeUnique(const Model& level, const std::string& instance, const Model* topModel) {
    const Model& top = topModel ? *topModel : level;
    const BlockSpec* inst = level.find(instance);
    const SubsystemDef* def = inst ? top.findSubsystem(subsystemOf(inst->type)) : nullptr;
    if (!def) fail("Make Unique: " + instance + " is not a subsystem instance");
    const std::string name = uniqueSubsystemName(top, def->name);
    EditBatch batch{{}, "make unique"};
    batch.edits.emplace_back(addSubsystem(SubsystemDef{name, def->body}));
    batch.edits.emplace_back(SetBlockType{instance, std::string(kSubsystemPrefix) + name});
    return batch;
}

}   // namespace endstop::core::model
