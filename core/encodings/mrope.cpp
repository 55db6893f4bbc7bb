// SPDX-License-Identifier: MIT
#include "core/encodings/mrope.h"

#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <cfloat>
#include <cstdio>
#include <limits>

namespace poslab::core {

namespace {

std::vector<int> sections(const ParamSet& params)
{
    std::vector<int> s;
    for (double v : params.list("mrope_section"))
        s.push_back(int(v));
    return s;
}

bool interleaved(const ParamSet& params)
{
    return params.choice("sections") == "interleaved";
}

void validateMrope(const ParamSet& params, const SpatialContext& ctx)
{
    if (ctx.dim < 2 || ctx.dim % 2 != 0)
        throw InputError("mrope needs an even head dimension; got --dim " + std::to_string(ctx.dim));
    const auto& list = params.list("mrope_section");
    if (list.size() != 3)
        throw InputError("mrope_section needs 3 values (temporal, height, width); got " + std::to_string(list.size()));
    int sum = 0;
    for (double v : list) {
        if (v != std::floor(v))
            throw InputError("mrope_section values must be whole numbers of pairs; got "
                             + params.value("mrope_section").toString());
        sum += int(v);
    }
    const int pairs = ctx.dim / 2;
    if (sum != pairs)
        throw InputError("mrope_section " + params.value("mrope_section").toString() + " sums to " + std::to_string(sum)
                         + " pairs; head dimension " + std::to_string(ctx.dim) + " has " + std::to_string(pairs)
                         + " (the sections must sum to d/2)");
    // Interleaved: h takes k = 1, 4, ... < 3 s_h and w takes k = 2, 5, ... < 3 s_w; both runs must fit in d/2
    // pairs to hold s_h and s_w pairs.
    if (interleaved(params) && (3 * int(list[1]) - 2 > pairs - 1 || 3 * int(list[2]) - 1 > pairs - 1))
        throw InputError("mrope_section " + params.value("mrope_section").toString() + " does not fit interleaved in "
                         + std::to_string(pairs) + " pairs: 3 * s_h - 2 and 3 * s_w - 1 must be below d/2");
}

// transformers computes the time ids of Qwen2.5-VL in float32: second_per_grid_ts is a float32 tensor (the processor's
// list of temporal_patch_size / fps, through BatchFeature), an int64 arange times it is float32, and .long()
// truncates toward zero. float here is IEEE binary32 and every product below is rounded to it (FLT_EVAL_METHOD 0: no
// wider intermediates), so the products round as torch's do.
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<float>::digits == 24);
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "mrope time ids need float arithmetic evaluated in float (FLT_EVAL_METHOD 0)"
#endif

/// The temporal id of frame f of a block, before the block's offset, as a whole number (a double: it may be beyond
/// any id the caller allows, which the caller refuses before converting it).
double frameId(const ParamSet& params, const Segment& s, int f)
{
    const std::string& v = params.choice("variant");
    if (v != "qwen2_5_vl")
        return f;
    if (s.kind == Segment::Kind::Image)
        return 0;                                            // second_per_grid_t = 0 for images
    const float spg = float(params.real("second_per_grid")); // one element of the float32 second_per_grid_ts
    const float tps = float(params.real("tokens_per_second"));
    const float frame = float(f); // exact: f < 2^24 (a sequence holds at most maxSpatialTokens tokens)
    const std::string& how = params.choice("time_ids");
    if (how == "integer_seconds") {
        // torch.as_tensor(second_per_grid_t, dtype=range_tensor.dtype): int64, truncated (0.5 s becomes 0); then
        // int64 products, or float32 when tokens_per_second is not whole.
        const double whole = std::trunc(double(spg));
        if (double(tps) == std::trunc(double(tps)))
            return double(f) * whole * double(tps); // exact below 2^53; the caller bounds it long before
        return std::trunc(double(float(double(f) * whole) * tps));
    }
    float t = 0;
    if (how == "float_frame_first")
        t = (frame * spg) * tps; // time_tensor = expanded_range * second_per_grid_t * tokens_per_second
    else
        t = frame * (tps * spg);  // time_interval = tokens_per_second * second_per_grid_t; (arange * time_interval)
    return std::trunc(double(t)); // .long(): toward zero (every factor is >= 0)
}

} // namespace

