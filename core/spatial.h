// SPDX-License-Identifier: MIT
#pragma once
/// @file spatial.h
/// Positions in two and three dimensions: a vision transformer's patch grid and a vision-language model's
/// sequence of text, image and video tokens. The schemes that take them (ViT's learned table, MAE's 2-D
/// sin-cos, rope-vit's axial and mixed 2-D RoPE, Pixtral's 2-D RoPE, Qwen2-VL's M-RoPE) have their own
/// descriptor table, spatialSchemes(), next to the 1-D registry of encodingregistry.h: every 1-D view, the
/// registry test and the lessons iterate schemes() over a PositionList, which these schemes do not take.
/// `poslab schemes` lists both tables, each spatial entry with its input ("grid" or "sequence").

#include "core/attention.h"
#include "core/encodingregistry.h"
#include "core/limits.h"
#include "core/params.h"
#include "core/scheme.h"
#include "core/types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace poslab::core {

/// Most tokens (patches of a grid, or tokens of a sequence) one spatial request may describe: 2^24. Checked
/// while the text is parsed, before anything is allocated; the memory cap then bounds each result.
inline constexpr std::int64_t maxSpatialTokens = std::int64_t(1) << 24;
/// Longest side of a patch grid, and the largest t, h or w of an image or video block.
inline constexpr int maxGridSide = 65536;

/// A patch grid of @c rows x @c cols (H x W). Patch (i, j), row i from the top and column j from the left,
/// is token i * W + j: row-major, as a ViT flattens its patch embeddings (x.flatten(2) of B x C x H x W).
struct Grid {
    int rows = 0; ///< H
    int cols = 0; ///< W
    std::int64_t patches() const { return std::int64_t(rows) * cols; }
    bool operator==(const Grid&) const = default;
};

/// Parses "HxW" (e.g. "14x14", "24x32"). Throws InputError naming the text and the problem: a missing 'x', a
/// side that is not a positive integer, a side above maxGridSide, or more than maxSpatialTokens patches.
Grid parseGrid(std::string_view text);
/// "HxW".
std::string gridText(const Grid& g);

/// One run of a multimodal sequence.
struct Segment {
    enum class Kind { Text, Image, Video };
    Kind kind = Kind::Text;
    std::int64_t length = 0; ///< Text: the number of tokens
    /// Image and video: the block's grid in the language model's units, after the vision encoder's spatial
    /// merge (Hugging Face's llm_grid_t, llm_grid_h = h // spatial_merge_size, llm_grid_w); t frames.
    int t = 0, h = 0, w = 0;
    /// Tokens of the segment: length, or t * h * w.
    std::int64_t tokens() const { return kind == Kind::Text ? length : std::int64_t(t) * h * w; }
    bool operator==(const Segment&) const = default;
};

/// Text, image and video runs in order, as they sit in one input sequence.
struct TokenSequence {
    std::vector<Segment> segments;
    std::int64_t tokens() const;
    bool operator==(const TokenSequence&) const = default;
};

/// Parses "text:N,image:TxHxW,video:TxHxW,text:M" (any order and number of runs). Throws InputError naming
/// the run and the problem: an unknown kind, a size that is not a positive integer, a side above maxGridSide,
/// or more than maxSpatialTokens tokens in all.
TokenSequence parseSequence(std::string_view text);
/// The text form parseSequence() reads back.
std::string sequenceText(const TokenSequence& s);

/// What a spatial scheme reads besides its parameters.
struct SpatialContext {
    int dim = 64;           ///< model (embedding) dimension for tables, head dimension for rotary schemes
    Grid grid;              ///< grid schemes
    TokenSequence sequence; ///< sequence schemes
    bool cls = false;       ///< tables: put the class-token row first (--cls)
};

/// The rotation angles of a 2-D or 3-D rotary scheme, one row per token.
struct SpatialRotary {
    int headDim = 0; ///< d; every dimension is rotated (rotary dim = d)
    PairLayout layout = PairLayout::HalfSplit;
    /// tokens x (d/2): the angle of pair i at token n in radians, unreduced, computed in double from the
    /// token's integer coordinates and the pair's frequency (the reference code does the same in float32).
    MatrixD angles;
    /// d/2 lines, one per pair: the axis it turns with and its frequency ("pair 3: column j, omega = 0.1").
    std::vector<std::string> pairLabels;
    /// Per-pair axis index into @c axes (-1: a mix of axes, rope-vit's mixed frequencies).
    std::vector<int> pairAxis;
    std::vector<std::string> axes; ///< axis names, e.g. {"column j (x)", "row i (y)"} or {"t", "h", "w"}
    std::vector<std::pair<std::string, double>> scalars;
};

