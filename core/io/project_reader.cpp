// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/project_reader.hpp"

#include "core/expr/expression.hpp"
#include "core/io/overrides.hpp"
#include "core/io/project_file.hpp"
#include "core/model/errors.hpp"
#include "core/model/flatten.hpp"
#include "core/text/quote.hpp"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace endstop::core::io {

namespace {

// Where the reader is: the top level or a subsystem definition's body.
struct Context {
    QString path;            // JSON path prefix: "" or "subsystems.Stage."
    std::string subsystem;   // "" at the top level
    std::string label(const std::string& block) const {
        return subsystem.empty() ? "block \"" + block + "\"" : "block \"" + block + "\" in subsystem \"" + subsystem + "\"";
    }
};

class Reader {
public:
    Reader(QString file, const Registry& registry) : m_file(std::move(file)), m_registry(registry) {}

    // names and keys in a hostile file can be megabytes long: the message keeps it to a line
    [[noreturn]] void fail(const QString& path, const std::string& what) const {
        throw FileFormatError(m_file.toStdString() + ": " + excerpt(path.toStdString(), 120) + ": " + excerpt(what, 400));
    }

    Model read(const QJsonObject& root) {
        for (const QString& key : root.keys())
            if (!QStringList{"format", "formatVersion", "generator", "simulation", "parameters", "subsystems", "blocks",
                             "connections", "plots"}.contains(key))
                fail(key, "unknown key");
        Model m;
        readSimulation(root.value("simulation"), m);
        readParameterList(root.value("parameters"), "parameters", m, "model");
        readSubsystems(root.value("subsystems"), m);
        readBody(root, Context{}, m, m);
        readPlots(root.value("plots"), m);
        checkHierarchy(m);
        return m;
    }

private:
    double number(const QJsonValue& v, const QString& path) const {
        if (!v.isDouble()) fail(path, "expected a number");
        return v.toDouble();
    }

    void readSimulation(const QJsonValue& v, Model& m) const {
        if (v.isUndefined()) return;
        if (!v.isObject()) fail("simulation", "expected an object");
        SimulationSettings s;
        const QJsonObject o = v.toObject();
        for (const QString& key : o.keys()) {
            const QString path = "simulation." + key;
            if (key == "stop_time") s.stopTime = number(o[key], path);
            else if (key == "relative_tolerance") s.relativeTolerance = number(o[key], path);
            else if (key == "absolute_tolerance") s.absoluteTolerance = number(o[key], path);
            else if (key == "max_step") s.maxStep = number(o[key], path);
            else if (key == "output_interval") s.outputInterval = number(o[key], path);
            else if (key == "linear_solver") {
                const auto solver = parseLinearSolver(o[key].toString().toStdString());
                if (!solver) fail(path, "expected " + linearSolverNames('"'));
                s.linearSolver = *solver;
            } else fail(path, "unknown setting");
        }
        m.apply(SetSimulation{s});
    }

    // [ { "name": ..., "value": ... } ]: names unique and valid, values expressions that parse;
    // evaluated (dependencies, cycles, unknown names) by checkHierarchy once everything is read.
    void readParameterList(const QJsonValue& v, const QString& path, Model& into, const std::string& owner) const {
        if (v.isUndefined()) return;
        if (!v.isArray()) fail(path, "expected an array of {\"name\": ..., \"value\": ...}");
        const QJsonArray list = v.toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            const QString p = path + QString("[%1]").arg(i);
            if (!list[i].isObject()) fail(p, "expected {\"name\": ..., \"value\": ...}");
            const QJsonObject o = list[i].toObject();
            for (const QString& key : o.keys())
                if (key != "name" && key != "value") fail(p + "." + key, "unknown key");
            const std::string name = o.value("name").toString().toStdString();
            if (!Model::validName(name))
                fail(p + ".name", "expected a parameter name (letters, digits, _; not starting with a digit), got " + quoteText(name, '"'));
            if (into.findParameter(name)) fail(p + ".name", owner + ": duplicate parameter name \"" + name + "\"");
            const QJsonValue value = o.value("value");
            std::string text;
            if (value.isDouble()) text = formatNumber(value.toDouble());
            else if (value.isString()) text = value.toString().toStdString();
            else fail(p + ".value", "parameter \"" + name + "\": expected a number or an expression such as \"2*k_base\"");
            syntax(text, p + ".value", owner + ", parameter \"" + name + "\"");
            into.apply(SetModelParameter{name, text});
        }
    }

