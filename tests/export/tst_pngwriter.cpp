// SPDX-License-Identifier: MIT
// The figure PNG writer (ui/export/pngwriter): what it writes decodes, through Qt's libpng reader, to exactly
// the pixels given, whatever the number of parallel bands; text and pHYs chunks read back (PNG 1.2,
// https://www.w3.org/TR/png/ sections 11.3.4.3 tEXt, 11.3.4.5 iTXt, 11.3.5.3 pHYs).
#include "ui/export/pngwriter.h"

#include <QBuffer>
#include <QImageReader>
#include <QPainter>
#include <QRandomGenerator>
#include <QtTest>

using namespace poslab::exporting;

namespace {

QImage figureLike(QSize size, bool alpha)
{
    QImage img(size, alpha ? QImage::Format_ARGB32_Premultiplied : QImage::Format_RGB32);
    img.fill(alpha ? QColor(Qt::transparent) : QColor(Qt::white));
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    QLinearGradient g(0, 0, size.width(), size.height());
    g.setColorAt(0, QColor(20, 40, 200, alpha ? 120 : 255));
    g.setColorAt(1, QColor(250, 200, 10));
    p.fillRect(QRect(10, 10, size.width() / 2, size.height() / 2), g);
    p.setPen(QPen(Qt::black, 2.5));
    p.drawEllipse(QRectF(size.width() * 0.3, size.height() * 0.3, size.width() * 0.5, size.height() * 0.4));
    p.drawText(QRect(0, 0, size.width(), size.height()), Qt::AlignCenter, QStringLiteral("θ = 10⁴ · pair 63"));
    p.end();
    // Noise on a few rows, so a wrong band boundary or a lost row cannot go unnoticed.
    QRandomGenerator rng(7);
    for (int y = 0; y < size.height(); y += 37)
        for (int x = 0; x < size.width(); ++x)
            img.setPixel(x, y,
                         alpha ? qPremultiply(qRgba(rng.bounded(256), rng.bounded(256), rng.bounded(256), 255))
                               : qRgb(rng.bounded(256), rng.bounded(256), rng.bounded(256)));
    return img;
}

QImage decode(const QByteArray& png)
{
    QBuffer buffer;
    buffer.setData(png);
    buffer.open(QIODevice::ReadOnly);
    QImageReader reader(&buffer, "png");
    QImage out = reader.read();
    if (out.isNull())
        qWarning() << "decode failed:" << reader.errorString();
    return out;
}

} // namespace

class TstPngWriter : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("alpha");
        QTest::addColumn<int>("threads");
        QTest::newRow("opaque, 1 band") << QSize(301, 203) << false << 1;
        QTest::newRow("opaque, 2 bands") << QSize(301, 203) << false << 2;
        QTest::newRow("opaque, 8 bands") << QSize(1200, 800) << false << 8;
        QTest::newRow("alpha, 3 bands") << QSize(640, 480) << true << 3;
        QTest::newRow("one pixel") << QSize(1, 1) << false << 4;
        QTest::newRow("one column") << QSize(1, 700) << false << 4;
    }
    void roundTrip()
    {
        QFETCH(QSize, size);
        QFETCH(bool, alpha);
        QFETCH(int, threads);
        const QImage img = figureLike(size, alpha);
        PngOptions o;
        o.threads = threads;
        QString error;
        const QByteArray png = encodePng(img, o, &error);
        QVERIFY2(!png.isEmpty(), qPrintable(error));
        const QImage back = decode(png);
        QCOMPARE(back.size(), size);
        QCOMPARE(back.hasAlphaChannel(), alpha);
        // Straight alpha in the file: compare un-premultiplied colours, pixel for pixel.
        const QImage want = img.convertToFormat(alpha ? QImage::Format_RGBA8888 : QImage::Format_RGB888);
        const QImage got = back.convertToFormat(want.format());
        for (int y = 0; y < size.height(); ++y)
            QVERIFY2(
                std::memcmp(want.constScanLine(y), got.constScanLine(y), std::size_t(size.width()) * (alpha ? 4 : 3))
                    == 0,
                qPrintable(QStringLiteral("row %1 differs").arg(y)));
    }
    void bandsGiveTheSamePixelsAndAComparableSize()
    {
        const QImage img = figureLike(QSize(1200, 800), false);
        PngOptions one, two;
        one.threads = 1;
        two.threads = 2;
        const QByteArray a = encodePng(img, one), b = encodePng(img, two);
        QCOMPARE(decode(a), decode(b));
        // Each band restarts the deflate window: a few hundred bytes more, not a different order of size.
        QVERIFY2(b.size() < a.size() * 1.05 + 1024, qPrintable(QStringLiteral("%1 vs %2").arg(b.size()).arg(a.size())));
    }
    void textAndResolutionReadBack()
    {
        QImage img = figureLike(QSize(200, 100), false);
        img.setDotsPerMeterX(5669); // 144 DPI
        img.setDotsPerMeterY(5669);
        PngOptions o;
        const QString title = QStringLiteral("Llama 3.1 8B · RoPE · θ = 500000"); // '·' is Latin-1, 'θ' is not
        const QString link = QStringLiteral("poslab:PL2.abc-_xyz & <b>");
        o.text = {{QStringLiteral("Title"), title},
                  {QStringLiteral("Description"), link},
                  {QStringLiteral("Software"), QStringLiteral("PosLab")}};
        const QByteArray png = encodePng(img, o);
        QVERIFY(png.contains("iTXtTitle")); // outside Latin-1: international text
        QVERIFY(png.contains("tEXtDescription"));
        const QImage back = decode(png);
        QCOMPARE(back.text(QStringLiteral("Title")), title);
        QCOMPARE(back.text(QStringLiteral("Description")), link);
        QCOMPARE(back.text(QStringLiteral("Software")), QStringLiteral("PosLab"));
        QCOMPARE(back.dotsPerMeterX(), 5669);
        QCOMPARE(back.dotsPerMeterY(), 5669);
    }
    void refusesWhatItCannotWrite()
    {
        QString error;
        QVERIFY(encodePng(QImage(), {}, &error).isEmpty());
        QVERIFY(error.contains(QStringLiteral("empty")));
        PngOptions o;
        o.text = {{QStringLiteral(" Title"), QStringLiteral("x")}};
        QVERIFY(encodePng(figureLike(QSize(4, 4), false), o, &error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("' Title'")), qPrintable(error));
    }
};

QTEST_MAIN(TstPngWriter)
#include "tst_pngwriter.moc"
