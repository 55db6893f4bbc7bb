// SPDX-License-Identifier: MIT
#include "core/encodings/sandwich.h"

#include "core/errors.h"

#include <cmath>

namespace poslab::core {

double sandwichCosineSum(double delta, int sandwichDim, double base, int first)
{
    double sum = 0.0;
    for (int t = first; t < first + sandwichDim / 2; ++t)
        sum += std::cos(delta * std::pow(base, -2.0 * double(t) / double(sandwichDim)));
    return sum;
}

namespace {
MatrixD sandwichBias(const ParamSet& p, const PairContext& ctx, int head)
{
    const int dp = int(p.integer("sandwich_dim"));
    const double base = p.real("base");
    const int first = p.choice("frequency_index") == "vaswani" ? 0 : 1;
    const double scale = 8.0 * double(head + 1) / double(ctx.heads);
    MatrixD b(Eigen::Index(ctx.queries.size()), Eigen::Index(ctx.keys.size()));
    for (std::size_t i = 0; i < ctx.queries.size(); ++i)
        for (std::size_t j = 0; j < ctx.keys.size(); ++j)
            b(Eigen::Index(i), Eigen::Index(j))
                = (sandwichCosineSum(double(ctx.queries[i] - ctx.keys[j]), dp, base, first) - dp / 2.0) / scale;
    return b;
}

void validateSandwich(const ParamSet& p, const TableContext&)
{
    if (p.integer("sandwich_dim") % 2 != 0)
        throw InputError("sandwich_dim " + p.value("sandwich_dim").toString() + " must be even (sin and cos pairs)");
}
// One head: every cell sums d'/2 cosines, each of a power (the bias matrix itself is counted by the engine).
SchemeCost sandwichCost(const ParamSet& p, const PairContext& ctx)
{
    const double cells = double(ctx.queries.size()) * double(ctx.keys.size());
    return {0.0, cells * double(p.integer("sandwich_dim")) / 2.0 * 2.0 * drawOps};
}

} // namespace

SchemeDescriptor sandwichScheme()
{
    SchemeDescriptor s;
    s.id = "sandwich";
    s.name = "Sandwich (sinusoidal dot-product bias)";
    s.shortName = "Sandwich";
    s.trainedAs = TrainedAs::FixedBias;
    s.family = "relative bias, fixed";
    s.relation = Relation::Relative;
    s.relativePosition = "query - key";
    s.application = Application::ScoreBias;
    s.origin = Origin::Fixed;
    s.citation = "Chi, Fan, Rudnicky, Ramadge 2023, Dissecting Transformer Length Extrapolation via the Lens of "
                 "Receptive Field Analysis (ACL 2023); the formula follows the cited NeMo code, as the paper's "
                 "equation was not available to check";
    s.year = 2023;
    s.reference = "NVIDIA/NeMo nemo/collections/nlp/modules/common/megatron/position_embedding/sandwich_relative_"
                  "position_embedding.py SandwichRelativePositionEmbedding.forward (followed exactly)";
    s.formula = "b_h(i,j) = (sum_{t=1}^{d'/2} cos((i-j) w_t) - d'/2) / (8(h+1)/H),  w_t = base^(-2t/d')  "
                "(NeMo's indices; frequency_index = vaswani sums t = 0..d'/2-1)";
    s.summary = "The sinusoidal dot product, which already decays with distance, used directly as a bias: "
                "parameter-free, and shaped per head like ALiBi.";
    s.params = {
        intParam("sandwich_dim", 128, 2, 65536, "Dimension d' of the sinusoidal vectors (even)"),
        realParam("base", 10000.0, 100.0, 1.0e7, "Wavelength base of the sinusoid (NeMo: 10000, fixed)", true),
        choiceParam("frequency_index", "nemo", {"nemo", "vaswani"},
                    "Which d'/2 frequencies are summed: nemo, t = 1..d'/2 (the cited NeMo code, "
                    "arange(1, d'/2 + 1)); vaswani, t = 0..d'/2-1 (the dot product of Vaswani et al.'s PE vectors)"),
    };
    s.bias = sandwichBias;
    s.cost = sandwichCost;
    s.validate = validateSandwich;
    return s;
}

} // namespace poslab::core
