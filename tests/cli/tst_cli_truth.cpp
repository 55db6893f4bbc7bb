// SPDX-License-Identifier: MIT
// The command line in-process: conventions that the JSON and CSV must name (issue "Every sentence and every
// number matches its source"): the sequence length of dynamic NTK / LongRoPE / xPos, the angle form, the
// decay curve's content model and normalisation, xPos's centre, and warnings for accepted-but-unusual values.
// Reference values are computed here from the cited formulas.
#include "app/cli.h"
#include "tests/cli/clirun.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <numbers>
#include <sstream>

using namespace poslab::app;
using poslab::test::Run;
using poslab::test::run;

class TestCliTruth : public QObject {
    Q_OBJECT
private slots:
    void longropeTableUsesLongFactorsOverItsLength();
    void seqLenIsDocumented();
    void anglesExactByDefault();
    void decayNamesContentAndNormalisation();
    void xposReportsItsCentre();
    void factorBelowOneWarns();
};

void TestCliTruth::longropeTableUsesLongFactorsOverItsLength()
{
    // Hugging Face longrope_frequency_update: seq_len = max(position_ids) + 1 = 8192 > 4096 = original, so
    // inv_freq = 1 / (long_factor_i * base^(2i/r)); the cos table at position 1, pair i is cos(theta_i / long_i).
    const std::vector<std::string> common = {"--scheme", "rope",
                                             "--dim",    "8",
                                             "--set",    "rope_type=longrope",
                                             "--set",    "short_factor=1,2,3,4",
                                             "--set",    "long_factor=5,6,7,8",
                                             "--set",    "max_position_embeddings=131072",
                                             "--set",    "original_max_position_embeddings=4096"};
    auto with = [&](std::vector<std::string> args) {
        args.insert(args.end(), common.begin(), common.end());
        return run(args);
    };
    Run r = with({"compute", "cos", "--positions", "0:8192"});
    QCOMPARE(r.status, exitOk);
    QJsonObject o = r.json();
    QCOMPARE(o["seq_len"].toDouble(), 8192.0);
    QCOMPARE(o["uses_long_factor"].toDouble(), 1.0);
    QVERIFY(o["seq_len_source"].toString().contains("largest requested position + 1"));
    // Row 1 (position 1): attention factor sqrt(1 + ln 32 / ln 4096) times cos(theta_i / long_i).
    const double af = std::sqrt(1.0 + std::log(32.0) / std::log(4096.0));
    const QJsonArray data = o["data"].toArray();
    for (int i = 0; i < 4; ++i) {
        const double want = af * std::cos(std::pow(10000.0, -2.0 * i / 8) / (5 + i));
        QVERIFY2(std::fabs(data[4 + i].toDouble() - want) < 1e-6, qPrintable(QString::number(i)));
    }
    // Positions 0:4096 end at 4095: short factors. --seq-len overrides the rule.
    r = with({"compute", "frequencies", "--positions", "0:4096"});
    QCOMPARE(r.json()["uses_long_factor"].toDouble(), 0.0);
    QVERIFY(std::fabs(r.json()["data"].toArray()[1].toDouble() - std::pow(10000.0, -2.0 / 8) / 2) < 1e-15);
    r = with({"compute", "frequencies", "--positions", "0:8192", "--seq-len", "100"});
    QCOMPARE(r.json()["uses_long_factor"].toDouble(), 0.0);
    QCOMPARE(r.json()["seq_len_source"].toString(), QStringLiteral("given (--seq-len)"));
}

void TestCliTruth::seqLenIsDocumented()
{
    Run r = run({"--help"});
    QVERIFY(r.out.find("--seq-len L") != std::string::npos);
    QVERIFY(r.out.find("max(position_ids) + 1") != std::string::npos);
    r = run({"schemes"});
    QVERIFY2(r.out.find("unless --seq-len L sets it") != std::string::npos, "rope_type's doc names --seq-len");
    QVERIFY(r.out.find("--set centring=torchscale") != std::string::npos);
}

