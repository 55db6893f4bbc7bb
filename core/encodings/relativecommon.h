// SPDX-License-Identifier: MIT
#pragma once
/// @file relativecommon.h
/// Small helpers shared by the relative, bias and contextual schemes: seeded weight tables (a fresh model's
/// initialisation, never trained weights) and the sinusoid of a distance.

#include "core/types.h"

#include <cstdint>
#include <vector>

namespace poslab::core {

/// Mixes several integers into one 64-bit seed (SplitMix64 finaliser applied in sequence), so that tables
/// drawn for different (seed, purpose, head, row) never share a stream.
std::uint64_t mixSeed(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0, std::uint64_t d = 0);

/// rows x cols of N(0, stddev^2). Row r is drawn from its own stream mixSeed(seed, stream, r), so it does not
/// depend on how many rows are asked for.
MatrixD seededNormal(long long rows, int cols, double stddev, std::uint64_t seed, std::uint64_t stream);

/// Transformer-XL's relative sinusoid of a distance x (Dai et al. 2019, section 3.3; kimiyoung/transformer-xl
/// PositionalEmbedding): [sin(x w_0) .. sin(x w_{d/2-1}), cos(x w_0) .. cos(x w_{d/2-1})],
/// w_i = base^(-2i/d). Length d (even).
std::vector<double> relativeSinusoid(double x, int dim, double base = 10000.0);

} // namespace poslab::core
