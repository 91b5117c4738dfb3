// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dae/discrete_changes.hpp"

#include "core/dae/dae_system.hpp"

#include <algorithm>
#include <cstring>

namespace endstop::core::dae {

DiscreteChanges::DiscreteChanges(const DaeSystem& sys) : m_sys(sys), m_size(sys.discrete0.size()) {
    for (std::size_t bi = 0; bi < sys.bindings.size(); ++bi)
        if (sys.bindings[bi].discreteCount > 0) {
            m_block.push_back(static_cast<int>(bi));
            m_offset.push_back(sys.bindings[bi].discreteOffset);
        }
}

void DiscreteChanges::copy(const std::vector<int>& blocks, const double* from, double* to) const {
    for (const int b : blocks) {
        const Binding& bind = m_sys.bindings[static_cast<std::size_t>(b)];
        std::copy_n(from + bind.discreteOffset, bind.discreteCount, to + bind.discreteOffset);
    }
}

DiscreteJournal::DiscreteJournal(const DaeSystem& sys) : m_sys(sys), m_listed(sys.bindings.size(), 0) {}

int DiscreteJournal::addReader() {
    m_from.push_back(kNone);
    return static_cast<int>(m_from.size()) - 1;
}

void DiscreteJournal::forget() {
    m_log.clear();
    m_values.clear();
    std::fill(m_from.begin(), m_from.end(), kNone);
}

void DiscreteJournal::beforeWrite(int block, const double* discrete) {
    const Binding& b = m_sys.bindings[static_cast<std::size_t>(block)];
    const auto count = static_cast<std::size_t>(b.discreteCount);
    if (count == 0) return;
    // the log would outgrow a copy of the vector: the readers furthest behind start again
    while (m_values.size() + count > m_sys.discrete0.size()) {
        const std::size_t last = earliest();
        if (last < m_log.size())
            for (std::size_t& f : m_from)
                if (f == last) f = kNone;
        dropBefore(earliest());
    }
    if (earliest() == kNone) return;   // no reader to tell
    m_log.push_back({block, m_values.size()});
    m_values.insert(m_values.end(), discrete + b.discreteOffset, discrete + b.discreteOffset + b.discreteCount);
}

bool DiscreteJournal::changes(int reader, const double* now, std::vector<int>& out) const {
    out.clear();
    const std::size_t from = m_from[static_cast<std::size_t>(reader)];
    if (from == kNone) return false;
    // a block's first entry since the reader looked holds what the reader saw
    for (std::size_t e = from; e < m_log.size(); ++e) {
        const int block = m_log[e].block;
        char& listed = m_listed[static_cast<std::size_t>(block)];
        if (listed) continue;
        listed = 1;
        const Binding& b = m_sys.bindings[static_cast<std::size_t>(block)];
        if (std::memcmp(m_values.data() + m_log[e].values, now + b.discreteOffset,
                        static_cast<std::size_t>(b.discreteCount) * sizeof(double)) != 0)
            out.push_back(block);
    }
    for (std::size_t e = from; e < m_log.size(); ++e) m_listed[static_cast<std::size_t>(m_log[e].block)] = 0;
    std::sort(out.begin(), out.end());
    return true;
}

void DiscreteJournal::seen(int reader) {
    m_from[static_cast<std::size_t>(reader)] = m_log.size();
    dropBefore(earliest());   // what every reader has seen
}

std::size_t DiscreteJournal::earliest() const {
    std::size_t first = kNone;
    for (const std::size_t f : m_from) first = std::min(first, f);
    return first;
}

void DiscreteJournal::dropBefore(std::size_t entry) {
    if (entry == kNone || entry >= m_log.size()) {   // no reader needs any of it
        m_log.clear();
        m_values.clear();
        for (std::size_t& f : m_from)
            if (f != kNone) f = 0;
        return;
    }
    if (entry == 0) return;
    const std::size_t values = m_log[entry].values;
    m_log.erase(m_log.begin(), m_log.begin() + static_cast<std::ptrdiff_t>(entry));
    for (Entry& e : m_log) e.values -= values;
    m_values.erase(m_values.begin(), m_values.begin() + static_cast<std::ptrdiff_t>(values));
    for (std::size_t& f : m_from)
        if (f != kNone) f -= entry;
}

}   // namespace endstop::core::dae
