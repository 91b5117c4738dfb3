// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/results/units_sidecar.hpp"

#include "core/io/output_file.hpp"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace endstop::core {

std::vector<ColumnInfo> resultColumnsInfo(const std::vector<Column>& columns) {
    std::vector<ColumnInfo> out{{"time", "s", "Time"}};
    out.reserve(columns.size() + 1);
    for (const Column& c : columns) out.push_back({c.name, c.unit, c.label});
    return out;
}

std::vector<ColumnInfo> eventColumnsInfo() {
    return {{"time", "s", "Time of the event"},
            {"block", "", "Name of the block"},
            {"kind", "", "impact, contact, release, lock, unlock, bound, engage, disengage or time"},
            {"velocity", "m/s or rad/s",
             "The block's relative velocity just before the event (rad/s for rotational blocks)"}};
}

void writeUnitsSidecar(const std::string& csvPath, const std::vector<ColumnInfo>& columns) {
    if (csvPath.empty() || csvPath == "-" || !QFileInfo(QString::fromStdString(csvPath)).isFile()) return;
    QJsonObject map;
    for (const ColumnInfo& c : columns)
        map.insert(QString::fromStdString(c.name), QJsonObject{{"unit", QString::fromStdString(c.unit)},
                                                               {"description", QString::fromStdString(c.description)}});
    io::writeFile(QString::fromStdString(csvPath + ".units.json"), QJsonDocument(map).toJson(QJsonDocument::Indented));
}

}   // namespace endstop::core
