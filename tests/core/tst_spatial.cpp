// SPDX-License-Identifier: MIT
// The grid and sequence schemes (core/spatial.h) against references written here, in long double, from the
// formulas of the cited code:
//   facebookresearch/mae util/pos_embed.py get_2d_sincos_pos_embed (+ _from_grid, get_1d_sincos_pos_embed_from_grid);
//   pytorch/pytorch aten/src/ATen/native/cpu/UpSampleKernel.cpp (HelperInterpCubic, HelperInterpLinear,
//     _compute_indices_min_size_weights_aa) and UpSample.h (cubic_convolution1/2, area_pixel_compute_source_index);
//   huggingface/pytorch-image-models timm/layers/pos_embed.py resample_abs_pos_embed;
//   naver-ai/rope-vit models/vit_rope.py compute_axial_cis, init_random_2d_freqs, compute_mixed_cis, init_t_xy;
//   huggingface/transformers models/pixtral/modeling_pixtral.py PixtralRotaryEmbedding;
//   huggingface/transformers models/qwen2_vl/modeling_qwen2_vl.py get_rope_index, apply_multimodal_rotary_pos_emb;
//     qwen2_5_vl/modeling_qwen2_5_vl.py get_rope_index; qwen3_vl/modeling_qwen3_vl.py get_rope_index,
//     apply_interleaved_mrope.
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/encodings/learned.h"
#include "core/encodings/mrope.h"
#include "core/encodings/rope.h"
#include "core/errors.h"
#include "core/interpolate.h"
#include "core/random.h"
#include "core/rotary.h"
#include "core/spatial.h"

#include <QTest>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <set>

using namespace poslab::core;

namespace {

constexpr long double piL = std::numbers::pi_v<long double>;

const SpatialSchemeDescriptor& scheme(const std::string& id)
{
    const SpatialSchemeDescriptor* s = findSpatialScheme(id);
    if (!s)
        qFatal("no spatial scheme %s", id.c_str());
    return *s;
}

SpatialContext gridCtx(int rows, int cols, int dim, bool cls = false)
{
    SpatialContext c;
    c.dim = dim;
    c.grid = {rows, cols};
    c.cls = cls;
    return c;
}

SpatialContext seqCtx(const std::string& seq, int dim)
{
    SpatialContext c;
    c.dim = dim;
    c.sequence = parseSequence(seq);
    return c;
}

ParamSet params(const std::string& id, const Overrides& o, const SpatialContext& c)
{
    return resolveSpatialParams(scheme(id), o, c);
}

bool close(long double a, long double b, long double tol)
{
    return std::fabs(a - b) <= tol * std::max(1.0L, std::fabs(b));
}

// Keys' cubic convolution kernel, written from its definition (Keys 1981, eq. 15) rather than Horner form.
long double keysL(long double x, long double a)
{
    x = std::fabs(x);
    if (x <= 1)
        return (a + 2) * x * x * x - (a + 3) * x * x + 1;
    if (x < 2)
        return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
    return 0;
}

// One output sample of a 1-D resize of @p in at index o, as PyTorch's kernels define it.
long double resample1d(const std::vector<long double>& in, int outSize, int o, bool bicubic, bool aa)
{
    const int n = int(in.size());
    if (n == outSize)
        return in[std::size_t(o)];
    const long double scale = (long double)n / outSize;
    if (!aa && bicubic) {
        const long double s = scale * (o + 0.5L) - 0.5L;
        const long double f = std::floor(s);
        long double sum = 0;
        for (int j = -1; j <= 2; ++j) {
            const int idx = std::clamp(int(f) + j, 0, n - 1);
            sum += keysL(s - (f + j), -0.75L) * in[std::size_t(idx)];
        }
        return sum;
    }
    if (!aa) {
        const long double s = std::max(scale * (o + 0.5L) - 0.5L, 0.0L);
        const int i0 = std::min(int(s), n - 1);
        const int i1 = std::min(i0 + 1, n - 1);
        const long double l = std::min(s - i0, 1.0L);
        return (1 - l) * in[std::size_t(i0)] + l * in[std::size_t(i1)];
    }
    const long double support = (bicubic ? 2.0L : 1.0L) * std::max(scale, 1.0L);
    const long double centre = scale * (o + 0.5L);
    const long long lo = std::max<long long>((long long)(centre - support + 0.5L), 0);
    const long long hi = std::min<long long>((long long)(centre + support + 0.5L), n);
    long double sum = 0, total = 0;
    for (long long j = lo; j < hi; ++j) {
        const long double x = (j - centre + 0.5L) / std::max(scale, 1.0L);
        const long double w = bicubic ? keysL(x, -0.5L) : std::max(0.0L, 1 - std::fabs(x));
        sum += w * in[std::size_t(j)];
        total += w;
    }
    return sum / total;
}

// A 2-D resize as separable 1-D passes (rows first, then columns), one channel.
std::vector<long double> resample2d(const std::vector<long double>& in, int h, int w, int oh, int ow, bool bicubic,
                                    bool aa)
{
    std::vector<long double> mid(std::size_t(h) * ow), out(std::size_t(oh) * ow);
    for (int y = 0; y < h; ++y) {
        std::vector<long double> row(in.begin() + std::ptrdiff_t(y) * w, in.begin() + std::ptrdiff_t(y + 1) * w);
        for (int x = 0; x < ow; ++x)
            mid[std::size_t(y) * ow + x] = resample1d(row, ow, x, bicubic, aa);
    }
    for (int x = 0; x < ow; ++x) {
        std::vector<long double> col(static_cast<std::size_t>(h));
        for (int y = 0; y < h; ++y)
            col[std::size_t(y)] = mid[std::size_t(y) * ow + x];
        for (int y = 0; y < oh; ++y)
            out[std::size_t(y) * ow + x] = resample1d(col, oh, y, bicubic, aa);
    }
    return out;
}

double at(const ComputeResult& r, std::size_t row, std::size_t col)
{
    return r.data[row * r.shape[1] + col];
}

} // namespace

