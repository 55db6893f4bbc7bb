// SPDX-License-Identifier: MIT
// ExportService, the export dialog and `poslab export` (in-process): files are read back by independent
// readers (QSvgRenderer, QImageReader, the PDF's own MediaBox) and checked against the asked geometry.
#include "app/exportcli.h"
#include "tests/cli/clirun.h"
#include "ui/figures/computation.h"
#include "ui/export/exportdialog.h"
#include "ui/export/exportscene.h"
#include "ui/export/exportservice.h"
#include "ui/views/view.h"
#include "ui/state/workbenchstate.h"

#include <QFile>
#include <QImageReader>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

using namespace poslab;
using namespace poslab::exporting;

class TestExport : public QObject {
    Q_OBJECT
private slots:
    void svgHeatmapIsVectorWithOneNativeImage();
    void svgChartIsVector();
    void vectorOutputIsBounded();
    void pngSizeAndDpi();
    void pngTransparent();
    void pdfPageSize();
    void gifFrameCount();
    void gifParameterSweep();
    void dataOfViews();
    void batchReportsBadEntryAndWritesGoodOnes();
    void badPathsGiveClearErrorsAndNoFile();
    void failedExportKeepsOldFile();
    void dialogExportsAndPreviews();
    void lowDpiRenderIsTheWholeFigureScaledDown();

private:
    int cli(const QStringList& args, QString* err = nullptr, QString* out = nullptr);
    QTemporaryDir m_dir;
};

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// A scene with @p scheme, @p dim and @p positions.
std::unique_ptr<ExportScene> scene(const QString& scheme, int dim = 64, int positions = 256)
{
    auto s = std::make_unique<ExportScene>();
    ui::Setup setup;
    setup.scheme = scheme.toStdString();
    setup.params = core::defaultParams(*core::findScheme(setup.scheme));
    setup.dim = dim;
    setup.positionCount = positions;
    s->state().applySetup(setup);
    ui::ViewOptions o = s->state().viewOptions();
    o.attentionSize = std::min(positions, 128);
    s->state().setViewOptions(o);
    return s;
}

} // namespace

int TestExport::cli(const QStringList& args, QString* err, QString* out)
{
    const test::Run r = test::runExportList(args);
    if (err)
        *err = test::errText(r);
    if (out)
        *out = test::outText(r);
    return r.status;
}

void TestExport::svgHeatmapIsVectorWithOneNativeImage()
{
    auto s = scene(QStringLiteral("sinusoidal"), 64, 256);
    ui::View* v = s->view(QStringLiteral("table"));
    QVERIFY(v);
    settle(s->computation());
    ExportOptions o;
    o.format = Format::Svg;
    o.size = QSizeF(800, 600);
    QString why;
    const QByteArray svg = ExportService::renderSvg(*v, s->state(), o, &why);
    QVERIFY2(!svg.isEmpty(), qPrintable(why));
    QVERIFY(svg.contains("<text"));
    QVERIFY(svg.contains("<path"));
    QVERIFY(svg.contains("viewBox=\"0 0 800 600\""));
    QVERIFY(svg.contains("width=\"211.667mm\" height=\"158.750mm\"")); // 800 px at 96 DPI
    QVERIFY(svg.contains("<title>Encoding table"));
    // Exactly one embedded image, sharp at the figure's size: d = 64 columns x 256 positions resampled to
    // (twice) the plot's pixels, not one pixel per cell that a viewer would blur.
    QCOMPARE(svg.count("<image"), 1);
    const auto m = QRegularExpression(QStringLiteral("base64,([A-Za-z0-9+/=]+)")).match(QString::fromLatin1(svg));
    QVERIFY(m.hasMatch());
    const QImage embedded = QImage::fromData(QByteArray::fromBase64(m.captured(1).toLatin1()), "PNG");
    QVERIFY(embedded.width() > 4 * 64 && embedded.height() > 256);
    QSvgRenderer r(svg);
    QVERIFY(r.isValid());
    QCOMPARE(r.viewBoxF(), QRectF(0, 0, 800, 600));
}

