// SPDX-License-Identifier: MIT
// CoPE (a worked example), iRoPE (layers and the Llama 4 temperature step) and DroPE.
#include "core/attention.h"
#include "core/encodingregistry.h"
#include "core/encodings/cope.h"
#include "core/encodings/irope.h"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace poslab::core;

class TestContextual : public QObject {
    Q_OBJECT
private slots:
    void llama4FirstTemperedPositionIsWhereTheScaleRises();
    void copeWorkedExample();
    void copeEngineTerms();
    void copePositionLogitsBeforeOrAfterDivision();
    void iropeLayers();
    void iropeScoutLlama3Scaling();
    void llama4TemperatureStep();
    void iropeNopeLayerScalesQueries();
    void dropeRemovesTheRotation();
};

void TestContextual::copeWorkedExample()
{
    // Golovneva et al. 2024, section 3 (and the CoPE listing): gates sigmoid(logits), positions the reverse
    // cumulative sum, z interpolated between floor and ceil. Query 2 sees keys 0, 1, 2 with logits
    // 0, ln 3, -ln 3: gates 1/2, 3/4, 1/4; positions p_2 = 1/4, p_1 = 1, p_0 = 3/2. With z = [10, 20, 30, 40]:
    // bias_2 = 1/4 * 20 + 3/4 * 10 = 12.5, bias_1 = z[1] = 20, bias_0 = (30 + 20) / 2 = 25.
    // Query 0 sees only key 0 (logit 0): gate 1/2, bias 0.5 * 20 + 0.5 * 10 = 15.
    MatrixF logits(2, 3);
    logits << 0.0f, 99.0f, 99.0f, 0.0f, float(std::log(3.0)), float(-std::log(3.0));
    MaskMatrix mask(2, 3);
    mask << 1, 0, 0, 1, 1, 1;
    MatrixF z(2, 4);
    z << 10, 20, 30, 40, 10, 20, 30, 40;
    MatrixF gates, positions;
    const MatrixF bias = copeBias(logits, mask, z, 4, &gates, &positions);
    QVERIFY(std::fabs(gates(1, 0) - 0.5f) < 1e-6f);
    QVERIFY(std::fabs(gates(1, 1) - 0.75f) < 1e-6f);
    QVERIFY(std::fabs(gates(1, 2) - 0.25f) < 1e-6f);
    QCOMPARE(gates(0, 1), 0.0f); // masked keys do not count
    QVERIFY(std::fabs(positions(1, 0) - 1.5f) < 1e-6f);
    QVERIFY(std::fabs(positions(1, 1) - 1.0f) < 1e-6f);
    QVERIFY(std::fabs(positions(1, 2) - 0.25f) < 1e-6f);
    QVERIFY(std::fabs(bias(1, 2) - 12.5f) < 1e-5f);
    QVERIFY(std::fabs(bias(1, 1) - 20.0f) < 1e-5f);
    QVERIFY(std::fabs(bias(1, 0) - 25.0f) < 1e-5f);
    QVERIFY(std::fabs(bias(0, 0) - 15.0f) < 1e-5f);
    // npos_max = 2 clamps every count to 1: p_0 = p_1 = 1 -> 20.
    const MatrixF clamped = copeBias(logits, mask, z, 2, nullptr, nullptr);
    QVERIFY(std::fabs(clamped(1, 0) - 20.0f) < 1e-5f);
    QVERIFY(std::fabs(clamped(1, 2) - 12.5f) < 1e-5f);
}

void TestContextual::copeEngineTerms()
{
    AttentionRequest r;
    r.scheme = "cope";
    r.headDim = 8;
    r.queries = PositionList::range(0, 6);
    r.keys = PositionList::range(0, 6);
    const AttentionResult a = attentionScores(r);
    const AttentionHead& h = a.heads[0];
    QCOMPARE(h.terms.size(), std::size_t(4));
    QCOMPARE(h.terms[1].key, std::string("gates"));
    QCOMPARE(h.terms[2].key, std::string("positions"));
    // Under a causal mask the count from key j to query i is at most i - j + 1 and the count at the query's
    // own key is its gate.
    for (int i = 0; i < 6; ++i) {
        QVERIFY(std::fabs(h.terms[2].values(i, i) - h.terms[1].values(i, i)) < 1e-6f);
        for (int j = 0; j <= i; ++j)
            QVERIFY(h.terms[2].values(i, j) <= float(i - j + 1) + 1e-5f);
    }
}

