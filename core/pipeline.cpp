// SPDX-License-Identifier: MIT
#include "core/pipeline.h"

#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/rotary.h"
#include "core/trigtable.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace poslab::core {

std::string_view positionEntryName(PositionEntry e)
{
    switch (e) {
    case PositionEntry::None: return "none";
    case PositionEntry::Input: return "input";
    case PositionEntry::Rotation: return "rotation";
    case PositionEntry::Bias: return "bias";
    case PositionEntry::Terms: return "terms";
    case PositionEntry::Mask: return "mask";
    }
    return "?";
}

const PipelineStage* PipelineResult::stage(std::string_view key) const
{
    for (const PipelineStage& s : stages)
        if (s.key == key)
            return &s;
    return nullptr;
}

namespace {

ContentSpec sentenceContent(const std::string& sentence, std::uint64_t seed, const char* who)
{
    const ContentSpec c = parseContent(sentence, seed);
    if (c.kind != ContentKind::Sentence)
        throw InputError(std::string(who) + " needs a sentence (words), not '" + sentence + "'");
    const std::size_t n = sentenceWords(c).size();
    if (n > std::size_t(maxPipelineWords))
        throw InputError(std::string(who) + " draws a short sentence: " + std::to_string(n) + " words, at most "
                         + std::to_string(maxPipelineWords));
    return c;
}

} // namespace

PipelineResult attentionPipeline(const PipelineRequest& request, const Limits& limits)
{
    const SchemeDescriptor& s = schemeOrThrow(request.scheme);
    AttentionRequest a;
    a.scheme = s.id;
    a.params = request.params.values().empty() ? defaultParams(s) : request.params;
    a.headDim = request.headDim;
    a.heads = request.heads;
    a.onlyHead = request.head;
    a.mask = request.mask;
    a.content = sentenceContent(request.sentence, request.seed, "the pipeline");
    const auto n = Position(sentenceWords(a.content).size());
    a.queries = PositionList::range(0, n);
    a.keys = a.queries;
    a.seqLen = request.seqLen;
    a.wantProbabilities = true;
    a.wantTerms = true;
    if (request.head < 0 || request.head >= std::max(request.heads, 1))
        throw InputError("head " + std::to_string(request.head) + " does not exist; heads are 0 to "
                         + std::to_string(std::max(request.heads, 1) - 1));
    validateAttention(a);
    checkWork(attentionWork(a) * 2.0, limits, "the attention pipeline of " + s.id);

    AttentionTrace t;
    const AttentionResult r = attentionScores(a, limits, &t);
    const AttentionHead& head = r.heads.front();

    PipelineResult out;
    out.tokens = r.queryTokens;
    for (const auto& sc : r.scalars)
        out.scalars.push_back(sc);
    for (const auto& sc : head.scalars)
        out.scalars.push_back(sc);

    const bool additive = t.position.size() > 0;
    const bool rotated = t.qRotated.size() > 0;
    const bool bias = t.bias.size() > 0;
    // A rotary scheme's score hook (iRoPE) acts only where it scales the queries (temperature tuning on a NoPE layer).
    const bool terms = s.score != nullptr && (!s.rotary || !r.queryScale.empty());
    const bool causal = request.mask == MaskKind::Causal;
    // Where the position enters, in the order of the stages; the first that applies.
    if (additive)
        out.entry = PositionEntry::Input;
    else if (rotated)
        out.entry = PositionEntry::Rotation;
    else if (s.bias)
        out.entry = PositionEntry::Bias;
    else if (terms)
        out.entry = PositionEntry::Terms;
    else
        out.entry = causal ? PositionEntry::Mask : PositionEntry::None;
    switch (out.entry) {
    case PositionEntry::Input:
        out.entryText = "the position vector PE(t) is added to the token embedding before W_Q and W_K";
        break;
    case PositionEntry::Rotation:
        out.entryText = "q and k are rotated by their positions after W_Q and W_K; q.k then depends on m - n";
        break;
    case PositionEntry::Bias:
        out.entryText = "a bias of the query and key positions is added to the logits; q and k carry no position";
        break;
    case PositionEntry::Terms:
        out.entryText = s.rotary
            ? "the queries are scaled by a temperature s(p) that grows with the position (s = 1 for "
              "p < floor_scale - 1); nothing is rotated"
            : "the scheme's score adds position terms to the logits inside attention; q and k themselves "
              "carry no position";
        break;
    case PositionEntry::Mask:
        out.entryText = "no position anywhere: only the causal mask, by hiding later keys, carries order";
        break;
    case PositionEntry::None:
        out.entryText = "no position anywhere, and no causal mask: the layer cannot tell the order of the words";
        break;
    }

    auto add = [&](std::string key, std::string label, std::string rows, std::string cols, MatrixF values,
                   bool entry = false) {
        out.stages.push_back(
            {std::move(key), std::move(label), std::move(rows), std::move(cols), std::move(values), entry});
    };
    const bool in = out.entry == PositionEntry::Input;
    add("embedding", "token embedding e(w_t)", "token", "dimension", t.embedding);
    if (additive)
        add("position", "position vector PE(t) (" + s.id + ")", "token", "dimension", t.position, in);
    add("input", additive ? "x_t = e(w_t) + PE(t)" : "x_t = e(w_t) (no position added)", "token", "dimension", t.input,
        in);
    add("w_q", "W_Q (head " + std::to_string(request.head) + ")", "output", "input", t.wq);
    add("w_k", "W_K (head " + std::to_string(request.head) + ")", "output", "input", t.wk);
    add("q", "q_t = W_Q x_t", "token", "dimension", t.q);
    add("k", "k_t = W_K x_t", "token", "dimension", t.k);
    if (rotated) {
        add("q_rotated", "R(t) q_t: q rotated by its position", "token", "dimension", t.qRotated, true);
        add("k_rotated", "R(t) k_t: k rotated by its position", "token", "dimension", t.kRotated, true);
    }
    // The scheme's own factor on q.k (SchemeDescriptor::logitScale): T5 has none, DeBERTa 1/sqrt(3d).
    const double c = logitScaleOf(s, a.params, a.headDim);
    const double d = double(a.headDim);
    const std::string scaled = c == 1.0                  ? std::string()
        : std::abs(c * std::sqrt(d) - 1.0) < 1e-12       ? std::string(" / sqrt(d)")
        : std::abs(c * std::sqrt(3.0 * d) - 1.0) < 1e-12 ? std::string(" / sqrt(3d)")
                                                         : " x " + std::to_string(c);
    add("scores", (rotated ? "R(m)q_m . R(n)k_n" : "q_m . k_n") + scaled, "query", "key", t.contentLogits);
    if (bias)
        add("bias", s.bias ? "position bias b(m, n) (" + s.id + ")" : "position part of the score (" + s.id + ")",
            "query", "key", t.bias, out.entry == PositionEntry::Bias || out.entry == PositionEntry::Terms);
    if (bias || terms)
        add("logits", terms ? "logits: the scheme's score (" + s.id + ")" : "logits = q.k" + scaled + " + b", "query",
            "key", t.logits, out.entry == PositionEntry::Terms && !bias);
    MatrixF mask(r.mask.rows(), r.mask.cols());
    for (Eigen::Index i = 0; i < mask.size(); ++i)
        mask.data()[i] = r.mask.data()[i] ? 1.0f : 0.0f;
    add("mask", causal ? "causal mask: key n <= query m" : "no mask (bidirectional)", "query", "key", std::move(mask),
        out.entry == PositionEntry::Mask);
    add("weights", "softmax over the visible keys: the attention weights", "query", "key", head.probabilities);
    return out;
}

