// SPDX-License-Identifier: MIT
// Real-model presets (resources/presets/) and the config.json reader ("Real-model presets" and
// "Opening real files"). Reference values are copied from ../shared/PRESETS.md, the project's compiled list
// of verified settings; each row cites its line there (the summary table is lines 36-64). Config files are
// written by the test from the same values, in the spellings PRESETS.md and huggingface/transformers
// src/transformers/modeling_rope_utils.py give ("type" or "rope_type", rope_parameters, per-layer dicts).
#include "core/encodingregistry.h"
#include "core/spatial.h"
#include "ui/setup/modelconfig.h"
#include "ui/setup/presets.h"
#include "ui/state/workbenchstate.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace poslab;

namespace {

// Phi-3-mini-128k-instruct's June-2024 LongRoPE factors, PRESETS.md lines 146-150.
const char* phiLong
    = "1.0700000524520874,1.1200000047683716,1.149999976158142,1.4199999570846558,1.5699999332427979,"
      "1.7999999523162842,2.129999876022339,2.129999876022339,3.009999990463257,5.910000324249268,6.950000286102295,"
      "9.070000648498535,9.930000305175781,10.710000038146973,11.130000114440918,14.609999656677246,15.409998893737793,"
      "19.809999465942383,37.279998779296875,38.279998779296875,38.599998474121094,40.12000274658203,46.20000457763672,"
      "50.940006256103516,53.66000747680664,54.9373893737793,56.89738845825195,57.28738784790039,59.98738479614258,"
      "60.86738586425781,60.887386322021484,61.71739196777344,62.91739273071289,62.957393646240234,63.41739273071289,"
      "63.8173942565918,63.83739471435547,63.897396087646484,63.93739700317383,64.06739807128906,64.11434936523438,"
      "64.12435150146484,64.15435028076172,64.19435119628906,64.24435424804688,64.57435607910156,64.69000244140625,"
      "64.76000213623047";
const char* phiShort
    = "1.1,1.1,1.1,1.3000000000000003,1.3500000000000003,1.3500000000000003,1.4000000000000004,"
      "1.5500000000000005,2.000000000000001,2.000000000000001,2.000000000000001,2.000000000000001,2.000000000000001,"
      "2.000000000000001,2.000000000000001,2.000000000000001,2.000000000000001,2.000000000000001,2.000000000000001,"
      "2.000000000000001,2.000000000000001,2.000000000000001,2.000000000000001,2.000000000000001,2.000000000000001,"
      "2.0500000000000007,2.0500000000000007,2.0500000000000007,2.0500000000000007,2.0500000000000007,2."
      "0500000000000007,"
      "2.1000000000000005,2.1000000000000005,2.1500000000000004,2.25,2.25,2.25,2.25,2.25,2.3999999999999995,"
      "2.4499999999999993,2.499999999999999,2.6999999999999984,2.6999999999999984,2.7499999999999982,2.799999999999998,"
      "2.8999999999999977,3.049999999999997";

QJsonArray numbers(const char* list)
{
    QJsonArray a;
    for (const QString& x : QString::fromLatin1(list).split(QLatin1Char(',')))
        a.append(x.toDouble());
    return a;
}

// The resolved parameters of a state object (what compute, export and the window would use).
core::ParamSet resolved(const QJsonObject& state)
{
    const ui::StateSetup s = ui::stateSetup(state);
    core::TableContext ctx;
    ctx.dim = s.dim.value_or(128);
    ctx.positions = core::PositionList::range(0, state.value("positions").toInt(1024));
    return core::resolveParams(core::schemeOrThrow(s.scheme), s.params, ctx);
}

QString param(const QJsonObject& state, const char* key)
{
    return state.value("params").toObject().value(QLatin1String(key)).toString();
}

} // namespace

class TestPresets : public QObject {
    Q_OBJECT
private slots:
    void everyPresetValidates();
    void everyPresetOpensInTheWorkbench();
    void valuesMatchPresetsMd_data();
    void valuesMatchPresetsMd();
    void spatialPresetsLoad_data();
    void spatialPresetsLoad();
    void spatialValidationCatchesBadPresets();
    void lookupIsCaseInsensitive();
    void smollm3ThetaIsTheCheckpoints();
    void validationCatchesBadPresets();
    void configMatchesPreset_data();
    void configMatchesPreset();
    void configSpellings();
    void configAcceptsHuggingFaceRopeKeys_data();
    void configAcceptsHuggingFaceRopeKeys();
    void configUsedAndIgnoredKeys();
    void malformedConfigs_data();
    void malformedConfigs();
};

void TestPresets::everyPresetValidates()
{
    QVERIFY2(ui::presetLoadProblems().isEmpty(), qPrintable(ui::presetLoadProblems().join('\n')));
    // Every model of PRESETS.md's summary table (29 rows) except Gemma-3-27B (UNVERIFIED throughout), with
    // Qwen2.5 as shipped and with its YaRN add-on, T5 in both versions, and Gemma 3's local layers apart; and the
    // eight grid and sequence models (ViT-B/16 on its grid, MAE, RoPE-Axial and RoPE-Mixed DeiT,
    // Pixtral-ViT, three Qwen-VL).
    QCOMPARE(ui::presets().size(), 43);
    for (const QJsonObject& p : ui::presets()) {
        const QStringList problems = ui::validatePreset(p);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        const QJsonObject params = p.value("params").toObject();
        for (auto it = params.begin(); it != params.end(); ++it)
            QVERIFY2(!it.value().toObject().value("source").toString().isEmpty(), qPrintable(it.key()));
    }
}

