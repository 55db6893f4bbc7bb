// SPDX-License-Identifier: MIT
#include "core/attention.h"

#include "core/bench.h"

#include "core/attentionkernel.h"
#include "core/encodingregistry.h"
#include "core/encodings/deberta.h"
#include "core/encodings/relativecommon.h"
#include "core/errors.h"
#include "core/random.h"
#include "core/rotary.h"
#include "core/trigtable.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <cstring>
#include <thread>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace poslab::core {

// --- names and parsing ---------------------------------------------------------------------------------

std::string_view maskName(MaskKind m)
{
    return m == MaskKind::Causal ? "causal" : "bidirectional";
}

MaskKind parseMask(std::string_view name)
{
    if (name == "causal")
        return MaskKind::Causal;
    if (name == "bidirectional")
        return MaskKind::Bidirectional;
    throw InputError("unknown mask '" + std::string(name) + "'; known masks: causal, bidirectional");
}

namespace {

std::vector<std::string> splitWords(std::string_view text)
{
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace((unsigned char)text[i]))
            ++i;
        std::size_t j = i;
        while (j < text.size() && !std::isspace((unsigned char)text[j]))
            ++j;
        if (j > i)
            words.emplace_back(text.substr(i, j - i));
        i = j;
    }
    return words;
}

std::uint64_t hashWord(std::string_view w)
{
    // FNV-1a, 64 bit: the same word always maps to the same embedding, on every platform.
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : w) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

} // namespace

ContentSpec parseContent(std::string_view text, std::uint64_t seed)
{
    ContentSpec c;
    c.seed = seed;
    if (text == "random") {
        c.kind = ContentKind::Random;
        return c;
    }
    if (text == "constant") {
        c.kind = ContentKind::Constant;
        return c;
    }
    c.kind = ContentKind::Sentence;
    c.sentence = std::string(text);
    const std::size_t n = splitWords(text).size();
    if (n == 0)
        throw InputError("--content: the sentence is empty; give words, or random, or constant");
    if (n > std::size_t(maxSentenceWords))
        throw InputError("--content: the sentence is too long: " + std::to_string(n) + " words, at most "
                         + std::to_string(maxSentenceWords));
    return c;
}

std::vector<std::size_t> sentenceOrder(const ContentSpec& content)
{
    if (content.kind != ContentKind::Sentence)
        return {};
    std::vector<std::size_t> order(splitWords(content.sentence).size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    if (content.shuffle && order.size() > 1) {
        // Fisher-Yates with the content seed: the same seed gives the same permutation.
        SeededRandom rng(mixSeed(content.seed, 0x5BF1E));
        for (std::size_t i = order.size() - 1; i > 0; --i)
            std::swap(order[i], order[std::size_t(rng.nextBits() % (i + 1))]);
    }
    return order;
}

std::vector<std::string> sentenceWords(const ContentSpec& content)
{
    if (content.kind != ContentKind::Sentence)
        return {};
    const std::vector<std::string> given = splitWords(content.sentence);
    std::vector<std::string> words;
    words.reserve(given.size());
    for (std::size_t i : sentenceOrder(content))
        words.push_back(given[i]);
    return words;
}

namespace {

/// For a causal mask over ascending keys each row's visible keys are a prefix: the length of each (the keys
/// at or before the query). nullopt for other masks or unsorted keys.
std::optional<std::vector<int>> prefixLengths(const PositionList& queries, const PositionList& keys, MaskKind kind)
{
    if (kind != MaskKind::Causal)
        return std::nullopt;
    for (std::size_t j = 1; j < keys.size(); ++j)
        if (keys[j] < keys[j - 1])
            return std::nullopt;
    std::vector<int> lengths(queries.size(), 0);
    std::size_t j = 0;
    Position last = std::numeric_limits<Position>::min();
    bool ascending = true;
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const Position q = queries[i];
        if (q < last)
            ascending = false;
        last = q;
        if (!ascending) { // queries in any order: a binary search per row
            std::size_t lo = 0, hi = keys.size();
            while (lo < hi) {
                const std::size_t mid = lo + (hi - lo) / 2;
                (keys[mid] <= q ? lo : hi) = keys[mid] <= q ? mid + 1 : mid;
            }
            j = lo;
        } else
            while (j < keys.size() && keys[j] <= q)
                ++j;
        lengths[i] = int(j);
    }
    return lengths;
}

} // namespace

MaskMatrix makeMask(const PositionList& queries, const PositionList& keys, MaskKind kind)
{
    MaskMatrix m(Eigen::Index(queries.size()), Eigen::Index(keys.size()));
    if (kind == MaskKind::Bidirectional) {
        m.setOnes();
        return m;
    }
    if (const auto lengths = prefixLengths(queries, keys, kind)) {
        // Rows that are prefixes: two memsets each instead of a comparison per entry.
        for (std::size_t i = 0; i < queries.size(); ++i) {
            std::uint8_t* row = m.data() + Eigen::Index(i) * m.cols();
            const std::size_t n = std::size_t((*lengths)[i]);
            std::memset(row, 1, n);
            std::memset(row + n, 0, keys.size() - n);
        }
        return m;
    }
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const Position q = queries[i];
        std::uint8_t* row = m.data() + Eigen::Index(i) * m.cols();
        for (std::size_t j = 0; j < keys.size(); ++j)
            row[j] = keys[j] <= q ? 1 : 0;
    }
    return m;
}

// --- threads -------------------------------------------------------------------------------------------

