// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/text/csv.hpp"

namespace endstop::core {

std::string csvField(std::string_view text) {
    std::string flat(text);
    for (char& c : flat)
        if (c == '\n' || c == '\r') c = ' ';
    if (flat.find_first_of(",\"") == std::string::npos) return flat;
    std::string out = "\"";
    for (char c : flat) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::optional<std::vector<std::string>> splitCsvLine(std::string_view line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c != '"')
                fields.back() += c;
            else if (i + 1 < line.size() && line[i + 1] == '"')
                fields.back() += line[++i];
            else
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    if (quoted) return std::nullopt;
    return fields;
}

}   // namespace endstop::core
