// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/results/results.hpp"

#include "core/units/unit.hpp"

#include <stdexcept>

namespace endstop::core {

std::string RunStats::toJson() const {
    auto num = [](double x) { return formatNumber(x); };
    return "{\"steps\":" + std::to_string(steps) + ",\"residual_evals\":" + std::to_string(residualEvals) +
           ",\"jacobian_evals\":" + std::to_string(jacobianEvals) + ",\"events\":" + std::to_string(events) +
           ",\"build_s\":" + num(buildSeconds) + ",\"solve_s\":" + num(solveSeconds) +
           ",\"wall_s\":" + num(wallSeconds) + ",\"unknowns\":" + std::to_string(unknowns) +
           ",\"unknowns_before\":" + std::to_string(unknownsBefore) + ",\"aliases\":" + std::to_string(aliases) +
           ",\"explicit\":" + std::to_string(explicitVariables) + ",\"quadratures\":" + std::to_string(quadratures) +
           ",\"quadrature_evals\":" + std::to_string(quadratureEvals) +
           ",\"moving_unknowns\":" + std::to_string(movingUnknowns) +
           ",\"resting_growths\":" + std::to_string(restingGrowths) + ",\"restarts\":" + std::to_string(reinits) +
           ",\"stepped_over\":" + std::to_string(steppedOver) +
           ",\"error_test_fails\":" + std::to_string(errorTestFails) +
           ",\"convergence_fails\":" + std::to_string(convergenceFails) + ",\"linear_solver\":\"" + linearSolver +
           "\"}";
}

void MemorySink::begin(const std::vector<Column>& columns) {
    m_columns = columns;
    m_time.clear();
    m_values.assign(columns.size(), {});
    m_events.clear();
}

void MemorySink::row(double t, std::span<const double> values) {
    m_time.push_back(t);
    for (std::size_t i = 0; i < values.size() && i < m_values.size(); ++i) m_values[i].push_back(values[i]);
}

int MemorySink::columnIndex(std::string_view name) const {
    for (std::size_t i = 0; i < m_columns.size(); ++i)
        if (m_columns[i].name == name) return static_cast<int>(i);
    return -1;
}

const std::vector<double>& MemorySink::values(std::string_view name) const {
    const int i = columnIndex(name);
    if (i < 0) throw std::out_of_range("no column " + std::string(name));
    return m_values[static_cast<std::size_t>(i)];
}

}   // namespace endstop::core