void TestPresets::everyPresetOpensInTheWorkbench()
{
    // The state object is what WorkbenchState::fromJson reads: every preset opens, with its scheme, head dim
    // and heads, and its parameters as resolved here.
    for (const QJsonObject& p : ui::presets()) {
        const QJsonObject state = ui::presetState(p);
        // The workbench state holds 1-D schemes; grid and sequence presets reach compute (spatialPresetsLoad).
        if (core::findSpatialScheme(p.value("scheme").toString().toStdString()))
            continue;
        ui::WorkbenchState w;
        const QString why = w.fromJson(state);
        QVERIFY2(why.isEmpty(), qPrintable(p.value("id").toString() + ": " + why));
        QCOMPARE(w.schemeId(), p.value("scheme").toString());
        if (state.contains("dim"))
            QCOMPARE(w.dim(), state.value("dim").toInt());
        if (state.contains("view"))
            QCOMPARE(w.viewOptions().heads, state.value("view").toObject().value("heads").toInt());
        QCOMPARE(state.value("model").toObject().value("name").toString(), p.value("name").toString());
    }
}

void TestPresets::valuesMatchPresetsMd_data()
{
    // clang-format off
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("key");   // a params key, or dim / heads / layers / trained_length / context_length
    QTest::addColumn<QString>("value");
    auto row = [](const char* line, const char* id, const char* key, const char* value) {
        QTest::newRow((std::string(id) + " " + key + " (PRESETS.md line " + line + ")").c_str()) << id << key << value;
    };
    row("36", "gpt2", "max_position_embeddings", "1024");
    row("36", "gpt2", "dim", "64");
    row("37", "bert-base", "max_position_embeddings", "512");
    row("38", "t5-base", "relative_attention_num_buckets", "32");
    row("38", "t5-base", "relative_attention_max_distance", "128");
    row("39", "t5-v1.1-base", "dim", "64");
    row("40", "deberta-v3-base", "position_buckets", "256");
    row("84", "deberta-v3-base", "max_relative_positions", "512"); // -1 = max_position_embeddings 512
    row("41", "bloom-7b1", "heads", "32");
    row("41", "bloom-7b1", "layers", "30");
    row("42", "mpt-7b", "trained_length", "2048");
    row("43", "gpt-j-6b", "partial_rotary_factor", "0.25"); // rotary_dim 64 of 256
    row("43", "gpt-j-6b", "layout", "interleaved");
    row("44", "gpt-neox-20b", "partial_rotary_factor", "0.25");
    row("44", "gpt-neox-20b", "dim", "96");
    row("45", "pythia-6.9b", "dim", "128");
    row("46", "llama-2-7b", "rope_theta", "10000");
    row("46", "llama-2-7b", "context_length", "4096");
    row("47", "codellama-7b", "rope_theta", "1000000");
    row("47", "codellama-7b", "context_length", "16384");
    row("48", "llama-3-8b", "rope_theta", "500000");
    row("49", "llama-3.1-8b", "rope_type", "llama3");
    row("49", "llama-3.1-8b", "factor", "8");
    row("49", "llama-3.1-8b", "high_freq_factor", "4");
    row("49", "llama-3.1-8b", "original_max_position_embeddings", "8192");
    row("49", "llama-3.1-8b", "context_length", "131072");
    row("50", "llama-3.2-1b", "factor", "32");
    row("50", "llama-3.2-1b", "dim", "64");
    row("51", "llama-4-scout", "factor", "16");
    row("51", "llama-4-scout", "high_freq_factor", "1");
    row("51", "llama-4-scout", "nope_layer_interval", "4");
    row("51", "llama-4-scout", "heads", "40");
    row("52", "mistral-7b-v0.1", "rope_theta", "10000");
    row("53", "qwen2-7b", "rope_theta", "1000000");
    row("53", "qwen2-7b", "heads", "28");
    row("54", "qwen2.5-7b-instruct-yarn", "rope_type", "yarn");
    row("54", "qwen2.5-7b-instruct-yarn", "factor", "4");
    row("54", "qwen2.5-7b-instruct-yarn", "original_max_position_embeddings", "32768");
    row("55", "phi-3-mini-128k-instruct", "rope_type", "longrope");
    row("55", "phi-3-mini-128k-instruct", "original_max_position_embeddings", "4096");
    row("55", "phi-3-mini-128k-instruct", "dim", "96");
    row("147", "phi-3-mini-128k-instruct", "long_factor", phiLong);
    row("150", "phi-3-mini-128k-instruct", "short_factor", phiShort);
    row("56", "deepseek-v3", "factor", "40");
    row("56", "deepseek-v3", "mscale_all_dim", "1");
    row("56", "deepseek-v3", "dim", "64"); // qk_rope_head_dim
    row("57", "deepseek-v2", "mscale", "0.707");
    row("57", "deepseek-v2", "layers", "60");
    row("58", "gemma-2-9b", "dim", "256");
    row("59", "gemma-3-4b", "rope_theta", "1000000");
    row("59", "gemma-3-4b", "rope_type", "linear");
    row("59", "gemma-3-4b", "factor", "8");
    row("59", "gemma-3-4b-local", "rope_theta", "10000");
    row("60", "gemma-3-1b", "layers", "26");
    row("61", "vit-b-16", "max_position_embeddings", "197");
    row("62", "smollm3-3b", "nope_layer_interval", "4");
    row("63", "falcon-7b", "heads", "71");
    row("63", "falcon-7b", "dim", "64");
    row("64", "falcon-rw-1b", "layers", "24");
    // clang-format on
}

void TestPresets::valuesMatchPresetsMd()
{
    QFETCH(QString, id);
    QFETCH(QString, key);
    QFETCH(QString, value);
    const std::optional<QJsonObject> p = ui::findPreset(id);
    QVERIFY(p);
    const QJsonObject state = ui::presetState(*p);
    const QJsonObject model = state.value("model").toObject();
    QString got;
    if (key == "dim")
        got = QString::number(state.value("dim").toInt());
    else if (key == "heads")
        got = QString::number(state.value("view").toObject().value("heads").toInt());
    else if (model.contains(key))
        got = QString::number(model.value(key).toInt());
    else
        got = param(state, key.toLatin1().constData());
    QCOMPARE(got, value);
}

