// SPDX-License-Identifier: MIT
// A parameter set validated once (core::CheckedParams, encodingregistry.h): a request its token covers gives the
// numbers of the same request without it, takes the token's rotary spec only for the token's own sequence length,
// and is still refused, with the same message, for what its own context gets wrong.
#include "core/attention.h"
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"

#include <QTest>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

using namespace poslab::core;

namespace {

/// The request `poslab compute` runs for @p scheme with @p settings at dimension @p dim, positions 0 .. n-1 and
/// sequence length n, as the window's figureRequest builds it.
ComputeRequest requestOf(const std::string& scheme, Quantity q, int dim, Position n, Settings settings = {})
{
    ComputeRequest r;
    r.scheme = scheme;
    r.quantity = q;
    r.settings = std::move(settings);
    r.context.dim = dim;
    r.context.positions = PositionList::range(0, n);
    r.context.seqLen = n;
    return r;
}

/// The token of @p request's own parameters and context, as the window's state makes it (once per change).
std::shared_ptr<const CheckedParams> tokenOf(const ComputeRequest& request)
{
    const SchemeDescriptor& s = schemeOrThrow(request.scheme);
    return std::make_shared<const CheckedParams>(checkParams(s, requestParams(s, request), request.context));
}

/// The message of the InputError @p run throws; empty when it throws none.
std::string refusal(const std::function<void()>& run)
{
    try {
        run();
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestCheckedParams : public QObject {
    Q_OBJECT
private slots:
    void coveredRopeAnglesAreRoFormers();
    void dynamicSpecIsNeverReusedAtAnotherLength();
    void coveredAttentionAndDecayMatch();
    void coveredRequestIsStillRefused_data();
    void coveredRequestIsStillRefused();
    void otherParametersAreValidatedAsWithoutAToken();
    void checkParamsRefusesWithValidateParamsMessage();
};

void TestCheckedParams::coveredRopeAnglesAreRoFormers()
{
    // theta_i = 10000^(-2i/d) (Su et al. 2021, eq. 15; Hugging Face _compute_default_rope_parameters), angle p theta_i.
    ComputeRequest req = requestOf("rope", Quantity::Angles, 8, 16);
    const ComputeResult plain = compute(req);
    req.checked = tokenOf(req);
    QVERIFY(req.checked->rotarySpec().has_value());
    QCOMPARE(req.checked->seqLen(), Position(16));
    const ComputeResult covered = compute(req);
    QCOMPARE(covered.shape, (std::vector<std::size_t>{16, 4}));
    QCOMPARE(covered.data, plain.data);
    QCOMPARE(covered.params, plain.params);
    for (int p = 0; p < 16; ++p)
        for (int i = 0; i < 4; ++i)
            QCOMPARE(covered.data[std::size_t(p * 4 + i)], double(p) * std::pow(10000.0, -2.0 * i / 8.0));
    QCOMPARE(req.checked->rotarySpec()->invFreq[1], std::pow(10000.0, -2.0 / 8.0));
}

void TestCheckedParams::dynamicSpecIsNeverReusedAtAnotherLength()
{
    // Dynamic NTK (Hugging Face _compute_dynamic_ntk_parameters): L = max(seq_len, max_position_embeddings),
    // b' = b (s L / max_pos - (s - 1))^(r/(r-2)). The token holds the spec for seq_len 32; at 64 the spec is 64's.
    const Settings dynamic{{"rope_type", ParamValue::word("dynamic")},
                           {"factor", ParamValue::real(2.0)},
                           {"max_position_embeddings", ParamValue::integer(16)}};
    ComputeRequest atToken = requestOf("rope", Quantity::Frequencies, 8, 32, dynamic);
    const auto token = tokenOf(atToken);
    const auto baseAt = [](double length) { return 10000.0 * std::pow(2.0 * length / 16.0 - 1.0, 8.0 / 6.0); };
    QVERIFY(token->specFor(atToken.context) != nullptr);
    ComputeRequest longer = requestOf("rope", Quantity::Frequencies, 8, 64, dynamic);
    QVERIFY(token->specFor(longer.context) == nullptr);
    const ComputeResult plain = compute(longer);
    longer.checked = token;
    const ComputeResult covered = compute(longer);
    QCOMPARE(covered.data, plain.data);
    QVERIFY(std::abs(covered.data[1] - std::pow(baseAt(64.0), -2.0 / 8.0)) <= 1e-15);
    atToken.checked = token;
    QVERIFY(std::abs(compute(atToken).data[1] - std::pow(baseAt(32.0), -2.0 / 8.0)) <= 1e-15);
}

void TestCheckedParams::coveredAttentionAndDecayMatch()
{
    // The requests core builds from a covered one (scores, decay) carry the token on: the same numbers.
    const Settings yarn{{"rope_type", ParamValue::word("yarn")}, {"factor", ParamValue::real(4.0)}};
    for (Quantity q : {Quantity::Scores, Quantity::Decay}) {
        ComputeRequest req = requestOf("rope", q, 16, 24, yarn);
        req.content.kind = ContentKind::Random;
        const ComputeResult plain = compute(req);
        req.checked = tokenOf(req);
        const ComputeResult covered = compute(req);
        QVERIFY(!plain.data.empty());
        QVERIFY(std::equal(plain.data.begin(), plain.data.end(), covered.data.begin(), covered.data.end(),
                           [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); }));
        QVERIFY(plain.scalars == covered.scalars);
    }
    // The engine directly: a covered AttentionRequest.
    AttentionRequest a;
    a.scheme = "xpos";
    a.params = defaultParams(schemeOrThrow("xpos"));
    a.headDim = 8;
    a.queries = a.keys = PositionList::range(0, 12);
    a.seqLen = 12;
    const AttentionResult plain = attentionScores(a);
    TableContext ctx{8, PositionList::range(0, 12), Position(12)};
    a.checked = std::make_shared<const CheckedParams>(checkParams(schemeOrThrow("xpos"), a.params, ctx));
    const AttentionResult covered = attentionScores(a);
    QCOMPARE(covered.heads.size(), plain.heads.size());
    const MatrixF &x = plain.heads[0].logits, &y = covered.heads[0].logits;
    QCOMPARE(y.rows(), x.rows());
    QCOMPARE(y.cols(), x.cols());
    QVERIFY(std::equal(x.data(), x.data() + x.size(), y.data(),
                       [](float u, float v) { return u == v || (std::isnan(u) && std::isnan(v)); }));
    QVERIFY(std::isfinite(y(11, 0)));
}

void TestCheckedParams::coveredRequestIsStillRefused_data()
{
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<int>("quantity");
    QTest::addColumn<int>("positions"); // the request's positions 0 .. n-1 (the token's: 0 .. 15)
    QTest::addColumn<int>("seqLen");    // the request's sequence length (0: none)
    // learned: the hook (validateLearned) and learnedEncoding both read the positions: past its rows is refused.
    QTest::newRow("learned rows") << "learned" << int(Quantity::Encoding) << 40 << 40;
    QTest::newRow("learned decay") << "learned" << int(Quantity::Decay) << 40 << 0;
    // xPos: the hook reads the positions and the centre (the scale beyond 1e30 in float32).
    QTest::newRow("xpos scale") << "xpos" << int(Quantity::Cos) << 1 << (1 << 30);
    // The context checks of validateParams itself: the sequence length's range.
    QTest::newRow("rope seq_len") << "rope" << int(Quantity::Angles) << 16 << -1;
}

void TestCheckedParams::coveredRequestIsStillRefused()
{
    QFETCH(QString, scheme);
    QFETCH(int, quantity);
    QFETCH(int, positions);
    QFETCH(int, seqLen);
    const Settings small = scheme == "learned" ? Settings{{"max_position_embeddings", ParamValue::integer(32)}}
        : scheme == "xpos"                     ? Settings{{"centring", ParamValue::word("torchscale")}}
                                               : Settings{};
    const auto token = tokenOf(requestOf(scheme.toStdString(), Quantity(quantity), 8, 16, small));
    ComputeRequest req = requestOf(scheme.toStdString(), Quantity(quantity), 8, positions, small);
    req.context.seqLen = seqLen > 0 ? std::optional<Position>(seqLen)
        : seqLen < 0                ? std::optional<Position>(maxPosition + 1)
                                    : std::nullopt;
    if (req.quantity == Quantity::Decay)
        req.content.kind = ContentKind::Constant;
    const std::string plain = refusal([&] { compute(req); });
    QVERIFY2(!plain.empty(), "the request without a token is accepted");
    req.checked = token;
    QCOMPARE(QString::fromStdString(refusal([&] { compute(req); })), QString::fromStdString(plain));
}

void TestCheckedParams::otherParametersAreValidatedAsWithoutAToken()
{
    // A token of rope's defaults does not cover another set (a list of the wrong length), another dimension, or
    // another scheme: each is checked whole, refused with validateParams's own message.
    const auto token = tokenOf(requestOf("rope", Quantity::Angles, 8, 16));
    ComputeRequest longrope = requestOf(
        "rope", Quantity::Angles, 8, 16,
        {{"rope_type", ParamValue::word("longrope")}, {"short_factor", ParamValue::reals({1.0, 1.0, 1.0})}});
    const std::string plain = refusal([&] { compute(longrope); });
    QVERIFY(plain.find("short_factor has 3 values") != std::string::npos);
    longrope.checked = token;
    QCOMPARE(refusal([&] { compute(longrope); }), plain);
    ComputeRequest odd = requestOf("rope", Quantity::Angles, 9, 16);
    const std::string oddPlain = refusal([&] { compute(odd); });
    QVERIFY(!oddPlain.empty());
    odd.checked = token;
    QCOMPARE(refusal([&] { compute(odd); }), oddPlain);
    QVERIFY(!token->covers(schemeOrThrow("xpos"), token->params(), 8));
    QVERIFY(token->covers(schemeOrThrow("rope"), token->params(), 8));
    QVERIFY(!token->covers(schemeOrThrow("rope"), token->params(), 16));
}

void TestCheckedParams::checkParamsRefusesWithValidateParamsMessage()
{
    const SchemeDescriptor& t5 = schemeOrThrow("t5");
    ParamSet p = defaultParams(t5);
    p.set("relative_attention_max_distance", ParamValue::integer(2));
    const TableContext ctx{8, PositionList::range(0, 4), Position(4)};
    const std::string plain = refusal([&] { validateParams(t5, p, ctx); });
    QVERIFY(!plain.empty());
    QCOMPARE(refusal([&] { checkParams(t5, p, ctx); }), plain);
    // Equal values, equal tokens (the figures' inputs compare them by value).
    QVERIFY(checkParams(t5, defaultParams(t5), ctx) == checkParams(t5, defaultParams(t5), ctx));
    QVERIFY(!(checkParams(t5, defaultParams(t5), ctx) == checkParams(t5, defaultParams(t5), {8, ctx.positions, 5})));
}

QTEST_APPLESS_MAIN(TestCheckedParams)
#include "tst_checkedparams.moc"
