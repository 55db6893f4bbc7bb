// SPDX-License-Identifier: MIT
// The command line end to end: the real binary, its exit statuses, its files and formats.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include "tests/cli/binaryrun.h"

namespace {

using Run = poslab::test::Binary;

Run runPoslab(const QStringList& args)
{
    return poslab::test::runBinary(args);
}

QJsonObject json(const Run& r)
{
    QJsonParseError e;
    const QJsonDocument d = QJsonDocument::fromJson(r.out, &e);
    if (e.error != QJsonParseError::NoError)
        qWarning() << "JSON error" << e.errorString() << r.out.left(200);
    return d.object();
}

} // namespace

class TestCliFoundation : public QObject {
    Q_OBJECT
private slots:
    void schemesJsonListsEveryScheme();
    void schemesText();
    void sinusoidalJsonMatchesThePaper();
    void ropeRotateKeepsNorm();
    void yarnFrequenciesReportAttentionFactor();
    void csvAndNpyFiles();
    void badInput_data();
    void badInput();
    void overTheCapIsRefused();
    void noPartialFileOnError();
};

void TestCliFoundation::schemesJsonListsEveryScheme()
{
    const Run r = runPoslab({"schemes", "--json"});
    QCOMPARE(r.code, 0);
    const QJsonArray all = QJsonDocument::fromJson(r.out).array();
    QStringList ids;
    for (const auto& v : all) {
        const QJsonObject s = v.toObject();
        ids << s["id"].toString();
        QVERIFY(!s["citation"].toString().isEmpty());
        QVERIFY(s["axes"].toObject().contains("relation"));
        QVERIFY(s["params"].isArray());
    }
    for (const char* id : {"nope", "sinusoidal", "learned", "rope", "xpos"})
        QVERIFY2(ids.contains(id), id);
    // Parameters carry type, default, range and their conditions.
    for (const auto& v : all) {
        if (v.toObject()["id"] != "rope")
            continue;
        bool sawBetaFast = false;
        for (const auto& p : v.toObject()["params"].toArray()) {
            const QJsonObject o = p.toObject();
            if (o["key"] == "beta_fast") {
                sawBetaFast = true;
                QCOMPARE(o["applies_when"].toObject()["rope_type"].toArray().first().toString(), QString("yarn"));
                QCOMPARE(o["default"].toDouble(), 32.0);
            }
        }
        QVERIFY(sawBetaFast);
    }
}

void TestCliFoundation::schemesText()
{
    const Run r = runPoslab({"schemes"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("rope_theta"));
    QVERIFY(r.out.contains("Vaswani"));
}

void TestCliFoundation::sinusoidalJsonMatchesThePaper()
{
    // Vaswani et al. 2017 section 3.5: PE(p,2i) = sin(p/10000^(2i/d)), PE(p,2i+1) = cos(...).
    const Run r = runPoslab({"compute", "encoding", "--scheme", "sinusoidal", "--dim", "8", "--positions", "0,1,100"});
    QCOMPARE(r.code, 0);
    const QJsonObject o = json(r);
    QCOMPARE(o["quantity"].toString(), QString("encoding"));
    QCOMPARE(o["scheme"].toString(), QString("sinusoidal"));
    QCOMPARE(o["shape"].toArray(), QJsonArray({3, 8}));
    QCOMPARE(o["params"].toObject()["base"].toDouble(), 10000.0);
    const QJsonArray d = o["data"].toArray();
    QCOMPARE(d.size(), 24);
    for (int i = 0; i < 8; ++i) // position 0 is [0,1,0,1,...]
        QCOMPARE(d[i].toDouble(), i % 2 ? 1.0 : 0.0);
    for (int i = 0; i < 4; ++i) {
        const double w = std::pow(10000.0, -2.0 * i / 8.0);
        QVERIFY(std::fabs(d[16 + 2 * i].toDouble() - std::sin(100 * w)) < 1e-6);
        QVERIFY(std::fabs(d[16 + 2 * i + 1].toDouble() - std::cos(100 * w)) < 1e-6);
    }
}

void TestCliFoundation::ropeRotateKeepsNorm()
{
    const Run r = runPoslab(
        {"compute", "rotate", "--scheme", "rope", "--dim", "4", "--positions", "0:5", "--vector", "1,2,3,4"});
    QCOMPARE(r.code, 0);
    const QJsonArray d = json(r)["data"].toArray();
    QCOMPARE(d.size(), 20);
    for (int p = 0; p < 5; ++p) {
        double n = 0;
        for (int k = 0; k < 4; ++k)
            n += d[p * 4 + k].toDouble() * d[p * 4 + k].toDouble();
        QVERIFY(std::fabs(n - 30.0) < 1e-9);
    }
    // Position 0 is the identity.
    QCOMPARE(d[0].toDouble(), 1.0);
    QCOMPARE(d[3].toDouble(), 4.0);
}

void TestCliFoundation::yarnFrequenciesReportAttentionFactor()
{
    // Hugging Face modeling_rope_utils.py get_mscale: 0.1 * ln(factor) + 1.
    const Run r = runPoslab(
        {"compute", "frequencies", "--scheme", "rope", "--set", "rope_type=yarn", "--set", "factor=4", "--dim", "128"});
    QCOMPARE(r.code, 0);
    const QJsonObject o = json(r);
    QVERIFY(std::fabs(o["attention_factor"].toDouble() - (0.1 * std::log(4.0) + 1.0)) < 1e-12);
    QCOMPARE(o["shape"].toArray(), QJsonArray({64}));
    QCOMPARE(o["data"].toArray()[0].toDouble(), 1.0); // the fastest pair is extrapolated, not interpolated
}

void TestCliFoundation::csvAndNpyFiles()
{
    QTemporaryDir dir;
    const QString csv = dir.filePath("t.csv");
    Run r = runPoslab({"compute", "cos", "--scheme", "rope", "--dim", "6", "--positions", "0:10:2", "-o", csv});
    QCOMPARE(r.code, 0);
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 5);
    QCOMPARE(lines[0].split(',').size(), 3);
    QCOMPARE(lines[0], QByteArray("1,1,1"));

    const QString npy = dir.filePath("t.npy");
    r = runPoslab({"compute", "encoding", "--scheme", "sinusoidal", "--dim", "16", "--positions", "0:7", "-o", npy});
    QCOMPARE(r.code, 0);
    QFile g(npy);
    QVERIFY(g.open(QIODevice::ReadOnly));
    const QByteArray b = g.readAll();
    QVERIFY(b.startsWith("\x93NUMPY"));
    const int headerLen = quint8(b[8]) | (quint8(b[9]) << 8);
    QCOMPARE((10 + headerLen) % 64, 0);
    const QByteArray header = b.mid(10, headerLen);
    QVERIFY2(header.contains("'descr': '<f4'"), header.constData());
    QVERIFY2(header.contains("'shape': (7, 16)"), header.constData());
    QCOMPARE(b.size(), 10 + headerLen + 7 * 16 * 4);
    float v;
    std::memcpy(&v, b.constData() + 10 + headerLen + (16 + 0) * 4, 4); // row 1, dim 0 = sin(1)
    QVERIFY(std::fabs(v - std::sin(1.0)) < 1e-7);
}