void TestCliTruth::anglesExactByDefault()
{
    // torch.outer(t, inv_freq): position 7, pair 0 (omega 1) is 7; reduced: 7 - 2 pi = 0.7168.
    Run r = run({"compute", "angles", "--scheme", "rope", "--dim", "8", "--positions", "7,1000"});
    QCOMPARE(r.status, exitOk);
    QJsonObject o = r.json();
    QVERIFY(o["angle_form"].toString().startsWith(QStringLiteral("exact")));
    QCOMPARE(o["dtype"].toString(), QStringLiteral("float64"));
    QCOMPARE(o["data"].toArray()[0].toDouble(), 7.0);
    QCOMPARE(o["data"].toArray()[4].toDouble(), 1000.0);
    QVERIFY(std::fabs(o["data"].toArray()[5].toDouble() - 1000.0 * 0.1) < 1e-12);
    r = run({"compute", "angles", "--scheme", "rope", "--dim", "8", "--positions", "7", "--angles", "reduced"});
    o = r.json();
    QVERIFY(o["angle_form"].toString().startsWith(QStringLiteral("reduced")));
    QVERIFY(std::fabs(o["data"].toArray()[0].toDouble() - (7.0 - 2 * std::numbers::pi)) < 1e-6);
    r = run({"compute", "angles", "--scheme", "rope", "--angles", "mod"});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(r.err.find("exact") != std::string::npos, r.err.c_str());
    r = run({"compute", "cos", "--scheme", "rope", "--angles", "reduced"});
    QCOMPARE(r.status, exitUsage);
}

void TestCliTruth::decayNamesContentAndNormalisation()
{
    // Default content ones (as the decay view): sum_i 2 cos(delta theta_i) = 128 at delta 0 for d = 128.
    Run r = run({"compute", "decay", "--scheme", "rope", "--dim", "128", "--positions", "0,1,100"});
    QCOMPARE(r.status, exitOk);
    QJsonObject o = r.json();
    QCOMPARE(o["content_model"].toString(), QStringLiteral("ones"));
    QCOMPARE(o["normalisation"].toString(), QStringLiteral("none"));
    QCOMPARE(o["columns"].toArray(), (QJsonArray{"score", "bound"}));
    QVERIFY(o["column_labels"].toArray()[0].toString().contains(QStringLiteral("q = k = (1, ..., 1)")));
    QCOMPARE(o["data"].toArray()[0].toDouble(), 128.0);
    double want = 0;
    for (int i = 0; i < 64; ++i)
        want += 2 * std::cos(100.0 * std::pow(10000.0, -2.0 * i / 128));
    QVERIFY(std::fabs(o["data"].toArray()[4].toDouble() - want) < 1e-9);
    // Random content, averaged over --samples vectors, and named so.
    r = run({"compute", "decay", "--scheme", "rope", "--dim", "128", "--positions", "0", "--content", "random",
             "--samples", "16"});
    o = r.json();
    QCOMPARE(o["content_model"].toString(), QStringLiteral("random"));
    QCOMPARE(o["content_samples"].toDouble(), 16.0);
    QVERIFY(o["data"].toArray()[0].toDouble() != 128.0);
    // CSV: a header row naming each column, then the values; normalised curves start at 1.
    r = run({"compute", "decay", "--scheme", "rope", "--dim", "128", "--positions", "0,100", "--normalise", "at_zero",
             "--format", "csv"});
    QCOMPARE(r.status, exitOk);
    std::istringstream lines(r.out);
    std::string header, first, second;
    std::getline(lines, header);
    std::getline(lines, first);
    std::getline(lines, second);
    QVERIFY2(header.find("\"score: q . R(delta theta) k with q = k = (1") == 0, header.c_str());
    QVERIFY(header.find("divided by its value at delta = 0") != std::string::npos);
    QCOMPARE(first, std::string("1,1"));
    QVERIFY(std::fabs(std::stod(second.substr(0, second.find(','))) - want / 128.0) < 1e-9);
    // Options that do not fit are refused with one line.
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"compute", "decay", "--scheme", "rope", "--samples", "4"},
          std::vector<std::string>{"compute", "scores", "--scheme", "rope", "--normalise", "at_zero"},
          std::vector<std::string>{"compute", "decay", "--scheme", "alibi", "--normalise", "at_zero"}}) {
        r = run(bad);
        QCOMPARE(r.status, exitUsage);
        QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1l);
    }
}

