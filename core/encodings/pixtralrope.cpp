// SPDX-License-Identifier: MIT
#include "core/encodings/pixtralrope.h"

#include "core/errors.h"

#include <cmath>
#include <cstdio>

namespace poslab::core {

namespace {

void validatePixtral(const ParamSet& params, const SpatialContext& ctx)
{
    if (ctx.dim < 2 || ctx.dim % 2 != 0)
        throw InputError("pixtral_rope needs an even head dimension; got --dim " + std::to_string(ctx.dim));
    const long long side = params.integer("max_patches_per_side");
    if (ctx.grid.rows > side || ctx.grid.cols > side)
        throw InputError("pixtral_rope: --grid " + gridText(ctx.grid) + " is larger than max_patches_per_side "
                         + std::to_string(side)
                         + " (Hugging Face's table has image_size / patch_size rows and "
                           "columns); raise max_patches_per_side to extrapolate");
}

} // namespace

SpatialRotary pixtralRotary(const ParamSet& params, const SpatialContext& ctx)
{
    validatePixtral(params, ctx);
    const int d = ctx.dim, pairs = d / 2;
    const double theta = params.real("rope_theta");
    std::vector<double> f(static_cast<std::size_t>(pairs));
    for (int k = 0; k < pairs; ++k)
        f[std::size_t(k)] = 1.0 / std::pow(theta, 2.0 * k / d); // arange(0, dim, 2) / dim
    const int nRow = (pairs + 1) / 2;                           // len(freqs[::2])
    SpatialRotary r;
    r.headDim = d;
    r.layout = PairLayout::HalfSplit;
    r.axes = {"row i", "column j"};
    std::vector<double> omega(static_cast<std::size_t>(pairs));
    for (int p = 0; p < pairs; ++p) {
        const bool row = p < nRow;
        omega[std::size_t(p)] = row ? f[std::size_t(2 * p)] : f[std::size_t(2 * (p - nRow) + 1)];
        char buf[128];
        std::snprintf(buf, sizeof buf, "pair %d: %s, omega = f_%d = %.9g rad/patch", p, row ? "row i" : "column j",
                      row ? 2 * p : 2 * (p - nRow) + 1, omega[std::size_t(p)]);
        r.pairLabels.push_back(buf);
        r.pairAxis.push_back(row ? 0 : 1);
    }
    r.angles.resize(ctx.grid.patches(), pairs);
    for (int i = 0; i < ctx.grid.rows; ++i)
        for (int j = 0; j < ctx.grid.cols; ++j) {
            const Eigen::Index t = Eigen::Index(i) * ctx.grid.cols + j;
            for (int p = 0; p < pairs; ++p)
                r.angles(t, p) = (p < nRow ? i : j) * omega[std::size_t(p)];
        }
    return r;
}

SpatialSchemeDescriptor pixtralRopeScheme()
{
    SpatialSchemeDescriptor d;
    SchemeDescriptor& s = d.info;
    s.id = "pixtral_rope";
    s.name = "Pixtral 2-D RoPE (vision encoder)";
    s.shortName = "Pixtral 2-D RoPE";
    s.family = "rotary, 2-D";
    s.relation = Relation::Relative;
    s.application = Application::QueryKeyRotation;
    s.origin = Origin::Fixed;
    s.citation = "Mistral AI 2024, Pixtral 12B (arXiv 2410.07073), the vision encoder's RoPE-2D";
    s.year = 2024;
    s.reference = "huggingface/transformers src/transformers/models/pixtral/modeling_pixtral.py PixtralRotaryEmbedding";
    s.formula = "pair p < d/4: i f_2p;  pair d/4 + p: j f_(2p+1);  f_k = rope_theta^(-2k/d)";
    s.summary = "The 1-D RoPE frequencies are dealt out alternately: even ones turn with the patch's row, odd "
                "ones with its column, so any image shape has its own exact positions.";
    s.needsEvenDim = true;
    s.params = {
        realParam("rope_theta", 10000.0, 1.0, 1.0e7, "Base of f_k = rope_theta^(-2k/d) (PixtralVisionConfig: 10000)",
                  true),
        intParam("max_patches_per_side", 64, 1, maxGridSide,
                 "image_size / patch_size: the largest grid side Hugging Face's table covers (1024 / 16 = 64)"),
    };
    d.input = SpatialInput::Grid;
    d.rotary = pixtralRotary;
    d.validate = validatePixtral;
    return d;
}

} // namespace poslab::core
