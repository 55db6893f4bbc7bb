// SPDX-License-Identifier: MIT
#include "core/encodings/transformer_xl.h"

#include "core/encodings/relativecommon.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace poslab::core {

namespace {

void txlScore(const ParamSet& p, const ScoreInputs& in, ScoreOutputs& out)
{
    const MatrixF& q = *in.q;
    const MatrixF& k = *in.k;
    const int d = int(q.cols());
    const auto seed = std::uint64_t(p.integer("seed"));
    const double base = p.real("base");
    const PairContext& ctx = *in.ctx;
    const MatrixD wr = seededNormal(d, d, 1.0 / std::sqrt(double(d)), seed, mixSeed(0x7C1, std::uint64_t(in.head)));
    const MatrixD uv = seededNormal(2, d, 1.0, seed, mixSeed(0x7C2, std::uint64_t(in.head)));

    // Distinct distances (at most Lq + Lk - 1 for ranges), each projected once: r_delta = W_R R_delta.
    std::unordered_map<Position, int> slot;
    std::vector<Position> deltas;
    Eigen::MatrixXi index(Eigen::Index(ctx.queries.size()), Eigen::Index(ctx.keys.size()));
    for (std::size_t i = 0; i < ctx.queries.size(); ++i)
        for (std::size_t j = 0; j < ctx.keys.size(); ++j) {
            const Position delta = ctx.queries[i] - ctx.keys[j];
            auto [it, added] = slot.try_emplace(delta, int(deltas.size()));
            if (added)
                deltas.push_back(delta);
            index(Eigen::Index(i), Eigen::Index(j)) = it->second;
        }
    MatrixF r(Eigen::Index(deltas.size()), d);
    for (std::size_t t = 0; t < deltas.size(); ++t) {
        const std::vector<double> s = relativeSinusoid(double(deltas[t]), d, base);
        const Eigen::Map<const Eigen::VectorXd> sv(s.data(), d);
        r.row(Eigen::Index(t)) = (wr * sv).cast<float>().transpose();
    }
    const float scale = 1.0f / std::sqrt(float(d));
    const MatrixF qr = q * r.transpose();                               // Lq x deltas
    const Eigen::VectorXf uk = k * uv.row(0).cast<float>().transpose(); // Lk
    const Eigen::VectorXf vr = r * uv.row(1).cast<float>().transpose(); // deltas
    MatrixF b(out.logits.rows(), out.logits.cols()), c(b.rows(), b.cols()), dd(b.rows(), b.cols());
    for (Eigen::Index i = 0; i < b.rows(); ++i)
        for (Eigen::Index j = 0; j < b.cols(); ++j) {
            const int t = index(i, j);
            b(i, j) = qr(i, t) * scale;
            c(i, j) = uk(j) * scale;
            dd(i, j) = vr(t) * scale;
        }
    if (in.wantTerms) {
        out.terms.push_back({"content_content", "(a) q_i . k_j / sqrt(d)", out.logits});
        out.terms.push_back({"content_position", "(b) q_i . W_R R_{i-j} / sqrt(d)", b});
        out.terms.push_back({"global_content", "(c) u . k_j / sqrt(d)", c});
        out.terms.push_back({"global_position", "(d) v . W_R R_{i-j} / sqrt(d)", dd});
        out.bias = b + c + dd;
    }
    out.logits += b + c + dd;
}

// One head: W_R (d x d doubles), the distinct distances (at most Lq Lk, and at most maxQ + maxK + 1) with
// r_delta (floats) and their sinusoids, q r^T (Lq x distances), the index (ints) and three terms (floats);
// drawing W_R, projecting each distance, the product.
SchemeCost txlCost(const ParamSet&, const PairContext& ctx)
{
    const double d = double(ctx.headDim), lq = double(ctx.queries.size()), lk = double(ctx.keys.size());
    const double cells = lq * lk;
    const double deltas = std::min(
        cells, lq == 0 || lk == 0 ? 0.0 : double(ctx.queries.maxValue()) + double(ctx.keys.maxValue()) + 1.0);
    return {d * d * 8.0 + deltas * (d * 4.0 + 16.0 + 24.0) + lq * deltas * 4.0 + cells * 16.0,
            d * d * drawOps + deltas * (d * drawOps + d * d) + lq * deltas * d + cells * (8.0 + drawOps)};
}

} // namespace

SchemeDescriptor transformerXlScheme()
{
    SchemeDescriptor s;
    s.id = "transformer_xl";
    s.name = "Transformer-XL relative attention";
    s.shortName = "Transformer-XL";
    s.trainedAs = TrainedAs::TransformerXl;
    s.family = "relative, learned";
    s.relation = Relation::Relative;
    s.relativePosition = "query - key";
    // All four terms are added to the attention score (Dai et al. 2019, section 3.3: "inject the relative
    // positional information dynamically into the attention score"); nothing is added to the input or rotated.
    s.application = Application::ScoreBias;
    s.origin = Origin::Mixed;
    s.citation = "Dai et al. 2019, Transformer-XL: Attentive Language Models Beyond a Fixed-Length Context (ACL), "
                 "section 3.3";
    s.year = 2019;
    s.reference = "kimiyoung/transformer-xl pytorch/mem_transformer.py RelPartialLearnableMultiHeadAttn, "
                  "PositionalEmbedding";
    s.formula = "A_ij = q_i.k_j + q_i.W_R R_{i-j} + u.k_j + v.W_R R_{i-j}   (all / sqrt(d); R sinusoidal)";
    s.summary = "Four terms: content-content, content-position, a global content bias u and a global position "
                "bias v. R is the fixed sinusoid of the distance; W_R, u and v are random here, not trained.";
    s.params = {
        realParam("base", 10000.0, 100.0, 1.0e7, "Wavelength base of the relative sinusoid R", true),
        intParam("seed", 0, 0, (1ll << 31) - 1, "Seed of W_R, u and v (random, not trained)"),
    };
    s.needsEvenDim = true;
    s.score = txlScore;
    s.cost = txlCost;
    s.scoreHasBias = true;
    s.hasAttentionTerms = true;
    return s;
}

} // namespace poslab::core
