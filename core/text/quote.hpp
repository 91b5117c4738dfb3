// SPDX-License-Identifier: GPL-3.0-or-later
// Quoting user input inside messages: a message names what was wrong, it does not echo a
// megabyte of it. Control characters are escaped (\n, \t, \xNN) so that a message stays one line,
// and text longer than `limit` characters is cut with the count of what was left out.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace endstop::core {

inline constexpr std::size_t kQuoteLimit = 60;

// 'text' in quotes (single unless `quote` says otherwise), escaped and capped:
// quoteText("a\nb") == "'a\\nb'".
std::string quoteText(std::string_view text, char quote = '\'', std::size_t limit = kQuoteLimit);
// The same without the quotes.
std::string excerpt(std::string_view text, std::size_t limit = kQuoteLimit);

}   // namespace endstop::core
