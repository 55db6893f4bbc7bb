// SPDX-License-Identifier: MIT
// Every computation's cost is bounded before it starts (found by adversarial testing): the memory
// estimate counts each scheme's own weights, the work estimate its per-head work, and both refuse with one
// message naming the size. Also the input checks that used to pass bad values through: a position step that
// overflowed, a --set key given twice, a non-finite --vector, an xPos scale beyond float32.
//
// Each refusal test checks the estimate first (a lower bound worked out here from the scheme's definition),
// so that a missing estimate fails the test before anything large is computed.
#include "core/attention.h"
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/precision.h"
#include "core/train/trainer.h"

#include <QTest>

#include <chrono>
#include <cmath>
#include <limits>

using namespace poslab::core;

namespace {

AttentionRequest scoresOf(const std::string& scheme, int dim, int heads, Position positions,
                          std::vector<std::pair<std::string, std::string>> sets)
{
    AttentionRequest a;
    a.scheme = scheme;
    a.headDim = dim;
    a.heads = heads;
    a.queries = PositionList::range(0, positions);
    a.keys = a.queries;
    a.params = resolveParams(*findScheme(scheme), sets, TableContext{dim, a.queries, {}});
    return a;
}

ComputeRequest computeOf(const AttentionRequest& a, std::vector<std::pair<std::string, std::string>> sets)
{
    ComputeRequest c;
    c.quantity = Quantity::Scores;
    c.scheme = a.scheme;
    c.overrides = std::move(sets);
    c.context.dim = a.headDim;
    c.context.positions = a.queries;
    c.heads = a.heads;
    return c;
}

// Runs @p c and returns the RefusedError's message (fails the test when nothing is refused).
std::string refusal(const ComputeRequest& c, const Limits& limits = {})
{
    try {
        compute(c, limits);
    } catch (const RefusedError& e) {
        return e.what();
    }
    return "(not refused)";
}

} // namespace

class TestBounds : public QObject {
    Q_OBJECT
private slots:
    void copeWeightsCountAgainstTheCap();
    void transformerXlProjectionCountsAgainstTheCap();
    void shawTableDrawsCountAsWork();
    void sandwichCosineSumsCountAsWork();
    void debertaTablesCountAgainstTheCap();
    void decayCurvesCountTheirWork();
    void fireMlpCountsAsWork();
    void t5TableDrawsCountAsWork();
    void ordinaryRequestsStayWithinTheLimits();
    void rangeStepDoesNotOverflow();
    void repeatedSetKeyIsRefused();
    void nonFiniteVectorIsRefused();
    void xposScaleBeyondFloatIsRefused();
    void precisionWorkIsMeasuredCost();
    void trainingHasAWorkLimit();
    void runFilesAreBoundedBeforeDrawing();
};

void TestBounds::copeWeightsCountAgainstTheCap()
{
    // CoPE's position embeddings e are npos_max x d per head (facebookresearch/RAM context_position.py:
    // self.pos_emb = nn.Parameter(torch.zeros(1, head_dim, npos_max))): 8192 x 65536 doubles = 4 GiB alone.
    const std::vector<std::pair<std::string, std::string>> sets{{"npos_max", "8192"}};
    const AttentionRequest a = scoresOf("cope", 65536, 1, 1, sets);
    const double weights = 8192.0 * 65536.0 * 8.0;
    QVERIFY2(attentionBytes(a) >= weights, std::to_string(attentionBytes(a)).c_str());
    const std::string m = refusal(computeOf(a, sets));
    QVERIFY2(m.find("memory cap") != std::string::npos && m.find("cope") != std::string::npos, m.c_str());
}