namespace {

/// Runs @p body over [0, n) in chunks of consecutive rows that the hardware threads take in turn (kernel::runItems)
/// when the work is large enough. A thread that another process holds up leaves its chunks to the others (a split
/// into one fixed share per thread waited for the slowest share: on a loaded machine, a whole time slice).
void parallelRows(int n, double workPerRow, const std::function<void(int, int)>& body)
{
    const unsigned hw = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    const double total = workPerRow * double(n);
    // Below about a million multiply-adds a thread costs more than it saves.
    const int threads = total < 1.0e6 || n < 2 ? 1 : int(std::min<unsigned>(hw, unsigned(n)));
    if (threads == 1) {
        body(0, n);
        return;
    }
    const int chunk = std::max(16, n / (8 * threads));
    kernel::runItems((n + chunk - 1) / chunk, threads, [&](int c) { body(c * chunk, std::min(n, (c + 1) * chunk)); });
}

/// Resizes @c m; for large matrices asks Linux for transparent huge pages before the first write. A fresh
/// 4096 x 4096 float matrix is 16384 small pages, and on virtual machines their page faults cost as much as
/// the product itself (measured: 95 ms instead of 60 ms for 4096 x 4096 x 128).
void allocate(MatrixF& m, Eigen::Index rows, Eigen::Index cols)
{
    m.resize(rows, cols);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const std::size_t bytes = std::size_t(m.size()) * sizeof(float);
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    if (bytes >= 4 * huge) {
        const auto begin = (reinterpret_cast<std::uintptr_t>(m.data()) + huge - 1) & ~(huge - 1);
        const auto end = (reinterpret_cast<std::uintptr_t>(m.data()) + bytes) & ~(huge - 1);
        if (end > begin)
            madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE); // a hint; failure is harmless
    }
#endif
}

/// Threads for @p work multiply-adds: below about a million a thread costs more than it saves.
int threadsFor(double work)
{
    const unsigned hw = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    return work < 1.0e6 ? 1 : int(hw);
}

/// The rotation of one side of the product, as the kernel applies it while packing (cos and sin of each row's
/// angles, reduced in double by fillTrigTable and rounded once to float32; attention factor and xPos included).
struct SideRotation {
    MatrixF cos, sin; // rows x pairs
    int pairs = 0;
    bool halfSplit = true;
    int half = 0; // half-split: pair i is (i, i + half), half = r/2
};

kernel::ScoreOperand operandOf(const MatrixF& x, const SideRotation* rot)
{
    kernel::ScoreOperand op;
    op.x = x.data();
    if (rot && rot->pairs > 0) {
        op.cos = rot->cos.data();
        op.sin = rot->sin.data();
        op.pairs = rot->pairs;
        op.halfSplit = rot->halfSplit;
        op.half = rot->half;
    }
    return op;
}

/// C (Lq x Lk) = scale * rot(q) rot(k)^T through the fused kernel (kernel::scoresNT): q and k are rotated inside
/// the product's packed panels when @p rq / @p rk are given. With @p ends (a causal mask: row i sees the keys
/// before ends[i]) only the visible blocks are multiplied and every entry after a row's last visible key is NaN.
void scoresProduct(const MatrixF& q, const MatrixF& k, const SideRotation* rq, const SideRotation* rk, MatrixF& c,
                   float scale, const std::vector<int>* ends)
{
    const int m = int(q.rows());
    const int n = int(k.rows());
    const int d = int(q.cols());
    allocate(c, m, n);
    if (m == 0 || n == 0)
        return;
    kernel::ScoreJob job;
    job.q = operandOf(q, rq);
    job.k = operandOf(k, rk);
    job.m = m;
    job.n = n;
    job.d = d;
    job.alpha = scale;
    job.c = c.data();
    job.rowEnds = ends ? ends->data() : nullptr;
    double cells = double(m) * double(n);
    if (ends) {
        cells = 0.0;
        for (int e : *ends)
            cells += double(e);
    }
    kernel::scoresNT(job, threadsFor(cells * double(std::max(d, 1))));
}

/// One past the last visible column of each row of @p mask (0 for a row with none): a causal mask over
/// ascending keys makes every row a prefix, so the columns after it need no product.
std::vector<int> visibleEnds(const MaskMatrix& mask)
{
    std::vector<int> ends(std::size_t(mask.rows()), 0);
    for (Eigen::Index i = 0; i < mask.rows(); ++i)
        for (Eigen::Index j = mask.cols(); j-- > 0;)
            if (mask(i, j)) {
                ends[std::size_t(i)] = int(j + 1);
                break;
            }
    return ends;
}

void softmaxParallel(MatrixF& c, const MaskMatrix* mask)
{
    const int m = int(c.rows());
    const int n = int(c.cols());
    parallelRows(m, double(n) * 8.0, [&](int r0, int r1) {
        kernel::softmaxRows(c.data() + std::ptrdiff_t(r0) * n, mask ? mask->data() + std::ptrdiff_t(r0) * n : nullptr,
                            r1 - r0, n);
    });
}

void applyMaskNaN(MatrixF& m, const MaskMatrix& mask, const std::vector<int>* prefix = nullptr)
{
    if (m.size() == 0)
        return;
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    if (prefix && std::size_t(m.rows()) == prefix->size()) { // each row's masked part is its tail
        for (Eigen::Index i = 0; i < m.rows(); ++i)
            std::fill(m.data() + i * m.cols() + (*prefix)[std::size_t(i)], m.data() + (i + 1) * m.cols(), nan);
        return;
    }
    for (Eigen::Index i = 0; i < m.size(); ++i)
        if (!mask.data()[i])
            m.data()[i] = nan;
}

// --- content -------------------------------------------------------------------------------------------

/// One row of N(0, 1) per position, seeded by (seed, head, side, position): SplitMix64 bits, Box-Muller in
/// float (vectorised), so the row of a position never depends on the other positions asked for.
void fillRandom(MatrixF& m, const PositionList& pos, std::uint64_t seed, int head, int side)
{
    const int d = int(m.cols());
    const int half = (d + 1) / 2;
    parallelRows(int(pos.size()), double(d) * 40.0, [&](int r0, int r1) {
        std::vector<float> u1(static_cast<std::size_t>(half)), u2(static_cast<std::size_t>(half)),
            z(2 * static_cast<std::size_t>(half));
        for (int r = r0; r < r1; ++r) {
            SeededRandom rng(
                mixSeed(seed, std::uint64_t(head), std::uint64_t(side), std::uint64_t(pos[std::size_t(r)])));
            for (int i = 0; i < half; ++i) {
                const std::uint64_t bits = rng.nextBits();
                // 24 bits each; u1 in (0, 1] keeps the logarithm finite.
                u1[std::size_t(i)] = float((bits >> 40) + 1) * 0x1.0p-24f;
                u2[std::size_t(i)] = float((bits >> 16) & 0xFFFFFF) * 0x1.0p-24f;
            }
            kernel::boxMuller(u1.data(), u2.data(), z.data(), half);
            std::copy(z.begin(), z.begin() + d, m.data() + std::ptrdiff_t(r) * d);
        }
    });
}

