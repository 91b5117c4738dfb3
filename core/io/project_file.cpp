// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/project_file.hpp"

#include "core/graph/topology.hpp"
#include "core/io/output_file.hpp"
#include "core/model/errors.hpp"
#include "core/text/quote.hpp"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <map>
#include <memory>

namespace endstop::core::io {

namespace {

class Reader {
public:
    Reader(QString file, const Registry& registry) : m_file(std::move(file)), m_registry(registry) {}

    // names and keys in a hostile file can be megabytes long: the message keeps it to a line
    [[noreturn]] void fail(const QString& path, const std::string& what) const {
        throw FileFormatError(m_file.toStdString() + ": " + excerpt(path.toStdString(), 120) + ": " + excerpt(what, 400));
    }

    Model read(const QJsonObject& root) {
        if (root.value("format").toString() != "endstop-project")
            fail("format", "expected \"endstop-project\" (is this an Endstop project file?)");
        // range-checked as a double before any conversion: 1e300 must not wrap to an int
        const QJsonValue version = root.value("formatVersion");
        if (!version.isDouble() || version.toDouble() != std::floor(version.toDouble()) || version.toDouble() < 1)
            fail("formatVersion", "expected a whole number >= 1");
        if (version.toDouble() > kFormatVersion)
            fail("formatVersion", "version " + formatNumber(version.toDouble()) + " is newer than this program supports (" +
                                      std::to_string(kFormatVersion) + "); update Endstop");
        for (const QString& key : root.keys())
            if (!QStringList{"format", "formatVersion", "generator", "simulation", "blocks", "connections", "plots"}.contains(key))
                fail(key, "unknown key");
        Model m;
        readSimulation(root.value("simulation"), m);
        readBlocks(root.value("blocks"), m);
        readConnections(root.value("connections"), m);
        readPlots(root.value("plots"), m);
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
                s.linearSolver = o[key].toString().toStdString();
                if (s.linearSolver != "auto" && s.linearSolver != "dense" && s.linearSolver != "klu")
                    fail(path, "expected \"auto\", \"dense\" or \"klu\"");
            } else fail(path, "unknown setting");
        }
        m.apply(SetSimulation{s});
    }

    void readBlocks(const QJsonValue& v, Model& m) const {
        if (v.isUndefined()) return;
        if (!v.isArray()) fail("blocks", "expected an array");
        const QJsonArray blocks = v.toArray();
        for (qsizetype i = 0; i < blocks.size(); ++i) {
            const QString path = QString("blocks[%1]").arg(i);
            if (!blocks[i].isObject()) fail(path, "expected an object");
            const QJsonObject o = blocks[i].toObject();
            BlockSpec spec;
            spec.name = o.value("name").toString().toStdString();
            if (!Model::validName(spec.name))
                fail(path + ".name", "expected a block name (letters, digits, _; not starting with a digit), got " + quoteText(spec.name, '"'));
            if (m.find(spec.name)) fail(path + ".name", "duplicate block name \"" + spec.name + "\"");
            spec.type = o.value("type").toString().toStdString();
            const BlockType* type = m_registry.find(spec.type);
            if (!type) fail(path + ".type", "unknown block type " + quoteText(spec.type, '"') + " (block \"" + spec.name + "\")");
            if (o.contains("typeVersion")) {
                const double version = number(o["typeVersion"], path + ".typeVersion");
                if (version != std::floor(version) || version < 1) fail(path + ".typeVersion", "expected a whole number >= 1");
                if (version > type->info.typeVersion)
                    fail(path + ".typeVersion", "block \"" + spec.name + "\": type version " + formatNumber(version) +
                                                    " is newer than this program supports (" + std::to_string(type->info.typeVersion) + ")");
                spec.typeVersion = static_cast<int>(version);
            } else {
                spec.typeVersion = type->info.typeVersion;
            }
            for (const QString& key : o.keys())
                if (!QStringList{"name", "type", "typeVersion", "parameters", "ui"}.contains(key)) fail(path + "." + key, "unknown key");
            readParameters(o.value("parameters"), path + ".parameters", spec);
            readUi(o.value("ui"), path + ".ui", spec);
            m.apply(AddBlock{spec});
        }
    }

