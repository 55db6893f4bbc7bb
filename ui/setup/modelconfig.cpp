// SPDX-License-Identifier: MIT
// Hugging Face config.json -> PosLab state. Key spellings checked against huggingface/transformers
// src/transformers/modeling_rope_utils.py ("rope_type" was originally "type": rope_type = rope_scaling.get(
// "rope_type", rope_scaling.get("type")); longrope reads original_max_position_embeddings from the top level
// for Phi-3, else expands max_position_embeddings by factor), configuration_smollm3.py (no_rope_layers[i] =
// int((i + 1) % no_rope_layer_interval != 0), default_theta 2000000), and the configs quoted in
// ../shared/PRESETS.md (mlc-llm's Phi-3 reader maps rope_scaling type "su" to "longrope").
#include "ui/setup/modelconfig.h"

#include "core/attention.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/io/inputfile.h"
#include "core/spatial.h"

#include "ui/setup/configreader.h"
#include "ui/setup/configstages.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>
#include <optional>

namespace poslab::ui {

namespace {

using config::Config;
using config::numberText;
using config::oneLine;
using config::Reader;
using config::readRotary;
using config::typeName;

const QStringList rotaryModelTypes
    = {"llama",           "llama4",     "llama4_text", "mistral",     "mixtral", "qwen2",
       "qwen2_moe",       "qwen3",      "qwen3_moe",   "phi",         "phi3",    "gemma",
       "gemma2",          "gemma3",     "gemma3_text", "gpt_neox",    "gptj",    "falcon",
       "RefinedWebModel", "RefinedWeb", "deepseek_v2", "deepseek_v3", "smollm3", "olmo",
       "olmo2",           "starcoder2", "stablelm",    "cohere",      "granite"};
const QStringList mropeModelTypes = {"qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe"};
const QStringList learnedModelTypes = {"gpt2", "bert", "vit", "gpt_neo"};

/// Qwen2-VL, Qwen2.5-VL and Qwen3-VL (M-RoPE, core/encodings/mrope.h): rope_scaling (or rope_parameters) holds
/// "mrope_section" (type "mrope", which transformers' Qwen2VLConfig rewrites to "default"); Qwen3-VL adds
/// "mrope_interleaved"; Qwen2.5-VL's vision_config holds tokens_per_second.
void readMrope(Config& m)
{
    const QString variant = m.modelType.startsWith(QLatin1String("qwen3_vl")) ? QStringLiteral("qwen3_vl")
        : m.modelType.startsWith(QLatin1String("qwen2_5_vl"))                 ? QStringLiteral("qwen2_5_vl")
                                                                              : QStringLiteral("qwen2_vl");
    if (!m.modelType.isEmpty())
        m.r.use("model_type");
    m.set("variant", variant);
    QJsonObject sc;
    QString scPath = m.pre + QStringLiteral("rope_scaling.");
    if (const auto p = m.r.object(m.c, "rope_parameters", m.pre + "rope_parameters")) {
        sc = *p;
        scPath = m.pre + QStringLiteral("rope_parameters.");
    } else if (const auto s = m.r.object(m.c, "rope_scaling", m.pre + "rope_scaling")) {
        sc = *s;
    }
    for (const char* k : {"type", "rope_type"})
        if (const auto t = m.r.text(sc, QLatin1String(k), scPath + QLatin1String(k));
            t && *t != "mrope" && *t != "default")
            m.r.fail(QStringLiteral("rope type '%1' with M-RoPE sections is not one PosLab computes (it computes "
                                    "mrope / default)")
                         .arg(*t));
    std::optional<double> theta = m.r.number(sc, "rope_theta", scPath + "rope_theta");
    if (!theta)
        theta = m.r.number(m.c, "rope_theta", m.pre + "rope_theta");
    if (theta)
        m.set("rope_theta", numberText(*theta));
    else
        m.r.unmap(m.pre + "rope_theta", "absent; PosLab's mrope default 1000000 used");
    if (const auto list = m.r.numberList(sc, "mrope_section", scPath + "mrope_section"))
        m.set("mrope_section", *list);
    else
        m.r.unmap(scPath + "mrope_section", QStringLiteral("absent; the %1 default used").arg(variant));
    if (const auto inter = m.r.flag(sc, "mrope_interleaved", scPath + "mrope_interleaved")) {
        if (variant == QLatin1String("qwen3_vl") && !*inter)
            m.r.unmap(scPath + "mrope_interleaved",
                      "false, but Hugging Face's Qwen3-VL interleaves the sections always "
                      "(apply_interleaved_mrope); PosLab does the same");
        else if (*inter)
            m.set("sections", "interleaved");
    }
    const auto vision = m.r.object(m.root, "vision_config", "vision_config");
    if (variant == QLatin1String("qwen2_5_vl")) {
        std::optional<double> tps;
        if (vision)
            tps = m.r.number(*vision, "tokens_per_second", "vision_config.tokens_per_second");
        if (!tps)
            tps = m.r.number(m.c, "tokens_per_second", m.pre + "tokens_per_second");
        if (tps)
            m.set("tokens_per_second", numberText(*tps));
        else
            m.r.unmap("vision_config.tokens_per_second", "absent; PosLab's default 2 used");
    }
    if (vision) {
        if (const auto merge = m.r.count(*vision, "spatial_merge_size", "vision_config.spatial_merge_size"))
            m.r.notes << QStringLiteral("Image and video sizes in --sequence are after the vision encoder's %1 x %1 "
                                        "spatial merge (vision_config.spatial_merge_size).")
                             .arg(*merge);
        if (const auto t = m.r.count(*vision, "temporal_patch_size", "vision_config.temporal_patch_size"))
            m.r.notes << QStringLiteral("One temporal grid step is %1 frames (vision_config.temporal_patch_size): "
                                        "second_per_grid = %1 / fps.")
                             .arg(*t);
    }
}

QJsonObject readRoot(Reader& r, const QByteArray& bytes)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError)
        r.fail(QStringLiteral("not valid JSON: %1 at byte %2").arg(pe.errorString()).arg(pe.offset));
    if (!doc.isObject())
        r.fail(QStringLiteral("the top level must be a JSON object (a config.json), got %1")
                   .arg(doc.isArray() ? QStringLiteral("a list") : QStringLiteral("something else")));
    return doc.object();
}

