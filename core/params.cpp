// SPDX-License-Identifier: MIT
#include "core/params.h"

#include "core/errors.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace poslab::core {

namespace {

std::string formatShort(double v)
{
    // A round-trip form as a person writes it (sessions, share strings and messages show it): whole numbers
    // below 1e15 in digits ("500000", where the shortest form is "5e+05"), a decimal where it is at most four
    // characters longer than the exponent form ("0.00001"), else the exponent without padding ("1e-8", "1e20").
    char buf[64];
    if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15) {
        auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
        if (ec == std::errc())
            return std::string(buf, ptr);
    }
    auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
    if (ec != std::errc())
        return std::to_string(v);
    std::string shortest(buf, ptr);
    const std::size_t e = shortest.find('e');
    if (e == std::string::npos)
        return shortest;
    char fixed[400];
    auto [fptr, fec] = std::to_chars(fixed, fixed + sizeof fixed, v, std::chars_format::fixed);
    if (fec == std::errc() && std::size_t(fptr - fixed) <= shortest.size() + 4)
        return std::string(fixed, fptr);
    std::string exponent = shortest.substr(e + 1);
    std::string sign;
    if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
        if (exponent[0] == '-')
            sign = "-";
        exponent.erase(0, 1);
    }
    while (exponent.size() > 1 && exponent[0] == '0')
        exponent.erase(0, 1);
    return shortest.substr(0, e + 1) + sign + exponent;
}

std::string trim(std::string_view s)
{
    std::size_t a = 0, b = s.size();
    while (a < b && (s[a] == ' ' || s[a] == '\t'))
        ++a;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
        --b;
    return std::string(s.substr(a, b - a));
}

bool parseDouble(std::string_view text, double& out)
{
    const std::string t = trim(text);
    if (t.empty())
        return false;
    const char* first = t.data();
    if (*first == '+')
        ++first;
    auto [ptr, ec] = std::from_chars(first, t.data() + t.size(), out);
    return ec == std::errc() && ptr == t.data() + t.size() && std::isfinite(out);
}

std::string rangeText(const ParamSpec& spec)
{
    return "[" + formatShort(spec.minimum) + ", " + formatShort(spec.maximum) + "]";
}

std::string joinWords(const std::vector<std::string>& words)
{
    std::string s;
    for (std::size_t i = 0; i < words.size(); ++i) {
        s += (i ? ", " : "");
        s += words[i];
    }
    return s;
}

} // namespace

std::string_view paramTypeName(ParamType type)
{
    switch (type) {
    case ParamType::Real: return "real";
    case ParamType::Integer: return "integer";
    case ParamType::Choice: return "choice";
    case ParamType::Bool: return "bool";
    case ParamType::RealList: return "list of reals";
    case ParamType::Text: return "text";
    }
    return "?";
}

ParamValue ParamValue::real(double v)
{
    ParamValue p;
    p.type = ParamType::Real;
    p.number = v;
    return p;
}
ParamValue ParamValue::integer(long long v)
{
    ParamValue p;
    p.type = ParamType::Integer;
    p.number = double(v);
    return p;
}
ParamValue ParamValue::boolean(bool v)
{
    ParamValue p;
    p.type = ParamType::Bool;
    p.number = v ? 1.0 : 0.0;
    return p;
}
ParamValue ParamValue::word(std::string v)
{
    ParamValue p;
    p.type = ParamType::Choice;
    p.choice = std::move(v);
    return p;
}
ParamValue ParamValue::reals(std::vector<double> v)
{
    ParamValue p;
    p.type = ParamType::RealList;
    p.list = std::move(v);
    return p;
}
ParamValue ParamValue::textValue(std::string v)
{
    ParamValue p;
    p.type = ParamType::Text;
    p.text = std::move(v);
    return p;
}

std::string ParamValue::toString() const
{
    switch (type) {
    case ParamType::Real:
    case ParamType::Integer: return formatShort(number);
    case ParamType::Bool: return number != 0.0 ? "true" : "false";
    case ParamType::Choice: return choice;
    case ParamType::RealList: {
        std::string s;
        for (std::size_t i = 0; i < list.size(); ++i) {
            s += (i ? "," : "");
            s += formatShort(list[i]);
        }
        return s;
    }
    case ParamType::Text: return text;
    }
    return {};
}

