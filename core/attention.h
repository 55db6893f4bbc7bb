// SPDX-License-Identifier: MIT
#pragma once
/// @file attention.h
/// The attention-score engine: for a scheme, its parameters, H heads, a list of query positions and a list
/// of key positions, a mask and some content, it returns per head the logits, the softmax probabilities,
/// the position-only bias and, for schemes whose score is a sum of named parts (Transformer-XL, DeBERTa,
/// Shaw, CoPE), each part separately. The CLI (`poslab compute scores|bias`, through compute()) and the
/// GUI's attention heatmap call the same function, attentionScores().
///
/// Shapes and units, once for the whole file:
///   - Lq = queries.size() rows, Lk = keys.size() columns; row i is the query at position queries[i],
///     column j the key at position keys[j]. Every matrix is row-major float32 (MatrixF), so a row is
///     contiguous and a heatmap fill is a straight copy.
///   - Logits are in natural-log units (nats): the softmax argument. They include the 1/sqrt(d) scale of
///     the content product (d = headDim; DeBERTa divides by sqrt(3d) as its reference does) and every
///     additive position term.
///   - Masked entries (key not visible to the query) are quiet NaN in every Lq x Lk matrix (logits,
///     probabilities, bias, terms); AttentionResult::mask says which entries those are. Writers print NaN
///     as null (JSON), an empty field (CSV) or NaN (npy).
///
/// How content becomes q and k (per head h, head dimension d):
///   - Random:   q(p), k(p) ~ N(0, 1)^d, drawn independently from (seed, head, side, p): the vector at
///     position p does not depend on which other positions are asked for.
///   - Constant: q(p) = k(p) = (1, ..., 1) for every p and head, so only position acts.
///   - Sentence: word w has a seeded embedding e(w) ~ N(0, 1)^d (the same word always gets the same vector,
///     whatever its position); q = Wq_h x, k = Wk_h x with seeded Wq_h, Wk_h ~ N(0, 1/d)^(d x d). Word t sits
///     at position t, so every query and key position must be below the number of words.
///   Additive schemes (sinusoidal, learned) add PE(p) to the content before the projection (Sentence) or
///   to q and k directly (Random, Constant). Rotary schemes rotate q by its position and k by its position.

#include "core/limits.h"
#include "core/scheme.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace poslab::core {

class CheckedParams; // encodingregistry.h

/// Which keys a query may see.
enum class MaskKind {
    Causal,        ///< key position <= query position (decoders)
    Bidirectional, ///< every key (encoders)
};
std::string_view maskName(MaskKind m);
/// "causal" or "bidirectional"; throws InputError otherwise.
MaskKind parseMask(std::string_view name);

/// Where q and k come from.
enum class ContentKind {
    Random,   ///< seeded N(0, 1) q and k, independent per head and position
    Constant, ///< all-ones q = k at every position: only the position signal varies
    Sentence, ///< words mapped to seeded embeddings, projected per head
};

/// The content of the sequence.
struct ContentSpec {
    ContentKind kind = ContentKind::Random;
    std::uint64_t seed = 0; ///< seeds q/k (Random), embeddings and projections (Sentence)
    std::string sentence;   ///< Sentence: words separated by white space (case and punctuation kept)
    bool shuffle = false;   ///< Sentence: permute the words (seeded by @c seed) before placing them
    bool operator==(const ContentSpec&) const = default;
};

/// Most words a sentence may have.
inline constexpr int maxSentenceWords = 4096;

/// Parses the CLI's --content value: "random", "constant", or anything else as a sentence.
/// Throws InputError for an empty sentence or one with more than maxSentenceWords words.
ContentSpec parseContent(std::string_view text, std::uint64_t seed);

/// The words of a Sentence content, in position order (after the shuffle when asked); empty otherwise.
std::vector<std::string> sentenceWords(const ContentSpec& content);
/// Sentence content: for each position t, the index in the typed sentence of the word placed there (the
/// identity unless @c shuffle; a seeded Fisher-Yates permutation otherwise). Empty for other content.
std::vector<std::size_t> sentenceOrder(const ContentSpec& content);

/// Most heads one request may ask for.
inline constexpr int maxHeads = 1024;

/// One request to the engine.
struct AttentionRequest {
    std::string scheme = "nope"; ///< registry id
    ParamSet params;             ///< complete, typed values (empty: the scheme's defaults)
    int headDim = 64;            ///< d, the per-head dimension (even for rotary schemes)
    int heads = 1;               ///< H in [1, maxHeads]; ALiBi slopes etc. depend on it
    PositionList queries;        ///< Lq query positions (rows)
    PositionList keys;           ///< Lk key positions (columns)
    MaskKind mask = MaskKind::Causal;
    ContentSpec content;
    std::optional<Position> seqLen; ///< current sequence length (dynamic NTK, LongRoPE); default: max + 1
    bool drope = false;             ///< DroPE: skip the rotation of rotary schemes (same content, no RoPE)
    int onlyHead = -1;              ///< compute only this head (0-based); -1: all H heads
    bool wantProbabilities = true;  ///< fill AttentionHead::probabilities
    bool wantTerms = true;          ///< fill AttentionHead::bias and AttentionHead::terms
    /// The parameters as validated once (ComputeRequest::checked), or null: where it covers (scheme, params,
    /// headDim) only the context is checked and the rotary spec is its own for that sequence length.
    std::shared_ptr<const CheckedParams> checked;
};

