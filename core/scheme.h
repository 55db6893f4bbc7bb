// SPDX-License-Identifier: MIT
#pragma once
/// @file scheme.h
/// The descriptor of one positional-encoding scheme: identity, the three axes of the taxonomy, citation,
/// parameters, and the functions that compute it. The ordered table of all of them is in
/// encodingregistry.cpp.

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
    int dim = 64;                          ///< model (or head) dimension d
    PositionList positions;                ///< rows of the table
    std::optional<Position> seqLen;        ///< current sequence length (dynamic NTK, LongRoPE, xPos centre)
};

/// How the two members of a rotation pair sit in a vector of dimension r.
enum class PairLayout {
    Interleaved, ///< pairs (2i, 2i+1): GPT-J, Meta's Llama code, RoFormer paper
    HalfSplit,   ///< pairs (i, i + r/2): GPT-NeoX, Hugging Face rotate_half
};

/// The result of a rotary scheme's frequency computation: everything angles, cos, sin and rotate need.
struct RotarySpec {
    int headDim = 0;                  ///< d, the vector length
    int rotaryDim = 0;                ///< r <= d, even; dimensions r..d-1 pass through unrotated
    PairLayout layout = PairLayout::HalfSplit;
    std::vector<double> invFreq;      ///< r/2 angular frequencies in rad/token, after any scaling
    double attentionFactor = 1.0;     ///< multiplies both cos and sin (Hugging Face's attention_scaling)
    /// xPos only (empty otherwise): per-pair decay base zeta_i. The query at position p is scaled by
    /// zeta_i^((p - xposCentre) / xposScaleBase), the key by the inverse (when xposDownscale).
    std::vector<double> xposZeta;
    double xposScaleBase = 512.0;
    double xposCentre = 0.0;
    bool xposDownscale = false;
    /// Extra named scalars reported next to the data (e.g. "effective_base" for dynamic NTK).
    std::vector<std::pair<std::string, double>> scalars;
};

/// Quantities that `poslab compute` can produce.
enum class Quantity { Encoding, Frequencies, Angles, Cos, Sin, Rotate };
std::string_view quantityName(Quantity q);
/// Throws InputError listing the known names.
Quantity parseQuantity(std::string_view name);

/// positions x dim additive encoding (row i = the vector added to the embedding at position i).
using EncodingFn = MatrixF (*)(const ParamSet& params, const TableContext& ctx);
/// Per-pair frequencies and scaling for a head dimension.
using RotaryFn = RotarySpec (*)(const ParamSet& params, const TableContext& ctx);
/// Per-pair angular frequencies (rad/token) of an additive sinusoidal scheme (for the clock view).
using FrequencyFn = std::vector<double> (*)(const ParamSet& params, const TableContext& ctx);
/// Cross-parameter checks that need the dimension (list lengths, rotary dim). Throws InputError.
using ValidateFn = void (*)(const ParamSet& params, const TableContext& ctx);

/// One entry of the registry.
struct SchemeDescriptor {
    std::string id;            ///< short lowercase word: "rope"
    std::string name;          ///< display name: "Rotary position embedding (RoPE)"
    std::string family;        ///< e.g. "rotary", "absolute, fixed"
    Relation relation = Relation::None;
    Application application = Application::Nothing;
    Origin origin = Origin::None;
    std::string citation;      ///< paper
    std::string reference;     ///< reference implementation (repo/file)
    std::string formula;       ///< plain-text formula shown in the GUI and CLI
    std::string summary;       ///< one sentence for the scheme list
    bool needsEvenDim = false; ///< pairs of dimensions are needed
    std::vector<ParamSpec> params;
    EncodingFn encoding = nullptr;
    RotaryFn rotary = nullptr;
    FrequencyFn frequencies = nullptr; ///< additive schemes with per-pair frequencies (sinusoidal)
    ValidateFn validate = nullptr;

    /// The quantities this scheme can produce, in a fixed order.
    std::vector<Quantity> quantities() const;
    bool has(Quantity q) const;
    const ParamSpec* param(std::string_view key) const;
};

} // namespace poslab::core
