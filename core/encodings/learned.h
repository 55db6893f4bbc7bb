// SPDX-License-Identifier: MIT
#pragma once
/// @file learned.h
/// Learned absolute position table (BERT, GPT-2): one trainable vector per position, here initialised as a
/// fresh model would be, from a seeded normal N(0, init_std^2). GPT-2's original code (openai/gpt-2
/// src/model.py, wpe) uses 0.01; Hugging Face's GPT2PreTrainedModel._init_weights uses
/// initializer_range 0.02.
///
/// Or a trained table from a file: table_file names an .npy file or a .safetensors file (table_tensor picks
/// the tensor, e.g. GPT-2's "wpe.weight"); its rows are the positions (n = its row count replaces
/// max_position_embeddings) and its columns must equal the requested dimension. The file is read once and
/// cached (core/io/positiontable.h).
///
/// Hierarchical decomposition (Su 2020, "Hierarchical decomposition position encoding", kexue.fm/archives/7947):
/// a table p_0..p_{n-1} is extended to n^2 positions by
///   u_i = (p_i - alpha * p_0) / (1 - alpha),   q_{i*n + j} = alpha * u_i + (1 - alpha) * u_j,
/// which leaves q_j = p_j for the first n positions (0-based form of Su's 1-based formula).

#include "core/scheme.h"

namespace poslab::core {

/// The raw table: rows x dim, row-major, seeded. Row r is the same whatever the number of rows.
MatrixF learnedBaseTable(long long rows, int dim, double initStd, unsigned long long seed);

/// positions x dim: rows of the (possibly hierarchically extended) table. Positions below n (the file's rows,
/// else max_position_embeddings) are the table's own rows, bit for bit, in both modes. Throws InputError for a
/// position at or beyond n (n^2 when hierarchical), for a dimension other than a loaded table's columns, and
/// for a file that cannot be read (naming the file and the problem).
MatrixF learnedEncoding(const ParamSet& params, const TableContext& ctx);

SchemeDescriptor learnedScheme();

} // namespace poslab::core
