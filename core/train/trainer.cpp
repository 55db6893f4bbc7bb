// SPDX-License-Identifier: MIT
#include "core/train/trainer.h"

#include "core/encodings/relativecommon.h"
#include "core/errors.h"
#include "core/io/json.h"
#include "core/io/writers.h"
#include "core/limits.h"
#include "core/positions.h"
#include "core/train/model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <ostream>

namespace poslab::core::train {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

ModelConfig modelConfig(const TrainConfig& c, const SchemeDescriptor& scheme, const ParamSet& params)
{
    ModelConfig m;
    m.layers = c.layers;
    m.width = c.width;
    m.heads = c.heads;
    m.vocab = Vocabulary{taskSymbols(c.task, c.vocab)}.size();
    m.gelu = c.gelu;
    m.tied = c.tied;
    m.seed = c.seed;
    if (scheme.id == "learned")
        m.learnedRows = sequenceLength(c.task, c.trainLen) - 1;
    const double headDim = double(c.width) / std::max(1, c.heads);
    if (scheme.id == "cope")
        m.positionWeights = double(params.integer("npos_max")) * headDim;
    if (scheme.id == "shaw")
        m.positionWeights = (2.0 * double(params.integer("max_relative_position")) + 1.0) * headDim;
    if (scheme.id == "transformer_xl")
        m.positionWeights = double(c.width) * c.width;
    return m;
}

ParamSet schemeParams(const SchemeDescriptor& scheme, const TrainConfig& c, const Overrides& extra)
{
    Overrides o;
    if (scheme.id == "t5")
        o.push_back({"bidirectional", "false"}); // a decoder: T5's decoder buckets (causal)
    // The learned table's rows are the longest trained sequence; a --set of them is refused with the reason
    // (it used to say "set twice", naming a setting the user never gave twice).
    if (scheme.id == "learned") {
        for (const auto& kv : c.overrides)
            if (kv.first == "max_position_embeddings")
                throw InputError("max_position_embeddings of a trained learned table is the longest trained sequence ("
                                 + std::to_string(std::max(1, sequenceLength(c.task, c.trainLen) - 1))
                                 + " input tokens here); set --train-len instead");
        o.push_back({"max_position_embeddings", std::to_string(std::max(1, sequenceLength(c.task, c.trainLen) - 1))});
    }
    for (const auto& kv : c.overrides)
        o.push_back(kv);
    for (const auto& kv : extra)
        o.push_back(kv);
    const int dim = scheme.bias || scheme.rotary ? c.width / std::max(1, c.heads) : c.width;
    return resolveParams(scheme, o, TableContext{dim, PositionList::range(0, 1), std::nullopt});
}

Batch makeBatch(const TrainConfig& c, int n, const std::function<std::pair<int, std::uint64_t>(int)>& pick)
{
    std::vector<Example> ex;
    ex.reserve(std::size_t(n));
    int T = 1;
    for (int i = 0; i < n; ++i) {
        const auto [len, seed] = pick(i);
        ex.push_back(makeExample(c.task, len, c.vocab, seed));
        T = std::max(T, int(ex.back().tokens.size()) - 1);
    }
    // Sorted by length (stable): chunks of similar lengths waste little on padding. The loss is a sum over the
    // sequences, so the order changes nothing but the speed.
    std::stable_sort(ex.begin(), ex.end(),
                     [](const Example& a, const Example& b) { return a.tokens.size() < b.tokens.size(); });
    const int pad = Vocabulary{taskSymbols(c.task, c.vocab)}.pad();
    Batch b;
    b.n = n;
    b.T = T;
    b.tokens.assign(std::size_t(n) * T, pad);
    b.targets.assign(std::size_t(n) * T, pad);
    b.weights.assign(std::size_t(n) * T, 0.0f);
    b.lengths.assign(std::size_t(n), 0);
    double count = 0;
    for (int s = 0; s < n; ++s) {
        const Example& e = ex[std::size_t(s)];
        b.lengths[std::size_t(s)] = int(e.tokens.size()) - 1;
        for (std::size_t t = 0; t + 1 < e.tokens.size(); ++t) {
            const std::size_t r = std::size_t(s) * T + t;
            b.tokens[r] = e.tokens[t];
            b.targets[r] = e.tokens[t + 1];
            if (e.answer[t + 1]) {
                b.weights[r] = 1.0f;
                ++count;
            }
        }
    }
    b.normaliser = std::max(1.0, count);
    return b;
}

} // namespace