class TestSpatial : public QObject {
    Q_OBJECT
private slots:
    void parsesGridsAndSequences();
    void refusesBadGridsAndSequences();
    void tableIsSeparateFromTheOneDimensionalRegistry();

    void sincos2dMatchesMae();
    void sincos2dFirstHalfIsTheColumn();
    void sincos2dRefusesDimensionsNotMultipleOf4();

    void bicubicHandValues();
    void resizeMatchesPyTorchFormulas_data();
    void resizeMatchesPyTorchFormulas();
    void vitTableKeepsClassRowAndResizesGrid();

    void ropeVitAxialAngles();
    void ropeVitMixedAngles();
    void ropeVitMixedWithoutRotateIsAxial();
    void rope2dScoreDependsOnTheOffsetOnly();

    void pixtralAngles();
    void pixtralRefusesGridsBeyondItsTable();

    void mropeDocstringExample();
    void mropeImageBetweenText();
    void mropeTimeAlignedVideo();
    void mropeTimeIdsAreFloat32AsTransformers();
    void mropeQwen3SplitsVideoFrames();
    void mropeSections();
    void mropeAnglesAndTextMatchesRope();
    void mropeRefusesBadSections();
};

void TestSpatial::parsesGridsAndSequences()
{
    QCOMPARE(parseGrid("14x14"), (Grid{14, 14}));
    QCOMPARE(parseGrid("3x5").patches(), std::int64_t(15));
    const TokenSequence s = parseSequence("text:3,image:1x2x2,video:2x1x3,text:1");
    QCOMPARE(s.segments.size(), std::size_t(4));
    QCOMPARE(s.tokens(), std::int64_t(3 + 4 + 6 + 1));
    QCOMPARE(sequenceText(s), std::string("text:3,image:1x2x2,video:2x1x3,text:1"));
}

void TestSpatial::refusesBadGridsAndSequences()
{
    for (const char* bad : {"14", "0x4", "4x", "ax3", "3x-1", "70000x1", "5000x5000", "2x2x2"})
        QVERIFY_THROWS_EXCEPTION(InputError, parseGrid(bad));
    for (const char* bad : {"", "text:0", "text:x", "image:1x2", "audio:3", "text:3,", "video:0x2x2",
                            "image:4096x4096x4096", "text:16777216,text:1"})
        QVERIFY_THROWS_EXCEPTION(InputError, parseSequence(bad));
    try {
        parseGrid("5000x5000");
        QFAIL("no error");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("25000000 tokens") != std::string::npos, e.what());
    }
}

void TestSpatial::tableIsSeparateFromTheOneDimensionalRegistry()
{
    std::set<std::string> ids;
    for (const auto& s : schemes())
        ids.insert(s.id);
    const std::set<std::string> expected = {"vit_learned", "sincos_2d", "rope_2d", "pixtral_rope", "mrope"};
    std::set<std::string> spatial;
    for (const auto& s : spatialSchemes()) {
        QVERIFY2(!ids.count(s.info.id), s.info.id.c_str()); // never in the 1-D table the views draw
        spatial.insert(s.info.id);
        QVERIFY(!s.quantities().empty());
        QVERIFY(!s.info.citation.empty() && !s.info.reference.empty() && !s.info.formula.empty());
        // Every default resolves for the scheme's own example input.
        const SpatialContext c = s.input == SpatialInput::Grid ? gridCtx(4, 4, 16) : seqCtx("text:2,image:1x2x2", 16);
        Overrides o;
        if (s.info.id == "mrope")
            o = {{"mrope_section", "2,3,3"}};
        QCOMPARE(resolveSpatialParams(s, o, c).values().size(), s.info.params.size());
    }
    QCOMPARE(spatial, expected);
    QCOMPARE(scheme("mrope").quantities().front(), Quantity::PositionIds);
    QCOMPARE(parseQuantity("position_ids"), Quantity::PositionIds);
}

