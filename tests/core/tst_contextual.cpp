// SPDX-License-Identifier: MIT
// CoPE (a worked example), iRoPE (layers and the Llama 4 temperature step) and DroPE.
#include "core/attention.h"
#include "core/encodingregistry.h"
#include "core/encodings/cope.h"
#include "core/encodings/irope.h"

#include <QTest>

#include <cmath>

using namespace poslab::core;

class TestContextual : public QObject {
    Q_OBJECT
private slots:
    void copeWorkedExample();
    void copeEngineTerms();
    void iropeLayers();
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

void TestContextual::iropeLayers()
{
    // configuration_llama4.py: no_rope_layers[l] = int((l + 1) % no_rope_layer_interval != 0), 1 = RoPE.
    QVERIFY(iropeUsesRope(0, 4));
    QVERIFY(iropeUsesRope(2, 4));
    QVERIFY(!iropeUsesRope(3, 4));
    QVERIFY(iropeUsesRope(4, 4));
    QVERIFY(!iropeUsesRope(7, 4));
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

QTEST_APPLESS_MAIN(TestContextual)
#include "tst_contextual.moc"
