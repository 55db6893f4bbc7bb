// SPDX-License-Identifier: MIT
// Hugging Face's own RoPE tests (huggingface/transformers tests/utils/test_modeling_rope_utils.py, class RopeTest)
// replayed through `poslab compute frequencies`, one data row per check of each test function (issue 38: "Hugging
// Face's RoPE test cases all pass through poslab compute"). Each row gives the same configuration values as the HF
// test (LlamaConfig: hidden_size 4096 / 32 heads = head dim 128, max_position_embeddings 2048, rope_theta 10000;
// the *_nested variants' Gemma3TextConfig: head_dim 256, max_position_embeddings 131072) and its expected numbers,
// computed here from the formulas of src/transformers/modeling_rope_utils.py (written out below), plus a few of
// the test's own snapshot values (EXPECTED_INV_FREQ) at the indices named. Comparisons use the HF test's
// tolerance: torch.testing.assert_close's float32 defaults (rtol 1.3e-6, atol 1e-5) for frequencies, exact
// equality (assertEqual) for the attention factor.
//
// Not replayed, as PosLab deliberately differs: test_rope_validation and the second part of
// test_yarn_original_original_max_position_embeddings_validation expect a KeyError for a rope type given without
// its required keys (factor, original_max_position_embeddings, short_factor, ...); every PosLab parameter has a
// value (a real model's, see `poslab schemes`), so there is no missing key. A key the type does not read is refused
// (exit 2), which rows below check. The nested tests' per-layer dicts are one rope set-up per layer type; PosLab
// computes one (the rows use the full_attention one).
#include "tests/cli/clirun.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <numbers>

using poslab::test::Run;
using poslab::test::runList;

namespace {

using Vec = QList<double>;

// LlamaConfig() and Gemma3TextConfig() as the HF tests read them.
constexpr int llamaDim = 128;
constexpr int llamaMaxPos = 2048;
constexpr int gemmaDim = 256;
constexpr int gemmaMaxPos = 131072;
constexpr double theta = 10000.0;

// _compute_default_rope_parameters: inv_freq_i = rope_theta^(-2i/d), i = 0 .. d/2 - 1.
Vec defaultInvFreq(int d, double base = theta)
{
    Vec v;
    for (int i = 0; i < d / 2; ++i)
        v << 1.0 / std::pow(base, double(2 * i) / double(d));
    return v;
}

Vec divided(Vec v, double by)
{
    for (double& x : v)
        x /= by;
    return v;
}

Vec dividedEach(Vec v, const Vec& by)
{
    for (qsizetype i = 0; i < v.size(); ++i)
        v[i] /= by[i];
    return v;
}

// _compute_dynamic_ntk_parameters: L = max(seq_len, max_position_embeddings),
// base' = base * (factor * L / max_position_embeddings - (factor - 1))^(d / (d - 2)).
Vec dynamicInvFreq(int d, double factor, double seqLen, double maxPos)
{
    const double length = std::max(seqLen, maxPos);
    return defaultInvFreq(d, theta * std::pow(factor * length / maxPos - (factor - 1.0), double(d) / double(d - 2)));
}

// _compute_yarn_parameters: correction dimension of n rotations d ln(L0 / (2 pi n)) / (2 ln base), the range
// [max(floor(low), 0), min(ceil(high), d - 1)], a linear ramp over the pair index clamped to [0, 1]; each pair
// mixes the interpolated (inv_freq / factor) and extrapolated (inv_freq) frequencies by that ramp.
Vec yarnInvFreq(int d, double factor, double originalMax, double betaFast, double betaSlow)
{
    const auto dimOf = [&](double n) {
        return double(d) * std::log(originalMax / (n * 2.0 * std::numbers::pi)) / (2.0 * std::log(theta));
    };
    const double low = std::max(std::floor(dimOf(betaFast)), 0.0);
    double high = std::min(std::ceil(dimOf(betaSlow)), double(d - 1));
    if (low == high)
        high += 0.001;
    Vec v = defaultInvFreq(d);
    for (int i = 0; i < d / 2; ++i) {
        const double towardsInterpolation = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);
        v[i] = v[i] / factor * towardsInterpolation + v[i] * (1.0 - towardsInterpolation);
    }
    return v;
}

