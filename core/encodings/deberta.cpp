// SPDX-License-Identifier: MIT
#include "core/encodings/deberta.h"

#include "core/encodings/relativecommon.h"
#include "core/errors.h"

#include <algorithm>
#include <cmath>

namespace poslab::core {

long long debertaBucket(long long rel, int bucketSize, int maxPosition, BucketPrecision precision)
{
    if (bucketSize <= 0 || maxPosition <= 0)
        return rel;
    const long long mid = bucketSize / 2;
    const long long a = rel < 0 ? -rel : rel;
    if (a <= mid)
        return rel;
    long long up = 0;
    if (precision == BucketPrecision::Float32) {
        // Hugging Face: torch.log(abs_pos / mid) / torch.log(torch.tensor((max_position - 1) / mid)) * (mid - 1)
        // in float32: the integer division promotes to float32, the Python float ratio is rounded to float32
        // by torch.tensor, and every operation rounds to float32.
        const float ratio = float(a) / float(mid);
        const float span = float(double(maxPosition - 1) / double(mid));
        const float num = std::log(ratio);
        const float den = std::log(span);
        const float quotient = num / den;
        const float x = quotient * float(mid - 1);
        up = (long long)std::ceil(x);
    } else {
        // microsoft/DeBERTa da_utils.py: np.log(abs_pos / mid) / np.log((max_position - 1) / mid) * (mid - 1).
        const double x
            = std::log(double(a) / double(mid)) / std::log(double(maxPosition - 1) / double(mid)) * double(mid - 1);
        up = (long long)std::ceil(x);
    }
    const long long bucket = up + mid;
    return rel < 0 ? -bucket : bucket;
}

namespace {
int spanOf(const ParamSet& p);
} // namespace

long long debertaTableRow(const ParamSet& p, long long rel)
{
    const BucketPrecision precision
        = p.choice("bucket_precision") == "float64" ? BucketPrecision::Float64 : BucketPrecision::Float32;
    const long long span = spanOf(p);
    return std::clamp(
        debertaBucket(rel, int(p.integer("position_buckets")), int(p.integer("max_relative_positions")), precision),
        -span, span - 1);
}

namespace {

int spanOf(const ParamSet& p)
{
    const long long b = p.integer("position_buckets");
    return int(b > 0 ? b : p.integer("max_relative_positions"));
}

MatrixD debertaBuckets(const ParamSet& p, const PairContext& ctx)
{
    const int b = int(p.integer("position_buckets"));
    const int m = int(p.integer("max_relative_positions"));
    const BucketPrecision precision
        = p.choice("bucket_precision") == "float64" ? BucketPrecision::Float64 : BucketPrecision::Float32;
    MatrixD out(Eigen::Index(ctx.queries.size()), Eigen::Index(ctx.keys.size()));
    for (std::size_t i = 0; i < ctx.queries.size(); ++i)
        for (std::size_t j = 0; j < ctx.keys.size(); ++j)
            out(Eigen::Index(i), Eigen::Index(j))
                = double(debertaBucket(ctx.queries[i] - ctx.keys[j], b, m, precision));
    return out;
}

void debertaScore(const ParamSet& p, const ScoreInputs& in, ScoreOutputs& out)
{
    const MatrixF& q = *in.q;
    const MatrixF& k = *in.k;
    const int d = int(q.cols());
    const int s = spanOf(p);
    const auto seed = std::uint64_t(p.integer("seed"));
    const MatrixF kr = seededNormal(2 * s, d, 1.0, seed, mixSeed(0xDEB1, std::uint64_t(in.head))).cast<float>();
    const MatrixF qr = seededNormal(2 * s, d, 1.0, seed, mixSeed(0xDEB2, std::uint64_t(in.head))).cast<float>();
    const MatrixD delta = debertaBuckets(p, *in.ctx);
    const MatrixF c2pAll = q * kr.transpose(); // Lq x 2s
    const MatrixF p2cAll = k * qr.transpose(); // Lk x 2s
    // Every term uses 1/sqrt(d * scale_factor), scale_factor = 1 + |{c2p, p2c}| = 3.
    const float scale = 1.0f / std::sqrt(3.0f * float(d));
    MatrixF c2p(out.logits.rows(), out.logits.cols()), p2c(c2p.rows(), c2p.cols());
    for (Eigen::Index i = 0; i < c2p.rows(); ++i)
        for (Eigen::Index j = 0; j < c2p.cols(); ++j) {
            const auto c = Eigen::Index(std::clamp<long long>((long long)delta(i, j) + s, 0, 2ll * s - 1));
            c2p(i, j) = c2pAll(i, c) * scale;
            p2c(i, j) = p2cAll(j, c) * scale;
        }
    // out.logits arrives as q.k/sqrt(3d): the scheme's logit scale (debertaLogitScale).
    if (in.wantTerms) {
        out.terms.push_back({"c2c", "content to content: q_i . k_j / sqrt(3d)", out.logits});
        out.terms.push_back({"c2p", "content to position: q_i . K^r[delta(i,j)] / sqrt(3d)", c2p});
        out.terms.push_back({"p2c", "position to content: k_j . Q^r[delta(i,j)] / sqrt(3d)", p2c});
        out.bias = c2p + p2c;
    }
    out.logits += c2p + p2c;
}

// He et al. 2021, eq. 4: every term over sqrt(3d); Hugging Face DisentangledSelfAttention: scale_factor = 1 +
// len(pos_att_type) = 3 with c2p and p2c, scale = sqrt(d * scale_factor).
double debertaLogitScale(const ParamSet&, int headDim)
{
    return 1.0 / std::sqrt(3.0 * double(headDim));
}

void validateDeberta(const ParamSet& p, const TableContext&)
{
    const long long b = p.integer("position_buckets");
    const long long m = p.integer("max_relative_positions");
    if (b > 0 && (b < 4 || m - 1 <= b / 2))
        throw InputError("position_buckets " + std::to_string(b)
                         + " needs at least 4 buckets and "
                           "max_relative_positions - 1 above position_buckets/2 (got max_relative_positions "
                         + std::to_string(m) + ")");
}

// One head: the two position tables (2s x d doubles, each with a float copy), their products with q and k
// (Lq x 2s, Lk x 2s), the bucket index (doubles) and c2p, p2c (floats).
SchemeCost debertaCost(const ParamSet& p, const PairContext& ctx)
{
    const double rows = 2.0 * double(spanOf(p)), d = double(ctx.headDim);
    const double lq = double(ctx.queries.size()), lk = double(ctx.keys.size()), cells = lq * lk;
    return {2.0 * rows * d * 12.0 + (lq + lk) * rows * 4.0 + cells * 16.0,
            2.0 * rows * d * (drawOps + 1.0) + (lq + lk) * rows * d + cells * (drawOps + 4.0)};
}

} // namespace

SchemeDescriptor debertaScheme()
{
    SchemeDescriptor s;
    s.id = "deberta";
    s.name = "DeBERTa disentangled attention";
    s.shortName = "DeBERTa";
    s.family = "relative bias";
    s.relation = Relation::Relative;
    s.relativePosition = "query - key";
    s.application = Application::ScoreBias;
    s.origin = Origin::Learned;
    s.citation = "He, Liu, Gao, Chen 2021, DeBERTa: Decoding-enhanced BERT with Disentangled Attention (ICLR), "
                 "section 3.1, eq. 4";
    s.year = 2021;
    s.reference = "huggingface/transformers src/transformers/models/deberta_v2/modeling_deberta_v2.py "
                  "make_log_bucket_position, build_relative_position, disentangled_attention_bias";
    s.formula = "A_ij = (q_i.k_j + q_i.K^r[delta(i,j)] + k_j.Q^r[delta(i,j)]) / sqrt(3d),  "
                "delta(i,j) = logbucket(pos_i - pos_j)  (query - key), as the reference code indexes both terms; "
                "the paper's eq. 4 writes the p2c term k_j.Q^r[delta(j,i)] (key - query), which reads Q^r "
                "mirrored: the two agree only at i = j";
    s.summary = "Content and position kept apart: content-to-position and position-to-content terms read a "
                "relative table at log-bucketed distances. Tables here are random, not trained.";
    s.params = {
        intParam("position_buckets", 256, 0, 4096, "Log buckets b (0: no bucketing, clamp at max_relative_positions)"),
        intParam("max_relative_positions", 512, 2, 1 << 20, "Largest distance M the log buckets reach", true),
        intParam("seed", 0, 0, (1ll << 31) - 1, "Seed of the K^r and Q^r tables (random, not trained)"),
        choiceParam("bucket_precision", "float32", {"float32", "float64"},
                    "Arithmetic of the log bucket's ceil: float32 as Hugging Face (torch), float64 as the original "
                    "microsoft/DeBERTa da_utils.py (numpy); they differ where the value is within rounding of an "
                    "integer (e.g. position_buckets 128, max_relative_positions 513, distance 128: 85 vs 86)"),
    };
    s.buckets = debertaBuckets;
    s.logBuckets = true; // make_log_bucket_position: exact inside position_buckets/2, logarithmic beyond
    s.logitScale = debertaLogitScale;
    s.logitScaleText = "1/sqrt(3d) (three terms: c2c, c2p, p2c)";
    s.score = debertaScore;
    s.cost = debertaCost;
    s.scoreHasBias = true;
    s.hasAttentionTerms = true;
    s.validate = validateDeberta;
    return s;
}

} // namespace poslab::core
