// SPDX-License-Identifier: MIT
#include "core/trigtable.h"

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <limits>
#include <cstdint>
#include <numbers>
#include <thread>
#include <vector>

// Design of the fast path (fillTrigTable):
// - Rows are handed out in chunks of consecutive rows to the worker threads (one thread below minPairsPerThread
//   pairs of work; the calling thread is one of the workers).
// - Arithmetic progressions: per pair the state (c, s) = scale * (cos, sin)(p * w) advances one row by the
//   rotation (C, S) = (cos, sin)(step * w):  c' = c*C - s*S,  s' = s*C + c*S, in double. Every chunk's first
//   row and every anchorInterval-th row after it is re-anchored exactly: p * w is formed as an exact
//   double-double product, reduced by a two-part 2*pi and fed to a polynomial sin/cos accurate to ~1e-16.
//   Between anchors the recurrence drifts by ~anchorInterval * 1e-16, far below float32 rounding.
// - Explicit lists evaluate every element with the same exact reduction + polynomial.
// - Tables of trigStreamBytes or more are built row by row in an L1 buffer and written with non-temporal
//   stores (no read-for-ownership: the fill is memory bound). Smaller ones are written in place.
// - All row kernels are plain loops over double arrays that GCC vectorises. They are templates forced inline
//   into two entry points: one compiled for AVX2+FMA (target attribute) and one for the baseline ISA; the
//   choice is made once at run time from the CPU, so the binary still runs on CPUs without AVX2.

#if defined(__FAST_MATH__)
#error "trigtable.cpp relies on exact IEEE double rounding (two-product, magic-constant rounding): no -ffast-math"
#endif

#if defined(__GNUC__)
#define POSLAB_ALWAYS_INLINE inline __attribute__((always_inline))
#define POSLAB_RESTRICT __restrict__
#else
#define POSLAB_ALWAYS_INLINE inline
#define POSLAB_RESTRICT
#endif

#if defined(__SSE2__)
#include <emmintrin.h>
#define POSLAB_HAVE_SSE2 1
#else
#define POSLAB_HAVE_SSE2 0
#endif

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define POSLAB_HAVE_X86_DISPATCH 1
#define POSLAB_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define POSLAB_HAVE_X86_DISPATCH 0
#define POSLAB_TARGET_AVX2
#endif

