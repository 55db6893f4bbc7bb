// SPDX-License-Identifier: MIT
#include "ui/render/colormap.h"

#include <algorithm>
#include <cmath>

namespace poslab::ui {
namespace {

struct Stop {
    double r, g, b;
};

// Samples of matplotlib's viridis and cividis at t = 0, 0.1, ..., 1 (matplotlib/_cm_listed.py, entries
// 0, 25.5, ..., 255), interpolated linearly; both maps are nearly linear in CAM02-UCS between samples.
constexpr Stop viridisStops[] = {
    {0.267004, 0.004874, 0.329415}, {0.282623, 0.140926, 0.457517}, {0.253935, 0.265254, 0.529983},
    {0.206756, 0.371758, 0.553117}, {0.163625, 0.471133, 0.558148}, {0.127568, 0.566949, 0.550556},
    {0.134692, 0.658636, 0.517649}, {0.266941, 0.748751, 0.440573}, {0.477504, 0.821444, 0.318195},
    {0.741388, 0.873449, 0.149561}, {0.993248, 0.906157, 0.143936},
};
constexpr Stop cividisStops[] = {
    {0.000000, 0.135112, 0.304751}, {0.032110, 0.201199, 0.440785}, {0.208926, 0.272546, 0.424809},
    {0.309601, 0.340399, 0.424790}, {0.401418, 0.411790, 0.440708}, {0.488697, 0.485318, 0.471008},
    {0.582087, 0.558670, 0.468118}, {0.683950, 0.638793, 0.444251}, {0.785965, 0.720438, 0.399613},
    {0.896818, 0.811030, 0.320982}, {0.995737, 0.909344, 0.217772},
};
// ColorBrewer RdBu (11 classes), reversed so that negative values are blue (colorbrewer2.org).
constexpr Stop rdbuStops[] = {
    {0x05 / 255., 0x30 / 255., 0x61 / 255.}, {0x21 / 255., 0x66 / 255., 0xac / 255.},
    {0x43 / 255., 0x93 / 255., 0xc3 / 255.}, {0x92 / 255., 0xc5 / 255., 0xde / 255.},
    {0xd1 / 255., 0xe5 / 255., 0xf0 / 255.}, {0xf7 / 255., 0xf7 / 255., 0xf7 / 255.},
    {0xfd / 255., 0xdb / 255., 0xc7 / 255.}, {0xf4 / 255., 0xa5 / 255., 0x82 / 255.},
    {0xd6 / 255., 0x60 / 255., 0x4d / 255.}, {0xb2 / 255., 0x18 / 255., 0x2b / 255.},
    {0x67 / 255., 0x00 / 255., 0x1f / 255.},
};

template <std::size_t N> QRgb sample(const Stop (&stops)[N], double t)
{
    const double x = std::clamp(t, 0.0, 1.0) * double(N - 1);
    const std::size_t i = std::min<std::size_t>(std::size_t(x), N - 2);
    const double f = x - double(i);
    auto mix = [&](double a, double b) { return int(std::lround(255.0 * (a + (b - a) * f))); };
    return qRgb(mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g), mix(stops[i].b, stops[i + 1].b));
}

} // namespace

QString colorMapName(ColorMapKind kind)
{
    switch (kind) {
    case ColorMapKind::Viridis: return QStringLiteral("viridis");
    case ColorMapKind::Cividis: return QStringLiteral("cividis");
    case ColorMapKind::Diverging: return QStringLiteral("diverging (RdBu)");
    }
    return {};
}

ColorMap::ColorMap(ColorMapKind kind)
    : m_kind(kind)
{
    for (int i = 0; i < 256; ++i) {
        const double t = i / 255.0;
        switch (kind) {
        case ColorMapKind::Viridis: m_lut[i] = sample(viridisStops, t); break;
        case ColorMapKind::Cividis: m_lut[i] = sample(cividisStops, t); break;
        case ColorMapKind::Diverging: m_lut[i] = sample(rdbuStops, t); break;
        }
    }
}

QRgb ColorMap::at(double t) const
{
    if (!(t >= 0.0))
        t = 0.0; // also NaN
    return m_lut[std::size_t(std::min(t, 1.0) * 255.0 + 0.5)];
}

QImage matrixToImage(const core::MatrixF& m, const ColorMap& map, ValueRange range, QRgb nanColor)
{
    const int rows = int(m.rows());
    const int cols = int(m.cols());
    QImage img(std::max(cols, 1), std::max(rows, 1), QImage::Format_RGB32);
    if (rows == 0 || cols == 0) {
        img.fill(Qt::gray);
        return img;
    }
    const float lo = float(range.lo);
    const float span = float(range.hi - range.lo);
    const float k = span > 0 ? 255.0f / span : 0.0f;
    const auto& lut = map.table();
    for (int r = 0; r < rows; ++r) {
        const float* src = m.data() + std::ptrdiff_t(r) * cols;
        auto* dst = reinterpret_cast<QRgb*>(img.scanLine(r));
        for (int c = 0; c < cols; ++c) {
            const float v = src[c];
            if (v != v) { // NaN: a masked entry
                dst[c] = nanColor;
                continue;
            }
            // An infinite value or range makes t NaN (inf * 0, inf - inf): it takes the lowest colour; the clamp
            // is written so that NaN cannot reach the index (t < 0 and t > 255 are both false for NaN).
            float t = (v - lo) * k + 0.5f;
            t = t >= 0.0f ? (t > 255.0f ? 255.0f : t) : 0.0f;
            dst[c] = lut[std::size_t(t)];
        }
    }
    return img;
}

} // namespace poslab::ui
