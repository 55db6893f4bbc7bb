// SPDX-License-Identifier: MIT
#include "core/attentionkernel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <vector>

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
    void scoresGeometry(int* rows, int* cols, int* vectorFloats);                                                      \
    void scoresPack(const ScoreOperand& op, int rows, int d, int row0, int width, float* out);                         \
    void scoresTile(const ScoreJob& job, const ScoreTiling& tiling, const float* packedQ, const float* packedK,        \
                    int rp0, int rp1, int cp0, int cp1);                                                               \
    void scoresFence();                                                                                                \
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

// --- the fused score product: the threads and the tiles (the leaves are per instruction set) ----------------

namespace {

struct ScoreKernels {
    void (*geometry)(int*, int*, int*);
    void (*pack)(const ScoreOperand&, int, int, int, int, float*);
    void (*tile)(const ScoreJob&, const ScoreTiling&, const float*, const float*, int, int, int, int);
    void (*fence)();
};

ScoreKernels scoreKernels(Isa which)
{
    switch (which) {
#if defined(__x86_64__) || defined(_M_X64)
    case Isa::Avx512: return {avx512::scoresGeometry, avx512::scoresPack, avx512::scoresTile, avx512::scoresFence};
    case Isa::Avx2: return {avx2::scoresGeometry, avx2::scoresPack, avx2::scoresTile, avx2::scoresFence};
#endif
    default: return {generic::scoresGeometry, generic::scoresPack, generic::scoresTile, generic::scoresFence};
    }
}

/// Outputs from this size on are written with streaming stores (they cannot stay in the cache anyway).
constexpr std::size_t streamBytes = std::size_t(16) << 20;
/// A tile of C is about 240 rows x 256 columns: its K panels (256 x d) fit in L2 beside the Q panels passing.
constexpr int tileRows = 240;
constexpr int tileCols = 256;
/// The packed operands are kept by the calling thread from call to call up to this size (no page faults on the next
/// call; 8 MiB holds 8192 queries and keys at d = 128), larger ones are freed after the call.
constexpr std::size_t keptPackBytes = std::size_t(8) << 20;

struct FreeDeleter {
    void operator()(float* p) const { std::free(p); }
};
using FloatBuffer = std::unique_ptr<float[], FreeDeleter>;

float* packBuffer(std::size_t floats, FloatBuffer& fresh)
{
    thread_local FloatBuffer kept;
    thread_local std::size_t keptFloats = 0;
    const std::size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
    if (bytes > keptPackBytes) {
        fresh.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
        return fresh.get();
    }
    if (keptFloats < floats) {
        kept.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
        keptFloats = kept ? floats : 0;
    }
    return kept.get();
}

/// What runItems' threads share; the helpers own it with the caller, so one that starts after the caller returned
/// still finds it.
struct ItemTeam {
    explicit ItemTeam(int n)
        : items(n)
    { }
    const int items;
    std::atomic<int> next{0};
    std::atomic<int> inFlight{0}; // threads between the claim of an item and its end (or a failed claim)
};

/// Claims and runs items until none is left. A thread counts itself in flight before each claim, so the caller, once
/// its own claim has failed, waits exactly for the items that other threads hold.
void runClaimed(ItemTeam& team, const std::function<void(int)>* body)
{
    // The last thread out wakes the caller, which sleeps rather than spins: on a loaded machine a spinning caller
    // kept its core from the very helper it waited for (one call took 860 ms of wall time for 68 ms of CPU).
    const auto leave = [&team] {
        if (team.inFlight.fetch_sub(1) == 1)
            team.inFlight.notify_all();
    };
    for (;;) {
        team.inFlight.fetch_add(1);
        const int item = team.next.fetch_add(1);
        if (item >= team.items) {
            leave();
            return;
        }
        (*body)(item);
        leave();
    }
}

/// Waits until @p value is @p until: a short spin first (the item another thread holds is usually a tenth of a
/// millisecond from its end, and a thread that sleeps waits for the scheduler to give its core back), then sleeps.
template <typename Done> void waitUntil(std::atomic<int>& value, const Done& done)
{
    using clock = std::chrono::steady_clock;
    const auto spinUntil = clock::now() + std::chrono::microseconds(200);
    while (!done(value.load()))
        if (clock::now() >= spinUntil) {
            for (int v; !done(v = value.load());)
                value.wait(v);
            return;
        }
}

/// Waits until no thread of @p team holds an item.
void waitForTeam(ItemTeam& team)
{
    waitUntil(team.inFlight, [](int v) { return v <= 0; });
}

void runScores(const ScoreKernels& K, const ScoreJob& job, int threads)
{
    const int m = job.m, n = job.n, d = job.d;
    if (m <= 0 || n <= 0)
        return;
    int panelRows = 0, panelCols = 0, lanes = 0;
    K.geometry(&panelRows, &panelCols, &lanes);
    ScoreTiling tiling;
    tiling.ldc = job.ldc > 0 ? job.ldc : n;
    // Streaming stores need aligned vectors: the column panels are shifted so that every vector of every row starts
    // on one (the rows being a whole number of vectors apart).
    const std::size_t vectorBytes = std::size_t(lanes) * sizeof(float);
    const auto address = reinterpret_cast<std::uintptr_t>(job.c);
    if (job.streamingStores && lanes > 1 && std::size_t(m) * std::size_t(n) * sizeof(float) >= streamBytes
        && address % sizeof(float) == 0 && (std::size_t(tiling.ldc) * sizeof(float)) % vectorBytes == 0) {
        const int shift = int(((vectorBytes - address % vectorBytes) % vectorBytes) / sizeof(float));
        tiling.offset = shift ? panelCols - shift : 0;
        tiling.stream = true;
    }
    const int rowPanels = (m + panelRows - 1) / panelRows;
    const int colPanels = (n + tiling.offset + panelCols - 1) / panelCols;
    std::vector<int> panelEnds;
    if (job.rowEnds) {
        panelEnds.assign(std::size_t(rowPanels), 0);
        for (int i = 0; i < m; ++i) {
            int& e = panelEnds[std::size_t(i / panelRows)];
            e = std::max(e, std::min(n, job.rowEnds[i]));
        }
        tiling.panelEnds = panelEnds.data();
    }
    FloatBuffer fresh;
    // K's panels start on a cache line (the micro kernel's aligned loads); each is NR x d floats, NR a whole vector.
    const std::size_t qFloats = (std::size_t(rowPanels) * std::size_t(panelRows) * std::size_t(d) + 15) / 16 * 16;
    float* packedQ = packBuffer(qFloats + std::size_t(colPanels) * std::size_t(panelCols) * std::size_t(d), fresh);
    if (!packedQ)
        throw std::bad_alloc();
    float* packedK = packedQ + qFloats;

    // Work items, taken in turn from one counter: the K blocks' packing, the Q blocks', then the tiles (under a mask
    // the longest rows first, so that the short tiles even out the end). A tile waits only for the two blocks it
    // reads, and only when another thread is still packing them.
    const int blockRowPanels = std::max(1, tileRows / panelRows);
    const int blockColPanels = std::max(1, tileCols / panelCols);
    const int rowBlocks = (rowPanels + blockRowPanels - 1) / blockRowPanels;
    const int colBlocks = (colPanels + blockColPanels - 1) / blockColPanels;
    const int packItems = colBlocks + rowBlocks;
    const int items = packItems + rowBlocks * colBlocks;
    const auto rowBlockAt = [&](int order) { return job.rowEnds ? rowBlocks - 1 - order : order; };
    const auto ready = std::make_unique<std::atomic<int>[]>(std::size_t(packItems)); // all 0: nothing packed yet
    const auto waitFor = [&](int item) { waitUntil(ready[std::size_t(item)], [](int v) { return v != 0; }); };
    const auto markReady = [&](int item) {
        ready[std::size_t(item)].store(1, std::memory_order_release);
        ready[std::size_t(item)].notify_all();
    };
    const std::function<void(int)> work = [&](int item) {
        {
            if (item < colBlocks) {
                const int q1 = std::min(colPanels, (item + 1) * blockColPanels);
                for (int q = item * blockColPanels; q < q1; ++q)
                    K.pack(job.k, n, d, q * panelCols - tiling.offset, panelCols,
                           packedK + std::ptrdiff_t(q) * panelCols * d);
                markReady(item);
            } else if (item < packItems) {
                const int rb = rowBlockAt(item - colBlocks);
                const int p1 = std::min(rowPanels, (rb + 1) * blockRowPanels);
                for (int p = rb * blockRowPanels; p < p1; ++p)
                    K.pack(job.q, m, d, p * panelRows, panelRows, packedQ + std::ptrdiff_t(p) * panelRows * d);
                markReady(item);
            } else {
                const int t = item - packItems;
                const int order = t / colBlocks, cb = t % colBlocks;
                const int rb = rowBlockAt(order);
                const int rp0 = rb * blockRowPanels, rp1 = std::min(rowPanels, rp0 + blockRowPanels);
                const int cp0 = cb * blockColPanels, cp1 = std::min(colPanels, cp0 + blockColPanels);
                const int end
                    = tiling.panelEnds ? *std::max_element(tiling.panelEnds + rp0, tiling.panelEnds + rp1) : n;
                if (cp0 * panelCols - tiling.offset < end) { // some row sees part of the tile: it reads the panels
                    waitFor(cb);
                    waitFor(colBlocks + order);
                }
                K.tile(job, tiling, packedQ, packedK, rp0, rp1, cp0, cp1);
            }
        }
        K.fence(); // this item's streaming stores are visible before it counts as done
    };
    runItems(items, threads, work);
}

std::vector<Isa> availableIsas()
{
    std::vector<Isa> out{Isa::Generic};
    const Isa hw = detectHardware();
    if (hw == Isa::Avx2 || hw == Isa::Avx512)
        out.push_back(Isa::Avx2);
    if (hw == Isa::Avx512)
        out.push_back(Isa::Avx512);
    return out;
}

const char* nameOf(Isa which)
{
    switch (which) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    default: return "generic";
    }
}

} // namespace