void TestSpatial::sincos2dMatchesMae()
{
    const int H = 3, W = 5, D = 16, q = D / 4;
    const SpatialContext c = gridCtx(H, W, D, true);
    const ComputeResult r = [&] {
        ComputeRequest req;
        req.quantity = Quantity::Encoding;
        req.scheme = "sincos_2d";
        req.context.dim = D;
        req.grid = Grid{H, W};
        req.cls = true;
        return compute(req);
    }();
    QCOMPARE(r.shape, (std::vector<std::size_t>{std::size_t(H * W + 1), std::size_t(D)}));
    for (int k = 0; k < D; ++k)
        QCOMPARE(at(r, 0, std::size_t(k)), 0.0); // cls_token: np.zeros([1, embed_dim]) first
    for (int i = 0; i < H; ++i)
        for (int j = 0; j < W; ++j)
            for (int k = 0; k < q; ++k) {
                // get_1d_sincos_pos_embed_from_grid: omega = 1 / 10000^(k / (D/4)); [sin, cos] of pos * omega;
                // grid[0] (the first half) is the w coordinate of np.meshgrid(grid_w, grid_h).
                const long double omega = 1.0L / std::pow(10000.0L, (long double)k / q);
                const std::size_t row = 1 + std::size_t(i * W + j);
                QVERIFY(close(at(r, row, std::size_t(k)), std::sin(j * omega), 1e-6L));
                QVERIFY(close(at(r, row, std::size_t(q + k)), std::cos(j * omega), 1e-6L));
                QVERIFY(close(at(r, row, std::size_t(2 * q + k)), std::sin(i * omega), 1e-6L));
                QVERIFY(close(at(r, row, std::size_t(3 * q + k)), std::cos(i * omega), 1e-6L));
            }
    (void)c;
}

void TestSpatial::sincos2dFirstHalfIsTheColumn()
{
    // Patch (0, 1) moved one column: its first half changes, its second half is that of patch (0, 0).
    const MatrixF m = scheme("sincos_2d").encoding(params("sincos_2d", {}, gridCtx(2, 2, 8)), gridCtx(2, 2, 8));
    QCOMPARE(m.rows(), Eigen::Index(4));
    QCOMPARE(m(1, 0), float(std::sin(1.0))); // sin(j * omega_0), j = 1
    QCOMPARE(m(1, 4), 0.0f);                 // sin(i * omega_0), i = 0
    QCOMPARE(m(2, 0), 0.0f);                 // patch (1, 0): column 0
    QCOMPARE(m(2, 4), float(std::sin(1.0))); // row 1
}

void TestSpatial::sincos2dRefusesDimensionsNotMultipleOf4()
{
    QVERIFY_THROWS_EXCEPTION(InputError, params("sincos_2d", {}, gridCtx(2, 2, 6)));
}

void TestSpatial::bicubicHandValues()
{
    // Upsampling [0, 1] to 4 samples, output 0: s = 0.5 * 0.5 - 0.5 = -0.25, taps -2..1 clamped to 0, 0, 0, 1;
    // the last tap's weight is Keys(1.25, A = -0.75) = -0.10546875 (upsample_bicubic2d).
    MatrixD two(2, 1);
    two << 0.0, 1.0;
    const MatrixD plain = resizeGrid(two, 1, 2, 1, 4, Interpolation::Bicubic, false);
    QCOMPARE(plain(0, 0), -0.10546875);
    QCOMPARE(plain(3, 0), 1.10546875); // mirror image at the other border
    // Antialiased: centre 0.25, taps 0 and 1 with Keys(0.25), Keys(1.25) at A = -0.5, normalised:
    // -0.0703125 / (0.8671875 - 0.0703125) = -0.088235294...
    const MatrixD aa = resizeGrid(two, 1, 2, 1, 4, Interpolation::Bicubic, true);
    QVERIFY(close(aa(0, 0), -0.0703125L / 0.796875L, 1e-15L));
    // Same size: unchanged, both ways.
    QCOMPARE(resizeGrid(two, 1, 2, 1, 2, Interpolation::Bicubic, true), two);
}

void TestSpatial::resizeMatchesPyTorchFormulas_data()
{
    QTest::addColumn<int>("h");
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("oh");
    QTest::addColumn<int>("ow");
    QTest::addColumn<bool>("bicubic");
    QTest::addColumn<bool>("aa");
    for (bool bicubic : {true, false})
        for (bool aa : {false, true}) {
            const std::string tag = std::string(bicubic ? "bicubic" : "bilinear") + (aa ? " aa" : "");
            QTest::newRow((tag + " 14x14->24x24").c_str()) << 14 << 14 << 24 << 24 << bicubic << aa;
            QTest::newRow((tag + " 3x4->5x7").c_str()) << 3 << 4 << 5 << 7 << bicubic << aa;
            QTest::newRow((tag + " 9x6->4x3 down").c_str()) << 9 << 6 << 4 << 3 << bicubic << aa;
            QTest::newRow((tag + " 1x5->3x2").c_str()) << 1 << 5 << 3 << 2 << bicubic << aa;
        }
}

