// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dae/discrete_changes.hpp"

#include "core/dae/dae_system.hpp"

namespace endstop::core::dae {

DiscreteChanges::DiscreteChanges(const DaeSystem& sys) : m_size(sys.discrete0.size()) {
    for (std::size_t bi = 0; bi < sys.bindings.size(); ++bi)
        if (sys.bindings[bi].discreteCount > 0) {
            m_block.push_back(static_cast<int>(bi));
            m_offset.push_back(sys.bindings[bi].discreteOffset);
        }
}

}   // namespace endstop::core::dae
