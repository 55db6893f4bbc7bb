// SPDX-License-Identifier: MIT
// Every rope_type's frequencies and attention factor against the reference formulas of
// huggingface/transformers src/transformers/modeling_rope_utils.py (_compute_*_parameters), recomputed here
// independently in long double, plus hard numbers from published configs.
#include "core/encodingregistry.h"
#include "core/encodings/rope.h"
#include "core/errors.h"
#include "core/rotary.h"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace poslab::core;

namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;
constexpr long double piL = std::numbers::pi_v<long double>;

TableContext context(int dim, std::optional<Position> seqLen = std::nullopt)
{
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = PositionList::range(0, 1);
    ctx.seqLen = seqLen;
    return ctx;
}

ParamSet params(const Overrides& overrides, const TableContext& ctx)
{
    return resolveParams(schemeOrThrow("rope"), overrides, ctx);
}

RotarySpec spec(const Overrides& overrides, int dim, std::optional<Position> seqLen = std::nullopt)
{
    const TableContext ctx = context(dim, seqLen);
    return ropeSpec(params(overrides, ctx), ctx);
}

double scalar(const RotarySpec& s, const std::string& name)
{
    for (const auto& [k, v] : s.scalars)
        if (k == name)
            return v;
    return std::nan("");
}

long double baseFreq(long double base, int i, int r)
{
    return 1.0L / std::pow(base, 2.0L * i / r);
}

bool close(long double a, long double b, long double rel = 1e-12L)
{
    return std::fabs(a - b) <= rel * std::fabs(b);
}

// YaRN, written from Hugging Face _compute_yarn_parameters (find_correction_dim, find_correction_range,
// linear_ramp_factor) and jquesnelle/yarn, in long double.
std::vector<long double> yarnReference(long double base, int r, long double s, long double original,
                                       long double betaFast, long double betaSlow, bool truncate)
{
    auto corr = [&](long double rot) { return r * std::log(original / (rot * 2 * piL)) / (2 * std::log(base)); };
    long double lo = corr(betaFast);
    long double hi = corr(betaSlow);
    if (truncate) {
        lo = std::floor(lo);
        hi = std::ceil(hi);
    }
    lo = std::max(lo, 0.0L);
    hi = std::min(hi, (long double)(r - 1));
    if (lo == hi)
        hi += 0.001L;
    std::vector<long double> out;
    for (int i = 0; i < r / 2; ++i) {
        const long double ramp = std::clamp((i - lo) / (hi - lo), 0.0L, 1.0L);
        const long double extrapolationFactor = 1 - ramp;
        const long double theta = baseFreq(base, i, r);
        out.push_back(theta / s * (1 - extrapolationFactor) + theta * extrapolationFactor);
    }
    return out;
}

// Llama 3.1, written from meta-llama/llama-models apply_scaling and Hugging Face _compute_llama3_parameters.
std::vector<long double> llama3Reference(long double base, int r, long double factor, long double low, long double high,
                                         long double old)
{
    std::vector<long double> out;
    for (int i = 0; i < r / 2; ++i) {
        const long double f = baseFreq(base, i, r);
        const long double wavelen = 2 * piL / f;
        if (wavelen < old / high)
            out.push_back(f);
        else if (wavelen > old / low)
            out.push_back(f / factor);
        else {
            const long double smooth = (old / wavelen - low) / (high - low);
            out.push_back((1 - smooth) * f / factor + smooth * f);
        }
    }
    return out;
}

} // namespace

class TestRopeScaling : public QObject {
    Q_OBJECT
private slots:
    void linear();
    void ntk();
    void dynamicEqualsDefaultWithinWindowAndGrowsBeyond();
    void ntkAndDynamicNeedRotaryDimFour();
    void yarnFrequencies_data();
    void yarnFrequencies();
    void yarnHardNumbers();
    void yarnAttentionFactor();
    void yarnFactorSource();
    void llama3Llama31Config();
    void llama3EqualFactorsNoNaN();
    void longropeSwitchAndAttention();
    void longropeWrongLengthRejected();
    void defaultsReproduceNamedModels();
    void explicitKeysKeepTheirValue();
    void deepseekTemperatureMovesToTheSoftmax();
    void seqLenDefaultsToLargestPositionPlusOne();
    void factorBelowOneAcceptedWithWarning();
};

void TestRopeScaling::linear()
{
    // _compute_linear_scaling_rope_parameters: inv_freq /= factor (Chen et al. 2023: m -> m / s).
    const RotarySpec s = spec({{"rope_type", "linear"}, {"factor", "8"}}, 64);
    for (int i = 0; i < 32; ++i)
        QVERIFY(close(s.invFreq[std::size_t(i)], baseFreq(10000, i, 64) / 8));
    QCOMPARE(s.attentionFactor, 1.0);
}

