// SPDX-License-Identifier: MIT
#pragma once
/// @file tablefiles.h
/// Writes .npy and .safetensors files byte by byte for the reader tests, from the formats' own descriptions
/// (not from PosLab's readers or writers):
///  - .npy, numpy.lib.format "NPY format": "\x93NUMPY", major and minor version bytes, HEADER_LEN as a
///    little-endian unsigned short (1.0) or unsigned int (2.0, 3.0), an ASCII Python literal dict with 'descr',
///    'fortran_order' and 'shape', padded with spaces so the data starts on a multiple of 64 bytes and ended by
///    '\n', then the data;
///  - .safetensors, huggingface/safetensors README "Format": 8 bytes N (unsigned little-endian 64-bit), N bytes
///    of JSON header, then the byte buffer.

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace poslab::test {

/// @p v as @p bytes little-endian bytes.
inline std::string le(std::uint64_t v, int bytes)
{
    std::string s;
    for (int i = 0; i < bytes; ++i)
        s += char((v >> (8 * i)) & 0xff);
    return s;
}

/// float32 values as little-endian bytes.
inline std::string f32Bytes(const std::vector<float>& v)
{
    std::string s;
    for (float f : v) {
        std::uint32_t w;
        std::memcpy(&w, &f, 4);
        s += le(w, 4);
    }
    return s;
}

/// 16-bit patterns (float16 or bfloat16) as little-endian bytes.
inline std::string u16Bytes(const std::vector<std::uint16_t>& v)
{
    std::string s;
    for (std::uint16_t b : v)
        s += le(b, 2);
    return s;
}

/// The header dict numpy writes: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }
inline std::string npyDict(const std::string& descr, const std::string& shape, bool fortran = false)
{
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape
        + ", }";
}

/// An .npy file of format version @p major.0 with header @p dict and the bytes @p data.
inline std::string npy(const std::string& dict, const std::string& data, int major = 1)
{
    const std::size_t lenBytes = major == 1 ? 2 : 4;
    std::string header = dict;
    const std::size_t fixed = 8 + lenBytes;
    while ((fixed + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    return std::string("\x93NUMPY", 6) + char(major) + char(0) + le(header.size(), int(lenBytes)) + header + data;
}

/// A .safetensors file: N, the header padded with spaces to a multiple of 8 (as the reference writer pads it),
/// then the byte buffer.
inline std::string safetensors(std::string header, const std::string& data)
{
    while (header.size() % 8 != 0)
        header += ' ';
    return le(header.size(), 8) + header + data;
}

inline void writeFile(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

} // namespace poslab::test
