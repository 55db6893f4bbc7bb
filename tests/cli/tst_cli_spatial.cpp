// SPDX-License-Identifier: MIT
// `poslab compute` for the grid and sequence schemes: the command-line contract
// (--grid HxW, --sequence text:N,image:TxHxW,video:TxHxW, --cls), the shapes, a few values from the cited code
// (facebookresearch/mae util/pos_embed.py; huggingface/transformers modeling_qwen2_vl.py get_rope_index and
// apply_multimodal_rotary_pos_emb), and one clear message for each bad input, refused before any work.
#include "tests/cli/clirun.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <QMap>

#include <algorithm>
#include <cmath>

using poslab::test::Run;
using poslab::test::run;

class TestCliSpatial : public QObject {
    Q_OBJECT
private slots:
    void sincosEncodingWithClassToken();
    void vitTableAtANewGrid();
    void vitTableFromAFile();
    void rope2dAnglesAndScores();
    void mropePositionIds();
    void mropeAnglesFollowTheSections();
    void mropeScoresAreCausal();
    void mropeTimeIdsAndDimension();
    void schemesListsGridAndSequence();
    void qwenVlConfigs();
    void badInput_data();
    void badInput();
};

namespace {

QJsonArray shape(const Run& r)
{
    return r.json().value(QStringLiteral("shape")).toArray();
}

double value(const Run& r, int index)
{
    return r.json().value(QStringLiteral("data")).toArray()[index].toDouble(std::nan(""));
}

} // namespace

void TestCliSpatial::sincosEncodingWithClassToken()
{
    const Run r = run({"compute", "encoding", "--scheme", "sincos_2d", "--grid", "2x3", "--dim", "8", "--cls"});
    QVERIFY2(r.status == 0, r.err.c_str());
    QCOMPARE(shape(r), QJsonArray({7, 8}));
    for (int k = 0; k < 8; ++k)
        QCOMPARE(value(r, k), 0.0); // the class row of zeros
    // Patch (1, 2) is row 1 + 1*3 + 2 = 6: first half sin/cos of the column 2, second half of the row 1
    // (omega_0 = 1, omega_1 = 1/100 for D/4 = 2).
    QVERIFY(std::fabs(value(r, 6 * 8 + 0) - std::sin(2.0)) < 1e-6);
    QVERIFY(std::fabs(value(r, 6 * 8 + 1) - std::sin(0.02)) < 1e-6);
    QVERIFY(std::fabs(value(r, 6 * 8 + 2) - std::cos(2.0)) < 1e-6);
    QVERIFY(std::fabs(value(r, 6 * 8 + 4) - std::sin(1.0)) < 1e-6);
    QCOMPARE(r.json().value(QStringLiteral("grid")).toString(), QStringLiteral("2x3"));
    // Without --cls: H*W rows.
    QCOMPARE(shape(run({"compute", "encoding", "--scheme", "sincos_2d", "--grid", "2x3", "--dim", "8"})),
             QJsonArray({6, 8}));
}

void TestCliSpatial::vitTableAtANewGrid()
{
    const Run same = run({"compute", "encoding", "--scheme", "vit_learned", "--grid", "14x14", "--dim", "4", "--cls"});
    QVERIFY2(same.status == 0, same.err.c_str());
    QCOMPARE(shape(same), QJsonArray({197, 4}));
    const Run big = run({"compute", "encoding", "--scheme", "vit_learned", "--grid", "24x24", "--dim", "4", "--cls"});
    QVERIFY2(big.status == 0, big.err.c_str());
    QCOMPARE(shape(big), QJsonArray({577, 4}));
    for (int k = 0; k < 4; ++k)
        QCOMPARE(value(big, k), value(same, k)); // the class row is kept
    const Run plain = run({"compute", "encoding", "--scheme", "vit_learned", "--grid", "24x24", "--dim", "4", "--set",
                           "antialias=false", "--set", "interpolation=bilinear"});
    QVERIFY2(plain.status == 0, plain.err.c_str());
    QCOMPARE(plain.json().value(QStringLiteral("params")).toObject().value(QStringLiteral("interpolation")).toString(),
             QStringLiteral("bilinear"));
}

