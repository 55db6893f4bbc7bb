// SPDX-License-Identifier: MIT
// The file readers: JSON (RFC 8259), NumPy .npy and .safetensors, and the learned scheme's table_file.
//
// The tests write their own files, byte by byte, from the formats' own descriptions (tests/tablefiles.h):
//  - .npy: numpy.lib.format ("NPY format"): "\x93NUMPY", major and minor version bytes, HEADER_LEN as a
//    little-endian unsigned short (1.0) or unsigned int (2.0, 3.0), an ASCII Python literal dict with 'descr',
//    'fortran_order' and 'shape' padded with spaces to a multiple of 64 bytes and ended by '\n', then the data;
//    headers over numpy's _MAX_HEADER_SIZE of 10000 bytes are refused as numpy.load refuses them.
//  - .safetensors: huggingface/safetensors README "Format": 8 bytes N (unsigned little-endian 64-bit), N bytes
//    of a JSON header {"NAME": {"dtype", "shape", "data_offsets": [BEGIN, END]}}, then the byte buffer; the
//    README's notes (no duplicate keys, the byte buffer entirely indexed without holes, little-endian, C order)
//    and the reference reader's checks (safetensors/src/tensor.rs: MAX_HEADER_SIZE, validate()).
//  - bfloat16 in .npy: ml_dtypes' bfloat16 is saved by np.save as '<V2' (jax-ml/ml_dtypes issue 41), and
//    jax.numpy.load reads a 'V2' array as bfloat16 (jax/_src/numpy/lax_numpy.py, load).
// Expected values are computed here from the IEEE 754 definitions (binary16: 2^(e-15) * (1 + f/1024), subnormal
// 2^-14 * f/1024; bfloat16: the top half of a binary32), never by the code under test.
#include "core/encodingregistry.h"
#include "core/compute.h"
#include "core/encodings/learned.h"
#include "core/encodings/vitlearned.h"
#include "core/errors.h"
#include "core/io/json.h"
#include "core/io/npy.h"
#include "core/io/positiontable.h"
#include "core/io/safetensors.h"
#include "core/random.h"
#include "core/spatial.h"
#include "tests/tablefiles.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

using namespace poslab::core;
using namespace poslab::test;

namespace {

/// Runs @p f, which must throw an InputError whose message contains every one of @p parts.
void expectInputError(const std::function<void()>& f, const std::vector<std::string>& parts)
{
    try {
        f();
    } catch (const InputError& e) {
        const std::string m = e.what();
        for (const auto& p : parts)
            QVERIFY2(m.find(p) != std::string::npos, ("'" + p + "' not in: " + m).c_str());
        QVERIFY2(m.find('\n') == std::string::npos, m.c_str()); // one line
        return;
    } catch (const std::exception& e) {
        QFAIL((std::string("wrong exception type: ") + e.what()).c_str());
    }
    QFAIL("accepted");
}

TensorTable npyTable(const std::string& bytes, const std::string& name = "t.npy", const Limits& limits = {})
{
    return readNpyTable(*memorySource(bytes, name), limits);
}

TensorTable stTable(const std::string& bytes, const std::string& tensor, const std::string& name = "m.safetensors",
                    const Limits& limits = {})
{
    return readSafetensorsTable(*memorySource(bytes, name), tensor, limits);
}

/// Five tensors in one file, listed out of offset order: wpe.weight F32 [3, 2] at 0..24, h.0.w F16 [2, 2] at
/// 24..32, emb BF16 [2, 3] at 32..44, ln.bias F32 [2] at 44..52, idx I64 [2, 1] at 52..68.
std::string fiveTensors()
{
    const std::string header = "{\"__metadata__\":{\"format\":\"pt\"},"
                               "\"emb\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[32,44]},"
                               "\"wpe.weight\":{\"dtype\":\"F32\",\"shape\":[3,2],\"data_offsets\":[0,24]},"
                               "\"idx\":{\"dtype\":\"I64\",\"shape\":[2,1],\"data_offsets\":[52,68]},"
                               "\"h.0.w\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[24,32]},"
                               "\"ln.bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[44,52]}}";
    std::string data = f32Bytes({0.5f, -1.0f, 2.0f, 0.25f, -3.5f, 1e-3f});
    data += u16Bytes({0x3c00, 0xc000, 0x0001, 0x7bff});                 // 1, -2, 2^-24, 65504
    data += u16Bytes({0x3f80, 0xc2f7, 0x0000, 0x8000, 0x4049, 0x0001}); // 1, -123.5, 0, -0, 3.140625, 2^-133
    data += f32Bytes({7.0f, 8.0f});
    data += le(5, 8) + le(6, 8);
    return safetensors(header, data);
}

} // namespace

class TestReaders : public QObject {
    Q_OBJECT
private slots:
    void jsonValues();
    void jsonExactIntegersAndUnicode();
    void jsonErrorsNameTheByte_data();
    void jsonErrorsNameTheByte();
    void jsonLimits();
    void jsonManyKeysCostLinearithmic();
    void jsonDuplicateFoundAnywhere();
    void halfAndBfloat16AreExact();
    void npyFloat32VersionsAndOrder();
    void npyFloat16Subnormals();
    void npyBfloat16AsVoid2();
    void npyRefusals_data();
    void npyRefusals();
    void npyMemoryCap();
    void safetensorsSeveralTensors();
    void safetensorsReferenceWriterBytes();
    void safetensorsChoosingATensor();
    void safetensorsMalformed_data();
    void safetensorsMalformed();
    void textParameterRoundTrips();
    void learnedReadsTheFile();
    void learnedHierarchicalExtendsTheFile();
    void learnedRefusesWhatTheFileCannotGive();
    void cacheReadsOnceAndNoticesChanges();
    void tableShapeJudgedBeforeItsData();
    void onlyTheRowsAskedAreRead();
    void rowsReadEqualTheWholeRead();
    void rowsCountedAgainstTheMemoryCap();
};

void TestReaders::jsonValues()
{
    const json::Value v
        = json::parse(" {\"a\": [1, -2.5e3, true, false, null], \"b\": {\"c\": \"x\"}, \"e\": [], \"f\": {}} \r\n");
    QVERIFY(v.isObject());
    QCOMPARE(v.members().size(), std::size_t(4));
    QCOMPARE(v.members()[1].first, std::string("b")); // document order
    const json::Value* a = v.find("a");
    QVERIFY(a && a->isArray());
    QCOMPARE(a->array().size(), std::size_t(5));
    QCOMPARE(a->array()[0].number(), 1.0);
    QCOMPARE(a->array()[1].number(), -2500.0);
    QCOMPARE(a->array()[1].integer().value_or(0), std::int64_t(-2500)); // integral, so exact
    QVERIFY(a->array()[2].isBool() && a->array()[2].boolean());
    QVERIFY(a->array()[3].isBool() && !a->array()[3].boolean());
    QVERIFY(a->array()[4].isNull());
    QCOMPARE(a->array()[1].offset(), std::size_t(11)); // where "-2.5e3" starts
    QCOMPARE(v.find("b")->find("c")->string(), std::string("x"));
    QVERIFY(v.find("nope") == nullptr);
    QVERIFY(a->find("c") == nullptr); // not an object
    QVERIFY(v.find("e")->array().empty() && v.find("f")->members().empty());
    QCOMPARE(json::typeName(json::Type::Object), std::string_view("an object"));
    QVERIFY(!json::parse("0.5").integer());
    QCOMPARE(json::parse("-0").number(), 0.0);
    // RFC 8259 section 8.1: a leading byte order mark may be ignored.
    QCOMPARE(json::parse("\xEF\xBB\xBF[1]").array().size(), std::size_t(1));
}