    void readParameters(const QJsonValue& v, const QString& path, BlockSpec& spec) const {
        if (v.isUndefined()) return;
        if (!v.isObject()) fail(path, "expected an object");
        const QJsonObject o = v.toObject();
        ParamValues raw;
        for (const QString& key : o.keys()) raw[key.toStdString()] = 0.0;
        // migrate keys first, so an old file's parameters are checked against today's descriptors
        const Block* proto = prototype(spec.type);
        for (const QString& key : o.keys()) {
            const QString p = path + "." + key;
            const ParamDesc* desc = nullptr;
            for (const ParamDesc& d : proto->params())
                if (d.key == key.toStdString()) desc = &d;
            if (!desc && spec.typeVersion == proto->info().typeVersion)
                fail(p, "block \"" + spec.name + "\" (" + spec.type + ") has no parameter " + quoteText(key.toStdString(), '"'));
            const QJsonValue val = o[key];
            try {
                spec.params[key.toStdString()] = desc ? convert(val, *desc) : rawValue(val);
            } catch (const Error& e) {
                fail(p, "block \"" + spec.name + "\": " + e.what());
            }
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

    static ParamValue convert(const QJsonValue& v, const ParamDesc& d) {
        switch (d.type) {
        case ParamType::Real:
            if (v.isDouble()) return v.toDouble();
            if (v.isString()) return parseParameterText(v.toString().toStdString(), d);
            throw FileFormatError("expected a number or a string with a unit such as \"10 mm\"");
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

    void readUi(const QJsonValue& v, const QString& path, BlockSpec& spec) const {
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
        if (o.contains("units")) {
            if (!o["units"].isObject()) fail(path + ".units", "expected an object of parameter key: unit");
            const QJsonObject u = o["units"].toObject();
            const std::unique_ptr<Block> proto = m_registry.prototype(spec.type);
            for (const QString& key : u.keys()) {
                const QString p = path + ".units." + key;
                const ParamDesc* desc = nullptr;
                for (const ParamDesc& d : proto->params())
                    if (d.key == key.toStdString()) desc = &d;
                if (!desc || (desc->type != ParamType::Real && desc->type != ParamType::Vector))
                    fail(p, "block \"" + spec.name + "\" (" + spec.type + ") has no numeric parameter " + quoteText(key.toStdString(), '"'));
                if (!u[key].isString()) fail(p, "expected a unit such as \"mm\"");
                const std::string symbol = u[key].toString().toStdString();
                try {
                    const Unit unit = Unit::parse(symbol);
                    if (!desc->anyDimension && unit.dimension != desc->unit.dimension)
                        fail(p, "unit '" + symbol + "' has dimension " + unit.dimension.toString() + ", expected " +
                                    desc->unit.dimension.toString() + " (e.g. " + Unit::si(desc->unit.dimension).display() + ")");
                } catch (const UnitError& e) {
                    fail(p, e.what());
                }
                spec.ui.displayUnits[key.toStdString()] = symbol;
            }
        }
    }

    // The port a connection end names, checked against the block as its parameters configure
    // it (a sum's inputs follow its signs, conditional ports their choice).
    const PortDesc& port(const QJsonValue& v, const QString& path, const Model& m, PortRef& ref) {
        const auto parsed = PortRef::parse(v.toString().toStdString());
        if (!v.isString() || !parsed) fail(path, "expected \"block.port\"");
        ref = *parsed;
        const BlockSpec* spec = m.find(ref.block);
        if (!spec) fail(path, "no block named \"" + ref.block + "\"");
        std::unique_ptr<Block>& block = m_instances[ref.block];
        if (!block) block = m_registry.create(spec->type, currentParams(*spec, m_registry));
        const int index = block->portIndex(ref.port);
        if (index < 0) {
            std::string ports;
            for (std::size_t i = 0; i < block->ports().size(); ++i)
                if (block->portPresent(static_cast<int>(i))) ports += (ports.empty() ? "" : ", ") + block->ports()[i].name;
            fail(path, "block \"" + ref.block + "\" (" + spec->type + ") has no port \"" + ref.port + "\" (ports: " +
                           (ports.empty() ? "none" : ports) + ")");
        }
        return block->ports()[static_cast<std::size_t>(index)];
    }

    void readConnections(const QJsonValue& v, Model& m) {
        if (v.isUndefined()) return;
        if (!v.isArray()) fail("connections", "expected an array");
        const QJsonArray cs = v.toArray();
        for (qsizetype i = 0; i < cs.size(); ++i) {
            const QString path = QString("connections[%1]").arg(i);
            const QJsonArray pair = cs[i].toArray();
            if (!cs[i].isArray() || pair.size() != 2) fail(path, "expected [\"block.port\", \"block.port\"]");
            Connection c;
            const PortDesc& a = port(pair[0], path + "[0]", m, c.a);
            const PortDesc& b = port(pair[1], path + "[1]", m, c.b);
            if ((a.kind == PortKind::Conserving) != (b.kind == PortKind::Conserving) || a.domain != b.domain)
                fail(path, "cannot connect " + c.a.toString() + " (" + toString(a.domain) + ") to " + c.b.toString() + " (" +
                               toString(b.domain) + "): different domains");
            try {
                m.apply(Connect{c});
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

    const Block* prototype(const std::string& type) const {   // one per type, not per block
        auto& p = m_prototypes[type];
        if (!p) p = m_registry.prototype(type);
        return p.get();
    }

    QString m_file;
    const Registry& m_registry;
    std::map<std::string, std::unique_ptr<Block>> m_instances;   // by block name, for port checks
    mutable std::map<std::string, std::unique_ptr<Block>> m_prototypes;
};

std::pair<int, int> lineColumn(const QByteArray& bytes, int offset) {
    int line = 1, col = 1;
    for (int i = 0; i < offset && i < bytes.size(); ++i) {
        if (bytes[i] == '\n') { ++line; col = 1; }
        else if ((static_cast<unsigned char>(bytes[i]) & 0xC0) != 0x80) ++col;   // characters, not UTF-8 bytes
    }
    return {line, col};
}

QJsonValue toJson(const ParamValue& v) {
    if (const double* x = std::get_if<double>(&v)) return *x;
    if (const auto* xs = std::get_if<std::vector<double>>(&v)) {
        QJsonArray a;
        for (double x : *xs) a.append(x);
        return a;
    }
    return QString::fromStdString(std::get<std::string>(v));
}

}  // namespace

ParamValue parseParameterText(const std::string& text, const ParamDesc& d) {
    try {
        switch (d.type) {
        case ParamType::Real:
            if (d.anyDimension) {
                const Quantity q = parseQuantity(text);
                return q.unit ? checkedSI(text, q.unit->toSI(q.value)) : q.value;
            }
            return parseSI(text, d.unit.dimension);
        case ParamType::Vector: {
            const auto open = text.find('['), close = text.rfind(']');
            if (open == std::string::npos || close == std::string::npos || close < open)
                throw FileFormatError("expected a vector like [0 0.01 0.02], got " + quoteText(text, '"'));
            const std::string unit = text.substr(close + 1);
            std::string body = text.substr(open + 1, close - open - 1);
            for (char& c : body)
                if (c == ',' || c == ';') c = ' ';
            std::vector<double> xs;
            std::size_t pos = 0;
            while (true) {
                pos = body.find_first_not_of(' ', pos);
                if (pos == std::string::npos) break;
                const std::size_t end = body.find(' ', pos);
                const std::string item = body.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
                xs.push_back(parseSI(item + " " + unit, d.unit.dimension));
                pos = end;
            }
            return xs;
        }
        case ParamType::Choice:
            for (const ChoiceOption& o : d.choices)
                if (o.key == text) return text;
            {
                std::string keys;
                for (const ChoiceOption& o : d.choices) keys += (keys.empty() ? "" : ", ") + o.key;
                throw FileFormatError("unknown value " + quoteText(text, '"') + " for " + d.key + ", expected one of: " + keys);
            }
        case ParamType::Text: return text;
        }
    } catch (const UnitError& e) {
        throw FileFormatError(d.key + ": " + e.what());
    }
    return 0.0;
}

QByteArray migrateFormat(const QByteArray& bytes, int fromVersion) {
    // formatVersion 1 is the first; migrations of later versions go here, one step per version.
    (void)fromVersion;
    return bytes;
}

Model parseProject(const QByteArray& bytes, const QString& fileLabel, const Registry& registry) {
    QJsonParseError err;
    QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        const auto [line, col] = lineColumn(bytes, err.offset);
        throw FileFormatError(fileLabel.toStdString() + ":" + std::to_string(line) + ":" + std::to_string(col) +
                              ": malformed JSON: " + err.errorString().toStdString());
    }
    if (!doc.isObject()) throw FileFormatError(fileLabel.toStdString() + ": expected a JSON object at the top level");
    const int version = doc.object().value("formatVersion").toInt(kFormatVersion);
    if (version < kFormatVersion) doc = QJsonDocument::fromJson(migrateFormat(bytes, version));
    return Reader(fileLabel, registry).read(doc.object());
}

Model loadProject(const QString& path, const Registry& registry) {
    QFile f(path);
    if (!f.exists()) throw FileFormatError(path.toStdString() + ": no such file");
    if (!f.open(QIODevice::ReadOnly)) throw FileFormatError(path.toStdString() + ": cannot read: " + f.errorString().toStdString());
    return parseProject(f.readAll(), path, registry);
}

QByteArray serializeProject(const Model& model) {
    QJsonObject root;
    root["format"] = "endstop-project";
    root["formatVersion"] = kFormatVersion;
    root["generator"] = kGenerator;
    const SimulationSettings& s = model.simulation();
    root["simulation"] = QJsonObject{{"stop_time", s.stopTime},
                                     {"relative_tolerance", s.relativeTolerance},
                                     {"absolute_tolerance", s.absoluteTolerance},
                                     {"max_step", s.maxStep},
                                     {"output_interval", s.outputInterval},
                                     {"linear_solver", QString::fromStdString(s.linearSolver)}};
    QJsonArray blocks;
    for (const BlockSpec& b : model.blocks()) {
        QJsonObject o{{"name", QString::fromStdString(b.name)}, {"type", QString::fromStdString(b.type)}, {"typeVersion", b.typeVersion}};
        QJsonObject params;
        for (const auto& [key, value] : b.params) params[QString::fromStdString(key)] = toJson(value);
        if (!params.isEmpty()) o["parameters"] = params;
        QJsonObject ui{{"pos", QJsonArray{b.ui.x, b.ui.y}}};
        if (b.ui.rotation != 0) ui["rotation"] = b.ui.rotation;
        if (b.ui.flipped) ui["flip"] = true;
        if (!b.ui.displayUnits.empty()) {
            QJsonObject units;
            for (const auto& [key, unit] : b.ui.displayUnits) units[QString::fromStdString(key)] = QString::fromStdString(unit);
            ui["units"] = units;
        }
        o["ui"] = ui;
        blocks.append(o);
    }
    root["blocks"] = blocks;
    QJsonArray connections;
    for (const Connection& c : model.connections())
        connections.append(QJsonArray{QString::fromStdString(c.a.toString()), QString::fromStdString(c.b.toString())});
    root["connections"] = connections;
    QJsonArray plots;
    for (const PlotSpec& p : model.plots()) {
        QJsonArray signals;
        for (const std::string& s2 : p.signals) signals.append(QString::fromStdString(s2));
        plots.append(QJsonObject{{"title", QString::fromStdString(p.title)}, {"signals", signals}});
    }
    root["plots"] = plots;
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

void saveProject(const Model& model, const QString& path) {
    writeFile(path, serializeProject(model));
}

}  // namespace endstop::core::io