void TestCliSpatial::vitTableFromAFile()
{
    // A table written as .npy (here MAE's 3 x 4 sin-cos table with its class row) read back as a "trained"
    // ViT table: at its own grid it is the file, bit for bit; at 6 x 8 the grid part is resized.
    QTemporaryDir dir;
    const std::string npy = dir.filePath("pos_embed.npy").toStdString();
    const Run w
        = run({"compute", "encoding", "--scheme", "sincos_2d", "--grid", "3x4", "--dim", "8", "--cls", "-o", npy});
    QVERIFY2(w.status == 0, w.err.c_str());
    const std::vector<std::string> load
        = {"compute", "encoding",          "--scheme", "vit_learned",  "--dim", "8",           "--cls",
           "--set",   "table_file=" + npy, "--set",    "table_rows=3", "--set", "table_cols=4"};
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> a = load;
        a.insert(a.end(), more.begin(), more.end());
        return run(a);
    };
    const Run same = with({"--grid", "3x4"});
    QVERIFY2(same.status == 0, same.err.c_str());
    const Run ref = run({"compute", "encoding", "--scheme", "sincos_2d", "--grid", "3x4", "--dim", "8", "--cls"});
    QCOMPARE(same.json().value("data").toArray(), ref.json().value("data").toArray());
    const Run big = with({"--grid", "6x8"});
    QVERIFY2(big.status == 0, big.err.c_str());
    QCOMPARE(shape(big), QJsonArray({49, 8}));
    QCOMPARE(value(big, 0), 0.0); // the class row, kept
    const Run wrong = run({"compute", "encoding", "--scheme", "vit_learned", "--dim", "8", "--set", "table_file=" + npy,
                           "--set", "table_rows=3", "--set", "table_cols=5", "--grid", "6x8"});
    QCOMPARE(wrong.status, 2);
    QVERIFY2(wrong.err.find("holds 13 x 8") != std::string::npos, wrong.err.c_str());
}

void TestCliSpatial::rope2dAnglesAndScores()
{
    const Run a = run({"compute", "angles", "--scheme", "rope_2d", "--grid", "2x3", "--dim", "8"});
    QVERIFY2(a.status == 0, a.err.c_str());
    QCOMPARE(shape(a), QJsonArray({6, 4}));
    // Patch (1, 2) = token 5: pairs 0, 1 turn with x = 2 (m = 1, 100^-0.5), pairs 2, 3 with y = 1.
    QCOMPARE(value(a, 5 * 4 + 0), 2.0);
    QVERIFY(std::fabs(value(a, 5 * 4 + 1) - 0.2) < 1e-12);
    QCOMPARE(value(a, 5 * 4 + 2), 1.0);
    const QJsonArray labels = a.json().value(QStringLiteral("column_labels")).toArray();
    QCOMPARE(labels.size(), 4);
    QVERIFY(labels[0].toString().contains(QStringLiteral("column j")));
    QVERIFY(labels[2].toString().contains(QStringLiteral("row i")));
    const Run s
        = run({"compute", "scores", "--scheme", "rope_2d", "--grid", "3x3", "--dim", "8", "--content", "constant"});
    QVERIFY2(s.status == 0, s.err.c_str());
    QCOMPARE(shape(s), QJsonArray({9, 9}));
    QCOMPARE(s.json().value(QStringLiteral("mask")).toString(), QStringLiteral("bidirectional"));
    QVERIFY(std::fabs(value(s, 0) - 8.0 / std::sqrt(8.0)) < 1e-5); // q = k = 1, offset 0
    QVERIFY(!std::isnan(value(s, 0 * 9 + 8)));                     // a key after the query is visible
    const Run mixed = run({"compute", "angles", "--scheme", "rope_2d", "--grid", "2x2", "--dim", "8", "--set",
                           "variant=mixed", "--set", "seed=5"});
    QVERIFY2(mixed.status == 0, mixed.err.c_str());
    QCOMPARE(mixed.json().value(QStringLiteral("params")).toObject().value(QStringLiteral("rope_theta")).toDouble(),
             10.0);
}

