// SPDX-License-Identifier: MIT
// The command line in-process (runCli with string streams): attention quantities, their errors, and output
// that parses.
#include "app/cli.h"
#include "tests/cli/clirun.h"
#include "core/encodingregistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <cmath>

#include <sstream>

using namespace poslab::app;
using poslab::test::Run;
using poslab::test::run;

namespace {
// The keys of the top-level JSON object, in order, read from the raw text: QJsonDocument keeps only the last
// of two equal keys, so a key written twice would pass unseen through it.
std::vector<std::string> topLevelKeys(const std::string& text)
{
    std::vector<std::string> keys;
    int depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            --depth;
        } else if (c == '"') {
            std::string word;
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                if (text[i] == '\\')
                    ++i;
                word += text[i];
            }
            std::size_t j = i + 1;
            while (j < text.size() && text[j] == ' ')
                ++j;
            if (depth == 1 && j < text.size() && text[j] == ':')
                keys.push_back(word);
        }
    }
    return keys;
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void badHeadsCount();
    void keysOutsideRange();
    void sentenceTooLong();
    void scoresJsonParsesWithNullsWhereMasked();
    void csvAndNpyMarkMaskedEntries();
    void bucketsAndDecay();
    void overTheCapIsRefused();
    void bucketsOnlyWhereTheSchemeHasThem();
    void signConventionsAreListed();
    void termsAddUpAndCopeGatesCount();
    void noJsonKeyWrittenTwice();
};

void TestCli::badHeadsCount()
{
    for (const char* h : {"0", "-3", "5000", "two"}) {
        const Run r = run({"compute", "scores", "--scheme", "alibi", "--heads", h});
        QCOMPARE(r.status, exitUsage);
        QVERIFY2(r.err.find("--heads") != std::string::npos, r.err.c_str());
        QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1l);
    }
}

void TestCli::keysOutsideRange()
{
    Run r = run(
        {"compute", "scores", "--scheme", "nope", "--content", "the cat sat", "--positions", "0:3", "--keys", "0:5"});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(r.err.find("keys outside range") != std::string::npos, r.err.c_str());
    // Without --positions a sentence gives one query per word, so the keys are what is out of range.
    r = run({"compute", "scores", "--scheme", "nope", "--content", "the cat", "--keys", "0:3"});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(r.err.find("keys outside range") != std::string::npos, r.err.c_str());
    r = run({"compute", "scores", "--scheme", "nope", "--keys", "-4:2"});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(r.err.find("--keys") != std::string::npos, r.err.c_str());
}

void TestCli::sentenceTooLong()
{
    std::string text;
    for (int i = 0; i < 5000; ++i)
        text += "word ";
    const Run r = run({"compute", "scores", "--scheme", "rope", "--content", text});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(r.err.find("too long") != std::string::npos && r.err.find("5000") != std::string::npos, r.err.c_str());
}

void TestCli::scoresJsonParsesWithNullsWhereMasked()
{
    const Run r = run({"compute", "scores", "--scheme", "alibi", "--heads", "2", "--positions", "0:4", "--softmax"});
    QCOMPARE(r.status, exitOk);
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(r.out), &pe);
    QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(pe.errorString()));
    const QJsonObject o = doc.object();
    QCOMPARE(o["quantity"].toString(), QString("scores"));
    QCOMPARE(o["shape"].toArray(), (QJsonArray{2, 4, 4}));
    const QJsonArray data = o["data"].toArray();
    QCOMPARE(data.size(), 32);
    QVERIFY(data[1].isNull());         // head 0, query 0, key 1: masked
    QCOMPARE(data[0].toDouble(), 1.0); // query 0 sees only itself
    double row = 0;
    for (int j = 0; j < 4; ++j)
        row += data[12 + j].toDouble();
    QVERIFY(std::fabs(row - 1.0) < 1e-6);
    QVERIFY(o.contains("slope_head_1"));
}