AnswerScore scoreAnswers(const Batch& b, const std::vector<int>& predictions)
{
    AnswerScore sc;
    sc.sequences = b.n;
    for (int s = 0; s < b.n; ++s) {
        bool all = true;
        for (int t = 0; t < b.T; ++t) {
            const std::size_t r = std::size_t(s) * b.T + t;
            if (b.weights[r] == 0.0f)
                continue;
            ++sc.tokens;
            if (predictions[r] == b.targets[r])
                ++sc.right;
            else
                all = false;
        }
        sc.exact += all ? 1 : 0;
    }
    return sc;
}

namespace {

LengthPoint evaluate(Network<float>& net, const TrainConfig& c, int length)
{
    LengthPoint pt;
    pt.length = length;
    const int T = sequenceLength(c.task, length) - 1;
    if (!net.positionRowsFor(T).empty()) {
        pt.noPositionRows = true;
        pt.loss = std::numeric_limits<double>::quiet_NaN();
        return pt;
    }
    int exact = 0, tokens = 0, right = 0;
    double loss = 0.0;
    std::vector<int> pred;
    for (int start = 0; start < c.evalSamples; start += c.batch) {
        const int n = std::min(c.batch, c.evalSamples - start);
        const Batch b = makeBatch(c, n, [&](int i) {
            return std::pair<int, std::uint64_t>(
                length, mixSeed(c.seed, 0xE7A1, std::uint64_t(length), std::uint64_t(start + i)));
        });
        loss += net.run(b, nullptr, c.threads, &pred) * b.normaliser;
        const AnswerScore sc = scoreAnswers(b, pred);
        exact += sc.exact;
        tokens += sc.tokens;
        right += sc.right;
    }
    pt.exactMatch = double(exact) / c.evalSamples;
    pt.tokenAccuracy = tokens ? double(right) / tokens : 0.0;
    pt.loss = tokens ? loss / tokens : 0.0;
    return pt;
}

} // namespace

std::vector<int> parseLengths(std::string_view spec)
{
    const PositionList p = PositionList::parse(spec);
    std::vector<int> out;
    if (p.size() > 4096)
        throw InputError("--test-lens '" + std::string(spec) + "' lists " + std::to_string(p.size())
                         + " lengths; at most 4096");
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i] < 1 || p[i] > 100000)
            throw InputError("test length " + std::to_string(p[i]) + " in '" + std::string(spec)
                             + "' is out of range; allowed: 1 to 100000");
        out.push_back(int(p[i]));
    }
    return out;
}

void validate(const TrainConfig& c)
{
    checkTrainable(c.scheme); // first: its message names the trainable schemes (an unknown one's too)
    const SchemeDescriptor& scheme = schemeOrThrow(c.scheme);
    auto range = [](const char* name, long long v, long long lo, long long hi) {
        if (v < lo || v > hi)
            throw InputError(std::string(name) + " " + std::to_string(v)
                             + " is out of range; allowed: " + std::to_string(lo) + " to " + std::to_string(hi));
    };
    range("--layers", c.layers, 1, 4);
    range("--width", c.width, 8, 256);
    range("--heads", c.heads, 1, 8);
    if (c.width % c.heads != 0)
        throw InputError("--width " + std::to_string(c.width) + " is not divisible by --heads "
                         + std::to_string(c.heads));
    range("--batch", c.batch, 1, 4096);
    range("--vocab", c.vocab, 2, 1000);
    range("--train-len", c.trainLen, 1, 4096);
    range("--steps", c.steps, 0, 100000000);
    range("--threads", c.threads, 1, 256);
    range("--eval-samples", c.evalSamples, 1, 1000000);
    if (!(c.lr > 0.0) || !std::isfinite(c.lr))
        throw InputError("--lr must be a positive number");
    if (c.task == Task::Recall && c.vocab < 2)
        throw InputError("recall needs --vocab 2 or more");
    // Parameters (same rules as everywhere: resolveParams), with and without the test-time settings.
    const ParamSet p = schemeParams(scheme, c, {});
    if (!c.testOverrides.empty())
        schemeParams(scheme, c, c.testOverrides);
    // Memory: training batch, and the longest test length.
    const ModelConfig m = modelConfig(c, scheme, p);
    int longest = c.trainLen;
    for (int L : c.testLens)
        longest = std::max(longest, L);
    const int T = sequenceLength(c.task, longest) - 1;
    const double bytes
        = std::max(Network<float>::bytesFor(m, c.batch, sequenceLength(c.task, c.trainLen) - 1, c.threads),
                   Network<float>::bytesFor(m, std::min(c.batch, c.evalSamples), T, c.threads));
    Limits lim;
    lim.maxBytes = std::size_t(c.maxBytes);
    lim.maxWork = c.maxWork;
    const std::string what = "training at sequence length " + std::to_string(T) + " with batch "
        + std::to_string(c.batch) + " and width " + std::to_string(c.width);
    checkSize(bytes, lim, what, "ask for a smaller --batch, --width, --train-len or test lengths");
    // Two limits: a part that runs to its end once started (a step, one length's evaluation: the cancel flag is
    // read between them) is held to compute's 1e11, the whole run to maxWork.
    const TrainWork w = trainWork(c);
    const std::string advice = "ask for fewer --steps (or a --seconds limit), --eval-samples or test lengths, a "
                               "smaller model, or smaller scheme parameters";
    Limits partLimit;
    partLimit.maxWork = c.maxPartWork;
    checkWork(w.largestPart, partLimit, w.part, advice);
    checkWork(w.total, lim, what, advice);
}

