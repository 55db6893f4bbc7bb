// SPDX-License-Identifier: MIT
#include "core/io/npy.h"

#include "core/errors.h"

#include <algorithm>
#include <optional>

namespace poslab::core {

namespace {

/// The Python literal dict of an .npy header, as numpy.lib.format writes it:
///   {'descr': '<f4', 'fortran_order': False, 'shape': (1024, 768), }
/// Keys and strings in single or double quotes without escapes, the words True and False, tuples of
/// non-negative integers (a Python 2 'L' suffix allowed, as numpy's _filter_header allows it).
class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& name)
        : m_text(text)
        , m_name(name)
    { }

    NpyHeader parse()
    {
        NpyHeader h;
        bool haveDescr = false, haveOrder = false, haveShape = false;
        space();
        expect('{', "the header dict must start with '{'");
        for (;;) {
            space();
            if (peek() == '}') {
                ++m_pos;
                break;
            }
            const std::string key = string("a quoted key");
            space();
            expect(':', "expected ':' after the key '" + key + "'");
            space();
            if (key == "descr") {
                if (peek() == '[')
                    fail("'descr' is a list of fields (a structured dtype); PosLab reads plain float tables");
                h.descr = string("the 'descr' string");
                haveDescr = true;
            } else if (key == "fortran_order") {
                h.fortranOrder = boolean();
                haveOrder = true;
            } else if (key == "shape") {
                h.shape = tuple();
                haveShape = true;
            } else {
                fail("unexpected key '" + key + "' (an .npy header has exactly 'descr', 'fortran_order' and 'shape')");
            }
            space();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            space();
            expect('}', "expected ',' or '}' after the value of '" + key + "'");
            break;
        }
        space();
        if (m_pos != m_text.size())
            fail("unexpected text after the header dict");
        if (!haveDescr || !haveOrder || !haveShape)
            fail(std::string("the header lacks the key '")
                 + (!haveDescr       ? "descr"
                        : !haveOrder ? "fortran_order"
                                     : "shape")
                 + "'");
        return h;
    }

private:
    std::string_view m_text;
    const std::string& m_name;
    std::size_t m_pos = 0;

    [[noreturn]] void fail(const std::string& what) const
    {
        throwFileError(m_name, "malformed .npy header: " + what + " (at header byte " + std::to_string(m_pos) + ")");
    }
    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
    void space()
    {
        while (m_pos < m_text.size()
               && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' || m_text[m_pos] == '\t' || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    void expect(char c, const std::string& what)
    {
        if (peek() != c)
            fail(what);
        ++m_pos;
    }
    std::string string(const std::string& what)
    {
        const char quote = peek();
        if (quote != '\'' && quote != '"')
            fail("expected " + what);
        ++m_pos;
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() && m_text[m_pos] != quote) {
            if (m_text[m_pos] == '\\' || m_text[m_pos] == '\n')
                fail("unexpected character in " + what);
            ++m_pos;
        }
        if (m_pos >= m_text.size())
            fail("unterminated string in " + what);
        std::string s(m_text.substr(start, m_pos - start));
        ++m_pos;
        if (s.size() > 64)
            fail(what + " is longer than 64 characters");
        return s;
    }
    bool boolean()
    {
        if (m_text.substr(m_pos, 4) == "True") {
            m_pos += 4;
            return true;
        }
        if (m_text.substr(m_pos, 5) == "False") {
            m_pos += 5;
            return false;
        }
        fail("'fortran_order' must be True or False");
    }
    std::vector<std::uint64_t> tuple()
    {
        if (peek() != '(')
            fail("'shape' must be a tuple such as (1024, 768)");
        ++m_pos;
        std::vector<std::uint64_t> dims;
        for (;;) {
            space();
            if (peek() == ')') {
                ++m_pos;
                return dims;
            }
            if (peek() < '0' || peek() > '9')
                fail("'shape' must hold non-negative integers");
            std::uint64_t v = 0;
            while (peek() >= '0' && peek() <= '9') {
                if (__builtin_mul_overflow(v, std::uint64_t(10), &v)
                    || __builtin_add_overflow(v, std::uint64_t(peek() - '0'), &v))
                    fail("a 'shape' entry is larger than 2^64");
                ++m_pos;
            }
            if (peek() == 'L')
                ++m_pos;
            if (dims.size() >= 32)
                fail("'shape' has more than 32 dimensions");
            dims.push_back(v);
            space();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() != ')')
                fail("expected ',' or ')' in 'shape'");
        }
    }
};

