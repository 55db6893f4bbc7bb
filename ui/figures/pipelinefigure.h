// SPDX-License-Identifier: MIT
#pragma once
/// @file pipelinefigure.h
/// The pipeline figure: the stages of the attention pipeline for the state's sentence (core/pipeline.h), the
/// rotary vs additive comparison at the followed row, and in the NoPE mode the permutation and causal-mask
/// demonstrations, which the pipeline view draws; its data export is written from the same data.

#include "ui/figures/figure.h"
#include "ui/render/colormap.h"

#include "core/pipeline.h"

#include <optional>
#include <vector>

namespace poslab::ui {

/// The pipeline view's numbers, every one from core (core/pipeline.h): the stages of the attention pipeline for
/// the state's sentence, the rotary vs additive comparison at the followed row, and in the NoPE mode the
/// permutation and causal-mask demonstrations.
struct PipelineData {
    QString error;                                  ///< non-empty when core refused; then nothing else is set
    core::PipelineRequest request;                  ///< what was computed (the data export writes it with the stages)
    core::PipelineResult pipeline;                  ///< the stages, ending in `compute scores --softmax`'s weights
    std::vector<ValueRange> ranges;                 ///< per stage, its colour range: [0, 1] for the mask and weights,
                                                    ///< else [-a, a] with a the largest |value| (diverging map)
    int followed = 0;                               ///< the query row followed through every stage
    QString followNote;                             ///< non-empty when the cursor lies past the sentence
    std::optional<core::PositionVectorDemo> vector; ///< the same vector added to and rotated, at the followed row
    QString vectorError;                            ///< why there is no comparison (an odd dimension)
    std::optional<core::NopeDemo> nope;             ///< the NoPE demonstrations (PipelineMode::Nope only)
    ValueRange nopeRange;                           ///< colour range of both NoPE output matrices, [-a, a]
    /// The data export: the stages (pipelineTable), or in the NoPE mode the causal-mask table (nopeTable).
    /// Throws core::RefusedError when the data holds an error.
    core::ComputeResult table(const Setup& setup, const ViewOptions& options) const;
};

/// The pipeline figure (figure.h's pattern).
struct PipelineFigure {
    /// The set-up, the attention view's sentence, mask and heads, the pipeline options and the cursor's row.
    struct Inputs {
        Setup setup;
        int heads = 1;
        int head = 0;
        bool causal = true;
        QString sentence;
        PipelineMode mode = PipelineMode::Stages;
        int nopePositions = 32;
        int pair = 0;
        int cursor = 0;
        bool operator==(const Inputs&) const = default;
    };
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    using Data = PipelineData;
    /// The stages for the sentence (or the NoPE demonstrations), the cursor's query row followed (the last word
    /// when the cursor lies past the sentence); an error message when core refuses.
    static PipelineData compute(const Inputs& inputs);
    /// The pipeline's stages (stage, row, column, value), whose last stage is `compute scores --softmax` for the
    /// state's sentence, mask, heads and head; in the NoPE mode the causal-mask table: PipelineData::table of
    /// compute()'s data. Throws core::RefusedError.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

} // namespace poslab::ui
