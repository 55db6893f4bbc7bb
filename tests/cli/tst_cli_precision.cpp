// SPDX-License-Identifier: MIT
// `poslab compute precision` in-process: what rounding RoPE's angles to float16 / bfloat16 leaves.
// Reference values from the formats' definitions (IEEE 754-2008 section 3.6 binary16: spacing 2 from
// 2048, largest finite 65504; bfloat16: 8 significand bits, spacing 2 from 256) and from EleutherAI/gpt-neox issue
// #1003 (float16 inv_freq and positions give angle 1045 at position 1857, pair 1 of d = 32, base 10000).
#include "tests/cli/clirun.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using poslab::test::Run;
using poslab::test::run;

class TestCliPrecision : public QObject {
    Q_OBJECT
private slots:
    void float16CollapsesAt2048();
    void bfloat16Defaults();
    void badInput();
};

namespace {

double cell(const QJsonObject& json, int row, const QString& column)
{
    const QJsonArray cols = json.value(QStringLiteral("columns")).toArray();
    const int n = int(cols.size());
    for (int c = 0; c < n; ++c)
        if (cols[c].toString() == column)
            return json.value(QStringLiteral("data")).toArray()[row * n + c].toDouble(std::nan(""));
    return std::nan("");
}

} // namespace

void TestCliPrecision::float16CollapsesAt2048()
{
    const Run r = run(
        {"compute", "precision", "--scheme", "rope", "--dim", "32", "--positions", "0:4096", "--dtype", "float16"});
    QVERIFY2(r.status == 0, r.err.c_str());
    const QJsonObject j = r.json();
    QCOMPARE(j.value(QStringLiteral("angle_format")).toString(), QStringLiteral("float16"));
    QCOMPARE(j.value(QStringLiteral("shape")).toArray(), QJsonArray({16, 13}));
    // Pair 0 (omega = 1): the angle is p itself; in float16 2049 rounds to 2048, so 2048 is the first collapse in
    // both pipelines, and the spacing exceeds omega = 1 from p = 2048.
    QCOMPARE(cell(j, 0, QStringLiteral("low_precision:first_angle_collapse")), 2048.0);
    QCOMPARE(cell(j, 0, QStringLiteral("round_angle:first_angle_collapse")), 2048.0);
    QCOMPARE(cell(j, 0, QStringLiteral("round_angle:resolution_position")), 2048.0);
    // Positions in float16: 0..2047, then 2048, 2050, ..., 4096.
    QCOMPARE(j.value(QStringLiteral("low_precision:distinct_positions")).toDouble(), 2048.0 + 1025.0);
    QCOMPARE(j.value(QStringLiteral("low_precision:first_vector_collapse")).toDouble(), 2048.0);
    QVERIFY(j.value(QStringLiteral("low_precision:first_non_finite")).isNull());
    // Pair 1's step in float16: float16(10000^(-1/16)).
    const double w = std::pow(10000.0, -2.0 / 32.0);
    QCOMPARE(cell(j, 1, QStringLiteral("omega")), w);
    QVERIFY(std::fabs(cell(j, 1, QStringLiteral("low_precision:omega_used")) - w) < std::ldexp(1.0, -11));
    // Overflow: float16 positions from 65520 are infinite.
    const Run o = run(
        {"compute", "precision", "--scheme", "rope", "--dim", "4", "--positions", "65500:65536", "--dtype", "float16"});
    QVERIFY2(o.status == 0, o.err.c_str());
    QCOMPARE(o.json().value(QStringLiteral("low_precision:first_non_finite")).toDouble(), 65520.0);
}

void TestCliPrecision::bfloat16Defaults()
{
    // Without --dtype: bfloat16. Positions 256 and 257 share one value there.
    const Run r = run({"compute", "precision", "--scheme", "rope", "--dim", "8", "--positions", "0:300"});
    QVERIFY2(r.status == 0, r.err.c_str());
    const QJsonObject j = r.json();
    QCOMPARE(j.value(QStringLiteral("angle_format")).toString(), QStringLiteral("bfloat16"));
    QCOMPARE(j.value(QStringLiteral("low_precision:first_vector_collapse")).toDouble(), 256.0);
    QCOMPARE(cell(j, 0, QStringLiteral("round_angle:resolution_position")), 256.0);
    // CSV: a header row naming the columns, then one row per pair.
    const Run csv
        = run({"compute", "precision", "--scheme", "rope", "--dim", "8", "--positions", "0:300", "--format", "csv"});
    QVERIFY2(csv.status == 0, csv.err.c_str());
    QVERIFY(csv.out.find("low_precision:first_angle_collapse") != std::string::npos);
}

void TestCliPrecision::badInput()
{
    Run r = run({"compute", "precision", "--scheme", "rope", "--dtype", "float8"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.find("unknown dtype 'float8'; known: float32, float16, bfloat16") != std::string::npos,
             r.err.c_str());
    r = run({"compute", "angles", "--scheme", "rope", "--dtype", "float16"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.find("--dtype applies to precision only") != std::string::npos, r.err.c_str());
    r = run({"compute", "precision", "--scheme", "alibi"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.find("has no quantity 'precision'") != std::string::npos, r.err.c_str());
}

QTEST_APPLESS_MAIN(TestCliPrecision)
#include "tst_cli_precision.moc"