void TestContextual::copePositionLogitsBeforeOrAfterDivision()
{
    // The paper's listing: logits = q.k/sqrt(d) + z (z added after the division), the default. The cited code
    // (facebookresearch/RAM projects/cope/src/cope/context_position.py ContextPosSelfAttn.forward, without
    // --cope-nodiv): attn_logits += pos_logits; attn_logits /= sqrt(head_dim), i.e. (q.k + z)/sqrt(d). Gates
    // are sigmoid(q.k/sqrt(d)) in both. Same content and seed, so z is the same in both runs.
    const int d = 16;
    AttentionRequest r;
    r.scheme = "cope";
    r.headDim = d;
    r.queries = PositionList::range(0, 7);
    r.keys = PositionList::range(0, 7);
    const SchemeDescriptor& s = schemeOrThrow("cope");
    QCOMPARE(s.param("position_logits")->defaultChoice, std::string("unscaled"));
    r.params = resolveParams(s, {{"position_logits", "unscaled"}}, TableContext{});
    const AttentionResult after = attentionScores(r);
    r.params = resolveParams(s, {{"position_logits", "scaled"}}, TableContext{});
    const AttentionResult before = attentionScores(r);
    const AttentionHead& a = after.heads[0];
    const AttentionHead& b = before.heads[0];
    QCOMPARE(a.terms[0].key, std::string("content"));
    QCOMPARE(a.terms[3].key, std::string("position_bias"));
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j <= i; ++j) {
            const double content = a.terms[0].values(i, j); // q.k/sqrt(d)
            const double z = a.terms[3].values(i, j);       // interpolated q.e[p], unscaled
            QCOMPARE(b.terms[0].values(i, j), a.terms[0].values(i, j));
            QCOMPARE(b.terms[1].values(i, j), a.terms[1].values(i, j)); // same gates
            QVERIFY(std::fabs(a.logits(i, j) - (content + z)) < 1e-5 * (1 + std::fabs(z)));
            const double qk = content * std::sqrt(double(d)); // (q.k + z) / sqrt(d)
            QVERIFY(std::fabs(b.logits(i, j) - (qk + z) / std::sqrt(double(d))) < 1e-5 * (1 + std::fabs(z)));
            QVERIFY(std::fabs(b.terms[3].values(i, j) - z / std::sqrt(double(d))) < 1e-5 * (1 + std::fabs(z)));
        }
    QVERIFY(s.formula.find("after dividing q.k by sqrt(d)") != std::string::npos);
}

void TestContextual::iropeLayers()
{
    // configuration_llama4.py: no_rope_layers[l] = int((l + 1) % no_rope_layer_interval != 0), 1 = RoPE.
    QVERIFY(iropeUsesRope(0, 4));
    QVERIFY(iropeUsesRope(2, 4));
    QVERIFY(!iropeUsesRope(3, 4));
    QVERIFY(iropeUsesRope(4, 4));
    QVERIFY(!iropeUsesRope(7, 4));
}

void TestContextual::iropeScoutLlama3Scaling()
{
    // Llama 4 Scout's RoPE layers: rope_theta 500000, rope_scaling {llama3, factor 16, low_freq_factor 1,
    // high_freq_factor 1, original_max_position_embeddings 8192} (meta-llama/llama-models models/llama4 after
    // the fix of PR #322; Hugging Face Llama4TextConfig). Hugging Face _compute_llama3_parameters, written here
    // in long double: wavelen = 2 pi / inv_freq; wavelen > old/low: inv_freq / factor; wavelen < old/high:
    // unchanged; else (1 - smooth) inv_freq / factor + smooth inv_freq, smooth = (old/wavelen - low)/(high - low).
    const int d = 128;
    const long double base = 500000, factor = 16, low = 1, high = 1, old = 8192;
    std::vector<long double> ref;
    for (int i = 0; i < d / 2; ++i) {
        const long double f = 1.0L / std::pow(base, 2.0L * i / d);
        const long double wavelen = 2 * std::numbers::pi_v<long double> / f;
        if (wavelen < old / high)
            ref.push_back(f);
        else if (wavelen > old / low)
            ref.push_back(f / factor);
        else {
            const long double smooth = (old / wavelen - low) / (high - low);
            ref.push_back((1 - smooth) * f / factor + smooth * f);
        }
    }
    const SchemeDescriptor& s = schemeOrThrow("irope");
    TableContext ctx;
    ctx.dim = d;
    const RotarySpec rope = s.rotary(defaultParams(s), ctx); // layer 0: a RoPE layer
    QCOMPARE(rope.rotaryDim, d);
    QCOMPARE(rope.layout, PairLayout::Interleaved);
    QCOMPARE(rope.invFreq.size(), ref.size());
    int scaled = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        QVERIFY2(std::fabs(rope.invFreq[i] - ref[i]) <= 1e-14L * ref[i], std::to_string(i).c_str());
        scaled += std::fabs(rope.invFreq[i] - 1.0 / std::pow(500000.0, 2.0 * double(i) / d)) > 1e-18;
    }
    QVERIFY(scaled > 0 && scaled < d / 2); // the slow pairs are divided by 16, the fast ones kept
    // rope_type default: the unscaled frequencies; a NoPE layer rotates nothing.
    ParamSet p = resolveParams(s, {{"rope_type", "default"}}, ctx);
    const RotarySpec plain = s.rotary(p, ctx);
    for (std::size_t i = 0; i < ref.size(); ++i)
        QVERIFY(std::fabs(plain.invFreq[i] - 1.0L / std::pow(base, 2.0L * i / d)) <= 1e-14L * plain.invFreq[i]);
    p = resolveParams(s, {{"layer", "3"}}, ctx);
    QCOMPARE(s.rotary(p, ctx).rotaryDim, 0);
    // The text says what is still left out.
    QVERIFY(s.summary.find("attention_chunk_size 8192") != std::string::npos);
    QVERIFY(s.summary.find("use_qk_norm") != std::string::npos);
}