void TestSpatial::resizeMatchesPyTorchFormulas()
{
    QFETCH(int, h);
    QFETCH(int, w);
    QFETCH(int, oh);
    QFETCH(int, ow);
    QFETCH(bool, bicubic);
    QFETCH(bool, aa);
    SeededRandom rng(42);
    MatrixD src(h * w, 2);
    std::vector<long double> c0, c1;
    for (int r = 0; r < h * w; ++r) {
        src(r, 0) = rng.normal();
        src(r, 1) = rng.normal();
        c0.push_back(src(r, 0));
        c1.push_back(src(r, 1));
    }
    const MatrixD out = resizeGrid(src, h, w, oh, ow, bicubic ? Interpolation::Bicubic : Interpolation::Bilinear, aa);
    const auto r0 = resample2d(c0, h, w, oh, ow, bicubic, aa), r1 = resample2d(c1, h, w, oh, ow, bicubic, aa);
    QCOMPARE(out.rows(), Eigen::Index(oh * ow));
    for (int i = 0; i < oh * ow; ++i) {
        QVERIFY2(close(out(i, 0), r0[std::size_t(i)], 1e-12L), qPrintable(QString::number(i)));
        QVERIFY(close(out(i, 1), r1[std::size_t(i)], 1e-12L));
    }
}

void TestSpatial::vitTableKeepsClassRowAndResizesGrid()
{
    const int D = 8;
    const MatrixF base = learnedBaseTable(1 + 14 * 14, D, 0.02, 0);
    // At the trained grid the table is the draw itself, bit for bit (timm returns posemb unchanged).
    const SpatialContext same = gridCtx(14, 14, D, true);
    const MatrixF t = scheme("vit_learned").encoding(params("vit_learned", {}, same), same);
    QCOMPARE(t.rows(), Eigen::Index(197));
    QVERIFY(t == base);
    // At 24x24: the class row as it was, the grid part resized (bicubic, antialias: timm's defaults).
    const SpatialContext big = gridCtx(24, 24, D, true);
    const MatrixF u = scheme("vit_learned").encoding(params("vit_learned", {}, big), big);
    QCOMPARE(u.rows(), Eigen::Index(1 + 576));
    QVERIFY(u.row(0) == base.row(0));
    for (int k = 0; k < D; ++k) {
        std::vector<long double> ch;
        for (int r = 1; r < 197; ++r)
            ch.push_back(base(r, k));
        const auto ref = resample2d(ch, 14, 14, 24, 24, true, true);
        for (int p = 0; p < 576; ++p)
            QVERIFY(close(u(1 + p, k), ref[std::size_t(p)], 1e-6L));
    }
    // Without --cls the class row is left out; with class_token=false --cls is refused.
    const SpatialContext noCls = gridCtx(24, 24, D, false);
    QCOMPARE(scheme("vit_learned").encoding(params("vit_learned", {}, noCls), noCls).rows(), Eigen::Index(576));
    QVERIFY_THROWS_EXCEPTION(InputError, params("vit_learned", {{"class_token", "false"}}, big));
    // antialias=false changes the numbers (A = -0.75, clamped taps).
    const MatrixF v = scheme("vit_learned").encoding(params("vit_learned", {{"antialias", "false"}}, big), big);
    QVERIFY(v.row(1) != u.row(1));
}

void TestSpatial::ropeVitAxialAngles()
{
    const int d = 16, H = 3, W = 4;
    const SpatialContext c = gridCtx(H, W, d);
    const ParamSet p = params("rope_2d", {}, c);
    QCOMPARE(p.real("rope_theta"), 100.0); // RoPE-Axial models: rope_theta=100.0
    const SpatialRotary r = scheme("rope_2d").rotary(p, c);
    QCOMPARE(r.layout, PairLayout::Interleaved);
    QCOMPARE(r.angles.rows(), Eigen::Index(H * W));
    QCOMPARE(r.angles.cols(), Eigen::Index(d / 2));
    for (int t = 0; t < H * W; ++t) {
        const int x = t % W, y = t / W; // init_t_xy: t_x = t % end_x, t_y = t // end_x
        for (int k = 0; k < d / 4; ++k) {
            const long double m = 1.0L / std::pow(100.0L, 4.0L * k / d); // arange(0, dim, 4) / dim
            QVERIFY(close(r.angles(t, k), x * m, 1e-14L));
            QVERIFY(close(r.angles(t, d / 4 + k), y * m, 1e-14L));
        }
    }
    QCOMPARE(r.pairAxis[0], 0);
    QCOMPARE(r.pairAxis[std::size_t(d / 4)], 1);
}