/// text_config (multimodal configs), model_type and _name_or_path.
void readNames(Config& m)
{
    // Multimodal configs (Gemma 3 4B+, Llama 4) keep the language model's settings in text_config.
    if (const auto tc = m.r.object(m.root, "text_config", "text_config")) {
        m.c = *tc;
        m.pre = QStringLiteral("text_config.");
    }
    m.modelType = m.r.text(m.root, "model_type", "model_type")
                      .value_or(m.r.text(m.c, "model_type", m.key("model_type")).value_or(QString()));
    m.nameOrPath = m.r.text(m.root, "_name_or_path", "_name_or_path").value_or(QString());
}

/// Heads, hidden size, layers, context length and the head dimension.
void readSizes(Config& m)
{
    auto firstCount = [&](const QJsonObject& o, const QString& prefix, std::initializer_list<const char*> keys) {
        for (const char* k : keys)
            if (const auto v = m.r.size(o, QLatin1String(k), prefix + QLatin1String(k)))
                return v;
        return std::optional<int>();
    };
    m.heads = firstCount(m.c, m.pre, {"num_attention_heads", "n_head", "n_heads", "num_heads"});
    m.hidden = firstCount(m.c, m.pre, {"hidden_size", "n_embd", "d_model"});
    m.layers = firstCount(m.c, m.pre, {"num_hidden_layers", "n_layer", "n_layers", "num_layers"});
    m.context = firstCount(m.c, m.pre, {"max_position_embeddings", "n_positions", "max_seq_len", "seq_length"});
    if (m.heads && (*m.heads < 1 || *m.heads > core::maxHeads))
        m.r.fail(QStringLiteral("%1 attention heads is outside 1 to %2").arg(*m.heads).arg(core::maxHeads));
    m.headDim = firstCount(m.c, m.pre, {"head_dim", "d_kv"});
    if (!m.headDim && m.hidden && m.heads && *m.hidden % *m.heads == 0) {
        m.headDim = *m.hidden / *m.heads; // Hugging Face: hidden_size // num_attention_heads
    }
}

/// T5's relative-attention buckets.
void readT5(Config& m)
{
    m.scheme = "t5";
    const auto buckets = m.r.count(m.c, "relative_attention_num_buckets", m.key("relative_attention_num_buckets"));
    m.set("relative_attention_num_buckets", QString::number(buckets.value_or(32)));
    if (!buckets)
        m.r.unmap(m.key("relative_attention_num_buckets"), "absent; transformers' T5Config default 32 used");
    const auto maxDistance
        = m.r.count(m.c, "relative_attention_max_distance", m.key("relative_attention_max_distance"));
    m.set("relative_attention_max_distance", QString::number(maxDistance.value_or(128)));
    if (!maxDistance)
        m.r.unmap(m.key("relative_attention_max_distance"),
                  "absent, as in older T5 files; transformers' default 128 used");
    m.set("bidirectional", "true");
    m.r.notes << QStringLiteral("The encoder's bidirectional buckets are shown; the decoder's are causal "
                                "(--set bidirectional=false).");
}