void TestExport::vectorOutputIsBounded()
{
    // An SVG or PDF is bounded by the bytes its drawing writes (its elements), refused past
    // the limit instead of growing in memory; and the table's embedded heatmap (twice the plot's size) is
    // refused before drawing when it would pass the raster cap.
    auto s = scene(QStringLiteral("sinusoidal"), 64, 256);
    ui::View* v = s->view(QStringLiteral("table"));
    QVERIFY(v);
    settle(s->computation());
    ExportOptions o;
    o.format = Format::Svg;
    o.size = QSizeF(800, 600);
    QString why;
    QVERIFY(!ExportService::renderSvg(*v, s->state(), o, &why).isEmpty());
    o.vectorByteLimit = 16 << 10;
    QVERIFY(ExportService::renderSvg(*v, s->state(), o, &why).isEmpty());
    QCOMPARE(why,
             QStringLiteral("a 800 x 600 SVG figure of this view would be more than 16.0 KiB (too many elements); "
                            "ask for fewer positions or dimensions, or a PNG"));
    o.format = Format::Pdf;
    QVERIFY(ExportService::renderPdf(*v, s->state(), o, &why).isEmpty());
    QVERIFY2(why.startsWith(QStringLiteral("a 800 x 600 PDF figure of this view would be more than 16.0 KiB")),
             qPrintable(why));
    // The heatmap: 8000 x 8000 embeds about 16000 x 16000 pixels, 976 MiB.
    o.format = Format::Svg;
    o.vectorByteLimit = maxVectorBytes;
    o.size = QSizeF(8000, 8000);
    QVERIFY(v->svgImageBytes(QSizeF(8000, 8000)) > double(maxRasterBytes));
    QVERIFY(ExportService::renderSvg(*v, s->state(), o, &why).isEmpty());
    QVERIFY2(why.startsWith(QStringLiteral("a 8000 x 8000 SVG figure of the table view embeds images of ")),
             qPrintable(why));
}

void TestExport::svgChartIsVector()
{
    auto s = scene(QStringLiteral("rope"), 64, 512);
    ui::View* v = s->view(QStringLiteral("decay"));
    QVERIFY(v);
    ExportOptions o;
    o.format = Format::Svg;
    o.size = QSizeF(12, 8);
    o.unit = SizeUnit::Centimetres;
    o.dpi = 300;
    const QByteArray svg = ExportService::renderSvg(*v, s->state(), o);
    QVERIFY(svg.contains("<text"));
    QVERIFY(svg.contains("<path") || svg.contains("<polyline"));
    QVERIFY(!svg.contains("<image")); // curves are paths, not a picture of them
    // 12 x 8 cm at 300 DPI = 1417 x 945 px; the viewBox is in 1/96 in.
    QVERIFY(svg.contains("width=\"119.973mm\" height=\"80.010mm\""));
    QSvgRenderer r(svg);
    QVERIFY(r.isValid());
    QVERIFY(std::abs(r.viewBoxF().width() - 1417 * 96.0 / 300) < 0.01);
}

void TestExport::pngSizeAndDpi()
{
    const QString path = m_dir.filePath(QStringLiteral("table.png"));
    QString err;
    QCOMPARE(cli({"export", "table", "--scheme", "rope", "--dim", "64", "--positions", "128", "--size", "12x8cm",
                  "--dpi", "300", "-o", path},
                 &err),
             0);
    QImageReader reader(path);
    const QImage img = reader.read();
    QCOMPARE(img.size(), QSize(1417, 945));
    QCOMPARE(img.dotsPerMeterX(), 11811); // 300 DPI
    QCOMPARE(img.dotsPerMeterY(), 11811);
    QVERIFY(img.text(QStringLiteral("Title")).contains(QStringLiteral("Encoding table")));

    const QString px = m_dir.filePath(QStringLiteral("attention.png"));
    QCOMPARE(cli({"attention", "--scheme", "alibi", "--positions", "64", "--softmax", "--size", "640x480", "-o", px}),
             0);
    const QImage a(px);
    QCOMPARE(a.size(), QSize(640, 480));
    QCOMPARE(a.dotsPerMeterX(), 3780); // 96 DPI
}