void TestSpatial::ropeVitMixedAngles()
{
    const int d = 16;
    const SpatialContext c = gridCtx(3, 3, d);
    const ParamSet p = params("rope_2d", {{"variant", "mixed"}, {"seed", "7"}, {"head", "2"}}, c);
    QCOMPARE(p.real("rope_theta"), 10.0); // RoPE-Mixed models: rope_theta=10.0
    const SpatialRotary r = scheme("rope_2d").rotary(p, c);
    SeededRandom rng(7);
    rng.uniform();
    rng.uniform();
    const long double a = 2 * piL * rng.uniform(); // the third draw: head 2
    for (int t = 0; t < 9; ++t) {
        const int x = t % 3, y = t / 3;
        for (int k = 0; k < d / 4; ++k) {
            const long double m = 1.0L / std::pow(10.0L, 4.0L * k / d);
            // fx = cat(mag cos a, mag cos(pi/2 + a)), fy = cat(mag sin a, mag sin(pi/2 + a)); angle x fx + y fy.
            QVERIFY(close(r.angles(t, k), x * m * std::cos(a) + y * m * std::sin(a), 1e-12L));
            QVERIFY(
                close(r.angles(t, d / 4 + k), x * m * std::cos(piL / 2 + a) + y * m * std::sin(piL / 2 + a), 1e-12L));
        }
    }
}

void TestSpatial::ropeVitMixedWithoutRotateIsAxial()
{
    const SpatialContext c = gridCtx(4, 5, 8);
    const SpatialRotary mixed
        = scheme("rope_2d").rotary(params("rope_2d", {{"variant", "mixed"}, {"rotate", "false"}}, c), c);
    const SpatialRotary axial = scheme("rope_2d").rotary(params("rope_2d", {{"rope_theta", "10"}}, c), c);
    QVERIFY((mixed.angles - axial.angles).cwiseAbs().maxCoeff() < 1e-15);
    // rotate applies to mixed only.
    QVERIFY_THROWS_EXCEPTION(InputError, params("rope_2d", {{"rotate", "false"}}, c));
}

void TestSpatial::rope2dScoreDependsOnTheOffsetOnly()
{
    const int W = 5;
    const SpatialContext c = gridCtx(4, W, 16);
    for (const Overrides& o : {Overrides{}, Overrides{{"variant", "mixed"}, {"seed", "3"}}}) {
        const SpatialRotary r = scheme("rope_2d").rotary(params("rope_2d", o, c), c);
        const MatrixF s = spatialScores(r, ContentKind::Constant, 0, false, false);
        // (0,0)->(1,2) and (2,1)->(3,3): the same offset (1, 2).
        QVERIFY(std::fabs(s(0 * W + 0, 1 * W + 2) - s(2 * W + 1, 3 * W + 3)) < 1e-5f);
        QVERIFY(std::fabs(s(0, 0) - 16.0f / 4.0f) < 1e-5f); // d / sqrt(d) at offset 0 with q = k = 1
        QVERIFY(std::fabs(s(0, 1) - s(0, 2)) > 1e-4f);      // offset (0, 1) is not (0, 2)
    }
}

void TestSpatial::pixtralAngles()
{
    for (int d : {16, 12}) {
        const SpatialContext c = gridCtx(3, 4, d);
        const SpatialRotary r = scheme("pixtral_rope").rotary(params("pixtral_rope", {}, c), c);
        QCOMPARE(r.layout, PairLayout::HalfSplit);
        const int pairs = d / 2, nRow = (pairs + 1) / 2; // len(freqs[::2])
        for (int t = 0; t < 12; ++t) {
            const int i = t / 4, j = t % 4;
            for (int p = 0; p < pairs; ++p) {
                // freqs = 1 / theta^(arange(0, dim, 2) / dim); freqs_h = outer(h, freqs[::2]), freqs_w = outer(w, freqs[1::2]).
                const int k = p < nRow ? 2 * p : 2 * (p - nRow) + 1;
                const long double f = 1.0L / std::pow(10000.0L, 2.0L * k / d);
                QVERIFY(close(r.angles(t, p), (p < nRow ? i : j) * f, 1e-14L));
            }
        }
    }
}

void TestSpatial::pixtralRefusesGridsBeyondItsTable()
{
    QVERIFY_THROWS_EXCEPTION(InputError, params("pixtral_rope", {}, gridCtx(65, 2, 64)));
    QCOMPARE(
        params("pixtral_rope", {{"max_patches_per_side", "128"}}, gridCtx(65, 2, 64)).integer("max_patches_per_side"),
        128LL);
}