ParamValue defaultValue(const ParamSpec& spec)
{
    switch (spec.type) {
    case ParamType::Real: return ParamValue::real(spec.defaultNumber);
    case ParamType::Integer: return ParamValue::integer((long long)spec.defaultNumber);
    case ParamType::Bool: return ParamValue::boolean(spec.defaultNumber != 0.0);
    case ParamType::Choice: return ParamValue::word(spec.defaultChoice);
    case ParamType::RealList: return ParamValue::reals(spec.defaultList);
    case ParamType::Text: return ParamValue::textValue(spec.defaultText);
    }
    return {};
}

ParamValue defaultValue(const ParamSpec& spec, const ParamSet& params)
{
    for (const auto& d : spec.defaultsWhen)
        if (params.has(d.key) && params.value(d.key).type == ParamType::Choice && params.choice(d.key) == d.value)
            return d.def;
    return defaultValue(spec);
}

ParamValue parseParamValue(const ParamSpec& spec, std::string_view text)
{
    // A path or a name is taken as given (a file name may begin or end with a space); checkValue() bounds it.
    if (spec.type == ParamType::Text)
        return ParamValue::textValue(std::string(text));
    const std::string t = trim(text);
    auto fail = [&](const std::string& expected) -> ParamValue {
        throw InputError("parameter " + spec.key + ": '" + t + "' is not " + expected);
    };
    switch (spec.type) {
    case ParamType::Real: {
        double v;
        if (!parseDouble(t, v))
            return fail("a real number");
        return ParamValue::real(v);
    }
    case ParamType::Integer: {
        // Integers are held in a double: exact up to 2^53. Written in digits, the text is read exactly (a seed of
        // 9007199254740991 is an integer in range, not "not an integer"); beyond 2^53 it is out of range.
        constexpr long long exact = 1ll << 53;
        long long n = 0;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
        const bool digits = !t.empty() && end == t.data() + t.size();
        if (digits && (ec == std::errc::result_out_of_range || n > exact || n < -exact))
            throw InputError("parameter " + spec.key + " = " + t + " is out of range; allowed: " + rangeText(spec));
        if (digits && ec == std::errc())
            return ParamValue::integer(n);
        double v;
        if (!parseDouble(t, v) || v != std::floor(v))
            return fail("an integer");
        if (std::fabs(v) > double(exact))
            throw InputError("parameter " + spec.key + " = " + t + " is out of range; allowed: " + rangeText(spec));
        return ParamValue::integer((long long)v);
    }
    case ParamType::Bool: {
        if (t == "true" || t == "1" || t == "yes" || t == "on")
            return ParamValue::boolean(true);
        if (t == "false" || t == "0" || t == "no" || t == "off")
            return ParamValue::boolean(false);
        return fail("a bool (true or false)");
    }
    case ParamType::Choice: {
        for (const auto& c : spec.choices)
            if (c == t)
                return ParamValue::word(t);
        return fail("one of: " + joinWords(spec.choices));
    }
    case ParamType::RealList: {
        std::vector<double> values;
        if (t.empty())
            return ParamValue::reals({});
        std::size_t start = 0;
        while (start <= t.size()) {
            std::size_t comma = t.find(',', start);
            if (comma == std::string::npos)
                comma = t.size();
            double v;
            if (!parseDouble(std::string_view(t).substr(start, comma - start), v))
                return fail("a comma-separated list of real numbers (element " + std::to_string(values.size() + 1)
                            + " is not a number)");
            values.push_back(v);
            start = comma + 1;
        }
        return ParamValue::reals(std::move(values));
    }
    case ParamType::Text: break; // handled above
    }
    return {};
}

std::string checkValue(const ParamSpec& spec, const ParamValue& value)
{
    if (value.type != spec.type)
        return "parameter " + spec.key + " must be a " + std::string(paramTypeName(spec.type));
    switch (spec.type) {
    case ParamType::Real:
    case ParamType::Integer:
        if (!std::isfinite(value.number) || value.number < spec.minimum || value.number > spec.maximum)
            return "parameter " + spec.key + " = " + value.toString() + " is out of range; allowed: " + rangeText(spec);
        if (spec.type == ParamType::Integer && value.number != std::floor(value.number))
            return "parameter " + spec.key + " = " + value.toString() + " is not an integer";
        return {};
    case ParamType::Bool: return {};
    case ParamType::Choice:
        for (const auto& c : spec.choices)
            if (c == value.choice)
                return {};
        return "parameter " + spec.key + " = '" + value.choice
            + "' is not allowed; choose one of: " + joinWords(spec.choices);
    case ParamType::RealList:
        for (std::size_t i = 0; i < value.list.size(); ++i) {
            const double v = value.list[i];
            if (!std::isfinite(v) || v < spec.minimum || v > spec.maximum)
                return "parameter " + spec.key + ": element " + std::to_string(i + 1) + " = " + formatShort(v)
                    + " is out of range; allowed: " + rangeText(spec);
        }
        return {};
    case ParamType::Text: {
        if (double(value.text.size()) > spec.maximum)
            return "parameter " + spec.key + " is " + std::to_string(value.text.size())
                + " bytes long; allowed: at most " + formatShort(spec.maximum);
        for (std::size_t i = 0; i < value.text.size(); ++i) {
            const auto c = static_cast<unsigned char>(value.text[i]);
            if (c < 0x20 || c == 0x7f)
                return "parameter " + spec.key + " holds a control character (byte " + std::to_string(i + 1)
                    + "); allowed: one line of text";
        }
        return {};
    }
    }
    return {};
}

