// SPDX-License-Identifier: MIT
// The length lab's hand-written backward passes (core/train) against central finite differences in double:
//   each operation of ops.h alone (LayerNorm, GELU, causal attention with a bias, the rotary rotation,
//   softmax cross-entropy, CoPE's gates/positions/interpolation, Shaw's relative key term, Transformer-XL's
//   terms (b)-(d)), then the whole network's gradient for every
//   trainable scheme, every parameter block sampled, every trainable position parameter (learned table rows, T5
//   bucket biases, Kerple r1/r2, FIRE's MLP, CoPE's position embeddings, Shaw's a^K tables, Transformer-XL's u, v
//   and W_R) checked in full.
// Bound: |analytic - numeric| <= 1e-6 + 1e-5 * max(|analytic|, |numeric|) with step h = 1e-6 on double
// (central differences have error O(h^2) ~ 1e-12 times the third derivative, plus rounding ~ 1e-16 / h = 1e-10).
// Also: the rotation matches core::rotateVector (the views' rotation), CoPE's, Shaw's and Transformer-XL's
// position parts match their schemes' score hooks (the views' attention), training is reproducible from its seed
// (identical curves, whatever the thread count), bad sizes are refused before allocation, a learned table
// reports lengths past its rows, and a diverging run names the step and keeps its curve.
#include "core/attentionkernel.h"
#include "core/encodingregistry.h"
#include "core/encodings/relativecommon.h"
#include "core/encodings/shaw.h"
#include "core/errors.h"
#include "core/random.h"
#include "core/rotary.h"
#include "core/train/model.h"
#include "core/train/ops.h"
#include "core/train/tasks.h"
#include "core/train/trainer.h"

#include <QRegularExpression>
#include <QTest>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <functional>
#include <sstream>

using namespace poslab::core;
using namespace poslab::core::train;

namespace {

constexpr double fdStep = 1e-6;

bool close(double a, double n)
{
    return std::fabs(a - n) <= 1e-6 + 1e-5 * std::max(std::fabs(a), std::fabs(n));
}

Mat<double> randomMat(int r, int c, std::uint64_t seed, double scale = 1.0)
{
    SeededRandom rng(seed);
    Mat<double> m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = rng.normal() * scale;
    return m;
}

/// Checks d f / d x[i] (analytic) against central differences of f for every element of x.
void checkAll(const char* what, Mat<double>& x, const Mat<double>& analytic, const std::function<double()>& f)
{
    for (Eigen::Index i = 0; i < x.size(); ++i) {
        const double keep = x.data()[i];
        x.data()[i] = keep + fdStep;
        const double up = f();
        x.data()[i] = keep - fdStep;
        const double down = f();
        x.data()[i] = keep;
        const double numeric = (up - down) / (2 * fdStep);
        if (!close(analytic.data()[i], numeric))
            QFAIL(qPrintable(QString("%1[%2]: analytic %3, numeric %4")
                                 .arg(what)
                                 .arg(i)
                                 .arg(analytic.data()[i], 0, 'g', 12)
                                 .arg(numeric, 0, 'g', 12)));
    }
}

Batch testBatch(Task task, int vocab, const std::vector<int>& lengths, std::uint64_t seed)
{
    const Vocabulary voc{taskSymbols(task, vocab)};
    int T = 1;
    std::vector<Example> ex;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        ex.push_back(makeExample(task, lengths[i], vocab, seed + i));
        T = std::max(T, int(ex.back().tokens.size()) - 1);
    }
    Batch b;
    b.n = int(lengths.size());
    b.T = T;
    b.tokens.assign(std::size_t(b.n * T), voc.pad());
    b.targets.assign(std::size_t(b.n * T), voc.pad());
    b.weights.assign(std::size_t(b.n * T), 0.0f);
    double count = 0;
    for (int s = 0; s < b.n; ++s)
        for (std::size_t t = 0; t + 1 < ex[std::size_t(s)].tokens.size(); ++t) {
            const std::size_t r = std::size_t(s * T) + t;
            b.tokens[r] = ex[std::size_t(s)].tokens[t];
            b.targets[r] = ex[std::size_t(s)].tokens[t + 1];
            if (ex[std::size_t(s)].answer[t + 1]) {
                b.weights[r] = 1.0f;
                ++count;
            }
        }
    b.normaliser = count;
    return b;
}

ParamSet paramsFor(const std::string& id, const Overrides& o, int headDim)
{
    return resolveParams(schemeOrThrow(id), o, TableContext{headDim, PositionList::range(0, 1), std::nullopt});
}

} // namespace

class TrainGradTest : public QObject {
    Q_OBJECT
private slots:
    void layerNorm()
    {
        Mat<double> x = randomMat(5, 7, 1), w = randomMat(7, 1, 2), b = randomMat(7, 1, 3), r = randomMat(5, 7, 4);
        auto f = [&] {
            Mat<double> y;
            Vec<double> m, s;
            layerNormForward<double>(x, CMapVec<double>(w.data(), 7), CMapVec<double>(b.data(), 7), y, m, s);
            return (y.array() * r.array()).sum();
        };
        Mat<double> y;
        Vec<double> m, s;
        layerNormForward<double>(x, CMapVec<double>(w.data(), 7), CMapVec<double>(b.data(), 7), y, m, s);
        Mat<double> dx = Mat<double>::Zero(5, 7), dw = Mat<double>::Zero(7, 1), db = Mat<double>::Zero(7, 1);
        layerNormBackward<double>(r, x, CMapVec<double>(w.data(), 7), m, s, dx, MapVec<double>(dw.data(), 7),
                                  MapVec<double>(db.data(), 7));
        checkAll("layernorm x", x, dx, f);
        checkAll("layernorm w", w, dw, f);
        checkAll("layernorm b", b, db, f);
        // The forward pass itself: nn.LayerNorm's (x - mean) / sqrt(biased var + 1e-5) * w + b.
        const double mean = x.row(2).mean();
        const double var = (x.row(2).array() - mean).square().mean();
        QVERIFY(std::fabs(y(2, 3) - ((x(2, 3) - mean) / std::sqrt(var + 1e-5) * w(3) + b(3))) < 1e-12);
    }

