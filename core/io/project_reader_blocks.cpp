// SPDX-License-Identifier: GPL-3.0-or-later
// The project reader's bodies (top level or a subsystem definition's): blocks and their parameters,
// subsystem instances, ui placement and display units, and connections checked port by port.
#include "core/io/project_reader_impl.hpp"

#include "core/io/overrides.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "core/model/flatten.hpp"
#include "core/text/quote.hpp"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace endstop::core::io::detail {

namespace {

ParamValue rawValue(const QJsonValue& v) {   // for an old typeVersion, before migration
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
ParamValue convert(const QJsonValue& v, const ParamDesc& d, const std::function<bool(std::string_view)>& known) {
    switch (d.type) {
        case ParamType::Real:
            if (v.isDouble()) return v.toDouble();
            if (!v.isString())
                throw FileFormatError("expected a number, a string with a unit such as \"10 mm\" or an expression");
            return realText(v.toString().toStdString(), d, known);
        case ParamType::Vector: {
            if (v.isString()) return parseParameterText(v.toString().toStdString(), d);
            if (!v.isArray()) throw FileFormatError("expected an array of numbers like [0, 0.01, 0.02]");
            std::vector<double> xs;
            for (const QJsonValue& x : v.toArray()) {
                if (x.isDouble())
                    xs.push_back(x.toDouble());
                else if (x.isString()) {
                    ParamDesc element = d;
                    element.type = ParamType::Real;
                    xs.push_back(std::get<double>(parseParameterText(x.toString().toStdString(), element)));
                } else
                    throw FileFormatError("expected numbers in the array");
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

}   // namespace

bool inScope(const model::Model& root, std::string_view name) {
    if (root.findParameter(name)) return true;
    return std::any_of(root.subsystems().begin(), root.subsystems().end(),
                       [&](const model::SubsystemDef& d) { return d.body.findParameter(name) != nullptr; });
}

// The body's blocks, then its connections; the top level of an outlined file parses them from the text
// one element at a time.
void Reader::readBody(const QJsonObject& o, const Context& ctx, model::Model& body, const model::Model& root) {
    const Outline* outline = ctx.subsystem.empty() ? m_outline : nullptr;
    if (outline && outline->blocks)
        readBlocks(Elements(*m_text, *outline->blocks), ctx, body, root);
    else if (const auto blocks = array(o, "blocks", ctx))
        readBlocks(*blocks, ctx, body, root);
    if (outline && outline->connections)
        readConnections(Elements(*m_text, *outline->connections), ctx, body, root);
    else if (const auto connections = array(o, "connections", ctx))
        readConnections(*connections, ctx, body, root);
}

std::optional<Elements> Reader::array(const QJsonObject& o, const char* key, const Context& ctx) const {
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined()) return std::nullopt;
    if (!v.isArray()) fail(ctx.path + key, "expected an array");
    return Elements(v.toArray());
}

void Reader::readBlocks(const Elements& blocks, const Context& ctx, model::Model& body, const model::Model& root) {
    body.reserve(body.blocks().size() + static_cast<std::size_t>(blocks.size()), body.connections().size());
    for (qsizetype i = 0; i < blocks.size(); ++i) {
        if (const auto e = blocks.fast(i); e && readBlockFast(*e, body, root)) continue;
        const auto path = [&] { return ctx.path + QString("blocks[%1]").arg(i); };
        const auto at = [&](const char* key) { return [&, key] { return path() + "." + key; }; };
        const QJsonValue value = blocks[i];
        if (!value.isObject()) fail(path(), "expected an object");
        const QJsonObject o = value.toObject();
        // one pass over the keys; an absent one is undefined, as QJsonObject::value() gives it
        QJsonValue name(QJsonValue::Undefined), type(QJsonValue::Undefined), typeVersion(QJsonValue::Undefined),
            parameters(QJsonValue::Undefined), ui(QJsonValue::Undefined);
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString key = it.key();
            if (key == u"name")
                name = it.value();
            else if (key == u"type")
                type = it.value();
            else if (key == u"typeVersion")
                typeVersion = it.value();
            else if (key == u"parameters")
                parameters = it.value();
            else if (key == u"ui")
                ui = it.value();
            else
                fail(path() + "." + key, "unknown key");
        }
        model::BlockSpec spec;
        spec.name = name.toString().toStdString();
        if (!model::Model::validName(spec.name))
            fail(at("name")(), "expected a block name (letters, digits, _; not starting with a digit), got " +
                                   quoteText(spec.name, '"'));
        if (body.find(spec.name)) fail(at("name")(), "duplicate block name \"" + spec.name + "\"");
        spec.type = type.toString().toStdString();
        if (const std::string_view sub = model::subsystemOf(spec.type); !sub.empty()) {
            const model::SubsystemDef* def = root.findSubsystem(sub);
            if (!def) fail(at("type")(), ctx.label(spec.name) + ": unknown subsystem \"" + std::string(sub) + "\"");
            readInstanceParameters(parameters, at("parameters"), ctx, spec, *def);
            readUi(ui, at("ui"), spec, nullptr);
            body.apply(model::AddBlock{std::move(spec)});
            continue;
        }
        const BlockType* blockType = m_registry.find(spec.type);
        if (!blockType)
            fail(at("type")(), "unknown block type " + quoteText(spec.type, '"') + " (" + ctx.label(spec.name) + ")");
        if (!typeVersion.isUndefined()) {
            if (!typeVersion.isDouble()) fail(at("typeVersion")(), "expected a number");
            const double version = typeVersion.toDouble();
            if (version != std::floor(version) || version < 1)
                fail(at("typeVersion")(), "expected a whole number >= 1");
            if (version > blockType->info.typeVersion)
                fail(at("typeVersion")(), ctx.label(spec.name) + ": type version " + formatNumber(version) +
                                              " is newer than this program supports (" +
                                              std::to_string(blockType->info.typeVersion) + ")");
            spec.typeVersion = static_cast<int>(version);
        } else {
            spec.typeVersion = blockType->info.typeVersion;
        }
        readParameters(parameters, at("parameters"), ctx, spec, root);
        readUi(ui, at("ui"), spec, prototype(spec.type));
        body.apply(model::AddBlock{std::move(spec)});
    }
}

void Reader::readParameters(const QJsonValue& v, const PathOf& path, const Context& ctx, model::BlockSpec& spec,
                            const model::Model& root) const {
    if (v.isUndefined()) return;
    if (!v.isObject()) fail(path(), "expected an object");
    const QJsonObject o = v.toObject();
    const BlockDescription* proto = prototype(spec.type);
    const auto known = [&](std::string_view n) { return inScope(root, n); };
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString key = it.key();
        const auto p = [&] { return path() + "." + key; };   // for a message only
        std::string name = key.toStdString();
        const ParamDesc* desc = proto->param(name);
        if (!desc && spec.typeVersion == proto->info.typeVersion)
            fail(p(), ctx.label(spec.name) + " (" + spec.type + ") has no parameter " + quoteText(name, '"'));
        try {
            const QJsonValue value = it.value();
            spec.params[std::move(name)] = desc ? convert(value, *desc, known) : rawValue(value);
        } catch (const Error& e) {
            fail(p(), ctx.label(spec.name) + ": " + e.what());
        }
    }
}

// An instance's values: mask parameters by name, or a block inside by relative path
// ("spring.stiffness"), numbers or expressions, checked when the model is flattened.
void Reader::readInstanceParameters(const QJsonValue& v, const PathOf& path, const Context& ctx,
                                    model::BlockSpec& spec, const model::SubsystemDef& def) const {
    if (v.isUndefined()) return;
    if (!v.isObject()) fail(path(), "expected an object");
    const QJsonObject o = v.toObject();
    for (const QString& key : o.keys()) {
        const QString p = path() + "." + key;
        const std::string k = key.toStdString();
        if (k.find('.') == std::string::npos && !def.body.findParameter(k)) {
            std::string names;
            for (const model::ParameterDef& d : def.body.parameters()) names += (names.empty() ? "" : ", ") + d.name;
            fail(p, ctx.label(spec.name) + " (subsystem " + def.name + ") has no parameter " + quoteText(k, '"') +
                        " (parameters: " + (names.empty() ? "none" : names) + ")");
        }
        if (o[key].isDouble())
            spec.params[k] = o[key].toDouble();
        else if (o[key].isString()) {
            syntax(o[key].toString().toStdString(), p, ctx.label(spec.name) + ", parameter \"" + k + "\"");
            spec.params[k] = o[key].toString().toStdString();
        } else if (o[key].isArray())
            spec.params[k] = rawValue(o[key]);
        else
            fail(p, ctx.label(spec.name) + ": expected a number or an expression");
    }
}

// proto: the block, to check display units against; nullptr for instances and ports
void Reader::readUi(const QJsonValue& v, const PathOf& path, model::BlockSpec& spec,
                    const BlockDescription* proto) const {
    if (v.isUndefined()) return;
    if (!v.isObject()) fail(path(), "expected an object");
    const QJsonObject o = v.toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {   // one pass; other keys are left to other tools
        const QString key = it.key();
        const auto p = [&] { return path() + "." + key; };
        if (key == u"pos") {
            const QJsonArray pos = it.value().toArray();
            if (pos.size() != 2 || !pos[0].isDouble() || !pos[1].isDouble()) fail(p(), "expected [x, y]");
            spec.ui.x = pos[0].toDouble();
            spec.ui.y = pos[1].toDouble();
        } else if (key == u"rotation") {
            const std::optional<int> turns = quarterTurns(number(it.value(), p()));
            if (!turns) fail(p(), "expected a multiple of 90 degrees");
            spec.ui.rotation = *turns;
        } else if (key == u"flip") {
            spec.ui.flipped = it.value().toBool();
        } else if (key == u"units") {
            readDisplayUnits(it.value(), p, spec, proto);
        }
    }
}

void Reader::readDisplayUnits(const QJsonValue& v, const PathOf& path, model::BlockSpec& spec,
                              const BlockDescription* proto) const {
    if (!v.isObject()) fail(path(), "expected an object of parameter key: unit");
    const QJsonObject u = v.toObject();
    for (const QString& key : u.keys()) {
        const QString p = path() + "." + key;
        const ParamDesc* desc = proto ? proto->param(key.toStdString()) : nullptr;
        if (proto && (!desc || (desc->type != ParamType::Real && desc->type != ParamType::Vector)))
            fail(p, "block \"" + spec.name + "\" (" + spec.type + ") has no numeric parameter " +
                        quoteText(key.toStdString(), '"'));
        if (!u[key].isString()) fail(p, "expected a unit such as \"mm\"");
        const std::string symbol = u[key].toString().toStdString();
        try {
            const Unit unit = Unit::parse(symbol);
            if (desc && !desc->anyDimension && unit.dimension != desc->unit.dimension)
                fail(p, "unit '" + symbol + "' has dimension " + unit.dimension.toString() + ", expected " +
                            desc->unit.dimension.toString() + " (e.g. " + Unit::si(desc->unit.dimension).display() +
                            ")");
        } catch (const UnitError& e) {
            fail(p, e.what());
        }
        spec.ui.displayUnits[key.toStdString()] = symbol;
    }
}

// The port a connection end names, checked against the block as its parameters configure it
// (a sum's inputs follow its signs, conditional ports their choice), an instance's ports, or,
// inside a definition, a bare name: one of the definition's own ports.
PortDesc Reader::port(const QJsonValue& v, const PathOf& path, const Context& ctx, const model::Model& body,
                      const model::Model& root, model::PortRef& ref) {
    if (!v.isString()) fail(path(), "expected \"block.port\"");
    return port(v.toString().toStdString(), path, ctx, body, root, ref);
}

PortDesc Reader::port(const std::string& text, const PathOf& path, const Context& ctx, const model::Model& body,
                      const model::Model& root, model::PortRef& ref) {
    if (!ctx.subsystem.empty() && model::Model::validName(text)) {
        const model::BlockSpec* p = body.find(text);
        if (!p || !model::isPortType(p->type))
            fail(path(), "subsystem \"" + ctx.subsystem + "\" has no port \"" + text + "\"");
        ref = model::PortRef{text, ""};
        return model::innerPort(*p);
    }
    const auto parsed = model::PortRef::parse(text);
    if (!parsed || !model::Model::validName(parsed->block)) fail(path(), "expected \"block.port\"");
    ref = std::move(*parsed);
    const int index = body.indexOf(ref.block);   // one lookup for the block and its port list
    const model::BlockSpec* spec = index < 0 ? nullptr : &body.blocks()[static_cast<std::size_t>(index)];
    if (!spec || model::isPortType(spec->type)) fail(path(), "no block named \"" + ref.block + "\"");
    if (const std::string_view sub = model::subsystemOf(spec->type); !sub.empty()) {
        const model::SubsystemDef* def = root.findSubsystem(sub);
        std::string ports;
        for (const model::BlockSpec* p : def->ports()) {
            if (p->name == ref.port) return model::outerPort(*p);
            ports += (ports.empty() ? "" : ", ") + p->name;
        }
        fail(path(), ctx.label(ref.block) + " (subsystem " + def->name + ") has no port \"" + ref.port +
                         "\" (ports: " + (ports.empty() ? "none" : ports) + ")");
    }
    int& list = m_portsOf[static_cast<std::size_t>(index)];
    if (list < 0) list = presentPorts(*spec);
    const std::vector<PortDesc>& ports = m_portLists[static_cast<std::size_t>(list)];
    const auto it = std::find_if(ports.begin(), ports.end(), [&](const PortDesc& p) { return p.name == ref.port; });
    if (it == ports.end()) {
        const ParamValues params = model::currentParams(evaluable(*spec, m_registry), m_registry);
        fail(path(), ctx.label(ref.block) + " (" + spec->type + ") has no port \"" + ref.port +
                         "\" (ports: " + m_registry.describe(spec->type, params).portList() + ")");
    }
    return *it;
}

// The ports the block has as its parameters configure it, as an index into m_portLists. What a
// connection end needs of a port is its name, kind and domain: blocks that agree on these share
// one list. Only a parameter that is not tunable (a choice, a text, a vector) may change a block's
// structure and so its ports (ParamDesc::tunable, held of every block type by
// tst_contract::tunableKeepsStructure): blocks whose numbers alone differ share one description
// (docs/architecture.md, "Memory").
int Reader::presentPorts(const model::BlockSpec& spec) {
    // the same parameters as the last block of its type (a long chain of like blocks): its list
    auto& [lastParams, lastList] = m_lastPorts[spec.type];
    if (lastList >= 0 && lastParams == spec.params) return lastList;
    lastList = presentPortsOf(spec);
    lastParams = spec.params;
    return lastList;
}

int Reader::presentPortsOf(const model::BlockSpec& spec) {
    const ParamValues params = model::currentParams(evaluable(spec, m_registry), m_registry);
    const BlockType* type = m_registry.find(spec.type);
    std::string key;
    appendKey(key, "", spec.type);
    for (const auto& [name, value] : params) {
        const ParamDesc* desc = type ? type->param(name) : nullptr;
        if (desc && desc->tunable) continue;
        appendKey(key, name, value);
    }
    if (const auto known = m_portListOf.find(key); known != m_portListOf.end()) return known->second;
    const std::vector<PortDesc> ports = m_registry.describe(spec.type, params).presentPorts();
    const auto same = [&](const std::vector<PortDesc>& known) {
        return std::equal(known.begin(), known.end(), ports.begin(), ports.end(), [](const auto& a, const auto& b) {
            return a.name == b.name && a.kind == b.kind && a.domain == b.domain;
        });
    };
    const auto it = std::find_if(m_portLists.begin(), m_portLists.end(), same);
    int list = static_cast<int>(it - m_portLists.begin());
    if (it == m_portLists.end()) m_portLists.push_back(ports);
    m_portListOf.emplace(std::move(key), list);
    return list;
}

void Reader::readConnections(const Elements& cs, const Context& ctx, model::Model& body, const model::Model& root) {
    const QString where = ctx.path + "connections";
    body.reserve(body.blocks().size(), body.connections().size() + static_cast<std::size_t>(cs.size()));
    m_portsOf.assign(body.blocks().size(), -1);   // this body's blocks
    for (qsizetype i = 0; i < cs.size(); ++i) {
        const auto path = [&] { return where + QString("[%1]").arg(i); };   // for a message only
        const auto end = [&](int k) { return [&, k] { return path() + QString("[%1]").arg(k); }; };
        model::Connection c;
        PortDesc a, b;
        if (const auto ends = fastPair(cs.fast(i))) {   // two plain strings, as simdjson parsed them
            a = port(ends->first, end(0), ctx, body, root, c.a);
            b = port(ends->second, end(1), ctx, body, root, c.b);
        } else {
            const QJsonValue value = cs[i];
            const QJsonArray pair = value.toArray();
            if (!value.isArray() || pair.size() != 2) fail(path(), "expected [\"block.port\", \"block.port\"]");
            a = port(pair[0], end(0), ctx, body, root, c.a);
            b = port(pair[1], end(1), ctx, body, root, c.b);
        }
        if (!connectable(a, b)) fail(path(), differentDomains(c.a.toString(), a.domain, c.b.toString(), b.domain));
        try {
            body.apply(model::Connect{std::move(c)});
        } catch (const ModelError& e) {
            fail(path(), e.what());
        }
    }
}

const BlockDescription* Reader::prototype(const std::string& type) const {   // one per type, not per block
    auto& p = m_prototypes[type];
    if (!p) p = m_registry.describe(type);
    return &*p;
}

}   // namespace endstop::core::io::detail
