// SPDX-License-Identifier: MIT
#include "core/encodings/rope.h"

#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace poslab::core {

std::vector<double> ropeBaseFrequencies(double base, int rotaryDim)
{
    // Su et al. 2021 eq. 15: theta_i = base^(-2i/r); Hugging Face _compute_default_rope_parameters.
    std::vector<double> f(std::size_t(rotaryDim / 2));
    for (int i = 0; i < rotaryDim / 2; ++i)
        f[std::size_t(i)] = 1.0 / std::pow(base, double(2 * i) / double(rotaryDim));
    return f;
}

int ropeRotaryDim(const ParamSet& params, int headDim)
{
    // Hugging Face _compute_proportional_rope_parameters (Gemma 4): every pair of the whole head turns, those past
    // the rotated share with frequency 0, so the rotation spans the head dimension.
    if (params.choice("rope_type") == "proportional")
        return headDim;
    // Hugging Face: dim = int(head_dim * partial_rotary_factor) (truncation, as Python's int()).
    const int r = int(double(headDim) * params.real("partial_rotary_factor"));
    if (r < 2 || r % 2 != 0)
        throw InputError("rotary dimension int(" + std::to_string(headDim) + " * partial_rotary_factor "
                         + params.value("partial_rotary_factor").toString() + ") = " + std::to_string(r)
                         + " must be even and at least 2 (dimensions rotate in pairs)");
    return r;
}

double yarnGetMscale(double scale, double mscale)
{
    if (scale <= 1.0)
        return 1.0;
    return 0.1 * mscale * std::log(scale) + 1.0;
}

double yarnCorrectionDim(double rotations, int rotaryDim, double base, double originalMax)
{
    return double(rotaryDim) * std::log(originalMax / (rotations * 2.0 * std::numbers::pi)) / (2.0 * std::log(base));
}

double yarnFactor(const ParamSet& params)
{
    if (params.choice("factor_source") == "max_position_ratio")
        return double(params.integer("max_position_embeddings"))
            / double(params.integer("original_max_position_embeddings"));
    return params.real("factor");
}

double yarnRamp(int pair, double low, double high)
{
    if (low == high)
        high += 0.001; // the reference's guard against a zero-width ramp
    return std::clamp((double(pair) - low) / (high - low), 0.0, 1.0);
}

Llama3Weight llama3Weight(double wavelen, double lowFreqFactor, double highFreqFactor, double oldContext)
{
    const double lowFreqWavelen = oldContext / lowFreqFactor;
    const double highFreqWavelen = oldContext / highFreqFactor;
    if (wavelen < highFreqWavelen)
        return {Llama3Weight::Kept, 1.0}; // high frequency: unchanged
    if (wavelen > lowFreqWavelen)
        return {Llama3Weight::Divided, 0.0}; // low frequency: interpolated
    // Medium band. With low_freq_factor == high_freq_factor it shrinks to the one wavelength
    // old_context / low_freq_factor, where the smooth factor is 0/0: Meta's apply_scaling asserts and
    // Hugging Face's torch.where yields NaN. We keep the unscaled frequency there (the limit from the
    // high-frequency side) so no table ever holds a NaN.
    if (highFreqFactor == lowFreqFactor)
        return {Llama3Weight::Blended, 1.0};
    return {Llama3Weight::Blended, (oldContext / wavelen - lowFreqFactor) / (highFreqFactor - lowFreqFactor)};
}

