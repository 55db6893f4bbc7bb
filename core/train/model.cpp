// SPDX-License-Identifier: MIT
#include "core/train/model.h"

#include "core/encodings/fire.h"
#include "core/encodings/kerple.h"
#include "core/encodings/learned.h"
#include "core/encodings/relativecommon.h"
#include "core/encodings/t5.h"
#include "core/errors.h"
#include "core/random.h"
#include "core/rotary.h"
#include "core/spatial.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace poslab::core::train {

namespace {

constexpr int chunkSize = 16;

/// The registry entry of @p id when the trainer can train it (its descriptor's trainedAs); else InputError naming
/// the schemes that can and those that cannot.
const SchemeDescriptor& trainableOrThrow(const std::string& id)
{
    if (const SchemeDescriptor* s = findScheme(id); s && s->trainable())
        return *s;
    std::string can;
    std::vector<std::string> cannot;
    for (const SchemeDescriptor& t : schemes()) {
        if (t.trainable())
            can += (can.empty() ? "" : ", ") + t.id;
        else
            cannot.push_back(t.id);
    }
    std::string untrained; // "deberta and irope"
    for (std::size_t i = 0; i < cannot.size(); ++i)
        untrained += (i == 0 ? "" : i + 1 == cannot.size() ? " and " : ", ") + cannot[i];
    // A grid or sequence scheme is a scheme, not a typo: say why it cannot train (the task is a 1-D token
    // sequence), not that it is unknown.
    if (const SpatialSchemeDescriptor* spatial = findSpatialScheme(id))
        throw InputError("scheme '" + id + "' is not trainable: it places "
                         + std::string(spatial->input == SpatialInput::Grid ? "patches on a grid"
                                                                            : "text, image and video tokens by 3-D ids")
                         + " and train's tasks are 1-D token sequences; pick a trainable scheme: " + can);
    if (!findScheme(id))
        throw InputError("unknown scheme '" + id + "'; trainable: " + can);
    throw InputError("scheme '" + id + "' cannot be trained here; trainable: " + can + " (" + untrained
                     + (cannot.size() == 1 ? " has" : " have") + " no backward pass yet)");
}

PositionList range0(int T)
{
    return PositionList::range(0, T);
}

} // namespace

std::vector<std::string> trainableSchemes()
{
    std::vector<std::string> out;
    for (const SchemeDescriptor& s : schemes())
        if (s.trainable())
            out.push_back(s.id);
    return out;
}

void checkTrainable(const std::string& id)
{
    trainableOrThrow(id);
}

const ParamLayout::Block& ParamLayout::find(const std::string& name) const
{
    for (const Block& b : blocks)
        if (b.name == name)
            return b;
    throw std::out_of_range("no parameter block " + name);
}

template <typename T> struct Network<T>::Impl {
    const SchemeDescriptor* scheme = nullptr;
    ParamSet params;
    TrainedAs kind = TrainedAs::NoPosition;
    int hd = 0;
    /// The factor on q.k: the scheme's own (logitScaleOf; T5 1 by default as Hugging Face T5Attention, the rest
    /// 1/sqrt(hd)). It also multiplies the position terms the reference scales with q.k (CoPE, Shaw, Transformer-XL).
    double logitScale = 0.0;
    // rotary
    int pairs = 0;
    std::vector<int> pairA, pairB;
    struct RotaryTables {
        Mat<T> cosQ, sinQ, cosK, sinK;
    };
    std::map<int, RotaryTables> rotaryCache;
    std::map<int, Mat<T>> additiveCache;
    std::map<int, std::vector<Mat<T>>> fixedBiasCache;
    std::map<int, Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> bucketCache;
    std::map<int, Mat<T>> fireInputCache; // T x T normalised distances
    // kerple
    bool kerpleLog = true;
    int t5Buckets = 0;
    int fireWidth = 0;
    // cope
    int copeNpos = 0;
    T copePosScale = T(1);
    // shaw
    int shawRows = 0; // 2k + 1
    const Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>* shawIndex = nullptr;
    // transformer_xl: R_delta for delta = 0..T-1 (T x width), per length
    std::map<int, Mat<T>> txlSinusoidCache;
    const Mat<T>* txlSinusoid = nullptr;

    // per call
    const Mat<T>* add = nullptr;
    Mat<T> learnedAdd;
    const RotaryTables* rot = nullptr;
    const std::vector<Mat<T>>* bias = nullptr;
    std::vector<Mat<T>> trainedBias;

    struct LayerActs {
        Mat<T> xin, ln1, qkv, qk, att, xmid, ln2, hpre, act, th; // th: GELU's tanh, kept for the backward pass
        Vec<T> m1, r1, m2, r2;
        std::vector<Mat<T>> p;
    };
    struct Work {
        std::vector<LayerActs> layers;
        Mat<T> x, xf, lnf, logits;
        Vec<T> mf, rf;
        std::vector<T> grad;
        Mat<T> dAdd;
        Mat<T> copeBias, copeGates, copePositions; // scratch of one head (cope; shaw and transformer_xl use copeBias)
        Mat<T> txlR, txlDR;                        // transformer_xl: R W_R of the layer (Tc x width) and its gradient
        std::vector<Mat<T>> dBias;
        double loss = 0.0;
    };
    std::vector<Work> work;
};