void TestRopeScaling::ntk()
{
    // NTK-aware (bloc97; transformers 4.43 _compute_ntk_parameters): base' = base * factor^(r/(r-2)).
    const RotarySpec s = spec({{"rope_type", "ntk"}, {"factor", "4"}}, 128);
    const long double b = 10000.0L * std::pow(4.0L, 128.0L / 126.0L);
    QVERIFY(close(scalar(s, "effective_base"), b));
    for (int i = 0; i < 64; ++i)
        QVERIFY(close(s.invFreq[std::size_t(i)], baseFreq(b, i, 128)));
    // The slowest pair is slowed by almost exactly the factor: theta'_(r/2-1) = theta * s^(-(r-2)/r * r/(r-2)).
    QVERIFY(close(s.invFreq[63], baseFreq(10000, 63, 128) / 4));
    QVERIFY(s.invFreq[0] == 1.0);
}

void TestRopeScaling::dynamicEqualsDefaultWithinWindowAndGrowsBeyond()
{
    // _compute_dynamic_ntk_parameters: seq_len = max(seq_len, max_position_embeddings);
    // base' = base * (factor * seq_len / max_pos - (factor - 1))^(r/(r-2)).
    const Overrides o = {{"rope_type", "dynamic"}, {"factor", "2"}, {"max_position_embeddings", "2048"}};
    const RotarySpec plain = spec({}, 64);
    for (std::optional<Position> L : {std::optional<Position>{}, std::optional<Position>{1},
                                      std::optional<Position>{1000}, std::optional<Position>{2048}}) {
        const RotarySpec s = spec(o, 64, L);
        QVERIFY(s.invFreq == plain.invFreq);
        QCOMPARE(scalar(s, "effective_base"), 10000.0);
    }
    double previous = 10000.0;
    for (Position L : {2049, 4096, 8192, 100000}) {
        const RotarySpec s = spec(o, 64, L);
        const long double b = 10000.0L * std::pow(2.0L * L / 2048.0L - 1.0L, 64.0L / 62.0L);
        QVERIFY(close(scalar(s, "effective_base"), b));
        for (int i = 0; i < 32; ++i)
            QVERIFY(close(s.invFreq[std::size_t(i)], baseFreq(b, i, 64)));
        QVERIFY(scalar(s, "effective_base") > previous);
        QVERIFY(s.invFreq[31] < plain.invFreq[31]);
        previous = scalar(s, "effective_base");
    }
    // Hand value: L = 4096 = 2 * max with factor 2: base' = 1e4 * 3^(64/62).
    QVERIFY(close(scalar(spec(o, 64, 4096), "effective_base"), 10000.0L * std::pow(3.0L, 64.0L / 62.0L)));
}

void TestRopeScaling::ntkAndDynamicNeedRotaryDimFour()
{
    // r/(r-2) divides by zero at r = 2 (Python raises ZeroDivisionError there).
    QVERIFY_THROWS_EXCEPTION(InputError, params({{"rope_type", "ntk"}}, context(2)));
    QVERIFY_THROWS_EXCEPTION(InputError, params({{"rope_type", "dynamic"}}, context(2)));
    const TableContext ctx = context(2);
    const ParamSet p = params({}, ctx); // default type is fine at r = 2
    QCOMPARE(ropeSpec(p, ctx).invFreq.size(), std::size_t(1));
}

void TestRopeScaling::yarnFrequencies_data()
{
    // clang-format off
    QTest::addColumn<int>("dim");
    QTest::addColumn<QString>("theta");
    QTest::addColumn<QString>("factor");
    QTest::addColumn<QString>("original");
    QTest::addColumn<QString>("betaFast");
    QTest::addColumn<QString>("betaSlow");
    QTest::addColumn<bool>("truncate");
    QTest::newRow("llama2-yarn-4x") << 128 << "10000" << "4" << "4096" << "32" << "1" << true;
    QTest::newRow("qwen-yarn-4x") << 128 << "1000000" << "4" << "32768" << "32" << "1" << true;
    QTest::newRow("gpt-oss-no-truncate") << 64 << "150000" << "32" << "4096" << "32" << "1" << false;
    QTest::newRow("deepseek-rope-dim") << 64 << "10000" << "40" << "4096" << "32" << "1" << true;
    QTest::newRow("narrow-ramp") << 16 << "10000" << "2" << "64" << "4" << "2" << true;
    // find_correction_dim(1) = 16.07 -> ceil 17, clamped to dim - 1 = 15 (the reference clamps with the rotary
    // dim, not the pair count): the ramp [10, 15] lies past the last pair, so every pair keeps its frequency.
    QTest::newRow("ramp-past-last-pair") << 16 << "100" << "8" << "65536" << "32" << "1" << true;
    // clang-format on
}

