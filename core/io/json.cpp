// SPDX-License-Identifier: MIT
#include "core/io/json.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace poslab::core::json {

std::string_view typeName(Type type)
{
    switch (type) {
    case Type::Null: return "null";
    case Type::Bool: return "a bool";
    case Type::Number: return "a number";
    case Type::String: return "a string";
    case Type::Array: return "an array";
    case Type::Object: return "an object";
    }
    return "?";
}

ParseError::ParseError(std::size_t offset, const std::string& what)
    : InputError("invalid JSON at byte " + std::to_string(offset) + ": " + what)
    , m_offset(offset)
{ }

std::optional<std::int64_t> Value::integer() const
{
    if (m_type == Type::Number && m_hasInteger)
        return m_integer;
    return std::nullopt;
}

const Value* Value::find(std::string_view key) const
{
    for (const auto& [k, v] : m_members)
        if (k == key)
            return &v;
    return nullptr;
}

Value Value::null(std::size_t offset)
{
    Value v;
    v.m_offset = offset;
    return v;
}

Value Value::makeBool(bool b, std::size_t offset)
{
    Value v = null(offset);
    v.m_type = Type::Bool;
    v.m_bool = b;
    return v;
}

Value Value::makeNumber(double d, std::optional<std::int64_t> exact, std::size_t offset)
{
    Value v = null(offset);
    v.m_type = Type::Number;
    v.m_number = d;
    v.m_hasInteger = exact.has_value();
    v.m_integer = exact.value_or(0);
    return v;
}

Value Value::makeString(std::string s, std::size_t offset)
{
    Value v = null(offset);
    v.m_type = Type::String;
    v.m_string = std::move(s);
    return v;
}

Value Value::makeArray(std::vector<Value> a, std::size_t offset)
{
    Value v = null(offset);
    v.m_type = Type::Array;
    v.m_array = std::move(a);
    return v;
}

Value Value::makeObject(std::vector<Member> m, std::size_t offset)
{
    Value v = null(offset);
    v.m_type = Type::Object;
    v.m_members = std::move(m);
    return v;
}

namespace {

/// Printable form of the byte at a position, for messages: 'x', or 0x93 for anything not printable ASCII.
std::string describeByte(unsigned char c)
{
    if (c >= 0x20 && c < 0x7f)
        return std::string("'") + char(c) + "'";
    static const char hex[] = "0123456789abcdef";
    return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
}

class Parser {
public:
    Parser(std::string_view text, const ParseLimits& limits, ParseStats* stats)
        : m_text(text)
        , m_limits(limits)
        , m_stats(stats)
    { }

    Value document()
    {
        if (m_text.size() > m_limits.maxBytes)
            fail(0,
                 "the text is " + std::to_string(m_text.size()) + " bytes, more than the limit of "
                     + std::to_string(m_limits.maxBytes));
        // RFC 8259 section 8.1: a parser MAY ignore a leading byte order mark.
        if (m_text.substr(0, 3) == "\xEF\xBB\xBF")
            m_pos = 3;
        skipSpace();
        if (atEnd())
            fail(m_pos, "the text is empty (expected a value)");
        Value v = value(0);
        skipSpace();
        if (!atEnd())
            fail(m_pos, "unexpected " + describeByte(peek()) + " after the end of the value");
        return v;
    }

private:
    std::string_view m_text;
    ParseLimits m_limits;
    std::size_t m_pos = 0;
    std::size_t m_values = 0;
    ParseStats* m_stats = nullptr;

    [[noreturn]] static void fail(std::size_t at, const std::string& what) { throw ParseError(at, what); }

    bool atEnd() const { return m_pos >= m_text.size(); }
    unsigned char peek() const { return static_cast<unsigned char>(m_text[m_pos]); }

    void skipSpace()
    {
        // RFC 8259 section 2: ws = *( %x20 / %x09 / %x0A / %x0D )
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
            ++m_pos;
    }

    void countValue(std::size_t at)
    {
        if (++m_values > m_limits.maxValues)
            fail(at, "more than " + std::to_string(m_limits.maxValues) + " values (the limit)");
    }

    void expectWord(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            fail(m_pos, "unexpected " + describeByte(peek()) + " (expected a value)");
        m_pos += word.size();
    }