std::vector<int> mropePairAxes(const std::vector<int>& s, int pairs, bool inter)
{
    std::vector<int> axis(static_cast<std::size_t>(pairs), 0);
    for (int k = 0; k < pairs; ++k) {
        if (inter)
            axis[std::size_t(k)] = (k % 3 == 1 && k < 3 * s[1]) ? 1 : (k % 3 == 2 && k < 3 * s[2]) ? 2 : 0;
        else
            axis[std::size_t(k)] = k < s[0] ? 0 : k < s[0] + s[1] ? 1 : 2;
    }
    return axis;
}

MatrixD mropePositionIds(const ParamSet& params, const SpatialContext& ctx)
{
    const bool splitVideo = params.choice("variant") == "qwen3_vl";
    // The blocks as get_rope_index sees them (Qwen3-VL: one block per video frame).
    struct Block {
        const Segment* seg;
        int frames;
    };
    std::vector<Block> runs;
    for (const Segment& s : ctx.sequence.segments) {
        if (splitVideo && s.kind == Segment::Kind::Video)
            for (int f = 0; f < s.t; ++f)
                runs.push_back({&s, 1});
        else
            runs.push_back({&s, s.kind == Segment::Kind::Text ? 0 : s.t});
    }
    // Largest id first, in long double, before anything is filled (time-aligned ids can be large).
    long double next = 0;
    for (const Block& b : runs) {
        if (b.seg->kind == Segment::Kind::Text) {
            next += b.seg->length;
        } else {
            // float32 products grow with f (rounding is monotonic), so the last frame has the largest time id.
            const long double top = std::max<long double>({(long double)frameId(params, *b.seg, b.frames - 1),
                                                           (long double)b.seg->h - 1, (long double)b.seg->w - 1});
            next += top + 1;
        }
        if (next - 1 > (long double)maxPosition)
            throw InputError("mrope: the position ids of --sequence " + sequenceText(ctx.sequence) + " pass "
                             + std::to_string(maxPosition) + "; ask for a shorter sequence or smaller time steps");
    }
    MatrixD ids(3, ctx.sequence.tokens());
    Eigen::Index col = 0;
    long long base = 0; // the id after everything so far
    for (const Block& b : runs) {
        const Segment& s = *b.seg;
        if (s.kind == Segment::Kind::Text) {
            for (long long n = 0; n < s.length; ++n, ++col)
                ids.col(col).setConstant(double(base + n));
            base += s.length;
            continue;
        }
        long long top = 0;
        for (int f = 0; f < b.frames; ++f) {
            const auto t = (long long)frameId(params, s, f); // bounded by maxPosition above
            for (int r = 0; r < s.h; ++r)
                for (int c = 0; c < s.w; ++c, ++col) {
                    ids(0, col) = double(base + t);
                    ids(1, col) = double(base + r);
                    ids(2, col) = double(base + c);
                    top = std::max({top, t, (long long)r, (long long)c});
                }
        }
        base += top + 1; // st_idx = llm_pos_ids_list[-1].max() + 1
    }
    return ids;
}

SpatialRotary mropeRotary(const ParamSet& params, const SpatialContext& ctx)
{
    validateMrope(params, ctx);
    const MatrixD ids = mropePositionIds(params, ctx);
    const int d = ctx.dim, pairs = d / 2;
    const std::vector<int> axis = mropePairAxes(sections(params), pairs, interleaved(params));
    const double theta = params.real("rope_theta");
    SpatialRotary r;
    r.headDim = d;
    r.layout = PairLayout::HalfSplit;
    r.axes = {"t", "h", "w"};
    std::vector<double> invFreq(static_cast<std::size_t>(pairs));
    for (int k = 0; k < pairs; ++k) {
        invFreq[std::size_t(k)] = 1.0 / std::pow(theta, 2.0 * k / d);
        char buf[96];
        std::snprintf(buf, sizeof buf, "pair %d: %s id, omega = %.9g rad/id", k,
                      r.axes[std::size_t(axis[std::size_t(k)])].c_str(), invFreq[std::size_t(k)]);
        r.pairLabels.push_back(buf);
        r.pairAxis.push_back(axis[std::size_t(k)]);
    }
    r.angles.resize(ids.cols(), pairs);
    for (Eigen::Index n = 0; n < ids.cols(); ++n)
        for (int k = 0; k < pairs; ++k)
            r.angles(n, k) = ids(axis[std::size_t(k)], n) * invFreq[std::size_t(k)];
    return r;
}

