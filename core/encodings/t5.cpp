// SPDX-License-Identifier: MIT
#include "core/encodings/t5.h"

#include "core/encodings/relativecommon.h"
#include "core/errors.h"

#include <algorithm>
#include <cmath>

namespace poslab::core {

int t5Bucket(long long rel, bool bidirectional, int numBuckets, int maxDistance)
{
    int bucket = 0;
    int n = numBuckets;
    long long r = 0;
    if (bidirectional) {
        n /= 2;
        if (rel > 0)
            bucket += n;
        r = rel < 0 ? -rel : rel;
    } else {
        r = rel < 0 ? -rel : 0;
    }
    const int maxExact = n / 2;
    if (r < maxExact)
        return bucket + int(r);
    // The reference truncates a float32 value toward zero. Where the exact value is an integer (r a power
    // of the bucket ratio) rounding must not push it below, so values within 1e-9 of an integer snap to it.
    const double x = std::log(double(r) / maxExact) / std::log(double(maxDistance) / maxExact) * double(n - maxExact);
    const double nearest = std::round(x);
    const long long whole = std::fabs(x - nearest) < 1e-9 ? (long long)nearest : (long long)std::floor(x);
    return bucket + int(std::min<long long>(maxExact + whole, n - 1));
}

MatrixD t5BiasTable(int numBuckets, int heads, unsigned long long seed)
{
    return seededNormal(numBuckets, heads, 1.0, seed, 0x7535);
}

namespace {

bool bidirectionalOf(const ParamSet& p)
{
    return p.flag("bidirectional");
}

MatrixD t5Buckets(const ParamSet& p, const PairContext& ctx)
{
    const int nb = int(p.integer("relative_attention_num_buckets"));
    const int md = int(p.integer("relative_attention_max_distance"));
    const bool bi = bidirectionalOf(p);
    MatrixD m(Eigen::Index(ctx.queries.size()), Eigen::Index(ctx.keys.size()));
    for (std::size_t i = 0; i < ctx.queries.size(); ++i)
        for (std::size_t j = 0; j < ctx.keys.size(); ++j)
            m(Eigen::Index(i), Eigen::Index(j)) = t5Bucket(ctx.keys[j] - ctx.queries[i], bi, nb, md);
    return m;
}

MatrixD t5Bias(const ParamSet& p, const PairContext& ctx, int head)
{
    const int nb = int(p.integer("relative_attention_num_buckets"));
    const MatrixD table = t5BiasTable(nb, ctx.heads, (unsigned long long)p.integer("seed"));
    MatrixD b = t5Buckets(p, ctx);
    for (Eigen::Index i = 0; i < b.size(); ++i)
        b.data()[i] = table(Eigen::Index(b.data()[i]), head);
    return b;
}

// Hugging Face T5Attention.forward: scores = torch.matmul(query_states, key_states.transpose(3, 2)), then the
// position bias is added, with no 1/sqrt(d) (Mesh TensorFlow folds it into the initialisation of W_q:
// T5PreTrainedModel._init_weights draws q with std (d_model * d_kv)^-0.5). logit_scale = inv_sqrt_d is the
// scaled product of the other schemes.
double t5LogitScale(const ParamSet& p, int headDim)
{
    return p.choice("logit_scale") == "inv_sqrt_d" ? 1.0 / std::sqrt(double(headDim)) : 1.0;
}

void validateT5(const ParamSet& p, const TableContext&)
{
    const long long nb = p.integer("relative_attention_num_buckets");
    const long long md = p.integer("relative_attention_max_distance");
    const long long n = p.flag("bidirectional") ? nb / 2 : nb;
    if (n / 2 < 1)
        throw InputError("relative_attention_num_buckets " + std::to_string(nb) + " is too small: at least "
                         + std::string(p.flag("bidirectional") ? "4" : "2") + " buckets are needed");
    if (md <= n / 2)
        throw InputError("relative_attention_max_distance " + std::to_string(md) + " must exceed the "
                         + std::to_string(n / 2) + " exact buckets (relative_attention_num_buckets "
                         + std::to_string(nb) + (p.flag("bidirectional") ? ", bidirectional)" : ")"));
}

// One head: the whole buckets x heads table is drawn again (Raffel et al.'s relative_attention_bias embedding,
// one column per head), then a bucket (a logarithm) per pair and the bucket matrix in doubles.
SchemeCost t5Cost(const ParamSet& p, const PairContext& ctx)
{
    const double table = double(p.integer("relative_attention_num_buckets")) * double(std::max(ctx.heads, 1));
    const double cells = double(ctx.queries.size()) * double(ctx.keys.size());
    return {table * 8.0 + cells * 8.0, table * drawOps + cells * drawOps};
}

} // namespace

SchemeDescriptor t5Scheme()
{
    SchemeDescriptor s;
    s.id = "t5";
    s.name = "T5 relative position buckets";
    s.shortName = "T5";
    s.trainedAs = TrainedAs::T5Buckets;
    s.family = "relative bias";
    s.relation = Relation::Relative;
    s.relativePosition = "key - query";
    s.application = Application::ScoreBias;
    s.origin = Origin::Learned;
    s.citation = "Raffel et al. 2020, Exploring the Limits of Transfer Learning with a Unified Text-to-Text "
                 "Transformer (JMLR), section 2.1";
    s.year = 2020;
    s.reference = "huggingface/transformers src/transformers/models/t5/modeling_t5.py "
                  "T5Attention._relative_position_bucket, compute_bias";
    s.formula = "score(i,j) = c q_i.k_j + b_h[bucket(pos_j - pos_i)], c = 1 (logit_scale none, as T5's code) or "
                "1/sqrt(d)   (relative position = key - query; "
                "per direction n' = n/2 buckets when bidirectional, n' = n causal; distances below n'/2 get a bucket "
                "each, then n'/2 + floor(ln(r/(n'/2)) / ln(max_distance/(n'/2)) * n'/2), at most n' - 1)";
    s.summary = "One scalar per head and distance bucket: one bucket per distance for near tokens (0-7 "
                "bidirectional, 0-15 causal, at 32 buckets), logarithmic bins for far ones. At the defaults (32, "
                "128) the last bucket starts at distance 91 bidirectional and 113 causal, and holds every longer "
                "distance. Bias values here are random, not trained.";
    s.params = {
        intParam("relative_attention_num_buckets", 32, 2, 1024,
                 "Number of buckets n; per direction n' = n/2 when "
                 "bidirectional, n' = n causal; distances below n'/2 get one bucket each (0-7 bidirectional, 0-15 "
                 "causal at 32)"),
        intParam("relative_attention_max_distance", 128, 2, 1 << 20,
                 "Scale D of the logarithmic bins: distance D "
                 "would map one past the last bucket, so the last bucket starts earlier, at ceil(m (D/m)^((n'-m-1)/"
                 "(n'-m))) with m = n'/2 (91 bidirectional, 113 causal at 32 buckets and 128), and holds every "
                 "longer distance",
                 true),
        boolParam("bidirectional", true,
                  "Encoder (true: separate buckets for keys after the query) or decoder "
                  "(false: keys after the query share bucket 0)"),
        intParam("seed", 0, 0, (1ll << 31) - 1, "Seed of the per-head bias values (random, not trained)"),
        choiceParam("logit_scale", "none", {"none", "inv_sqrt_d"},
                    "Factor on q.k: none (1, as Hugging Face T5Attention, which multiplies q and k without scaling; "
                    "Mesh TensorFlow folds 1/sqrt(d) into the initialisation of W_q) or inv_sqrt_d (1/sqrt(d), as "
                    "the other schemes)"),
    };
    s.logitScale = t5LogitScale;
    s.logitScaleText = "logit_scale: 1 (none, the default, as T5's code) or 1/sqrt(d) (inv_sqrt_d)";
    s.bias = t5Bias;
    s.cost = t5Cost;
    s.buckets = t5Buckets;
    s.logBuckets = true; // exact below num_buckets/2 (bidirectional: num_buckets/4 each way), then logarithmic
    s.validate = validateT5;
    return s;
}

} // namespace poslab::core
