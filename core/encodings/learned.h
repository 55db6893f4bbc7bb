// SPDX-License-Identifier: MIT
#pragma once
/// @file learned.h
/// Learned absolute position table (BERT, GPT-2): one trainable vector per position, here initialised as a
/// fresh model would be, from a seeded normal N(0, init_std^2). GPT-2's original code (openai/gpt-2
/// src/model.py, wpe) uses 0.01; Hugging Face's GPT2PreTrainedModel._init_weights uses
/// initializer_range 0.02.
///
/// Hierarchical decomposition (Su 2020, "Hierarchical decomposition position encoding", kexue.fm/archives/7947):
/// a table p_0..p_{n-1} is extended to n^2 positions by
///   u_i = (p_i - alpha * p_0) / (1 - alpha),   q_{i*n + j} = alpha * u_i + (1 - alpha) * u_j,
/// which leaves q_j = p_j for the first n positions (0-based form of Su's 1-based formula).

#include "core/scheme.h"

namespace poslab::core {

/// The raw table: rows x dim, row-major, seeded. Row r is the same whatever the number of rows.
MatrixF learnedBaseTable(long long rows, int dim, double initStd, unsigned long long seed);

/// positions x dim: rows of the (possibly hierarchically extended) table. Positions below
/// max_position_embeddings are the table's own rows, bit for bit, in both modes. Throws InputError for a
/// position at or beyond max_position_embeddings (n^2 when hierarchical).
MatrixF learnedEncoding(const ParamSet& params, const TableContext& ctx);

SchemeDescriptor learnedScheme();

} // namespace poslab::core
