// SPDX-License-Identifier: GPL-3.0-or-later
// ReducedEvaluator's constants of the run (reduced_evaluator.hpp; docs/engine.md, "Constants").
#include "core/dae/reduced_evaluator.hpp"

#include <algorithm>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

}   // namespace

// An explicit variable is a constant of the run when the row it is solved from (its own, or its
// pair's: a velocity source's node velocity) belongs to a block with no
// discretes that never reads the time and reads only constants besides the variable itself (a
// constant source, a velocity source driven by one); a dummy derivative is one when the variable
// it differentiates is (its value is then zero). Parameters do not change during a run: tuning
// runs again. Each is solved here once, from 0 like any explicit variable, in a state where
// everything else is zero: its row reads only the constants solved before it.
void ReducedEvaluator::findConstants() {
    m_constant.assign(m_red.explicits.size(), 0);
    std::vector<char> constant(at(m_sys.size()), 0);   // per unknown
    std::vector<int> baseOf;                           // per dummy derivative: what it differentiates
    const auto decide = [&](bool derivatives) {
        for (std::size_t p = 0; p < m_red.explicits.size(); ++p) {
            const ReductionPlan::Derived& e = m_red.explicits[p];
            if (e.block < 0 || (m_sys.rows[at(e.row)].kind == Row::Kind::Derivative) != derivatives) continue;
            if (derivatives) {
                if (baseOf.empty()) {
                    baseOf.assign(at(m_sys.size()), -1);
                    for (std::size_t u = 0; u < m_sys.dummyOf.size(); ++u)
                        if (m_sys.dummyOf[u] >= 0) baseOf[at(m_sys.dummyOf[u])] = static_cast<int>(u);
                }
                if (baseOf[at(e.unknown)] < 0 || !constant[at(baseOf[at(e.unknown)])]) continue;
            } else {
                const Binding& b = m_sys.bindings[at(e.block)];
                if (b.discreteCount != 0 || m_sys.rowFormsOfBlock(e.block)[at(e.var)].readsTime) continue;
                const BlockStructure& st = m_sys.structures[at(m_sys.structureOf[at(e.block)])];
                if (st.all.size() <= at(e.var)) continue;
                bool reads = false;   // something that is not a constant
                for (const auto& [k, order] : st.all[at(e.var)]) {
                    const int u = b.slot()[at(k)];
                    if (u == e.unknown && order == 0) continue;
                    reads = reads || order != 0 || u < 0 || !constant[at(u)];
                }
                if (reads) continue;
            }
            constant[at(e.unknown)] = 1;
            m_constant[p] = 1;
        }
    };
    decide(false);   // in dependency order: what a row reads comes first
    decide(true);
    if (std::find(m_constant.begin(), m_constant.end(), 1) == m_constant.end()) return;
    std::vector<double> y(at(m_sys.size()), 0.0), yp(at(m_sys.size()), 0.0);
    const State s{0.0, y.data(), yp.data(), m_sys.discrete0.data(), 0};
    for (std::size_t p = 0; p < m_constant.size(); ++p) {
        if (m_constant[p] == 0) continue;
        const ReductionPlan::Derived& e = m_red.explicits[p];
        y[at(e.unknown)] = -rowResidual(e, s) / e.coefficient;
        m_constantValue[static_cast<int>(p)] = y[at(e.unknown)];
    }
}

}   // namespace endstop::core::dae