/// DeBERTa: relative attention (the deberta scheme), else its absolute table.
void readDeberta(Config& m)
{
    const bool relative = m.r.flag(m.c, "relative_attention", m.key("relative_attention")).value_or(false);
    if (relative) {
        m.scheme = "deberta";
        const int buckets = m.r.count(m.c, "position_buckets", m.key("position_buckets")).value_or(-1);
        m.set("position_buckets", QString::number(std::max(0, buckets))); // <= 0: no log buckets
        int maxRel = m.r.count(m.c, "max_relative_positions", m.key("max_relative_positions")).value_or(-1);
        if (maxRel < 1) { // DeBERTa: -1 means max_position_embeddings
            if (!m.context)
                m.r.fail(
                    "max_relative_positions is -1 (use max_position_embeddings) but max_position_embeddings is absent");
            maxRel = *m.context;
        }
        m.set("max_relative_positions", QString::number(maxRel));
        if (m.r.flag(m.c, "position_biased_input", m.key("position_biased_input")).value_or(true))
            m.r.unmap(m.key("position_biased_input"),
                      "true (or absent: the default): an absolute position embedding is also "
                      "added to the input; PosLab's deberta scheme has none");
        if (const QJsonValue t = m.c.value("pos_att_type"); !t.isUndefined()) {
            const QString s = t.isArray() ? t.toVariant().toStringList().join('|') : t.toString();
            if (s.contains("c2p") && s.contains("p2c"))
                m.r.use(m.key("pos_att_type"));
            else
                m.r.unmap(m.key("pos_att_type"), QStringLiteral("'%1': PosLab computes both c2p and p2c").arg(s));
        }
        for (const char* k : {"share_att_key", "norm_rel_ebd"})
            if (m.c.contains(QLatin1String(k)))
                m.r.unmap(m.key(QLatin1String(k)),
                          "changes the trained relative embeddings; PosLab's tables are seeded random");
    } else {
        m.scheme = "learned";
    }
}

/// Which scheme the keys describe, and that scheme's keys.
void chooseScheme(Config& m)
{
    const auto attn = m.r.object(m.c, "attn_config", m.key("attn_config"));
    const auto falconAlibi = m.r.flag(m.c, "alibi", m.key("alibi"));

    // --- which scheme ----------------------------------------------------------------------------------------
    const bool t5 = m.modelType == "t5" || m.modelType == "mt5" || m.modelType == "umt5"
        || m.c.contains("relative_attention_num_buckets");
    const bool deberta = m.modelType.startsWith("deberta");
    const bool rotaryKeys = m.c.contains("rope_theta") || m.c.contains("rope_scaling")
        || m.c.contains("rope_parameters") || m.c.contains("rotary_pct") || m.c.contains("rotary_dim")
        || m.c.contains("rotary_emb_base") || m.c.contains("partial_rotary_factor") || m.c.contains("qk_rope_head_dim")
        || m.c.contains("no_rope_layers") || m.c.contains("no_rope_layer_interval");
    if (m.modelType == "bloom") {
        m.scheme = "alibi";
        m.r.use("model_type");
        if (m.c.contains("offset_alibi"))
            m.r.unmap(m.key("offset_alibi"), "present in BLOOM's file but not used by Hugging Face's BloomModel");
    } else if (attn && m.r.flag(*attn, "alibi", m.key("attn_config.alibi")).value_or(false)) {
        m.scheme = "alibi";
        if (const auto biasMax = m.r.number(*attn, "alibi_bias_max", m.key("attn_config.alibi_bias_max"));
            biasMax && *biasMax != 8)
            m.r.unmap(m.key("attn_config.alibi_bias_max"),
                      QStringLiteral("%1: PosLab's slopes are standard ALiBi (2^(-8h/H), "
                                     "alibi_bias_max 8)")
                          .arg(numberText(*biasMax)));
        if (m.c.value("learned_pos_emb").toBool())
            m.r.unmap(m.key("learned_pos_emb"),
                      "true in the file, but llm-foundry turns the learned table off when alibi is on");
    } else if (falconAlibi && *falconAlibi) {
        m.scheme = "alibi";
    } else if (t5) {
        readT5(m);
    } else if (deberta) {
        readDeberta(m);
    } else if (mropeModelTypes.contains(m.modelType) || m.c.value("rope_scaling").toObject().contains("mrope_section")
               || m.c.value("rope_parameters").toObject().contains("mrope_section")) {
        m.scheme = "mrope";
        readMrope(m);
    } else if (rotaryKeys || rotaryModelTypes.contains(m.modelType)) {
        readRotary(m, falconAlibi.has_value());
    } else if (learnedModelTypes.contains(m.modelType) || m.c.contains("n_positions")
               || m.c.value("position_embedding_type").toString() == QLatin1String("absolute")) {
        m.scheme = "learned";
    } else {
        m.r.fail(QStringLiteral(
                     "no positional settings PosLab recognises (model_type '%1'); it reads RoPE keys (rope_theta, "
                     "rope_scaling, rope_parameters, rotary_pct, ...), ALiBi flags, T5 and DeBERTa keys and "
                     "learned tables (GPT-2, BERT, ViT)")
                     .arg(m.modelType));
    }
}

