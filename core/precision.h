// SPDX-License-Identifier: MIT
#pragma once
/// @file precision.h
/// Exact emulation of low-precision rotary angles: IEEE 754 binary16 (float16), bfloat16 and binary32 (float32)
/// rounding from double, and what it does to RoPE's angles p * omega_i over a range of positions.
///
/// Formats (significand bits P including the implicit bit, smallest normal exponent emin, largest emax):
///   float32  = IEEE 754-2008 binary32, section 3.6 table 3.5: P = 24, emin = -126, emax = 127;
///   float16  = IEEE 754-2008 binary16, section 3.6 table 3.5: P = 11, emin = -14,  emax = 15 (largest 65504);
///   bfloat16 = binary32's sign and 8 exponent bits with 7 fraction bits (Google Cloud TPU "bfloat16" format;
///              Intel BF16 white paper 338302-001US): P = 8, emin = -126, emax = 127 (integers above 256 are not all
///              representable: 257 rounds to 256).
/// Rounding is roundTiesToEven (IEEE 754-2008 section 4.3.1), the default of every conversion and operation here,
/// and of PyTorch's float -> bfloat16 conversion (c10/util/BFloat16.h round_to_nearest_even: add 0x7FFF plus the
/// lowest kept bit, then truncate). Values above the largest finite number by half a unit or more become infinity;
/// subnormals are kept (float16 has them down to 2^-24). Each conversion here rounds once from the double it is
/// given (a correctly rounded conversion); PyTorch converts a double to float16 or bfloat16 through float32, which
/// differs only where the float32 value lands exactly half-way between two values of the narrow format.
///
/// The two pipelines of a rotary angle (both real code does):
///   RoundAngle:     angle = round(p * omega) with p * omega formed in double (one rounding of the exact angle):
///                   a table computed in high precision and stored in the narrow format, or, at float32, Hugging
///                   Face's LlamaRotaryEmbedding.forward, which forms inv_freq @ position_ids in float32 under
///                   torch.autocast(enabled=False) (modeling_llama.py; the fix of transformers PR #29285) and then
///                   rounds cos and sin to the model dtype.
///   LowPrecision:   angle = round(round(p) * round(omega)): position and inverse frequency held in the narrow
///                   format and their product rounded in it, as code that builds t = torch.arange(n,
///                   dtype=inv_freq.dtype) after model.to(bfloat16) does (transformers issue #25681's
///                   LlamaRotaryEmbedding._set_cos_sin_cache; EleutherAI/gpt-neox issue #1003: at dim 32, base
///                   10000, position 1857, pair 1 the float16 angle is 1045 instead of 1044.27). The product of two
///                   narrow values is exact in double (at most 2 x 24 significand bits), so rounding it once is the
///                   format's multiplication.
/// In both, cos and sin of the rounded angle are evaluated in double and rounded once to the format.

#include "core/limits.h"
#include "core/positions.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace poslab::core {

/// A floating-point format of the angles.
enum class FloatFormat { Float32, Float16, BFloat16 };
/// "float32", "float16", "bfloat16".
std::string_view floatFormatName(FloatFormat f);
/// Parses a format name; throws InputError listing the known names.
FloatFormat parseFloatFormat(std::string_view name);
/// Significand bits including the implicit one: 24, 11, 8.
int significandBits(FloatFormat f);
/// The smallest normal exponent: -126, -14, -126 (the smallest normal number is 2^emin).
int minExponent(FloatFormat f);
/// The largest exponent: 127, 15, 127.
int maxExponent(FloatFormat f);
/// The largest finite number: (2 - 2^(1-P)) * 2^emax (65504 for float16).
double maxFinite(FloatFormat f);

/// @p x rounded to the nearest number of format @p f, ties to even (IEEE 754-2008 section 4.3.1), by bit
/// manipulation of the double: subnormals kept, overflow to +-infinity, NaN stays NaN. Exact: the result is a
/// double holding the narrow value.
double roundTo(double x, FloatFormat f);
/// The binary16 bit pattern of roundTo(x, Float16): sign, 5 exponent bits (bias 15), 10 fraction bits
/// (1.0 -> 0x3C00, 65504 -> 0x7BFF, infinity -> 0x7C00, NaN -> 0x7E00).
std::uint16_t float16Bits(double x);
/// The value of a binary16 bit pattern.
double float16Value(std::uint16_t bits);
/// The bfloat16 bit pattern of roundTo(x, BFloat16): the upper 16 bits of the binary32 pattern (1.0 -> 0x3F80,
/// 256 -> 0x4380, NaN -> 0x7FC0).
std::uint16_t bfloat16Bits(double x);
/// The value of a bfloat16 bit pattern.
double bfloat16Value(std::uint16_t bits);
/// The spacing of format @p f at |x|: 2^(max(e, emin) - P + 1) with e = floor(log2 |x|) (the unit in the last
/// place of a number of that magnitude; 2 at 2048 in float16, 2 at 256 in bfloat16). x = 0 gives the smallest
/// subnormal. Infinity and NaN give NaN.
double ulp(double x, FloatFormat f);

