// SPDX-License-Identifier: MIT
#pragma once
/// @file attentionkernel.h
/// Internal to core: the two hot loops of the attention engine (the q k^T product and the masked row
/// softmax) on raw row-major float buffers. Each is compiled three times (generic, AVX2+FMA, AVX-512) and
/// the best one the CPU supports is picked at run time, so the release build stays portable while using
/// the machine's widest vectors. The per-ISA files rename Eigen's namespace, so that no Eigen template
/// compiled with wide instructions can be picked by the linker for the generic code (one definition rule).

#include <cstdint>
#include <functional>

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

/// One side of a score product: @c rows vectors of d floats (row-major, contiguous), each rotated on the fly by
/// RoPE (Su et al. 2021, eq. 34) with its own row of cos and sin, as Hugging Face's apply_rotary_pos_emb does:
/// x'_a = x_a cos_i - x_b sin_i, x'_b = x_b cos_i + x_a sin_i for pair i = (a, b), in float32, the same
/// expression as the engine's unfused rotation. Dimensions outside the pairs pass unchanged (partial rotary).
struct ScoreOperand {
    const float* x = nullptr;   ///< rows x d, row-major
    const float* cos = nullptr; ///< rows x pairs, row-major: cos of row r's angles (attention factor included); null
                                ///< with sin: no rotation
    const float* sin = nullptr; ///< rows x pairs, row-major
    int pairs = 0;              ///< rotated pairs (r/2; 0: no rotation)
    bool halfSplit = true;      ///< pair i is (i, i + half) (GPT-NeoX); false: (2i, 2i + 1) (interleaved)
    int half = 0;               ///< half-split: r/2, the offset of each pair's second dimension
};

/// The fused rotate + product: C (m x n) = alpha * rot(Q) rot(K)^T with C's rows @c ldc floats apart. With
/// @c rowEnds (m values in [0, n]) row i needs the columns before rowEnds[i] only (a causal mask): every entry at
/// or after it is written NaN and the blocks that lie wholly there are never multiplied.
struct ScoreJob {
    ScoreOperand q; ///< m rows
    ScoreOperand k; ///< n rows
    int m = 0, n = 0, d = 0;
    float alpha = 1.0f;
    float* c = nullptr;
    int ldc = 0;                  ///< 0: n
    const int* rowEnds = nullptr; ///< null: every column of every row
    bool streamingStores = true;  ///< large outputs bypass the cache (false: plain stores always)
};

/// Runs @p job on @p threads threads (the calling one included; 1: this thread only). q and k are rotated while
/// they are packed into the product's panels (cache-resident, once per call), never as whole rotated copies, and
/// the output is split into tiles that the threads take in turn, so a thread held up by another process leaves
/// its share to the others. Each entry is one fused multiply-add chain over d in index order, so its bits do not
/// depend on the tiling, the thread count or the mask.
void scoresNT(const ScoreJob& job, int threads);

/// Runs body(0) .. body(items - 1) on the calling thread and on threads - 1 helper threads, each item exactly once,
/// the threads taking items in turn from one counter; returns when every item has finished. It never waits for a
/// helper that has not started: on a loaded machine a new thread may wait a time slice to run, and a helper that
/// comes late finds no item left and ends on its own (it holds only the shared counter, never @p body). @p body
/// must not throw from a helper thread.
void runItems(int items, int threads, const std::function<void(int)>& body);

/// The instruction sets this build and CPU can run ("generic", then "avx2", "avx512" where supported).
int isaCount();
const char* isaNameAt(int index);
/// As scoresNT with the variant @p index of isaNameAt (tests compare every variant with the reference).
void scoresNTWith(int index, const ScoreJob& job, int threads);

/// Internal to the kernels: where the tiles of one ScoreJob write (attentionkernel.cpp sets it up).
struct ScoreTiling {
    int ldc = 0;
    int offset = 0;                 ///< column panel q covers columns [q NR - offset, (q + 1) NR - offset)
    bool stream = false;            ///< streaming stores for aligned vectors
    const int* panelEnds = nullptr; ///< per row panel of MR rows, the largest row end (null: n)
};

/// Name of the instruction set in use ("avx512", "avx2", "generic"). The environment variable
/// POSLAB_KERNEL=generic or avx2 forces a narrower one (for testing the fallbacks).
const char* isaName();

} // namespace poslab::core::kernel