ComputeResult pipelineTable(const PipelineRequest& request, const PipelineResult& result)
{
    ComputeResult c;
    c.quantity = "pipeline";
    c.scheme = request.scheme;
    const SchemeDescriptor& s = schemeOrThrow(request.scheme);
    c.params = request.params.values().empty() ? defaultParams(s) : request.params;
    c.columns = {"stage", "row", "column", "value"};
    c.columnLabels = {"stage: index into the stage labels (stage_i)", "row: token, query or output dimension",
                      "column: dimension, key or input dimension", "value (masked weights NaN)"};
    c.axes = {"entry", "field"};
    c.float32 = true; // the stages are the engine's float32 matrices (written as `compute scores` writes them)
    std::size_t rows = 0;
    for (const PipelineStage& st : result.stages)
        rows += std::size_t(st.values.size());
    c.data.reserve(rows * 4);
    for (std::size_t k = 0; k < result.stages.size(); ++k) {
        const PipelineStage& st = result.stages[k];
        c.labels.push_back({"stage_" + std::to_string(k),
                            st.key + ": " + st.label + " (" + st.rowAxis + " x " + st.columnAxis + ")"
                                + (st.entry ? ", the position enters here" : "")});
        for (Eigen::Index i = 0; i < st.values.rows(); ++i)
            for (Eigen::Index j = 0; j < st.values.cols(); ++j)
                c.data.insert(c.data.end(), {double(k), double(i), double(j), double(st.values(i, j))});
    }
    c.shape = {rows, 4};
    c.labels.push_back({"entry", std::string(positionEntryName(result.entry)) + ": " + result.entryText});
    std::string words;
    for (const std::string& w : result.tokens)
        words += (words.empty() ? "" : " ") + w;
    c.labels.push_back({"sentence", words});
    c.scalars.push_back({"head", double(request.head)});
    c.scalars.push_back({"heads", double(request.heads)});
    c.scalars.push_back({"causal", request.mask == MaskKind::Causal ? 1.0 : 0.0});
    for (const auto& sc : result.scalars)
        c.scalars.push_back(sc);
    return c;
}

