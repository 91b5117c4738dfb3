// SPDX-License-Identifier: GPL-3.0-or-later
// The live roots of one run (run.hpp): which event functions IDA's root finding sees in the
// current discrete state, each an affine row over the reduced unknowns where its block gives
// one (Block::affineEvent), and which of them IDA sees while the resting part rests.
#include "core/solver/run.hpp"

#include <ida/ida.h>

#include <algorithm>

namespace endstop::core::solver::detail {

// IDA's root finding on the event functions that can cross zero in the current discrete state.
// A block with 5 event functions of which 1 is live in most modes (a hard stop out of contact)
// would otherwise have IDA scan all of them at every step. A live function that is affine in this state
// (Block::affineEvent) becomes a row over IDA's unknowns: no expansion, no call into its block.
void Run::initRoots(double t) {
    // the blocks whose discretes differ from the last call's: a journal, not a copy of the
    // discretes to compare with (800 kB in a chain of 10,000 stops)
    const bool incremental = m_journal.changes(m_rootReader, m_disc.data(), m_discChanged);
    std::vector<int> changed;
    const bool inPlace = incremental && rootsInPlace(t, changed);
    if (!inPlace) buildRoots(t, incremental);
    m_journal.seen(m_rootReader);
    // which live roots read a moving unknown: those of the blocks that changed, or all of them
    // after the roots were built again or the moving part changed
    m_rootMoves.resize(m_liveRoots.size(), 1);
    if (!inPlace || m_movesVersion != m_slotVersion) {
        for (std::size_t k = 0; k < m_liveRoots.size(); ++k) m_rootMoves[k] = rootMoves(static_cast<int>(k)) ? 1 : 0;
    } else {
        for (const int b : changed) {
            const std::size_t e = at(m_eventIndex[at(b)]);
            for (int k = m_blockFirst[e]; k < m_blockFirst[e] + m_blockCount[e]; ++k)
                m_rootMoves[at(k)] = rootMoves(k) ? 1 : 0;
        }
    }
    m_movesVersion = m_slotVersion;
    m_idaRoots.clear();   // in block order, as handleRoots() runs them
    for (std::size_t b = 0; b < m_blockFirst.size(); ++b)
        for (int k = m_blockFirst[b]; k < m_blockFirst[b] + m_blockCount[b]; ++k)
            if (!m_resting || m_rootMoves[at(k)] != 0) m_idaRoots.push_back(k);
    m_rootsFound.assign(m_idaRoots.size(), 0);
    if (m_sys.eventCount > 0)
        check(IDARootInit(m_mem.get(), static_cast<int>(m_idaRoots.size()), m_idaRoots.empty() ? nullptr : rootFn),
              "IDARootInit");
}

// Live root k while resting: not affine (its block is evaluated), or a row of it reads an
// unknown of the moving part; otherwise it is a constant and IDA need not see it.
bool Run::rootMoves(int k) const {
    if (!m_resting || m_rootAffine[at(k)] == 0) return true;
    for (int r = m_rootRows[at(k)]; r < m_rootRows[at(k + 1)]; ++r)
        for (int e = m_rowFirst[at(r)]; e < m_rowFirst[at(r + 1)]; ++e)
            if (m_slot[at(m_rootColumn[at(e)])] >= 0) return true;
    return false;
}

constexpr std::size_t kKeptRootEntries = 4096;

void Run::swapRoots(RootArrays& a) {
    std::swap(a.live, m_liveRoots);
    std::swap(a.block, m_rootBlock);
    std::swap(a.affine, m_rootAffine);
    std::swap(a.rootRows, m_rootRows);
    std::swap(a.rowFirst, m_rowFirst);
    std::swap(a.column, m_rootColumn);
    std::swap(a.constant, m_rowConstant);
    std::swap(a.nudge, m_rowNudge);
    std::swap(a.value, m_rootValue);
}

void Run::clearRoots() {
    m_liveRoots.clear();
    m_rootBlock.clear();
    m_rootAffine.clear();
    m_rootRows.assign(1, 0);
    m_rowFirst.assign(1, 0);
    m_rootColumn.clear();
    m_rowConstant.clear();
    m_rowNudge.clear();
    m_rootValue.clear();
}

// block b's live roots appended, evaluated in its current discrete state; true if one of them
// is not affine (its block is then evaluated in rootFn)
bool Run::addBlockRoots(int b, double t) {
    const dae::Binding& bind = m_sys.bindings[at(b)];
    bool evaluate = false;
    m_ev.withEq(b, state(t), [&](const Eq<double>& eq) {
        const auto [first, last] = bind.block->liveWindow(eq);   // within [0, events): tst_contract
        m_liveFlags.assign(at(last - first), 1);
        bind.block->liveEvents(eq, m_liveFlags);
        for (int i = first; i < last; ++i) {
            if (m_liveFlags[at(i - first)] == 0) continue;
            m_liveRoots.push_back(bind.eventOffset + i);
            m_rootBlock.push_back(b);
            AffineEvent form;
            const bool affine = bind.block->affineEvent(eq, i, form);
            addRootForm(b, affine ? &form : nullptr);
            evaluate = evaluate || m_rootAffine.back() == 0;
        }
    });
    return evaluate;
}

// roots [k0, k1) of `from` appended, of block b; true if one of them is not affine
bool Run::appendRoots(const RootArrays& from, int k0, int k1, int b) {
    bool evaluate = false;
    for (int k = k0; k < k1; ++k) {
        for (int r = from.rootRows[at(k)]; r < from.rootRows[at(k + 1)]; ++r) {
            m_rowConstant.push_back(from.constant[at(r)]);
            m_rowNudge.push_back(from.nudge[at(r)]);
            const int i0 = from.rowFirst[at(r)], i1 = from.rowFirst[at(r + 1)];
            m_rootColumn.insert(m_rootColumn.end(), from.column.begin() + i0, from.column.begin() + i1);
            m_rootValue.insert(m_rootValue.end(), from.value.begin() + i0, from.value.begin() + i1);
            m_rowFirst.push_back(static_cast<int>(m_rootColumn.size()));
        }
        m_liveRoots.push_back(from.live[at(k)]);
        m_rootBlock.push_back(b);
        m_rootAffine.push_back(from.affine[at(k)]);
        m_rootRows.push_back(static_cast<int>(m_rowConstant.size()));
        evaluate = evaluate || from.affine[at(k)] == 0;
    }
    return evaluate;
}

// The arrays built again in event block order, without gaps: the blocks whose discretes are as
// at the last call (incremental) copied, the others evaluated.
void Run::buildRoots(double t, bool incremental) {
    if (incremental) {
        m_rootChanged.assign(m_sys.bindings.size(), 0);
        for (const int b : m_discChanged) m_rootChanged[at(b)] = 1;
    }
    swapRoots(m_old);
    std::swap(m_old.blockFirst, m_blockFirst);
    std::swap(m_old.blockCount, m_blockCount);
    clearRoots();
    m_rootEvaluated.clear();
    m_blockFirst.assign(m_sys.eventBlocks.size(), 0);
    m_blockCount.assign(m_sys.eventBlocks.size(), 0);
    for (std::size_t e = 0; e < m_sys.eventBlocks.size(); ++e) {
        const int b = m_sys.eventBlocks[e];
        m_blockFirst[e] = static_cast<int>(m_liveRoots.size());
        const bool evaluate =
            incremental && !m_rootChanged[at(b)]   // as at the last call: copied
                ? appendRoots(m_old, m_old.blockFirst[e], m_old.blockFirst[e] + m_old.blockCount[e], b)
                : addBlockRoots(b, t);
        m_blockCount[e] = static_cast<int>(m_liveRoots.size()) - m_blockFirst[e];
        if (evaluate) m_rootEvaluated.push_back(b);
    }
    m_deadRoots = 0;
    // kept for the next build while small, so that an event of a small model allocates no roots;
    // a large network's roots would be held twice
    if (m_old.live.capacity() + m_old.column.capacity() > kKeptRootEntries) m_old = RootArrays{};
}

// The blocks whose discretes changed since the last call, evaluated again: written where their
// roots stand when each keeps its number of live roots, rows and entries (a stop's rows in
// contact), appended at the end otherwise (a stop coming into contact or leaving it), the old
// ones left dead. An event then costs what changed. false: the dead roots would outnumber the
// live ones; nothing is written, and buildRoots() builds the arrays again without gaps.
bool Run::rootsInPlace(double t, std::vector<int>& changed) {
    if (m_eventIndex.empty()) {
        m_eventIndex.assign(m_sys.bindings.size(), -1);
        for (std::size_t e = 0; e < m_sys.eventBlocks.size(); ++e)
            m_eventIndex[at(m_sys.eventBlocks[e])] = static_cast<int>(e);
    }
    changed.clear();   // event blocks
    for (const int b : m_discChanged)
        if (m_eventIndex[at(b)] >= 0) changed.push_back(b);
    RootArrays fresh;
    swapRoots(fresh);
    clearRoots();
    std::vector<int> first;   // where each changed block's roots start in fresh
    std::vector<char> evaluate;
    for (const int b : changed) {
        first.push_back(static_cast<int>(m_liveRoots.size()));
        evaluate.push_back(addBlockRoots(b, t) ? 1 : 0);
    }
    first.push_back(static_cast<int>(m_liveRoots.size()));
    swapRoots(fresh);   // the arrays in use back; fresh holds the changed blocks' roots
    auto sameShape = [&](std::size_t c) {
        const std::size_t e = at(m_eventIndex[at(changed[c])]);
        const int k0 = m_blockFirst[e];
        if (m_blockCount[e] != first[c + 1] - first[c]) return false;
        for (int j = first[c]; j < first[c + 1]; ++j) {
            const int k = k0 + j - first[c], r0 = m_rootRows[at(k)], f0 = fresh.rootRows[at(j)];
            if (m_rootRows[at(k) + 1] - r0 != fresh.rootRows[at(j) + 1] - f0) return false;
            for (int r = 0; r < m_rootRows[at(k) + 1] - r0; ++r)
                if (m_rowFirst[at(r0 + r) + 1] - m_rowFirst[at(r0 + r)] !=
                    fresh.rowFirst[at(f0 + r) + 1] - fresh.rowFirst[at(f0 + r)])
                    return false;
        }
        return true;
    };
    std::vector<char> same(changed.size(), 0);
    int dead = m_deadRoots;
    for (std::size_t c = 0; c < changed.size(); ++c) {
        same[c] = sameShape(c) ? 1 : 0;
        if (same[c] == 0) dead += m_blockCount[at(m_eventIndex[at(changed[c])])];
    }
    if (dead > static_cast<int>(m_liveRoots.size()) / 2 + 64) return false;
    m_deadRoots = dead;
    for (std::size_t c = 0; c < changed.size(); ++c) {
        const int b = changed[c], e = m_eventIndex[at(b)];
        if (same[c] == 0) {
            m_blockFirst[at(e)] = static_cast<int>(m_liveRoots.size());
            appendRoots(fresh, first[c], first[c + 1], b);
            m_blockCount[at(e)] = first[c + 1] - first[c];
        }
        for (int j = first[c]; same[c] != 0 && j < first[c + 1]; ++j) {
            const int k = m_blockFirst[at(e)] + j - first[c], r0 = m_rootRows[at(k)], f0 = fresh.rootRows[at(j)];
            m_liveRoots[at(k)] = fresh.live[at(j)];
            m_rootAffine[at(k)] = fresh.affine[at(j)];
            for (int r = 0; r < m_rootRows[at(k) + 1] - r0; ++r) {
                m_rowConstant[at(r0 + r)] = fresh.constant[at(f0 + r)];
                m_rowNudge[at(r0 + r)] = fresh.nudge[at(f0 + r)];
                const int from = fresh.rowFirst[at(f0 + r)], to = fresh.rowFirst[at(f0 + r) + 1];
                std::copy(fresh.column.begin() + from, fresh.column.begin() + to,
                          m_rootColumn.begin() + m_rowFirst[at(r0 + r)]);
                std::copy(fresh.value.begin() + from, fresh.value.begin() + to,
                          m_rootValue.begin() + m_rowFirst[at(r0 + r)]);
            }
        }
        // m_rootEvaluated stays in event block order
        const auto it = std::find(m_rootEvaluated.begin(), m_rootEvaluated.end(), b);
        if (evaluate[c] != 0 && it == m_rootEvaluated.end())
            m_rootEvaluated.insert(std::find_if(m_rootEvaluated.begin(), m_rootEvaluated.end(),
                                                [&](int other) { return m_eventIndex[at(other)] > e; }),
                                   b);
        else if (evaluate[c] == 0 && it != m_rootEvaluated.end())
            m_rootEvaluated.erase(it);
    }
    return true;
}

// the row of the live root just added, over IDA's unknowns: form's terms through the block's
// binding and the reduction; not affine (m_rootAffine 0) without a form or through an unknown
// that only an expansion gives
void Run::addRootForm(int block, const AffineEvent* form) {
    const dae::Binding& bind = m_sys.bindings[at(block)];
    const std::size_t rows = m_rowConstant.size(), entries = m_rootColumn.size();
    bool affine = form != nullptr;
    // one row per form: terms [from, to), constant, nudge
    auto row = [&](int from, int to, double constant, double nudge) {
        m_terms.clear();
        for (int k = from; affine && k < to; ++k) {
            const AffineEvent::Term& term = form->terms[at(k)];
            const int u = term.var >= 0 ? bind.varUnknown()[at(term.var)] : bind.portUnknown()[at(term.port)];
            if (u >= 0) affine = m_rev.addAffine(u, term.coefficient, constant, m_terms);
        }
        for (const dae::ReducedEvaluator::Term& term : m_terms) {
            m_rootColumn.push_back(term.index);
            m_rootValue.push_back(term.coefficient);
        }
        m_rowConstant.push_back(constant);
        m_rowNudge.push_back(nudge);
        m_rowFirst.push_back(static_cast<int>(m_rootColumn.size()));
    };
    if (affine) {
        row(0, form->split < 0 ? form->count : form->split, form->constant, form->nudge);
        if (form->split >= 0) row(form->split, form->count, form->constant2, form->nudge2);
    }
    if (!affine) {   // drop what was added
        m_rowConstant.resize(rows);
        m_rowNudge.resize(rows);
        m_rowFirst.resize(rows + 1);
        m_rootColumn.resize(entries);
        m_rootValue.resize(entries);
    }
    m_rootAffine.push_back(affine ? 1 : 0);
    m_rootRows.push_back(static_cast<int>(m_rowConstant.size()));
}

}   // namespace endstop::core::solver::detail
