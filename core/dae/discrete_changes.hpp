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

// The blocks whose discretes were written since each of a few readers last looked, kept as an
// undo log: a write records the block's discretes as they were before it, so a reader finds what
// differs now from what it last saw by comparing those with the vector's (bitwise, as
// DiscreteChanges does) instead of keeping a copy of the whole vector (0.8 MB each in a chain of
// 10,000 stops). A run writes the discretes in one place (Run::withCtx); its live roots, its
// expansion while resting and its id mask each read the journal. The log keeps only what some
// reader has not seen; when it would outgrow one copy of the vector, the reader furthest behind
// starts again (its next changes() is false, and it looks at every block).
class DiscreteJournal {
public:
    explicit DiscreteJournal(const DaeSystem& sys);

    int addReader();   // a reader that has seen nothing yet
    // the whole vector was set (a new run's initial values): every reader starts again
    void forget();
    // `block`'s discretes in `discrete` are about to be written
    void beforeWrite(int block, const double* discrete);
    // The blocks whose discretes in `now` differ from what they were at `reader`'s last seen(), in
    // block order, into out. false: the reader has seen nothing since it was added or forgotten,
    // and must look at every block.
    bool changes(int reader, const double* now, std::vector<int>& out) const;
    void seen(int reader);   // the reader is up to date with the vector

private:
    struct Entry {
        int block;
        std::size_t values;   // into m_values
    };
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t earliest() const;         // the first entry some reader has not seen; kNone: no reader
    void dropBefore(std::size_t entry);   // the entries every reader has seen
    const DaeSystem& m_sys;
    std::vector<Entry> m_log;
    std::vector<double> m_values;
    std::vector<std::size_t> m_from;      // per reader: its first entry not seen, kNone if none seen
    mutable std::vector<char> m_listed;   // per block, while changes() runs
};

}   // namespace endstop::core::dae
