// SPDX-License-Identifier: MIT
#include "core/encodingregistry.h"

#include "core/encodings/alibi.h"
#include "core/encodings/cope.h"
#include "core/encodings/deberta.h"
#include "core/encodings/fire.h"
#include "core/encodings/irope.h"
#include "core/encodings/kerple.h"
#include "core/encodings/learned.h"
#include "core/encodings/nope.h"
#include "core/encodings/rope.h"
#include "core/encodings/sandwich.h"
#include "core/encodings/shaw.h"
#include "core/encodings/sinusoidal.h"
#include "core/encodings/t5.h"
#include "core/encodings/transformer_xl.h"
#include "core/encodings/xpos.h"
#include "core/errors.h"
#include "core/spatial.h"

#include <algorithm>
#include <cmath>

namespace poslab::core {

const std::vector<SchemeDescriptor>& schemes()
{
    // The one ordered table, in teaching order. Adding a scheme: one file pair, one line here, one test.
    static const std::vector<SchemeDescriptor> table = {
        nopeScheme(),     sinusoidalScheme(), learnedScheme(), shawScheme(), transformerXlScheme(), t5Scheme(),
        debertaScheme(),  alibiScheme(),
        sandwichScheme(), // fixed biases together: the picker groups consecutive entries of one family
        kerpleScheme(),   fireScheme(),       ropeScheme(),    xposScheme(), copeScheme(),          iropeScheme(),
    };
    return table;
}

const SchemeDescriptor* findScheme(std::string_view id)
{
    for (const auto& s : schemes())
        if (s.id == id)
            return &s;
    return nullptr;
}

const SchemeDescriptor& schemeOrThrow(std::string_view id)
{
    if (const SchemeDescriptor* s = findScheme(id))
        return *s;
    std::string known;
    for (const auto& s : schemes())
        known += (known.empty() ? "" : ", ") + s.id;
    for (const auto& s : spatialSchemes()) // the grid and sequence schemes (core/spatial.h)
        known += ", " + s.info.id;
    throw InputError("unknown scheme '" + std::string(id) + "'; known schemes: " + known);
}

ParamSet defaultParams(const SchemeDescriptor& scheme)
{
    ParamSet p;
    for (const auto& spec : scheme.params)
        p.set(spec.key, defaultValue(spec));
    for (const auto& spec : scheme.params)
        if (!spec.defaultsWhen.empty())
            p.set(spec.key, defaultValue(spec, p));
    return p;
}

namespace {
/// Every key not @p given that held its default under the choices of @p before takes its default under those of
/// @p after (ParamSpec::defaultsWhen: rope_type=llama3 brings factor 8; a factor the user set stays).
template <class Given>
void followChoices(const SchemeDescriptor& scheme, const ParamSet& before, ParamSet& after, Given given)
{
    for (const auto& spec : scheme.params)
        if (!spec.defaultsWhen.empty() && !given(spec.key) && before.has(spec.key)
            && before.value(spec.key) == defaultValue(spec, before))
            after.set(spec.key, defaultValue(spec, after));
}
} // namespace

ParamSet withParamValue(const SchemeDescriptor& scheme, const ParamSet& params, const std::string& key,
                        ParamValue value)
{
    ParamSet next = params;
    next.set(key, std::move(value));
    followChoices(scheme, params, next, [&](const std::string& k) { return k == key; });
    return next;
}

void validateParams(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx)
{
    for (const auto& spec : scheme.params) {
        if (!params.has(spec.key))
            throw InputError("parameter " + spec.key + " of scheme " + scheme.id + " is missing");
        const std::string problem = checkValue(spec, params.value(spec.key));
        if (!problem.empty())
            throw InputError(problem);
    }
    checkContext(scheme, params, ctx);
}

void checkContext(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx)
{
    if (scheme.needsEvenDim && (ctx.dim < 2 || ctx.dim % 2 != 0))
        throw InputError(scheme.id + " needs an even dimension of at least 2 (dimensions work in pairs); got "
                         + std::to_string(ctx.dim));
    if (ctx.dim < 1 || ctx.dim > 65536)
        throw InputError("dimension " + std::to_string(ctx.dim) + " is out of range; allowed: 1 to 65536");
    if (ctx.seqLen && (*ctx.seqLen < 1 || *ctx.seqLen > maxPosition))
        throw InputError("sequence length " + std::to_string(*ctx.seqLen) + " is out of range; allowed: 1 to "
                         + std::to_string(maxPosition));
    if (scheme.validate)
        scheme.validate(params, ctx);
}

std::pair<std::string, std::string> splitSetting(std::string_view text, std::string_view option)
{
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0)
        throw InputError(std::string(option) + " '" + std::string(text) + "' must be KEY=VALUE");
    return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

namespace {

std::string knownParams(const SchemeDescriptor& scheme)
{
    std::string known;
    for (const auto& s : scheme.params)
        known += (known.empty() ? "" : ", ") + s.key;
    return known.empty() ? std::string("none") : known;
}

/// The spec of @p key; throws InputError naming the scheme's parameters when it has none by that name.
const ParamSpec& specOrThrow(const SchemeDescriptor& scheme, const std::string& key)
{
    if (const ParamSpec* spec = scheme.param(key))
        return *spec;
    throw InputError("unknown parameter '" + key + "' for scheme " + scheme.id
                     + "; its parameters: " + knownParams(scheme));
}

/// A key given twice is a mistake to report, not a value to pick (the last used to win silently); @p text gives
/// each setting's value as the message quotes it.
template <class List, class Text> void refuseTwice(const List& list, Text text)
{
    for (auto it = list.begin(); it != list.end(); ++it) {
        const auto again = std::find_if(std::next(it), list.end(), [&](const auto& o) { return o.first == it->first; });
        if (again != list.end())
            throw InputError("parameter " + it->first + " is set twice (" + it->first + "=" + text(it->second)
                             + ", then " + again->first + "=" + text(again->second) + "); give it once");
    }
}

/// @p v as a value of @p spec: a number serves a Real or an Integer key (checkValue refuses a fraction for an
/// Integer), any other type must be the key's; throws InputError (checkValue's message) otherwise.
ParamValue ofSpecType(const ParamSpec& spec, ParamValue v)
{
    const auto numeric = [](ParamType t) { return t == ParamType::Real || t == ParamType::Integer; };
    if (numeric(spec.type) && numeric(v.type))
        v.type = spec.type;
    const std::string problem = checkValue(spec, v);
    if (!problem.empty())
        throw InputError(problem);
    return v;
}

} // namespace

Settings parseSettings(const SchemeDescriptor& scheme, const Overrides& overrides)
{
    refuseTwice(overrides, [](const std::string& t) { return t; });
    Settings settings;
    for (const auto& [key, text] : overrides) {
        const ParamSpec& spec = specOrThrow(scheme, key);
        settings.emplace_back(key, ofSpecType(spec, parseParamValue(spec, text)));
    }
    return settings;
}

namespace {

/// resolveParams() for values up to the validation of the whole set: @p settings applied to @p base (each key
/// checked), the choices followed, every key set checked to apply.
ParamSet settleParams(const SchemeDescriptor& scheme, const ParamSet& base, const Settings& settings)
{
    refuseTwice(settings, [](const ParamValue& v) { return v.toString(); });
    ParamSet params = base;
    for (const auto& [key, value] : settings)
        params.set(key, ofSpecType(specOrThrow(scheme, key), value));
    // Keys not given follow the final choices if they held their default (rope_type=llama3 brings Llama 3.1's
    // factor 8 and window 8192; a factor set earlier stays), as the window's withParamValue does.
    followChoices(scheme, base, params, [&](const std::string& k) {
        return std::any_of(settings.begin(), settings.end(), [&](const auto& o) { return o.first == k; });
    });
    // Choices first, then the check: a key set explicitly must apply under the final choices, whatever the
    // order it was given in. Setting beta_fast with rope_type=default would otherwise be silently ignored.
    for (const auto& [key, value] : settings) {
        const ParamSpec* spec = scheme.param(key);
        if (applies(*spec, params))
            continue;
        std::string cond, now;
        for (const auto& c : spec->appliesWhen) {
            std::string vals;
            for (const auto& v : c.values)
                vals += (vals.empty() ? "" : " or ")
                    + (v.empty() ? std::string("empty") : v); // a text such as table_file
            cond += (cond.empty() ? "" : " and ") + c.key + " is " + vals;
            const std::string current = params.has(c.key) ? params.value(c.key).toString() : std::string("unset");
            if (now.empty() && std::find(c.values.begin(), c.values.end(), current) == c.values.end())
                now = c.key + " is " + current;
        }
        throw InputError("parameter " + key + " applies only when " + cond + " (now " + now + ")");
    }
    return params;
}

} // namespace

ParamSet resolveParams(const SchemeDescriptor& scheme, const ParamSet& base, const Settings& settings,
                       const TableContext& ctx)
{
    return resolveParams(scheme, base, settings, ctx, nullptr); // no token: every check
}

ParamSet resolveParams(const SchemeDescriptor& scheme, const ParamSet& base, const Settings& settings,
                       const TableContext& ctx, const CheckedParams* checked)
{
    ParamSet params = settleParams(scheme, base, settings);
    validateParamsOnce(scheme, params, ctx, checked);
    return params;
}

CheckedParams resolveChecked(const SchemeDescriptor& scheme, const ParamSet& base, const Settings& settings,
                             const TableContext& ctx)
{
    return checkParams(scheme, settleParams(scheme, base, settings), ctx);
}

// --- validated once -------------------------------------------------------------------------------------

CheckedParams checkParams(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx)
{
    validateParams(scheme, params, ctx);
    CheckedParams c;
    c.m_scheme = scheme.id;
    c.m_params = params;
    c.m_dim = ctx.dim;
    c.m_seqLen = effectiveSeqLen(ctx);
    if (scheme.rotary) {
        try {
            c.m_spec = scheme.rotary(params, ctx);
        } catch (const std::exception&) {
            // Accepted but without a spec: every caller derives it and is refused as without a token.
        }
    }
    return c;
}

bool CheckedParams::covers(const SchemeDescriptor& scheme, const ParamSet& params, int dim) const
{
    return m_scheme == scheme.id && m_dim == dim && m_params == params;
}

const RotarySpec* CheckedParams::specFor(const TableContext& ctx) const
{
    // A RotaryFn reads the parameters, ctx.dim and effectiveSeqLen(ctx) only (scheme.h): any other length gets its
    // own spec (dynamic NTK, LongRoPE, xPos's centre).
    return m_spec && ctx.dim == m_dim && effectiveSeqLen(ctx) == m_seqLen ? &*m_spec : nullptr;
}

bool CheckedParams::operator==(const CheckedParams& o) const
{
    return m_scheme == o.m_scheme && m_dim == o.m_dim && m_seqLen == o.m_seqLen && m_params == o.m_params;
}

void validateParamsOnce(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx,
                        const CheckedParams* checked)
{
    if (checked && checked->covers(scheme, params, ctx.dim))
        checkContext(scheme, params, ctx); // the parameters are vouched for; the context is this request's own
    else
        validateParams(scheme, params, ctx);
}

RotarySpec rotarySpecFor(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx,
                         const CheckedParams* checked)
{
    if (checked && checked->covers(scheme, params, ctx.dim))
        if (const RotarySpec* spec = checked->specFor(ctx))
            return *spec;
    if (!scheme.rotary)
        throw InputError("scheme " + scheme.id + " does not rotate queries and keys");
    return scheme.rotary(params, ctx);
}

ParamSet resolveParams(const SchemeDescriptor& scheme, const ParamSet& base, const Overrides& overrides,
                       const TableContext& ctx)
{
    return resolveParams(scheme, base, parseSettings(scheme, overrides), ctx);
}

ParamSet resolveParams(const SchemeDescriptor& scheme, const Overrides& overrides, const TableContext& ctx)
{
    return resolveParams(scheme, defaultParams(scheme), overrides, ctx);
}

// --- descriptor helpers -------------------------------------------------------------------------------

std::vector<Quantity> SchemeDescriptor::quantities() const
{
    std::vector<Quantity> q;
    if (encoding)
        q.push_back(Quantity::Encoding);
    if (rotary || frequencies)
        q.push_back(Quantity::Frequencies);
    if (rotary) {
        q.push_back(Quantity::Angles);
        q.push_back(Quantity::Cos);
        q.push_back(Quantity::Sin);
        q.push_back(Quantity::Rotate);
        q.push_back(Quantity::Extension);
        q.push_back(Quantity::Precision);
    }
    if (bias || (score && scoreHasBias))
        q.push_back(Quantity::Bias);
    if (buckets)
        q.push_back(Quantity::Buckets);
    q.push_back(Quantity::Scores); // every scheme goes through the attention-score engine
    // decayCurves(): sinusoids, learned tables, rotations, biases, and DeBERTa's bucket rows.
    const bool table
        = encoding && (frequencies || (application == Application::Embedding && relation != Relation::None));
    if (table || rotary || bias || id == "deberta")
        q.push_back(Quantity::Decay);
    return q;
}

bool SchemeDescriptor::has(Quantity q) const
{
    const auto all = quantities();
    return std::find(all.begin(), all.end(), q) != all.end();
}

double logitScaleOf(const SchemeDescriptor& s, const ParamSet& params, int headDim)
{
    return s.logitScale ? s.logitScale(params, headDim) : 1.0 / std::sqrt(double(headDim));
}

Position effectiveSeqLen(const TableContext& ctx)
{
    // Hugging Face dynamic_rope_update: seq_len = torch.max(position_ids) + 1.
    return ctx.seqLen ? *ctx.seqLen : ctx.positions.maxValue() + 1;
}

std::vector<std::string> schemeWarnings(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx)
{
    return scheme.warnings ? scheme.warnings(params, ctx) : std::vector<std::string>{};
}

const ParamSpec* SchemeDescriptor::param(std::string_view key) const
{
    for (const auto& p : params)
        if (p.key == key)
            return &p;
    return nullptr;
}

std::string_view relationName(Relation r)
{
    switch (r) {
    case Relation::None: return "none";
    case Relation::Absolute: return "absolute";
    case Relation::Relative: return "relative";
    case Relation::Contextual: return "contextual";
    case Relation::Mixed: return "mixed";
    }
    return "?";
}

std::string_view applicationName(Application a)
{
    switch (a) {
    case Application::Nothing: return "nothing";
    case Application::Embedding: return "embedding";
    case Application::QueryKeyRotation: return "query/key rotation";
    case Application::ScoreBias: return "score bias";
    case Application::KeysValues: return "keys/values";
    case Application::Mixed: return "mixed";
    }
    return "?";
}

std::string_view originName(Origin o)
{
    switch (o) {
    case Origin::None: return "none";
    case Origin::Fixed: return "fixed";
    case Origin::Learned: return "learned";
    case Origin::Mixed: return "mixed";
    }
    return "?";
}

namespace {
constexpr std::pair<Quantity, std::string_view> quantityNames[] = {
    {Quantity::Encoding, "encoding"},
    {Quantity::Frequencies, "frequencies"},
    {Quantity::Angles, "angles"},
    {Quantity::Cos, "cos"},
    {Quantity::Sin, "sin"},
    {Quantity::Rotate, "rotate"},
    {Quantity::Bias, "bias"},
    {Quantity::Buckets, "buckets"},
    {Quantity::Scores, "scores"},
    {Quantity::Decay, "decay"},
    {Quantity::Extension, "extension"},
    {Quantity::Precision, "precision"},
    {Quantity::PositionIds, "position_ids"},
};
} // namespace

std::string_view quantityName(Quantity q)
{
    for (const auto& [k, name] : quantityNames)
        if (k == q)
            return name;
    return "?";
}

Quantity parseQuantity(std::string_view name)
{
    std::string known;
    for (const auto& [k, n] : quantityNames) {
        if (n == name)
            return k;
        known += (known.empty() ? "" : ", ") + std::string(n);
    }
    throw InputError("unknown quantity '" + std::string(name) + "'; known quantities: " + known);
}

} // namespace poslab::core