void TestCli::csvAndNpyMarkMaskedEntries()
{
    const Run csv = run({"compute", "scores", "--scheme", "rope", "--positions", "0:3", "--format", "csv"});
    QCOMPARE(csv.status, exitOk);
    QVERIFY2(csv.out.rfind(",,\n") != std::string::npos || csv.out.find(",,") != std::string::npos, csv.out.c_str());
    const Run npy = run({"compute", "scores", "--scheme", "rope", "--positions", "0:3", "--format", "npy"});
    QCOMPARE(npy.status, exitOk);
    QVERIFY(npy.out.rfind("\x93NUMPY", 0) == 0);
    QVERIFY(npy.out.find("'shape': (1, 3, 3)") != std::string::npos);
    float v[9];
    std::memcpy(v, npy.out.data() + npy.out.size() - sizeof v, sizeof v);
    QVERIFY(std::isnan(v[1]) && std::isfinite(v[0]) && std::isfinite(v[8]));
}

void TestCli::bucketsAndDecay()
{
    Run r = run({"compute", "buckets", "--scheme", "t5", "--positions", "20", "--keys", "4,36"});
    QCOMPARE(r.status, exitOk);
    QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).object();
    QCOMPARE(o["data"].toArray(), (QJsonArray{10, 26}));
    r = run({"compute", "decay", "--scheme", "rope", "--dim", "8", "--positions", "0:4", "--content", "constant"});
    QCOMPARE(r.status, exitOk);
    o = QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).object();
    QCOMPARE(o["columns"].toArray(), (QJsonArray{"score", "bound"}));
    QVERIFY(std::fabs(o["data"].toArray()[0].toDouble() - 8.0) < 1e-9);
}

void TestCli::overTheCapIsRefused()
{
    const Run r = run({"compute", "scores", "--scheme", "rope", "--positions", "0:4096", "--max-memory", "1MiB"});
    QCOMPARE(r.status, exitRefused);
    QVERIFY2(r.err.find("MiB") != std::string::npos && r.err.find("4096") != std::string::npos, r.err.c_str());
}

void TestCli::bucketsOnlyWhereTheSchemeHasThem()
{
    const Run r = run({"compute", "buckets", "--scheme", "rope"});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(r.err.find("scores") != std::string::npos, r.err.c_str());
}

void TestCli::signConventionsAreListed()
{
    // T5: memory_position - context_position (modeling_t5.py); DeBERTa: q_ids - k_ids (modeling_deberta_v2.py).
    const Run r = run({"schemes", "--json"});
    QCOMPARE(r.status, exitOk);
    const QJsonArray all = QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).array();
    QJsonObject t5, deberta;
    for (const auto& v : all) {
        if (v.toObject()["id"] == "t5")
            t5 = v.toObject();
        if (v.toObject()["id"] == "deberta")
            deberta = v.toObject();
    }
    QCOMPARE(t5["relative_position"].toString(), QString("key - query"));
    QCOMPARE(deberta["relative_position"].toString(), QString("query - key"));
    QVERIFY(t5["quantities"].toArray().contains("buckets"));
}

namespace {
std::vector<double> dataOf(const Run& r, QJsonObject* object = nullptr)
{
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).object();
    if (object)
        *object = o;
    std::vector<double> v;
    for (const auto& x : o["data"].toArray())
        v.push_back(x.isNull() ? std::nan("") : x.toDouble());
    return v;
}
} // namespace

