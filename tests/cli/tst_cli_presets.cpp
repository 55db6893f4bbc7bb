// SPDX-License-Identifier: MIT
// `poslab presets`, and --preset / --config on compute, export and batch entries ("Real-model
// presets"): a preset gives the same numbers and figures as the same settings typed out, explicit options win,
// a conflicting --scheme is refused. Llama 3.1 8B's values: ../shared/PRESETS.md line 49 (rope_theta 500000;
// rope_scaling llama3, factor 8, low_freq_factor 1, high_freq_factor 4, original 8192; head_dim 128; 32 heads).
#include "app/cli.h"
#include "app/exportcli.h"
#include "ui/setup/presets.h"
#include "ui/state/session.h"
#include "ui/state/workbenchstate.h"

#include "clirun.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace poslab::app;

namespace {

using Outcome = poslab::test::Run;

Outcome cli(const std::vector<std::string>& args)
{
    return poslab::test::run(args);
}

Outcome exportCli(const std::vector<std::string>& args)
{
    return poslab::test::runExport(args);
}

const std::vector<std::string> llama31
    = {"--set", "rope_theta=500000", "--set", "rope_type=llama3",   "--set", "factor=8",
       "--set", "low_freq_factor=1", "--set", "high_freq_factor=4", "--set", "original_max_position_embeddings=8192"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestCliPresets : public QObject {
    Q_OBJECT
private slots:
    void listsPresets();
    void presetEqualsExplicitSettings();
    void explicitOptionsWin();
    void conflictsAreRefused();
    void configFile();
    void exportWithPreset();
    void batchEntries();
    void spatialPresets();
    void seqLenAndLongropeFactorAsHuggingFace();
};

void TestCliPresets::listsPresets()
{
    const Outcome text = cli({"presets"});
    QCOMPARE(text.status, exitOk);
    QVERIFY(
        text.out.find("llama-3.1-8b  Llama 3.1 8B\n    scheme: rope, head dim 128, heads 32, layers 32, trained 8192, "
                      "context 131072\n")
        != std::string::npos);
    QVERIFY(text.out.find("factor=8") != std::string::npos);
    QVERIFY(text.out.find("long_factor=[48 values]") != std::string::npos);    // Phi-3's LongRoPE lists
    QVERIFY(text.out.find("unverified: trained_length") != std::string::npos); // BLOOM's 2048, PRESETS.md line 41
    const Outcome json = cli({"presets", "--json"});
    QCOMPARE(json.status, exitOk);
    const QJsonArray list
        = QJsonDocument::fromJson(QByteArray::fromStdString(json.out)).object().value("presets").toArray();
    QCOMPARE(list.size(), 43); // 35 text models and the eight grid and sequence models
    bool found = false;
    for (const QJsonValue& v : list) {
        const QJsonObject p = v.toObject();
        if (p.value("id").toString() != "llama-3.1-8b")
            continue;
        found = true;
        const QJsonObject state = p.value("state").toObject();
        QCOMPARE(state.value("dim").toInt(), 128);
        QCOMPARE(state.value("params").toObject().value("factor").toString(), QStringLiteral("8"));
        QCOMPARE(state.value("model").toObject().value("name").toString(), QStringLiteral("Llama 3.1 8B"));
    }
    QVERIFY(found);
    QCOMPARE(cli({"presets", "extra"}).status, exitUsage);
}

void TestCliPresets::presetEqualsExplicitSettings()
{
    for (const char* q : {"frequencies", "cos"}) {
        const Outcome preset = cli({"compute", q, "--preset", "llama-3.1-8b", "--positions", "0:9000:1000"});
        const Outcome typed = cli(
            std::vector<std::string>{"compute", q, "--scheme", "rope", "--dim", "128", "--positions", "0:9000:1000"}
            + llama31);
        QCOMPARE(preset.status, exitOk);
        QCOMPARE(preset.out, typed.out);
        QCOMPARE(preset.err, typed.err);
    }
    // Per-head quantities take the model's head count: ALiBi for BLOOM's 32 heads (PRESETS.md line 41).
    const Outcome bloom = cli({"compute", "bias", "--preset", "bloom-7b1", "--positions", "0:3"});
    const Outcome typed
        = cli({"compute", "bias", "--scheme", "alibi", "--dim", "128", "--heads", "32", "--positions", "0:3"});
    QCOMPARE(bloom.status, exitOk);
    QCOMPARE(bloom.out, typed.out);
    // Case does not matter.
    QCOMPARE(cli({"compute", "frequencies", "--preset", "Llama-3.1-8B"}).out,
             cli({"compute", "frequencies", "--preset", "llama-3.1-8b"}).out);
}

void TestCliPresets::explicitOptionsWin()
{
    // --set after the model's keys: factor 16 with the rest of Llama 3.1's scaling.
    const Outcome preset
        = cli({"compute", "frequencies", "--preset", "llama-3.1-8b", "--set", "factor=16", "--dim", "64"});
    std::vector<std::string> typedArgs = {"compute", "frequencies", "--scheme", "rope", "--dim", "64"};
    for (std::size_t i = 0; i < llama31.size(); i += 2)
        if (llama31[i + 1] != "factor=8")
            typedArgs = typedArgs + std::vector<std::string>{llama31[i], llama31[i + 1]};
    const Outcome typed = cli(typedArgs + std::vector<std::string>{"--set", "factor=16"});
    QCOMPARE(typed.status, exitOk);
    QCOMPARE(preset.status, exitOk);
    QCOMPARE(preset.out, typed.out);
    // The same scheme named explicitly is no conflict.
    QCOMPARE(cli({"compute", "frequencies", "--preset", "llama-3.1-8b", "--scheme", "rope"}).out,
             cli({"compute", "frequencies", "--preset", "llama-3.1-8b"}).out);
}

void TestCliPresets::conflictsAreRefused()
{
    const Outcome r = cli({"compute", "frequencies", "--preset", "llama-3.1-8b", "--scheme", "sinusoidal"});
    QCOMPARE(r.status, exitUsage);
    QCOMPARE(r.err,
             std::string("poslab: --scheme sinusoidal conflicts with Llama 3.1 8B, which uses scheme rope; drop "
                         "--scheme (or use --set to change its keys)\n"));
    const Outcome unknown = cli({"compute", "frequencies", "--preset", "llama-9"});
    QCOMPARE(unknown.status, exitUsage);
    QVERIFY(unknown.err.rfind("poslab: unknown preset 'llama-9'; presets: bert-base, ", 0) == 0);
    const Outcome both = cli({"compute", "frequencies", "--preset", "gpt2", "--config", "c.json"});
    QCOMPARE(both.status, exitUsage);
    QVERIFY(both.err.find("--preset and --config both") != std::string::npos);
    // A key that does not apply to the model's rope_type is refused as with --set.
    QCOMPARE(cli({"compute", "frequencies", "--preset", "llama-3.1-8b", "--set", "beta_fast=16"}).status, exitUsage);
}

void TestCliPresets::configFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("config.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"model_type": "llama", "head_dim": 128, "num_attention_heads": 32, "num_hidden_layers": 32,
        "max_position_embeddings": 131072, "rope_theta": 500000.0, "rope_scaling": {"factor": 8.0,
        "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}})");
    f.close();
    const Outcome config = cli({"compute", "frequencies", "--config", path.toStdString()});
    QCOMPARE(config.status, exitOk);
    QCOMPARE(config.out, cli({"compute", "frequencies", "--preset", "llama-3.1-8b"}).out);
    // What the file maps to, and what it does not (Mistral-7B-v0.1's sliding window, PRESETS.md line 52).
    const QString mistral = dir.filePath("mistral.json");
    QFile m(mistral);
    QVERIFY(m.open(QIODevice::WriteOnly));
    m.write(R"({"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
        "num_hidden_layers": 32, "max_position_embeddings": 32768, "rope_theta": 10000.0, "sliding_window": 4096,
        "vocab_size": 32000})");
    m.close();
    const Outcome report = cli({"presets", "--config", mistral.toStdString()});
    QCOMPARE(report.status, exitOk);
    QVERIFY2(report.out.find("scheme: rope, head dim 128, heads 32\n    rope_theta=10000 rope_type=default\n")
                 != std::string::npos,
             report.out.c_str());
    QVERIFY(report.out.find("NOT MAPPED: sliding_window: 4096: sliding-window attention is not modelled")
            != std::string::npos);
    QVERIFY(report.out.find("ignored: num_key_value_heads, vocab_size") != std::string::npos);
    const QJsonObject rj
        = QJsonDocument::fromJson(
              QByteArray::fromStdString(cli({"presets", "--config", mistral.toStdString(), "--json"}).out))
              .object();
    QVERIFY(rj.value("used").toArray().contains(QJsonValue("rope_theta")));
    QCOMPARE(rj.value("ignored").toArray(), (QJsonArray{"num_key_value_heads", "vocab_size"}));
    QCOMPARE(rj.value("state").toObject().value("scheme").toString(), QStringLiteral("rope"));
    // compute says what it left out, on stderr, and still computes.
    const Outcome warned = cli({"compute", "frequencies", "--config", mistral.toStdString()});
    QCOMPARE(warned.status, exitOk);
    QVERIFY2(warned.err.find("poslab: warning: " + mistral.toStdString() + ": sliding_window: 4096") == 0,
             warned.err.c_str());
    const QString bad = dir.filePath("bad.json");
    QFile b(bad);
    QVERIFY(b.open(QIODevice::WriteOnly));
    b.write("{\"rope_theta\": ");
    b.close();
    const Outcome r = cli({"compute", "frequencies", "--config", bad.toStdString()});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(r.err.rfind("poslab: " + bad.toStdString() + ": not valid JSON", 0) == 0, r.err.c_str());
}

void TestCliPresets::exportWithPreset()
{
    // The figure from a preset is the figure from the same settings typed out (the export path loads the
    // model's state: scheme, keys, head dim 128 and 32 heads), except that it names the model.
    QTemporaryDir dir;
    const std::string a = dir.filePath("a.svg").toStdString(), b = dir.filePath("b.svg").toStdString();
    const Outcome preset = exportCli({"export", "decay", "--preset", "llama-3.1-8b", "-o", a});
    QCOMPARE(preset.status, exitOk);
    const Outcome typed = exportCli(
        std::vector<std::string>{"export", "decay", "--scheme", "rope", "--dim", "128", "--heads", "32", "-o", b}
        + llama31);
    QCOMPARE(typed.status, exitOk);
    const QByteArray fromPreset = readAll(QString::fromStdString(a)), fromTyped = readAll(QString::fromStdString(b));
    QVERIFY(fromPreset.contains("<title>Dot product and decay \xe2\x80\x94 Llama 3.1 8B: RoPE")); // names the model
    QVERIFY(!fromTyped.contains("Llama 3.1 8B"));
    const std::string ja = dir.filePath("a.json").toStdString(), jb = dir.filePath("b.json").toStdString();
    QCOMPARE(exportCli({"export", "decay", "--preset", "llama-3.1-8b", "-o", ja}).status, exitOk);
    QCOMPARE(exportCli(std::vector<std::string>{"export", "decay", "--scheme", "rope", "--dim", "128", "--heads", "32",
                                                "-o", jb}
                       + llama31)
                 .status,
             exitOk);
    QCOMPARE(readAll(QString::fromStdString(ja)), readAll(QString::fromStdString(jb))); // the same numbers
    // The preset and a session saved from it give identical files.
    const std::string session = dir.filePath("llama.poslab").toStdString(), c2 = dir.filePath("c2.svg").toStdString();
    {
        poslab::ui::WorkbenchState st;
        QCOMPARE(st.fromJson(*poslab::ui::modelState(std::string("llama-3.1-8b"), std::nullopt)), QString());
        QCOMPARE(poslab::ui::writeSessionFile(QString::fromStdString(session),
                                              poslab::ui::mergeSession({}, st.toJson(), {})),
                 QString());
    }
    QCOMPARE(exportCli({"export", "decay", "--state", session, "-o", c2}).status, exitOk);
    QCOMPARE(readAll(QString::fromStdString(c2)), fromPreset);
    const std::string c = dir.filePath("c.csv").toStdString(), d = dir.filePath("d.csv").toStdString();
    QCOMPARE(exportCli({"export", "table", "--preset", "gpt2", "-o", c}).status, exitOk);
    QCOMPARE(exportCli({"export", "table", "--scheme", "learned", "--set", "max_position_embeddings=1024", "--dim",
                        "64", "--heads", "12", "--positions", "1024", "-o", d})
                 .status,
             exitOk);
    QCOMPARE(readAll(QString::fromStdString(c)), readAll(QString::fromStdString(d)));
    const Outcome conflict = exportCli({"export", "table", "--preset", "llama-3.1-8b", "--scheme", "alibi", "-o", b});
    QCOMPARE(conflict.status, exitUsage);
    QVERIFY(conflict.err.find("--scheme alibi conflicts with Llama 3.1 8B") != std::string::npos);
    const Outcome withState = exportCli({"export", "table", "--preset", "gpt2", "--state", "s.json", "-o", b});
    QCOMPARE(withState.status, exitUsage);
    QVERIFY(withState.err.find("--state and --preset both give the state") != std::string::npos);
}

void TestCliPresets::batchEntries()
{
    QTemporaryDir dir;
    QFile config(dir.filePath("gpt2.json"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(
        R"({"model_type": "gpt2", "n_positions": 1024, "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12})");
    config.close();
    QFile batch(dir.filePath("deck.json"));
    QVERIFY(batch.open(QIODevice::WriteOnly));
    batch.write(R"({"figures": [{"view": "table", "preset": "gpt2", "output": "p.csv"},
                                {"view": "table", "config": "gpt2.json", "output": "c.csv"}]})");
    batch.close();
    const Outcome r = exportCli({"export", "--batch", dir.filePath("deck.json").toStdString()});
    QCOMPARE(r.status, exitOk);
    const QByteArray p = readAll(dir.filePath("p.csv"));
    QVERIFY(!p.isEmpty());
    QCOMPARE(readAll(dir.filePath("c.csv")), p); // the config relative to the batch file, the same model
}