    void syntax(const std::string& text, const QString& path, const std::string& what) const {
        try {
            (void)expr::Expression::parse(text);
        } catch (const expr::ExprError& e) {
            fail(path, what + ": " + quoteText(text, '"') + ": " + e.what());
        }
    }

    // "subsystems": { "Stage": { "ports": [...], "parameters": [...], "blocks": [...], "connections": [...] } }
    // Two passes: every definition's ports first, so that bodies may instantiate each other.
    void readSubsystems(const QJsonValue& v, Model& m) {
        if (v.isUndefined()) return;
        if (!v.isObject()) fail("subsystems", "expected an object of name: definition");
        const QJsonObject defs = v.toObject();
        for (const QString& name : defs.keys()) {
            const QString path = "subsystems." + name;
            if (!Model::validName(name.toStdString()))
                fail(path, "expected a subsystem name (letters, digits, _; not starting with a digit)");
            if (!defs[name].isObject()) fail(path, "expected an object with ports, parameters, blocks and connections");
            const QJsonObject o = defs[name].toObject();
            for (const QString& key : o.keys())
                if (!QStringList{"ports", "parameters", "blocks", "connections"}.contains(key)) fail(path + "." + key, "unknown key");
            SubsystemDef def;
            def.name = name.toStdString();
            readPorts(o.value("ports"), path + ".ports", def);
            readParameterList(o.value("parameters"), path + ".parameters", def.body, "subsystem \"" + def.name + "\"");
            m.apply(addSubsystem(std::move(def)));
        }
        std::vector<SubsystemDef> full;
        for (const QString& name : defs.keys()) {
            full.push_back(*m.findSubsystem(name.toStdString()));
            readBody(defs[name].toObject(), Context{"subsystems." + name + ".", name.toStdString()}, full.back().body, m);
        }
        for (const SubsystemDef& d : full) m.apply(RemoveSubsystem{d.name});   // their bodies are still empty
        for (SubsystemDef& d : full) m.apply(addSubsystem(std::move(d)));
    }

    void readPorts(const QJsonValue& v, const QString& path, SubsystemDef& def) const {
        if (v.isUndefined()) return;
        if (!v.isArray()) fail(path, "expected an array of {\"name\": ..., \"domain\": ...}");
        const QJsonArray ports = v.toArray();
        for (qsizetype i = 0; i < ports.size(); ++i) {
            const QString p = path + QString("[%1]").arg(i);
            const QJsonObject o = ports[i].toObject();
            if (!ports[i].isObject()) fail(p, "expected {\"name\": ..., \"domain\": ...}");
            for (const QString& key : o.keys())
                if (key != "name" && key != "domain" && key != "ui") fail(p + "." + key, "unknown key");
            BlockSpec port;
            port.name = o.value("name").toString().toStdString();
            if (!Model::validName(port.name)) fail(p + ".name", "expected a port name (letters, digits, _; not starting with a digit)");
            if (def.body.find(port.name)) fail(p + ".name", "subsystem \"" + def.name + "\": duplicate port \"" + port.name + "\"");
            port.type = std::string(kPortPrefix) + o.value("domain").toString().toStdString();
            if (!portRole(port.type))
                fail(p + ".domain", "port \"" + port.name + "\": expected \"translational\", \"rotational\", \"signal_in\" or \"signal_out\"");
            readUi(o.value("ui"), p + ".ui", port, nullptr);
            def.body.apply(AddBlock{port});
        }
    }

