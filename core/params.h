// SPDX-License-Identifier: MIT
#pragma once
/// @file params.h
/// Typed scheme parameters: the spec of each knob (type, default, range, doc, when it applies) and a set
/// of resolved values. The GUI's parameter panel, the CLI's help and validation, and the generic tests all
/// read the specs from the registry (encodingregistry.h).

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace poslab::core {

class ParamSet;

/// What kind of value a parameter holds.
enum class ParamType {
    Real,     ///< a double within [minimum, maximum]
    Integer,  ///< an integer within [minimum, maximum]
    Choice,   ///< one of a fixed list of words
    Bool,     ///< true or false
    RealList, ///< a list of doubles, each within [minimum, maximum]; its allowed length is checked by the scheme
    Text,     ///< any one-line text (a file path, a tensor name) of at most maximum bytes
};

/// Name of a type as shown to the user ("real", "integer", "choice", "bool", "list of reals", "text").
std::string_view paramTypeName(ParamType type);

/// A parameter value; which member is meaningful depends on @c type.
struct ParamValue {
    ParamType type = ParamType::Real;
    double number = 0.0;      ///< Real, Integer, Bool (0 or 1)
    std::string choice;       ///< Choice
    std::vector<double> list; ///< RealList
    std::string text;         ///< Text

    static ParamValue real(double v);
    static ParamValue integer(long long v);
    static ParamValue boolean(bool v);
    static ParamValue word(std::string v);
    static ParamValue reals(std::vector<double> v);
    static ParamValue textValue(std::string v);

    /// Text form that parseParamValue() reads back unchanged ("10000", "yarn", "true", "1,1.5,2"; a Text value
    /// is itself, spaces included).
    std::string toString() const;
    bool operator==(const ParamValue&) const = default;
};

/// A parameter applies only when the choice parameter @c key holds one of @c values.
struct ParamCondition {
    std::string key;
    std::vector<std::string> values;
};

/// A default that holds only while the choice parameter @c key is @c value: rope's factor is 8 when rope_type
/// is llama3 (Llama 3.1) and 4 otherwise. A key not set explicitly follows its choice (resolveParams,
/// withParamValue).
struct ChoiceDefault {
    std::string key;
    std::string value;
    ParamValue def;
};

/// One knob of a scheme.
struct ParamSpec {
    std::string key; ///< ecosystem spelling, e.g. "rope_theta"
    ParamType type = ParamType::Real;
    std::string doc;                         ///< one line, shown as tooltip and in `poslab schemes`
    double defaultNumber = 0.0;              ///< default for Real, Integer and Bool (0 or 1)
    std::string defaultChoice;               ///< default for Choice
    std::vector<std::string> choices;        ///< allowed words for Choice
    std::vector<double> defaultList;         ///< default for RealList
    std::string defaultText;                 ///< default for Text
    double minimum = 0.0;                    ///< inclusive lower bound (Real, Integer, list elements)
    double maximum = 0.0;                    ///< inclusive upper bound; for Text the most bytes allowed
    bool logarithmic = false;                ///< the GUI uses a logarithmic slider
    std::vector<ParamCondition> appliesWhen; ///< all must hold; empty means always
    std::vector<ChoiceDefault> defaultsWhen; ///< defaults that replace the plain one under a choice (first wins)
};

/// The plain default value of a spec (what it is when no ChoiceDefault holds).
ParamValue defaultValue(const ParamSpec& spec);

/// The default of @c spec under the choices in @c params: the first of spec.defaultsWhen whose choice holds,
/// else the plain default.
ParamValue defaultValue(const ParamSpec& spec, const ParamSet& params);

/// Parses the text form of a value for @c spec. Throws InputError naming the key, the text and what is
/// allowed. Does not check the range (see checkValue()). Surrounding spaces are trimmed, except for Text,
/// which is taken as given.
ParamValue parseParamValue(const ParamSpec& spec, std::string_view text);

/// Returns an empty string when @c value is allowed for @c spec, otherwise one line naming the key, the
/// value and the allowed range or words.
std::string checkValue(const ParamSpec& spec, const ParamValue& value);

/// Resolved values of every parameter of one scheme (defaults filled in).
class ParamSet {
public:
    bool has(std::string_view key) const;
    const ParamValue& value(std::string_view key) const; ///< throws std::out_of_range for an unknown key
    void set(const std::string& key, ParamValue value);

    double real(std::string_view key) const;
    long long integer(std::string_view key) const;
    bool flag(std::string_view key) const;
    const std::string& choice(std::string_view key) const;
    const std::vector<double>& list(std::string_view key) const;
    const std::string& text(std::string_view key) const;

    const std::map<std::string, ParamValue, std::less<>>& values() const { return m_values; }
    bool operator==(const ParamSet&) const = default;

private:
    std::map<std::string, ParamValue, std::less<>> m_values;
};

/// Builders that keep the registry table readable.
ParamSpec realParam(std::string key, double def, double min, double max, std::string doc, bool log = false);
ParamSpec intParam(std::string key, long long def, long long min, long long max, std::string doc, bool log = false);
ParamSpec boolParam(std::string key, bool def, std::string doc);
ParamSpec choiceParam(std::string key, std::string def, std::vector<std::string> choices, std::string doc);
ParamSpec listParam(std::string key, std::vector<double> def, double min, double max, std::string doc);
/// A Text parameter of at most @c maxBytes bytes, without control characters.
ParamSpec textParam(std::string key, std::string def, std::size_t maxBytes, std::string doc);
/// Returns @c spec restricted to when choice @c key is one of @c values.
ParamSpec when(ParamSpec spec, std::string key, std::vector<std::string> values);
/// Returns @c spec with the default @c def while choice @c key is @c value (a number for Real, Integer, Bool).
ParamSpec defaultWhen(ParamSpec spec, std::string key, std::string value, double def);

/// True when every condition of @c spec holds in @c params.
bool applies(const ParamSpec& spec, const ParamSet& params);

} // namespace poslab::core