/// What a dtype string names, for refusals: "'>f4' (big-endian float32)", "'<i8' (int64)".
std::string describeDescr(const std::string& d)
{
    if (d.size() < 2)
        return "'" + d + "'";
    const char order = d[0];
    const char kind = d[1];
    const std::string bytes = d.substr(2);
    std::string what;
    // The size in bits when the rest is a plain byte count; up to 15 digits, so times 8 stays exact in 64 bits
    // (found by tests/fuzz/fuzz_npy: '<f913032773' overflowed int). Anything else is shown as written.
    auto bits = [&] {
        if (bytes.empty() || bytes.size() > 15
            || !std::all_of(bytes.begin(), bytes.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return bytes;
        return std::to_string(std::stoull(bytes) * 8);
    };
    switch (kind) {
    case 'f': what = "float" + bits(); break;
    case 'i': what = "int" + bits(); break;
    case 'u': what = "uint" + bits(); break;
    case 'c': what = "complex" + bits(); break;
    case 'b': what = "bool"; break;
    case 'O': what = "Python objects"; break;
    case 'U': what = "unicode text"; break;
    case 'S':
    case 'a': what = "byte strings"; break;
    case 'V': what = bytes + "-byte raw void"; break;
    case 'M': what = "datetime"; break;
    case 'm': what = "timedelta"; break;
    default: what = "an unknown kind";
    }
    if (order == '>')
        what = "big-endian " + what;
    return "'" + d + "' (" + what + ")";
}

constexpr const char* acceptedTypes = "PosLab reads little-endian float32 '<f4', float16 '<f2', bfloat16 (written by "
                                      "ml_dtypes and jnp.save as '<V2') and float64 '<f8'";

std::optional<ElementType> elementTypeOf(const std::string& d)
{
    if (d == "<f4")
        return ElementType::Float32;
    if (d == "<f2")
        return ElementType::Float16;
    if (d == "<f8")
        return ElementType::Float64;
    if (d == "<V2" || d == "|V2")
        return ElementType::BFloat16; // the convention of jax.numpy.load (see npy.h)
    return std::nullopt;
}

} // namespace

NpyHeader readNpyHeader(const ByteSource& source)
{
    const std::string& name = source.name();
    const std::uint64_t size = source.size();
    // numpy.lib.format: magic string "\x93NUMPY", then major and minor version bytes.
    if (size < 10 || source.read(0, 6) != "\x93NUMPY")
        throwFileError(name, "not an .npy file (it does not start with the magic \\x93NUMPY)");
    const std::string start = source.read(6, 2);
    NpyHeader h;
    h.major = static_cast<unsigned char>(start[0]);
    h.minor = static_cast<unsigned char>(start[1]);
    if ((h.major != 1 && h.major != 2 && h.major != 3) || h.minor != 0)
        throwFileError(name,
                       ".npy format version " + std::to_string(h.major) + "." + std::to_string(h.minor)
                           + " is not one of 1.0, 2.0 and 3.0");
    // HEADER_LEN: little-endian unsigned short in 1.0, unsigned int in 2.0 and 3.0.
    const std::size_t lenBytes = h.major == 1 ? 2 : 4;
    if (size < 8 + lenBytes)
        throwFileError(name, "the file ends inside the .npy header length");
    const std::string lenText = source.read(8, lenBytes);
    std::uint64_t headerLen = 0;
    for (std::size_t i = 0; i < lenBytes; ++i)
        headerLen |= std::uint64_t(static_cast<unsigned char>(lenText[i])) << (8 * i);
    h.dataOffset = 8 + lenBytes + headerLen;
    if (h.dataOffset > size)
        throwFileError(name,
                       "the .npy header length " + std::to_string(headerLen) + " runs past the end of the file ("
                           + std::to_string(size) + " bytes)");
    if (headerLen > npyMaxHeaderSize)
        throwFileError(name,
                       "the .npy header is " + std::to_string(headerLen)
                           + " bytes, more than numpy's own limit "
                             "of "
                           + std::to_string(npyMaxHeaderSize) + " (max_header_size)");
    const std::string text = source.read(8 + lenBytes, std::size_t(headerLen));
    // 1.0 and 2.0 headers are latin1, 3.0 UTF-8; the keys and values PosLab accepts are ASCII either way, and
    // a byte outside it can only be inside a string, where the dtype check names it.
    NpyHeader parsed = HeaderParser(text, name).parse();
    parsed.major = h.major;
    parsed.minor = h.minor;
    parsed.dataOffset = h.dataOffset;
    return parsed;
}

TableLayout readNpyLayout(const ByteSource& source, const TableShapeCheck& check)
{
    const std::string& name = source.name();
    const NpyHeader h = readNpyHeader(source);
    const std::optional<ElementType> type = elementTypeOf(h.descr);
    if (!type)
        throwFileError(name, "dtype " + describeDescr(h.descr) + " is not supported; " + acceptedTypes);
    if (h.fortranOrder)
        throwFileError(name,
                       "Fortran (column-major) order is not supported; PosLab reads C order (save "
                       "np.ascontiguousarray(table))");
    const std::string shape = shapeText(h.shape, true);
    if (h.shape.size() != 2)
        throwFileError(name,
                       "shape " + shape + " has " + std::to_string(h.shape.size()) + " dimension"
                           + (h.shape.size() == 1 ? "" : "s") + "; a position table is 2-D (positions x dimensions)");
    const std::uint64_t count = elementCount(h.shape, name, "shape");
    if (count == 0)
        throwFileError(name, "shape " + shape + " is empty; a position table needs at least one row and column");
    const std::uint64_t available = source.size() - h.dataOffset;
    std::uint64_t bytes = 0;
    const bool overflow = __builtin_mul_overflow(count, std::uint64_t(elementSize(*type)), &bytes);
    if (overflow || bytes > available)
        throwFileError(name,
                       "shape " + shape + " of " + std::string(elementTypeName(*type)) + " needs "
                           + (overflow ? std::string("more than 2^64 bytes") : std::to_string(bytes) + " bytes")
                           + " of data, but the file holds " + std::to_string(available)
                           + " after its header (truncated, or a corrupt shape)");
    if (bytes < available)
        throwFileError(name,
                       "the file holds " + std::to_string(available - bytes) + " bytes after the "
                           + std::to_string(bytes) + " of data its header declares (shape " + shape + ")");
    if (check)
        check(h.shape[0], h.shape[1], name);
    TableLayout layout;
    layout.rows = h.shape[0];
    layout.cols = h.shape[1];
    layout.type = *type;
    layout.offset = h.dataOffset;
    layout.source = name;
    return layout;
}

TensorTable readNpyTable(const ByteSource& source, const Limits& limits, const TableShapeCheck& check)
{
    const TableLayout l = readNpyLayout(source, check);
    checkTableSize(l.rows, l.cols, l.source, limits);
    TensorTable t;
    t.type = l.type;
    t.source = l.source;
    t.values = decodeTable(source.read(l.offset, std::size_t(l.rows * l.rowBytes())), l.rows, l.cols, l.type, l.source);
    return t;
}

TensorTable readNpyFile(const std::string& path, const Limits& limits)
{
    return readNpyTable(*openFileSource(path), limits);
}

} // namespace poslab::core
