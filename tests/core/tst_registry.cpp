// SPDX-License-Identifier: MIT
// One data-driven test over every registry entry: shapes, finite values, determinism, bounds enforced; and what
// each descriptor says it is (short name, trainable, rotary, log buckets, slopes, the note where nothing rotates)
// checked against what its functions and the trainer do.
#include "core/buckets.h"
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/train/model.h"
#include "core/train/trainer.h"

#include <QTest>

#include <cmath>
#include <set>

using namespace poslab::core;

class TestRegistry : public QObject {
    Q_OBJECT
private slots:
    void idsAreUniqueAndWellFormed();
    void familyAgreesWithOriginAndIsOneGroup();
    void everyQuantity_data();
    void everyQuantity();
    void boundsEnforced_data();
    void boundsEnforced();
    void unknownKeyAndScheme();
    void missingQuantityListsTheOnesItHas();
    void keySetThatDoesNotApplyIsRefused();
    void settingsAreValuesNotText();
    void capRefusesBeforeAllocating();
    void shortNameIsTheDisplayNamesShortForm();
    void trainableIsWhatTheTrainerTrains();
    void rotaryIsAQueryKeyRotation();
    void logBucketsGrowPastTheirExactRange();
    void headSlopesAreTheBiasPerToken();
    void unrotatedNoteWhereNothingRotates();
};

