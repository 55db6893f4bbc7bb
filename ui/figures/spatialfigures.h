// SPDX-License-Identifier: MIT
#pragma once
/// @file spatialfigures.h
/// The patch grid and mixed sequence figures (figure.h's pattern): from the snapshot's spatial set-up, core's
/// spatial table gives immutable data the views only draw, and the tables their data exports write.

#include "core/compute.h"
#include "ui/figures/figure.h"
#include "ui/state/spatialsetup.h"

#include <QString>
#include <QStringList>

namespace poslab::ui {

/// Similarity of patches over a grid, and the same at the larger grid of the resolution change.
struct PatchGridData {
    QString error;        ///< why nothing can be drawn (not a grid scheme, a refused request), or empty
    bool refused = false; ///< error is a request over a limit (core::RefusedError), not bad input
    std::string scheme;
    int dim = 0;        ///< the vectors' dimension d
    bool table = false; ///< an additive table (cosine of position vectors); else a 2-D rotation (scores)
    /// A learned table (ViT's), which reaches largeGrid resized; a formula or a rotation is computed there.
    bool resized = false;
    core::Grid grid, largeGrid;
    int row = 0, col = 0;           ///< the selected patch on grid
    int largeRow = 0, largeCol = 0; ///< the patch at the same place on largeGrid (core::samePlace)
    /// patches x patches on grid: entry (a, b) the similarity of patch a to patch b. Tables: the cosine of their
    /// position vectors (core::rowCosines over the grid rows, the class-token row left out); rotations: the logit
    /// q'_a . k'_b / sqrt(d) with constant content q = k = (1, ..., 1) (core::spatialScores, bidirectional).
    core::MatrixD similarity;
    /// 1 x largeGrid patches: the selected patch's row of the same measure on largeGrid.
    core::MatrixD largeRowValues;
    double lo = 0, hi = 1; ///< the range of both (the colour scale), over every finite entry
    /// How largeGrid is reached: "the 14 x 14 table resized (bicubic, antialias) to 24 x 24", "computed at 24 x 24".
    QString resolutionNote;
    QString measure; ///< "cosine of position vectors" or "score q'.k'/sqrt(d), constant content"
    int patchIndex() const { return row * grid.cols + col; }
};

/// The patch grid figure (figure.h's pattern).
struct PatchGridFigure {
    /// The spatial set-up (scheme, parameters, grids, dimension, class token, selected patch): the 1-D set-up,
    /// the cursor and the view options move nothing here.
    struct Inputs {
        SpatialSetup spatial;
        bool operator==(const Inputs&) const = default;
    };
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    using Data = PatchGridData;
    /// The similarity on the grid and at the larger grid, with the selected patch. Never throws: problems go to
    /// PatchGridData::error.
    static PatchGridData compute(const Inputs& inputs);
    /// The patches x patches similarity on the set-up's grid, row a = patch a (row-major i * W + j), with the
    /// measure, grid and selected patch as labels. Throws core::InputError.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

/// The mixed sequence view's numbers: a text + image (+ video) sequence with its M-RoPE ids and scores.
struct SequenceData {
    QString error;        ///< why nothing can be drawn, or empty
    bool refused = false; ///< error is a request over a limit (core::RefusedError), not bad input
    std::string scheme;
    int dim = 0; ///< the vectors' dimension d
    core::TokenSequence sequence;
    std::vector<std::int64_t> firstToken; ///< per segment: its first token (block boundaries)
    /// 3 x L: the temporal, height and width id of every token (compute position_ids; Hugging Face's
    /// modeling_qwen2_vl get_rope_index).
    core::MatrixD ids;
    /// L x L: logits q'_m . k'_n / sqrt(d) with constant content under the causal mask (NaN above the diagonal;
    /// compute scores --content constant).
    core::MatrixD scores;
    std::vector<int> pairAxis; ///< per rotary pair: 0 t, 1 h, 2 w (mrope_section, chunked or interleaved)
    int token = 0;             ///< the selected token
    double lo = 0, hi = 1;     ///< the range of the visible scores
};

/// The spatial scheme of @p s as a figure's title names it: its short name and the parameters that differ from
/// their defaults (figuretitle.h's variantLabel: "M-RoPE \u00b7 variant qwen2_5_vl"); the short name alone when the
/// set-up's parameters are refused, the id when the scheme is unknown.
QString spatialSchemeLabel(const SpatialSetup& s);
/// One line for an export's description: "scheme mrope, dimension 128, sequence text:4,image:1x3x4,text:3,
/// variant=qwen2_5_vl" (grid schemes: "grid 14x14, large grid 24x24"; "class token" when cls is on).
QString spatialSummary(const SpatialSetup& s);

/// The mixed sequence figure (figure.h's pattern).
struct SequenceFigure {
    /// The spatial set-up (scheme, parameters, sequence, dimension, selected token).
    struct Inputs {
        SpatialSetup spatial;
        bool operator==(const Inputs&) const = default;
    };
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    using Data = SequenceData;
    /// The ids, scores and pair axes of the sequence. Never throws: problems go to SequenceData::error.
    static SequenceData compute(const Inputs& inputs);
    /// 3 x L position ids (rows t, h, w), with the sequence and each rotary pair's axis as labels. Throws
    /// core::InputError.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

} // namespace poslab::ui