/// How the rounded angle is formed (see the file comment).
enum class AnglePipeline { RoundAngle, LowPrecision };
/// "round_angle", "low_precision".
std::string_view anglePipelineName(AnglePipeline p);

/// The angle of position @p p and frequency @p omega (rad/token) in format @p f by pipeline @p pipeline.
double roundedAngle(double p, double omega, FloatFormat f, AnglePipeline pipeline);

/// What rounding leaves of one pair's angles at a list of positions. "Neighbours" are consecutive entries of the
/// list: p and p + 1 for a range a:b.
struct PairPrecision {
    double omega = 0.0;              ///< rad/token as given (double)
    double omegaUsed = 0.0;          ///< the step of the pipeline: omega (RoundAngle) or roundTo(omega) (LowPrecision)
    std::int64_t distinctAngles = 0; ///< distinct rounded angles at the positions (every NaN counts as one value)
    std::int64_t distinctCosSin = 0; ///< distinct (cos, sin) pairs, each rounded to the format (NaN as one value)
    /// The first position whose rounded angle equals its neighbour's (the next entry); nullopt when none.
    std::optional<Position> firstAngleCollapse;
    /// The first position whose rounded (cos, sin) equals its neighbour's: the same rotation in this pair.
    std::optional<Position> firstCosSinCollapse;
    /// The first position p >= 1 with ulp(fl(p * omegaUsed)) > omegaUsed: from there a step of one token is smaller
    /// than the format's spacing of the angle (whatever the positions asked for; nullopt beyond maxPosition).
    std::optional<Position> resolutionPosition;
};

/// The result of analysePrecision().
struct PrecisionAnalysis {
    FloatFormat format = FloatFormat::Float32;
    AnglePipeline pipeline = AnglePipeline::RoundAngle;
    std::vector<PairPrecision> pairs;
    /// The first position whose rounded (cos, sin) equal its neighbour's in every pair: the same rotated vector
    /// (nullopt when none, and when there are no pairs).
    std::optional<Position> firstVectorCollapse;
    /// Neighbours with the same rotated vector in every pair (0 when there are no pairs).
    std::int64_t vectorCollapses = 0;
    /// Distinct positions after rounding them to the format (LowPrecision); RoundAngle: distinct positions asked for.
    std::int64_t distinctPositions = 0;
    /// The first position whose angle is not finite in some pair (float16 positions from 65520 overflow to infinity
    /// in LowPrecision); nullopt when all are finite.
    std::optional<Position> firstNonFinite;
};

/// Operations analysePrecision() counts per position per pair for one pipeline: 6 * drawOps = 600. Measured on the
/// 2-core development machine (g++ -O3, 200 to 1,000,000 positions, 4 to 32,768 pairs): 87 to 176 ns per position
/// per pair and pipeline (a cosine, a sine, two to four roundings and the sort of the keys, whose log factor did
/// not show over that range), about 600 at drawOps' 25 ns per 100. The first estimate, 40 + log2(positions), was
/// about 10 times low here (0:27000 at d = 65536, estimated 9.7e10, ran 9 min 27 s).
inline constexpr double precisionCellOps = 6.0 * drawOps;

/// The work of analysing @p pairs pairs at @p positions positions by @p pipelines pipelines (compute precision
/// runs both): positions x pairs x pipelines x precisionCellOps (one pass over the positions when there are no pairs).
double precisionWork(std::size_t pairs, std::size_t positions, int pipelines = 1);

/// Bytes analysePrecision() holds at once for @p positions positions: per position the flag, the angle key, the
/// (cos, sin) keys and the sorted copy of the largest of them: 1 + 8 + 16 + 16 = 41 bytes.
double precisionBytes(std::size_t positions);

/// Analyses the angles p * omega_i of every frequency in @p omegas (rad/token, one per pair) at @p positions in
/// format @p f by @p pipeline. Throws InputError when there are no positions, and RefusedError before any work
/// when precisionBytes() or precisionWork() is over @p limits (every caller: compute, export, the window's view).
PrecisionAnalysis analysePrecision(const std::vector<double>& omegas, const PositionList& positions, FloatFormat f,
                                   AnglePipeline pipeline, const Limits& limits = {});

/// Refuses (RefusedError) the analysis of @p pairs pairs at @p positions positions by @p pipelines pipelines when it
/// is over @p limits; the message names the positions and pairs.
void checkPrecision(std::size_t pairs, std::size_t positions, int pipelines, const Limits& limits);

} // namespace poslab::core
