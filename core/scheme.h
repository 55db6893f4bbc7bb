// SPDX-License-Identifier: MIT
#pragma once
/// @file scheme.h
/// The descriptor of one positional-encoding scheme: identity, the three axes of the taxonomy, citation,
/// parameters, and the functions that compute it. The ordered table of all of them is in
/// encodingregistry.cpp.

#include "core/limits.h"
#include "core/params.h"
#include "core/positions.h"
#include "core/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace poslab::core {

/// Axis 1: what the encoding describes.
enum class Relation { None, Absolute, Relative, Contextual, Mixed };
/// Axis 2: where the encoding enters the network.
enum class Application { Nothing, Embedding, QueryKeyRotation, ScoreBias, KeysValues, Mixed };
/// Axis 3: where its numbers come from.
enum class Origin { None, Fixed, Learned, Mixed };

std::string_view relationName(Relation r);
std::string_view applicationName(Application a);
std::string_view originName(Origin o);

/// Everything a table-producing function needs besides the parameters.
struct TableContext {
    int dim = 64;           ///< model (or head) dimension d
    PositionList positions; ///< rows of the table
    /// Current sequence length (dynamic NTK, LongRoPE, xPos centre). Empty: Hugging Face's rule, the largest
    /// requested position + 1 (modeling_rope_utils dynamic_rope_update: seq_len = max(position_ids) + 1); see
    /// effectiveSeqLen().
    std::optional<Position> seqLen;
    /// The request's memory and work caps (compute() passes its own, from --max-memory): a scheme that reads a
    /// file (learned's table_file) checks what reading it makes resident against them before reading.
    Limits limits{};
};

/// The sequence length a table is computed for: @c ctx.seqLen when given, else the largest position of
/// @c ctx.positions + 1 (Hugging Face's seq_len = torch.max(position_ids) + 1).
Position effectiveSeqLen(const TableContext& ctx);

/// How the two members of a rotation pair sit in a vector of dimension r.
enum class PairLayout {
    Interleaved, ///< pairs (2i, 2i+1): GPT-J, Meta's Llama code, RoFormer paper
    HalfSplit,   ///< pairs (i, i + r/2): GPT-NeoX, Hugging Face rotate_half
};

/// The result of a rotary scheme's frequency computation: everything angles, cos, sin and rotate need.
struct RotarySpec {
    int headDim = 0;   ///< d, the vector length
    int rotaryDim = 0; ///< r <= d, even; dimensions r..d-1 pass through unrotated
    PairLayout layout = PairLayout::HalfSplit;
    std::vector<double> invFreq;  ///< r/2 angular frequencies in rad/token, after any scaling
    double attentionFactor = 1.0; ///< multiplies both cos and sin (Hugging Face's attention_scaling)
    /// xPos only (empty otherwise): per-pair decay base zeta_i. The query at position p is scaled by
    /// zeta_i^((p - xposCentre) / xposScaleBase), the key by the inverse (when xposDownscale).
    std::vector<double> xposZeta;
    double xposScaleBase = 512.0;
    double xposCentre = 0.0;
    bool xposDownscale = false;
    /// The sequence length the frequencies (dynamic, longrope) or the xPos centre were computed for; 0 when
    /// nothing depends on it (the GUI shows it next to the table).
    Position seqLen = 0;
    /// Extra named scalars reported next to the data (e.g. "effective_base" for dynamic NTK).
    std::vector<std::pair<std::string, double>> scalars;
};

/// Quantities that `poslab compute` can produce.
///   Bias:    heads x queries x keys, the position part added to the logits (needs the score engine);
///   Buckets: queries x keys, the bucket or clipped-distance index of each pair;
///   Scores:  heads x queries x keys, attention logits (or probabilities with --softmax);
///   Decay:   distances x curves, score or dot product against the distance (see attention.h);
///   Extension: pairs x columns, what a rotary scheme's rope_type does to each pair (see extension.h);
///   Precision: pairs x columns, what float32/float16/bfloat16 rounding leaves of the angles (see precision.h);
///   PositionIds: 3 x tokens, M-RoPE's temporal, height and width ids of a multimodal sequence (spatial.h).
enum class Quantity {
    Encoding,
    Frequencies,
    Angles,
    Cos,
    Sin,
    Rotate,
    Bias,
    Buckets,
    Scores,
    Decay,
    Extension,
    Precision,
    PositionIds
};
std::string_view quantityName(Quantity q);
/// Throws InputError listing the known names.
Quantity parseQuantity(std::string_view name);

