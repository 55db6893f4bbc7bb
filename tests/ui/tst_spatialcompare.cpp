// SPDX-License-Identifier: MIT
/// The spatial views beyond one set-up: `poslab export patchgrid|sequence` with --grid, --sequence and a vision
/// --preset (its numbers against `poslab compute`'s), the Presets menu's vision models, and compare mode
/// (B's own spatial keys in sessions and share strings, one colour scale, B's hover read-out).

#include "app/cli.h"
#include "app/exportcli.h"
#include "tests/cli/clirun.h"
#include "core/compute.h"
#include "ui/export/exportscene.h"
#include "ui/window/mainwindow.h"
#include "ui/setup/presets.h"
#include "ui/state/session.h"
#include "ui/figures/spatialfigures.h"
#include "ui/views/patchgridview.h"
#include "ui/views/sequenceview.h"
#include "ui/state/workbenchstate.h"

#include <QAction>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMouseEvent>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace poslab;
using namespace poslab::ui;

namespace {

int exportCli(const QStringList& args, QString* err = nullptr)
{
    const test::Run r = test::runExportList(args);
    if (err)
        *err = test::errText(r);
    return r.status;
}

/// `poslab compute ARGS -o FILE.json`, read back: {"shape", "data", ...}.
QJsonObject computeJson(QStringList args, const QString& file)
{
    const test::Run r = test::runList(QStringList{"compute"} + args + QStringList{"-o", file});
    if (r.status != 0)
        qWarning("compute failed: %s", r.err.c_str());
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

QJsonObject readJson(const QString& file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

/// The data rows of a CSV export (header left out), each split at the commas.
QList<QStringList> csvRows(const QString& file)
{
    QFile f(file);
    QList<QStringList> rows;
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
        return rows;
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString& line : lines)
        if (!line.startsWith(QLatin1Char('#')))
            rows << line.split(QLatin1Char(','));
    if (!rows.isEmpty())
        rows.removeFirst(); // the header row
    return rows;
}

/// Long-double cosine of rows a and b of a (rows x d) compute result.
double cosine(const QJsonArray& data, int d, int a, int b)
{
    long double ab = 0, aa = 0, bb = 0;
    for (int k = 0; k < d; ++k) {
        const long double x = data.at(a * d + k).toDouble(), y = data.at(b * d + k).toDouble();
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    return double(ab / std::sqrt(aa * bb));
}

} // namespace

class TestSpatialCompare : public QObject {
    Q_OBJECT
private slots:
    void exportPatchgridDataIsComputes();
    void exportSequenceIdsAreGetRopeIndex();
    void exportRefusesBadSpatialValues();
    void exportTakesAVisionPreset();
    void presetsMenuAppliesTheSpatialSetUp();
    void compareKeepsBsSpatialKeys();
    void compareSharesOneColourScale();
    void hoverOnBReadsB();
};

void TestSpatialCompare::exportPatchgridDataIsComputes()
{
    QTemporaryDir dir;
    // 2-D RoPE (rope-vit's axial variant): the exported similarity is the score with constant content, which
    // `poslab compute scores --content constant --mask bidirectional` gives for the same grid.
    const QString csv = dir.filePath("p.csv");
    QString err;
    QCOMPARE(exportCli({"patchgrid", "--scheme", "rope_2d", "--grid", "4x5", "--dim", "32", "-o", csv}, &err), 0);
    const QList<QStringList> rows = csvRows(csv);
    QCOMPARE(rows.size(), 20);
    const QJsonObject scores = computeJson({"scores", "--scheme", "rope_2d", "--grid", "4x5", "--dim", "32",
                                            "--content", "constant", "--mask", "bidirectional"},
                                           dir.filePath("s.json"));
    QCOMPARE(scores.value("shape").toArray(), (QJsonArray{20, 20}));
    const QJsonArray s = scores.value("data").toArray();
    for (int a = 0; a < 20; ++a) {
        QCOMPARE(rows[a].size(), 21); // the patch, then 20 values
        QCOMPARE(rows[a][0].toInt(), a);
        for (int b = 0; b < 20; ++b)
            // compute writes float32 scores at their shortest form, the export the same float32 at full length.
            QVERIFY2(float(rows[a][b + 1].toDouble()) == float(s.at(a * 20 + b).toDouble()),
                     qPrintable(QStringLiteral("patch %1, %2: %3 vs %4")
                                    .arg(a)
                                    .arg(b)
                                    .arg(rows[a][b + 1])
                                    .arg(s.at(a * 20 + b).toDouble())));
    }
    // The diagonal of constant content: q.k/sqrt(d) = d/sqrt(d) = sqrt(32) (a rotation keeps the length).
    QVERIFY(std::abs(rows[7][8].toDouble() - std::sqrt(32.0)) < 1e-5);

    // 2-D sin-cos (MAE's get_2d_sincos_pos_embed): the cosines of the rows of compute encoding.
    const QString json = dir.filePath("m.json");
    QCOMPARE(exportCli({"patchgrid", "--scheme", "sincos_2d", "--grid", "3x4", "--dim", "16", "-o", json}, &err), 0);
    const QJsonObject p = readJson(json);
    QCOMPARE(p.value("shape").toArray(), (QJsonArray{12, 12}));
    const QJsonObject enc
        = computeJson({"encoding", "--scheme", "sincos_2d", "--grid", "3x4", "--dim", "16"}, dir.filePath("e.json"));
    QCOMPARE(enc.value("shape").toArray(), (QJsonArray{12, 16}));
    const QJsonArray pd = p.value("data").toArray(), ed = enc.value("data").toArray();
    for (int a = 0; a < 12; ++a)
        for (int b = 0; b < 12; ++b)
            QVERIFY(std::abs(pd.at(a * 12 + b).toDouble() - cosine(ed, 16, a, b)) < 1e-6);
    // Patch 0 (row 0, column 0) and patch 5 (row 1, column 1) differ, so their cosine is below 1.
    QVERIFY(pd.at(5).toDouble() < 0.999);
}

void TestSpatialCompare::exportSequenceIdsAreGetRopeIndex()
{
    // Hugging Face modeling_qwen2_vl get_rope_index: text 0, 1, 2; the 1 x 2 x 3 image at t = 3, h = 3 + row,
    // w = 3 + column; the text after it from the largest id + 1 = 6.
    QTemporaryDir dir;
    const QString out = dir.filePath("ids.json");
    QString err;
    QCOMPARE(exportCli({"sequence", "--sequence", "text:3,image:1x2x3,text:2", "-o", out}, &err), 0);
    const QJsonObject o = readJson(out);
    QCOMPARE(o.value("shape").toArray(), (QJsonArray{3, 11}));
    const QJsonArray d = o.value("data").toArray();
    const int t[11] = {0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7};
    const int h[11] = {0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7};
    const int w[11] = {0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7};
    for (int n = 0; n < 11; ++n) {
        QCOMPARE(d.at(n).toInt(), t[n]);
        QCOMPARE(d.at(11 + n).toInt(), h[n]);
        QCOMPARE(d.at(22 + n).toInt(), w[n]);
    }
    // The same as `poslab compute position_ids`.
    const QJsonObject ids
        = computeJson({"position_ids", "--scheme", "mrope", "--dim", "128", "--sequence", "text:3,image:1x2x3,text:2"},
                      dir.filePath("c.json"));
    QCOMPARE(ids.value("data").toArray(), d);
}

void TestSpatialCompare::exportRefusesBadSpatialValues()
{
    QTemporaryDir dir;
    const QString out = dir.filePath("x.csv");
    const auto refused = [&](const QStringList& args, const QString& words) {
        QString err;
        const int rc = exportCli(args + QStringList{"-o", out}, &err);
        QVERIFY2(rc != 0, qPrintable(args.join(' ')));
        QVERIFY2(err.contains(words), qPrintable(args.join(' ') + QStringLiteral(": ") + err));
        QCOMPARE(err.trimmed().count(QLatin1Char('\n')), 0); // one line
        QVERIFY(!QFile::exists(out));
    };
    refused({"patchgrid", "--grid", "4"}, "--grid '4' must be HxW");
    refused({"patchgrid", "--grid", "0x5"}, "--grid");
    refused({"patchgrid", "--grid", "40x40"}, "at most 1024 (32 x 32)");
    refused({"sequence", "--grid", "4x5"}, "--grid applies to the patchgrid view only");
    refused({"patchgrid", "--sequence", "text:3"}, "--sequence applies to the sequence view only");
    refused({"table", "--scheme", "rope", "--grid", "4x5"}, "--grid applies to the patchgrid view only");
    refused({"sequence", "--sequence", "text:3,picture:2"}, "unknown kind 'picture'");
    refused({"sequence", "--sequence", "text:2000"}, "the mixed sequence view draws 1 to 1024");
    refused({"patchgrid", "--scheme", "rope"}, "the patchgrid view draws the grid schemes");
    refused({"patchgrid", "--scheme", "mrope"}, "mrope is drawn by the sequence view");
    refused({"patchgrid", "--scheme", "rope_2d", "--set", "variant=diagonal"}, "variant");
    refused({"patchgrid", "--preset", "qwen2-vl-7b-instruct"}, "which the sequence view draws");
    refused({"patchgrid", "--preset", "llama-3.1-8b"}, "uses the 1-D scheme rope");
    refused({"patchgrid", "--preset", "mae-vit-b-16", "--scheme", "rope_2d"}, "conflicts with");
}

void TestSpatialCompare::exportTakesAVisionPreset()
{
    QTemporaryDir dir;
    // MAE's ViT-B/16: sincos_2d on its 14 x 14 grid at the model width 768 (resources/presets/mae-vit-b-16.json).
    const QString out = dir.filePath("mae.json");
    QString err;
    QCOMPARE(exportCli({"patchgrid", "--preset", "mae-vit-b-16", "-o", out}, &err), 0);
    const QJsonObject o = readJson(out);
    QCOMPARE(o.value("scheme").toString(), QStringLiteral("sincos_2d"));
    QCOMPARE(o.value("shape").toArray(), (QJsonArray{196, 196}));
    QCOMPARE(o.value("dim").toInt(), 768);
    QCOMPARE(o.value("grid").toString(), QStringLiteral("14x14"));
    // Equal to compute's cosines at the preset's set-up (patch 0 against patch 15 = row 1, column 1).
    const QJsonObject enc = computeJson({"encoding", "--preset", "mae-vit-b-16"}, dir.filePath("e.json"));
    QCOMPARE(enc.value("shape").toArray(), (QJsonArray{196, 768}));
    QVERIFY(std::abs(o.value("data").toArray().at(15).toDouble() - cosine(enc.value("data").toArray(), 768, 0, 15))
            < 1e-6);
    // A --grid beside a preset: the preset's scheme and keys on the asked grid.
    QCOMPARE(exportCli({"patchgrid", "--preset", "rope-mixed-deit-b-16", "--grid", "4x5", "-o", dir.filePath("r.csv")},
                       &err),
             0);
    QCOMPARE(csvRows(dir.filePath("r.csv")).size(), 20);
    // Qwen3-VL's interleaved sections on the sequence view: its figure is drawn.
    QCOMPARE(exportCli({"sequence", "--preset", "qwen3-vl-4b-instruct", "-o", dir.filePath("q.png")}, &err), 0);
    QVERIFY(QFile(dir.filePath("q.png")).size() > 1000);
}

void TestSpatialCompare::presetsMenuAppliesTheSpatialSetUp()
{
    MainWindow w(nullptr, false);
    w.resize(1366, 768);
    w.show();
    WorkbenchState* state = w.state();
    const SpatialSetup before = state->spatial();
    QAction* vit = w.findChild<QAction*>(QStringLiteral("preset:vit-b-16-grid"));
    QVERIFY(vit);
    QCOMPARE(vit->toolTip(), findPreset("vit-b-16-grid")->value("source").toString());
    vit->trigger();
    // ViT-B/16 on its patch grid: the 14 x 14 table of 768-wide rows with a class token.
    QCOMPARE(state->spatial().scheme, std::string("vit_learned"));
    QCOMPARE(state->spatial().dim, 768);
    QVERIFY(state->spatial().grid == (core::Grid{14, 14}));
    QVERIFY(state->spatial().cls);
    QCOMPARE(state->spatial().params.at("table_rows"), std::string("14"));
    QVERIFY(w.maximisedView());
    QCOMPARE(w.maximisedView()->exportName(), QStringLiteral("patchgrid"));
    // Qwen2-VL: M-RoPE with its sections and theta, shown in the mixed sequence view.
    QAction* qwen = w.findChild<QAction*>(QStringLiteral("preset:qwen2-vl-7b-instruct"));
    QVERIFY(qwen);
    qwen->trigger();
    QCOMPARE(state->spatial().scheme, std::string("mrope"));
    QCOMPARE(state->spatial().dim, 128);
    QCOMPARE(state->spatial().params.at("mrope_section"), std::string("16,24,24"));
    QCOMPARE(state->spatial().params.at("rope_theta"), std::string("1000000"));
    QCOMPARE(w.maximisedView()->exportName(), QStringLiteral("sequence"));
    // Every vision preset of the menu is there (under its scheme) and loads.
    for (const char* id : {"mae-vit-b-16", "rope-axial-deit-b-16", "rope-mixed-deit-b-16", "pixtral-12b-vision",
                           "qwen2.5-vl-7b-instruct", "qwen3-vl-4b-instruct"}) {
        QAction* a = w.findChild<QAction*>(QStringLiteral("preset:") + QLatin1String(id));
        QVERIFY2(a, id);
        a->trigger();
        QCOMPARE(state->spatial().scheme, presetState(*findPreset(id)).value("scheme").toString().toStdString());
    }
    // One undo step per preset: eight undos return to the set-up before.
    for (int i = 0; i < 8; ++i)
        state->undoStack()->undo();
    QVERIFY(state->spatial() == before);
    state->undoStack()->redo();
    QCOMPARE(state->spatial().scheme, std::string("vit_learned"));
}

void TestSpatialCompare::compareKeepsBsSpatialKeys()
{
    WorkbenchState a;
    SpatialSetup s;
    s.scheme = "rope_2d";
    s.grid = {6, 8};
    s.dim = 32;
    s.patch = 2 * 8 + 3;
    QCOMPARE(a.setSpatial(s), QString());
    QCOMPARE(a.compareWithCopy(), QString());
    WorkbenchState* b = a.compareState();
    QVERIFY(b->spatial() == s);
    // B takes the 2-D sin-cos table on a 12 x 16 grid: its own keys; the selection is A's, at the same place.
    SpatialSetup bs = b->spatial();
    bs.scheme = "sincos_2d";
    bs.grid = {12, 16};
    bs.patch = 0;
    QCOMPARE(b->setSpatial(bs), QString());
    const QJsonObject own = a.compare().state.value("spatial").toObject();
    QCOMPARE(own.value("scheme").toString(), QStringLiteral("sincos_2d"));
    QCOMPARE(own.value("grid").toString(), QStringLiteral("12x16"));
    QVERIFY(!own.contains("dim") && !own.contains("patch"));
    const auto [row, col] = core::samePlace({6, 8}, 2, 3, {12, 16});
    QCOMPARE(b->spatial().patch, row * 16 + col);
    QCOMPARE(b->spatial().scheme, std::string("sincos_2d"));
    // A's selection moves B's.
    s.patch = 5 * 8 + 7;
    QCOMPARE(a.setSpatial(s), QString());
    const auto [row2, col2] = core::samePlace({6, 8}, 5, 7, {12, 16});
    QCOMPARE(b->spatial().patch, row2 * 16 + col2);
    // A session and a share string bring both back.
    for (bool share : {false, true}) {
        QJsonObject json = a.toJson(share);
        if (share) {
            QCOMPARE(decodeShareText(shareString(a, {}), &json), QString());
        }
        WorkbenchState back;
        QCOMPARE(back.fromJson(json), QString());
        QVERIFY(back.spatial() == a.spatial());
        QVERIFY(back.compareState()->spatial() == b->spatial());
    }
    // Undo: B's edit goes back, B is A's copy again.
    a.undoStack()->undo(); // A's patch
    a.undoStack()->undo(); // B's spatial keys
    QVERIFY(!a.compare().state.contains("spatial"));
    QCOMPARE(b->spatial().scheme, std::string("rope_2d"));
    // Bad keys of B are refused with the key named.
    WorkbenchState bad;
    const QString why = bad.fromJson(
        QJsonDocument::fromJson(
            R"({"scheme": "rope", "compare": {"mode": "side_by_side", "state": {"spatial": {"grid": "40x40"}}}})")
            .object());
    QVERIFY2(why.startsWith(QStringLiteral("compare.state.spatial: ")) && why.contains("32 x 32"), qPrintable(why));
    QCOMPARE(bad.compareWithCopy(), QString());
    CompareConfig c = bad.compare();
    c.state.insert("spatial", QJsonObject{{"dim", "wide"}});
    QVERIFY(bad.setCompare(c).contains(QStringLiteral("compare.state.spatial.dim must be a whole number")));
}

void TestSpatialCompare::compareSharesOneColourScale()
{
    exporting::ExportScene scene;
    WorkbenchState& state = scene.state();
    // A: 2-D RoPE theta 100 (rope-vit axial); B: theta 10 (rope-vit's mixed default), both scores.
    QCOMPARE(
        state.fromJson(
            QJsonDocument::fromJson(
                R"({"scheme": "rope", "spatial": {"scheme": "rope_2d", "grid": "8x8", "dim": 32, "patch": 27, "params": {"rope_theta": "100"}},
                     "compare": {"mode": "side_by_side", "state": {"spatial": {"params": {"rope_theta": "10"}}}}})")
                .object()),
        QString());
    auto* view = qobject_cast<PatchGridView*>(scene.view(QStringLiteral("patchgrid")));
    QVERIFY(view);
    exporting::settle(scene.computation());
    auto* twin = qobject_cast<PatchGridView*>(view->compareTwin());
    QVERIFY(twin);
    QCOMPARE(twin->data().scheme, std::string("rope_2d"));
    QVERIFY(view->showsHalves());
    const double lo = std::min(view->data().lo, twin->data().lo), hi = std::max(view->data().hi, twin->data().hi);
    QVERIFY(view->data().lo != twin->data().lo || view->data().hi != twin->data().hi); // the thetas differ
    QVERIFY(view->heldColourRange() && twin->heldColourRange());
    QCOMPARE(view->heldColourRange()->lo, lo);
    QCOMPARE(twin->heldColourRange()->hi, hi);
    // Independent ranges: each half its own.
    QCOMPARE(state.setPropertyText(QStringLiteral("independent_ranges"), QStringLiteral("true")), QString());
    QVERIFY(!view->heldColourRange() && !twin->heldColourRange());
    // A table beside a rotation: cosines and scores keep their own scales.
    QCOMPARE(state.setPropertyText(QStringLiteral("independent_ranges"), QStringLiteral("false")), QString());
    CompareConfig c = state.compare();
    c.state = QJsonObject{{"spatial", QJsonObject{{"scheme", "sincos_2d"}}}};
    QCOMPARE(state.setCompare(c), QString());
    QVERIFY(twin->data().table);
    QVERIFY(!view->heldColourRange());
    // The sequence view: Qwen2-VL beside Qwen3-VL's interleaved sections, one scale.
    QCOMPARE(state.fromJson(QJsonDocument::fromJson(
                                R"({"scheme": "rope", "spatial": {"scheme": "mrope", "dim": 128, "patch": 5},
                     "compare": {"mode": "side_by_side", "state": {"spatial": {"params": {"variant": "qwen3_vl", "mrope_section": "24,20,20", "sections": "interleaved"}}}}})")
                                .object()),
             QString());
    auto* seq = qobject_cast<SequenceView*>(scene.view(QStringLiteral("sequence")));
    QVERIFY(seq);
    exporting::settle(scene.computation());
    auto* seqB = qobject_cast<SequenceView*>(seq->compareTwin());
    QVERIFY(seqB && seqB->data().error.isEmpty());
    QVERIFY(seq->data().pairAxis != seqB->data().pairAxis); // chunked vs interleaved
    QVERIFY(seq->heldColourRange());
    QCOMPARE(seq->heldColourRange()->lo, std::min(seq->data().lo, seqB->data().lo));
}

