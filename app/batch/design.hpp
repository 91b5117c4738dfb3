// SPDX-License-Identifier: GPL-3.0-or-later
// The design of a study (docs/batch.md, "Studies"): which runs a sweep makes and with which
// parameter values. Three sources, one result:
// - a grid: the Cartesian product of every --vary list (run ids in row-major order, the last
//   --vary changing fastest);
// - a design table (--points design.csv): one run per row, values with units;
// - a Monte Carlo sample (--sample ... --count N --seed S): run r draws its values from its own
//   random stream, seeded by (S, r), so a run's values do not depend on the count, the shard or
//   the number of jobs.
// Run ids are global: a shard (--shard K/N) keeps the rows whose id r has (r - 1) mod N == K.
#pragma once

#include "core/io/overrides.hpp"
#include "core/model/model.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace endstop::batch {

struct Factor {
    std::string name;   // NAME.KEY, as typed
    core::io::ParamTarget target;
};

struct Design {
    std::vector<Factor> factors;
    std::vector<long> runs;                              // run ids, ascending
    std::vector<std::vector<core::ParamValue>> values;   // values[i][f]: row i, factor f
    bool sampled = false;   // a random draw may fall outside a range: that run is bad_input, not the study

    std::size_t size() const { return runs.size(); }
    core::model::Model modelOf(const core::model::Model& base, std::size_t row) const;
    std::string describe(std::size_t row) const;   // "m.mass=2, F.value=4"
};

// Each throws UsageError naming the flag or the file, line and column at fault.
Design gridDesign(const core::model::Model& model, const std::vector<std::string>& varyArgs);
Design pointsDesign(const core::model::Model& model, const std::string& csvPath);
Design sampleDesign(const core::model::Model& model, const std::vector<std::string>& sampleArgs, long count,
                    std::uint64_t seed);

struct Shard {
    long index = 0, count = 1;   // K, N
    bool all() const { return count == 1; }
    std::string suffix() const;   // "" or ".K-of-N"
};
Shard parseShard(const std::string& text);   // "K/N"
void keepShard(Design& design, const Shard& shard);

// The design as a table `run,NAME.KEY,...` with SI values, which --points reads back unchanged.
std::string designCsv(const Design& design);

}   // namespace endstop::batch
