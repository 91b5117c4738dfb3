// SPDX-License-Identifier: GPL-3.0-or-later
// The structure of every block in every combination of its modes, analysed once per distinct
// (block, slot layout) and kept once per equal result: a chain of 10,000 identical hard stops is
// analysed once, 10,000 stops of different stiffnesses share one structure, and the
// engine's structural queries (incidence for matching and index reduction, sparsity, IDA's id
// vector at every restart, which variables are constraint forces) read tables instead of
// re-evaluating equations.
//
// A local incidence lists, per local row (own variables, then conserving ports), the pairs
// (local base slot, order 0|1) that enter it. It is taken before dummy derivatives exist; with
// them, (k, 1) for a slot k with a dummy reads as (dummy slot of k, 0).
#pragma once

#include "core/dae/discrete_changes.hpp"
#include "core/dae/row_forms.hpp"
#include "core/dae/structure.hpp"

#include <span>
#include <utility>
#include <vector>

namespace endstop::core::dae {

struct Binding;
struct DaeSystem;

using LocalIncidence = std::vector<std::vector<std::pair<int, int>>>;

struct BlockStructure {
    std::vector<int> modeDiscretes;                   // indices of the block's discretes that are modes
    std::vector<int> radix;                           // their numbers of values
    std::vector<LocalIncidence> perMode;              // by combination index
    LocalIncidence all;                               // union over the combinations
    std::vector<std::vector<char>> constraintForce;   // [combination][own variable]
    bool anyConstraintForce = false;
    bool derivativesChange = false;   // some combination changes where y' enters
    // Whether the equations are linear in the slots in a mode (masses, springs, dampers, a full
    // stiffness stop in each region): their Jacobian is then constant while the discrete state is.
    std::vector<char> linear;       // [combination]
    std::vector<char> eventReads;   // per local base slot: read by the event functions (row_forms.hpp)
    std::vector<char> eventRateReads;   // per local base slot: its rate read by them

    // Whether the event functions read local slot k of b: a base slot's value, or a dummy
    // derivative's (the rate of the base slot it differentiates)
    bool eventRead(const Binding& b, std::size_t k) const;

    int combination(std::span<const double> discrete) const;   // the block's discretes
    bool operator==(const BlockStructure&) const = default;
};

// Fills sys.structures and sys.structureOf, sys.rowForms and sys.rowFormsOf. Call after the
// layout, before dummy derivatives. Each distinct block is analysed in its own layout; blocks
// whose structures come out equal (springs of different stiffnesses) share one, and only the row
// forms, which carry the coefficients, are kept per distinct block.
void analyseBlocks(DaeSystem& sys);

// Global incidence in the modes of `discrete` (pre-reduction rows only, before dummies).
Incidence currentIncidence(const DaeSystem& sys, const double* discrete);
// Global incidence of every row in any mode (pre-reduction rows only, before dummies).
Incidence unionIncidence(const DaeSystem& sys);
// IDA's id vector in the modes of `discrete`: 1 where y' enters some row (dummies included).
void differentialMask(const DaeSystem& sys, const double* discrete, std::vector<double>& id);
// The same mask kept between calls: only the blocks whose modes changed since the last call are
// counted again (a count per unknown of the rows that take its y'), so an event costs what
// changed, not the whole network.
class DifferentialMask {
public:
    explicit DifferentialMask(const DaeSystem& sys);
    // differentialMask(sys, discrete, ...): every block with modes counted again where its
    // combination changed, or only the blocks in `changed` (those whose discretes were written
    // since the last update, DiscreteJournal)
    const std::vector<double>& update(const double* discrete);
    const std::vector<double>& update(const double* discrete, std::span<const int> changed);

private:
    void count(std::size_t block, int combination, int sign);
    const DaeSystem& m_s;
    std::vector<int> m_count;         // per unknown
    std::vector<int> m_combination;   // per block with modes: the one counted, -1 before the first
    std::vector<int> m_moded;         // the blocks with modes
    std::vector<double> m_id;
};
// The block's own variables that are constraint forces in the modes of `discrete`.
std::vector<int> constraintForces(const DaeSystem& sys, int block, const double* discrete);

}   // namespace endstop::core::dae