namespace poslab::core {

namespace {

// 2*pi as the nearest double plus the remainder: 2*pi = twoPiHi + twoPiLo to ~1e-32.
constexpr double twoPiHi = 6.28318530717958623200e+00;
constexpr double twoPiLo = 2.44929359829470635445e-16;
constexpr double invTwoPi = 1.59154943091895345554e-01;
// pi/2 with 33 significant bits (q * pio2Hi is exact for small integers q) plus the remainder (fdlibm).
constexpr double pio2Hi = 1.57079632673412561417e+00;
constexpr double pio2Lo = 6.07710050650619224932e-11;
constexpr double twoOverPi = 6.36619772367581382433e-01;
// Adding and subtracting 1.5 * 2^52 rounds a double of magnitude < 2^51 to the nearest integer; unlike
// std::nearbyint it vectorises on every x86-64 (SSE2 has no rounding instruction).
constexpr double roundMagic = 6755399441055744.0;
constexpr double splitter = 134217729.0; // 2^27 + 1, Veltkamp split
// Largest float below 2*pi: float(2*pi) itself is above 2*pi.
const float floatBelowTwoPi = std::nextafter(float(twoPiHi), 0.0f);

/// Minimum work (rows x pairs) per extra thread: below about this, starting a thread costs more than it saves.
constexpr std::size_t minPairsPerThread = std::size_t(1) << 17;
constexpr unsigned maxThreads = 16;
/// Largest chunk of rows a worker takes at a time (each chunk starts with an exact anchor).
constexpr std::size_t maxChunkRows = 1024;

POSLAB_ALWAYS_INLINE double roundNearest(double x)
{
#if FLT_EVAL_METHOD == 0
    return (x + roundMagic) - roundMagic;
#else
    return std::nearbyint(x); // excess precision (x87) would keep the fraction through the magic constant
#endif
}

/// The rounding error of the product a * b = p, exactly (Dekker's two-product, no FMA needed).
POSLAB_ALWAYS_INLINE double twoProductError(double a, double b, double p)
{
    const double ta = splitter * a;
    const double ah = ta - (ta - a);
    const double al = a - ah;
    const double tb = splitter * b;
    const double bh = tb - (tb - b);
    const double bl = b - bh;
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

/// p * w reduced to [0, 2*pi): the product is exact as double-double, the reduction uses a two-part 2*pi.
template <bool Fma> POSLAB_ALWAYS_INLINE double reduceAngle(double p, double w)
{
    const double x = p * w;
    const double k = roundNearest(x * invTwoPi);
    double r;
    if constexpr (Fma) {
        const double lo = __builtin_fma(p, w, -x);
        r = __builtin_fma(-k, twoPiHi, x); // exact: the result is small and the product is fused
        r = __builtin_fma(-k, twoPiLo, r);
        r += lo;
    } else {
        const double lo = twoProductError(p, w, x);
        const double ph = k * twoPiHi;
        const double pl = twoProductError(k, twoPiHi, ph);
        r = (x - ph) - pl; // x - ph is exact (Sterbenz: x and ph are within a factor 2 when k >= 1)
        r -= k * twoPiLo;
        r += lo;
    }
    // Selects between constants, not between sums: with -fno-trapping-math (set for this file in CMake) GCC
    // if-converts them and the loops vectorise.
    r += r < 0.0 ? twoPiHi : 0.0;
    r -= r >= twoPiHi ? twoPiHi : 0.0;
    return r;
}

/// sin and cos of r in [-pi/4, 2*pi + pi/4], to about 1e-16: quadrant reduction + fdlibm kernels.
POSLAB_ALWAYS_INLINE void sinCos(double r, double& sinOut, double& cosOut)
{
    const double q = roundNearest(r * twoOverPi); // 0 .. 4
    const double t = (r - q * pio2Hi) - q * pio2Lo;
    const double z = t * t;
    const double sp = -1.66666666666666324348e-01
        + z
            * (8.33333333332248946124e-03
               + z
                   * (-1.98412698298579493134e-04
                      + z
                          * (2.75573137070700676789e-06
                             + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10))));
    const double cp = 4.16666666666666019037e-02
        + z
            * (-1.38888888888741095749e-03
               + z
                   * (2.48015872894767294178e-05
                      + z
                          * (-2.75573143513906633035e-07
                             + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11))));
    const double st = t + t * z * sp;
    const double ct = (1.0 - 0.5 * z) + z * z * cp;
    // Branch-free quadrant selection (so that the loop vectorises): q4 = q mod 4 in {0, 1, 2, 3}.
    const double q4 = q - 4.0 * roundNearest(q * 0.25 - 0.375);
    const double sinSign = q4 >= 2.0 ? -1.0 : 1.0;                 // quadrants 2, 3
    const double cosSign = std::fabs(q4 - 1.5) < 1.0 ? -1.0 : 1.0; // quadrants 1, 2
    const bool odd = std::fabs(q4 - 2.0) == 1.0;                   // quadrants 1, 3 swap sin and cos
    const double s = odd ? ct : st;
    const double c = odd ? st : ct;
    sinOut = sinSign * s;
    cosOut = cosSign * c;
}

enum class Emit { Interleaved, Split, SinOnly, CosOnly, Strided };

/// Where one row goes: Interleaved uses a (sin at 2i, cos at 2i+1); Split/SinOnly/CosOnly use a = sin row,
/// b = cos row (pair stride 1); Strided uses a, b (either may be null) with the pair stride.
struct RowOut {
    float* a;
    float* b;
    std::ptrdiff_t pairStride;
};

/// c[i], s[i] = scale * (cos, sin)(p * w[i]), exactly reduced.
template <bool Fma>
POSLAB_ALWAYS_INLINE void directRow(double p, const double* POSLAB_RESTRICT w, double scale, double* POSLAB_RESTRICT c,
                                    double* POSLAB_RESTRICT s, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) {
        double sn, cs;
        sinCos(reduceAngle<Fma>(p, w[i]), sn, cs);
        c[i] = scale * cs;
        s[i] = scale * sn;
    }
}