/// A learned table's length (ViT's from its patch grid) and the keys it cannot express.
void readLearnedTable(Config& m)
{
    std::optional<int> rows = m.context;
    if (m.modelType == "vit") {
        const auto image = m.r.size(m.c, "image_size", m.key("image_size"));
        const auto patch = m.r.size(m.c, "patch_size", m.key("patch_size"));
        if (image && patch && *image % *patch == 0) {
            // The patch grid flattened plus [CLS], in 64 bits: an image_size of 2e9 overflowed int.
            const long long side = *image / *patch, n = side * side + 1;
            if (n > 1 << 20)
                m.r.fail(QStringLiteral("(image_size/patch_size)^2 + 1 = %1 positions; a learned table has at most %2")
                             .arg(n)
                             .arg(1 << 20));
            rows = int(n);
            m.r.notes << QStringLiteral("%1 = (image_size/patch_size)^2 + 1 positions, derived: the 2-D patch grid "
                                        "flattened, plus the class token.")
                             .arg(*rows);
        }
    }
    if (!rows)
        m.r.fail("a learned table needs its length (max_position_embeddings or n_positions)");
    m.set("max_position_embeddings", QString::number(*rows));
    if (const auto t = m.r.text(m.c, "position_embedding_type", m.key("position_embedding_type"));
        t && *t != "absolute")
        m.r.unmap(m.key("position_embedding_type"),
                  QStringLiteral("'%1' is not the absolute table PosLab shows").arg(*t));
    if (const auto tv = m.r.count(m.c, "type_vocab_size", m.key("type_vocab_size")); tv && *tv > 0)
        m.r.unmap(m.key("type_vocab_size"), "segment (token-type) embeddings are not modelled");
    if (!m.trained)
        m.trained = rows;
    if (m.modelType != "vit")
        m.r.count(m.c, "n_ctx", m.key("n_ctx"));
}

/// Attention that limits which keys a query sees (not PosLab's full causal mask).
void unmapLimitedAttention(Config& m)
{
    if (m.c.contains("sliding_window") && !m.c.value("sliding_window").isNull()
        && m.c.value("use_sliding_window").toBool(true))
        m.r.unmap(m.key("sliding_window"),
                  QStringLiteral("%1: sliding-window attention is not modelled")
                      .arg(m.c.value("sliding_window").isDouble()
                               ? numberText(m.c.value("sliding_window").toDouble())
                               : typeName(m.c.value("sliding_window")) + QStringLiteral(", not a number")));
    for (const char* k : {"sliding_window_pattern", "layer_types"})
        if (m.c.contains(QLatin1String(k)) && !m.r.used.contains(m.key(QLatin1String(k))))
            m.r.unmap(m.key(QLatin1String(k)),
                      "which layers are local or global is not modelled: one layer type is shown");
    if (m.scheme == QLatin1String("alibi") && m.c.contains("alibi_bias_max"))
        m.r.use(m.key("alibi_bias_max"));
}

/// The keys through the scheme's own resolver, so a value the scheme refuses fails here with its message.
void checkWithScheme(Config& m)
{
    if (const core::SpatialSchemeDescriptor* spatial = core::findSpatialScheme(m.scheme.toStdString())) {
        try {
            core::SpatialContext sctx;
            sctx.dim = m.headDim.value_or(128);
            sctx.sequence = core::parseSequence("text:1");
            core::resolveSpatialParams(*spatial, m.params, sctx);
        } catch (const std::exception& e) {
            m.r.fail(QString::fromStdString(e.what()));
        }
    } else
        try {
            const core::SchemeDescriptor& s = core::schemeOrThrow(m.scheme.toStdString());
            core::TableContext ctx;
            ctx.dim = m.headDim.value_or(128);
            const int rows
                = m.scheme == QLatin1String("learned") ? QString::fromStdString(m.params.front().second).toInt() : 1024;
            ctx.positions = core::PositionList::range(0, std::max(1, std::min(rows, 1024)));
            core::resolveParams(s, m.params, ctx);
        } catch (const std::exception& e) {
            m.r.fail(QString::fromStdString(e.what()));
        }
}

