// SPDX-License-Identifier: MIT
// The context-extension table (core/extension.h): bands, edges, scales and the seen-versus-unseen arcs, each
// reference value recomputed here in long double from the formulas of huggingface/transformers
// src/transformers/modeling_rope_utils.py (_compute_llama3_parameters; _compute_yarn_parameters with
// find_correction_dim, find_correction_range, linear_ramp_factor, get_mscale; _compute_dynamic_ntk_parameters;
// _compute_longrope_parameters), bloc97's NTK-aware base change and Chen et al. 2023 (PI, eq. 4).
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/extension.h"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace poslab::core;

namespace {

constexpr long double piL = std::numbers::pi_v<long double>;

ExtensionTable table(const std::string& scheme, const Overrides& overrides, int dim, Position length,
                     std::optional<Position> trained = std::nullopt)
{
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = PositionList::range(0, 1);
    ctx.seqLen = length;
    const SchemeDescriptor& s = schemeOrThrow(scheme);
    return extensionTable(s, resolveParams(s, overrides, ctx), dim, length, trained);
}

long double wavelength(long double theta, int i, int r)
{
    return 2.0L * piL * std::pow(theta, 2.0L * i / r);
}

// Hugging Face find_correction_dim (the pair index whose wavelength is O / num_rotations).
long double correctionDim(long double rotations, int r, long double base, long double O)
{
    return r * std::log(O / (rotations * 2.0L * piL)) / (2.0L * std::log(base));
}

} // namespace

class TestExtension : public QObject {
    Q_OBJECT
private slots:
    void llama31Bands();
    void llama3BandEdges();
    void yarnBands();
    void piDividesEveryPair();
    void ntkScaleRunsFromOneToS();
    void dynamicFollowsTheSequenceLength();
    void longropeUsesTheFactorListInForce();
    void newFractionOfTheCircle();
    void piKeepsAnglesNearlyInside();
    void trainedLengthSources();
    void comparisonMethods();
    void computeQuantity();
    void refusals();
};

void TestExtension::llama31Bands()
{
    // Llama 3.1 (rope_theta 500000, factor 8, low 1, high 4, original 8192) at head dim 128:
    // 29 pairs kept, 6 blended, 29 divided by 8 (_compute_llama3_parameters).
    const ExtensionTable t = table("rope", {{"rope_type", "llama3"}}, 128, 131072);
    QCOMPARE(int(t.pairs.size()), 64);
    QCOMPARE(t.count(ExtensionBand::Kept), 29);
    QCOMPARE(t.count(ExtensionBand::Blended), 6);
    QCOMPARE(t.count(ExtensionBand::Divided), 29);
    QCOMPARE(t.bands.size(), std::size_t(3));
    QCOMPARE(t.bands[0].last, 28);
    QCOMPARE(t.bands[1].first, 29);
    QCOMPARE(t.bands[1].last, 34);
    QCOMPARE(t.edgeShort, 8192.0 / 4.0);
    QCOMPARE(t.edgeLong, 8192.0 / 1.0);
    QCOMPARE(extensionBandName(t, ExtensionBand::Divided), std::string("divided by 8"));
    for (int i = 0; i < 64; ++i) {
        const long double lam = wavelength(500000.0L, i, 128);
        const ExtensionPair& p = t.pairs[std::size_t(i)];
        QVERIFY(std::abs(p.wavelengthOld - double(lam)) <= 1e-9 * double(lam));
        long double expected;
        if (lam < 2048.0L)
            expected = 1.0L;
        else if (lam > 8192.0L)
            expected = 8.0L;
        else {
            const long double smooth = (8192.0L / lam - 1.0L) / (4.0L - 1.0L);
            expected = 1.0L / ((1.0L - smooth) / 8.0L + smooth);
        }
        QVERIFY2(std::abs(p.scale - double(expected)) <= 1e-12 * double(expected), std::to_string(i).c_str());
    }
    // The band's edge pairs sit on either side of the token edges.
    QVERIFY(t.pairs[28].wavelengthOld < 2048.0 && t.pairs[29].wavelengthOld >= 2048.0);
    QVERIFY(t.pairs[34].wavelengthOld <= 8192.0 && t.pairs[35].wavelengthOld > 8192.0);
    QCOMPARE(t.attentionFactor, 1.0);
}

