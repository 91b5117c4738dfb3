// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/migrate.hpp"

#include "core/io/project_file.hpp"
#include "core/errors.hpp"

#include <QJsonArray>

namespace endstop::core::io {

namespace {

// A version 1 block's parameters with quantities in strings converted to SI numbers.
QJsonObject quantitiesToSI(const QJsonObject& block, const Registry& registry) {
    const QJsonValue params = block.value("parameters");
    const std::string type = block.value("type").toString().toStdString();
    if (!registry.find(type) || !params.isObject()) return block;
    QJsonObject converted = params.toObject();
    for (const ParamDesc& d : registry.describe(type).params) {
        const QString key = QString::fromStdString(d.key);
        if (d.type != ParamType::Real || !converted.value(key).isString()) continue;
        try {
            converted[key] = std::get<double>(parseParameterText(converted.value(key).toString().toStdString(), d));
        } catch (const Error&) {   // left for the reader, which names the path
        }
    }
    QJsonObject out = block;
    out["parameters"] = converted;
    return out;
}

QJsonObject version1To2(QJsonObject root, const Registry& registry) {
    if (root.value("blocks").isArray()) {
        QJsonArray blocks = root.value("blocks").toArray();
        for (qsizetype i = 0; i < blocks.size(); ++i)
            if (blocks[i].isObject()) blocks[i] = quantitiesToSI(blocks[i].toObject(), registry);
        root["blocks"] = blocks;
    }
    root["formatVersion"] = 2;
    return root;
}

}   // namespace

QJsonObject migrateFormat(QJsonObject root, int from, const Registry& registry) {
    if (from < 2) root = version1To2(std::move(root), registry);
    return root;
}

}   // namespace endstop::core::io
