// SPDX-License-Identifier: MIT
#include "core/io/tablefile.h"

#include "core/errors.h"

#include <cstdio>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace poslab::core {

std::string_view elementTypeName(ElementType type)
{
    switch (type) {
    case ElementType::Float32: return "float32";
    case ElementType::Float16: return "float16";
    case ElementType::BFloat16: return "bfloat16";
    case ElementType::Float64: return "float64";
    }
    return "?";
}

std::size_t elementSize(ElementType type)
{
    switch (type) {
    case ElementType::Float32: return 4;
    case ElementType::Float16: return 2;
    case ElementType::BFloat16: return 2;
    case ElementType::Float64: return 8;
    }
    return 1;
}

double halfToDouble(std::uint16_t bits)
{
    // IEEE 754-2008 binary16 (section 3.4): sign, 5-bit biased exponent (bias 15), 10-bit fraction.
    const bool negative = (bits & 0x8000u) != 0;
    const int exponent = (bits >> 10) & 0x1f;
    const int fraction = bits & 0x3ff;
    double v;
    if (exponent == 0)
        v = std::ldexp(double(fraction), -24); // subnormal: 2^-14 * f/1024
    else if (exponent == 31)
        v = fraction == 0 ? HUGE_VAL : std::nan("");
    else
        v = std::ldexp(double(1024 + fraction), exponent - 25); // 2^(e-15) * (1024+f)/1024
    return negative ? -v : v;
}

double bfloat16ToDouble(std::uint16_t bits)
{
    const std::uint32_t word = std::uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &word, sizeof f);
    return double(f);
}

namespace {

class MappedSource final : public ByteSource {
public:
    explicit MappedSource(std::shared_ptr<const MappedFile> file)
        : ByteSource(file->path())
        , m_file(std::move(file))
    { }
    std::uint64_t size() const override { return m_file->size(); }
    std::string read(std::uint64_t offset, std::size_t count) const override
    {
        m_file->checkStillCovers(offset + count);
        return std::string(reinterpret_cast<const char*>(m_file->data()) + offset, count);
    }

private:
    std::shared_ptr<const MappedFile> m_file;
};

class MemorySource final : public ByteSource {
public:
    MemorySource(std::string_view bytes, std::string name)
        : ByteSource(std::move(name))
        , m_bytes(bytes)
    { }
    std::uint64_t size() const override { return m_bytes.size(); }
    std::string read(std::uint64_t offset, std::size_t count) const override
    {
        return std::string(m_bytes.substr(std::size_t(offset), count));
    }

private:
    std::string_view m_bytes;
};

} // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path)
{
    // Opened first and judged by fstat on the open file: a path swapped for a FIFO between a stat and the open
    // cannot block the open (O_NONBLOCK) or be read as a table.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        const int err = errno;
        if (err == EISDIR)
            throwFileError(path, "is a folder, not a file");
        throwFileError(path, std::string("cannot open: ") + std::strerror(err));
    }
    std::shared_ptr<MappedFile> f(new MappedFile);
    f->m_path = path;
    f->m_fd = fd;
    struct stat st { };
    if (::fstat(fd, &st) != 0)
        throwFileError(path, std::string("cannot read its size: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        throwFileError(path, "is a folder, not a file");
    if (!S_ISREG(st.st_mode))
        throwFileError(path, "is not a regular file (a device, FIFO or socket); give an .npy or .safetensors file");
    f->m_size = std::uint64_t(st.st_size);
    if (f->m_size > 0) {
        void* p = ::mmap(nullptr, std::size_t(f->m_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED)
            throwFileError(path, std::string("cannot map the file for reading: ") + std::strerror(errno));
        f->m_data = static_cast<const unsigned char*>(p);
    }
    return f;
}

MappedFile::~MappedFile()
{
    if (m_data)
        ::munmap(const_cast<unsigned char*>(m_data), std::size_t(m_size));
    if (m_fd >= 0)
        ::close(m_fd);
}

void MappedFile::checkStillCovers(std::uint64_t end) const
{
    struct stat st { };
    if (::fstat(m_fd, &st) != 0 || std::uint64_t(st.st_size) < end || end > m_size)
        throwFileError(m_path,
                       "the file is shorter than when it was opened (it changed while it was read); open it again");
}

std::unique_ptr<ByteSource> mappedSource(std::shared_ptr<const MappedFile> file)
{
    return std::make_unique<MappedSource>(std::move(file));
}

std::unique_ptr<ByteSource> openFileSource(const std::string& path)
{
    return mappedSource(MappedFile::open(path));
}

std::unique_ptr<ByteSource> memorySource(std::string_view bytes, std::string name)
{
    return std::make_unique<MemorySource>(bytes, std::move(name));
}

void throwFileError(const std::string& name, const std::string& what)
{
    // Names and header text are echoed with control characters escaped: a NUL in an .npy header used to end
    // the message there (what() is a C string), an ESC would reach the terminal.
    const auto printable = [](const std::string& text) {
        std::string out;
        for (const char c : text) {
            const auto u = static_cast<unsigned char>(c);
            if (u < 0x20 || u == 0x7f) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(u));
                out += buf;
            } else {
                out += c;
            }
        }
        return out;
    };
    throw InputError(printable(name) + ": " + printable(what));
}

