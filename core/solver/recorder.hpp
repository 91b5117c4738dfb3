// SPDX-License-Identifier: GPL-3.0-or-later
// Recorder: which recorded variables become result columns, and how to read them from a solution
// point (an unknown's value, or the block's record() output).
#pragma once

#include "core/dae/evaluator.hpp"
#include "core/results/results.hpp"

#include <string>
#include <vector>

namespace endstop::core::solver {

class Recorder {
public:
    // signals: "block.var" names to keep; empty keeps every recorded variable. Throws ModelError
    // naming an unknown signal. limit: with every variable kept, only the first `limit` become
    // columns (a summary, ResultSink::columnsRead()); omitted() says how many were left out.
    Recorder(const dae::DaeSystem& sys, const std::vector<std::string>& signals,
             std::size_t limit = ResultSink::kAllColumns);

    const std::vector<Column>& columns() const { return m_columns; }
    std::size_t omitted() const { return m_omitted; }
    void sample(dae::Evaluator& ev, const dae::State& s, std::vector<double>& out);

private:
    struct Source {
        int block;   // computed: its place in m_computedBlocks
        bool computed;
        int index;
        int unknown;
    };
    const dae::DaeSystem& m_sys;
    std::vector<Column> m_columns;
    std::vector<Source> m_sources;
    std::vector<int> m_computedBlocks;             // blocks to call record() on
    std::vector<std::vector<double>> m_computed;   // per block of m_computedBlocks: last record() output
    std::size_t m_omitted = 0;
};

// Every recordable variable of a system, in column order (for `endstop-batch variables`).
std::vector<Column> allColumns(const dae::DaeSystem& sys);

}   // namespace endstop::core::solver
