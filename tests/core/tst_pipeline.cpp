// SPDX-License-Identifier: MIT
// The attention pipeline: every stage is the engine's own matrix, and the last one is exactly what
// `poslab compute scores --softmax --content SENTENCE` gives (core::compute, the CLI's service), for every scheme.
// Stages are checked against their formulas recomputed here: q = W_Q x, R(t) q (Su et al. 2021, eq. 34 with
// Hugging Face's rotate_half pairs), PE(t) (Vaswani et al. 2017, section 3.5), ALiBi's -m (m - n) (Press et al.
// 2022, section 3). The NoPE demonstrations: a bidirectional layer without positions is permutation-equivariant,
// and with a causal mask uniform attention gives query i the weight 1/(i+1) on the first token (Kazemnejad et al.
// 2023, section 3 and appendix C), from which the position is read back.
#include "core/attention.h"
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/pipeline.h"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace poslab::core;

namespace {

constexpr int dim = 16;
const char* const sentence = "the cat sat on the mat because it was warm";

ParamSet paramsFor(const std::string& scheme, const Overrides& sets)
{
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = PositionList::range(0, 10);
    return resolveParams(schemeOrThrow(scheme), sets, ctx);
}

Overrides parseSets(const QString& sets)
{
    Overrides o;
    for (const QString& kv : sets.split(QLatin1Char(','), Qt::SkipEmptyParts))
        o.emplace_back(kv.section(QLatin1Char('='), 0, 0).toStdString(), kv.section(QLatin1Char('='), 1).toStdString());
    return o;
}

} // namespace

class TestPipeline : public QObject {
    Q_OBJECT
private slots:
    void finalWeightsEqualComputeScores_data();
    void finalWeightsEqualComputeScores();
    void stagesFollowTheirFormulas();
    void positionVectorAddedAndRotated();
    void nopeIsPermutationEquivariantWithoutMask();
    void causalMaskLeaksPositionAsOneOverIPlusOne();
    void errorsNameTheProblem();
};

void TestPipeline::finalWeightsEqualComputeScores_data()
{
    // clang-format off
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QString>("sets");
    QTest::addColumn<bool>("causal");
    for (const SchemeDescriptor& s : schemes()) {
        QVERIFY(s.has(Quantity::Scores));
        QTest::newRow((s.id + "/causal").c_str()) << QString::fromStdString(s.id) << QString() << true;
        QTest::newRow((s.id + "/bidirectional").c_str()) << QString::fromStdString(s.id) << QString() << false;
    }
    QTest::newRow("rope yarn") << "rope" << "rope_type=yarn,factor=4" << true;
    QTest::newRow("rope interleaved") << "rope" << "layout=interleaved" << true;
    QTest::newRow("irope nope layer") << "irope" << "layer=3" << true;
    QTest::newRow("t5 bidirectional") << "t5" << "bidirectional=true" << false;
    // clang-format on
}