void TestRegistry::idsAreUniqueAndWellFormed()
{
    std::set<std::string> ids;
    for (const auto& s : schemes()) {
        QVERIFY2(ids.insert(s.id).second, s.id.c_str());
        for (char c : s.id)
            QVERIFY2((c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9'), s.id.c_str());
        QVERIFY(!s.name.empty());
        QVERIFY(!s.citation.empty());
        QVERIFY(!s.reference.empty());
        QVERIFY(!s.formula.empty());
        std::set<std::string> keys;
        for (const auto& p : s.params) {
            QVERIFY2(keys.insert(p.key).second, p.key.c_str());
            QVERIFY2(checkValue(p, defaultValue(p)).empty(), (s.id + "." + p.key).c_str());
            QVERIFY2(!p.doc.empty(), p.key.c_str());
            for (const auto& c : p.appliesWhen)
                QVERIFY2(s.param(c.key) != nullptr, (p.key + " depends on unknown " + c.key).c_str());
        }
    }
    QVERIFY(schemes().size() >= 5);
}

void TestRegistry::familyAgreesWithOriginAndIsOneGroup()
{
    // KERPLE's r1, r2 and FIRE's MLP are learned (Chi et al. 2022 section 4.2; Li et al. 2023
    // section 3.2), so a family that says "fixed" or "learned" must match the origin axis (Transformer-XL,
    // grouped with Shaw as learned, is mixed: fixed sinusoids R, learned u, v and W_R).
    for (const auto& s : schemes()) {
        if (s.family.find("fixed") != std::string::npos)
            QVERIFY2(s.origin == Origin::Fixed, s.id.c_str());
        if (s.family.find("learned") != std::string::npos)
            QVERIFY2(s.origin == Origin::Learned || s.origin == Origin::Mixed, s.id.c_str());
    }
    QCOMPARE(schemeOrThrow("kerple").family, std::string("relative bias, learned"));
    QCOMPARE(schemeOrThrow("fire").family, std::string("relative bias, learned"));
    // The picker starts a new group whenever the family changes: each family must be one run of the table.
    std::set<std::string> closed;
    std::string current;
    for (const auto& s : schemes()) {
        if (s.family == current)
            continue;
        QVERIFY2(!closed.count(s.family), ("family split in two groups: " + s.family).c_str());
        if (!current.empty())
            closed.insert(current);
        current = s.family;
    }
}

void TestRegistry::everyQuantity_data()
{
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<int>("quantity");
    for (const auto& s : schemes())
        for (Quantity q : s.quantities())
            QTest::newRow((s.id + "/" + std::string(quantityName(q))).c_str())
                << QString::fromStdString(s.id) << int(q);
}

void TestRegistry::everyQuantity()
{
    QFETCH(QString, scheme);
    QFETCH(int, quantity);
    ComputeRequest req;
    req.scheme = scheme.toStdString();
    req.quantity = Quantity(quantity);
    req.context.dim = 16;
    req.context.positions = PositionList::range(0, 40, 3);
    // Each option only where it applies (compute refuses it elsewhere).
    if (req.quantity == Quantity::Rotate) {
        req.vector.assign(16, 0.0);
        for (int i = 0; i < 16; ++i)
            req.vector[std::size_t(i)] = 0.1 * (i + 1);
    }
    // Attention quantities: 2 heads, every key visible (a causal mask writes NaN above the diagonal; checked
    // below), keys a different list from the queries.
    const bool pairs
        = req.quantity == Quantity::Bias || req.quantity == Quantity::Scores || req.quantity == Quantity::Buckets;
    if (pairs || req.quantity == Quantity::Decay)
        req.heads = req.quantity == Quantity::Buckets ? 1 : 2;
    req.mask = MaskKind::Bidirectional;
    if (pairs)
        req.keys = PositionList::range(0, 42, 2);
    const ComputeResult a = compute(req);
    const ComputeResult b = compute(req);
    QVERIFY(!a.shape.empty());
    std::size_t n = 1;
    for (auto d : a.shape)
        n *= d;
    QCOMPARE(a.data.size(), n);
    QCOMPARE(a.axes.size(), a.shape.size());
    // Precision writes NaN (JSON null) for "no collapse among these positions"; never an infinity.
    for (double v : a.data)
        QVERIFY(std::isfinite(v) || (req.quantity == Quantity::Precision && std::isnan(v)));
    // deterministic, seeded schemes included (NaN, precision's "none", equal to NaN)
    QVERIFY(std::equal(a.data.begin(), a.data.end(), b.data.begin(), b.data.end(),
                       [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); }));
    // Covered by the token of its own set (the window validates once per change): the same numbers and scalars.
    ComputeRequest covered = req;
    const SchemeDescriptor& s = schemeOrThrow(req.scheme);
    covered.checked = std::make_shared<const CheckedParams>(checkParams(s, requestParams(s, req), req.context));
    const ComputeResult c = compute(covered);
    QVERIFY(std::equal(a.data.begin(), a.data.end(), c.data.begin(), c.data.end(),
                       [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); }));
    QVERIFY(std::equal(
        a.scalars.begin(), a.scalars.end(), c.scalars.begin(), c.scalars.end(), [](const auto& x, const auto& y) {
            return x.first == y.first && (x.second == y.second || (std::isnan(x.second) && std::isnan(y.second)));
        }));
    QVERIFY(c.labels == a.labels);
    if (req.quantity == Quantity::Encoding || req.quantity == Quantity::Rotate) {
        QCOMPARE(a.shape[0], std::size_t(14));
        QCOMPARE(a.shape[1], std::size_t(16));
    }
    if (req.quantity == Quantity::Bias || req.quantity == Quantity::Scores) {
        QCOMPARE(a.shape, (std::vector<std::size_t>{2, 14, 21}));
        // Causal: NaN exactly where the key comes after the query.
        req.mask = MaskKind::Causal;
        const ComputeResult c = compute(req);
        for (std::size_t h = 0; h < 2; ++h)
            for (std::size_t i = 0; i < 14; ++i)
                for (std::size_t j = 0; j < 21; ++j) {
                    const double v = c.data[(h * 14 + i) * 21 + j];
                    const bool visible = req.keys->at(j) <= req.context.positions[i];
                    QVERIFY2(visible ? std::isfinite(v) : std::isnan(v),
                             (std::to_string(i) + "," + std::to_string(j)).c_str());
                }
    }
    if (req.quantity == Quantity::Buckets)
        QCOMPARE(a.shape, (std::vector<std::size_t>{14, 21}));
}

void TestRegistry::boundsEnforced_data()
{
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    for (const auto& s : schemes())
        for (const auto& p : s.params) {
            const std::string row = s.id + "." + p.key;
            if (p.type == ParamType::Real || p.type == ParamType::Integer) {
                const double span = std::max(1.0, std::fabs(p.maximum));
                QTest::newRow((row + ">max").c_str()) << QString::fromStdString(s.id) << QString::fromStdString(p.key)
                                                      << QString::number(p.maximum + span, 'g', 17);
                QTest::newRow((row + "<min").c_str()) << QString::fromStdString(s.id) << QString::fromStdString(p.key)
                                                      << QString::number(p.minimum - 1.0, 'g', 17);
            } else if (p.type == ParamType::Choice) {
                QTest::newRow((row + "=word").c_str())
                    << QString::fromStdString(s.id) << QString::fromStdString(p.key) << QString("no_such_choice");
            } else if (p.type == ParamType::Bool) {
                QTest::newRow((row + "=maybe").c_str())
                    << QString::fromStdString(s.id) << QString::fromStdString(p.key) << QString("maybe");
            } else if (p.type == ParamType::RealList) {
                QTest::newRow((row + "=nan").c_str())
                    << QString::fromStdString(s.id) << QString::fromStdString(p.key) << QString("1,x");
            } else if (p.type == ParamType::Text) {
                // One byte past the allowed length, and a line break (messages and files are one line).
                QTest::newRow((row + "=long").c_str()) << QString::fromStdString(s.id) << QString::fromStdString(p.key)
                                                       << QString(qsizetype(p.maximum) + 1, QChar('a'));
                QTest::newRow((row + "=newline").c_str())
                    << QString::fromStdString(s.id) << QString::fromStdString(p.key) << QString("a\nb");
            }
        }
}