/// What a spatial scheme takes.
enum class SpatialInput {
    Grid,     ///< --grid HxW: a vision encoder's patch grid
    Sequence, ///< --sequence text:N,image:TxHxW,...: a vision-language model's token sequence
};
std::string_view spatialInputName(SpatialInput in); ///< "grid" or "sequence"

/// (H*W) x dim (plus the class-token row first when ctx.cls): the vectors added to the patch embeddings.
using SpatialEncodingFn = MatrixF (*)(const ParamSet& params, const SpatialContext& ctx);
/// The rotation angles of every token.
using SpatialRotaryFn = SpatialRotary (*)(const ParamSet& params, const SpatialContext& ctx);
/// 3 x L position ids (rows temporal, height, width), integers held in doubles.
using PositionIdsFn = MatrixD (*)(const ParamSet& params, const SpatialContext& ctx);
/// Cross-parameter checks that need the context (dimension rules, list lengths, grid limits). Throws InputError.
using SpatialValidateFn = void (*)(const ParamSet& params, const SpatialContext& ctx);

/// One entry of the spatial table.
struct SpatialSchemeDescriptor {
    /// Identity, taxonomy, citation, formula and parameters, as for a 1-D scheme (its 1-D function pointers
    /// stay null): resolveParams() and the scheme listing read it as they read a 1-D descriptor.
    SchemeDescriptor info;
    SpatialInput input = SpatialInput::Grid;
    bool hasClassToken = false; ///< --cls applies
    /// The dimension its default parameters fit, taken when none is given (mrope: 128, as its default mrope_section
    /// [16, 24, 24] sums to 64 pairs: Qwen2-VL's head dimension); 0: the common default.
    int defaultDim = 0;
    SpatialEncodingFn encoding = nullptr;
    SpatialRotaryFn rotary = nullptr;
    PositionIdsFn positionIds = nullptr;
    SpatialValidateFn validate = nullptr;

    /// encoding; position_ids; angles, cos, sin, rotate, scores; in that order.
    std::vector<Quantity> quantities() const;
    bool has(Quantity q) const;
};

/// Every spatial scheme, in teaching order (tables, then 2-D rotations, then M-RoPE).
const std::vector<SpatialSchemeDescriptor>& spatialSchemes();
/// The spatial scheme with this id, or nullptr.
const SpatialSchemeDescriptor* findSpatialScheme(std::string_view id);

/// Resolves @p overrides for a spatial scheme as resolveParams() does for a 1-D one (unknown key, type, range,
/// choices, keys that do not apply), then the scheme's own checks for @p ctx. Throws InputError.
ParamSet resolveSpatialParams(const SpatialSchemeDescriptor& scheme, const Overrides& overrides,
                              const SpatialContext& ctx);

/// tokens x (d/2): cos of each angle (float32).
MatrixF spatialCos(const SpatialRotary& r);
/// tokens x (d/2): sin of each angle (float32).
MatrixF spatialSin(const SpatialRotary& r);
/// tokens x d: @p v rotated at every token, pair i = dims pairDims(layout, d, i):
/// (v_a, v_b) -> (v_a cos - v_b sin, v_a sin + v_b cos), as rotate_half (half-split) or complex
/// multiplication (interleaved) do. Throws InputError when v has not d values.
MatrixD spatialRotate(const SpatialRotary& r, const std::vector<double>& v);

/// Scores of a spatial rotary scheme: L x L logits q'_m . k'_n / sqrt(d) with q'_m = R(m) q_m, k'_n = R(n) k_n.
/// Content: Constant gives q = k = (1, ..., 1) at every token (only the position acts); Random draws q_m and
/// k_m from N(0, 1) with SeededRandom(seed): all the q values token by token, then all the k values. Masked
/// entries (key after query under a causal mask) are NaN. With @p softmax each row is a softmax over its
/// visible keys.
MatrixF spatialScores(const SpatialRotary& r, ContentKind content, std::uint64_t seed, bool causal, bool softmax);

/// N x N: entry (a, b) is the cosine similarity of rows a and b of @p vectors (N x D), computed in double,
/// u . v / (|u| |v|), as ViT's Figure 7 draws it ("cosine similarity between the position embedding of the patch
/// with the indicated row and column and the position embeddings of all other patches"; Dosovitskiy et al. 2021,
/// section 4.5). NaN where either row is all zeros (no direction).
MatrixD rowCosines(const MatrixF& vectors);

/// The patch of @p to at the same place in the image as patch (@p row, @p col) of @p from: the one whose centre
/// is nearest, row' = floor((row + 1/2) H' / H), col' likewise (the centre of a cell keeps its fraction of the
/// image's height and width).
std::pair<int, int> samePlace(const Grid& from, int row, int col, const Grid& to);

} // namespace poslab::core
