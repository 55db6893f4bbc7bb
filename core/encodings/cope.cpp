// SPDX-License-Identifier: MIT
#include "core/encodings/cope.h"

#include "core/encodings/relativecommon.h"

#include <algorithm>
#include <cmath>

namespace poslab::core {

MatrixF copeBias(const MatrixF& logits, const MaskMatrix& mask, const MatrixF& z, int nposMax, MatrixF* gates,
                 MatrixF* positions)
{
    MatrixF bias;
    copeSweep(
        logits, [&](Eigen::Index i, Eigen::Index j) { return mask(i, j) != 0; }, z, nposMax, bias, gates, positions);
    return bias;
}

namespace {

void copeScore(const ParamSet& p, const ScoreInputs& in, ScoreOutputs& out)
{
    const int npos = int(p.integer("npos_max"));
    const int d = int(in.q->cols());
    const MatrixF e
        = seededNormal(npos, d, 1.0, std::uint64_t(p.integer("seed")), mixSeed(0xC0BE, std::uint64_t(in.head)))
              .cast<float>();                  // row n = e[n]
    const MatrixF z = (*in.q) * e.transpose(); // Lq x npos
    MatrixF gates, positions;
    MatrixF bias
        = copeBias(out.logits, *in.mask, z, npos, in.wantTerms ? &gates : nullptr, in.wantTerms ? &positions : nullptr);
    // The paper's listing adds z after q.k is divided by sqrt(d); facebookresearch/RAM's ContextPosSelfAttn
    // by default adds it first and divides the sum (its --cope-nodiv flag gives the paper's order).
    if (p.choice("position_logits") == "scaled")
        bias /= std::sqrt(float(d));
    if (in.wantTerms) {
        out.terms.push_back({"content", "a_ij = q_i . k_j / sqrt(d)", out.logits});
        out.terms.push_back({"gates", "g_ij = sigmoid(a_ij)", gates});
        out.terms.push_back({"positions", "p_ij = sum_{t >= j} g_it, clamped to npos_max - 1", positions});
        out.terms.push_back({"position_bias",
                             p.choice("position_logits") == "scaled"
                                 ? "z_i[p_ij] / sqrt(d), interpolated between floor and ceil"
                                 : "z_i[p_ij], interpolated between floor and ceil",
                             bias});
        out.bias = bias;
    }
    out.logits += bias;
}

// One head: e (npos x d, drawn in doubles, then a float copy), z = q e^T (Lq x npos), the gates, positions and
// bias (three Lq x Lk floats); drawing e, the product, and the gate sums.
SchemeCost copeCost(const ParamSet& p, const PairContext& ctx)
{
    const double npos = double(p.integer("npos_max")), d = double(ctx.headDim);
    const double lq = double(ctx.queries.size()), cells = lq * double(ctx.keys.size());
    return {npos * d * 12.0 + lq * npos * 4.0 + 3.0 * cells * 4.0,
            npos * d * (drawOps + 1.0) + lq * npos * d + cells * (drawOps + 4.0)};
}

} // namespace

SchemeDescriptor copeScheme()
{
    SchemeDescriptor s;
    s.id = "cope";
    s.name = "CoPE (contextual position encoding)";
    s.shortName = "CoPE";
    s.trainedAs = TrainedAs::Cope;
    s.family = "contextual";
    s.relation = Relation::Contextual;
    s.application = Application::ScoreBias;
    s.origin = Origin::Learned;
    s.citation = "Golovneva, Wang, Weston, Sukhbaatar 2024, Contextual Position Encoding: Learning to Count "
                 "What's Important (arXiv:2405.18719), section 3";
    s.year = 2024;
    s.reference = "facebookresearch/RAM projects/cope/src/cope/context_position.py ContextPosSelfAttn.forward";
    s.formula = "g_ij = sigmoid(q_i.k_j/sqrt(d)),  p_ij = sum_{t=j}^{i} g_it,  "
                "score = q_i.k_j/sqrt(d) + interp(q_i.e[floor p], q_i.e[ceil p])  (position logits added after "
                "dividing q.k by sqrt(d), as the paper's listing; position_logits = scaled: (q.k + z)/sqrt(d), the "
                "cited code's default)";
    s.summary = "Position is what the content says counts: each query gates the keys, and the distance to a key "
                "is the sum of the gates in between. Position embeddings here are random, not trained.";
    s.params = {
        intParam("npos_max", 64, 2, 65536,
                 "Number of integer positions with an embedding; counts are clamped to "
                 "npos_max - 1"),
        intParam("seed", 0, 0, (1ll << 31) - 1, "Seed of the position embeddings e (random, not trained)"),
        choiceParam("position_logits", "unscaled", {"unscaled", "scaled"},
                    "unscaled: q.k/sqrt(d) + z, position logits added after the division (the paper's listing; "
                    "RAM's --cope-nodiv); scaled: (q.k + z)/sqrt(d), added before it (RAM ContextPosSelfAttn's "
                    "default). Gates use q.k/sqrt(d) either way"),
    };
    s.score = copeScore;
    s.cost = copeCost;
    s.scoreHasBias = true;
    s.hasAttentionTerms = true;
    return s;
}

} // namespace poslab::core
