// SPDX-License-Identifier: MIT
#pragma once
/// @file bench.h
/// The core's performance figures, reported by `poslab bench`. Each figure has a stable key.

#include <string>
#include <vector>

namespace poslab::core {

struct BenchFigure {
    std::string key;         ///< e.g. "table_ns_per_element"
    double value = 0.0;
    std::string description; ///< one line with the unit
};

/// Runs the core benchmarks (a few seconds): large sin/cos table fill speed and accuracy.
std::vector<BenchFigure> runCoreBenchmarks();

} // namespace poslab::core