/// What contentRows() used for Sentence content (attentionScores with a trace).
struct ContentTrace {
    MatrixF embedding;  // positions x d
    MatrixF input;      // positions x d: embedding + additive
    MatrixF projection; // d x d
};

struct Content {
    std::vector<std::string> words; // Sentence only
    MatrixF embeddings;             // Sentence: one row per distinct word... indexed by wordRow
    std::vector<int> wordRow;       // position t -> row of embeddings
};

Content prepareContent(const ContentSpec& spec, int d)
{
    Content c;
    if (spec.kind != ContentKind::Sentence)
        return c;
    c.words = sentenceWords(spec);
    c.embeddings.resize(Eigen::Index(c.words.size()), d);
    c.wordRow.resize(c.words.size());
    for (std::size_t t = 0; t < c.words.size(); ++t) {
        // Repeated words share their vector: the seed depends on the word, not on where it stands.
        const MatrixD e = seededNormal(1, d, 1.0, spec.seed, mixSeed(0xE3B, hashWord(c.words[t])));
        c.embeddings.row(Eigen::Index(t)) = e.row(0).cast<float>();
        c.wordRow[t] = int(t);
    }
    return c;
}

} // namespace

MatrixD sentenceProjection(std::uint64_t seed, int d, int head, int side)
{
    return seededNormal(d, d, 1.0 / std::sqrt(double(d)), seed,
                        mixSeed(0x9E0, std::uint64_t(head), std::uint64_t(side)));
}

MatrixF sentenceEmbeddings(const ContentSpec& spec, int d)
{
    return prepareContent(spec, d).embeddings;
}

namespace {

/// Lq x d (or Lk x d) content for one head and side (0 = query, 1 = key), before the position enters,
/// except for additive schemes where @c additive (positions x d, or empty) is added to the embedding.
/// Sentence content: when @p trace is given, it receives the embeddings, the input x (embedding + additive)
/// and the projection W, as used.
MatrixF contentRows(const ContentSpec& spec, const Content& content, const PositionList& pos, int d, int head, int side,
                    const MatrixF& additive, ContentTrace* trace = nullptr)
{
    MatrixF m(Eigen::Index(pos.size()), d);
    switch (spec.kind) {
    case ContentKind::Random:
        fillRandom(m, pos, spec.seed, head, side);
        if (additive.size())
            m += additive;
        return m;
    case ContentKind::Constant:
        m.setOnes();
        if (additive.size())
            m += additive;
        return m;
    case ContentKind::Sentence: {
        MatrixF x(Eigen::Index(pos.size()), d);
        for (std::size_t r = 0; r < pos.size(); ++r)
            x.row(Eigen::Index(r)) = content.embeddings.row(content.wordRow[std::size_t(pos[r])]);
        if (trace)
            trace->embedding = x;
        if (additive.size())
            x += additive;
        // q = Wq_h x, k = Wk_h x with seeded projections N(0, 1/d).
        const MatrixF w = sentenceProjection(spec.seed, d, head, side).cast<float>();
        m.noalias() = x * w.transpose();
        if (trace) {
            trace->input = std::move(x);
            trace->projection = w;
        }
        return m;
    }
    }
    return m;
}

/// Rotates every row r of @c m in place by its row of @p rot (the unfused rotation: for the trace, and for
/// schemes whose own score reads the rotated q and k). The same float expression as the fused kernel's packing.
void rotateRows(MatrixF& m, const SideRotation& rot)
{
    const int pairs = rot.pairs;
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        float* row = m.data() + r * m.cols();
        const float* cr = rot.cos.data() + r * pairs;
        const float* sr = rot.sin.data() + r * pairs;
        for (int i = 0; i < pairs; ++i) {
            const int a = rot.halfSplit ? i : 2 * i;
            const int b = rot.halfSplit ? i + rot.half : 2 * i + 1;
            const float x0 = row[a], x1 = row[b];
            row[a] = x0 * cr[i] - x1 * sr[i];
            row[b] = x1 * cr[i] + x0 * sr[i];
        }
    }
}

/// The tables of one side's rotation, computed once for every head: cos and sin of every angle in one pass of
/// fillTrigTable (angles reduced in double), times the attention factor; xPos's per-pair scale as rotaryCos and
/// rotarySin apply it.
SideRotation sideRotation(const RotarySpec& spec, const PositionList& pos)
{
    SideRotation rot;
    rot.pairs = int(spec.invFreq.size());
    rot.halfSplit = spec.layout == PairLayout::HalfSplit;
    rot.half = spec.rotaryDim / 2;
    if (rot.pairs == 0)
        return rot;
    if (!spec.xposZeta.empty()) {
        rot.cos = rotaryCos(spec, pos);
        rot.sin = rotarySin(spec, pos);
        return rot;
    }
    rot.cos.resize(Eigen::Index(pos.size()), rot.pairs);
    rot.sin.resize(Eigen::Index(pos.size()), rot.pairs);
    TrigLayout layout;
    layout.cos = rot.cos.data();
    layout.sin = rot.sin.data();
    layout.rowStride = rot.pairs;
    layout.pairStride = 1;
    layout.scale = spec.attentionFactor;
    // A table of a few hundred thousand angles takes a tenth of a millisecond: one thread, no start-up to wait for.
    TrigFillOptions options;
    options.threads = double(pos.size()) * double(rot.pairs) <= double(1 << 20) ? 1 : 0;
    fillTrigTable(spec.invFreq, pos, layout, options);
    return rot;
}

