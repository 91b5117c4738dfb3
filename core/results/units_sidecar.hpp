// SPDX-License-Identifier: GPL-3.0-or-later
// Units sidecar: beside every CSV file we write, `<file>.units.json` maps each column to its unit
// and meaning, so that a script reading the CSV need not guess (docs/batch.md, "Units"):
//   {"time": {"unit": "s", "description": "Time"}, "stop1.x": {"unit": "m", "description": "..."}}
// An empty unit means a count, a key or a dimensionless number.
#pragma once

#include "core/results/results.hpp"

#include <string>
#include <vector>

namespace endstop::core {

struct ColumnInfo {
    std::string name, unit, description;
};

// The columns of an event log (time,block,kind,velocity).
std::vector<ColumnInfo> eventColumnsInfo();

// Writes `csvPath`.units.json (atomically, as every file we write) when `csvPath` is a regular
// file; standard output, devices and FIFOs get none. Throws IoError naming the sidecar. The text
// is what QJsonDocument::Indented writes for that object (keys sorted), streamed in pieces rather
// than built as a QJsonObject (which took 10 MB for a 15,000-column result).
void writeUnitsSidecar(const std::string& csvPath, const std::vector<ColumnInfo>& columns);
// The same for a results CSV: `time` and the columns, without copying them into ColumnInfo.
void writeResultsUnitsSidecar(const std::string& csvPath, const std::vector<Column>& columns);

}   // namespace endstop::core
