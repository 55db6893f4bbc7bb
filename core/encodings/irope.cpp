// SPDX-License-Identifier: MIT
#include "core/encodings/irope.h"

#include "core/encodings/rope.h"
#include "core/numbertext.h"

#include <algorithm>
#include <cmath>

namespace poslab::core {

bool iropeUsesRope(int layer, int interval)
{
    return (layer + 1) % interval != 0;
}

double llama4AttnScale(Position p, double floorScale, double attnScale)
{
    return std::log(std::floor((double(p) + 1.0) / floorScale) + 1.0) * attnScale + 1.0;
}

Position llama4FirstTemperedPosition(double floorScale)
{
    return std::max<Position>(0, Position(std::ceil(floorScale)) - 1);
}

namespace {

bool ropeLayer(const ParamSet& p)
{
    return iropeUsesRope(int(p.integer("layer")), int(p.integer("nope_layer_interval")));
}

// The RoPE layers' parameters as the rope scheme's: Llama 4 rotates interleaved pairs (complex freqs_cis) and
// scales with Hugging Face's rope_type llama3, so the rope code computes them (no second copy of the maths).
/// The rope scheme's descriptor, built once from rope.cpp (not looked up in the registry, which lists iRoPE).
const SchemeDescriptor& ropeDescriptor()
{
    static const SchemeDescriptor rope = ropeScheme();
    return rope;
}

ParamSet ropeParams(const ParamSet& p)
{
    ParamSet r = defaultParams(ropeDescriptor());
    r.set("layout", ParamValue::word("interleaved"));
    for (const char* key : {"rope_theta", "rope_type"})
        r.set(key, p.value(key));
    if (p.choice("rope_type") == "llama3")
        for (const char* key : {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"})
            r.set(key, p.value(key));
    return r;
}

RotarySpec iropeSpec(const ParamSet& p, const TableContext& ctx)
{
    RotarySpec spec;
    if (ropeLayer(p)) {
        spec = ropeSpec(ropeParams(p), ctx);
    } else {
        // A NoPE layer is a rotary spec with no pairs: every dimension passes through unrotated.
        spec.headDim = ctx.dim;
        spec.layout = PairLayout::Interleaved;
        spec.rotaryDim = 0;
    }
    spec.scalars.push_back({"rope_layer", ropeLayer(p) ? 1.0 : 0.0});
    return spec;
}

void validateIrope(const ParamSet& p, const TableContext& ctx)
{
    ropeDescriptor().validate(ropeParams(p), ctx);
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

// A NoPE layer rotates nothing: what applies there instead is the query temperature (or nothing but the mask).
UnrotatedNote iropeUnrotated(const ParamSet& p, Position cursor)
{
    if (ropeLayer(p))
        return {};
    const int layer = int(p.integer("layer"));
    const int k = int(p.integer("nope_layer_interval"));
    const bool tuned = p.flag("attn_temperature_tuning");
    const double s = llama4AttnScale(cursor, p.real("floor_scale"), p.real("attn_scale"));
    std::string applies = "Temperature tuning is off: only the causal mask carries order here.";
    if (tuned)
        applies = "What applies: the query temperature, s = " + formatSignificant(s, 6)
            + " at p = " + formatSignificant(double(cursor), 7) + " (above 1 from p = "
            + formatSignificant(double(llama4FirstTemperedPosition(p.real("floor_scale"))), 7) + ").";
    // Up to three RoPE layers among the first min(k, 8), to pick from.
    std::string pick;
    int picked = 0;
    for (int l = 0; l < std::min(k, 8) && picked < 3; ++l)
        if (iropeUsesRope(l, k)) {
            pick += (pick.empty() ? "" : ", ") + std::to_string(l);
            ++picked;
        }
    UnrotatedNote note;
    note.reason = "Layer " + std::to_string(layer) + " is a NoPE layer ((l + 1) mod " + std::to_string(k)
        + " = 0): this layer has no rotation. " + applies + " Pick a RoPE layer ("
        + (pick.empty() ? std::string("(none: every layer is NoPE)") : pick)
        + ") for rotations, or see the attention view.";
    note.summary = "layer " + std::to_string(layer) + ": NoPE, no rotation";
    if (tuned)
        note.summary += " \u00b7 query temperature s(" + std::to_string(cursor) + ") = " + formatSignificant(s, 6);
    return note;
}

} // namespace

SchemeDescriptor iropeScheme()
{
    SchemeDescriptor s;
    s.id = "irope";
    s.name = "iRoPE (Llama 4 interleaved RoPE / NoPE)";
    s.shortName = "iRoPE";
    s.family = "mixed";
    s.relation = Relation::Mixed;
    s.application = Application::QueryKeyRotation;
    s.origin = Origin::Fixed;
    s.citation = "Meta 2025, The Llama 4 herd (ai.meta.com/blog/llama-4-multimodal-intelligence); temperature "
                 "tuning after Nakanishi 2025, Scalable-Softmax Is Superior for Attention (arXiv:2501.19399)";
    s.year = 2025;
    s.reference = "huggingface/transformers src/transformers/models/llama4/modeling_llama4.py Llama4TextAttention "
                  "(attn_temperature_tuning), configuration_llama4.py (no_rope_layers)";
    s.formula = "layer l: RoPE if (l+1) % k != 0 (interleaved pairs, rope_theta, llama3 scaling: theta_i / factor "
                "where 2*pi/theta_i > original / low_freq_factor, kept where 2*pi/theta_i < original / "
                "high_freq_factor, blended between; Scout's low = high = 1 leaves no blend), else NoPE with "
                "q_p *= ln(floor((p+1)/floor_scale) + 1) * attn_scale + 1";
    s.summary = "Three RoPE layers for local order, then one NoPE layer that sees the whole context without "
                "position, its attention sharpened slowly with position so it does not flatten at long range. "
                "The defaults are Llama 4 Scout's (rope_theta 500000, llama3 scaling factor 16, low 1, high 1, "
                "original 8192). Left out: the chunked local attention of the RoPE layers (attention_chunk_size "
                "8192: a token attends only within its 8192-token chunk) and their L2 norm of q and k "
                "(use_qk_norm).";
    s.needsEvenDim = true;
    s.params = {
        intParam("layer", 0, 0, 1023, "Layer index l (0-based); layers with (l+1) % nope_layer_interval == 0 are NoPE"),
        intParam("nope_layer_interval", 4, 1, 1024, "Every k-th layer is a NoPE layer (Llama 4: 4)"),
        realParam("rope_theta", 500000.0, 100.0, 1.0e9, "RoPE base on the RoPE layers (Llama 4: 500000)", true),
        choiceParam("rope_type", "llama3", {"llama3", "default"},
                    "Frequency scaling on the RoPE layers, computed by the rope scheme's code: llama3 (Llama 4 "
                    "Scout's rope_scaling) or default (none)"),
        when(realParam("factor", 16.0, 1.0, 1024.0, "llama3 scaling factor (Llama 4 Scout: 16)", true), "rope_type",
             {"llama3"}),
        when(realParam("low_freq_factor", 1.0, 0.01, 1000.0,
                       "llama3: wavelengths above original / low_freq_factor "
                       "are divided by factor (Llama 4 Scout: 1)",
                       true),
             "rope_type", {"llama3"}),
        when(realParam("high_freq_factor", 1.0, 0.01, 1000.0,
                       "llama3: wavelengths below original / "
                       "high_freq_factor are kept (Llama 4 Scout: 1, so no blended band)",
                       true),
             "rope_type", {"llama3"}),
        when(intParam("original_max_position_embeddings", 8192, 1, 1 << 24,
                      "llama3: the original context "
                      "(Llama 4 Scout: 8192)",
                      true),
             "rope_type", {"llama3"}),
        boolParam("attn_temperature_tuning", true,
                  "Scale queries on NoPE layers by the position-dependent temperature"),
        realParam("floor_scale", 8192.0, 1.0, 1.0e9, "Temperature steps every floor_scale positions (Llama 4: 8192)",
                  true),
        realParam("attn_scale", 0.1, 0.0, 10.0, "Temperature slope per ln step (Llama 4: 0.1)"),
    };
    s.rotary = iropeSpec;
    s.score = iropeScore;
    s.validate = validateIrope;
    s.unrotated = iropeUnrotated;
    return s;
}

} // namespace poslab::core