void TestRopeScaling::yarnFrequencies()
{
    QFETCH(int, dim);
    QFETCH(QString, theta);
    QFETCH(QString, factor);
    QFETCH(QString, original);
    QFETCH(QString, betaFast);
    QFETCH(QString, betaSlow);
    QFETCH(bool, truncate);
    const RotarySpec s = spec({{"rope_type", "yarn"},
                               {"rope_theta", theta.toStdString()},
                               {"factor", factor.toStdString()},
                               {"original_max_position_embeddings", original.toStdString()},
                               {"beta_fast", betaFast.toStdString()},
                               {"beta_slow", betaSlow.toStdString()},
                               {"truncate", truncate ? "true" : "false"}},
                              dim);
    const std::vector<long double> ref = yarnReference(theta.toDouble(), dim, factor.toDouble(), original.toDouble(),
                                                       betaFast.toDouble(), betaSlow.toDouble(), truncate);
    QCOMPARE(s.invFreq.size(), ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i)
        QVERIFY2(close(s.invFreq[i], ref[i]),
                 qPrintable(QString("pair %1: %2 vs %3").arg(i).arg(s.invFreq[i]).arg(double(ref[i]))));
    // Get_mscale(factor) = 0.1 ln(s) + 1 (Peng et al. 2023 eq. 22).
    QVERIFY(close(s.attentionFactor, 0.1L * std::log((long double)factor.toDouble()) + 1));
}

void TestRopeScaling::yarnHardNumbers()
{
    // Llama-2 7B YaRN 4x (NousResearch Yarn-Llama-2-7b-64k style): d 128, base 1e4, original 4096.
    // find_correction_dim(32) = 128 ln(4096 / (64 pi)) / (2 ln 1e4) = 20.944..., floor 20;
    // find_correction_dim(1) = 128 ln(4096 / (2 pi)) / (2 ln 1e4) = 45.027..., ceil 46.
    const RotarySpec s = spec(
        {{"rope_type", "yarn"}, {"rope_theta", "10000"}, {"factor", "4"}, {"original_max_position_embeddings", "4096"}},
        128);
    QCOMPARE(scalar(s, "correction_low"), 20.0);
    QCOMPARE(scalar(s, "correction_high"), 46.0);
    for (int i = 0; i <= 20; ++i)
        QVERIFY(close(s.invFreq[std::size_t(i)], baseFreq(10000, i, 128))); // extrapolated: unchanged
    for (int i = 46; i < 64; ++i)
        QVERIFY(close(s.invFreq[std::size_t(i)], baseFreq(10000, i, 128) / 4)); // interpolated: / s
    // Halfway up the ramp, i = 33: ramp = 13/26 = 0.5 -> theta * (0.5/4 + 0.5).
    QVERIFY(close(s.invFreq[33], baseFreq(10000, 33, 128) * 0.625L));
    QVERIFY(std::fabs(s.attentionFactor - 1.138629436111989) < 1e-15); // 0.1 ln 4 + 1
    // truncate = false (gpt-oss): the raw correction dims.
    const RotarySpec u = spec({{"rope_type", "yarn"},
                               {"rope_theta", "10000"},
                               {"factor", "4"},
                               {"original_max_position_embeddings", "4096"},
                               {"truncate", "false"}},
                              128);
    QVERIFY(std::fabs(scalar(u, "correction_low") - 20.94448162063605) < 1e-12);
    QVERIFY(std::fabs(scalar(u, "correction_high") - 45.02688127375455) < 1e-12);
}