void TestCliSpatial::mropePositionIds()
{
    const Run r = run({"compute", "position_ids", "--scheme", "mrope", "--dim", "16", "--set", "mrope_section=2,3,3",
                       "--sequence", "text:2,image:1x2x3,text:2"});
    QVERIFY2(r.status == 0, r.err.c_str());
    QCOMPARE(shape(r), QJsonArray({3, 10}));
    const double t[] = {0, 1, 2, 2, 2, 2, 2, 2, 5, 6};
    const double h[] = {0, 1, 2, 2, 2, 3, 3, 3, 5, 6};
    const double w[] = {0, 1, 2, 3, 4, 2, 3, 4, 5, 6};
    for (int n = 0; n < 10; ++n) {
        QCOMPARE(value(r, n), t[n]);
        QCOMPARE(value(r, 10 + n), h[n]);
        QCOMPARE(value(r, 20 + n), w[n]);
    }
    // Qwen2.5-VL's time-aligned ids: video frames at 0, 2, 4 (tokens_per_second 2, 1 s per grid step).
    const Run v = run({"compute", "position_ids", "--scheme", "mrope", "--dim", "128", "--set", "variant=qwen2_5_vl",
                       "--sequence", "video:3x1x1"});
    QVERIFY2(v.status == 0, v.err.c_str());
    QCOMPARE(value(v, 0), 0.0);
    QCOMPARE(value(v, 1), 2.0);
    QCOMPARE(value(v, 2), 4.0);
}

void TestCliSpatial::mropeAnglesFollowTheSections()
{
    // Qwen2-VL's [16, 24, 24] at d = 128: the image token (t, h, w) = (2, 3, 4) after text:2 (ids 2 + (0, 1, 2)).
    const Run r = run({"compute", "angles", "--scheme", "mrope", "--dim", "128", "--sequence", "text:2,image:1x2x3"});
    QVERIFY2(r.status == 0, r.err.c_str());
    QCOMPARE(shape(r), QJsonArray({8, 64}));
    const int token = 2 + 5; // row 1, column 2 of the image
    auto omega = [](int k) { return std::pow(1000000.0, -2.0 * k / 128.0); };
    QCOMPARE(value(r, token * 64 + 0), 2.0);                                 // pair 0: t = 2
    QVERIFY(std::fabs(value(r, token * 64 + 16) - 3.0 * omega(16)) < 1e-12); // pair 16: h = 3
    QVERIFY(std::fabs(value(r, token * 64 + 40) - 4.0 * omega(40)) < 1e-12); // pair 40: w = 4
    const QJsonArray labels = r.json().value(QStringLiteral("column_labels")).toArray();
    QVERIFY(labels[15].toString().contains(QStringLiteral(": t id")));
    QVERIFY(labels[16].toString().contains(QStringLiteral(": h id")));
    QVERIFY(labels[40].toString().contains(QStringLiteral(": w id")));
    // Qwen3-VL's interleaved sections: pair 1 follows h, pair 2 w.
    const Run q3 = run({"compute", "angles", "--scheme", "mrope", "--dim", "128", "--set", "variant=qwen3_vl",
                        "--sequence", "text:2,image:1x2x3"});
    QVERIFY2(q3.status == 0, q3.err.c_str());
    QVERIFY(std::fabs(value(q3, token * 64 + 1) - 3.0 * omega(1)) < 1e-12);
    QVERIFY(std::fabs(value(q3, token * 64 + 2) - 4.0 * omega(2)) < 1e-12);
}

