// SPDX-License-Identifier: MIT
#include "core/interpolate.h"

#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace poslab::core {

std::string_view interpolationName(Interpolation mode)
{
    return mode == Interpolation::Bicubic ? "bicubic" : "bilinear";
}

Interpolation parseInterpolation(std::string_view name)
{
    if (name == "bicubic")
        return Interpolation::Bicubic;
    if (name == "bilinear")
        return Interpolation::Bilinear;
    throw InputError("unknown interpolation '" + std::string(name) + "'; known: bicubic, bilinear");
}

namespace {

// Keys (1981) cubic convolution kernel, as UpSample.h cubic_convolution1 (|x| <= 1) and cubic_convolution2
// (1 < |x| < 2) write it.
double keys(double x, double a)
{
    x = std::fabs(x);
    if (x <= 1.0)
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
    if (x < 2.0)
        return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
    return 0.0;
}

AxisWeights plainTaps(int in, double scale, int o, Interpolation mode)
{
    AxisWeights w;
    if (mode == Interpolation::Bicubic) {
        // area_pixel_compute_source_index(cubic=true): no clamp of s at 0.
        const double s = scale * (o + 0.5) - 0.5;
        const double i0 = std::floor(s);
        const double t = s - i0;
        const double dist[4] = {1.0 + t, t, 1.0 - t, 2.0 - t};
        for (int j = 0; j < 4; ++j) {
            w.index.push_back(std::clamp(int(i0) - 1 + j, 0, in - 1));
            w.weight.push_back(keys(dist[j], -0.75));
        }
    } else {
        // area_pixel_compute_source_index(cubic=false) clamps s at 0; compute_source_index_and_lambda.
        const double s = std::max(scale * (o + 0.5) - 0.5, 0.0);
        const int i0 = std::min(int(s), in - 1);
        const int i1 = i0 + (i0 < in - 1 ? 1 : 0);
        const double l = std::min(std::max(s - i0, 0.0), 1.0);
        w.index = {i0, i1};
        w.weight = {1.0 - l, l};
    }
    return w;
}

AxisWeights antialiasTaps(int in, double scale, int o, Interpolation mode)
{
    // HelperInterpBase::_compute_indices_min_size_weights_aa.
    const double interpSize = mode == Interpolation::Bicubic ? 4.0 : 2.0;
    const double support = scale >= 1.0 ? interpSize * 0.5 * scale : interpSize * 0.5;
    const double centre = scale * (o + 0.5);
    const double invScale = scale >= 1.0 ? 1.0 / scale : 1.0;
    // static_cast<int64_t> truncates toward zero, as here.
    const long long xmin = std::max<long long>((long long)(centre - support + 0.5), 0);
    const long long xmax = std::min<long long>((long long)(centre + support + 0.5), in);
    AxisWeights w;
    double total = 0.0;
    for (long long j = xmin; j < xmax; ++j) {
        const double x = (double(j) - centre + 0.5) * invScale;
        const double f = mode == Interpolation::Bicubic ? keys(x, -0.5) : std::max(0.0, 1.0 - std::fabs(x));
        w.index.push_back(int(j));
        w.weight.push_back(f);
        total += f;
    }
    if (total != 0.0)
        for (double& f : w.weight)
            f /= total;
    return w;
}

} // namespace

std::vector<AxisWeights> axisWeights(int inSize, int outSize, Interpolation mode, bool antialias)
{
    if (inSize < 1 || outSize < 1)
        throw InputError("interpolation needs sizes of at least 1");
    std::vector<AxisWeights> all;
    all.reserve(std::size_t(outSize));
    // area_pixel_compute_scale(align_corners=false, no scale factor): in / out.
    const double scale = double(inSize) / double(outSize);
    for (int o = 0; o < outSize; ++o) {
        if (inSize == outSize) // the kernels copy equal sizes
            all.push_back({{o}, {1.0}});
        else
            all.push_back(antialias ? antialiasTaps(inSize, scale, o, mode) : plainTaps(inSize, scale, o, mode));
    }
    return all;
}

MatrixD resizeGrid(const MatrixD& src, int inH, int inW, int outH, int outW, Interpolation mode, bool antialias)
{
    if (src.rows() != Eigen::Index(inH) * inW)
        throw InputError("resizeGrid: the table has " + std::to_string(src.rows()) + " rows, not " + std::to_string(inH)
                         + " x " + std::to_string(inW));
    const auto wy = axisWeights(inH, outH, mode, antialias);
    const auto wx = axisWeights(inW, outW, mode, antialias);
    MatrixD out = MatrixD::Zero(Eigen::Index(outH) * outW, src.cols());
    for (int y = 0; y < outH; ++y)
        for (int x = 0; x < outW; ++x) {
            auto row = out.row(Eigen::Index(y) * outW + x);
            for (std::size_t a = 0; a < wy[std::size_t(y)].index.size(); ++a)
                for (std::size_t b = 0; b < wx[std::size_t(x)].index.size(); ++b)
                    row += (wy[std::size_t(y)].weight[a] * wx[std::size_t(x)].weight[b])
                        * src.row(Eigen::Index(wy[std::size_t(y)].index[a]) * inW + wx[std::size_t(x)].index[b]);
        }
    return out;
}

} // namespace poslab::core