TrainWork trainWork(const TrainConfig& cIn)
{
    TrainConfig c = cIn;
    if (c.testLens.empty())
        for (int k = 1; k <= 8; ++k)
            c.testLens.push_back(k * c.trainLen);
    const SchemeDescriptor& scheme = schemeOrThrow(c.scheme);
    const ParamSet params = schemeParams(scheme, c, {});
    const ModelConfig m = modelConfig(c, scheme, params);
    const int trainT = sequenceLength(c.task, c.trainLen) - 1;
    const double stepWork = Network<float>::workFor(m, c.batch, trainT, true);
    // Evaluating n sequences of one length runs in batches of c.batch; the work is linear in n.
    const auto evalWork = [&](int samples, int length) {
        return Network<float>::workFor(m, samples, sequenceLength(c.task, length) - 1, false);
    };
    // The position part's tables for sequences of T tokens, computed once (the network caches them per length).
    const int headDim = c.width / std::max(1, c.heads);
    const auto tables = [&](int T) {
        const double t = T;
        double w = t * c.width * drawOps; // an additive table or the sin and cos tables: a transcendental a cell
        if (scheme.cost) {
            PairContext ctx;
            ctx.headDim = headDim;
            ctx.heads = c.heads;
            ctx.queries = PositionList::range(0, T);
            ctx.keys = ctx.queries;
            ctx.causal = true;
            for (int h = 0; h < c.heads; ++h)
                w += scheme.cost(params, ctx).work + t * t;
        }
        return w;
    };
    TrainWork out;
    const auto part = [&](double w, const std::string& what) {
        if (w > out.largestPart) {
            out.largestPart = w;
            out.part = what;
        }
    };
    double steps = double(c.steps);
    if (c.seconds > 0.0) // the time limit ends the steps; checks and previews still run between them
        steps = std::min(steps, std::ceil(c.seconds * opsPerSecond / std::max(stepWork, 1.0)));
    out.total = (c.seconds > 0.0 ? std::min(double(c.steps), 1.0) : steps) * stepWork;
    if (c.steps > 0)
        part(stepWork + tables(trainT),
             "the first training step (batch " + std::to_string(c.batch) + ", its position tables)");
    if (c.evalEvery > 0) {
        out.total += std::ceil(steps / c.evalEvery) * evalWork(c.evalSamples, c.trainLen);
        part(evalWork(c.evalSamples, c.trainLen),
             "a check of " + std::to_string(c.evalSamples) + " sequences at length " + std::to_string(c.trainLen));
    }
    std::vector<int> lengths{trainT};
    double allLengths = 0.0;
    for (int L : c.testLens) {
        const int T = sequenceLength(c.task, L) - 1;
        allLengths += evalWork(c.evalSamples, L);
        // One length's evaluation runs to its end (cancel is seen between lengths), its tables first.
        const bool first = std::find(lengths.begin(), lengths.end(), T) == lengths.end();
        part(evalWork(c.evalSamples, L) + (first ? tables(T) : 0.0),
             "the evaluation of " + std::to_string(c.evalSamples) + " sequences at test length " + std::to_string(L)
                 + (first ? " (and its position tables)" : ""));
        lengths.push_back(T);
    }
    out.total += allLengths;
    if (c.curveEvery > 0)
        out.total += std::ceil(steps / c.curveEvery) * allLengths
            * double(std::max(1, std::min(c.curveSamples, c.evalSamples))) / double(c.evalSamples);
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    for (int T : lengths)
        out.total += tables(T);
    return out;
}