bool samePositions(const PositionList& a, const PositionList& b)
{
    if (a.size() != b.size())
        return false;
    if (a.isRange() && b.isRange())
        return a.start() == b.start() && (a.step() == b.step() || a.size() < 2);
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i])
            return false;
    return true;
}

/// True when the two sides rotate alike: the key side can read the query side's tables.
bool sameRotation(const RotarySpec& a, const PositionList& pa, const RotarySpec& b, const PositionList& pb)
{
    return a.xposZeta.empty() && b.xposZeta.empty() && a.invFreq == b.invFreq && a.attentionFactor == b.attentionFactor
        && a.layout == b.layout && a.rotaryDim == b.rotaryDim && samePositions(pa, pb);
}

std::string headsProblem(int heads)
{
    return "--heads " + std::to_string(heads) + " is out of range; allowed: 1 to " + std::to_string(maxHeads);
}

const SchemeDescriptor& schemeOf(const AttentionRequest& r)
{
    return schemeOrThrow(r.scheme);
}

ParamSet paramsOf(const SchemeDescriptor& s, const ParamSet& given)
{
    return given.values().empty() ? defaultParams(s) : given;
}

TableContext tableContext(const AttentionRequest& r, const PositionList& positions)
{
    TableContext ctx;
    ctx.dim = r.headDim;
    ctx.positions = positions;
    ctx.seqLen = r.seqLen;
    return ctx;
}

int termCount(const SchemeDescriptor& s)
{
    if (s.hasAttentionTerms)
        return 5; // up to four terms and the bias
    return s.bias || s.scoreHasBias ? 1 : 0;
}

} // namespace

// --- validation and size ---------------------------------------------------------------------------------

void validateAttention(const AttentionRequest& r)
{
    const SchemeDescriptor& s = schemeOf(r);
    if (r.heads < 1 || r.heads > maxHeads)
        throw InputError(headsProblem(r.heads));
    if (r.onlyHead >= r.heads || r.onlyHead < -1)
        throw InputError("head " + std::to_string(r.onlyHead) + " does not exist; heads are 0 to "
                         + std::to_string(r.heads - 1));
    if (r.queries.size() == 0)
        throw InputError("no query positions given");
    if (r.keys.size() == 0)
        throw InputError("no key positions given");
    if (r.content.kind == ContentKind::Sentence) {
        const std::size_t n = splitWords(r.content.sentence).size();
        if (n == 0)
            throw InputError("--content: the sentence is empty");
        if (n > std::size_t(maxSentenceWords))
            throw InputError("--content: the sentence is too long: " + std::to_string(n) + " words, at most "
                             + std::to_string(maxSentenceWords));
        const Position last = Position(n) - 1;
        if (r.queries.maxValue() > last)
            throw InputError("query position " + std::to_string(r.queries.maxValue()) + " is outside the sentence ("
                             + std::to_string(n) + " words: positions 0 to " + std::to_string(last) + ")");
        if (r.keys.maxValue() > last)
            throw InputError("keys outside range: key position " + std::to_string(r.keys.maxValue())
                             + " is past the sentence (" + std::to_string(n) + " words: positions 0 to "
                             + std::to_string(last) + ")");
    }
    const ParamSet params = paramsOf(s, r.params);
    validateParamsOnce(s, params, tableContext(r, r.keys), r.checked.get());
    if (s.rotary && (r.headDim % 2 != 0))
        throw InputError(s.id + " needs an even head dimension (pairs are rotated); got " + std::to_string(r.headDim));
}

namespace {

PairContext pairContextOf(const AttentionRequest& r)
{
    PairContext pc;
    pc.headDim = r.headDim;
    pc.heads = r.heads;
    pc.queries = r.queries;
    pc.keys = r.keys;
    pc.causal = r.mask == MaskKind::Causal;
    pc.contentSeed = r.content.seed;
    return pc;
}

// One head of the scheme's own hooks (SchemeDescriptor::cost); nothing for schemes without a cost hook.
SchemeCost schemeCost(const AttentionRequest& r)
{
    const SchemeDescriptor* s = findScheme(r.scheme);
    if (!s || !s->cost)
        return {};
    return s->cost(paramsOf(*s, r.params), pairContextOf(r));
}

} // namespace

double attentionBytes(const AttentionRequest& r)
{
    const SchemeDescriptor* s = findScheme(r.scheme);
    const double cells = double(r.queries.size()) * double(r.keys.size());
    const double heads = r.onlyHead >= 0 ? 1.0 : double(std::max(r.heads, 1));
    double perHead = 4.0 * cells; // logits
    if (r.wantProbabilities)
        perHead += 4.0 * cells;
    if (s && r.wantTerms)
        perHead += 4.0 * cells * termCount(*s);
    if (s && s->bias)
        perHead += 8.0 * cells / heads; // one double bias matrix alive at a time
    // Per position and dimension, float32: q or k, its row of the cos and sin tables (r/2 pairs each, at most d
    // floats a row) and its copy in the product's packed panels.
    double content = 3.0 * 4.0 * double(r.queries.size() + r.keys.size()) * double(std::max(r.headDim, 1));
    // A sentence's projection of one side, d x d, in double as drawn and in float as used.
    if (r.content.kind == ContentKind::Sentence)
        content += 12.0 * double(std::max(r.headDim, 1)) * double(std::max(r.headDim, 1));
    // Heads run one after another: one head's scheme weights and buffers are alive at a time.
    return heads * perHead + cells /* mask */ + content + schemeCost(r).bytes;
}

double attentionWork(const AttentionRequest& r)
{
    const double lq = double(r.queries.size()), lk = double(r.keys.size()), d = double(std::max(r.headDim, 1));
    const double heads = r.onlyHead >= 0 ? 1.0 : double(std::max(r.heads, 1));
    // Per head: random content for both sides, the rotation, q.k, and a few passes over the cells (mask,
    // softmax, terms).
    // A sentence draws, per head, its two seeded d x d projections W_Q and W_K and multiplies the rows by them:
    // the d^2 that dominates at large d (0.75 s of CPU a head at d 4096 for six words, measured; it was not
    // counted, and 1024 heads ran for about 15 minutes). A normal draw costs about two uniform ones.
    const double projections
        = r.content.kind == ContentKind::Sentence ? 2.0 * d * d * 2.0 * drawOps + (lq + lk) * d * d : 0.0;
    const double perHead = (lq + lk) * d * drawOps + lq * lk * d + 8.0 * lq * lk + projections;
    return heads * (perHead + schemeCost(r).work);
}