void TestBounds::transformerXlProjectionCountsAgainstTheCap()
{
    // Transformer-XL's W_R is d x d per head (kimiyoung/transformer-xl mem_transformer.py: self.r_net =
    // nn.Linear(d_model, n_head * d_head)): 16384^2 doubles = 2 GiB, far above a 64 MiB cap.
    const AttentionRequest a = scoresOf("transformer_xl", 16384, 1, 1, {});
    QVERIFY(attentionBytes(a) >= 16384.0 * 16384.0 * 8.0);
    Limits small;
    small.maxBytes = std::size_t(64) << 20;
    const std::string m = refusal(computeOf(a, {}), small);
    QVERIFY2(m.find("64.0 MiB") != std::string::npos && m.find("transformer_xl") != std::string::npos, m.c_str());
}

void TestBounds::shawTableDrawsCountAsWork()
{
    // Shaw et al. 2018 section 3: 2k + 1 relative embeddings of width d per head; with k = 4096, d = 8192 and
    // 64 heads, drawing them is 64 * 8193 * 8192 = 4.3e9 random normals for a 1 x 1 result.
    const std::vector<std::pair<std::string, std::string>> sets{{"max_relative_position", "4096"}};
    const AttentionRequest a = scoresOf("shaw", 8192, 64, 1, sets);
    const double draws = 64.0 * 8193.0 * 8192.0;
    QVERIFY2(attentionWork(a) >= draws * drawOps, std::to_string(attentionWork(a)).c_str());
    const std::string m = refusal(computeOf(a, sets));
    QVERIFY2(m.find("work limit") != std::string::npos && m.find("shaw") != std::string::npos, m.c_str());
}

void TestBounds::sandwichCosineSumsCountAsWork()
{
    // Sandwich (Chi et al. 2023, eq. 2): each bias entry sums d'/2 cosines; 512 x 512 entries with d' = 65536
    // is 8.6e9 cosines (each of a power) per head.
    const std::vector<std::pair<std::string, std::string>> sets{{"sandwich_dim", "65536"}};
    const AttentionRequest a = scoresOf("sandwich", 64, 1, 512, sets);
    QVERIFY(attentionWork(a) >= 512.0 * 512.0 * 32768.0 * drawOps);
    const std::string m = refusal(computeOf(a, sets));
    QVERIFY2(m.find("work limit") != std::string::npos && m.find("512 x 512") != std::string::npos, m.c_str());
}

void TestBounds::debertaTablesCountAgainstTheCap()
{
    // DeBERTa (He et al. 2021, section 3.1): without buckets the relative tables have 2k rows of width d, for
    // both c2p and p2c; k = 2^20, d = 1024: 2 * 2^21 * 1024 doubles = 32 GiB.
    const std::vector<std::pair<std::string, std::string>> sets{{"position_buckets", "0"},
                                                                {"max_relative_positions", "1048576"}};
    const AttentionRequest a = scoresOf("deberta", 1024, 1, 1, sets);
    QVERIFY(attentionBytes(a) >= 2.0 * 2097152.0 * 1024.0 * 8.0);
    QVERIFY(refusal(computeOf(a, sets)).find("memory cap") != std::string::npos);
}

void TestBounds::decayCurvesCountTheirWork()
{
    // Sandwich's decay curves over 65536 distances with d' = 65536 (Chi et al. 2023, eq. 2: d'/2 cosines per
    // bias entry): 65536 * 32768 = 2.1e9 cosines (each of a power) per head, 64 heads; this ran for minutes.
    DecayRequest d;
    d.scheme = "sandwich";
    d.params = resolveParams(*findScheme("sandwich"), {{"sandwich_dim", "65536"}}, TableContext{});
    d.heads = 64;
    for (Position x = 0; x < 65536; ++x)
        d.distances.push_back(x);
    QVERIFY_THROWS_EXCEPTION(RefusedError, decayCurves(d));
    // Ordinary: 64 distances of ALiBi with 8 heads, one curve per head.
    d.distances.resize(64);
    d.scheme = "alibi";
    d.params = ParamSet();
    d.heads = 8;
    QCOMPARE(decayCurves(d).size(), std::size_t(8));
}

