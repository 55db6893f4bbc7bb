// SPDX-License-Identifier: MIT
#include "core/encodings/xpos.h"

#include "core/encodings/rope.h"
#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace poslab::core {

RotarySpec xposSpec(const ParamSet& params, const TableContext& ctx)
{
    RotarySpec spec;
    spec.headDim = ctx.dim;
    spec.rotaryDim = ctx.dim;
    spec.layout = params.choice("layout") == "interleaved" ? PairLayout::Interleaved : PairLayout::HalfSplit;
    spec.invFreq = ropeBaseFrequencies(params.real("rope_theta"), ctx.dim);
    const int pairs = ctx.dim / 2;
    spec.xposZeta.resize(std::size_t(pairs));
    for (int i = 0; i < pairs; ++i)
        spec.xposZeta[std::size_t(i)] = (2.0 * i + 0.4 * ctx.dim) / (1.4 * ctx.dim);
    spec.xposScaleBase = params.real("scale_base");
    // torchscale XPOS.forward: min_pos = -(length + offset) // 2 (Python floors), so the row at position t
    // is scaled by zeta^((t + min_pos)/scale_base) = zeta^((t - ceil(L/2))/scale_base), L = length + offset
    // = the largest position + 1. The paper (section 3.2) writes zeta^(n/gamma): centre 0 ("absolute").
    const Position length = effectiveSeqLen(ctx);
    const bool centred = params.choice("centring") == "torchscale";
    spec.xposCentre = centred ? double((length + 1) / 2) : 0.0;
    spec.xposDownscale = params.choice("side") == "key";
    spec.seqLen = centred ? length : 0;
    spec.scalars.push_back({"xpos_centre", spec.xposCentre});
    if (centred)
        spec.scalars.push_back({"seq_len", double(length)});
    return spec;
}

namespace {
std::string formatPower(double log10Value)
{
    return "1e" + std::to_string(int(log10Value));
}

void validateXpos(const ParamSet& params, const TableContext& ctx)
{
    if (ctx.dim < 2 || ctx.dim % 2 != 0)
        throw InputError("xpos needs an even head dimension of at least 2; got --dim " + std::to_string(ctx.dim));
    // The scale zeta_0^(+-e) of the first pair (zeta_0 = 0.4d / 1.4d = 2/7, the smallest) must stay far inside
    // float32 (about 3.4e38): past 1e30 the table and the scores become infinite, which the writers would print
    // as null, the marker of a masked entry. |e| <= max(largest position - c, c) / scale_base, positions >= 0.
    const Position length = effectiveSeqLen(ctx);
    const double centre = params.choice("centring") == "torchscale" ? double((length + 1) / 2) : 0.0;
    const double largest = double(ctx.positions.size() ? ctx.positions.maxValue() : 0);
    const double e = std::max(largest - centre, centre) / params.real("scale_base");
    if (e * std::log(1.4 / 0.4) > std::log(1e30))
        throw InputError("xpos: the scale zeta^((p - c)/scale_base) reaches " + formatPower(e * std::log10(1.4 / 0.4))
                         + " at these positions (largest " + std::to_string(ctx.positions.maxValue())
                         + "), beyond 1e30 in float32; ask for positions within "
                         + std::to_string(Position(std::log(1e30) / std::log(1.4 / 0.4) * params.real("scale_base")))
                         + " of the centre c, or raise scale_base");
}
} // namespace

SchemeDescriptor xposScheme()
{
    SchemeDescriptor s;
    s.id = "xpos";
    s.name = "xPos (extrapolatable RoPE)";
    s.shortName = "xPos";
    s.trainedAs = TrainedAs::Rotation;
    s.family = "rotary";
    s.relation = Relation::Relative;
    s.application = Application::QueryKeyRotation;
    s.origin = Origin::Fixed;
    s.citation = "Sun et al. 2022, A Length-Extrapolatable Transformer, section 3.2";
    s.year = 2022;
    s.reference = "microsoft/torchscale torchscale/component/xpos_relative_position.py";
    s.formula = "q'_m = zeta^((m - c)/scale_base) R(m*theta) q,  k'_n = zeta^(-(n - c)/scale_base) R(n*theta) k,  "
                "zeta_i = (2i + 0.4d) / (1.4d);  c = ceil(L/2) for L = largest position + 1 (torchscale) or 0 "
                "(absolute, the paper's zeta^(n/gamma)); c cancels in q'_m . k'_n";
    s.summary = "RoPE whose pairs also shrink with distance: fast pairs decay quickly, slow pairs barely, so "
                "far tokens cannot resonate by accident.";
    s.needsEvenDim = true;
    s.params = {
        realParam("rope_theta", 10000.0, 100.0, 1.0e7, "Base of the rotation frequencies", true),
        realParam("scale_base", 512.0, 1.0, 1.0e6, "Decay length scale: the exponent is position / scale_base", true),
        choiceParam("layout", "interleaved", {"interleaved", "half_split"},
                    "Which dimensions pair up; torchscale rotates interleaved pairs"),
        choiceParam("side", "query", {"query", "key"},
                    "query: scaled by zeta^((p - c)/scale_base); key: by its inverse"),
        choiceParam("centring", "torchscale", {"torchscale", "absolute"},
                    "Centre c of the scale exponent: torchscale centres the positions (c = ceil(L/2), L = largest "
                    "position + 1 or --seq-len), so one position's scale depends on the others; absolute: c = 0, "
                    "the paper's zeta^(n/gamma). Scores q'.k' are the same either way"),
    };
    s.rotary = xposSpec;
    s.validate = validateXpos;
    return s;
}

} // namespace poslab::core