void TestReaders::jsonExactIntegersAndUnicode()
{
    // 2^53 + 1 has no double; the integer keeps it (Hugging Face configs hold large token ids and lengths).
    const json::Value big = json::parse("9007199254740993");
    QCOMPARE(big.integer().value_or(0), std::int64_t(9007199254740993LL));
    QCOMPARE(big.number(), 9007199254740992.0); // the nearest double
    QCOMPARE(json::parse("-9223372036854775808").integer().value_or(0), std::numeric_limits<std::int64_t>::min());
    QVERIFY(!json::parse("9223372036854775808").integer()); // past int64: a double only
    QCOMPARE(json::parse("1e2").integer().value_or(0), std::int64_t(100));
    QCOMPARE(json::parse("1e-400").number(), 0.0); // underflow: the nearest double
    // Escapes; U+00E9 as \u00e9 and as raw UTF-8; U+1F600 as a surrogate pair is F0 9F 98 80 in UTF-8 (RFC 3629).
    QCOMPARE(json::parse("\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\"").string(), std::string("a\"\\/\b\f\n\r\t"));
    QCOMPARE(json::parse("\"\\u00e9\"").string(), std::string("\xC3\xA9"));
    QCOMPARE(json::parse("\"\xC3\xA9\"").string(), std::string("\xC3\xA9"));
    QCOMPARE(json::parse("\"\\ud83d\\ude00\"").string(), std::string("\xF0\x9F\x98\x80"));
    QCOMPARE(json::parse("\"\\u0000\"").string(), std::string(1, '\0'));
}

void TestReaders::jsonErrorsNameTheByte_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("offset");
    QTest::addColumn<QString>("problem");
    QTest::newRow("missing colon") << QByteArray("{\"a\" 1}") << 5 << "expected ':'";
    QTest::newRow("trailing comma") << QByteArray("[1,2,]") << 5 << "trailing comma";
    QTest::newRow("leading zero") << QByteArray("[01]") << 1 << "leading zero";
    QTest::newRow("plus sign") << QByteArray("+1") << 0 << "unexpected '+'";
    QTest::newRow("NaN") << QByteArray("[NaN]") << 1 << "unexpected 'N'";
    QTest::newRow("single quotes") << QByteArray("{'a': 1}") << 1 << "expected a quoted key";
    QTest::newRow("comment") << QByteArray("[1] // x") << 4 << "after the end of the value";
    QTest::newRow("unterminated") << QByteArray("\"abc") << 0 << "unterminated string";
    QTest::newRow("control char") << QByteArray("\"a\tb\"") << 2 << "control character";
    QTest::newRow("bad escape") << QByteArray("\"\\x\"") << 1 << "unknown escape \\x";
    QTest::newRow("lone high surrogate") << QByteArray("\"\\ud800x\"") << 1 << "high surrogate \\uD800";
    QTest::newRow("lone low surrogate") << QByteArray("\"\\udc00\"") << 1 << "lone low surrogate";
    QTest::newRow("overlong utf8") << QByteArray("\"\xC0\xAF\"") << 1 << "invalid UTF-8";
    QTest::newRow("encoded surrogate") << QByteArray("\"\xED\xA0\x80\"") << 1 << "encoded surrogate";
    QTest::newRow("past U+10FFFF") << QByteArray("\"\xF4\x90\x80\x80\"") << 1 << "invalid UTF-8";
    QTest::newRow("cut utf8") << QByteArray("\"\xE2\x82") << 1 << "invalid UTF-8";
    QTest::newRow("duplicate key") << QByteArray("{\"a\":1,\"a\":2}") << 7 << "duplicate key \"a\"";
    QTest::newRow("overflow") << QByteArray("[1e400]") << 1 << "too large for a double";
    QTest::newRow("empty") << QByteArray("  ") << 2 << "empty";
    QTest::newRow("no exponent digit") << QByteArray("1e") << 2 << "no digit in its exponent";
    QTest::newRow("two values") << QByteArray("1 2") << 2 << "after the end of the value";
}

void TestReaders::jsonErrorsNameTheByte()
{
    QFETCH(QByteArray, text);
    QFETCH(int, offset);
    QFETCH(QString, problem);
    try {
        json::parse(std::string_view(text.constData(), std::size_t(text.size())));
        QFAIL("accepted");
    } catch (const json::ParseError& e) {
        QCOMPARE(e.offset(), std::size_t(offset));
        const std::string m = e.what();
        QVERIFY2(m.find("invalid JSON at byte " + std::to_string(offset) + ": ") == 0, e.what());
        QVERIFY2(m.find(problem.toStdString()) != std::string::npos, e.what());
    }
}

void TestReaders::jsonLimits()
{
    json::ParseLimits limits;
    limits.maxDepth = 64;
    // 64 nested arrays parse; 65 are refused at the 65th '[' (no recursion past the limit).
    QVERIFY(json::parse(std::string(64, '[') + std::string(64, ']'), limits).isArray());
    expectInputError([&] { json::parse(std::string(65, '[') + std::string(65, ']'), limits); },
                     {"invalid JSON at byte 64", "nested more than 64 deep"});
    // A hostile depth far past any stack: refused at the limit, not a crash.
    expectInputError([&] { json::parse(std::string(1000000, '['), limits); }, {"nested more than 64 deep"});
    limits.maxBytes = 10;
    expectInputError([&] { json::parse("[1,2,3,4,5,6]", limits); }, {"13 bytes, more than the limit of 10"});
    limits.maxBytes = 1000;
    limits.maxValues = 4;
    expectInputError([&] { json::parse("[1,2,3,4]", limits); }, {"byte 7", "more than 4 values"});
}

namespace {

/// {"k0": 0, "k1": 1, ...}: @p n keys in document order, distinct except key @p duplicateAt, which repeats
/// key @p duplicateOf.
std::string manyKeys(std::size_t n, std::size_t duplicateAt = std::size_t(-1), std::size_t duplicateOf = 0)
{
    std::string s = "{";
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t k = i == duplicateAt ? duplicateOf : i;
        s += (i ? ",\"k" : "\"k") + std::to_string(k) + "\":" + std::to_string(i);
    }
    return s + "}";
}

} // namespace