void TestExtension::llama3BandEdges()
{
    // Hugging Face: is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen), so a wavelength
    // exactly at an edge is blended, with smooth 1 at O/high (unchanged) and 0 at O/low (divided). Pair 1 of r = 4 at
    // theta 10000 has wavelength 2 pi 100 = 628.3...; an original window of 4 pi 100 puts it on O / 2.
    const double w = 2.0 * std::numbers::pi * 100.0;
    const ExtensionTable t = table("rope",
                                   {{"rope_type", "llama3"},
                                    {"rope_theta", "10000"},
                                    {"original_max_position_embeddings", std::to_string(std::llround(2 * w))},
                                    {"low_freq_factor", "1"},
                                    {"high_freq_factor", "2"}},
                                   4, 1000);
    // O = round(4 pi 100) = 1257: O / 2 = 628.5 > 628.32, so pair 1 is kept (strictly below the edge).
    QCOMPARE(t.pairs[1].band, ExtensionBand::Kept);
    const ExtensionTable u = table("rope",
                                   {{"rope_type", "llama3"},
                                    {"rope_theta", "10000"},
                                    {"original_max_position_embeddings", "1256"},
                                    {"low_freq_factor", "1"},
                                    {"high_freq_factor", "2"}},
                                   4, 1000);
    // O = 1256: O / 2 = 628 < 628.32 <= O: blended, smooth = (1256 / 628.32 - 1) / 1.
    QCOMPARE(u.pairs[1].band, ExtensionBand::Blended);
    QVERIFY(std::abs(u.pairs[1].weight - (1256.0 / w - 1.0)) < 1e-12);
}

void TestExtension::yarnBands()
{
    // Qwen2.5-7B-Instruct's YaRN (rope_theta 1e6, factor 4, original 32768, beta_fast 32, beta_slow 1) at r = 128.
    const ExtensionTable t = table("rope", {{"rope_type", "yarn"}}, 128, 131072);
    const long double low = std::floor(correctionDim(32.0L, 128, 1.0e6L, 32768.0L));
    const long double high = std::ceil(correctionDim(1.0L, 128, 1.0e6L, 32768.0L));
    QCOMPARE(double(low), 23.0);
    QCOMPARE(double(high), 40.0);
    QCOMPARE(t.correctionLow, 23.0);
    QCOMPARE(t.correctionHigh, 40.0);
    // linear_ramp_factor: 0 for i <= 23 (24 pairs extrapolated), 1 for i >= 40 (24 interpolated), 16 on the ramp.
    QCOMPARE(t.count(ExtensionBand::Kept), 24);
    QCOMPARE(t.count(ExtensionBand::Blended), 16);
    QCOMPARE(t.count(ExtensionBand::Divided), 24);
    QCOMPARE(extensionBandName(t, ExtensionBand::Kept), std::string("extrapolated"));
    QCOMPARE(extensionBandName(t, ExtensionBand::Blended), std::string("ramp"));
    QCOMPARE(extensionBandName(t, ExtensionBand::Divided), std::string("interpolated"));
    // Nominal edges: the wavelengths with beta_fast and beta_slow turns in the window.
    QCOMPARE(t.edgeShort, 32768.0 / 32.0);
    QCOMPARE(t.edgeLong, 32768.0);
    for (int i = 0; i < 64; ++i) {
        const long double ramp = std::clamp((i - low) / (high - low), 0.0L, 1.0L);
        // inv_freq = interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor
        const long double expected = 1.0L / (ramp / 4.0L + (1.0L - ramp));
        QVERIFY2(std::abs(t.pairs[std::size_t(i)].scale - double(expected)) < 1e-12, std::to_string(i).c_str());
        QVERIFY(std::abs(t.pairs[std::size_t(i)].weight - double(ramp)) < 1e-15);
    }
    // get_mscale(4) = 0.1 ln 4 + 1.
    QVERIFY(std::abs(t.attentionFactor - double(0.1L * std::log(4.0L) + 1.0L)) < 1e-15);
}

