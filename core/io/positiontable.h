// SPDX-License-Identifier: MIT
#pragma once
/// @file positiontable.h
/// A learned position table loaded from a file (.npy, or one tensor of a .safetensors file), as the learned
/// scheme uses it, with a small cache so that views redrawing every frame do not reread the file.

#include "core/io/tablefile.h"

#include <memory>
#include <string>

namespace poslab::core {

/// A loaded table: rows = positions (max_position_embeddings), cols = the model dimension.
struct PositionTable {
    /// rows x cols. float32 holds every float16, bfloat16 and float32 value exactly; a float64 file is
    /// rounded to nearest, as every encoding PosLab computes is returned as float32.
    MatrixF values;
    ElementType type = ElementType::Float32; ///< as stored in the file
    std::string source;                      ///< "x.npy" or "model.safetensors: wpe.weight"
};

/// Reads @p path: an .npy file when it starts with numpy's magic (or is named *.npy), otherwise a
/// .safetensors file, from which @p tensor is taken (ignored for .npy; empty picks the only 2-D float
/// tensor). Loaded tables are cached by path, tensor, modification time and size: a call for an unchanged
/// file returns the same table without reading it (a handful of tables are kept; the oldest goes first).
/// Thread-safe. @p check (when given) sees the table's shape after its header and before its data are read,
/// and again for a cached table. A float64 value beyond float32's range (|x| > 3.4028235e38) is refused naming
/// the first such element, as it would become infinity. Throws InputError naming the file and the problem,
/// RefusedError over the memory cap.
std::shared_ptr<const PositionTable> loadPositionTable(const std::string& path, const std::string& tensor,
                                                       const Limits& limits = {}, const TableShapeCheck& check = {});

/// How many files loadPositionTable() has read since the program started (tests check the cache with it).
long long positionTableReads();

} // namespace poslab::core