void TestCliPresets::spatialPresets()
{
    // The grid and sequence presets on the command line: a grid or sequence model gives the numbers of the same settings typed
    // out. MAE ViT-B/16: sin-cos base 10000 at width 768 on its 14 x 14 training grid (facebookresearch/mae
    // models_mae.py, util/pos_embed.py), so no --grid is needed; an explicit --grid wins.
    const Outcome mae = cli({"compute", "encoding", "--preset", "mae-vit-b-16", "--format", "csv"});
    const Outcome maeTyped = cli({"compute", "encoding", "--scheme", "sincos_2d", "--dim", "768", "--grid", "14x14",
                                  "--set", "base=10000", "--format", "csv"});
    QCOMPARE(mae.status, exitOk);
    QCOMPARE(mae.out, maeTyped.out);
    QCOMPARE(std::count(mae.out.begin(), mae.out.end(), '\n'), 196); // 14 x 14 patches, no class row without --cls
    QCOMPARE(
        cli({"compute", "encoding", "--preset", "mae-vit-b-16", "--grid", "2x3", "--format", "csv"}).out,
        cli({"compute", "encoding", "--scheme", "sincos_2d", "--dim", "768", "--grid", "2x3", "--format", "csv"}).out);
    // ViT-B/16 on its grid: the seeded table at width 768 with the class row first (--cls), resized to 24 x 24.
    QCOMPARE(
        cli({"compute", "encoding", "--preset", "vit-b-16-grid", "--grid", "24x24", "--cls", "--format", "csv"}).out,
        cli({"compute", "encoding", "--scheme", "vit_learned", "--dim", "768", "--grid", "24x24", "--cls", "--format",
             "csv"})
            .out);
    // RoPE-Axial DeiT-B/16: head dim 64, theta 100 (naver-ai/rope-vit vit_rope.py rope_axial_deit_base_patch16_LS).
    QCOMPARE(cli({"compute", "angles", "--preset", "rope-axial-deit-b-16", "--format", "csv"}).out,
             cli({"compute", "angles", "--scheme", "rope_2d", "--dim", "64", "--grid", "14x14", "--set",
                  "variant=axial", "--set", "rope_theta=100", "--format", "csv"})
                 .out);
    // Pixtral-ViT has no training grid (images keep their size): --grid is asked for, and its table stops at 64.
    const Outcome pixtral = cli({"compute", "angles", "--preset", "pixtral-12b-vision"});
    QCOMPARE(pixtral.status, exitUsage);
    QVERIFY(pixtral.err.find("needs --grid") != std::string::npos);
    QCOMPARE(cli({"compute", "angles", "--preset", "pixtral-12b-vision", "--grid", "65x1"}).status, exitUsage);
    QCOMPARE(
        cli({"compute", "angles", "--preset", "pixtral-12b-vision", "--grid", "3x4", "--format", "csv"}).out,
        cli({"compute", "angles", "--scheme", "pixtral_rope", "--dim", "64", "--grid", "3x4", "--format", "csv"}).out);
    // Qwen2.5-VL-7B: time-aligned ids at tokens_per_second 2 (its config.json); with the default 1 s per grid step
    // a video's frame steps 0, 1, 2 get time ids 0, 2, 4 after the text (modeling_qwen2_5_vl.py get_rope_index).
    const std::vector<std::string> seq = {"--sequence", "text:2,video:3x2x2,text:1", "--format", "csv"};
    const Outcome ids
        = cli(std::vector<std::string>{"compute", "position_ids", "--preset", "qwen2.5-vl-7b-instruct"} + seq);
    QCOMPARE(ids.status, exitOk);
    QCOMPARE(ids.out,
             std::string("0,1,2,2,2,2,4,4,4,4,6,6,6,6,7\n0,1,2,2,3,3,2,2,3,3,2,2,3,3,7\n"
                         "0,1,2,3,2,3,2,3,2,3,2,3,2,3,7\n"));
    QCOMPARE(ids.out,
             cli(std::vector<std::string>{"compute", "position_ids", "--scheme", "mrope", "--dim", "128", "--set",
                                          "variant=qwen2_5_vl", "--set", "tokens_per_second=2"}
                 + seq)
                 .out);
    // Qwen3-VL-4B: interleaved sections [24, 20, 20], theta 5,000,000, head dim 128 (its config.json).
    QCOMPARE(cli(std::vector<std::string>{"compute", "angles", "--preset", "qwen3-vl-4b-instruct"} + seq).out,
             cli(std::vector<std::string>{"compute", "angles", "--scheme", "mrope", "--dim", "128", "--set",
                                          "variant=qwen3_vl", "--set", "rope_theta=5000000", "--set",
                                          "mrope_section=24,20,20", "--set", "sections=interleaved"}
                 + seq)
                 .out);
    // Qwen2-VL-7B differs from it: chunked [16, 24, 24] at theta 1,000,000.
    QVERIFY(cli(std::vector<std::string>{"compute", "angles", "--preset", "qwen2-vl-7b-instruct"} + seq).out
            != cli(std::vector<std::string>{"compute", "angles", "--preset", "qwen3-vl-4b-instruct"} + seq).out);
    // A sequence model takes no --grid, and the listing names the grid and width of the tables.
    QCOMPARE(cli({"compute", "angles", "--preset", "qwen2-vl-7b-instruct", "--grid", "2x2"}).status, exitUsage);
    // A 1-D view refuses a vision preset and names the view that draws its scheme.
    const Outcome fig = exportCli({"export", "table", "--preset", "mae-vit-b-16", "-o", "/tmp/never-written.svg"});
    QCOMPARE(fig.status, exitUsage);
    QVERIFY2(fig.err.find("uses the grid scheme sincos_2d, which the patchgrid view draws, not the table view")
                 != std::string::npos,
             fig.err.c_str());
    QVERIFY(cli({"--help"}).out.find("brings its training grid as the default --grid") != std::string::npos);
    const Outcome list = cli({"presets"});
    QVERIFY(list.out.find("scheme: sincos_2d, dim 768, grid 14x14, heads 12, layers 12") != std::string::npos);
}

