// SPDX-License-Identifier: MIT
#pragma once
/// @file kerple.h
/// KERPLE, kernelized relative positional embedding (Chi, Fan, Ramadge, Rudnicky 2022, NeurIPS, section 4.2;
/// chijames/KERPLE ParallelKerpleLog / ParallelKerplePower). Conditionally positive definite kernels turned
/// into a score bias, with r1, r2 > 0:
///   log:   b(i, j) = -r1 * ln(1 + r2 * |i - j|)
///   power: b(i, j) = -r1 * |i - j|^r2,   0 < r2 <= 2
/// In the paper r1 and r2 are learned per head; here one pair is set for all heads.

#include "core/scheme.h"

namespace poslab::core {

/// The bias at distance |i - j| = @c distance for the variant ("log" or "power").
double kerpleBias(bool logVariant, double r1, double r2, double distance);

SchemeDescriptor kerpleScheme();

} // namespace poslab::core