void TestCliTruth::xposReportsItsCentre()
{
    // torchscale XPOS.forward: min_pos = -(L // 2), so pair 0 of the vector at position 5 is scaled by
    // zeta_0^((5 - ceil(L/2))/512), zeta_0 = 0.4d / 1.4d = 2/7, with L = largest position + 1.
    auto pairNorm = [](const QJsonArray& data) { return std::hypot(data[0].toDouble(), data[1].toDouble()); };
    const double zeta0 = 0.4 / 1.4;
    Run r = run({"compute", "rotate", "--scheme", "xpos", "--dim", "4", "--vector", "1,0,0,1", "--positions", "5"});
    QCOMPARE(r.status, exitOk);
    QCOMPARE(r.json()["xpos_centre"].toDouble(), 3.0);
    QVERIFY(std::fabs(pairNorm(r.json()["data"].toArray()) - std::pow(zeta0, 2.0 / 512)) < 1e-12);
    r = run({"compute", "rotate", "--scheme", "xpos", "--dim", "4", "--vector", "1,0,0,1", "--positions", "5,1000"});
    QCOMPARE(r.json()["xpos_centre"].toDouble(), 501.0);
    QVERIFY(std::fabs(pairNorm(r.json()["data"].toArray()) - std::pow(zeta0, -496.0 / 512)) < 1e-12); // 3.37
    // centring=absolute: the paper's zeta^(n/gamma), whatever else is asked for.
    r = run({"compute", "rotate", "--scheme", "xpos", "--dim", "4", "--vector", "1,0,0,1", "--positions", "5,1000",
             "--set", "centring=absolute"});
    QCOMPARE(r.json()["xpos_centre"].toDouble(), 0.0);
    QVERIFY(std::fabs(pairNorm(r.json()["data"].toArray()) - std::pow(zeta0, 5.0 / 512)) < 1e-12);
}

void TestCliTruth::factorBelowOneWarns()
{
    // Hugging Face logs "`rope_scaling`'s factor field must be a float >= 1" and computes with the factor.
    for (const char* type : {"linear", "dynamic", "yarn", "llama3"}) {
        // yarn: max_position_embeddings = original_max_position_embeddings (32768), whose ratio 1 raises no
        // "implicit factor" warning (Hugging Face _validate_yarn_rope_parameters; tst_cli_hfrope checks it).
        std::vector<std::string> args
            = {"compute", "frequencies", "--scheme", "rope", "--dim", "8", "--set", std::string("rope_type=") + type,
               "--set",   "factor=0.5"};
        if (std::string(type) == "yarn")
            args.insert(args.end(), {"--set", "max_position_embeddings=32768"});
        const Run r = run(args);
        QCOMPARE(r.status, exitOk);
        QVERIFY2(r.err.rfind("poslab: warning: factor 0.5 is below 1", 0) == 0, r.err.c_str());
        const QJsonArray w = r.json()["warnings"].toArray();
        QCOMPARE(w.size(), 1);
        QVERIFY(w[0].toString().contains(QStringLiteral("Hugging Face")));
    }
    // Linear 0.5: theta_i / 0.5.
    const Run r = run({"compute", "frequencies", "--scheme", "rope", "--dim", "8", "--set", "rope_type=linear", "--set",
                       "factor=0.5"});
    QCOMPARE(r.json()["data"].toArray()[1].toDouble(), 2 * std::pow(10000.0, -2.0 / 8));
    // No warning at 1 and above; 0 is still refused.
    QVERIFY(run({"compute", "frequencies", "--scheme", "rope", "--set", "rope_type=linear", "--set", "factor=2"})
                .err.empty());
    QCOMPARE(
        run({"compute", "frequencies", "--scheme", "rope", "--set", "rope_type=linear", "--set", "factor=0"}).status,
        exitUsage);
}

QTEST_APPLESS_MAIN(TestCliTruth)
#include "tst_cli_truth.moc"
