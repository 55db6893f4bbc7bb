// SPDX-License-Identifier: MIT
#include "core/encodings/shaw.h"

#include "core/encodings/relativecommon.h"

#include <algorithm>
#include <cmath>

namespace poslab::core {

namespace {
long long clipIndex(long long rel, long long k)
{
    return std::clamp(rel, -k, k) + k;
}
} // namespace

MatrixD shawIndexMatrix(int lengthQ, int lengthK, int k)
{
    MatrixD m(lengthQ, lengthK);
    const int first = lengthQ == lengthK ? 0 : lengthK - lengthQ;
    for (int i = 0; i < lengthQ; ++i)
        for (int j = 0; j < lengthK; ++j)
            m(i, j) = double(clipIndex(j - (first + i), k));
    return m;
}

MatrixD shawKeyTable(int k, int dim, unsigned long long seed)
{
    return seededNormal(2 * k + 1, dim, 1.0, seed, 0x5A4B);
}
MatrixD shawValueTable(int k, int dim, unsigned long long seed)
{
    return seededNormal(2 * k + 1, dim, 1.0, seed, 0x5A56);
}

namespace {

MatrixD shawBuckets(const ParamSet& p, const PairContext& ctx)
{
    const long long k = p.integer("max_relative_position");
    MatrixD m(Eigen::Index(ctx.queries.size()), Eigen::Index(ctx.keys.size()));
    for (std::size_t i = 0; i < ctx.queries.size(); ++i)
        for (std::size_t j = 0; j < ctx.keys.size(); ++j)
            m(Eigen::Index(i), Eigen::Index(j)) = double(clipIndex(ctx.keys[j] - ctx.queries[i], k));
    return m;
}

void shawScore(const ParamSet& p, const ScoreInputs& in, ScoreOutputs& out)
{
    const int k = int(p.integer("max_relative_position"));
    const int d = int(in.q->cols());
    const MatrixD aK = shawKeyTable(k, d, (unsigned long long)p.integer("seed"));
    // q_i . a^K[r] for every query and every table row, then gathered by index (what t2t's
    // _relative_attention_inner does with a matmul against the gathered embeddings).
    const MatrixF qa = (*in.q) * aK.cast<float>().transpose();
    const MatrixD idx = shawBuckets(p, *in.ctx);
    const float scale = 1.0f / std::sqrt(float(d));
    MatrixF pos(out.logits.rows(), out.logits.cols());
    for (Eigen::Index i = 0; i < pos.rows(); ++i)
        for (Eigen::Index j = 0; j < pos.cols(); ++j)
            pos(i, j) = qa(i, Eigen::Index(idx(i, j))) * scale;
    if (in.wantTerms) {
        out.terms.push_back({"content", "q_i . k_j / sqrt(d)", out.logits});
        out.terms.push_back({"position_key", "q_i . a^K[clip(j - i, -k, k)] / sqrt(d)", pos});
        out.bias = pos;
    }
    out.logits += pos;
}

// One head: a^K ((2k+1) x d doubles and a float copy), q a^K^T (Lq x (2k+1)), the index (doubles) and the
// position term (floats); drawing a^K, the product, the gather.
SchemeCost shawCost(const ParamSet& p, const PairContext& ctx)
{
    const double rows = 2.0 * double(p.integer("max_relative_position")) + 1.0, d = double(ctx.headDim);
    const double lq = double(ctx.queries.size()), cells = lq * double(ctx.keys.size());
    return {rows * d * 12.0 + lq * rows * 4.0 + cells * 12.0, rows * d * (drawOps + 1.0) + lq * rows * d + cells * 2.0};
}

} // namespace

SchemeDescriptor shawScheme()
{
    SchemeDescriptor s;
    s.id = "shaw";
    s.name = "Relative position representations (Shaw et al.)";
    s.shortName = "Shaw et al.";
    s.trainedAs = TrainedAs::Shaw;
    s.family = "relative, learned";
    s.relation = Relation::Relative;
    s.relativePosition = "key - query";
    s.application = Application::KeysValues;
    s.origin = Origin::Learned;
    s.citation = "Shaw, Uszkoreit, Vaswani 2018, Self-Attention with Relative Position Representations (NAACL), "
                 "section 3, eq. 3-5";
    s.year = 2018;
    s.reference = "tensorflow/tensor2tensor tensor2tensor/layers/common_attention.py "
                  "_generate_relative_positions_matrix, dot_product_attention_relative";
    s.formula
        = "e_ij = q_i . (k_j + a^K[clip(j - i, -k, k)]) / sqrt(d);  z_i = sum_j alpha_ij (v_j + a^V[clip(j - i)])";
    s.summary = "A learned vector per clipped distance is added to each key (and value): beyond k tokens all "
                "distances look the same. Tables here are random, not trained.";
    s.params = {
        intParam("max_relative_position", 16, 1, 4096, "Clipping distance k: 2k + 1 table rows"),
        intParam("seed", 0, 0, (1ll << 31) - 1, "Seed of the a^K and a^V tables (random, not trained)"),
    };
    s.buckets = shawBuckets;
    s.score = shawScore;
    s.cost = shawCost;
    s.scoreHasBias = true;
    s.hasAttentionTerms = true;
    return s;
}

} // namespace poslab::core
