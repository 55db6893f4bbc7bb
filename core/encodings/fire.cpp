// SPDX-License-Identifier: MIT
#include "core/encodings/fire.h"

#include "core/encodings/relativecommon.h"
#include "core/random.h"

#include <algorithm>
#include <cmath>

namespace poslab::core {

double fireNormalisedDistance(Position query, Position key, double c, double threshold)
{
    const double rel = std::log(std::fabs(c * double(query - key)) + 1.0);
    const double norm = std::log(std::fabs(c * std::max(double(query), threshold)) + 1.0) + 1e-6;
    return rel / norm;
}

namespace {

struct FireMlp {
    std::vector<double> w1, b1; // width
    MatrixD w2;                 // heads x width
    std::vector<double> b2;     // heads
};

FireMlp fireMlp(int width, int heads, std::uint64_t seed)
{
    // nn.Linear's default init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weights and biases.
    FireMlp m;
    SeededRandom rng(mixSeed(seed, 0xF14E));
    auto u = [&](double bound) { return (2.0 * rng.uniform() - 1.0) * bound; };
    m.w1.resize(std::size_t(width));
    m.b1.resize(std::size_t(width));
    for (int k = 0; k < width; ++k) {
        m.w1[std::size_t(k)] = u(1.0);
        m.b1[std::size_t(k)] = u(1.0);
    }
    const double bound = 1.0 / std::sqrt(double(width));
    m.w2.resize(heads, width);
    m.b2.resize(std::size_t(heads));
    for (int h = 0; h < heads; ++h) {
        for (int k = 0; k < width; ++k)
            m.w2(h, k) = u(bound);
        m.b2[std::size_t(h)] = u(bound);
    }
    return m;
}

MatrixD fireBias(const ParamSet& p, const PairContext& ctx, int head)
{
    const double c = p.real("c");
    const double threshold = p.real("L");
    const int width = int(p.integer("mlp_width"));
    const FireMlp mlp = fireMlp(width, ctx.heads, std::uint64_t(p.integer("seed")));
    MatrixD b(Eigen::Index(ctx.queries.size()), Eigen::Index(ctx.keys.size()));
    for (std::size_t i = 0; i < ctx.queries.size(); ++i)
        for (std::size_t j = 0; j < ctx.keys.size(); ++j) {
            const double x = fireNormalisedDistance(ctx.queries[i], ctx.keys[j], c, threshold);
            double y = mlp.b2[std::size_t(head)];
            for (int k = 0; k < width; ++k)
                y += mlp.w2(head, k) * std::max(0.0, mlp.w1[std::size_t(k)] * x + mlp.b1[std::size_t(k)]);
            b(Eigen::Index(i), Eigen::Index(j)) = y;
        }
    return b;
}

// One head: the MLP is drawn again (width x (heads + 2) uniforms, heads x width doubles), then each pair takes
// two logarithms and the width-w MLP (a multiply-add, a maximum and a multiply-add per hidden unit).
SchemeCost fireCost(const ParamSet& p, const PairContext& ctx)
{
    const double width = double(p.integer("mlp_width")), heads = double(std::max(ctx.heads, 1));
    const double cells = double(ctx.queries.size()) * double(ctx.keys.size());
    return {width * (heads + 2.0) * 8.0, width * (heads + 2.0) * drawOps + cells * (2.0 * drawOps + 3.0 * width)};
}

} // namespace

SchemeDescriptor fireScheme()
{
    SchemeDescriptor s;
    s.id = "fire";
    s.name = "FIRE (functional interpolation)";
    s.shortName = "FIRE";
    s.trainedAs = TrainedAs::Fire;
    s.family = "relative bias, learned";
    s.relation = Relation::Relative;
    s.relativePosition = "query - key";
    s.application = Application::ScoreBias;
    s.origin = Origin::Learned;
    s.citation = "Li et al. 2023, Functional Interpolation for Relative Positions Improves Long Context "
                 "Transformers (ICLR 2024), section 3.2";
    s.year = 2023;
    s.reference = "mcleish7/arithmetic cramming/architectures/embeddings.py FIRE (after the paper's pseudocode)";
    s.formula = "b_h(i,j) = MLP_h( psi(|i-j|) / psi(max(L, i)) ),  psi(x) = ln(c x + 1)";
    s.summary = "Normalises the distance by the query position (progressive interpolation), so every length maps "
                "into [0, 1], then a small MLP turns it into a bias per head. The MLP weights here are random, "
                "not trained.";
    s.params = {
        realParam("c", 0.1, 1e-4, 100.0, "Log-transform rate c in psi(x) = ln(c x + 1)", true),
        realParam("L", 512.0, 1.0, 1.0e7, "Threshold L: queries before position L are normalised by psi(L)", true),
        intParam("mlp_width", 32, 1, 1024, "Hidden width of the MLP"),
        intParam("seed", 0, 0, (1ll << 31) - 1, "Seed of the MLP weights (random, not trained)"),
    };
    s.bias = fireBias;
    s.cost = fireCost;
    return s;
}

} // namespace poslab::core