// _compute_llama3_parameters: wavelength 2 pi / inv_freq; above L0 / low_freq_factor divided by factor, below
// L0 / high_freq_factor kept, between them blended with s = (L0 / wavelength - low) / (high - low).
Vec llama3InvFreq(int d, double factor, double low, double high, double originalMax)
{
    Vec v = defaultInvFreq(d);
    for (double& w : v) {
        const double wavelength = 2.0 * std::numbers::pi / w;
        if (wavelength > originalMax / low)
            w /= factor;
        else if (!(wavelength < originalMax / high)) {
            const double s = (originalMax / wavelength - low) / (high - low);
            w = (1.0 - s) * w / factor + s * w;
        }
    }
    return v;
}

// _compute_proportional_rope_parameters: the first int(p * d // 2) pairs at rope_theta^(-2i/d) (denominator d),
// the rest 0, everything divided by factor.
Vec proportionalInvFreq(int d, double proportion, double factor)
{
    const int rotated = int(std::floor(proportion * double(d) / 2.0));
    Vec v = defaultInvFreq(d);
    for (int i = rotated; i < d / 2; ++i)
        v[i] = 0.0;
    return divided(v, factor);
}

// The HF test's longrope factors: short_factor = [2.0] * (d // 2), long_factor = 1, 2, ..., d // 2.
Vec shortFactor(int d)
{
    return Vec(d / 2, 2.0);
}
Vec longFactor(int d)
{
    Vec v;
    for (int i = 1; i <= d / 2; ++i)
        v << double(i);
    return v;
}
QString listText(const Vec& v)
{
    QStringList s;
    for (double x : v)
        s << QString::number(x, 'g', 17);
    return s.join(',');
}

// The float32 values a torch tensor holds: the margin comparisons of test_yarn_rope_numerically are made in float32
// (1.0 + 1e-8 is 1.0 there, which is why its first pair counts as "not interpolating").
Vec asFloat32(const Vec& v)
{
    Vec r;
    for (double x : v)
        r << double(float(x));
    return r;
}
Vec plusF32(const Vec& v, double margin)
{
    Vec r;
    for (double x : v)
        r << double(float(float(x) + float(margin)));
    return r;
}

/// poslab compute frequencies for one head dimension with the rows' --set items (and any other options).
QStringList freqs(int dim, const QStringList& sets, const QStringList& more = {})
{
    QStringList a = {"compute",     "frequencies", "--scheme", "rope", "--dim", QString::number(dim),
                     "--positions", "0:1",         "--format", "json", "--set", "rope_theta=10000"};
    for (const QString& s : sets)
        a << "--set" << s;
    return a + more;
}

QStringList seqLen(qint64 l)
{
    return {"--seq-len", QString::number(l)};
}

// torch.testing.assert_close's defaults for float32.
bool hfClose(double actual, double expected)
{
    return std::abs(actual - expected) <= 1e-5 + 1.3e-6 * std::abs(expected);
}

} // namespace

class TestCliHfRope : public QObject {
    Q_OBJECT
private slots:
    void replay_data();
    void replay();
    void proportionalTurnsTheWholeHead();
};