void TestPresets::spatialPresetsLoad_data()
{
    // clang-format off
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("key");   // a params key as resolved, or dim / heads / layers / context_length / grid
    QTest::addColumn<QString>("value");
    auto row = [](const char* source, const char* id, const char* key, const char* value) {
        QTest::newRow((std::string(id) + " " + key + " (" + source + ")").c_str()) << id << key << value;
    };
    // ViT-B/16, PRESETS.md "ViT-B/16" (get_b16_config: hidden 768, 12 heads; 224 / 16 = 14 per side, class token).
    row("PRESETS.md ViT-B/16", "vit-b-16-grid", "dim", "768");
    row("PRESETS.md ViT-B/16", "vit-b-16-grid", "grid", "14x14");
    row("PRESETS.md ViT-B/16", "vit-b-16-grid", "table_rows", "14");
    row("PRESETS.md ViT-B/16", "vit-b-16-grid", "class_token", "true");
    row("vision_transformer AddPositionEmbs", "vit-b-16-grid", "init_std", "0.02");
    row("PRESETS.md ViT-B/16", "vit-b-16-grid", "trained_length", "197");
    // facebookresearch/mae models_mae.py mae_vit_base_patch16_dec512d8b (embed_dim 768, 12 x 12 heads and blocks,
    // img_size 224 / patch 16); util/pos_embed.py get_1d_sincos_pos_embed_from_grid (1 / 10000**omega).
    row("mae models_mae.py", "mae-vit-b-16", "dim", "768");
    row("mae models_mae.py", "mae-vit-b-16", "grid", "14x14");
    row("mae models_mae.py", "mae-vit-b-16", "heads", "12");
    row("mae models_mae.py", "mae-vit-b-16", "layers", "12");
    row("mae util/pos_embed.py", "mae-vit-b-16", "base", "10000");
    // naver-ai/rope-vit models/vit_rope.py rope_axial_deit_base_patch16_LS, rope_mixed_deit_base_patch16_LS.
    row("rope-vit vit_rope.py", "rope-axial-deit-b-16", "variant", "axial");
    row("rope-vit vit_rope.py", "rope-axial-deit-b-16", "rope_theta", "100");
    row("rope-vit vit_rope.py", "rope-axial-deit-b-16", "dim", "64");
    row("rope-vit vit_rope.py", "rope-axial-deit-b-16", "grid", "14x14");
    row("rope-vit vit_rope.py", "rope-mixed-deit-b-16", "variant", "mixed");
    row("rope-vit vit_rope.py", "rope-mixed-deit-b-16", "rope_theta", "10");
    // huggingface/transformers configuration_pixtral.py PixtralVisionConfig (the Pixtral-12B encoder's defaults).
    row("PixtralVisionConfig", "pixtral-12b-vision", "rope_theta", "10000");
    row("PixtralVisionConfig", "pixtral-12b-vision", "max_patches_per_side", "64");
    row("PixtralVisionConfig", "pixtral-12b-vision", "dim", "64");
    row("PixtralVisionConfig", "pixtral-12b-vision", "heads", "16");
    row("PixtralVisionConfig", "pixtral-12b-vision", "layers", "24");
    // Qwen/Qwen2-VL-7B-Instruct config.json, as copied in PaddleMIX's Qwen2-VL test.
    row("Qwen2-VL-7B-Instruct config.json", "qwen2-vl-7b-instruct", "variant", "qwen2_vl");
    row("Qwen2-VL-7B-Instruct config.json", "qwen2-vl-7b-instruct", "rope_theta", "1000000");
    row("Qwen2-VL-7B-Instruct config.json", "qwen2-vl-7b-instruct", "mrope_section", "16,24,24");
    row("Qwen2-VL-7B-Instruct config.json", "qwen2-vl-7b-instruct", "sections", "chunked");
    row("Qwen2-VL-7B-Instruct config.json", "qwen2-vl-7b-instruct", "dim", "128");
    row("Qwen2-VL-7B-Instruct config.json", "qwen2-vl-7b-instruct", "context_length", "32768");
    // Qwen/Qwen2.5-VL-7B-Instruct config.json, as copied in TensorRT-LLM's test_modeling_qwen2_5_vl.py.
    row("Qwen2.5-VL-7B-Instruct config.json", "qwen2.5-vl-7b-instruct", "variant", "qwen2_5_vl");
    row("Qwen2.5-VL-7B-Instruct config.json", "qwen2.5-vl-7b-instruct", "tokens_per_second", "2");
    row("Qwen2.5-VL-7B-Instruct config.json", "qwen2.5-vl-7b-instruct", "mrope_section", "16,24,24");
    row("Qwen2.5-VL-7B-Instruct config.json", "qwen2.5-vl-7b-instruct", "context_length", "128000");
    row("Qwen2.5-VL-7B-Instruct config.json", "qwen2.5-vl-7b-instruct", "heads", "28");
    // Qwen/Qwen3-VL-4B-Instruct config.json, as copied in a port of musubi-tuner's krea2_encoder.py.
    row("Qwen3-VL-4B-Instruct config.json", "qwen3-vl-4b-instruct", "variant", "qwen3_vl");
    row("Qwen3-VL-4B-Instruct config.json", "qwen3-vl-4b-instruct", "rope_theta", "5000000");
    row("Qwen3-VL-4B-Instruct config.json", "qwen3-vl-4b-instruct", "mrope_section", "24,20,20");
    row("Qwen3-VL-4B-Instruct config.json", "qwen3-vl-4b-instruct", "sections", "interleaved");
    row("Qwen3-VL-4B-Instruct config.json", "qwen3-vl-4b-instruct", "heads", "32");
    row("Qwen3-VL-4B-Instruct config.json", "qwen3-vl-4b-instruct", "layers", "36");
    row("Qwen3-VL-4B-Instruct config.json", "qwen3-vl-4b-instruct", "context_length", "262144");
    // clang-format on
}