template <Emit E>
POSLAB_ALWAYS_INLINE void emitRow(const double* POSLAB_RESTRICT c, const double* POSLAB_RESTRICT s, std::size_t n,
                                  RowOut o)
{
    if constexpr (E == Emit::Interleaved) {
        float* POSLAB_RESTRICT a = o.a;
        for (std::size_t i = 0; i < n; ++i) {
            a[2 * i] = float(s[i]);
            a[2 * i + 1] = float(c[i]);
        }
    } else if constexpr (E == Emit::Split) {
        float* POSLAB_RESTRICT a = o.a;
        float* POSLAB_RESTRICT b = o.b;
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = float(s[i]);
            b[i] = float(c[i]);
        }
    } else if constexpr (E == Emit::SinOnly) {
        float* POSLAB_RESTRICT a = o.a;
        for (std::size_t i = 0; i < n; ++i)
            a[i] = float(s[i]);
    } else if constexpr (E == Emit::CosOnly) {
        float* POSLAB_RESTRICT b = o.b;
        for (std::size_t i = 0; i < n; ++i)
            b[i] = float(c[i]);
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            const std::ptrdiff_t at = std::ptrdiff_t(i) * o.pairStride;
            if (o.a)
                o.a[at] = float(s[i]);
            if (o.b)
                o.b[at] = float(c[i]);
        }
    }
}

/// One row of the recurrence (rotate every pair's state by its step rotation), fused with the output.
template <bool Fma, Emit E>
POSLAB_ALWAYS_INLINE void stepRow(const double* POSLAB_RESTRICT rc, const double* POSLAB_RESTRICT rs,
                                  double* POSLAB_RESTRICT c, double* POSLAB_RESTRICT s, std::size_t n, RowOut o)
{
    auto advance = [&](std::size_t i, double& nc, double& ns) {
        if constexpr (Fma) {
            nc = __builtin_fma(c[i], rc[i], -(s[i] * rs[i]));
            ns = __builtin_fma(s[i], rc[i], c[i] * rs[i]);
        } else {
            nc = c[i] * rc[i] - s[i] * rs[i];
            ns = s[i] * rc[i] + c[i] * rs[i];
        }
        c[i] = nc;
        s[i] = ns;
    };
    if constexpr (E == Emit::Interleaved) {
        float* POSLAB_RESTRICT a = o.a;
        for (std::size_t i = 0; i < n; ++i) {
            double nc, ns;
            advance(i, nc, ns);
            a[2 * i] = float(ns);
            a[2 * i + 1] = float(nc);
        }
    } else if constexpr (E == Emit::Split) {
        float* POSLAB_RESTRICT a = o.a;
        float* POSLAB_RESTRICT b = o.b;
        for (std::size_t i = 0; i < n; ++i) {
            double nc, ns;
            advance(i, nc, ns);
            a[i] = float(ns);
            b[i] = float(nc);
        }
    } else if constexpr (E == Emit::SinOnly) {
        float* POSLAB_RESTRICT a = o.a;
        for (std::size_t i = 0; i < n; ++i) {
            double nc, ns;
            advance(i, nc, ns);
            a[i] = float(ns);
        }
    } else if constexpr (E == Emit::CosOnly) {
        float* POSLAB_RESTRICT b = o.b;
        for (std::size_t i = 0; i < n; ++i) {
            double nc, ns;
            advance(i, nc, ns);
            b[i] = float(nc);
        }
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            double nc, ns;
            advance(i, nc, ns);
        }
        emitRow<Emit::Strided>(c, s, n, o);
    }
}

/// Everything a worker needs; shared read-only between threads.
struct FillJob {
    const double* w = nullptr;
    std::size_t pairs = 0;
    const PositionList* positions = nullptr;
    TrigLayout out;
    Emit emit = Emit::Strided;
    std::size_t anchorInterval = trigAnchorInterval;
    const double* rotCos = nullptr; ///< cos(step * w[i]) for ranges
    const double* rotSin = nullptr; ///< sin(step * w[i]) for ranges
    bool stream = false;            ///< build each row in an L1 buffer, then stream it out (not Strided)
};

/// dst[0, n) = src[0, n) through non-temporal stores: used for tables far larger than the caches, where
/// write-allocating the destination would only double the memory traffic.
POSLAB_ALWAYS_INLINE void streamRow(float* POSLAB_RESTRICT dst, const float* POSLAB_RESTRICT src, std::size_t n)
{
#if POSLAB_HAVE_SSE2
    std::size_t i = 0;
    for (; i < n && (reinterpret_cast<std::uintptr_t>(dst + i) & 15u) != 0; ++i)
        dst[i] = src[i];
    for (; i + 4 <= n; i += 4)
        _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
    for (; i < n; ++i)
        dst[i] = src[i];
#else
    std::copy(src, src + n, dst);
#endif
}

/// Makes non-temporal stores visible before the thread reports completion.
inline void streamFence()
{
#if POSLAB_HAVE_SSE2
    _mm_sfence();
#endif
}