void TestExtension::piDividesEveryPair()
{
    const ExtensionTable t = table("rope", {{"rope_type", "linear"}, {"factor", "4"}}, 64, 8192, 2048);
    for (const ExtensionPair& p : t.pairs) {
        QCOMPARE(p.band, ExtensionBand::Divided);
        QVERIFY(std::abs(p.scale - 4.0) < 1e-12);
        QVERIFY(std::abs(p.wavelengthNew - 4.0 * p.wavelengthOld) < 1e-9 * p.wavelengthNew);
    }
    QCOMPARE(t.trainedLength, Position(2048));
    QCOMPARE(t.trainedSource, std::string("given"));
}

void TestExtension::ntkScaleRunsFromOneToS()
{
    // NTK-aware: b' = b s^(r/(r-2)), so omega_old / omega_new = (b'/b)^(2i/r) = s^(2i/(r-2)): 1 at the fastest pair,
    // s at the slowest.
    const int r = 128;
    const long double s = 2.0L;
    const ExtensionTable t = table("rope", {{"rope_type", "ntk"}, {"factor", "2"}}, r, 8192, 4096);
    QCOMPARE(t.pairs.front().scale, 1.0);
    QVERIFY(std::abs(t.pairs.back().scale - 2.0) < 1e-12);
    for (int i = 0; i < r / 2; ++i) {
        const long double expected = std::pow(s, 2.0L * i / (r - 2));
        QVERIFY2(std::abs(t.pairs[std::size_t(i)].scale - double(expected)) < 1e-12 * double(expected),
                 std::to_string(i).c_str());
        QCOMPARE(t.pairs[std::size_t(i)].band, ExtensionBand::Rescaled);
    }
    QVERIFY(std::abs(t.effectiveBase - double(10000.0L * std::pow(s, (long double)r / (r - 2)))) < 1e-6);
}

void TestExtension::dynamicFollowsTheSequenceLength()
{
    // _compute_dynamic_ntk_parameters: seq_len = max(seq_len, max_position_embeddings),
    // base' = base (s L / M - (s - 1))^(r/(r-2)). Within the window nothing changes.
    const ExtensionTable inside
        = table("rope", {{"rope_type", "dynamic"}, {"factor", "4"}, {"max_position_embeddings", "4096"}}, 64, 4096);
    QCOMPARE(inside.trainedLength, Position(4096));
    QCOMPARE(inside.trainedSource, std::string("max_position_embeddings"));
    for (const ExtensionPair& p : inside.pairs) {
        QCOMPARE(p.scale, 1.0);
        QCOMPARE(p.band, ExtensionBand::Unscaled);
    }
    // At L = 2M: alpha = 4 * 2 - 3 = 5; the slowest pair is divided by alpha^(2(r/2-1)/(r-2)) = 5.
    const ExtensionTable beyond
        = table("rope", {{"rope_type", "dynamic"}, {"factor", "4"}, {"max_position_embeddings", "4096"}}, 64, 8192);
    QVERIFY(std::abs(beyond.pairs.back().scale - 5.0) < 1e-12);
    QCOMPARE(beyond.pairs.front().scale, 1.0);
    QVERIFY(std::abs(beyond.pairs[10].scale - double(std::pow(5.0L, 20.0L / 62.0L))) < 1e-12);
    QCOMPARE(beyond.pairs[10].band, ExtensionBand::Rescaled);
}