// --- the engine ------------------------------------------------------------------------------------------

void maskedSoftmax(MatrixF& logits, const MaskMatrix& mask)
{
    softmaxParallel(logits, mask.size() ? &mask : nullptr);
}

AttentionResult attentionScores(const AttentionRequest& r, const Limits& limits, AttentionTrace* trace)
{
    validateAttention(r);
    const SchemeDescriptor& s = schemeOf(r);
    const ParamSet params = paramsOf(s, r.params);
    const std::string what = "attention scores of " + s.id + " for " + std::to_string(r.onlyHead >= 0 ? 1 : r.heads)
        + " head(s) x " + std::to_string(r.queries.size()) + " queries x " + std::to_string(r.keys.size())
        + " keys with d = " + std::to_string(r.headDim);
    checkSize(attentionBytes(r), limits, what);
    checkWork(attentionWork(r), limits, what);
    const int d = r.headDim;
    AttentionResult out;
    out.mask = makeMask(r.queries, r.keys, r.mask);
    const Content content = prepareContent(r.content, d);
    if (r.content.kind == ContentKind::Sentence) {
        for (std::size_t i = 0; i < r.queries.size(); ++i)
            out.queryTokens.push_back(content.words[std::size_t(r.queries[i])]);
        for (std::size_t j = 0; j < r.keys.size(); ++j)
            out.keyTokens.push_back(content.words[std::size_t(r.keys[j])]);
    }

    // Additive absolute schemes (sinusoidal, learned) add PE(p) to the content of each side.
    MatrixF addQ, addK;
    if (s.encoding && s.application == Application::Embedding) {
        addQ = s.encoding(params, tableContext(r, r.queries));
        addK = s.encoding(params, tableContext(r, r.keys));
    }
    // Rotary schemes: one spec; xPos scales the query up and the key down (Sun et al. 2022, eq. 11).
    std::optional<RotarySpec> specQ, specK;
    if (s.rotary && !r.drope) {
        TableContext ctx = tableContext(r, r.keys.maxValue() >= r.queries.maxValue() ? r.keys : r.queries);
        RotarySides sides = rotarySides(rotarySpecFor(s, params, ctx, r.checked.get()));
        specQ = std::move(sides.query);
        specK = std::move(sides.key);
        for (const auto& sc : specQ->scalars)
            out.scalars.push_back(sc);
    }
    if (r.drope)
        out.scalars.push_back({"drope", 1.0});
    // The cos and sin of every query's and key's angles, once for all heads (an iRoPE NoPE layer has no pairs).
    SideRotation rotQ, rotKOwn;
    if (specQ) {
        rotQ = sideRotation(*specQ, r.queries);
        if (!sameRotation(*specQ, r.queries, *specK, r.keys))
            rotKOwn = sideRotation(*specK, r.keys);
    }
    const SideRotation& rotK = rotKOwn.pairs > 0 || rotQ.pairs == 0 ? rotKOwn : rotQ;

    const PairContext pc = pairContextOf(r);

    // A causal mask leaves about half the matrix masked: the product skips what no row can see. Schemes with
    // their own score read the whole product (their terms are masked afterwards, as here).
    const std::optional<std::vector<int>> prefix = prefixLengths(r.queries, r.keys, r.mask);
    std::optional<std::vector<int>> causalEnds;
    if (r.mask == MaskKind::Causal && !s.score)
        causalEnds = prefix ? *prefix : visibleEnds(out.mask);
    const int h0 = r.onlyHead >= 0 ? r.onlyHead : 0;
    const int h1 = r.onlyHead >= 0 ? r.onlyHead + 1 : r.heads;
    // The factor on q.k as the scheme defines it: 1/sqrt(d), T5's 1 (no scaling), DeBERTa's 1/sqrt(3d).
    const float scale = float(logitScaleOf(s, params, d));
    for (int h = h0; h < h1; ++h) {
        AttentionHead head;
        head.index = h;
        // The trace (the pipeline view) records the first head computed, from the very matrices used here.
        const bool tracing = trace && h == h0;
        ContentTrace ctq, ctk;
        MatrixF q = contentRows(r.content, content, r.queries, d, h, 0, addQ, tracing ? &ctq : nullptr);
        MatrixF k = contentRows(r.content, content, r.keys, d, h, 1, addK, tracing ? &ctk : nullptr);
        if (tracing) {
            trace->embedding = std::move(ctq.embedding);
            trace->position = addQ;
            trace->input = std::move(ctq.input);
            trace->wq = std::move(ctq.projection);
            trace->wk = std::move(ctk.projection);
            trace->q = q;
            trace->k = k;
        }
        // Rotary schemes: q and k are rotated inside the fused product (kernel::scoresNT), never as whole copies.
        // The trace records the rotated vectors (the unfused rotation, the same float expression), and a scheme
        // with its own score reads them, so for it they are rotated in place first.
        const bool fused = rotQ.pairs > 0 && !s.score;
        if (rotQ.pairs > 0) {
            if (tracing) {
                trace->qRotated = q;
                trace->kRotated = k;
                rotateRows(trace->qRotated, rotQ);
                rotateRows(trace->kRotated, rotK);
            }
            if (!fused) {
                rotateRows(q, rotQ);
                rotateRows(k, rotK);
            }
        }
        // Under a causal mask only the visible blocks are multiplied and the masked entries are NaN; a traced head
        // (the pipeline view) keeps the whole product.
        const bool triangle = causalEnds && !tracing;
        scoresProduct(q, k, fused ? &rotQ : nullptr, fused ? &rotK : nullptr, head.logits, scale,
                      triangle ? &*causalEnds : nullptr);
        if (tracing)
            trace->contentLogits = head.logits;
        if (s.bias) {
            MatrixF b = s.bias(params, pc, h).cast<float>();
            head.logits += b;
            if (tracing)
                trace->bias = b;
            if (r.wantTerms)
                head.bias = std::move(b);
        }
        if (s.score) {
            ScoreInputs in;
            in.ctx = &pc;
            in.head = h;
            in.q = &q;
            in.k = &k;
            in.mask = &out.mask;
            in.wantTerms = r.wantTerms;
            ScoreOutputs so;
            so.logits = std::move(head.logits);
            s.score(params, in, so);
            head.logits = std::move(so.logits);
            if (r.wantTerms) {
                if (so.bias.size())
                    head.bias = std::move(so.bias);
                head.terms = std::move(so.terms);
            }
            if (!so.queryScale.empty())
                out.queryScale = so.queryScale;
            // Once each: a name the rotary spec already reported (iRoPE's rope_layer) is not written again.
            for (const auto& sc : so.scalars)
                if (h == h0 && std::none_of(out.scalars.begin(), out.scalars.end(), [&](const auto& have) {
                        return have.first == sc.first;
                    }))
                    out.scalars.push_back(sc);
        }
        if (s.id == "alibi") {
            // The slope of this head, for the legend (ALiBi's bias is -slope * distance).
            const MatrixD one = s.bias(
                params,
                [&] {
                    PairContext c = pc;
                    c.queries = PositionList::list({1});
                    c.keys = PositionList::list({0});
                    return c;
                }(),
                h);
            head.scalars.push_back({"slope", -one(0, 0)});
        }
        if (tracing) {
            trace->logits = head.logits;
            if (s.score && head.bias.size())
                trace->bias = head.bias;
        }
        if (r.wantProbabilities) {
            allocate(head.probabilities, head.logits.rows(), head.logits.cols());
            head.probabilities = head.logits;
            softmaxParallel(head.probabilities, r.mask == MaskKind::Causal ? &out.mask : nullptr);
        }
        if (r.mask == MaskKind::Causal) {
            const std::vector<int>* tails = prefix ? &*prefix : nullptr;
            if (!(triangle && prefix)) // the triangle product already wrote NaN after each prefix
                applyMaskNaN(head.logits, out.mask, tails);
            applyMaskNaN(head.bias, out.mask, tails);
            for (auto& t : head.terms)
                applyMaskNaN(t.values, out.mask, tails);
        }
        out.heads.push_back(std::move(head));
    }
    return out;
}

