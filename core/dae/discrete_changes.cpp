// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dae/discrete_changes.hpp"

#include "core/dae/dae_system.hpp"

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

}   // namespace endstop::core::dae
