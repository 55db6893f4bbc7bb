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

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <optional>

namespace poslab::ui {

namespace {

using core::InputError;

QString typeName(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("true/false");
    case QJsonValue::Double: return QStringLiteral("a number");
    case QJsonValue::String: return QStringLiteral("a string");
    case QJsonValue::Array: return QStringLiteral("a list");
    case QJsonValue::Object: return QStringLiteral("an object");
    default: return QStringLiteral("nothing");
    }
}

/// A number as the text --set takes: integers without a fraction or exponent, others in the shortest form
/// that reads back to the same double.
QString numberText(double x)
{
    if (x == std::floor(x) && std::abs(x) < 1e15)
        return QString::number(qint64(x));
    return QString::number(x, 'g', QLocale::FloatingPointShortest);
}

/// @p text on one line: a control character the file put into a key or value it quotes (a newline in
/// "model_type") is written as its JSON escape (\n, \t, \u001b), so the message stays one line.
QString oneLine(const QString& text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (u == u'\n')
            out += QLatin1String("\\n");
        else if (u == u'\r')
            out += QLatin1String("\\r");
        else if (u == u'\t')
            out += QLatin1String("\\t");
        else if (u < 0x20 || u == 0x7f || u == 0x2028 || u == 0x2029)
            out += QStringLiteral("\\u%1").arg(int(u), 4, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return out;
}

class Reader {
public:
    Reader(QString name) : m_name(std::move(name)) {}

    [[noreturn]] void fail(const QString& what) const
    {
        throw InputError(oneLine(m_name + QStringLiteral(": ") + what).toStdString());
    }

    // Typed getters: absent or null -> nullopt; the wrong type -> one message naming the file and the key.
    std::optional<double> number(const QJsonObject& o, const QString& key, const QString& path)
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        if (!v.isDouble())
            fail(QStringLiteral("\"%1\" must be a number, got %2").arg(path, typeName(v)));
        use(path);
        return v.toDouble();
    }
    std::optional<int> count(const QJsonObject& o, const QString& key, const QString& path)
    {
        const auto x = number(o, key, path);
        if (!x)
            return std::nullopt;
        if (*x != std::floor(*x) || std::abs(*x) > 2147483647.0)
            fail(QStringLiteral("\"%1\" must be an integer, got %2").arg(path, numberText(*x)));
        return int(*x);
    }
    /// A size (heads, widths, lengths): an integer of at least 1, checked before any arithmetic with it (a head_dim
    /// of 0 divided rotary_dim by zero).
    std::optional<int> size(const QJsonObject& o, const QString& key, const QString& path)
    {
        const auto n = count(o, key, path);
        if (n && *n < 1)
            fail(QStringLiteral("\"%1\" is %2; a size must be 1 or more").arg(path).arg(*n));
        return n;
    }
    std::optional<bool> flag(const QJsonObject& o, const QString& key, const QString& path, bool numberIsFlag = false)
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        if (numberIsFlag && v.isDouble()) { // Llama 4 copies write "attn_temperature_tuning": 4 (PRESETS.md)
            use(path);
            return v.toDouble() != 0;
        }
        if (!v.isBool())
            fail(QStringLiteral("\"%1\" must be true or false, got %2").arg(path, typeName(v)));
        use(path);
        return v.toBool();
    }
    std::optional<QString> text(const QJsonObject& o, const QString& key, const QString& path)
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        if (!v.isString())
            fail(QStringLiteral("\"%1\" must be a string, got %2").arg(path, typeName(v)));
        use(path);
        return v.toString();
    }
    std::optional<QJsonObject> object(const QJsonObject& o, const QString& key, const QString& path)
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        if (!v.isObject())
            fail(QStringLiteral("\"%1\" must be an object, got %2").arg(path, typeName(v)));
        return v.toObject();
    }
    std::optional<QJsonArray> array(const QJsonObject& o, const QString& key, const QString& path)
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        if (!v.isArray())
            fail(QStringLiteral("\"%1\" must be a list, got %2").arg(path, typeName(v)));
        return v.toArray();
    }
    std::optional<QString> numberList(const QJsonObject& o, const QString& key, const QString& path)
    {
        const auto a = array(o, key, path);
        if (!a)
            return std::nullopt;
        QStringList parts;
        for (const QJsonValue& x : *a) {
            if (!x.isDouble())
                fail(QStringLiteral("\"%1\" must be a list of numbers; element %2 is %3").arg(path).arg(parts.size() + 1).arg(typeName(x)));
            parts << numberText(x.toDouble());
        }
        use(path);
        return parts.join(QLatin1Char(','));
    }

    void use(const QString& path)
    {
        if (!used.contains(path))
            used << path;
    }
    void unmap(const QString& path, const QString& why)
    {
        used.removeAll(path);
        unmapped << path + QStringLiteral(": ") + why;
    }
    bool isUnmapped(const QString& path) const
    {
        for (const QString& u : unmapped)
            if (u.startsWith(path + QStringLiteral(":")))
                return true;
        return false;
    }

    QString m_name;
    QStringList used, unmapped;
    QStringList notes; ///< remarks that name no key (which half of a model is shown, a derived length)
};

