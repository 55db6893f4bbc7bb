// SPDX-License-Identifier: MIT
// GUI and CLI give the same numbers: for every scheme of core's registry and every
// view of the view registry, the view's data export (ExportService::renderData through an ExportScene, the path of
// the window's File > Export and of `poslab export`) equals what `poslab compute` prints for the same state, run
// in-process through runCli. The decay and attention views' plotted numbers (the decay view's curves, the
// attention view's head) are checked against the same CLI output. Same code path, same doubles: tolerance 0.
// The CLI arguments are written here from the state, independently of the registry's own mapping.
#include "core/encodingregistry.h"
#include "tests/cli/clirun.h"
#include "ui/figures/computation.h"
#include "ui/export/exportscene.h"
#include "ui/export/exportservice.h"
#include "ui/views/bucketsview.h"
#include "ui/views/decayview.h"
#include "ui/views/precisionview.h"
#include "ui/views/pipelineview.h"
#include "ui/views/view.h"
#include "ui/views/viewlist.h"
#include "ui/state/workbenchstate.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QFile>

#include <cmath>
#include <optional>

using namespace poslab;
using namespace poslab::exporting;

class TestViewData : public QObject {
    Q_OBJECT
private slots:
    void everyViewMatchesTheCliForEveryScheme_data();
    void everyViewMatchesTheCliForEveryScheme();
    void registryNamesEveryView();
    void skipsAreRecorded();

private:
    QStringList m_skips; ///< "view on scheme: why", every view that does not apply
    int m_rows = 0;      ///< data rows run (schemes and variants)
};

namespace {

constexpr int dim = 16;
constexpr int positions = 24;

/// JSON numbers, null (a masked or NaN entry) as NaN.
std::vector<double> numbers(const QJsonArray& a)
{
    std::vector<double> v;
    v.reserve(std::size_t(a.size()));
    for (const QJsonValue& x : a)
        v.push_back(x.isNull() ? std::nan("") : x.toDouble());
    return v;
}

/// Exactly equal, NaN equal to NaN; the first difference in @p why.
bool same(const std::vector<double>& a, const std::vector<double>& b, QString* why)
{
    if (a.size() != b.size()) {
        *why = QStringLiteral("%1 values vs %2").arg(a.size()).arg(b.size());
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) {
            *why = QStringLiteral("entry %1: %2 vs %3").arg(i).arg(a[i], 0, 'g', 17).arg(b[i], 0, 'g', 17);
            return false;
        }
    return true;
}

/// `poslab compute QUANTITY --scheme S --dim D --positions 0:COUNT --set k=v ... EXTRA` as JSON; fails the test when it
/// does not succeed.
QJsonObject compute(const std::string& quantity, const std::string& scheme, const core::Overrides& sets,
                    const std::vector<std::string>& extra, QString* error, int count = positions)
{
    std::vector<std::string> args{"compute",     quantity,
                                  "--scheme",    scheme,
                                  "--dim",       std::to_string(dim),
                                  "--positions", "0:" + std::to_string(count),
                                  "--format",    "json"};
    for (const auto& [k, v] : sets) {
        args.push_back("--set");
        args.push_back(k + "=" + v);
    }
    args.insert(args.end(), extra.begin(), extra.end());
    const test::Run r = test::run(args);
    if (r.status != 0) {
        QString line;
        for (const std::string& a : args)
            line += QString::fromStdString(a) + QLatin1Char(' ');
        *error = line + QStringLiteral("-> ") + QString::fromStdString(r.err);
        return {};
    }
    return r.json();
}

/// The column named @p key of a CLI decay result (distances x curves).
std::vector<double> column(const QJsonObject& json, const QString& key)
{
    const QJsonArray cols = json.value(QStringLiteral("columns")).toArray();
    const std::vector<double> data = numbers(json.value(QStringLiteral("data")).toArray());
    const std::size_t n = std::size_t(cols.size());
    for (std::size_t c = 0; c < n; ++c)
        if (cols[qsizetype(c)].toString() == key) {
            std::vector<double> out;
            for (std::size_t i = c; i < data.size(); i += n)
                out.push_back(data[i]);
            return out;
        }
    return {};
}

std::string contentArg(const ui::ViewOptions& o)
{
    switch (o.content) {
    case ui::AttentionContent::Random: return "random";
    case ui::AttentionContent::Constant: return "constant";
    case ui::AttentionContent::Sentence: return o.sentence.toStdString();
    }
    return {};
}

/// A run file of `poslab train` (two schemes, two seeds each, a few steps), written once per test run.
QString lengthRunFile()
{
    static QTemporaryDir dir;
    static QString path;
    if (path.isEmpty()) {
        path = dir.filePath(QStringLiteral("run.json"));
        const test::Run r = test::run({"train", "--scheme",       "nope,alibi", "--seed",          "1,2", "--steps",
                                       "3",     "--batch",        "4",          "--width",         "16",  "--heads",
                                       "2",     "--layers",       "1",          "--train-len",     "2",   "--test-lens",
                                       "2,4",   "--eval-samples", "4",          "--eval-every",    "0",   "--threads",
                                       "1",     "--quiet",        "-o",         path.toStdString()});
        if (r.status != 0)
            qFatal("poslab train failed: %s", r.err.c_str());
    }
    return path;
}

} // namespace

