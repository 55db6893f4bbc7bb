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

/// A regular file mapped read-only (POSIX mmap, PROT_READ, MAP_PRIVATE): its bytes are addressable without
/// being read; only the pages a caller touches become resident (and count as the process's memory). The file
/// stays open while the mapping lives, so that a reader can check it has not shrunk before touching pages past
/// its new end (which would raise SIGBUS). A file rewritten in place shows its new bytes through an existing
/// mapping; one replaced by rename (np.save to a new file, then mv) does not.
class MappedFile {
public:
    /// Opens and maps @p path. Throws InputError ("PATH: cannot open: No such file or directory", "PATH: is a
    /// folder, not a file", "PATH: is not a regular file ...") naming the path and the problem.
    static std::shared_ptr<const MappedFile> open(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::string& path() const { return m_path; }
    /// Length in bytes when mapped.
    std::uint64_t size() const { return m_size; }
    /// The first byte of the mapping (nullptr for an empty file).
    const unsigned char* data() const { return m_data; }
    /// Throws InputError when the file is now shorter than @p end bytes (it was truncated after it was mapped;
    /// touching those pages would kill the process with SIGBUS).
    void checkStillCovers(std::uint64_t end) const;

private:
    MappedFile() = default;
    std::string m_path;
    int m_fd = -1;
    std::uint64_t m_size = 0;
    const unsigned char* m_data = nullptr;
};

/// A mapped file as a ByteSource (read() copies the range out of the mapping).
std::unique_ptr<ByteSource> mappedSource(std::shared_ptr<const MappedFile> file);

/// A file opened for reading (memory-mapped: see MappedFile). Throws InputError ("cannot open PATH: No such
/// file or directory") when it cannot be opened or is not a regular file.
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

/// Where a checked 2-D table lies in its file: what the .npy and .safetensors headers say, after every check of
/// the header, shape and dtype and before any of the data are read.
struct TableLayout {
    std::uint64_t rows = 0; ///< positions
    std::uint64_t cols = 0; ///< dimensions
    ElementType type = ElementType::Float32;
    std::uint64_t offset = 0; ///< the byte of the file where row 0 starts (rows are cols elements, C order)
    std::string source;       ///< "x.npy" or "model.safetensors: wpe.weight"
    /// Bytes of one row in the file: cols x elementSize(type).
    std::uint64_t rowBytes() const { return cols * elementSize(type); }
};

/// Decodes @p count consecutive little-endian elements of @p type at @p bytes, the first being element
/// @p first of a table of @p cols columns (messages name [first / cols, first % cols] onwards), into @p out.
/// Every value must be finite: a NaN or infinity is refused naming its [row, col] and bit pattern.
void decodeElements(const unsigned char* bytes, std::uint64_t first, std::uint64_t count, std::uint64_t cols,
                    ElementType type, const std::string& name, double* out);

/// Checks a rows x cols table against the memory cap (8 bytes per element as doubles) before anything is
/// allocated: throws RefusedError naming the file (the file is well formed; the request is too large).
void checkTableSize(std::uint64_t rows, std::uint64_t cols, const std::string& name, const Limits& limits);

/// Decodes @p rows x @p cols little-endian elements of @p type from @p bytes (rows * cols * elementSize).
/// Every value must be finite: a NaN or infinity is refused naming its [row, col] and bit pattern.
MatrixD decodeTable(std::string_view bytes, std::uint64_t rows, std::uint64_t cols, ElementType type,
                    const std::string& name);

} // namespace poslab::core
