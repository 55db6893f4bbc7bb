// SPDX-License-Identifier: MIT
#pragma once
/// @file tablefile.h
/// What the .npy and .safetensors readers share: the element types they decode (float32, float16, bfloat16,
/// float64, all little-endian), exact conversion of the 16-bit formats to double, the bytes of a file or of
/// a buffer read by range, and the table they return.

#include "core/limits.h"
#include "core/types.h"

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace poslab::core {

/// Element types a position table may hold in a file.
enum class ElementType {
    Float32,  ///< IEEE 754 binary32
    Float16,  ///< IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits
    BFloat16, ///< bfloat16: the top 16 bits of a binary32 (1 sign, 8 exponent, 7 fraction bits)
    Float64,  ///< IEEE 754 binary64
};

/// "float32", "float16", "bfloat16", "float64".
std::string_view elementTypeName(ElementType type);
/// Bytes per element: 4, 2, 2, 8.
std::size_t elementSize(ElementType type);

/// The exact value of a binary16 bit pattern: (-1)^s * 2^(e-15) * (1 + f/1024) for 0 < e < 31,
/// (-1)^s * 2^-14 * f/1024 for e = 0 (subnormals: 0x0001 = 2^-24), +-inf or NaN for e = 31 (IEEE 754-2008
/// section 3.4). Every binary16 value is exactly a double.
double halfToDouble(std::uint16_t bits);
/// The exact value of a bfloat16 bit pattern: the binary32 whose upper 16 bits they are (0x3f80 = 1.0).
double bfloat16ToDouble(std::uint16_t bits);

/// A table read from a file: rows x cols, row-major, values exactly as stored (converted to double).
struct TensorTable {
    MatrixD values; ///< rows x cols
    ElementType type = ElementType::Float32;
    std::string source; ///< for captions and messages: "x.npy" or "model.safetensors: wpe.weight"
};

/// Bytes read by range, from a file or from memory, with the name every message starts with.
class ByteSource {
public:
    virtual ~ByteSource() = default;
    /// Total length in bytes.
    virtual std::uint64_t size() const = 0;
    /// @p count bytes from @p offset; the caller has checked offset + count <= size(). Throws InputError when
    /// the read fails (a file that shrank underneath).
    virtual std::string read(std::uint64_t offset, std::size_t count) const = 0;
    /// The name messages start with (the path as given, or the name given to a buffer).
    const std::string& name() const { return m_name; }

protected:
    explicit ByteSource(std::string name)
        : m_name(std::move(name))
    { }

private:
    std::string m_name;
};

/// A file opened for reading. Throws InputError ("cannot open PATH: No such file or directory") when it
/// cannot be opened or is not a regular file.
std::unique_ptr<ByteSource> openFileSource(const std::string& path);
/// A buffer in memory (tests and fuzz targets); @p bytes must outlive the source.
std::unique_ptr<ByteSource> memorySource(std::string_view bytes, std::string name);

/// Throws InputError "NAME: what" (the one shape of every reader message).
[[noreturn]] void throwFileError(const std::string& name, const std::string& what);

/// "[1024, 768]" (safetensors) or "(1024, 768)" (numpy) for messages.
std::string shapeText(const std::vector<std::uint64_t>& shape, bool pythonTuple);

/// The number of elements of @p shape; throws InputError naming @p name and @p what when the product
/// overflows 64 bits (a hostile header).
std::uint64_t elementCount(const std::vector<std::uint64_t>& shape, const std::string& name, const std::string& what);

/// What a caller checks of a table once its header is read and before its data are (a learned table of the
/// wrong width is refused without reading a gigabyte first): rows, cols and the name messages start with.
/// It throws to refuse.
using TableShapeCheck = std::function<void(std::uint64_t rows, std::uint64_t cols, const std::string& source)>;

/// Checks a rows x cols table against the memory cap (8 bytes per element as doubles) before anything is
/// allocated: throws RefusedError naming the file (the file is well formed; the request is too large).
void checkTableSize(std::uint64_t rows, std::uint64_t cols, const std::string& name, const Limits& limits);

/// Decodes @p rows x @p cols little-endian elements of @p type from @p bytes (rows * cols * elementSize).
/// Every value must be finite: a NaN or infinity is refused naming its [row, col] and bit pattern.
MatrixD decodeTable(std::string_view bytes, std::uint64_t rows, std::uint64_t cols, ElementType type,
                    const std::string& name);

} // namespace poslab::core