void TestRopeScaling::yarnAttentionFactor()
{
    const Overrides y = {{"rope_type", "yarn"}, {"factor", "40"}};
    auto with = [&](Overrides extra) {
        Overrides o = y;
        o.insert(o.end(), extra.begin(), extra.end());
        return spec(o, 64).attentionFactor;
    };
    // DeepSeek-V2/V3 (mscale = mscale_all_dim = 0.707): get_mscale(s, m) / get_mscale(s, m) = 1.
    QCOMPARE(with({{"mscale", "0.707"}, {"mscale_all_dim", "0.707"}}), 1.0);
    // mscale 1, mscale_all_dim 0.707: (0.1 ln 40 + 1) / (0.0707 ln 40 + 1) = 1.0857263992561355.
    QVERIFY(std::fabs(with({{"mscale", "1"}, {"mscale_all_dim", "0.707"}}) - 1.0857263992561355) < 1e-14);
    // Only mscale set: Hugging Face's `if mscale and mscale_all_dim` is false -> 0.1 ln 40 + 1.
    QVERIFY(std::fabs(with({{"mscale", "0.707"}}) - 1.3688879454113936) < 1e-14);
    QVERIFY(std::fabs(with({}) - 1.3688879454113936) < 1e-14);
    // An explicit attention_factor wins.
    QCOMPARE(with({{"attention_factor", "1.5"}, {"mscale", "0.707"}, {"mscale_all_dim", "0.707"}}), 1.5);
    // factor 1: get_mscale returns 1 for scale <= 1.
    QCOMPARE(spec({{"rope_type", "yarn"}, {"factor", "1"}}, 64).attentionFactor, 1.0);
    // The attention factor multiplies cos and sin (Hugging Face: cos = emb.cos() * attention_scaling).
    const RotarySpec s = spec(y, 64);
    const MatrixF c = rotaryCos(s, PositionList::list({0, 3}));
    QVERIFY(std::fabs(c(0, 0) - 1.3688879454113936) < 1e-6);
    QVERIFY(std::fabs(c(1, 0) - 1.3688879454113936 * std::cos(3.0)) < 1e-6);
}

void TestRopeScaling::yarnFactorSource()
{
    // transformers 4.48-4.57: factor := max_position_embeddings / original_max_position_embeddings when
    // original_max_position_embeddings is in rope_scaling; transformers >= 5 uses the configured factor.
    const Overrides ratio = {{"rope_type", "yarn"},
                             {"factor_source", "max_position_ratio"},
                             {"factor", "8"},
                             {"max_position_embeddings", "131072"},
                             {"original_max_position_embeddings", "32768"}};
    const RotarySpec r = spec(ratio, 128);
    const RotarySpec f4
        = spec({{"rope_type", "yarn"}, {"factor", "4"}, {"original_max_position_embeddings", "32768"}}, 128);
    QCOMPARE(scalar(r, "factor"), 4.0);
    QVERIFY(r.invFreq == f4.invFreq);
    QCOMPARE(r.attentionFactor, f4.attentionFactor);
    // Qwen2.5's shipped config (factor 4, original 32768, max_position_embeddings 32768) under 4.48-4.57:
    // s = 1, so YaRN leaves every frequency alone and the attention factor is 1.
    const RotarySpec q = spec({{"rope_type", "yarn"},
                               {"factor_source", "max_position_ratio"},
                               {"factor", "4"},
                               {"max_position_embeddings", "32768"},
                               {"original_max_position_embeddings", "32768"}},
                              128);
    const RotarySpec plain = spec({{"rope_theta", "1000000"}}, 128); // Qwen2.5's base, the yarn default
    for (std::size_t i = 0; i < plain.invFreq.size(); ++i)
        QVERIFY(close(q.invFreq[i], plain.invFreq[i], 1e-15L));
    QCOMPARE(q.attentionFactor, 1.0);
    // Default source is the configured factor.
    QCOMPARE(scalar(spec({{"rope_type", "yarn"}, {"factor", "8"}}, 64), "factor"), 8.0);
}

void TestRopeScaling::llama3Llama31Config()
{
    // Llama-3.1-8B config.json: rope_theta 500000, head_dim 128, rope_scaling {factor 8, low_freq_factor 1,
    // high_freq_factor 4, original_max_position_embeddings 8192, rope_type llama3}.
    const RotarySpec s = spec({{"rope_type", "llama3"},
                               {"rope_theta", "500000"},
                               {"factor", "8"},
                               {"low_freq_factor", "1"},
                               {"high_freq_factor", "4"},
                               {"original_max_position_embeddings", "8192"}},
                              128);
    const std::vector<long double> ref = llama3Reference(500000, 128, 8, 1, 4, 8192);
    for (std::size_t i = 0; i < 64; ++i)
        QVERIFY2(close(s.invFreq[i], ref[i]), qPrintable(QString::number(i)));
    // Bands by hand: wavelength 2 pi 500000^(i/64) < 2048 for i <= 28 (kept), > 8192 for i >= 35 (/ 8).
    int kept = 0, divided = 0, smoothed = 0;
    for (int i = 0; i < 64; ++i) {
        const long double b = baseFreq(500000, i, 128);
        if (close(s.invFreq[std::size_t(i)], b, 1e-14L))
            ++kept;
        else if (close(s.invFreq[std::size_t(i)], b / 8, 1e-14L))
            ++divided;
        else
            ++smoothed;
    }
    QCOMPARE(kept, 29);
    QCOMPARE(divided, 29);
    QCOMPARE(smoothed, 6);
    // Hard numbers (double evaluation of the reference formula).
    QVERIFY(close(s.invFreq[29], 0.002166570763503359L, 1e-13L));
    QVERIFY(close(s.invFreq[31], 0.0008567514129196321L, 1e-13L));
    QVERIFY(close(s.invFreq[34], 0.0001785078127679964L, 1e-13L));
    QVERIFY(close(s.invFreq[63], 3.068925988914511e-07L, 1e-13L));
    QCOMPARE(s.attentionFactor, 1.0);
}