void TestReaders::jsonManyKeysCostLinearithmic()
{
    // Issue 38 item 3: comparing each key with every earlier one made n^2/2 comparisons (4.5e10 for a
    // 300,000-key object, minutes). The check now costs at most 2 n (log2 n + 1) comparisons, counted through
    // ParseStats rather than timed (a red-black tree's insert: at most 2 log2 n + 1 of them; 8.4e6 here).
    constexpr std::size_t n = 300000;
    const std::string text = manyKeys(n);
    json::ParseLimits limits;
    json::ParseStats stats;
    const json::Value v = json::parse(text, limits, &stats);
    QCOMPARE(v.members().size(), n);
    QCOMPARE(v.members().front().first, std::string("k0"));
    QCOMPARE(v.members().back().first, "k" + std::to_string(n - 1)); // document order kept
    QCOMPARE(v.members()[12345].second.integer(), std::optional<std::int64_t>(12345));
    QVERIFY2(stats.keyComparisons <= 2 * n * (std::size_t(std::log2(double(n))) + 1),
             std::to_string(stats.keyComparisons).c_str());
    QVERIFY(stats.keyComparisons >= n); // every key was checked
    // A small object is still compared key by key: 4 keys, 0 + 1 + 2 + 3 comparisons.
    json::ParseStats small;
    json::parse(R"({"a":1,"b":2,"c":3,"d":4})", limits, &small);
    QCOMPARE(small.keyComparisons, std::size_t(6));
}

void TestReaders::jsonDuplicateFoundAnywhere()
{
    // The duplicate is named at its own byte wherever it is: among the first few keys (compared one by one),
    // at the switch to the set, in the middle and at the very end of a large object, and of the first or the
    // last key; a nested object keeps its own keys apart from its parent's.
    constexpr std::size_t n = 20000;
    const std::vector<std::pair<std::size_t, std::size_t>> cases = {
        {1, 0}, {7, 3}, {8, 0}, {9, 8}, {n / 2, n / 2 - 1}, {n / 2, 0}, {n - 1, 0}, {n - 1, n - 2}, {n - 1, 17},
    };
    for (const auto& [at, of] : cases) {
        const std::string text = manyKeys(n, at, of);
        const std::string key = "\"k" + std::to_string(of) + "\":" + std::to_string(at);
        const std::size_t byte = text.find(key);
        QVERIFY(byte != std::string::npos);
        expectInputError(
            [&] { json::parse(text); },
            {"invalid JSON at byte " + std::to_string(byte) + ": duplicate key \"k" + std::to_string(of) + "\""});
    }
    // Only the first duplicate is named (the parse stops there), as before.
    std::string two = manyKeys(100, 50, 3);
    two.replace(two.find("\"k90\""), 5, "\"k4\"");
    expectInputError([&] { json::parse(two); }, {"duplicate key \"k3\""});
    // The same key in a member object and in its parent is no duplicate.
    const json::Value nested = json::parse(R"({"a":{"a":1,"b":2},"b":{"a":3}})");
    QCOMPARE(nested.find("b")->find("a")->integer(), std::optional<std::int64_t>(3));
}

void TestReaders::halfAndBfloat16AreExact()
{
    // IEEE 754 binary16: subnormals 2^-14 * f/1024, normals 2^(e-15) * (1 + f/1024).
    QCOMPARE(halfToDouble(0x0001), std::ldexp(1.0, -24));
    QCOMPARE(halfToDouble(0x03ff), 1023.0 * std::ldexp(1.0, -24)); // largest subnormal
    QCOMPARE(halfToDouble(0x0400), std::ldexp(1.0, -14));          // smallest normal
    QCOMPARE(halfToDouble(0x3c00), 1.0);
    QCOMPARE(halfToDouble(0x3555), 1365.0 / 4096.0); // e = 13, f = 341: (1024 + 341) / 1024 / 4
    QCOMPARE(halfToDouble(0x7bff), 65504.0);         // largest finite: (2 - 2^-10) * 2^15
    QCOMPARE(halfToDouble(0xc000), -2.0);
    QVERIFY(halfToDouble(0x8000) == 0.0 && std::signbit(halfToDouble(0x8000)));
    QVERIFY(std::isinf(halfToDouble(0x7c00)) && halfToDouble(0xfc00) < 0);
    QVERIFY(std::isnan(halfToDouble(0x7e00)));
    // bfloat16: sign, 8 exponent bits (bias 127), 7 fraction bits.
    QCOMPARE(bfloat16ToDouble(0x3f80), 1.0);
    QCOMPARE(bfloat16ToDouble(0xc2f7), -123.5);                       // -(1 + 119/128) * 2^(133-127)
    QCOMPARE(bfloat16ToDouble(0x0001), std::ldexp(1.0, -133));        // subnormal: 2^-126 / 128
    QCOMPARE(bfloat16ToDouble(0x7f7f), 255.0 * std::ldexp(1.0, 120)); // largest finite: (2 - 2^-7) * 2^127
    QCOMPARE(bfloat16ToDouble(0x4049), 3.140625);                     // (1 + 73/128) * 2
}

void TestReaders::npyFloat32VersionsAndOrder()
{
    const std::vector<float> values = {0.5f, -1.25f, 3.0e-3f, 1e30f, -0.0f, 7.0f};
    for (int major : {1, 2, 3}) {
        const TensorTable t = npyTable(npy(npyDict("<f4", "(3, 2)"), f32Bytes(values), major));
        QCOMPARE(t.values.rows(), Eigen::Index(3)); // rows = positions
        QCOMPARE(t.values.cols(), Eigen::Index(2)); // cols = dimensions
        QCOMPARE(t.type, ElementType::Float32);
        for (int i = 0; i < 6; ++i)
            QCOMPARE(t.values(i / 2, i % 2), double(values[std::size_t(i)])); // C order: row-major
    }
    // Double quotes, no trailing comma, keys in another order, a Python 2 long: all literal dicts numpy reads.
    const TensorTable t
        = npyTable(npy("{\"shape\": (1L, 2L), \"fortran_order\": False, \"descr\": \"<f4\"}", f32Bytes({1.0f, 2.0f})));
    QCOMPARE(t.values(0, 1), 2.0);
    // float64
    std::string data;
    for (double d : {0.1, -2.0}) {
        std::uint64_t w;
        std::memcpy(&w, &d, 8);
        data += le(w, 8);
    }
    const TensorTable f8 = npyTable(npy(npyDict("<f8", "(2, 1)"), data));
    QCOMPARE(f8.values(0, 0), 0.1);
    QCOMPARE(f8.values(1, 0), -2.0);
    QCOMPARE(f8.type, ElementType::Float64);
}

void TestReaders::npyFloat16Subnormals()
{
    const TensorTable t
        = npyTable(npy(npyDict("<f2", "(2, 3)"), u16Bytes({0x0001, 0x03ff, 0x7bff, 0x3c00, 0x8000, 0xbc00})));
    QCOMPARE(t.type, ElementType::Float16);
    QCOMPARE(t.values(0, 0), std::ldexp(1.0, -24));
    QCOMPARE(t.values(0, 1), 1023.0 * std::ldexp(1.0, -24));
    QCOMPARE(t.values(0, 2), 65504.0);
    QCOMPARE(t.values(1, 0), 1.0);
    QVERIFY(t.values(1, 1) == 0.0 && std::signbit(t.values(1, 1)));
    QCOMPARE(t.values(1, 2), -1.0);
    // Infinity and NaN are refused, naming the element and its bits.
    expectInputError(
        [] {
            npyTable(npy(npyDict("<f2", "(1, 2)"), u16Bytes({0x3c00, 0x7c00})), "inf.npy");
        },
        {"inf.npy: element [0, 1] is +infinity (float16 0x7c00)", "finite"});
    expectInputError([] { npyTable(npy(npyDict("<f4", "(1, 1)"), le(0x7fc00000, 4)), "nan.npy"); },
                     {"nan.npy: element [0, 0] is NaN (float32 0x7fc00000)"});
}

