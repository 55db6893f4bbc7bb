// SPDX-License-Identifier: MIT
// `poslab compute extension` (the context-extension lab): per-pair columns, band counts and edges, the
// trained window's source, and refusals. Reference values recomputed here from Hugging Face transformers
// src/transformers/modeling_rope_utils.py _compute_llama3_parameters (wavelen < O/high_freq_factor kept,
// > O/low_freq_factor divided by factor) and the default frequencies rope_theta^(-2i/r).
#include "clirun.h"

#include <QJsonArray>
#include <QTest>

#include <cmath>
#include <numbers>

using poslab::test::Run;
using poslab::test::run;

namespace {

int column(const QJsonObject& j, const QString& name)
{
    const QJsonArray cols = j.value("columns").toArray();
    for (int i = 0; i < cols.size(); ++i)
        if (cols[i].toString() == name)
            return i;
    return -1;
}

double cell(const QJsonObject& j, int row, const QString& name)
{
    const int cols = j.value("shape").toArray()[1].toInt();
    return j.value("data").toArray()[row * cols + column(j, name)].toDouble();
}

} // namespace

class TestCliExtension : public QObject {
    Q_OBJECT
private slots:
    void llama31();
    void presetBringsTheTrainedWindow();
    void csvHasAHeader();
    void refusals();
};

void TestCliExtension::llama31()
{
    const Run r = run({"compute", "extension", "--scheme", "rope", "--set", "rope_type=llama3", "--dim", "128",
                       "--seq-len", "131072"});
    QVERIFY2(r.status == 0, r.err.c_str());
    const QJsonObject j = r.json();
    QCOMPARE(j.value("quantity").toString(), QStringLiteral("extension"));
    QCOMPARE(j.value("shape").toArray()[0].toInt(), 64);
    for (const char* name : {"wavelength_old", "wavelength_new", "scale", "band", "new_fraction", "scale_yarn"})
        QVERIFY2(column(j, name) >= 0, name);
    QCOMPARE(j.value("trained_length").toDouble(), 8192.0);
    QCOMPARE(j.value("trained_length_source").toString(), QStringLiteral("original_max_position_embeddings"));
    QCOMPARE(j.value("edge_short_tokens").toDouble(), 2048.0);
    QCOMPARE(j.value("edge_long_tokens").toDouble(), 8192.0);
    QCOMPARE(j.value("pairs_band_1").toDouble(), 29.0);
    QCOMPARE(j.value("pairs_band_2").toDouble(), 6.0);
    QCOMPARE(j.value("pairs_band_3").toDouble(), 29.0);
    int kept = 0, blended = 0, divided = 0;
    for (int i = 0; i < 64; ++i) {
        const double lam = 2.0 * std::numbers::pi * std::pow(500000.0, 2.0 * i / 128.0);
        QVERIFY(std::abs(cell(j, i, "wavelength_old") - lam) <= 1e-9 * lam);
        const int band = int(cell(j, i, "band"));
        const int expected = lam < 2048.0 ? 1 : lam > 8192.0 ? 3 : 2;
        QCOMPARE(band, expected);
        kept += band == 1;
        blended += band == 2;
        divided += band == 3;
        if (band == 3)
            QVERIFY(std::abs(cell(j, i, "scale") - 8.0) < 1e-12);
    }
    QCOMPARE(kept, 29);
    QCOMPARE(blended, 6);
    QCOMPARE(divided, 29);
}

void TestCliExtension::presetBringsTheTrainedWindow()
{
    // Llama 2's parameters name no window; its preset's trained_length (4096) is the window.
    const Run r = run({"compute", "extension", "--preset", "llama-2-7b", "--seq-len", "16384"});
    QVERIFY2(r.status == 0, r.err.c_str());
    const QJsonObject j = r.json();
    QCOMPARE(j.value("trained_length").toDouble(), 4096.0);
    QCOMPARE(j.value("trained_length_source").toString(), QStringLiteral("given"));
    // --trained-length wins over the preset.
    const Run g
        = run({"compute", "extension", "--preset", "llama-2-7b", "--seq-len", "16384", "--trained-length", "2048"});
    QVERIFY2(g.status == 0, g.err.c_str());
    QCOMPARE(g.json().value("trained_length").toDouble(), 2048.0);
    // The slowest pair of Llama 2 (theta 10000, r = 128) never turns in 4096 positions: (4095 omega) / (2 pi) < 1.
    const double omega = std::pow(10000.0, -126.0 / 128.0);
    QVERIFY(std::abs(cell(j, 63, "turns_trained") - 4095.0 * omega / (2.0 * std::numbers::pi)) < 1e-12);
    const double expected
        = (std::min(16383.0 * omega, 2 * std::numbers::pi) - 4095.0 * omega) / (2.0 * std::numbers::pi);
    QVERIFY(std::abs(cell(j, 63, "new_fraction") - expected) < 1e-12);
}

void TestCliExtension::csvHasAHeader()
{
    const Run r = run({"compute", "extension", "--scheme", "rope", "--set", "rope_type=yarn", "--dim", "128",
                       "--seq-len", "131072", "--format", "csv"});
    QVERIFY2(r.status == 0, r.err.c_str());
    const std::string first = r.out.substr(0, r.out.find('\n'));
    QVERIFY2(first.find("wavelength_old") != std::string::npos, first.c_str());
    QVERIFY2(first.find("ramp: YaRN") != std::string::npos, first.c_str());
    // 1 header + 64 rows
    QCOMPARE(std::count(r.out.begin(), r.out.end(), '\n'), 65L);
}

void TestCliExtension::refusals()
{
    Run r = run({"compute", "extension", "--scheme", "alibi"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.find("no quantity 'extension'") != std::string::npos, r.err.c_str());
    r = run({"compute", "frequencies", "--scheme", "rope", "--trained-length", "100"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.find("--trained-length applies to extension only") != std::string::npos, r.err.c_str());
    r = run({"compute", "extension", "--scheme", "irope", "--set", "layer=3"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.find("NoPE") != std::string::npos, r.err.c_str());
}

QTEST_APPLESS_MAIN(TestCliExtension)
#include "tst_cli_extension.moc"