void TestCliSpatial::mropeTimeIdsAndDimension()
{
    // Issue 38 item 6: transformers' float32 time ids (modeling_qwen2_5_vl.py get_rope_index /
    // get_vision_position_ids: float32 second_per_grid_ts, .long()): 3 fps (0.6666666666666666 s per step) gives
    // frames 0..6 the ids 0, 1, 2, 4, 5, 6, 8 (exact arithmetic floored 3.9999999999999996 to 3).
    const std::vector<std::string> third
        = {"compute",    "position_ids", "--scheme",           "mrope", "--dim",
           "128",        "--set",        "variant=qwen2_5_vl", "--set", "second_per_grid=0.6666666666666666",
           "--sequence", "video:64x1x1"};
    const Run r = run(third);
    QVERIFY2(r.status == 0, r.err.c_str());
    const double t[] = {0, 1, 2, 4, 5, 6, 8};
    for (int f = 0; f < 7; ++f)
        QCOMPARE(value(r, f), t[f]);
    QCOMPARE(value(r, 63), 84.0);
    QCOMPARE(r.json().value("params").toObject().value("time_ids").toString(), QStringLiteral("float_interval"));
    // The versions that cast second_per_grid_t to int64 first: 0.67 s becomes 0 and every frame shares id 0.
    std::vector<std::string> cast = third;
    cast.insert(cast.end(), {"--set", "time_ids=integer_seconds"});
    const Run c = run(cast);
    QVERIFY2(c.status == 0, c.err.c_str());
    QCOMPARE(value(c, 63), 0.0);
    const Run bad = run({"compute", "position_ids", "--scheme", "mrope", "--set", "time_ids=float_interval",
                         "--sequence", "video:2x1x1"});
    QCOMPARE(bad.status, 2);
    QVERIFY2(bad.err.find("time_ids") != std::string::npos, bad.err.c_str()); // qwen2_5_vl only
    // Issue 38 item 9: no --dim takes mrope's own dimension 128, which its default sections fit (it failed on 64).
    const Run ids = run({"compute", "position_ids", "--scheme", "mrope", "--sequence", "text:4"});
    QVERIFY2(ids.status == 0, ids.err.c_str());
    QCOMPARE(shape(ids), QJsonArray({3, 4}));
    const Run angles = run({"compute", "angles", "--scheme", "mrope", "--sequence", "text:2"});
    QVERIFY2(angles.status == 0, angles.err.c_str());
    QCOMPARE(shape(angles), QJsonArray({2, 64})); // 128 / 2 pairs
    // An explicit --dim still wins, and a wrong one says what to do.
    const Run d64 = run({"compute", "angles", "--scheme", "mrope", "--dim", "64", "--sequence", "text:2"});
    QCOMPARE(d64.status, 2);
    QVERIFY2(d64.err.find("sections must sum to d/2") != std::string::npos, d64.err.c_str());
}

void TestCliSpatial::mropeScoresAreCausal()
{
    const Run s = run({"compute", "scores", "--scheme", "mrope", "--dim", "16", "--set", "mrope_section=2,3,3",
                       "--sequence", "text:2,image:1x2x2", "--softmax"});
    QVERIFY2(s.status == 0, s.err.c_str());
    QCOMPARE(shape(s), QJsonArray({6, 6}));
    QCOMPARE(s.json().value(QStringLiteral("mask")).toString(), QStringLiteral("causal"));
    QVERIFY(s.json().value(QStringLiteral("data")).toArray()[1].isNull()); // key 1 after query 0: masked
    double sum = 0;
    for (int n = 0; n < 6; ++n)
        sum += value(s, 5 * 6 + n);
    QVERIFY(std::fabs(sum - 1.0) < 1e-6);
}

void TestCliSpatial::schemesListsGridAndSequence()
{
    const Run r = run({"schemes", "--json"});
    QVERIFY2(r.status == 0, r.err.c_str());
    const QJsonArray all = QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).array();
    QMap<QString, QString> input;
    for (const auto& v : all)
        input[v.toObject().value(QStringLiteral("id")).toString()]
            = v.toObject().value(QStringLiteral("input")).toString();
    QCOMPARE(input.value(QStringLiteral("sincos_2d")), QStringLiteral("grid"));
    QCOMPARE(input.value(QStringLiteral("vit_learned")), QStringLiteral("grid"));
    QCOMPARE(input.value(QStringLiteral("rope_2d")), QStringLiteral("grid"));
    QCOMPARE(input.value(QStringLiteral("pixtral_rope")), QStringLiteral("grid"));
    QCOMPARE(input.value(QStringLiteral("mrope")), QStringLiteral("sequence"));
    QCOMPARE(input.value(QStringLiteral("rope")), QString()); // 1-D schemes: positions, no "input" key
    const Run text = run({"schemes"});
    QVERIFY(text.out.find("mrope  Multimodal RoPE") != std::string::npos);
    QVERIFY(text.out.find("input: sequence") != std::string::npos);
}

namespace {
std::string writeConfig(const QTemporaryDir& dir, const char* name, const char* text)
{
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", name);
    f.write(text);
    return path.toStdString();
}
} // namespace

