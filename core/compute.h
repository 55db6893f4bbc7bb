// SPDX-License-Identifier: MIT
#pragma once
/// @file compute.h
/// The one compute service behind `poslab compute`, the GUI and the export path: a request names a
/// quantity, a scheme and its parameters; the result is a flat row-major array with its shape.

#include "core/attention.h"
#include "core/encodingregistry.h"
#include "core/limits.h"
#include "core/precision.h"
#include "core/rotary.h"
#include "core/scheme.h"
#include "core/spatial.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace poslab::core {

struct ComputeRequest {
    Quantity quantity = Quantity::Encoding;
    std::string scheme;
    std::vector<std::pair<std::string, std::string>> overrides; ///< (key, text) from --set, read once (parseSettings)
    /// (key, value) as values: the window's figures set these, never text; applied after @c overrides.
    std::vector<std::pair<std::string, ParamValue>> settings;
    TableContext context; ///< dim, positions, seqLen
    /// The set-up as the window validated it once (WorkbenchState::checkedParams()), or null (the CLI: every request
    /// validated). Where it covers the request (the parameters resolved from @c overrides and @c settings are its
    /// own, for this scheme and dimension) core checks only the request's context (checkContext) and takes the
    /// rotary spec from it for the token's sequence length; the result is the same, a refusal the same message.
    std::shared_ptr<const CheckedParams> checked;
    std::vector<double> vector; ///< for Quantity::Rotate
    /// Quantity::Angles: p * omega unreduced (default, as torch.outer(t, inv_freq)) or reduced to [0, 2*pi).
    AngleForm angles = AngleForm::Exact;
    // Attention quantities (bias, buckets, scores, decay). context.positions are the queries (for decay:
    // the distances delta = query - key); keys default to the queries.
    int heads = 1;                    ///< H, 1 to maxHeads
    std::optional<PositionList> keys; ///< key positions (columns)
    MaskKind mask = MaskKind::Causal;
    ContentSpec content; ///< random (seed 0) unless set; decay: see below
    /// Decay: the content model is @c content (the CLI passes ones, ContentKind::Constant, unless --content is
    /// given), averaged over @c samples vectors when random; each curve divided by its value at distance 0
    /// when @c normalisation is AtZero. See decayCurves().
    int samples = 16;
    /// Decay: the earlier of the two positions (learned tables: E(origin) . E(origin + delta); FIRE's bias).
    Position origin = 0;
    DecayNormalisation normalisation = DecayNormalisation::None;
    bool softmax = false; ///< scores: probabilities instead of logits
    bool drope = false;   ///< DroPE: skip the rotation of rotary schemes
    /// scores: one named term instead of the total (Transformer-XL's four terms, DeBERTa's c2p and p2c,
    /// CoPE's gates and positions, ...); empty for the total. An unknown name lists the scheme's terms.
    std::string term;
    /// Extension: the trained window T for schemes whose parameters name none (default, linear, ntk, xPos); the
    /// inference length L is effectiveSeqLen(context). See extension.h.
    std::optional<Position> trainedLength;
    /// Precision: the format whose rounding is emulated (--dtype); bfloat16, the dtype of today's checkpoints,
    /// when not given.
    std::optional<FloatFormat> dtype;
    /// Grid schemes (spatial.h): the patch grid (--grid HxW); sequence schemes: the runs (--sequence). Each
    /// is refused for a scheme that takes the other, or a 1-D scheme.
    std::optional<Grid> grid;
    std::optional<TokenSequence> sequence;
    bool cls = false; ///< --cls: tables with a class token put its row first
    bool maskGiven
        = false; ///< --mask was given (spatial scores default to bidirectional for grids, causal for sequences)
};

struct ComputeResult {
    std::string quantity;
    std::string scheme;
    ParamSet params;                ///< every parameter, defaults resolved
    std::vector<std::size_t> shape; ///< e.g. {positions, dim}
    std::vector<double> data;       ///< flat, row-major
    bool float32 = false;           ///< computed in float32 (writers print 9 significant digits, npy <f4)
    std::vector<std::pair<std::string, double>> scalars;     ///< e.g. attention_factor
    std::vector<std::pair<std::string, std::string>> labels; ///< text fields, e.g. the term and its formula
    std::vector<std::string> axes;                           ///< axis names, e.g. {"position", "dimension"}
    std::vector<std::string> columns; ///< names along the last axis when they are not numbers (decay curves)
    /// One line per column saying what it is (formula, content model, normalisation); JSON "column_labels",
    /// and the CSV header row when present.
    std::vector<std::string> columnLabels;
    /// Accepted-but-unusual inputs (schemeWarnings()): JSON "warnings"; the CLI also prints each on stderr.
    std::vector<std::string> warnings;
};

/// The parameters a request of @p scheme resolves to: its defaults, then its text overrides read once, then its
/// settings (resolveParams: one check per key, the choices followed, the set validated for request.context).
ParamSet requestParams(const SchemeDescriptor& scheme, const ComputeRequest& request);

/// Runs a request. Throws InputError (bad input) or RefusedError (over the cap).
ComputeResult compute(const ComputeRequest& request, const Limits& limits = {});

/// compute() for a scheme of spatialSchemes(): encoding ((H*W [+1]) x D), position_ids (3 x L), angles, cos and
/// sin (tokens x d/2, one column per rotary pair, "column_labels" naming each pair's axis), rotate (tokens x d)
/// and scores (L x L, one head). Checks the sizes against @p limits before anything is allocated.
ComputeResult computeSpatial(const ComputeRequest& request, const SpatialSchemeDescriptor& scheme,
                             const Limits& limits = {});

} // namespace poslab::core