void TestPresets::spatialPresetsLoad()
{
    // The preset's state as compute reads it (ui::stateSetup), resolved by the spatial resolver at its dimension
    // and grid: each value as the model's source gives it.
    QFETCH(QString, id);
    QFETCH(QString, key);
    QFETCH(QString, value);
    const std::optional<QJsonObject> p = ui::findPreset(id);
    QVERIFY(p);
    QVERIFY2(ui::validatePreset(*p).isEmpty(), qPrintable(ui::validatePreset(*p).join('\n')));
    const QJsonObject state = ui::presetState(*p);
    const ui::StateSetup s = ui::stateSetup(state);
    const core::SpatialSchemeDescriptor* scheme = core::findSpatialScheme(s.scheme);
    QVERIFY(scheme);
    core::SpatialContext ctx;
    ctx.dim = s.dim.value_or(0);
    ctx.grid = s.grid.value_or(core::Grid{4, 4});
    ctx.sequence = core::parseSequence("text:2,image:1x2x2");
    const core::ParamSet params = core::resolveSpatialParams(*scheme, s.params, ctx);
    const QJsonObject model = state.value("model").toObject();
    QString got;
    if (key == "dim")
        got = QString::number(*s.dim);
    else if (key == "heads")
        got = QString::number(s.heads.value_or(0));
    else if (key == "grid")
        got = s.grid ? QString::fromStdString(core::gridText(*s.grid)) : QString();
    else if (model.contains(key))
        got = QString::number(model.value(key).toInt());
    else
        got = QString::fromStdString(params.value(key.toStdString()).toString());
    QCOMPARE(got, value);
}

void TestPresets::spatialValidationCatchesBadPresets()
{
    const QJsonObject mae = *ui::findPreset("mae-vit-b-16");
    const QJsonObject qwen = *ui::findPreset("qwen2-vl-7b-instruct");
    auto with = [](QJsonObject p, const char* field, const QJsonValue& v) {
        p.insert(QLatin1String(field), v);
        return ui::validatePreset(p).join('\n');
    };
    QVERIFY(ui::validatePreset(mae).isEmpty());
    // A grid only on a grid scheme, spelled as --grid spells it, and with a source.
    QVERIFY(with(qwen, "grid", QJsonObject{{"value", "14x14"}, {"source", "t"}}).contains("grid schemes only"));
    QVERIFY(with(mae, "grid", QJsonObject{{"value", "14 by 14"}, {"source", "t"}}).contains("grid:"));
    QVERIFY(with(mae, "grid", QJsonObject{{"value", "14x14"}}).contains("\"grid\" must be"));
    // The spatial resolver runs at the preset's dimension: MAE's table needs D divisible by 4, M-RoPE's sections
    // must sum to d/2 (Qwen2-VL's [16, 24, 24] does not fit a head of 64).
    QVERIFY(with(mae, "model_dim", QJsonObject{{"value", 766}, {"source", "t"}}).contains("766"));
    QVERIFY(with(qwen, "head_dim", QJsonObject{{"value", 64}, {"source", "t"}}).contains("mrope_section"));
    QJsonObject badKey = qwen;
    QJsonObject params = badKey.value("params").toObject();
    params.insert("rope_type", QJsonObject{{"value", "yarn"}, {"source", "t"}});
    badKey.insert("params", params);
    QVERIFY(ui::validatePreset(badKey).join('\n').contains("rope_type"));
    // model_dim, not head_dim, is the dimension of a table's state.
    QCOMPARE(ui::presetState(mae).value("dim").toInt(), 768);
    QCOMPARE(ui::presetState(mae).value("grid").toString(), QStringLiteral("14x14"));
}

void TestPresets::smollm3ThetaIsTheCheckpoints()
{
    // HuggingFaceTB/SmolLM3-3B's config.json (https://huggingface.co/HuggingFaceTB/SmolLM3-3B/blob/main/config.json)
    // sets rope_theta 5000000.0, as issue 38's fact-check read it; Hugging Face's SmolLM3 blog (huggingface/blog
    // smollm3.md, commit 124475d, "Long Context extension") raised RoPE theta to 5M for the 32k-to-64k stage.
    // transformers' SmolLM3Config default, 2000000.0 (PRESETS.md line 62), is not the released model's value.
    const std::optional<QJsonObject> p = ui::findPreset(QStringLiteral("smollm3-3b"));
    QVERIFY(p);
    const QJsonObject theta = p->value("params").toObject().value("rope_theta").toObject();
    QCOMPARE(theta.value("value").toString(), QStringLiteral("5000000"));
    QVERIFY2(theta.value("source").toString().contains("HuggingFaceTB/SmolLM3-3B/blob/main/config.json"),
             qPrintable(theta.value("source").toString()));
    QVERIFY(!p->value("unverified").toArray().contains(QStringLiteral("rope_theta")));
    // What the workbench, compute and export use.
    const QJsonObject state = ui::presetState(*p);
    QCOMPARE(param(state, "rope_theta"), QStringLiteral("5000000"));
    QCOMPARE(resolved(state).real("rope_theta"), 5000000.0);
}

void TestPresets::lookupIsCaseInsensitive()
{
    QCOMPARE(ui::presetOrThrow("LLAMA-3.1-8B").value("id").toString(), QStringLiteral("llama-3.1-8b"));
    try {
        ui::presetOrThrow("llama-9");
        QFAIL("an unknown preset was accepted");
    } catch (const std::exception& e) {
        const QString m = QString::fromUtf8(e.what());
        QVERIFY2(m.contains("unknown preset 'llama-9'") && m.contains("llama-3.1-8b") && m.contains("gpt2"),
                 qPrintable(m));
    }
}