template <typename T>
Network<T>::Network(const ModelConfig& c, const SchemeDescriptor& scheme, const ParamSet& params)
    : m_config(c)
    , m_impl(std::make_unique<Impl>())
{
    if (c.layers < 1 || c.layers > 4)
        throw InputError("--layers " + std::to_string(c.layers) + " is out of range; allowed: 1 to 4");
    if (c.width < 8 || c.width > 256)
        throw InputError("--width " + std::to_string(c.width) + " is out of range; allowed: 8 to 256");
    if (c.heads < 1 || c.heads > 8)
        throw InputError("--heads " + std::to_string(c.heads) + " is out of range; allowed: 1 to 8");
    if (c.width % c.heads != 0)
        throw InputError("width " + std::to_string(c.width) + " is not divisible by heads " + std::to_string(c.heads));
    Impl& im = *m_impl;
    im.scheme = &scheme;
    im.params = params;
    im.kind = trainableOrThrow(scheme.id).trainedAs;
    im.hd = c.width / c.heads;
    im.logitScale = logitScaleOf(scheme, params, im.hd);
    if (im.kind == TrainedAs::Rotation && im.hd % 2 != 0)
        throw InputError("head dimension " + std::to_string(im.hd) + " (width / heads) is odd; " + scheme.id
                         + " rotates pairs of dimensions");
    if (im.kind == TrainedAs::TransformerXl && c.width % 2 != 0)
        throw InputError("width " + std::to_string(c.width)
                         + " is odd; transformer_xl's sinusoid R needs pairs of "
                           "dimensions");
    if (im.kind == TrainedAs::FixedTable && c.width % 2 != 0)
        throw InputError("width " + std::to_string(c.width) + " is odd; sinusoidal needs pairs of dimensions");
    if (im.kind == TrainedAs::LearnedTable && c.learnedRows < 1)
        throw InputError("the learned table needs at least one row");

    const int d = c.width, V = c.vocab, H = c.heads;
    auto add = [&](std::string name, std::size_t n, bool decay = true) {
        m_layout.blocks.push_back({std::move(name), m_layout.total, n, decay});
        m_layout.total += n;
    };
    add("wte", std::size_t(V) * d);
    if (im.kind == TrainedAs::LearnedTable)
        add("pos.table", std::size_t(c.learnedRows) * d);
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "l" + std::to_string(l) + ".";
        add(p + "ln1.w", d);
        add(p + "ln1.b", d);
        add(p + "wqkv", std::size_t(d) * 3 * d);
        add(p + "bqkv", std::size_t(3) * d);
        add(p + "wo", std::size_t(d) * d);
        add(p + "bo", d);
        add(p + "ln2.w", d);
        add(p + "ln2.b", d);
        add(p + "w1", std::size_t(d) * 4 * d);
        add(p + "b1", std::size_t(4) * d);
        add(p + "w2", std::size_t(4) * d * d);
        add(p + "b2", d);
    }
    add("lnf.w", d);
    add("lnf.b", d);
    if (!c.tied)
        add("wout", std::size_t(d) * V);
    if (im.kind == TrainedAs::T5Buckets) {
        im.t5Buckets = int(params.integer("relative_attention_num_buckets"));
        add("pos.t5", std::size_t(im.t5Buckets) * H);
    } else if (im.kind == TrainedAs::Kerple) {
        im.kerpleLog = params.choice("variant") == "log";
        add("pos.r1", H);
        add("pos.r2", H);
    } else if (im.kind == TrainedAs::Fire) {
        im.fireWidth = int(params.integer("mlp_width"));
        add("pos.fire.w1", im.fireWidth);
        add("pos.fire.b1", im.fireWidth);
        add("pos.fire.w2", std::size_t(H) * im.fireWidth);
        add("pos.fire.b2", H);
    } else if (im.kind == TrainedAs::Cope) {
        // facebookresearch/RAM ContextPosSelfAttn: pos_emb (1, head_dim, npos) per layer, shared by the heads.
        im.copeNpos = int(params.integer("npos_max"));
        im.copePosScale = params.choice("position_logits") == "scaled" ? T(1.0 / std::sqrt(double(im.hd))) : T(1);
        for (int l = 0; l < c.layers; ++l)
            add("pos.cope.l" + std::to_string(l), std::size_t(im.copeNpos) * im.hd);
    } else if (im.kind == TrainedAs::Shaw) {
        // tensor2tensor _generate_relative_positions_embeddings: one [2k + 1, depth] table per layer (its
        // variable scope), depth = the head dimension, shared by the heads (Shaw et al. 2018, section 3.3).
        im.shawRows = 2 * int(params.integer("max_relative_position")) + 1;
        for (int l = 0; l < c.layers; ++l)
            add("pos.shaw.l" + std::to_string(l), std::size_t(im.shawRows) * im.hd);
    } else if (im.kind == TrainedAs::TransformerXl) {
        // kimiyoung/transformer-xl mem_transformer.py: r_w_bias (u) and r_r_bias (v), n_head x d_head, on the model
        // (shared by the layers, untie_r off); r_net = Linear(d_model, n_head * d_head, bias=False) per layer,
        // applied to pos_emb, the d_model-wide sinusoid of the distance.
        add("pos.txl.u", std::size_t(H) * im.hd);
        add("pos.txl.v", std::size_t(H) * im.hd);
        for (int l = 0; l < c.layers; ++l)
            add("pos.txl.l" + std::to_string(l) + ".wr", std::size_t(d) * d);
    }
    m_params.assign(m_layout.total, T(0));

    if (im.kind == TrainedAs::Rotation) {
        TableContext ctx{im.hd, range0(1), std::nullopt};
        const RotarySides sides = rotarySpecs(scheme, params, ctx);
        im.pairs = sides.query.rotaryDim / 2;
        for (int i = 0; i < im.pairs; ++i) {
            const auto [a, b] = pairDims(sides.query.layout, sides.query.rotaryDim, i);
            im.pairA.push_back(a);
            im.pairB.push_back(b);
        }
    }
}