void TestReaders::npyBfloat16AsVoid2()
{
    // ml_dtypes' bfloat16 saved by np.save is '<V2' (jax-ml/ml_dtypes issue 41); jax.numpy.load reads 'V2' as
    // bfloat16. A plain numpy 2-byte void writes '|V2'; both are read the same way.
    for (const char* descr : {"<V2", "|V2"}) {
        const TensorTable t = npyTable(npy(npyDict(descr, "(2, 2)"), u16Bytes({0x3f80, 0xc2f7, 0x0001, 0x7f7f})));
        QCOMPARE(t.type, ElementType::BFloat16);
        QCOMPARE(t.values(0, 0), 1.0);
        QCOMPARE(t.values(0, 1), -123.5);
        QCOMPARE(t.values(1, 0), std::ldexp(1.0, -133));
        QCOMPARE(t.values(1, 1), 255.0 * std::ldexp(1.0, 120));
    }
}

void TestReaders::npyRefusals_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QStringList>("parts");
    auto row = [](const char* name, const std::string& bytes, QStringList parts) {
        QTest::newRow(name) << QByteArray::fromStdString(bytes) << parts;
    };
    const std::string f4x4 = f32Bytes({1, 2, 3, 4});
    row("big-endian", npy(npyDict(">f4", "(2, 2)"), f4x4),
        {"x.npy: dtype '>f4' (big-endian float32) is not supported", "little-endian float32 '<f4'"});
    row("fortran", npy(npyDict("<f4", "(2, 2)", true), f4x4), {"x.npy: Fortran (column-major) order", "C order"});
    row("int64", npy(npyDict("<i8", "(2, 1)"), f4x4), {"x.npy: dtype '<i8' (int64) is not supported"});
    row("complex", npy(npyDict("<c8", "(2, 1)"), f4x4), {"dtype '<c8' (complex64)"});
    // Found by tests/fuzz/fuzz_npy: a byte count whose bits overflowed int (UB). 913032773 * 8 = 7304262184.
    row("huge float size", npy(npyDict("<f913032773", "(2, 2)"), f4x4),
        {"x.npy: dtype '<f913032773' (float7304262184) is not supported"});
    row("float size past 2^64 bits", npy(npyDict("<f99999999999999999999", "(2, 2)"), f4x4),
        {"x.npy: dtype '<f99999999999999999999' (float99999999999999999999) is not supported"});
    row("object", npy(npyDict("|O", "(2, 1)"), f4x4), {"dtype '|O' (Python objects)"});
    row("void4", npy(npyDict("|V4", "(2, 2)"), f4x4), {"dtype '|V4' (4-byte raw void)"});
    row("structured", npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", f4x4),
        {"x.npy: malformed .npy header", "structured dtype"});
    row("3-D", npy(npyDict("<f4", "(1, 2, 2)"), f4x4), {"x.npy: shape (1, 2, 2) has 3 dimensions", "2-D"});
    row("1-D", npy(npyDict("<f4", "(4,)"), f4x4), {"x.npy: shape (4,) has 1 dimension;"});
    row("0-D", npy(npyDict("<f4", "()"), f4x4.substr(0, 4)), {"x.npy: shape () has 0 dimensions"});
    row("empty", npy(npyDict("<f4", "(0, 768)"), ""), {"x.npy: shape (0, 768) is empty"});
    // 2^40 elements: 4 TiB declared, 16 bytes present. Refused from the header, nothing allocated.
    row("2^40 elements", npy(npyDict("<f4", "(1048576, 1048576)"), f4x4),
        {"x.npy: shape (1048576, 1048576) of float32 needs 4398046511104 bytes of data, but the file holds 16"});
    row("shape overflow", npy(npyDict("<f4", "(4294967296, 4294967296)"), f4x4),
        {"x.npy: shape [4294967296, 4294967296] has more than 2^64 elements"});
    row("bytes overflow", npy(npyDict("<f8", "(2305843009213693952, 4)"), f4x4),
        {"needs more than 2^64 bytes of data"});
    row("huge dim", npy(npyDict("<f4", "(99999999999999999999, 1)"), f4x4), {"larger than 2^64"});
    row("truncated", npy(npyDict("<f4", "(2, 2)"), f4x4.substr(0, 10)),
        {"needs 16 bytes of data, but the file holds 10"});
    row("trailing bytes", npy(npyDict("<f4", "(1, 2)"), f4x4),
        {"holds 8 bytes after the 8 of data its header declares"});
    row("magic", "\x93NUMPX\x01\x00" + le(0, 2), {"x.npy: not an .npy file"});
    row("short", std::string("\x93NUM", 4), {"x.npy: not an .npy file"});
    row("version", std::string("\x93NUMPY\x04\x00", 8) + le(0, 2) + "{}", {"format version 4.0 is not one of"});
    row("header past end", std::string("\x93NUMPY\x01\x00", 8) + le(5000, 2) + "{'descr'",
        {"x.npy: the .npy header length 5000 runs past the end of the file (18 bytes)"});
    row("header past end v2", std::string("\x93NUMPY\x02\x00", 8) + le(0xffffffffu, 4) + "{",
        {"header length 4294967295 runs past the end"});
    row("header too long", npy(npyDict("<f4", "(1, 1)") + std::string(10000, ' '), f4x4.substr(0, 4)),
        {"more than numpy's own limit of 10000"});
    row("missing key", npy("{'descr': '<f4', 'shape': (1, 1), }", f4x4.substr(0, 4)),
        {"lacks the key 'fortran_order'"});
    row("extra key", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), 'x': 1}", f4x4.substr(0, 4)),
        {"unexpected key 'x'"});
    row("list shape", npy("{'descr': '<f4', 'fortran_order': False, 'shape': [1, 1]}", f4x4.substr(0, 4)),
        {"'shape' must be a tuple"});
    row("negative dim", npy(npyDict("<f4", "(-1, 1)"), f4x4), {"non-negative integers"});
    row("order word", npy("{'descr': '<f4', 'fortran_order': 0, 'shape': (1, 1)}", f4x4.substr(0, 4)),
        {"must be True or False"});
}

void TestReaders::npyRefusals()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QStringList, parts);
    std::vector<std::string> expected;
    for (const QString& p : parts)
        expected.push_back(p.toStdString());
    expectInputError([&] { npyTable(bytes.toStdString(), "x.npy"); }, expected);
}