void TestPresets::validationCatchesBadPresets()
{
    QJsonObject p = *ui::findPreset("llama-3.1-8b");
    const auto withParam = [&](const char* key, const char* value) {
        QJsonObject q = p;
        QJsonObject params = q.value("params").toObject();
        params.insert(key, QJsonObject{{"value", value}, {"source", "test"}});
        q.insert("params", params);
        return ui::validatePreset(q).join('\n');
    };
    QVERIFY(withParam("no_such_key", "1").contains("no_such_key"));
    QVERIFY(withParam("rope_theta", "1").contains("rope_theta")); // below the range
    QVERIFY(withParam("beta_fast", "32").contains("beta_fast"));  // does not apply to llama3
    QJsonObject noSource = p;
    QJsonObject params = noSource.value("params").toObject();
    params.insert("factor", QJsonObject{{"value", "8"}});
    noSource.insert("params", params);
    QVERIFY(ui::validatePreset(noSource).join('\n').contains("params.factor has no source"));
    QJsonObject badScheme = p;
    badScheme.insert("scheme", "ropey");
    QVERIFY(ui::validatePreset(badScheme).join('\n').contains("unknown scheme 'ropey'"));
    QJsonObject badUnverified = p;
    badUnverified.insert("unverified", QJsonArray{"beta_slow"});
    QVERIFY(ui::validatePreset(badUnverified).join('\n').contains("'beta_slow'"));
}

void TestPresets::configMatchesPreset_data()
{
    // clang-format off
    // A config.json written from PRESETS.md's values resolves to the same parameters, head dim and heads as
    // the shipped preset.
    QTest::addColumn<QString>("id");
    QTest::addColumn<QByteArray>("config");
    QTest::newRow("llama-3.1-8b") << "llama-3.1-8b" << QByteArray(R"({"model_type": "llama", "head_dim": 128,
        "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 131072,
        "rope_theta": 500000.0, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "vocab_size": 128256})");
    QTest::newRow("llama-3.2-1b") << "llama-3.2-1b" << QByteArray(R"({"model_type": "llama", "head_dim": 64,
        "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 16,
        "max_position_embeddings": 131072, "rope_theta": 500000.0, "rope_scaling": {"factor": 32.0,
        "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "tie_word_embeddings": true})");
    QTest::newRow("phi-3 longrope") << "phi-3-mini-128k-instruct" << QJsonDocument(QJsonObject{
        {"model_type", "phi3"}, {"hidden_size", 3072}, {"num_attention_heads", 32}, {"num_key_value_heads", 32},
        {"num_hidden_layers", 32}, {"max_position_embeddings", 131072}, {"original_max_position_embeddings", 4096},
        {"rope_theta", 10000.0},
        {"rope_scaling", QJsonObject{{"type", "longrope"}, {"long_factor", numbers(phiLong)}, {"short_factor", numbers(phiShort)}}},
    }).toJson();
    QTest::newRow("gpt-neox rotary_pct") << "gpt-neox-20b" << QByteArray(R"({"model_type": "gpt_neox",
        "hidden_size": 6144, "num_attention_heads": 64, "num_hidden_layers": 44, "max_position_embeddings": 2048,
        "rotary_pct": 0.25, "rotary_emb_base": 10000, "use_parallel_residual": true})");
    QTest::newRow("gpt-j rotary_dim") << "gpt-j-6b" << QByteArray(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16,
        "n_layer": 28, "n_positions": 2048, "rotary_dim": 64, "rotary": true, "n_vocab": 50400})");
    QTest::newRow("deepseek-v3 yarn") << "deepseek-v3" << QByteArray(R"({"model_type": "deepseek_v3",
        "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "hidden_size": 7168,
        "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "max_position_embeddings": 163840, "rope_theta": 10000, "rope_scaling": {"beta_fast": 32, "beta_slow": 1,
        "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096, "type": "yarn"}})");
    QTest::newRow("gemma-3-4b rope_scaling") << "gemma-3-4b" << QByteArray(R"({"model_type": "gemma3_text",
        "head_dim": 256, "hidden_size": 2560, "num_attention_heads": 8, "num_key_value_heads": 4, "num_hidden_layers": 34,
        "max_position_embeddings": 131072, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024, "sliding_window_pattern": 6,
        "query_pre_attn_scalar": 256})");
    QTest::newRow("gemma-3-4b multimodal v5") << "gemma-3-4b" << QByteArray(R"({"model_type": "gemma3",
        "text_config": {"model_type": "gemma3_text", "head_dim": 256, "num_attention_heads": 8, "num_hidden_layers": 34,
        "max_position_embeddings": 131072, "sliding_window": 1024,
        "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}},
        "vision_config": {"image_size": 896}})");
    QTest::newRow("bloom") << "bloom-7b1" << QByteArray(R"({"model_type": "bloom", "n_head": 32, "n_layer": 30,
        "hidden_size": 4096, "vocab_size": 250880, "offset_alibi": 100})");
    QTest::newRow("mpt attn_config") << "mpt-7b" << QByteArray(R"({"model_type": "mpt", "d_model": 4096, "n_heads": 32,
        "n_layers": 32, "max_seq_len": 2048, "vocab_size": 50432, "no_bias": true, "learned_pos_emb": true,
        "attn_config": {"alibi": true, "alibi_bias_max": 8, "attn_type": "multihead_attention", "prefix_lm": false,
        "qk_ln": false, "clip_qkv": null, "softmax_scale": null}})");
    QTest::newRow("falcon-7b alibi false") << "falcon-7b" << QByteArray(R"({"model_type": "RefinedWebModel",
        "alibi": false, "hidden_size": 4544, "n_head": 71, "n_layer": 32, "multi_query": true, "parallel_attn": true})");
    QTest::newRow("falcon-rw alibi true") << "falcon-rw-1b" << QByteArray(R"({"alibi": true, "hidden_size": 2048,
        "n_head": 32, "n_layer": 24, "multi_query": false, "parallel_attn": false, "bias": true})");
    QTest::newRow("t5 v1.1") << "t5-v1.1-base" << QByteArray(R"({"model_type": "t5", "d_model": 768, "d_kv": 64,
        "num_heads": 12, "num_layers": 12, "num_decoder_layers": 12, "relative_attention_num_buckets": 32,
        "relative_attention_max_distance": 128, "feed_forward_proj": "gated-gelu"})");
    QTest::newRow("t5 without max distance") << "t5-base" << QByteArray(R"({"model_type": "t5", "d_model": 768,
        "d_kv": 64, "num_heads": 12, "num_layers": 12, "relative_attention_num_buckets": 32})");
    QTest::newRow("deberta-v3") << "deberta-v3-base" << QByteArray(R"({"model_type": "deberta-v2",
        "max_position_embeddings": 512, "relative_attention": true, "position_buckets": 256, "norm_rel_ebd": "layer_norm",
        "share_att_key": true, "pos_att_type": "p2c|c2p", "max_relative_positions": -1, "position_biased_input": false,
        "num_attention_heads": 12, "num_hidden_layers": 12, "hidden_size": 768, "type_vocab_size": 0, "vocab_size": 128100})");
    QTest::newRow("gpt2") << "gpt2" << QByteArray(R"({"model_type": "gpt2", "n_positions": 1024, "n_ctx": 1024,
        "n_embd": 768, "n_head": 12, "n_layer": 12, "vocab_size": 50257})");
    QTest::newRow("vit") << "vit-b-16" << QByteArray(R"({"model_type": "vit", "image_size": 224, "patch_size": 16,
        "hidden_size": 768, "num_attention_heads": 12, "num_hidden_layers": 12})");
    QJsonArray noRope;
    for (int i = 0; i < 36; ++i)
        noRope.append((i + 1) % 4 != 0 ? 1 : 0); // 1 = RoPE, 0 = NoPE (PRESETS.md line 62)
    // rope_theta 5000000: the checkpoint's config.json (see smollm3ThetaIsTheCheckpoints).
    QTest::newRow("smollm3 rope_parameters") << "smollm3-3b" << QJsonDocument(QJsonObject{
        {"model_type", "smollm3"}, {"hidden_size", 2048}, {"num_attention_heads", 16}, {"num_key_value_heads", 4},
        {"num_hidden_layers", 36}, {"max_position_embeddings", 65536}, {"no_rope_layer_interval", 4},
        {"no_rope_layers", noRope}, {"rope_parameters", QJsonObject{{"rope_theta", 5000000.0}, {"rope_type", "default"}}},
    }).toJson();
    // clang-format on
}