void TestExport::pngTransparent()
{
    const QString path = m_dir.filePath(QStringLiteral("transparent.png"));
    QCOMPARE(cli({"clock", "--scheme", "rope", "--size", "400x300", "--theme", "transparent", "-o", path}), 0);
    const QImage img(path);
    QVERIFY(img.hasAlphaChannel());
    QCOMPARE(qAlpha(img.pixel(1, img.height() - 2)), 0);
    const QString opaque = m_dir.filePath(QStringLiteral("opaque.png"));
    QCOMPARE(cli({"clock", "--scheme", "rope", "--size", "400x300", "--theme", "dark", "-o", opaque}), 0);
    QCOMPARE(qAlpha(QImage(opaque).pixel(1, 1)), 255);
}

void TestExport::pdfPageSize()
{
    const QString path = m_dir.filePath(QStringLiteral("rotation.pdf"));
    QString err;
    QCOMPARE(cli({"rotation", "--scheme", "rope", "--size", "10x5cm", "--dpi", "300", "-o", path}, &err), 0);
    const QByteArray pdf = readAll(path);
    QVERIFY(pdf.startsWith("%PDF"));
    const auto m = QRegularExpression(QStringLiteral("/MediaBox \\[\\s*0 0 ([0-9.]+) ([0-9.]+)\\s*\\]"))
                       .match(QString::fromLatin1(pdf));
    QVERIFY(m.hasMatch());
    // 10 x 5 cm = 283.46 x 141.73 pt (the pixel size rounds to 1181 x 591 at 300 DPI).
    QVERIFY2(std::abs(m.captured(1).toDouble() - 283.46) < 1.0, qPrintable(m.captured(0)));
    QVERIFY2(std::abs(m.captured(2).toDouble() - 141.73) < 1.0, qPrintable(m.captured(0)));
}

void TestExport::gifFrameCount()
{
    const QString path = m_dir.filePath(QStringLiteral("clock.gif"));
    QString err;
    QCOMPARE(cli({"clock", "--scheme", "rope", "--size", "320x240", "--frames", "7", "--fps", "10", "--animate",
                  "position", "--from", "0", "--to", "12", "-o", path},
                 &err),
             0);
    QImageReader reader(path);
    QCOMPARE(reader.imageCount(), 7);
    QCOMPARE(reader.size(), QSize(320, 240));
}

void TestExport::gifParameterSweep()
{
    const QString path = m_dir.filePath(QStringLiteral("theta.gif"));
    QString err;
    QCOMPARE(cli({"decay", "--scheme", "rope", "--size", "320x240", "--frames", "4", "--animate", "rope_theta",
                  "--from", "100", "--to", "1000000", "-o", path},
                 &err),
             0);
    QCOMPARE(QImageReader(path).imageCount(), 4);
    // A choice cannot be swept; the message says what can.
    QCOMPARE(cli({"decay", "--scheme", "rope", "--frames", "3", "--animate", "nonsense", "--to", "3", "-o",
                  m_dir.filePath(QStringLiteral("x.gif"))},
                 &err),
             2);
    QVERIFY2(err.contains(QStringLiteral("cannot animate 'nonsense'")), qPrintable(err));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("x.gif"))));
}

void TestExport::dataOfViews()
{
    const QString csv = m_dir.filePath(QStringLiteral("decay.csv"));
    QCOMPARE(cli({"decay", "--scheme", "rope", "--positions", "64", "-o", csv}), 0);
    const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
    QVERIFY(lines.size() > 10);
    const QString npy = m_dir.filePath(QStringLiteral("table.npy"));
    QCOMPARE(cli({"table", "--scheme", "sinusoidal", "--dim", "16", "--positions", "8", "-o", npy}), 0);
    const QByteArray n = readAll(npy);
    QVERIFY(n.startsWith("\x93NUMPY"));
    QVERIFY(n.contains("'shape': (8, 16)"));
    const QString json = m_dir.filePath(QStringLiteral("attention.json"));
    QCOMPARE(cli({"attention", "--scheme", "alibi", "--positions", "8", "--heads", "2", "--softmax", "-o", json}), 0);
    QVERIFY(readAll(json).contains("\"shape\": [2, 8, 8]") || readAll(json).contains("\"shape\":[2,8,8]"));
}

