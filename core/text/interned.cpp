// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/text/interned.hpp"

#include <mutex>
#include <unordered_set>

namespace endstop::core {

namespace {

// Columns are made on every thread of a study: one lock. The set's nodes never move.
struct Pool {
    std::mutex mutex;
    std::unordered_set<std::string> texts;
};

Pool& pool() {
    static Pool* p = new Pool;   // never destroyed: texts may be read during static destruction
    return *p;
}

}   // namespace

const std::string* Interned::none() {
    static const std::string* e = new std::string;
    return e;
}

Interned::Interned(std::string_view text) : m_text(none()) {
    if (text.empty()) return;
    Pool& p = pool();
    const std::lock_guard lock(p.mutex);
    std::string key(text);
    auto it = p.texts.find(key);
    if (it == p.texts.end()) it = p.texts.insert(std::move(key)).first;
    m_text = &*it;
}

}   // namespace endstop::core