void TestRopeScaling::llama3EqualFactorsNoNaN()
{
    // low_freq_factor == high_freq_factor: the medium band is the single wavelength old / low, where the
    // reference's smooth factor is 0/0. Aim pair 0 (theta 1, wavelength exactly 2 pi in double) at it.
    const int d = 16;
    TableContext ctx = context(d);
    ParamSet p = params(
        {{"rope_type", "llama3"}, {"rope_theta", "10000"}, {"factor", "4"}, {"original_max_position_embeddings", "1"}},
        ctx);
    const double twoPi = 2.0 * std::numbers::pi;
    double low = 0.0;
    for (double c : {std::nextafter(1.0 / twoPi, 0.0), 1.0 / twoPi, std::nextafter(1.0 / twoPi, 1.0)})
        if (low == 0.0 && 1.0 / c == twoPi)
            low = c;
    QVERIFY(low != 0.0);
    p.set("low_freq_factor", ParamValue::real(low));
    p.set("high_freq_factor", ParamValue::real(low));
    validateParams(schemeOrThrow("rope"), p, ctx);
    const RotarySpec s = ropeSpec(p, ctx);
    for (double f : s.invFreq)
        QVERIFY(std::isfinite(f) && f > 0);
    QCOMPARE(s.invFreq[0], 1.0);
    // Elsewhere the two bands still apply: every other pair is slower than 2 pi per turn, so divided by 4.
    for (int i = 1; i < d / 2; ++i)
        QVERIFY(close(s.invFreq[std::size_t(i)], baseFreq(10000, i, d) / 4));
    // A sweep of equal factors and the Llama 3.1 base: all finite.
    for (const char* f : {"1", "2", "4", "8.5", "1000"}) {
        const RotarySpec t = spec({{"rope_type", "llama3"},
                                   {"rope_theta", "500000"},
                                   {"low_freq_factor", f},
                                   {"high_freq_factor", f},
                                   {"original_max_position_embeddings", "8192"}},
                                  128);
        for (double x : t.invFreq)
            QVERIFY(std::isfinite(x));
    }
    // high < low is refused.
    QVERIFY_THROWS_EXCEPTION(
        InputError, params({{"rope_type", "llama3"}, {"low_freq_factor", "4"}, {"high_freq_factor", "1"}}, ctx));
}

void TestRopeScaling::longropeSwitchAndAttention()
{
    // _compute_longrope_parameters + longrope_frequency_update: long_factor when seq_len > original, else
    // short_factor; inv_freq = 1 / (ext * base^(2i/r)); attention sqrt(1 + ln(M/O) / ln(O)).
    // Phi-3-mini-128k: M 131072, O 4096 -> sqrt(1 + ln 32 / ln 4096) = sqrt(1 + 5/12) = 1.1902380714238083.
    const Overrides o = {{"rope_type", "longrope"},
                         {"short_factor", "1,2,3,4"},
                         {"long_factor", "5,6,7,8"},
                         {"max_position_embeddings", "131072"},
                         {"original_max_position_embeddings", "4096"}};
    const std::vector<std::pair<std::optional<Position>, bool>> cases = {{std::nullopt, false},
                                                                         {Position(1), false},
                                                                         {Position(4096), false},
                                                                         {Position(4097), true},
                                                                         {Position(131072), true}};
    for (const auto& [L, isLong] : cases) {
        const RotarySpec s = spec(o, 8, L);
        QCOMPARE(scalar(s, "uses_long_factor"), isLong ? 1.0 : 0.0);
        for (int i = 0; i < 4; ++i)
            QVERIFY(close(s.invFreq[std::size_t(i)], baseFreq(10000, i, 8) / ((isLong ? 5 : 1) + i)));
        QVERIFY(std::fabs(s.attentionFactor - 1.1902380714238083) < 1e-15);
    }
    // M == O: factor 1, attention 1; explicit attention_factor wins.
    Overrides same = o;
    same[3].second = "4096";
    QCOMPARE(spec(same, 8).attentionFactor, 1.0);
    Overrides expl = o;
    expl.push_back({"attention_factor", "1.25"});
    QCOMPARE(spec(expl, 8).attentionFactor, 1.25);
}