void TestCliHfRope::replay_data()
{
    QTest::addColumn<QStringList>("args");
    // close: data ~ expected (at indices, when given); notclose: not all close; attention: attention_factor ==
    // expected[0]; within: expected <= data <= upper; within_f32: the same in float32; below: data < upper;
    // interpolating_f32: data[0] >= upper[0] and data[i] < upper[i] for i >= 1, in float32; warns: a warning
    // contains text; quiet: exit 0 and no warning; refused: exit 2, stderr contains text.
    QTest::addColumn<QString>("check");
    QTest::addColumn<Vec>("expected");
    QTest::addColumn<Vec>("upper");
    QTest::addColumn<QList<int>>("indices");
    QTest::addColumn<QString>("text");

    const Vec none;
    const QList<int> all;
    const Vec llamaDefault = defaultInvFreq(llamaDim);
    const Vec gemmaDefault = defaultInvFreq(gemmaDim);
    const QString sf = "short_factor=" + listText(shortFactor(llamaDim)),
                  lf = "long_factor=" + listText(longFactor(llamaDim));
    const QString gsf = "short_factor=" + listText(shortFactor(gemmaDim)),
                  glf = "long_factor=" + listText(longFactor(gemmaDim));
    const QString llamaPos = "original_max_position_embeddings=" + QString::number(llamaMaxPos),
                  llamaMax = "max_position_embeddings=" + QString::number(llamaMaxPos);
    const QString gemmaPos = "original_max_position_embeddings=" + QString::number(gemmaMaxPos),
                  gemmaMax = "max_position_embeddings=" + QString::number(gemmaMaxPos);

    // clang-format off
    // test_default_rope_numerically / _nested
    QTest::newRow("default: inv_freq") << freqs(llamaDim, {}) << "close" << llamaDefault << none << all << "";
    QTest::newRow("default: snapshot") << freqs(llamaDim, {}) << "close" << Vec{8.6596e-01, 1.0e-02, 1.1548e-04} << none << QList<int>{1, 32, 63} << "";
    QTest::newRow("default: attention 1") << freqs(llamaDim, {}) << "attention" << Vec{1.0} << none << all << "";
    QTest::newRow("default nested: inv_freq") << freqs(gemmaDim, {}) << "close" << gemmaDefault << none << all << "";
    QTest::newRow("default nested: snapshot") << freqs(gemmaDim, {}) << "close" << Vec{9.3057e-01, 1.0746e-04} << none << QList<int>{1, 127} << "";

    // test_linear_rope_numerically / _nested
    for (double f : {2.0, 10.0, 20.0}) {
        const QString fs = "factor=" + QString::number(f);
        QTest::addRow("linear %g: default / factor", f) << freqs(llamaDim, {"rope_type=linear", fs}) << "close" << divided(llamaDefault, f) << none << all << "";
        QTest::addRow("linear %g: attention 1", f) << freqs(llamaDim, {"rope_type=linear", fs}) << "attention" << Vec{1.0} << none << all << "";
        QTest::addRow("linear nested %g: default / factor", f) << freqs(gemmaDim, {"rope_type=linear", fs}) << "close" << divided(gemmaDefault, f) << none << all << "";
    }

    // test_dynamic_rope_numerically / _nested: no scaling up to max_position_embeddings (seq_len None and 1)
    for (double f : {2.0, 10.0, 20.0}) {
        const QStringList sets = {"rope_type=dynamic", "factor=" + QString::number(f), llamaMax};
        QTest::addRow("dynamic %g: seq_len none = default", f) << freqs(llamaDim, sets) << "close" << llamaDefault << none << all << "";
        QTest::addRow("dynamic %g: seq_len 1 = default", f) << freqs(llamaDim, sets, seqLen(1)) << "close" << llamaDefault << none << all << "";
        QTest::addRow("dynamic %g: attention 1", f) << freqs(llamaDim, sets) << "attention" << Vec{1.0} << none << all << "";
        QTest::addRow("dynamic nested %g: seq_len 1 = default", f) << freqs(gemmaDim, {"rope_type=dynamic", "factor=" + QString::number(f), gemmaMax}, seqLen(1)) << "close" << gemmaDefault << none << all << "";
    }
    const QStringList dyn10 = {"rope_type=dynamic", "factor=10", llamaMax};
    QTest::newRow("dynamic 10: seq_len 16384") << freqs(llamaDim, dyn10, seqLen(16384)) << "close" << dynamicInvFreq(llamaDim, 10, 16384, llamaMaxPos) << none << all << "";
    QTest::newRow("dynamic 10: seq_len 16384 snapshot") << freqs(llamaDim, dyn10, seqLen(16384)) << "close" << Vec{8.0931e-01, 9.7558e-02, 1.6265e-06} << none << QList<int>{1, 11, 63} << "";
    QTest::newRow("dynamic 10: seq_len 16384 is not linear") << freqs(llamaDim, dyn10, seqLen(16384)) << "notclose" << divided(llamaDefault, 10) << none << all << "";
    const QStringList gdyn10 = {"rope_type=dynamic", "factor=10", gemmaMax};
    QTest::newRow("dynamic nested 10: seq_len 200000") << freqs(gemmaDim, gdyn10, seqLen(200000)) << "close" << dynamicInvFreq(gemmaDim, 10, 200000, gemmaMaxPos) << none << all << "";
    QTest::newRow("dynamic nested 10: seq_len 200000 snapshot") << freqs(gemmaDim, gdyn10, seqLen(200000)) << "close" << Vec{9.1723e-01, 1.2574e-01, 1.7170e-05} << none << QList<int>{1, 24, 127} << "";
    QTest::newRow("dynamic nested 10: not linear") << freqs(gemmaDim, gdyn10, seqLen(200000)) << "notclose" << divided(gemmaDefault, 10) << none << all << "";

    // test_dynamic_rope_resets_after_long_sequence: hidden 16 / 2 heads = head dim 8, max_position_embeddings 8.
    const QStringList small = {"rope_type=dynamic", "factor=4", "max_position_embeddings=8"};
    QTest::newRow("dynamic resets: 32 positions scale") << freqs(8, small, seqLen(32)) << "notclose" << defaultInvFreq(8) << none << all << "";
    QTest::newRow("dynamic resets: 4 positions = original") << freqs(8, small, seqLen(4)) << "close" << defaultInvFreq(8) << none << all << "";

    // test_yarn_rope_numerically: LlamaConfig's original_max_position_embeddings is its max_position_embeddings.
    // Its seq_len=1 (unused by yarn) is the sequence length of --positions 0:1 (largest position + 1); an explicit
    // --seq-len is refused for yarn with --scheme, as it changes nothing (issue 38 item 9's convention).
    for (double f : {2.0, 10.0, 20.0}) {
        const QStringList sets = {"rope_type=yarn", "factor=" + QString::number(f), llamaPos, llamaMax};
        QTest::addRow("yarn %g: attention 0.1 ln(factor) + 1", f) << freqs(llamaDim, sets) << "attention" << Vec{0.1 * std::log(f) + 1.0} << none << all << "";
        QTest::addRow("yarn %g: attention_factor 0.5", f) << freqs(llamaDim, sets + QStringList{"attention_factor=0.5"}) << "attention" << Vec{0.5} << none << all << "";
        QTest::addRow("yarn nested %g: attention 0.1 ln(factor) + 1", f) << freqs(gemmaDim, {"rope_type=yarn", "factor=" + QString::number(f), gemmaPos, gemmaMax}) << "attention" << Vec{0.1 * std::log(f) + 1.0} << none << all << "";
    }
    const double margin = 1e-8;
    const QStringList yarn10 = {"rope_type=yarn", "factor=10", "beta_fast=32", "beta_slow=1", llamaPos, llamaMax};
    Vec yarnLow;
    for (double x : asFloat32(divided(llamaDefault, 10)))
        yarnLow << double(float(float(x) - float(margin)));
    QTest::newRow("yarn 10: between default / factor and default") << freqs(llamaDim, yarn10) << "within_f32" << yarnLow << plusF32(llamaDefault, margin) << all << "";
    const QStringList yarnFast = {"rope_type=yarn", "factor=10", "beta_fast=1000", "beta_slow=1", llamaPos, llamaMax};
    QTest::newRow("yarn 10, beta_fast 1000: all but the first interpolate") << freqs(llamaDim, yarnFast) << "interpolating_f32" << none << plusF32(llamaDefault, margin) << all << "";
    QList<int> last20;
    Vec last20Expected;
    for (int i = llamaDim / 2 - 20; i < llamaDim / 2; ++i) {
        last20 << i;
        last20Expected << llamaDefault[i] / 10.0;
    }
    QTest::newRow("yarn 10, beta_fast 1000: last 20 = default / factor") << freqs(llamaDim, yarnFast) << "close" << last20Expected << none << last20 << "";
    QTest::newRow("yarn 10: inv_freq") << freqs(llamaDim, yarn10) << "close" << yarnInvFreq(llamaDim, 10, llamaMaxPos, 32, 1) << none << all << "";
    QTest::newRow("yarn 10: snapshot") << freqs(llamaDim, yarn10) << "close" << Vec{1.0e-01, 8.3479e-02, 4.3007e-04, 2.7384e-04, 1.1548e-05} << none << QList<int>{16, 17, 40, 41, 63} << "";
    // test_yarn_rope_numerically_nested (original_max_position_embeddings: Gemma3's 131072; 8 for beta_fast 1000).
    const QStringList gyarn10 = {"rope_type=yarn", "factor=10", "beta_fast=32", "beta_slow=1", gemmaPos, gemmaMax};
    Vec gyarnLow;
    for (double x : asFloat32(divided(gemmaDefault, 10)))
        gyarnLow << double(float(float(x) - float(margin)));
    QTest::newRow("yarn nested 10: between default / factor and default") << freqs(gemmaDim, gyarn10) << "within_f32" << gyarnLow << plusF32(gemmaDefault, margin) << all << "";
    QTest::newRow("yarn nested 10, beta_fast 1000, original 8: all but the first interpolate") << freqs(gemmaDim, {"rope_type=yarn", "factor=10", "beta_fast=1000", "beta_slow=1", "original_max_position_embeddings=8", gemmaMax}) << "interpolating_f32" << none << plusF32(gemmaDefault, margin) << all << "";
    QTest::newRow("yarn nested 10: inv_freq") << freqs(gemmaDim, gyarn10) << "close" << yarnInvFreq(gemmaDim, 10, gemmaMaxPos, 32, 1) << none << all << "";
    QTest::newRow("yarn nested 10: snapshot") << freqs(gemmaDim, gyarn10) << "close" << Vec{1.5399e-03, 1.4067e-03, 3.4431e-05} << none << QList<int>{90, 91, 127} << "";

    // test_yarn_original_original_max_position_embeddings_validation
    QTest::newRow("yarn validation: factor = max / original, no warning") << freqs(llamaDim, {"rope_type=yarn", "factor=2", "original_max_position_embeddings=1024", llamaMax}) << "quiet" << none << none << all << "";
    QTest::newRow("yarn validation: implicit factor differs, warning") << freqs(llamaDim, {"rope_type=yarn", "factor=2", "original_max_position_embeddings=1", llamaMax}) << "warns" << none << none << all << "implicit factor";

    // test_longrope_rope_numerically / _nested: original_max_position_embeddings = max_position_embeddings.
    for (double f : {2.0, 10.0, 20.0}) {
        const QStringList sets = {"rope_type=longrope", "factor=" + QString::number(f), sf, lf, llamaPos, llamaMax};
        QTest::addRow("longrope %g: attention sqrt(1 + ln f / ln original)", f) << freqs(llamaDim, sets) << "attention" << Vec{std::sqrt(1.0 + std::log(f) / std::log(double(llamaMaxPos)))} << none << all << "";
        QTest::addRow("longrope %g: attention_factor 0.5", f) << freqs(llamaDim, sets + QStringList{"attention_factor=0.5"}, seqLen(1)) << "attention" << Vec{0.5} << none << all << "";
        QTest::addRow("longrope %g: no attention_factor validates", f) << freqs(llamaDim, sets) << "quiet" << none << none << all << "";
        QTest::addRow("longrope nested %g: attention", f) << freqs(gemmaDim, {"rope_type=longrope", "factor=" + QString::number(f), gsf, glf, gemmaPos, gemmaMax}) << "attention" << Vec{std::sqrt(1.0 + std::log(f) / std::log(double(gemmaMaxPos)))} << none << all << "";
    }
    // Check 2 asks seq_len 0 (falsy: the short factors); PosLab's --seq-len starts at 1, the same side of the window.
    const QStringList lr1 = {"rope_type=longrope", "factor=1", sf, lf, llamaPos, llamaMax};
    QTest::newRow("longrope 1: short seq_len = default / short_factor") << freqs(llamaDim, lr1, seqLen(1)) << "close" << dividedEach(llamaDefault, shortFactor(llamaDim)) << none << all << "";
    QTest::newRow("longrope 1: seq_len max + 1 = default / long_factor") << freqs(llamaDim, lr1, seqLen(llamaMaxPos + 1)) << "close" << dividedEach(llamaDefault, longFactor(llamaDim)) << none << all << "";
    const QStringList glr1 = {"rope_type=longrope", "factor=1", gsf, glf, gemmaPos, gemmaMax};
    QTest::newRow("longrope nested 1: short = default / short_factor") << freqs(gemmaDim, glr1, seqLen(1)) << "close" << dividedEach(gemmaDefault, shortFactor(gemmaDim)) << none << all << "";
    QTest::newRow("longrope nested 1: max + 1 = default / long_factor") << freqs(gemmaDim, glr1, seqLen(gemmaMaxPos + 1)) << "close" << dividedEach(gemmaDefault, longFactor(gemmaDim)) << none << all << "";

    // The older test_longrope_rope_numerically (transformers' rope_kwargs era, the same file at
    // e42e4a43c16b458045aa7b0f721cfe4015680880): no seq_len; factor 1 takes the short factors, factor 10 the long
    // ones. PosLab's long_factor_choice=factor is that behaviour (the default follows today's seq_len test).
    QTest::newRow("longrope older: factor 1 = default / short_factor") << freqs(llamaDim, {"rope_type=longrope", "factor=1", "long_factor_choice=factor", sf, lf, llamaPos, llamaMax}) << "close" << dividedEach(llamaDefault, shortFactor(llamaDim)) << none << all << "";
    QTest::newRow("longrope older: factor 10 = default / long_factor") << freqs(llamaDim, {"rope_type=longrope", "factor=10", "long_factor_choice=factor", sf, lf, llamaPos, llamaMax}) << "close" << dividedEach(llamaDefault, longFactor(llamaDim)) << none << all << "";
    QTest::newRow("longrope today: factor 10, short sequence = default / short_factor") << freqs(llamaDim, {"rope_type=longrope", "factor=10", sf, lf, llamaPos, llamaMax}) << "close" << dividedEach(llamaDefault, shortFactor(llamaDim)) << none << all << "";

    // test_llama3_rope_numerically / _nested
    const auto llama3 = [&](double f, int high) {
        return QStringList{"rope_type=llama3", "factor=" + QString::number(f), "original_max_position_embeddings=2048",
                           "low_freq_factor=1", "high_freq_factor=" + QString::number(high)};
    };
    for (double f : {2.0, 10.0, 20.0})
        QTest::addRow("llama3 %g: attention 1", f) << freqs(llamaDim, llama3(f, 4)) << "attention" << Vec{1.0} << none << all << "";
    QTest::newRow("llama3 10: between default / factor and default") << freqs(llamaDim, llama3(10, 4)) << "within" << divided(llamaDefault, 10) << llamaDefault << all << "";
    QTest::newRow("llama3 10, high_freq_factor 1000: all scaled") << freqs(llamaDim, llama3(10, 1000)) << "below" << none << llamaDefault << all << "";
    QTest::newRow("llama3 10: inv_freq") << freqs(llamaDim, llama3(10, 4)) << "close" << llama3InvFreq(llamaDim, 10, 1, 4, 2048) << none << all << "";
    QTest::newRow("llama3 10: snapshot") << freqs(llamaDim, llama3(10, 4)) << "close" << Vec{1.0730e-02, 7.7785e-03, 3.4539e-04, 2.7384e-04} << none << QList<int>{31, 32, 40, 41} << "";
    QTest::newRow("llama3 nested 10: between") << freqs(gemmaDim, llama3(10, 4)) << "within" << divided(gemmaDefault, 10) << gemmaDefault << all << "";
    QTest::newRow("llama3 nested 10, high_freq_factor 1000: all scaled") << freqs(gemmaDim, llama3(10, 1000)) << "below" << none << gemmaDefault << all << "";
    QTest::newRow("llama3 nested 10: inv_freq") << freqs(gemmaDim, llama3(10, 4)) << "close" << llama3InvFreq(gemmaDim, 10, 1, 4, 2048) << none << all << "";
    QTest::newRow("llama3 nested 10: snapshot") << freqs(gemmaDim, llama3(10, 4)) << "close" << Vec{1.0730e-02, 9.1428e-03, 2.9427e-04} << none << QList<int>{62, 63, 81} << "";

    // test_proportional_rope_numerically / _nested (rope_type proportional, Gemma 4)
    for (double p : {1.0, 0.5, 0.25}) {
        const QStringList sets = {"rope_type=proportional", "partial_rotary_factor=" + QString::number(p)};
        QTest::addRow("proportional %g: attention 1", p) << freqs(llamaDim, sets) << "attention" << Vec{1.0} << none << all << "";
        QTest::addRow("proportional %g: d/2 pairs, zeros past the rotated ones", p) << freqs(llamaDim, sets) << "close" << proportionalInvFreq(llamaDim, p, 1.0) << none << all << "";
        QTest::addRow("proportional nested %g", p) << freqs(gemmaDim, sets) << "close" << proportionalInvFreq(gemmaDim, p, 1.0) << none << all << "";
    }
    QTest::newRow("proportional 1, factor 1 = default") << freqs(llamaDim, {"rope_type=proportional", "partial_rotary_factor=1", "factor=1"}) << "close" << llamaDefault << none << all << "";
    for (double f : {2.0, 10.0})
        QTest::addRow("proportional 1, factor %g = linear", f) << freqs(llamaDim, {"rope_type=proportional", "partial_rotary_factor=1", "factor=" + QString::number(f)}) << "close" << divided(llamaDefault, f) << none << all << "";
    QTest::newRow("proportional 0.5, factor 2 = unscaled / 2") << freqs(llamaDim, {"rope_type=proportional", "partial_rotary_factor=0.5", "factor=2"}) << "close" << divided(proportionalInvFreq(llamaDim, 0.5, 1.0), 2.0) << none << all << "";
    QTest::newRow("proportional 0.25: snapshot") << freqs(llamaDim, {"rope_type=proportional", "partial_rotary_factor=0.25"}) << "close" << Vec{1.1548e-01, 0.0, 0.0} << none << QList<int>{15, 16, 63} << "";

    // test_rope_validation's second half: a key the type does not read (HF: KeyError, as its required keys are
    // missing) is refused; its last part, an unknown key (mrope_sections: HF warns "Unrecognized keys"), is refused
    // too (PosLab refuses what it does not read).
    QTest::newRow("validation: beta_fast on linear refused") << freqs(llamaDim, {"rope_type=linear", "beta_fast=2"}) << "refused" << none << none << all << "applies only when rope_type is yarn";
    QTest::newRow("validation: short_factor on yarn refused") << freqs(llamaDim, {"rope_type=yarn", "short_factor=1"}) << "refused" << none << none << all << "applies only when rope_type is longrope";
    QTest::newRow("validation: a key no rope type has (mrope_sections) refused") << freqs(llamaDim, {"mrope_sections=1"}) << "refused" << none << none << all << "mrope_sections";
    // clang-format on
}

