// SPDX-License-Identifier: MIT
#include "core/io/safetensors.h"

#include "core/errors.h"
#include "core/io/json.h"

#include <algorithm>
#include <optional>

namespace poslab::core {

namespace {

/// Bits per element of every dtype the safetensors format names (safetensors/src/tensor.rs, Dtype::bitsize),
/// so that offsets of tensors PosLab does not read are still checked.
std::optional<std::uint64_t> dtypeBits(const std::string& d)
{
    static const std::pair<const char*, std::uint64_t> table[] = {
        {"BOOL", 8},    {"U8", 8},      {"I8", 8},   {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F4", 4},
        {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"I16", 16}, {"U16", 16},    {"F16", 16},    {"BF16", 16},   {"I32", 32},
        {"U32", 32},    {"F32", 32},    {"F64", 64}, {"I64", 64},    {"U64", 64},    {"C64", 64},
    };
    for (const auto& [n, bits] : table)
        if (d == n)
            return bits;
    return std::nullopt;
}

std::optional<ElementType> elementTypeOf(const std::string& d)
{
    if (d == "F32")
        return ElementType::Float32;
    if (d == "F16")
        return ElementType::Float16;
    if (d == "BF16")
        return ElementType::BFloat16;
    if (d == "F64")
        return ElementType::Float64;
    return std::nullopt;
}

std::uint64_t unsignedOf(const json::Value& v, const std::string& name, const std::string& what)
{
    const std::optional<std::int64_t> i = v.integer();
    if (!v.isNumber() || !i || *i < 0)
        throwFileError(name,
                       what + " must be a non-negative integer, not "
                           + (v.isNumber() ? std::string("a fraction or a negative number")
                                           : std::string(json::typeName(v.type()))));
    return std::uint64_t(*i);
}

std::string quoted(const std::string& s)
{
    // Names come from the file: cut long ones so a message stays one readable line.
    return "'" + (s.size() > 80 ? s.substr(0, 77) + "..." : s) + "'";
}

} // namespace

SafetensorsHeader readSafetensorsHeader(const ByteSource& source)
{
    const std::string& name = source.name();
    const std::uint64_t size = source.size();
    if (size < 8)
        throwFileError(name,
                       "not a .safetensors file (" + std::to_string(size)
                           + " bytes; the format starts with an 8-byte header length)");
    const std::string lenText = source.read(0, 8);
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i)
        n |= std::uint64_t(static_cast<unsigned char>(lenText[std::size_t(i)])) << (8 * i);
    if (n > size - 8)
        throwFileError(name,
                       "the header length " + std::to_string(n) + " runs past the end of the file ("
                           + std::to_string(size) + " bytes; a truncated file, or not a .safetensors file)");
    if (n > safetensorsMaxHeaderSize)
        throwFileError(name,
                       "the header is " + std::to_string(n) + " bytes, more than the format's limit of "
                           + std::to_string(safetensorsMaxHeaderSize));
    const std::string text = source.read(8, std::size_t(n));
    if (text.empty() || text[0] != '{')
        throwFileError(name, "the header does not begin with '{' (not a .safetensors file?)");
    json::ParseLimits jl;
    jl.maxBytes = std::size_t(safetensorsMaxHeaderSize);
    jl.maxDepth = 8;        // a valid header is 3 deep: {name: {shape: [...]}}
    jl.maxValues = 1000000; // a shard of 100,000 tensors has about 800,000; each parsed value is about 112 bytes
    json::Value root;
    try {
        root = json::parse(text, jl);
    } catch (const json::ParseError& e) {
        throwFileError(name, std::string("header: ") + e.what());
    }
    if (!root.isObject())
        throwFileError(name, "the header is " + std::string(json::typeName(root.type())) + ", not an object");