void TestPresets::configMatchesPreset()
{
    QFETCH(QString, id);
    QFETCH(QByteArray, config);
    const ui::ModelConfig c = ui::parseModelConfig(config, QStringLiteral("config.json"));
    const QJsonObject preset = ui::presetState(*ui::findPreset(id));
    QCOMPARE(c.state.value("scheme").toString(), preset.value("scheme").toString());
    QCOMPARE(c.state.value("dim").toInt(-1), preset.value("dim").toInt(-1));
    QCOMPARE(c.state.value("view").toObject().value("heads").toInt(-1),
             preset.value("view").toObject().value("heads").toInt(-1));
    QCOMPARE(c.state.value("model").toObject().value("layers").toInt(-1),
             preset.value("model").toObject().value("layers").toInt(-1));
    const core::ParamSet a = resolved(c.state), b = resolved(preset);
    for (const auto& [key, value] : b.values())
        QVERIFY2(a.value(key) == value,
                 qPrintable(QString::fromStdString(key + ": config " + a.value(key).toString() + ", preset "
                                                   + value.toString())));
    QVERIFY(a == b);
    ui::WorkbenchState w;
    QCOMPARE(w.fromJson(c.state), QString());
}

// Every key Hugging Face's rope validation accepts for a rope_type (transformers src/transformers/
// modeling_rope_utils.py, _validate_*_parameters: required_keys plus optional_keys) is read, none is called a key
// PosLab cannot express, and each has Hugging Face's meaning: dynamic's optional original_max_position_embeddings
// is not read by _compute_dynamic_ntk_parameters (max_position_embeddings is the trained length there), and
// longrope's optional factor gives the extended length max_position_embeddings * factor only without an
// original_max_position_embeddings (else factor = max / original).
void TestPresets::configAcceptsHuggingFaceRopeKeys_data()
{
    // clang-format off
    QTest::addColumn<QByteArray>("scaling");
    QTest::addColumn<QString>("checkKey");
    QTest::addColumn<QString>("checkValue");
    QTest::newRow("default") << QByteArray(R"({"rope_type": "default"})") << "rope_type" << "default";
    QTest::newRow("linear") << QByteArray(R"({"rope_type": "linear", "factor": 2.0})") << "factor" << "2";
    QTest::newRow("dynamic") << QByteArray(R"({"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 2048})")
                             << "max_position_embeddings" << "4096";
    QTest::newRow("yarn") << QByteArray(R"({"rope_type": "yarn", "factor": 4.0, "attention_factor": 1.2, "beta_fast": 16.0,
        "beta_slow": 2.0, "original_max_position_embeddings": 1024, "mscale": 1.0, "mscale_all_dim": 1.0, "truncate": false})")
                          << "beta_fast" << "16";
    QTest::newRow("llama3") << QByteArray(R"({"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 1024,
        "low_freq_factor": 1.0, "high_freq_factor": 4.0})") << "low_freq_factor" << "1";
    QTest::newRow("longrope factor") << QByteArray(R"({"rope_type": "longrope", "short_factor": [1,1,1,1], "long_factor": [2,2,2,2],
        "factor": 8.0, "attention_factor": 1.1})") << "max_position_embeddings" << "32768";
    QTest::newRow("longrope original") << QByteArray(R"({"rope_type": "longrope", "short_factor": [1,1,1,1], "long_factor": [2,2,2,2],
        "factor": 8.0, "original_max_position_embeddings": 1024})") << "original_max_position_embeddings" << "1024";
    // clang-format on
}