void TestContextual::llama4TemperatureStep()
{
    // modeling_llama4.py: attn_scales = log(floor((cache_position + 1) / floor_scale) + 1) * attn_scale + 1,
    // floor_scale 8192, attn_scale 0.1 (Llama 4 config). The +1 moves the first step to position 8191.
    QCOMPARE(llama4AttnScale(0, 8192, 0.1), 1.0);
    QCOMPARE(llama4AttnScale(8190, 8192, 0.1), 1.0);
    QVERIFY(std::fabs(llama4AttnScale(8191, 8192, 0.1) - (1.0 + 0.1 * std::log(2.0))) < 1e-15); // 1.0693147...
    QVERIFY(std::fabs(llama4AttnScale(16382, 8192, 0.1) - (1.0 + 0.1 * std::log(2.0))) < 1e-15);
    QVERIFY(std::fabs(llama4AttnScale(16383, 8192, 0.1) - (1.0 + 0.1 * std::log(3.0))) < 1e-15);
}

void TestContextual::iropeNopeLayerScalesQueries()
{
    AttentionRequest r;
    r.scheme = "irope";
    r.headDim = 8;
    r.params = defaultParams(schemeOrThrow("irope"));
    r.params.set("layer", ParamValue::integer(3)); // NoPE
    r.content.kind = ContentKind::Constant;
    r.queries = PositionList::list({8190, 8191});
    r.keys = PositionList::list({0, 100});
    const AttentionResult a = attentionScores(r);
    // Constant content: q.k/sqrt(d) = 8/sqrt(8); the query at 8191 is scaled by 1 + 0.1 ln 2.
    const float base = 8.0f / std::sqrt(8.0f);
    QVERIFY(std::fabs(a.heads[0].logits(0, 0) - base) < 1e-5f);
    QVERIFY(std::fabs(a.heads[0].logits(1, 1) - base * float(1.0 + 0.1 * std::log(2.0))) < 1e-5f);
    QCOMPARE(a.queryScale.size(), std::size_t(2));
    // A RoPE layer has no temperature.
    r.params.set("layer", ParamValue::integer(2));
    QVERIFY(attentionScores(r).queryScale.empty());
}

void TestContextual::dropeRemovesTheRotation()
{
    AttentionRequest r;
    r.scheme = "rope";
    r.headDim = 16;
    r.queries = PositionList::range(0, 10);
    r.keys = PositionList::range(0, 10);
    r.drope = true;
    const AttentionResult dropped = attentionScores(r);
    AttentionRequest n = r;
    n.scheme = "nope";
    n.drope = false;
    const AttentionResult none = attentionScores(n);
    r.drope = false;
    const AttentionResult rotated = attentionScores(r);
    for (int i = 0; i < 10; ++i)
        for (int j = 0; j <= i; ++j)
            QCOMPARE(dropped.heads[0].logits(i, j), none.heads[0].logits(i, j));
    QVERIFY(std::fabs(rotated.heads[0].logits(9, 2) - none.heads[0].logits(9, 2)) > 1e-6f);
}

void TestContextual::llama4FirstTemperedPositionIsWhereTheScaleRises()
{
    // Meta's Llama 4 (HF modeling_llama4.py _get_attn_scale): log(floor((p + 1) / floor_scale) + 1) * attn_scale + 1,
    // which leaves 1 while p + 1 < floor_scale.
    for (double fs : {8192.0, 1.0, 10.5}) {
        const Position first = llama4FirstTemperedPosition(fs);
        QVERIFY(llama4AttnScale(first, fs, 0.1) > 1.0);
        if (first > 0)
            QCOMPARE(llama4AttnScale(first - 1, fs, 0.1), 1.0);
    }
    QCOMPARE(llama4FirstTemperedPosition(8192.0), Position(8191));
    QCOMPARE(llama4FirstTemperedPosition(10.5), Position(10));
}

QTEST_APPLESS_MAIN(TestContextual)
#include "tst_contextual.moc"
