// SPDX-License-Identifier: MIT
// The spatial set-up and the patch grid view: the set-up round-trips through a state file and a share
// string and names one problem for a bad value; the view's numbers are core's (the cosine of compute encoding's
// rows for a table, compute scores --content constant for a 2-D rotation); clicking a patch and the arrow keys
// select it (undoably); the export writes the figure and the data; nothing collides at 1366 x 768.
#include "core/compute.h"
#include "ui/figures/computation.h"
#include "ui/export/exportservice.h"
#include "ui/render/textlayout.h"
#include "ui/state/session.h"
#include "ui/figures/spatialfigures.h"
#include "ui/views/patchgridview.h"
#include "ui/views/sequenceview.h"
#include "ui/views/viewlist.h"
#include "ui/state/workbenchstate.h"

#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QMouseEvent>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>
#include <memory>

using namespace poslab;
using namespace poslab::ui;
using namespace poslab::exporting;

namespace {

QStringList collisionsOf(View& view, QSize size, double fontScale, ThemeKind theme, WorkbenchState& state)
{
    ViewOptions o = state.viewOptions();
    o.fontScale = fontScale;
    o.theme = theme;
    state.applyViewOptions(o);
    TextRecord record;
    QImage img(size, QImage::Format_RGB32);
    {
        QPainter p(&img);
        view.render(p, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    QStringList problems = textCollisions(record.items());
    for (const DrawnText& d : record.items())
        if (d.text != d.fullText && d.text.contains(QChar(0x2026)))
            problems << QStringLiteral("elided: %1").arg(d.fullText);
    return problems;
}

/// Long-double cosine of two rows of a compute result (the reference of the view's table measure).
double cosine(const core::ComputeResult& r, std::size_t a, std::size_t b)
{
    const std::size_t d = r.shape[1];
    long double ab = 0, aa = 0, bb = 0;
    for (std::size_t k = 0; k < d; ++k) {
        const long double x = r.data[a * d + k], y = r.data[b * d + k];
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    return double(ab / std::sqrt(aa * bb));
}

} // namespace

class TestPatchGrid : public QObject {
    Q_OBJECT
private slots:
    void sessionAndShareRoundTrip();
    void badValuesNameTheProblem();
    void tableIsCosineOfCoreRows();
    void rotationIsCoreScores();
    void vitResizedTableAtTheSamePlace();
    void clickAndArrowsSelectAPatch();
    void exportWritesFigureAndData();
    void noCollisionsAtProjectorSizes();
    void sequenceIsCoreIdsAndScores();
    void sequenceClickSelectsAToken();
    void refusedFiguresExitAsTheirData();
    void spatialFiguresNameTheirScheme();
    void aStateWithoutPatchSelectsTheMiddle();
};

void TestPatchGrid::sessionAndShareRoundTrip()
{
    WorkbenchState state;
    // A new window writes no spatial key in a share string.
    QVERIFY(!state.toJson(true).contains("spatial"));
    SpatialSetup s;
    s.scheme = "rope_2d";
    s.grid = {8, 12};
    s.largeGrid = {16, 24};
    s.dim = 32;
    s.params["variant"] = "mixed";
    s.patch = 8 * 12 - 1;
    QCOMPARE(state.setSpatial(s), QString());
    const QJsonObject json = state.toJson();
    QCOMPARE(json.value("spatial").toObject().value("grid").toString(), QStringLiteral("8x12"));
    WorkbenchState back;
    QCOMPARE(back.fromJson(QJsonDocument::fromJson(QJsonDocument(json).toJson()).object()), QString());
    QVERIFY(back.spatial() == s);
    // The share string: only what differs from a new window, and it reads back the same.
    const QString share = shareString(state, {});
    WorkbenchState shared;
    QJsonObject object;
    QCOMPARE(decodeShareText(share, &object), QString());
    QCOMPARE(shared.fromJson(object), QString());
    QVERIFY(shared.spatial() == s);
    QVERIFY(!state.toJson(true).value("spatial").toObject().contains("cls"));
    // One undo step restores the set-up before.
    state.undoStack()->undo();
    QVERIFY(state.spatial() == SpatialSetup());
}

void TestPatchGrid::badValuesNameTheProblem()
{
    WorkbenchState state;
    const auto load = [&](const char* spatial) {
        QJsonObject json{{"scheme", "rope"}};
        json.insert("spatial", QJsonDocument::fromJson(spatial).object());
        return state.fromJson(json);
    };
    QCOMPARE(load(R"({"scheme": "nope"})"),
             QStringLiteral("spatial: unknown spatial scheme 'nope'; spatial schemes: vit_learned, sincos_2d, rope_2d, "
                            "pixtral_rope, mrope"));
    QCOMPARE(load(R"({"grid": "14by14"})"),
             QStringLiteral("spatial: --grid '14by14' must be HxW (rows x columns of patches), e.g. 14x14"));
    QCOMPARE(load(R"({"grid": "64x64"})"),
             QStringLiteral(
                 "spatial: spatial grid 64x64 has 4096 patches; the patch grid view draws at most 1024 (32 x 32)"));
    QCOMPARE(
        load(R"({"dim": 6})"),
        QStringLiteral("spatial: sincos_2d needs a dimension that is a multiple of 4 (sin and cos of the column, sin "
                       "and cos of the row); got --dim 6"));
    QCOMPARE(load(R"({"patch": 196})"),
             QStringLiteral(
                 "spatial: spatial patch 196 is out of range; allowed: 0 to 195 (row-major over the 14x14 grid)"));
    QCOMPARE(load(R"({"cls": 1})"), QStringLiteral("spatial.cls must be true or false (got 1)"));
    QCOMPARE(
        load(R"({"colour": "red"})"),
        QStringLiteral("spatial.colour is not a key of the spatial set-up; keys: scheme, grid, large_grid, cls, dim, "
                       "params, sequence, patch"));
    QVERIFY(load(R"({"params": {"rope_theta": -1}})").startsWith(QStringLiteral("spatial: ")));
    // Nothing changed, and the setter refuses the same way.
    QVERIFY(state.spatial() == SpatialSetup());
    SpatialSetup bad;
    bad.patch = -1;
    QVERIFY(state.setSpatial(bad).startsWith(QStringLiteral("spatial patch -1 is out of range")));
    QVERIFY(state.spatial() == SpatialSetup());
}

void TestPatchGrid::tableIsCosineOfCoreRows()
{
    // MAE's 2-D sin-cos with the class token: the class row has no place on the grid and is left out.
    SpatialSetup s;
    s.scheme = "sincos_2d";
    s.grid = {6, 5};
    s.largeGrid = {9, 7};
    s.cls = true;
    s.dim = 16;
    s.patch = 2 * 5 + 3;
    const PatchGridData d = PatchGridFigure::compute({s});
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    QVERIFY(d.table);
    QVERIFY(!d.resized); // a formula: computed at the larger grid
    QCOMPARE(d.dim, 16);
    QCOMPARE(d.row, 2);
    QCOMPARE(d.col, 3);
    core::ComputeRequest req;
    req.quantity = core::Quantity::Encoding;
    req.scheme = "sincos_2d";
    req.grid = core::Grid{6, 5};
    req.cls = true;
    req.context.dim = 16;
    const core::ComputeResult r = core::compute(req);
    QCOMPARE(r.shape[0], std::size_t(31));
    QCOMPARE(d.similarity.rows(), Eigen::Index(30));
    for (std::size_t a = 0; a < 30; ++a)
        for (std::size_t b = 0; b < 30; ++b)
            QVERIFY(std::abs(d.similarity(Eigen::Index(a), Eigen::Index(b)) - cosine(r, a + 1, b + 1)) < 1e-12);
    QCOMPARE(d.similarity(13, 13), 1.0);
    // The larger grid: patch (2, 3) of 6 x 5 sits at floor(2.5 * 9 / 6) = 3, floor(3.5 * 7 / 5) = 4 of 9 x 7.
    QCOMPARE(d.largeRow, 3);
    QCOMPARE(d.largeCol, 4);
    req.grid = core::Grid{9, 7};
    const core::ComputeResult big = core::compute(req);
    for (std::size_t b = 0; b < 63; ++b)
        QVERIFY(std::abs(d.largeRowValues(0, Eigen::Index(b)) - cosine(big, 1 + 3 * 7 + 4, b + 1)) < 1e-12);
    // The data export is the same matrix.
    FigureSnapshot snapshot;
    snapshot.spatial = s;
    const core::ComputeResult table = PatchGridFigure::dataExport(snapshot, nullptr);
    QCOMPARE(table.shape, (std::vector<std::size_t>{30, 30}));
    QCOMPARE(table.data[13 * 30 + 7], d.similarity(13, 7));
}

void TestPatchGrid::rotationIsCoreScores()
{
    // rope-vit's axial 2-D RoPE: the score with q = k = 1 depends on the offset only (a relative scheme), so the
    // map of patch (1, 1) is the map of patch (2, 2) shifted by one row and one column.
    SpatialSetup s;
    s.scheme = "rope_2d";
    s.grid = {4, 4};
    s.largeGrid = {8, 8};
    s.dim = 16;
    s.patch = 5;
    const PatchGridData d = PatchGridFigure::compute({s});
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    QVERIFY(!d.table);
    core::ComputeRequest req;
    req.quantity = core::Quantity::Scores;
    req.scheme = "rope_2d";
    req.grid = core::Grid{4, 4};
    req.context.dim = 16;
    req.content.kind = core::ContentKind::Constant;
    const core::ComputeResult r = core::compute(req); // bidirectional by default for a grid
    for (std::size_t a = 0; a < 16; ++a)
        for (std::size_t b = 0; b < 16; ++b)
            QCOMPARE(d.similarity(Eigen::Index(a), Eigen::Index(b)), r.data[a * 16 + b]);
    // At offset 0 every pair contributes cos 0: q.k/sqrt(d) = d/sqrt(d) = 4.
    QVERIFY(std::abs(d.similarity(5, 5) - 4.0) < 1e-6);
    QVERIFY(std::abs(d.similarity(5, 4) - d.similarity(10, 9)) < 1e-6);
    // The larger grid extrapolates: the same offsets give the same scores there.
    // Patch (1, 1) of 4 x 4 sits at floor(1.5 * 8 / 4) = 3 of 8 x 8.
    QCOMPARE(d.largeRow, 3);
    QCOMPARE(d.largeCol, 3);
    QVERIFY(std::abs(d.largeRowValues(0, 3 * 8 + 2) - d.similarity(5, 4)) < 1e-6);
}

void TestPatchGrid::vitResizedTableAtTheSamePlace()
{
    // ViT-B/16's 14 x 14 table resized to 24 x 24 by core (timm's bicubic, antialias).
    SpatialSetup s;
    s.scheme = "vit_learned";
    s.dim = 32;
    s.patch = 7 * 14 + 4;
    const PatchGridData d = PatchGridFigure::compute({s});
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    QCOMPARE(d.resolutionNote, QStringLiteral("the 14 \u00d7 14 table resized (bicubic, antialias) to 24 \u00d7 24"));
    QVERIFY(d.resized);       // a learned table exists at 14 x 14 only
    QCOMPARE(d.largeRow, 12); // floor(7.5 * 24 / 14) = 12
    QCOMPARE(d.largeCol, 7);  // floor(4.5 * 24 / 14) = 7
    core::ComputeRequest req;
    req.quantity = core::Quantity::Encoding;
    req.scheme = "vit_learned";
    req.grid = core::Grid{24, 24};
    req.context.dim = 32;
    const core::ComputeResult big = core::compute(req);
    for (std::size_t b = 0; b < 576; b += 37)
        QVERIFY(std::abs(d.largeRowValues(0, Eigen::Index(b)) - cosine(big, 12 * 24 + 7, b)) < 1e-9);
}

void TestPatchGrid::clickAndArrowsSelectAPatch()
{
    WorkbenchState state;
    Computation computation(&state);
    PatchGridView view(&state, &computation);
    view.resize(1200, 600);
    const QRectF area(0, 0, 1200, 600);
    const PatchGridView::Layout l = view.layoutFor(area);
    // A click in the middle of patch (3, 9) of the first grid.
    const QPointF at(l.grid.left() + 9.5 * l.cell, l.grid.top() + 3.5 * l.cell);
    QCOMPARE(view.patchAt(area, at), 3 * 14 + 9);
    QTest::mouseClick(&view, Qt::LeftButton, {}, at.toPoint());
    QCOMPARE(state.spatial().patch, 3 * 14 + 9);
    QCOMPARE(view.data().row, 3);
    QCOMPARE(view.data().col, 9);
    // A click on a small map of the multiples selects that map's patch.
    const double step = l.smallCell * 14 + l.smallGap;
    QTest::mouseClick(&view, Qt::LeftButton, {},
                      QPointF(l.multiples.left() + 12 * step + step / 2, l.multiples.top() + step / 2).toPoint());
    QCOMPARE(state.spatial().patch, 12);
    QTest::keyClick(&view, Qt::Key_Down);
    QTest::keyClick(&view, Qt::Key_Down);
    QTest::keyClick(&view, Qt::Key_Right);
    QTest::keyClick(&view, Qt::Key_Right); // past the last column: stays
    QCOMPARE(state.spatial().patch, 2 * 14 + 13);
    QTest::keyClick(&view, Qt::Key_Up);
    QCOMPARE(state.spatial().patch, 14 + 13);
    // The key steps merge into one undo step; undo then restores the click's patch.
    state.undoStack()->undo();
    QCOMPARE(state.spatial().patch, 12);
    state.undoStack()->undo();
    QCOMPARE(state.spatial().patch, 3 * 14 + 9);
}

void TestPatchGrid::exportWritesFigureAndData()
{
    WorkbenchState state;
    Computation computation(&state);
    PatchGridView view(&state, &computation);
    QCOMPARE(view.exportName(), QStringLiteral("patchgrid"));
    QTemporaryDir dir;
    for (const char* name : {"p.png", "p.svg", "p.csv", "p.json"}) {
        ExportOptions o;
        const QString path = dir.filePath(QLatin1String(name));
        const QString ext = path.section('.', -1);
        o.format = ext == "png" ? Format::Png : ext == "svg" ? Format::Svg : ext == "csv" ? Format::Csv : Format::Json;
        const ExportResult r = ExportService::exportView(view, state, computation, o, path);
        QVERIFY2(r.ok(), qPrintable(r.message));
        QVERIFY(QFile(path).size() > 100);
    }
    QImage png(dir.filePath("p.png"));
    QCOMPARE(png.size(), QSize(1200, 800));
    QFile json(dir.filePath("p.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(json.readAll()).object();
    QCOMPARE(o.value("quantity").toString(), QStringLiteral("patchgrid"));
    QCOMPARE(o.value("shape").toArray(), (QJsonArray{196, 196}));
    const QJsonArray data = o.value("data").toArray();
    QCOMPARE(data.at(102 * 196 + 102).toDouble(), 1.0);
    QCOMPARE(data.at(102 * 196 + 3).toDouble(), view.data().similarity(102, 3));
}

void TestPatchGrid::noCollisionsAtProjectorSizes()
{
    WorkbenchState state;
    Computation computation(&state);
    PatchGridView view(&state, &computation);
    for (const char* scheme : {"sincos_2d", "rope_2d"})
        for (double scale : {1.0, 2.0})
            for (ThemeKind theme : {ThemeKind::Light, ThemeKind::Dark})
                for (QSize size :
                     {QSize(1366, 640), QSize(1280, 600), QSize(930, 530), QSize(900, 420), QSize(640, 360)}) {
                    SpatialSetup s = state.spatial();
                    s.scheme = scheme;
                    QCOMPARE(state.setSpatial(s), QString());
                    const QStringList problems = collisionsOf(view, size, scale, theme, state);
                    QVERIFY2(problems.isEmpty(),
                             qPrintable(QStringLiteral("%1 at %2x%3, scale %4: %5")
                                            .arg(QLatin1String(scheme))
                                            .arg(size.width())
                                            .arg(size.height())
                                            .arg(scale)
                                            .arg(problems.join(" | "))));
                }
}

void TestPatchGrid::sequenceIsCoreIdsAndScores()
{
    // Qwen2-VL: text:3,image:1x2x3,text:2 (get_rope_index): text ids 0, 1, 2; the image's t = 3, h = 3 + row,
    // w = 3 + column; the text after continues from max(3, 4, 5) + 1 = 6.
    SpatialSetup s;
    s.scheme = "mrope";
    s.dim = 128;
    s.sequence = core::parseSequence("text:3,image:1x2x3,text:2");
    s.patch = 4;
    const SequenceData d = SequenceFigure::compute({s});
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    QCOMPARE(d.ids.cols(), Eigen::Index(11));
    const double expected[3][11]
        = {{0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7}, {0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7}, {0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7}};
    for (int a = 0; a < 3; ++a)
        for (int n = 0; n < 11; ++n)
            QCOMPARE(d.ids(a, n), expected[a][n]);
    QCOMPARE(d.firstToken, (std::vector<std::int64_t>{0, 3, 9}));
    // mrope_section [16, 24, 24], chunked: pairs 0-15 t, 16-39 h, 40-63 w.
    QCOMPARE(d.pairAxis.size(), std::size_t(64));
    QCOMPARE(d.pairAxis[15], 0);
    QCOMPARE(d.pairAxis[16], 1);
    QCOMPARE(d.pairAxis[39], 1);
    QCOMPARE(d.pairAxis[40], 2);
    core::ComputeRequest req = spatialRequest(s, core::Quantity::Scores);
    req.content.kind = core::ContentKind::Constant;
    const core::ComputeResult r = core::compute(req);
    for (int m = 0; m < 11; ++m)
        for (int n = 0; n < 11; ++n) {
            const double v = r.data[std::size_t(m * 11 + n)];
            if (n > m)
                QVERIFY(std::isnan(d.scores(m, n)));
            else
                QCOMPARE(d.scores(m, n), v);
        }
    // A grid scheme has no sequence: one sentence says which to pick.
    SpatialSetup grid;
    QVERIFY(SequenceFigure::compute({grid}).error.contains(QStringLiteral("pick mrope")));
    QVERIFY(PatchGridFigure::compute({s}).error.contains(QStringLiteral("takes a token sequence")));
}

void TestPatchGrid::sequenceClickSelectsAToken()
{
    WorkbenchState state;
    SpatialSetup s;
    s.scheme = "mrope";
    s.dim = 128;
    s.patch = 0;
    QCOMPARE(state.setSpatial(s), QString());
    Computation computation(&state);
    SequenceView view(&state, &computation);
    view.resize(1200, 640);
    const QRectF area(0, 0, 1200, 640);
    const SequenceView::Layout l = view.layoutFor(area);
    const double tw = l.tokens.width() / 19; // text:4,image:1x3x4,text:3
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPointF(l.tokens.left() + 6.5 * tw, l.tokens.center().y()).toPoint());
    QCOMPARE(state.spatial().patch, 6);
    QCOMPARE(view.data().token, 6);
    QTest::keyClick(&view, Qt::Key_Right);
    QCOMPARE(state.spatial().patch, 7);
    for (double scale : {1.0, 2.0})
        for (ThemeKind theme : {ThemeKind::Light, ThemeKind::Dark}) {
            for (QSize size : {QSize(1366, 640), QSize(930, 530), QSize(640, 360)}) {
                const QStringList problems = collisionsOf(view, size, scale, theme, state);
                QVERIFY2(problems.isEmpty(), qPrintable(problems.join(" | ")));
            }
        }
    // The data export: the position ids, 3 x 19.
    QStringList notes;
    const core::ComputeResult ids = findView(u"sequence")->data(state, &notes);
    QCOMPARE(ids.shape, (std::vector<std::size_t>{3, 19}));
}

void TestPatchGrid::refusedFiguresExitAsTheirData()
{
    // Issue 38 item 8: a patch grid of a sequence scheme (and a sequence of a grid scheme) is refused in every
    // format, as its CSV was, and writes no file (the SVG used to exit 0 with "Cannot draw the patch grid").
    QTemporaryDir dir;
    for (const char* viewName : {"patchgrid", "sequence"}) {
        WorkbenchState state;
        SpatialSetup s;
        if (QLatin1String(viewName) == QLatin1String("patchgrid")) {
            s.scheme = "mrope";
            s.dim = 128;
            s.patch = 1;
        }
        state.applySpatial(s); // no validation: the view names the problem
        Computation computation(&state);
        PatchGridView grid(&state, &computation);
        SequenceView sequence(&state, &computation);
        View& view = QLatin1String(viewName) == QLatin1String("patchgrid") ? static_cast<View&>(grid) : sequence;
        for (const char* ext : {"svg", "png", "pdf", "csv", "json"}) {
            ExportOptions o;
            const QString e = QLatin1String(ext);
            o.format = e == "svg" ? Format::Svg
                : e == "png"      ? Format::Png
                : e == "pdf"      ? Format::Pdf
                : e == "csv"      ? Format::Csv
                                  : Format::Json;
            const QString path = dir.filePath(QStringLiteral("%1.%2").arg(QLatin1String(viewName), e));
            const ExportResult r = ExportService::exportView(view, state, computation, o, path);
            QVERIFY2(r.failure == Failure::Usage, // exit 2 (exportcli), as the CSV always did
                     qPrintable(QStringLiteral("%1 %2: %3").arg(viewName, e, r.message)));
            QVERIFY2(!QFile::exists(path), qPrintable(path));
            QVERIFY2(r.message.contains(QLatin1String(viewName) == QLatin1String("patchgrid")
                                            ? QStringLiteral("mrope takes a token sequence, not a patch grid")
                                            : QStringLiteral("sincos_2d takes a patch grid, not a token sequence")),
                     qPrintable(r.message));
        }
    }
}

void TestPatchGrid::spatialFiguresNameTheirScheme()
{
    // Issue 38 item 8: the title and description of a patch grid or sequence figure name the spatial scheme it
    // draws, not the 1-D scheme ("Patch grid — RoPE" over a 2-D rotation).
    WorkbenchState state;
    SpatialSetup s;
    s.scheme = "rope_2d";
    s.params["variant"] = "mixed";
    QCOMPARE(state.setSpatial(s), QString());
    Computation computation(&state);
    PatchGridView grid(&state, &computation);
    QCOMPARE(state.schemeId(), QStringLiteral("rope"));
    const QString title = ExportService::defaultTitle(grid, state);
    QVERIFY2(title.startsWith(QStringLiteral("Patch grid \u2014 2-D RoPE")), qPrintable(title));
    QVERIFY2(title.contains(QStringLiteral("variant mixed")), qPrintable(title));
    const QString about = ExportService::describe(grid, state);
    QVERIFY2(about.startsWith(QStringLiteral("PosLab: scheme rope_2d, dimension 64, grid 14x14")), qPrintable(about));
    QVERIFY2(!about.contains(QStringLiteral("scheme rope,")), qPrintable(about));
    ExportOptions o;
    o.format = Format::Svg;
    QString why;
    const QByteArray svg = ExportService::renderSvg(grid, state, o, &why);
    QVERIFY2(!svg.isEmpty(), qPrintable(why));
    QVERIFY(svg.contains("<title>Patch grid \xe2\x80\x94 2-D RoPE"));
    QVERIFY(svg.contains("<desc>PosLab: scheme rope_2d,"));
    // The sequence view names M-RoPE and its variant; the 1-D views keep the 1-D scheme.
    SpatialSetup m;
    m.scheme = "mrope";
    m.dim = 128;
    m.params["variant"] = "qwen2_5_vl";
    m.patch = 2;
    QCOMPARE(state.setSpatial(m), QString());
    SequenceView sequence(&state, &computation);
    const QString seqTitle = ExportService::defaultTitle(sequence, state);
    QVERIFY2(seqTitle.startsWith(QStringLiteral("Mixed sequence \u2014 M-RoPE")), qPrintable(seqTitle));
    QVERIFY2(seqTitle.contains(QStringLiteral("variant qwen2_5_vl")), qPrintable(seqTitle));
    QVERIFY(ExportService::describe(sequence, state).contains(QStringLiteral("sequence text:4,image:1x3x4,text:3")));
    const ViewEntry* entry = findView(u"table");
    QVERIFY(entry);
    std::unique_ptr<View> table(entry->create(&state, &computation));
    QCOMPARE(ExportService::defaultTitle(*table, state), QStringLiteral("Encoding table \u2014 RoPE"));
}

void TestPatchGrid::aStateWithoutPatchSelectsTheMiddle()
{
    // Issue 38 item 8: a state that names a 4 x 4 grid and no patch selects the middle one (row 2, column 2)
    // instead of failing over the default 14 x 14 grid's patch 102.
    WorkbenchState state;
    QJsonObject json{{"scheme", "rope"}};
    json.insert("spatial", QJsonObject{{"scheme", "rope_2d"}, {"grid", "4x4"}});
    QCOMPARE(state.fromJson(json), QString());
    QCOMPARE(state.spatial().grid, (core::Grid{4, 4}));
    QCOMPARE(state.spatial().patch, 2 * 4 + 2);
    // A sequence scheme: its middle token, and mrope's own dimension (its default sections fit d = 128).
    json.insert("spatial", QJsonObject{{"scheme", "mrope"}});
    QCOMPARE(state.fromJson(json), QString());
    QCOMPARE(state.spatial().patch, 19 / 2);
    QCOMPARE(state.spatial().dim, 128);
    // A grid that holds the default patch keeps it (a share string leaves the default out), and both read back.
    json.insert("spatial", QJsonObject{{"scheme", "rope_2d"}, {"grid", "16x16"}});
    QCOMPARE(state.fromJson(json), QString());
    QCOMPARE(state.spatial().patch, 7 * 14 + 4);
    for (const SpatialSetup& s : {state.spatial()}) {
        SpatialSetup back;
        QCOMPARE(spatialFromJson(spatialToJson(s, true), &back), QString());
        QVERIFY(back == s);
    }
    SpatialSetup m64;
    m64.scheme = "mrope";
    m64.dim = 64;
    m64.params["mrope_section"] = "8,12,12";
    m64.patch = 3;
    SpatialSetup back;
    QCOMPARE(spatialFromJson(spatialToJson(m64, true), &back), QString());
    QVERIFY(back == m64);
    // A patch given out of range is still refused.
    json.insert("spatial", QJsonObject{{"grid", "4x4"}, {"patch", 16}});
    QVERIFY(state.fromJson(json).startsWith(QStringLiteral("spatial: spatial patch 16 is out of range")));
}

QTEST_MAIN(TestPatchGrid)
#include "tst_patchgrid.moc"