void TestCliHfRope::replay()
{
    QFETCH(QStringList, args);
    QFETCH(QString, check);
    QFETCH(Vec, expected);
    QFETCH(Vec, upper);
    QFETCH(QList<int>, indices);
    QFETCH(QString, text);

    const Run r = runList(args);
    if (check == "refused") {
        QCOMPARE(r.status, 2);
        QVERIFY2(poslab::test::errText(r).contains(text), r.err.c_str());
        return;
    }
    QVERIFY2(r.status == 0, r.err.c_str());
    const QJsonObject j = r.json();
    Vec data;
    for (const QJsonValue& v : j.value("data").toArray())
        data << v.toDouble();
    const QJsonArray warnings = j.value("warnings").toArray();

    if (check == "attention") {
        QVERIFY(j.contains("attention_factor"));
        QCOMPARE(j.value("attention_factor").toDouble(), expected[0]); // HF: assertEqual
    } else if (check == "warns") {
        bool found = false;
        for (const QJsonValue& w : warnings)
            found = found || w.toString().contains(text);
        QVERIFY2(found, r.out.c_str());
        QVERIFY(poslab::test::errText(r).contains(text));
    } else if (check == "quiet") {
        QVERIFY2(warnings.isEmpty(), r.out.c_str());
        QVERIFY2(r.err.empty(), r.err.c_str());
    } else if (check == "close" || check == "notclose") {
        QList<int> at = indices;
        if (at.isEmpty()) {
            QCOMPARE(data.size(), expected.size());
            for (int i = 0; i < expected.size(); ++i)
                at << i;
        }
        QCOMPARE(at.size(), expected.size());
        int far = 0;
        QString first;
        for (int k = 0; k < at.size(); ++k) {
            QVERIFY(at[k] < data.size());
            if (!hfClose(data[at[k]], expected[k])) {
                if (far++ == 0)
                    first = QStringLiteral("pair %1: %2, expected %3")
                                .arg(at[k])
                                .arg(data[at[k]], 0, 'g', 17)
                                .arg(expected[k], 0, 'g', 17);
            }
        }
        if (check == "close")
            QVERIFY2(far == 0, qPrintable(QString::number(far) + " values differ; " + first));
        else
            QVERIFY2(far > 0, "every value is within the tolerance, the HF test asserts they are not");
    } else {
        QCOMPARE(data.size(), upper.size());
        const bool f32 = check.endsWith("_f32");
        const Vec v = f32 ? asFloat32(data) : data;
        for (int i = 0; i < v.size(); ++i) {
            const QByteArray at = QByteArray::number(i) + ": " + QByteArray::number(v[i], 'g', 17) + " vs "
                + QByteArray::number(upper[i], 'g', 17);
            if (check.startsWith("within")) {
                QVERIFY2(expected[i] <= v[i] && v[i] <= upper[i], at.constData());
            } else if (check == "below") {
                QVERIFY2(v[i] < upper[i], at.constData());
            } else if (check == "interpolating_f32") {
                if (i == 0)
                    QVERIFY2(!(v[i] < upper[i]), at.constData());
                else
                    QVERIFY2(v[i] < upper[i], at.constData());
            } else {
                QFAIL(qPrintable("unknown check " + check));
            }
        }
    }
}

