// SPDX-License-Identifier: MIT
#include "core/extension.h"

#include "core/encodingregistry.h"
#include "core/encodings/rope.h"
#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

namespace poslab::core {

namespace {

constexpr double twoPi = 2.0 * std::numbers::pi;

std::string number(double v)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string methodOf(const SchemeDescriptor& scheme, const ParamSet& params)
{
    if (scheme.param("rope_type"))
        return params.choice("rope_type");
    return scheme.id; // xPos: no extension method
}

// The rope scheme's parameters for one comparison method, with the scheme's theta and the common factor and window.
ParamSet methodParams(const std::string& type, double theta, double factor, Position trained, const ParamSet& own,
                      const std::string& ownType)
{
    const SchemeDescriptor& rope = schemeOrThrow("rope");
    ParamSet p = defaultParams(rope);
    p.set("rope_type", ParamValue::word(type));
    p.set("rope_theta", ParamValue::real(theta));
    p.set("partial_rotary_factor", ParamValue::real(1.0));
    p.set("factor", ParamValue::real(factor));
    p.set("original_max_position_embeddings", ParamValue::integer(trained));
    p.set("max_position_embeddings", ParamValue::integer(trained)); // dynamic: the trained length
    // The scheme's own knobs of the same method stay (a YaRN preset's betas, a Llama 3 preset's band factors).
    if (type == ownType) {
        for (const char* key : {"beta_fast", "beta_slow", "truncate", "low_freq_factor", "high_freq_factor"})
            if (own.values().count(key))
                p.set(key, own.value(key));
    }
    if (type == "yarn")
        p.set("factor_source", ParamValue::word("factor"));
    return p;
}

double scalarOr(const RotarySpec& spec, const char* key, double fallback)
{
    for (const auto& [k, v] : spec.scalars)
        if (k == key)
            return v;
    return fallback;
}

} // namespace

int ExtensionTable::count(ExtensionBand b) const
{
    return int(std::count_if(pairs.begin(), pairs.end(), [b](const ExtensionPair& p) { return p.band == b; }));
}

int ExtensionTable::turning() const
{
    return int(std::count_if(pairs.begin(), pairs.end(), [](const ExtensionPair& p) { return p.completesTurn(); }));
}

std::string extensionBandName(const ExtensionTable& t, ExtensionBand band)
{
    const bool yarn = t.method == "yarn";
    switch (band) {
    case ExtensionBand::Unscaled: return "unscaled";
    case ExtensionBand::Kept: return yarn ? "extrapolated" : "kept";
    case ExtensionBand::Blended: return yarn ? "ramp" : "blended";
    case ExtensionBand::Divided: return yarn ? "interpolated" : "divided by " + number(t.factor);
    case ExtensionBand::Rescaled:
        if (t.method == "longrope")
            return t.usesLongFactor ? "long factor" : "short factor";
        return "base change";
    }
    return "?";
}

std::optional<Position> trainedLengthOf(const SchemeDescriptor& scheme, const ParamSet& params)
{
    const std::string method = methodOf(scheme, params);
    if ((method == "llama3" || method == "yarn" || method == "longrope")
        && scheme.param("original_max_position_embeddings"))
        return Position(params.integer("original_max_position_embeddings"));
    if (method == "dynamic")
        return Position(params.integer("max_position_embeddings"));
    return std::nullopt;
}

ExtensionTable extensionTable(const SchemeDescriptor& scheme, const ParamSet& params, int dim, Position length,
                              std::optional<Position> trainedLength)
{
    if (!scheme.rotary)
        throw InputError("scheme " + scheme.id
                         + " does not rotate: the extension table needs a rotary scheme "
                           "(rope, xpos, irope)");
    if (length < 1)
        throw InputError("the inference length must be at least 1");
    ExtensionTable t;
    t.method = methodOf(scheme, params);
    t.length = length;

    // The scheme's own frequencies at sequence length L (dynamic NTK and LongRoPE depend on it).
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = PositionList::range(0, 1);
    ctx.seqLen = length;
    const RotarySpec spec = scheme.rotary(params, ctx);
    const int r = spec.rotaryDim;
    if (r < 2 || spec.invFreq.empty())
        throw InputError("this set-up rotates nothing (an iRoPE NoPE layer): there are no pairs to extend; pick a "
                         "RoPE layer");
    const double theta = params.real("rope_theta");
    const std::vector<double> old = ropeBaseFrequencies(theta, r);
    t.attentionFactor = spec.attentionFactor;
    t.specScalars = spec.scalars;
    t.theta = theta;
    t.effectiveBase = scalarOr(spec, "effective_base", theta);
    t.usesLongFactor = scalarOr(spec, "uses_long_factor", 0.0) != 0.0;

    // The trained window T.
    if (const auto own = trainedLengthOf(scheme, params)) {
        t.trainedLength = *own;
        t.trainedSource = t.method == "dynamic" ? "max_position_embeddings" : "original_max_position_embeddings";
    } else if (trainedLength) {
        t.trainedLength = *trainedLength;
        t.trainedSource = "given";
    }

    // The method's factor s.
    if (t.method == "linear" || t.method == "ntk" || t.method == "dynamic" || t.method == "llama3") {
        t.factor = params.real("factor");
        t.factorSource = "factor";
    } else if (t.method == "yarn") {
        t.factor = yarnFactor(params);
        t.factorSource = params.choice("factor_source") == "max_position_ratio"
            ? "max_position_embeddings / original_max_position_embeddings"
            : "factor";
    } else if (t.method == "longrope") {
        t.factor = double(params.integer("max_position_embeddings"))
            / double(params.integer("original_max_position_embeddings"));
        t.factorSource = "max_position_embeddings / original_max_position_embeddings";
    }
    if (t.trainedLength == 0) {
        // No window in the parameters and none given: PI's definition s = L' / L (Chen et al. 2023, section 2.3)
        // read backwards for the methods with a factor; else the inference length itself.
        const bool hasFactor = !t.factorSource.empty();
        t.trainedLength = std::max<Position>(1, hasFactor ? Position(std::llround(double(length) / t.factor)) : length);
        t.trainedSource = hasFactor ? "inference length / factor" : "inference length";
    }
    if (t.factorSource.empty()) {
        t.factor = std::max(1.0, double(length) / double(t.trainedLength));
        t.factorSource = "inference length / trained length (at least 1)";
    }

    const double oldContext = double(t.trainedLength);
    double low = std::numeric_limits<double>::quiet_NaN(), high = low;
    if (t.method == "yarn") {
        low = scalarOr(spec, "correction_low", low);
        high = scalarOr(spec, "correction_high", high);
        t.correctionLow = low;
        t.correctionHigh = high;
        t.edgeShort = oldContext / params.real("beta_fast");
        t.edgeLong = oldContext / params.real("beta_slow");
    } else if (t.method == "llama3") {
        t.edgeShort = oldContext / params.real("high_freq_factor");
        t.edgeLong = oldContext / params.real("low_freq_factor");
    } else {
        t.edgeShort = t.edgeLong = t.correctionLow = t.correctionHigh = std::numeric_limits<double>::quiet_NaN();
    }

    const double T = double(t.trainedLength), L = double(length);
    t.pairs.resize(old.size());
    t.automaticPair = -1;
    int firstNeverTurning = -1;
    for (std::size_t i = 0; i < old.size(); ++i) {
        ExtensionPair& p = t.pairs[i];
        p.omegaOld = old[i];
        p.omegaNew = spec.invFreq[i];
        p.wavelengthOld = twoPi / p.omegaOld;
        p.wavelengthNew = twoPi / p.omegaNew;
        p.scale = p.omegaOld / p.omegaNew;
        p.weight = std::numeric_limits<double>::quiet_NaN();
        if (t.method == "llama3") {
            // The same classification the frequencies were computed with (rope.cpp applyLlama3).
            const Llama3Weight w = llama3Weight(p.wavelengthOld, params.real("low_freq_factor"),
                                                params.real("high_freq_factor"), oldContext);
            p.band = w.band == Llama3Weight::Kept ? ExtensionBand::Kept
                : w.band == Llama3Weight::Divided ? ExtensionBand::Divided
                                                  : ExtensionBand::Blended;
            p.weight = w.smooth;
        } else if (t.method == "yarn") {
            const double ramp = yarnRamp(int(i), low, high);
            p.band = ramp <= 0.0 ? ExtensionBand::Kept : ramp >= 1.0 ? ExtensionBand::Divided : ExtensionBand::Blended;
            p.weight = ramp;
        } else if (t.method == "linear") {
            p.band = ExtensionBand::Divided;
        } else if (t.method == "ntk" || t.method == "longrope") {
            p.band = ExtensionBand::Rescaled;
        } else if (t.method == "dynamic") {
            // Within its window (L <= max_position_embeddings) dynamic NTK leaves the base as it is.
            p.band = t.effectiveBase == theta ? ExtensionBand::Unscaled : ExtensionBand::Rescaled;
        } else {
            p.band = ExtensionBand::Unscaled;
        }
        // Positions 0 .. T-1 in training with omega_old, 0 .. L-1 now with omega_new.
        p.turnsTrained = (T - 1.0) * p.omegaOld / twoPi;
        p.turnsNow = (L - 1.0) * p.omegaNew / twoPi;
        p.arcTrained = std::min((T - 1.0) * p.omegaOld, twoPi);
        p.arcNow = std::min((L - 1.0) * p.omegaNew, twoPi);
        p.newFraction = std::max(0.0, p.arcNow - p.arcTrained) / twoPi;
        if (p.newFraction > 0.0
            && (t.automaticPair < 0 || p.newFraction > t.pairs[std::size_t(t.automaticPair)].newFraction))
            t.automaticPair = int(i);
        if (firstNeverTurning < 0 && !p.completesTurn())
            firstNeverTurning = int(i);
        if (t.bands.empty() || t.bands.back().band != p.band)
            t.bands.push_back({p.band, int(i), int(i)});
        else
            t.bands.back().last = int(i);
    }

    if (t.automaticPair < 0)
        t.automaticPair = firstNeverTurning >= 0 ? firstNeverTurning : int(old.size()) - 1;

    // The comparison: every method at the same theta, rotary dimension, factor and window.
    const struct {
        const char* key;
        const char* label;
    } methods[] = {{"linear", "PI (linear)"},
                   {"ntk", "NTK-aware"},
                   {"dynamic", "dynamic NTK"},
                   {"yarn", "YaRN"},
                   {"llama3", "Llama 3"}};
    const SchemeDescriptor& rope = schemeOrThrow("rope");
    TableContext mctx;
    mctx.dim = r;
    mctx.positions = ctx.positions;
    mctx.seqLen = length;
    for (const auto& m : methods) {
        if (r < 4 && (std::string(m.key) == "ntk" || std::string(m.key) == "dynamic"))
            continue; // the base change needs r >= 4 (exponent r / (r - 2))
        const RotarySpec ms
            = rope.rotary(methodParams(m.key, theta, t.factor, t.trainedLength, params, t.method), mctx);
        ExtensionMethod em;
        em.key = m.key;
        em.label = m.label;
        em.scale.resize(old.size());
        for (std::size_t i = 0; i < old.size(); ++i)
            em.scale[i] = old[i] / ms.invFreq[i];
        t.methods.push_back(std::move(em));
    }
    return t;
}

const std::vector<std::string>& extensionColumns()
{
    static const std::vector<std::string> columns
        = {"omega_old",     "omega_new", "wavelength_old", "wavelength_new", "scale",       "band",
           "turns_trained", "turns_now", "arc_trained",    "arc_now",        "new_fraction"};
    return columns;
}

ComputeResult extensionResult(const ExtensionTable& t, ComputeResult r)
{
    r.columns = extensionColumns();
    r.columnLabels
        = {"omega_old: rope_theta^(-2i/r), rad/token (rope_type default, same theta)",
           "omega_new: the scheme's frequency at sequence length L, rad/token",
           "wavelength_old: 2 pi / omega_old, tokens",
           "wavelength_new: 2 pi / omega_new, tokens",
           "scale: omega_old / omega_new",
           "band: 0 unscaled, 1 " + extensionBandName(t, ExtensionBand::Kept) + ", 2 "
               + extensionBandName(t, ExtensionBand::Blended) + ", 3 " + extensionBandName(t, ExtensionBand::Divided)
               + ", 4 " + extensionBandName(t, ExtensionBand::Rescaled),
           "turns_trained: (T - 1) omega_old / (2 pi), turns over positions 0 .. T-1",
           "turns_now: (L - 1) omega_new / (2 pi), turns over positions 0 .. L-1",
           "arc_trained: min((T - 1) omega_old, 2 pi), radians met in training",
           "arc_now: min((L - 1) omega_new, 2 pi), radians met at length L",
           "new_fraction: max(0, arc_now - arc_trained) / (2 pi)"};
    const bool ramp = t.method == "yarn" || t.method == "llama3";
    if (ramp) {
        r.columns.push_back(t.method == "yarn" ? "ramp" : "smooth");
        r.columnLabels.push_back(t.method == "yarn" ? "ramp: YaRN linear_ramp_factor, 0 extrapolated .. 1 interpolated"
                                                    : "smooth: Llama 3 smooth factor, 1 kept .. 0 divided by factor");
    }
    for (const ExtensionMethod& m : t.methods) {
        r.columns.push_back("scale_" + m.key);
        r.columnLabels.push_back("scale_" + m.key + ": omega_old / omega_new of " + m.label
                                 + " at the same theta, factor and trained length");
    }
    const std::size_t cols = r.columns.size(), rows = t.pairs.size();
    r.shape = {rows, cols};
    r.axes = {"pair", "column"};
    r.data.assign(rows * cols, 0.0);
    for (std::size_t i = 0; i < rows; ++i) {
        const ExtensionPair& p = t.pairs[i];
        double* row = r.data.data() + i * cols;
        const double values[]
            = {p.omegaOld,     p.omegaNew, p.wavelengthOld, p.wavelengthNew, p.scale,      double(int(p.band)),
               p.turnsTrained, p.turnsNow, p.arcTrained,    p.arcNow,        p.newFraction};
        std::size_t c = 0;
        for (double v : values)
            row[c++] = v;
        if (ramp)
            row[c++] = p.weight;
        for (const ExtensionMethod& m : t.methods)
            row[c++] = m.scale[i];
    }
    r.labels.push_back({"method", t.method});
    r.labels.push_back({"trained_length_source", t.trainedSource});
    r.labels.push_back({"factor_source", t.factorSource});
    r.scalars.push_back({"trained_length", double(t.trainedLength)});
    r.scalars.push_back({"length", double(t.length)});
    r.scalars.push_back({"method_factor", t.factor});
    r.scalars.push_back({"attention_factor", t.attentionFactor});
    for (const auto& s : t.specScalars)
        if (s.first != "factor") // reported as method_factor
            r.scalars.push_back(s);
    if (t.method == "llama3" || t.method == "yarn") {
        r.scalars.push_back({"edge_short_tokens", t.edgeShort});
        r.scalars.push_back({"edge_long_tokens", t.edgeLong});
    }
    for (ExtensionBand b : {ExtensionBand::Unscaled, ExtensionBand::Kept, ExtensionBand::Blended,
                            ExtensionBand::Divided, ExtensionBand::Rescaled})
        r.scalars.push_back({"pairs_band_" + std::to_string(int(b)), double(t.count(b))});
    r.scalars.push_back({"pairs_turning_in_training", double(t.turning())});
    r.scalars.push_back({"automatic_pair", double(t.automaticPair)});
    return r;
}

} // namespace poslab::core