    Value value(int depth)
    {
        const std::size_t at = m_pos;
        countValue(at);
        if (atEnd())
            fail(at, "unexpected end of text (expected a value)");
        switch (peek()) {
        case '{': return object(depth + 1);
        case '[': return array(depth + 1);
        case '"': return Value::makeString(string(), at);
        case 't': expectWord("true"); return Value::makeBool(true, at);
        case 'f': expectWord("false"); return Value::makeBool(false, at);
        case 'n': expectWord("null"); return Value::null(at);
        default:
            if (peek() == '-' || (peek() >= '0' && peek() <= '9'))
                return number();
            fail(at, "unexpected " + describeByte(peek()) + " (expected a value)");
        }
    }

    /// Orders member indices by their keys (counting the comparisons for ParseStats).
    struct KeyLess {
        const std::vector<Value::Member>* members;
        ParseStats* stats;
        bool operator()(std::size_t a, std::size_t b) const
        {
            if (stats)
                ++stats->keyComparisons;
            return (*members)[a].first < (*members)[b].first;
        }
    };
    using KeySet = std::set<std::size_t, KeyLess>;

    /// Refuses the last member's key when an earlier member has it. The first few keys are compared one by one;
    /// past smallObject they go into an ordered set, so an object of n keys costs O(n log n) comparisons, not
    /// n^2 / 2 (a 400,000-key object took minutes). A set, not a hash: no input can make its lookups slow.
    void checkUnique(const std::vector<Value::Member>& members, KeySet& keys, std::size_t keyAt)
    {
        constexpr std::size_t smallObject = 8;
        const std::size_t last = members.size() - 1;
        const std::string& key = members[last].first;
        bool duplicate = false;
        if (members.size() <= smallObject) {
            for (std::size_t i = 0; i < last && !duplicate; ++i) {
                if (m_stats)
                    ++m_stats->keyComparisons;
                duplicate = members[i].first == key;
            }
        } else {
            if (keys.empty())
                for (std::size_t i = 0; i < last; ++i)
                    keys.insert(i);
            duplicate = !keys.insert(last).second;
        }
        if (duplicate)
            fail(keyAt, "duplicate key \"" + key + "\"");
    }

    void checkDepth(int depth, std::size_t at) const
    {
        if (depth > m_limits.maxDepth)
            fail(at, "arrays and objects nested more than " + std::to_string(m_limits.maxDepth) + " deep (the limit)");
    }

    Value array(int depth)
    {
        const std::size_t at = m_pos;
        checkDepth(depth, at);
        ++m_pos; // '['
        std::vector<Value> items;
        skipSpace();
        if (!atEnd() && peek() == ']') {
            ++m_pos;
            return Value::makeArray(std::move(items), at);
        }
        for (;;) {
            skipSpace();
            items.push_back(value(depth));
            skipSpace();
            if (atEnd())
                fail(m_pos, "unexpected end of text inside the array that starts at byte " + std::to_string(at));
            if (peek() == ',') {
                ++m_pos;
                skipSpace();
                if (!atEnd() && peek() == ']')
                    fail(m_pos, "trailing comma before ']'");
                continue;
            }
            if (peek() == ']') {
                ++m_pos;
                return Value::makeArray(std::move(items), at);
            }
            fail(m_pos, "unexpected " + describeByte(peek()) + " (expected ',' or ']' in an array)");
        }
    }