double learningRate(const TrainConfig& c, int step)
{
    if (!c.cosineDecay || c.steps <= 0)
        return c.lr;
    // CosineAnnealingLR's closed form: eta_t = eta_min + (lr - eta_min) (1 + cos(pi t / T_max)) / 2 with t = step - 1
    // (the scheduler steps after each optimiser step), eta_min = 0, T_max = steps.
    const double t = std::min(double(step - 1), double(c.steps));
    return c.lr * 0.5 * (1.0 + std::cos(std::numbers::pi * t / double(c.steps)));
}

RunResult trainRun(const TrainConfig& cIn, const std::function<void(const Progress&)>& progress,
                   const std::atomic<bool>* cancel)
{
    TrainConfig c = cIn;
    if (c.testLens.empty())
        for (int k = 1; k <= 8; ++k)
            c.testLens.push_back(k * c.trainLen);
    validate(c);
    const SchemeDescriptor& scheme = schemeOrThrow(c.scheme);
    const ParamSet params = schemeParams(scheme, c, {});
    const ModelConfig mc = modelConfig(c, scheme, params);
    Network<float> net(mc, scheme, params);
    net.initialise();

    RunResult res;
    res.config = c;
    for (const auto& [k, v] : params.values())
        res.params.push_back({k, v.toString()});

    const std::size_t P = net.layout().total;
    std::vector<float> g, m(P, 0.0f), v(P, 0.0f);
    double trainSeconds = 0.0;
    int step = 0;
    res.stop = "steps";
    auto check = [&]() {
        const LengthPoint pt = evaluate(net, c, c.trainLen);
        res.checks.push_back({step, trainSeconds, pt.exactMatch});
        if (!res.secondsTo95 && pt.exactMatch >= convergedExactMatch)
            res.secondsTo95 = trainSeconds;
        return pt.exactMatch;
    };
    while (step < c.steps) {
        if (cancel && cancel->load()) {
            res.stop = "cancelled";
            break;
        }
        if (c.seconds > 0.0 && trainSeconds >= c.seconds) {
            res.stop = "seconds";
            break;
        }
        const auto t0 = Clock::now();
        const Batch b = makeBatch(c, c.batch, [&](int i) {
            const std::uint64_t s = mixSeed(c.seed, 0x75A1, std::uint64_t(step), std::uint64_t(i));
            return std::pair<int, std::uint64_t>(1 + int(s % std::uint64_t(c.trainLen)), mixSeed(s, 1));
        });
        const double loss = net.run(b, &g, c.threads);
        if (!std::isfinite(loss)) {
            res.stop = std::string("loss is ") + (std::isnan(loss) ? "nan" : "infinite") + " at step "
                + std::to_string(step + 1) + "; training stopped, the curves so far are kept";
            res.diverged = true;
            break;
        }
        // AdamW (Loshchilov and Hutter 2019), as torch.optim.AdamW: decoupled decay, bias-corrected moments.
        ++step;
        const double bc1 = 1.0 - std::pow(c.beta1, step), bc2 = 1.0 - std::pow(c.beta2, step);
        auto& w = net.params();
        const double lrNow = learningRate(c, step);
        const float lr = float(lrNow), wd = float(c.weightDecay), b1 = float(c.beta1), b2 = float(c.beta2);
        const float stepSize = float(lrNow / bc1), rbc2 = float(1.0 / std::sqrt(bc2)), eps = float(c.eps);
        for (std::size_t i = 0; i < P; ++i) {
            w[i] -= lr * wd * w[i];
            m[i] = b1 * m[i] + (1.0f - b1) * g[i];
            v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
            w[i] -= stepSize * m[i] / (std::sqrt(v[i]) * rbc2 + eps);
        }
        net.constrain();
        trainSeconds += secondsSince(t0);
        res.loss.push_back({step, trainSeconds, loss});
        std::optional<double> exact;
        if (c.evalEvery > 0 && (step % c.evalEvery == 0 || step == c.steps))
            exact = check();
        std::vector<LengthPoint> preview;
        if (progress && c.curveEvery > 0 && (step % c.curveEvery == 0 || step == c.steps)) {
            TrainConfig pc = c;
            pc.evalSamples = std::max(1, std::min(c.curveSamples, c.evalSamples));
            for (int L : c.testLens) {
                if (cancel && cancel->load())
                    break;
                preview.push_back(evaluate(net, pc, L));
            }
        }
        if (progress && (step % 10 == 0 || exact || !preview.empty() || step == c.steps))
            progress({step, c.steps, trainSeconds, loss, exact, std::move(preview)});
        if (c.stopAt95 && exact && *exact >= convergedExactMatch) {
            res.stop = "target";
            break;
        }
    }
    res.stepsDone = step;
    res.trainSeconds = trainSeconds;
    res.stepMs = step ? 1000.0 * trainSeconds / step : 0.0;
    if (res.diverged)
        return res;
    res.weights = std::make_shared<const std::vector<float>>(net.params());
    auto evaluateAll = [&](Network<float>& n) {
        for (int L : c.testLens) {
            if (cancel && cancel->load()) {
                res.stop = "cancelled";
                break;
            }
            res.lengths.push_back(evaluate(n, c, L));
        }
    };
    if (c.testOverrides.empty()) {
        evaluateAll(net);
    } else {
        Network<float> testNet(mc, scheme, schemeParams(scheme, c, c.testOverrides));
        if (testNet.layout().total != net.layout().total)
            throw InputError("--test-set may not change the shape of trained parameters");
        testNet.params() = net.params();
        evaluateAll(testNet);
    }
    return res;
}