void TestCliSpatial::qwenVlConfigs()
{
    // The key layouts of the Qwen2-VL, Qwen2.5-VL and Qwen3-VL config.json files (flat with rope_scaling {"type":
    // "mrope", "mrope_section"}; vision_config.tokens_per_second; nested text_config with "mrope_interleaved"), as
    // modeling_qwen2_vl.py, modeling_qwen2_5_vl.py and modeling_qwen3_vl.py read them; the numbers are test values
    // (Qwen2-VL-7B's 3584 / 28 heads and [16, 24, 24] aside), not claims about a released file.
    QTemporaryDir dir;
    const std::string q2 = writeConfig(dir, "qwen2vl.json", R"({"model_type": "qwen2_vl", "hidden_size": 3584,
        "num_attention_heads": 28, "num_hidden_layers": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}, "sliding_window": 32768,
        "use_sliding_window": false, "vocab_size": 152064,
        "vision_config": {"depth": 32, "spatial_merge_size": 2, "temporal_patch_size": 2}})");
    const Run report = run({"presets", "--config", q2, "--json"});
    QVERIFY2(report.status == 0, report.err.c_str());
    const QJsonObject rj = QJsonDocument::fromJson(QByteArray::fromStdString(report.out)).object();
    const QJsonObject state = rj.value("state").toObject();
    QCOMPARE(state.value("scheme").toString(), QStringLiteral("mrope"));
    QCOMPARE(state.value("dim").toInt(), 128); // 3584 / 28
    QCOMPARE(state.value("params").toObject().value("variant").toString(), QStringLiteral("qwen2_vl"));
    QCOMPARE(state.value("params").toObject().value("mrope_section").toString(), QStringLiteral("16,24,24"));
    const QJsonArray used = rj.value("used").toArray();
    for (const char* k : {"rope_scaling.mrope_section", "rope_scaling.type", "rope_theta", "model_type",
                          "vision_config.spatial_merge_size"})
        QVERIFY2(used.contains(QJsonValue(QLatin1String(k))), k);
    QVERIFY(rj.value("ignored").toArray().contains(QJsonValue("vocab_size")));
    const Run ids = run({"compute", "position_ids", "--config", q2, "--sequence", "text:2,image:1x2x3,text:2"});
    QVERIFY2(ids.status == 0, ids.err.c_str());
    QCOMPARE(shape(ids), QJsonArray({3, 10}));
    QCOMPARE(value(ids, 8), 5.0);

    const std::string q25 = writeConfig(dir, "qwen25vl.json", R"({"model_type": "qwen2_5_vl", "hidden_size": 3584,
        "num_attention_heads": 28, "rope_theta": 1000000.0, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "vision_config": {"tokens_per_second": 4, "spatial_merge_size": 2}})");
    const Run v = run({"compute", "position_ids", "--config", q25, "--sequence", "video:3x1x1"});
    QVERIFY2(v.status == 0, v.err.c_str());
    QCOMPARE(value(v, 1), 4.0); // 1 * second_per_grid 1 * tokens_per_second 4
    QCOMPARE(value(v, 2), 8.0);

    const std::string q3 = writeConfig(dir, "qwen3vl.json", R"({"model_type": "qwen3_vl",
        "text_config": {"model_type": "qwen3_vl_text", "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32,
        "rope_theta": 5000000, "rope_scaling": {"mrope_interleaved": true, "mrope_section": [24, 20, 20], "rope_type": "default"}},
        "vision_config": {"spatial_merge_size": 2}})");
    const Run a = run({"compute", "angles", "--config", q3, "--sequence", "text:2,image:1x2x3"});
    QVERIFY2(a.status == 0, a.err.c_str());
    const QJsonObject params = a.json().value("params").toObject();
    QCOMPARE(params.value("sections").toString(), QStringLiteral("interleaved"));
    QCOMPARE(params.value("rope_theta").toDouble(), 5000000.0);
    // Token 7 = image (row 1, column 2): pair 1 follows h = 2 + 1 = 3.
    QVERIFY(std::fabs(value(a, 7 * 64 + 1) - 3.0 * std::pow(5000000.0, -2.0 / 128.0)) < 1e-12);
    // A scaling type M-RoPE does not have is refused in one line.
    const std::string bad = writeConfig(dir, "bad.json", R"({"model_type": "qwen2_vl", "hidden_size": 3584,
        "num_attention_heads": 28, "rope_scaling": {"type": "yarn", "mrope_section": [16, 24, 24]}})");
    const Run b = run({"compute", "position_ids", "--config", bad, "--sequence", "text:2"});
    QCOMPARE(b.status, 2);
    QVERIFY2(b.err.find("rope type 'yarn' with M-RoPE sections") != std::string::npos, b.err.c_str());
}

