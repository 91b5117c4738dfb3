// SPDX-License-Identifier: GPL-3.0-or-later
// CSV fields as RFC 4180 has them: a field with a comma, a quote or a line break is written in
// double quotes with inner quotes doubled. Our own files (results, events, summaries) and the
// design tables users write in a spreadsheet both go through here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace endstop::core {

// `text` as one CSV field; line breaks become spaces (a summary row stays one line).
std::string csvField(std::string_view text);

// One line of a CSV file (without its line break) split into fields, quotes removed.
// nullopt if a quoted field is not closed.
std::optional<std::vector<std::string>> splitCsvLine(std::string_view line);

}   // namespace endstop::core