    Value object(int depth)
    {
        const std::size_t at = m_pos;
        checkDepth(depth, at);
        ++m_pos; // '{'
        std::vector<Value::Member> members;
        KeySet keys{KeyLess{&members, m_stats}};
        skipSpace();
        if (!atEnd() && peek() == '}') {
            ++m_pos;
            return Value::makeObject(std::move(members), at);
        }
        for (;;) {
            skipSpace();
            if (atEnd())
                fail(m_pos, "unexpected end of text inside the object that starts at byte " + std::to_string(at));
            if (peek() != '"')
                fail(m_pos, "unexpected " + describeByte(peek()) + " (expected a quoted key)");
            const std::size_t keyAt = m_pos;
            members.emplace_back(string(), Value());
            checkUnique(members, keys, keyAt);
            skipSpace();
            if (atEnd() || peek() != ':')
                fail(m_pos,
                     atEnd() ? std::string("unexpected end of text (expected ':' after a key)")
                             : "unexpected " + describeByte(peek()) + " (expected ':' after a key)");
            ++m_pos;
            skipSpace();
            members.back().second = value(depth);
            skipSpace();
            if (atEnd())
                fail(m_pos, "unexpected end of text inside the object that starts at byte " + std::to_string(at));
            if (peek() == ',') {
                ++m_pos;
                skipSpace();
                if (!atEnd() && peek() == '}')
                    fail(m_pos, "trailing comma before '}'");
                continue;
            }
            if (peek() == '}') {
                ++m_pos;
                return Value::makeObject(std::move(members), at);
            }
            fail(m_pos, "unexpected " + describeByte(peek()) + " (expected ',' or '}' in an object)");
        }
    }

    unsigned hex4(std::size_t at)
    {
        if (m_text.size() - m_pos < 4)
            fail(at, "unexpected end of text in a \\u escape (expected four hex digits)");
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
            const unsigned char c = peek();
            unsigned d;
            if (c >= '0' && c <= '9')
                d = c - '0';
            else if (c >= 'a' && c <= 'f')
                d = c - 'a' + 10;
            else if (c >= 'A' && c <= 'F')
                d = c - 'A' + 10;
            else
                fail(m_pos, "unexpected " + describeByte(c) + " in a \\u escape (expected four hex digits)");
            v = v * 16 + d;
            ++m_pos;
        }
        return v;
    }

    static void appendUtf8(std::string& out, unsigned cp)
    {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    /// Copies one UTF-8 sequence starting at m_pos, checking it is well formed (RFC 3629 section 4).
    void utf8Char(std::string& out)
    {
        const std::size_t at = m_pos;
        const unsigned char c = peek();
        int extra;
        unsigned cp;
        if (c < 0x80) {
            out += char(c);
            ++m_pos;
            return;
        } else if (c >= 0xC2 && c <= 0xDF) {
            extra = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            extra = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            extra = 3;
            cp = c & 0x07;
        } else {
            fail(at, "invalid UTF-8 (" + describeByte(c) + " cannot start a character)");
        }
        if (m_text.size() - m_pos <= std::size_t(extra))
            fail(at, "invalid UTF-8 (a character cut off by the end of the text)");
        for (int i = 1; i <= extra; ++i) {
            const unsigned char k = static_cast<unsigned char>(m_text[m_pos + std::size_t(i)]);
            if ((k & 0xC0) != 0x80)
                fail(m_pos + std::size_t(i),
                     "invalid UTF-8 (" + describeByte(k) + " where a continuation byte belongs)");
            cp = (cp << 6) | (k & 0x3F);
        }
        if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            fail(at, "invalid UTF-8 (an overlong or out-of-range sequence)");
        if (cp >= 0xD800 && cp <= 0xDFFF)
            fail(at, "invalid UTF-8 (an encoded surrogate U+" + hexCode(cp) + ")");
        out.append(m_text.substr(m_pos, std::size_t(extra) + 1));
        m_pos += std::size_t(extra) + 1;
    }

    static std::string hexCode(unsigned cp)
    {
        static const char hex[] = "0123456789ABCDEF";
        std::string s;
        for (int shift = 12; shift >= 0; shift -= 4)
            s += hex[(cp >> shift) & 15];
        return s;
    }

    std::string string()
    {
        const std::size_t start = m_pos;
        ++m_pos; // '"'
        std::string out;
        for (;;) {
            if (atEnd())
                fail(start, "unterminated string");
            const unsigned char c = peek();
            if (c == '"') {
                ++m_pos;
                return out;
            }
            if (c < 0x20)
                fail(m_pos, "control character " + describeByte(c) + " inside a string (write it as an escape)");
            if (c != '\\') {
                utf8Char(out);
                continue;
            }
            const std::size_t escAt = m_pos;
            ++m_pos;
            if (atEnd())
                fail(escAt, "unterminated string (it ends in a backslash)");
            const unsigned char e = peek();
            ++m_pos;
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                unsigned cp = hex4(escAt);
                if (cp >= 0xDC00 && cp <= 0xDFFF)
                    fail(escAt, "lone low surrogate \\u" + hexCode(cp));
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    // RFC 8259 section 7: a character outside the BMP is a UTF-16 surrogate pair, "\uD834\uDD1E".
                    if (m_text.substr(m_pos, 2) != "\\u")
                        fail(escAt, "high surrogate \\u" + hexCode(cp) + " not followed by a low surrogate");
                    const std::size_t lowAt = m_pos;
                    m_pos += 2;
                    const unsigned low = hex4(lowAt);
                    if (low < 0xDC00 || low > 0xDFFF)
                        fail(lowAt,
                             "high surrogate \\u" + hexCode(cp) + " followed by \\u" + hexCode(low)
                                 + ", not a low surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                appendUtf8(out, cp);
                break;
            }
            default: fail(escAt, "unknown escape \\" + std::string(1, char(e)));
            }
        }
    }

