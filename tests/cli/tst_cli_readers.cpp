// SPDX-License-Identifier: MIT
// The command line with a real position table: `compute encoding --scheme
// learned --set table_file=...` returns the file's values; a file that does not fit is one line naming it; the
// text parameters show in `poslab schemes` and `poslab schemes --json`.
// The files are written byte by byte from numpy.lib.format's and the huggingface/safetensors README's format
// descriptions (tests/tablefiles.h). Expected values come from the IEEE 754 binary16 definition, not from the
// reader.
#include "app/cli.h"
#include "tests/cli/clirun.h"
#include "tests/tablefiles.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace poslab::app;
using poslab::test::Run;
using poslab::test::run;
using namespace poslab::test;

namespace {

/// binary16 per IEEE 754: 2^(e-15) * (1 + f/1024); subnormal 2^-14 * f/1024.
double half(std::uint16_t b)
{
    const int e = (b >> 10) & 31, f = b & 1023;
    const double m = e == 0 ? std::ldexp(double(f), -24) : std::ldexp(1.0 + f / 1024.0, e - 15);
    return (b & 0x8000) ? -m : m;
}

const std::vector<std::uint16_t> bits
    = {0x3c00, 0x0001, 0xc2f7, 0x3555, 0x7bff, 0x8000, 0x0400, 0xbc00, 0x03ff, 0x4000, 0x3800, 0x0000};

std::string npyHalf3x4()
{
    return npy(npyDict("<f2", "(3, 4)"), u16Bytes(bits));
}

std::string safetensorsHalf3x4()
{
    return safetensors("{\"wpe.weight\":{\"dtype\":\"F16\",\"shape\":[3,4],\"data_offsets\":[0,24]},"
                       "\"wte.weight\":{\"dtype\":\"F16\",\"shape\":[1,4],\"data_offsets\":[24,32]}}",
                       u16Bytes(bits) + std::string(8, '\0'));
}

} // namespace

class TestCliReaders : public QObject {
    Q_OBJECT
private slots:
    void encodingIsTheFilesTable();
    void safetensorsTensorByName();
    void misfitsAreOneLine();
    void schemesListTextParameters();
};

void TestCliReaders::encodingIsTheFilesTable()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("table.npy");
    writeFile(path.toStdString(), npyHalf3x4());
    const Run r = run({"compute", "encoding", "--scheme", "learned", "--set", "table_file=" + path.toStdString(),
                       "--dim", "4", "--positions", "0:3"});
    QCOMPARE(r.status, exitOk);
    const QJsonObject o = r.json();
    QCOMPARE(o["shape"].toArray(), QJsonArray({3, 4}));
    QCOMPARE(o["params"].toObject()["table_file"].toString(), path);
    const QJsonArray data = o["data"].toArray();
    QCOMPARE(data.size(), qsizetype(12));
    // Encodings are float32 (the JSON says so and writes the shortest digits that read back as that float):
    // every binary16 value is a float32, so each entry is exactly the file's value, subnormals included.
    QCOMPARE(o["dtype"].toString(), QString("float32"));
    for (int i = 0; i < 12; ++i)
        QCOMPARE(float(data[i].toDouble()), float(half(bits[std::size_t(i)])));
    // Positions in any order pick their rows.
    const Run one = run({"compute", "encoding", "--scheme", "learned", "--set", "table_file=" + path.toStdString(),
                         "--dim", "4", "--positions", "2", "--format", "csv"});
    QCOMPARE(one.status, exitOk);
    // Row 2 is 0x03ff (the largest subnormal, 1023 * 2^-24), 0x4000, 0x3800, 0x0000, in float32's shortest digits.
    QVERIFY2(one.out.find("6.097555e-05,2,0.5,0") != std::string::npos, one.out.c_str());
}

