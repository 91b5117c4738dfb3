// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/project_json.hpp"

#include "core/errors.hpp"

#include <QJsonDocument>
#include <QString>

namespace endstop::core::io {

std::pair<int, int> lineColumn(const QByteArray& bytes, int offset) {
    int line = 1, col = 1;
    for (int i = 0; i < offset && i < bytes.size(); ++i) {
        if (bytes[i] == '\n') {
            ++line;
            col = 1;
        } else if ((static_cast<unsigned char>(bytes[i]) & 0xC0) != 0x80)
            ++col;   // characters, not UTF-8 bytes
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

QJsonObject uiJson(const model::BlockUi& u) {
    QJsonObject ui{{"pos", QJsonArray{u.x, u.y}}};
    if (u.rotation != 0) ui["rotation"] = u.rotation;
    if (u.flipped) ui["flip"] = true;
    if (!u.displayUnits.empty()) {
        QJsonObject units;
        for (const auto& [key, unit] : u.displayUnits)
            units[QString::fromStdString(key)] = QString::fromStdString(unit);
        ui["units"] = units;
    }
    return ui;
}

QJsonArray blocksJson(const model::Model& model) {
    QJsonArray blocks;
    for (const model::BlockSpec& b : model.blocks()) {
        if (model::isPortType(b.type)) continue;   // written as the definition's ports
        QJsonObject o{{"name", QString::fromStdString(b.name)}, {"type", QString::fromStdString(b.type)}};
        if (model::subsystemOf(b.type).empty()) o["typeVersion"] = b.typeVersion;
        QJsonObject params;
        for (const auto& [key, value] : b.params) params[QString::fromStdString(key)] = toJson(value);
        if (!params.isEmpty()) o["parameters"] = params;
        o["ui"] = uiJson(b.ui);
        blocks.append(o);
    }
    return blocks;
}

QJsonArray connectionsJson(const model::Model& model) {
    QJsonArray connections;
    for (const model::Connection& c : model.connections())
        connections.append(QJsonArray{QString::fromStdString(c.a.toString()), QString::fromStdString(c.b.toString())});
    return connections;
}

QJsonArray parametersJson(const std::vector<model::ParameterDef>& params) {
    QJsonArray out;
    for (const model::ParameterDef& p : params)
        out.append(QJsonObject{{"name", QString::fromStdString(p.name)}, {"value", QString::fromStdString(p.value)}});
    return out;
}

QJsonObject subsystemJson(const model::SubsystemDef& d) {
    QJsonArray ports;
    for (const model::BlockSpec* p : d.ports())
        ports.append(QJsonObject{{"name", QString::fromStdString(p->name)},
                                 {"domain", QString::fromStdString(p->type.substr(model::kPortPrefix.size()))},
                                 {"ui", uiJson(p->ui)}});
    QJsonObject o{{"ports", ports}, {"blocks", blocksJson(d.body)}, {"connections", connectionsJson(d.body)}};
    if (!d.body.parameters().empty()) o["parameters"] = parametersJson(d.body.parameters());
    return o;
}

QJsonObject parseJsonObject(const QByteArray& bytes, const QString& fileLabel) {
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        const auto [line, col] = lineColumn(bytes, err.offset);
        throw FileFormatError(fileLabel.toStdString() + ":" + std::to_string(line) + ":" + std::to_string(col) +
                              ": malformed JSON: " + err.errorString().toStdString());
    }
    if (!doc.isObject()) throw FileFormatError(fileLabel.toStdString() + ": expected a JSON object at the top level");
    return doc.object();
}

}   // namespace endstop::core::io
