// SPDX-License-Identifier: MIT
#pragma once
/// @file extension.h
/// The context-extension lab: what a rotary scheme's rope_type does to each pair, against the trained window.
/// For pair i of rotary dimension r:
///   omega_old_i = rope_theta^(-2i/r)       the unscaled frequency (rope_type default, same theta)
///   omega_new_i                            the scheme's frequency for these parameters and sequence length
///                                          (the scheme's own RotaryFn: core/encodings/rope.cpp, xpos, irope)
///   wavelength 2 pi / omega (tokens), scale omega_old / omega_new (PI: s at every pair; NTK-aware: the base
///   change b' = b s^(r/(r-2)) gives s^(2i/(r-2)), 1 at the fastest pair and s at the slowest)
/// and the pair's band under the method (Hugging Face transformers src/transformers/modeling_rope_utils.py):
///   llama3   kept (wavelength < O/high_freq_factor), blended, divided by factor (> O/low_freq_factor)
///   yarn     extrapolated (ramp 0: pair <= low), ramp, interpolated (ramp 1: pair >= high), low/high from
///            find_correction_range(beta_fast, beta_slow, r, base, O)
///   linear   divided by factor (every pair)
///   ntk, dynamic, longrope   rescaled (every pair has its own factor: the base change, the factor list)
///   default, xPos            unscaled
/// Seen versus unseen (the "trained window" is T positions 0 .. T-1, the inference length L positions 0 .. L-1):
/// training met the angles p * omega_old for p < T, which sweep the arc [0, (T-1) omega_old] of the circle;
/// inference meets p * omega_new for p < L, the arc [0, (L-1) omega_new]. Both arcs start at angle 0, so the part
/// of the circle that is new is
///   new_fraction = max(0, min((L-1) omega_new, 2 pi) - min((T-1) omega_old, 2 pi)) / (2 pi),
/// 0 for every pair whose hand completes a turn inside the window ((T-1) omega_old >= 2 pi, i.e. its wavelength
/// is at most T - 1 tokens: a full turn is met at a position of the window).

#include "core/compute.h"
#include "core/scheme.h"

#include <optional>
#include <string>
#include <vector>

