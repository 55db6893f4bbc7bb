// SPDX-License-Identifier: MIT
#pragma once
/// @file npy.h
/// Reads a 2-D table from a NumPy .npy file (numpy.lib.format, "NPY format", versions 1.0, 2.0 and 3.0).
///
/// Layout (numpy.lib.format docs): the magic "\x93NUMPY"; a major and a minor version byte; the header length
/// HEADER_LEN as a little-endian unsigned short (1.0) or unsigned int (2.0, 3.0); HEADER_LEN bytes of an
/// ASCII (3.0: UTF-8) Python literal dict with exactly the keys 'descr', 'fortran_order' and 'shape',
/// padded with spaces and ended by '\n'; then the data, prod(shape) elements of the dtype, C order unless
/// fortran_order. Headers longer than numpy's own default max_header_size of 10000 bytes are refused, as
/// numpy.load refuses them.
///
/// Accepted: 2-D shapes (positions x dimensions), C order, little-endian '<f4' (float32), '<f2' (float16),
/// '<f8' (float64), and '<V2' / '|V2' read as bfloat16. NumPy has no bfloat16 dtype: ml_dtypes' bfloat16 is a
/// user dtype whose character code is 'V', so np.save and jnp.save write it as a 2-byte void '<V2' and the
/// type is lost (jax-ml/ml_dtypes issue 41); jax.numpy.load turns any 'V2' array back into bfloat16
/// (jax/_src/numpy/lax_numpy.py, load), and PosLab follows that one convention. Everything else is refused
/// by name: big-endian, Fortran order, other dtypes, 0-D, 1-D and >2-D shapes, empty tables.

#include "core/io/tablefile.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace poslab::core {

/// The parsed header of an .npy file.
struct NpyHeader {
    int major = 1; ///< format version 1, 2 or 3
    int minor = 0;
    std::string descr; ///< dtype string as written, e.g. "<f4"
    bool fortranOrder = false;
    std::vector<std::uint64_t> shape; ///< as written
    std::uint64_t dataOffset = 0;     ///< where the data starts: 10 or 12 + HEADER_LEN
};

/// numpy's default max_header_size (numpy/lib/format.py, _MAX_HEADER_SIZE).
inline constexpr std::size_t npyMaxHeaderSize = 10000;

/// Reads and checks the header of @p source (magic, version, length, dict syntax and keys). Does not judge
/// the dtype, order or shape (readNpyTable does). Throws InputError "NAME: problem".
NpyHeader readNpyHeader(const ByteSource& source);

/// Where the table of @p source lies: its header read and every check of readNpyTable made (dtype, order, shape,
/// the data's length against the file's), and @p check (when given) called with the shape, before any of the
/// data are read. Throws InputError naming the source and the problem.
TableLayout readNpyLayout(const ByteSource& source, const TableShapeCheck& check = {});

/// The table in @p source: rows = shape[0] positions, cols = shape[1] dimensions. Every size is checked
/// against the file length and @p limits before anything is allocated, and @p check (when given) is called with
/// the shape before the data are read. Throws InputError naming the source and the problem, RefusedError when
/// a well-formed table exceeds the memory cap.
TensorTable readNpyTable(const ByteSource& source, const Limits& limits = {}, const TableShapeCheck& check = {});
/// readNpyTable on a file.
TensorTable readNpyFile(const std::string& path, const Limits& limits = {});

} // namespace poslab::core
