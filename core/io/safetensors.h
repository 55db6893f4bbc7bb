// SPDX-License-Identifier: MIT
#pragma once
/// @file safetensors.h
/// Reads one 2-D tensor from a .safetensors file (huggingface/safetensors README, "Format"):
///   - 8 bytes: N, an unsigned little-endian 64-bit integer, the size of the header;
///   - N bytes: a UTF-8 JSON object {"NAME": {"dtype": "F16", "shape": [1, 16, 256], "data_offsets": [BEGIN,
///     END]}, ...}, optionally with "__metadata__" (a string-to-string map), possibly padded with spaces;
///     offsets are relative to the start of the byte buffer, END one past the last byte;
///   - the rest of the file: the byte buffer, little-endian, C order.
/// The README's notes and the reference reader (safetensors/src/tensor.rs, read_metadata and validate) make
/// these rules, all checked here before any tensor is allocated: duplicate keys are disallowed; the header
/// is at most 100,000,000 bytes (MAX_HEADER_SIZE) and ends inside the file; the tensors, taken in offset order,
/// cover the byte buffer exactly, with no gap and no overlap ("the byte buffer needs to be entirely indexed,
/// and cannot contain holes"); each tensor's bytes are its element count times its dtype's size, computed
/// without overflow.
/// Accepted as a table: 2-D tensors of F32, F16, BF16 or F64; others are refused by name.

#include "core/io/tablefile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace poslab::core {

/// One tensor listed in a .safetensors header.
struct SafetensorsTensor {
    std::string name;
    std::string dtype; ///< as written: "F32", "BF16", "I64", ...
    std::vector<std::uint64_t> shape;
    std::uint64_t begin = 0; ///< data_offsets, relative to the byte buffer
    std::uint64_t end = 0;
};

/// The checked header of a .safetensors file.
struct SafetensorsHeader {
    std::vector<SafetensorsTensor> tensors; ///< in header order
    std::uint64_t dataStart = 0;            ///< 8 + N: where the byte buffer starts in the file
};

/// The reference reader's MAX_HEADER_SIZE (safetensors/src/tensor.rs).
inline constexpr std::uint64_t safetensorsMaxHeaderSize = 100000000;

/// Reads and checks the header of @p source (see the file comment). Throws InputError "NAME: problem".
SafetensorsHeader readSafetensorsHeader(const ByteSource& source);

/// Where the tensor @p tensor of @p source lies: the header read and every check of readSafetensorsTable made
/// (the tensor chosen, 2-D, a supported dtype, not empty), and @p check (when given) called with its shape,
/// before any of its data are read. Throws InputError naming the file and the problem.
TableLayout readSafetensorsLayout(const ByteSource& source, const std::string& tensor,
                                  const TableShapeCheck& check = {});

/// The tensor @p tensor of @p source as a table (rows = shape[0] positions, cols = shape[1] dimensions).
/// An empty @p tensor picks the only 2-D float tensor when there is exactly one. A missing or wrong name,
/// a tensor that is not 2-D or not F32/F16/BF16/F64, is refused with a message listing the file's 2-D
/// tensors (those whose names suggest positions first). RefusedError when the table exceeds the memory cap.
/// @p check (when given) sees the chosen tensor's shape before its data are read.
TensorTable readSafetensorsTable(const ByteSource& source, const std::string& tensor, const Limits& limits = {},
                                 const TableShapeCheck& check = {});
/// readSafetensorsTable on a file.
TensorTable readSafetensorsFile(const std::string& path, const std::string& tensor, const Limits& limits = {});

} // namespace poslab::core
