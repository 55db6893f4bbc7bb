// SPDX-License-Identifier: MIT
#pragma once
/// @file pipeline.h
/// Where the position signal enters attention, stage by stage, for a short sentence (the pipeline view):
///   token embedding e(w_t) (+ PE(t) for additive schemes) -> x_t -> q = W_Q x, k = W_K x -> (rotation for
///   rotary schemes) -> q.k / sqrt(d) -> (+ bias for bias schemes; the scheme's terms for Shaw, Transformer-XL,
///   DeBERTa, CoPE) -> mask -> softmax -> weights.
/// Every stage is a matrix the attention engine itself computed (attentionScores with an AttentionTrace), so the
/// last stage is exactly `poslab compute scores --softmax --content SENTENCE` for the same state and head.
/// Also here: the same vector with a position added and rotated (norm and angle), and the NoPE demonstrations
/// (permutation equivariance without a mask; the causal mask leaks position as 1/(i+1)).
///
/// Shapes: L = the number of words (queries = keys = positions 0 .. L-1), d = the head dimension. Matrices are
/// row-major float32 (MatrixF) as the engine holds them; masked weights are NaN.

#include "core/attention.h"
#include "core/compute.h"
#include "core/limits.h"
#include "core/scheme.h"
#include "core/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace poslab::core {

/// Largest rotation pair index the position-vector comparison accepts (head dimension 4096).
inline constexpr int maxPipelinePair = 2047;

/// Most words the pipeline takes: it draws every stage of a short sentence.
inline constexpr int maxPipelineWords = 64;

/// Where a scheme's position signal enters attention.
enum class PositionEntry {
    None,     ///< nowhere (NoPE, bidirectional; an iRoPE NoPE layer without temperature tuning)
    Input,    ///< PE(t) added to the token embedding (sinusoidal, learned)
    Rotation, ///< q and k rotated by their positions (RoPE, xPos, iRoPE's RoPE layers)
    Bias,     ///< a bias added to the logits (T5, ALiBi, Kerple, FIRE, Sandwich)
    Terms,    ///< position terms computed inside the score (Shaw, Transformer-XL, DeBERTa, CoPE, iRoPE temperature)
    Mask,     ///< only the causal mask (NoPE, causal)
};
/// "none", "input", "rotation", "bias", "terms", "mask".
std::string_view positionEntryName(PositionEntry e);

/// One stage of the pipeline.
struct PipelineStage {
    std::string key;   ///< "embedding", "position", "input", "w_q", "w_k", "q", "k", "q_rotated", "k_rotated",
                       ///< "scores", "bias", "logits", "mask", "weights"
    std::string label; ///< the formula, one line: "x_t = e(w_t) + PE(t)"
    std::string rowAxis, columnAxis; ///< "token", "dimension", "query", "key", "output", "input"
    MatrixF values;                  ///< rows x columns as named
    bool entry = false;              ///< the position signal enters here
};

/// Input of attentionPipeline().
struct PipelineRequest {
    std::string scheme = "rope";
    ParamSet params;  ///< complete values (empty: defaults)
    int headDim = 64; ///< d
    int heads = 1;    ///< H (ALiBi's slopes depend on it)
    int head = 0;     ///< the head traced, 0 .. H-1
    MaskKind mask = MaskKind::Causal;
    std::string sentence = "the cat sat on the mat"; ///< words separated by white space
    std::uint64_t seed = 0;                          ///< content seed (embeddings, projections), as --seed
    std::optional<Position> seqLen;                  ///< as AttentionRequest::seqLen
};

/// What attentionPipeline() returns.
struct PipelineResult {
    std::vector<std::string> tokens;   ///< the L words, position order
    std::vector<PipelineStage> stages; ///< in pipeline order; the schemes' own stages only where they exist
    PositionEntry entry = PositionEntry::None;
    std::string entryText; ///< one sentence: where the position enters, for this scheme and layer
    std::vector<std::pair<std::string, double>> scalars; ///< the engine's (ALiBi "slope", iRoPE "rope_layer", ...)

    /// The stage called @p key, or nullptr.
    const PipelineStage* stage(std::string_view key) const;
};

/// Runs the engine on the sentence (queries = keys = 0 .. L-1, only head request.head) with a trace and returns
/// every stage. Throws InputError (bad scheme, parameters, head, an empty sentence or one longer than
/// maxPipelineWords) or RefusedError (over the limits).
PipelineResult attentionPipeline(const PipelineRequest& request, const Limits& limits = {});