TrainedAttention trainedAttention(const RunResult& run, int layer, int length, int sample)
{
    const TrainConfig& c = run.config;
    if (!run.weights)
        throw InputError("the run holds no trained parameters (runs read from a file and diverged runs keep none)");
    const SchemeDescriptor& scheme = schemeOrThrow(c.scheme);
    if (layer < 0 || layer >= c.layers)
        throw InputError("layer " + std::to_string(layer) + " is out of range; allowed: 0 to "
                         + std::to_string(c.layers - 1));
    if (length < 1 || length > 100000)
        throw InputError("test length " + std::to_string(length) + " is out of range; allowed: 1 to 100000");
    if (sample < 0)
        throw InputError("sample " + std::to_string(sample) + " is out of range; allowed: 0 or more");
    const ModelConfig mc = modelConfig(c, scheme, schemeParams(scheme, c, {})); // sizes as trained
    const int T = sequenceLength(c.task, length) - 1;
    Limits lim;
    lim.maxBytes = std::size_t(c.maxBytes);
    checkSize(Network<float>::bytesFor(mc, 1, T, 1), lim, "attention at sequence length " + std::to_string(T),
              "ask for a shorter test length");
    Network<float> net(mc, scheme, schemeParams(scheme, c, c.testOverrides));
    if (net.layout().total != run.weights->size())
        throw InputError("the run's parameters do not fit its model (" + std::to_string(run.weights->size()) + " for "
                         + std::to_string(net.layout().total) + ")");
    if (const std::string why = net.positionRowsFor(T); !why.empty())
        throw InputError("test length " + std::to_string(length) + ": " + why);
    net.params() = *run.weights;
    // The evaluation's sequence: the same stream evaluate() draws sample i of length L from.
    const Batch b = makeBatch(c, 1, [&](int) {
        return std::pair<int, std::uint64_t>(length,
                                             mixSeed(c.seed, 0xE7A1, std::uint64_t(length), std::uint64_t(sample)));
    });
    TrainedAttention out;
    out.layer = layer;
    out.length = length;
    out.T = T;
    out.heads = c.heads;
    out.trainedTokens = sequenceLength(c.task, c.trainLen) - 1;
    out.tokens.assign(b.tokens.begin(), b.tokens.begin() + T);
    for (const Mat<float>& h : net.attention(b, layer))
        out.weights.emplace_back(h.data(), h.data() + h.size());
    return out;
}