/// positions x dim additive encoding (row i = the vector added to the embedding at position i).
using EncodingFn = MatrixF (*)(const ParamSet& params, const TableContext& ctx);
/// Per-pair frequencies and scaling for a head dimension. Reads the parameters, @c ctx.dim and effectiveSeqLen(ctx)
/// only, never the positions themselves: a spec serves every context of that dimension and sequence length
/// (CheckedParams::specFor relies on it).
using RotaryFn = RotarySpec (*)(const ParamSet& params, const TableContext& ctx);
/// Per-pair angular frequencies (rad/token) of an additive sinusoidal scheme (for the clock view).
using FrequencyFn = std::vector<double> (*)(const ParamSet& params, const TableContext& ctx);
/// Cross-parameter checks that need the dimension (list lengths, rotary dim). Throws InputError.
using ValidateFn = void (*)(const ParamSet& params, const TableContext& ctx);
/// Values that are accepted but unusual (e.g. a RoPE scaling factor below 1, which Hugging Face accepts with a
/// logged warning): one sentence each, empty when there is nothing to say.
using WarningsFn = std::vector<std::string> (*)(const ParamSet& params, const TableContext& ctx);

/// Query and key positions of a score matrix: what a bias, bucket or score hook needs besides parameters.
struct PairContext {
    int headDim = 64;              ///< d, per-head dimension
    int heads = 1;                 ///< H
    PositionList queries;          ///< Lq rows
    PositionList keys;             ///< Lk columns
    bool causal = true;            ///< the mask in force (some schemes, e.g. ALiBi, define the bias per mask)
    std::uint64_t contentSeed = 0; ///< seed of the content (hooks that draw per-request noise use it)
};

/// Visibility of each (query, key) pair: Lq x Lk, 1 = visible.
using MaskMatrix = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// One named part of a score, Lq x Lk (e.g. Transformer-XL's "content_position").
struct AttentionTerm {
    std::string key;   ///< stable id: "content_content", "c2p", "gates", ...
    std::string label; ///< one line for a legend, with the formula
    MatrixF values;    ///< Lq x Lk, masked entries NaN (set by the engine)
};

/// What a score hook reads for one head.
struct ScoreInputs {
    const PairContext* ctx = nullptr;
    int head = 0;                     ///< h in [0, H)
    const MatrixF* q = nullptr;       ///< Lq x d content queries (after additive PE / rotation), unscaled
    const MatrixF* k = nullptr;       ///< Lk x d content keys, unscaled
    const MaskMatrix* mask = nullptr; ///< Lq x Lk
    bool wantTerms = true;            ///< fill ScoreOutputs::terms and bias
};

/// What a score hook writes. On entry @c logits holds q.k times the scheme's logit scale (logitScaleOf: 1/sqrt(d)
/// unless the scheme defines its own; masked entries hold arbitrary finite values; the engine sets them to NaN
/// afterwards); the hook changes it in place.
struct ScoreOutputs {
    MatrixF logits;                   ///< Lq x Lk
    MatrixF bias;                     ///< Lq x Lk position part, or empty
    std::vector<AttentionTerm> terms; ///< named parts
    std::vector<double> queryScale;   ///< per-query multiplier of q, or empty
    std::vector<std::pair<std::string, double>> scalars;
};

/// Content-independent additive bias of head @c head: queries x keys, in logit units (nats).
using BiasFn = MatrixD (*)(const ParamSet& params, const PairContext& ctx, int head);
/// Bucket (or clipped-distance index) of each pair: queries x keys, integers held in doubles.
using BucketFn = MatrixD (*)(const ParamSet& params, const PairContext& ctx);
/// Content-dependent score of one head (Shaw, Transformer-XL, DeBERTa, CoPE, iRoPE temperature).
using ScoreFn = void (*)(const ParamSet& params, const ScoreInputs& in, ScoreOutputs& out);

/// What a scheme's own hooks cost for one head beyond the engine's matrices (logits, probabilities, terms,
/// mask, content): @c bytes alive at once (weights such as CoPE's position embeddings or Transformer-XL's W_R,
/// work buffers) and @c work in operations (a multiply-add is 1, a random draw or transcendental drawOps).
struct SchemeCost {
    double bytes = 0.0;
    double work = 0.0;
};
/// Estimates the cost of one head of the bias or score hook without allocating anything (see attentionBytes).
using CostFn = SchemeCost (*)(const ParamSet& params, const PairContext& ctx);

/// How the length lab's trainer (core/train/model.h) puts a scheme's positions into its network.
enum class TrainedAs {
    Untrainable,   ///< no backward pass for its position part yet: the trainer refuses it (DeBERTa, iRoPE)
    NoPosition,    ///< nothing added; only the causal mask carries order (NoPE)
    FixedTable,    ///< a fixed table added to the token embeddings (sinusoidal)
    LearnedTable,  ///< a trained table added to the token embeddings, one row per position (learned)
    Rotation,      ///< queries and keys rotated by the scheme's rotary spec (RoPE, xPos)
    FixedBias,     ///< the scheme's fixed per-head bias added to the logits (ALiBi, Sandwich)
    T5Buckets,     ///< a trained bias per bucket and head (T5)
    Kerple,        ///< KERPLE's trained r1, r2 per head
    Fire,          ///< FIRE's trained MLP of the normalised distance
    Cope,          ///< CoPE's trained position embeddings, counted by content gates
    Shaw,          ///< Shaw et al.'s trained relative key table
    TransformerXl, ///< Transformer-XL's trained u, v and W_R over a fixed sinusoid
};