void TestSpatialCompare::hoverOnBReadsB()
{
    WorkbenchState state;
    Computation computation(&state);
    QCOMPARE(
        state.fromJson(QJsonDocument::fromJson(
                           R"({"scheme": "rope", "spatial": {"scheme": "rope_2d", "grid": "6x6", "dim": 32, "patch": 0},
                     "compare": {"mode": "side_by_side", "state": {"spatial": {"scheme": "sincos_2d"}}}})")
                           .object()),
        QString());
    PatchGridView view(&state, &computation);
    view.resize(1400, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto* twin = qobject_cast<PatchGridView*>(view.compareTwin());
    QVERIFY(twin);
    QCoreApplication::processEvents();
    // The middle of patch (2, 3) of B's first map, in the widget's coordinates.
    const QRectF b = view.twinArea();
    QVERIFY(!b.isEmpty());
    const PatchGridView::Layout l = twin->layoutFor(QRectF(QPointF(0, 0), b.size()));
    const QPointF at = b.topLeft() + QPointF(l.grid.left() + 3.5 * l.cell, l.grid.top() + 2.5 * l.cell);
    QMouseEvent move(QEvent::MouseMove, at, view.mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&view, &move);
    QCOMPARE(view.hoveredPatch(true), 2 * 6 + 3);
    QCOMPARE(view.hoveredPatch(false), -1);
    const QString r = view.hoverReadout();
    QVERIFY2(r.startsWith(QStringLiteral("B \u00b7 patch (2, 3)")), qPrintable(r));
    QVERIFY2(r.contains(QStringLiteral("cosine ") + QString::number(twin->data().similarity(0, 15), 'g', 4)),
             qPrintable(r));
    // Over A's half: A's read-out, a score, without "B".
    const PatchGridView::Layout la = view.layoutFor(view.contentArea());
    const QPointF atA(la.grid.left() + 1.5 * la.cell, la.grid.top() + 0.5 * la.cell);
    QMouseEvent moveA(QEvent::MouseMove, atA, view.mapToGlobal(atA), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&view, &moveA);
    QCOMPARE(view.hoveredPatch(false), 1);
    QVERIFY(view.hoverReadout().startsWith(QStringLiteral("patch (0, 1)  \u00b7  score ")));
    // A click on B's half selects the same place on A's grid (the grids are equal: the same patch).
    QTest::mouseClick(&view, Qt::LeftButton, {}, at.toPoint());
    QCOMPARE(state.spatial().patch, 2 * 6 + 3);
    QCOMPARE(twin->data().patchIndex(), 2 * 6 + 3);

    // The sequence view: B's half reads B's ids.
    QCOMPARE(
        state.fromJson(
            QJsonDocument::fromJson(
                R"({"scheme": "rope", "spatial": {"scheme": "mrope", "dim": 128, "sequence": "text:2,image:1x2x2,text:1", "patch": 0},
                     "compare": {"mode": "side_by_side", "state": {"spatial": {"sequence": "text:4,image:1x2x2,text:1"}}}})")
                .object()),
        QString());
    SequenceView seq(&state, &computation);
    seq.resize(1400, 600);
    seq.show();
    QVERIFY(QTest::qWaitForWindowExposed(&seq));
    auto* seqB = qobject_cast<SequenceView*>(seq.compareTwin());
    QVERIFY(seqB);
    const QRectF sb = seq.twinArea();
    const SequenceView::Layout ls = seqB->layoutFor(QRectF(QPointF(0, 0), sb.size()));
    // Token 4 of B's 9: its first image token, at t = h = w = 4.
    const QPointF tok = sb.topLeft() + QPointF(ls.tokens.left() + 4.5 * ls.tokens.width() / 9, ls.tokens.center().y());
    QMouseEvent moveS(QEvent::MouseMove, tok, seq.mapToGlobal(tok), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&seq, &moveS);
    QCOMPARE(seq.hoverReadout(), QStringLiteral("B \u00b7 token 4  \u00b7  t 4, h 4, w 4"));
}

QTEST_MAIN(TestSpatialCompare)
#include "tst_spatialcompare.moc"