// --- decay curves ----------------------------------------------------------------------------------------

std::string_view decayNormalisationName(DecayNormalisation n)
{
    return n == DecayNormalisation::AtZero ? "at_zero" : "none";
}

DecayNormalisation parseDecayNormalisation(std::string_view name)
{
    if (name == "none")
        return DecayNormalisation::None;
    if (name == "at_zero")
        return DecayNormalisation::AtZero;
    throw InputError("unknown normalisation '" + std::string(name)
                     + "'; known: none (raw values), at_zero (each curve divided by its value at distance 0)");
}

std::string_view decayContentName(const ContentSpec& content)
{
    switch (content.kind) {
    case ContentKind::Constant: return "ones";
    case ContentKind::Random: return "random";
    case ContentKind::Sentence: return "sentence";
    }
    return "?";
}

void normaliseDecayAtZero(DecaySeries& curve, double atZero)
{
    if (atZero == 0.0 || !std::isfinite(atZero))
        throw InputError("curve " + curve.key
                         + " is 0 at distance 0 and cannot be normalised there; use "
                           "normalisation none");
    for (double& v : curve.values)
        v /= atZero;
    curve.label += ", divided by its value at delta = 0";
}

double decayWork(const DecayRequest& r)
{
    const SchemeDescriptor& s = schemeOrThrow(r.scheme);
    const ParamSet params = paramsOf(s, r.params);
    const std::size_t n = r.distances.size();
    // A few transcendentals per distance and pair (sinusoid, rotation and its bound), and each head's bias hook on
    // n x 1 pairs (Sandwich sums d'/2 cosines per pair).
    const double pairsOf = double(std::max(r.headDim, 2)) / 2.0;
    double work = double(n) * pairsOf * 4.0 * drawOps + double(r.samples) * double(r.headDim) * drawOps;
    if (s.bias) {
        PairContext pc;
        pc.headDim = r.headDim;
        pc.heads = r.heads;
        pc.queries = PositionList::range(0, Position(n));
        pc.keys = PositionList::range(0, 1);
        work += double(r.heads) * (double(n) * 8.0 + (s.cost ? s.cost(params, pc).work : 0.0));
    }
    return work;
}

