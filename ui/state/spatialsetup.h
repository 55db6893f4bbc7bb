// SPDX-License-Identifier: MIT
#pragma once
/// @file spatialsetup.h
/// The spatial set-up of a window: a scheme of core's spatial table (spatial.h) with its patch grid or
/// token sequence, kept apart from the 1-D set-up (Setup) as core keeps spatialSchemes() apart from schemes().
/// The patch grid and mixed sequence views draw it; sessions and share strings hold it under the key "spatial".

#include "core/compute.h"
#include "core/spatial.h"

#include <QJsonObject>
#include <QString>

#include <map>
#include <optional>
#include <string>

namespace poslab::ui {

/// What the spatial views compute from. Plain values; validity is spatialProblem()'s.
struct SpatialSetup {
    std::string scheme = "sincos_2d"; ///< an id of core::spatialSchemes()
    core::Grid grid{14, 14};          ///< grid schemes: the patch grid (ViT-B/16 at 224 px: 14 x 14)
    /// Grid schemes: the larger grid of the resolution change (ViT-B/16 at 384 px: 24 x 24).
    core::Grid largeGrid{24, 24};
    bool cls = false;                          ///< tables with a class token: its row first (--cls)
    int dim = 64;                              ///< model dimension (tables) or head dimension (rotary schemes)
    std::map<std::string, std::string> params; ///< the parameters set, as `--set key=value` text
    /// Sequence schemes: the runs (--sequence), in the language model's grid units.
    core::TokenSequence sequence = core::parseSequence("text:4,image:1x3x4,text:3");
    /// The selected patch (row-major index i * W + j into grid) or, for a sequence scheme, the selected token.
    int patch = 7 * 14 + 4;
    bool operator==(const SpatialSetup&) const = default;
};

/// The largest grid (patches) the spatial views draw: the similarity of every patch to every other is
/// patches x patches numbers (a 32 x 32 grid: about a million).
inline constexpr int maxViewPatches = 32 * 32;
/// The longest sequence the mixed sequence view draws (its score matrix is tokens x tokens).
inline constexpr int maxViewTokens = 1024;

/// Empty when @p s is valid, else one sentence naming the problem: an unknown scheme, a parameter core refuses
/// (core::resolveSpatialParams, the resolver of `poslab compute`), a dimension the scheme cannot take, a grid or
/// sequence over the views' limits, or a selected patch outside the grid.
QString spatialProblem(const SpatialSetup& s);

/// The request of `poslab compute QUANTITY` for @p s on @p grid (grid schemes) or its sequence.
core::ComputeRequest spatialRequest(const SpatialSetup& s, core::Quantity quantity, const core::Grid& grid);
inline core::ComputeRequest spatialRequest(const SpatialSetup& s, core::Quantity quantity)
{
    return spatialRequest(s, quantity, s.grid);
}

/// {"scheme", "grid", "large_grid", "cls", "dim", "params", "sequence", "patch"}; @p onlyChanged: only the keys
/// that differ from a new SpatialSetup (share strings), an empty object when none does.
QJsonObject spatialToJson(const SpatialSetup& s, bool onlyChanged = false);
/// Reads spatialToJson()'s form (keys left out keep a new SpatialSetup's values) into @p out. Returns empty or one
/// message "spatial.KEY: problem"; @p out is left unchanged on error.
QString spatialFromJson(const QJsonValue& json, SpatialSetup* out);

/// The spatial set-up a model's state (ui/setup/presets.h: a preset's or a config.json's) gives when its scheme is a
/// grid or sequence scheme (ViT, MAE, rope-vit, Pixtral, Qwen2-VL ...): @p base with the state's scheme, its
/// parameters (and no others), its dimension and, for a grid scheme, its grid (the larger grid of the resolution
/// change is kept); the class token as the state's class_token says; the selected patch kept where the new grid or
/// sequence has it, else its middle. nullopt for a 1-D scheme. Throws core::InputError naming the model and
/// spatialProblem()'s message when the result is not drawable.
std::optional<SpatialSetup> spatialSetupOf(const QJsonObject& state, const SpatialSetup& base);

/// Configuration B's spatial set-up (compare mode): A's set-up @p a with B's own keys @p b (spatialToJson()'s
/// form) on top. A new scheme of B starts from no parameters and keeps the class token only where the scheme has
/// one; a "params" key of B replaces A's parameters. B shares A's selection as it shares the cursor: the patch at
/// the same place of B's grid (core::samePlace) when both draw a grid, else A's token or patch index while B has
/// it, else B's last. Returns empty or one message "compare.state.spatial: ..."; @p out is left unchanged on error.
QString spatialOnTop(const SpatialSetup& a, const QJsonValue& b, SpatialSetup* out);
/// The keys of @p b that differ from @p a, in spatialToJson()'s form, the selection left out (B shares A's);
/// spatialOnTop(a, spatialDifference(a, b)) gives @p b back up to the selection.
QJsonObject spatialDifference(const SpatialSetup& a, const SpatialSetup& b);

} // namespace poslab::ui
