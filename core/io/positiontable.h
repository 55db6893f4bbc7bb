// SPDX-License-Identifier: MIT
#pragma once
/// @file positiontable.h
/// A learned position table loaded from a file (.npy, or one tensor of a .safetensors file), as the learned
/// scheme uses it, with a small cache so that views redrawing every frame do not reread the file.

#include "core/io/tablefile.h"

#include <memory>
#include <string>

namespace poslab::core {

/// A table file, mapped and checked: its header read, its shape and dtype checked, none of its data read. Rows
/// are read on request (readRow, readRows) straight from the mapping, so only the pages of the rows asked become
/// resident: a 1024-row slice of a 10 GB file costs its own bytes, not the file's.
struct PositionTable {
    long long rows = 0;                      ///< positions (max_position_embeddings)
    long long cols = 0;                      ///< the model dimension
    ElementType type = ElementType::Float32; ///< as stored in the file
    std::string source;                      ///< "x.npy" or "model.safetensors: wpe.weight"
    std::shared_ptr<const MappedFile> file;  ///< the mapping the rows are read from
    std::uint64_t offset = 0;                ///< the file byte where row 0 starts

    /// Bytes of one row in the file (cols x the element size): what reading a row makes resident.
    std::uint64_t rowBytes() const { return std::uint64_t(cols) * elementSize(type); }
    /// Row @p r (0 <= r < rows) as float32 into @p out[0 .. cols). float32 holds every float16, bfloat16 and
    /// float32 value exactly; float64 is rounded to nearest. Throws InputError naming [r, c] for a NaN or an
    /// infinity, or a float64 beyond float32's range (|x| > 3.4028235e38, which would become infinity), and
    /// when the file has shrunk since it was mapped.
    void readRow(long long r, float* out) const;
    /// Rows @p first .. @p first + @p count - 1 (count x cols), as readRow reads each.
    MatrixF readRows(long long first, long long count) const;
};

/// Maps @p path and checks its header: an .npy file when it starts with numpy's magic (or is named *.npy),
/// otherwise a .safetensors file, from which @p tensor is taken (ignored for .npy; empty picks the only 2-D
/// float tensor). @p check (when given) sees the table's shape after its header and before anything else, and
/// again for a cached table. No data are read here; the header is all that becomes resident (a .npy header is
/// at most 10,000 bytes; a .safetensors one at most the format's 100,000,000). Tables are cached by path,
/// tensor, modification time and size: a call for an unchanged file returns the same table without mapping it
/// again (a handful are kept; the oldest goes first). Thread-safe. Throws InputError naming the file and the
/// problem. The bytes that reading rows makes resident are checked by the reader of the rows (checkTableRows),
/// which knows how many it needs.
std::shared_ptr<const PositionTable> loadPositionTable(const std::string& path, const std::string& tensor,
                                                       const TableShapeCheck& check = {});

/// Throws RefusedError when reading @p rowCount rows of @p table, with @p extraBytes more of the caller's own
/// (its result), would make more resident than @p limits allows; @p advice ends the message.
void checkTableRows(const PositionTable& table, double rowCount, double extraBytes, const Limits& limits,
                    const std::string& advice);

/// How many files loadPositionTable() has mapped since the program started (tests check the cache with it).
long long positionTableReads();

} // namespace poslab::core
