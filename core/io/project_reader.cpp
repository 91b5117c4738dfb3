// SPDX-License-Identifier: GPL-3.0-or-later
// The project reader's top level (project_reader.hpp): the document, simulation settings, parameters,
// subsystem definitions and plots, and the final hierarchy check. Bodies: project_reader_blocks.cpp.
#include "core/io/project_reader.hpp"

#include "core/expr/expression.hpp"
#include "core/io/project_file.hpp"
#include "core/io/project_reader_impl.hpp"
#include "core/errors.hpp"
#include "core/model/flatten.hpp"
#include "core/text/quote.hpp"

#include <QJsonArray>

#include <string>
#include <utility>
#include <vector>

namespace endstop::core::io {

namespace detail {

namespace {

// The JSON path of what a flattening error names: the definition at fault, a model
// parameter, or the top-level block its path starts with.
QString jsonPath(const model::Model& m, const Diagnostic& d, const std::string& subsystem) {
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

}   // namespace

model::Model Reader::read(const QJsonObject& root) {
    for (const QString& key : root.keys())
        if (!QStringList{"format", "formatVersion", "generator", "simulation", "parameters", "subsystems", "blocks",
                         "connections", "plots"}
                 .contains(key))
            fail(key, "unknown key");
    model::Model m;
    readSimulation(root.value("simulation"), m);
    readParameterList(root.value("parameters"), "parameters", m, "model");
    readSubsystems(root.value("subsystems"), m);
    readBody(root, Context{}, m, m);
    readPlots(root.value("plots"), m);
    checkHierarchy(m);
    return m;
}

void Reader::readSimulation(const QJsonValue& v, model::Model& m) const {
    if (v.isUndefined()) return;
    if (!v.isObject()) fail("simulation", "expected an object");
    model::SimulationSettings s;
    const QJsonObject o = v.toObject();
    for (const QString& key : o.keys()) {
        const QString path = "simulation." + key;
        if (key == "stop_time")
            s.stopTime = number(o[key], path);
        else if (key == "relative_tolerance")
            s.relativeTolerance = number(o[key], path);
        else if (key == "absolute_tolerance")
            s.absoluteTolerance = number(o[key], path);
        else if (key == "max_step")
            s.maxStep = number(o[key], path);
        else if (key == "output_interval")
            s.outputInterval = number(o[key], path);
        else if (key == "linear_solver") {
            const auto solver = model::parseLinearSolver(o[key].toString().toStdString());
            if (!solver) fail(path, "expected " + model::linearSolverNames('"'));
            s.linearSolver = *solver;
        } else if (key == "reduce") {
            if (!o[key].isBool()) fail(path, "expected true or false");
            s.reduce = o[key].toBool();
        } else
            fail(path, "unknown setting");
    }
    m.apply(model::SetSimulation{s});
}

// [ { "name": ..., "value": ... } ]: names unique and valid, values expressions that parse;
// evaluated (dependencies, cycles, unknown names) by checkHierarchy once everything is read.
void Reader::readParameterList(const QJsonValue& v, const QString& path, model::Model& into,
                               const std::string& owner) const {
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
        if (!model::Model::validName(name))
            fail(p + ".name", "expected a parameter name (letters, digits, _; not starting with a digit), got " +
                                  quoteText(name, '"'));
        if (into.findParameter(name)) fail(p + ".name", owner + ": duplicate parameter name \"" + name + "\"");
        const QJsonValue value = o.value("value");
        std::string text;
        if (value.isDouble())
            text = formatNumber(value.toDouble());
        else if (value.isString())
            text = value.toString().toStdString();
        else
            fail(p + ".value", "parameter \"" + name + "\": expected a number or an expression such as \"2*k_base\"");
        syntax(text, p + ".value", owner + ", parameter \"" + name + "\"");
        into.apply(model::SetModelParameter{name, text});
    }
}

void Reader::syntax(const std::string& text, const QString& path, const std::string& what) const {
    try {
        (void)expr::Expression::parse(text);
    } catch (const expr::ExprError& e) {
        fail(path, what + ": " + quoteText(text, '"') + ": " + e.what());
    }
}

// "subsystems": { "Stage": { "ports": [...], "parameters": [...], "blocks": [...], "connections": [...] } }
// Two passes: every definition's ports first, so that bodies may instantiate each other.
void Reader::readSubsystems(const QJsonValue& v, model::Model& m) {
    if (v.isUndefined()) return;
    if (!v.isObject()) fail("subsystems", "expected an object of name: definition");
    const QJsonObject defs = v.toObject();
    for (const QString& name : defs.keys()) {
        const QString path = "subsystems." + name;
        if (!model::Model::validName(name.toStdString()))
            fail(path, "expected a subsystem name (letters, digits, _; not starting with a digit)");
        if (!defs[name].isObject()) fail(path, "expected an object with ports, parameters, blocks and connections");
        const QJsonObject o = defs[name].toObject();
        for (const QString& key : o.keys())
            if (!QStringList{"ports", "parameters", "blocks", "connections"}.contains(key))
                fail(path + "." + key, "unknown key");
        model::SubsystemDef def;
        def.name = name.toStdString();
        readPorts(o.value("ports"), path + ".ports", def);
        readParameterList(o.value("parameters"), path + ".parameters", def.body, "subsystem \"" + def.name + "\"");
        m.apply(model::addSubsystem(std::move(def)));
    }
    std::vector<model::SubsystemDef> full;
    for (const QString& name : defs.keys()) {
        full.push_back(*m.findSubsystem(name.toStdString()));
        readBody(defs[name].toObject(), Context{"subsystems." + name + ".", name.toStdString()}, full.back().body, m);
    }
    for (const model::SubsystemDef& d : full) m.apply(model::RemoveSubsystem{d.name});   // their bodies are still empty
    for (model::SubsystemDef& d : full) m.apply(model::addSubsystem(std::move(d)));
}

void Reader::readPorts(const QJsonValue& v, const QString& path, model::SubsystemDef& def) const {
    if (v.isUndefined()) return;
    if (!v.isArray()) fail(path, "expected an array of {\"name\": ..., \"domain\": ...}");
    const QJsonArray ports = v.toArray();
    for (qsizetype i = 0; i < ports.size(); ++i) {
        const QString p = path + QString("[%1]").arg(i);
        const QJsonObject o = ports[i].toObject();
        if (!ports[i].isObject()) fail(p, "expected {\"name\": ..., \"domain\": ...}");
        for (const QString& key : o.keys())
            if (key != "name" && key != "domain" && key != "ui") fail(p + "." + key, "unknown key");
        model::BlockSpec port;
        port.name = o.value("name").toString().toStdString();
        if (!model::Model::validName(port.name))
            fail(p + ".name", "expected a port name (letters, digits, _; not starting with a digit)");
        if (def.body.find(port.name))
            fail(p + ".name", "subsystem \"" + def.name + "\": duplicate port \"" + port.name + "\"");
        port.type = std::string(model::kPortPrefix) + o.value("domain").toString().toStdString();
        if (!model::portRole(port.type))
            fail(p + ".domain", "port \"" + port.name +
                                    "\": expected \"translational\", \"rotational\", \"signal_in\" or \"signal_out\"");
        readUi(o.value("ui"), [&] { return p + ".ui"; }, port, nullptr);
        def.body.apply(model::AddBlock{port});
    }
}

void Reader::readPlots(const QJsonValue& v, model::Model& m) const {
    if (v.isUndefined()) return;
    if (!v.isArray()) fail("plots", "expected an array");
    std::vector<model::PlotSpec> plots;
    const QJsonArray ps = v.toArray();
    for (qsizetype i = 0; i < ps.size(); ++i) {
        const QString path = QString("plots[%1]").arg(i);
        const QJsonObject o = ps[i].toObject();
        model::PlotSpec p;
        p.title = o.value("title").toString().toStdString();
        for (const QJsonValue& s : o.value("signals").toArray()) {
            if (!s.isString()) fail(path + ".signals", "expected strings like \"block.var\"");
            p.signals.push_back(s.toString().toStdString());
        }
        plots.push_back(std::move(p));
    }
    m.apply(model::SetPlots{plots});
}

// Scopes, dimensions, recursion and ports wired inside: what only the whole hierarchy shows.
void Reader::checkHierarchy(const model::Model& m) const {
    if (!m.hierarchical()) return;
    try {
        (void)model::flatten(m, m_registry);
    } catch (const model::HierarchyError& e) {
        fail(jsonPath(m, e.diagnostics().front(), e.subsystem()), e.what());
    } catch (const ModelError& e) {
        fail(jsonPath(m, e.diagnostics().front(), {}), e.what());
    }
}

}   // namespace detail

model::Model readProject(const QJsonObject& root, const QString& fileLabel, const Registry& registry) {
    return detail::Reader(fileLabel, registry).read(root);
}

model::Model readProject(const QJsonObject& skeleton, const Outline& outline, const OutlinedText& text,
                         const QString& fileLabel, const Registry& registry) {
    detail::Reader reader(fileLabel, registry);
    reader.outlined(outline, text);
    return reader.read(skeleton);
}

}   // namespace endstop::core::io
