// SPDX-License-Identifier: GPL-3.0-or-later
// DaeSystem: the model's equations as F(t, y, y') = 0 for IDA.
//
// Unknowns: the across value of every node without a reference, every block's own variables, and
// one dummy derivative per unknown chosen by index reduction. Rows: a force (torque) balance per
// such node, one row per own variable, and the time derivative of every row the reduction
// differentiated. Unknowns are numbered block by block in model order, so neighbours in the
// network are neighbours in y.
//
// Index reduction (dummy derivatives, Mattsson & Söderlind 1993): for the k rows E that
// Pantelides differentiates, k unknowns u whose derivatives appear in dE/dt with a nonsingular
// k x k coefficient block get a new algebraic unknown du standing for u'. E and dE/dt are both
// kept, so the original constraints hold exactly; originally algebraic unknowns (signals, massless
// nodes) are preferred as dummies.
#pragma once

#include "core/dae/block_structure.hpp"
#include "core/graph/topology.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace endstop::core::dae {

struct Unknown {
    enum class Kind { Node, Own, Dummy };
    Kind kind = Kind::Own;
    int block = -1;   // Own: owning block
    int index = -1;   // Node: node index; Own: variable index; Dummy: the unknown it differentiates
};

struct Row {
    enum class Kind { Node, Own, Derivative };
    Kind kind = Kind::Own;
    int block = -1;   // Own: owning block
    int index = -1;   // Node: node index; Own: variable index; Derivative: the row it differentiates
};

// What a plain binding's derSlot(), ownDiff() and portDiff() view: -1 throughout, longer than any
// of them (pack() stores the arrays of a block with more)
inline constexpr std::array<int, 4096> kNoDerivatives = [] {
    std::array<int, 4096> a{};
    a.fill(-1);
    return a;
}();

// One block's window on the unknowns: the one description every evaluation reads, the double
// residual's fast path included.
//
// Local slots: the block's nodes, own variables and the signal outputs it reads (baseSlots of
// them), then the dummy derivatives of those. Local rows: own rows, then the balance rows of its
// conserving ports, then the time derivatives of both.
//
// The index arrays live in DaeSystem::index, packed for speed (assemble_stages.hpp builds them):
// first the arrays the double residual reads (portUnknown, varUnknown, and portRow where it is
// not portUnknown's first entries) for every block in model order, then the others. A residual
// pass thus walks the bindings and one int array front to back instead of chasing per-block
// vectors on the heap. A binding holds where each group starts and the few lengths its arrays
// share (72 bytes, not 224 with a view per array: 5.8 MB in a chain of 10,000 stops). What is
// the same for most blocks is not stored for each: rows and unknowns are numbered alike, so
// ownRow() is varUnknown(), and portRow() is the first portUnknown() entries when the conserving
// ports come first; a block with no derivatives (plain) views one shared array of -1 for
// derSlot(), ownDiff() and portDiff() (1.4 MB in a chain of 10,000 stops).
struct Binding {
    const Block* block = nullptr;         // the hot path reads these, not the block's descriptors
    const double* parameters = nullptr;   // the block's real parameters, prefetched
    const int* hot = nullptr;             // portUnknown, varUnknown, portRow unless rowsAlike, in a row
    const int* cold = nullptr;            // slot, portSlot, varSlot, jac, then derSlot, ownDiff, portDiff unless plain
    // Without dummy derivatives a block's Eq<double> reads the global y and y' in place through
    // portUnknown and varUnknown, with no copy into scratch slots.
    bool direct : 1 = false;
    bool tangent : 1 = false;                    // some row is differentiated: evaluate with Tan<>
    bool mapped : 1 = false;                     // jac() is there (from the Jacobian pattern on)
    bool rowsAlike : 1 = false;                  // portRow() is portUnknown()'s first entries, not stored
    bool plain : 1 = false;                      // derSlot(), ownDiff() and portDiff() are all -1, not stored
    // its event functions: not a handful for every block (a spring's table has one per breakpoint,
    // tens of thousands for a measured curve), so in the bits beside the flags
    static constexpr int kEventBits = 27;
    static constexpr unsigned kMaxEvents = (1U << kEventBits) - 1;
    unsigned events : kEventBits = 0;
    // The other counts are a block's own (a handful each): 16 bits keep a binding at 56 bytes, not
    // 72 (0.6 MB at 40,000 blocks, for the whole run). pack() checks that they fit.
    std::int16_t discreteCount = 0, baseSlots = 0;
    std::int16_t ports = 0, vars = 0, conserving = 0, slots = 0;   // the arrays' lengths (conserving: ports with a row)
    int discreteOffset = 0;                                        // into the discrete state vector
    int eventOffset = 0;                                           // into the event function vector