template <typename T> Network<T>::~Network() = default;

template <typename T> void Network<T>::initialise()
{
    Impl& im = *m_impl;
    const int d = m_config.width, H = m_config.heads;
    SeededRandom rng(mixSeed(m_config.seed, 0x7A11));
    const double std0 = 0.02, stdProj = 0.02 / std::sqrt(2.0 * m_config.layers);
    for (const ParamLayout::Block& b : m_layout.blocks) {
        T* p = m_params.data() + b.offset;
        const std::string& n = b.name;
        auto endsWith = [&](const char* s) {
            return n.size() >= std::strlen(s) && n.compare(n.size() - std::strlen(s), std::string::npos, s) == 0;
        };
        if (n == "pos.table") {
            // The scheme's own initial table (learned.h: seeded N(0, init_std^2)).
            const MatrixF t = learnedBaseTable(m_config.learnedRows, d, im.params.real("init_std"),
                                               (unsigned long long)im.params.integer("seed"));
            for (std::size_t i = 0; i < b.size; ++i)
                p[i] = T(t.data()[i]);
        } else if (n == "pos.t5") {
            // core's seeded table times d^-0.5: Hugging Face T5PreTrainedModel._init_weights draws
            // relative_attention_bias from N(0, (factor * d_model^-0.5)^2).
            const MatrixD t = t5BiasTable(im.t5Buckets, H, (unsigned long long)im.params.integer("seed"));
            for (std::size_t i = 0; i < b.size; ++i)
                p[i] = T(t.data()[i] / std::sqrt(double(d)));
        } else if (n == "pos.r1" || n == "pos.r2") {
            const double v = im.params.real(n == "pos.r1" ? "r1" : "r2");
            for (std::size_t i = 0; i < b.size; ++i)
                p[i] = T(v);
        } else if (n.rfind("pos.cope.", 0) == 0) {
            // facebookresearch/RAM ContextPosSelfAttn: pos_emb = torch.zeros(1, head_dim, npos), trained.
            std::fill(p, p + b.size, T(0));
        } else if (n.rfind("pos.shaw.", 0) == 0) {
            // tensor2tensor creates it with tf.get_variable and no initializer: the scope's, else glorot_uniform,
            // U(-a, a), a = sqrt(6 / (rows + depth)); we use glorot_uniform.
            const double a = std::sqrt(6.0 / double(im.shawRows + im.hd));
            for (std::size_t i = 0; i < b.size; ++i)
                p[i] = T((2.0 * rng.uniform() - 1.0) * a);
        } else if (n.rfind("pos.txl.", 0) == 0) {
            // kimiyoung/transformer-xl train.py weights_init: init_weight (normal, init_std 0.02) for r_w_bias,
            // r_r_bias and every Linear weight (r_net).
            for (std::size_t i = 0; i < b.size; ++i)
                p[i] = T(rng.normal() * 0.02);
        } else if (n.rfind("pos.fire.", 0) == 0) {
            // nn.Linear's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)); fan_in 1 for w1, b1 and width for w2, b2.
            const double bound
                = (n == "pos.fire.w1" || n == "pos.fire.b1") ? 1.0 : 1.0 / std::sqrt(double(im.fireWidth));
            for (std::size_t i = 0; i < b.size; ++i)
                p[i] = T((2.0 * rng.uniform() - 1.0) * bound);
        } else if (endsWith(".w") && (n.find("ln") != std::string::npos)) {
            std::fill(p, p + b.size, T(1));
        } else if (endsWith(".b") || endsWith("bqkv") || endsWith("bo") || endsWith("b1") || endsWith("b2")) {
            std::fill(p, p + b.size, T(0));
        } else {
            const double s = (endsWith("wo") || endsWith("w2")) ? stdProj : std0;
            for (std::size_t i = 0; i < b.size; ++i)
                p[i] = T(rng.normal() * s);
        }
    }
}

template <typename T> void Network<T>::constrain()
{
    if (m_impl->kind != TrainedAs::Kerple)
        return;
    // chijames/KERPLE megatron/mpu/layers.py: bias_p and bias_a are clamped to min eps = 1e-2 in forward.
    const bool power = !m_impl->kerpleLog;
    for (const char* name : {"pos.r1", "pos.r2"}) {
        const auto& b = m_layout.find(name);
        for (std::size_t i = 0; i < b.size; ++i) {
            T& v = m_params[b.offset + i];
            v = std::max(v, T(0.01));
            if (power && std::string(name) == "pos.r2")
                v = std::min(v, T(2));
        }
    }
}

template <typename T> std::string Network<T>::positionRowsFor(int T_) const
{
    if (m_impl->kind == TrainedAs::LearnedTable && T_ > m_config.learnedRows)
        return "no position rows past " + std::to_string(m_config.learnedRows) + " (the learned table has "
            + std::to_string(m_config.learnedRows) + " rows; this length needs " + std::to_string(T_) + ")";
    return {};
}

template <typename T> double Network<T>::bytesFor(const ModelConfig& c, int n, int T_, int threads)
{
    (void)threads;
    const double d = c.width, V = c.vocab, L = c.layers, H = c.heads;
    const double params = V * d * 2 + L * (12 * d * d + 13 * d) + d * 512.0 + L * double(c.positionWeights);
    const double chunks = std::ceil(double(n) / chunkSize);
    const double rows = std::min<double>(n, chunkSize) * T_;
    const double perChunk = rows * (L * (16 * d) + 2 * V + 4 * d) + L * std::min<double>(n, chunkSize) * H * T_ * T_
        + params + H * T_ * T_ * 2 + T_ * d;
    return double(sizeof(T)) * (chunks * perChunk + 4 * params);
}

