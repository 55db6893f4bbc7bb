// SPDX-License-Identifier: MIT
#pragma once
/// @file heatmaprenderer.h
/// GL objects that draw a float table colour-mapped on the GPU (shaders/heatmap.vert, heatmap.frag), with
/// zoom and pan as uniforms. A QOpenGLWidget only forwards its lifecycle to this class (initialize(),
/// paint()), as in Qt's cube example; tests drive it on an offscreen surface. The CPU twin is
/// ui/render/colormap.cpp matrixToImage.

#include "core/types.h"

#include <QColor>
#include <QRectF>
#include <QRgb>
#include <QString>

#include <array>
#include <memory>

namespace poslab::gpu {

class HeatmapRenderer {
public:
    HeatmapRenderer();
    ~HeatmapRenderer(); ///< the owner makes the context current before destroying it

    /// Compiles the shaders in the current context. False (and errorString()) without OpenGL 3.3.
    bool initialize();
    QString errorString() const { return m_error; }

    /// Largest table side the texture can hold (GL_MAX_TEXTURE_SIZE); bigger tables must be sampled first.
    int maxTextureSize() const;

    /// Uploads rows x cols values. False when a side exceeds maxTextureSize().
    bool setValues(const core::MatrixF& values);
    void setLookupTable(const std::array<QRgb, 256>& lut);
    void setRange(double lo, double hi);
    /// The part of the table to show, in cells: x = columns, y = rows.
    void setWindow(const QRectF& window);
    void setBackground(const QColor& c);

    /// Draws into the current framebuffer's viewport of @c size device pixels.
    void paint(int width, int height);

private:
    struct Gl;
    std::unique_ptr<Gl> d;
    QString m_error;
};

} // namespace poslab::gpu