// Proportional RoPE rotates with the whole head: the pairs are (i, i + d/2) over all d dimensions, the pairs past the
// rotated share stay as they are (frequency 0). cos at position 5 for d 8, partial_rotary_factor 0.5: pairs 0, 1 turn
// at 10000^0 and 10000^(-2/8), pairs 2, 3 not.
void TestCliHfRope::proportionalTurnsTheWholeHead()
{
    const Run r = runList({"compute", "cos", "--scheme", "rope", "--dim", "8", "--positions", "5", "--format", "json",
                           "--set", "rope_type=proportional", "--set", "partial_rotary_factor=0.5"});
    QVERIFY2(r.status == 0, r.err.c_str());
    const QJsonArray data = r.json().value("data").toArray();
    Vec v;
    for (const QJsonValue& x : data) {
        if (x.isArray())
            for (const QJsonValue& y : x.toArray())
                v << y.toDouble();
        else
            v << x.toDouble();
    }
    QVERIFY2(v.size() >= 4, r.out.c_str());
    // The cos table is float32 (as torch's): compare to float32's precision.
    QVERIFY(std::abs(v[0] - std::cos(5.0)) < 1e-7);
    QVERIFY(std::abs(v[1] - std::cos(5.0 * std::pow(10000.0, -0.25))) < 1e-7);
    QCOMPARE(v[2], 1.0);
    QCOMPARE(v[3], 1.0);
}

QTEST_APPLESS_MAIN(TestCliHfRope)
#include "tst_cli_hfrope.moc"
