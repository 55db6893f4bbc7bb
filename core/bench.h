// SPDX-License-Identifier: MIT
#pragma once
/// @file bench.h
/// The core's performance figures, reported by `poslab bench`. Each figure has a stable key.

#include <string>
#include <vector>

namespace poslab::core {

struct BenchFigure {
    std::string key; ///< e.g. "table_ns_per_element"
    double value = 0.0;
    std::string description; ///< one line with the unit
};

/// Runs the core benchmarks (a few seconds): large sin/cos table fill speed and accuracy.
std::vector<BenchFigure> runCoreBenchmarks();

/// Performance figures of the attention engine (core/attention.cpp) for `poslab bench`: "scores_4096_ms" (4096 x 4096 logits, head dim
/// 128, RoPE, one head, bidirectional, median of several runs), "softmax_4096_ms", "scores_512_ms"
/// (8 heads, with probabilities). Takes about a second.
std::vector<BenchFigure> attentionBenchmarks();

} // namespace poslab::core