std::string shapeText(const std::vector<std::uint64_t>& shape, bool pythonTuple)
{
    std::string s = pythonTuple ? "(" : "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        s += (i ? ", " : "");
        s += std::to_string(shape[i]);
    }
    if (pythonTuple && shape.size() == 1)
        s += ",";
    return s + (pythonTuple ? ")" : "]");
}

std::uint64_t elementCount(const std::vector<std::uint64_t>& shape, const std::string& name, const std::string& what)
{
    std::uint64_t n = 1;
    for (std::uint64_t d : shape)
        if (__builtin_mul_overflow(n, d, &n))
            throwFileError(name,
                           what + " " + shapeText(shape, false)
                               + " has more than 2^64 elements (its product "
                                 "overflows; the header is corrupt)");
    return n;
}

void checkTableSize(std::uint64_t rows, std::uint64_t cols, const std::string& name, const Limits& limits)
{
    const double bytes = double(rows) * double(cols) * double(sizeof(double));
    if (bytes > double(limits.maxBytes))
        throw RefusedError(name + ": a " + std::to_string(rows) + " x " + std::to_string(cols) + " table would take "
                           + formatBytes(bytes) + " as doubles, more than the memory cap of "
                           + formatBytes(double(limits.maxBytes)));
}

void decodeElements(const unsigned char* p, std::uint64_t first, std::uint64_t count, std::uint64_t cols,
                    ElementType type, const std::string& name, double* dst)
{
    const std::size_t size = elementSize(type);
    for (std::uint64_t i = 0; i < count; ++i, p += size) {
        // Little-endian by construction (assembled byte by byte), whatever the host's byte order.
        std::uint64_t word = 0;
        for (std::size_t b = 0; b < size; ++b)
            word |= std::uint64_t(p[b]) << (8 * b);
        double v;
        switch (type) {
        case ElementType::Float16: v = halfToDouble(std::uint16_t(word)); break;
        case ElementType::BFloat16: v = bfloat16ToDouble(std::uint16_t(word)); break;
        case ElementType::Float32: {
            const auto w = std::uint32_t(word);
            float f;
            std::memcpy(&f, &w, sizeof f);
            v = double(f);
            break;
        }
        case ElementType::Float64: std::memcpy(&v, &word, sizeof v); break;
        default: v = 0.0;
        }
        if (!std::isfinite(v)) {
            static const char hex[] = "0123456789abcdef";
            std::string pattern = "0x";
            for (int shift = int(size) * 8 - 4; shift >= 0; shift -= 4)
                pattern += hex[(word >> shift) & 15];
            const std::uint64_t at = first + i;
            throwFileError(name,
                           "element [" + std::to_string(at / cols) + ", " + std::to_string(at % cols) + "] is "
                               + (std::isnan(v) ? "NaN" : (v > 0 ? "+infinity" : "-infinity")) + " ("
                               + std::string(elementTypeName(type)) + " " + pattern
                               + "); a position table must hold finite numbers");
        }
        dst[i] = v;
    }
}

MatrixD decodeTable(std::string_view bytes, std::uint64_t rows, std::uint64_t cols, ElementType type,
                    const std::string& name)
{
    MatrixD out(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
    decodeElements(reinterpret_cast<const unsigned char*>(bytes.data()), 0, rows * cols, cols, type, name, out.data());
    return out;
}

} // namespace poslab::core