    void readBody(const QJsonObject& o, const Context& ctx, Model& body, const Model& root) {
        readBlocks(o.value("blocks"), ctx, body, root);
        readConnections(o.value("connections"), ctx, body, root);
    }

    void readBlocks(const QJsonValue& v, const Context& ctx, Model& body, const Model& root) {
        if (v.isUndefined()) return;
        if (!v.isArray()) fail(ctx.path + "blocks", "expected an array");
        const QJsonArray blocks = v.toArray();
        for (qsizetype i = 0; i < blocks.size(); ++i) {
            const QString path = ctx.path + QString("blocks[%1]").arg(i);
            if (!blocks[i].isObject()) fail(path, "expected an object");
            const QJsonObject o = blocks[i].toObject();
            BlockSpec spec;
            spec.name = o.value("name").toString().toStdString();
            if (!Model::validName(spec.name))
                fail(path + ".name", "expected a block name (letters, digits, _; not starting with a digit), got " + quoteText(spec.name, '"'));
            if (body.find(spec.name)) fail(path + ".name", "duplicate block name \"" + spec.name + "\"");
            spec.type = o.value("type").toString().toStdString();
            for (const QString& key : o.keys())
                if (!QStringList{"name", "type", "typeVersion", "parameters", "ui"}.contains(key)) fail(path + "." + key, "unknown key");
            if (const std::string_view sub = subsystemOf(spec.type); !sub.empty()) {
                const SubsystemDef* def = root.findSubsystem(sub);
                if (!def) fail(path + ".type", ctx.label(spec.name) + ": unknown subsystem \"" + std::string(sub) + "\"");
                readInstanceParameters(o.value("parameters"), path + ".parameters", ctx, spec, *def);
                readUi(o.value("ui"), path + ".ui", spec, nullptr);
                body.apply(AddBlock{spec});
                continue;
            }
            const BlockType* type = m_registry.find(spec.type);
            if (!type) fail(path + ".type", "unknown block type " + quoteText(spec.type, '"') + " (" + ctx.label(spec.name) + ")");
            if (o.contains("typeVersion")) {
                const double version = number(o["typeVersion"], path + ".typeVersion");
                if (version != std::floor(version) || version < 1) fail(path + ".typeVersion", "expected a whole number >= 1");
                if (version > type->info.typeVersion)
                    fail(path + ".typeVersion", ctx.label(spec.name) + ": type version " + formatNumber(version) +
                                                    " is newer than this program supports (" + std::to_string(type->info.typeVersion) + ")");
                spec.typeVersion = static_cast<int>(version);
            } else {
                spec.typeVersion = type->info.typeVersion;
            }
            readParameters(o.value("parameters"), path + ".parameters", ctx, spec, root);
            readUi(o.value("ui"), path + ".ui", spec, prototype(spec.type));
            body.apply(AddBlock{spec});
        }
    }

    void readParameters(const QJsonValue& v, const QString& path, const Context& ctx, BlockSpec& spec, const Model& root) const {
        if (v.isUndefined()) return;
        if (!v.isObject()) fail(path, "expected an object");
        const QJsonObject o = v.toObject();
        const BlockDescription* proto = prototype(spec.type);
        for (const QString& key : o.keys()) {
            const QString p = path + "." + key;
            const ParamDesc* desc = proto->param(key.toStdString());
            if (!desc && spec.typeVersion == proto->info.typeVersion)
                fail(p, ctx.label(spec.name) + " (" + spec.type + ") has no parameter " + quoteText(key.toStdString(), '"'));
            try {
                spec.params[key.toStdString()] = desc ? convert(o[key], *desc, [&](std::string_view n) { return inScope(root, n); }) : rawValue(o[key]);
            } catch (const Error& e) {
                fail(p, ctx.label(spec.name) + ": " + e.what());
            }
        }
    }