void TestViewData::everyViewMatchesTheCliForEveryScheme_data()
{
    // clang-format off
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QString>("sets"); // k=v,k=v
    QTest::addColumn<QString>("term"); // the attention view's named part of the logits
    for (const core::SchemeDescriptor& s : core::schemes())
        QTest::newRow(s.id.c_str()) << QString::fromStdString(s.id) << QString() << QString();
    // Variants whose numbers take other paths: YaRN's attention factor, xPos's table on the key side (the views
    // still rotate the query up and the key down), the interleaved layout, an iRoPE NoPE layer, a bidirectional T5.
    QTest::newRow("rope yarn") << "rope" << "rope_type=yarn,factor=4" << QString();
    QTest::newRow("xpos key side") << "xpos" << "side=key,centring=absolute" << QString();
    QTest::newRow("rope interleaved") << "rope" << "layout=interleaved" << QString();
    QTest::newRow("irope nope layer") << "irope" << "layer=3" << QString();
    QTest::newRow("t5 bidirectional") << "t5" << "bidirectional=true" << QString();
    QTest::newRow("t5 causal") << "t5" << "bidirectional=false" << QString();
    QTest::newRow("deberta small buckets") << "deberta" << "position_buckets=8,max_relative_positions=20" << QString();
    // One named part of the logits in the attention view: its data export is that part, as compute --term gives it.
    QTest::newRow("transformer_xl term d") << "transformer_xl" << "" << "global_position";
    QTest::newRow("cope term positions") << "cope" << "" << "positions";
    QTest::newRow("deberta term c2p") << "deberta" << "" << "c2p";
    // clang-format on
}

