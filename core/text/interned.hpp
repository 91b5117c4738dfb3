// SPDX-License-Identifier: GPL-3.0-or-later
// Interned text: one copy of each distinct string for the whole program, a pointer per use. For
// the texts that repeat across the hundreds of thousands of result columns of a large network
// (units, labels, variable names): a 10,000-mass chain has 150,000 columns and a few dozen
// distinct such texts, and a std::string each cost 32 bytes and often a heap block. The copies are
// never freed, so only texts from a small set belong here (descriptors, never user names).
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace endstop::core {

class Interned {
public:
    Interned() : m_text(none()) {}
    Interned(std::string_view text);   // NOLINT: a column is built from plain strings
    Interned(const std::string& text) : Interned(std::string_view(text)) {}   // NOLINT
    Interned(const char* text) : Interned(std::string_view(text)) {}          // NOLINT

    const std::string& str() const { return *m_text; }
    operator const std::string&() const { return *m_text; }   // NOLINT: reads as the string it is
    bool empty() const { return m_text->empty(); }
    std::size_t size() const { return m_text->size(); }

    // one copy per text: equal texts are the same copy (an overload per kind of text, or a
    // string would convert either way)
    friend bool operator==(const Interned& a, const Interned& b) { return a.m_text == b.m_text; }
    friend bool operator==(const Interned& a, const std::string& b) { return *a.m_text == b; }
    friend bool operator==(const Interned& a, std::string_view b) { return *a.m_text == b; }
    friend bool operator==(const Interned& a, const char* b) { return *a.m_text == b; }
    friend std::string operator+(const Interned& a, std::string_view b) { return *a.m_text + std::string(b); }
    friend std::ostream& operator<<(std::ostream& out, const Interned& t) { return out << *t.m_text; }

private:
    static const std::string* none();   // the empty text
    const std::string* m_text;
};

}   // namespace endstop::core
