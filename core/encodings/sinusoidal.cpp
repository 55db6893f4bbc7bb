// SPDX-License-Identifier: MIT
#include "core/encodings/sinusoidal.h"

#include "core/errors.h"
#include "core/trigtable.h"

#include <cmath>

namespace poslab::core {

std::vector<double> sinusoidalFrequencies(const ParamSet& params, const TableContext& ctx)
{
    const int pairs = ctx.dim / 2;
    const double base = params.real("base");
    const bool t2t = params.choice("timescale_spacing") == "tensor2tensor";
    std::vector<double> w(static_cast<std::size_t>(pairs));
    for (int i = 0; i < pairs; ++i) {
        // Paper: 1 / base^(2i/d). tensor2tensor / fairseq: exp(-i * ln(base) / max(d/2 - 1, 1)).
        const double e = t2t ? double(i) / double(std::max(pairs - 1, 1)) : 2.0 * double(i) / double(ctx.dim);
        w[std::size_t(i)] = std::exp(-e * std::log(base));
    }
    return w;
}

MatrixF sinusoidalEncoding(const ParamSet& params, const TableContext& ctx)
{
    const std::vector<double> w = sinusoidalFrequencies(params, ctx);
    const Eigen::Index pairs = Eigen::Index(w.size());
    MatrixF m(Eigen::Index(ctx.positions.size()), ctx.dim);
    TrigLayout out;
    out.rowStride = ctx.dim;
    if (params.choice("layout") == "interleaved") {
        out.sin = m.data();
        out.cos = m.data() + 1;
        out.pairStride = 2;
    } else {
        out.sin = m.data();
        out.cos = m.data() + pairs;
        out.pairStride = 1;
    }
    fillTrigTable(w, ctx.positions, out);
    return m;
}

namespace {
void validateSinusoidal(const ParamSet&, const TableContext& ctx)
{
    if (ctx.dim < 2 || ctx.dim % 2 != 0)
        throw InputError("sinusoidal needs an even dimension of at least 2 (sin and cos pairs); got --dim "
                         + std::to_string(ctx.dim));
}
} // namespace

SchemeDescriptor sinusoidalScheme()
{
    SchemeDescriptor s;
    s.id = "sinusoidal";
    s.name = "Sinusoidal (Transformer)";
    s.shortName = "Sinusoidal";
    s.trainedAs = TrainedAs::FixedTable;
    s.family = "absolute, fixed";
    s.relation = Relation::Absolute;
    s.application = Application::Embedding;
    s.origin = Origin::Fixed;
    s.citation = "Vaswani et al. 2017, Attention Is All You Need, section 3.5";
    s.year = 2017;
    s.reference = "tensorflow/tensor2tensor tensor2tensor/layers/common_attention.py get_timing_signal_1d; "
                  "facebookresearch/fairseq fairseq/modules/sinusoidal_positional_embedding.py";
    s.formula = "PE(p,2i) = sin(p / base^(2i/d)),  PE(p,2i+1) = cos(p / base^(2i/d))";
    s.summary = "Each pair of dimensions is a clock hand turning at its own speed, from one turn every "
                "2*pi tokens (pair 0) to one every 2*pi*base^((d-2)/d) tokens (the last pair, i = d/2 - 1). At base "
                "10000 that is 54,410 tokens for d = 128 and 19,869 for d = 16: the often quoted 2*pi*base = 62,832 "
                "is never reached with the paper's spacing.";
    s.needsEvenDim = true;
    s.params = {
        realParam("base", 10000.0, 100.0, 1.0e7,
                  "Wavelength base: the slowest pair (i = d/2 - 1) turns once per "
                  "2*pi*base^((d-2)/d) tokens with the paper's spacing, 2*pi*base with tensor2tensor's",
                  true),
        choiceParam("layout", "interleaved", {"interleaved", "half_split"},
                    "interleaved: sin, cos alternate (paper); half_split: all sines then all cosines "
                    "(tensor2tensor, fairseq)"),
        choiceParam("timescale_spacing", "paper", {"paper", "tensor2tensor"},
                    "paper: w_i = base^(-2i/d); tensor2tensor: w_i = base^(-i/(d/2-1)) (also fairseq)"),
    };
    s.encoding = sinusoidalEncoding;
    s.frequencies = sinusoidalFrequencies;
    s.validate = validateSinusoidal;
    return s;
}

} // namespace poslab::core