void TestSpatial::mropeDocstringExample()
{
    // get_rope_index's docstring: a video of 3 x 2 x 2 then 5 text tokens.
    const SpatialContext c = seqCtx("video:3x2x2,text:5", 16);
    const MatrixD ids = mropePositionIds(params("mrope", {{"mrope_section", "2,3,3"}}, c), c);
    const std::vector<double> t = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 4, 5, 6, 7};
    const std::vector<double> h = {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 3, 4, 5, 6, 7};
    const std::vector<double> w = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 3, 4, 5, 6, 7};
    QCOMPARE(ids.cols(), Eigen::Index(17));
    for (int n = 0; n < 17; ++n) {
        QCOMPARE(ids(0, n), t[std::size_t(n)]);
        QCOMPARE(ids(1, n), h[std::size_t(n)]);
        QCOMPARE(ids(2, n), w[std::size_t(n)]);
    }
}

void TestSpatial::mropeImageBetweenText()
{
    // text_len + st_idx offsets the block; text after it starts at the block's max + 1.
    const SpatialContext c = seqCtx("text:2,image:1x2x3,text:2", 16);
    const MatrixD ids = mropePositionIds(params("mrope", {{"mrope_section", "2,3,3"}}, c), c);
    const double t[] = {0, 1, 2, 2, 2, 2, 2, 2, 5, 6};
    const double h[] = {0, 1, 2, 2, 2, 3, 3, 3, 5, 6};
    const double w[] = {0, 1, 2, 3, 4, 2, 3, 4, 5, 6};
    for (int n = 0; n < 10; ++n) {
        QCOMPARE(ids(0, n), t[n]);
        QCOMPARE(ids(1, n), h[n]);
        QCOMPARE(ids(2, n), w[n]);
    }
    // Two blocks in a row: the second starts after the first's max + 1 (an empty text run between).
    const SpatialContext two = seqCtx("image:1x2x2,image:1x1x1", 16);
    const MatrixD ids2 = mropePositionIds(params("mrope", {{"mrope_section", "2,3,3"}}, two), two);
    QCOMPARE(ids2(0, 4), 2.0);
}

void TestSpatial::mropeTimeAlignedVideo()
{
    const SpatialContext c = seqCtx("text:1,video:3x1x2,image:2x1x1,text:1", 16);
    // Qwen2.5-VL: t_index = (f * second_per_grid_t * tokens_per_second).long(); images second_per_grid_t = 0.
    const Overrides base = {{"variant", "qwen2_5_vl"}, {"mrope_section", "2,3,3"}};
    const MatrixD a = mropePositionIds(params("mrope", base, c), c); // tokens_per_second 2, second_per_grid 1
    const double t[] = {0, 1, 1, 3, 3, 5, 5, 6, 6, 7};
    for (int n = 0; n < 10; ++n)
        QCOMPARE(a(0, n), t[n]);
    QCOMPARE(a(1, 1), 1.0);
    QCOMPARE(a(2, 2), 2.0);
    // The video's largest id is 1 + 4 = 5; the image starts at 6 with t = 6 + 0 for both its frames.
    Overrides slow = base;
    slow.push_back({"second_per_grid", "0.25"}); // floor(f * 0.5): 0, 0, 1
    const MatrixD b = mropePositionIds(params("mrope", slow, c), c);
    QCOMPARE(b(0, 1), 1.0);
    QCOMPARE(b(0, 3), 1.0);
    QCOMPARE(b(0, 5), 2.0);
    // Qwen2-VL (frame index) on the same sequence: 1, 1, 2, 2, 3, 3.
    const MatrixD q2 = mropePositionIds(params("mrope", {{"mrope_section", "2,3,3"}}, c), c);
    QCOMPARE(q2(0, 5), 3.0);
    // tokens_per_second belongs to qwen2_5_vl only.
    QVERIFY_THROWS_EXCEPTION(InputError, params("mrope", {{"tokens_per_second", "4"}, {"mrope_section", "2,3,3"}}, c));
}

namespace {

/// @p x (a real number held exactly in a long double) rounded to the nearest IEEE binary32 value, ties to even, by
/// hand: the 24 leading bits of the significand are kept and the rest decides the rounding. Independent of the float
/// type, so the test's reference does not share the code's arithmetic. Normal range only (all values here are).
long double roundToFloat32(long double x)
{
    if (x == 0)
        return 0;
    int e = 0;
    const long double m = std::frexp(x, &e);      // x = m * 2^e, 0.5 <= m < 1
    const long double scaled = std::ldexp(m, 24); // 2^23 <= scaled < 2^24: the 24 bits kept, then the rest
    long double kept = std::floor(scaled);
    const long double rest = scaled - kept; // exact: a long double holds 64 bits
    if (rest > 0.5L || (rest == 0.5L && std::fmod(kept, 2.0L) == 1.0L))
        kept += 1;
    return std::ldexp(kept, e - 24);
}

} // namespace

