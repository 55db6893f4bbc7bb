// SPDX-License-Identifier: MIT
#pragma once
/// @file attentionkernel.h
/// Internal to core: the two hot loops of the attention engine (the q k^T product and the masked row
/// softmax) on raw row-major float buffers. Each is compiled three times (generic, AVX2+FMA, AVX-512) and
/// the best one the CPU supports is picked at run time, so the release build stays portable while using
/// the machine's widest vectors. The per-ISA files rename Eigen's namespace, so that no Eigen template
/// compiled with wide instructions can be picked by the linker for the generic code (one definition rule).

#include <cstdint>

namespace poslab::core::kernel {

/// C (m x n) = alpha * A (m x k) * B (n x k)^T; all row-major; A and B contiguous, C's rows @p ldc floats apart
/// (0: n, contiguous), so that a block of C's leading columns can be computed alone (the causal triangle).
void gemmNT(const float* a, const float* b, float* c, int m, int n, int k, float alpha, int ldc = 0);

/// C (m x n) = beta * C + alpha * op(A) * op(B), all row-major with row strides lda, ldb, ldc; op(A) is m x k
/// (A stored k x m when transA), op(B) is k x n (B stored n x k when transB). The lab's training GEMMs.
void gemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc);

/// GELU, tanh approximation, over n floats: th = tanh(sqrt(2/pi) (x + 0.044715 x^3)), y = x (1 + th) / 2
/// (Hendrycks and Gimpel 2016; PyTorch approximate="tanh"). Eigen's vectorised tanh.
void geluTanh(const float* x, float* y, float* th, int n);

/// Row-wise softmax of C (m x n) in place over the entries whose mask byte is 1 (mask may be null: all
/// visible). Masked entries become NaN; a row without visible entries becomes all NaN.
void softmaxRows(float* c, const std::uint8_t* mask, int m, int n);

/// Box-Muller: from uniforms u1 in (0, 1] and u2 in [0, 1) (n each) writes n normals r cos(2 pi u2) to
/// out[0..n) and n normals r sin(2 pi u2) to out[n..2n), r = sqrt(-2 ln u1). Float precision.
void boxMuller(const float* u1, const float* u2, float* out, int n);

/// Name of the instruction set in use ("avx512", "avx2", "generic"). The environment variable
/// POSLAB_KERNEL=generic or avx2 forces a narrower one (for testing the fallbacks).
const char* isaName();

} // namespace poslab::core::kernel