void TestBounds::fireMlpCountsAsWork()
{
    // FIRE (Li et al. 2024, eq. 6): each bias entry is an MLP of the normalised distance, here of width 1024:
    // 1024 multiply-adds per entry and head; 256 heads x 512 x 512 entries is 6.9e10, with the same again for
    // the hidden layer's activations (64 heads took 12.5 s here; 256 would take about 50 s).
    const std::vector<std::pair<std::string, std::string>> sets{{"mlp_width", "1024"}};
    const AttentionRequest a = scoresOf("fire", 64, 256, 512, sets);
    QVERIFY(attentionWork(a) >= 256.0 * 512.0 * 512.0 * 1024.0 * 2.0);
    Limits roomy;
    roomy.maxBytes = std::size_t(64) << 30;
    QVERIFY(refusal(computeOf(a, sets), roomy).find("work limit") != std::string::npos);
}

void TestBounds::t5TableDrawsCountAsWork()
{
    // T5 (Raffel et al. 2020, section 2.1; transformers modeling_t5.py relative_attention_bias =
    // nn.Embedding(num_buckets, n_heads)): each head's call draws the buckets x heads table, so 1024 heads
    // with 1024 buckets draw 1024^3 = 1.1e9 normals for a 1 x 1 result (it took 22 s).
    const std::vector<std::pair<std::string, std::string>> sets{{"relative_attention_num_buckets", "1024"},
                                                                {"relative_attention_max_distance", "1048576"}};
    const AttentionRequest a = scoresOf("t5", 64, 1024, 1, sets);
    QVERIFY(attentionWork(a) >= 1024.0 * 1024.0 * 1024.0 * drawOps);
    QVERIFY(refusal(computeOf(a, sets)).find("work limit") != std::string::npos);
}

void TestBounds::ordinaryRequestsStayWithinTheLimits()
{
    // The benchmark's size, 8 heads x 4096 x 4096 with d = 128, and every scheme at the GUI's default 512
    // positions, stay below both limits.
    const Limits limits;
    QVERIFY(attentionWork(scoresOf("rope", 128, 8, 4096, {})) <= limits.maxWork);
    for (const SchemeDescriptor& s : schemes()) {
        const AttentionRequest a = scoresOf(s.id, 128, 8, 512, {});
        QVERIFY2(attentionWork(a) <= limits.maxWork, s.id.c_str());
        QVERIFY2(attentionBytes(a) <= double(limits.maxBytes), s.id.c_str());
    }
}

void TestBounds::rangeStepDoesNotOverflow()
{
    // Python's range(0, 10, 2**63 - 1) is [0]: one position. end - begin + step - 1 overflowed to a negative
    // count (shape [0, 64]).
    const PositionList p = PositionList::parse("0:10:9223372036854775807");
    QCOMPARE(p.size(), std::size_t(1));
    QCOMPARE(p.at(0), Position(0));
    QCOMPARE(p.maxValue(), Position(0));
    QCOMPARE(PositionList::parse(p.toString()).size(), std::size_t(1));
    const PositionList q = PositionList::parse("5:2147483648:4611686018427387904");
    QCOMPARE(q.size(), std::size_t(1));
    QCOMPARE(q.maxValue(), Position(5));
    QCOMPARE(PositionList::parse(q.toString()).maxValue(), Position(5));
    // Unchanged for ordinary steps: range(0, 10, 4) = [0, 4, 8].
    QCOMPARE(PositionList::parse("0:10:4").size(), std::size_t(3));
    QCOMPARE(PositionList::parse("0:10:4").toString(), std::string("0:12:4"));
}

