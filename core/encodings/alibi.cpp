// SPDX-License-Identifier: MIT
#include "core/encodings/alibi.h"

#include "core/errors.h"

#include <cmath>

namespace poslab::core {

namespace {
std::vector<double> powerOfTwoSlopes(int n)
{
    // start = 2^(-2^-(log2(n) - 3)) = 2^(-8/n); slope h = start^(h+1).
    const double start = std::exp2(-8.0 / double(n));
    std::vector<double> s(static_cast<std::size_t>(n));
    (void)start;
    for (int h = 0; h < n; ++h)
        s[std::size_t(h)] = std::exp2(-8.0 * double(h + 1) / double(n)); // start^(h+1), without accumulated error
    return s;
}
} // namespace

std::vector<double> alibiSlopes(int heads)
{
    if (heads < 1)
        throw InputError("ALiBi needs at least one head; got " + std::to_string(heads));
    if ((heads & (heads - 1)) == 0)
        return powerOfTwoSlopes(heads);
    int p = 1;
    while (p * 2 < heads)
        p *= 2;
    std::vector<double> s = powerOfTwoSlopes(p);
    const std::vector<double> twice = alibiSlopes(2 * p);
    for (int i = 0; int(s.size()) < heads; i += 2)
        s.push_back(twice[std::size_t(i)]);
    return s;
}

namespace {
MatrixD alibiBias(const ParamSet&, const PairContext& ctx, int head)
{
    const double m = alibiSlopes(ctx.heads)[std::size_t(head)];
    MatrixD b(Eigen::Index(ctx.queries.size()), Eigen::Index(ctx.keys.size()));
    for (std::size_t i = 0; i < ctx.queries.size(); ++i)
        for (std::size_t j = 0; j < ctx.keys.size(); ++j)
            b(Eigen::Index(i), Eigen::Index(j))
                = 0.0 - m * std::fabs(double(ctx.queries[i] - ctx.keys[j])); // 0.0 - x: +0 at distance 0
    return b;
}
} // namespace

SchemeDescriptor alibiScheme()
{
    SchemeDescriptor s;
    s.id = "alibi";
    s.name = "ALiBi (attention with linear biases)";
    s.shortName = "ALiBi";
    s.trainedAs = TrainedAs::FixedBias;
    s.family = "relative bias, fixed";
    s.relation = Relation::Relative;
    s.relativePosition = "query - key";
    s.application = Application::ScoreBias;
    s.origin = Origin::Fixed;
    s.citation = "Press, Smith, Lewis 2022, Train Short, Test Long: Attention with Linear Biases Enables Input "
                 "Length Extrapolation (ICLR 2022), section 3";
    s.year = 2022;
    s.reference = "ofirpress/attention_with_linear_biases fairseq/models/transformer.py get_slopes";
    s.formula = "score(i,j) = q_i.k_j/sqrt(d) - m_h (i - j)  (|i - j| when bidirectional);  P = 2^floor(log2 H): "
                "m_h = 2^(-8(h+1)/P) for h < P, then m_(P+k) = 2^(-4(2k+1)/P) for k < H - P (every other slope "
                "of 2P). When H is a power of 2, P = H and only the first rule applies";
    s.summary = "No position vectors at all: each head subtracts a penalty growing linearly with distance, steep "
                "heads look locally, shallow heads far. Used by BLOOM and MPT.";
    s.bias = alibiBias;
    s.headSlopes = [](const ParamSet&, int heads) { return alibiSlopes(heads); };
    return s;
}

} // namespace poslab::core