void TestCli::termsAddUpAndCopeGatesCount()
{
    // Transformer-XL (Dai et al. 2019, section 3.3): the score is the sum of terms (a) + (b) + (c) + (d).
    const std::vector<std::string> base
        = {"compute", "scores", "--scheme", "transformer_xl", "--positions", "0:5", "--dim", "8", "--heads", "2"};
    const std::vector<double> total = dataOf(run(base));
    std::vector<double> sum(total.size(), 0.0);
    for (const char* t : {"content_content", "content_position", "global_content", "global_position"}) {
        std::vector<std::string> a = base;
        a.insert(a.end(), {"--term", t});
        QJsonObject o;
        const std::vector<double> part = dataOf(run(a), &o);
        QVERIFY2(o["term"].toString().startsWith(QString::fromLatin1(t)), qPrintable(o["term"].toString()));
        QCOMPARE(part.size(), total.size());
        for (std::size_t i = 0; i < part.size(); ++i)
            sum[i] += part[i];
    }
    for (std::size_t i = 0; i < total.size(); ++i) {
        QCOMPARE(std::isnan(sum[i]), std::isnan(total[i])); // the causal mask hides the same cells
        if (!std::isnan(total[i]))
            QVERIFY(std::fabs(sum[i] - total[i]) < 1e-5);
    }
    // CoPE (Golovneva et al. 2024, section 3): gates in (0, 1); the position of key j from query i is the
    // sum of the gates from j to i, so it grows as the key moves back.
    const std::vector<std::string> cope
        = {"compute", "scores", "--scheme", "cope", "--positions", "0:6", "--heads", "1"};
    std::vector<std::string> g = cope, p = cope;
    g.insert(g.end(), {"--term", "gates"});
    p.insert(p.end(), {"--term", "positions"});
    const std::vector<double> gates = dataOf(run(g)), positions = dataOf(run(p));
    QCOMPARE(gates.size(), std::size_t(36));
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j <= i; ++j) {
            const double gate = gates[std::size_t(i * 6 + j)];
            QVERIFY(gate > 0.0 && gate < 1.0);
            double expected = 0.0;
            for (int t = j; t <= i; ++t)
                expected += gates[std::size_t(i * 6 + t)];
            QVERIFY2(std::fabs(positions[std::size_t(i * 6 + j)] - expected) < 1e-5,
                     qPrintable(QString("%1 %2").arg(i).arg(j)));
        }
    // A wrong name lists the terms; --term with --softmax or on another quantity is refused.
    Run bad = run({"compute", "scores", "--scheme", "cope", "--term", "gate"});
    QCOMPARE(bad.status, exitUsage);
    QVERIFY(bad.err.find("gates") != std::string::npos);
    bad = run({"compute", "scores", "--scheme", "cope", "--term", "gates", "--softmax"});
    QCOMPARE(bad.status, exitUsage);
    bad = run({"compute", "bias", "--scheme", "alibi", "--term", "gates"});
    QCOMPARE(bad.status, exitUsage);
}

void TestCli::noJsonKeyWrittenTwice()
{
    // `compute scores --scheme irope` wrote "rope_layer" twice (once from the rotary spec,
    // once from the score hook). Every quantity of every scheme: each top-level key at most once.
    QCOMPARE(topLevelKeys(R"({"a":1,"b":{"a":2},"c":["a"],"a":3})"), (std::vector<std::string>{"a", "b", "c", "a"}));
    for (const auto& s : poslab::core::schemes()) {
        for (const auto q : s.quantities()) {
            const std::string quantity(poslab::core::quantityName(q));
            std::vector<std::string> args = {"compute", quantity, "--scheme", s.id, "--dim", "8", "--positions", "0:4"};
            if (quantity == "rotate")
                args.insert(args.end(), {"--vector", "1,0,0,0,0,0,0,1"});
            const Run r = run(args);
            const std::string what = s.id + " " + quantity + ": " + r.err;
            QVERIFY2(r.status == 0, what.c_str());
            std::vector<std::string> keys = topLevelKeys(r.out);
            QVERIFY2(keys.size() > 3, what.c_str());
            std::sort(keys.begin(), keys.end());
            const auto twice = std::adjacent_find(keys.begin(), keys.end());
            QVERIFY2(twice == keys.end(),
                     (what + " writes \"" + (twice == keys.end() ? "" : *twice) + "\" twice").c_str());
        }
    }
}

QTEST_APPLESS_MAIN(TestCli)
#include "tst_cli_attention.moc"