const QStringList rotaryModelTypes = {
    "llama", "llama4", "llama4_text", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "phi", "phi3",
    "gemma", "gemma2", "gemma3", "gemma3_text", "gpt_neox", "gptj", "falcon", "RefinedWebModel", "RefinedWeb",
    "deepseek_v2", "deepseek_v3", "smollm3", "olmo", "olmo2", "starcoder2", "stablelm", "cohere", "granite"};
const QStringList mropeModelTypes = {"qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe"};
const QStringList learnedModelTypes = {"gpt2", "bert", "vit", "gpt_neo"};
const QStringList ropeTypes = {"default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"};
const QStringList scalingKeys = {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor",
                                 "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "attention_factor", "truncate",
                                 "short_factor", "long_factor"};

/// Qwen2-VL, Qwen2.5-VL and Qwen3-VL (M-RoPE, core/encodings/mrope.h): rope_scaling (or rope_parameters) holds
/// "mrope_section" (type "mrope", which transformers' Qwen2VLConfig rewrites to "default"); Qwen3-VL adds
/// "mrope_interleaved"; Qwen2.5-VL's vision_config holds tokens_per_second. @p c is the language model's object
/// (text_config when there is one), @p pre its key prefix.
void readMrope(Reader& r, const QJsonObject& root, const QJsonObject& c, const QString& pre, const QString& modelType,
               core::Overrides& params)
{
    auto set = [&](const QString& k, const QString& v) { params.emplace_back(k.toStdString(), v.toStdString()); };
    const QString variant = modelType.startsWith(QLatin1String("qwen3_vl"))     ? QStringLiteral("qwen3_vl")
                          : modelType.startsWith(QLatin1String("qwen2_5_vl")) ? QStringLiteral("qwen2_5_vl")
                                                                               : QStringLiteral("qwen2_vl");
    if (!modelType.isEmpty())
        r.use("model_type");
    set("variant", variant);
    QJsonObject sc;
    QString scPath = pre + QStringLiteral("rope_scaling.");
    if (const auto p = r.object(c, "rope_parameters", pre + "rope_parameters")) {
        sc = *p;
        scPath = pre + QStringLiteral("rope_parameters.");
    } else if (const auto s = r.object(c, "rope_scaling", pre + "rope_scaling")) {
        sc = *s;
    }
    for (const char* k : {"type", "rope_type"})
        if (const auto t = r.text(sc, QLatin1String(k), scPath + QLatin1String(k)); t && *t != "mrope" && *t != "default")
            r.fail(QStringLiteral("rope type '%1' with M-RoPE sections is not one PosLab computes (it computes "
                                  "mrope / default)").arg(*t));
    std::optional<double> theta = r.number(sc, "rope_theta", scPath + "rope_theta");
    if (!theta)
        theta = r.number(c, "rope_theta", pre + "rope_theta");
    if (theta)
        set("rope_theta", numberText(*theta));
    else
        r.unmap(pre + "rope_theta", "absent; PosLab's mrope default 1000000 used");
    if (const auto list = r.numberList(sc, "mrope_section", scPath + "mrope_section"))
        set("mrope_section", *list);
    else
        r.unmap(scPath + "mrope_section", QStringLiteral("absent; the %1 default used").arg(variant));
    if (const auto inter = r.flag(sc, "mrope_interleaved", scPath + "mrope_interleaved")) {
        if (variant == QLatin1String("qwen3_vl") && !*inter)
            r.unmap(scPath + "mrope_interleaved", "false, but Hugging Face's Qwen3-VL interleaves the sections always "
                                                  "(apply_interleaved_mrope); PosLab does the same");
        else if (*inter)
            set("sections", "interleaved");
    }
    const auto vision = r.object(root, "vision_config", "vision_config");
    if (variant == QLatin1String("qwen2_5_vl")) {
        std::optional<double> tps;
        if (vision)
            tps = r.number(*vision, "tokens_per_second", "vision_config.tokens_per_second");
        if (!tps)
            tps = r.number(c, "tokens_per_second", pre + "tokens_per_second");
        if (tps)
            set("tokens_per_second", numberText(*tps));
        else
            r.unmap("vision_config.tokens_per_second", "absent; PosLab's default 2 used");
    }
    if (vision) {
        if (const auto m = r.count(*vision, "spatial_merge_size", "vision_config.spatial_merge_size"))
            r.notes << QStringLiteral("Image and video sizes in --sequence are after the vision encoder's %1 x %1 "
                                      "spatial merge (vision_config.spatial_merge_size).").arg(*m);
        if (const auto t = r.count(*vision, "temporal_patch_size", "vision_config.temporal_patch_size"))
            r.notes << QStringLiteral("One temporal grid step is %1 frames (vision_config.temporal_patch_size): "
                                      "second_per_grid = %1 / fps.").arg(*t);
    }
}

} // namespace