void TestRegistry::boundsEnforced()
{
    QFETCH(QString, scheme);
    QFETCH(QString, key);
    QFETCH(QString, value);
    const SchemeDescriptor& s = schemeOrThrow(scheme.toStdString());
    TableContext ctx;
    ctx.dim = 16;
    ctx.positions = PositionList::range(0, 8);
    try {
        resolveParams(s, {{key.toStdString(), value.toStdString()}}, ctx);
        QFAIL("accepted an out-of-range value");
    } catch (const InputError& e) {
        // The message names the key.
        QVERIFY2(std::string(e.what()).find(key.toStdString()) != std::string::npos, e.what());
    }
}

void TestRegistry::unknownKeyAndScheme()
{
    TableContext ctx;
    ctx.positions = PositionList::range(0, 4);
    QVERIFY_THROWS_EXCEPTION(InputError, schemeOrThrow("nosuch"));
    try {
        resolveParams(schemeOrThrow("rope"), {{"rope_thetaa", "1"}}, ctx);
        QFAIL("accepted an unknown key");
    } catch (const InputError& e) {
        const std::string m = e.what();
        QVERIFY2(m.find("rope_thetaa") != std::string::npos && m.find("rope_theta") != std::string::npos, e.what());
    }
}

void TestRegistry::missingQuantityListsTheOnesItHas()
{
    ComputeRequest req;
    req.scheme = "rope";
    req.quantity = Quantity::Encoding;
    req.context.positions = PositionList::range(0, 4);
    try {
        compute(req);
        QFAIL("rope produced an additive encoding");
    } catch (const InputError& e) {
        const std::string m = e.what();
        QVERIFY2(m.find("encoding") != std::string::npos && m.find("cos") != std::string::npos, e.what());
    }
}

void TestRegistry::keySetThatDoesNotApplyIsRefused()
{
    TableContext ctx;
    ctx.positions = PositionList::range(0, 4);
    QVERIFY_THROWS_EXCEPTION(InputError, resolveParams(schemeOrThrow("rope"), {{"beta_fast", "16"}}, ctx));
    const ParamSet ok = resolveParams(schemeOrThrow("rope"), {{"rope_type", "yarn"}, {"beta_fast", "16"}}, ctx);
    QCOMPARE(ok.real("beta_fast"), 16.0);
}