namespace {

double norm(const std::vector<double>& v)
{
    double s = 0.0;
    for (double x : v)
        s += x * x;
    return std::sqrt(s);
}

double angleBetween(const std::vector<double>& a, const std::vector<double>& b)
{
    double dot = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
        dot += a[i] * b[i];
    const double n = norm(a) * norm(b);
    return n > 0 ? std::acos(std::clamp(dot / n, -1.0, 1.0)) : 0.0;
}

} // namespace

PositionVectorDemo positionVectorDemo(const std::string& scheme, const ParamSet& params, int headDim,
                                      const std::string& word, std::uint64_t seed, Position position, int pair)
{
    const SchemeDescriptor& chosen = schemeOrThrow(scheme);
    if (headDim < 2 || headDim % 2 != 0)
        throw InputError("the position-vector comparison needs an even dimension of at least 2; got "
                         + std::to_string(headDim));
    PositionVectorDemo d;
    d.position = position;
    d.pair = pair;
    TableContext ctx;
    ctx.dim = headDim;
    ctx.positions = PositionList::list({position});
    ctx.seqLen = std::max<Position>(position + 1, 1);

    // The rotation: the chosen scheme's query side when it rotates something, else plain RoPE.
    const SchemeDescriptor* rot = &chosen;
    ParamSet rotParams = params.values().empty() ? defaultParams(chosen) : params;
    std::optional<RotarySpec> spec;
    if (chosen.rotary) {
        RotarySpec q = rotarySpecs(chosen, rotParams, ctx).query;
        if (q.rotaryDim > 0)
            spec = std::move(q);
    }
    if (!spec) {
        rot = &schemeOrThrow("rope");
        rotParams = defaultParams(*rot);
        spec = rotarySpecs(*rot, rotParams, ctx).query;
    }
    d.rotaryScheme = rot->id;
    const int pairs = int(spec->invFreq.size());
    if (pair < 0 || pair >= pairs)
        throw InputError("pair " + std::to_string(pair) + " does not exist; " + rot->id + " rotates pairs 0 to "
                         + std::to_string(pairs - 1));
    std::tie(d.dimA, d.dimB) = pairDims(spec->layout, spec->rotaryDim, pair);

    // The addition: the chosen scheme's PE(p) when it adds one, else the Transformer's sinusoid.
    const SchemeDescriptor* addS = &chosen;
    ParamSet addParams = params.values().empty() ? defaultParams(chosen) : params;
    if (!(chosen.encoding && chosen.application == Application::Embedding)) {
        addS = &schemeOrThrow("sinusoidal");
        addParams = defaultParams(*addS);
    }
    d.additiveScheme = addS->id;
    TableContext addCtx = ctx;
    addCtx.seqLen.reset();
    validateParams(*addS, addParams, addCtx);
    const MatrixF pe = addS->encoding(addParams, addCtx);

    // v: the engine's embedding of the word (one-word sentence content with the same seed).
    const MatrixF e = sentenceEmbeddings(sentenceContent(word, seed, "the position-vector comparison"), headDim);
    d.vector.assign(e.data(), e.data() + headDim);
    d.added.resize(std::size_t(headDim));
    for (int i = 0; i < headDim; ++i)
        d.added[std::size_t(i)] = d.vector[std::size_t(i)] + double(pe(0, i));
    const MatrixD rv = rotateVector(*spec, PositionList::list({position}), d.vector);
    d.rotated.assign(rv.data(), rv.data() + headDim);
    d.norm = norm(d.vector);
    d.normAdded = norm(d.added);
    d.normRotated = norm(d.rotated);
    d.angleAdded = angleBetween(d.vector, d.added);
    d.angleRotated = angleBetween(d.vector, d.rotated);
    d.pairAngle = wrapAngle(position, spec->invFreq[std::size_t(pair)]);
    d.normScale = d.norm > 0 ? d.normRotated / d.norm : 1.0;
    if (!spec->xposZeta.empty())
        d.scaleReason = "xPos scales pair i by zeta_i^((p - centre)/scale_base)";
    else if (spec->attentionFactor != 1.0)
        d.scaleReason = "cos and sin carry the attention factor " + std::to_string(spec->attentionFactor);
    return d;
}

