// SPDX-License-Identifier: MIT
#include "core/encodings/rope2d.h"

#include "core/errors.h"
#include "core/random.h"

#include <cmath>
#include <cstdio>
#include <numbers>

namespace poslab::core {

namespace {

void validateRope2d(const ParamSet&, const SpatialContext& ctx)
{
    // torch.arange(0, dim, 4)[: dim // 4] gives d/4 frequencies per axis; two axes fill the d/2 pairs only when
    // 4 divides d.
    if (ctx.dim < 4 || ctx.dim % 4 != 0)
        throw InputError("rope_2d needs a head dimension that is a multiple of 4 (d/4 pairs per axis); got --dim "
                         + std::to_string(ctx.dim));
}

std::string label(int pair, const char* what, double omega)
{
    char buf[96];
    std::snprintf(buf, sizeof buf, "pair %d: %s, omega = %.9g rad/patch", pair, what, omega);
    return buf;
}

} // namespace

SpatialRotary rope2dRotary(const ParamSet& params, const SpatialContext& ctx)
{
    validateRope2d(params, ctx);
    const int d = ctx.dim, q = d / 4;
    const double theta = params.real("rope_theta");
    const bool mixed = params.choice("variant") == "mixed";
    std::vector<double> mag(static_cast<std::size_t>(q));
    for (int k = 0; k < q; ++k)
        mag[std::size_t(k)] = 1.0 / std::pow(theta, 4.0 * k / d); // arange(0, dim, 4) / dim
    // Per pair: the frequency along x and along y.
    std::vector<double> fx(std::size_t(2 * q), 0.0), fy(std::size_t(2 * q), 0.0);
    SpatialRotary r;
    r.headDim = d;
    r.layout = PairLayout::Interleaved;
    r.axes = {"column j (x)", "row i (y)"};
    if (mixed) {
        double a = 0.0;
        if (params.flag("rotate")) {
            SeededRandom rng(std::uint64_t(params.integer("seed")));
            double u = 0.0;
            for (long long h = 0; h <= params.integer("head"); ++h)
                u = rng.uniform();
            a = 2.0 * std::numbers::pi * u;
        }
        r.scalars.push_back({"head_angle", a});
        for (int k = 0; k < q; ++k) {
            fx[std::size_t(k)] = mag[std::size_t(k)] * std::cos(a);
            fy[std::size_t(k)] = mag[std::size_t(k)] * std::sin(a);
            fx[std::size_t(q + k)] = mag[std::size_t(k)] * std::cos(std::numbers::pi / 2 + a);
            fy[std::size_t(q + k)] = mag[std::size_t(k)] * std::sin(std::numbers::pi / 2 + a);
        }
        for (int p = 0; p < 2 * q; ++p) {
            char buf[128];
            std::snprintf(buf, sizeof buf, "pair %d: x * %.9g + y * %.9g", p, fx[std::size_t(p)], fy[std::size_t(p)]);
            r.pairLabels.push_back(buf);
            r.pairAxis.push_back(-1);
        }
    } else {
        for (int k = 0; k < q; ++k) {
            fx[std::size_t(k)] = mag[std::size_t(k)];
            fy[std::size_t(q + k)] = mag[std::size_t(k)];
        }
        for (int p = 0; p < 2 * q; ++p) {
            r.pairLabels.push_back(label(p, p < q ? "column j (x)" : "row i (y)", mag[std::size_t(p % q)]));
            r.pairAxis.push_back(p < q ? 0 : 1);
        }
    }
    r.angles.resize(ctx.grid.patches(), 2 * q);
    for (int i = 0; i < ctx.grid.rows; ++i)
        for (int j = 0; j < ctx.grid.cols; ++j) {
            const Eigen::Index t = Eigen::Index(i) * ctx.grid.cols + j;
            for (int p = 0; p < 2 * q; ++p)
                r.angles(t, p) = j * fx[std::size_t(p)] + i * fy[std::size_t(p)];
        }
    return r;
}

SpatialSchemeDescriptor rope2dScheme()
{
    SpatialSchemeDescriptor d;
    SchemeDescriptor& s = d.info;
    s.id = "rope_2d";
    s.name = "2-D RoPE for patches (rope-vit: axial, mixed)";
    s.shortName = "2-D RoPE";
    s.family = "rotary, 2-D";
    s.relation = Relation::Relative;
    s.application = Application::QueryKeyRotation;
    s.origin = Origin::Fixed;
    s.citation = "Heo et al. 2024, Rotary Position Embedding for Vision Transformer (ECCV), section 3";
    s.year = 2024;
    s.reference = "naver-ai/rope-vit models/vit_rope.py compute_axial_cis, init_random_2d_freqs, compute_mixed_cis";
    s.formula = "axial: pair p < d/4 turns by x m_p, pair d/4+p by y m_p;  mixed: x fx_p + y fy_p;  "
                "m_k = rope_theta^(-4k/d)";
    s.summary = "Half of the rotary pairs turn with the patch's column and half with its row (axial), or every "
                "pair with its own direction in the plane (mixed), so the score depends on the 2-D offset.";
    s.needsEvenDim = true;
    s.params = {
        choiceParam("variant", "axial", {"axial", "mixed"},
                    "axial: pairs split between x and y (RoPE-Axial); mixed: each pair a direction x cos a + y sin a "
                    "(RoPE-Mixed, learned in the paper, seeded here)"),
        defaultWhen(realParam("rope_theta", 100.0, 1.0, 1.0e7,
                              "Base of m_k = rope_theta^(-4k/d). Unless set it follows "
                              "variant: 100 for axial, 10 for mixed (vit_rope.py's RoPE-Axial and RoPE-Mixed models)",
                              true),
                    "variant", "mixed", 10.0),
        when(boolParam("rotate", true,
                       "mixed: draw the head's angle a (init_random_2d_freqs rotate=True); false "
                       "gives a = 0, the axial split at this theta"),
             "variant", {"mixed"}),
        when(intParam("seed", 0, 0, (1ll << 53), "mixed: seed of the head angles (SeededRandom.uniform())"), "variant",
             {"mixed"}),
        when(intParam("head", 0, 0, 1023, "mixed: which head's angle (the head+1-th uniform draw)"), "variant",
             {"mixed"}),
    };
    d.input = SpatialInput::Grid;
    d.rotary = rope2dRotary;
    d.validate = validateRope2d;
    return d;
}

} // namespace poslab::core