void TestCliReaders::safetensorsTensorByName()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("model.safetensors");
    writeFile(path.toStdString(), safetensorsHalf3x4());
    const Run r = run({"compute", "encoding", "--scheme", "learned", "--set", "table_file=" + path.toStdString(),
                       "--set", "table_tensor=wpe.weight", "--dim", "4", "--positions", "1"});
    QCOMPARE(r.status, exitOk);
    const QJsonArray data = r.json()["data"].toArray();
    for (int i = 0; i < 4; ++i)
        QCOMPARE(float(data[i].toDouble()), float(half(bits[std::size_t(4 + i)])));
    // No name with two candidates: the message lists them.
    const Run none = run({"compute", "encoding", "--scheme", "learned", "--set", "table_file=" + path.toStdString(),
                          "--dim", "4", "--positions", "1"});
    QCOMPARE(none.status, exitUsage);
    QVERIFY2(none.err.find(path.toStdString()
                           + ": choose a tensor (table_tensor); its 2-D tensors: wpe.weight [3, 4] "
                             "F16, wte.weight [1, 4] F16")
                 != std::string::npos,
             none.err.c_str());
}

void TestCliReaders::misfitsAreOneLine()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("table.npy");
    writeFile(path.toStdString(), npyHalf3x4());
    const std::string set = "table_file=" + path.toStdString();
    auto oneLine = [](const Run& r) { return r.err.find('\n') == r.err.size() - 1; };
    Run r = run({"compute", "encoding", "--scheme", "learned", "--set", set, "--dim", "8", "--positions", "0:3"});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(oneLine(r) && r.err.find("which has 4 columns") != std::string::npos, r.err.c_str());
    r = run({"compute", "encoding", "--scheme", "learned", "--set", set, "--dim", "4", "--positions", "0:4"});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(oneLine(r) && r.err.find("position 3 is beyond the 3 rows of " + path.toStdString()) != std::string::npos,
             r.err.c_str());
    // hierarchical=true extends the 3 rows to 9 positions, as for the seeded table.
    r = run({"compute", "encoding", "--scheme", "learned", "--set", set, "--set", "hierarchical=true", "--dim", "4",
             "--positions", "0:9"});
    QCOMPARE(r.status, exitOk);
    // A broken file: the reader's one line, naming it.
    const QString bad = dir.filePath("bad.npy");
    const std::string whole = npyHalf3x4();
    writeFile(bad.toStdString(), whole.substr(0, whole.size() - 12)); // half the data cut off
    r = run({"compute", "encoding", "--scheme", "learned", "--set", "table_file=" + bad.toStdString(), "--dim", "4"});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(oneLine(r)
                 && r.err.find(bad.toStdString()
                               + ": shape (3, 4) of float16 needs 24 bytes of data, but the "
                                 "file holds 12")
                     != std::string::npos,
             r.err.c_str());
}

void TestCliReaders::schemesListTextParameters()
{
    const Run text = run({"schemes"});
    QCOMPARE(text.status, exitOk);
    QVERIFY2(text.out.find("--set table_file=   (text, at most 4096 bytes)") != std::string::npos, text.out.c_str());
    QVERIFY(text.out.find("--set table_tensor=   (text, at most 1024 bytes)") != std::string::npos);
    const Run json = run({"schemes", "--json"});
    QCOMPARE(json.status, exitOk);
    const QJsonArray all = QJsonDocument::fromJson(QByteArray::fromStdString(json.out)).array();
    QJsonObject tableFile;
    for (const auto& s : all)
        if (s.toObject()["id"].toString() == "learned")
            for (const auto& p : s.toObject()["params"].toArray())
                if (p.toObject()["key"].toString() == "table_file")
                    tableFile = p.toObject();
    QCOMPARE(tableFile["type"].toString(), QString("text"));
    QCOMPARE(tableFile["default"].toString(), QString(""));
    QCOMPARE(tableFile["max_length"].toDouble(), 4096.0);
    QVERIFY(!tableFile.contains("min")); // no numeric range for text
}

QTEST_APPLESS_MAIN(TestCliReaders)
#include "tst_cli_readers.moc"
