// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/results/units_sidecar.hpp"

#include "core/io/output_file.hpp"

#include <QFileInfo>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string_view>

namespace endstop::core {

std::vector<ColumnInfo> eventColumnsInfo() {
    return {{"time", "s", "Time of the event"},
            {"block", "", "Name of the block"},
            {"kind", "", "impact, contact, release, lock, unlock, bound, engage, disengage or time"},
            {"velocity", "m/s or rad/s",
             "The block's relative velocity just before the event (rad/s for rotational blocks)"}};
}

namespace {

struct Entry {
    std::string_view name, unit, description;
};

// A JSON string as QJsonDocument writes it: UTF-8, with quote, backslash and control characters
// escaped.
void appendString(std::string& out, std::string_view s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                static const char hex[] = "0123456789abcdef";
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

// entry(i) for i < count; written sorted by name (a JSON object's keys, as QJsonObject keeps them;
// a name given twice keeps its last entry, as QJsonObject::insert does)
template <class EntryAt> void writeSidecar(const std::string& csvPath, std::size_t count, EntryAt entry) {
    if (csvPath.empty() || csvPath == "-" || !QFileInfo(QString::fromStdString(csvPath)).isFile()) return;
    std::vector<std::uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return entry(a).name < entry(b).name; });
    io::OutputFile file(csvPath + ".units.json");
    std::string buffer = "{\n";
    bool first = true;
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (i + 1 < order.size() && entry(order[i]).name == entry(order[i + 1]).name) continue;
        const Entry e = entry(order[i]);
        if (!first) buffer += ",\n";
        first = false;
        buffer += "    ";
        appendString(buffer, e.name);
        buffer += ": {\n        \"description\": ";
        appendString(buffer, e.description);
        buffer += ",\n        \"unit\": ";
        appendString(buffer, e.unit);
        buffer += "\n    }";
        if (buffer.size() >= (1u << 16)) {
            file.write(buffer);
            buffer.clear();
        }
    }
    buffer += order.empty() ? "}\n" : "\n}\n";
    file.write(buffer);
    file.commit();
}

}   // namespace

void writeUnitsSidecar(const std::string& csvPath, const std::vector<ColumnInfo>& columns) {
    writeSidecar(csvPath, columns.size(), [&](std::size_t i) {
        const ColumnInfo& c = columns[i];
        return Entry{c.name, c.unit, c.description};
    });
}

void writeResultsUnitsSidecar(const std::string& csvPath, const std::vector<Column>& columns) {
    writeSidecar(csvPath, columns.size() + 1, [&](std::size_t i) {
        if (i == 0) return Entry{"time", "s", "Time"};
        const Column& c = columns[i - 1];
        return Entry{c.name, c.unit.str(), c.label.str()};
    });
}

}   // namespace endstop::core