POSLAB_ALWAYS_INLINE RowOut rowOut(const FillJob& j, std::size_t r)
{
    const std::ptrdiff_t off = std::ptrdiff_t(r) * j.out.rowStride;
    return RowOut{j.out.sin ? j.out.sin + off : nullptr, j.out.cos ? j.out.cos + off : nullptr, j.out.pairStride};
}

template <bool Fma, Emit E>
POSLAB_ALWAYS_INLINE void fillRowsAs(const FillJob& j, std::size_t r0, std::size_t r1, double* c, double* s,
                                     float* stage)
{
    const std::size_t n = j.pairs;
    const PositionList& pos = *j.positions;
    const bool staged = j.stream && E != Emit::Strided;
    for (std::size_t r = r0; r < r1; ++r) {
        const RowOut dst = rowOut(j, r);
        // Staged rows are built in an L1-resident buffer in the destination's layout: [sin|cos] for Split.
        const RowOut o = !staged ? dst : E == Emit::Split ? RowOut{stage, stage + n, 1} : RowOut{stage, stage, 1};
        if (!pos.isRange() || (r - r0) % j.anchorInterval == 0) {
            directRow<Fma>(double(pos[r]), j.w, j.out.scale, c, s, n);
            emitRow<E>(c, s, n, o);
        } else {
            stepRow<Fma, E>(j.rotCos, j.rotSin, c, s, n, o);
        }
        if (staged) {
            if constexpr (E == Emit::Interleaved) {
                streamRow(dst.a, stage, 2 * n);
            } else if constexpr (E == Emit::Split) {
                streamRow(dst.a, stage, n);
                streamRow(dst.b, stage + n, n);
            } else if constexpr (E == Emit::SinOnly) {
                streamRow(dst.a, stage, n);
            } else if constexpr (E == Emit::CosOnly) {
                streamRow(dst.b, stage, n);
            }
        }
    }
    if (staged)
        streamFence();
}

template <bool Fma>
POSLAB_ALWAYS_INLINE void fillRowsAny(const FillJob& j, std::size_t r0, std::size_t r1, double* c, double* s,
                                      float* stage)
{
    switch (j.emit) {
    case Emit::Interleaved: return fillRowsAs<Fma, Emit::Interleaved>(j, r0, r1, c, s, stage);
    case Emit::Split: return fillRowsAs<Fma, Emit::Split>(j, r0, r1, c, s, stage);
    case Emit::SinOnly: return fillRowsAs<Fma, Emit::SinOnly>(j, r0, r1, c, s, stage);
    case Emit::CosOnly: return fillRowsAs<Fma, Emit::CosOnly>(j, r0, r1, c, s, stage);
    case Emit::Strided: return fillRowsAs<Fma, Emit::Strided>(j, r0, r1, c, s, stage);
    }
}

template <bool Fma>
POSLAB_ALWAYS_INLINE void angleRows(const double* w, std::size_t n, const PositionList& pos, float* out, std::size_t r0,
                                    std::size_t r1)
{
    for (std::size_t r = r0; r < r1; ++r) {
        const double p = double(pos[r]);
        float* POSLAB_RESTRICT row = out + r * n;
        for (std::size_t i = 0; i < n; ++i)
            row[i] = std::min(float(reduceAngle<Fma>(p, w[i])), floatBelowTwoPi);
    }
}

void fillRowsPortable(const FillJob& j, std::size_t r0, std::size_t r1, double* c, double* s, float* stage)
{
    fillRowsAny<false>(j, r0, r1, c, s, stage);
}

void directRowPortable(double p, const double* w, double* c, double* s, std::size_t n)
{
    directRow<false>(p, w, 1.0, c, s, n);
}

void angleRowsPortable(const double* w, std::size_t n, const PositionList& pos, float* out, std::size_t r0,
                       std::size_t r1)
{
    angleRows<false>(w, n, pos, out, r0, r1);
}

#if POSLAB_HAVE_X86_DISPATCH
POSLAB_TARGET_AVX2 void fillRowsAvx2(const FillJob& j, std::size_t r0, std::size_t r1, double* c, double* s,
                                     float* stage)
{
    fillRowsAny<true>(j, r0, r1, c, s, stage);
}

POSLAB_TARGET_AVX2 void directRowAvx2(double p, const double* w, double* c, double* s, std::size_t n)
{
    directRow<true>(p, w, 1.0, c, s, n);
}