/// The stages as one table for a data export: one row per matrix entry, columns "stage" (the stage's index in
/// @p result.stages), "row", "column", "value"; the labels name each stage ("stage_3": "q_t = W_Q x_t ...").
/// Masked weights are NaN.
ComputeResult pipelineTable(const PipelineRequest& request, const PipelineResult& result);

/// The same vector given a position two ways: added (an additive scheme's PE(p)) and rotated (a rotary scheme's
/// R(p)), with norms and angles. The rotation keeps the norm unless the scheme scales it (YaRN's attention factor,
/// xPos's zeta^(p/scale_base)).
struct PositionVectorDemo {
    std::string
        additiveScheme;       ///< id of the scheme whose PE(p) is added (the chosen one when additive, else sinusoidal)
    std::string rotaryScheme; ///< id of the scheme whose R(p) rotates (the chosen one when it rotates, else rope)
    Position position = 0;    ///< p
    int pair = 0;             ///< the rotation pair drawn
    int dimA = 0, dimB = 1;   ///< its two dimensions (the rotary layout's pairDims)
    std::vector<double> vector;                            ///< d: v, the token's embedding e(w)
    std::vector<double> added;                             ///< d: v + PE(p)
    std::vector<double> rotated;                           ///< d: R(p) v
    double norm = 0.0, normAdded = 0.0, normRotated = 0.0; ///< Euclidean norms over all d dimensions
    double angleAdded = 0.0;   ///< radians in [0, pi]: the angle between v and v + PE(p) in R^d
    double angleRotated = 0.0; ///< radians in [0, pi]: the angle between v and R(p) v in R^d
    double pairAngle = 0.0;    ///< p * theta_pair reduced to [0, 2 pi): how far the drawn pair turns
    double normScale = 1.0;    ///< |R(p) v| / |v| as the scheme defines R: 1 for a pure rotation
    std::string scaleReason;   ///< why normScale is not 1 ("YaRN attention factor", "xPos scale"), else empty
};

/// For the state's scheme: v = e(@p word) (the engine's embedding with @p seed, d = @p headDim), at position
/// @p position, pair @p pair (0 .. r/2 - 1 of the rotary scheme). Throws InputError for a bad pair or dimension.
PositionVectorDemo positionVectorDemo(const std::string& scheme, const ParamSet& params, int headDim,
                                      const std::string& word, std::uint64_t seed, Position position, int pair = 0);

/// The NoPE demonstrations (Kazemnejad et al. 2023, section 3 and appendix C; the causal mask alone lets a
/// decoder recover absolute position).
struct NopeDemo {
    std::vector<std::string> words;       ///< the sentence, position order
    std::vector<std::string> shuffled;    ///< the seeded shuffle of it
    std::vector<std::size_t> permutation; ///< shuffled[t] = words[permutation[t]]
    /// L x d: one NoPE attention layer, o_t = sum_j softmax_j(q_t.k_j / sqrt(d)) v_j with q = W_Q x, k = W_K x,
    /// v = W_V x (the engine's embeddings and projections, in double), bidirectional: on the sentence and on its
    /// shuffle.
    MatrixD output, shuffledOutput;
    /// max over t, i of |shuffledOutput(t, i) - output(permutation[t], i)|: rounding only without a mask...
    double equivarianceError = 0.0;
    /// ...and large with a causal mask, where the same comparison fails: order leaks through the mask.
    double causalError = 0.0;
    /// Uniform attention under a causal mask (NoPE, constant content q = k = 1, the engine's softmax): query i's
    /// weight on key 0, which is also the output o_i when the first token's value is 1 and every other value 0.
    std::vector<double> firstWeight; ///< n values, 1/(i+1)
    std::vector<double> recovered;   ///< n values: 1/firstWeight - 1, the position read back from the output
};

/// The NoPE demonstrations as one table for a data export: one row per position i of the causal part, columns
/// "position", "first_weight" (1/(i+1)) and "recovered_position"; scalars "equivariance_error" and "causal_error".
ComputeResult nopeTable(const NopeDemo& demo);

/// @p sentence at head dimension @p headDim with content seed @p seed (the shuffle uses it too), and the causal
/// part over @p positions positions (1 to 4096). Throws InputError for an empty or over-long sentence.
NopeDemo nopeDemo(const std::string& sentence, int headDim, std::uint64_t seed, int positions);

} // namespace poslab::core