void TestCliPresets::seqLenAndLongropeFactorAsHuggingFace()
{
    // Issue 38 item 9: a model's frequencies at length L are a fair question whatever its rope type (Hugging Face's
    // modeling_rope_utils.py _compute_*_parameters take seq_len for every type); for Llama 3.1 (llama3 scaling) it
    // changes nothing, so the frequencies are those without it.
    const Outcome plain = cli({"compute", "frequencies", "--preset", "llama-3.1-8b"});
    const Outcome at = cli({"compute", "frequencies", "--preset", "llama-3.1-8b", "--seq-len", "100"});
    QVERIFY2(at.status == exitOk, at.err.c_str());
    QCOMPARE(at.json().value("data").toArray(), plain.json().value("data").toArray());
    // A scheme named alone keeps the rule that an option which changes nothing is refused (tst_cli_limits).
    QCOMPARE(cli({"compute", "frequencies", "--scheme", "rope", "--seq-len", "100"}).status, exitUsage);
    // longrope's factor, as _validate_longrope_parameters accepts it and _compute_longrope_parameters uses it:
    // attention_factor = sqrt(1 + ln(factor) / ln(original_max_position_embeddings)) (it was "does not apply").
    const double expected = std::sqrt(1.0 + std::log(2.0) / std::log(4096.0));
    const Outcome set = cli({"compute", "frequencies", "--scheme", "rope", "--dim", "8", "--set", "rope_type=longrope",
                             "--set", "factor=2"});
    QVERIFY2(set.status == exitOk, set.err.c_str());
    QVERIFY(std::fabs(set.json().value("attention_factor").toDouble() - expected) < 1e-15);
    // Without factor: Phi-3's ratio max_position_embeddings / original = 131072 / 4096 = 32.
    const Outcome ratio
        = cli({"compute", "frequencies", "--scheme", "rope", "--dim", "8", "--set", "rope_type=longrope"});
    QCOMPARE(ratio.json().value("factor").toDouble(), 32.0);
    // The same factor through config.json (no original window: max_position_embeddings is the original one).
    QTemporaryDir dir;
    const QString path = dir.filePath("longrope.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 8, "max_position_embeddings": 4096,
        "rope_theta": 10000.0, "rope_scaling": {"rope_type": "longrope", "short_factor": [1, 1, 1, 1],
        "long_factor": [2, 2, 2, 2], "factor": 2.0}})");
    f.close();
    const Outcome config = cli({"compute", "frequencies", "--config", path.toStdString()});
    QVERIFY2(config.status == exitOk, config.err.c_str());
    QVERIFY(std::fabs(config.json().value("attention_factor").toDouble() - expected) < 1e-15);
    QCOMPARE(config.json().value("data").toArray(), set.json().value("data").toArray()); // short factors all 1
    // A factor of 0 ("from the context lengths") belongs to longrope only.
    const Outcome zero
        = cli({"compute", "frequencies", "--scheme", "rope", "--set", "rope_type=linear", "--set", "factor=0"});
    QCOMPARE(zero.status, exitUsage);
    QVERIFY2(zero.err.find("parameter factor = 0 is out of range for rope_type linear; allowed: [0.001, 1024]")
                 != std::string::npos,
             zero.err.c_str());
}

QTEST_MAIN(TestCliPresets)
#include "tst_cli_presets.moc"