    SafetensorsHeader h;
    h.dataStart = 8 + n;
    for (const auto& [key, info] : root.members()) {
        if (key == "__metadata__") {
            if (!info.isObject())
                throwFileError(
                    name, "__metadata__ must be an object of strings, not " + std::string(json::typeName(info.type())));
            for (const auto& [mk, mv] : info.members())
                if (!mv.isString())
                    throwFileError(name,
                                   "__metadata__ entry " + quoted(mk) + " must be a string, not "
                                       + std::string(json::typeName(mv.type())));
            continue;
        }
        const std::string where = "tensor " + quoted(key);
        if (!info.isObject())
            throwFileError(name, where + " must be an object, not " + std::string(json::typeName(info.type())));
        SafetensorsTensor t;
        t.name = key;
        const json::Value* dtype = info.find("dtype");
        const json::Value* shape = info.find("shape");
        const json::Value* offsets = info.find("data_offsets");
        if (!dtype || !shape || !offsets)
            throwFileError(name,
                           where + " lacks "
                               + (!dtype       ? "\"dtype\""
                                      : !shape ? "\"shape\""
                                               : "\"data_offsets\""));
        if (!dtype->isString())
            throwFileError(name, where + ": dtype must be a string, not " + std::string(json::typeName(dtype->type())));
        t.dtype = dtype->string();
        if (!dtypeBits(t.dtype))
            throwFileError(name, where + " has the unknown dtype " + quoted(t.dtype));
        if (!shape->isArray())
            throwFileError(name, where + ": shape must be an array, not " + std::string(json::typeName(shape->type())));
        for (const auto& d : shape->array())
            t.shape.push_back(unsignedOf(d, name, where + ": each shape entry"));
        if (!offsets->isArray() || offsets->array().size() != 2)
            throwFileError(name, where + ": data_offsets must be an array [BEGIN, END]");
        t.begin = unsignedOf(offsets->array()[0], name, where + ": data_offsets BEGIN");
        t.end = unsignedOf(offsets->array()[1], name, where + ": data_offsets END");
        h.tensors.push_back(std::move(t));
    }