ModelConfig parseModelConfig(const QByteArray& bytes, const QString& name)
{
    Reader r(name);
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError)
        r.fail(QStringLiteral("not valid JSON: %1 at byte %2").arg(pe.errorString()).arg(pe.offset));
    if (!doc.isObject())
        r.fail(QStringLiteral("the top level must be a JSON object (a config.json), got %1")
                   .arg(doc.isArray() ? QStringLiteral("a list") : QStringLiteral("something else")));
    const QJsonObject root = doc.object();
    // Multimodal configs (Gemma 3 4B+, Llama 4) keep the language model's settings in text_config.
    QJsonObject c = root;
    QString pre;
    if (const auto tc = r.object(root, "text_config", "text_config")) {
        c = *tc;
        pre = QStringLiteral("text_config.");
    }
    auto key = [&](const QString& k) { return pre + k; };
    const QString modelType = r.text(root, "model_type", "model_type").value_or(
        r.text(c, "model_type", key("model_type")).value_or(QString()));
    const QString nameOrPath = r.text(root, "_name_or_path", "_name_or_path").value_or(QString());

    // --- sizes ---------------------------------------------------------------------------------------------
    auto firstCount = [&](const QJsonObject& o, const QString& prefix, std::initializer_list<const char*> keys) {
        for (const char* k : keys)
            if (const auto v = r.size(o, QLatin1String(k), prefix + QLatin1String(k)))
                return v;
        return std::optional<int>();
    };
    const auto heads = firstCount(c, pre, {"num_attention_heads", "n_head", "n_heads", "num_heads"});
    const auto hidden = firstCount(c, pre, {"hidden_size", "n_embd", "d_model"});
    const auto layers = firstCount(c, pre, {"num_hidden_layers", "n_layer", "n_layers", "num_layers"});
    const auto context = firstCount(c, pre, {"max_position_embeddings", "n_positions", "max_seq_len", "seq_length"});
    if (heads && (*heads < 1 || *heads > core::maxHeads))
        r.fail(QStringLiteral("%1 attention heads is outside 1 to %2").arg(*heads).arg(core::maxHeads));
    std::optional<int> headDim = firstCount(c, pre, {"head_dim", "d_kv"});
    if (!headDim && hidden && heads && *hidden % *heads == 0) {
        headDim = *hidden / *heads; // Hugging Face: hidden_size // num_attention_heads
    }
    std::optional<int> trained;

    QString scheme;
    core::Overrides params;
    auto set = [&](const QString& k, const QString& v) { params.emplace_back(k.toStdString(), v.toStdString()); };
    const auto attn = r.object(c, "attn_config", key("attn_config"));
    const auto falconAlibi = r.flag(c, "alibi", key("alibi"));

    // --- which scheme ----------------------------------------------------------------------------------------
    const bool t5 = modelType == "t5" || modelType == "mt5" || modelType == "umt5"
        || c.contains("relative_attention_num_buckets");
    const bool deberta = modelType.startsWith("deberta");
    const bool rotaryKeys = c.contains("rope_theta") || c.contains("rope_scaling") || c.contains("rope_parameters")
        || c.contains("rotary_pct") || c.contains("rotary_dim") || c.contains("rotary_emb_base")
        || c.contains("partial_rotary_factor") || c.contains("qk_rope_head_dim") || c.contains("no_rope_layers")
        || c.contains("no_rope_layer_interval");
    if (modelType == "bloom") {
        scheme = "alibi";
        r.use("model_type");
        if (c.contains("offset_alibi"))
            r.unmap(key("offset_alibi"), "present in BLOOM's file but not used by Hugging Face's BloomModel");
    } else if (attn && r.flag(*attn, "alibi", key("attn_config.alibi")).value_or(false)) {
        scheme = "alibi";
        if (const auto m = r.number(*attn, "alibi_bias_max", key("attn_config.alibi_bias_max")); m && *m != 8)
            r.unmap(key("attn_config.alibi_bias_max"), QStringLiteral("%1: PosLab's slopes are standard ALiBi (2^(-8h/H), "
                                                                    "alibi_bias_max 8)").arg(numberText(*m)));
        if (c.value("learned_pos_emb").toBool())
            r.unmap(key("learned_pos_emb"), "true in the file, but llm-foundry turns the learned table off when alibi is on");
    } else if (falconAlibi && *falconAlibi) {
        scheme = "alibi";
    } else if (t5) {
        scheme = "t5";
        const auto buckets = r.count(c, "relative_attention_num_buckets", key("relative_attention_num_buckets"));
        set("relative_attention_num_buckets", QString::number(buckets.value_or(32)));
        if (!buckets)
            r.unmap(key("relative_attention_num_buckets"), "absent; transformers' T5Config default 32 used");
        const auto maxDistance = r.count(c, "relative_attention_max_distance", key("relative_attention_max_distance"));
        set("relative_attention_max_distance", QString::number(maxDistance.value_or(128)));
        if (!maxDistance)
            r.unmap(key("relative_attention_max_distance"), "absent, as in older T5 files; transformers' default 128 used");
        set("bidirectional", "true");
        r.notes << QStringLiteral("The encoder's bidirectional buckets are shown; the decoder's are causal "
                                  "(--set bidirectional=false).");
    } else if (deberta) {
        const bool relative = r.flag(c, "relative_attention", key("relative_attention")).value_or(false);
        if (relative) {
            scheme = "deberta";
            const int buckets = r.count(c, "position_buckets", key("position_buckets")).value_or(-1);
            set("position_buckets", QString::number(std::max(0, buckets))); // <= 0: no log buckets
            int maxRel = r.count(c, "max_relative_positions", key("max_relative_positions")).value_or(-1);
            if (maxRel < 1) { // DeBERTa: -1 means max_position_embeddings
                if (!context)
                    r.fail("max_relative_positions is -1 (use max_position_embeddings) but max_position_embeddings is absent");
                maxRel = *context;
            }
            set("max_relative_positions", QString::number(maxRel));
            if (r.flag(c, "position_biased_input", key("position_biased_input")).value_or(true))
                r.unmap(key("position_biased_input"), "true (or absent: the default): an absolute position embedding is also "
                                                      "added to the input; PosLab's deberta scheme has none");
            if (const QJsonValue t = c.value("pos_att_type"); !t.isUndefined()) {
                const QString s = t.isArray() ? t.toVariant().toStringList().join('|') : t.toString();
                if (s.contains("c2p") && s.contains("p2c"))
                    r.use(key("pos_att_type"));
                else
                    r.unmap(key("pos_att_type"), QStringLiteral("'%1': PosLab computes both c2p and p2c").arg(s));
            }
            for (const char* k : {"share_att_key", "norm_rel_ebd"})
                if (c.contains(QLatin1String(k)))
                    r.unmap(key(QLatin1String(k)), "changes the trained relative embeddings; PosLab's tables are seeded random");
        } else {
            scheme = "learned";
        }
    } else if (mropeModelTypes.contains(modelType)
               || c.value("rope_scaling").toObject().contains("mrope_section")
               || c.value("rope_parameters").toObject().contains("mrope_section")) {
        scheme = "mrope";
        readMrope(r, root, c, pre, modelType, params);
    } else if (rotaryKeys || rotaryModelTypes.contains(modelType)) {
        if (falconAlibi)
            r.use(key("alibi"));
        // rope_parameters (transformers 5), possibly one dict per layer type; else rope_theta + rope_scaling.
        QJsonObject rp;
        QString rpPath;
        if (const auto p = r.object(c, "rope_parameters", key("rope_parameters"))) {
            const bool perLayer = !p->contains("rope_type") && !p->contains("rope_theta") && !p->isEmpty()
                && std::all_of(p->begin(), p->end(), [](const QJsonValue& v) { return v.isObject(); });
            if (perLayer) {
                const QString chosen = p->contains("full_attention") ? QStringLiteral("full_attention") : p->keys().first();
                rp = p->value(chosen).toObject();
                rpPath = key("rope_parameters.") + chosen + QLatin1Char('.');
                for (auto it = p->begin(); it != p->end(); ++it)
                    if (it.key() != chosen) {
                        const QJsonObject o = it.value().toObject();
                        r.unmap(key("rope_parameters.") + it.key(),
                                QStringLiteral("these layers use rope_theta %1, rope_type %2; PosLab shows the %3 layers")
                                    .arg(o.contains("rope_theta") ? numberText(o.value("rope_theta").toDouble()) : QStringLiteral("?"),
                                         o.value("rope_type").toString(QStringLiteral("default")), chosen));
                    }
            } else {
                rp = *p;
                rpPath = key("rope_parameters.");
            }
        }
        QJsonObject sc;
        QString scPath;
        if (!rpPath.isEmpty()) {
            sc = rp;
            scPath = rpPath;
        } else if (const auto s = r.object(c, "rope_scaling", key("rope_scaling"))) {
            sc = *s;
            scPath = key("rope_scaling.");
        } else if (c.contains("rope_scaling")) {
            r.use(key("rope_scaling")); // null: no scaling
        }
        QString type = QStringLiteral("default");
        if (const auto t = r.text(sc, "rope_type", scPath + "rope_type"))
            type = *t;
        else if (const auto t2 = r.text(sc, "type", scPath + "type"))
            type = *t2;
        if (sc.contains("rope_type") && sc.contains("type"))
            r.use(scPath + "type");
        if (type == QLatin1String("su"))
            type = QStringLiteral("longrope"); // Phi-3's first name for LongRoPE
        if (!ropeTypes.contains(type))
            r.fail(QStringLiteral("rope type '%1' is not one PosLab computes (known: %2)").arg(type, ropeTypes.join(", ")));

        std::optional<double> theta = r.number(rp, "rope_theta", rpPath + "rope_theta");
        if (!theta)
            theta = r.number(c, "rope_theta", key("rope_theta"));
        if (!theta)
            theta = r.number(c, "rotary_emb_base", key("rotary_emb_base"));
        const bool nope = c.contains("no_rope_layers") || c.contains("no_rope_layer_interval");
        if (!theta) {
            // Omitted rope_theta is the class default (PRESETS.md caveat 4): 10000 for Llama-, Mistral-, Falcon- and
            // NeoX-style classes; SmolLM3Config.default_theta 2000000; Llama4TextConfig 500000.
            theta = modelType == "smollm3" ? 2000000.0 : modelType.startsWith("llama4") ? 500000.0 : 10000.0;
            r.unmap(key("rope_theta"), QStringLiteral("absent; the class default %1 used").arg(numberText(*theta)));
        }
        const auto pick = [&](const char* k) { return r.number(sc, QLatin1String(k), scPath + QLatin1String(k)); };

        if (nope) {
            scheme = "irope";
            int interval = r.count(c, "no_rope_layer_interval", key("no_rope_layer_interval")).value_or(0);
            if (const auto list = r.array(c, "no_rope_layers", key("no_rope_layers"))) {
                if (interval == 0)
                    for (int i = 0; i < list->size(); ++i)
                        if (list->at(i).toDouble(1) == 0) {
                            interval = i + 1;
                            break;
                        }
                bool pattern = interval > 0;
                for (int i = 0; i < list->size() && pattern; ++i)
                    pattern = (list->at(i).toDouble(-1) != 0) == ((i + 1) % interval != 0);
                if (pattern)
                    r.use(key("no_rope_layers"));
                else
                    r.unmap(key("no_rope_layers"), "does not follow one NoPE layer every k layers, which is what "
                                                   "PosLab's irope computes");
            }
            if (interval < 1)
                r.fail("no_rope_layers has no NoPE layer and no no_rope_layer_interval is given");
            set("nope_layer_interval", QString::number(interval));
            set("rope_theta", numberText(*theta));
            if (type != QLatin1String("default") && type != QLatin1String("llama3"))
                r.fail(QStringLiteral("rope type '%1' on a model with NoPE layers: PosLab's irope scheme computes llama3 "
                                      "scaling or none").arg(type));
            set("rope_type", type);
            if (type == QLatin1String("llama3"))
                for (const char* k : {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}) {
                    // Hugging Face requires all four (_validate_llama3_parameters); PosLab's defaults would
                    // silently be Llama 4 Scout's.
                    const auto v = pick(k);
                    if (!v)
                        r.fail(QStringLiteral("rope type llama3 needs \"%1\" in %2").arg(QLatin1String(k), scPath.chopped(1)));
                    set(QLatin1String(k), numberText(*v));
                }
            const bool llama4 = modelType.startsWith("llama4");
            const auto tuning = r.flag(c, "attn_temperature_tuning", key("attn_temperature_tuning"), true);
            // Llama4TextConfig defaults to temperature tuning on; SmolLM3Config has no such key (none).
            set("attn_temperature_tuning", tuning.value_or(llama4) ? "true" : "false");
            for (const char* k : {"floor_scale", "attn_scale"})
                if (const auto v = r.number(c, QLatin1String(k), key(QLatin1String(k))))
                    set(QLatin1String(k), numberText(*v));
            if (c.contains("attention_chunk_size"))
                r.unmap(key("attention_chunk_size"), "the RoPE layers attend only within chunks; PosLab's attention is not chunked");
            if (c.contains("use_qk_norm"))
                r.unmap(key("use_qk_norm"), "the RoPE layers' L2 norm of q and k is not modelled");
        } else {
            scheme = "rope";
            set("rope_theta", numberText(*theta));
            set("rope_type", type);
            // Layout: GPT-J rotates every two (interleaved); DeepSeek's weights are interleaved; newer configs say
            // rope_interleave (PRESETS.md caveat 3). Otherwise Hugging Face's rotate_half.
            const bool interleave = r.flag(c, "rope_interleave", key("rope_interleave")).value_or(false);
            if (interleave || modelType == "gptj" || modelType.startsWith("deepseek_v")) {
                set("layout", "interleaved");
                if (!interleave)
                    r.use("model_type");
            }
            // DeepSeek's MLA: the rotary part of each head is qk_rope_head_dim wide; the rest carries no position.
            if (const auto rd = r.size(c, "qk_rope_head_dim", key("qk_rope_head_dim"))) {
                headDim = *rd;
                if (const auto nd = r.count(c, "qk_nope_head_dim", key("qk_nope_head_dim")))
                    r.unmap(key("qk_nope_head_dim"), QStringLiteral("%1 more dims per q/k head carry no position; PosLab shows "
                                                                 "the %2 rotary dims as the head").arg(*nd).arg(*rd));
            }
            std::optional<double> partial = r.number(rp, "partial_rotary_factor", rpPath + "partial_rotary_factor");
            if (!partial)
                partial = r.number(c, "partial_rotary_factor", key("partial_rotary_factor"));
            if (!partial)
                partial = r.number(c, "rotary_pct", key("rotary_pct"));
            if (const auto rotaryDim = r.size(c, "rotary_dim", key("rotary_dim")); rotaryDim && !partial) {
                if (!headDim)
                    r.fail("rotary_dim is given but the head dimension is not (head_dim, or hidden size and heads)");
                partial = double(*rotaryDim) / *headDim;
                if (int(*headDim * *partial) != *rotaryDim)
                    r.unmap(key("rotary_dim"), QStringLiteral("%1 of %2 cannot be written as a partial_rotary_factor").arg(*rotaryDim).arg(*headDim));
            }
            if (partial && *partial != 1.0)
                set("partial_rotary_factor", numberText(*partial));
            // Keys of the scaling dict that PosLab's chosen type takes; others are named, not dropped silently.
            const core::SchemeDescriptor& rope = core::schemeOrThrow("rope");
            for (auto it = sc.begin(); it != sc.end(); ++it) {
                const QString k = it.key();
                if (k == QLatin1String("rope_type") || k == QLatin1String("type") || k == QLatin1String("rope_theta")
                    || k == QLatin1String("partial_rotary_factor"))
                    continue;
                if (!scalingKeys.contains(k)) {
                    r.unmap(scPath + k, "not a key PosLab's rope scheme has");
                    continue;
                }
                // Optional keys Hugging Face's validation accepts for the type (modeling_rope_utils.py
                // _validate_dynamic_scaling_rope_parameters, _validate_longrope_parameters), with its meaning:
                // _compute_dynamic_ntk_parameters does not read original_max_position_embeddings (the trained
                // length is max_position_embeddings); longrope's factor is read below.
                if (type == QLatin1String("dynamic") && k == QLatin1String("original_max_position_embeddings")) {
                    r.use(scPath + k);
                    r.notes << QStringLiteral("%1 is accepted for rope type dynamic as Hugging Face accepts it, and, "
                                              "as there, not used: the trained length is max_position_embeddings.")
                                   .arg(scPath + k);
                    continue;
                }
                if (type == QLatin1String("longrope") && k == QLatin1String("factor")) {
                    r.use(scPath + k);
                    continue;
                }
                const auto spec = std::find_if(rope.params.begin(), rope.params.end(),
                                               [&](const core::ParamSpec& s) { return s.key == k.toStdString(); });
                if (spec == rope.params.end()) {
                    r.unmap(scPath + k, "not a key PosLab's rope scheme has");
                    continue;
                }
                bool applies = true;
                for (const auto& cond : spec->appliesWhen)
                    if (std::find(cond.values.begin(), cond.values.end(), type.toStdString()) == cond.values.end())
                        applies = false;
                if (!applies) {
                    r.unmap(scPath + k, QStringLiteral("PosLab's rope_type %1 has no such key").arg(type));
                    continue;
                }
                if (k == QLatin1String("short_factor") || k == QLatin1String("long_factor")) {
                    if (const auto list = r.numberList(sc, k, scPath + k))
                        set(k, *list);
                }
                else if (k == QLatin1String("truncate"))
                    set(k, r.flag(sc, k, scPath + k).value_or(true) ? "true" : "false");
                else if (const auto v = r.number(sc, k, scPath + k))
                    set(k, numberText(*v));
            }
            const auto inScaling = [&](const char* k) {
                return std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == k; });
            };
            if (type == QLatin1String("llama3") || type == QLatin1String("yarn")) {
                if (inScaling("original_max_position_embeddings"))
                    trained = sc.value("original_max_position_embeddings").toInt();
                else if (context) {
                    // modeling_rope_utils.py: YaRN's original window falls back to max_position_embeddings.
                    set("original_max_position_embeddings", QString::number(*context));
                    trained = *context;
                }
                if (type == QLatin1String("yarn") && context)
                    set("max_position_embeddings", QString::number(*context));
            } else if (type == QLatin1String("dynamic") && context) {
                set("max_position_embeddings", QString::number(*context));
                trained = *context;
            } else if (type == QLatin1String("longrope")) {
                const auto top = r.count(c, "original_max_position_embeddings", key("original_max_position_embeddings"));
                if (top && !inScaling("original_max_position_embeddings"))
                    set("original_max_position_embeddings", QString::number(*top));
                const auto factor = sc.value("factor");
                if (top || inScaling("original_max_position_embeddings")) {
                    trained = top ? *top : sc.value("original_max_position_embeddings").toInt();
                    if (factor.isDouble())
                        r.notes << QStringLiteral("%1factor %2 is not used: with original_max_position_embeddings, "
                                                  "Hugging Face's longrope takes factor = max_position_embeddings / "
                                                  "original_max_position_embeddings.").arg(scPath, numberText(factor.toDouble()));
                    if (context)
                        set("max_position_embeddings", QString::number(*context));
                } else if (context && factor.isDouble()) {
                    // Without an original window Hugging Face takes max_position_embeddings as the original and
                    // extends it by factor.
                    set("original_max_position_embeddings", QString::number(*context));
                    set("max_position_embeddings", numberText(*context * factor.toDouble()));
                    trained = *context;
                    r.use(scPath + "factor");
                }
            }
            // Keys Hugging Face requires (modeling_rope_utils.py _validate_*): without them PosLab's defaults, which
            // are real models' values, would stand in silently.
            const auto need = [&](const char* k) {
                if (!inScaling(k))
                    r.fail(QStringLiteral("rope type %1 needs \"%2\" in %3").arg(type, QLatin1String(k), scPath.chopped(1)));
            };
            if (type == QLatin1String("linear") || type == QLatin1String("ntk") || type == QLatin1String("dynamic")
                || type == QLatin1String("llama3"))
                need("factor");
            if (type == QLatin1String("llama3"))
                for (const char* k : {"low_freq_factor", "high_freq_factor", "original_max_position_embeddings"})
                    need(k);
            if (type == QLatin1String("longrope")) {
                need("short_factor");
                need("long_factor");
            }
            if (type == QLatin1String("yarn") && !inScaling("factor")) {
                // transformers 5: factor = max_position_embeddings / original_max_position_embeddings when absent.
                if (!context || !trained)
                    r.fail(QStringLiteral("rope type yarn without \"factor\" needs max_position_embeddings and "
                                          "original_max_position_embeddings"));
                set("factor", numberText(double(*context) / *trained));
                r.notes << QStringLiteral("YaRN's factor %1 = max_position_embeddings / original_max_position_embeddings "
                                          "(absent from the file; transformers 5 derives it so).").arg(numberText(double(*context) / *trained));
            }
        }
        if (const auto local = r.number(c, "rope_local_base_freq", key("rope_local_base_freq")))
            r.unmap(key("rope_local_base_freq"), QStringLiteral("the local (sliding-window) layers use base %1 with no "
                                                              "scaling; PosLab shows the global layers").arg(numberText(*local)));
        if (const auto q = r.number(c, "query_pre_attn_scalar", key("query_pre_attn_scalar")); q && headDim && *q != *headDim)
            r.unmap(key("query_pre_attn_scalar"), QStringLiteral("%1: scores are scaled by 1/sqrt(%1), not 1/sqrt(head_dim)").arg(numberText(*q)));
    } else if (learnedModelTypes.contains(modelType) || c.contains("n_positions")
               || c.value("position_embedding_type").toString() == QLatin1String("absolute")) {
        scheme = "learned";
    } else {
        r.fail(QStringLiteral("no positional settings PosLab recognises (model_type '%1'); it reads RoPE keys (rope_theta, "
                              "rope_scaling, rope_parameters, rotary_pct, ...), ALiBi flags, T5 and DeBERTa keys and "
                              "learned tables (GPT-2, BERT, ViT)").arg(modelType));
    }

    if (scheme == QLatin1String("learned")) {
        std::optional<int> rows = context;
        if (modelType == "vit") {
            const auto image = r.size(c, "image_size", key("image_size"));
            const auto patch = r.size(c, "patch_size", key("patch_size"));
            if (image && patch && *image % *patch == 0) {
                // The patch grid flattened plus [CLS], in 64 bits: an image_size of 2e9 overflowed int.
                const long long side = *image / *patch, n = side * side + 1;
                if (n > 1 << 20)
                    r.fail(QStringLiteral("(image_size/patch_size)^2 + 1 = %1 positions; a learned table has at most %2")
                               .arg(n)
                               .arg(1 << 20));
                rows = int(n);
                r.notes << QStringLiteral("%1 = (image_size/patch_size)^2 + 1 positions, derived: the 2-D patch grid "
                                          "flattened, plus the class token.").arg(*rows);
            }
        }
        if (!rows)
            r.fail("a learned table needs its length (max_position_embeddings or n_positions)");
        set("max_position_embeddings", QString::number(*rows));
        if (const auto t = r.text(c, "position_embedding_type", key("position_embedding_type")); t && *t != "absolute")
            r.unmap(key("position_embedding_type"), QStringLiteral("'%1' is not the absolute table PosLab shows").arg(*t));
        if (const auto tv = r.count(c, "type_vocab_size", key("type_vocab_size")); tv && *tv > 0)
            r.unmap(key("type_vocab_size"), "segment (token-type) embeddings are not modelled");
        if (!trained)
            trained = rows;
        if (modelType != "vit")
            r.count(c, "n_ctx", key("n_ctx"));
    }
    // Attention that limits which keys a query sees (not PosLab's full causal mask).
    if (c.contains("sliding_window") && !c.value("sliding_window").isNull() && c.value("use_sliding_window").toBool(true))
        r.unmap(key("sliding_window"), QStringLiteral("%1: sliding-window attention is not modelled")
                                           .arg(c.value("sliding_window").isDouble()
                                                    ? numberText(c.value("sliding_window").toDouble())
                                                    : typeName(c.value("sliding_window")) + QStringLiteral(", not a number")));
    for (const char* k : {"sliding_window_pattern", "layer_types"})
        if (c.contains(QLatin1String(k)) && !r.used.contains(key(QLatin1String(k))))
            r.unmap(key(QLatin1String(k)), "which layers are local or global is not modelled: one layer type is shown");
    if (scheme == QLatin1String("alibi") && c.contains("alibi_bias_max"))
        r.use(key("alibi_bias_max"));

    // --- the state -------------------------------------------------------------------------------------------
    if (const core::SpatialSchemeDescriptor* spatial = core::findSpatialScheme(scheme.toStdString())) {
        try {
            core::SpatialContext sctx;
            sctx.dim = headDim.value_or(128);
            sctx.sequence = core::parseSequence("text:1");
            core::resolveSpatialParams(*spatial, params, sctx);
        } catch (const std::exception& e) {
            r.fail(QString::fromStdString(e.what()));
        }
    } else try {
        const core::SchemeDescriptor& s = core::schemeOrThrow(scheme.toStdString());
        core::TableContext ctx;
        ctx.dim = headDim.value_or(128);
        const int rows = scheme == QLatin1String("learned") ? QString::fromStdString(params.front().second).toInt() : 1024;
        ctx.positions = core::PositionList::range(0, std::max(1, std::min(rows, 1024)));
        core::resolveParams(s, params, ctx);
    } catch (const std::exception& e) {
        r.fail(QString::fromStdString(e.what()));
    }
    QJsonObject paramsJson;
    for (const auto& [k, v] : params)
        paramsJson.insert(QString::fromStdString(k), QString::fromStdString(v));
    QJsonObject state{{"scheme", scheme}, {"params", paramsJson}};
    if (headDim) {
        if (*headDim < 2 || *headDim > 4096)
            r.fail(QStringLiteral("head dimension %1 is outside 2 to 4096").arg(*headDim));
        state.insert("dim", *headDim);
    }
    if (heads)
        state.insert("view", QJsonObject{{"heads", *heads}});
    if (scheme == QLatin1String("learned")) // the views show no position past the table
        state.insert("positions", QString::fromStdString(params.front().second).toInt());
    const QString title = !nameOrPath.isEmpty() ? nameOrPath
        : !modelType.isEmpty()                   ? modelType + QStringLiteral(" (") + QFileInfo(name).fileName() + QLatin1Char(')')
                                                 : QFileInfo(name).fileName();
    QJsonObject model{{"id", title}, {"name", title}, {"source", name}};
    if (trained)
        model.insert("trained_length", *trained);
    if (context)
        model.insert("context_length", *context);
    if (layers)
        model.insert("layers", *layers);
    model.insert("unverified", QJsonArray());
    QStringList notes = r.notes;
    // Keys are echoed with their control characters escaped (a key holding ESC cleared the terminal).
    QStringList unmapped;
    for (const QString& u : r.unmapped)
        unmapped << oneLine(u);
    if (!unmapped.isEmpty())
        notes << QStringLiteral("Not mapped: ") + unmapped.join(QStringLiteral("; ")) + QLatin1Char('.');
    if (!notes.isEmpty())
        model.insert("notes", notes.join(QLatin1Char(' ')));
    state.insert("model", model);

    ModelConfig out;
    out.state = state;
    out.used = r.used;
    out.unmapped = unmapped;
    // Every top-level key (of text_config too) neither used nor named as unmapped.
    auto collect = [&](const QJsonObject& o, const QString& prefix) {
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString k = prefix + it.key();
            if (k == QLatin1String("text_config"))
                continue;
            const bool seen = std::any_of(r.used.begin(), r.used.end(), [&](const QString& u) {
                return u == k || u.startsWith(k + QLatin1Char('.'));
            }) || std::any_of(r.unmapped.begin(), r.unmapped.end(), [&](const QString& u) {
                return u.startsWith(k + QLatin1Char(':')) || u.startsWith(k + QLatin1Char('.'));
            });
            if (!seen)
                out.ignored << oneLine(k);
        }
    };
    collect(root, QString());
    if (!pre.isEmpty())
        collect(c, pre);
    return out;
}

ModelConfig readModelConfig(const QString& path)
{
    // A config.json is a few kB; anything absurd (a huge file, /dev/zero, an endless pipe) is refused by the
    // one bounded reader before it is held.
    constexpr std::uint64_t maxBytes = std::uint64_t(16) << 20;
    const std::string bytes = core::readInputFile(path.toStdString(), maxBytes, "model config",
                                                  "a config.json is a few kilobytes");
    return parseModelConfig(QByteArray(bytes.data(), qsizetype(bytes.size())), path);
}

} // namespace poslab::ui