// The window's figures hand core values (ComputeRequest::settings), the CLI text (overrides): both resolve to the
// same set with the same checks, and a double that has no short text reaches the encoder unrounded.
void TestRegistry::settingsAreValuesNotText()
{
    const SchemeDescriptor& rope = schemeOrThrow("rope");
    TableContext ctx;
    ctx.positions = PositionList::range(0, 4);
    const ParamSet base = defaultParams(rope);
    const ParamSet fromText = resolveParams(rope, base, Overrides{{"rope_type", "yarn"}, {"factor", "8"}}, ctx);
    const ParamSet fromValues = resolveParams(
        rope, base, Settings{{"rope_type", ParamValue::word("yarn")}, {"factor", ParamValue::real(8)}}, ctx);
    QVERIFY(fromText == fromValues);
    // rope_type=yarn brought YaRN's own defaults in both (beta_fast 32, Peng et al. 2023 §A.2 / transformers
    // modeling_rope_utils._compute_yarn_parameters).
    QCOMPARE(fromValues.real("beta_fast"), 32.0);
    // A value of another type, a fraction for an integer key, a key given twice and one that does not apply are
    // refused as their text would be.
    QVERIFY_THROWS_EXCEPTION(InputError, resolveParams(rope, base, Settings{{"rope_type", ParamValue::real(1)}}, ctx));
    QVERIFY_THROWS_EXCEPTION(
        InputError,
        resolveParams(rope, base, Settings{{"original_max_position_embeddings", ParamValue::real(4096.5)}}, ctx));
    QVERIFY_THROWS_EXCEPTION(InputError, resolveParams(rope, base, Settings{{"beta_fast", ParamValue::real(16)}}, ctx));
    try {
        resolveParams(rope, base,
                      Settings{{"rope_theta", ParamValue::real(5e5)}, {"rope_theta", ParamValue::real(1e4)}}, ctx);
        QFAIL("a key given twice was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("rope_theta=500000, then rope_theta=10000") != std::string::npos, e.what());
    }
    // An Integer key takes a whole number given as a Real (a slider's double).
    const ParamSet whole = resolveParams(
        rope, base,
        Settings{{"rope_type", ParamValue::word("yarn")}, {"original_max_position_embeddings", ParamValue::real(2048)}},
        ctx);
    QCOMPARE(whole.integer("original_max_position_embeddings"), 2048LL);
    // compute() reads both: the text once, then the values; theta = 10000 + 1/3 is no short text.
    ComputeRequest req;
    req.scheme = "rope";
    req.quantity = Quantity::Angles;
    req.context.dim = 4;
    req.context.positions = PositionList::range(0, 2);
    const double theta = 10000.0 + 1.0 / 3.0;
    req.settings = {{"rope_theta", ParamValue::real(theta)}};
    const ComputeResult r = compute(req);
    QCOMPARE(r.params.real("rope_theta"), theta);
    // Pair 1 at position 1 turns by theta^(-2/4) (RoFormer eq. 15), from the exact theta.
    QCOMPARE(r.data[1 * 2 + 1], std::pow(theta, -0.5));
    req.overrides = {{"rope_theta", "500000"}}; // the same key from the CLI's text and as a value: twice
    QVERIFY_THROWS_EXCEPTION(InputError, compute(req));
}

void TestRegistry::capRefusesBeforeAllocating()
{
    ComputeRequest req;
    req.scheme = "sinusoidal";
    req.quantity = Quantity::Encoding;
    req.context.dim = 65536;
    req.context.positions = PositionList::range(0, 1 << 30);
    try {
        compute(req);
        QFAIL("a 2^30 x 65536 table was not refused");
    } catch (const RefusedError& e) {
        QVERIFY2(std::string(e.what()).find("TiB") != std::string::npos, e.what());
    }
}

void TestRegistry::shortNameIsTheDisplayNamesShortForm()
{
    // The name in titles and legends is the part of the display name people use ("RoPE" in "Rotary position
    // embedding (RoPE)"), one per scheme.
    std::set<std::string> seen;
    for (const SchemeDescriptor& s : schemes()) {
        QVERIFY2(!s.shortName.empty(), s.id.c_str());
        QVERIFY2(s.name.find(s.shortName) != std::string::npos, (s.id + ": " + s.shortName).c_str());
        QVERIFY2(s.shortName.size() < s.name.size(), s.id.c_str());
        QVERIFY2(seen.insert(s.shortName).second, s.shortName.c_str());
    }
}

void TestRegistry::trainableIsWhatTheTrainerTrains()
{
    // Every scheme the descriptor calls trainable trains (two steps of a tiny model, a finite loss), and it has
    // trained position weights exactly when its numbers are learned (origin Learned or Mixed); the others are
    // refused with a message naming the trainable ones.
    std::vector<std::string> trainable;
    for (const SchemeDescriptor& s : schemes()) {
        train::TrainConfig c;
        c.scheme = s.id;
        c.trainLen = 4;
        c.testLens = {4};
        c.steps = 2;
        c.evalEvery = 0;
        c.evalSamples = 2;
        c.layers = 1;
        c.width = 16;
        c.heads = 2;
        c.batch = 4;
        c.threads = 1;
        if (!s.trainable()) {
            try {
                train::trainRun(c);
                QFAIL(qPrintable(QString::fromStdString(s.id + " trained, but its descriptor says it cannot")));
            } catch (const InputError& e) {
                const std::string m = e.what();
                QVERIFY2(m.find("cannot be trained") != std::string::npos
                             && m.find("trainable: nope") != std::string::npos,
                         e.what());
            }
            continue;
        }
        trainable.push_back(s.id);
        const train::RunResult r = train::trainRun(c);
        QVERIFY2(!r.diverged && !r.loss.empty() && std::isfinite(r.loss.back().loss), s.id.c_str());
        train::ModelConfig m;
        m.layers = 1;
        m.width = 16;
        m.heads = 2;
        m.learnedRows = 8;
        const train::Network<float> net(m, s, defaultParams(s));
        bool positionWeights = false;
        for (const auto& b : net.layout().blocks)
            positionWeights = positionWeights || b.name.rfind("pos.", 0) == 0;
        QCOMPARE(positionWeights, s.origin == Origin::Learned || s.origin == Origin::Mixed);
    }
    QCOMPARE(train::trainableSchemes(), trainable);
    QVERIFY(!trainable.empty());
}

void TestRegistry::rotaryIsAQueryKeyRotation()
{
    // A scheme has a rotation to draw exactly when it enters the network by rotating queries and keys.
    int rotary = 0;
    for (const SchemeDescriptor& s : schemes()) {
        QCOMPARE(s.isRotary(), s.application == Application::QueryKeyRotation);
        rotary += s.isRotary();
    }
    QVERIFY(rotary > 0);
}

void TestRegistry::logBucketsGrowPastTheirExactRange()
{
    // Distance d from a query at N to the key at N - d: a log-bucketed scheme gives distinct buckets up to some
    // distance, then merges distances and still reaches new buckets further out; a clipped one (Shaw) stops.
    const Position n = 1200;
    int logBucketed = 0;
    for (const SchemeDescriptor& s : schemes()) {
        if (!s.buckets) {
            QVERIFY2(!s.logBuckets, s.id.c_str());
            continue;
        }
        PairContext ctx;
        ctx.queries = PositionList::list({n});
        ctx.keys = PositionList::range(0, n + 1);
        const MatrixD b = s.buckets(defaultParams(s), ctx);
        const auto bucket = [&](Position d) { return b(0, Eigen::Index(n - d)); };
        Position merged = 0; // the first distance whose bucket is the one before's
        for (Position d = 1; d <= n && merged == 0; ++d)
            if (bucket(d) == bucket(d - 1))
                merged = d;
        bool growsAfter = false;
        for (Position d = merged + 1; merged > 0 && d <= n; ++d)
            growsAfter = growsAfter || bucket(d) != bucket(d - 1);
        QVERIFY2(merged > 1, s.id.c_str());
        QCOMPARE(growsAfter, s.logBuckets);
        QCOMPARE(hasBucketProfile(s.id), s.logBuckets);
        logBucketed += s.logBuckets;
    }
    QVERIFY(logBucketed > 0);
}

void TestRegistry::headSlopesAreTheBiasPerToken()
{
    // A scheme's per-head slopes are its bias's step per token of distance, head by head (causal, query at 5).
    int withSlopes = 0;
    for (const SchemeDescriptor& s : schemes()) {
        if (!s.headSlopes)
            continue;
        ++withSlopes;
        QVERIFY(s.bias != nullptr);
        PairContext ctx;
        ctx.heads = 8;
        ctx.queries = PositionList::list({5});
        ctx.keys = PositionList::range(0, 6);
        const ParamSet p = defaultParams(s);
        const std::vector<double> m = s.headSlopes(p, ctx.heads);
        QCOMPARE(int(m.size()), ctx.heads);
        for (int h = 0; h < ctx.heads; ++h) {
            const MatrixD bias = s.bias(p, ctx, h);
            for (Eigen::Index k = 0; k < 5; ++k)
                QVERIFY(std::abs((bias(0, k + 1) - bias(0, k)) - m[std::size_t(h)]) < 1e-12);
        }
    }
    QVERIFY(withSlopes > 0);
}

void TestRegistry::unrotatedNoteWhereNothingRotates()
{
    // A scheme's own note on an unrotated set-up speaks exactly where its rotary spec rotates no dimension.
    int withNote = 0;
    for (const SchemeDescriptor& s : schemes()) {
        if (!s.unrotated)
            continue;
        QVERIFY(s.isRotary());
        ++withNote;
        TableContext ctx;
        ctx.positions = PositionList::range(0, 4);
        bool sawBoth[2] = {false, false};
        for (long long layer = 0; layer < 8; ++layer) {
            ParamSet p = defaultParams(s);
            if (s.param("layer"))
                p.set("layer", ParamValue::integer(layer));
            const bool rotates = s.rotary(p, ctx).rotaryDim > 0;
            const UnrotatedNote note = s.unrotated(p, 8191);
            QCOMPARE(note.reason.empty(), rotates);
            QCOMPARE(note.summary.empty(), rotates);
            sawBoth[rotates] = true;
        }
        QVERIFY2(sawBoth[0] && sawBoth[1], s.id.c_str());
    }
    QVERIFY(withNote > 0);
}

QTEST_APPLESS_MAIN(TestRegistry)
#include "tst_registry.moc"
