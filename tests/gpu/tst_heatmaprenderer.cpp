// SPDX-License-Identifier: MIT
// The heatmap display shader against its CPU twin (the same value -> LUT index rule as
// ui/render/colormap.cpp matrixToImage), pixel for pixel, including zoom and pan.
#include "ui/gpu/heatmaprenderer.h"

#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QTest>

#include <cmath>

using namespace poslab;

class TestHeatmapRenderer : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void matchesCpuColourMapping();
    void zoomAndPanShowTheWindow();

private:
    QImage draw(const QRectF& window, QSize size);
    std::array<QRgb, 256> m_lut{};
    core::MatrixF m_values;
    QOpenGLContext m_context;
    QOffscreenSurface m_surface;
    std::unique_ptr<gpu::HeatmapRenderer> m_renderer;
};

void TestHeatmapRenderer::initTestCase()
{
    QSurfaceFormat fmt;
    fmt.setVersion(3, 3);
    fmt.setProfile(QSurfaceFormat::CoreProfile);
    m_context.setFormat(fmt);
    if (!m_context.create())
        QSKIP("no OpenGL context on this platform (run under Xvfb for the display shaders)");
    m_surface.setFormat(m_context.format());
    m_surface.create();
    if (!m_context.makeCurrent(&m_surface))
        QSKIP("the OpenGL context cannot be made current on an offscreen surface");
    if (m_context.format().version() < qMakePair(3, 3))
        QSKIP("the context is older than OpenGL 3.3");
    m_renderer = std::make_unique<gpu::HeatmapRenderer>();
    // With a 3.3 context, a shader that fails to compile is a bug, not a reason to skip.
    QVERIFY2(m_renderer->initialize(), qPrintable(m_renderer->errorString()));
    for (int i = 0; i < 256; ++i)
        m_lut[std::size_t(i)] = qRgb(i, 255 - i, (i * 7) % 256);
    m_values.resize(40, 24);
    for (Eigen::Index r = 0; r < m_values.rows(); ++r)
        for (Eigen::Index c = 0; c < m_values.cols(); ++c)
            m_values(r, c) = float(std::sin(0.3 * double(r)) * std::cos(0.2 * double(c)));
    m_renderer->setLookupTable(m_lut);
    m_renderer->setRange(-1.0, 1.0);
    QVERIFY(m_renderer->setValues(m_values));
}

void TestHeatmapRenderer::cleanupTestCase()
{
    if (m_context.isValid() && m_context.makeCurrent(&m_surface))
        m_renderer.reset();
}

QImage TestHeatmapRenderer::draw(const QRectF& window, QSize size)
{
    QOpenGLFramebufferObject fbo(size);
    fbo.bind();
    m_renderer->setWindow(window);
    m_renderer->paint(size.width(), size.height());
    fbo.release();
    return fbo.toImage().convertToFormat(QImage::Format_RGB32);
}

namespace {
QRgb cpuColour(float v, const std::array<QRgb, 256>& lut)
{
    float t = (v - -1.0f) * (255.0f / 2.0f) + 0.5f;
    t = t < 0.0f ? 0.0f : (t > 255.0f ? 255.0f : t);
    return lut[std::size_t(t)];
}
} // namespace

void TestHeatmapRenderer::matchesCpuColourMapping()
{
    // One pixel per cell: the image is the table.
    const QImage img = draw(QRectF(0, 0, 24, 40), QSize(24, 40));
    int mismatches = 0;
    for (int r = 0; r < 40; ++r)
        for (int c = 0; c < 24; ++c)
            if (img.pixel(c, r) != cpuColour(m_values(r, c), m_lut))
                ++mismatches;
    // A value exactly on an index boundary may round either way in float; allow a handful.
    QVERIFY2(mismatches <= 4, qPrintable(QString::number(mismatches)));
}

void TestHeatmapRenderer::zoomAndPanShowTheWindow()
{
    // Window of 6 x 10 cells starting at column 3, row 20, drawn at 4 pixels per cell.
    const QImage img = draw(QRectF(3, 20, 6, 10), QSize(24, 40));
    for (int r = 0; r < 10; ++r)
        for (int c = 0; c < 6; ++c)
            QCOMPARE(img.pixel(c * 4 + 2, r * 4 + 2), cpuColour(m_values(20 + r, 3 + c), m_lut));
    // Panned past the table's edge: the background shows.
    m_renderer->setBackground(QColor(1, 2, 3));
    const QImage out = draw(QRectF(20, 0, 8, 40), QSize(16, 40));
    QCOMPARE(out.pixel(14, 5), qRgb(1, 2, 3));
    QCOMPARE(out.pixel(1, 5), cpuColour(m_values(0 + 5 / 1, 20), m_lut));
}

QTEST_MAIN(TestHeatmapRenderer)
#include "tst_heatmaprenderer.moc"