void TestReaders::npyMemoryCap()
{
    // A well-formed table larger than the cap is refused (RefusedError, as every over-cap request) before the
    // data is read: 1000 x 1000 doubles are 7.6 MiB, over a 1 MiB cap.
    Limits small;
    small.maxBytes = std::size_t(1) << 20;
    const std::string bytes = npy(npyDict("<f2", "(1000, 1000)"), std::string(2000000, '\0'));
    try {
        npyTable(bytes, "big.npy", small);
        QFAIL("accepted");
    } catch (const RefusedError& e) {
        QVERIFY2(std::string(e.what()).find("big.npy: a 1000 x 1000 table would take 7.6 MiB") == 0, e.what());
    }
    QCOMPARE(npyTable(bytes, "big.npy").values.rows(), Eigen::Index(1000)); // under the default cap
}

void TestReaders::safetensorsSeveralTensors()
{
    const std::string file = fiveTensors();
    const SafetensorsHeader h = readSafetensorsHeader(*memorySource(file, "m.safetensors"));
    QCOMPARE(h.tensors.size(), std::size_t(5));
    QCOMPARE(h.tensors[0].name, std::string("emb")); // header order
    QCOMPARE(h.tensors[0].shape, (std::vector<std::uint64_t>{2, 3}));
    QCOMPARE(h.dataStart, std::uint64_t(file.size() - 68));

    const TensorTable wpe = stTable(file, "wpe.weight");
    QCOMPARE(wpe.source, std::string("m.safetensors: wpe.weight"));
    QCOMPARE(wpe.values.rows(), Eigen::Index(3));
    QCOMPARE(wpe.values.cols(), Eigen::Index(2));
    const float expected[] = {0.5f, -1.0f, 2.0f, 0.25f, -3.5f, 1e-3f};
    for (int i = 0; i < 6; ++i)
        QCOMPARE(wpe.values(i / 2, i % 2), double(expected[i]));

    const TensorTable h0 = stTable(file, "h.0.w");
    QCOMPARE(h0.type, ElementType::Float16);
    QCOMPARE(h0.values(0, 0), 1.0);
    QCOMPARE(h0.values(0, 1), -2.0);
    QCOMPARE(h0.values(1, 0), std::ldexp(1.0, -24));
    QCOMPARE(h0.values(1, 1), 65504.0);

    const TensorTable emb = stTable(file, "emb");
    QCOMPARE(emb.type, ElementType::BFloat16);
    const double bf[] = {1.0, -123.5, 0.0, -0.0, 3.140625, std::ldexp(1.0, -133)};
    for (int i = 0; i < 6; ++i)
        QCOMPARE(emb.values(i / 3, i % 3), bf[i]);
    QVERIFY(std::signbit(emb.values(1, 0)));
}

void TestReaders::safetensorsReferenceWriterBytes()
{
    // The bytes the reference writer produces in its own tests (huggingface/safetensors safetensors/src/tensor.rs,
    // test_serialization and test_empty): N = 64, the header, then float32 0..5.
    const std::string header = "{\"attn.0\":{\"dtype\":\"F32\",\"shape\":[1,2,3],\"data_offsets\":[0,24]}}";
    QCOMPARE(header.size(), std::size_t(64));
    const std::string file = le(64, 8) + header + f32Bytes({0, 1, 2, 3, 4, 5});
    const SafetensorsHeader h = readSafetensorsHeader(*memorySource(file, "ref.safetensors"));
    QCOMPARE(h.tensors.size(), std::size_t(1));
    QCOMPARE(h.tensors[0].name, std::string("attn.0"));
    QCOMPARE(h.tensors[0].dtype, std::string("F32"));
    QCOMPARE(h.tensors[0].shape, (std::vector<std::uint64_t>{1, 2, 3}));
    QCOMPARE(h.tensors[0].end, std::uint64_t(24));
    QCOMPARE(h.dataStart, std::uint64_t(72));
    expectInputError([&] { stTable(file, "attn.0", "ref.safetensors"); },
                     {"ref.safetensors: attn.0: shape [1, 2, 3] has 3 dimensions"});
    // test_empty: no tensors, the header "{}" padded with six spaces to 8 bytes.
    const std::string empty = le(8, 8) + "{}      ";
    QVERIFY(readSafetensorsHeader(*memorySource(empty, "e.safetensors")).tensors.empty());
    expectInputError([&] { stTable(empty, "", "e.safetensors"); },
                     {"e.safetensors: holds no 2-D tensor, and a position table is 2-D"});
}

void TestReaders::safetensorsChoosingATensor()
{
    const std::string file = fiveTensors();
    // A wrong name lists the 2-D tensors, the positional-looking one first, with shape and dtype.
    expectInputError([&] { stTable(file, "wpe"); },
                     {"m.safetensors: no tensor 'wpe'; its 2-D tensors: wpe.weight [3, 2] F32, emb [2, 3] BF16, "
                      "idx [2, 1] I64, h.0.w [2, 2] F16"});
    expectInputError([&] { stTable(file, ""); }, {"m.safetensors: choose a tensor (table_tensor); its 2-D tensors:"});
    expectInputError(
        [&] { stTable(file, "ln.bias"); },
        {"m.safetensors: ln.bias: shape [2] has 1 dimension; a position table is 2-D", "wpe.weight [3, 2]"});
    expectInputError([&] { stTable(file, "idx"); },
                     {"m.safetensors: idx: dtype I64 is not supported; PosLab reads F32, F16, BF16 and F64"});
    // With one 2-D float tensor the name may be left out.
    const std::string one = safetensors("{\"wpe.weight\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[0,8]},"
                                        "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
                                        f32Bytes({1.0f, 2.0f, 3.0f}));
    QCOMPARE(stTable(one, "").source, std::string("m.safetensors: wpe.weight"));
    // The memory cap applies to the chosen tensor.
    Limits tiny;
    tiny.maxBytes = 8;
    QVERIFY_THROWS_EXCEPTION(RefusedError, stTable(one, "wpe.weight", "m.safetensors", tiny));
}