template <typename T> double Network<T>::workFor(const ModelConfig& c, int n, int T_, bool backward)
{
    const double d = c.width, V = c.vocab, L = c.layers, H = c.heads, t = T_;
    const double products = L * (12.0 * d * d * t + 2.0 * t * t * d) + V * d * t;
    const double nonlinear = L * (4.0 * d * t + H * t * t);
    return double(n) * (products / 8.0 + nonlinear * 10.0) * (backward ? 3.0 : 1.0);
}

template <typename T>
double Network<T>::run(const Batch& batch, std::vector<T>* grad, int threads, std::vector<int>* predictions)
{
    Impl& im = *m_impl;
    const ModelConfig& c = m_config;
    const int d = c.width, H = c.heads, V = c.vocab, hd = im.hd, Tn = batch.T;
    const std::string rows = positionRowsFor(Tn);
    if (!rows.empty())
        throw InputError(rows);
    const T* P = m_params.data();
    auto off = [&](const std::string& name) { return m_layout.find(name).offset; };
    auto cmat = [&](const std::string& name, int r, int cc) { return CMapMat<T>(P + off(name), r, cc); };
    auto cvec = [&](const std::string& name, int n) { return CMapVec<T>(P + off(name), n); };

    // ---- the position part for sequences of Tn tokens (core's functions) ----
    im.add = nullptr;
    im.rot = nullptr;
    im.bias = nullptr;
    im.shawIndex = nullptr;
    im.txlSinusoid = nullptr;
    if (im.kind == TrainedAs::FixedTable) {
        auto it = im.additiveCache.find(Tn);
        if (it == im.additiveCache.end()) {
            const MatrixF t = im.scheme->encoding(im.params, TableContext{d, range0(Tn), std::nullopt});
            it = im.additiveCache.emplace(Tn, t.cast<T>()).first;
        }
        im.add = &it->second;
    } else if (im.kind == TrainedAs::LearnedTable) {
        im.learnedAdd = cmat("pos.table", c.learnedRows, d).topRows(Tn);
        im.add = &im.learnedAdd;
    } else if (im.kind == TrainedAs::Rotation) {
        auto it = im.rotaryCache.find(Tn);
        if (it == im.rotaryCache.end()) {
            const PositionList pos = range0(Tn);
            const RotarySides sides = rotarySpecs(*im.scheme, im.params, TableContext{hd, pos, std::nullopt});
            typename Impl::RotaryTables t;
            t.cosQ = rotaryCos(sides.query, pos).template cast<T>();
            t.sinQ = rotarySin(sides.query, pos).template cast<T>();
            t.cosK = rotaryCos(sides.key, pos).template cast<T>();
            t.sinK = rotarySin(sides.key, pos).template cast<T>();
            it = im.rotaryCache.emplace(Tn, std::move(t)).first;
        }
        im.rot = &it->second;
    } else if (im.kind == TrainedAs::Cope) {
        // per sequence and head, from its own q and k (below)
    } else if (im.kind == TrainedAs::TransformerXl) {
        auto it = im.txlSinusoidCache.find(Tn);
        if (it == im.txlSinusoidCache.end()) {
            // core's relativeSinusoid (the one transformer_xl.cpp projects for the views), width d_model.
            Mat<T> r(Tn, d);
            for (int delta = 0; delta < Tn; ++delta) {
                const std::vector<double> sv = relativeSinusoid(double(delta), d, im.params.real("base"));
                for (int c2 = 0; c2 < d; ++c2)
                    r(delta, c2) = T(sv[std::size_t(c2)]);
            }
            it = im.txlSinusoidCache.emplace(Tn, std::move(r)).first;
        }
        im.txlSinusoid = &it->second;
    } else if (im.kind != TrainedAs::NoPosition) {
        PairContext ctx;
        ctx.headDim = hd;
        ctx.heads = H;
        ctx.queries = range0(Tn);
        ctx.keys = range0(Tn);
        ctx.causal = true;
        auto clean = [&](const MatrixD& m) {
            Mat<T> out = Mat<T>::Zero(Tn, Tn);
            for (int i = 0; i < Tn; ++i)
                for (int j = 0; j <= i; ++j)
                    out(i, j) = T(m(i, j));
            return out;
        };
        if (im.kind == TrainedAs::Shaw) {
            // The scheme's own clipped index (shaw.cpp shawBuckets: clip(j - i, -k, k) + k), the views' index.
            auto it = im.bucketCache.find(Tn);
            if (it == im.bucketCache.end())
                it = im.bucketCache.emplace(Tn, im.scheme->buckets(im.params, ctx).template cast<int>()).first;
            im.shawIndex = &it->second;
        } else if (im.kind == TrainedAs::FixedBias) {
            auto it = im.fixedBiasCache.find(Tn);
            if (it == im.fixedBiasCache.end()) {
                std::vector<Mat<T>> b;
                for (int h = 0; h < H; ++h)
                    b.push_back(clean(im.scheme->bias(im.params, ctx, h)));
                it = im.fixedBiasCache.emplace(Tn, std::move(b)).first;
            }
            im.bias = &it->second;
        } else {
            im.trainedBias.assign(std::size_t(H), Mat<T>::Zero(Tn, Tn));
            if (im.kind == TrainedAs::T5Buckets) {
                auto it = im.bucketCache.find(Tn);
                if (it == im.bucketCache.end())
                    it = im.bucketCache.emplace(Tn, im.scheme->buckets(im.params, ctx).template cast<int>()).first;
                const T* tab = P + off("pos.t5"); // buckets x heads
                for (int h = 0; h < H; ++h)
                    for (int i = 0; i < Tn; ++i)
                        for (int j = 0; j <= i; ++j)
                            im.trainedBias[h](i, j) = tab[it->second(i, j) * H + h];
            } else if (im.kind == TrainedAs::Kerple) {
                const T* r1 = P + off("pos.r1");
                const T* r2 = P + off("pos.r2");
                for (int h = 0; h < H; ++h)
                    for (int i = 0; i < Tn; ++i)
                        for (int j = 0; j <= i; ++j)
                            im.trainedBias[h](i, j)
                                = T(kerpleBias(im.kerpleLog, double(r1[h]), double(r2[h]), double(i - j)));
            } else if (im.kind == TrainedAs::Fire) {
                auto it = im.fireInputCache.find(Tn);
                if (it == im.fireInputCache.end()) {
                    Mat<T> x = Mat<T>::Zero(Tn, Tn);
                    for (int i = 0; i < Tn; ++i)
                        for (int j = 0; j <= i; ++j)
                            x(i, j) = T(fireNormalisedDistance(i, j, im.params.real("c"), im.params.real("L")));
                    it = im.fireInputCache.emplace(Tn, std::move(x)).first;
                }
                const int W = im.fireWidth;
                const T *w1 = P + off("pos.fire.w1"), *b1 = P + off("pos.fire.b1"), *w2 = P + off("pos.fire.w2"),
                        *b2 = P + off("pos.fire.b2");
                for (int i = 0; i < Tn; ++i)
                    for (int j = 0; j <= i; ++j) {
                        const T x = it->second(i, j);
                        for (int h = 0; h < H; ++h)
                            im.trainedBias[h](i, j) = b2[h];
                        for (int k = 0; k < W; ++k) {
                            const T z = std::max(T(0), w1[k] * x + b1[k]);
                            if (z != T(0))
                                for (int h = 0; h < H; ++h)
                                    im.trainedBias[h](i, j) += w2[h * W + k] * z;
                        }
                    }
            }
            im.bias = &im.trainedBias;
        }
    }

    // ---- chunks ----
    const int nChunks = (batch.n + chunkSize - 1) / chunkSize;
    if (int(im.work.size()) < nChunks)
        im.work.resize(std::size_t(nChunks));
    if (predictions)
        predictions->assign(std::size_t(batch.n) * Tn, 0);
    const T scale = T(im.logitScale);
    const bool wantGrad = grad != nullptr;

    auto runChunk = [&](int ci) {
        typename Impl::Work& w = im.work[std::size_t(ci)];
        const int s0 = ci * chunkSize, n = std::min(chunkSize, batch.n - s0);
        // The chunk's own length: its longest sequence (a batch sorted by length wastes little on padding).
        int Tc = Tn;
        if (!batch.lengths.empty()) {
            Tc = 1;
            for (int s = s0; s < s0 + n; ++s)
                Tc = std::max(Tc, batch.lengths[std::size_t(s)]);
        }
        const int R = n * Tc;
        auto gidx = [&](int r) { return std::size_t((s0 + r / Tc) * Tn + r % Tc); };
        w.layers.resize(std::size_t(c.layers));
        // embedding
        w.x.resize(R, d);
        const auto wte = cmat("wte", V, d);
        for (int r = 0; r < R; ++r) {
            w.x.row(r) = wte.row(batch.tokens[gidx(r)]);
            if (im.add)
                w.x.row(r) += im.add->row(r % Tc);
        }
        for (int l = 0; l < c.layers; ++l) {
            auto& a = w.layers[std::size_t(l)];
            const std::string p = "l" + std::to_string(l) + ".";
            a.xin = w.x;
            layerNormForward<T>(a.xin, cvec(p + "ln1.w", d), cvec(p + "ln1.b", d), a.ln1, a.m1, a.r1);
            matmul<T>(a.qkv, a.ln1, false, cmat(p + "wqkv", d, 3 * d), false, false);
            a.qkv.rowwise() += cvec(p + "bqkv", 3 * d).transpose();
            a.qk = a.qkv.leftCols(2 * d);
            if (im.rot)
                for (int h = 0; h < H; ++h) {
                    rotateRows<T>(a.qk, h * hd, im.rot->cosQ, im.rot->sinQ, im.pairA.data(), im.pairB.data(), im.pairs,
                                  Tc, false);
                    rotateRows<T>(a.qk, d + h * hd, im.rot->cosK, im.rot->sinK, im.pairA.data(), im.pairB.data(),
                                  im.pairs, Tc, false);
                }
            a.att.resize(R, d);
            a.p.resize(std::size_t(n * H));
            if (im.kind == TrainedAs::TransformerXl)
                w.txlR.noalias() = im.txlSinusoid->topRows(Tc) * cmat("pos.txl.l" + std::to_string(l) + ".wr", d, d);
            Mat<T> o;
            for (int s = 0; s < n; ++s)
                for (int h = 0; h < H; ++h) {
                    if (im.kind == TrainedAs::Cope) {
                        const auto q = a.qk.block(s * Tc, h * hd, Tc, hd);
                        const auto k = a.qk.block(s * Tc, d + h * hd, Tc, hd);
                        copeForward<T>(q, k, cmat("pos.cope.l" + std::to_string(l), im.copeNpos, hd), scale,
                                       im.copePosScale, im.copeNpos, w.copeBias, w.copeGates, w.copePositions);
                        attentionForward<T>(q, k, a.qkv.block(s * Tc, 2 * d + h * hd, Tc, hd), &w.copeBias, scale,
                                            a.p[std::size_t(s * H + h)], o);
                    } else if (im.kind == TrainedAs::TransformerXl) {
                        const auto q = a.qk.block(s * Tc, h * hd, Tc, hd);
                        const auto k = a.qk.block(s * Tc, d + h * hd, Tc, hd);
                        txlForward<T>(q, k, w.txlR.middleCols(h * hd, hd),
                                      CMapVec<T>(P + off("pos.txl.u") + h * hd, hd),
                                      CMapVec<T>(P + off("pos.txl.v") + h * hd, hd), scale, w.copeBias);
                        attentionForward<T>(q, k, a.qkv.block(s * Tc, 2 * d + h * hd, Tc, hd), &w.copeBias, scale,
                                            a.p[std::size_t(s * H + h)], o);
                    } else if (im.kind == TrainedAs::Shaw) {
                        const auto q = a.qk.block(s * Tc, h * hd, Tc, hd);
                        relativeKeyForward<T>(q, cmat("pos.shaw.l" + std::to_string(l), im.shawRows, hd),
                                              im.shawIndex->topLeftCorner(Tc, Tc), scale, w.copeBias);
                        attentionForward<T>(q, a.qk.block(s * Tc, d + h * hd, Tc, hd),
                                            a.qkv.block(s * Tc, 2 * d + h * hd, Tc, hd), &w.copeBias, scale,
                                            a.p[std::size_t(s * H + h)], o);
                    } else if (im.bias) {
                        const auto bias = (*im.bias)[std::size_t(h)].topLeftCorner(Tc, Tc);
                        attentionForward<T>(a.qk.block(s * Tc, h * hd, Tc, hd), a.qk.block(s * Tc, d + h * hd, Tc, hd),
                                            a.qkv.block(s * Tc, 2 * d + h * hd, Tc, hd), &bias, scale,
                                            a.p[std::size_t(s * H + h)], o);
                    } else {
                        attentionForward<T>(a.qk.block(s * Tc, h * hd, Tc, hd), a.qk.block(s * Tc, d + h * hd, Tc, hd),
                                            a.qkv.block(s * Tc, 2 * d + h * hd, Tc, hd),
                                            static_cast<const Mat<T>*>(nullptr), scale, a.p[std::size_t(s * H + h)], o);
                    }
                    a.att.block(s * Tc, h * hd, Tc, hd) = o;
                }
            a.xmid = a.xin;
            matmul<T>(a.xmid, a.att, false, cmat(p + "wo", d, d), false, true);
            a.xmid.rowwise() += cvec(p + "bo", d).transpose();
            layerNormForward<T>(a.xmid, cvec(p + "ln2.w", d), cvec(p + "ln2.b", d), a.ln2, a.m2, a.r2);
            matmul<T>(a.hpre, a.ln2, false, cmat(p + "w1", d, 4 * d), false, false);
            a.hpre.rowwise() += cvec(p + "b1", 4 * d).transpose();
            if (c.gelu)
                geluForward<T>(a.hpre, a.act, a.th);
            else
                a.act = a.hpre.cwiseMax(T(0));
            w.x = a.xmid;
            matmul<T>(w.x, a.act, false, cmat(p + "w2", 4 * d, d), false, true);
            w.x.rowwise() += cvec(p + "b2", d).transpose();
        }
        w.xf = w.x;
        layerNormForward<T>(w.xf, cvec("lnf.w", d), cvec("lnf.b", d), w.lnf, w.mf, w.rf);
        if (c.tied)
            w.logits.noalias() = w.lnf * wte.transpose();
        else
            w.logits.noalias() = w.lnf * cmat("wout", d, V);
        // loss
        Mat<T> dlogits = Mat<T>::Zero(R, V);
        double loss = 0.0;
        const T norm = T(1.0 / batch.normaliser);
        for (int r = 0; r < R; ++r) {
            const std::size_t gi = gidx(r);
            const T* row = w.logits.data() + std::size_t(r) * V;
            if (predictions) {
                int arg = 0;
                for (int j = 1; j < V; ++j)
                    if (row[j] > row[arg])
                        arg = j;
                (*predictions)[gi] = arg;
            }
            const float wt = batch.weights[gi];
            if (wt != 0.0f) {
                const T ce
                    = crossEntropy<T>(row, V, batch.targets[gi], T(wt) * norm, dlogits.data() + std::size_t(r) * V);
                loss += double(wt) * double(ce) / batch.normaliser;
            }
        }
        w.loss = loss;
        if (!wantGrad)
            return;
        // ---- backward ----
        w.grad.assign(m_layout.total, T(0));
        auto gmat = [&](const std::string& name, int r, int cc) { return MapMat<T>(w.grad.data() + off(name), r, cc); };
        auto gvec = [&](const std::string& name, int nn) { return MapVec<T>(w.grad.data() + off(name), nn); };
        Mat<T> dlnf;
        if (c.tied) {
            dlnf.noalias() = dlogits * wte;
            gmat("wte", V, d).noalias() += dlogits.transpose() * w.lnf;
        } else {
            dlnf.noalias() = dlogits * cmat("wout", d, V).transpose();
            gmat("wout", d, V).noalias() += w.lnf.transpose() * dlogits;
        }
        Mat<T> dx = Mat<T>::Zero(R, d);
        layerNormBackward<T>(dlnf, w.xf, cvec("lnf.w", d), w.mf, w.rf, dx, gvec("lnf.w", d), gvec("lnf.b", d));
        w.dBias.assign(im.bias ? std::size_t(H) : 0, Mat<T>::Zero(Tn, Tn));
        Mat<T> dO, dq, dk, dv, ds;
        for (int l = c.layers - 1; l >= 0; --l) {
            auto& a = w.layers[std::size_t(l)];
            const std::string p = "l" + std::to_string(l) + ".";
            // x = xmid + act W2 + b2
            matmul<T>(gmat(p + "w2", 4 * d, d), a.act, true, dx, false, true);
            gvec(p + "b2", d) += dx.colwise().sum().transpose();
            Mat<T> dh;
            matmul<T>(dh, dx, false, cmat(p + "w2", 4 * d, d), true, false);
            if (c.gelu)
                geluBackward<T>(dh, a.hpre, a.th);
            else
                dh.array() *= (a.hpre.array() > T(0)).template cast<T>();
            matmul<T>(gmat(p + "w1", d, 4 * d), a.ln2, true, dh, false, true);
            gvec(p + "b1", 4 * d) += dh.colwise().sum().transpose();
            Mat<T> dln2;
            matmul<T>(dln2, dh, false, cmat(p + "w1", d, 4 * d), true, false);
            Mat<T> dxmid = dx;
            layerNormBackward<T>(dln2, a.xmid, cvec(p + "ln2.w", d), a.m2, a.r2, dxmid, gvec(p + "ln2.w", d),
                                 gvec(p + "ln2.b", d));
            // xmid = xin + att Wo + bo
            matmul<T>(gmat(p + "wo", d, d), a.att, true, dxmid, false, true);
            gvec(p + "bo", d) += dxmid.colwise().sum().transpose();
            Mat<T> datt;
            matmul<T>(datt, dxmid, false, cmat(p + "wo", d, d), true, false);
            Mat<T> dqkv(R, 3 * d);
            if (im.kind == TrainedAs::TransformerXl) {
                // this layer's R W_R again (w.txlR holds the last layer's), and its gradient
                w.txlR.noalias() = im.txlSinusoid->topRows(Tc) * cmat("pos.txl." + p + "wr", d, d);
                w.txlDR.setZero(Tc, d);
            }
            for (int s = 0; s < n; ++s)
                for (int h = 0; h < H; ++h) {
                    dO = datt.block(s * Tc, h * hd, Tc, hd);
                    attentionBackward<T>(dO, a.qk.block(s * Tc, h * hd, Tc, hd), a.qk.block(s * Tc, d + h * hd, Tc, hd),
                                         a.qkv.block(s * Tc, 2 * d + h * hd, Tc, hd), a.p[std::size_t(s * H + h)],
                                         scale, dq, dk, dv, ds);
                    if (im.kind == TrainedAs::Cope) {
                        // The gates and positions again (cheaper than keeping them), then their gradient.
                        const auto q = a.qk.block(s * Tc, h * hd, Tc, hd);
                        const auto k = a.qk.block(s * Tc, d + h * hd, Tc, hd);
                        const std::string blk = "pos.cope.l" + std::to_string(l);
                        const auto e = cmat(blk, im.copeNpos, hd);
                        copeForward<T>(q, k, e, scale, im.copePosScale, im.copeNpos, w.copeBias, w.copeGates,
                                       w.copePositions);
                        copeBackward<T>(ds, q, k, e, scale, im.copePosScale, im.copeNpos, w.copeGates, w.copePositions,
                                        dq, dk, gmat(blk, im.copeNpos, hd));
                    } else if (im.kind == TrainedAs::TransformerXl) {
                        txlBackward<T>(ds, a.qk.block(s * Tc, h * hd, Tc, hd), a.qk.block(s * Tc, d + h * hd, Tc, hd),
                                       w.txlR.middleCols(h * hd, hd), CMapVec<T>(P + off("pos.txl.u") + h * hd, hd),
                                       CMapVec<T>(P + off("pos.txl.v") + h * hd, hd), scale, dq, dk,
                                       w.txlDR.middleCols(h * hd, hd),
                                       MapVec<T>(w.grad.data() + off("pos.txl.u") + h * hd, hd),
                                       MapVec<T>(w.grad.data() + off("pos.txl.v") + h * hd, hd));
                    } else if (im.kind == TrainedAs::Shaw) {
                        const std::string blk = "pos.shaw.l" + std::to_string(l);
                        relativeKeyBackward<T>(ds, a.qk.block(s * Tc, h * hd, Tc, hd), cmat(blk, im.shawRows, hd),
                                               im.shawIndex->topLeftCorner(Tc, Tc), scale, dq,
                                               gmat(blk, im.shawRows, hd));
                    }
                    dqkv.block(s * Tc, h * hd, Tc, hd) = dq;
                    dqkv.block(s * Tc, d + h * hd, Tc, hd) = dk;
                    dqkv.block(s * Tc, 2 * d + h * hd, Tc, hd) = dv;
                    if (im.bias)
                        w.dBias[std::size_t(h)].topLeftCorner(Tc, Tc) += ds;
                }
            if (im.kind == TrainedAs::TransformerXl)
                gmat("pos.txl.l" + std::to_string(l) + ".wr", d, d).noalias()
                    += im.txlSinusoid->topRows(Tc).transpose() * w.txlDR;
            if (im.rot)
                for (int h = 0; h < H; ++h) {
                    rotateRows<T>(dqkv, h * hd, im.rot->cosQ, im.rot->sinQ, im.pairA.data(), im.pairB.data(), im.pairs,
                                  Tc, true);
                    rotateRows<T>(dqkv, d + h * hd, im.rot->cosK, im.rot->sinK, im.pairA.data(), im.pairB.data(),
                                  im.pairs, Tc, true);
                }
            matmul<T>(gmat(p + "wqkv", d, 3 * d), a.ln1, true, dqkv, false, true);
            gvec(p + "bqkv", 3 * d) += dqkv.colwise().sum().transpose();
            Mat<T> dln1;
            matmul<T>(dln1, dqkv, false, cmat(p + "wqkv", d, 3 * d), true, false);
            dx = dxmid;
            layerNormBackward<T>(dln1, a.xin, cvec(p + "ln1.w", d), a.m1, a.r1, dx, gvec(p + "ln1.w", d),
                                 gvec(p + "ln1.b", d));
        }
        auto dwte = gmat("wte", V, d);
        w.dAdd = Mat<T>::Zero(im.add ? Tn : 0, d);
        for (int r = 0; r < R; ++r) {
            dwte.row(batch.tokens[gidx(r)]) += dx.row(r);
            if (im.add)
                w.dAdd.row(r % Tn) += dx.row(r);
        }
    };

    const int nThreads = std::max(1, std::min(threads, nChunks));
    if (nThreads == 1) {
        for (int ci = 0; ci < nChunks; ++ci)
            runChunk(ci);
    } else {
        std::vector<std::thread> pool;
        std::vector<std::exception_ptr> errors(static_cast<std::size_t>(nThreads));
        for (int t = 0; t < nThreads; ++t)
            pool.emplace_back([&, t] {
                try {
                    for (int ci = t; ci < nChunks; ci += nThreads)
                        runChunk(ci);
                } catch (...) {
                    errors[std::size_t(t)] = std::current_exception();
                }
            });
        for (auto& th : pool)
            th.join();
        for (auto& e : errors)
            if (e)
                std::rethrow_exception(e);
    }

    double loss = 0.0;
    for (int ci = 0; ci < nChunks; ++ci)
        loss += im.work[std::size_t(ci)].loss;
    if (!wantGrad)
        return loss;

    // ---- sum the chunks in order; the position part's parameters ----
    grad->assign(m_layout.total, T(0));
    Mat<T> dAdd = Mat<T>::Zero(im.add ? Tn : 0, d);
    std::vector<Mat<T>> dBias(im.bias ? std::size_t(H) : 0, Mat<T>::Zero(Tn, Tn));
    for (int ci = 0; ci < nChunks; ++ci) {
        const auto& w = im.work[std::size_t(ci)];
        MapVec<T>(grad->data(), Eigen::Index(grad->size())) += CMapVec<T>(w.grad.data(), Eigen::Index(w.grad.size()));
        if (im.add)
            dAdd += w.dAdd;
        for (std::size_t h = 0; h < dBias.size(); ++h)
            dBias[h] += w.dBias[h];
    }
    T* G = grad->data();
    if (im.kind == TrainedAs::LearnedTable) {
        MapMat<T>(G + off("pos.table"), c.learnedRows, d).topRows(Tn) += dAdd;
    } else if (im.kind == TrainedAs::T5Buckets) {
        const auto& buckets = im.bucketCache.at(Tn);
        T* g = G + off("pos.t5");
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < Tn; ++i)
                for (int j = 0; j <= i; ++j)
                    g[buckets(i, j) * H + h] += dBias[std::size_t(h)](i, j);
    } else if (im.kind == TrainedAs::Kerple) {
        // d/dr1, d/dr2 of log: -r1 ln(1 + r2 x); power: -r1 x^r2 (x = i - j).
        const T* r1 = P + off("pos.r1");
        const T* r2 = P + off("pos.r2");
        T* g1 = G + off("pos.r1");
        T* g2 = G + off("pos.r2");
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < Tn; ++i)
                for (int j = 0; j < i; ++j) {
                    const T x = T(i - j), g = dBias[std::size_t(h)](i, j);
                    if (im.kerpleLog) {
                        g1[h] += g * -std::log1p(r2[h] * x);
                        g2[h] += g * -r1[h] * x / (T(1) + r2[h] * x);
                    } else {
                        const T xp = std::pow(x, r2[h]);
                        g1[h] += g * -xp;
                        g2[h] += g * -r1[h] * xp * std::log(x);
                    }
                }
    } else if (im.kind == TrainedAs::Fire) {
        const auto& xin = im.fireInputCache.at(Tn);
        const int W = im.fireWidth;
        const T *w1 = P + off("pos.fire.w1"), *b1 = P + off("pos.fire.b1"), *w2 = P + off("pos.fire.w2");
        T *gw1 = G + off("pos.fire.w1"), *gb1 = G + off("pos.fire.b1"), *gw2 = G + off("pos.fire.w2"),
          *gb2 = G + off("pos.fire.b2");
        for (int i = 0; i < Tn; ++i)
            for (int j = 0; j <= i; ++j) {
                const T x = xin(i, j);
                for (int h = 0; h < H; ++h)
                    gb2[h] += dBias[std::size_t(h)](i, j);
                for (int k = 0; k < W; ++k) {
                    const T pre = w1[k] * x + b1[k];
                    if (pre <= T(0))
                        continue;
                    T dz = 0;
                    for (int h = 0; h < H; ++h) {
                        gw2[h * W + k] += dBias[std::size_t(h)](i, j) * pre;
                        dz += dBias[std::size_t(h)](i, j) * w2[h * W + k];
                    }
                    gw1[k] += dz * x;
                    gb1[k] += dz;
                }
            }
    }
    return loss;
}

template <typename T> std::vector<Mat<T>> Network<T>::attention(const Batch& batch, int layer)
{
    Batch one = batch;
    one.n = 1;
    one.tokens.resize(std::size_t(batch.T));
    one.targets.resize(std::size_t(batch.T));
    one.weights.resize(std::size_t(batch.T));
    run(one, nullptr, 1);
    const auto& a = m_impl->work[0].layers.at(std::size_t(layer));
    return std::vector<Mat<T>>(a.p.begin(), a.p.begin() + m_config.heads);
}

template class Network<float>;
template class Network<double>;

} // namespace poslab::core::train