void TestCliSpatial::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("status");
    const QStringList enc = {"compute", "encoding", "--scheme", "sincos_2d", "--dim", "8"};
    const QStringList ids = {"compute", "position_ids", "--scheme", "mrope", "--dim", "128"};
    QTest::newRow("zero side") << (enc + QStringList{"--grid", "0x4"}) << "--grid rows H: 0 is out of range" << 2;
    QTest::newRow("no x") << (enc + QStringList{"--grid", "14"}) << "must be HxW" << 2;
    QTest::newRow("huge grid") << (enc + QStringList{"--grid", "65536x65536"}) << "more than the 16777216 allowed" << 2;
    QTest::newRow("no grid") << enc << "sincos_2d needs --grid HxW" << 2;
    QTest::newRow("odd dim") << QStringList{"compute", "encoding", "--scheme", "sincos_2d",
                                            "--dim",   "6",        "--grid",   "2x2"}
                             << "multiple of 4" << 2;
    QTest::newRow("positions") << (enc + QStringList{"--grid", "2x2", "--positions", "0:4"})
                               << "--positions does not apply" << 2;
    QTest::newRow("sequence on grid") << (enc + QStringList{"--sequence", "text:3"})
                                      << "--sequence applies to the sequence" << 2;
    QTest::newRow("grid on 1-D") << QStringList{"compute", "encoding", "--scheme", "sinusoidal", "--grid", "2x2"}
                                 << "--grid applies to the grid and sequence schemes" << 2;
    QTest::newRow("cls on rope_2d") << QStringList{"compute", "angles", "--scheme", "rope_2d", "--dim",
                                                   "8",       "--grid", "2x2",      "--cls"}
                                    << "--cls applies to the tables" << 2;
    QTest::newRow("no quantity") << QStringList{"compute", "encoding", "--scheme", "rope_2d",
                                                "--dim",   "8",        "--grid",   "2x2"}
                                 << "has no quantity 'encoding'" << 2;
    QTest::newRow("zero text") << (ids + QStringList{"--sequence", "text:0"}) << "is out of range" << 2;
    QTest::newRow("bad kind") << (ids + QStringList{"--sequence", "text:2,audio:3"}) << "unknown kind 'audio'" << 2;
    QTest::newRow("sections") << (ids + QStringList{"--sequence", "text:2", "--set", "mrope_section=16,24,20"})
                              << "sums to 60 pairs" << 2;
    QTest::newRow("sections dim") << QStringList{"compute", "position_ids", "--scheme",   "mrope",
                                                 "--dim",   "64",           "--sequence", "text:2"}
                                  << "has 32 (the sections must sum to d/2)" << 2;
    QTest::newRow("pixtral side") << QStringList{"compute", "angles", "--scheme", "pixtral_rope",
                                                 "--dim",   "64",     "--grid",   "65x65"}
                                  << "larger than max_patches_per_side 64" << 2;
    QTest::newRow("scores cap") << QStringList{"compute", "scores", "--scheme", "rope_2d",
                                               "--dim",   "8",      "--grid",   "4096x4096"}
                                << "more than the memory cap" << 1;
    QTest::newRow("sentence") << QStringList{"compute", "scores", "--scheme", "rope_2d",   "--dim",
                                             "8",       "--grid", "2x2",      "--content", "a b c d"}
                              << "take --content random or constant" << 2;
}

void TestCliSpatial::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QFETCH(int, status);
    std::vector<std::string> words;
    for (const QString& a : args)
        words.push_back(a.toStdString());
    const Run r = run(words);
    QCOMPARE(r.status, status);
    QVERIFY2(r.err.find(message.toStdString()) != std::string::npos, r.err.c_str());
    QVERIFY2(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err.c_str()); // one line
    QVERIFY(r.out.empty());
}

QTEST_APPLESS_MAIN(TestCliSpatial)
#include "tst_cli_spatial.moc"
