// SPDX-License-Identifier: MIT
#pragma once
/// @file gpucompute.h
/// The GPU path: OpenGL 4.3 compute shaders (files in shaders/, compiled into Qt resources) for large
/// sin/cos tables, RoPE rotation and attention-score tiles. It runs without any display through an EGL
/// surfaceless context (EGL_MESA_platform_surfaceless), so CI runs it on Mesa's llvmpipe. Core stays the
/// reference: every method here has a CPU twin in core/ that tests/gpu compares against within 1e-5.

#include "core/positions.h"
#include "core/scheme.h"
#include "core/types.h"

#include <memory>
#include <span>
#include <string>

namespace poslab::gpu {

/// Layout of a table computed on the GPU: row r, pair i of sin goes to column sinOffset + i * pairStride,
/// cos to cosOffset + i * pairStride; a table has @c cols columns.
struct TableLayout {
    int cols = 0;
    int sinOffset = 0;
    int cosOffset = 0;
    int pairStride = 1;
    bool writeSin = true;
    bool writeCos = true;
    float scale = 1.0f;
};

/// Time spent, in milliseconds: the shaders alone (GL timer query) and the whole call (upload, dispatch,
/// read-back).
struct GpuTiming {
    double shaderMs = 0.0;
    double totalMs = 0.0;
};

class GpuCompute {
public:
    /// Creates a headless context and compiles the shaders. Returns nullptr and sets @c whyNot when there is
    /// no OpenGL 4.3 (no EGL, no surfaceless platform, no compute shaders, a shader that fails to compile).
    static std::unique_ptr<GpuCompute> create(std::string* whyNot = nullptr);
    ~GpuCompute();
    GpuCompute(const GpuCompute&) = delete;
    GpuCompute& operator=(const GpuCompute&) = delete;

    /// "llvmpipe (LLVM 15.0.6, 256 bits), OpenGL 4.5 (Core Profile) Mesa 22.3.6".
    std::string renderer() const;

    /// positions x layout.cols table of sin/cos of p * freq[i] (the GPU twin of core::fillTrigTable).
    /// Positions must be below 2^32. Columns not written are zero.
    core::MatrixF trigTable(std::span<const double> freq, const core::PositionList& positions,
                            const TableLayout& layout, GpuTiming* timing = nullptr);

    /// Rotates each row of @c rows (n x d) at positions start, start+step, ... as spec says (twin of
    /// core::rotateInPlace). xPos scaling is not applied here (spec.xposZeta must be empty).
    void rotate(const core::RotarySpec& spec, core::MatrixF& rows, core::Position start, core::Position step,
                GpuTiming* timing = nullptr);

    /// scale * Q K^T (queries x keys), -inf where @c causal and key position > query position.
    core::MatrixF scores(const core::MatrixF& q, const core::MatrixF& k, float scale, bool causal,
                         core::Position queryStart, core::Position queryStep, core::Position keyStart,
                         core::Position keyStep, GpuTiming* timing = nullptr);

private:
    struct Impl;
    explicit GpuCompute(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> d;
};

} // namespace poslab::gpu