void TestPipeline::finalWeightsEqualComputeScores()
{
    QFETCH(QString, scheme);
    QFETCH(QString, sets);
    QFETCH(bool, causal);
    const std::string id = scheme.toStdString();
    const Overrides overrides = parseSets(sets);
    PipelineRequest p;
    p.scheme = id;
    p.params = paramsFor(id, overrides);
    p.headDim = dim;
    p.heads = 3;
    p.head = 2; // a head other than 0: ALiBi's slope and every seeded projection depend on it
    p.mask = causal ? MaskKind::Causal : MaskKind::Bidirectional;
    p.sentence = sentence;
    const PipelineResult r = attentionPipeline(p);
    const PipelineStage* w = r.stage("weights");
    QVERIFY(w);
    QCOMPARE(r.stages.back().key, std::string("weights"));

    // `poslab compute scores --scheme ID --set ... --dim 16 --heads 3 --mask M --content SENTENCE --softmax`
    ComputeRequest c;
    c.quantity = Quantity::Scores;
    c.scheme = id;
    c.overrides = overrides;
    c.context.dim = dim;
    c.content = parseContent(sentence, 0);
    c.context.positions = PositionList::range(0, Position(sentenceWords(c.content).size()));
    c.heads = 3;
    c.mask = p.mask;
    c.softmax = true;
    const ComputeResult cli = compute(c);
    const std::size_t n = 10;
    QCOMPARE(cli.shape, (std::vector<std::size_t>{3, n, n}));
    QCOMPARE(std::size_t(w->values.rows()), n);
    QCOMPARE(std::size_t(w->values.cols()), n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const double mine = w->values(Eigen::Index(i), Eigen::Index(j));
            const double theirs = cli.data[2 * n * n + i * n + j];
            QVERIFY2(
                (std::isnan(mine) && std::isnan(theirs)) || mine == theirs,
                qPrintable(
                    QStringLiteral("(%1, %2): %3 vs %4").arg(i).arg(j).arg(mine, 0, 'g', 17).arg(theirs, 0, 'g', 17)));
            // Masked exactly where the key comes after the query.
            QCOMPARE(std::isnan(mine), causal && j > i);
        }
    // The tokens, and one stage marked as the entry of the position signal unless there is none.
    QCOMPARE(r.tokens.front(), std::string("the"));
    int entries = 0;
    for (const PipelineStage& s : r.stages)
        entries += s.entry;
    QCOMPARE(entries > 0, r.entry != PositionEntry::None);
}

void TestPipeline::stagesFollowTheirFormulas()
{
    // RoPE: q = W_Q x, then R(t) q with theta_i = 10000^(-2i/d), half-split pairs (i, i + d/2).
    PipelineRequest p;
    p.scheme = "rope";
    p.headDim = dim;
    p.sentence = sentence;
    PipelineResult r = attentionPipeline(p);
    QCOMPARE(r.entry, PositionEntry::Rotation);
    const MatrixF& x = r.stage("input")->values;
    const MatrixF& wq = r.stage("w_q")->values;
    const MatrixF& q = r.stage("q")->values;
    const MatrixF& qr = r.stage("q_rotated")->values;
    QVERIFY(r.stage("q_rotated")->entry);
    QVERIFY(!r.stage("position"));
    for (int t = 0; t < 10; ++t)
        for (int o = 0; o < dim; ++o) {
            double ref = 0;
            for (int i = 0; i < dim; ++i)
                ref += double(wq(o, i)) * double(x(t, i));
            QVERIFY(std::abs(ref - q(t, o)) <= 1e-5 * (1 + std::abs(ref)));
        }
    for (int t = 0; t < 10; ++t)
        for (int i = 0; i < dim / 2; ++i) {
            const double theta = std::pow(10000.0, -2.0 * i / dim);
            const double c = std::cos(t * theta), s = std::sin(t * theta);
            const double a = q(t, i), b = q(t, i + dim / 2);
            QVERIFY(std::abs(qr(t, i) - (a * c - b * s)) < 1e-5);
            QVERIFY(std::abs(qr(t, i + dim / 2) - (b * c + a * s)) < 1e-5);
        }
    // scores = R q . R k / sqrt(d), recomputed in double from the rotated stages.
    const MatrixF& kr = r.stage("k_rotated")->values;
    const MatrixF& sc = r.stage("scores")->values;
    for (int m = 0; m < 10; ++m)
        for (int n = 0; n < 10; ++n) {
            double ref = 0;
            for (int i = 0; i < dim; ++i)
                ref += double(qr(m, i)) * double(kr(n, i));
            QVERIFY(std::abs(ref / 4.0 - sc(m, n)) < 1e-5);
        }

    // Sinusoidal: the position stage is PE(t, 2i) = sin(t / 10000^(2i/d)), PE(t, 2i+1) = cos(...), added to e(w_t).
    p.scheme = "sinusoidal";
    r = attentionPipeline(p);
    QCOMPARE(r.entry, PositionEntry::Input);
    const MatrixF& pe = r.stage("position")->values;
    QVERIFY(r.stage("position")->entry && r.stage("input")->entry);
    QVERIFY(!r.stage("q_rotated"));
    for (int t = 0; t < 10; ++t)
        for (int i = 0; i < dim / 2; ++i) {
            const double a = t / std::pow(10000.0, 2.0 * i / dim);
            QVERIFY(std::abs(pe(t, 2 * i) - std::sin(a)) < 1e-6);
            QVERIFY(std::abs(pe(t, 2 * i + 1) - std::cos(a)) < 1e-6);
            for (int c : {2 * i, 2 * i + 1})
                QCOMPARE(r.stage("input")->values(t, c), r.stage("embedding")->values(t, c) + pe(t, c));
        }

    // ALiBi, 1 head: bias(m, n) = -m_0 (m - n) with m_0 = 2^-8 (Press et al. 2022, section 3: 2^(-8/H) for H = 1);
    // the logits are the scores plus it.
    p.scheme = "alibi";
    r = attentionPipeline(p);
    QCOMPARE(r.entry, PositionEntry::Bias);
    const MatrixF& b = r.stage("bias")->values;
    QVERIFY(r.stage("bias")->entry);
    for (int m = 0; m < 10; ++m)
        for (int n = 0; n <= m; ++n) {
            QCOMPARE(double(b(m, n)), -std::pow(2.0, -8.0) * (m - n));
            QCOMPARE(r.stage("logits")->values(m, n), r.stage("scores")->values(m, n) + b(m, n));
        }
    // NoPE: the mask is the only entry under a causal mask; none without it.
    p.scheme = "nope";
    QCOMPARE(attentionPipeline(p).entry, PositionEntry::Mask);
    p.mask = MaskKind::Bidirectional;
    QCOMPARE(attentionPipeline(p).entry, PositionEntry::None);
}

