// SPDX-License-Identifier: MIT
#pragma once
/// @file fire.h
/// FIRE, functional interpolation for relative positions (Li et al. 2023, "Functional Interpolation for
/// Relative Positions Improves Long Context Transformers", ICLR 2024, section 3; reference code as in
/// mcleish7/arithmetic cramming/architectures/embeddings.py FIRE):
///   b_h(i, j) = f_h( psi(|i - j|) / (psi(max(L, i)) + eps) ),   psi(x) = ln(c x + 1),
/// where f is an MLP 1 -> width (ReLU) -> H. The MLP weights here are seeded like a fresh PyTorch
/// nn.Linear (uniform in +-1/sqrt(fan_in)): they are random, not trained.

#include "core/scheme.h"

namespace poslab::core {

/// The normalised distance psi(|i - j|) / (psi(max(L, i)) + eps), eps = 1e-6.
double fireNormalisedDistance(Position query, Position key, double c, double threshold);

SchemeDescriptor fireScheme();

} // namespace poslab::core