namespace {

void scaleAll(std::vector<double>& f, double by)
{
    for (double& x : f)
        x /= by;
}

// YaRN (Peng et al. 2023, section 3.2 "NTK-by-parts" and section 3.4 temperature), as
// huggingface/transformers src/transformers/modeling_rope_utils.py _compute_yarn_parameters and
// jquesnelle/yarn (find_correction_range, linear_ramp_mask, get_mscale).
void applyYarn(const ParamSet& params, int r, double base, std::vector<double>& f, RotarySpec& spec)
{
    const double originalMax = double(params.integer("original_max_position_embeddings"));
    const double factor = yarnFactor(params);
    const double mscale = params.real("mscale");
    const double mscaleAllDim = params.real("mscale_all_dim");
    double attention = params.real("attention_factor");
    if (attention <= 0.0) {
        // 0 means "not set". Hugging Face takes DeepSeek's ratio only when both mscales are set (truthy);
        // otherwise 0.1 ln(s) + 1 (Peng et al. eq. 22: sqrt(1/t) = 0.1 ln(s) + 1).
        if (mscale != 0.0 && mscaleAllDim != 0.0)
            attention = yarnGetMscale(factor, mscale) / yarnGetMscale(factor, mscaleAllDim);
        else
            attention = yarnGetMscale(factor);
    }
    double low = yarnCorrectionDim(params.real("beta_fast"), r, base, originalMax);
    double high = yarnCorrectionDim(params.real("beta_slow"), r, base, originalMax);
    if (params.flag("truncate")) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    // The reference clamps with the rotary dimension r (not r/2 - 1); kept so the ramps are identical.
    low = std::max(low, 0.0);
    high = std::min(high, double(r - 1));
    const int pairs = r / 2;
    for (int i = 0; i < pairs; ++i) {
        const double extrapolation = 1.0 - yarnRamp(i, low, high); // 1: keep the original frequency; 0: interpolate
        const double orig = f[std::size_t(i)];
        f[std::size_t(i)] = (orig / factor) * (1.0 - extrapolation) + orig * extrapolation;
    }
    spec.attentionFactor = attention;
    spec.scalars.push_back({"factor", factor});
    if (mscaleAllDim != 0.0) {
        // DeepSeek's modelling code (modeling_deepseek.py DeepseekV2/V3Attention) multiplies its softmax scale
        // by get_mscale(s, mscale_all_dim)^2; inference/model.py writes the same with its mscale. With
        // mscale == mscale_all_dim the cos/sin factor above is 1 and this is where the temperature went.
        // Reported, not applied: PosLab's scores use 1/sqrt(d).
        const double m = yarnGetMscale(factor, mscaleAllDim);
        spec.scalars.push_back({"deepseek_softmax_scale_factor", m * m});
    }
    spec.scalars.push_back({"correction_low", low});
    spec.scalars.push_back({"correction_high", high});
}

// Llama 3.1 (meta-llama/llama-models models/llama3 apply_scaling; Hugging Face _compute_llama3_parameters).
void applyLlama3(const ParamSet& params, std::vector<double>& f, RotarySpec& spec)
{
    const double factor = params.real("factor");
    const double lowFreqFactor = params.real("low_freq_factor");
    const double highFreqFactor = params.real("high_freq_factor");
    const double oldContext = double(params.integer("original_max_position_embeddings"));
    const double lowFreqWavelen = oldContext / lowFreqFactor;
    const double highFreqWavelen = oldContext / highFreqFactor;
    for (double& w : f) {
        const Llama3Weight k = llama3Weight(2.0 * std::numbers::pi / w, lowFreqFactor, highFreqFactor, oldContext);
        w = (1.0 - k.smooth) * w / factor + k.smooth * w;
    }
    spec.scalars.push_back({"low_freq_wavelen", lowFreqWavelen});
    spec.scalars.push_back({"high_freq_wavelen", highFreqWavelen});
}

// LongRoPE (Ding et al. 2024) as Phi-3 uses it: Hugging Face _compute_longrope_parameters plus
// dynamic_rope_update's longrope_frequency_update (long factors once seq_len > original window).
void applyLongrope(const ParamSet& params, const TableContext& ctx, std::vector<double>& f, RotarySpec& spec)
{
    const double maxPos = double(params.integer("max_position_embeddings"));
    const double originalMax = double(params.integer("original_max_position_embeddings"));
    // Hugging Face _compute_longrope_parameters: rope_scaling's factor when given (_validate_longrope_parameters
    // accepts it; 0 here: not given), else, as for Phi-3, which sets none, the ratio of the two context lengths.
    const double factor = params.real("factor") > 0.0 ? params.real("factor") : maxPos / originalMax;
    double attention = params.real("attention_factor");
    if (attention <= 0.0)
        attention = factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(factor) / std::log(originalMax));
    // Hugging Face longrope_frequency_update: seq_len = max(position_ids) + 1; the long factors once
    // seq_len > original_max_position_embeddings.
    // long_factor_choice = factor: the older _compute_longrope_parameters (transformers' rope_kwargs era, before the
    // seq_len test), which took the long factors at every length once the expanded length exceeded the original
    // one, that is once s > 1; the sequence length is then not read.
    const bool byFactor = params.choice("long_factor_choice") == "factor";
    const Position seqLen = byFactor ? 0 : effectiveSeqLen(ctx);
    const bool useLong = byFactor ? factor > 1.0 : double(seqLen) > originalMax;
    const std::vector<double>& ext = params.list(useLong ? "long_factor" : "short_factor");
    if (!ext.empty()) {
        if (ext.size() != f.size())
            throw InputError(std::string(useLong ? "long_factor" : "short_factor") + " has "
                             + std::to_string(ext.size()) + " values but there are " + std::to_string(f.size())
                             + " rotary pairs; give exactly one factor per pair (or none for all 1)");
        for (std::size_t i = 0; i < f.size(); ++i)
            f[i] /= ext[i];
    }
    spec.attentionFactor = attention;
    spec.scalars.push_back({"factor", factor});
    if (!byFactor) {
        spec.seqLen = seqLen;
        spec.scalars.push_back({"seq_len", double(seqLen)});
    }
    spec.scalars.push_back({"uses_long_factor", useLong ? 1.0 : 0.0});
}