void TestRopeScaling::longropeWrongLengthRejected()
{
    // One factor per rotary pair (Hugging Face _validate_longrope_parameters: length dim // 2).
    try {
        params({{"rope_type", "longrope"}, {"short_factor", "1,2,3"}}, context(8));
        QFAIL("a 3-value short_factor for 4 pairs was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("short_factor") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, params({{"rope_type", "longrope"}, {"long_factor", "1,2,3,4,5"}}, context(8)));
    // Partial rotary counts rotary pairs: r = 8 * 0.5 = 4 -> 2 pairs.
    QVERIFY_THROWS_EXCEPTION(
        InputError,
        params({{"rope_type", "longrope"}, {"partial_rotary_factor", "0.5"}, {"short_factor", "1,2,3,4"}}, context(8)));
    params({{"rope_type", "longrope"}, {"partial_rotary_factor", "0.5"}, {"short_factor", "1,2"}}, context(8));
    // Bypassing validation, ropeSpec itself refuses a wrong length (never reads past the list).
    TableContext ctx = context(8, 5000);
    ParamSet p = params({{"rope_type", "longrope"}}, ctx);
    p.set("long_factor", ParamValue::reals({1.0, 2.0}));
    QVERIFY_THROWS_EXCEPTION(InputError, ropeSpec(p, ctx));
}

void TestRopeScaling::defaultsReproduceNamedModels()
{
    // rope_type alone brings a real model's values, named in the help.
    // Llama-3.1-8B config.json: rope_theta 500000, rope_scaling {llama3, factor 8, low_freq_factor 1,
    // high_freq_factor 4, original_max_position_embeddings 8192}, head_dim 128.
    const RotarySpec llama = spec({{"rope_type", "llama3"}}, 128);
    const std::vector<long double> ref = llama3Reference(500000, 128, 8, 1, 4, 8192);
    for (std::size_t i = 0; i < ref.size(); ++i)
        QVERIFY2(close(llama.invFreq[i], ref[i], 1e-14L), std::to_string(i).c_str());
    // Qwen2.5-7B-Instruct with the YaRN setting of its documentation: rope_theta 1e6, {yarn, factor 4,
    // original_max_position_embeddings 32768}, max_position_embeddings 131072, head_dim 128; beta 32 / 1 and
    // attention 0.1 ln 4 + 1 = 1.1386 are Hugging Face's defaults.
    const RotarySpec qwen = spec({{"rope_type", "yarn"}}, 128);
    const std::vector<long double> yref = yarnReference(1000000, 128, 4, 32768, 32, 1, true);
    for (std::size_t i = 0; i < yref.size(); ++i)
        QVERIFY2(close(qwen.invFreq[i], yref[i], 1e-14L), std::to_string(i).c_str());
    QVERIFY(close(qwen.attentionFactor, 0.1L * std::log(4.0L) + 1, 1e-15L));
    QCOMPARE(QString::number(qwen.attentionFactor, 'f', 4), QString("1.1386"));
    // max_position_ratio gives the same s: 131072 / 32768 = 4.
    QCOMPARE(scalar(spec({{"rope_type", "yarn"}, {"factor_source", "max_position_ratio"}}, 128), "factor"), 4.0);
    // Phi-3-mini-128k-instruct: original 4096, max 131072, attention sqrt(1 + ln(32) / ln(4096)) = 1.19024.
    const RotarySpec phi = spec({{"rope_type", "longrope"}}, 96);
    QVERIFY(close(phi.attentionFactor, std::sqrt(1 + std::log(131072.0L / 4096) / std::log(4096.0L)), 1e-15L));
    QCOMPARE(QString::number(phi.attentionFactor, 'f', 5), QString("1.19024"));
    for (int i = 0; i < 48; ++i)
        QVERIFY(close(phi.invFreq[std::size_t(i)], baseFreq(10000, i, 96), 1e-14L));
    // The other types keep rope_theta 10000 and factor 4; the help names each model.
    const RotarySpec lin = spec({{"rope_type", "linear"}}, 64);
    QVERIFY(close(lin.invFreq[3], baseFreq(10000, 3, 64) / 4));
    const SchemeDescriptor& rope = schemeOrThrow("rope");
    for (const char* model : {"Llama-3.1-8B", "Qwen2.5-7B-Instruct", "Phi-3-mini-128k-instruct"})
        QVERIFY2(rope.param("rope_type")->doc.find(model) != std::string::npos, model);
}

void TestRopeScaling::explicitKeysKeepTheirValue()
{
    // A key given explicitly is kept, whatever order the keys come in; the others follow rope_type.
    const TableContext ctx = context(64);
    for (const Overrides& o :
         {Overrides{{"factor", "4"}, {"rope_type", "llama3"}}, Overrides{{"rope_type", "llama3"}, {"factor", "4"}}}) {
        const ParamSet p = params(o, ctx);
        QCOMPARE(p.real("factor"), 4.0);
        QCOMPARE(p.real("rope_theta"), 500000.0);
        QCOMPARE(p.integer("original_max_position_embeddings"), 8192ll);
    }
    // As the GUI edits: withParamValue moves keys still at their default, keeps those the user changed.
    const SchemeDescriptor& rope = schemeOrThrow("rope");
    ParamSet p = defaultParams(rope);
    QCOMPARE(p.real("factor"), 4.0);
    p = withParamValue(rope, p, "rope_theta", ParamValue::real(20000));
    p = withParamValue(rope, p, "rope_type", ParamValue::word("llama3"));
    QCOMPARE(p.real("factor"), 8.0);
    QCOMPARE(p.real("rope_theta"), 20000.0);
    QCOMPARE(p.integer("original_max_position_embeddings"), 8192ll);
    p = withParamValue(rope, p, "rope_type", ParamValue::word("yarn"));
    QCOMPARE(p.real("factor"), 4.0);
    QCOMPARE(p.integer("original_max_position_embeddings"), 32768ll);
    QCOMPARE(p.integer("max_position_embeddings"), 131072ll);
    p = withParamValue(rope, p, "rope_type", ParamValue::word("default"));
    QVERIFY(p == withParamValue(rope, defaultParams(rope), "rope_theta", ParamValue::real(20000)));
}

void TestRopeScaling::deepseekTemperatureMovesToTheSoftmax()
{
    // DeepSeek-V3 rope_scaling {yarn, factor 40, original 4096, beta_fast 32, beta_slow 1, mscale 1.0,
    // mscale_all_dim 1.0}; V2 has 0.707 for both. Hugging Face _compute_yarn_parameters: cos/sin factor
    // get_mscale(40, mscale) / get_mscale(40, mscale_all_dim) = 1. DeepSeek's modeling_deepseek.py (and
    // inference/model.py with its mscale): softmax_scale *= (0.1 * mscale_all_dim * ln(40) + 1)^2.
    for (const auto& [m, shown] : {std::pair{"1.0", "1.874"}, std::pair{"0.707", "1.590"}}) {
        const RotarySpec s = spec({{"rope_type", "yarn"},
                                   {"rope_theta", "10000"},
                                   {"factor", "40"},
                                   {"original_max_position_embeddings", "4096"},
                                   {"mscale", m},
                                   {"mscale_all_dim", m}},
                                  64);
        QCOMPARE(s.attentionFactor, 1.0);
        const long double g = 0.1L * std::stold(m) * std::log(40.0L) + 1;
        QVERIFY(close(scalar(s, "deepseek_softmax_scale_factor"), g * g, 1e-15L));
        QCOMPARE(QString::number(double(g * g), 'f', 3), QString(shown));
        QVERIFY(schemeOrThrow("rope").param("mscale_all_dim")->doc.find(shown) != std::string::npos);
    }
    // Unset mscale_all_dim: no DeepSeek scalar, the usual 0.1 ln s + 1 on cos/sin.
    QVERIFY(std::isnan(scalar(spec({{"rope_type", "yarn"}, {"factor", "40"}}, 64), "deepseek_softmax_scale_factor")));
}

void TestRopeScaling::seqLenDefaultsToLargestPositionPlusOne()
{
    // Hugging Face dynamic_rope_update: seq_len = torch.max(position_ids) + 1, then
    // longrope_frequency_update picks long_factor when seq_len > original_max_position_embeddings and
    // _compute_dynamic_ntk_parameters uses max(seq_len, max_position_embeddings). No --seq-len here: the
    // length comes from the positions asked for.
    const Overrides lr = {{"rope_type", "longrope"},
                          {"short_factor", "1,2,3,4"},
                          {"long_factor", "5,6,7,8"},
                          {"max_position_embeddings", "131072"},
                          {"original_max_position_embeddings", "4096"}};
    auto at = [&](const Overrides& o, PositionList positions, std::optional<Position> seqLen = std::nullopt) {
        TableContext ctx;
        ctx.dim = 8;
        ctx.positions = std::move(positions);
        ctx.seqLen = seqLen;
        return ropeSpec(params(o, ctx), ctx);
    };
    // A table over 0:8192: seq_len 8192 > 4096, so theta_i / long_factor_i (5, 6, 7, 8).
    const RotarySpec longTable = at(lr, PositionList::range(0, 8192));
    QCOMPARE(longTable.seqLen, Position(8192));
    QCOMPARE(scalar(longTable, "seq_len"), 8192.0);
    for (int i = 0; i < 4; ++i)
        QVERIFY(close(longTable.invFreq[std::size_t(i)], baseFreq(10000, i, 8) / (5 + i)));
    // 0:4096 ends at 4095: seq_len 4096 is not above the original window, short factors (1, 2, 3, 4).
    const RotarySpec shortTable = at(lr, PositionList::range(0, 4096));
    QCOMPARE(shortTable.seqLen, Position(4096));
    for (int i = 0; i < 4; ++i)
        QVERIFY(close(shortTable.invFreq[std::size_t(i)], baseFreq(10000, i, 8) / (1 + i)));
    // One far position is enough (the largest, not the count), and --seq-len overrides the rule both ways.
    QVERIFY(close(at(lr, PositionList::list({3, 5000})).invFreq[0], baseFreq(10000, 0, 8) / 5));
    QVERIFY(close(at(lr, PositionList::range(0, 8192), 100).invFreq[0], baseFreq(10000, 0, 8) / 1));
    QCOMPARE(at(lr, PositionList::range(0, 8192), 100).seqLen, Position(100));
    QVERIFY(close(at(lr, PositionList::range(0, 4), 4097).invFreq[0], baseFreq(10000, 0, 8) / 5));

    // Dynamic NTK over 0:8192 with max_position_embeddings 2048, factor 2:
    // base' = 1e4 * (2 * 8192 / 2048 - 1)^(r/(r-2)) = 1e4 * 7^(8/6).
    const Overrides dyn = {{"rope_type", "dynamic"}, {"factor", "2"}, {"max_position_embeddings", "2048"}};
    const RotarySpec d = at(dyn, PositionList::range(0, 8192));
    const long double b = 10000.0L * std::pow(7.0L, 8.0L / 6.0L);
    QVERIFY(close(scalar(d, "effective_base"), b));
    for (int i = 0; i < 4; ++i)
        QVERIFY(close(d.invFreq[std::size_t(i)], baseFreq(b, i, 8)));
    QCOMPARE(d.seqLen, Position(8192));
    // Within the window (0:2048) the frequencies are the plain ones.
    QCOMPARE(scalar(at(dyn, PositionList::range(0, 2048)), "effective_base"), 10000.0);
    // Types that do not depend on the length report none.
    QCOMPARE(at({{"rope_type", "linear"}}, PositionList::range(0, 8192)).seqLen, Position(0));
}

void TestRopeScaling::factorBelowOneAcceptedWithWarning()
{
    // Hugging Face _validate_{linear_scaling,dynamic_scaling,yarn,llama3}_parameters only log
    // "`rope_scaling`'s factor field must be a float >= 1, got {factor}" and compute with the factor.
    const TableContext ctx = context(64);
    const SchemeDescriptor& rope = schemeOrThrow("rope");
    for (const char* type : {"linear", "dynamic", "yarn", "llama3"}) {
        // yarn: max_position_embeddings = original, so that their ratio (1) raises no "implicit factor" warning
        // (Hugging Face _validate_yarn_rope_parameters skips a ratio of 1; tst_cli_hfrope checks that warning).
        const auto with = [&](const char* factor) {
            Overrides o = {{"rope_type", type}, {"factor", factor}};
            if (std::string(type) == "yarn")
                o.emplace_back("max_position_embeddings", "32768");
            return params(o, ctx);
        };
        const std::vector<std::string> w = schemeWarnings(rope, with("0.5"), ctx);
        QCOMPARE(w.size(), std::size_t(1));
        QVERIFY2(w[0].find("factor 0.5 is below 1") != std::string::npos, w[0].c_str());
        // factor 1 and above: nothing to say.
        QVERIFY(schemeWarnings(rope, with("1"), ctx).empty());
    }
    // Linear with s = 0.5 divides by 0.5: every frequency doubles (Position Interpolation's m -> m / s).
    const RotarySpec lin = spec({{"rope_type", "linear"}, {"factor", "0.5"}}, 64);
    for (int i = 0; i < 32; ++i)
        QVERIFY(close(lin.invFreq[std::size_t(i)], 2 * baseFreq(10000, i, 64)));
    // YaRN with s < 1: get_mscale returns 1 for scale <= 1, and interpolated pairs speed up by 1/s.
    const RotarySpec y = spec({{"rope_type", "yarn"}, {"rope_theta", "10000"}, {"factor", "0.5"}}, 64);
    QCOMPARE(y.attentionFactor, 1.0);
    QVERIFY(close(y.invFreq[31], 2 * baseFreq(10000, 31, 64)));
    // The default type has no factor, so no warning; 0 stays out of range (division by the factor).
    QVERIFY(schemeWarnings(rope, params({}, ctx), ctx).empty());
    QVERIFY_THROWS_EXCEPTION(InputError, params({{"rope_type", "linear"}, {"factor", "0"}}, ctx));
}

QTEST_APPLESS_MAIN(TestRopeScaling)
#include "tst_rope_scaling.moc"