void TestExport::batchReportsBadEntryAndWritesGoodOnes()
{
    QTemporaryDir deck;
    QFile batch(deck.filePath(QStringLiteral("deck.json")));
    QVERIFY(batch.open(QIODevice::WriteOnly));
    batch.write(R"({
      "defaults": {"size": "480x320", "dim": 64, "positions": 128},
      "figures": [
        {"view": "table", "scheme": "rope", "set": {"rope_theta": 500000}, "output": "table.svg"},
        {"view": "clock", "scheme": "rope", "theme": "dark", "font_scale": 1.5, "output": "clock.png"},
        {"view": "table", "scheme": "no-such-scheme", "output": "bad.svg"},
        {"view": "attention", "scheme": "alibi", "softmax": true, "output": "attention.pdf"},
        {"view": "rotation", "scheme": "rope", "output": "nofolder/rotation.png"}
      ]})");
    batch.close();
    QString err, out;
    QCOMPARE(cli({"export", "--batch", batch.fileName()}, &err, &out), 1);
    QVERIFY2(err.contains(QStringLiteral("entry 3 (bad.svg): unknown scheme 'no-such-scheme'")), qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("entry 5 (nofolder/rotation.png): cannot write")), qPrintable(err));
    QVERIFY(err.contains(QStringLiteral("2 of 5 figures failed")));
    for (const char* good : {"table.svg", "clock.png", "attention.pdf"})
        QVERIFY2(QFile::exists(deck.filePath(QLatin1String(good))), good);
    QVERIFY(!QFile::exists(deck.filePath(QStringLiteral("bad.svg"))));
    const QByteArray table = readAll(deck.filePath(QStringLiteral("table.svg")));
    QVERIFY(table.contains("rope_theta=500000") || table.contains("rope_theta=5e+05"));
    QCOMPARE(QImage(deck.filePath(QStringLiteral("clock.png"))).size(), QSize(480, 320));
    QVERIFY(out.contains(QStringLiteral("wrote")));
    // An unreadable batch file is a usage error.
    QCOMPARE(cli({"export", "--batch", deck.filePath(QStringLiteral("missing.json"))}, &err), 2);
    QVERIFY(err.startsWith(QStringLiteral("poslab: cannot read batch file")));
}

void TestExport::badPathsGiveClearErrorsAndNoFile()
{
    QString err;
    QCOMPARE(cli({"table", "--scheme", "rope", "-o", "/no/such/folder/t.png"}, &err), 2);
    QCOMPARE(err,
             QStringLiteral("poslab: cannot write /no/such/folder/t.png: folder /no/such/folder does not exist\n"));
    const QString bmp = m_dir.filePath(QStringLiteral("t.bmp"));
    QCOMPARE(cli({"table", "--scheme", "rope", "-o", bmp}, &err), 2);
    QVERIFY(err.contains(QStringLiteral("cannot tell the format")));
    QVERIFY(!QFile::exists(bmp));
    QCOMPARE(cli({"table", "--scheme", "rope", "-o", m_dir.path() + QStringLiteral("/")}, &err), 2);
    const QString big = m_dir.filePath(QStringLiteral("big.png"));
    QCOMPARE(cli({"table", "--scheme", "rope", "--size", "20000x1000", "-o", big}, &err), 1);
    QVERIFY(err.contains(QStringLiteral("too large; at most 16384 pixels a side")));
    QVERIFY(!QFile::exists(big));
    QCOMPARE(cli({"table", "--scheme", "rope", "--size", "100cmx2", "-o", big}, &err), 2);
    QCOMPARE(cli({"rotation", "--scheme", "sinusoidal", "-o", big}, &err), 1);
    QVERIFY(err.contains(QStringLiteral("nothing to show")));
    QVERIFY(!QFile::exists(big));
    QCOMPARE(cli({"nosuchview", "--scheme", "rope", "-o", big}, &err), 2);
    QVERIFY(err.contains(QStringLiteral("views: table, clock, rotation, decay, attention")));
    QCOMPARE(err.count(QLatin1Char('\n')), 1); // one line
    // Nothing but the asked files: no temporary left behind by QSaveFile.
    for (const QString& f : QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden))
        QVERIFY2(!f.contains(QStringLiteral(".tmp")) && !f.startsWith(QLatin1Char('.')), qPrintable(f));
}