void TestSpatial::mropeTimeIdsAreFloat32AsTransformers()
{
    // huggingface/transformers src/transformers/models/qwen2_5_vl/modeling_qwen2_5_vl.py get_rope_index (and, since
    // the fractional-interval fix, get_vision_position_ids): second_per_grid_ts is a float32 tensor (the processor's
    // temporal_patch_size / fps through BatchFeature); an int64 arange times a float32 tensor is float32; .long()
    // truncates toward zero. Every product is rounded to float32, so the reference below rounds each product to 24
    // bits by hand (roundToFloat32) and truncates: spg32 = rnd(spg); current: rnd(f * rnd(tps * spg32)); the first
    // code: rnd(rnd(f * spg32) * tps); versions casting second_per_grid_t to int64 first: f * trunc(spg32) * tps.
    const SpatialContext c = seqCtx("video:64x1x1", 128);
    const Overrides base = {{"variant", "qwen2_5_vl"}};
    // The case: 2 frames per step at 3 fps (0.6666666666666666 s). Exact arithmetic gives frame 3 the id
    // 3.9999999999999996 -> 3; float32 gives 4.0000001 -> 4.0 -> 4 (then 8, 12, ...).
    Overrides third = base;
    third.push_back({"second_per_grid", "0.6666666666666666"});
    const MatrixD ids = mropePositionIds(params("mrope", third, c), c);
    const double expected[] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16};
    for (int f = 0; f < 13; ++f)
        QCOMPARE(ids(0, f), expected[f]);
    QCOMPARE(ids(0, 63), 84.0); // 63 * 4/3
    // The version that truncates second_per_grid_t to an integer first: every frame at 0.
    third.push_back({"time_ids", "integer_seconds"});
    QCOMPARE(mropePositionIds(params("mrope", third, c), c)(0, 63), 0.0);
    // A sweep of frame rates (fps, second_per_grid = 2 / fps in double as the processor computes it) and
    // tokens_per_second, every frame, every variant, against the reference.
    const double fpsList[] = {0.5, 1,  1.5, 2,  2.5,    3,  3.5, 4,     4.5, 5,  6,  7,     7.5, 8,
                              9,   10, 12,  15, 23.976, 24, 25,  29.97, 30,  48, 50, 59.94, 60};
    const double tpsList[] = {1, 2, 3, 4, 25, 0.5, 1.5};
    int combos = 0, differFromExact = 0, frameFirstDiffers = 0;
    for (double fps : fpsList)
        for (double tps : tpsList) {
            const double spg = 2.0 / fps;
            const long double spg32 = roundToFloat32(spg), tps32 = roundToFloat32(tps);
            char spgText[32], tpsText[32];
            std::snprintf(spgText, sizeof spgText, "%.17g", spg);
            std::snprintf(tpsText, sizeof tpsText, "%.17g", tps);
            const auto run = [&](const char* how) {
                Overrides o = base;
                o.push_back({"second_per_grid", spgText});
                o.push_back({"tokens_per_second", tpsText});
                o.push_back({"time_ids", how});
                return mropePositionIds(params("mrope", o, c), c);
            };
            const MatrixD interval = run("float_interval"), frameFirst = run("float_frame_first"),
                          whole = run("integer_seconds");
            bool differs = false, orderDiffers = false;
            const long double step = roundToFloat32(tps32 * spg32);
            for (int f = 0; f < 64; ++f) {
                const long double a = std::trunc(roundToFloat32(f * step));
                const long double b = std::trunc(roundToFloat32(roundToFloat32(f * spg32) * tps32));
                const long double w = f * std::trunc(spg32) * (long double)tps;
                QVERIFY2(interval(0, f) == double(a),
                         qPrintable(QStringLiteral("fps %1 tps %2 frame %3: %4, want %5")
                                        .arg(fps)
                                        .arg(tps)
                                        .arg(f)
                                        .arg(interval(0, f))
                                        .arg(double(a))));
                QVERIFY2(frameFirst(0, f) == double(b),
                         qPrintable(QStringLiteral("fps %1 tps %2 frame %3 (frame first)").arg(fps).arg(tps).arg(f)));
                if (tps == std::trunc(tps))
                    QCOMPARE(whole(0, f), double(w));
                differs = differs || a != std::floor((long double)f * spg * tps);
                orderDiffers = orderDiffers || a != b;
            }
            ++combos;
            differFromExact += differs;
            frameFirstDiffers += orderDiffers;
        }
    QCOMPARE(combos, 27 * 7);
    // The sweep reaches the cases the issue names: many combinations where exact arithmetic (the old long double
    // floor) gives other ids than float32; and some where the order of the two products matters.
    QVERIFY2(differFromExact > 20, qPrintable(QString::number(differFromExact)));
    QVERIFY2(frameFirstDiffers > 0, qPrintable(QString::number(frameFirstDiffers)));
}

