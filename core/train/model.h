// SPDX-License-Identifier: MIT
#pragma once
/// @file model.h
/// The lab's tiny decoder-only transformer: token embedding, the scheme's position part, L pre-LayerNorm blocks
/// (causal multi-head attention, MLP width 4 d with GELU or ReLU), a final LayerNorm and the output projection
/// (tied to the embedding or its own). All parameters live in one flat vector (llm.c's layout), the position
/// part's trainable ones too (learned table, T5 bucket biases, Kerple r1/r2 per head, FIRE's MLP, CoPE's position
/// embeddings and Shaw's relative key table per layer, Transformer-XL's u, v and W_R), so AdamW and the gradient tests see them like any other weight.
///
/// The position part is computed by core's own scheme functions, the ones the views draw:
///   sinusoidal: the scheme's encoding() table;  learned: learnedBaseTable() as the initial table (rows =
///   the longest trained sequence; a longer one has no rows, positionRowsFor() says so);  rope, xpos: rotarySpecs()
///   and rotaryCos()/rotarySin() per head, pairs from pairDims();  alibi, sandwich: the scheme's bias();
///   t5: the scheme's buckets() (t5Bucket) gathering trained per-head scalars;  kerple: kerpleBias() with trained
///   r1, r2 per head;  fire: fireNormalisedDistance() into a trained MLP 1 -> width -> H;  cope: copeSweep() (the
///   function behind copeBias()) gives each head's gates, positions and interpolated logits from its own q, k and
///   a trained table e per layer (npos_max x head dim, shared by the heads, zero at the start: facebookresearch/RAM
///   ContextPosSelfAttn); ops.h copeForward/copeBackward;  shaw: the scheme's buckets() (clip(j - i, -k, k) + k)
///   gathering q_i . a^K[index] / sqrt(d) from a trained table per layer ((2k + 1) x head dim, shared by the heads;
///   the key term of Shaw et al. eq. 4, what the views draw; the value term a^V of eq. 3 is not part of it);
///   transformer_xl: relativeSinusoid() (the views' R, here d_model wide as in kimiyoung/transformer-xl) through a
///   trained W_R per layer, with trained u, v per head shared by the layers; ops.h txlForward/txlBackward.
/// The factor on q.k is the scheme's own (logitScaleOf, the views' factor): t5 multiplies without 1/sqrt(d) by
/// default (logit_scale none, as huggingface/transformers T5Attention.forward), every other trainable scheme
/// divides by sqrt(head dim).
/// Not available for training: deberta, irope (trainableSchemes() lists the rest).

#include "core/encodingregistry.h"
#include "core/scheme.h"
#include "core/train/ops.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace poslab::core::train {

struct ModelConfig {
    int layers = 2;
    int width = 64;
    int heads = 4;
    int vocab = 12;      ///< token ids 0..vocab-1 (the task's symbols plus SEP, PLUS, EQ, PAD)
    bool gelu = true;    ///< else ReLU
    bool tied = false;   ///< output projection = embedding transposed
    int learnedRows = 0; ///< learned scheme only: table rows (the longest trained sequence)
    /// Trained position weights of each layer (cope: npos_max x head dim, shaw: (2k + 1) x head dim,
    /// transformer_xl: W_R, width x width), for bytesFor()
    double positionWeights = 0;
    std::uint64_t seed = 1;
};

/// Scheme ids the trainer accepts, in the registry's order.
std::vector<std::string> trainableSchemes();
/// Throws InputError when @p id cannot be trained (naming the ones that can).
void checkTrainable(const std::string& id);

/// One batch of n sequences padded on the right to T input tokens (a causal model never lets the padding reach
/// an earlier token). tokens, targets, weights: n*T, row s*T + t. Loss = sum(weight * CE) / normaliser.
struct Batch {
    int n = 0;
    int T = 0;
    std::vector<int> tokens, targets;
    std::vector<float> weights;
    std::vector<int> lengths; ///< input tokens of each sequence (<= T; the rest is padding); empty: all T
    double normaliser = 1.0;
};

/// Offsets of the parameter blocks in the flat vector.
struct ParamLayout {
    struct Block {
        std::string name;
        std::size_t offset = 0, size = 0;
        bool decay = true; ///< AdamW weight decay applies
    };
    std::vector<Block> blocks;
    std::size_t total = 0;
    const Block& find(const std::string& name) const;
};

template <typename T> class Network {
public:
    /// Validates sizes (throws InputError) and lays out the parameters; does not draw them.
    Network(const ModelConfig& config, const SchemeDescriptor& scheme, const ParamSet& params);
    ~Network();
    Network(const Network&) = delete;
    Network& operator=(const Network&) = delete;

    const ModelConfig& config() const { return m_config; }
    const ParamLayout& layout() const { return m_layout; }
    std::vector<T>& params() { return m_params; }
    const std::vector<T>& params() const { return m_params; }
    /// Draws every parameter from config.seed (GPT-2's N(0, 0.02), residual projections 0.02/sqrt(2 layers),
    /// LayerNorm 1 and 0; the position part as documented in its block).
    void initialise();
    /// Applies the constraints of trained position parameters after an update (Kerple: r1, r2 >= 0.01, the
    /// reference's clamp; power r2 <= 2).
    void constrain();

    /// "" when sequences of @p T input tokens can be processed; else why not ("no position rows past 21").
    std::string positionRowsFor(int length) const;

    /// Loss of the batch; with @p grad (size = layout().total, overwritten) its gradient. Chunks of 16 sequences
    /// are spread over @p threads threads and summed in chunk order, so the numbers do not depend on threads.
    /// With @p predictions (n*T), the argmax token at each position.
    double run(const Batch& batch, std::vector<T>* grad, int threads, std::vector<int>* predictions = nullptr);

    /// Attention probabilities of layer @p layer for sequence 0 of @p batch: heads x (T x T) (for figures).
    std::vector<Mat<T>> attention(const Batch& batch, int layer);

    /// Bytes a batch of n x T needs (activations of all chunks, gradients), for the memory cap.
    static double bytesFor(const ModelConfig& c, int n, int length, int threads);

    /// Operations (limits.h's units) of run() on a batch of n sequences of T tokens, with the backward pass when
    /// @p backward, without the position part's own tables (trainWork() adds those). Per sequence and layer:
    /// 12 d^2 T multiply-adds in the projections and the MLP, 2 T^2 d in q.k and p.v, 4 d T GELUs and H T^2
    /// exponentials; the output projection V d T; the backward pass twice the forward. A multiply-add of these
    /// blocked matrix products counts 1/8 and a GELU or exponential 10 (they run vectorised): the default step
    /// (64 x 20 tokens, width 64, 2 layers) is then 4.7e7, and measured 6.1 to 8.6 ms (poslab bench
    /// train_step_ms), about 0.15 ns per operation as elsewhere.
    static double workFor(const ModelConfig& c, int n, int length, bool backward);

    struct Impl;

private:
    ModelConfig m_config;
    ParamLayout m_layout;
    std::vector<T> m_params;
    std::unique_ptr<Impl> m_impl;
};

extern template class Network<float>;
extern template class Network<double>;

} // namespace poslab::core::train