void TestExtension::longropeUsesTheFactorListInForce()
{
    // _compute_longrope_parameters: ext_factors = long_factor when seq_len > original_max_position_embeddings,
    // else short_factor; inv_freq = 1 / (ext_factors * base^(2i/r)): the scale is the factor itself.
    const Overrides o = {{"rope_type", "longrope"},
                         {"short_factor", "1,1.5,2,3"},
                         {"long_factor", "2,4,8,16"},
                         {"original_max_position_embeddings", "4096"},
                         {"max_position_embeddings", "16384"}};
    const ExtensionTable shortT = table("rope", o, 8, 4096);
    const ExtensionTable longT = table("rope", o, 8, 4097);
    const double shortF[] = {1, 1.5, 2, 3}, longF[] = {2, 4, 8, 16};
    for (int i = 0; i < 4; ++i) {
        QVERIFY(std::abs(shortT.pairs[std::size_t(i)].scale - shortF[i]) < 1e-12);
        QVERIFY(std::abs(longT.pairs[std::size_t(i)].scale - longF[i]) < 1e-12);
    }
    QVERIFY(!shortT.usesLongFactor);
    QVERIFY(longT.usesLongFactor);
    QCOMPARE(extensionBandName(longT, ExtensionBand::Rescaled), std::string("long factor"));
    QCOMPARE(longT.factor, 4.0); // max / original
    // attention sqrt(1 + ln(s) / ln(O))
    QVERIFY(std::abs(longT.attentionFactor - double(std::sqrt(1.0L + std::log(4.0L) / std::log(4096.0L)))) < 1e-15);
}

void TestExtension::newFractionOfTheCircle()
{
    // Plain RoPE, r = 8, theta 10000: omega = 1, 0.1, 0.01, 0.001. Trained on T = 100 positions, run at L = 400.
    // Training met the arc [0, 99 omega], now [0, 399 omega] (both capped at a full turn).
    const ExtensionTable t = table("rope", {}, 8, 400, 100);
    const long double omega[] = {1.0L, 0.1L, 0.01L, 0.001L};
    for (int i = 0; i < 4; ++i) {
        const ExtensionPair& p = t.pairs[std::size_t(i)];
        const long double seen = std::min(99.0L * omega[i], 2.0L * piL);
        const long double now = std::min(399.0L * omega[i], 2.0L * piL);
        const long double expected = std::max(0.0L, now - seen) / (2.0L * piL);
        QVERIFY2(std::abs(p.newFraction - double(expected)) < 1e-12, std::to_string(i).c_str());
        QCOMPARE(p.completesTurn(), 99.0L * omega[i] >= 2.0L * piL);
    }
    // Pairs 0 and 1 turn in training (99 and 9.9 rad): nothing new. Pair 2: 0.99 -> 3.99 rad, 3 rad new.
    QCOMPARE(t.pairs[0].newFraction, 0.0);
    QCOMPARE(t.pairs[1].newFraction, 0.0);
    QVERIFY(std::abs(t.pairs[2].newFraction - 3.0 / (2.0 * std::numbers::pi)) < 1e-12);
    QCOMPARE(t.automaticPair, 2); // the largest new fraction: 3 rad (pair 3: 0.3 rad)
    // Within the window nothing is new.
    const ExtensionTable inside = table("rope", {}, 8, 50, 100);
    for (const ExtensionPair& p : inside.pairs)
        QCOMPARE(p.newFraction, 0.0);
    QCOMPARE(inside.automaticPair, 2); // nothing new: the fastest pair that never turns in training (0.99 rad)
}

void TestExtension::piKeepsAnglesNearlyInside()
{
    // PI at L = s T: the last position s T - 1 turns by (s T - 1) omega / s = (T - 1/s) omega, a hair past training's
    // (T - 1) omega: new fraction (1 - 1/s) omega / (2 pi) for a pair that never turns (Chen et al. 2023: positions
    // scaled into the trained range [0, T)).
    const ExtensionTable t = table("rope", {{"rope_type", "linear"}, {"factor", "4"}}, 8, 400, 100);
    const long double omega = 0.001L;
    QVERIFY(std::abs(t.pairs[3].newFraction - double((1.0L - 0.25L) * omega / (2.0L * piL))) < 1e-15);
}