    // An instance's values: mask parameters by name, or a block inside by relative path
    // ("spring.stiffness"), numbers or expressions, checked when the model is flattened.
    void readInstanceParameters(const QJsonValue& v, const QString& path, const Context& ctx, BlockSpec& spec,
                                const SubsystemDef& def) const {
        if (v.isUndefined()) return;
        if (!v.isObject()) fail(path, "expected an object");
        const QJsonObject o = v.toObject();
        for (const QString& key : o.keys()) {
            const QString p = path + "." + key;
            const std::string k = key.toStdString();
            if (k.find('.') == std::string::npos && !def.body.findParameter(k)) {
                std::string names;
                for (const ParameterDef& d : def.body.parameters()) names += (names.empty() ? "" : ", ") + d.name;
                fail(p, ctx.label(spec.name) + " (subsystem " + def.name + ") has no parameter " + quoteText(k, '"') +
                            " (parameters: " + (names.empty() ? "none" : names) + ")");
            }
            if (o[key].isDouble()) spec.params[k] = o[key].toDouble();
            else if (o[key].isString()) {
                syntax(o[key].toString().toStdString(), p, ctx.label(spec.name) + ", parameter \"" + k + "\"");
                spec.params[k] = o[key].toString().toStdString();
            } else if (o[key].isArray()) spec.params[k] = rawValue(o[key]);
            else fail(p, ctx.label(spec.name) + ": expected a number or an expression");
        }
    }

    static ParamValue rawValue(const QJsonValue& v) {   // for an old typeVersion, before migration
        if (v.isDouble()) return v.toDouble();
        if (v.isArray()) {
            std::vector<double> xs;
            for (const QJsonValue& x : v.toArray()) xs.push_back(x.toDouble());
            return xs;
        }
        return v.toString().toStdString();
    }

    // A real parameter may be an expression: kept as written and evaluated on flattening. A plain
    // quantity ("10 mm") is converted to SI here, as in version 1.
    // A name some scope could hold: the model's parameters or any subsystem's mask.
    static bool inScope(const Model& root, std::string_view name) {
        if (root.findParameter(name)) return true;
        return std::any_of(root.subsystems().begin(), root.subsystems().end(),
                           [&](const SubsystemDef& d) { return d.body.findParameter(name) != nullptr; });
    }

    static ParamValue convert(const QJsonValue& v, const ParamDesc& d, const std::function<bool(std::string_view)>& known) {
        switch (d.type) {
        case ParamType::Real:
            if (v.isDouble()) return v.toDouble();
            if (!v.isString()) throw FileFormatError("expected a number, a string with a unit such as \"10 mm\" or an expression");
            return realText(v.toString().toStdString(), d, known);
        case ParamType::Vector: {
            if (v.isString()) return parseParameterText(v.toString().toStdString(), d);
            if (!v.isArray()) throw FileFormatError("expected an array of numbers like [0, 0.01, 0.02]");
            std::vector<double> xs;
            for (const QJsonValue& x : v.toArray()) {
                if (x.isDouble()) xs.push_back(x.toDouble());
                else if (x.isString()) {
                    ParamDesc element = d;
                    element.type = ParamType::Real;
                    xs.push_back(std::get<double>(parseParameterText(x.toString().toStdString(), element)));
                }
                else throw FileFormatError("expected numbers in the array");
            }
            return xs;
        }
        case ParamType::Choice:
        case ParamType::Text:
            if (!v.isString()) throw FileFormatError("expected a string");
            return parseParameterText(v.toString().toStdString(), d);
        }
        return 0.0;
    }

