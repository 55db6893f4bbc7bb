// SPDX-License-Identifier: MIT
#include "ui/gpu/tableengine.h"

#include "core/encodings/rope.h"
#include "core/trigtable.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace poslab::gpu {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string formatMs(double ms)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f ms", ms);
    return buf;
}

} // namespace

TableEngine::TableEngine(ComputePath preference)
    : m_preference(preference)
{ }

TableEngine::~TableEngine() = default;

void TableEngine::setPreference(ComputePath preference)
{
    std::lock_guard lock(m_mutex);
    m_preference = preference;
}

ComputePath TableEngine::preference() const
{
    std::lock_guard lock(m_mutex);
    return m_preference;
}

bool TableEngine::gpuAvailable()
{
    std::lock_guard lock(m_mutex);
    if (!m_triedGpu) {
        m_triedGpu = true;
        m_gpu = GpuCompute::create(&m_whyNoGpu);
    }
    return m_gpu != nullptr;
}

bool TableEngine::gpuTried() const
{
    std::lock_guard lock(m_mutex);
    return m_triedGpu;
}

std::string TableEngine::gpuUnavailableReason()
{
    gpuAvailable();
    std::lock_guard lock(m_mutex);
    return m_whyNoGpu;
}

core::MatrixF cpuTrigTable(std::span<const double> freq, const core::PositionList& positions, const TableLayout& layout)
{
    core::MatrixF m = core::MatrixF::Zero(Eigen::Index(positions.size()), layout.cols);
    core::TrigLayout out;
    out.sin = layout.writeSin ? m.data() + layout.sinOffset : nullptr;
    out.cos = layout.writeCos ? m.data() + layout.cosOffset : nullptr;
    out.rowStride = layout.cols;
    out.pairStride = layout.pairStride;
    out.scale = layout.scale;
    core::fillTrigTable(freq, positions, out);
    return m;
}

core::MatrixF TableEngine::trigTable(std::span<const double> freq, const core::PositionList& positions,
                                     const TableLayout& layout, std::string* path)
{
    const double elements = double(positions.size()) * double(freq.size());
    if (preference() == ComputePath::Auto && elements < autoGpuMinElements) {
        // Small tables: the CPU fills them in well under a millisecond; no context, no measuring.
        const auto t0 = Clock::now();
        core::MatrixF m = cpuTrigTable(freq, positions, layout);
        const std::string text = "CPU, " + formatMs(msSince(t0));
        std::lock_guard lock(m_mutex);
        m_lastPath = text;
        if (path)
            *path = text;
        return m;
    }
    const bool haveGpu = preference() != ComputePath::Cpu && gpuAvailable(); // Cpu: no context, no GL driver
    std::unique_lock lock(m_mutex);
    const ComputePath pref = m_preference;
    const int sizeClass = int(std::floor(std::log2(std::max(1.0, elements))));
    bool useGpu = false;
    if (pref == ComputePath::Gpu) {
        useGpu = haveGpu;
    } else if (pref == ComputePath::Auto && haveGpu) {
        auto it = m_gpuFasterBySize.find(sizeClass);
        if (it == m_gpuFasterBySize.end()) {
            // Measure both on this very request once; keep the faster for this size class.
            lock.unlock();
            auto t0 = Clock::now();
            core::MatrixF cpu = cpuTrigTable(freq, positions, layout);
            const double cpuMs = msSince(t0);
            t0 = Clock::now();
            core::MatrixF gpu = m_gpu->trigTable(freq, positions, layout);
            const double gpuMs = msSince(t0);
            lock.lock();
            m_gpuFasterBySize[sizeClass] = gpuMs < cpuMs;
            const bool gpuWins = gpuMs < cpuMs;
            m_lastPath = (gpuWins ? "GPU, " + formatMs(gpuMs) : "CPU, " + formatMs(cpuMs)) + " (measured: CPU "
                + formatMs(cpuMs) + ", GPU " + formatMs(gpuMs) + ")";
            if (path)
                *path = m_lastPath;
            return gpuWins ? gpu : cpu;
        }
        useGpu = it->second;
    }
    lock.unlock();
    const auto t0 = Clock::now();
    core::MatrixF m = useGpu ? m_gpu->trigTable(freq, positions, layout) : cpuTrigTable(freq, positions, layout);
    const double ms = msSince(t0);
    lock.lock();
    if (useGpu)
        m_lastPath = "GPU, " + formatMs(ms);
    else if (pref == ComputePath::Gpu)
        m_lastPath = "CPU, " + formatMs(ms) + " (GPU unavailable: " + m_whyNoGpu + ")";
    else
        m_lastPath = "CPU, " + formatMs(ms);
    if (path)
        *path = m_lastPath;
    return m;
}