    // The reference's validate(): in offset order, each tensor starts where the previous one ended, and its
    // length is its element count times its dtype size; the last one ends at the end of the file.
    const std::uint64_t bufferSize = size - h.dataStart;
    std::vector<const SafetensorsTensor*> order;
    for (const auto& t : h.tensors)
        order.push_back(&t);
    std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    std::uint64_t covered = 0;
    const SafetensorsTensor* previous = nullptr;
    for (const SafetensorsTensor* t : order) {
        const std::string where = "tensor " + quoted(t->name);
        const std::string range = "data_offsets [" + std::to_string(t->begin) + ", " + std::to_string(t->end) + "]";
        if (t->end < t->begin)
            throwFileError(name, where + ": " + range + " run backwards");
        if (t->end > bufferSize)
            throwFileError(name,
                           where + ": " + range + " run past the end of the file (the data section holds "
                               + std::to_string(bufferSize) + " bytes)");
        if (t->begin < covered)
            throwFileError(name,
                           where + ": " + range + " overlap tensor " + quoted(previous->name) + " (bytes "
                               + std::to_string(previous->begin) + " to " + std::to_string(previous->end) + ")");
        if (t->begin > covered)
            throwFileError(name,
                           where + ": " + range + " leave a gap of " + std::to_string(t->begin - covered)
                               + " bytes before it (the format allows no holes in the data)");
        const std::uint64_t count = elementCount(t->shape, name, where + ": shape");
        std::uint64_t bits = 0;
        if (__builtin_mul_overflow(count, *dtypeBits(t->dtype), &bits))
            throwFileError(name,
                           where + ": shape " + shapeText(t->shape, false) + " of " + t->dtype
                               + " needs more than 2^64 bits (the header is corrupt)");
        if (bits % 8 != 0 || bits / 8 != t->end - t->begin)
            throwFileError(name,
                           where + ": shape " + shapeText(t->shape, false) + " of " + t->dtype + " needs "
                               + (bits % 8 ? std::to_string(bits) + " bits" : std::to_string(bits / 8) + " bytes")
                               + " but " + range + " hold " + std::to_string(t->end - t->begin));
        covered = t->end;
        previous = t;
    }
    if (covered != bufferSize)
        throwFileError(name,
                       "the data section holds " + std::to_string(bufferSize) + " bytes but the tensors cover "
                           + std::to_string(covered) + " (the format allows no unindexed bytes)");
    return h;
}

namespace {

/// "wpe.weight [1024, 768] F32, ..." with names that suggest positions first, at most a dozen.
std::string listTables(const SafetensorsHeader& h)
{
    std::vector<const SafetensorsTensor*> tables;
    for (const auto& t : h.tensors)
        if (t.shape.size() == 2)
            tables.push_back(&t);
    if (tables.empty())
        return "it holds no 2-D tensor";
    auto positional
        = [](const std::string& n) { return n.find("pos") != std::string::npos || n.find("wpe") != std::string::npos; };
    std::stable_sort(tables.begin(), tables.end(),
                     [&](const auto* a, const auto* b) { return positional(a->name) && !positional(b->name); });
    std::string s = "its 2-D tensors: ";
    const std::size_t shown = std::min<std::size_t>(tables.size(), 12);
    for (std::size_t i = 0; i < shown; ++i) {
        s += (i ? ", " : "");
        s += tables[i]->name + " " + shapeText(tables[i]->shape, false) + " " + tables[i]->dtype;
    }
    if (tables.size() > shown)
        s += ", and " + std::to_string(tables.size() - shown) + " more";
    return s;
}

} // namespace

TableLayout readSafetensorsLayout(const ByteSource& source, const std::string& tensor, const TableShapeCheck& check)
{
    const std::string& name = source.name();
    const SafetensorsHeader h = readSafetensorsHeader(source);
    const SafetensorsTensor* chosen = nullptr;
    if (tensor.empty()) {
        std::vector<const SafetensorsTensor*> candidates;
        for (const auto& t : h.tensors)
            if (t.shape.size() == 2 && elementTypeOf(t.dtype))
                candidates.push_back(&t);
        if (candidates.size() != 1)
            throwFileError(name,
                           listTables(h) == "it holds no 2-D tensor"
                               ? std::string("holds no 2-D tensor, and a position table is 2-D")
                               : "choose a tensor (table_tensor); " + listTables(h));
        chosen = candidates.front();
    } else {
        for (const auto& t : h.tensors)
            if (t.name == tensor)
                chosen = &t;
        if (!chosen)
            throwFileError(name, "no tensor " + quoted(tensor) + "; " + listTables(h));
    }
    const std::string where = name + ": " + chosen->name;
    if (chosen->shape.size() != 2)
        throwFileError(where,
                       "shape " + shapeText(chosen->shape, false) + " has " + std::to_string(chosen->shape.size())
                           + " dimension" + (chosen->shape.size() == 1 ? "" : "s")
                           + "; a position table is 2-D (positions x dimensions); " + listTables(h));
    const std::optional<ElementType> type = elementTypeOf(chosen->dtype);
    if (!type)
        throwFileError(where, "dtype " + chosen->dtype + " is not supported; PosLab reads F32, F16, BF16 and F64");
    if (chosen->shape[0] == 0 || chosen->shape[1] == 0)
        throwFileError(where,
                       "shape " + shapeText(chosen->shape, false)
                           + " is empty; a position table needs at least one row and column");
    if (check)
        check(chosen->shape[0], chosen->shape[1], where);
    TableLayout layout;
    layout.rows = chosen->shape[0];
    layout.cols = chosen->shape[1];
    layout.type = *type;
    layout.offset = h.dataStart + chosen->begin;
    layout.source = where;
    return layout;
}

TensorTable readSafetensorsTable(const ByteSource& source, const std::string& tensor, const Limits& limits,
                                 const TableShapeCheck& check)
{
    const TableLayout l = readSafetensorsLayout(source, tensor, check);
    checkTableSize(l.rows, l.cols, l.source, limits);
    TensorTable t;
    t.type = l.type;
    t.source = l.source;
    t.values = decodeTable(source.read(l.offset, std::size_t(l.rows * l.rowBytes())), l.rows, l.cols, l.type, l.source);
    return t;
}

TensorTable readSafetensorsFile(const std::string& path, const std::string& tensor, const Limits& limits)
{
    return readSafetensorsTable(*openFileSource(path), tensor, limits);
}

} // namespace poslab::core