std::vector<DecaySeries> decayCurves(const DecayRequest& r, const Limits& limits)
{
    const SchemeDescriptor& s = schemeOrThrow(r.scheme);
    const ParamSet params = paramsOf(s, r.params);
    if (r.heads < 1 || r.heads > maxHeads)
        throw InputError(headsProblem(r.heads));
    if (r.distances.empty())
        throw InputError("decay needs at least one distance");
    if (r.samples < 1 || r.samples > maxDecaySamples)
        throw InputError("--samples " + std::to_string(r.samples) + " is out of range; allowed: 1 to "
                         + std::to_string(maxDecaySamples));
    TableContext ctx;
    ctx.dim = r.headDim;
    Position far = 0;
    for (Position x : r.distances)
        far = std::max(far, x < 0 ? -x : x);
    ctx.positions = PositionList::range(0, std::max<Position>(far + r.origin + 1, 1));
    validateParamsOnce(s, params, ctx, r.checked.get());
    std::vector<DecaySeries> out;
    const std::size_t n = r.distances.size();
    checkWork(decayWork(r), limits,
              "decay curves of " + s.id + " over " + std::to_string(n) + " distances with d = "
                  + std::to_string(r.headDim) + " and " + std::to_string(r.heads) + " head(s)");
    const bool normalise = r.normalisation == DecayNormalisation::AtZero;
    // Divides every value by @p atZero (the curve's value at delta = 0) when asked.
    auto finish = [&](DecaySeries& c, double atZero) {
        if (normalise)
            normaliseDecayAtZero(c, atZero);
    };

    if (s.encoding && s.frequencies && s.application == Application::Embedding) {
        const std::vector<double> w = s.frequencies(params, ctx);
        DecaySeries dot{"dot", "PE(p) . PE(p + delta) = sum_i cos(delta w_i)", std::vector<double>(n)};
        for (std::size_t t = 0; t < n; ++t)
            for (double wi : w)
                dot.values[t] += std::cos(double(r.distances[t]) * wi);
        finish(dot, double(w.size()));
        out.push_back(std::move(dot));
    }
    if (s.rotary) {
        const RotarySpec spec = rotarySpecFor(s, params, ctx, r.checked.get());
        const int pairs = int(spec.invFreq.size());
        // Per pair, the mean squared norm of the pair over the content vectors x_t (head 0, query side):
        // x.R(delta)x = sum_i |x_i|^2 cos(delta theta_i) (the sine part vanishes when q = k); the unrotated
        // dimensions add |x_rest|^2. Ones content: |x_i|^2 = 2 per pair, d - r for the rest.
        std::vector<double> pairEnergy(std::size_t(pairs), 2.0);
        double rest = double(r.headDim - spec.rotaryDim);
        std::string contentText = "q = k = (1, ..., 1)";
        if (r.content.kind != ContentKind::Constant) {
            const Content content = prepareContent(r.content, r.headDim);
            const Position count = r.content.kind == ContentKind::Sentence
                ? std::min<Position>(r.samples, Position(content.words.size()))
                : r.samples;
            const MatrixF x
                = contentRows(r.content, content, PositionList::range(0, count), r.headDim, 0, 0, MatrixF());
            std::vector<char> rotated(std::size_t(r.headDim), 0);
            for (int i = 0; i < pairs; ++i) {
                const auto [a, b] = pairDims(spec.layout, spec.rotaryDim, i);
                rotated[std::size_t(a)] = rotated[std::size_t(b)] = 1;
                double e = 0.0;
                for (Eigen::Index t = 0; t < x.rows(); ++t)
                    e += double(x(t, a)) * x(t, a) + double(x(t, b)) * x(t, b);
                pairEnergy[std::size_t(i)] = e / double(x.rows());
            }
            rest = 0.0;
            for (int c = 0; c < r.headDim; ++c)
                if (!rotated[std::size_t(c)])
                    for (Eigen::Index t = 0; t < x.rows(); ++t)
                        rest += double(x(t, c)) * x(t, c) / double(x.rows());
            contentText = r.content.kind == ContentKind::Random
                ? "mean over " + std::to_string(count) + " random N(0, 1) vectors x_t (seed "
                    + std::to_string(r.content.seed) + "), q = k = x_t"
                : "mean over the first " + std::to_string(count) + " words' vectors x_t, q = k = x_t";
        }
        const double af2 = spec.attentionFactor * spec.attentionFactor;
        const bool xpos = !spec.xposZeta.empty();
        DecaySeries score{"score",
                          "q . R(delta theta) k with " + contentText + " (no 1/sqrt(d))"
                              + (xpos ? ", times zeta_i^(delta/scale_base)" : ""),
                          std::vector<double>(n)};
        DecaySeries bound{"bound",
                          "RoFormer relative upper bound (1/(r/2)) sum_j |S_j|, S_j = sum_{l<j} exp(i delta theta_l)",
                          std::vector<double>(n)};
        auto scoreAt = [&](double delta) {
            double sc = rest;
            for (int i = 0; i < pairs; ++i) {
                // xPos: the query delta tokens after the key, zeta^((delta - c)/sb) * zeta^(-(0 - c)/sb).
                const double decay = xpos ? std::pow(spec.xposZeta[std::size_t(i)], delta / spec.xposScaleBase) : 1.0;
                sc += af2 * pairEnergy[std::size_t(i)] * decay * std::cos(delta * spec.invFreq[std::size_t(i)]);
            }
            return sc;
        };
        for (std::size_t t = 0; t < n; ++t) {
            const double delta = double(r.distances[t]);
            // One sine and cosine per pair serve both curves (the same values scoreAt() and std::polar give). |S_j| as
            // sqrt(re^2 + im^2): |S_j| <= r/2, far from overflow, and std::abs (hypot) took a third of the loop.
            double re = 0.0, im = 0.0;
            double sumAbs = 0.0;
            double sc = rest;
            for (int i = 0; i < pairs; ++i) {
                const double angle = delta * spec.invFreq[std::size_t(i)];
                const double c = std::cos(angle);
                re += c;
                im += std::sin(angle);
                sumAbs += std::sqrt(re * re + im * im);
                const double decay = xpos ? std::pow(spec.xposZeta[std::size_t(i)], delta / spec.xposScaleBase) : 1.0;
                sc += af2 * pairEnergy[std::size_t(i)] * decay * c;
            }
            score.values[t] = sc;
            bound.values[t] = pairs > 0 ? sumAbs / double(pairs) : std::numeric_limits<double>::quiet_NaN();
        }
        finish(score, scoreAt(0.0));
        out.push_back(std::move(score));
        if (pairs > 0) {
            finish(bound, double(pairs + 1) / 2.0); // delta 0: S_j = j, (1/(r/2)) sum_j j = (r/2 + 1)/2
            out.push_back(std::move(bound));
        }
    }
    if (s.bias) {
        if (normalise)
            throw InputError("scheme " + s.id
                             + " has bias curves in nats (0 at distance 0); normalisation "
                               "at_zero applies to dot-product and score curves only");
        // delta >= 0: the key delta tokens before the query; delta < 0: after it. Two calls per head: one
        // column of queries against the origin key, one row of keys against the origin query.
        std::vector<Position> later, earlier;
        for (Position x : r.distances)
            (x >= 0 ? later : earlier).push_back(x >= 0 ? r.origin + x : r.origin - x);
        PairContext a, b;
        a.headDim = b.headDim = r.headDim;
        a.heads = b.heads = r.heads;
        a.causal = b.causal = false;
        if (!later.empty()) {
            a.queries = PositionList::list(later);
            a.keys = PositionList::list({r.origin});
        }
        if (!earlier.empty()) {
            b.queries = PositionList::list({r.origin});
            b.keys = PositionList::list(earlier);
        }
        for (int h = 0; h < r.heads; ++h) {
            const MatrixD ma = later.empty() ? MatrixD() : s.bias(params, a, h);
            const MatrixD mb = earlier.empty() ? MatrixD() : s.bias(params, b, h);
            DecaySeries c{"bias_head_" + std::to_string(h), "head " + std::to_string(h), std::vector<double>(n)};
            std::size_t ia = 0, ib = 0;
            for (std::size_t t = 0; t < n; ++t)
                c.values[t] = r.distances[t] >= 0 ? ma(Eigen::Index(ia++), 0) : mb(0, Eigen::Index(ib++));
            out.push_back(std::move(c));
        }
    }
    if (s.encoding && !s.frequencies && s.application == Application::Embedding && s.relation != Relation::None) {
        // A table without per-pair frequencies (learned): no closed form, so the rows themselves,
        // E(origin) . E(origin + delta) in double from the float32 rows; it depends on the origin.
        std::vector<Position> rows{r.origin};
        for (Position x : r.distances) {
            if (r.origin + x < 0)
                throw InputError("distance " + std::to_string(x) + " from origin " + std::to_string(r.origin)
                                 + " is before position 0");
            rows.push_back(r.origin + x);
        }
        TableContext tc;
        tc.dim = r.headDim;
        tc.positions = PositionList::list(rows);
        const MatrixF e = s.encoding(params, tc);
        DecaySeries dot{"dot", "E(p) . E(p + delta) at p = " + std::to_string(r.origin), std::vector<double>(n)};
        for (std::size_t t = 0; t < n; ++t)
            dot.values[t] = e.row(0).cast<double>().dot(e.row(Eigen::Index(t + 1)).cast<double>());
        finish(dot, e.row(0).cast<double>().dot(e.row(0).cast<double>()));
        out.push_back(std::move(dot));
    }
    if (s.id == "deberta") {
        // DeBERTa's position terms read content (c2p, p2c), so no score curve exists; what depends on the distance
        // alone is the row of the relative-position tables each distance reads (rel = query - key = delta).
        if (normalise)
            throw InputError("scheme deberta has a bucket-row curve (0 at distance 0); normalisation at_zero applies "
                             "to dot-product and score curves only");
        DecaySeries row{"bucket_row",
                        "row delta of the relative-position table read at distance delta: clamp(bucket(delta), -s, "
                        "s - 1), s = position_buckets (max_relative_positions when 0)",
                        std::vector<double>(n)};
        for (std::size_t t = 0; t < n; ++t)
            row.values[t] = double(debertaTableRow(params, r.distances[t]));
        out.push_back(std::move(row));
    }
    if (out.empty())
        throw InputError("scheme " + s.id
                         + " has no decay curve (it has none of: an additive table, a rotation, "
                           "a score bias, DeBERTa's bucket rows)");
    return out;
}