void TestSpatial::mropeQwen3SplitsVideoFrames()
{
    const SpatialContext c = seqCtx("video:3x2x2,text:1", 16);
    const ParamSet p = params("mrope", {{"variant", "qwen3_vl"}, {"mrope_section", "4,2,2"}}, c);
    QCOMPARE(p.choice("sections"), std::string("interleaved")); // follows the variant
    const MatrixD ids = mropePositionIds(p, c);
    // Each frame a block of t = 1 after the previous block's max + 1: bases 0, 2, 4; text at 6.
    const double t[] = {0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6};
    const double w[] = {0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6};
    for (int n = 0; n < 13; ++n) {
        QCOMPARE(ids(0, n), t[n]);
        QCOMPARE(ids(2, n), w[n]);
    }
}

void TestSpatial::mropeSections()
{
    // Qwen2-VL, d = 128, [16, 24, 24]: cos.split([16, 24, 24] * 2), chunk i takes axis i % 3.
    const auto chunked = mropePairAxes({16, 24, 24}, 64, false);
    QCOMPARE(chunked[15], 0);
    QCOMPARE(chunked[16], 1);
    QCOMPARE(chunked[39], 1);
    QCOMPARE(chunked[40], 2);
    QCOMPARE(chunked[63], 2);
    // Qwen3-VL, [24, 20, 20]: freqs_t[..., 1:60:3] = h, freqs_t[..., 2:60:3] = w, the rest t.
    const auto inter = mropePairAxes({24, 20, 20}, 64, true);
    int count[3] = {0, 0, 0};
    for (int k = 0; k < 64; ++k) {
        const int expect = (k % 3 == 1 && k < 60) ? 1 : (k % 3 == 2 && k < 60) ? 2 : 0;
        QCOMPARE(inter[std::size_t(k)], expect);
        ++count[inter[std::size_t(k)]];
    }
    QCOMPARE(count[0], 24);
    QCOMPARE(count[1], 20);
    QCOMPARE(count[2], 20);
    QCOMPARE(inter[60], 0);
    QCOMPARE(inter[63], 0);
    // Defaults: [16, 24, 24] for Qwen2-VL, [24, 20, 20] for Qwen3-VL.
    const SpatialContext c = seqCtx("text:1", 128);
    QCOMPARE(params("mrope", {}, c).list("mrope_section"), (std::vector<double>{16, 24, 24}));
    QCOMPARE(params("mrope", {{"variant", "qwen3_vl"}}, c).list("mrope_section"), (std::vector<double>{24, 20, 20}));
}

void TestSpatial::mropeAnglesAndTextMatchesRope()
{
    const int d = 128;
    const SpatialContext c = seqCtx("text:3,image:1x3x4,video:2x2x2,text:2", d);
    const ParamSet p = params("mrope", {}, c);
    const MatrixD ids = mropePositionIds(p, c);
    const SpatialRotary r = mropeRotary(p, c);
    const auto axis = mropePairAxes({16, 24, 24}, 64, false);
    for (Eigen::Index n = 0; n < ids.cols(); ++n)
        for (int k = 0; k < 64; ++k) {
            const long double invFreq = 1.0L / std::pow(1000000.0L, 2.0L * k / d);
            QVERIFY(close(r.angles(n, k), ids(axis[std::size_t(k)], n) * invFreq, 1e-14L));
        }
    // Text only: three equal ids, so M-RoPE is 1-D RoPE at the same theta (apply_multimodal_rotary_pos_emb's
    // docstring: "no difference with modern LLMs").
    const SpatialContext text = seqCtx("text:40", d);
    const SpatialRotary m = mropeRotary(params("mrope", {}, text), text);
    TableContext one;
    one.dim = d;
    one.positions = PositionList::range(0, 40);
    const RotarySpec rope = ropeSpec(resolveParams(schemeOrThrow("rope"), {{"rope_theta", "1000000"}}, one), one);
    const MatrixD ref = rotaryAngles(rope, one.positions);
    QVERIFY((m.angles - ref).cwiseAbs().maxCoeff() <= 1e-12);
}

void TestSpatial::mropeRefusesBadSections()
{
    const SpatialContext c = seqCtx("text:1", 128);
    for (const char* bad : {"16,24,23", "16,24", "16,24,24,0", "16.5,23.5,24"})
        QVERIFY_THROWS_EXCEPTION(InputError, params("mrope", {{"mrope_section", bad}}, c));
    try {
        params("mrope", {{"mrope_section", "16,24,23"}}, c);
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("sums to 63") != std::string::npos, e.what());
    }
    // Interleaved with 40 height pairs cannot hold them in 64 pairs (k = 1, 4, ... < 120).
    QVERIFY_THROWS_EXCEPTION(InputError,
                             params("mrope", {{"sections", "interleaved"}, {"mrope_section", "4,40,20"}}, c));
    QVERIFY_THROWS_EXCEPTION(InputError, params("mrope", {}, seqCtx("text:1", 7)));
}

QTEST_APPLESS_MAIN(TestSpatial)
#include "tst_spatial.moc"