    // proto: the block, to check display units against; nullptr for instances and ports
    void readUi(const QJsonValue& v, const QString& path, BlockSpec& spec, const BlockDescription* proto) const {
        if (v.isUndefined()) return;
        if (!v.isObject()) fail(path, "expected an object");
        const QJsonObject o = v.toObject();
        if (o.contains("pos")) {
            const QJsonArray pos = o["pos"].toArray();
            if (pos.size() != 2 || !pos[0].isDouble() || !pos[1].isDouble()) fail(path + ".pos", "expected [x, y]");
            spec.ui.x = pos[0].toDouble();
            spec.ui.y = pos[1].toDouble();
        }
        if (o.contains("rotation")) {
            const double r = number(o["rotation"], path + ".rotation");
            if (r != std::floor(r) || std::fmod(r, 90.0) != 0.0 || std::abs(r) > 1e6)
                fail(path + ".rotation", "expected a multiple of 90 degrees");
            spec.ui.rotation = ((static_cast<int>(r) % 360) + 360) % 360;
        }
        if (o.contains("flip")) spec.ui.flipped = o["flip"].toBool();
        if (o.contains("units")) readDisplayUnits(o["units"], path + ".units", spec, proto);
    }

    void readDisplayUnits(const QJsonValue& v, const QString& path, BlockSpec& spec, const BlockDescription* proto) const {
        if (!v.isObject()) fail(path, "expected an object of parameter key: unit");
        const QJsonObject u = v.toObject();
        for (const QString& key : u.keys()) {
            const QString p = path + "." + key;
            const ParamDesc* desc = proto ? proto->param(key.toStdString()) : nullptr;
            if (proto && (!desc || (desc->type != ParamType::Real && desc->type != ParamType::Vector)))
                fail(p, "block \"" + spec.name + "\" (" + spec.type + ") has no numeric parameter " + quoteText(key.toStdString(), '"'));
            if (!u[key].isString()) fail(p, "expected a unit such as \"mm\"");
            const std::string symbol = u[key].toString().toStdString();
            try {
                const Unit unit = Unit::parse(symbol);
                if (desc && !desc->anyDimension && unit.dimension != desc->unit.dimension)
                    fail(p, "unit '" + symbol + "' has dimension " + unit.dimension.toString() + ", expected " +
                                desc->unit.dimension.toString() + " (e.g. " + Unit::si(desc->unit.dimension).display() + ")");
            } catch (const UnitError& e) {
                fail(p, e.what());
            }
            spec.ui.displayUnits[key.toStdString()] = symbol;
        }
    }

    // The port a connection end names, checked against the block as its parameters configure it
    // (a sum's inputs follow its signs, conditional ports their choice), an instance's ports, or,
    // inside a definition, a bare name: one of the definition's own ports.
    PortDesc port(const QJsonValue& v, const QString& path, const Context& ctx, const Model& body, const Model& root, PortRef& ref) {
        const std::string text = v.toString().toStdString();
        if (!v.isString()) fail(path, "expected \"block.port\"");
        if (!ctx.subsystem.empty() && Model::validName(text)) {
            const BlockSpec* p = body.find(text);
            if (!p || !isPortType(p->type)) fail(path, "subsystem \"" + ctx.subsystem + "\" has no port \"" + text + "\"");
            ref = PortRef{text, ""};
            return innerPort(*p);
        }
        const auto parsed = PortRef::parse(text);
        if (!parsed || !Model::validName(parsed->block)) fail(path, "expected \"block.port\"");
        ref = *parsed;
        const BlockSpec* spec = body.find(ref.block);
        if (!spec || isPortType(spec->type)) fail(path, "no block named \"" + ref.block + "\"");
        if (const std::string_view sub = subsystemOf(spec->type); !sub.empty()) {
            const SubsystemDef* def = root.findSubsystem(sub);
            std::string ports;
            for (const BlockSpec* p : def->ports()) {
                if (p->name == ref.port) return outerPort(*p);
                ports += (ports.empty() ? "" : ", ") + p->name;
            }
            fail(path, ctx.label(ref.block) + " (subsystem " + def->name + ") has no port \"" + ref.port + "\" (ports: " +
                           (ports.empty() ? "none" : ports) + ")");
        }
        std::optional<BlockDescription>& block = m_instances[ctx.subsystem + "/" + ref.block];
        if (!block) block = m_registry.describe(spec->type, currentParams(evaluable(*spec, m_registry), m_registry));
        const int index = block->portIndex(ref.port);
        if (index < 0)
            fail(path, ctx.label(ref.block) + " (" + spec->type + ") has no port \"" + ref.port + "\" (ports: " + block->portList() + ")");
        return block->ports[static_cast<std::size_t>(index)];
    }