    Value number()
    {
        // RFC 8259 section 6: number = [ minus ] int [ frac ] [ exp ]; int = zero / ( digit1-9 *DIGIT )
        const std::size_t at = m_pos;
        auto digit = [&] { return !atEnd() && peek() >= '0' && peek() <= '9'; };
        bool negative = false;
        if (peek() == '-') {
            negative = true;
            ++m_pos;
        }
        if (!digit())
            fail(m_pos,
                 atEnd() ? std::string("unexpected end of text after '-'")
                         : "unexpected " + describeByte(peek()) + " after '-' (expected a digit)");
        const std::size_t intStart = m_pos;
        if (peek() == '0') {
            ++m_pos;
            if (digit())
                fail(intStart, "a number with a leading zero");
        } else {
            while (digit())
                ++m_pos;
        }
        const std::size_t intEnd = m_pos;
        bool integral = true;
        if (!atEnd() && peek() == '.') {
            integral = false;
            ++m_pos;
            if (!digit())
                fail(m_pos, "a number with no digit after the decimal point");
            while (digit())
                ++m_pos;
        }
        long long exponent = 0;
        if (!atEnd() && (peek() == 'e' || peek() == 'E')) {
            integral = false;
            ++m_pos;
            bool expNegative = false;
            if (!atEnd() && (peek() == '+' || peek() == '-')) {
                expNegative = peek() == '-';
                ++m_pos;
            }
            if (!digit())
                fail(m_pos, "a number with no digit in its exponent");
            while (digit()) {
                if (exponent < 100000000)
                    exponent = exponent * 10 + (peek() - '0');
                ++m_pos;
            }
            if (expNegative)
                exponent = -exponent;
        }
        const std::string_view token = m_text.substr(at, m_pos - at);
        double d = 0.0;
        const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), d);
        if (ec == std::errc::result_out_of_range) {
            // Past double's range one way or the other: the decimal exponent of the first significant digit says
            // which. Overflow is refused; underflow is the nearest double, a signed zero.
            long long lead = 0; // decimal exponent of the leading significant digit, before the written exponent
            std::size_t i = intStart;
            while (i < intEnd && m_text[i] == '0')
                ++i;
            if (i < intEnd) {
                lead = (long long)(intEnd - i) - 1;
            } else {
                std::size_t j = intEnd + 1; // after '.'
                lead = -1;
                while (j < m_pos && m_text[j] == '0') {
                    --lead;
                    ++j;
                }
            }
            if (lead + exponent > 0)
                fail(at,
                     "the number " + std::string(token.substr(0, 40)) + (token.size() > 40 ? "..." : "")
                         + " is too large for a double");
            d = negative ? -0.0 : 0.0;
        } else if (ec != std::errc() || ptr != token.data() + token.size()) {
            fail(at, "unreadable number");
        }
        std::optional<std::int64_t> exact;
        if (integral) {
            std::int64_t n = 0;
            const auto [p2, e2] = std::from_chars(token.data(), token.data() + token.size(), n);
            if (e2 == std::errc() && p2 == token.data() + token.size())
                exact = n;
        } else if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
            exact = std::int64_t(d);
        }
        return Value::makeNumber(d, exact, at);
    }
};

} // namespace

Value parse(std::string_view text, const ParseLimits& limits, ParseStats* stats)
{
    return Parser(text, limits, stats).document();
}

} // namespace poslab::core::json