// Proportional RoPE (Gemma 4; Hugging Face _compute_proportional_rope_parameters): the first
// k = int(partial_rotary_factor * d // 2) pairs keep the frequencies of the whole head, rope_theta^(-2i/d) (the
// exponent's denominator is d, not 2k), the other d/2 - k pairs get frequency 0 (they do not turn), and all are
// divided by factor (1 unless set).
void applyProportional(const ParamSet& params, int headDim, std::vector<double>& f, RotarySpec& spec)
{
    const double proportion = params.real("partial_rotary_factor");
    const int rotated = int(std::floor(proportion * double(headDim) / 2.0));
    for (std::size_t i = std::size_t(std::max(rotated, 0)); i < f.size(); ++i)
        f[i] = 0.0;
    scaleAll(f, params.real("factor"));
    spec.scalars.push_back({"rotated_pairs", double(rotated)});
    spec.scalars.push_back({"factor", params.real("factor")});
}

} // namespace

RotarySpec ropeSpec(const ParamSet& params, const TableContext& ctx)
{
    RotarySpec spec;
    spec.headDim = ctx.dim;
    spec.rotaryDim = ropeRotaryDim(params, ctx.dim);
    spec.layout = params.choice("layout") == "interleaved" ? PairLayout::Interleaved : PairLayout::HalfSplit;
    const int r = spec.rotaryDim;
    const std::string& type = params.choice("rope_type");
    double base = params.real("rope_theta");
    if ((type == "ntk" || type == "dynamic") && r < 4)
        throw InputError("rope_type " + type
                         + " changes the base by an exponent r/(r-2), which needs a rotary "
                           "dimension of at least 4; got "
                         + std::to_string(r));
    if (type == "ntk") {
        // NTK-aware base change (bloc97 2023; Peng et al. 2023 eq. 16; Hugging Face 4.43
        // _compute_ntk_parameters): b' = b * s^(r/(r-2)).
        base *= std::pow(params.real("factor"), double(r) / double(r - 2));
        spec.scalars.push_back({"effective_base", base});
    } else if (type == "dynamic") {
        // Hugging Face dynamic_rope_update (seq_len = max(position_ids) + 1) and
        // _compute_dynamic_ntk_parameters: L = max(seq_len, max_position_embeddings),
        // b' = b * (s * L / max_pos - (s - 1))^(r/(r-2)).
        const double maxPos = double(params.integer("max_position_embeddings"));
        const double factor = params.real("factor");
        const Position seqLen = effectiveSeqLen(ctx);
        const double length = std::max(double(seqLen), maxPos);
        base *= std::pow(factor * length / maxPos - (factor - 1.0), double(r) / double(r - 2));
        spec.seqLen = seqLen;
        spec.scalars.push_back({"effective_base", base});
        spec.scalars.push_back({"seq_len", double(seqLen)});
        spec.scalars.push_back({"dynamic_length", length});
    }
    std::vector<double> f = ropeBaseFrequencies(base, r);
    if (type == "linear")
        scaleAll(f, params.real("factor")); // Position Interpolation (Chen et al. 2023, eq. 4): m -> m / s
    else if (type == "yarn")
        applyYarn(params, r, base, f, spec);
    else if (type == "llama3")
        applyLlama3(params, f, spec);
    else if (type == "longrope")
        applyLongrope(params, ctx, f, spec);
    else if (type == "proportional")
        applyProportional(params, r, f, spec);
    spec.invFreq = std::move(f);
    return spec;
}

