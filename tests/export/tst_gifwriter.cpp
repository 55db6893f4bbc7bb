// SPDX-License-Identifier: MIT
// The GIF encoder, read back by Qt's own GIF decoder (an independent implementation).
#include "ui/export/gifwriter.h"

#include <QBuffer>
#include <QImageReader>
#include <QPainter>
#include <QTest>

using namespace poslab::exporting;

class TestGifWriter : public QObject {
    Q_OBJECT
private slots:
    void framesDelayAndLoopReadBack();
    void coloursSurviveQuantisation();
    void mismatchedFrameIsRefused();
    void noFramesIsRefused();
};

namespace {
QImage frame(int i, QSize size = {120, 80})
{
    QImage img(size, QImage::Format_ARGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setBrush(QColor::fromHsv((i * 40) % 360, 200, 220));
    p.drawEllipse(QPoint(20 + 15 * i, 40), 15, 15);
    return img;
}
} // namespace

void TestGifWriter::framesDelayAndLoopReadBack()
{
    QList<QImage> frames;
    for (int i = 0; i < 6; ++i)
        frames << frame(i);
    QString error;
    GifOptions options;
    options.framesPerSecond = 10.0;
    options.loopCount = 0;
    QByteArray gif = encodeGif(frames, options, &error);
    QVERIFY2(!gif.isEmpty(), qPrintable(error));
    QVERIFY(gif.startsWith("GIF89a"));
    QBuffer buffer(&gif);
    QImageReader reader(&buffer, "gif");
    QVERIFY(reader.canRead());
    QCOMPARE(reader.imageCount(), 6);
    QCOMPARE(reader.size(), QSize(120, 80));
    QCOMPARE(reader.loopCount(), -1); // Qt reports "forever" as -1
    QImage first = reader.read();
    QCOMPARE(reader.nextImageDelay(), 100); // 10 fps = 10 cs = 100 ms
    QCOMPARE(first.size(), QSize(120, 80));
    QCOMPARE(gifDelayCentiseconds(12.0), 8);
    QCOMPARE(gifDelayCentiseconds(1000.0), 2);
}

void TestGifWriter::coloursSurviveQuantisation()
{
    QImage img(64, 32, QImage::Format_RGB32);
    img.fill(QColor(30, 120, 200));
    for (int x = 32; x < 64; ++x)
        for (int y = 0; y < 32; ++y)
            img.setPixelColor(x, y, QColor(250, 200, 10));
    QString error;
    QByteArray gif = encodeGif({img}, {}, &error);
    QBuffer buffer(&gif);
    QImageReader reader(&buffer, "gif");
    const QImage back = reader.read();
    QVERIFY(!back.isNull());
    // Median cut on two colours keeps both within a few levels.
    const QColor a = back.pixelColor(5, 5);
    const QColor b = back.pixelColor(50, 20);
    QVERIFY2(std::abs(a.red() - 30) <= 8 && std::abs(a.green() - 120) <= 8 && std::abs(a.blue() - 200) <= 8,
             qPrintable(a.name()));
    QVERIFY2(std::abs(b.red() - 250) <= 8 && std::abs(b.green() - 200) <= 8 && std::abs(b.blue() - 10) <= 8,
             qPrintable(b.name()));
}

void TestGifWriter::mismatchedFrameIsRefused()
{
    QString error;
    const QByteArray gif = encodeGif({frame(0), frame(1, {60, 60})}, {}, &error);
    QVERIFY(gif.isEmpty());
    QVERIFY2(error.contains("frame 2"), qPrintable(error));
}

void TestGifWriter::noFramesIsRefused()
{
    QString error;
    QVERIFY(encodeGif({}, {}, &error).isEmpty());
    QVERIFY(error.contains("at least one frame"));
}

QTEST_GUILESS_MAIN(TestGifWriter)
#include "tst_gifwriter.moc"