void runItems(int items, int threads, const std::function<void(int)>& body)
{
    if (items <= 0)
        return;
    threads = std::max(1, std::min(threads, items));
    if (threads == 1) {
        for (int i = 0; i < items; ++i)
            body(i);
        return;
    }
    const auto team = std::make_shared<ItemTeam>(items);
    for (int t = 1; t < threads; ++t)
        std::thread([team, b = &body] { runClaimed(*team, b); }).detach();
    try {
        runClaimed(*team, &body);
    } catch (...) {
        team->next.store(items); // no helper claims another item; wait for those they hold, then unwind
        waitForTeam(*team);
        throw;
    }
    waitForTeam(*team);
}

void scoresNT(const ScoreJob& job, int threads)
{
    runScores(scoreKernels(isa()), job, std::max(1, threads));
}

int isaCount()
{
    return int(availableIsas().size());
}

const char* isaNameAt(int index)
{
    const std::vector<Isa> all = availableIsas();
    return index >= 0 && index < int(all.size()) ? nameOf(all[std::size_t(index)]) : "";
}

void scoresNTWith(int index, const ScoreJob& job, int threads)
{
    const std::vector<Isa> all = availableIsas();
    runScores(scoreKernels(index >= 0 && index < int(all.size()) ? all[std::size_t(index)] : Isa::Generic), job,
              std::max(1, threads));
}

const char* isaName()
{
    return nameOf(isa());
}

} // namespace poslab::core::kernel
