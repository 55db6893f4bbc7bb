// SPDX-License-Identifier: MIT
#pragma once
/// @file rope.h
/// Rotary position embedding (Su et al. 2021, RoFormer, eq. 34) and its context-extension variants, as
/// Hugging Face's `rope_type` (transformers/modeling_rope_utils.py). For head dimension d and rotary
/// dimension r = int(d * partial_rotary_factor), pair i in [0, r/2) turns at
///   theta_i = rope_theta^(-2i/r)  (the exponent uses r, not d),
/// and each rope_type rescales these frequencies and may return an attention factor that multiplies both
/// cos and sin:
///   linear   theta_i / s                                         (Chen et al. 2023, Position Interpolation)
///   ntk      base' = base * s^(r/(r-2))                          (bloc97 2023; transformers 4.43 "ntk")
///   dynamic  base' = base * (s*L/M - (s-1))^(r/(r-2)), L = max(seq_len, M), M = max_position_embeddings
///   yarn     theta_i * ((1-g_i)/s + g_i), g_i = 1 - clamp((i-lo)/(hi-lo), 0, 1); attention 0.1 ln(s) + 1, or
///            get_mscale(s, mscale) / get_mscale(s, mscale_all_dim) when both are set (DeepSeek)
///   llama3   wavelength 2*pi/theta_i < O/high: kept; > O/low: theta_i / s; between: smooth blend
///   longrope theta_i / ext_i with ext = long_factor when seq_len > O, else short_factor;
///            attention sqrt(1 + ln(M/O) / ln(O))
/// (O = original_max_position_embeddings). seq_len is Hugging Face's forward-time value (dynamic_rope_update:
/// seq_len = max(position_ids) + 1): the largest requested position + 1 unless ctx.seqLen overrides it
/// (`--seq-len`). So a longrope table over positions 0:8192 with O = 4096 uses the long factors, as the model
/// does on that input. The spec reports it as RotarySpec::seqLen and the scalar "seq_len".
///
/// factor < 1 is accepted with a warning (ropeWarnings via SchemeDescriptor::warnings), as Hugging Face's
/// _validate_*_parameters do for linear, dynamic, yarn and llama3.
///
/// Defaults (Hugging Face has none for the rope_scaling keys) follow rope_type so that each reproduces a real
/// model at its head dimension: llama3 = Llama-3.1-8B (rope_theta 500000, factor 8, low 1, high 4, original
/// 8192); yarn = Qwen2.5-7B-Instruct with its documented YaRN setting (rope_theta 1e6, factor 4, original
/// 32768; max 131072 = 4 x 32768, the stated context: its config.json keeps 32768); longrope =
/// Phi-3-mini-128k-instruct's lengths (original 4096, max 131072; its 48 per-pair factors are not defaults).
/// A key set explicitly keeps its value.
/// DeepSeek's YaRN (mscale == mscale_all_dim) leaves cos/sin unscaled; its code multiplies the softmax scale
/// by get_mscale(s, mscale_all_dim)^2 instead, reported as the scalar deepseek_softmax_scale_factor.
///
/// Versions differ for YaRN's s: transformers 4.48-4.57 replaced the configured factor by
/// max_position_embeddings / original_max_position_embeddings whenever original_max_position_embeddings was
/// given; transformers >= 5, vLLM, llama.cpp and jquesnelle/yarn use the factor. The parameter factor_source
/// selects ("factor" by default). transformers 4.45-4.47 had no original_max_position_embeddings for YaRN and
/// used max_position_embeddings in its place: set original_max_position_embeddings to that value.

#include "core/scheme.h"

#include <optional>
#include <vector>

namespace poslab::core {

/// Unscaled frequencies theta_i = base^(-2i/r), i in [0, r/2).
std::vector<double> ropeBaseFrequencies(double base, int rotaryDim);

/// Rotary dimension r = int(d * partial_rotary_factor). Throws InputError when r is odd or < 2.
int ropeRotaryDim(const ParamSet& params, int headDim);

/// YaRN's attention temperature: 0.1 * mscale * ln(scale) + 1 for scale > 1, else 1
/// (jquesnelle/yarn get_mscale; Hugging Face get_mscale).
double yarnGetMscale(double scale, double mscale = 1.0);

/// YaRN's correction dimension for a number of rotations (Peng et al. 2023, eq. 21 solved for d):
///   d * ln(L / (rotations * 2 * pi)) / (2 * ln(base)).
double yarnCorrectionDim(double rotations, int rotaryDim, double base, double originalMax);

/// YaRN's ramp of pair @p pair between the correction dimensions @p low and @p high (after the floor/ceil and the
/// clamp): clamp((pair - low) / (high - low), 0, 1), 0 = extrapolated (frequency kept), 1 = interpolated (divided
/// by s). Hugging Face _compute_yarn_parameters linear_ramp_factor (with its guard: low == high widens to
/// high + 0.001); the frequency is theta_i * ((1 - ramp) + ramp / s).
double yarnRamp(int pair, double low, double high);

/// Llama 3.1's band of a pair whose unscaled wavelength is @p wavelen tokens (Hugging Face
/// _compute_llama3_parameters; meta-llama/llama-models apply_scaling): Kept when wavelen < O / high_freq_factor,
/// Divided (theta_i / factor) when wavelen > O / low_freq_factor, Blended between (both edges inclusive) with
/// theta_i * ((1 - smooth) / factor + smooth), smooth = (O / wavelen - low) / (high - low).
struct Llama3Weight {
    enum Band { Kept, Blended, Divided } band = Kept;
    double smooth = 1.0; ///< 1 kept, 0 divided; in between for Blended (1 when low == high: no NaN)
};
Llama3Weight llama3Weight(double wavelen, double lowFreqFactor, double highFreqFactor, double oldContext);

/// YaRN's scale s: the factor parameter, or max_position_embeddings / original_max_position_embeddings when
/// factor_source is "max_position_ratio".
double yarnFactor(const ParamSet& params);

/// The frequencies and attention factor for the parameters (rope_type and its keys). Dynamic and longrope
/// use effectiveSeqLen(ctx): ctx.seqLen, else the largest of ctx.positions + 1.
RotarySpec ropeSpec(const ParamSet& params, const TableContext& ctx);

SchemeDescriptor ropeScheme();

} // namespace poslab::core