// ---- run files ----

namespace {

std::string num(double v)
{
    return std::isfinite(v) ? formatNumber(v) : std::string("null");
}

std::string overridesJson(const Overrides& o)
{
    std::string s = "[";
    for (std::size_t i = 0; i < o.size(); ++i)
        s += (i ? ", " : "") + jsonString(o[i].first + "=" + o[i].second);
    return s + "]";
}

} // namespace

void writeRuns(std::ostream& out, const std::vector<RunResult>& runs)
{
    out << "{\n  \"format\": \"poslab-train-runs\",\n  \"version\": 1,\n  \"runs\": [";
    for (std::size_t ri = 0; ri < runs.size(); ++ri) {
        const RunResult& r = runs[ri];
        const TrainConfig& c = r.config;
        out << (ri ? "," : "") << "\n    {\n";
        out << "      \"scheme\": " << jsonString(c.scheme) << ",\n";
        out << "      \"set\": " << overridesJson(c.overrides) << ",\n";
        out << "      \"test_set\": " << overridesJson(c.testOverrides) << ",\n";
        out << "      \"params\": {";
        for (std::size_t i = 0; i < r.params.size(); ++i)
            out << (i ? ", " : "") << jsonString(r.params[i].first) << ": " << jsonString(r.params[i].second);
        out << "},\n";
        out << "      \"task\": " << jsonString(taskName(c.task)) << ",\n";
        out << "      \"measured\": " << jsonString(taskDescription(c.task)) << ",\n";
        out << "      \"train_len\": " << c.trainLen << ",\n";
        out << "      \"seed\": " << c.seed << ",\n";
        out << "      \"model\": {\"layers\": " << c.layers << ", \"width\": " << c.width << ", \"heads\": " << c.heads
            << ", \"mlp\": " << jsonString(c.gelu ? "gelu" : "relu") << ", \"tied\": " << (c.tied ? "true" : "false")
            << ", \"batch\": " << c.batch << ", \"vocab\": " << c.vocab << ", \"lr\": " << num(c.lr)
            << ", \"lr_schedule\": " << jsonString(c.cosineDecay ? "cosine" : "constant")
            << ", \"weight_decay\": " << num(c.weightDecay) << ", \"steps\": " << c.steps
            << ", \"seconds\": " << num(c.seconds) << ", \"eval_samples\": " << c.evalSamples
            << ", \"threads\": " << c.threads << "},\n";
        out << "      \"steps_done\": " << r.stepsDone << ",\n";
        out << "      \"stop\": " << jsonString(r.stop) << ",\n";
        out << "      \"diverged\": " << (r.diverged ? "true" : "false") << ",\n";
        out << "      \"train_seconds\": " << num(r.trainSeconds) << ",\n";
        out << "      \"step_ms\": " << num(r.stepMs) << ",\n";
        out << "      \"seconds_to_95\": " << (r.secondsTo95 ? num(*r.secondsTo95) : "null") << ",\n";
        out << "      \"accuracy\": [";
        for (std::size_t i = 0; i < r.lengths.size(); ++i) {
            const LengthPoint& p = r.lengths[i];
            out << (i ? "," : "") << "\n        {\"length\": " << p.length << ", \"exact_match\": " << num(p.exactMatch)
                << ", \"token_accuracy\": " << num(p.tokenAccuracy) << ", \"loss\": " << num(p.loss)
                << ", \"no_position_rows\": " << (p.noPositionRows ? "true" : "false") << "}";
        }
        out << "],\n      \"checks\": [";
        for (std::size_t i = 0; i < r.checks.size(); ++i)
            out << (i ? ", " : "") << "[" << r.checks[i].step << ", " << num(r.checks[i].seconds) << ", "
                << num(r.checks[i].exactMatch) << "]";
        out << "],\n      \"loss_curve\": [";
        for (std::size_t i = 0; i < r.loss.size(); ++i)
            out << (i ? ", " : "") << "[" << r.loss[i].step << ", " << num(r.loss[i].seconds) << ", "
                << num(r.loss[i].loss) << "]";
        out << "]\n    }";
    }
    out << "\n  ]\n}\n";
}