namespace {

void validateRope(const ParamSet& params, const TableContext& ctx)
{
    if (ctx.dim < 2 || ctx.dim % 2 != 0)
        throw InputError("rope needs an even head dimension of at least 2; got --dim " + std::to_string(ctx.dim));
    const int r = ropeRotaryDim(params, ctx.dim);
    const std::string& type = params.choice("rope_type");
    if ((type == "ntk" || type == "dynamic") && r < 4)
        throw InputError("rope_type " + type
                         + " needs a rotary dimension of at least 4 (its exponent is r/(r-2)); "
                           "got "
                         + std::to_string(r));
    if (type == "llama3" && params.real("high_freq_factor") < params.real("low_freq_factor"))
        throw InputError("llama3 needs high_freq_factor >= low_freq_factor; got high_freq_factor "
                         + params.value("high_freq_factor").toString() + " and low_freq_factor "
                         + params.value("low_freq_factor").toString());
    // factor's range starts at 0 only for longrope's "not given"; a scaling factor of 0 divides by zero.
    if (type != "longrope" && type != "default" && params.real("factor") < 0.001)
        throw InputError("parameter factor = " + params.value("factor").toString() + " is out of range for rope_type "
                         + type + "; allowed: [0.001, 1024] (0 means \"from the context lengths\" for longrope only)");
    if (type == "longrope") {
        for (const char* key : {"short_factor", "long_factor"}) {
            const std::size_t n = params.list(key).size();
            if (n != 0 && n != std::size_t(r / 2))
                throw InputError(std::string(key) + " has " + std::to_string(n) + " values but the rotary dimension "
                                 + std::to_string(r) + " has " + std::to_string(r / 2)
                                 + " pairs; give exactly one factor per pair (or none for all 1)");
        }
    }
}

const std::vector<std::string> scaledTypes = {"linear", "ntk", "dynamic", "yarn", "llama3"};
/// The types that read factor: the scaled ones and longrope (Hugging Face _validate_longrope_parameters takes it as an
/// optional key and _compute_longrope_parameters derives the attention factor from it).
const std::vector<std::string> factorTypes = {"linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional"};

// Hugging Face's _validate_{linear_scaling,dynamic_scaling,yarn,llama3}_parameters log
// "`rope_scaling`'s factor field must be a float >= 1, got {factor}" and compute with it anyway.
std::vector<std::string> ropeWarnings(const ParamSet& params, const TableContext&)
{
    std::vector<std::string> w;
    const std::string& type = params.choice("rope_type");
    if (std::find(scaledTypes.begin(), scaledTypes.end(), type) == scaledTypes.end())
        return w;
    const double factor = type == "yarn" ? yarnFactor(params) : params.real("factor");
    if (factor < 1.0) {
        const std::string what = type == "yarn" && params.choice("factor_source") == "max_position_ratio"
            ? "YaRN's factor max_position_embeddings / original_max_position_embeddings = "
                + ParamValue::real(factor).toString()
            : "factor " + params.value("factor").toString();
        w.push_back(what
                    + " is below 1 (a context-extension factor is new length / trained length, normally >= 1); "
                      "computed as given, as Hugging Face does for linear, dynamic, yarn and llama3 after its warning "
                      "\"rope_scaling's factor field must be a float >= 1\"");
    }
    // Hugging Face _validate_yarn_rope_parameters: a factor other than max_position_embeddings /
    // original_max_position_embeddings (when that ratio is not 1) is warned about and used.
    if (type == "yarn" && params.choice("factor_source") == "factor") {
        const double implicit = double(params.integer("max_position_embeddings"))
            / double(params.integer("original_max_position_embeddings"));
        if (implicit != params.real("factor") && implicit != 1.0)
            w.push_back("YaRN's factor " + params.value("factor").toString()
                        + " does not match the implicit factor max_position_embeddings / "
                          "original_max_position_embeddings = "
                        + ParamValue::real(implicit).toString()
                        + "; computed with the factor, as Hugging Face does after its warning; set one of them so "
                          "that they agree");
    }
    return w;
}

} // namespace