/// The state object (presets.h); @p unmapped gets the unmapped keys with their control characters escaped.
QJsonObject stateObject(const Config& m, const QString& name, QStringList* unmapped)
{
    QJsonObject paramsJson;
    for (const auto& [k, v] : m.params)
        paramsJson.insert(QString::fromStdString(k), QString::fromStdString(v));
    QJsonObject state{{"scheme", m.scheme}, {"params", paramsJson}};
    if (m.headDim) {
        if (*m.headDim < 2 || *m.headDim > 4096)
            m.r.fail(QStringLiteral("head dimension %1 is outside 2 to 4096").arg(*m.headDim));
        state.insert("dim", *m.headDim);
    }
    if (m.heads)
        state.insert("view", QJsonObject{{"heads", *m.heads}});
    if (m.scheme == QLatin1String("learned")) // the views show no position past the table
        state.insert("positions", QString::fromStdString(m.params.front().second).toInt());
    const QString title = !m.nameOrPath.isEmpty() ? m.nameOrPath
        : !m.modelType.isEmpty() ? m.modelType + QStringLiteral(" (") + QFileInfo(name).fileName() + QLatin1Char(')')
                                 : QFileInfo(name).fileName();
    QJsonObject model{{"id", title}, {"name", title}, {"source", name}};
    if (m.trained)
        model.insert("trained_length", *m.trained);
    if (m.context)
        model.insert("context_length", *m.context);
    if (m.layers)
        model.insert("layers", *m.layers);
    model.insert("unverified", QJsonArray());
    QStringList notes = m.r.notes;
    // Keys are echoed with their control characters escaped (a key holding ESC cleared the terminal).
    for (const QString& u : m.r.unmapped)
        *unmapped << oneLine(u);
    if (!unmapped->isEmpty())
        notes << QStringLiteral("Not mapped: ") + unmapped->join(QStringLiteral("; ")) + QLatin1Char('.');
    if (!notes.isEmpty())
        model.insert("notes", notes.join(QLatin1Char(' ')));
    state.insert("model", model);
    return state;
}

/// Every top-level key (of text_config too) neither used nor named as unmapped.
QStringList ignoredKeys(const Config& m)
{
    QStringList ignored;
    auto collect = [&](const QJsonObject& o, const QString& prefix) {
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString k = prefix + it.key();
            if (k == QLatin1String("text_config"))
                continue;
            const bool seen
                = std::any_of(m.r.used.begin(), m.r.used.end(),
                              [&](const QString& u) { return u == k || u.startsWith(k + QLatin1Char('.')); })
                || std::any_of(m.r.unmapped.begin(), m.r.unmapped.end(), [&](const QString& u) {
                       return u.startsWith(k + QLatin1Char(':')) || u.startsWith(k + QLatin1Char('.'));
                   });
            if (!seen)
                ignored << oneLine(k);
        }
    };
    collect(m.root, QString());
    if (!m.pre.isEmpty())
        collect(m.c, m.pre);
    return ignored;
}

} // namespace

ModelConfig parseModelConfig(const QByteArray& bytes, const QString& name)
{
    Reader r(name);
    Config m(r, readRoot(r, bytes));
    readNames(m);
    readSizes(m);
    chooseScheme(m);
    if (m.scheme == QLatin1String("learned"))
        readLearnedTable(m);
    unmapLimitedAttention(m);
    checkWithScheme(m);
    ModelConfig out;
    out.state = stateObject(m, name, &out.unmapped);
    out.used = r.used;
    out.ignored = ignoredKeys(m);
    return out;
}

ModelConfig readModelConfig(const QString& path)
{
    // A config.json is a few kB; anything absurd (a huge file, /dev/zero, an endless pipe) is refused by the
    // one bounded reader before it is held.
    constexpr std::uint64_t maxBytes = std::uint64_t(16) << 20;
    const std::string bytes
        = core::readInputFile(path.toStdString(), maxBytes, "model config", "a config.json is a few kilobytes");
    return parseModelConfig(QByteArray(bytes.data(), qsizetype(bytes.size())), path);
}

} // namespace poslab::ui