// SPDX-License-Identifier: GPL-3.0-or-later
// Sparsity: block structures and bindings ⇒ the Jacobian's CSC pattern (Pattern) and, per block,
// where each local (row, slot) derivative lands in it.
#include "core/dae/assemble_stages.hpp"

#include <algorithm>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// Local rows in global numbering: own rows, port rows, then their derivatives.
int globalRow(const BindingDraft& b, int lr) {
    const int nv = static_cast<int>(b.ownRow.size()), np = static_cast<int>(b.portRow.size());
    if (lr < nv) return b.ownRow[at(lr)];
    if (lr < nv + np) return b.portRow[at(lr - nv)];
    if (lr < 2 * nv + np) return b.ownDiff[at(lr - nv - np)];
    return b.portDiff[at(lr - 2 * nv - np)];
}

}   // namespace

// structures and dummies ⇒ Jacobian pattern and each block's Jacobian map. Sparsity: the union over
// every mode (BlockStructure::all), with dummy derivatives and the rows' time derivatives.
void buildPattern(DaeSystem& s, std::vector<BindingDraft>& drafts) {
    const int n = s.size();
    std::vector<std::vector<int>> colRows(at(n));
    std::vector<std::pair<int, int>> local;   // (local row, slot)
    for (std::size_t bi = 0; bi < s.bindings.size(); ++bi) {
        const BindingDraft& b = drafts[bi];
        const LocalIncidence& inc = s.structures[at(s.structureOf[bi])].all;
        const int nv = static_cast<int>(b.ownRow.size()), np = static_cast<int>(b.portRow.size());
        local.clear();
        for (int lr = 0; lr < nv + np; ++lr) {
            const bool own = lr < nv;
            const int diffRow = own ? b.ownDiff[at(lr)] : b.portDiff[at(lr - nv)];
            const int dlr = own ? nv + np + lr : 2 * nv + np + (lr - nv);
            for (const auto& [k, o] : inc[at(lr)]) {
                const int ds = k < b.baseSlots ? b.derSlot[at(k)] : -1;
                local.emplace_back(lr, o == 1 && ds >= 0 ? ds : k);
                if (diffRow < 0) continue;
                local.emplace_back(dlr, k);
                local.emplace_back(dlr, ds >= 0 ? ds : k);
            }
        }
        for (const auto& [lr, k] : local) {
            const int row = globalRow(b, lr);
            if (row >= 0) colRows[at(b.slot[at(k)])].push_back(row);
        }
    }
    s.pattern = Pattern::fromColumns(colRows);
    for (BindingDraft& b : drafts) {
        const int ns = static_cast<int>(b.slot.size());
        // the rows' derivatives only where some row is differentiated (Binding::jacRows)
        const int localRows = static_cast<int>(b.ownRow.size() + b.portRow.size() +
                                               (b.tangent ? b.ownDiff.size() + b.portDiff.size() : 0));
        b.jac.assign(at(localRows * ns), -1);
        for (int lr = 0; lr < localRows; ++lr) {
            const int row = globalRow(b, lr);
            if (row < 0) continue;
            for (int k = 0; k < ns; ++k) b.jac[at(lr * ns + k)] = s.pattern.find(row, b.slot[at(k)]);
        }
    }
}

Pattern Pattern::fromColumns(std::vector<std::vector<int>>& colRows) {
    Pattern p;
    p.n = static_cast<int>(colRows.size());
    p.colPtr.assign(colRows.size() + 1, 0);
    std::size_t nnz = 0;
    for (auto& rows : colRows) {
        std::sort(rows.begin(), rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
        nnz += rows.size();
    }
    // kept for the whole run: at its size, not with the slack of growing it (0.5 MB at 40,000 blocks)
    p.rowIdx.reserve(nnz);
    for (std::size_t c = 0; c < colRows.size(); ++c) {
        p.rowIdx.insert(p.rowIdx.end(), colRows[c].begin(), colRows[c].end());
        p.colPtr[c + 1] = static_cast<int>(p.rowIdx.size());
    }
    return p;
}

int Pattern::find(int row, int col) const {
    const auto first = rowIdx.begin() + colPtr[at(col)], last = rowIdx.begin() + colPtr[at(col + 1)];
    const auto it = std::lower_bound(first, last, row);
    return it != last && *it == row ? static_cast<int>(it - rowIdx.begin()) : -1;
}

}   // namespace endstop::core::dae