/// AttentionTerm (one named part of a score) and MaskMatrix (Lq x Lk, 1 = visible) are in scheme.h.

/// The results for one head.
struct AttentionHead {
    int index = 0;                    ///< head number h in [0, H)
    MatrixF logits;                   ///< Lq x Lk: everything added up (nats), masked entries NaN
    MatrixF probabilities;            ///< Lq x Lk: softmax of each row over its visible keys; masked NaN;
                                      ///< a row with no visible key is all NaN. Empty unless requested.
    MatrixF bias;                     ///< Lq x Lk: the position part added to the content logits (ALiBi's
                                      ///< -m|i-j|, T5's bucket bias, ...). Empty for schemes without one.
    std::vector<AttentionTerm> terms; ///< named parts, for schemes that have several (empty otherwise)
    std::vector<std::pair<std::string, double>> scalars; ///< per-head numbers, e.g. "slope" for ALiBi
};

/// Everything attentionScores() returns.
struct AttentionResult {
    std::vector<AttentionHead> heads;     ///< H entries (or one when onlyHead >= 0)
    MaskMatrix mask;                      ///< Lq x Lk, shared by every head
    std::vector<std::string> queryTokens; ///< Sentence: the word at each query position; else empty
    std::vector<std::string> keyTokens;   ///< Sentence: the word at each key position; else empty
    /// Per-query multiplier applied to q (Llama 4 attention temperature tuning on NoPE layers); Lq values,
    /// empty when every query is unscaled.
    std::vector<double> queryScale;
    std::vector<std::pair<std::string, double>> scalars; ///< e.g. "rope_layer" for iRoPE
};

struct AttentionTrace; // below: the intermediate matrices of one head

/// Bytes the request would allocate (every requested matrix of every head, plus the mask and the work
/// buffers), computed without allocating anything.
double attentionBytes(const AttentionRequest& request);
/// Operations the request would take (the content, q.k, and the scheme's own hooks; see SchemeCost), computed
/// without computing anything.
double attentionWork(const AttentionRequest& request);

/// Checks the request (scheme, parameters, heads, positions, content) and throws InputError with one line
/// naming the problem: bad head count, a key or query outside the sentence, a sentence too long, ...
void validateAttention(const AttentionRequest& request);

/// Runs the engine. Throws InputError (bad input) or RefusedError (attentionBytes() above
/// @c limits.maxBytes; checked before allocating, the message gives the size). Uses every core for large
/// requests. Cost: about 3 ms per head at 512 x 512 with probabilities and terms on a 2-core machine, so a
/// view that shows one head should set @c onlyHead; 4096 x 4096 x 128 logits take about 45 ms.
/// @p trace, when given, receives the first computed head's intermediate matrices (AttentionTrace).
AttentionResult attentionScores(const AttentionRequest& request, const Limits& limits = {},
                                AttentionTrace* trace = nullptr);

/// The intermediate matrices of one head, recorded by attentionScores() when given a trace (the pipeline view,
/// core/pipeline.h): the very matrices the engine computed, so the stages end in the engine's own weights.
/// Recorded for the first head computed (request.onlyHead, or head 0). Shapes: L = Lq (query side), d = headDim.
struct AttentionTrace {
    MatrixF embedding;          ///< Lq x d: token embeddings e(w_t) of the query positions (Sentence content only)
    MatrixF position;           ///< Lq x d: additive position vectors PE(t) (sinusoidal, learned); empty otherwise
    MatrixF input;              ///< Lq x d: x_t = e(w_t) + PE(t) (Sentence content only)
    MatrixF wq, wk;             ///< d x d: the head's projections W_Q, W_K (Sentence content only); q = W_Q x
    MatrixF q, k;               ///< Lq x d, Lk x d: queries and keys before any rotation
    MatrixF qRotated, kRotated; ///< after the rotation (rotary schemes, not DroPE); empty otherwise
    MatrixF contentLogits;      ///< Lq x Lk: q.k / sqrt(d) of the (rotated) q and k, before any bias or score hook
    MatrixF bias;               ///< Lq x Lk: the position bias added (bias schemes; score schemes that report one)
    MatrixF logits;             ///< Lq x Lk: everything added up, before the mask (finite everywhere)
};

/// The seeded projection of Sentence content for head @p head: W (d x d, entries N(0, 1/d)); side 0 is W_Q,
/// side 1 W_K (q = W_Q x, k = W_K x, as the engine uses them), side 2 a value projection W_V (used by the
/// pipeline's NoPE demonstration only).
MatrixD sentenceProjection(std::uint64_t seed, int d, int head, int side);
/// Sentence content: one row per word (position order, after the shuffle), the seeded embedding e(w) ~ N(0, 1)^d
/// as float32 (the engine's x before the position enters). Empty for other content.
MatrixF sentenceEmbeddings(const ContentSpec& content, int d);