namespace {

/// One NoPE attention layer in double: o = softmax(q k^T / sqrt(d)) v over the visible keys.
MatrixD nopeLayer(const MatrixD& x, const MatrixD& wq, const MatrixD& wk, const MatrixD& wv, bool causal)
{
    const MatrixD q = x * wq.transpose(), k = x * wk.transpose(), v = x * wv.transpose();
    const double scale = 1.0 / std::sqrt(double(x.cols()));
    MatrixD out = MatrixD::Zero(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const Eigen::Index last = causal ? i : x.rows() - 1;
        Eigen::VectorXd logit(last + 1);
        for (Eigen::Index j = 0; j <= last; ++j)
            logit[j] = q.row(i).dot(k.row(j)) * scale;
        const Eigen::VectorXd w = (logit.array() - logit.maxCoeff()).exp();
        out.row(i) = (w.transpose() * v.topRows(last + 1)) / w.sum();
    }
    return out;
}

double permutedDifference(const MatrixD& a, const MatrixD& shuffled, const std::vector<std::size_t>& perm)
{
    double worst = 0.0;
    for (std::size_t t = 0; t < perm.size(); ++t)
        worst = std::max(worst, (shuffled.row(Eigen::Index(t)) - a.row(Eigen::Index(perm[t]))).cwiseAbs().maxCoeff());
    return worst;
}

} // namespace

ComputeResult nopeTable(const NopeDemo& d)
{
    ComputeResult c;
    c.quantity = "nope_demo";
    c.scheme = "nope";
    c.columns = {"position", "first_weight", "recovered_position"};
    c.columnLabels = {"position i of the query", "weight of query i on the first key under uniform causal attention",
                      "1 / first_weight - 1: the position read back from the output"};
    c.axes = {"position", "field"};
    const std::size_t n = d.firstWeight.size();
    c.shape = {n, 3};
    for (std::size_t i = 0; i < n; ++i)
        c.data.insert(c.data.end(), {double(i), d.firstWeight[i], d.recovered[i]});
    c.scalars.push_back({"equivariance_error", d.equivarianceError});
    c.scalars.push_back({"causal_error", d.causalError});
    std::string words, shuffled;
    for (const std::string& w : d.words)
        words += (words.empty() ? "" : " ") + w;
    for (const std::string& w : d.shuffled)
        shuffled += (shuffled.empty() ? "" : " ") + w;
    c.labels.push_back({"sentence", words});
    c.labels.push_back({"shuffled", shuffled});
    return c;
}

NopeDemo nopeDemo(const std::string& sentence, int headDim, std::uint64_t seed, int positions)
{
    if (headDim < 1 || headDim > 4096)
        throw InputError("dimension " + std::to_string(headDim)
                         + " is out of range for the NoPE demonstration; "
                           "allowed: 1 to 4096");
    if (positions < 1 || positions > 4096)
        throw InputError("the causal-mask demonstration takes 1 to 4096 positions; got " + std::to_string(positions));
    NopeDemo d;
    ContentSpec plain = sentenceContent(sentence, seed, "the NoPE demonstration");
    ContentSpec shuffled = plain;
    shuffled.shuffle = true;
    d.words = sentenceWords(plain);
    d.shuffled = sentenceWords(shuffled);
    d.permutation = sentenceOrder(shuffled);
    const MatrixD wq = sentenceProjection(seed, headDim, 0, 0);
    const MatrixD wk = sentenceProjection(seed, headDim, 0, 1);
    const MatrixD wv = sentenceProjection(seed, headDim, 0, 2);
    const MatrixD x = sentenceEmbeddings(plain, headDim).cast<double>();
    const MatrixD xs = sentenceEmbeddings(shuffled, headDim).cast<double>();
    d.output = nopeLayer(x, wq, wk, wv, false);
    d.shuffledOutput = nopeLayer(xs, wq, wk, wv, false);
    d.equivarianceError = permutedDifference(d.output, d.shuffledOutput, d.permutation);
    d.causalError = permutedDifference(nopeLayer(x, wq, wk, wv, true), nopeLayer(xs, wq, wk, wv, true), d.permutation);

    // Uniform attention: NoPE with q = k = (1, ..., 1) gives every visible key the same logit.
    AttentionRequest a;
    a.scheme = "nope";
    a.headDim = headDim;
    a.queries = PositionList::range(0, positions);
    a.keys = a.queries;
    a.mask = MaskKind::Causal;
    a.content.kind = ContentKind::Constant;
    a.wantTerms = false;
    const AttentionResult r = attentionScores(a);
    const MatrixF& p = r.heads.front().probabilities;
    for (int i = 0; i < positions; ++i) {
        const double w = double(p(i, 0));
        d.firstWeight.push_back(w);
        d.recovered.push_back(1.0 / w - 1.0);
    }
    return d;
}

} // namespace poslab::core