void TestExport::failedExportKeepsOldFile()
{
    const QString path = m_dir.filePath(QStringLiteral("keep.gif"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("old");
    f.close();
    QString err;
    // 1000 frames of 4000 x 4000 would need 61 GiB: refused before any drawing, the old file stays.
    QCOMPARE(cli({"clock", "--scheme", "rope", "--size", "4000x4000", "--frames", "1000", "-o", path}, &err), 1);
    QVERIFY(err.contains(QStringLiteral("MiB")));
    QCOMPARE(readAll(path), QByteArray("old"));
}

void TestExport::dialogExportsAndPreviews()
{
    auto s = scene(QStringLiteral("rope"), 64, 256);
    std::vector<ui::View*> views;
    for (const QString& name : ExportScene::viewNames())
        views.push_back(s->view(name));
    ExportDialog dialog(&s->state(), &s->computation(), views.front(), views);
    dialog.updatePreview();
    QVERIFY(!dialog.preview().isNull());
    dialog.setPath(m_dir.filePath(QStringLiteral("dialog.pdf")));
    QCOMPARE(dialog.options().format, Format::Pdf);
    QVERIFY(dialog.exportNow().isEmpty());
    QVERIFY(readAll(m_dir.filePath(QStringLiteral("dialog.pdf"))).startsWith("%PDF"));
    // All views: one file each, named after the view.
    dialog.setAllViews(true);
    dialog.setPath(m_dir.filePath(QStringLiteral("deck.svg")));
    QVERIFY(dialog.exportNow().isEmpty());
    // Every view that has something for RoPE (not the buckets view, and not the mixed sequence view, which has
    // nothing to draw for the default spatial set-up's grid scheme: its figure is refused, issue 38 item 8).
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("deck-sequence.svg"))));
    for (std::size_t i = 0; i < views.size(); ++i)
        if (views[i]->isApplicable() && views[i]->computeError().isEmpty())
            QVERIFY2(QFile::exists(
                         m_dir.filePath(QStringLiteral("deck-%1.svg").arg(ExportScene::viewNames()[qsizetype(i)]))),
                     qPrintable(ExportScene::viewNames()[qsizetype(i)]));
    // The window's state is untouched by a dark export.
    QCOMPARE(s->state().viewOptions().theme, ui::ThemeKind::Light);
}

void TestExport::lowDpiRenderIsTheWholeFigureScaledDown()
{
    // The preview renders the same logical layout into fewer pixels (DPI below 96): it must be the whole
    // figure scaled down, not its top-left corner at full size.
    auto s = scene(QStringLiteral("sinusoidal"), 64, 256);
    ui::View* table = s->view(QStringLiteral("table"));
    ExportOptions full;
    full.size = QSizeF(1200, 800);
    full.dpi = 96;
    ExportOptions small = full;
    small.size = QSizeF(300, 200);
    small.dpi = 24;
    const QImage big = ExportService::renderImage(*table, s->state(), full);
    const QImage little = ExportService::renderImage(*table, s->state(), small);
    QCOMPARE(little.size(), QSize(300, 200));
    const QImage reference = big.scaled(300, 200, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    double diff = 0;
    for (int y = 0; y < 200; ++y)
        for (int x = 0; x < 300; ++x) {
            const QRgb a = little.pixel(x, y), b = reference.pixel(x, y);
            diff += std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b));
        }
    diff /= 300.0 * 200.0 * 3.0;
    QVERIFY2(diff < 25.0, qPrintable(QString("mean difference %1 levels").arg(diff)));
}

QTEST_MAIN(TestExport)
#include "tst_export.moc"