void TestCliFoundation::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("unknown scheme") << QStringList{"compute", "encoding", "--scheme", "rop"} << 2 << "rop";
    QTest::newRow("unknown key") << QStringList{"compute", "cos", "--scheme", "rope", "--set", "theta=5"} << 2
                                 << "theta";
    QTest::newRow("out of range") << QStringList{"compute", "cos", "--scheme", "rope", "--set", "rope_theta=1"} << 2
                                  << "rope_theta";
    QTest::newRow("not a number") << QStringList{"compute", "cos", "--scheme", "rope", "--set", "factor=x"} << 2
                                  << "factor";
    QTest::newRow("odd dim") << QStringList{"compute", "cos", "--scheme", "rope", "--dim", "7"} << 2 << "7";
    QTest::newRow("bad spec") << QStringList{"compute", "encoding", "--scheme", "sinusoidal", "--positions", "5:a"} << 2
                              << "5:a";
    QTest::newRow("empty range") << QStringList{"compute", "encoding", "--scheme", "sinusoidal", "--positions", "9:3"}
                                 << 2 << "9:3";
    QTest::newRow("encoding of rope") << QStringList{"compute", "encoding", "--scheme", "rope"} << 2 << "frequencies";
    QTest::newRow("unknown option") << QStringList{"compute", "encoding", "--scheme", "nope", "--frob"} << 2
                                    << "--frob";
    QTest::newRow("unknown quantity") << QStringList{"compute", "colour", "--scheme", "nope"} << 2 << "colour";
    QTest::newRow("unknown format") << QStringList{"compute", "encoding", "--scheme", "nope", "--format", "xml"} << 2
                                    << "xml";
    QTest::newRow("vector length") << QStringList{"compute", "rotate", "--scheme", "rope",
                                                  "--dim",   "4",      "--vector", "1,2"}
                                   << 2 << "4";
    QTest::newRow("key that does not apply")
        << QStringList{"compute", "cos", "--scheme", "rope", "--set", "beta_fast=8"} << 2 << "yarn";
    QTest::newRow("longrope list length")
        << QStringList{"compute", "cos",   "--scheme",           "rope",  "--dim",
                       "8",       "--set", "rope_type=longrope", "--set", "short_factor=1,2,3"}
        << 2 << "short_factor";
    QTest::newRow("unknown command") << QStringList{"frobnicate"} << 2 << "frobnicate";
    QTest::newRow("unknown window option") << QStringList{"--frob"} << 2 << "--frob";
    QTest::newRow("window option value") << QStringList{"--dim", "abc"} << 2 << "abc";
    QTest::newRow("window compute path") << QStringList{"--compute-path", "fast"} << 2 << "fast";
}

void TestCliFoundation::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, mentions);
    const Run r = runPoslab(args);
    QCOMPARE(r.code, code);
    QVERIFY(r.out.isEmpty());
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.contains(mentions), qPrintable(err));
    QCOMPARE(err.count('\n'), 1); // one line
}

void TestCliFoundation::overTheCapIsRefused()
{
    const Run r
        = runPoslab({"compute", "encoding", "--scheme", "sinusoidal", "--dim", "4096", "--positions", "0:1000000"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("GiB"), r.err.constData());
    const Run small = runPoslab({"compute", "encoding", "--scheme", "sinusoidal", "--dim", "64", "--positions",
                                 "0:1000", "--max-memory", "100KiB"});
    QCOMPARE(small.code, 1);
    QVERIFY2(small.err.contains("100.0 KiB"), small.err.constData());
}

void TestCliFoundation::noPartialFileOnError()
{
    QTemporaryDir dir;
    const QString out = dir.filePath("never.json");
    const Run r = runPoslab({"compute", "encoding", "--scheme", "rope", "-o", out});
    QCOMPARE(r.code, 2);
    QVERIFY(!QFile::exists(out));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 0);
    const Run bad = runPoslab({"compute", "encoding", "--scheme", "nope", "-o", "/nonexistent-dir/x.json"});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("does not exist"), bad.err.constData());
}

QTEST_GUILESS_MAIN(TestCliFoundation)
#include "tst_cli_foundation.moc"