SchemeDescriptor ropeScheme()
{
    SchemeDescriptor s;
    s.id = "rope";
    s.name = "Rotary position embedding (RoPE)";
    s.shortName = "RoPE";
    s.trainedAs = TrainedAs::Rotation;
    s.family = "rotary";
    s.relation = Relation::Relative;
    s.application = Application::QueryKeyRotation;
    s.origin = Origin::Fixed;
    s.citation = "Su et al. 2021, RoFormer: Enhanced Transformer with Rotary Position Embedding, eq. 34; "
                 "scaling: Chen et al. 2023 (PI), bloc97 2023 (NTK-aware), Peng et al. 2023 (YaRN), "
                 "Meta 2024 (Llama 3.1), Ding et al. 2024 (LongRoPE)";
    s.year = 2021;
    s.reference = "huggingface/transformers src/transformers/modeling_rope_utils.py; "
                  "src/transformers/models/llama/modeling_llama.py (rotate_half)";
    s.formula = "q'_m = R(m*theta) q_m,  k'_n = R(n*theta) k_n,  <q'_m, k'_n> = Re[sum_i q_i conj(k_i) "
                "e^(i(m-n)theta_i)],  theta_i = rope_theta^(-2i/r)";
    s.summary = "Rotates each pair of query and key dimensions by an angle proportional to the position, so "
                "their dot product depends only on the offset m - n.";
    s.needsEvenDim = true;
    s.params = {
        defaultWhen(defaultWhen(realParam("rope_theta", 10000.0, 100.0, 1.0e7,
                                          "Base of the frequencies theta_i = rope_theta^(-2i/r). Unless set, it "
                                          "follows rope_type: 500000 for llama3 (Llama 3.1), 1000000 for yarn "
                                          "(Qwen2.5), 10000 otherwise (also longrope: Phi-3)",
                                          true),
                                "rope_type", "llama3", 500000.0),
                    "rope_type", "yarn", 1000000.0),
        choiceParam("rope_type", "default",
                    {"default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional"},
                    "Context-extension method (Hugging Face rope_scaling.rope_type). Alone, llama3, yarn and "
                    "longrope bring a real model's values (Hugging Face has no defaults for these keys): llama3 = "
                    "Llama-3.1-8B (rope_theta 500000, factor 8, low_freq_factor 1, high_freq_factor 4, original 8192); "
                    "yarn = Qwen2.5-7B-Instruct with the YaRN setting its model card gives for long inputs "
                    "(rope_theta 1000000, factor 4, original 32768; max_position_embeddings 131072 = 4 x 32768 is "
                    "its stated context, while its config.json keeps 32768); longrope = Phi-3-mini-128k-instruct's "
                    "lengths (rope_theta 10000, original 4096, max 131072; its 48 short/long factors need --dim 96 "
                    "and are not defaults). Use the model's head dimension to reproduce its table: --dim 128 for "
                    "Llama-3.1-8B and Qwen2.5-7B, 96 for Phi-3-mini. dynamic and longrope depend "
                    "on the sequence length: the largest requested position + 1, as Hugging Face's "
                    "max(position_ids) + 1, unless --seq-len L sets it. proportional (Gemma 4): the whole head turns, "
                    "the first int(partial_rotary_factor * d // 2) pairs at rope_theta^(-2i/d), the others at "
                    "frequency 0, all divided by factor (default 1)"),
        choiceParam("layout", "half_split", {"half_split", "interleaved"},
                    "Which dimensions pair up: half_split (i, i+r/2), GPT-NeoX / Hugging Face; interleaved "
                    "(2i, 2i+1), GPT-J / Meta / RoFormer"),
        realParam("partial_rotary_factor", 1.0, 0.0, 1.0,
                  "Fraction of the head dimension that rotates; r = int(d * factor), the rest passes through "
                  "(proportional: the first int(factor * d // 2) pairs of the whole head turn, the others not)"),
        when(
            defaultWhen(
                defaultWhen(
                    defaultWhen(realParam("factor", 4.0, 0.0, 1024.0,
                                          "Context extension factor s (new length / trained "
                                          "length); yarn ignores it when factor_source = max_position_ratio. "
                                          "Default 8 for llama3 (Llama 3.1), 4 for yarn (Qwen2.5) and the "
                                          "others. Below 1 (a shrink) is accepted with a warning, as Hugging "
                                          "Face does. longrope: the attention factor's s (sqrt(1 + ln s / ln "
                                          "original)); 0, its default, takes s = max_position_embeddings / "
                                          "original_max_position_embeddings as Phi-3 does. proportional: divides every "
                                          "frequency, default 1",
                                          true),
                                "rope_type", "llama3", 8.0),
                    "rope_type", "longrope", 0.0),
                "rope_type", "proportional", 1.0),
            "rope_type", factorTypes),
        when(choiceParam("factor_source", "factor", {"factor", "max_position_ratio"},
                         "YaRN's s: factor (transformers >= 5, vLLM, llama.cpp, jquesnelle/yarn) or "
                         "max_position_embeddings / original_max_position_embeddings (transformers 4.48-4.57, "
                         "which replaced the configured factor by this ratio)"),
             "rope_type", {"yarn"}),
        when(defaultWhen(defaultWhen(intParam("original_max_position_embeddings", 4096, 1, 1 << 24,
                                              "Context length the model was trained with. Default 8192 for llama3 "
                                              "(Llama 3.1), 32768 for yarn (Qwen2.5), 4096 for longrope (Phi-3)",
                                              true),
                                     "rope_type", "llama3", 8192),
                         "rope_type", "yarn", 32768),
             "rope_type", {"yarn", "llama3", "longrope"}),
        when(defaultWhen(defaultWhen(intParam("max_position_embeddings", 4096, 1, 1 << 24,
                                              "dynamic: trained context length (default 4096); longrope: extended "
                                              "context length (default 131072, Phi-3-mini-128k); yarn: extended "
                                              "context length, used when factor_source = max_position_ratio and, "
                                              "with factor, to warn when factor differs from their ratio "
                                              "(default 131072 = factor 4 x 32768, Qwen2.5's stated context; "
                                              "Qwen2.5's own config.json keeps 32768, which makes that ratio 1: "
                                              "huggingface/transformers issue #38224)",
                                              true),
                                     "rope_type", "yarn", 131072),
                         "rope_type", "longrope", 131072),
             "rope_type", {"dynamic", "longrope", "yarn"}),
        when(realParam("beta_fast", 32.0, 0.01, 1024.0,
                       "YaRN: pairs with more rotations than this in the trained "
                       "window keep their frequency",
                       true),
             "rope_type", {"yarn"}),
        when(realParam("beta_slow", 1.0, 0.01, 1024.0,
                       "YaRN: pairs with fewer rotations than this are fully "
                       "interpolated",
                       true),
             "rope_type", {"yarn"}),
        when(realParam("mscale", 0.0, 0.0, 10.0,
                       "YaRN (DeepSeek): the cos/sin factor becomes get_mscale(s, mscale) / "
                       "get_mscale(s, mscale_all_dim), get_mscale(s, m) = 0.1 m ln(s) + 1; 0 = unset, used only when "
                       "mscale_all_dim is also set (Hugging Face). With both equal (DeepSeek-V3: 1, V2: 0.707) that "
                       "factor is 1: the temperature moves to the softmax (see mscale_all_dim)"),
             "rope_type", {"yarn"}),
        when(realParam("mscale_all_dim", 0.0, 0.0, 10.0,
                       "YaRN (DeepSeek): divisor mscale; 0 = unset. DeepSeek's own "
                       "code multiplies the softmax scale 1/sqrt(d) by (0.1 mscale_all_dim ln(s) + 1)^2 instead: 1.874 "
                       "for DeepSeek-V3 (s 40, 1.0), 1.590 for V2 (0.707). Reported as deepseek_softmax_scale_factor, "
                       "not applied to PosLab's scores"),
             "rope_type", {"yarn"}),
        when(realParam("attention_factor", 0.0, 0.0, 10.0,
                       "Multiplies cos and sin; 0 = derive from factor as "
                       "Hugging Face does"),
             "rope_type", {"yarn", "longrope"}),
        when(boolParam("truncate", true, "YaRN: round the correction range to whole dimensions (false for gpt-oss)"),
             "rope_type", {"yarn"}),
        when(realParam("low_freq_factor", 1.0, 0.01, 1000.0,
                       "Llama 3: wavelengths above original / low_freq_factor "
                       "are interpolated (Llama 3.1: 1)",
                       true),
             "rope_type", {"llama3"}),
        when(realParam("high_freq_factor", 4.0, 0.01, 1000.0,
                       "Llama 3: wavelengths below original / "
                       "high_freq_factor are kept (Llama 3.1: 4)",
                       true),
             "rope_type", {"llama3"}),
        when(choiceParam("long_factor_choice", "seq_len", {"seq_len", "factor"},
                         "LongRoPE: when long_factor applies. seq_len (transformers today, dynamic_rope_update): once "
                         "the sequence length exceeds original_max_position_embeddings; factor (the older "
                         "_compute_longrope_parameters, before that test): at every length once s > 1"),
             "rope_type", {"longrope"}),
        when(listParam("short_factor", {}, 0.001, 1.0e6,
                       "LongRoPE: per-pair divisors within the original window "
                       "(empty = all 1)"),
             "rope_type", {"longrope"}),
        when(listParam("long_factor", {}, 0.001, 1.0e6,
                       "LongRoPE: per-pair divisors beyond the original window "
                       "(empty = all 1)"),
             "rope_type", {"longrope"}),
    };
    s.rotary = ropeSpec;
    s.validate = validateRope;
    s.warnings = ropeWarnings;
    return s;
}

} // namespace poslab::core