void TestExtension::trainedLengthSources()
{
    QCOMPARE(table("rope", {{"rope_type", "llama3"}}, 128, 1000).trainedLength, Position(8192));
    QCOMPARE(table("rope", {{"rope_type", "llama3"}}, 128, 1000, 99).trainedLength, Position(8192)); // params win
    const ExtensionTable pi = table("rope", {{"rope_type", "linear"}, {"factor", "4"}}, 16, 1000);
    QCOMPARE(pi.trainedLength, Position(250)); // L / factor
    QCOMPARE(pi.trainedSource, std::string("inference length / factor"));
    const ExtensionTable plain = table("rope", {}, 16, 1000);
    QCOMPARE(plain.trainedLength, Position(1000));
    QCOMPARE(plain.factor, 1.0);
    const ExtensionTable given = table("rope", {}, 16, 1000, 250);
    QCOMPARE(given.factor, 4.0); // L / T for the comparison
}

void TestExtension::comparisonMethods()
{
    // Llama 3.1's own table: the comparison's Llama 3 curve is the scheme's scale; PI's is the factor everywhere;
    // NTK-aware's runs from 1 to s.
    const ExtensionTable t = table("rope", {{"rope_type", "llama3"}}, 128, 131072);
    QCOMPARE(t.methods.size(), std::size_t(5));
    for (const ExtensionMethod& m : t.methods) {
        for (std::size_t i = 0; i < t.pairs.size(); ++i) {
            if (m.key == "llama3")
                QCOMPARE(m.scale[i], t.pairs[i].scale);
            if (m.key == "linear")
                QVERIFY(std::abs(m.scale[i] - 8.0) < 1e-12);
        }
        if (m.key == "ntk") {
            QCOMPARE(m.scale.front(), 1.0);
            QVERIFY(std::abs(m.scale.back() - 8.0) < 1e-12);
        }
        if (m.key == "dynamic") // L = 16 O: alpha = 8 * 16 - 7 = 121
            QVERIFY(std::abs(m.scale.back() - 121.0) < 1e-9);
    }
}

void TestExtension::computeQuantity()
{
    ComputeRequest req;
    req.quantity = Quantity::Extension;
    req.scheme = "rope";
    req.overrides = {{"rope_type", "llama3"}};
    req.context.dim = 128;
    req.context.positions = PositionList::range(0, 1);
    req.context.seqLen = 131072;
    const ComputeResult r = compute(req);
    QCOMPARE(r.quantity, std::string("extension"));
    QCOMPARE(r.shape.size(), std::size_t(2));
    QCOMPARE(r.shape[0], std::size_t(64));
    QCOMPARE(r.shape[1], r.columns.size());
    QCOMPARE(r.columnLabels.size(), r.columns.size());
    const auto col = [&](const std::string& name) {
        return std::size_t(std::find(r.columns.begin(), r.columns.end(), name) - r.columns.begin());
    };
    QVERIFY(col("scale_ntk") < r.columns.size());
    QCOMPARE(r.data[40 * r.shape[1] + col("band")], double(int(ExtensionBand::Divided)));
    QCOMPARE(r.data[0 * r.shape[1] + col("scale")], 1.0);
    double kept = -1;
    for (const auto& [k, v] : r.scalars)
        if (k == "pairs_band_1")
            kept = v;
    QCOMPARE(kept, 29.0);
    // --trained-length elsewhere is refused, not ignored.
    ComputeRequest enc = req;
    enc.quantity = Quantity::Frequencies;
    enc.trainedLength = 100;
    QVERIFY_THROWS_EXCEPTION(InputError, compute(enc));
}

void TestExtension::refusals()
{
    QVERIFY(!schemeOrThrow("alibi").has(Quantity::Extension));
    QVERIFY(schemeOrThrow("xpos").has(Quantity::Extension));
    // An iRoPE NoPE layer has no pairs.
    QVERIFY_THROWS_EXCEPTION(InputError, table("irope", {{"layer", "3"}}, 64, 100));
    // iRoPE's RoPE layers: Llama 4 Scout's llama3 scaling (factor 16, low 1, high 1: no blended band).
    const ExtensionTable scout = table("irope", {}, 128, 100);
    QCOMPARE(scout.count(ExtensionBand::Blended), 0);
    QCOMPARE(scout.count(ExtensionBand::Kept) + scout.count(ExtensionBand::Divided), 64);
}

QTEST_APPLESS_MAIN(TestExtension)
#include "tst_extension.moc"