    void readConnections(const QJsonValue& v, const Context& ctx, Model& body, const Model& root) {
        if (v.isUndefined()) return;
        const QString where = ctx.path + "connections";
        if (!v.isArray()) fail(where, "expected an array");
        const QJsonArray cs = v.toArray();
        for (qsizetype i = 0; i < cs.size(); ++i) {
            const QString path = where + QString("[%1]").arg(i);
            const QJsonArray pair = cs[i].toArray();
            if (!cs[i].isArray() || pair.size() != 2) fail(path, "expected [\"block.port\", \"block.port\"]");
            Connection c;
            const PortDesc a = port(pair[0], path + "[0]", ctx, body, root, c.a);
            const PortDesc b = port(pair[1], path + "[1]", ctx, body, root, c.b);
            if (!connectable(a, b)) fail(path, differentDomains(c.a.toString(), a.domain, c.b.toString(), b.domain));
            try {
                body.apply(Connect{c});
            } catch (const ModelError& e) {
                fail(path, e.what());
            }
        }
    }

    void readPlots(const QJsonValue& v, Model& m) const {
        if (v.isUndefined()) return;
        if (!v.isArray()) fail("plots", "expected an array");
        std::vector<PlotSpec> plots;
        const QJsonArray ps = v.toArray();
        for (qsizetype i = 0; i < ps.size(); ++i) {
            const QString path = QString("plots[%1]").arg(i);
            const QJsonObject o = ps[i].toObject();
            PlotSpec p;
            p.title = o.value("title").toString().toStdString();
            for (const QJsonValue& s : o.value("signals").toArray()) {
                if (!s.isString()) fail(path + ".signals", "expected strings like \"block.var\"");
                p.signals.push_back(s.toString().toStdString());
            }
            plots.push_back(std::move(p));
        }
        m.apply(SetPlots{plots});
    }

    // Scopes, dimensions, recursion and ports wired inside: what only the whole hierarchy shows.
    void checkHierarchy(const Model& m) const {
        if (!m.hierarchical()) return;
        try {
            (void)flatten(m, m_registry);
        } catch (const HierarchyError& e) {
            fail(jsonPath(m, e.diagnostics().front(), e.subsystem()), e.what());
        } catch (const ModelError& e) {
            fail(jsonPath(m, e.diagnostics().front(), {}), e.what());
        }
    }

    // The JSON path of what a flattening error names: the definition at fault, a model
    // parameter, or the top-level block its path starts with.
    static QString jsonPath(const Model& m, const Diagnostic& d, const std::string& subsystem) {
        if (!subsystem.empty()) return "subsystems." + QString::fromStdString(subsystem);
        if (d.block.empty()) {
            for (std::size_t i = 0; i < m.parameters().size(); ++i)
                if (m.parameters()[i].name == d.param) return QString("parameters[%1].value").arg(i);
            return "parameters";
        }
        const std::string head = d.block.substr(0, d.block.find('.'));
        const int i = m.indexOf(head);
        if (i < 0) return "blocks";
        const QString p = QString("blocks[%1]").arg(i);
        return d.block == head && !d.param.empty() ? p + ".parameters." + QString::fromStdString(d.param) : p;
    }

    const BlockDescription* prototype(const std::string& type) const {   // one per type, not per block
        auto& p = m_prototypes[type];
        if (!p) p = m_registry.describe(type);
        return &*p;
    }

    QString m_file;
    const Registry& m_registry;
    std::map<std::string, std::optional<BlockDescription>> m_instances;   // by "subsystem/block", for port checks
    mutable std::map<std::string, std::optional<BlockDescription>> m_prototypes;
};

}  // namespace

Model readProject(const QJsonObject& root, const QString& fileLabel, const Registry& registry) {
    return Reader(fileLabel, registry).read(root);
}

}  // namespace endstop::core::io
