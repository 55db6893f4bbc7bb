// SPDX-License-Identifier: MIT
#pragma once
/// @file nope.h
/// NoPE: no positional encoding. The causal mask is the only source of order (Kazemnejad et al. 2023,
/// "The Impact of Positional Encoding on Length Generalization in Transformers").

#include "core/scheme.h"

namespace poslab::core {

/// Registry entry for NoPE. Its encoding is the zero table: nothing is added to the embedding.
SchemeDescriptor nopeScheme();

} // namespace poslab::core
