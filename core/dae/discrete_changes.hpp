// SPDX-License-Identifier: GPL-3.0-or-later
// Which blocks' discrete states differ between two copies of the discrete vector, found without
// visiting every block: the copies are compared in chunks (memcmp), and only a chunk that differs
// is looked at entry by entry, each entry mapped to its block through the blocks' offsets. An
// event changes a few blocks, so what a restart spends on them (the sums, the id mask, the live
// event functions) follows what changed rather than the size of the network (docs/engine.md,
// "Modes and events"). Bitwise: a -0 where there was a 0 counts as a change.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

namespace endstop::core::dae {

struct DaeSystem;

class DiscreteChanges {
public:
    explicit DiscreteChanges(const DaeSystem& sys);

    // f(block) once for every block with a discrete that differs between before and now, in
    // block order
    template <class F> void forEach(const double* before, const double* now, F&& f) const {
        constexpr std::size_t kChunk = 64;
        int last = -1;
        for (std::size_t from = 0; from < m_size; from += kChunk) {
            const std::size_t n = std::min(kChunk, m_size - from);
            if (std::memcmp(before + from, now + from, n * sizeof(double)) == 0) continue;
            for (std::size_t i = from; i < from + n; ++i) {
                if (std::memcmp(before + i, now + i, sizeof(double)) == 0) continue;
                const auto it = std::upper_bound(m_offset.begin(), m_offset.end(), static_cast<int>(i)) - 1;
                const int block = m_block[static_cast<std::size_t>(it - m_offset.begin())];
                if (block != last) f(last = block);
            }
        }
    }

    // the discretes of `blocks` (as forEach() listed them) copied from `from` into `to`: the two
    // copies agree again at the cost of what changed
    void copy(const std::vector<int>& blocks, const double* from, double* to) const;

private:
    const DaeSystem& m_sys;
    std::size_t m_size;
    std::vector<int> m_block, m_offset;   // the blocks with discretes, and where theirs start
};

}   // namespace endstop::core::dae