std::vector<RunResult> readRuns(std::string_view text)
{
    const json::Value doc = json::parse(text);
    const json::Value* fmt = doc.find("format");
    if (!fmt || fmt->string() != "poslab-train-runs")
        throw InputError("not a PosLab run file: \"format\" must be \"poslab-train-runs\" (written by poslab train)");
    const json::Value* runs = doc.find("runs");
    if (!runs || !runs->isArray())
        throw InputError("run file: \"runs\" must be an array");
    if (runs->array().size() > maxRuns)
        throw RefusedError("run file: " + std::to_string(runs->array().size()) + " runs; at most "
                           + std::to_string(maxRuns) + " (split it into several files)");
    auto need = [](const json::Value& o, const char* key, json::Type t) -> const json::Value& {
        const json::Value* v = o.find(key);
        if (!v || v->type() != t)
            throw InputError(std::string("run file: every run needs \"") + key + "\" as "
                             + std::string(json::typeName(t)));
        return *v;
    };
    auto numOrNan = [](const json::Value* v) { return v && v->isNumber() ? v->number() : std::nan(""); };
    // A count or a step: a whole number from 0 to 10^9 (a double past int's range is undefined to convert).
    auto count = [](const json::Value& v, const char* what) {
        const std::optional<std::int64_t> n = v.integer();
        if (!n || *n < 0 || *n > 1000000000)
            throw InputError(std::string("run file: ") + what + " must be a whole number from 0 to 1000000000");
        return int(*n);
    };
    std::vector<RunResult> out;
    for (const json::Value& r : runs->array()) {
        if (!r.isObject())
            throw InputError("run file: each run must be an object");
        RunResult res;
        res.config.scheme = need(r, "scheme", json::Type::String).string();
        res.config.task = parseTask(need(r, "task", json::Type::String).string());
        const double tl = need(r, "train_len", json::Type::Number).number();
        if (!(tl >= 1 && tl <= 100000))
            throw InputError("run file: train_len must be 1 to 100000");
        res.config.trainLen = int(tl);
        if (const json::Value* s = r.find("seed"); s && s->isNumber()) {
            const std::optional<std::int64_t> seed = s->integer();
            if (!seed || *seed < 0 || *seed > (std::int64_t(1) << 53))
                throw InputError("run file: seed must be a whole number from 0 to 2^53");
            res.config.seed = std::uint64_t(*seed);
        }
        // "set" and "test_set" hold "KEY=VALUE" strings; another type is named (a 5 used to read as '').
        const auto settings = [&](const char* key, const char* option, Overrides& to) {
            const json::Value* s = r.find(key);
            if (!s)
                return;
            if (!s->isArray())
                throw InputError(std::string("run file: \"") + key
                                 + "\" must be an array of \"KEY=VALUE\" strings, got "
                                 + std::string(json::typeName(s->type())));
            for (const json::Value& kv : s->array()) {
                if (!kv.isString())
                    throw InputError(std::string("run file: \"") + key + "\" holds \"KEY=VALUE\" strings, got "
                                     + std::string(json::typeName(kv.type())));
                to.push_back(splitSetting(kv.string(), option));
            }
        };
        settings("set", "--set", res.config.overrides);
        settings("test_set", "--test-set", res.config.testOverrides);
        if (const json::Value* s = r.find("stop"); s && s->isString())
            res.stop = s->string();
        if (const json::Value* s = r.find("diverged"); s && s->isBool())
            res.diverged = s->boolean();
        if (const json::Value* s = r.find("steps_done"); s && s->isNumber())
            res.stepsDone = count(*s, "steps_done");
        res.trainSeconds = numOrNan(r.find("train_seconds"));
        res.stepMs = numOrNan(r.find("step_ms"));
        if (const json::Value* s = r.find("seconds_to_95"); s && s->isNumber())
            res.secondsTo95 = s->number();
        for (const json::Value& p : need(r, "accuracy", json::Type::Array).array()) {
            LengthPoint pt;
            const double L = numOrNan(p.find("length"));
            if (!(L >= 1 && L <= 100000))
                throw InputError("run file: each accuracy entry needs a length from 1 to 100000");
            pt.length = int(L);
            pt.exactMatch = numOrNan(p.find("exact_match"));
            pt.tokenAccuracy = numOrNan(p.find("token_accuracy"));
            pt.loss = numOrNan(p.find("loss"));
            if (const json::Value* nr = p.find("no_position_rows"); nr && nr->isBool())
                pt.noPositionRows = nr->boolean();
            res.lengths.push_back(pt);
        }
        if (const json::Value* lc = r.find("loss_curve"); lc && lc->isArray())
            for (const json::Value& e : lc->array())
                if (e.isArray() && e.array().size() == 3)
                    res.loss.push_back(
                        {count(e.array()[0], "a loss_curve step"), numOrNan(&e.array()[1]), numOrNan(&e.array()[2])});
        if (const json::Value* lc = r.find("checks"); lc && lc->isArray())
            for (const json::Value& e : lc->array())
                if (e.isArray() && e.array().size() == 3)
                    res.checks.push_back(
                        {count(e.array()[0], "a checks step"), numOrNan(&e.array()[1]), numOrNan(&e.array()[2])});
        out.push_back(std::move(res));
    }
    if (out.empty())
        throw InputError("run file: \"runs\" is empty");
    return out;
}