void TestViewData::everyViewMatchesTheCliForEveryScheme()
{
    QFETCH(QString, scheme);
    QFETCH(QString, sets);
    QFETCH(QString, term);
    core::Overrides overrides;
    for (const QString& kv : sets.split(QLatin1Char(','), Qt::SkipEmptyParts))
        overrides.emplace_back(kv.section(QLatin1Char('='), 0, 0).toStdString(),
                               kv.section(QLatin1Char('='), 1).toStdString());
    const std::string id = scheme.toStdString();
    const QString row = QString::fromUtf8(QTest::currentDataTag());
    ++m_rows;

    for (const ui::ViewEntry& entry : ui::viewRegistry()) {
        const QString view = QString::fromLatin1(entry.id);
        ExportScene scene;
        ui::WorkbenchState& state = scene.state();
        QCOMPARE(state.setScheme(scheme), QString());
        ui::Setup setup = state.setup();
        setup.dim = dim;
        setup.positionCount = positions;
        core::TableContext ctx;
        ctx.dim = dim;
        ctx.positions = core::PositionList::range(0, positions);
        ctx.seqLen = positions;
        setup.params = core::resolveParams(core::schemeOrThrow(id), overrides, ctx);
        state.applySetup(setup);
        // The CLI has no option for the decay origin of learned tables (E(p).E(p+k)): p = 0 is its default.
        state.setCursor(0);
        if (!term.isEmpty())
            QCOMPARE(state.setPropertyText(QStringLiteral("term"), term), QString());
        QString error;
        ui::View* v = scene.view(view, &error);
        QVERIFY2(v, qPrintable(error));
        settle(scene.computation());
        if (!v->isApplicable()) {
            m_skips << QStringLiteral("%1 on %2: the view does not apply").arg(view, row);
            continue;
        }
        if (view == QLatin1String("patchgrid") || view == QLatin1String("sequence")) {
            // They draw the spatial set-up, whatever the 1-D scheme; tst_patchgrid compares their numbers with core's.
            m_skips << QStringLiteral("%1 on %2: draws the spatial set-up (tst_patchgrid)").arg(view, row);
            continue;
        }
        const ui::ViewOptions& o = state.viewOptions();
        const core::SchemeDescriptor& s = state.scheme();
        if (view == QLatin1String("extension") && !v->noRotationReason().isEmpty()) {
            // No pairs to extend: the view draws the reason, and `compute extension` refuses the same set-up.
            QVERIFY(!compute("extension", id, overrides, {}, &error).contains(QStringLiteral("data")));
            QVERIFY2(error.contains(QStringLiteral("NoPE")), qPrintable(error));
            error.clear();
            m_skips << QStringLiteral("%1 on %2: no rotation on this layer (compute refuses it too)").arg(view, row);
            continue;
        }

        if (view == QLatin1String("lengthlab")) { // it draws a run file, whatever the scheme
            ui::ViewOptions lo = state.viewOptions();
            lo.runFile = lengthRunFile();
            QCOMPARE(state.setViewOptions(lo), QString());
        }
        exporting::ExportResult result;
        const QByteArray gui = ExportService::renderData(*v, state, Format::Json, &result);
        const QString where = QStringLiteral("%1 view on %2").arg(view, row);
        QVERIFY2(result.ok(), qPrintable(where + QStringLiteral(": ") + result.message));
        const QJsonObject guiJson = QJsonDocument::fromJson(gui).object();
        const std::vector<double> guiData = numbers(guiJson.value(QStringLiteral("data")).toArray());
        // A layer that rotates nothing (an iRoPE NoPE layer) draws its reason instead of a plot; its numbers are
        // still the CLI's (an empty table, a flat score).
        const bool drawn = v->noRotationReason().isEmpty();
        if (!drawn)
            m_skips << QStringLiteral("%1 on %2: plotted-number check (no rotation on this layer)").arg(view, row);

        QString why;
        if (view == QLatin1String("decay")) {
            // Column 0 the distance, then one column per curve: rotary "score" normalised at distance 0 (compute
            // decay --normalise at_zero) and "bound" as it is; every other curve as it is.
            const QJsonArray shape = guiJson.value(QStringLiteral("shape")).toArray();
            const std::size_t rows = std::size_t(shape[0].toInt()), cols = std::size_t(shape[1].toInt());
            std::vector<std::string> extra{"--content", "constant"};
            if (s.bias)
                extra.insert(extra.end(), {"--heads", std::to_string(o.heads)});
            const QJsonObject plain = compute("decay", id, overrides, extra, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            std::optional<QJsonObject> atZero;
            std::vector<double> distance;
            for (std::size_t i = 0; i < rows; ++i)
                distance.push_back(guiData[i * cols]);
            std::vector<double> every;
            for (int k = 0; k < positions; ++k)
                every.push_back(k);
            QVERIFY2(same(distance, every, &why), qPrintable(where + QStringLiteral(", distances: ") + why));
            const QJsonArray names = guiJson.value(QStringLiteral("columns")).toArray();
            QCOMPARE(std::size_t(names.size()), cols);
            std::vector<double> firstCurve; // the CLI's values of the export's first curve (the chart's first)
            for (std::size_t c = 1; c < cols; ++c) {
                const QString key = names[qsizetype(c)].toString().section(QStringLiteral(": "), 0, 0);
                std::vector<double> mine;
                for (std::size_t i = 0; i < rows; ++i)
                    mine.push_back(guiData[i * cols + c]);
                QJsonObject cli = plain;
                if (key == QLatin1String("score")) {
                    if (!atZero) {
                        std::vector<std::string> z = extra;
                        z.insert(z.end(), {"--normalise", "at_zero"});
                        atZero = compute("decay", id, overrides, z, &error);
                        QVERIFY2(error.isEmpty(), qPrintable(error));
                    }
                    cli = *atZero;
                }
                const std::vector<double> theirs = column(cli, key);
                QVERIFY2(!theirs.empty(), qPrintable(where + QStringLiteral(": the CLI has no curve ") + key));
                QVERIFY2(same(mine, theirs, &why), qPrintable(where + QStringLiteral(", curve ") + key + ": " + why));
                if (c == 1)
                    firstCurve = theirs;
            }
            // What the chart draws: each point of its first curve is the CLI's value at that distance.
            auto* decay = qobject_cast<ui::DecayView*>(v);
            QVERIFY(decay);
            if (!drawn)
                continue;
            QVERIFY2(!decay->curves().empty(), qPrintable(where));
            for (const QPointF& pt : decay->curves().front().points) {
                const auto k = std::size_t(pt.x());
                QVERIFY2(k < firstCurve.size() && pt.y() == firstCurve[k],
                         qPrintable(where
                                    + QStringLiteral(", plotted point at k = %1: %2 vs %3")
                                          .arg(pt.x())
                                          .arg(pt.y(), 0, 'g', 17)
                                          .arg(k < firstCurve.size() ? firstCurve[k] : std::nan(""), 0, 'g', 17)));
            }
            continue;
        }

        if (view == QLatin1String("buckets")) {
            // One query at N = positions - 1, keys 0..2N: every relative position -N..N (compute buckets --positions N
            // --keys 0:2N+1).
            const int n = positions - 1;
            std::vector<std::string> args{
                "compute",           "buckets",     "--scheme",        id,       "--dim",
                std::to_string(dim), "--positions", std::to_string(n), "--keys", "0:" + std::to_string(2 * n + 1),
                "--format",          "json"};
            for (const auto& [k, val] : overrides)
                args.insert(args.end(), {"--set", k + "=" + val});
            const test::Run r = test::run(args);
            QVERIFY2(r.status == 0, r.err.c_str());
            const QJsonObject cli = r.json();
            QCOMPARE(guiJson.value(QStringLiteral("shape")), cli.value(QStringLiteral("shape")));
            const std::vector<double> cliData = numbers(cli.value(QStringLiteral("data")).toArray());
            QVERIFY2(same(guiData, cliData, &why), qPrintable(where + QStringLiteral(": ") + why));
            // What the figure draws: each run's bucket at each of its distances is the CLI's bucket there. T5's
            // relative position is key - query (key = N + rel), DeBERTa's query - key (key = N - rel).
            auto* b = qobject_cast<ui::BucketsView*>(v);
            QVERIFY(b && b->data().error.isEmpty());
            const core::BucketProfile& prof = b->data().profile;
            const int keySign = prof.relation == "key - query" ? 1 : -1;
            QCOMPARE(prof.bucketAtZero, (long long)cliData[std::size_t(n)]);
            for (const core::BucketSide* side : {&prof.negative, &prof.positive}) {
                QVERIFY(!side->runs.empty());
                QCOMPARE(side->runs.back().last, core::Position(n));
                for (const core::BucketRun& run : side->runs)
                    for (core::Position d = run.first; d <= run.last; ++d)
                        QVERIFY2(run.bucket == (long long)cliData[std::size_t(n + keySign * side->sign * d)],
                                 qPrintable(where + QStringLiteral(", distance %1").arg(side->sign * d)));
            }
            continue;
        }
        if (view == QLatin1String("precision")) {
            const std::string dtype(core::floatFormatName(o.dtype));
            const QJsonObject cli = compute("precision", id, overrides, {"--dtype", dtype}, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QCOMPARE(guiJson.value(QStringLiteral("shape")), cli.value(QStringLiteral("shape")));
            const std::vector<double> cliData = numbers(cli.value(QStringLiteral("data")).toArray());
            QVERIFY2(same(guiData, cliData, &why), qPrintable(where + QStringLiteral(": ") + why));
            // What the figure draws: the view's pipeline's columns of the CLI's table.
            auto* pv = qobject_cast<ui::PrecisionView*>(v);
            QVERIFY(pv);
            if (!drawn)
                continue;
            QVERIFY2(pv->data().error.isEmpty(), qPrintable(pv->data().error));
            const std::string pipe(core::anglePipelineName(o.anglePipeline));
            const std::vector<double> angles = column(cli, QString::fromStdString(pipe + ":distinct_angles"));
            const std::vector<double> cs = column(cli, QString::fromStdString(pipe + ":distinct_cos_sin"));
            const std::vector<double> collapse = column(cli, QString::fromStdString(pipe + ":first_angle_collapse"));
            const std::vector<double> res = column(cli, QString::fromStdString(pipe + ":resolution_position"));
            const auto& pairs = pv->data().analysis.pairs;
            QCOMPARE(pairs.size(), angles.size());
            const auto opt = [](const std::optional<core::Position>& p) { return p ? double(*p) : std::nan(""); };
            for (std::size_t i = 0; i < pairs.size(); ++i) {
                QCOMPARE(double(pairs[i].distinctAngles), angles[i]);
                QCOMPARE(double(pairs[i].distinctCosSin), cs[i]);
                QVERIFY(same({opt(pairs[i].firstAngleCollapse), opt(pairs[i].resolutionPosition)},
                             {collapse[i], res[i]}, &why));
            }
            continue;
        }
        if (view == QLatin1String("pipeline")) {
            // The last stage (the weights of the figure's head) is `compute scores --softmax` for the state's sentence,
            // mask, heads and sequence length (the state's positions, as the attention view computes), at that head.
            const std::vector<std::string> extra{"--heads",
                                                 std::to_string(o.heads),
                                                 "--mask",
                                                 o.causal ? "causal" : "bidirectional",
                                                 "--content",
                                                 o.sentence.toStdString(),
                                                 "--softmax",
                                                 "--seq-len",
                                                 std::to_string(positions)};
            const int words = int(core::sentenceWords(core::parseContent(o.sentence.toStdString(), 0)).size());
            const QJsonObject cli = compute("scores", id, overrides, extra, &error, words);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            const std::vector<double> cliData = numbers(cli.value(QStringLiteral("data")).toArray());
            // The stage names are the top-level labels stage_0, stage_1, ...
            int weights = -1;
            for (auto it = guiJson.begin(); it != guiJson.end(); ++it)
                if (it.key().startsWith(QLatin1String("stage_"))
                    && it.value().toString().startsWith(QLatin1String("weights:")))
                    weights = it.key().mid(6).toInt();
            QVERIFY2(weights >= 0, qPrintable(where + QStringLiteral(": no weights stage")));
            std::vector<double> mine;
            for (std::size_t r = 0; r + 3 < guiData.size(); r += 4)
                if (guiData[r] == weights)
                    mine.push_back(guiData[r + 3]);
            const std::size_t cells = std::size_t(words) * std::size_t(words);
            const std::vector<double> theirs(cliData.begin() + std::ptrdiff_t(std::size_t(o.head) * cells),
                                             cliData.begin() + std::ptrdiff_t(std::size_t(o.head + 1) * cells));
            QVERIFY2(same(mine, theirs, &why), qPrintable(where + QStringLiteral(", weights: ") + why));
            // What the view draws: the same numbers.
            auto* pv = qobject_cast<ui::PipelineView*>(v);
            QVERIFY(pv);
            const core::PipelineStage* drawn = pv->data().pipeline.stage("weights");
            QVERIFY2(drawn, qPrintable(where));
            // The view holds the engine's float32 matrix; the CLI prints each float with 9 significant digits.
            QCOMPARE(std::size_t(drawn->values.size()), theirs.size());
            for (std::size_t i = 0; i < theirs.size(); ++i) {
                const float m = drawn->values.data()[i];
                QVERIFY2((std::isnan(m) && std::isnan(theirs[i])) || m == float(theirs[i]),
                         qPrintable(where
                                    + QStringLiteral(", drawn weight %1: %2 vs %3")
                                          .arg(i)
                                          .arg(double(m), 0, 'g', 9)
                                          .arg(theirs[i], 0, 'g', 9)));
            }
            continue;
        }
        if (view == QLatin1String("lengthlab")) {
            // Every seed's exact match per test length as `poslab train` wrote it, then each scheme's mean,
            // computed here from the file.
            QFile f(lengthRunFile());
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonArray runs
                = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("runs")).toArray();
            std::vector<double> expected;
            for (const QString& scheme : {QStringLiteral("nope"), QStringLiteral("alibi")}) {
                std::vector<double> sum(2, 0.0);
                int seeds = 0;
                for (const QJsonValue& r : runs) {
                    if (r.toObject().value(QStringLiteral("scheme")).toString() != scheme)
                        continue;
                    const QJsonArray acc = r.toObject().value(QStringLiteral("accuracy")).toArray();
                    QCOMPARE(acc.size(), 2);
                    for (int i = 0; i < 2; ++i) {
                        const double x = acc[i].toObject().value(QStringLiteral("exact_match")).toDouble();
                        expected.push_back(x);
                        sum[std::size_t(i)] += x;
                    }
                    ++seeds;
                }
                QCOMPARE(seeds, 2);
                for (double x : sum)
                    expected.push_back(x / seeds);
            }
            QCOMPARE(guiJson.value(QStringLiteral("shape")).toArray(), QJsonArray({6, 2}));
            QCOMPARE(guiData.size(), expected.size());
            for (std::size_t i = 0; i < expected.size(); ++i)
                QVERIFY2(std::fabs(guiData[i] - expected[i]) < 1e-12, qPrintable(where));
            continue;
        }
        if (view == QLatin1String("families")) {
            // Each scheme's axes and year as `poslab schemes --json` prints them.
            const test::Run r = test::run({"schemes", "--json"});
            QCOMPARE(r.status, 0);
            // The 1-D schemes; the grid and sequence schemes (with an "input") are not on the family map yet.
            QJsonArray list;
            for (const auto& v : QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).array())
                if (!v.toObject().contains(QStringLiteral("input")))
                    list.append(v);
            QCOMPARE(std::size_t(list.size()), core::schemes().size());
            QCOMPARE(guiData.size(), core::schemes().size() * 4);
            for (qsizetype i = 0; i < list.size(); ++i) {
                const QJsonObject sj = list[i].toObject();
                const QJsonObject axes = sj.value(QStringLiteral("axes")).toObject();
                const std::size_t b = std::size_t(i) * 4;
                QCOMPARE(QString::fromLatin1(core::relationName(core::Relation(int(guiData[b])))),
                         axes.value(QStringLiteral("relation")).toString());
                QCOMPARE(QString::fromLatin1(core::applicationName(core::Application(int(guiData[b + 1])))),
                         axes.value(QStringLiteral("applied_to")).toString());
                QCOMPARE(QString::fromLatin1(core::originName(core::Origin(int(guiData[b + 2])))),
                         axes.value(QStringLiteral("origin")).toString());
                QCOMPARE(guiData[b + 3], sj.value(QStringLiteral("year")).toDouble());
            }
            continue;
        }

        std::string quantity;
        std::vector<std::string> extra;
        int count = positions;
        if (view == QLatin1String("table")) {
            quantity = !s.rotary                            ? "encoding"
                : o.tableQuantity == ui::TableQuantity::Cos ? "cos"
                : o.tableQuantity == ui::TableQuantity::Sin ? "sin"
                                                            : "angles";
        } else if (view == QLatin1String("clock") || view == QLatin1String("rotation")) {
            quantity = s.rotary ? "angles" : "encoding";
        } else if (view == QLatin1String("extension")) {
            // L = the positions (target_length 0), no trained window given (trained_length 0, no preset).
            QCOMPARE(o.targetLength, 0);
            QCOMPARE(o.trainedLength, 0);
            quantity = "extension";
        } else {
            QCOMPARE(view, QStringLiteral("attention"));
            quantity = "scores";
            extra
                = {"--heads",    std::to_string(o.heads), "--mask", o.causal ? "causal" : "bidirectional", "--content",
                   contentArg(o)};
            if (!o.term.isEmpty())
                extra.insert(extra.end(), {"--term", o.term.toStdString()}); // a part of the logits: no softmax
            else if (o.softmax)
                extra.push_back("--softmax");
            // Queries = keys = the first attentionSize positions, or one per word of the sentence.
            count = o.content == ui::AttentionContent::Sentence
                ? int(core::sentenceWords(core::parseContent(contentArg(o), 0)).size())
                : std::min(o.attentionSize, positions);
        }
        const QJsonObject cli = compute(quantity, id, overrides, extra, &error, count);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(guiJson.value(QStringLiteral("shape")), cli.value(QStringLiteral("shape")));
        const std::vector<double> cliData = numbers(cli.value(QStringLiteral("data")).toArray());
        QVERIFY2(same(guiData, cliData, &why), qPrintable(where + QStringLiteral(": ") + why));

        if (view == QLatin1String("attention")) {
            // The heatmap's head (computed for the figure on its own path, one head) against the CLI's.
            const auto a = scene.computation().attention();
            QVERIFY2(a && a->error.isEmpty(), qPrintable(where + (a ? QStringLiteral(": ") + a->error : QString())));
            QCOMPARE(a->term, o.term);
            const QJsonArray shape = cli.value(QStringLiteral("shape")).toArray();
            const auto lq = std::size_t(shape[1].toInt()), lk = std::size_t(shape[2].toInt());
            QCOMPARE(std::size_t(a->matrix.rows()), lq);
            QCOMPARE(std::size_t(a->matrix.cols()), lk);
            const std::size_t base = std::size_t(o.head) * lq * lk;
            for (std::size_t i = 0; i < lq; ++i)
                for (std::size_t j = 0; j < lk; ++j) {
                    const float mine = a->matrix(Eigen::Index(i), Eigen::Index(j));
                    const double theirs = cliData[base + i * lk + j];
                    QVERIFY2((std::isnan(mine) && std::isnan(theirs)) || mine == float(theirs),
                             qPrintable(where
                                        + QStringLiteral(", head %1 (%2, %3): %4 vs %5")
                                              .arg(o.head)
                                              .arg(i)
                                              .arg(j)
                                              .arg(double(mine), 0, 'g', 9)
                                              .arg(theirs, 0, 'g', 9)));
                }
        }
    }
}