// --- benchmarks ------------------------------------------------------------------------------------------

namespace {
double medianMs(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
} // namespace

std::vector<BenchFigure> attentionBenchmarks()
{
    std::vector<BenchFigure> figures;
    using clock = std::chrono::steady_clock;
    AttentionRequest big;
    big.scheme = "rope";
    big.headDim = 128;
    big.heads = 1;
    big.queries = PositionList::range(0, 4096);
    big.keys = PositionList::range(0, 4096);
    big.mask = MaskKind::Bidirectional;
    big.wantProbabilities = false;
    big.wantTerms = false;
    // Wall times in ms of @p reps runs of one request, after one untimed call (as the table figures): the first
    // call's thread start-up and first touch of the heap took 4x a later call's time (210 ms against 50 here) and
    // moved the median. bench/peer_attention.py --scores times numpy the same way.
    const auto timeScores = [](const AttentionRequest& request, int reps) {
        std::vector<double> ms;
        attentionScores(request);
        for (int rep = 0; rep < reps; ++rep) {
            const auto t0 = clock::now();
            const AttentionResult res = attentionScores(request);
            ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
        }
        return ms;
    };
    std::vector<double> times = timeScores(big, 5);
    figures.push_back(
        {"scores_4096_ms", medianMs(times),
         std::string(
             "ms, median of 5 after 1 warm-up: 4096 x 4096 RoPE logits, head dim 128, one head, random q/k drawn "
             "and rotated inside the timing (kernel: ")
             + kernel::isaName() + ")"});
    // The same with a causal mask: only the blocks of the visible triangle are multiplied (12 x 32 with AVX-512).
    big.mask = MaskKind::Causal;
    times = timeScores(big, 5);
    figures.push_back(
        {"scores_4096_causal_ms", medianMs(times),
         "ms, median of 5 after 1 warm-up: as scores_4096_ms with a causal mask (the blocks no row sees are not "
         "multiplied)"});

    // The softmax alone on the same size.
    MatrixF logits = MatrixF::Random(4096, 4096);
    const MaskMatrix mask = makeMask(big.queries, big.keys, MaskKind::Causal);
    times.clear();
    for (int rep = 0; rep < 3; ++rep) {
        MatrixF work = logits;
        const auto t0 = clock::now();
        maskedSoftmax(work, mask);
        times.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    figures.push_back({"softmax_4096_ms", medianMs(times), "ms, median of 3: causal masked softmax of 4096 x 4096"});

    AttentionRequest view;
    view.scheme = "alibi";
    view.headDim = 64;
    view.heads = 8;
    view.queries = PositionList::range(0, 512);
    view.keys = PositionList::range(0, 512);
    times = timeScores(view, 5);
    figures.push_back(
        {"scores_512_ms", medianMs(times),
         "ms, median of 5: 512 x 512 ALiBi, 8 heads, head dim 64, causal, logits + probabilities + bias"});
    return figures;
}

} // namespace poslab::core
