// SPDX-License-Identifier: MIT
// The rotary half of the config.json reader (modelconfig.cpp has the rest). Key spellings checked against
// huggingface/transformers src/transformers/modeling_rope_utils.py ("rope_type" was originally "type"; longrope
// reads original_max_position_embeddings from the top level for Phi-3, else expands max_position_embeddings by
// factor) and configuration_smollm3.py (no_rope_layers[i] = int((i + 1) % no_rope_layer_interval != 0)).
#include "ui/setup/configstages.h"

#include "core/errors.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <optional>

namespace poslab::ui::config {

namespace {

const QStringList ropeTypes = {"default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"};
const QStringList scalingKeys = {"factor",           "original_max_position_embeddings",
                                 "low_freq_factor",  "high_freq_factor",
                                 "beta_fast",        "beta_slow",
                                 "mscale",           "mscale_all_dim",
                                 "attention_factor", "truncate",
                                 "short_factor",     "long_factor"};

/// The rotary keys' sources: rope_parameters (one layer type's, when they are per layer type) or rope_scaling,
/// the rope type they name and rope_theta.
struct RopeKeys {
    QJsonObject rp; ///< rope_parameters as used (empty when absent)
    QString rpPath; ///< its dotted path with a trailing '.', or empty
    QJsonObject sc; ///< the scaling dict: rope_parameters, else rope_scaling
    QString scPath;
    QString type = QStringLiteral("default");
    std::optional<double> theta;
};

/// rope_parameters (transformers 5), possibly one dict per layer type: the full-attention layers' is used and
/// the others are named.
void readRopeParameters(Config& m, RopeKeys& rk)
{
    if (const auto p = m.r.object(m.c, "rope_parameters", m.key("rope_parameters"))) {
        const bool perLayer = !p->contains("rope_type") && !p->contains("rope_theta") && !p->isEmpty()
            && std::all_of(p->begin(), p->end(), [](const QJsonValue& v) { return v.isObject(); });
        if (perLayer) {
            const QString chosen = p->contains("full_attention") ? QStringLiteral("full_attention") : p->keys().first();
            rk.rp = p->value(chosen).toObject();
            rk.rpPath = m.key("rope_parameters.") + chosen + QLatin1Char('.');
            for (auto it = p->begin(); it != p->end(); ++it)
                if (it.key() != chosen) {
                    const QJsonObject o = it.value().toObject();
                    m.r.unmap(m.key("rope_parameters.") + it.key(),
                              QStringLiteral("these layers use rope_theta %1, rope_type %2; PosLab shows the %3 layers")
                                  .arg(o.contains("rope_theta") ? numberText(o.value("rope_theta").toDouble())
                                                                : QStringLiteral("?"),
                                       o.value("rope_type").toString(QStringLiteral("default")), chosen));
                }
        } else {
            rk.rp = *p;
            rk.rpPath = m.key("rope_parameters.");
        }
    }
}

/// The scaling dict (rope_parameters, else rope_scaling) and the rope type it names.
void readScalingType(Config& m, RopeKeys& rk)
{
    if (!rk.rpPath.isEmpty()) {
        rk.sc = rk.rp;
        rk.scPath = rk.rpPath;
    } else if (const auto s = m.r.object(m.c, "rope_scaling", m.key("rope_scaling"))) {
        rk.sc = *s;
        rk.scPath = m.key("rope_scaling.");
    } else if (m.c.contains("rope_scaling")) {
        m.r.use(m.key("rope_scaling")); // null: no scaling
    }
    if (const auto t = m.r.text(rk.sc, "rope_type", rk.scPath + "rope_type"))
        rk.type = *t;
    else if (const auto t2 = m.r.text(rk.sc, "type", rk.scPath + "type"))
        rk.type = *t2;
    if (rk.sc.contains("rope_type") && rk.sc.contains("type"))
        m.r.use(rk.scPath + "type");
    if (rk.type == QLatin1String("su"))
        rk.type = QStringLiteral("longrope"); // Phi-3's first name for LongRoPE
    if (!ropeTypes.contains(rk.type))
        m.r.fail(
            QStringLiteral("rope type '%1' is not one PosLab computes (known: %2)").arg(rk.type, ropeTypes.join(", ")));
}

/// rope_theta from rope_parameters, the model's object or GPT-NeoX's rotary_emb_base, else the class default.
void readTheta(Config& m, RopeKeys& rk)
{
    rk.theta = m.r.number(rk.rp, "rope_theta", rk.rpPath + "rope_theta");
    if (!rk.theta)
        rk.theta = m.r.number(m.c, "rope_theta", m.key("rope_theta"));
    if (!rk.theta)
        rk.theta = m.r.number(m.c, "rotary_emb_base", m.key("rotary_emb_base"));
    if (!rk.theta) {
        // Omitted rope_theta is the class default (PRESETS.md caveat 4): 10000 for Llama-, Mistral-, Falcon- and
        // NeoX-style classes; SmolLM3Config.default_theta 2000000; Llama4TextConfig 500000.
        rk.theta = m.modelType == "smollm3" ? 2000000.0 : m.modelType.startsWith("llama4") ? 500000.0 : 10000.0;
        m.r.unmap(m.key("rope_theta"), QStringLiteral("absent; the class default %1 used").arg(numberText(*rk.theta)));
    }
}

/// Llama 4 and SmolLM3: RoPE with one NoPE layer every k layers (the irope scheme).
void readIrope(Config& m, const RopeKeys& rk)
{
    const auto pick = [&](const char* k) { return m.r.number(rk.sc, QLatin1String(k), rk.scPath + QLatin1String(k)); };
    m.scheme = "irope";
    int interval = m.r.count(m.c, "no_rope_layer_interval", m.key("no_rope_layer_interval")).value_or(0);
    if (const auto list = m.r.array(m.c, "no_rope_layers", m.key("no_rope_layers"))) {
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
            m.r.use(m.key("no_rope_layers"));
        else
            m.r.unmap(m.key("no_rope_layers"),
                      "does not follow one NoPE layer every k layers, which is what "
                      "PosLab's irope computes");
    }
    if (interval < 1)
        m.r.fail("no_rope_layers has no NoPE layer and no no_rope_layer_interval is given");
    m.set("nope_layer_interval", QString::number(interval));
    m.set("rope_theta", numberText(*rk.theta));
    if (rk.type != QLatin1String("default") && rk.type != QLatin1String("llama3"))
        m.r.fail(QStringLiteral("rope type '%1' on a model with NoPE layers: PosLab's irope scheme computes llama3 "
                                "scaling or none")
                     .arg(rk.type));
    m.set("rope_type", rk.type);
    if (rk.type == QLatin1String("llama3"))
        for (const char* k : {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}) {
            // Hugging Face requires all four (_validate_llama3_parameters); PosLab's defaults would
            // silently be Llama 4 Scout's.
            const auto v = pick(k);
            if (!v)
                m.r.fail(
                    QStringLiteral("rope type llama3 needs \"%1\" in %2").arg(QLatin1String(k), rk.scPath.chopped(1)));
            m.set(QLatin1String(k), numberText(*v));
        }
    const bool llama4 = m.modelType.startsWith("llama4");
    const auto tuning = m.r.flag(m.c, "attn_temperature_tuning", m.key("attn_temperature_tuning"), true);
    // Llama4TextConfig defaults to temperature tuning on; SmolLM3Config has no such key (none).
    m.set("attn_temperature_tuning", tuning.value_or(llama4) ? "true" : "false");
    for (const char* k : {"floor_scale", "attn_scale"})
        if (const auto v = m.r.number(m.c, QLatin1String(k), m.key(QLatin1String(k))))
            m.set(QLatin1String(k), numberText(*v));
    if (m.c.contains("attention_chunk_size"))
        m.r.unmap(m.key("attention_chunk_size"),
                  "the RoPE layers attend only within chunks; PosLab's attention is not chunked");
    if (m.c.contains("use_qk_norm"))
        m.r.unmap(m.key("use_qk_norm"), "the RoPE layers' L2 norm of q and k is not modelled");
}

/// The rope scheme's layout, DeepSeek's rotary head width and the partial rotary factor.
void readRopeShape(Config& m, const RopeKeys& rk)
{
    // Layout: GPT-J rotates every two (interleaved); DeepSeek's weights are interleaved; newer configs say
    // rope_interleave (PRESETS.md caveat 3). Otherwise Hugging Face's rotate_half.
    const bool interleave = m.r.flag(m.c, "rope_interleave", m.key("rope_interleave")).value_or(false);
    if (interleave || m.modelType == "gptj" || m.modelType.startsWith("deepseek_v")) {
        m.set("layout", "interleaved");
        if (!interleave)
            m.r.use("model_type");
    }
    // DeepSeek's MLA: the rotary part of each head is qk_rope_head_dim wide; the rest carries no position.
    if (const auto rd = m.r.size(m.c, "qk_rope_head_dim", m.key("qk_rope_head_dim"))) {
        m.headDim = *rd;
        if (const auto nd = m.r.count(m.c, "qk_nope_head_dim", m.key("qk_nope_head_dim")))
            m.r.unmap(m.key("qk_nope_head_dim"),
                      QStringLiteral("%1 more dims per q/k head carry no position; PosLab shows "
                                     "the %2 rotary dims as the head")
                          .arg(*nd)
                          .arg(*rd));
    }
    std::optional<double> partial = m.r.number(rk.rp, "partial_rotary_factor", rk.rpPath + "partial_rotary_factor");
    if (!partial)
        partial = m.r.number(m.c, "partial_rotary_factor", m.key("partial_rotary_factor"));
    if (!partial)
        partial = m.r.number(m.c, "rotary_pct", m.key("rotary_pct"));
    if (const auto rotaryDim = m.r.size(m.c, "rotary_dim", m.key("rotary_dim")); rotaryDim && !partial) {
        if (!m.headDim)
            m.r.fail("rotary_dim is given but the head dimension is not (head_dim, or hidden size and heads)");
        partial = double(*rotaryDim) / *m.headDim;
        if (int(*m.headDim * *partial) != *rotaryDim)
            m.r.unmap(m.key("rotary_dim"),
                      QStringLiteral("%1 of %2 cannot be written as a partial_rotary_factor")
                          .arg(*rotaryDim)
                          .arg(*m.headDim));
    }
    if (partial && *partial != 1.0)
        m.set("partial_rotary_factor", numberText(*partial));
}

/// Keys of the scaling dict that PosLab's chosen type takes; others are named, not dropped silently.
void readScalingKeys(Config& m, const RopeKeys& rk)
{
    const core::SchemeDescriptor& rope = core::schemeOrThrow("rope");
    for (auto it = rk.sc.begin(); it != rk.sc.end(); ++it) {
        const QString k = it.key();
        if (k == QLatin1String("rope_type") || k == QLatin1String("type") || k == QLatin1String("rope_theta")
            || k == QLatin1String("partial_rotary_factor"))
            continue;
        if (!scalingKeys.contains(k)) {
            m.r.unmap(rk.scPath + k, "not a key PosLab's rope scheme has");
            continue;
        }
        // Optional keys Hugging Face's validation accepts for the type (modeling_rope_utils.py
        // _validate_dynamic_scaling_rope_parameters, _validate_longrope_parameters), with its meaning:
        // _compute_dynamic_ntk_parameters does not read original_max_position_embeddings (the trained
        // length is max_position_embeddings); longrope's factor is read below.
        if (rk.type == QLatin1String("dynamic") && k == QLatin1String("original_max_position_embeddings")) {
            m.r.use(rk.scPath + k);
            m.r.notes << QStringLiteral("%1 is accepted for rope type dynamic as Hugging Face accepts it, and, "
                                        "as there, not used: the trained length is max_position_embeddings.")
                             .arg(rk.scPath + k);
            continue;
        }
        if (rk.type == QLatin1String("longrope") && k == QLatin1String("factor")) {
            m.r.use(rk.scPath + k);
            continue;
        }
        const auto spec = std::find_if(rope.params.begin(), rope.params.end(),
                                       [&](const core::ParamSpec& s) { return s.key == k.toStdString(); });
        if (spec == rope.params.end()) {
            m.r.unmap(rk.scPath + k, "not a key PosLab's rope scheme has");
            continue;
        }
        bool applies = true;
        for (const auto& cond : spec->appliesWhen)
            if (std::find(cond.values.begin(), cond.values.end(), rk.type.toStdString()) == cond.values.end())
                applies = false;
        if (!applies) {
            m.r.unmap(rk.scPath + k, QStringLiteral("PosLab's rope_type %1 has no such key").arg(rk.type));
            continue;
        }
        if (k == QLatin1String("short_factor") || k == QLatin1String("long_factor")) {
            if (const auto list = m.r.numberList(rk.sc, k, rk.scPath + k))
                m.set(k, *list);
        } else if (k == QLatin1String("truncate"))
            m.set(k, m.r.flag(rk.sc, k, rk.scPath + k).value_or(true) ? "true" : "false");
        else if (const auto v = m.r.number(rk.sc, k, rk.scPath + k))
            m.set(k, numberText(*v));
    }
}

/// The original and extended windows each rope type reads, from the scaling dict or the model's lengths.
void deriveScalingLengths(Config& m, const RopeKeys& rk)
{
    if (rk.type == QLatin1String("llama3") || rk.type == QLatin1String("yarn")) {
        if (m.isSet("original_max_position_embeddings"))
            m.trained = rk.sc.value("original_max_position_embeddings").toInt();
        else if (m.context) {
            // modeling_rope_utils.py: YaRN's original window falls back to max_position_embeddings.
            m.set("original_max_position_embeddings", QString::number(*m.context));
            m.trained = *m.context;
        }
        if (rk.type == QLatin1String("yarn") && m.context)
            m.set("max_position_embeddings", QString::number(*m.context));
    } else if (rk.type == QLatin1String("dynamic") && m.context) {
        m.set("max_position_embeddings", QString::number(*m.context));
        m.trained = *m.context;
    } else if (rk.type == QLatin1String("longrope")) {
        const auto top = m.r.count(m.c, "original_max_position_embeddings", m.key("original_max_position_embeddings"));
        if (top && !m.isSet("original_max_position_embeddings"))
            m.set("original_max_position_embeddings", QString::number(*top));
        const auto factor = rk.sc.value("factor");
        if (top || m.isSet("original_max_position_embeddings")) {
            m.trained = top ? *top : rk.sc.value("original_max_position_embeddings").toInt();
            if (factor.isDouble())
                m.r.notes << QStringLiteral("%1factor %2 is not used: with original_max_position_embeddings, "
                                            "Hugging Face's longrope takes factor = max_position_embeddings / "
                                            "original_max_position_embeddings.")
                                 .arg(rk.scPath, numberText(factor.toDouble()));
            if (m.context)
                m.set("max_position_embeddings", QString::number(*m.context));
        } else if (m.context && factor.isDouble()) {
            // Without an original window Hugging Face takes max_position_embeddings as the original and
            // extends it by factor.
            m.set("original_max_position_embeddings", QString::number(*m.context));
            m.set("max_position_embeddings", numberText(*m.context * factor.toDouble()));
            m.trained = *m.context;
            m.r.use(rk.scPath + "factor");
        }
    }
}

/// Keys Hugging Face requires (modeling_rope_utils.py _validate_*): without them PosLab's defaults, which are real
/// models' values, would stand in silently.
void requireScalingKeys(Config& m, const RopeKeys& rk)
{
    const auto need = [&](const char* k) {
        if (!m.isSet(k))
            m.r.fail(
                QStringLiteral("rope type %1 needs \"%2\" in %3").arg(rk.type, QLatin1String(k), rk.scPath.chopped(1)));
    };
    if (rk.type == QLatin1String("linear") || rk.type == QLatin1String("ntk") || rk.type == QLatin1String("dynamic")
        || rk.type == QLatin1String("llama3"))
        need("factor");
    if (rk.type == QLatin1String("llama3"))
        for (const char* k : {"low_freq_factor", "high_freq_factor", "original_max_position_embeddings"})
            need(k);
    if (rk.type == QLatin1String("longrope")) {
        need("short_factor");
        need("long_factor");
    }
    if (rk.type == QLatin1String("yarn") && !m.isSet("factor")) {
        // transformers 5: factor = max_position_embeddings / original_max_position_embeddings when absent.
        if (!m.context || !m.trained)
            m.r.fail(QStringLiteral("rope type yarn without \"factor\" needs max_position_embeddings and "
                                    "original_max_position_embeddings"));
        m.set("factor", numberText(double(*m.context) / *m.trained));
        m.r.notes << QStringLiteral("YaRN's factor %1 = max_position_embeddings / original_max_position_embeddings "
                                    "(absent from the file; transformers 5 derives it so).")
                         .arg(numberText(double(*m.context) / *m.trained));
    }
}

/// The rope scheme: theta, type, shape and the scaling dict's keys.
void readRope(Config& m, const RopeKeys& rk)
{
    m.scheme = "rope";
    m.set("rope_theta", numberText(*rk.theta));
    m.set("rope_type", rk.type);
    readRopeShape(m, rk);
    readScalingKeys(m, rk);
    deriveScalingLengths(m, rk);
    requireScalingKeys(m, rk);
}

} // namespace

/// A rotary model: rope or irope, and Gemma's keys that PosLab cannot express.
void readRotary(Config& m, bool falconAlibi)
{
    if (falconAlibi)
        m.r.use(m.key("alibi"));
    RopeKeys rk;
    readRopeParameters(m, rk);
    readScalingType(m, rk);
    readTheta(m, rk);
    const bool nope = m.c.contains("no_rope_layers") || m.c.contains("no_rope_layer_interval");
    if (nope)
        readIrope(m, rk);
    else
        readRope(m, rk);
    if (const auto local = m.r.number(m.c, "rope_local_base_freq", m.key("rope_local_base_freq")))
        m.r.unmap(m.key("rope_local_base_freq"),
                  QStringLiteral("the local (sliding-window) layers use base %1 with no "
                                 "scaling; PosLab shows the global layers")
                      .arg(numberText(*local)));
    if (const auto q = m.r.number(m.c, "query_pre_attn_scalar", m.key("query_pre_attn_scalar"));
        q && m.headDim && *q != *m.headDim)
        m.r.unmap(m.key("query_pre_attn_scalar"),
                  QStringLiteral("%1: scores are scaled by 1/sqrt(%1), not 1/sqrt(head_dim)").arg(numberText(*q)));
}

} // namespace poslab::ui::config