void TestViewData::registryNamesEveryView()
{
    // One registry: the window's views, the export names and the titles come from the same entries.
    ui::WorkbenchState state;
    ui::Computation computation(&state);
    const std::vector<ui::View*> views = ui::createViews(&state, &computation);
    QCOMPARE(views.size(), ui::viewRegistry().size());
    QCOMPARE(ExportScene::viewNames(),
             QStringList({"table", "clock", "rotation", "decay", "attention", "extension", "buckets", "precision",
                          "pipeline", "families", "lengthlab", "patchgrid", "sequence"}));
    const QStringList titles{"Encoding table",        "Clock hands",
                             "RoPE rotation planes",  "Dot product and decay",
                             "Attention scores",      "Context-extension lab",
                             "Distance buckets",      "Angle precision",
                             "Attention pipeline",    "Family map",
                             "Length generalisation", "Patch grid",
                             "Mixed sequence"};
    for (std::size_t i = 0; i < views.size(); ++i) {
        const ui::ViewEntry& e = ui::viewRegistry()[i];
        QCOMPARE(views[i]->exportName(), QString::fromLatin1(e.id));
        QCOMPARE(views[i]->title(), titles[qsizetype(i)]);
        QCOMPARE(views[i]->metaObject(), e.type);
        QCOMPARE(ui::findView(views[i]->exportName()), &e);
        delete views[i];
    }
    QVERIFY(!ui::findView(u"nonsense"));
    QString error;
    ExportScene scene;
    QVERIFY(!scene.view(QStringLiteral("nonsense"), &error));
    QCOMPARE(error,
             QStringLiteral("unknown view 'nonsense'; views: table, clock, rotation, decay, attention, extension, "
                            "buckets, precision, pipeline, families, lengthlab, patchgrid, sequence"));
}

void TestViewData::skipsAreRecorded()
{
    // Every skip says which view on which scheme and why; views that apply nowhere would be a registry error.
    QVERIFY(!m_skips.isEmpty());
    for (const QString& s : m_skips)
        qInfo("skipped: %s", qPrintable(s));
    for (const ui::ViewEntry& e : ui::viewRegistry()) {
        int skipped = 0;
        for (const QString& s : m_skips)
            skipped += s.startsWith(QLatin1String(e.id) + QLatin1Char(' '));
        // The spatial views draw the spatial set-up on every row (tst_patchgrid checks their numbers).
        if (QLatin1String(e.id) != QLatin1String("patchgrid") && QLatin1String(e.id) != QLatin1String("sequence"))
            QVERIFY2(skipped < m_rows, e.id);
    }
}

QTEST_MAIN(TestViewData)
#include "tst_viewdata.moc"
