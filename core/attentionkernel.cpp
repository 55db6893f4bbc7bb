// SPDX-License-Identifier: MIT
#include "core/attentionkernel.h"

#include <cstdlib>
#include <cstring>

namespace poslab::core::kernel {

// Declarations of the per-ISA copies (defined in attentionkernel_<isa>.cpp).
#define POSLAB_DECLARE_KERNELS(ns)                                                                                     \
    namespace ns {                                                                                                     \
    void gemmNT(const float* a, const float* b, float* c, int m, int n, int k, float alpha, int ldc);                  \
    void softmaxRows(float* c, const std::uint8_t* mask, int m, int n);                                                \
    void gemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda, const float* b,     \
              int ldb, float beta, float* c, int ldc);                                                                 \
    void geluTanh(const float* x, float* y, float* th, int n);                                                         \
    void boxMuller(const float* u1, const float* u2, float* out, int n);                                               \
    }
POSLAB_DECLARE_KERNELS(generic)
#if defined(__x86_64__) || defined(_M_X64)
POSLAB_DECLARE_KERNELS(avx2)
POSLAB_DECLARE_KERNELS(avx512)
#endif
#undef POSLAB_DECLARE_KERNELS

namespace {

enum class Isa { Generic, Avx2, Avx512 };
Isa detectHardware();

Isa detect()
{
    // POSLAB_KERNEL=generic|avx2 forces a narrower kernel (to test the fallbacks on a wide machine).
    if (const char* forced = std::getenv("POSLAB_KERNEL")) {
        if (std::strcmp(forced, "generic") == 0)
            return Isa::Generic;
        if (std::strcmp(forced, "avx2") == 0 && detectHardware() != Isa::Generic)
            return Isa::Avx2;
    }
    return detectHardware();
}

Isa detectHardware()
{
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("fma"))
        return Isa::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return Isa::Avx2;
#endif
    return Isa::Generic;
}

Isa isa()
{
    static const Isa chosen = detect();
    return chosen;
}

} // namespace

void gemmNT(const float* a, const float* b, float* c, int m, int n, int k, float alpha, int ldc)
{
    if (ldc <= 0)
        ldc = n;
    switch (isa()) {
#if defined(__x86_64__) || defined(_M_X64)
    case Isa::Avx512: avx512::gemmNT(a, b, c, m, n, k, alpha, ldc); return;
    case Isa::Avx2: avx2::gemmNT(a, b, c, m, n, k, alpha, ldc); return;
#endif
    default: generic::gemmNT(a, b, c, m, n, k, alpha, ldc); return;
    }
}

void gemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc)
{
    switch (isa()) {
#if defined(__x86_64__) || defined(_M_X64)
    case Isa::Avx512: avx512::gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); return;
    case Isa::Avx2: avx2::gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); return;
#endif
    default: generic::gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); return;
    }
}

void geluTanh(const float* x, float* y, float* th, int n)
{
    switch (isa()) {
#if defined(__x86_64__) || defined(_M_X64)
    case Isa::Avx512: avx512::geluTanh(x, y, th, n); return;
    case Isa::Avx2: avx2::geluTanh(x, y, th, n); return;
#endif
    default: generic::geluTanh(x, y, th, n); return;
    }
}

void softmaxRows(float* c, const std::uint8_t* mask, int m, int n)
{
    switch (isa()) {
#if defined(__x86_64__) || defined(_M_X64)
    case Isa::Avx512: avx512::softmaxRows(c, mask, m, n); return;
    case Isa::Avx2: avx2::softmaxRows(c, mask, m, n); return;
#endif
    default: generic::softmaxRows(c, mask, m, n); return;
    }
}

void boxMuller(const float* u1, const float* u2, float* out, int n)
{
    switch (isa()) {
#if defined(__x86_64__) || defined(_M_X64)
    case Isa::Avx512: avx512::boxMuller(u1, u2, out, n); return;
    case Isa::Avx2: avx2::boxMuller(u1, u2, out, n); return;
#endif
    default: generic::boxMuller(u1, u2, out, n); return;
    }
}

const char* isaName()
{
    switch (isa()) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    default: return "generic";
    }
}

} // namespace poslab::core::kernel