void TestPipeline::positionVectorAddedAndRotated()
{
    // RoPE at p = 5, pair 0 (theta_0 = 1): the rotation keeps the norm and turns the pair by 5 rad.
    PositionVectorDemo d = positionVectorDemo("rope", {}, dim, "cat", 0, 5, 0);
    QCOMPARE(d.rotaryScheme, std::string("rope"));
    QCOMPARE(d.additiveScheme, std::string("sinusoidal"));
    QVERIFY(std::abs(d.normRotated - d.norm) < 1e-12 * d.norm);
    QVERIFY(d.scaleReason.empty());
    QVERIFY(std::abs(d.pairAngle - 5.0) < 1e-15);
    QCOMPARE(d.dimA, 0);
    QCOMPARE(d.dimB, dim / 2);
    // The pair (dims 0 and d/2) turned by 5 rad: v' = (a cos 5 - b sin 5, b cos 5 + a sin 5).
    const double a = d.vector[0], b = d.vector[dim / 2];
    QVERIFY(std::abs(d.rotated[0] - (a * std::cos(5.0) - b * std::sin(5.0))) < 1e-12);
    QVERIFY(std::abs(d.rotated[dim / 2] - (b * std::cos(5.0) + a * std::sin(5.0))) < 1e-12);
    // Adding PE(5) (sinusoidal): v + PE changes the norm; PE(5, 0) = sin 5, PE(5, 1) = cos 5.
    QVERIFY(std::abs(d.added[0] - (d.vector[0] + std::sin(5.0))) < 1e-6);
    QVERIFY(std::abs(d.added[1] - (d.vector[1] + std::cos(5.0))) < 1e-6);
    QVERIFY(std::abs(d.normAdded - d.norm) > 1e-3);
    double dot = 0;
    for (int i = 0; i < dim; ++i)
        dot += d.vector[std::size_t(i)] * d.rotated[std::size_t(i)];
    QVERIFY(std::abs(std::acos(dot / (d.norm * d.normRotated)) - d.angleRotated) < 1e-9);

    // YaRN factor 4: cos and sin carry the attention factor 0.1 ln 4 + 1 (Peng et al. 2023, eq. 22; Hugging Face
    // get_mscale), so the "rotation" scales the norm by it.
    const ParamSet yarn = paramsFor("rope", {{"rope_type", "yarn"}, {"factor", "4"}});
    d = positionVectorDemo("rope", yarn, dim, "cat", 0, 5, 0);
    QVERIFY(std::abs(d.normScale - (0.1 * std::log(4.0) + 1.0)) < 1e-12);
    QVERIFY(!d.scaleReason.empty());
    // A learned table is the additive side when chosen.
    d = positionVectorDemo("learned", {}, dim, "cat", 0, 5, 0);
    QCOMPARE(d.additiveScheme, std::string("learned"));
    QCOMPARE(d.rotaryScheme, std::string("rope"));
}