namespace poslab::core {

/// A pair's band under the scheme's method (see the file comment). Codes are the values of the "band" column.
enum class ExtensionBand {
    Unscaled = 0, ///< default RoPE, xPos, dynamic NTK within its window: omega_new = omega_old
    Kept = 1,     ///< llama3 high-frequency band; YaRN "extrapolated" (ramp 0)
    Blended = 2,  ///< llama3 medium band (smooth factor); YaRN ramp
    Divided = 3,  ///< llama3 low-frequency band and PI: divided by factor; YaRN "interpolated" (ramp 1)
    Rescaled = 4, ///< NTK-aware and dynamic NTK (base change), LongRoPE (factor list): a factor per pair
};

/// One pair of the extension table.
struct ExtensionPair {
    double omegaOld = 0.0;      ///< rad/token, rope_theta^(-2i/r)
    double omegaNew = 0.0;      ///< rad/token, the scheme's
    double wavelengthOld = 0.0; ///< tokens, 2 pi / omegaOld
    double wavelengthNew = 0.0; ///< tokens, 2 pi / omegaNew
    double scale = 1.0;         ///< omegaOld / omegaNew (> 1: slowed down, interpolated)
    ExtensionBand band = ExtensionBand::Unscaled;
    /// YaRN: the ramp (0 extrapolated .. 1 interpolated); llama3: the smooth factor (1 kept .. 0 divided); NaN for
    /// the other methods (the "ramp" or "smooth" column exists only for these two).
    double weight = 0.0;
    double turnsTrained = 0.0; ///< (T-1) omega_old / (2 pi): turns of the hand over the trained window
    double turnsNow = 0.0;     ///< (L-1) omega_new / (2 pi): turns over the inference length
    double arcTrained = 0.0;   ///< min((T-1) omega_old, 2 pi), radians: the arc met in training
    double arcNow = 0.0;       ///< min((L-1) omega_new, 2 pi), radians: the arc met at length L
    double newFraction = 0.0;  ///< max(0, arcNow - arcTrained) / (2 pi)
    bool completesTurn() const { return turnsTrained >= 1.0; }
};

/// A run of consecutive pairs in one band, with the wavelength (tokens, unscaled) where it starts and ends.
struct ExtensionBandRun {
    ExtensionBand band = ExtensionBand::Unscaled;
    int first = 0, last = 0; ///< pair indices, inclusive
};

/// One method's per-pair scale omega_old / omega_new for the comparison (PI, NTK-aware, dynamic NTK, YaRN, Llama 3)
/// computed with the same rope_theta, rotary dimension, factor and trained window as the scheme.
struct ExtensionMethod {
    std::string key;           ///< "linear", "ntk", "dynamic", "yarn", "llama3" (Hugging Face rope_type)
    std::string label;         ///< legend text: "PI (linear)", ...
    std::vector<double> scale; ///< r/2 values
};

/// The whole table for a rotary scheme.
struct ExtensionTable {
    std::string method; ///< rope_type ("default", "llama3", ...), "xpos" for xPos
    std::vector<ExtensionPair> pairs;
    std::vector<ExtensionBandRun> bands; ///< consecutive runs of one band, in pair order
    Position trainedLength = 0;          ///< T
    std::string trainedSource;           ///< where T came from ("original_max_position_embeddings", "given", ...)
    Position length = 0;                 ///< L, the inference (and current sequence) length
    double factor = 1.0;                 ///< s: the method's factor; for methods without one L / T (at least 1)
    std::string factorSource;
    double attentionFactor = 1.0;
    /// Llama 3: the band edges in tokens (O / high_freq_factor, O / low_freq_factor); YaRN: the nominal edges
    /// O / beta_fast and O / beta_slow (the wavelengths with beta_fast and beta_slow turns in the window) and the
    /// correction range (pair indices, after floor/ceil) the ramp uses. NaN when not applicable.
    double edgeShort = 0.0, edgeLong = 0.0;
    double correctionLow = 0.0, correctionHigh = 0.0;
    bool usesLongFactor = false; ///< LongRoPE: the long factors are in use (L > O)
    double effectiveBase = 0.0;  ///< NTK-aware and dynamic NTK: the changed base; else rope_theta
    double theta = 0.0;          ///< rope_theta, the base before any change
    /// A pair worth showing on the circle: the one with the largest new fraction (the fastest of equals); when
    /// nothing is new, the fastest pair that never turns in training, else the slowest pair.
    int automaticPair = 0;
    std::vector<ExtensionMethod> methods;                    ///< the comparison
    std::vector<std::pair<std::string, double>> specScalars; ///< the scheme's RotarySpec scalars
    int count(ExtensionBand b) const;
    /// The pairs whose hand completes a turn inside the trained window.
    int turning() const;
};

/// The name of a band under @p method: "kept", "blended", "divided by 8", "extrapolated", "ramp", "interpolated",
/// "base change", "long factor", "short factor", "unscaled".
std::string extensionBandName(const ExtensionTable& table, ExtensionBand band);

/// The trained window T of a rotary scheme's parameters: original_max_position_embeddings for llama3, yarn and
/// longrope (rope, and iRoPE's llama3 layers), max_position_embeddings for dynamic; nullopt for the others.
std::optional<Position> trainedLengthOf(const SchemeDescriptor& scheme, const ParamSet& params);

/// Computes the table. @p params are resolved; @p dim the head dimension; @p length the inference length L (also
/// the sequence length of dynamic NTK and LongRoPE: Hugging Face's seq_len); @p trainedLength is used when the
/// parameters name no trained window (default, linear, ntk, xPos); without it T = L / factor (linear, ntk) or
/// T = L. Throws InputError when the scheme does not rotate or the set-up rotates nothing (an iRoPE NoPE layer).
ExtensionTable extensionTable(const SchemeDescriptor& scheme, const ParamSet& params, int dim, Position length,
                              std::optional<Position> trainedLength = std::nullopt);

/// The Quantity::Extension result: pairs x columns (see extensionColumns()), with the scalars and labels above.
ComputeResult extensionResult(const ExtensionTable& table, ComputeResult base);

/// The column names of Quantity::Extension, in order.
const std::vector<std::string>& extensionColumns();

} // namespace poslab::core