std::string_view lengthMetricName(LengthMetric m)
{
    switch (m) {
    case LengthMetric::ExactMatch: return "exact_match";
    case LengthMetric::TokenAccuracy: return "token_accuracy";
    case LengthMetric::Loss: return "loss";
    }
    return "exact_match";
}

LengthCurves lengthCurves(const std::vector<RunResult>& runs, LengthMetric metric)
{
    LengthCurves out;
    out.metric = metric;
    for (const RunResult& r : runs) {
        for (const LengthPoint& p : r.lengths)
            out.lengths.push_back(p.length);
        out.trainLens.push_back(r.config.trainLen);
        const std::string task(taskName(r.config.task));
        out.task = out.task.empty() || out.task == task ? task : "mixed";
    }
    std::sort(out.lengths.begin(), out.lengths.end());
    out.lengths.erase(std::unique(out.lengths.begin(), out.lengths.end()), out.lengths.end());
    if (const double values = double(runs.size()) * double(out.lengths.size()); values > maxCurveValues) {
        char buf[160];
        std::snprintf(buf, sizeof buf, " test lengths are %.0f values to draw; at most %.0f", values, maxCurveValues);
        throw RefusedError(std::to_string(runs.size()) + " runs x " + std::to_string(out.lengths.size()) + buf
                           + " (fewer runs, or runs that share their test lengths)");
    }
    std::sort(out.trainLens.begin(), out.trainLens.end());
    out.trainLens.erase(std::unique(out.trainLens.begin(), out.trainLens.end()), out.trainLens.end());
    const std::size_t n = out.lengths.size();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const RunResult& r : runs) {
        std::string label = r.config.scheme;
        for (const auto& [k, v] : r.config.overrides)
            label += " " + k + "=" + v;
        for (const auto& [k, v] : r.config.testOverrides)
            label += " test:" + k + "=" + v;
        auto it = std::find_if(out.groups.begin(), out.groups.end(), [&](const auto& g) { return g.label == label; });
        if (it == out.groups.end()) {
            LengthCurves::Group g;
            g.scheme = r.config.scheme;
            g.label = label;
            g.noPositionRows.assign(n, false);
            out.groups.push_back(std::move(g));
            it = out.groups.end() - 1;
        }
        if (r.diverged) {
            ++it->diverged;
            continue;
        }
        std::vector<double> v(n, nan);
        for (const LengthPoint& p : r.lengths) {
            const std::size_t i
                = std::size_t(std::lower_bound(out.lengths.begin(), out.lengths.end(), p.length) - out.lengths.begin());
            v[i] = metric == LengthMetric::ExactMatch   ? p.exactMatch
                : metric == LengthMetric::TokenAccuracy ? p.tokenAccuracy
                                                        : p.loss;
            if (p.noPositionRows)
                it->noPositionRows[i] = true;
        }
        it->seeds.push_back(r.config.seed);
        it->values.push_back(std::move(v));
    }
    for (auto& g : out.groups) {
        g.mean.assign(n, nan);
        for (std::size_t i = 0; i < n; ++i) {
            double sum = 0;
            int count = 0;
            for (const auto& v : g.values)
                if (std::isfinite(v[i])) {
                    sum += v[i];
                    ++count;
                }
            if (count)
                g.mean[i] = sum / count;
        }
    }
    return out;
}

} // namespace poslab::core::train