std::string TableEngine::lastPath() const
{
    std::lock_guard lock(m_mutex);
    return m_lastPath;
}

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// The same table as core's benchmark: 65536 x 512, RoPE frequencies, sin then cos halves; CPU and GPU times and
/// the GPU table's largest error against float64.
void tableBenchmarks(GpuCompute& gpu, std::vector<core::BenchFigure>& figures)
{
    const int rows = 65536;
    const int dim = 512;
    const std::vector<double> w = core::ropeBaseFrequencies(10000.0, dim);
    const auto positions = core::PositionList::range(0, rows);
    TableLayout layout;
    layout.cols = dim;
    layout.sinOffset = 0;
    layout.cosOffset = dim / 2;
    TableEngine cpuEngine(ComputePath::Cpu);
    std::vector<double> cpuMs, shaderMs, totalMs;
    core::MatrixF table;
    for (int rep = 0; rep < 3; ++rep) {
        auto t0 = Clock::now();
        core::MatrixF cpu = cpuEngine.trigTable(w, positions, layout);
        cpuMs.push_back(msSince(t0));
        GpuTiming timing;
        table = gpu.trigTable(w, positions, layout, &timing);
        shaderMs.push_back(timing.shaderMs);
        totalMs.push_back(timing.totalMs);
    }
    const double elements = double(rows) * dim;
    double err = 0.0;
    for (int p = 0; p < rows; p += 7)
        for (int i = 0; i < dim / 2; ++i) {
            const double a = core::wrapAngle(p, w[std::size_t(i)]);
            err = std::max(err, std::fabs(double(table(p, i)) - std::sin(a)));
            err = std::max(err, std::fabs(double(table(p, dim / 2 + i)) - std::cos(a)));
        }
    figures.push_back({"cpu_table_ns_per_element", median(cpuMs) * 1e6 / elements,
                       "CPU path, 65536 x 512 table including allocation, median of 3"});
    figures.push_back({"gpu_table_ns_per_element", median(shaderMs) * 1e6 / elements,
                       "GPU shader time (GL timer query, or dispatch-to-finish wall clock where the driver has no "
                       "timer), 65536 x 512 table, median of 3"});
    figures.push_back({"gpu_table_total_ns_per_element", median(totalMs) * 1e6 / elements,
                       "GPU path including upload and read-back, median of 3"});
    figures.push_back({"gpu_table_max_abs_error", err, "GPU table vs float64, every 7th row"});
}

/// Queries and keys of @p n positions x @p d for the scores benchmarks (smooth, deterministic values).
std::pair<core::MatrixF, core::MatrixF> benchQueriesKeys(int n, int d)
{
    core::MatrixF q(n, d), k(n, d);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < d; ++c) {
            q(r, c) = float(std::sin(0.013 * (r * d + c)));
            k(r, c) = float(std::cos(0.017 * (r * d + c)));
        }
    return {std::move(q), std::move(k)};
}

