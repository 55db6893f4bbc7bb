// SPDX-License-Identifier: MIT
// Compare mode: configuration B is one more part of the one state. A and B stay in sync under every
// cursor change and every change of what B does not set itself; changing B's scheme leaves A alone (and one undo
// on A's stack brings B back); the state form's "compare" key {"mode", "state"} round-trips through the share
// string; the difference mode's data export equals the element-wise difference of A's and B's data exports
// computed separately (each in a scene of its own); the compare figures render at 1366 x 768, font scale 1 and 2,
// light and dark, with no label collision; the attention view marks the trained length.
#include "ui/export/exportscene.h"
#include "ui/export/exportservice.h"
#include "ui/window/mainwindow.h"
#include "ui/window/parameterpanel.h"
#include "ui/render/textlayout.h"
#include "ui/state/session.h"
#include "ui/state/viewproperties.h"
#include "ui/views/decayview.h"
#include "ui/views/view.h"
#include "ui/state/workbenchstate.h"

#include <QApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPainter>
#include <QSignalSpy>
#include <QSlider>
#include <QUndoStack>
#include <QtTest>

#include <cmath>

using namespace poslab;
using namespace poslab::ui;

namespace {

/// The numbers of a data export (JSON "data"); null (NaN, a masked score) reads as NaN.
std::vector<double> numbers(const QByteArray& json)
{
    std::vector<double> out;
    for (const QJsonValue& v : QJsonDocument::fromJson(json).object().value(QStringLiteral("data")).toArray())
        out.push_back(v.isDouble() ? v.toDouble() : std::nan(""));
    return out;
}

QJsonObject parse(const char* text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

/// The data export of @p view for the state @p json, in a scene of its own.
QByteArray dataExport(const QString& view, const QJsonObject& json, QString* error)
{
    exporting::ExportScene scene;
    if (const QString problem = scene.loadState(json); !problem.isEmpty()) {
        *error = problem;
        return {};
    }
    View* v = scene.view(view, error);
    if (!v)
        return {};
    exporting::settle(scene.computation());
    exporting::ExportResult result;
    const QByteArray data = exporting::ExportService::renderData(*v, scene.state(), exporting::Format::Json, &result);
    if (!result.ok())
        *error = result.message;
    return data;
}

/// Every text drawn by @p view for the state @p json at 1366 x 768, joined with " | ".
QString renderTexts(const QString& view, const QJsonObject& json)
{
    exporting::ExportScene scene;
    if (const QString problem = scene.loadState(json); !problem.isEmpty())
        return QStringLiteral("load failed: ") + problem;
    View* v = scene.view(view);
    exporting::settle(scene.computation());
    QImage img(1366, 768, QImage::Format_ARGB32_Premultiplied);
    TextRecord record;
    {
        QPainter p(&img);
        v->render(p, QRectF(0, 0, 1366, 768));
    }
    QStringList texts;
    for (const DrawnText& t : record.items())
        texts << t.text;
    return texts.join(QStringLiteral(" | "));
}

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
private slots:
    void cursorStaysShared()
    {
        WorkbenchState a;
        QVERIFY(a.compareWithCopy().isEmpty());
        WorkbenchState* b = a.compareState();
        QVERIFY(b);
        QCOMPARE(b->compareOwner(), &a);
        for (int c : {0, 1, 5, 37, 500, 1023, 12}) {
            a.setCursor(c);
            QCOMPARE(b->cursor(), c);
        }
        a.stepCursor(3);
        QCOMPARE(b->cursor(), 15);
        a.setAnimationTime(40.5);
        QCOMPARE(b->cursor(), 40);
        QCOMPARE(b->animationTime(), 40.5);
        // One cursor: moving it in a view of B moves A's.
        b->setCursor(99);
        QCOMPARE(a.cursor(), 99);
        // A shorter range on A clamps both.
        QVERIFY(a.setPositionCount(50).isEmpty());
        QCOMPARE(a.cursor(), 49);
        QCOMPARE(b->cursor(), 49);
        QCOMPARE(b->positionCount(), 50);
    }

    void sharedParametersFollowA()
    {
        WorkbenchState a;
        // B sets only its sentence: every other key is A's, and follows A.
        QVERIFY(a.setCompare({CompareMode::SideBySide, parse(R"({"view": {"sentence": "man bites dog"}})")}).isEmpty());
        WorkbenchState* b = a.compareState();
        const core::SchemeDescriptor& rope = a.scheme();
        int tried = 0;
        for (const core::ParamSpec& spec : rope.params) {
            if (!core::applies(spec, a.params()) || spec.type != core::ParamType::Real)
                continue;
            const double now = a.params().real(spec.key);
            const double next = now == 0 ? 0.5 : now * 2;
            if (!a.setParam(QString::fromStdString(spec.key), core::ParamValue::real(next)).isEmpty())
                continue; // out of its range: not a change
            ++tried;
            QCOMPARE(b->params().real(spec.key), next);
            QCOMPARE(b->params().real(spec.key), a.params().real(spec.key));
        }
        QVERIFY(tried >= 1);
        QVERIFY(a.setDim(64).isEmpty());
        QCOMPARE(b->dim(), 64);
        QVERIFY(a.setPositionCount(300).isEmpty());
        QCOMPARE(b->positionCount(), 300);
        // Every view property B does not set follows A's; B's own sentence stays.
        static const ViewOptions defaults;
        for (const ViewProperty& p : viewProperties()) {
            if (p.name == QLatin1String("sentence") || p.name == QLatin1String("term"))
                continue;
            QVariant other;
            switch (p.kind) {
            case PropertyKind::Integer:
                other = p.name == QLatin1String("head") ? 3 : p.get(defaults).toInt() == 4 ? 5 : 4;
                break;
            case PropertyKind::Real: other = p.get(defaults).toDouble() == 1.5 ? 1.75 : 1.5; break;
            case PropertyKind::Bool: other = !p.get(defaults).toBool(); break;
            case PropertyKind::Choice: other = (p.get(defaults).toInt() + 1) % int(p.words.size()); break;
            case PropertyKind::Text: other = QStringLiteral("0-3"); break;
            }
            if (!a.setProperty(p.name, other).isEmpty())
                continue;
            QVERIFY2(b->property(p.name) == a.property(p.name), qPrintable(p.name));
        }
        QVERIFY(a.setPropertyText(QStringLiteral("sentence"), QStringLiteral("dog bites man")).isEmpty());
        QCOMPARE(b->viewOptions().sentence, QStringLiteral("man bites dog"));
        // A parameter B sets itself stays B's.
        QVERIFY(b->setParamText(QStringLiteral("rope_theta"), QStringLiteral("500000")).isEmpty());
        QVERIFY(a.setParamText(QStringLiteral("rope_theta"), QStringLiteral("20000")).isEmpty());
        QCOMPARE(b->params().real("rope_theta"), 500000.0);
        QCOMPARE(a.params().real("rope_theta"), 20000.0);
    }

    void bIsDataOfTheOneState()
    {
        // B has no undo stack of its own: its setters push B's own keys onto A's one stack, and B shows what those
        // keys resolve to (nothing of B is applied first and copied back).
        WorkbenchState a;
        QVERIFY(a.compareWithCopy().isEmpty());
        WorkbenchState* b = a.compareState();
        QCOMPARE(b->undoStack(), a.undoStack());
        const int steps = a.undoStack()->count();
        QSignalSpy bChanged(b, &WorkbenchState::setupChanged);
        QSignalSpy aChanged(&a, &WorkbenchState::setupChanged);
        for (double theta : {20000.0, 30000.0, 40000.0}) // a drag of B's slider: one merged step
            QVERIFY(b->setParam(QStringLiteral("rope_theta"), core::ParamValue::real(theta), true).isEmpty());
        QCOMPARE(a.undoStack()->count(), steps + 1);
        QCOMPARE(bChanged.count(), 3);
        QCOMPARE(aChanged.count(), 0);
        QCOMPARE(b->params().real("rope_theta"), 40000.0);
        QCOMPARE(a.params().real("rope_theta"), 10000.0);
        const QJsonObject own = a.compare().state.value(QStringLiteral("params")).toObject();
        QCOMPARE(own.value(QStringLiteral("rope_theta")).toString(), QStringLiteral("40000"));
        a.undoStack()->undo();
        QCOMPARE(b->params().real("rope_theta"), 10000.0);
        QVERIFY(a.compare().state.isEmpty());
        // B's view options and the one cursor: the same one stack, the cursor A's.
        QVERIFY(b->setPropertyText(QStringLiteral("attention_size"), QStringLiteral("96")).isEmpty());
        QCOMPARE(a.undoStack()->count(), steps + 1);
        QCOMPARE(b->viewOptions().attentionSize, 96);
        QVERIFY(a.viewOptions().attentionSize != 96);
        b->setCursor(200);
        QCOMPARE(a.cursor(), 200);
        QCOMPARE(b->cursor(), 200);
        // A key B cannot hold is refused in B's words, and nothing is pushed.
        QVERIFY(!b->setParamText(QStringLiteral("rope_theta"), QStringLiteral("-1")).isEmpty());
        QCOMPARE(a.undoStack()->count(), steps + 1);
    }

    void changingBLeavesA()
    {
        WorkbenchState a;
        QVERIFY(a.setParamText(QStringLiteral("rope_theta"), QStringLiteral("500000")).isEmpty());
        QVERIFY(a.compareWithCopy().isEmpty());
        WorkbenchState* b = a.compareState();
        QCOMPARE(b->params().real("rope_theta"), 500000.0);
        QJsonObject before = a.toJson();
        before.remove(QStringLiteral("compare"));
        QVERIFY(b->setScheme(QStringLiteral("alibi")).isEmpty());
        QCOMPARE(b->schemeId(), QStringLiteral("alibi"));
        QCOMPARE(a.schemeId(), QStringLiteral("rope"));
        QJsonObject after = a.toJson();
        QCOMPARE(after.value(QStringLiteral("compare"))
                     .toObject()
                     .value(QStringLiteral("state"))
                     .toObject()
                     .value(QStringLiteral("scheme"))
                     .toString(),
                 QStringLiteral("alibi"));
        after.remove(QStringLiteral("compare"));
        QCOMPARE(after, before);
        QVERIFY(b->figureLabel().startsWith(QStringLiteral("B: ALiBi")));
        QVERIFY(a.figureLabel().startsWith(QStringLiteral("A: RoPE")));
        // B's edits are undone on A's stack, and A's set-up is not touched by the undo.
        a.undoStack()->undo();
        QCOMPARE(b->schemeId(), QStringLiteral("rope"));
        QCOMPARE(a.schemeId(), QStringLiteral("rope"));
        a.undoStack()->redo();
        QCOMPARE(b->schemeId(), QStringLiteral("alibi"));
        // Off: no compare key, no prefixes; on again: the same B.
        QVERIFY(a.setCompareMode(CompareMode::Off).isEmpty());
        QVERIFY(!a.toJson().contains(QStringLiteral("compare")));
        QVERIFY(!a.figureLabel().startsWith(QStringLiteral("A:")));
        QVERIFY(a.setCompareMode(CompareMode::Overlay).isEmpty());
        QCOMPARE(b->schemeId(), QStringLiteral("alibi"));
    }

    void shareStringRoundTrip()
    {
        WorkbenchState a;
        QVERIFY(a.setParamText(QStringLiteral("rope_theta"), QStringLiteral("500000")).isEmpty());
        QVERIFY(a.setPropertyText(QStringLiteral("causal"), QStringLiteral("false")).isEmpty());
        QVERIFY(a.setCompare({CompareMode::Overlay,
                              parse(R"({"scheme": "t5", "params": {"relative_attention_num_buckets": "64"}, "dim": 64,
                                        "view": {"sentence": "man bites dog", "content": "sentence"}})")})
                    .isEmpty());
        a.setCursor(5);
        const QString share = shareString(a);
        QJsonObject decoded;
        QVERIFY2(decodeShareText(share, &decoded).isEmpty(), qPrintable(share));
        WorkbenchState c;
        QVERIFY2(c.fromJson(decoded).isEmpty(), qPrintable(QString::fromUtf8(QJsonDocument(decoded).toJson())));
        QCOMPARE(c.compare(), a.compare());
        QCOMPARE(c.compareState()->setup(), a.compareState()->setup());
        QCOMPARE(c.compareState()->viewOptions(), a.compareState()->viewOptions());
        QCOMPARE(c.compareState()->cursor(), 5);
        QCOMPARE(c.setup(), a.setup());
        QCOMPARE(c.compareState()->dim(), 64);
        QCOMPARE(c.compareState()->viewOptions().sentence, QStringLiteral("man bites dog"));
        QVERIFY(!c.compareState()->viewOptions().causal); // A's, shared
        // The full form too, with the exact key the lesson files use.
        const QJsonObject full = a.toJson();
        QCOMPARE(full.value(QStringLiteral("compare")).toObject().value(QStringLiteral("mode")).toString(),
                 QStringLiteral("overlay"));
        WorkbenchState d;
        QVERIFY(d.fromJson(full).isEmpty());
        QCOMPARE(d.toJson(), full);
        // A file without the key (every file before compare mode) reads, compare off.
        QJsonObject old = full;
        old.remove(QStringLiteral("compare"));
        QVERIFY(d.fromJson(old).isEmpty());
        QVERIFY(!d.comparing());
        // Bad compare keys are refused with one line naming the key; nothing changes.
        QJsonObject bad = full;
        bad.insert(QStringLiteral("compare"), parse(R"({"mode": "sideways", "state": {}})"));
        QVERIFY(d.fromJson(bad).contains(QStringLiteral("compare.mode")));
        bad.insert(QStringLiteral("compare"), parse(R"({"mode": "overlay", "state": {"scheme": "nope-nope"}})"));
        QVERIFY(d.fromJson(bad).contains(QStringLiteral("compare.state: unknown scheme")));
        bad.insert(QStringLiteral("compare"), parse(R"({"mode": "overlay", "state": {"dim": 1}})"));
        QVERIFY(d.fromJson(bad).contains(QStringLiteral("compare.state: dim")));
        bad.insert(QStringLiteral("compare"),
                   parse(R"({"mode": "overlay", "state": {"params": {"no_such_key": "1"}}})"));
        QVERIFY(d.fromJson(bad).startsWith(QStringLiteral("compare.state: ")));
        QVERIFY(!d.comparing());
        QCOMPARE(d.schemeId(), QStringLiteral("rope"));
    }

    void differenceDataIsAMinusB_data()
    {
        // clang-format off
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        // B written out whole, as a state of its own, for the separate export.
        QTest::newRow("table rope theta") << "table"
                                          << R"({"scheme": "rope", "dim": 32, "positions": 64})"
                                          << R"({"scheme": "rope", "dim": 32, "positions": 64, "params": {"rope_theta": "500"}})";
        QTest::newRow("attention sentences") << "attention"
                                             << R"({"scheme": "nope", "dim": 16, "positions": 8, "view": {"content": "sentence", "sentence": "dog bites man", "causal": false, "softmax": true}})"
                                             << R"({"scheme": "nope", "dim": 16, "positions": 8, "view": {"content": "sentence", "sentence": "man bites dog", "causal": false, "softmax": true}})";
        QTest::newRow("attention alibi vs t5") << "attention"
                                               << R"({"scheme": "alibi", "positions": 64, "view": {"attention_size": 64}})"
                                               << R"({"scheme": "t5", "positions": 64, "view": {"attention_size": 64}})";
        QTest::newRow("decay rope theta") << "decay" << R"({"scheme": "rope", "dim": 64, "positions": 256})"
                                          << R"({"scheme": "rope", "dim": 64, "positions": 256, "params": {"rope_theta": "100"}})";
        // clang-format on
    }

    void differenceDataIsAMinusB()
    {
        QFETCH(QString, view);
        QFETCH(QString, a);
        QFETCH(QString, b);
        const QJsonObject aJson = QJsonDocument::fromJson(a.toUtf8()).object();
        const QJsonObject bJson = QJsonDocument::fromJson(b.toUtf8()).object();
        QJsonObject both = aJson;
        both.insert(QStringLiteral("compare"), QJsonObject{{"mode", "difference"}, {"state", bJson}});
        QString error;
        const QByteArray aExport = dataExport(view, aJson, &error);
        const std::vector<double> da = numbers(aExport);
        // float32 exports print 9 significant digits, which read back as float32 exactly; the difference of two
        // float32 values is written in double (exact), so A - B is formed from the float32 values.
        const bool f32 = QJsonDocument::fromJson(aExport).object().value(QStringLiteral("dtype")).toString()
            == QLatin1String("float32");
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const std::vector<double> db = numbers(dataExport(view, bJson, &error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const std::vector<double> dd = numbers(dataExport(view, both, &error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!da.empty());
        QCOMPARE(dd.size(), da.size());
        QCOMPARE(db.size(), da.size());
        const std::size_t cols = view == QLatin1String("decay") ? 3 : 0; // distance, score, bound
        bool someNonZero = false;
        for (std::size_t i = 0; i < da.size(); ++i) {
            if (cols && i % cols == 0) { // the decay table's distance column is a coordinate: kept
                QCOMPARE(dd[i], da[i]);
                continue;
            }
            if (std::isnan(da[i]) || std::isnan(db[i])) {
                QVERIFY(std::isnan(dd[i]));
                continue;
            }
            const double expected = f32 ? double(float(da[i])) - double(float(db[i])) : da[i] - db[i];
            QCOMPARE(dd[i], expected); // the difference is written in double: exact
            someNonZero = someNonZero || dd[i] != 0.0;
        }
        QVERIFY(someNonZero); // the two configurations differ somewhere
    }

    void differenceOfUnlikeDataIsRefused()
    {
        // RoPE's decay curves (score, bound) and ALiBi's (a bias per head) are not one quantity.
        QJsonObject both
            = parse(R"({"scheme": "rope", "compare": {"mode": "difference", "state": {"scheme": "alibi"}}})");
        QString error;
        dataExport(QStringLiteral("decay"), both, &error);
        QVERIFY2(error.contains(QStringLiteral("difference A - B")), qPrintable(error));
    }

    void figuresRender_data()
    {
        // clang-format off
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("state");
        QTest::addColumn<QString>("expect"); ///< texts the figure must show, separated by |
        QTest::newRow("decay overlay rope vs alibi")
            << "decay" << R"({"scheme": "rope", "compare": {"mode": "overlay", "state": {"scheme": "alibi"}}})" << "A: RoPE|1/2|Overlay: A solid, B dashed";
        QTest::newRow("attention side by side sentences")
            << "attention"
            << R"({"scheme": "nope", "dim": 16, "positions": 8, "view": {"content": "sentence", "sentence": "dog bites man", "causal": false},
                  "compare": {"mode": "side_by_side", "state": {"view": {"sentence": "man bites dog"}}}})"
            << "B: NoPE";
        QTest::newRow("table difference") << "table"
                                          << R"({"scheme": "rope", "dim": 64, "positions": 256, "compare": {"mode": "difference", "state": {"params": {"rope_theta": "500"}}}})"
                                          << "A: RoPE \u2212 B: RoPE";
        QTest::newRow("clock overlay (not drawn: says so)")
            << "clock" << R"({"scheme": "rope", "compare": {"mode": "overlay", "state": {"params": {"rope_theta": "500"}}}})"
            << "Overlay: curve views only";
        QTest::newRow("attention trained length")
            << "attention" << R"({"scheme": "alibi", "positions": 64, "view": {"attention_size": 64, "trained_length": 40}})"
            << "new";
        // clang-format on
    }

    void figuresRender()
    {
        QFETCH(QString, view);
        QFETCH(QString, state);
        QFETCH(QString, expect);
        for (const char* theme : {"light", "dark"})
            for (double scale : {1.0, 2.0}) {
                exporting::ExportScene scene;
                QJsonObject json = QJsonDocument::fromJson(state.toUtf8()).object();
                QJsonObject v = json.value(QStringLiteral("view")).toObject();
                v.insert(QStringLiteral("theme"), QString::fromLatin1(theme));
                v.insert(QStringLiteral("font_scale"), scale);
                json.insert(QStringLiteral("view"), v);
                QVERIFY2(scene.loadState(json).isEmpty(), qPrintable(scene.loadState(json)));
                View* w = scene.view(view);
                QVERIFY(w);
                exporting::settle(scene.computation());
                QImage img(1366, 768, QImage::Format_ARGB32_Premultiplied);
                img.fill(Qt::white);
                TextRecord record;
                {
                    QPainter p(&img);
                    w->render(p, QRectF(0, 0, 1366, 768));
                }
                QStringList texts;
                for (const DrawnText& t : record.items())
                    texts << t.text;
                const QString where
                    = QStringLiteral("%1, %2, font scale %3: ").arg(view, QLatin1String(theme)).arg(scale);
                const QStringList collisions = textCollisions(record.items());
                QVERIFY2(collisions.isEmpty(), qPrintable(where + collisions.join(QStringLiteral("; "))));
                const QString all = texts.join(QStringLiteral(" | "));
                for (const char* bad : {"Too small", "Cannot compute", "not drawn"})
                    QVERIFY2(!all.contains(QLatin1String(bad)), qPrintable(where + all));
                for (const QString& e : expect.split(QLatin1Char('|')))
                    QVERIFY2(all.contains(e), qPrintable(where + e + QStringLiteral(" missing in: ") + all));
            }
    }

    void windowEditsB()
    {
        // The Compare menu's path: Compare with… copies A to B, the panels then edit B; every view draws both.
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        WorkbenchState* a = w.state();
        QVERIFY(a->compareWithCopy().isEmpty());
        w.setEditsB(true);
        QVERIFY(w.editsB());
        QVERIFY(w.parameterPanelB());
        QSlider* theta = w.parameterPanelB()->slider(QStringLiteral("rope_theta"));
        QVERIFY(theta);
        const double aTheta = a->params().real("rope_theta");
        theta->setValue(theta->maximum());
        QVERIFY(a->compareState()->params().real("rope_theta") != aTheta);
        QCOMPARE(a->params().real("rope_theta"), aTheta);
        for (CompareMode mode : {CompareMode::SideBySide, CompareMode::Overlay, CompareMode::Difference}) {
            QVERIFY(a->setCompareMode(mode).isEmpty());
            QCoreApplication::processEvents();
            for (View* v : w.views())
                if (v->isVisible())
                    v->repaint();
        }
        a->undoStack()->undo(); // the mode back to overlay
        QCOMPARE(a->compareMode(), CompareMode::Overlay);
        QVERIFY(a->setCompareMode(CompareMode::Off).isEmpty());
        QVERIFY(!w.editsB()); // the panels return to A
    }

    void sideBySideDrawsBWhole()
    {
        // B's half is the whole view: its words on both axes (rotated key labels included), as A's.
        const QStringList texts
            = renderTexts("attention", parse(R"({"scheme": "nope", "dim": 16, "view": {"content": "sentence",
            "sentence": "dog bites man", "causal": false}, "compare": {"mode": "side_by_side", "state": {"view": {"sentence": "man bites dog"}}}})"))
                  .split(QStringLiteral(" | "));
        for (const char* word : {"dog", "bites", "man"})
            QCOMPARE(texts.count(QLatin1String(word)), 4); // query and key axis, in A and in B
        QVERIFY(texts.contains(QStringLiteral("A: NoPE \u2014 softmax, head 0 of 8"))
                || texts.join(' ').contains(QStringLiteral("A: NoPE")));
        QVERIFY(texts.join(' ').contains(QStringLiteral("B: NoPE")));
    }

    void trainedLengthMarkedOnlyInside()
    {
        // ALiBi names no trained window: the view option trained_length gives it. Marked only inside 0..n-1.
        QVERIFY(
            renderTexts(
                "attention",
                parse(R"({"scheme": "alibi", "positions": 64, "view": {"attention_size": 64, "trained_length": 40}})"))
                .contains(QStringLiteral("T = 40: new")));
        for (const char* t : {"0", "64", "1000"})
            QVERIFY(
                !renderTexts(
                     "attention",
                     QJsonObject{{"scheme", "alibi"},
                                 {"positions", 64},
                                 {"view", QJsonObject{{"attention_size", 64}, {"trained_length", QString(t).toInt()}}}})
                     .contains(QStringLiteral("new")));
        // YaRN names its own: original_max_position_embeddings (Hugging Face modeling_rope_utils.py,
        // _compute_yarn_parameters), whatever trained_length says.
        const QString yarn = renderTexts("attention", parse(R"({"scheme": "rope", "positions": 64, "dim": 64,
            "params": {"rope_type": "yarn", "factor": "4", "original_max_position_embeddings": "32"},
            "view": {"attention_size": 64, "trained_length": 50}})"));
        QVERIFY2(yarn.contains(QStringLiteral("T = 32: new")), qPrintable(yarn));
    }
};

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