void TestBounds::repeatedSetKeyIsRefused()
{
    const SchemeDescriptor& rope = *findScheme("rope");
    try {
        resolveParams(rope, {{"rope_theta", "10000"}, {"rope_theta", "500000"}}, TableContext{});
        QFAIL("a key given twice was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("rope_theta is set twice") != std::string::npos, e.what());
    }
}

void TestBounds::nonFiniteVectorIsRefused()
{
    for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
        ComputeRequest c;
        c.quantity = Quantity::Rotate;
        c.scheme = "rope";
        c.context.dim = 4;
        c.context.positions = PositionList::range(0, 2);
        c.vector = {1.0, bad, 0.0, 0.0};
        QVERIFY_THROWS_EXCEPTION(InputError, compute(c));
    }
}

void TestBounds::xposScaleBeyondFloatIsRefused()
{
    // zeta_0 = 0.4d / 1.4d = 2/7 (Sun et al. 2022, section 3.2; torchscale xpos_relative_position.py); with the
    // torchscale centre c = 524288 for positions up to 1048575 and scale_base 512 the key scale is
    // (7/2)^1024 = 1e557, infinite in float32 (and in double).
    ComputeRequest c;
    c.quantity = Quantity::Cos;
    c.scheme = "xpos";
    c.context.dim = 8;
    c.context.positions = PositionList::list({0, 1048575});
    try {
        compute(c);
        QFAIL("an infinite xPos scale was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("scale_base") != std::string::npos, e.what());
    }
    // Within range: 2048 positions, (7/2)^2 at most.
    c.context.positions = PositionList::range(0, 2048);
    QCOMPARE(compute(c).shape[0], std::size_t(2048));
}

void TestBounds::precisionWorkIsMeasuredCost()
{
    // 0:27000 at d = 65536 was estimated 9.7e10 (40 + log2 n per position and pair and pipeline)
    // and ran 9 min 27 s. Measured here: 87 to 176 ns per position, pair and pipeline, counted 600 operations.
    QCOMPARE(precisionWork(32768, 27000, 2), 27000.0 * 32768.0 * 2.0 * 600.0);
    ComputeRequest c;
    c.quantity = Quantity::Precision;
    c.scheme = "rope";
    c.context.dim = 65536;
    c.context.positions = PositionList::range(0, 27000);
    const auto t0 = std::chrono::steady_clock::now();
    std::string m;
    try {
        compute(c);
    } catch (const RefusedError& e) {
        m = e.what();
    }
    QVERIFY2(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1), "refused only after the work");
    QVERIFY2(m.find("the precision analysis of 27000 positions x 32768 pairs would take about 1.1e+12 operations")
                 != std::string::npos,
             m.c_str());
    // Every caller is checked, not only compute: the view's and the export's direct call (item 8).
    std::vector<double> omegas(2048, 1e-3);
    QVERIFY_THROWS_EXCEPTION(
        RefusedError,
        analysePrecision(omegas, PositionList::range(0, 1048576), FloatFormat::BFloat16, AnglePipeline::RoundAngle));
    // The window's default (d = 128, 4096 positions) and a large but reasonable table stay within the limit.
    QVERIFY(precisionWork(64, 4096, 2) < Limits{}.maxWork);
    QVERIFY(precisionWork(64, 1 << 20, 2) < Limits{}.maxWork);
}