void TestPresets::configAcceptsHuggingFaceRopeKeys()
{
    QFETCH(QByteArray, scaling);
    QFETCH(QString, checkKey);
    QFETCH(QString, checkValue);
    const QByteArray json = R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8,
        "max_position_embeddings": 4096, "rope_theta": 10000.0, "rope_scaling": )"
        + scaling + "}";
    const ui::ModelConfig c = ui::parseModelConfig(json, QStringLiteral("c.json"));
    const QJsonObject sc = QJsonDocument::fromJson(scaling).object();
    for (auto it = sc.begin(); it != sc.end(); ++it) {
        const QString path = QStringLiteral("rope_scaling.") + it.key();
        QVERIFY2(c.used.contains(path), qPrintable(path + " not read; used: " + c.used.join(' ')));
        for (const QString& u : c.unmapped)
            QVERIFY2(!u.startsWith(path + ':'), qPrintable(u));
    }
    QCOMPARE(param(c.state, checkKey.toLatin1().constData()), checkValue);
}

void TestPresets::configSpellings()
{
    auto read = [](const QByteArray& json) { return ui::parseModelConfig(json, QStringLiteral("c.json")); };
    // Phi-3's first revision called LongRoPE "su" (mlc-llm's Phi-3 reader maps it to "longrope").
    const ui::ModelConfig su = read(R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32,
        "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
        "rope_scaling": {"type": "su", "long_factor": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2],
                         "short_factor": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}})");
    QCOMPARE(param(su.state, "rope_type"), QStringLiteral("longrope"));
    QVERIFY(param(su.state, "long_factor").endsWith(",2"));
    // rope_theta absent: the class default 10000 (PRESETS.md caveat 4), said so; not rope_type's PosLab default.
    QCOMPARE(param(su.state, "rope_theta"), QStringLiteral("10000"));
    QVERIFY(su.unmapped.join('\n').contains("rope_theta: absent"));
    // Both "rope_type" and "type": Hugging Face reads rope_type first (modeling_rope_utils.py).
    const ui::ModelConfig both = read(R"({"model_type": "llama", "head_dim": 128, "num_attention_heads": 32,
        "max_position_embeddings": 131072, "rope_theta": 500000.0, "rope_scaling": {"rope_type": "llama3", "type": "linear",
        "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}})");
    QCOMPARE(param(both.state, "rope_type"), QStringLiteral("llama3"));
    // Qwen2.5's documented YaRN: "type" spelling; the original window from rope_scaling.
    const ui::ModelConfig yarn = read(R"({"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
        "num_key_value_heads": 4, "num_hidden_layers": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "sliding_window": 131072, "use_sliding_window": false, "max_window_layers": 28,
        "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}})");
    QCOMPARE(yarn.state.value("scheme").toString(), QStringLiteral("rope"));
    QCOMPARE(param(yarn.state, "rope_type"), QStringLiteral("yarn"));
    QCOMPARE(param(yarn.state, "factor"), QStringLiteral("4"));
    QCOMPARE(param(yarn.state, "original_max_position_embeddings"), QStringLiteral("32768"));
    QCOMPARE(param(yarn.state, "rope_theta"), QStringLiteral("1000000"));
    QCOMPARE(yarn.state.value("dim").toInt(), 128);
    QVERIFY(!yarn.unmapped.join('\n').contains("sliding_window")); // use_sliding_window false
    // Gemma 3's per-layer dicts: the full-attention layers shown, the sliding ones named with their base.
    const ui::ModelConfig g = read(R"({"model_type": "gemma3_text", "head_dim": 256, "num_attention_heads": 4,
        "num_hidden_layers": 26, "max_position_embeddings": 32768, "sliding_window": 512,
        "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000.0},
                            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})");
    QCOMPARE(param(g.state, "rope_theta"), QStringLiteral("1000000"));
    const QString gu = g.unmapped.join('\n');
    QVERIFY2(gu.contains("rope_parameters.sliding_attention: these layers use rope_theta 10000"), qPrintable(gu));
    QVERIFY2(gu.contains("sliding_window: 512"), qPrintable(gu));
    QVERIFY(g.state.value("model").toObject().value("notes").toString().contains("sliding_attention"));
    // A no_rope_layers list that is not one NoPE layer every k is named, not silently reinterpreted.
    const ui::ModelConfig odd = read(R"({"model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16,
        "no_rope_layers": [1, 1, 1, 0, 1, 0, 1, 1], "rope_theta": 2000000.0})");
    QCOMPARE(odd.state.value("scheme").toString(), QStringLiteral("irope"));
    QVERIFY(odd.unmapped.join('\n').contains("no_rope_layers: does not follow"));
    // YaRN without factor: transformers 5 takes max_position_embeddings / original_max_position_embeddings.
    const ui::ModelConfig ratio = read(R"({"model_type": "qwen2", "head_dim": 128, "max_position_embeddings": 131072,
        "rope_parameters": {"rope_type": "yarn", "rope_theta": 1000000.0, "original_max_position_embeddings": 32768}})");
    QCOMPARE(param(ratio.state, "factor"), QStringLiteral("4"));
    QVERIFY(
        ratio.state.value("model").toObject().value("notes").toString().contains("factor 4 = max_position_embeddings"));
    // A learned table: BERT.
    const ui::ModelConfig bert = read(R"({"model_type": "bert", "max_position_embeddings": 512, "hidden_size": 768,
        "num_attention_heads": 12, "num_hidden_layers": 12, "position_embedding_type": "absolute", "type_vocab_size": 2})");
    QCOMPARE(bert.state.value("scheme").toString(), QStringLiteral("learned"));
    QCOMPARE(param(bert.state, "max_position_embeddings"), QStringLiteral("512"));
    QVERIFY(bert.unmapped.join('\n').contains("type_vocab_size: segment"));
    // MPT with a non-standard alibi_bias_max: said, since PosLab's slopes are the standard ones.
    const ui::ModelConfig mpt = read(R"({"model_type": "mpt", "d_model": 4096, "n_heads": 32,
        "attn_config": {"alibi": true, "alibi_bias_max": 16}})");
    QVERIFY(mpt.unmapped.join('\n').contains("attn_config.alibi_bias_max: 16"));
}

