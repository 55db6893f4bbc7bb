// SPDX-License-Identifier: MIT
#include "core/encodings/sincos2d.h"

#include "core/errors.h"

#include <cmath>

namespace poslab::core {

namespace {
void validateSincos2d(const ParamSet&, const SpatialContext& ctx)
{
    // get_2d_sincos_pos_embed_from_grid and get_1d_sincos_pos_embed_from_grid each assert an even size: D/2
    // must be even too.
    if (ctx.dim < 4 || ctx.dim % 4 != 0)
        throw InputError("sincos_2d needs a dimension that is a multiple of 4 (sin and cos of the column, sin "
                         "and cos of the row); got --dim "
                         + std::to_string(ctx.dim));
}
} // namespace

MatrixF sincos2dEncoding(const ParamSet& params, const SpatialContext& ctx)
{
    validateSincos2d(params, ctx);
    const int q = ctx.dim / 4;
    const double base = params.real("base");
    std::vector<double> omega(static_cast<std::size_t>(q));
    for (int c = 0; c < q; ++c)
        omega[std::size_t(c)] = 1.0 / std::pow(base, double(c) / double(q)); // omega = 1 / 10000^(k / (D/4))
    const int first = ctx.cls ? 1 : 0;
    MatrixF m = MatrixF::Zero(ctx.grid.patches() + first, ctx.dim);
    for (int i = 0; i < ctx.grid.rows; ++i)
        for (int j = 0; j < ctx.grid.cols; ++j) {
            float* row = m.row(first + Eigen::Index(i) * ctx.grid.cols + j).data();
            for (int c = 0; c < q; ++c) {
                const double a = j * omega[std::size_t(c)], b = i * omega[std::size_t(c)];
                row[c] = float(std::sin(a));
                row[q + c] = float(std::cos(a));
                row[2 * q + c] = float(std::sin(b));
                row[3 * q + c] = float(std::cos(b));
            }
        }
    return m;
}

SpatialSchemeDescriptor sincos2dScheme()
{
    SpatialSchemeDescriptor d;
    SchemeDescriptor& s = d.info;
    s.id = "sincos_2d";
    s.name = "2-D sin-cos table (MAE)";
    s.shortName = "2-D sin-cos";
    s.family = "absolute, fixed, 2-D";
    s.relation = Relation::Absolute;
    s.application = Application::Embedding;
    s.origin = Origin::Fixed;
    s.citation = "He et al. 2022, Masked Autoencoders Are Scalable Vision Learners (after MoCo v3, Chen et al. 2021)";
    s.year = 2022;
    s.reference = "facebookresearch/mae util/pos_embed.py get_2d_sincos_pos_embed";
    s.formula = "E(i,j) = [sin(j w), cos(j w), sin(i w), cos(i w)],  w_k = base^(-k/(D/4)), k < D/4";
    s.summary = "Half of the dimensions are a 1-D sin-cos code of the patch's column, the other half of its "
                "row; the class token gets zeros.";
    s.params = {
        realParam("base", 10000.0, 100.0, 1.0e7,
                  "Wavelength base of the frequencies w_k = base^(-k/(D/4)) "
                  "(MAE: 10000)",
                  true),
    };
    d.input = SpatialInput::Grid;
    d.hasClassToken = true;
    d.encoding = sincos2dEncoding;
    d.validate = validateSincos2d;
    return d;
}

} // namespace poslab::core
