// SPDX-License-Identifier: MIT
#pragma once
/// @file colormap.h
/// Colour maps for heatmaps (Qt::Gui only): perceptually uniform sequential maps (viridis, cividis) and a
/// colour-blind-safe diverging map (ColorBrewer RdBu, blue for negative, red for positive), plus the fill
/// of a row-major float matrix into a QImage.

#include "core/types.h"

#include <QColor>
#include <QImage>
#include <QString>

#include <array>

namespace poslab::ui {

/// Which map to use.
enum class ColorMapKind {
    Viridis,   ///< sequential, perceptually uniform (matplotlib's default)
    Cividis,   ///< sequential, designed for colour-vision deficiency
    Diverging, ///< ColorBrewer RdBu reversed: negative blue, zero near-white, positive red
};

QString colorMapName(ColorMapKind kind);

/// A 256-entry lookup table.
class ColorMap {
public:
    explicit ColorMap(ColorMapKind kind = ColorMapKind::Viridis);
    ColorMapKind kind() const { return m_kind; }
    /// Colour at t in [0, 1] (clamped).
    QRgb at(double t) const;
    QColor color(double t) const { return QColor::fromRgb(at(t)); }
    const std::array<QRgb, 256>& table() const { return m_lut; }

private:
    ColorMapKind m_kind;
    std::array<QRgb, 256> m_lut{};
};

/// Value range mapped onto a colour map: [lo, hi]; for a diverging map lo = -hi so that zero is the centre.
struct ValueRange {
    double lo = 0.0;
    double hi = 1.0;
};

/// rows x cols image (row r of the matrix = image row r), each value mapped to the LUT over @c range.
/// Format_RGB32. A straight pass over the row-major matrix.
/// NaN entries (masked attention) get @p nanColor.
QImage matrixToImage(const core::MatrixF& m, const ColorMap& map, ValueRange range, QRgb nanColor = 0xff808080);

} // namespace poslab::ui
