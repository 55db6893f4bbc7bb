// SPDX-License-Identifier: MIT
#pragma once
/// @file kerple.h
/// KERPLE, kernelized relative positional embedding (Chi, Fan, Ramadge, Rudnicky 2022, NeurIPS, section 4.2;
/// chijames/KERPLE ParallelKerpleLog / ParallelKerplePower). Conditionally positive definite kernels turned
/// into a score bias, with r1, r2 > 0:
///   log:   b(i, j) = -r1 * ln(1 + r2 * |i - j|)
///   power: b(i, j) = -r1 * |i - j|^r2,   0 < r2 <= 2
/// In the paper r1 and r2 are learned per head; here one pair is set for all heads. The reference
/// (chijames/KERPLE megatron/mpu/layers.py) builds only causal distances, tril(i - j); with a bidirectional
/// mask PosLab uses |i - j|. Its log kernel is -bias_p ln(1 + bias_a |m - n|) (r1 = bias_p, r2 = bias_a) and
/// its power kernel -bias_a |m - n|^bias_p (r1 = bias_a, r2 = bias_p).

#include "core/scheme.h"

namespace poslab::core {

/// The bias at distance |i - j| = @c distance for the variant ("log" or "power").
double kerpleBias(bool logVariant, double r1, double r2, double distance);

SchemeDescriptor kerpleScheme();

} // namespace poslab::core
