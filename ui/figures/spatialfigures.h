// SPDX-License-Identifier: MIT
#pragma once
/// @file spatialfigures.h
/// The numbers of the patch grid view, from core's spatial table for a SpatialSetup: immutable data the
/// view only draws, and the table its data export writes. Qt Core only.

#include "core/compute.h"
#include "ui/state/spatialsetup.h"

#include <QString>
#include <QStringList>

namespace poslab::ui {

/// Similarity of patches over a grid, and the same at the larger grid of the resolution change.
struct PatchGridData {
    QString error;               ///< why nothing can be drawn (not a grid scheme, a refused request), or empty
    std::string scheme;
    bool table = false;          ///< an additive table (cosine of position vectors); else a 2-D rotation (scores)
    core::Grid grid, largeGrid;
    int row = 0, col = 0;        ///< the selected patch on grid
    int largeRow = 0, largeCol = 0; ///< the patch at the same place on largeGrid (core::samePlace)
    /// patches x patches on grid: entry (a, b) the similarity of patch a to patch b. Tables: the cosine of their
    /// position vectors (core::rowCosines over the grid rows, the class-token row left out); rotations: the logit
    /// q'_a . k'_b / sqrt(d) with constant content q = k = (1, ..., 1) (core::spatialScores, bidirectional).
    core::MatrixD similarity;
    /// 1 x largeGrid patches: the selected patch's row of the same measure on largeGrid.
    core::MatrixD largeRowValues;
    double lo = 0, hi = 1;       ///< the range of both (the colour scale), over every finite entry
    /// How largeGrid is reached: "the 14 x 14 table resized (bicubic, antialias) to 24 x 24", "computed at 24 x 24".
    QString resolutionNote;
    QString measure;             ///< "cosine of position vectors" or "score q'.k'/sqrt(d), constant content"
    int patchIndex() const { return row * grid.cols + col; }
};

/// Computes the data of @p s (its grid, largeGrid and selected patch). Never throws: problems go to error.
PatchGridData patchGridData(const SpatialSetup& s);

/// The patch grid view's data export: the patches x patches similarity on the set-up's grid, row a = patch a
/// (row-major i * W + j), with the measure, grid and selected patch as labels. Throws core::InputError.
core::ComputeResult patchGridTable(const SpatialSetup& s, QStringList* notes);

/// The mixed sequence view's numbers: a text + image (+ video) sequence with its M-RoPE ids and scores.
struct SequenceData {
    QString error;               ///< why nothing can be drawn, or empty
    std::string scheme;
    core::TokenSequence sequence;
    std::vector<std::int64_t> firstToken; ///< per segment: its first token (block boundaries)
    /// 3 x L: the temporal, height and width id of every token (compute position_ids; Hugging Face's
    /// modeling_qwen2_vl get_rope_index).
    core::MatrixD ids;
    /// L x L: logits q'_m . k'_n / sqrt(d) with constant content under the causal mask (NaN above the diagonal;
    /// compute scores --content constant).
    core::MatrixD scores;
    std::vector<int> pairAxis;   ///< per rotary pair: 0 t, 1 h, 2 w (mrope_section, chunked or interleaved)
    int token = 0;               ///< the selected token
    double lo = 0, hi = 1;       ///< the range of the visible scores
};

/// Computes the data of @p s. Never throws: problems go to error.
SequenceData sequenceData(const SpatialSetup& s);

/// The mixed sequence view's data export: 3 x L position ids (rows t, h, w), with the sequence and each rotary pair's
/// axis as labels. Throws core::InputError.
core::ComputeResult sequenceTable(const SpatialSetup& s, QStringList* notes);

} // namespace poslab::ui