/// Scores: 512 queries x 512 keys, head dim 128 (software OpenGL takes seconds for 2048 x 2048); the GPU's figures,
/// and the CPU's median time (milliseconds), which the caller lists last.
double scoresBenchmarks(GpuCompute& gpu, std::vector<core::BenchFigure>& figures)
{
    const auto [q, k] = benchQueriesKeys(512, 128);
    std::vector<double> gpuScores, cpuScores;
    for (int rep = 0; rep < 3; ++rep) {
        GpuTiming timing;
        const core::MatrixF s = gpu.scores(q, k, 1.0f, false, 0, 1, 0, 1, &timing);
        gpuScores.push_back(timing.shaderMs);
        const auto t0 = Clock::now();
        const core::MatrixF c = q * k.transpose();
        cpuScores.push_back(msSince(t0));
        if (rep == 0)
            figures.push_back({"gpu_scores_max_abs_error", double((s - c).cwiseAbs().maxCoeff()),
                               "GPU vs CPU logits, 512 x 512, head dim 128"});
    }
    figures.push_back({"gpu_scores_512_ms", median(gpuScores), "GPU shader time for 512 x 512 logits, head dim 128"});
    return median(cpuScores);
}

/// The sizes of the GPU goals: a 65536 x 4096 table (2048 pairs, sin then cos) and 8192 x 8192 logits.
void largeBenchmarks(GpuCompute& gpu, std::vector<core::BenchFigure>& figures)
{
    const int rows = 65536;
    const int bigDim = 4096;
    const auto positions = core::PositionList::range(0, rows);
    const std::vector<double> bigW = core::ropeBaseFrequencies(10000.0, bigDim);
    TableLayout big;
    big.cols = bigDim;
    big.sinOffset = 0;
    big.cosOffset = bigDim / 2;
    std::vector<double> tableMs;
    double bigErr = 0.0;
    for (int rep = 0; rep < 3; ++rep) {
        GpuTiming timing;
        const core::MatrixF t = gpu.trigTable(bigW, positions, big, &timing);
        tableMs.push_back(timing.shaderMs);
        if (rep == 0)
            for (int p = 0; p < rows; p += 997)
                for (int i = 0; i < bigDim / 2; i += 7)
                    bigErr = std::max(bigErr,
                                      std::fabs(double(t(p, i)) - std::sin(core::wrapAngle(p, bigW[std::size_t(i)]))));
    }
    figures.push_back({"gpu_table_65536x4096_ms", median(tableMs),
                       "GPU shader time for a 65536 x 4096 float32 table (goal on a real GPU: under 2 ms)"});
    figures.push_back({"gpu_table_65536x4096_max_abs_error", bigErr, "that table vs float64, sampled"});
    const auto [bq, bk] = benchQueriesKeys(8192, 128);
    std::vector<double> scoresMs;
    for (int rep = 0; rep < 3; ++rep) {
        GpuTiming timing;
        gpu.scores(bq, bk, 1.0f, true, 0, 1, 0, 1, &timing);
        scoresMs.push_back(timing.shaderMs);
    }
    figures.push_back({"gpu_scores_8192_ms", median(scoresMs),
                       "GPU shader time for 8192 x 8192 causal logits, head dim 128 (goal on a real GPU: under 5 ms)"});
}

} // namespace

std::vector<core::BenchFigure> gpuBenchmarks(bool large)
{
    std::vector<core::BenchFigure> figures;
    std::string why;
    const std::unique_ptr<GpuCompute> gpu = GpuCompute::create(&why);
    figures.push_back(
        {"gpu_available", gpu ? 1.0 : 0.0, gpu ? "GPU path on " + gpu->renderer() : "no GPU path: " + why});
    if (!gpu)
        return figures;
    tableBenchmarks(*gpu, figures);
    const double cpuScoresMs = scoresBenchmarks(*gpu, figures);
    if (large)
        largeBenchmarks(*gpu, figures);
    figures.push_back({"cpu_scores_512_ms", cpuScoresMs, "Eigen product for the same 512 x 512 logits"});
    return figures;
}

} // namespace poslab::gpu
