// SPDX-License-Identifier: MIT
// render-icons SVG SIZE OUT.png: draws an SVG at SIZE x SIZE pixels with QtSvg (transparent background)
// and writes a PNG. Used by scripts/render-icons.sh; not part of PosLab's build.
#include <QCoreApplication>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char** argv)
{
    QGuiApplication app(argc, argv);
    const QStringList a = app.arguments();
    bool ok = false;
    const int size = a.size() == 4 ? a[2].toInt(&ok) : 0;
    if (!ok || size < 1 || size > 4096) {
        std::fprintf(stderr, "usage: render-icons SVG SIZE OUT.png\n");
        return 2;
    }
    QSvgRenderer svg(a[1]);
    if (!svg.isValid()) {
        std::fprintf(stderr, "render-icons: %s is not an SVG QtSvg can draw\n", qPrintable(a[1]));
        return 1;
    }
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    svg.render(&p, QRectF(0, 0, size, size));
    p.end();
    if (!image.convertToFormat(QImage::Format_ARGB32).save(a[3], "PNG")) {
        std::fprintf(stderr, "render-icons: cannot write %s\n", qPrintable(a[3]));
        return 1;
    }
    return 0;
}