SpatialSchemeDescriptor mropeScheme()
{
    SpatialSchemeDescriptor d;
    SchemeDescriptor& s = d.info;
    s.id = "mrope";
    s.name = "Multimodal RoPE (M-RoPE: Qwen2-VL, Qwen2.5-VL, Qwen3-VL)";
    s.shortName = "M-RoPE";
    s.family = "rotary, 3-D";
    s.relation = Relation::Relative;
    s.application = Application::QueryKeyRotation;
    s.origin = Origin::Fixed;
    s.citation = "Wang et al. 2024, Qwen2-VL (arXiv 2409.12191), M-RoPE; Bai et al. 2025, Qwen2.5-VL Technical Report "
                 "(arXiv 2502.13923), time-aligned M-RoPE; Qwen team 2025, Qwen3-VL (interleaved M-RoPE)";
    s.year = 2024;
    s.reference = "huggingface/transformers src/transformers/models/qwen2_vl/modeling_qwen2_vl.py get_rope_index, "
                  "apply_multimodal_rotary_pos_emb; qwen2_5_vl/modeling_qwen2_5_vl.py get_rope_index; "
                  "qwen3_vl/modeling_qwen3_vl.py apply_interleaved_mrope, get_rope_index";
    s.formula = "angle_k(n) = id_axis(k)(n) * rope_theta^(-2k/d),  axis(k) from mrope_section [t, h, w]";
    s.summary = "Text tokens have three equal ids and rotate as in 1-D RoPE; an image's patches share a start id "
                "and differ in their row and column ids, so the pairs of the height and width sections see the "
                "2-D layout.";
    s.needsEvenDim = true;
    ParamSpec section = listParam("mrope_section", {16, 24, 24}, 0, 65536,
                                  "Pairs per axis [temporal, height, width], summing to d/2 (Qwen2-VL and Qwen2.5-VL "
                                  "[16, 24, 24], Qwen3-VL [24, 20, 20], for d = 128). Unless set, it follows variant");
    section.defaultsWhen.push_back({"variant", "qwen3_vl", ParamValue::reals({24, 20, 20})});
    ParamSpec layout = choiceParam("sections", "chunked", {"chunked", "interleaved"},
                                   "chunked: t pairs, then h, then w (Qwen2-VL, Qwen2.5-VL); interleaved: t h w t h w "
                                   "... then t (Qwen3-VL). Unless set, it follows variant");
    layout.defaultsWhen.push_back({"variant", "qwen3_vl", ParamValue::word("interleaved")});
    s.params = {
        choiceParam("variant", "qwen2_vl", {"qwen2_vl", "qwen2_5_vl", "qwen3_vl"},
                    "qwen2_vl: frame index as temporal id; qwen2_5_vl: time-aligned temporal ids of videos; "
                    "qwen3_vl: each video frame its own block, interleaved sections"),
        realParam("rope_theta", 1000000.0, 1.0, 1.0e9,
                  "Base of inv_freq_k = rope_theta^(-2k/d) (Qwen2-VL-7B and "
                  "Qwen2.5-VL-7B: 1000000)",
                  true),
        section,
        layout,
        when(realParam("tokens_per_second", 2.0, 0.0, 1.0e6,
                       "qwen2_5_vl: temporal ids per second of video "
                       "(vision_config.tokens_per_second, 2 in Qwen2.5-VL)"),
             "variant", {"qwen2_5_vl"}),
        when(realParam("second_per_grid", 1.0, 0.0, 1.0e6,
                       "qwen2_5_vl: seconds per temporal grid step "
                       "(second_per_grid_ts = temporal_patch_size / fps; 2 / 2 = 1, Hugging Face's default)"),
             "variant", {"qwen2_5_vl"}),
        when(choiceParam("time_ids", "float_interval", {"float_interval", "float_frame_first", "integer_seconds"},
                         "qwen2_5_vl: how transformers' get_rope_index turns frame f into a time id, all truncated "
                         "toward zero (.long()). float_interval (current transformers, get_vision_position_ids): f * "
                         "(tokens_per_second * second_per_grid) in float32; float_frame_first (the first Qwen2.5-VL "
                         "code): (f * second_per_grid) * tokens_per_second in float32; integer_seconds (the versions "
                         "that cast second_per_grid_t to the arange's int64 first): f * trunc(second_per_grid) * "
                         "tokens_per_second, so 0.5 s gives 0"),
             "variant", {"qwen2_5_vl"}),
    };
    d.input = SpatialInput::Sequence;
    d.defaultDim = 128; // Qwen2-VL, Qwen2.5-VL and Qwen3-VL: head_dim 128, which the default sections fit
    d.positionIds = mropePositionIds;
    d.rotary = mropeRotary;
    d.validate = validateMrope;
    return d;
}

} // namespace poslab::core
