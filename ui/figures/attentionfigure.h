// SPDX-License-Identifier: MIT
#pragma once
/// @file attentionfigure.h
/// The attention figure: one head's scores, queries (rows) x keys (columns), logits or softmax probabilities or one
/// named part of the logits, from core's attention engine (core/attention.h), or the real attention probabilities
/// of a model trained in the window (core::train::trainedAttention); and its data export, every head's scores as
/// `poslab compute scores` writes them. The scores request is built in one place (request()): the view's compute
/// and the export both start from it.

#include "ui/figures/figure.h"
#include "ui/render/colormap.h"

#include "core/attention.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace poslab::ui {

/// One head's attention scores: what the attention view draws.
struct AttentionOutput {
    quint64 serial = 0; ///< the scheduler's serial (Computation), 0 when computed on the calling thread
    Setup setup;
    int head = 0; ///< which head (0-based)
    int heads = 1;
    bool softmax = true; ///< matrix holds probabilities (else logits)
    bool causal = true;
    AttentionContent content = AttentionContent::Random;
    QString error;                                       ///< non-empty when the engine refused
    core::MatrixF matrix;                                ///< Lq x Lk, masked entries NaN
    QStringList terms;                                   ///< the named parts the scheme has (empty for most schemes)
    QString term;                                        ///< the part shown in matrix (empty: the whole score)
    QString termLabel;                                   ///< its formula, for the title
    std::vector<std::string> tokens;                     ///< Sentence: the word at each position
    std::vector<std::pair<std::string, double>> scalars; ///< per head (ALiBi "slope") and per request
    double lo = 0.0, hi = 1.0; ///< finite value range (probabilities are coloured on 0..1 whatever it is)
    double milliseconds = 0.0;
    /// The trained window T the view marks on both axes: the trained model's longest sequence (trainedWindow), else
    /// Computation::trainedLength of the set-up; nullopt when none is known.
    std::optional<core::Position> trainedLength;
    // --- source "trained" (AttentionFigure::trainedAttention): a model trained in the window
    QString trained;                  ///< "rope, seed 1 · layer 1 · copy length 30": non-empty for a trained model
    QString trainedContent;           ///< what the model reads, for the footer
    std::optional<int> trainedWindow; ///< input tokens of its longest trained sequence, marked like a trained T
};

/// A − B of two attention outputs for compare mode's difference: the matrix and its symmetric range, or why there
/// is none (the problem, in words).
struct AttentionDifference {
    std::optional<core::MatrixF> matrix; ///< A − B entry by entry; NaN where either is masked
    ValueRange range;                    ///< symmetric about 0 (Computation::symmetricRange)
    QString problem;                     ///< non-empty when B has no scores, or another size or quantity
};

/// The attention figure (figure.h's pattern).
struct AttentionFigure {
    /// The runs a trained source reads; equal when they hold the same models (TrainedRuns::models), so training
    /// progress alone recomputes nothing.
    struct TrainedModels {
        std::shared_ptr<const TrainedRuns> runs;
        quint64 models = 0;
        bool operator==(const TrainedModels& o) const { return models == o.models; }
    };
    /// The set-up and the attention view's options (every option flagged attentionInput, and trained_length for
    /// the T mark); the trained runs only for the source "trained".
    struct Inputs {
        Setup setup;
        bool softmax = false;
        bool causal = true;
        int head = 0;
        int heads = 1;
        AttentionContent content = AttentionContent::Constant;
        QString sentence;
        int attentionSize = 1;
        QString term;
        AttentionSource source = AttentionSource::Scheme;
        int trainedRun = 0;
        int trainedLayer = 0;
        int trainedTestLength = 0;
        int trainedLength = 0; ///< the view option trained_length (Computation::trainedLength)
        TrainedModels trained; ///< source "trained" only; empty for the scheme's scores
        CheckedSetup checked;  ///< the state's token of @c setup: the scores request carries it
        bool operator==(const Inputs&) const = default;
    };
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    using Data = AttentionOutput;
    /// One head (inputs.head of inputs.heads) of the scores of request(), or of the trained model (source
    /// "trained"); an error message instead of a matrix when core refuses.
    static AttentionOutput compute(const Inputs& inputs);
    /// Every head's scores (heads x queries x keys), or the named part inputs.term of the logits where the scheme
    /// has it, as `poslab compute scores` writes them. Throws core::InputError or core::RefusedError.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);

    /// The scores request: figureRequest(setup) with the quantity Scores, every head, the softmax and mask chosen,
    /// the content (a sentence's words, one position each) and queries = keys = 0 .. q-1, q = min(attention size,
    /// positions) or the sentence's word count. Throws core::InputError (an unknown scheme, an empty sentence).
    static core::ComputeRequest request(const Inputs& inputs);
    /// The source "trained": the real attention probabilities of run inputs.trainedRun of the window's runs,
    /// layer inputs.trainedLayer, head inputs.head, on the evaluation sequence of task length
    /// inputs.trainedTestLength (0: 3 x L_train), from core::train::trainedAttention. An error when there is no
    /// such run or it holds no model.
    static AttentionOutput trainedAttention(const TrainedRuns* window, const Inputs& inputs);
    /// A − B entry by entry where both hold scores of one size and one kind (logits, probabilities or one term).
    static AttentionDifference difference(const AttentionOutput& a, const AttentionOutput* b);
};

} // namespace poslab::ui
