// SPDX-License-Identifier: MIT
#include "core/bench.h"

#include "core/encodingregistry.h"
#include "core/encodings/sinusoidal.h"
#include "core/trigtable.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace poslab::core {

std::vector<BenchFigure> runCoreBenchmarks()
{
    std::vector<BenchFigure> figures;
    // 65536 positions x 512 dims, float32: the sinusoidal table (256 pairs of sin and cos).
    const int positions = 65536;
    const int dim = 512;
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = PositionList::range(0, positions);
    const ParamSet params = defaultParams(*findScheme("sinusoidal"));
    const std::vector<double> w = sinusoidalFrequencies(params, ctx);
    MatrixF table(positions, dim);
    table.setZero(); // touch the pages once: the figure is the fill, not the kernel's page faults
    TrigLayout out;
    out.sin = table.data();
    out.cos = table.data() + 1;
    out.pairStride = 2;
    out.rowStride = dim;
    std::vector<double> times;
    for (int rep = 0; rep < 5; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        fillTrigTable(w, ctx.positions, out);
        const auto t1 = std::chrono::steady_clock::now();
        times.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    std::sort(times.begin(), times.end());
    const double elements = double(positions) * dim;
    figures.push_back({"table_ns_per_element", times[times.size() / 2] / elements,
                       "ns per element, median of 5 fills of a 65536 x 512 float32 sinusoidal table"});
    // Accuracy against float64 (std::sin/std::cos of the exactly reduced angle) over every element.
    double maxErr = 0.0;
    for (int p = 0; p < positions; ++p)
        for (int i = 0; i < dim / 2; ++i) {
            const double a = wrapAngle(p, w[std::size_t(i)]);
            maxErr = std::max(maxErr, std::fabs(double(table(p, 2 * i)) - std::sin(a)));
            maxErr = std::max(maxErr, std::fabs(double(table(p, 2 * i + 1)) - std::cos(a)));
        }
    figures.push_back({"table_max_abs_error", maxErr, "max |float32 table - float64| over the whole table"});
    figures.push_back({"table_positions", double(positions), "rows of the benchmark table"});
    figures.push_back({"table_dims", double(dim), "columns of the benchmark table"});
    return figures;
}

} // namespace poslab::core
