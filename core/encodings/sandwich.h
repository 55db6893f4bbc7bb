// SPDX-License-Identifier: MIT
#pragma once
/// @file sandwich.h
/// Sandwich (Chi, Fan, Rudnicky, Ramadge 2023, "Dissecting Transformer Length Extrapolation via the Lens of
/// Receptive Field Analysis", ACL 2023, section 5): the dot product of two sinusoidal position vectors of
/// dimension d' used as a score bias, shifted so that distance 0 gives 0 and compressed per head like ALiBi:
///   b_h(i, j) = ( sum_{t=0}^{d'/2-1} cos((i - j) w_t) - d'/2 ) / (8 (h + 1) / H),   w_t = base^(-2t/d').
/// The head compression 8(h+1)/H follows NVIDIA NeMo's sandwich_pos_bias (which sums the angles without the
/// cosine; PosLab takes the paper's dot product).

#include "core/scheme.h"

namespace poslab::core {

SchemeDescriptor sandwichScheme();

} // namespace poslab::core
