// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/text/quote.hpp"

#include <cstdio>

namespace endstop::core {

std::string excerpt(std::string_view text, std::size_t limit) {
    std::string out;
    std::size_t shown = 0, i = 0;
    for (; i < text.size() && shown < limit; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else if (c == '\r')
            out += "\\r";
        else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
        if ((c & 0xC0) != 0x80) ++shown;   // characters, not UTF-8 continuation bytes
    }
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80)
        out += text[i++];   // finish a character
    if (i < text.size()) out += "... (" + std::to_string(text.size() - i) + " more bytes)";
    return out;
}

std::string quoteText(std::string_view text, char quote, std::size_t limit) {
    return quote + excerpt(text, limit) + quote;
}

}   // namespace endstop::core