void TestReaders::safetensorsMalformed_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QStringList>("parts");
    auto row = [](const char* name, const std::string& bytes, QStringList parts) {
        QTest::newRow(name) << QByteArray::fromStdString(bytes) << parts;
    };
    auto tensor = [](const std::string& name, const std::string& dtype, const std::string& shape, std::uint64_t b,
                     std::uint64_t e) {
        return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":["
            + std::to_string(b) + "," + std::to_string(e) + "]}";
    };
    const std::string d16(16, '\0');
    row("short", "abc", {"m.safetensors: not a .safetensors file (3 bytes"});
    row("header length past end", le(1000, 8) + "{}",
        {"m.safetensors: the header length 1000 runs past the end of the file (10 bytes"});
    row("header length 2^63", le(std::uint64_t(1) << 63, 8) + "{}",
        {"header length 9223372036854775808 runs past the end"});
    row("not an object start", safetensors("[1]", ""), {"the header does not begin with '{'"});
    row("bad JSON", safetensors("{\"a\":{\"dtype\" \"F32\"}}", ""),
        {"m.safetensors: header: invalid JSON at byte 14: ", "expected ':'"});
    row("deep nesting", safetensors("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}", ""),
        {"m.safetensors: header: invalid JSON at byte 12: arrays and objects nested more than 8 deep"});
    row("duplicate key",
        safetensors("{" + tensor("a", "F32", "[1,1]", 0, 4) + "," + tensor("a", "F32", "[1,1]", 4, 8) + "}",
                    std::string(8, '\0')),
        {"header: invalid JSON", "duplicate key \"a\""});
    row("offsets past end",
        safetensors("{" + tensor("a", "F32", "[2,2]", 0, 16) + "," + tensor("b", "F32", "[2,2]", 16, 32) + "}", d16),
        {"m.safetensors: tensor 'b': data_offsets [16, 32] run past the end of the file (the data section holds 16 "
         "bytes)"});
    row("overlapping",
        safetensors("{" + tensor("a", "F32", "[2,2]", 0, 16) + "," + tensor("b", "F32", "[1,2]", 8, 16) + "}", d16),
        {"tensor 'b': data_offsets [8, 16] overlap tensor 'a' (bytes 0 to 16)"});
    row("gap", safetensors("{" + tensor("a", "F32", "[1,2]", 8, 16) + "}", d16),
        {"tensor 'a': data_offsets [8, 16] leave a gap of 8 bytes", "no holes"});
    row("backwards", safetensors("{" + tensor("a", "F32", "[1,2]", 16, 8) + "}", d16),
        {"data_offsets [16, 8] run backwards"});
    row("size mismatch", safetensors("{" + tensor("a", "F32", "[2,3]", 0, 16) + "}", d16),
        {"tensor 'a': shape [2, 3] of F32 needs 24 bytes but data_offsets [0, 16] hold 16"});
    row("shape overflow", safetensors("{" + tensor("a", "F32", "[4294967296,4294967296]", 0, 16) + "}", d16),
        {"tensor 'a': shape [4294967296, 4294967296] has more than 2^64 elements"});
    row("bits overflow", safetensors("{" + tensor("a", "F64", "[4294967296,536870912]", 0, 16) + "}", d16),
        {"needs more than 2^64 bits"});
    // 2^40 elements: 4 TiB claimed by offsets that leave the file.
    row("2^40 elements", safetensors("{" + tensor("a", "F32", "[1048576,1048576]", 0, 4398046511104ULL) + "}", d16),
        {"data_offsets [0, 4398046511104] run past the end of the file"});
    row("unindexed tail", safetensors("{" + tensor("a", "F32", "[1,2]", 0, 8) + "}", d16),
        {"the data section holds 16 bytes but the tensors cover 8"});
    row("unknown dtype", safetensors("{" + tensor("a", "F12", "[2,2]", 0, 16) + "}", d16),
        {"tensor 'a' has the unknown dtype 'F12'"});
    row("negative offset", safetensors("{\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[-1,16]}}", d16),
        {"data_offsets BEGIN must be a non-negative integer"});
    row("fraction in shape", safetensors("{\"a\":{\"dtype\":\"F32\",\"shape\":[2.5,2],\"data_offsets\":[0,16]}}", d16),
        {"each shape entry must be a non-negative integer"});
    row("missing offsets", safetensors("{\"a\":{\"dtype\":\"F32\",\"shape\":[2,2]}}", d16),
        {"tensor 'a' lacks \"data_offsets\""});
    row("metadata not strings", safetensors("{\"__metadata__\":{\"n\":1}}", ""),
        {"__metadata__ entry 'n' must be a string"});
    row("top is array", safetensors("{}", "").replace(8, 2, "[]"), {"does not begin with '{'"});
}

void TestReaders::safetensorsMalformed()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QStringList, parts);
    std::vector<std::string> expected;
    for (const QString& p : parts)
        expected.push_back(p.toStdString());
    expectInputError([&] { stTable(bytes.toStdString(), "a"); }, expected);
}

void TestReaders::textParameterRoundTrips()
{
    const ParamSpec spec = textParam("table_file", "", 16, "a path");
    QCOMPARE(paramTypeName(ParamType::Text), std::string_view("text"));
    const ParamValue v = parseParamValue(spec, " my table.npy ");
    QCOMPARE(v.type, ParamType::Text);
    QCOMPARE(v.text, std::string(" my table.npy ")); // taken as given
    QCOMPARE(parseParamValue(spec, v.toString()), v);
    QVERIFY(checkValue(spec, v).empty());
    QVERIFY(checkValue(spec, ParamValue::textValue(std::string(16, 'a'))).empty());
    QVERIFY(checkValue(spec, ParamValue::textValue(std::string(17, 'a'))).find("17 bytes long; allowed: at most 16")
            != std::string::npos);
    QVERIFY(checkValue(spec, ParamValue::textValue("a\nb")).find("control character") != std::string::npos);
    QCOMPARE(defaultValue(spec), ParamValue::textValue(""));
}

void TestReaders::learnedReadsTheFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("wpe.npy").toStdString();
    // 4 positions x 3 dimensions of float16: the encoding is the file's rows, exactly.
    const std::vector<std::uint16_t> bits
        = {0x3c00, 0x0001, 0xc2f7, 0x3555, 0x7bff, 0x8000, 0x0400, 0xbc00, 0x03ff, 0x4000, 0x3800, 0x0000};
    writeFile(path, npy(npyDict("<f2", "(4, 3)"), u16Bytes(bits)));
    TableContext ctx;
    ctx.dim = 3;
    ctx.positions = PositionList::list({3, 0, 2});
    const ParamSet p = resolveParams(schemeOrThrow("learned"), {{"table_file", path}}, ctx);
    const MatrixF e = learnedEncoding(p, ctx);
    QCOMPARE(e.rows(), Eigen::Index(3));
    const int rows[] = {3, 0, 2};
    for (int r = 0; r < 3; ++r)
        for (int d = 0; d < 3; ++d) {
            const std::uint16_t b = bits[std::size_t(rows[r] * 3 + d)];
            const int ex = (b >> 10) & 31, f = b & 1023;
            const double mag = ex == 0 ? std::ldexp(double(f), -24) : std::ldexp(1.0 + f / 1024.0, ex - 15);
            QCOMPARE(double(e(r, d)), (b & 0x8000) ? -mag : mag);
        }
    // The same through a .safetensors tensor, chosen by name.
    const std::string st = dir.filePath("model.safetensors").toStdString();
    writeFile(st, fiveTensors());
    ctx.dim = 2;
    ctx.positions = PositionList::range(0, 3);
    const ParamSet q
        = resolveParams(schemeOrThrow("learned"), {{"table_file", st}, {"table_tensor", "wpe.weight"}}, ctx);
    const MatrixF w = learnedEncoding(q, ctx);
    QCOMPARE(w(2, 0), -3.5f);
    QCOMPARE(w(2, 1), 1e-3f);
    // Without a file the seeded table is unchanged (the default).
    const ParamSet seeded = resolveParams(schemeOrThrow("learned"), {}, ctx);
    QCOMPARE(seeded.text("table_file"), std::string());
    QVERIFY(learnedEncoding(seeded, ctx) == learnedBaseTable(3, 2, 0.02, 0));
}

