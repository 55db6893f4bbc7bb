// SPDX-License-Identifier: MIT
#include "core/bench.h"

#include "core/attention.h"

#include "core/encodingregistry.h"
#include "core/encodings/sinusoidal.h"
#include "core/trigtable.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

namespace poslab::core {

namespace {

constexpr int benchPositions = 65536;
constexpr int benchDim = 512;

double nsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

/// Median (and best) of @c reps timed calls of @c fill, after one untimed warm-up call.
struct Timing {
    double median = 0.0;
    double best = 0.0;
};

Timing timeFills(int reps, const std::function<void()>& fill)
{
    fill();
    std::vector<double> times;
    for (int rep = 0; rep < reps; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        fill();
        times.push_back(nsSince(t0));
    }
    std::sort(times.begin(), times.end());
    return {times[times.size() / 2], times.front()};
}

/// max |table - float64| over every element of an interleaved (sin, cos, sin, cos, ...) table, with the
/// float64 value std::sin/std::cos of the angle reduced in double. Split over two threads (it is ~0.5 s).
double maxInterleavedError(const MatrixF& table, const std::vector<double>& w, const PositionList& positions)
{
    const std::size_t rows = positions.size();
    const std::size_t pairs = w.size();
    double errs[2] = {0.0, 0.0};
    auto part = [&](std::size_t r0, std::size_t r1, double& err) {
        for (std::size_t r = r0; r < r1; ++r)
            for (std::size_t i = 0; i < pairs; ++i) {
                const double a = wrapAngle(positions[r], w[i]);
                const Eigen::Index row = Eigen::Index(r);
                const Eigen::Index col = Eigen::Index(2 * i);
                err = std::max(err, std::fabs(double(table(row, col)) - std::sin(a)));
                err = std::max(err, std::fabs(double(table(row, col + 1)) - std::cos(a)));
            }
    };
    std::thread other(part, rows / 2, rows, std::ref(errs[1]));
    part(0, rows / 2, errs[0]);
    other.join();
    return std::max(errs[0], errs[1]);
}

/// The same against an independent long double reference (product and reduction in 64-bit mantissa).
double maxInterleavedErrorLongDouble(const MatrixF& table, const std::vector<double>& w, const PositionList& positions)
{
    const long double twoPi = 2.0L * std::numbers::pi_v<long double>;
    double err = 0.0;
    for (std::size_t r = 0; r < positions.size(); ++r)
        for (std::size_t i = 0; i < w.size(); ++i) {
            const long double a = std::fmod((long double)positions[r] * (long double)w[i], twoPi);
            const Eigen::Index row = Eigen::Index(r);
            const Eigen::Index col = Eigen::Index(2 * i);
            err = std::max(err, double(std::fabs((long double)table(row, col) - std::sin(a))));
            err = std::max(err, double(std::fabs((long double)table(row, col + 1) - std::cos(a))));
        }
    return err;
}

TrigLayout interleaved(MatrixF& m)
{
    TrigLayout out;
    out.sin = m.data();
    out.cos = m.data() + 1;
    out.pairStride = 2;
    out.rowStride = m.cols();
    return out;
}

} // namespace

std::vector<BenchFigure> runCoreBenchmarks()
{
    std::vector<BenchFigure> figures;
    // 65536 positions x 512 dims, float32: the sinusoidal table (256 pairs of sin and cos), interleaved.
    const int positions = benchPositions;
    const int dim = benchDim;
    const double elements = double(positions) * dim;
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = PositionList::range(0, positions);
    const ParamSet params = defaultParams(*findScheme("sinusoidal"));
    const std::vector<double> w = sinusoidalFrequencies(params, ctx);
    MatrixF table(positions, dim);
    table.setZero(); // touch the pages once: the figure is the fill, not the kernel's page faults
    const TrigLayout out = interleaved(table);

    // Reference first (one fill: ~0.5 s), so the table ends up holding the fast path's output.
    const auto r0 = std::chrono::steady_clock::now();
    fillTrigTableReference(w, ctx.positions, out);
    const double referenceNs = nsSince(r0) / elements;

    const Timing fast = timeFills(11, [&] { fillTrigTable(w, ctx.positions, out); });
    const double fastNs = fast.median / elements;
    figures.push_back({"table_ns_per_element", fastNs,
                       "ns per element, median of 11 fills (after 1 warm-up) of a 65536 x 512 float32 interleaved "
                       "sinusoidal table into pre-touched memory"});
    figures.push_back({"table_ns_per_element_best", fast.best / elements, "ns per element, fastest of those 11 fills"});
    figures.push_back({"table_reference_ns_per_element", referenceNs,
                       "ns per element of the naive path (std::sin/std::cos in double per element, one thread), "
                       "same table, one fill"});
    figures.push_back({"table_speedup", referenceNs / fastNs, "naive path time / fast path time (median)"});
    figures.push_back({"table_threads", double(trigTableThreads(std::size_t(positions), std::size_t(dim / 2))),
                       "threads the fast path uses for this table"});
    // Accuracy against float64 (std::sin/std::cos of the exactly reduced angle) over every element.
    figures.push_back({"table_max_abs_error", maxInterleavedError(table, w, ctx.positions),
                       "max |float32 table - float64| over the whole 65536 x 512 table (fast path)"});

    // Half-split layout (sin block, then cos block; pair stride 1), same size.
    {
        TrigLayout split;
        split.sin = table.data();
        split.cos = table.data() + dim / 2;
        split.pairStride = 1;
        split.rowStride = dim;
        const Timing t = timeFills(5, [&] { fillTrigTable(w, ctx.positions, split); });
        figures.push_back({"table_split_ns_per_element", t.median / elements,
                           "ns per element, median of 5 fills, same table in the half-split layout"});
    }
    // Explicit position list (no recurrence: every element evaluated directly), same size.
    {
        std::vector<Position> list(std::size_t(positions), 0);
        for (std::size_t r = 0; r < list.size(); ++r)
            list[r] = Position((r * 2654435761u) % std::size_t(1 << 20)); // scattered positions below 2^20
        const PositionList scattered = PositionList::list(std::move(list));
        const Timing t = timeFills(5, [&] { fillTrigTable(w, scattered, out); });
        figures.push_back({"table_list_ns_per_element", t.median / elements,
                           "ns per element, median of 5 fills, 65536 scattered explicit positions below 2^20 x 512"});
    }
    // Far positions: the last 2048 positions below 2^31, against an independent long double reference.
    {
        const int rows = 2048;
        MatrixF far(rows, dim);
        const PositionList farPositions = PositionList::range(maxPosition - rows + 1, maxPosition + 1);
        fillTrigTable(w, farPositions, interleaved(far));
        figures.push_back({"table_far_max_abs_error", maxInterleavedErrorLongDouble(far, w, farPositions),
                           "max |float32 - long double| of a 2048 x 512 table at positions 2^31-2048 .. 2^31-1"});
    }
    figures.push_back({"table_positions", double(positions), "rows of the benchmark table"});
    figures.push_back({"table_dims", double(dim), "columns of the benchmark table"});
    // The attention-score engine: scores_4096_ms and friends.
    for (auto& f : attentionBenchmarks())
        figures.push_back(std::move(f));
    return figures;
}

} // namespace poslab::core