    void gelu()
    {
        // Hendrycks and Gimpel 2016, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
        for (double x : {-3.0, -0.7, 0.0, 0.4, 2.5}) {
            const double ref = 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
            QVERIFY(std::fabs(train::gelu(x) - ref) < 1e-15);
            const double numeric = (train::gelu(x + fdStep) - train::gelu(x - fdStep)) / (2 * fdStep);
            QVERIFY2(close(geluGrad(x), numeric), qPrintable(QString::number(x)));
        }
    }

    void floatKernelsMatchTheFormulas()
    {
        // Training in float runs core's GEMM and GELU kernels (the widest instruction set the CPU has; the ctest
        // tst_train_grad_generic runs this file again on the portable build). Each against the double formula.
        std::printf("kernel: %s\n", kernel::isaName());
        // GELU, tanh form (Hendrycks and Gimpel 2016), over values that reach tanh's saturated tails.
        Mat<float> x(3, 37), y, th;
        for (Eigen::Index i = 0; i < x.size(); ++i)
            x.data()[i] = float(-9.0 + 18.0 * double(i) / double(x.size() - 1));
        geluForward<float>(x, y, th);
        Mat<float> dh = Mat<float>::Ones(3, 37);
        geluBackward<float>(dh, x, th);
        for (Eigen::Index i = 0; i < x.size(); ++i) {
            const double v = x.data()[i];
            const double t = std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v));
            QVERIFY2(std::fabs(th.data()[i] - t) <= 4e-7,
                     qPrintable(QString("tanh at %1: %2").arg(v).arg(th.data()[i])));
            QVERIFY2(std::fabs(y.data()[i] - 0.5 * v * (1 + t)) <= 4e-7 * std::max(1.0, std::fabs(v)),
                     qPrintable(QString::number(v)));
            QVERIFY2(std::fabs(dh.data()[i] - geluGrad(v)) <= 2e-6 * std::max(1.0, std::fabs(v)),
                     qPrintable(QString::number(v)));
        }
        // C = beta C + alpha op(A) op(B) for the four transposes, on blocks inside larger matrices (row strides
        // wider than the block), with accumulation.
        for (const bool ta : {false, true})
            for (const bool tb : {false, true}) {
                const int m = 13, n = 9, k = 21;
                const Mat<double> A = randomMat(ta ? k : m, (ta ? m : k) + 5, 41);
                const Mat<double> B = randomMat(tb ? n : k, (tb ? k : n) + 3, 42);
                const Mat<double> C0 = randomMat(m, n + 2, 43);
                const Mat<float> Af = A.cast<float>(), Bf = B.cast<float>();
                Mat<float> Cf = C0.cast<float>();
                kernel::gemm(ta, tb, m, n, k, 0.5f, Af.data(), int(Af.cols()), Bf.data(), int(Bf.cols()), 1.0f,
                             Cf.data(), int(Cf.cols()));
                for (int i = 0; i < m; ++i)
                    for (int j = 0; j < n + 2; ++j) {
                        double ref = C0(i, j);
                        if (j < n)
                            for (int l = 0; l < k; ++l)
                                ref += 0.5 * (ta ? A(l, i) : A(i, l)) * (tb ? B(j, l) : B(l, j));
                        QVERIFY2(std::fabs(Cf(i, j) - ref) <= 1e-5 * (1 + std::fabs(ref)),
                                 qPrintable(QString("ta %1 tb %2 (%3, %4): %5 vs %6")
                                                .arg(ta)
                                                .arg(tb)
                                                .arg(i)
                                                .arg(j)
                                                .arg(Cf(i, j))
                                                .arg(ref)));
                    }
                // beta 0 overwrites (NaN in C must not leak through).
                Cf.setConstant(std::numeric_limits<float>::quiet_NaN());
                kernel::gemm(ta, tb, m, n, k, 1.0f, Af.data(), int(Af.cols()), Bf.data(), int(Bf.cols()), 0.0f,
                             Cf.data(), int(Cf.cols()));
                QVERIFY(Cf.leftCols(n).allFinite());
            }
    }

    void attentionWithBias()
    {
        const int T = 6, dh = 4;
        Mat<double> q = randomMat(T, dh, 10), k = randomMat(T, dh, 11), v = randomMat(T, 3, 12),
                    bias = randomMat(T, T, 13), r = randomMat(T, 3, 14);
        const double scale = 0.5;
        auto f = [&] {
            Mat<double> p, o;
            attentionForward<double>(q, k, v, &bias, scale, p, o);
            return (o.array() * r.array()).sum();
        };
        Mat<double> p, o, dq, dk, dv, ds;
        attentionForward<double>(q, k, v, &bias, scale, p, o);
        // Causal softmax, row 3, independently: exp(s_3j) / sum_{j' <= 3} exp(s_3j').
        double z = 0;
        for (int j = 0; j <= 3; ++j)
            z += std::exp(q.row(3).dot(k.row(j)) * scale + bias(3, j));
        QVERIFY(std::fabs(p(3, 1) - std::exp(q.row(3).dot(k.row(1)) * scale + bias(3, 1)) / z) < 1e-14);
        QCOMPARE(p(3, 4), 0.0);
        attentionBackward<double>(r, q, k, v, p, scale, dq, dk, dv, ds);
        checkAll("attention q", q, dq, f);
        checkAll("attention k", k, dk, f);
        checkAll("attention v", v, dv, f);
        // The bias gradient is dS; entries after the query have none (masked).
        Mat<double> dsMasked = ds;
        checkAll("attention bias", bias, dsMasked, f);
    }

    void rotationIsCoresAndItsTransposeIsTheBackward()
    {
        for (const char* id : {"rope", "xpos"}) {
            const int hd = 8, T = 5;
            const ParamSet prm = paramsFor(id, {}, hd);
            const PositionList pos = PositionList::range(0, T);
            const RotarySides sides = rotarySpecs(schemeOrThrow(id), prm, TableContext{hd, pos, std::nullopt});
            const Mat<double> c = rotaryCos(sides.query, pos).cast<double>(),
                              s = rotarySin(sides.query, pos).cast<double>();
            std::vector<int> a, b;
            for (int i = 0; i < hd / 2; ++i) {
                const auto [pa, pb] = pairDims(sides.query.layout, sides.query.rotaryDim, i);
                a.push_back(pa);
                b.push_back(pb);
            }
            std::vector<double> v0(hd);
            for (int i = 0; i < hd; ++i)
                v0[std::size_t(i)] = 0.3 * i - 1.0;
            Mat<double> x(T, hd);
            for (int t = 0; t < T; ++t)
                for (int i = 0; i < hd; ++i)
                    x(t, i) = v0[std::size_t(i)];
            rotateRows<double>(x, 0, c, s, a.data(), b.data(), hd / 2, T, false);
            const MatrixD ref = rotateVector(sides.query, pos, v0); // core's rotation, the rotation view's
            QVERIFY2((x - ref).cwiseAbs().maxCoeff() < 1e-6, id);   // cos/sin tables are float32
            // Backward = transpose: <R x, y> = <x, R^T y>.
            Mat<double> x1 = randomMat(T, hd, 20), y1 = randomMat(T, hd, 21);
            Mat<double> rx = x1, rty = y1;
            rotateRows<double>(rx, 0, c, s, a.data(), b.data(), hd / 2, T, false);
            rotateRows<double>(rty, 0, c, s, a.data(), b.data(), hd / 2, T, true);
            QVERIFY(std::fabs((rx.array() * y1.array()).sum() - (x1.array() * rty.array()).sum()) < 1e-12);
        }
    }

    void copeForwardAndBackward_data()
    {
        // clang-format off
        QTest::addColumn<int>("npos");
        QTest::addColumn<double>("posScale");
        QTest::newRow("unscaled, no clamp") << 16 << 1.0;
        QTest::newRow("scaled, clamped at 2") << 3 << 0.5; // counts past npos_max - 1 = 2 are clamped
        // clang-format on
    }

    void copeForwardAndBackward()
    {
        // Golovneva et al. 2024 (arXiv:2405.18719), section 3, and facebookresearch/RAM
        // projects/cope/src/cope/context_position.py ContextPosSelfAttn.forward: gates sigmoid(q_i.k_j / sqrt(d)),
        // positions the reverse cumulative sum over the visible keys clamped to npos - 1, logits q_i.e[n] for the
        // integer positions interpolated between floor and ceil with weight p - floor p (floor, ceil: no gradient).
        QFETCH(int, npos);
        QFETCH(double, posScale);
        const int T = 6, dh = 4;
        const double scale = 0.5;
        Mat<double> q = randomMat(T, dh, 40), k = randomMat(T, dh, 41), e = randomMat(npos, dh, 42),
                    r = randomMat(T, T, 43);
        Mat<double> bias, gates, positions;
        copeForward<double>(q, k, e, scale, posScale, npos, bias, gates, positions);
        // Independently, from the formula.
        bool clamped = false;
        for (int i = 0; i < T; ++i)
            for (int j = 0; j <= i; ++j) {
                double p = 0;
                for (int t = j; t <= i; ++t)
                    p += 1.0 / (1.0 + std::exp(-q.row(i).dot(k.row(t)) * scale));
                if (p > npos - 1) {
                    p = npos - 1;
                    clamped = true;
                }
                const double lo = std::floor(p), hi = std::ceil(p);
                const double ref = posScale
                    * ((p - lo) * q.row(i).dot(e.row(int(hi))) + (1 - p + lo) * q.row(i).dot(e.row(int(lo))));
                QVERIFY(std::fabs(positions(i, j) - p) < 1e-14);
                QVERIFY2(std::fabs(bias(i, j) - ref) < 1e-12, qPrintable(QString("%1 %2").arg(bias(i, j)).arg(ref)));
            }
        QCOMPARE(clamped, npos == 3);
        auto f = [&] {
            Mat<double> b, g, pp;
            copeForward<double>(q, k, e, scale, posScale, npos, b, g, pp);
            return (b.triangularView<Eigen::Lower>().toDenseMatrix().array() * r.array()).sum();
        };
        Mat<double> dq = Mat<double>::Zero(T, dh), dk = Mat<double>::Zero(T, dh), de = Mat<double>::Zero(npos, dh);
        copeBackward<double>(r, q, k, e, scale, posScale, npos, gates, positions, dq, dk, de);
        checkAll("cope q", q, dq, f);
        checkAll("cope k", k, dk, f);
        checkAll("cope e", e, de, f);
        QVERIFY(dk.cwiseAbs().sum() > 0); // the gates do pass gradient to the keys
    }

    void copePositionsAreTheViewsPositions()
    {
        // The trainer's CoPE forward against the registry's cope score hook (what `poslab compute scores --scheme
        // cope` and the attention view show) for the same q, k and embeddings, in float as both run.
        for (const char* mode : {"unscaled", "scaled"}) {
            const int T = 7, dh = 8, npos = 3;
            const SchemeDescriptor& sd = schemeOrThrow("cope");
            const ParamSet prm = paramsFor("cope", {{"npos_max", "3"}, {"position_logits", mode}, {"seed", "3"}}, dh);
            const MatrixF q = randomMat(T, dh, 50, 1.5).cast<float>(), k = randomMat(T, dh, 51, 1.5).cast<float>();
            // The scheme's embeddings of head 1, as cope.cpp draws them (seeded N(0, 1), row n = e[n]).
            const MatrixF e = seededNormal(npos, dh, 1.0, 3, mixSeed(0xC0BE, 1)).cast<float>();
            const float scale = float(1.0 / std::sqrt(double(dh)));
            MaskMatrix mask = MaskMatrix::Zero(T, T);
            for (int i = 0; i < T; ++i)
                for (int j = 0; j <= i; ++j)
                    mask(i, j) = 1;
            PairContext ctx;
            ctx.headDim = dh;
            ctx.queries = PositionList::range(0, T);
            ctx.keys = PositionList::range(0, T);
            ScoreInputs in;
            in.ctx = &ctx;
            in.head = 1;
            in.q = &q;
            in.k = &k;
            in.mask = &mask;
            ScoreOutputs out;
            const Mat<float> qr = q, kr = k, er = e;
            out.logits = (qr * kr.transpose()) * scale; // the engine's q.k/sqrt(d), as the trainer forms it
            sd.score(prm, in, out);
            const MatrixF* viewGates = nullptr;
            const MatrixF* viewPositions = nullptr;
            for (const AttentionTerm& t : out.terms) {
                if (t.key == "gates")
                    viewGates = &t.values;
                if (t.key == "positions")
                    viewPositions = &t.values;
            }
            QVERIFY(viewGates && viewPositions);
            Mat<float> bias, gates, positions;
            const float posScale = std::string(mode) == "scaled" ? float(1.0 / std::sqrt(double(dh))) : 1.0f;
            copeForward<float>(qr, kr, er, scale, posScale, npos, bias, gates, positions);
            for (int i = 0; i < T; ++i)
                for (int j = 0; j <= i; ++j) {
                    QCOMPARE(positions(i, j), (*viewPositions)(i, j)); // the same function: equal, not close
                    QCOMPARE(gates(i, j), (*viewGates)(i, j));
                    const float viewBias = out.bias(i, j);
                    QVERIFY2(
                        std::fabs(bias(i, j) - viewBias) <= 1e-6f * std::max(1.0f, std::fabs(viewBias)),
                        qPrintable(
                            QString("%1 (%2,%3): %4 vs %5").arg(mode).arg(i).arg(j).arg(bias(i, j)).arg(viewBias)));
                }
            QVERIFY(positions.maxCoeff() == float(npos - 1)); // the clamp is exercised
        }
    }

    void shawRelativeKeys()
    {
        // Shaw, Uszkoreit, Vaswani 2018, section 3 eq. 4: e_ij = q_i (k_j + a^K_ij)^T / sqrt(d) with
        // a^K_ij = w^K_clip(j - i, k) (eq. 5-6); tensor2tensor common_attention.py
        // _generate_relative_positions_matrix (index = clip(key - query, -k, k) + k). The trainer's term against
        // the formula, its gradient against finite differences, and in float against the shaw score hook.
        const int T = 7, dh = 4, k = 2;
        const SchemeDescriptor& sd = schemeOrThrow("shaw");
        const ParamSet prm = paramsFor("shaw", {{"max_relative_position", "2"}, {"seed", "5"}}, dh);
        PairContext ctx;
        ctx.headDim = dh;
        ctx.queries = PositionList::range(0, T);
        ctx.keys = PositionList::range(0, T);
        const Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> idx
            = sd.buckets(prm, ctx).cast<int>();
        Mat<double> q = randomMat(T, dh, 60), table = randomMat(2 * k + 1, dh, 61), r = randomMat(T, T, 62);
        const double scale = 0.5;
        Mat<double> bias;
        relativeKeyForward<double>(q, table, idx, scale, bias);
        for (int i = 0; i < T; ++i)
            for (int j = 0; j < T; ++j) {
                const int row = std::clamp(j - i, -k, k) + k;
                const double ref = j <= i ? q.row(i).dot(table.row(row)) * scale : 0.0;
                QVERIFY(std::fabs(bias(i, j) - ref) < 1e-13);
            }
        auto f = [&] {
            Mat<double> b;
            relativeKeyForward<double>(q, table, idx, scale, b);
            return (b.array() * r.array()).sum();
        };
        Mat<double> dq = Mat<double>::Zero(T, dh), dtab = Mat<double>::Zero(2 * k + 1, dh);
        relativeKeyBackward<double>(r, q, table, idx, scale, dq, dtab);
        checkAll("shaw q", q, dq, f);
        checkAll("shaw a^K", table, dtab, f);
        QVERIFY(dtab.row(0).cwiseAbs().sum() > 0);       // the clipped row (distance k or more back) is trained
        QCOMPARE(dtab.row(2 * k).cwiseAbs().sum(), 0.0); // a causal model never sees keys after the query

        // The views' term: shawScore with its seeded table, the same q.
        const int d = 8;
        const MatrixF qf = randomMat(T, d, 63).cast<float>();
        const MatrixF aK = shawKeyTable(k, d, 5).cast<float>();
        ScoreInputs in;
        in.ctx = &ctx;
        in.q = &qf;
        in.k = &qf;
        MaskMatrix mask = MaskMatrix::Ones(T, T);
        in.mask = &mask;
        ScoreOutputs out;
        out.logits = MatrixF::Zero(T, T);
        sd.score(prm, in, out);
        Mat<float> fb;
        relativeKeyForward<float>(Mat<float>(qf), Mat<float>(aK), idx, float(1.0 / std::sqrt(double(d))), fb);
        for (int i = 0; i < T; ++i)
            for (int j = 0; j <= i; ++j)
                QVERIFY2(std::fabs(fb(i, j) - out.bias(i, j)) <= 1e-6f * std::max(1.0f, std::fabs(out.bias(i, j))),
                         qPrintable(QString("(%1,%2): %3 vs %4").arg(i).arg(j).arg(fb(i, j)).arg(out.bias(i, j))));
    }

    void transformerXlTerms()
    {
        // Dai et al. 2019, section 3.3: A^rel_ij = (a) q_i.k_j + (b) q_i.W_R R_{i-j} + (c) u.k_j + (d) v.W_R R_{i-j};
        // kimiyoung/transformer-xl pytorch/mem_transformer.py RelPartialLearnableMultiHeadAttn (AC, BD, _rel_shift,
        // scale 1/sqrt(d_head)) and PositionalEmbedding (R_x = [sin(x f) | cos(x f)], f_i = 10000^(-2i/d)).
        const int T = 6, dh = 4;
        const double scale = 0.5;
        Mat<double> q = randomMat(T, dh, 70), k = randomMat(T, dh, 71), r = randomMat(T, dh, 72),
                    u = randomMat(dh, 1, 73), v = randomMat(dh, 1, 74), g = randomMat(T, T, 75);
        Mat<double> bias;
        txlForward<double>(q, k, r, CMapVec<double>(u.data(), dh), CMapVec<double>(v.data(), dh), scale, bias);
        for (int i = 0; i < T; ++i)
            for (int j = 0; j < T; ++j) {
                double ref = 0;
                if (j <= i)
                    for (int c = 0; c < dh; ++c)
                        ref += (q(i, c) * r(i - j, c) + u(c) * k(j, c) + v(c) * r(i - j, c)) * scale;
                QVERIFY(std::fabs(bias(i, j) - ref) < 1e-13);
            }
        auto f = [&] {
            Mat<double> b;
            txlForward<double>(q, k, r, CMapVec<double>(u.data(), dh), CMapVec<double>(v.data(), dh), scale, b);
            return (b.array() * g.array()).sum();
        };
        Mat<double> dq = Mat<double>::Zero(T, dh), dk = dq, dr = dq, du = Mat<double>::Zero(dh, 1), dv = du;
        txlBackward<double>(g, q, k, r, CMapVec<double>(u.data(), dh), CMapVec<double>(v.data(), dh), scale, dq, dk, dr,
                            MapVec<double>(du.data(), dh), MapVec<double>(dv.data(), dh));
        checkAll("txl q", q, dq, f);
        checkAll("txl k", k, dk, f);
        checkAll("txl r", r, dr, f);
        checkAll("txl u", u, du, f);
        checkAll("txl v", v, dv, f);

        // R: the reference's sinusoid, against core's relativeSinusoid (what the trainer projects).
        const std::vector<double> r3 = relativeSinusoid(3.0, 8);
        for (int i = 0; i < 4; ++i) {
            const double fi = std::pow(10000.0, -2.0 * i / 8);
            QVERIFY(std::fabs(r3[std::size_t(i)] - std::sin(3 * fi)) < 1e-15);
            QVERIFY(std::fabs(r3[std::size_t(4 + i)] - std::cos(3 * fi)) < 1e-15);
        }

        // The views' terms: the transformer_xl score hook for head 1 with its seeded W_R, u, v.
        const int d = 8, L = 7;
        const SchemeDescriptor& sd = schemeOrThrow("transformer_xl");
        const ParamSet prm = paramsFor("transformer_xl", {{"seed", "4"}}, d);
        const MatrixF qf = randomMat(L, d, 76).cast<float>(), kf = randomMat(L, d, 77).cast<float>();
        const MatrixD wr = seededNormal(d, d, 1.0 / std::sqrt(double(d)), 4, mixSeed(0x7C1, 1));
        const MatrixD uv = seededNormal(2, d, 1.0, 4, mixSeed(0x7C2, 1));
        Mat<float> rf(L, d);
        for (int delta = 0; delta < L; ++delta) {
            const std::vector<double> sv = relativeSinusoid(double(delta), d);
            rf.row(delta) = (wr * Eigen::Map<const Eigen::VectorXd>(sv.data(), d)).cast<float>().transpose();
        }
        PairContext ctx;
        ctx.headDim = d;
        ctx.queries = PositionList::range(0, L);
        ctx.keys = PositionList::range(0, L);
        MaskMatrix mask = MaskMatrix::Ones(L, L);
        ScoreInputs in;
        in.ctx = &ctx;
        in.head = 1;
        in.q = &qf;
        in.k = &kf;
        in.mask = &mask;
        ScoreOutputs out;
        out.logits = MatrixF::Zero(L, L);
        sd.score(prm, in, out);
        const Vec<float> uf = uv.row(0).transpose().cast<float>(), vf = uv.row(1).transpose().cast<float>();
        Mat<float> fb;
        txlForward<float>(Mat<float>(qf), Mat<float>(kf), rf, uf, vf, float(1.0 / std::sqrt(double(d))), fb);
        for (int i = 0; i < L; ++i)
            for (int j = 0; j <= i; ++j)
                QVERIFY2(std::fabs(fb(i, j) - out.bias(i, j)) <= 2e-5f * std::max(1.0f, std::fabs(out.bias(i, j))),
                         qPrintable(QString("(%1,%2): %3 vs %4").arg(i).arg(j).arg(fb(i, j)).arg(out.bias(i, j))));
    }

    void crossEntropyGradient()
    {
        Mat<double> logits = randomMat(1, 9, 30);
        Mat<double> d(1, 9);
        const double loss = crossEntropy<double>(logits.data(), 9, 4, 1.0, d.data());
        double z = 0;
        for (int j = 0; j < 9; ++j)
            z += std::exp(logits(0, j));
        QVERIFY(std::fabs(loss - (std::log(z) - logits(0, 4))) < 1e-13);
        checkAll("cross-entropy", logits, d, [&] {
            Mat<double> dd(1, 9);
            return crossEntropy<double>(logits.data(), 9, 4, 1.0, dd.data());
        });
    }

    void networkGradient_data()
    {
        // clang-format off
        QTest::addColumn<QString>("scheme");
        QTest::addColumn<QString>("set");
        QTest::addColumn<bool>("tied");
        QTest::addColumn<bool>("gelu");
        for (const std::string& id : trainableSchemes())
            QTest::newRow(id.c_str()) << QString::fromStdString(id) << QString() << false << true;
        QTest::newRow("kerple power") << "kerple" << "variant=power,r2=1.3" << false << true;
        QTest::newRow("cope scaled npos 4") << "cope" << "position_logits=scaled,npos_max=4" << false << true;
        QTest::newRow("shaw k 3") << "shaw" << "max_relative_position=3" << false << true; // distances clipped
        QTest::newRow("rope tied relu") << "rope" << "" << true << false;
        // clang-format on
    }

    void networkGradient()
    {
        QFETCH(QString, scheme);
        QFETCH(QString, set);
        QFETCH(bool, tied);
        QFETCH(bool, gelu);
        ModelConfig c;
        c.layers = 2;
        c.width = 16;
        c.heads = 2;
        c.vocab = Vocabulary{5}.size();
        c.tied = tied;
        c.gelu = gelu;
        c.learnedRows = 12;
        c.seed = 7;
        Overrides o;
        if (!set.isEmpty())
            for (const QString& kv : set.split(','))
                o.push_back(splitSetting(kv.toStdString()));
        const std::string id = scheme.toStdString();
        const SchemeDescriptor& sd = schemeOrThrow(id);
        const ParamSet prm = paramsFor(id, o, sd.bias || sd.rotary ? c.width / c.heads : c.width);
        Network<double> net(c, sd, prm);
        net.initialise();
        // Move the parameters off their symmetric start (zero biases, unit LayerNorm) so every path matters.
        SeededRandom rng(99);
        for (double& w : net.params())
            w += 0.05 * rng.normal();
        net.constrain();
        const Batch b = testBatch(Task::Copy, 5, {5, 3, 4}, 42); // 11 input tokens at most (< 12 learned rows)
        std::vector<double> grad;
        const double loss0 = net.run(b, &grad, 2);
        QVERIFY2(std::isfinite(loss0), qPrintable(QString::number(loss0)));
        for (const ParamLayout::Block& blk : net.layout().blocks)
            for (std::size_t k = 0; k < blk.size; ++k)
                if (!std::isfinite(grad[blk.offset + k]))
                    QFAIL(qPrintable(
                        QString("gradient of %1[%2] is not finite").arg(QString::fromStdString(blk.name)).arg(k)));
        std::vector<double> grad1;
        net.run(b, &grad1, 1);
        for (std::size_t i = 0; i < grad.size(); ++i)
            if (grad[i] != grad1[i])
                QFAIL(qPrintable(QString("thread count changed gradient %1: %2 vs %3")
                                     .arg(i)
                                     .arg(grad[i], 0, 'g', 17)
                                     .arg(grad1[i], 0, 'g', 17)));
        int checked = 0;
        for (const ParamLayout::Block& blk : net.layout().blocks) {
            const bool full = blk.name.rfind("pos.", 0) == 0; // every trainable position parameter
            const std::size_t count = full ? blk.size : std::min<std::size_t>(blk.size, 5);
            for (std::size_t k = 0; k < count; ++k) {
                const std::size_t i = blk.offset + (full ? k : (k * 7919 + 13) % blk.size);
                double& w = net.params()[i];
                const double keep = w;
                w = keep + fdStep;
                const double up = net.run(b, nullptr, 1);
                w = keep - fdStep;
                const double down = net.run(b, nullptr, 1);
                w = keep;
                const double numeric = (up - down) / (2 * fdStep);
                if (!close(grad[i], numeric))
                    QFAIL(qPrintable(QString("%1 %2[%3]: analytic %4, numeric %5")
                                         .arg(scheme, QString::fromStdString(blk.name))
                                         .arg(i - blk.offset)
                                         .arg(grad[i], 0, 'g', 12)
                                         .arg(numeric, 0, 'g', 12)));
                ++checked;
            }
        }
        QVERIFY(checked > 50);
        // The trainable position parameters do receive gradient (a test that could not fail otherwise).
        for (const ParamLayout::Block& blk : net.layout().blocks)
            if (blk.name.rfind("pos.", 0) == 0) {
                double norm = 0;
                for (std::size_t k = 0; k < blk.size; ++k)
                    norm += std::fabs(grad[blk.offset + k]);
                QVERIFY2(norm > 0, blk.name.c_str());
            }
    }

    // The trained model's factor on q.k is the scheme's (logitScaleOf), as the views have it: Hugging Face
    // T5Attention.forward multiplies q and k without 1/sqrt(d) (transformers models/t5/modeling_t5.py; Mesh
    // TensorFlow folds the factor into W_q's initialisation), so T5 with logit_scale none on W_q / sqrt(hd) is the
    // same network as logit_scale inv_sqrt_d on W_q: (c q).k = c (q.k). RoPE keeps 1/sqrt(hd) (Vaswani et al.
    // 2017, eq. 1): W_q * sqrt(hd) under it gives the unscaled T5-style product.
    void logitScaleIsTheSchemes()
    {
        ModelConfig c;
        c.layers = 1;
        c.width = 16;
        c.heads = 2;
        c.vocab = Vocabulary{5}.size();
        c.seed = 3;
        const int d = c.width, hd = c.width / c.heads;
        const SchemeDescriptor& t5 = schemeOrThrow("t5");
        QCOMPARE(logitScaleOf(t5, paramsFor("t5", {}, hd), hd), 1.0);
        const Batch b = testBatch(Task::Copy, 5, {5, 3, 4}, 42);
        auto network = [&](const std::string& id, const Overrides& o, double qFactor) {
            const SchemeDescriptor& sd = schemeOrThrow(id);
            auto net = std::make_unique<Network<double>>(c, sd, paramsFor(id, o, hd));
            net->initialise();
            SeededRandom rng(5);
            for (double& w : net->params())
                w += 0.05 * rng.normal();
            // q = the first d columns of W_qkv (d x 3d, row-major) and the first d entries of b_qkv
            const ParamLayout::Block& w = net->layout().find("l0.wqkv");
            for (int r = 0; r < d; ++r)
                for (int col = 0; col < d; ++col)
                    net->params()[w.offset + std::size_t(r) * 3 * d + col] *= qFactor;
            const ParamLayout::Block& bq = net->layout().find("l0.bqkv");
            for (int col = 0; col < d; ++col)
                net->params()[bq.offset + col] *= qFactor;
            return net;
        };
        const double scaled = network("t5", {{"logit_scale", "inv_sqrt_d"}}, 1.0)->run(b, nullptr, 1);
        const double folded = network("t5", {}, 1.0 / std::sqrt(double(hd)))->run(b, nullptr, 1);
        const double plain = network("t5", {}, 1.0)->run(b, nullptr, 1);
        QVERIFY2(
            std::fabs(scaled - folded) <= 1e-12 * std::fabs(scaled),
            qPrintable(
                QString("inv_sqrt_d %1, none with W_q/sqrt(hd) %2").arg(scaled, 0, 'g', 17).arg(folded, 0, 'g', 17)));
        QVERIFY2(std::fabs(plain - scaled) > 1e-6,
                 qPrintable(QString("none %1 = inv_sqrt_d %2").arg(plain).arg(scaled)));
        // The attention probabilities agree too.
        const auto pa = network("t5", {{"logit_scale", "inv_sqrt_d"}}, 1.0)->attention(b, 0);
        const auto pb = network("t5", {}, 1.0 / std::sqrt(double(hd)))->attention(b, 0);
        QCOMPARE(pa.size(), pb.size());
        for (std::size_t h = 0; h < pa.size(); ++h)
            QVERIFY((pa[h] - pb[h]).cwiseAbs().maxCoeff() < 1e-12);
        // RoPE divides by sqrt(hd): its loss changes when W_q is scaled (the factor is not 1).
        const double rope = network("rope", {}, 1.0)->run(b, nullptr, 1);
        const double ropeUp = network("rope", {}, std::sqrt(double(hd)))->run(b, nullptr, 1);
        QVERIFY(std::fabs(rope - ropeUp) > 1e-6);
        QCOMPARE(logitScaleOf(schemeOrThrow("rope"), paramsFor("rope", {}, hd), hd), 1.0 / std::sqrt(double(hd)));
    }

    // Exact match and token accuracy (trainer.h scoreAnswers, what evaluate() reports): on two copy sequences of
    // length 3 (3 answer tokens each), one all right and one with one answer token wrong, exact match is 1/2 and
    // token accuracy 5/6; a wrong prediction at a non-answer position counts for neither.
    void exactMatchAndTokenAccuracy()
    {
        const Batch b = testBatch(Task::Copy, 5, {3, 3}, 11);
        QCOMPARE(b.n, 2);
        std::vector<int> pred(b.targets.begin(), b.targets.end());
        int answers = 0;
        for (float w : b.weights)
            answers += w != 0.0f;
        QCOMPARE(answers, 6);
        AnswerScore all = scoreAnswers(b, pred);
        QCOMPARE(all.exact, 2);
        QCOMPARE(all.tokenAccuracy(), 1.0);
        // a non-answer position (the first input token's target) predicted wrong changes nothing
        QCOMPARE(b.weights[0], 0.0f);
        pred[0] = (b.targets[0] + 1) % 5;
        QCOMPARE(scoreAnswers(b, pred).exact, 2);
        // one answer token of sequence 1 wrong
        for (int t = 0; t < b.T; ++t)
            if (b.weights[std::size_t(b.T + t)] != 0.0f) {
                pred[std::size_t(b.T + t)] = (b.targets[std::size_t(b.T + t)] + 1) % 5;
                break;
            }
        const AnswerScore one = scoreAnswers(b, pred);
        QCOMPARE(one.sequences, 2);
        QCOMPARE(one.exact, 1);
        QCOMPARE(one.exactMatch(), 0.5);
        QCOMPARE(one.tokens, 6);
        QCOMPARE(one.right, 5);
        QCOMPARE(one.tokenAccuracy(), 5.0 / 6.0);
    }

    void tasksAreWhatTheySay()
    {
        const Example copy = makeExample(Task::Copy, 4, 8, 5);
        QCOMPARE(int(copy.tokens.size()), 9);
        QCOMPARE(copy.tokens[4], 8); // SEP = vocab
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(copy.tokens[std::size_t(5 + i)], copy.tokens[std::size_t(i)]);
            QCOMPARE(int(copy.answer[std::size_t(5 + i)]), 1);
            QCOMPARE(int(copy.answer[std::size_t(i)]), 0);
        }
        const Example rev = makeExample(Task::Reverse, 3, 8, 5);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(rev.tokens[std::size_t(4 + i)], rev.tokens[std::size_t(2 - i)]);
        const Example add = makeExample(Task::Addition, 3, 8, 9);
        auto value = [](const std::vector<int>& t, int from, int n) {
            long v = 0;
            for (int i = n - 1; i >= 0; --i)
                v = v * 10 + t[std::size_t(from + i)];
            return v;
        };
        QCOMPARE(value(add.tokens, 8, 4), value(add.tokens, 0, 3) + value(add.tokens, 4, 3));
        const Example rec = makeExample(Task::Recall, 5, 4, 3);
        const int q = rec.tokens[11];
        int expect = -1;
        for (int i = 0; i < 5; ++i)
            if (rec.tokens[std::size_t(2 * i)] == q)
                expect = rec.tokens[std::size_t(2 * i + 1)];
        QCOMPARE(rec.tokens[12], expect);
        QCOMPARE(makeExample(Task::Copy, 6, 8, 77).tokens, makeExample(Task::Copy, 6, 8, 77).tokens);
    }

    void reproducible_data()
    {
        // clang-format off
        QTest::addColumn<QString>("scheme");
        QTest::newRow("alibi") << "alibi";
        QTest::newRow("cope") << "cope";
        QTest::newRow("shaw") << "shaw";
        QTest::newRow("transformer_xl") << "transformer_xl";
        // clang-format on
    }

    void cosineSchedule()
    {
        // torch.optim.lr_scheduler.CosineAnnealingLR (eta_min 0, T_max = steps), stepped after each optimiser step:
        // step k trains at lr (1 + cos(pi (k - 1) / T_max)) / 2.
        TrainConfig c;
        c.lr = 0.004;
        c.steps = 10;
        QVERIFY(c.cosineDecay); // the default recipe
        c.cosineDecay = false;
        QCOMPARE(learningRate(c, 1), 0.004); // constant
        QCOMPARE(learningRate(c, 10), 0.004);
        c.cosineDecay = true;
        for (int k = 1; k <= 10; ++k)
            QVERIFY(std::fabs(learningRate(c, k) - 0.004 * (1 + std::cos(M_PI * (k - 1) / 10.0)) / 2) < 1e-18);
        QCOMPARE(learningRate(c, 6), 0.002);
        // In training: the first two losses are computed before any update at a lower rate, the third after one.
        c.steps = 3;
        c.batch = 8;
        c.width = 16;
        c.heads = 2;
        c.trainLen = 4;
        c.testLens = {4};
        c.evalSamples = 4;
        c.evalEvery = 0;
        const RunResult cosine = trainRun(c);
        c.cosineDecay = false;
        const RunResult constant = trainRun(c);
        QCOMPARE(cosine.loss[0].loss, constant.loss[0].loss);
        QCOMPARE(cosine.loss[1].loss, constant.loss[1].loss);
        QVERIFY(cosine.loss[2].loss != constant.loss[2].loss);
        // The largest --steps is a request like any other: the cosine schedule decays over all of it (the run
        // stops at --seconds); refusing it with "give --steps" was wrong (issue 38 item 9).
        c.cosineDecay = true;
        c.steps = 100000000;
        c.seconds = 10;
        QVERIFY_THROWS_NO_EXCEPTION(validate(c));
        c.steps = 100000001;
        QVERIFY_THROWS_EXCEPTION(InputError, validate(c));
    }

    void reproducible()
    {
        QFETCH(QString, scheme);
        TrainConfig c;
        c.scheme = scheme.toStdString();
        c.steps = 12;
        c.batch = 20;
        c.width = 16;
        c.heads = 2;
        c.trainLen = 4;
        c.testLens = {4, 8};
        c.evalSamples = 20;
        c.evalEvery = 6;
        c.seed = 3;
        const RunResult a = trainRun(c);
        c.threads = 3;
        const RunResult b = trainRun(c);
        QCOMPARE(int(a.loss.size()), 12);
        for (std::size_t i = 0; i < a.loss.size(); ++i)
            QCOMPARE(a.loss[i].loss, b.loss[i].loss); // exactly equal
        for (std::size_t i = 0; i < a.lengths.size(); ++i) {
            QCOMPARE(a.lengths[i].tokenAccuracy, b.lengths[i].tokenAccuracy);
            QCOMPARE(a.lengths[i].loss, b.lengths[i].loss);
        }
        c.seed = 4;
        const RunResult d = trainRun(c);
        QVERIFY(d.loss[0].loss != a.loss[0].loss);
        QVERIFY(a.loss.back().loss < a.loss.front().loss); // it learns
    }

    void refusals()
    {
        TrainConfig c;
        c.width = 30;
        c.heads = 4;
        try {
            validate(c);
            QFAIL("width 30 with 4 heads was accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()), QString("--width 30 is not divisible by --heads 4"));
        }
        c = TrainConfig{};
        c.testLens = {20000};
        QVERIFY_THROWS_EXCEPTION(RefusedError, validate(c));
        c = TrainConfig{};
        c.scheme = "deberta";
        QVERIFY_THROWS_EXCEPTION(InputError, validate(c));
        // CoPE's tables (npos_max x head dim per layer, with AdamW's moments and each chunk's gradient) count
        // toward the memory cap before anything is allocated: 65536 x 256 x 4 layers is 67M weights.
        c = TrainConfig{};
        c.scheme = "cope";
        c.width = 256;
        c.heads = 1;
        c.layers = 4;
        c.overrides = {{"npos_max", "65536"}};
        QVERIFY_THROWS_EXCEPTION(RefusedError, validate(c));
        c.overrides = {{"npos_max", "64"}};
        validate(c);
        // Transformer-XL's R is a sinusoid of width d_model: validate refuses an odd width with the registry's line.
        c = TrainConfig{};
        c.scheme = "transformer_xl";
        c.width = 9;
        c.heads = 1;
        try {
            validate(c);
            QFAIL("odd width accepted for transformer_xl");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()),
                     QString("transformer_xl needs an even dimension of at least 2 (dimensions work in "
                             "pairs); got 9"));
        }
    }

    void learnedHasNoRowsPastTraining()
    {
        TrainConfig c;
        c.scheme = "learned";
        c.steps = 2;
        c.batch = 8;
        c.width = 16;
        c.heads = 2;
        c.trainLen = 3;
        c.testLens = {3, 4};
        c.evalSamples = 8;
        c.evalEvery = 0;
        const RunResult r = trainRun(c);
        QCOMPARE(r.lengths.size(), std::size_t(2));
        QVERIFY(!r.lengths[0].noPositionRows);
        QVERIFY(r.lengths[1].noPositionRows);
        QCOMPARE(r.lengths[1].exactMatch, 0.0);
    }

    void divergenceNamesTheStep()
    {
        TrainConfig c;
        c.scheme = "nope";
        c.steps = 50;
        c.batch = 8;
        c.width = 16;
        c.heads = 2;
        c.trainLen = 3;
        c.testLens = {3};
        c.evalSamples = 8;
        c.evalEvery = 0;
        c.lr = 1e38; // AdamW moves every weight by about lr per step: float32 overflows at once
        const RunResult r = trainRun(c);
        QVERIFY(r.diverged);
        QVERIFY2(QString::fromStdString(r.stop).contains(QRegularExpression("^loss is (nan|infinite) at step \\d+")),
                 r.stop.c_str());
        QCOMPARE(int(r.loss.size()), r.stepsDone);
        QVERIFY(r.stepsDone >= 1);
        QVERIFY(r.lengths.empty());
    }

    void runFileRoundTrip()
    {
        TrainConfig c;
        c.scheme = "rope";
        c.steps = 3;
        c.batch = 8;
        c.width = 16;
        c.heads = 2;
        c.trainLen = 3;
        c.testLens = {3, 6};
        c.evalSamples = 8;
        c.evalEvery = 0;
        const RunResult r = trainRun(c);
        std::ostringstream out;
        writeRuns(out, {r, r});
        const std::vector<RunResult> back = readRuns(out.str());
        QCOMPARE(back.size(), std::size_t(2));
        QCOMPARE(back[0].config.scheme, std::string("rope"));
        QCOMPARE(back[1].lengths.size(), std::size_t(2));
        QCOMPARE(back[1].lengths[1].length, 6);
        QVERIFY(std::fabs(back[0].lengths[0].tokenAccuracy - r.lengths[0].tokenAccuracy) < 1e-12);
        QVERIFY_THROWS_EXCEPTION(InputError, readRuns("{\"format\": \"other\"}"));
    }
};

QTEST_GUILESS_MAIN(TrainGradTest)
#include "tst_train_grad.moc"