bool ParamSet::has(std::string_view key) const
{
    return m_values.find(key) != m_values.end();
}

const ParamValue& ParamSet::value(std::string_view key) const
{
    auto it = m_values.find(key);
    if (it == m_values.end())
        throw std::out_of_range("no parameter " + std::string(key));
    return it->second;
}

void ParamSet::set(const std::string& key, ParamValue value)
{
    m_values[key] = std::move(value);
}
double ParamSet::real(std::string_view key) const
{
    return value(key).number;
}
long long ParamSet::integer(std::string_view key) const
{
    return (long long)value(key).number;
}
bool ParamSet::flag(std::string_view key) const
{
    return value(key).number != 0.0;
}
const std::string& ParamSet::choice(std::string_view key) const
{
    return value(key).choice;
}
const std::vector<double>& ParamSet::list(std::string_view key) const
{
    return value(key).list;
}
const std::string& ParamSet::text(std::string_view key) const
{
    return value(key).text;
}

ParamSpec realParam(std::string key, double def, double min, double max, std::string doc, bool log)
{
    ParamSpec s;
    s.key = std::move(key);
    s.type = ParamType::Real;
    s.defaultNumber = def;
    s.minimum = min;
    s.maximum = max;
    s.doc = std::move(doc);
    s.logarithmic = log;
    return s;
}

ParamSpec intParam(std::string key, long long def, long long min, long long max, std::string doc, bool log)
{
    ParamSpec s = realParam(std::move(key), double(def), double(min), double(max), std::move(doc), log);
    s.type = ParamType::Integer;
    return s;
}

ParamSpec boolParam(std::string key, bool def, std::string doc)
{
    ParamSpec s = realParam(std::move(key), def ? 1.0 : 0.0, 0.0, 1.0, std::move(doc));
    s.type = ParamType::Bool;
    return s;
}

ParamSpec choiceParam(std::string key, std::string def, std::vector<std::string> choices, std::string doc)
{
    ParamSpec s;
    s.key = std::move(key);
    s.type = ParamType::Choice;
    s.defaultChoice = std::move(def);
    s.choices = std::move(choices);
    s.doc = std::move(doc);
    return s;
}

ParamSpec listParam(std::string key, std::vector<double> def, double min, double max, std::string doc)
{
    ParamSpec s = realParam(std::move(key), 0.0, min, max, std::move(doc));
    s.type = ParamType::RealList;
    s.defaultList = std::move(def);
    return s;
}

ParamSpec textParam(std::string key, std::string def, std::size_t maxBytes, std::string doc)
{
    ParamSpec s;
    s.key = std::move(key);
    s.type = ParamType::Text;
    s.defaultText = std::move(def);
    s.minimum = 0.0;
    s.maximum = double(maxBytes);
    s.doc = std::move(doc);
    return s;
}

ParamSpec when(ParamSpec spec, std::string key, std::vector<std::string> values)
{
    spec.appliesWhen.push_back({std::move(key), std::move(values)});
    return spec;
}

ParamSpec defaultWhen(ParamSpec spec, std::string key, std::string value, double def)
{
    ParamValue v;
    v.type = spec.type;
    v.number = spec.type == ParamType::Integer ? double((long long)def) : def;
    spec.defaultsWhen.push_back({std::move(key), std::move(value), std::move(v)});
    return spec;
}

bool applies(const ParamSpec& spec, const ParamSet& params)
{
    for (const auto& cond : spec.appliesWhen) {
        if (!params.has(cond.key))
            return false;
        const std::string current = params.value(cond.key).toString();
        bool any = false;
        for (const auto& v : cond.values)
            any = any || v == current;
        if (!any)
            return false;
    }
    return true;
}

} // namespace poslab::core
