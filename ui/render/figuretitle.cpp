// SPDX-License-Identifier: MIT
#include "ui/render/figuretitle.h"

#include "core/encodings/irope.h"
#include "ui/render/plotutils.h"

#include <QStringList>

namespace poslab::ui {
namespace {

const QString dot = QStringLiteral(" \u00b7 ");

QString valueText(const core::ParamValue& v)
{
    switch (v.type) {
    case core::ParamType::Real:
    case core::ParamType::Integer: return formatNumber(v.number, 6);
    case core::ParamType::Bool: return v.number != 0 ? QStringLiteral("on") : QStringLiteral("off");
    case core::ParamType::Choice: return QString::fromStdString(v.choice);
    case core::ParamType::RealList: return QStringLiteral("[%1 values]").arg(v.list.size());
    case core::ParamType::Text:
        return QString::fromStdString(v.text).section(QLatin1Char('/'), -1); // a file name, not its folder
    }
    return {};
}

/// Applicable parameters other than @p skip whose value differs from the default, as "key value".
QStringList differing(const core::SchemeDescriptor& scheme, const core::ParamSet& params,
                      std::initializer_list<const char*> skip)
{
    QStringList out;
    for (const core::ParamSpec& spec : scheme.params) {
        if (spec.key == "seed" || !params.has(spec.key) || !core::applies(spec, params))
            continue;
        bool skipped = false;
        for (const char* k : skip)
            skipped = skipped || spec.key == k;
        if (skipped)
            continue;
        const core::ParamValue& v = params.value(spec.key);
        if (v == core::defaultValue(spec, params)) // the default under the current choices (rope_type)
            continue;
        out << QStringLiteral("%1 %2").arg(QString::fromStdString(spec.key), valueText(v));
    }
    return out;
}

QString ropeVariant(const core::SchemeDescriptor& scheme, const core::ParamSet& params)
{
    QStringList parts;
    const std::string type = params.has("rope_type") ? params.choice("rope_type") : std::string("default");
    const auto factor = [&] {
        return params.has("factor") ? QStringLiteral("\u00d7%1").arg(formatNumber(params.real("factor"), 4))
                                    : QString();
    };
    const auto trained = [&](const char* key) {
        return params.has(key) ? QStringLiteral("trained %1").arg(formatNumber(double(params.integer(key)), 7))
                               : QString();
    };
    if (type == "yarn") {
        const bool ratio = params.has("factor_source") && params.choice("factor_source") == "max_position_ratio";
        parts << (ratio ? QStringLiteral("YaRN \u00d7%1/%2 (length ratio)")
                              .arg(formatNumber(double(params.integer("max_position_embeddings")), 7))
                              .arg(formatNumber(double(params.integer("original_max_position_embeddings")), 7))
                        : QStringLiteral("YaRN %1").arg(factor()));
        parts << trained("original_max_position_embeddings");
    } else if (type == "linear") {
        parts << QStringLiteral("linear (PI) %1").arg(factor());
    } else if (type == "ntk") {
        parts << QStringLiteral("NTK-aware %1").arg(factor());
    } else if (type == "dynamic") {
        parts << QStringLiteral("dynamic NTK %1").arg(factor()) << trained("max_position_embeddings");
    } else if (type == "llama3") {
        parts << QStringLiteral("Llama 3 %1").arg(factor()) << trained("original_max_position_embeddings");
    } else if (type == "longrope") {
        parts << QStringLiteral("LongRoPE") << trained("original_max_position_embeddings");
    } else if (type == "proportional") {
        // Gemma 4's proportional RoPE: factor 1 (its default) divides nothing.
        parts << (params.has("factor") && params.real("factor") != 1.0 ? QStringLiteral("proportional %1").arg(factor())
                                                                       : QStringLiteral("proportional"));
    }
    if (params.has("rope_theta")
        && core::defaultValue(*scheme.param("rope_theta"), params) != params.value("rope_theta"))
        parts << QStringLiteral("\u03b8 %1").arg(formatNumber(params.real("rope_theta"), 6));
    if (params.has("partial_rotary_factor") && params.real("partial_rotary_factor") != 1.0)
        parts << QStringLiteral("%1% rotated").arg(formatNumber(params.real("partial_rotary_factor") * 100, 3));
    parts << differing(scheme, params,
                       {"rope_type", "factor", "factor_source", "original_max_position_embeddings",
                        "max_position_embeddings", "rope_theta", "partial_rotary_factor"});
    parts.removeAll(QString());
    return parts.join(QStringLiteral(", "));
}

} // namespace

QString shortSchemeName(const core::SchemeDescriptor& scheme)
{
    return QString::fromStdString(scheme.shortName.empty() ? scheme.name : scheme.shortName);
}

QString variantLabel(const core::SchemeDescriptor& scheme, const core::ParamSet& params)
{
    QString variant;
    // The label follows the parameters it names: a layer of an interleaved stack (iRoPE) first, then a rope_type's
    // scaling (RoPE; iRoPE's rope_type stays among its differing values), then whatever differs.
    const bool layered = scheme.param("layer") && scheme.param("nope_layer_interval");
    if (layered && params.has("layer") && params.has("nope_layer_interval")) {
        const int layer = int(params.integer("layer"));
        const bool rope = core::iropeUsesRope(layer, int(params.integer("nope_layer_interval")));
        QStringList parts{QStringLiteral("layer %1 (%2 layer)")
                              .arg(layer)
                              .arg(rope ? QStringLiteral("RoPE") : QStringLiteral("NoPE"))};
        parts << differing(scheme, params, {"layer"});
        variant = parts.join(QStringLiteral(", "));
    } else if (!layered && scheme.param("rope_type")) {
        variant = ropeVariant(scheme, params);
    } else {
        variant = differing(scheme, params, {}).join(QStringLiteral(", "));
    }
    const QString name = shortSchemeName(scheme);
    return variant.isEmpty() ? name : name + dot + variant;
}

} // namespace poslab::ui