/// What a set-up that rotates nothing (a rotary spec with r = 0) does instead, for a view that draws rotations.
struct UnrotatedNote {
    std::string reason;  ///< sentences for the view's body: why nothing rotates, what applies, what to pick
    std::string summary; ///< a few words for a header or a caption
};
/// The note for @p params with the position cursor at @p cursor; an empty reason when the scheme has nothing of
/// its own to say (then the generic note applies: the rotated fraction is 0).
using UnrotatedFn = UnrotatedNote (*)(const ParamSet& params, Position cursor);

/// One entry of the registry.
struct SchemeDescriptor {
    std::string id;        ///< short lowercase word: "rope"
    std::string name;      ///< display name: "Rotary position embedding (RoPE)"
    std::string shortName; ///< name in figure titles, legends and picker rows: "RoPE", "Shaw et al."
    std::string family;    ///< e.g. "rotary", "absolute, fixed"
    Relation relation = Relation::None;
    Application application = Application::Nothing;
    Origin origin = Origin::None;
    std::string citation; ///< paper
    /// Year of the cited paper (the first year in @c citation): where the scheme sits in the family map's time line.
    int year = 0;
    std::string reference;     ///< reference implementation (repo/file)
    std::string formula;       ///< plain-text formula shown in the GUI and CLI
    std::string summary;       ///< one sentence for the scheme list
    bool needsEvenDim = false; ///< pairs of dimensions are needed
    /// How the scheme's reference code defines the relative position, where implementations differ:
    /// "key - query" (T5, Shaw) or "query - key" (DeBERTa, Transformer-XL); empty when not relative.
    std::string relativePosition;
    std::vector<ParamSpec> params;
    EncodingFn encoding = nullptr;
    RotaryFn rotary = nullptr;
    FrequencyFn frequencies = nullptr; ///< additive schemes with per-pair frequencies (sinusoidal)
    ValidateFn validate = nullptr;
    WarningsFn warnings = nullptr; ///< accepted-but-unusual values (shown as notes, printed on stderr)
    BiasFn bias = nullptr;         ///< score-bias schemes (T5, ALiBi, Kerple, FIRE, Sandwich)
    BucketFn buckets = nullptr;    ///< bucketed or clipped relative positions (T5, DeBERTa, Shaw)
    ScoreFn score = nullptr;       ///< content-dependent position terms
    bool scoreHasBias = false;     ///< @c score fills ScoreOutputs::bias (then Quantity::Bias exists)
    /// The per-head cost of @c bias or @c score beyond the score matrices; null when it is no more than a
    /// few operations per cell (the engine's own estimate covers it).
    CostFn cost = nullptr;
    bool hasAttentionTerms = false; ///< @c score fills named terms (shown separately by the GUI)
    /// The factor on the content product q.k in the score, as the scheme's reference code has it, for head
    /// dimension @p headDim; null: 1/sqrt(headDim) (Vaswani et al. 2017, eq. 1). T5 multiplies without it
    /// (huggingface/transformers T5Attention.forward), DeBERTa divides by sqrt(3d) (He et al. 2021, eq. 4;
    /// DisentangledSelfAttention scale_factor = 1 + |{c2p, p2c}|). See logitScaleOf.
    double (*logitScale)(const ParamSet& params, int headDim) = nullptr;
    /// The factor as text for `poslab schemes` ("1/sqrt(d)"; T5: "logit_scale: 1 (none) or 1/sqrt(d)").
    std::string logitScaleText = "1/sqrt(d)";
    /// How the length lab trains it; Untrainable: `poslab train` and the length lab refuse it.
    TrainedAs trainedAs = TrainedAs::Untrainable;
    /// Its relative positions fall into buckets that are exact near 0 and logarithmic beyond (T5, DeBERTa): the
    /// figures draw distance on a log axis and mark where the bucket changes.
    bool logBuckets = false;
    /// The per-head slopes of a linear distance bias, for @p heads heads (ALiBi's m_h), named in the decay figure's
    /// legend; null when the bias has no slope per head.
    std::vector<double> (*headSlopes)(const ParamSet& params, int heads) = nullptr;
    /// What applies when a set-up rotates nothing (iRoPE's NoPE layers); null: only the generic note.
    UnrotatedFn unrotated = nullptr;

    /// The length lab can train it (trainedAs is not Untrainable).
    bool trainable() const { return trainedAs != TrainedAs::Untrainable; }
    /// It rotates queries and keys (it has a rotary spec), so the clock, rotation and extension views have a
    /// rotation to draw.
    bool isRotary() const { return rotary != nullptr; }

    /// The quantities this scheme can produce, in a fixed order.
    std::vector<Quantity> quantities() const;
    bool has(Quantity q) const;
    const ParamSpec* param(std::string_view key) const;
};

/// The defaults of a scheme (each key's default under the default choices).
ParamSet defaultParams(const SchemeDescriptor& scheme);

/// The factor on q.k in scheme @p s's score for head dimension @p headDim: s.logitScale, or 1/sqrt(headDim).
double logitScaleOf(const SchemeDescriptor& s, const ParamSet& params, int headDim);

} // namespace poslab::core