void TestBounds::trainingHasAWorkLimit()
{
    using namespace poslab::core::train;
    // Item 9: Sandwich with d' = 65536 sums 32768 cosines per cell of each head's bias (sandwich.cpp), once per
    // length: the copy task's 8 test lengths 10..80 are T = 20..160 tokens (training's T = 20 among them), sum
    // T^2 = 81600; 4 heads. That alone is 4 x 81600 x 32768 x 2 x drawOps = 2.1e12: it took 8 min 29 s for one
    // step. Its largest part, test length 80 (T = 160: 4 x 25600 x 6.6e6 = 6.7e11), runs to its end once started,
    // and is held to compute's limit.
    TrainConfig c;
    c.scheme = "sandwich";
    c.overrides = {{"sandwich_dim", "65536"}};
    c.steps = 1;
    const TrainWork w = trainWork(c);
    QVERIFY2(w.total >= 4.0 * 81600.0 * 32768.0 * 2.0 * drawOps, std::to_string(w.total).c_str());
    QVERIFY2(w.largestPart >= 4.0 * 25600.0 * 32768.0 * 2.0 * drawOps, std::to_string(w.largestPart).c_str());
    try {
        validate(c);
        QFAIL("one step of Sandwich at d' = 65536 was accepted");
    } catch (const RefusedError& e) {
        const std::string m = e.what();
        QVERIFY2(m.find("the evaluation of 256 sequences at test length 80 (and its position tables) would take about "
                        "6.7e+11 operations, more than the work limit of 1e+11")
                     != std::string::npos,
                 e.what());
        QVERIFY2(m.find("--max-memory") == std::string::npos, e.what());
    }
    // --eval-samples 1000000: a million sequences at one length is one part.
    TrainConfig e;
    e.steps = 1;
    e.evalSamples = 1000000;
    QVERIFY_THROWS_EXCEPTION(RefusedError, validate(e));
    // The defaults (4000 steps, about 35 s of CPU), a --seconds run (the time limit ends its steps) and the
    // window's largest request, 100,000 steps, are accepted; a million steps are not.
    const TrainConfig d;
    QVERIFY2(trainWork(d).total > 2e11 && trainWork(d).total < 5e11, std::to_string(trainWork(d).total).c_str());
    validate(d);
    TrainConfig timed;
    timed.steps = 100000000;
    timed.cosineDecay = false; // a cosine schedule needs a number of steps to anneal over
    timed.seconds = 60;
    QVERIFY2(trainWork(timed).total < 1e11, std::to_string(trainWork(timed).total).c_str());
    validate(timed);
    TrainConfig window;
    window.steps = 100000;
    validate(window);
    TrainConfig longer;
    longer.steps = 1000000;
    try {
        validate(longer);
        QFAIL("a million steps were accepted");
    } catch (const RefusedError& x) {
        QVERIFY2(std::string(x.what()).find("more than the work limit of 1e+13; ask for fewer --steps (or a --seconds "
                                            "limit)")
                     != std::string::npos,
                 x.what());
    }
}

void TestBounds::runFilesAreBoundedBeforeDrawing()
{
    using namespace poslab::core::train;
    // Item 11: a run file of 20,000 runs took 6.2 GB and 19.5 s; more than maxRuns is refused by its count.
    std::string many = R"({"format": "poslab-train-runs", "version": 1, "runs": [)";
    for (std::size_t i = 0; i <= maxRuns; ++i)
        many += std::string(i ? "," : "") + R"({"scheme": "rope", "task": "copy", "train_len": 10, "accuracy": []})";
    many += "]}";
    try {
        readRuns(many);
        QFAIL("1001 runs were read");
    } catch (const RefusedError& e) {
        QVERIFY2(std::string(e.what()) == "run file: 1001 runs; at most 1000 (split it into several files)", e.what());
    }
    // Runs x the union of their test lengths: 1000 runs of 2 lengths each, none shared, are 2e6 values.
    std::vector<RunResult> runs(1000);
    for (int i = 0; i < 1000; ++i) {
        runs[std::size_t(i)].lengths.resize(2);
        runs[std::size_t(i)].lengths[0].length = 2 * i + 1;
        runs[std::size_t(i)].lengths[1].length = 2 * i + 2;
    }
    try {
        lengthCurves(runs, LengthMetric::ExactMatch);
        QFAIL("2e6 values were drawn");
    } catch (const RefusedError& e) {
        QVERIFY2(std::string(e.what()).find("1000 runs x 2000 test lengths are 2000000 values to draw; at most 1000000")
                     != std::string::npos,
                 e.what());
    }
    runs.resize(400);
    QCOMPARE(lengthCurves(runs, LengthMetric::ExactMatch).lengths.size(), std::size_t(800));
}

QTEST_APPLESS_MAIN(TestBounds)
#include "tst_bounds.moc"