POSLAB_TARGET_AVX2 void angleRowsAvx2(const double* w, std::size_t n, const PositionList& pos, float* out,
                                      std::size_t r0, std::size_t r1)
{
    angleRows<true>(w, n, pos, out, r0, r1);
}

bool cpuHasAvx2Fma()
{
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return has;
}
#else
bool cpuHasAvx2Fma()
{
    return false;
}
#endif

struct Kernels {
    void (*fillRows)(const FillJob&, std::size_t, std::size_t, double*, double*, float*);
    void (*directRow)(double, const double*, double*, double*, std::size_t);
    void (*angleRows)(const double*, std::size_t, const PositionList&, float*, std::size_t, std::size_t);
};

Kernels kernels(bool portable)
{
#if POSLAB_HAVE_X86_DISPATCH
    if (!portable && cpuHasAvx2Fma())
        return {fillRowsAvx2, directRowAvx2, angleRowsAvx2};
#endif
    (void)portable;
    return {fillRowsPortable, directRowPortable, angleRowsPortable};
}

/// Runs fn(r0, r1, t) over [0, rows) in chunks of consecutive rows that @c threads workers (worker 0 is the
/// calling thread) take in turn from a shared counter, so a worker slowed down by other load on its core
/// just takes fewer chunks. A worker that cannot be started leaves its share to the others.
template <class Fn> void forRowChunks(std::size_t rows, int threads, const Fn& fn)
{
    const std::size_t t = std::clamp<std::size_t>(std::size_t(std::max(threads, 1)), 1, std::max<std::size_t>(rows, 1));
    if (t == 1) {
        fn(0, rows, 0);
        return;
    }
    const std::size_t chunk = std::clamp<std::size_t>((rows + 8 * t - 1) / (8 * t), 1, maxChunkRows);
    std::atomic<std::size_t> next{0};
    auto work = [&](std::size_t k) {
        for (;;) {
            const std::size_t r0 = next.fetch_add(chunk, std::memory_order_relaxed);
            if (r0 >= rows)
                return;
            fn(r0, std::min(r0 + chunk, rows), k);
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(t - 1);
    for (std::size_t k = 1; k < t; ++k) {
        try {
            pool.emplace_back(work, k);
        } catch (...) {
            break; // no more threads: the running workers share the rows
        }
    }
    work(0);
    for (auto& th : pool)
        th.join();
}

int autoThreads(std::size_t rows, std::size_t pairs)
{
    const unsigned hw = std::clamp(std::thread::hardware_concurrency(), 1u, maxThreads);
    const std::size_t work = rows * std::max<std::size_t>(pairs, 1);
    const std::size_t byWork = std::max<std::size_t>(work / minPairsPerThread, 1);
    return int(std::min({std::size_t(hw), byWork, std::max<std::size_t>(rows, 1)}));
}

/// True when each non-null output's rows are disjoint, so row blocks can be written by separate threads.
bool rowsAreDisjoint(const TrigLayout& out, std::size_t pairs)
{
    const std::size_t extent = (pairs - 1) * std::size_t(std::abs(out.pairStride)) + 1;
    return std::size_t(std::abs(out.rowStride)) >= extent;
}

Emit classify(const TrigLayout& out, std::size_t pairs)
{
    if (out.sin && out.cos && out.pairStride == 2 && out.cos == out.sin + 1)
        return Emit::Interleaved;
    if (out.pairStride == 1) {
        if (out.sin && out.cos) {
            // Only when the two rows cannot overlap (the kernels assume no aliasing).
            const std::ptrdiff_t gap = out.cos > out.sin ? out.cos - out.sin : out.sin - out.cos;
            if (std::size_t(gap) >= pairs)
                return Emit::Split;
            return Emit::Strided;
        }
        return out.sin ? Emit::SinOnly : Emit::CosOnly;
    }
    return Emit::Strided;
}

} // namespace

double wrapAngle(Position p, double omega)
{
    const double pd = double(p);
    const double x = pd * omega;
    const double lo = std::fma(pd, omega, -x); // exact rounding error of the product
    const double k = std::nearbyint(x * invTwoPi);
    double r = std::fma(-k, twoPiHi, x);
    r = std::fma(-k, twoPiLo, r);
    r += lo;
    if (r < 0.0)
        r += twoPiHi;
    if (r >= twoPiHi)
        r -= twoPiHi;
    return r;
}

void fillTrigTableReference(std::span<const double> freq, const PositionList& positions, const TrigLayout& out)
{
    const std::size_t rows = positions.size();
    for (std::size_t r = 0; r < rows; ++r) {
        const Position p = positions[r];
        for (std::size_t i = 0; i < freq.size(); ++i) {
            const double a = wrapAngle(p, freq[i]);
            const std::ptrdiff_t at = std::ptrdiff_t(r) * out.rowStride + std::ptrdiff_t(i) * out.pairStride;
            if (out.sin)
                out.sin[at] = float(out.scale * std::sin(a));
            if (out.cos)
                out.cos[at] = float(out.scale * std::cos(a));
        }
    }
}

int trigTableThreads(std::size_t rows, std::size_t pairs)
{
    return autoThreads(rows, pairs);
}

void fillTrigTable(std::span<const double> freq, const PositionList& positions, const TrigLayout& out)
{
    fillTrigTable(freq, positions, out, TrigFillOptions{});
}

void fillTrigTable(std::span<const double> freq, const PositionList& positions, const TrigLayout& out,
                   const TrigFillOptions& options)
{
    const std::size_t rows = positions.size();
    const std::size_t pairs = freq.size();
    if (rows == 0 || pairs == 0 || (!out.sin && !out.cos))
        return;
    const Kernels k = kernels(options.portableKernel);

    FillJob job;
    job.w = freq.data();
    job.pairs = pairs;
    job.positions = &positions;
    job.out = out;
    job.emit = classify(out, pairs);
    job.anchorInterval = options.anchorInterval > 0 ? std::size_t(options.anchorInterval) : trigAnchorInterval;
    const std::size_t outputs = (out.sin ? 1 : 0) + (out.cos ? 1 : 0);
    const bool big = rows * pairs * outputs * sizeof(float) >= trigStreamBytes;
    using Stores = TrigFillOptions::Stores;
    job.stream = POSLAB_HAVE_SSE2 && job.emit != Emit::Strided
        && (options.stores == Stores::Streaming || (options.stores == Stores::Auto && big));

    int threads = options.threads > 0 ? options.threads : autoThreads(rows, pairs);
    if (!rowsAreDisjoint(out, pairs))
        threads = 1;
    threads = int(std::min<std::size_t>(std::size_t(threads), rows));

    // Per-pair step rotation (exact), then one state buffer (c, s) per thread; allocated up front so the
    // workers never allocate.
    std::vector<double> rot;
    if (positions.isRange() && rows > 1) {
        rot.resize(2 * pairs);
        k.directRow(double(positions.step()), job.w, rot.data(), rot.data() + pairs, pairs);
        job.rotCos = rot.data();
        job.rotSin = rot.data() + pairs;
    }
    // Per thread: state c, s (2 * pairs doubles) and a staging row (2 * pairs floats), padded by a cache line
    // so that threads never share one.
    const std::size_t stateStride = 2 * pairs + 8;
    const std::size_t stageStride = 2 * pairs + 16;
    std::vector<double> state(stateStride * std::size_t(threads));
    std::vector<float> stage(job.stream ? stageStride * std::size_t(threads) : 0);
    forRowChunks(rows, threads, [&](std::size_t r0, std::size_t r1, std::size_t t) {
        double* c = state.data() + stateStride * t;
        k.fillRows(job, r0, r1, c, c + pairs, job.stream ? stage.data() + stageStride * t : nullptr);
    });
}

MatrixF wrappedAngles(std::span<const double> freq, const PositionList& positions)
{
    const std::size_t rows = positions.size();
    const std::size_t pairs = freq.size();
    MatrixF m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(pairs));
    if (rows == 0 || pairs == 0)
        return m;
    const Kernels k = kernels(false);
    forRowChunks(rows, autoThreads(rows, pairs), [&](std::size_t r0, std::size_t r1, std::size_t) {
        k.angleRows(freq.data(), pairs, positions, m.data(), r0, r1);
    });
    return m;
}

HandReading handAt(double t, double omega)
{
    HandReading h;
    const bool whole = t == std::floor(t) && std::abs(t) < 9.0e15;
    h.angle = whole ? wrapAngle(Position(t), omega) : std::fmod(t * omega, 2.0 * std::numbers::pi);
    if (h.angle < 0.0)
        h.angle += 2.0 * std::numbers::pi;
    h.sine = std::sin(h.angle);
    h.cosine = std::cos(h.angle);
    h.period = wavelength(omega);
    return h;
}

double wavelength(double omega)
{
    return omega == 0.0 ? std::numeric_limits<double>::infinity() : 2.0 * std::numbers::pi / std::abs(omega);
}

} // namespace poslab::core