void TestReaders::learnedHierarchicalExtendsTheFile()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.npy").toStdString();
    const std::vector<float> rows = {1.0f, 2.0f, -0.5f, 4.0f, 3.0f, 0.25f}; // n = 3 rows, d = 2
    writeFile(path, npy(npyDict("<f4", "(3, 2)"), f32Bytes(rows)));
    TableContext ctx;
    ctx.dim = 2;
    ctx.positions = PositionList::list({1, 5, 8});
    const ParamSet p = resolveParams(schemeOrThrow("learned"),
                                     {{"table_file", path}, {"hierarchical", "true"}, {"alpha", "0.4"}}, ctx);
    const MatrixF e = learnedEncoding(p, ctx);
    // Su 2020 (kexue.fm/archives/7947), 0-based: u_i = (p_i - a p_0)/(1 - a), q_(i n + j) = a u_i + (1 - a) u_j.
    auto q = [&](int pos, int d) {
        const double a = 0.4;
        const int i = pos / 3, j = pos % 3;
        const double p0 = rows[std::size_t(d)], pi = rows[std::size_t(i * 2 + d)], pj = rows[std::size_t(j * 2 + d)];
        const double ui = (pi - a * p0) / (1 - a), uj = (pj - a * p0) / (1 - a);
        return a * ui + (1 - a) * uj;
    };
    QCOMPARE(e(0, 0), rows[2]); // position 1 < n: the row itself
    QCOMPARE(e(0, 1), rows[3]);
    for (int r = 1; r < 3; ++r)
        for (int d = 0; d < 2; ++d)
            QVERIFY2(std::fabs(double(e(r, d)) - q(ctx.positions[std::size_t(r)], d)) < 1e-6,
                     (std::to_string(r) + "," + std::to_string(d)).c_str());
    ctx.positions = PositionList::list({9}); // n^2 = 9 is past the extension
    expectInputError(
        [&] {
            resolveParams(schemeOrThrow("learned"), {{"table_file", path}, {"hierarchical", "true"}}, ctx);
        },
        {"position 9 is beyond the hierarchical extension of the 3 rows of " + path, "n^2 = 9"});
}

void TestReaders::learnedRefusesWhatTheFileCannotGive()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.npy").toStdString();
    writeFile(path, npy(npyDict("<f4", "(3, 2)"), f32Bytes({1, 2, 3, 4, 5, 6})));
    TableContext ctx;
    ctx.dim = 4;
    ctx.positions = PositionList::range(0, 2);
    const SchemeDescriptor& s = schemeOrThrow("learned");
    expectInputError(
        [&] {
            resolveParams(s, {{"table_file", path}}, ctx);
        },
        {"dimension 4 differs from the table in " + path + ", which has 2 columns", "(--dim) to 2"});
    ctx.dim = 2;
    ctx.positions = PositionList::range(0, 4);
    expectInputError(
        [&] {
            resolveParams(s, {{"table_file", path}}, ctx);
        },
        {"position 3 is beyond the 3 rows of " + path, "hierarchical=true"});
    // The random table's knobs do not apply to a file's table: setting one is refused, not ignored.
    expectInputError(
        [&] {
            resolveParams(s, {{"table_file", path}, {"seed", "3"}}, ctx);
        },
        {"parameter seed applies only when table_file is empty (now table_file is " + path + ")"});
    const std::string missing = dir.filePath("none.npy").toStdString();
    expectInputError([&] { resolveParams(s, {{"table_file", missing}}, ctx); }, {missing + ": cannot open"});
    expectInputError([&] { resolveParams(s, {{"table_file", dir.path().toStdString()}}, ctx); }, {"is a folder"});
    const std::string bad = dir.filePath("bad.npy").toStdString();
    writeFile(bad, npy(npyDict(">f4", "(3, 2)"), f32Bytes({1, 2, 3, 4, 5, 6})));
    expectInputError(
        [&] {
            resolveParams(s, {{"table_file", bad}}, ctx);
        },
        {bad + ": dtype '>f4' (big-endian float32)"});
}

void TestReaders::cacheReadsOnceAndNoticesChanges()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("c.npy").toStdString();
    writeFile(path, npy(npyDict("<f4", "(2, 2)"), f32Bytes({1, 2, 3, 4})));
    const long long before = positionTableReads();
    const auto a = loadPositionTable(path, "");
    const auto b = loadPositionTable(path, "ignored for npy");
    QCOMPARE(positionTableReads(), before + 1); // mapped once
    QVERIFY(a == b);
    QCOMPARE(a->readRows(1, 1)(0, 0), 3.0f);
    // A changed file (new contents, a later modification time) is mapped again. Saved as np.save and editors do,
    // to a new file moved over the old one: a table already handed out keeps the old file's mapping.
    writeFile(path + ".new", npy(npyDict("<f4", "(2, 2)"), f32Bytes({5, 6, 7, 8})));
    std::filesystem::rename(path + ".new", path);
    std::filesystem::last_write_time(path, std::filesystem::last_write_time(path) + std::chrono::seconds(5));
    const auto c = loadPositionTable(path, "");
    QCOMPARE(positionTableReads(), before + 2);
    QCOMPARE(c->readRows(1, 1)(0, 0), 7.0f);
    QCOMPARE(a->readRows(1, 1)(0, 0), 3.0f); // a table already handed out stays as it was
    // A file cut short under a mapping is refused when a row past its new end is read, not a SIGBUS.
    writeFile(path, npy(npyDict("<f4", "(2, 2)"), f32Bytes({5, 6})).substr(0, 64));
    expectInputError([&] { c->readRows(0, 2); }, {path + ": the file is shorter than when it was opened"});
}

