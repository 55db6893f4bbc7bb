// SPDX-License-Identifier: MIT
#pragma once
/// @file json.h
/// A small, strict, bounded JSON reader (RFC 8259) for the files PosLab opens: the header of a .safetensors
/// file, and later a Hugging Face config.json, a session or a preset.
///
/// Strict: exactly RFC 8259's grammar (no comments, no trailing commas, no NaN/Infinity, no leading zeros or
/// '+', no single quotes), UTF-8 checked byte by byte (no overlong forms, no encoded surrogates, nothing past
/// U+10FFFF), \\u escapes with surrogate pairs combined and lone surrogates refused, control characters in
/// strings refused, duplicate object keys refused (RFC 8259 section 4 says names SHOULD be unique; the
/// safetensors format disallows duplicates). A leading UTF-8 byte order mark is skipped (section 8.1 allows
/// a parser to ignore it).
/// Bounded: the text length, the nesting depth and the number of values are limited before anything grows,
/// so a hostile file cannot exhaust the stack or the memory.
/// Errors: one line, "invalid JSON at byte N: <what>", N counted from 0 in the text given; callers prefix
/// the file name ("model.safetensors: header: invalid JSON at byte 17: expected ':' after an object key").

#include "core/errors.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace poslab::core::json {

/// The six kinds of JSON value.
enum class Type { Null, Bool, Number, String, Array, Object };

/// "null", "a bool", "a number", "a string", "an array", "an object": for messages such as
/// "shape must be an array, not a string".
std::string_view typeName(Type type);

/// A malformed or over-limit document. what() is the whole one-line message; offset() the byte it names.
class ParseError : public InputError {
public:
    ParseError(std::size_t offset, const std::string& what);
    std::size_t offset() const { return m_offset; }

private:
    std::size_t m_offset;
};

/// Limits checked while parsing; exceeding one is a ParseError naming the limit.
struct ParseLimits {
    std::size_t maxBytes = std::size_t(16) << 20; ///< text length (16 MiB)
    int maxDepth = 64;                            ///< arrays and objects nested inside each other
    std::size_t maxValues = 1000000;              ///< values of any kind in the document (about 100 MB parsed)
};

/// One parsed value. Members are in document order; lookups are linear (documents here are small).
class Value {
public:
    using Member = std::pair<std::string, Value>;

    Type type() const { return m_type; }
    bool isNull() const { return m_type == Type::Null; }
    bool isBool() const { return m_type == Type::Bool; }
    bool isNumber() const { return m_type == Type::Number; }
    bool isString() const { return m_type == Type::String; }
    bool isArray() const { return m_type == Type::Array; }
    bool isObject() const { return m_type == Type::Object; }

    /// The byte offset in the parsed text where this value starts (for messages).
    std::size_t offset() const { return m_offset; }

    /// The value of a Bool (false for any other type).
    bool boolean() const { return m_bool; }
    /// The value of a Number as the nearest double (0 for any other type).
    double number() const { return m_number; }
    /// The exact integer of a Number whose value is integral and within int64 (from the digits themselves
    /// when written without fraction or exponent, so 9007199254740993 stays exact); empty otherwise.
    std::optional<std::int64_t> integer() const;
    /// The text of a String (empty for any other type), UTF-8 with escapes decoded.
    const std::string& string() const { return m_string; }
    /// The elements of an Array (empty for any other type).
    const std::vector<Value>& array() const { return m_array; }
    /// The members of an Object in document order (empty for any other type).
    const std::vector<Member>& members() const { return m_members; }

    /// The member @p key of an Object, or nullptr when absent or when this is not an object.
    const Value* find(std::string_view key) const;

    // Construction (used by the parser; public so tests and callers can build documents).
    static Value null(std::size_t offset = 0);
    static Value makeBool(bool v, std::size_t offset = 0);
    static Value makeNumber(double v, std::optional<std::int64_t> exact, std::size_t offset = 0);
    static Value makeString(std::string v, std::size_t offset = 0);
    static Value makeArray(std::vector<Value> v, std::size_t offset = 0);
    static Value makeObject(std::vector<Member> v, std::size_t offset = 0);

private:
    Type m_type = Type::Null;
    bool m_bool = false;
    bool m_hasInteger = false;
    std::int64_t m_integer = 0;
    double m_number = 0.0;
    std::size_t m_offset = 0;
    std::string m_string;
    std::vector<Value> m_array;
    std::vector<Member> m_members;
};

/// What a parse did, for tests that bound its cost without timing it.
struct ParseStats {
    /// Key comparisons made by the duplicate-key check: O(n log n) for an object of n keys (an ordered set past
    /// the first few keys), where comparing each key with every earlier one made n^2 / 2.
    std::size_t keyComparisons = 0;
};

/// Parses one JSON text (any value at the top, surrounded by optional whitespace). Throws ParseError.
/// @p stats (when given) receives the counts of ParseStats.
Value parse(std::string_view text, const ParseLimits& limits = {}, ParseStats* stats = nullptr);

} // namespace poslab::core::json