    std::span<const int> portUnknown() const { return {hot, n(ports)}; }         // per port: unknown, or -1
    std::span<const int> varUnknown() const { return {hot + ports, n(vars)}; }   // per own variable: unknown
    std::span<const int> ownRow() const { return varUnknown(); }                 // its row: numbered like the unknown
    std::span<const int> portRow() const {   // per conserving port: its balance row, or -1
        return {rowsAlike ? hot : hot + ports + vars, n(conserving)};
    }

    std::span<const int> slot() const { return {cold, n(slots)}; }   // local slot -> unknown
    // per port: local slot, or -1 (reference node, hidden, open input)
    std::span<const int> portSlot() const { return {cold + slots, n(ports)}; }
    std::span<const int> varSlot() const { return {cold + slots + ports, n(vars)}; }   // per own variable
    // [local row][slot] -> index into the CSC values, or -1; the derivatives' rows only when some
    // row is differentiated (tangent), else they would be all -1 (1.5 MB in a chain of 10,000 stops)
    std::span<const int> jac() const { return {cold + slots + ports + vars, n(jacLength())}; }
    // per base slot: local slot of its dummy derivative, or -1
    std::span<const int> derSlot() const { return {diffs(), n(baseSlots)}; }
    // per own variable: row of its derivative, or -1
    std::span<const int> ownDiff() const { return {diffs() + (plain ? 0 : baseSlots), n(vars)}; }
    // per conserving port: row of the balance's derivative, or -1
    std::span<const int> portDiff() const { return {diffs() + (plain ? 0 : baseSlots + vars), n(conserving)}; }

    int localRows() const { return 2 * (vars + conserving); }   // own, balance, and the derivatives of both
    int jacRows() const { return tangent ? localRows() : vars + conserving; }   // the local rows jac() maps

private:
    static std::size_t n(int k) { return static_cast<std::size_t>(k); }
    int jacLength() const { return mapped ? jacRows() * slots : 0; }
    const int* diffs() const { return plain ? kNoDerivatives.data() : cold + slots + ports + vars + jacLength(); }
};
static_assert(sizeof(void*) != 8 || sizeof(Binding) == 56, "a binding's counts and flags pack into 56 bytes");

struct Pattern {   // compressed sparse columns
    int n = 0;
    std::vector<int> colPtr;   // n + 1
    std::vector<int> rowIdx;   // nnz
    int nnz() const { return static_cast<int>(rowIdx.size()); }
    int find(int row, int col) const;   // index into values, or -1
    // From the rows of each column (sorted and deduplicated here)
    static Pattern fromColumns(std::vector<std::vector<int>>& colRows);
};

struct DaeSystem {
    graph::Topology topo;
    std::vector<Unknown> unknowns;
    std::vector<Row> rows;
    std::vector<Binding> bindings;   // per block, viewing index
    std::vector<int> index;          // the bindings' index arrays, packed (see Binding)
    std::vector<int> nodeUnknown;    // per node, -1 if grounded
    std::vector<int> dummyOf;        // per unknown: its dummy derivative, or -1
    std::vector<double> y0;          // initial values (differential ones matter)
    std::vector<double> discrete0;   // initial discrete state
    int eventCount = 0;
    Pattern pattern;                          // union over all modes
    std::vector<int> impulsiveBlocks;         // blocks with constraint forces that may carry impulses
    std::vector<BlockStructure> structures;   // distinct block structures (block_structure.hpp)
    std::vector<int> structureOf;             // per block: its structure
    std::vector<std::vector<RowForm>> rowForms;   // per distinct block: per own variable, its row's form
    std::vector<int> rowFormsOf;                  // per block: its forms
    std::vector<int> eventBlocks;             // blocks with event functions

    const BlockStructure& structureOfBlock(int block) const {
        return structures[static_cast<std::size_t>(structureOf[static_cast<std::size_t>(block)])];
    }
    const std::vector<RowForm>& rowFormsOfBlock(int block) const {
        return rowForms[static_cast<std::size_t>(rowFormsOf[static_cast<std::size_t>(block)])];
    }

    // The bindings view index: moving keeps them valid, a copy would not.
    DaeSystem() = default;
    DaeSystem(DaeSystem&&) = default;
    DaeSystem& operator=(DaeSystem&&) = default;
    DaeSystem(const DaeSystem&) = delete;
    DaeSystem& operator=(const DaeSystem&) = delete;

    int size() const { return static_cast<int>(unknowns.size()); }
    std::string describeUnknown(int u) const;   // "velocity of node {m.M, k.R}", "x of spring1"
    std::string describeRow(int r) const;
    std::string blockOfUnknown(int u) const;   // a block to point the user at
    std::string blockOfRow(int r) const;
};

// Builds the system from a topology (consumed). Throws TopologyError naming blocks and ports if
// the system is structurally singular or needs more index reduction than supported.
DaeSystem assemble(graph::Topology topo);

}   // namespace endstop::core::dae
