// SPDX-License-Identifier: MIT
#pragma once
/// @file alibi.h
/// ALiBi, attention with linear biases (Press, Smith, Lewis 2022, "Train Short, Test Long", section 3;
/// ofirpress/attention_with_linear_biases fairseq/models/transformer.py get_slopes).
///   score(i, j) = q_i.k_j/sqrt(d) - m_h * (i - j)  for keys j <= i (causal, as in the paper);
/// with a bidirectional mask PosLab uses -m_h * |i - j| (the paper defines only the causal case).
/// Slopes for H heads, H a power of two: m_h = 2^(-8(h+1)/H), h = 0..H-1 (start = ratio = 2^(-8/H)).
/// Other H (reference recipe): the slopes of the largest power of two P < H, followed by every other slope
/// of 2P (indices 0, 2, 4, ...), the first H - P of them: m_(P+k) = 2^(-8(2k+1)/(2P)) = 2^(-4(2k+1)/P),
/// k = 0..H-P-1. The registry's formula text states this rule.

#include "core/scheme.h"

#include <vector>

namespace poslab::core {

/// The H slopes, head 0 first. Throws InputError for heads < 1.
std::vector<double> alibiSlopes(int heads);

SchemeDescriptor alibiScheme();

} // namespace poslab::core
