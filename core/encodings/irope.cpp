// SPDX-License-Identifier: MIT
#include "core/encodings/irope.h"

#include "core/encodings/rope.h"

#include <cmath>

namespace poslab::core {

bool iropeUsesRope(int layer, int interval) { return (layer + 1) % interval != 0; }

double llama4AttnScale(Position p, double floorScale, double attnScale)
{
    return std::log(std::floor((double(p) + 1.0) / floorScale) + 1.0) * attnScale + 1.0;
}

namespace {

bool ropeLayer(const ParamSet& p) { return iropeUsesRope(int(p.integer("layer")), int(p.integer("nope_layer_interval"))); }

RotarySpec iropeSpec(const ParamSet& p, const TableContext& ctx)
{
    RotarySpec spec;
    spec.headDim = ctx.dim;
    spec.layout = PairLayout::Interleaved;
    // A NoPE layer is a rotary spec with no pairs: every dimension passes through unrotated.
    spec.rotaryDim = ropeLayer(p) ? ctx.dim : 0;
    if (spec.rotaryDim > 0)
        spec.invFreq = ropeBaseFrequencies(p.real("rope_theta"), spec.rotaryDim);
    spec.scalars.push_back({"rope_layer", ropeLayer(p) ? 1.0 : 0.0});
    return spec;
}

void iropeScore(const ParamSet& p, const ScoreInputs& in, ScoreOutputs& out)
{
    out.scalars.push_back({"rope_layer", ropeLayer(p) ? 1.0 : 0.0});
    if (ropeLayer(p) || !p.flag("attn_temperature_tuning"))
        return;
    const double fs = p.real("floor_scale");
    const double as = p.real("attn_scale");
    out.queryScale.resize(in.ctx->queries.size());
    for (std::size_t i = 0; i < in.ctx->queries.size(); ++i) {
        const double s = llama4AttnScale(in.ctx->queries[i], fs, as);
        out.queryScale[i] = s;
        out.logits.row(Eigen::Index(i)) *= float(s); // q scaled => its whole row of logits scaled
    }
}

} // namespace

SchemeDescriptor iropeScheme()
{
    SchemeDescriptor s;
    s.id = "irope";
    s.name = "iRoPE (Llama 4 interleaved RoPE / NoPE)";
    s.family = "mixed";
    s.relation = Relation::Mixed;
    s.application = Application::QueryKeyRotation;
    s.origin = Origin::Fixed;
    s.citation = "Meta 2025, The Llama 4 herd (ai.meta.com/blog/llama-4-multimodal-intelligence); temperature "
                 "tuning after Nakanishi 2025, Scalable-Softmax Is Superior for Attention (arXiv:2501.19399)";
    s.reference = "huggingface/transformers src/transformers/models/llama4/modeling_llama4.py Llama4TextAttention "
                  "(attn_temperature_tuning), configuration_llama4.py (no_rope_layers)";
    s.formula = "layer l: RoPE if (l+1) % k != 0, else NoPE with q_p *= ln(floor((p+1)/floor_scale) + 1) * "
                "attn_scale + 1";
    s.summary = "Three RoPE layers for local order, then one NoPE layer that sees the whole context without "
                "position, its attention sharpened slowly with position so it does not flatten at long range.";
    s.needsEvenDim = true;
    s.params = {
        intParam("layer", 0, 0, 1023, "Layer index l (0-based); layers with (l+1) % nope_layer_interval == 0 are NoPE"),
        intParam("nope_layer_interval", 4, 1, 1024, "Every k-th layer is a NoPE layer (Llama 4: 4)"),
        realParam("rope_theta", 500000.0, 100.0, 1.0e9, "RoPE base on the RoPE layers (Llama 4: 500000)", true),
        boolParam("attn_temperature_tuning", true, "Scale queries on NoPE layers by the position-dependent temperature"),
        realParam("floor_scale", 8192.0, 1.0, 1.0e9, "Temperature steps every floor_scale positions (Llama 4: 8192)",
                  true),
        realParam("attn_scale", 0.1, 0.0, 10.0, "Temperature slope per ln step (Llama 4: 0.1)"),
    };
    s.rotary = iropeSpec;
    s.score = iropeScore;
    return s;
}

} // namespace poslab::core