/// Row-wise softmax over the visible entries of @c logits (Lq x Lk); masked entries NaN. In place.
/// Subtracts each row's maximum first, so adding a constant to a row leaves the result unchanged.
void maskedSoftmax(MatrixF& logits, const MaskMatrix& mask);

/// The mask for positions: causal (key <= query) or bidirectional (all ones). Lq x Lk.
MaskMatrix makeMask(const PositionList& queries, const PositionList& keys, MaskKind kind);

/// One curve of the decay view, sampled at the requested distances.
struct DecaySeries {
    std::string key;            ///< "dot", "score", "bound", "bias_head_0", ...
    std::string label;          ///< legend text: the formula, the content model and the normalisation
    std::vector<double> values; ///< one per distance
};

/// What a decay curve is divided by.
enum class DecayNormalisation {
    None,   ///< "none": the raw value (dot product, score, bound)
    AtZero, ///< "at_zero": divided by the same curve's value at distance 0 (so every curve starts at 1)
};
std::string_view decayNormalisationName(DecayNormalisation n);
/// "none" or "at_zero"; throws InputError otherwise.
DecayNormalisation parseDecayNormalisation(std::string_view name);

/// Most content vectors one random decay curve may average.
inline constexpr int maxDecaySamples = 4096;

/// Input of decayCurves().
struct DecayRequest {
    std::string scheme = "rope";
    ParamSet params;  ///< complete values (empty: defaults)
    int headDim = 64; ///< d
    int heads = 1;    ///< H (bias schemes give one curve per head)
    /// Distances delta = query position - key position, in tokens: positive means the key is delta tokens
    /// before the query (what a causal model sees); negative values are allowed (bidirectional T5).
    std::vector<Position> distances;
    Position origin = 0; ///< the earlier of the two positions (learned tables and FIRE depend on it)
    /// Content model of the rotary "score" curve: Constant ("ones", the default: q = k = (1, ..., 1)),
    /// Random ("random": the mean over @c samples seeded N(0, 1) vectors, @c content.seed), or Sentence (the
    /// first @c samples words' embeddings).
    ContentSpec content{ContentKind::Constant, 0, {}, false};
    int samples = 16; ///< Random and Sentence: how many content vectors are averaged (1 to maxDecaySamples)
    DecayNormalisation normalisation = DecayNormalisation::None;
    /// As AttentionRequest::checked (the decay context: positions 0 .. max |distance| + origin, no sequence length).
    std::shared_ptr<const CheckedParams> checked;
    bool operator==(const DecayRequest&) const = default;
};

/// The content model's name for a legend or a JSON field: "ones", "random" or "sentence".
std::string_view decayContentName(const ContentSpec& content);

/// The one decay function behind the decay view and `poslab compute decay`: what is plotted against the
/// distance delta (units: the same as the logits, except "dot"; every curve divided by its value at delta = 0
/// when request.normalisation is AtZero):
///   - additive sinusoidal: "dot" = PE(p).PE(p+delta) = sum_i cos(delta w_i) (independent of p);
///   - rotary schemes: "score" = the mean over the content vectors x_t of x_t . R(delta theta) x_t with
///     q = k = x_t (no 1/sqrt(d)): with ones content (the default) sum over pairs of 2 af^2 cos(delta theta_i)
///     plus d - r for the unrotated dimensions (d = 128, delta 0: 128), which is also the expectation of the
///     random model; xPos multiplies pair i by zeta_i^(delta/scale_base) (query delta tokens after the key;
///     the centre cancels). And "bound" = RoFormer's relative upper bound (1/(r/2)) sum_{j=1}^{r/2} |S_j|,
///     S_j = sum_{l<j} exp(i delta theta_l) (Su et al. 2021, section 3.4.3 and figure 2), content-free;
///   - additive tables without frequencies (learned): "dot" = E(origin).E(origin+delta) from the rows, in double;
///   - DeBERTa: "bucket_row" = the row of the relative-position tables read at delta (debertaTableRow), no
///     normalisation (InputError for AtZero);
///   - score-bias schemes (ALiBi, T5, Kerple, Sandwich, FIRE): "bias_head_h", the bias of head h between a
///     query and a key delta tokens before it (the later one at origin + |delta|), in nats; these have no
///     normalisation (InputError for AtZero).
/// Throws InputError for a scheme without a decay curve, a sample count out of range, or AtZero on bias curves.
/// Refuses (RefusedError) before computing when the curves' work is over @p limits.maxWork.
/// Operations decayCurves() counts for @p request before it starts (limits.h's units): a few transcendentals per
/// distance and pair, the content samples, and each head's bias hook on distances x 1 pairs.
double decayWork(const DecayRequest& request);

std::vector<DecaySeries> decayCurves(const DecayRequest& request, const Limits& limits = {});

/// Divides every value of @p curve by @p atZero, its value at delta = 0, and says so in its label (what
/// DecayNormalisation::AtZero does to each curve). Throws InputError when @p atZero is 0 or not finite.
void normaliseDecayAtZero(DecaySeries& curve, double atZero);

} // namespace poslab::core