void TestPresets::configUsedAndIgnoredKeys()
{
    const ui::ModelConfig c = ui::parseModelConfig(R"({"model_type": "llama", "head_dim": 128,
        "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 131072,
        "rope_theta": 500000.0, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "vocab_size": 128256, "rms_norm_eps": 1e-05})",
                                                   QStringLiteral("config.json"));
    for (const char* k : {"rope_theta", "rope_scaling.factor", "rope_scaling.rope_type", "rope_scaling.low_freq_factor",
                          "rope_scaling.original_max_position_embeddings", "head_dim", "num_attention_heads",
                          "max_position_embeddings", "num_hidden_layers"})
        QVERIFY2(c.used.contains(QLatin1String(k)), k);
    QCOMPARE(c.ignored, (QStringList{"num_key_value_heads", "rms_norm_eps", "vocab_size"}));
    QVERIFY(c.unmapped.isEmpty());
    const QJsonObject model = c.state.value("model").toObject();
    QCOMPARE(model.value("trained_length").toInt(), 8192);
    QCOMPARE(model.value("context_length").toInt(), 131072);
    QCOMPARE(model.value("source").toString(), QStringLiteral("config.json"));
    // DeBERTa: position_biased_input true adds an absolute embedding PosLab's scheme lacks: said.
    const ui::ModelConfig d = ui::parseModelConfig(R"({"model_type": "deberta-v2", "max_position_embeddings": 512,
        "relative_attention": true, "position_buckets": 256, "max_relative_positions": -1, "position_biased_input": true,
        "hidden_size": 768, "num_attention_heads": 12})",
                                                   QStringLiteral("d.json"));
    QVERIFY(d.unmapped.join('\n').contains("position_biased_input"));
    QCOMPARE(param(d.state, "max_relative_positions"), QStringLiteral("512"));
}

void TestPresets::malformedConfigs_data()
{
    // clang-format off
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("not json") << QByteArray("{\"rope_theta\": 10000,") << "bad.json: not valid JSON";
    QTest::newRow("a list") << QByteArray("[1, 2]") << "bad.json: the top level must be a JSON object";
    QTest::newRow("theta as text") << QByteArray(R"({"model_type": "llama", "rope_theta": "10000"})")
                                   << "bad.json: \"rope_theta\" must be a number, got a string";
    QTest::newRow("scaling a number") << QByteArray(R"({"model_type": "llama", "rope_scaling": 8})")
                                      << "bad.json: \"rope_scaling\" must be an object, got a number";
    QTest::newRow("heads fractional") << QByteArray(R"({"model_type": "llama", "num_attention_heads": 3.5})")
                                      << "bad.json: \"num_attention_heads\" must be an integer, got 3.5";
    QTest::newRow("factor list of text") << QByteArray(R"({"model_type": "phi3", "hidden_size": 3072,
        "num_attention_heads": 32, "rope_scaling": {"type": "longrope", "long_factor": ["a"], "short_factor": [1]}})")
                                         << "bad.json: \"rope_scaling.long_factor\" must be a list of numbers";
    QTest::newRow("unknown rope type") << QByteArray(R"({"model_type": "qwen2", "rope_scaling": {"type": "mrope"}})")
                                       << "bad.json: rope type 'mrope' is not one PosLab computes";
    // Keys Hugging Face requires: without them PosLab's defaults (real models' values) would stand in silently.
    QTest::newRow("llama3 without high_freq_factor") << QByteArray(R"({"model_type": "llama", "head_dim": 128,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192}})")
        << "bad.json: rope type llama3 needs \"high_freq_factor\" in rope_scaling";
    QTest::newRow("linear without factor") << QByteArray(R"({"model_type": "llama", "head_dim": 128,
        "rope_scaling": {"rope_type": "linear"}})") << "bad.json: rope type linear needs \"factor\" in rope_scaling";
    QTest::newRow("nothing positional") << QByteArray(R"({"model_type": "mamba", "hidden_size": 768})")
                                        << "bad.json: no positional settings PosLab recognises (model_type 'mamba')";
    QTest::newRow("theta out of range") << QByteArray(R"({"model_type": "llama", "head_dim": 64, "rope_theta": 5})")
                                        << "bad.json: parameter rope_theta = 5 is out of range";
    QTest::newRow("odd head dim") << QByteArray(R"({"model_type": "llama", "head_dim": 7, "rope_theta": 10000})")
                                  << "bad.json: rope needs an even dimension";
    // Found by tests/fuzz/fuzz_modelconfig: a control character in a quoted value made the message two lines.
    // It is written as its JSON escape instead (RFC 8259 section 7).
    QTest::newRow("newline in model_type") << QByteArray(R"({"model_type": "mam\nba", "hidden_size": 768})")
                                           << "bad.json: no positional settings PosLab recognises (model_type 'mam\\nba')";
    QTest::newRow("tab and escape in rope type") << QByteArray(R"({"model_type": "qwen2", "rope_scaling": {"type": "m\trope\u001b"}})")
                                                 << "bad.json: rope type 'm\\trope\\u001b' is not one PosLab computes";
    // clang-format on
}

void TestPresets::malformedConfigs()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    try {
        ui::parseModelConfig(json, QStringLiteral("bad.json"));
        QFAIL("a malformed config was accepted");
    } catch (const std::exception& e) {
        const QString m = QString::fromUtf8(e.what());
        QVERIFY2(m.startsWith(message), qPrintable(m));
        QVERIFY2(!m.contains('\n'), qPrintable(m));
    }
    // A missing file names the file.
    QTemporaryDir dir;
    try {
        ui::readModelConfig(dir.filePath("none.json"));
        QFAIL("a missing file was accepted");
    } catch (const std::exception& e) {
        QVERIFY(QString::fromUtf8(e.what()).contains("none.json"));
    }
}

QTEST_MAIN(TestPresets)
#include "tst_presets.moc"
