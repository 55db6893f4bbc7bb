// SPDX-License-Identifier: MIT
#pragma once
/// @file tableengine.h
/// Chooses between the CPU path (core::fillTrigTable, the reference) and the GPU path (GpuCompute) for
/// sin/cos tables. In Auto it measures both once per size class and keeps the faster; the user can force
/// either. On software OpenGL (llvmpipe) the CPU wins, as expected; on a real GPU the shaders do.

#include "core/bench.h"
#include "ui/gpu/gpucompute.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace poslab::gpu {

enum class ComputePath { Auto, Cpu, Gpu };

class TableEngine {
public:
    explicit TableEngine(ComputePath preference = ComputePath::Auto);
    ~TableEngine();

    void setPreference(ComputePath preference);
    ComputePath preference() const;

    /// True when a GPU context exists (created on first need); otherwise gpuUnavailableReason() says why.
    bool gpuAvailable();
    std::string gpuUnavailableReason();
    /// True once a GPU context has been asked for (gpuAvailable); never under the Cpu preference, so that a
    /// CPU-only use (a data export) does not load the GL driver.
    bool gpuTried() const;

    /// Tables with fewer elements (rows x pairs) than this stay on the CPU in Auto without measuring and
    /// without creating a GPU context: below it, context set-up and read-back cost more than the fill.
    static constexpr double autoGpuMinElements = double(1 << 20);

    /// rows x layout.cols table of sin/cos of p * freq[i] (see TableLayout), by the chosen path. When the
    /// GPU is forced but unavailable, the CPU computes it and lastPath() says so. @p path, when given,
    /// receives this call's path text (lastPath() may already describe another thread's call).
    core::MatrixF trigTable(std::span<const double> freq, const core::PositionList& positions,
                            const TableLayout& layout, std::string* path = nullptr);

    /// The path the last call used, for the status bar: "CPU, 3.1 ms" or "GPU (llvmpipe ...), 12.0 ms".
    std::string lastPath() const;

private:
    mutable std::mutex m_mutex;
    ComputePath m_preference;
    std::unique_ptr<GpuCompute> m_gpu;
    bool m_triedGpu = false;
    std::string m_whyNoGpu;
    std::map<int, bool> m_gpuFasterBySize; ///< key: floor(log2(elements))
    std::string m_lastPath;
};

/// The CPU path (core::fillTrigTable, the reference) into a new rows x layout.cols table; columns not
/// written are zero.
core::MatrixF cpuTrigTable(std::span<const double> freq, const core::PositionList& positions,
                           const TableLayout& layout);

/// `poslab bench` figures of both paths: cpu_table_ns_per_element, gpu_table_ns_per_element (shader
/// time), gpu_table_total_ns_per_element (with read-back), gpu_table_max_abs_error, gpu_scores_512_ms
/// and cpu_scores_512_ms. Without a GPU context, gpu_available is 0 and the GPU figures are absent.
/// With @c large, also gpu_table_65536x4096_ms and gpu_scores_8192_ms (shader time), the sizes of the
/// GPU goals (under 2 ms and 5 ms on a real GPU).
std::vector<core::BenchFigure> gpuBenchmarks(bool large = false);

} // namespace poslab::gpu
