// SPDX-License-Identifier: MIT
#include "ui/gpu/heatmaprenderer.h"

#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QVector2D>
#include <QVector4D>

#include <vector>

namespace poslab::gpu {

struct HeatmapRenderer::Gl {
    QOpenGLShaderProgram program;
    QOpenGLVertexArrayObject vao;
    GLuint values = 0;
    GLuint lut = 0;
    int rows = 0;
    int cols = 0;
    float lo = 0.0f;
    float hi = 1.0f;
    QRectF window{0, 0, 1, 1};
    QColor background = Qt::white;
    QOpenGLExtraFunctions* f = nullptr;
};

HeatmapRenderer::HeatmapRenderer()
    : d(std::make_unique<Gl>())
{ }

HeatmapRenderer::~HeatmapRenderer()
{
    if (d->f && QOpenGLContext::currentContext()) {
        if (d->values)
            d->f->glDeleteTextures(1, &d->values);
        if (d->lut)
            d->f->glDeleteTextures(1, &d->lut);
    }
}

bool HeatmapRenderer::initialize()
{
    QOpenGLContext* ctx = QOpenGLContext::currentContext();
    if (!ctx) {
        m_error = QStringLiteral("no current OpenGL context");
        return false;
    }
    const QSurfaceFormat fmt = ctx->format();
    if (ctx->isOpenGLES() || fmt.version() < qMakePair(3, 3)) {
        m_error = QStringLiteral("the heatmap shaders need OpenGL 3.3; this context is %1.%2")
                      .arg(fmt.majorVersion())
                      .arg(fmt.minorVersion());
        return false;
    }
    d->f = ctx->extraFunctions();
    if (!d->program.addShaderFromSourceFile(QOpenGLShader::Vertex, QStringLiteral(":/shaders/heatmap.vert"))
        || !d->program.addShaderFromSourceFile(QOpenGLShader::Fragment, QStringLiteral(":/shaders/heatmap.frag"))
        || !d->program.link()) {
        m_error = QStringLiteral("heatmap shaders: ") + d->program.log();
        return false;
    }
    d->vao.create();
    d->f->glGenTextures(1, &d->values);
    d->f->glGenTextures(1, &d->lut);
    for (GLuint t : {d->values, d->lut}) {
        d->f->glBindTexture(GL_TEXTURE_2D, t);
        d->f->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        d->f->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        d->f->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        d->f->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
    return true;
}

int HeatmapRenderer::maxTextureSize() const
{
    GLint n = 0;
    if (d->f)
        d->f->glGetIntegerv(GL_MAX_TEXTURE_SIZE, &n);
    return n;
}

bool HeatmapRenderer::setValues(const core::MatrixF& values)
{
    const int max = maxTextureSize();
    if (values.rows() > max || values.cols() > max || values.size() == 0)
        return false;
    d->rows = int(values.rows());
    d->cols = int(values.cols());
    d->f->glBindTexture(GL_TEXTURE_2D, d->values);
    d->f->glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    // Row-major rows x cols is exactly a cols-wide, rows-high R32F image: a straight upload.
    d->f->glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, d->cols, d->rows, 0, GL_RED, GL_FLOAT, values.data());
    return true;
}

void HeatmapRenderer::setLookupTable(const std::array<QRgb, 256>& lut)
{
    std::vector<unsigned char> rgba(256 * 4);
    for (int i = 0; i < 256; ++i) {
        rgba[std::size_t(4 * i)] = (unsigned char)qRed(lut[std::size_t(i)]);
        rgba[std::size_t(4 * i + 1)] = (unsigned char)qGreen(lut[std::size_t(i)]);
        rgba[std::size_t(4 * i + 2)] = (unsigned char)qBlue(lut[std::size_t(i)]);
        rgba[std::size_t(4 * i + 3)] = 255;
    }
    d->f->glBindTexture(GL_TEXTURE_2D, d->lut);
    d->f->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
}

void HeatmapRenderer::setRange(double lo, double hi)
{
    d->lo = float(lo);
    d->hi = float(hi);
}

void HeatmapRenderer::setWindow(const QRectF& window)
{
    d->window = window;
}
void HeatmapRenderer::setBackground(const QColor& c)
{
    d->background = c;
}

void HeatmapRenderer::paint(int width, int height)
{
    auto* f = d->f;
    f->glViewport(0, 0, width, height);
    f->glClearColor(d->background.redF(), d->background.greenF(), d->background.blueF(), 1.0f);
    f->glClear(GL_COLOR_BUFFER_BIT);
    if (d->rows == 0)
        return;
    d->program.bind();
    f->glActiveTexture(GL_TEXTURE0);
    f->glBindTexture(GL_TEXTURE_2D, d->values);
    f->glActiveTexture(GL_TEXTURE1);
    f->glBindTexture(GL_TEXTURE_2D, d->lut);
    d->program.setUniformValue("uValues", 0);
    d->program.setUniformValue("uLut", 1);
    d->program.setUniformValue("uRange", QVector2D(d->lo, d->hi));
    d->program.setUniformValue(
        "uWindow",
        QVector4D(float(d->window.x()), float(d->window.y()), float(d->window.width()), float(d->window.height())));
    d->program.setUniformValue("uTableSize", QVector2D(float(d->cols), float(d->rows)));
    d->program.setUniformValue("uBackground", d->background);
    d->vao.bind();
    f->glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    d->vao.release();
    d->program.release();
}

} // namespace poslab::gpu