namespace {

/// An .npy file at @p path whose header declares @p rows x @p cols float32 and whose length matches, made by
/// ftruncate (a sparse file: it costs no disk, and reads as zeros), with @p values written at row @p at.
void sparseNpy(const std::string& path, std::uint64_t rows, std::uint64_t cols, std::uint64_t at = 0,
               const std::vector<float>& values = {})
{
    const std::string head
        = npy(npyDict("<f4", "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")"), std::string());
    writeFile(path, head);
    std::filesystem::resize_file(path, head.size() + rows * cols * 4);
    if (!values.empty()) {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(std::streamoff(head.size() + at * cols * 4));
        const std::string bytes = f32Bytes(values);
        f.write(bytes.data(), std::streamsize(bytes.size()));
    }
}

} // namespace

void TestReaders::tableShapeJudgedBeforeItsData()
{
    // Issue 38 item 5: vit_learned read a whole 512 MB file before refusing its shape. A header declaring a
    // 1,000,000 x 4096 float32 table (16 GB, sparse) is refused by its shape alone: before, the whole table was
    // checked against the 2 GiB cap and refused as too large, naming no shape.
    QTemporaryDir dir;
    const std::string path = dir.filePath("huge.npy").toStdString();
    sparseNpy(path, 1000000, 4096);
    SpatialContext ctx;
    ctx.dim = 768;
    ctx.grid = Grid{14, 14};
    const ParamSet p = resolveParams(findSpatialScheme("vit_learned")->info, {{"table_file", path}}, TableContext{});
    expectInputError([&] { vitLearnedEncoding(p, ctx); },
                     {"vit_learned: " + path + " holds 1000000 x 4096", "needs 197 x 768"});
    // The learned scheme: the width is judged from the header.
    TableContext t;
    t.dim = 768;
    t.positions = PositionList::range(0, 4);
    expectInputError(
        [&] {
            resolveParams(schemeOrThrow("learned"), {{"table_file", path}}, t);
        },
        {"dimension 768 differs from the table in " + path + ", which has 4096 columns"});
    // A header whose shape the file is too short to hold is refused as before, before any row is read.
    const std::string cut = dir.filePath("cut.npy").toStdString();
    sparseNpy(cut, 1000000, 4096);
    std::filesystem::resize_file(cut, 1 << 20);
    t.dim = 4096;
    expectInputError(
        [&] {
            resolveParams(schemeOrThrow("learned"), {{"table_file", cut}}, t);
        },
        {cut + ": shape (1000000, 4096) of float32 needs 16384000000 bytes of data"});
}

void TestReaders::onlyTheRowsAskedAreRead()
{
    // The same 16 GB table, far over the 2 GiB cap, serves the rows asked: they are read from the mapping, the
    // rest of the file never is (before: refused as a 15.3 GiB table, or read whole when under the cap).
    QTemporaryDir dir;
    const std::string path = dir.filePath("huge.npy").toStdString();
    std::vector<float> row(4096);
    for (std::size_t i = 0; i < row.size(); ++i)
        row[i] = float(i) * 0.5f - 7.0f;
    sparseNpy(path, 1000000, 4096, 999998, row);
    TableContext ctx;
    ctx.dim = 4096;
    ctx.positions = PositionList::list({999998, 3, 999999});
    ctx.limits.maxBytes = std::size_t(1) << 20; // 1 MiB: three rows and the result fit
    const ParamSet p = resolveParams(schemeOrThrow("learned"), {{"table_file", path}}, ctx);
    const MatrixF e = learnedEncoding(p, ctx);
    QCOMPARE(e.rows(), Eigen::Index(3));
    for (int d : {0, 1, 4095})
        QCOMPARE(e(0, d), float(d) * 0.5f - 7.0f);
    QCOMPARE(e.row(1).cwiseAbs().maxCoeff(), 0.0f); // never written: the sparse file's zeros
    QCOMPARE(e.row(2).cwiseAbs().maxCoeff(), 0.0f);
    const auto table = loadPositionTable(path, "");
    QCOMPARE(table->rows, 1000000LL);
    QCOMPARE(table->cols, 4096LL);
    QCOMPARE(table->rowBytes(), std::uint64_t(4096 * 4));
}

void TestReaders::rowsReadEqualTheWholeRead()
{
    // Row by row from the mapping equals the whole table decoded at once, for every stored type: float16 and
    // bfloat16 bit patterns of all kinds (subnormals, the largest, negative zero), float32, and float64 rounded.
    QTemporaryDir dir;
    constexpr int rows = 300, cols = 7;
    std::vector<std::uint16_t> halves, bf;
    std::vector<float> singles;
    std::string doubles;
    SeededRandom rng(38);
    for (int i = 0; i < rows * cols; ++i) {
        std::uint16_t h = std::uint16_t(rng.nextBits() & 0xffff);
        if (((h >> 10) & 31) == 31)
            h &= 0xfbff; // finite: exponent 30 at most
        halves.push_back(h);
        std::uint16_t b = std::uint16_t(rng.nextBits() & 0xffff);
        if (((b >> 7) & 255) == 255)
            b &= 0xff7f;
        bf.push_back(b);
        singles.push_back(float(rng.normal() * 100.0));
        const double d = rng.normal() * 1e-3;
        std::uint64_t w;
        std::memcpy(&w, &d, 8);
        doubles += le(w, 8);
    }
    const std::string shape = "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
    const std::vector<std::pair<std::string, std::string>> files = {
        {"h.npy", npy(npyDict("<f2", shape), u16Bytes(halves))},
        {"b.npy", npy(npyDict("<V2", shape), u16Bytes(bf))},
        {"s.npy", npy(npyDict("<f4", shape), f32Bytes(singles))},
        {"d.npy", npy(npyDict("<f8", shape), doubles)},
    };
    const PositionList asked = PositionList::list({299, 0, 17, 150, 150, 298, 1});
    for (const auto& [name, bytes] : files) {
        const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
        writeFile(path, bytes);
        const TensorTable whole = npyTable(bytes, path);
        TableContext ctx;
        ctx.dim = cols;
        ctx.positions = asked;
        const MatrixF e = learnedEncoding(resolveParams(schemeOrThrow("learned"), {{"table_file", path}}, ctx), ctx);
        for (std::size_t r = 0; r < asked.size(); ++r)
            for (int c = 0; c < cols; ++c)
                QCOMPARE(e(Eigen::Index(r), c), float(whole.values(Eigen::Index(asked[r]), c)));
    }
    // A .safetensors tensor the same way (its rows at the tensor's offset in the byte buffer).
    const std::string st = dir.filePath("m.safetensors").toStdString();
    writeFile(st, fiveTensors());
    const TensorTable whole = stTable(fiveTensors(), "wpe.weight");
    const auto table = loadPositionTable(st, "wpe.weight");
    QVERIFY(table->readRows(0, 3) == whole.values.cast<float>());
}

void TestReaders::rowsCountedAgainstTheMemoryCap()
{
    // Issue 38 item 5: `--max-memory 1MiB` with a table file exited 0 at 805 MB resident. What reading the rows
    // makes resident (whole 4 KiB pages of the mapping, capped at the table's own size) and the result are
    // checked against the request's cap before a row is read, through compute() as `poslab compute` runs it.
    QTemporaryDir dir;
    const std::string path = dir.filePath("tall.npy").toStdString();
    sparseNpy(path, 5000, 2); // 40 KB: rows of 8 bytes
    ComputeRequest r;
    r.scheme = "learned";
    r.overrides = {{"table_file", path}};
    r.context.dim = 2;
    r.context.positions = PositionList::parse("0:5000:1000"); // 5 rows, each on its own page
    Limits small;
    small.maxBytes = 16 << 10;
    try {
        compute(r, small);
        QFAIL("accepted");
    } catch (const RefusedError& e) {
        // A page for each row, 5 x 4 KiB = 20 KiB, and 5 x 2 x 12 bytes of result.
        QVERIFY2(std::string(e.what()).find("reading 5 of the 5000 rows of " + path + " (20.0 KiB of the file mapped)")
                     != std::string::npos,
                 e.what());
        QVERIFY2(std::string(e.what()).find("more than the memory cap of 16.0 KiB") != std::string::npos, e.what());
    }
    Limits enough;
    enough.maxBytes = 64 << 10;
    QCOMPARE(compute(r, enough).shape, (std::vector<std::size_t>{5, 2}));
    // The whole table's pages bound the estimate: all 5000 rows cost its 40 KB and two pages, not 5000 pages.
    r.context.positions = PositionList::range(0, 5000);
    Limits tableSize;
    tableSize.maxBytes = 40000 + 8192 + 5000 * 2 * 12;
    QCOMPARE(compute(r, tableSize).shape, (std::vector<std::size_t>{5000, 2}));
    tableSize.maxBytes -= 1;
    QVERIFY_THROWS_EXCEPTION(RefusedError, compute(r, tableSize));
}

QTEST_APPLESS_MAIN(TestReaders)
#include "tst_readers.moc"