void TestPipeline::nopeIsPermutationEquivariantWithoutMask()
{
    const NopeDemo d = nopeDemo(sentence, dim, 0, 16);
    const std::size_t n = d.words.size();
    QCOMPARE(n, std::size_t(10));
    // A real shuffle: a permutation, not the identity, and shuffled[t] = words[permutation[t]].
    std::vector<std::size_t> sorted = d.permutation;
    std::sort(sorted.begin(), sorted.end());
    bool identity = true;
    for (std::size_t t = 0; t < n; ++t) {
        QCOMPARE(sorted[t], t);
        identity = identity && d.permutation[t] == t;
        QCOMPARE(d.shuffled[t], d.words[d.permutation[t]]);
    }
    QVERIFY(!identity);
    // Bidirectional: the outputs permute exactly as the words did (to double rounding).
    double worst = 0, causalWorst = 0;
    for (std::size_t t = 0; t < n; ++t)
        for (int i = 0; i < dim; ++i)
            worst = std::max(
                worst, std::abs(d.shuffledOutput(Eigen::Index(t), i) - d.output(Eigen::Index(d.permutation[t]), i)));
    QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
    QCOMPARE(d.equivarianceError, worst);
    // The outputs are not all alike (the check would be empty otherwise).
    QVERIFY((d.output.row(0) - d.output.row(1)).cwiseAbs().maxCoeff() > 1e-3);
    // Causal: the same comparison fails; order leaks through the mask.
    causalWorst = d.causalError;
    QVERIFY2(causalWorst > 1e-2, qPrintable(QString::number(causalWorst)));
}

void TestPipeline::causalMaskLeaksPositionAsOneOverIPlusOne()
{
    const int n = 64;
    const NopeDemo d = nopeDemo(sentence, dim, 0, n);
    QCOMPARE(int(d.firstWeight.size()), n);
    for (int i = 0; i < n; ++i) {
        const double ref = 1.0 / (i + 1);
        // The engine's float32 softmax: within two float ulps of 1/(i+1).
        QVERIFY2(std::abs(d.firstWeight[std::size_t(i)] - ref) <= 2 * ref * 0x1.0p-23,
                 qPrintable(QStringLiteral("i = %1: %2").arg(i).arg(d.firstWeight[std::size_t(i)], 0, 'g', 9)));
        QVERIFY(std::abs(d.recovered[std::size_t(i)] - i) <= (i + 1) * 4 * 0x1.0p-23 * (i + 1));
    }
}

void TestPipeline::errorsNameTheProblem()
{
    PipelineRequest p;
    p.scheme = "rope";
    p.headDim = dim;
    std::string many;
    for (int i = 0; i < 65; ++i)
        many += "w" + std::to_string(i) + " ";
    p.sentence = many;
    try {
        attentionPipeline(p);
        QFAIL("65 words accepted");
    } catch (const InputError& e) {
        QCOMPARE(std::string(e.what()), std::string("the pipeline draws a short sentence: 65 words, at most 64"));
    }
    p.sentence = sentence;
    p.heads = 2;
    p.head = 2;
    QVERIFY_THROWS_EXCEPTION(InputError, attentionPipeline(p));
    p.head = 0;
    p.sentence = "random";
    QVERIFY_THROWS_EXCEPTION(InputError, attentionPipeline(p));
    QVERIFY_THROWS_EXCEPTION(InputError, positionVectorDemo("rope", {}, dim, "cat", 0, 5, dim / 2));
    QVERIFY_THROWS_EXCEPTION(InputError, nopeDemo(sentence, dim, 0, 0));
}

QTEST_APPLESS_MAIN(TestPipeline)
#include "tst_pipeline.moc"
