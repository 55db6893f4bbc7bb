// SPDX-License-Identifier: MIT
// Option values the command line used to accept silently: a --max-memory that overflowed
// to a 0-byte cap, --format disagreeing with the extension of -o, a --set key given twice, a non-finite
// --vector, an option of another quantity. Each is refused with one line and exit 2.
#include "app/cli.h"
#include "tests/cli/clirun.h"

#include <QTemporaryDir>
#include <QTest>

#include <sstream>

using namespace poslab::app;
using poslab::test::Run;
using poslab::test::run;

class TestCliBounds : public QObject {
    Q_OBJECT
private slots:
    void refusedWithOneLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("says");
        const QStringList enc{"compute", "encoding", "--scheme", "sinusoidal", "--dim", "4", "--positions", "0:2"};
        QTest::newRow("max-memory 1e30 GiB")
            << (enc + QStringList{"--max-memory", "1000000000000000000000000000000GiB"})
            << "--max-memory '1000000000000000000000000000000GiB' is out of range";
        QTest::newRow("max-memory 0.1 bytes") << (enc + QStringList{"--max-memory", "0.1"}) << "is out of range";
        QTest::newRow("repeated set") << (enc + QStringList{"--set", "base=100", "--set", "base=200"})
                                      << "parameter base is set twice (base=100, then base=200)";
        QTest::newRow("vector nan") << QStringList{"compute", "rotate",      "--scheme", "rope",     "--dim",
                                                   "4",       "--positions", "0:2",      "--vector", "1,nan,0,0"}
                                    << "--vector: element 2 is nan";
        QTest::newRow("vector inf") << QStringList{"compute", "rotate",      "--scheme", "rope",     "--dim",
                                                   "4",       "--positions", "0:2",      "--vector", "1,0,0,inf"}
                                    << "--vector: element 4 is infinite";
        QTest::newRow("keys with encoding")
            << (enc + QStringList{"--keys", "0:2"}) << "--keys applies to bias, buckets, scores only, not to encoding";
        QTest::newRow("heads with encoding")
            << (enc + QStringList{"--heads", "4"}) << "--heads applies to bias, scores, decay only, not to encoding";
        QTest::newRow("softmax with bias")
            << QStringList{"compute", "bias", "--scheme", "alibi", "--positions", "0:4", "--softmax"}
            << "--softmax applies to scores only, not to bias";
        QTest::newRow("vector with cos") << QStringList{"compute", "cos",         "--scheme", "rope",     "--dim",
                                                        "4",       "--positions", "0:2",      "--vector", "1,0,0,0"}
                                         << "--vector applies to rotate only, not to cos";
        QTest::newRow("mask with encoding") << (enc + QStringList{"--mask", "causal"})
                                            << "--mask applies to bias, buckets, scores only, not to encoding";
        QTest::newRow("content with encoding") << (enc + QStringList{"--content", "constant"})
                                               << "--content applies to scores, decay only, not to encoding";
        QTest::newRow("drope with frequencies")
            << QStringList{"compute", "frequencies", "--scheme", "rope", "--dim", "8", "--drope"}
            << "--drope applies to scores only, not to frequencies";
        QTest::newRow("seed with bias") << QStringList{"compute",     "bias", "--scheme", "alibi",
                                                       "--positions", "0:4",  "--seed",   "3"}
                                        << "--seed applies to scores, decay only, not to bias";
    }

    void refusedWithOneLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, says);
        std::vector<std::string> a;
        for (const QString& s : args)
            a.push_back(s.toStdString());
        const Run r = run(a);
        QCOMPARE(r.status, 2);
        QVERIFY2(QString::fromStdString(r.err).contains(says), r.err.c_str());
        QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), std::ptrdiff_t(1));
        QVERIFY(r.out.empty());
    }

    void formatMustMatchTheExtension()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/m.json").toStdString();
        const Run r = run({"compute", "encoding", "--scheme", "sinusoidal", "--dim", "4", "--positions", "0:2",
                           "--format", "npy", "-o", path});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find("--format npy does not match the extension of") != std::string::npos, r.err.c_str());
        QVERIFY(!QFile::exists(QString::fromStdString(path)));
        // Agreeing, or an extension that names no format: accepted.
        QCOMPARE(run({"compute", "encoding", "--scheme", "sinusoidal", "--dim", "4", "--positions", "0:2", "--format",
                      "npy", "-o", (dir.path() + "/m.npy").toStdString()})
                     .status,
                 0);
        QCOMPARE(run({"compute", "encoding", "--scheme", "sinusoidal", "--dim", "4", "--positions", "0:2", "--format",
                      "csv", "-o", (dir.path() + "/m.txt").toStdString()})
                     .status,
                 0);
    }
};

QTEST_APPLESS_MAIN(TestCliBounds)
#include "tst_cli_bounds.moc"
