// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/solver/recorder.hpp"

#include "core/errors.hpp"

#include <algorithm>

namespace endstop::core::solver {

namespace {
std::size_t at(int i) { return static_cast<std::size_t>(i); }
}   // namespace

std::vector<Column> allColumns(const dae::DaeSystem& sys) {
    std::vector<Column> out;
    for (const graph::TopoBlock& tb : sys.topo.blocks)
        for (const RecordedVar& r : tb.block->recorded()) {
            const VarDesc& d = tb.block->describe(r);
            out.push_back({tb.name + "." + d.name, Unit::si(d.unit.dimension).display(), d.label, tb.name, d.name});
        }
    return out;
}

Recorder::Recorder(const dae::DaeSystem& sys, const std::vector<std::string>& signals, std::size_t limit)
    : m_sys(sys) {
    std::vector<char> wanted(signals.size(), 0);
    if (signals.empty()) {   // every variable: sized once (growing 200,000 columns doubled the peak)
        std::size_t total = 0;
        for (const graph::TopoBlock& tb : sys.topo.blocks) total += tb.block->recorded().size();
        m_omitted = total - std::min(total, limit);
        m_columns.reserve(total - m_omitted);
        m_sources.reserve(total - m_omitted);
    } else {
        limit = ResultSink::kAllColumns;
    }
    for (std::size_t bi = 0; bi < sys.topo.blocks.size() && m_columns.size() < limit; ++bi) {
        const graph::TopoBlock& tb = sys.topo.blocks[bi];
        bool anyComputed = false;
        for (const RecordedVar& r : tb.block->recorded()) {
            if (m_columns.size() == limit) break;
            const VarDesc& d = tb.block->describe(r);
            const std::string name = tb.name + "." + d.name;
            if (!signals.empty()) {
                bool asked = false;
                for (std::size_t i = 0; i < signals.size(); ++i)
                    if (signals[i] == name) {   // named twice: one column
                        wanted[i] = 1;
                        asked = true;
                    }
                if (!asked) continue;
            }
            const dae::Binding& b = sys.bindings[bi];
            const int unknown = r.computed ? -1 : b.slot()[at(b.varSlot()[at(r.index)])];
            m_columns.push_back({name, Unit::si(d.unit.dimension).display(), d.label, tb.name, d.name});
            // a computed one reads the buffer of this block, the next in m_computedBlocks
            const int block = r.computed ? static_cast<int>(m_computedBlocks.size()) : static_cast<int>(bi);
            m_sources.push_back({block, r.computed, r.index, unknown});
            anyComputed = anyComputed || r.computed;
        }
        if (anyComputed) {   // one buffer per block that records a computed variable, not one per block
            m_computedBlocks.push_back(static_cast<int>(bi));
            m_computed.emplace_back(tb.block->computed().size());
        }
    }
    for (std::size_t i = 0; i < signals.size(); ++i)
        if (!wanted[i])
            throw ModelError(Diagnostics{{Severity::Error,
                                          {},
                                          {},
                                          {},
                                          "unknown signal '" + signals[i] + "' (see `endstop-batch variables MODEL`)",
                                          {}}});
}

void Recorder::sample(dae::Evaluator& ev, const dae::State& s, std::vector<double>& out) {
    for (std::size_t k = 0; k < m_computedBlocks.size(); ++k) {
        const int bi = m_computedBlocks[k];
        ev.withEq(bi, s, [&](const Eq<double>& eq) { m_sys.topo.blocks[at(bi)].block->record(eq, m_computed[k]); });
    }
    out.resize(m_sources.size());
    for (std::size_t i = 0; i < m_sources.size(); ++i) {
        const Source& src = m_sources[i];
        out[i] = src.computed ? m_computed[at(src.block)][at(src.index)] : s.y[src.unknown];
    }
}

}   // namespace endstop::core::solver
