// SPDX-License-Identifier: MIT
#include "ui/state/spatialsetup.h"

#include "core/errors.h"
#include "ui/setup/presets.h"
#include "ui/state/stateform.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

namespace {

const core::SpatialSchemeDescriptor* schemeOf(const SpatialSetup& s)
{
    return core::findSpatialScheme(s.scheme);
}

QString schemeIds()
{
    QStringList ids;
    for (const auto& d : core::spatialSchemes())
        ids << QString::fromStdString(d.info.id);
    return ids.join(QStringLiteral(", "));
}

core::Overrides overridesOf(const SpatialSetup& s)
{
    core::Overrides o;
    for (const auto& [k, v] : s.params)
        o.emplace_back(k, v);
    return o;
}

} // namespace

QString spatialProblem(const SpatialSetup& s)
{
    const core::SpatialSchemeDescriptor* d = schemeOf(s);
    if (!d)
        return QStringLiteral("unknown spatial scheme '%1'; spatial schemes: %2")
            .arg(QString::fromStdString(s.scheme), schemeIds());
    if (s.dim < 2 || s.dim > 4096)
        return QStringLiteral("spatial dim %1 is out of range; allowed: 2 to 4096").arg(s.dim);
    const bool onGrid = d->input == core::SpatialInput::Grid;
    if (s.cls && !d->hasClassToken)
        return QStringLiteral("cls applies to the tables with a class-token row (vit_learned, sincos_2d); %1 has none")
            .arg(QString::fromStdString(s.scheme));
    for (const core::Grid* g : {&s.grid, &s.largeGrid}) {
        const QString which = g == &s.grid ? QStringLiteral("grid") : QStringLiteral("large_grid");
        if (g->rows < 1 || g->cols < 1)
            return QStringLiteral("spatial %1 %2x%3 must have at least one row and one column")
                .arg(which)
                .arg(g->rows)
                .arg(g->cols);
        if (g->patches() > maxViewPatches)
            return QStringLiteral("spatial %1 %2 has %3 patches; the patch grid view draws at most %4 (32 x 32)")
                .arg(which, QString::fromStdString(core::gridText(*g)))
                .arg(g->patches())
                .arg(maxViewPatches);
    }
    const std::int64_t tokens = onGrid ? s.grid.patches() : s.sequence.tokens();
    if (!onGrid && (tokens < 1 || tokens > maxViewTokens))
        return QStringLiteral("spatial sequence %1 has %2 tokens; the mixed sequence view draws 1 to %3")
            .arg(QString::fromStdString(core::sequenceText(s.sequence)))
            .arg(tokens)
            .arg(maxViewTokens);
    if (s.patch < 0 || s.patch >= tokens)
        return QStringLiteral("spatial patch %1 is out of range; allowed: 0 to %2 (%3)")
            .arg(s.patch)
            .arg(tokens - 1)
            .arg(onGrid
                     ? QStringLiteral("row-major over the %1 grid").arg(QString::fromStdString(core::gridText(s.grid)))
                     : QStringLiteral("a token of the sequence"));
    try {
        for (const core::Grid& g : {s.grid, s.largeGrid}) {
            core::SpatialContext ctx;
            ctx.dim = s.dim;
            ctx.cls = s.cls;
            if (onGrid)
                ctx.grid = g;
            else
                ctx.sequence = s.sequence;
            core::resolveSpatialParams(*d, overridesOf(s), ctx);
            if (!onGrid)
                break;
        }
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

core::ComputeRequest spatialRequest(const SpatialSetup& s, core::Quantity quantity, const core::Grid& grid)
{
    core::ComputeRequest req;
    req.quantity = quantity;
    req.scheme = s.scheme;
    req.overrides = overridesOf(s);
    req.context.dim = s.dim;
    const core::SpatialSchemeDescriptor* d = schemeOf(s);
    if (d && d->input == core::SpatialInput::Sequence)
        req.sequence = s.sequence;
    else
        req.grid = grid;
    req.cls = s.cls && d && d->hasClassToken;
    return req;
}

QJsonObject spatialToJson(const SpatialSetup& s, bool onlyChanged)
{
    static const SpatialSetup fresh;
    QJsonObject json;
    const auto put = [&](const char* key, const QJsonValue& v, bool same) {
        if (!onlyChanged || !same)
            json.insert(QLatin1String(key), v);
    };
    put("scheme", QString::fromStdString(s.scheme), s.scheme == fresh.scheme);
    put("grid", QString::fromStdString(core::gridText(s.grid)), s.grid == fresh.grid);
    put("large_grid", QString::fromStdString(core::gridText(s.largeGrid)), s.largeGrid == fresh.largeGrid);
    put("cls", s.cls, s.cls == fresh.cls);
    // Left out, "dim" reads back as the scheme's own default (mrope: 128; spatialFromJson), else 64.
    const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(s.scheme);
    put("dim", s.dim, s.dim == (d && d->defaultDim > 0 ? d->defaultDim : fresh.dim));
    QJsonObject params;
    for (const auto& [k, v] : s.params)
        params.insert(QString::fromStdString(k), QString::fromStdString(v));
    put("params", params, s.params == fresh.params);
    put("sequence", QString::fromStdString(core::sequenceText(s.sequence)), s.sequence == fresh.sequence);
    put("patch", s.patch, s.patch == fresh.patch);
    return json;
}

namespace {

/// Reads the keys of spatialToJson()'s form in @p json over @p s (keys left out keep its values); no check of the
/// whole. Returns empty or one message "spatial.KEY: problem".
QString readSpatialKeys(const QJsonValue& value, SpatialSetup& s)
{
    if (!value.isObject())
        return QStringLiteral("spatial must be an object {\"scheme\", \"grid\", \"dim\", ...} (got %1)")
            .arg(jsonText(value));
    const QJsonObject json = value.toObject();
    static const QStringList known{"scheme", "grid", "large_grid", "cls", "dim", "params", "sequence", "patch"};
    for (auto it = json.begin(); it != json.end(); ++it)
        if (!known.contains(it.key()))
            return QStringLiteral("spatial.%1 is not a key of the spatial set-up; keys: %2")
                .arg(it.key(), known.join(", "));
    const auto text = [&](const char* key, QString* problem) -> std::optional<std::string> {
        const QJsonValue v = json.value(QLatin1String(key));
        if (v.isUndefined())
            return std::nullopt;
        if (!v.isString()) {
            *problem = QStringLiteral("spatial.%1 must be a string (got %2)").arg(QLatin1String(key), jsonText(v));
            return std::nullopt;
        }
        return v.toString().toStdString();
    };
    const auto integer = [&](const char* key, int* target) -> QString {
        const QJsonValue v = json.value(QLatin1String(key));
        if (v.isUndefined())
            return {};
        const double x = v.toDouble(std::nan(""));
        if (!v.isDouble() || !std::isfinite(x) || x != std::floor(x) || std::abs(x) > 2147483647.0)
            return QStringLiteral("spatial.%1 must be a whole number (got %2)").arg(QLatin1String(key), jsonText(v));
        *target = int(x);
        return {};
    };
    QString problem;
    try {
        if (auto v = text("scheme", &problem))
            s.scheme = *v;
        if (!problem.isEmpty())
            return problem;
        if (auto v = text("grid", &problem))
            s.grid = core::parseGrid(*v);
        if (!problem.isEmpty())
            return problem;
        if (auto v = text("large_grid", &problem))
            s.largeGrid = core::parseGrid(*v);
        if (!problem.isEmpty())
            return problem;
        if (auto v = text("sequence", &problem))
            s.sequence = core::parseSequence(*v);
        if (!problem.isEmpty())
            return problem;
    } catch (const core::InputError& e) {
        // core's messages name the option (--grid, --sequence); the file's key is spatial.*
        return QStringLiteral("spatial: %1").arg(QString::fromStdString(e.what()));
    }
    if (json.contains("cls")) {
        if (!json.value("cls").isBool())
            return QStringLiteral("spatial.cls must be true or false (got %1)").arg(jsonText(json.value("cls")));
        s.cls = json.value("cls").toBool();
    }
    if (QString p = integer("dim", &s.dim); !p.isEmpty())
        return p;
    if (QString p = integer("patch", &s.patch); !p.isEmpty())
        return p;
    if (json.contains("params")) {
        if (!json.value("params").isObject())
            return QStringLiteral("spatial.params must be an object of key: value");
        const QJsonObject params = json.value("params").toObject();
        for (auto it = params.begin(); it != params.end(); ++it) {
            const std::optional<QString> t = paramText(it.value());
            if (!t)
                return QStringLiteral("spatial.params.%1 must be a string, a number or true/false").arg(it.key());
            s.params[it.key().toStdString()] = t->toStdString();
        }
    }
    return {};
}

} // namespace

QString spatialFromJson(const QJsonValue& value, SpatialSetup* out)
{
    SpatialSetup s;
    if (const QString p = readSpatialKeys(value, s); !p.isEmpty())
        return p;
    // No "patch": the default one while the grid or sequence has it (a share string leaves it out when it is the
    // default), else the middle one, as a model's set-up picks it (spatialSetupOf); a 4 x 4 grid is not refused
    // over a patch nobody named.
    const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(s.scheme);
    // No "dim": the one the scheme's defaults fit (mrope's sections: 128), as compute takes it.
    if (d && d->defaultDim > 0 && !value.toObject().contains(QLatin1String("dim")))
        s.dim = d->defaultDim;
    if (d && !value.toObject().contains(QLatin1String("patch"))) {
        const bool grid = d->input == core::SpatialInput::Grid;
        const std::int64_t count = grid ? s.grid.patches() : s.sequence.tokens();
        if (count > 0 && (s.patch < 0 || s.patch >= count))
            s.patch = grid ? (s.grid.rows / 2) * s.grid.cols + s.grid.cols / 2 : int(count / 2);
    }
    if (const QString p = spatialProblem(s); !p.isEmpty())
        return QStringLiteral("spatial: %1").arg(p);
    *out = s;
    return {};
}

QString spatialOnTop(const SpatialSetup& a, const QJsonValue& given, SpatialSetup* out)
{
    const QString where = QStringLiteral("compare.state.");
    const QJsonValue b = given.isUndefined() ? QJsonValue(QJsonObject()) : given; // no key of B's own: A's
    SpatialSetup s = a;
    const QJsonObject json = b.toObject();
    if (b.isObject()) {
        if (json.contains("scheme") && json.value("scheme").toString().toStdString() != a.scheme) {
            s.params.clear();
            const core::SpatialSchemeDescriptor* d
                = core::findSpatialScheme(json.value("scheme").toString().toStdString());
            s.cls = s.cls && d && d->hasClassToken;
        }
        if (json.contains("params"))
            s.params.clear();
    }
    if (const QString p = readSpatialKeys(b, s); !p.isEmpty())
        return where + p;
    if (!json.contains("patch")) {
        // The shared selection: the same place on B's grid, else A's index while B has it.
        const core::SpatialSchemeDescriptor* da = core::findSpatialScheme(a.scheme);
        const core::SpatialSchemeDescriptor* db = core::findSpatialScheme(s.scheme);
        const bool grids = da && db && da->input == core::SpatialInput::Grid && db->input == core::SpatialInput::Grid;
        const std::int64_t count
            = db && db->input == core::SpatialInput::Sequence ? s.sequence.tokens() : s.grid.patches();
        if (grids && a.grid.cols > 0 && a.patch >= 0 && a.patch < a.grid.patches()) {
            const auto [row, col] = core::samePlace(a.grid, a.patch / a.grid.cols, a.patch % a.grid.cols, s.grid);
            s.patch = row * s.grid.cols + col;
        } else {
            s.patch = int(std::clamp<std::int64_t>(a.patch, 0, std::max<std::int64_t>(0, count - 1)));
        }
    }
    if (const QString p = spatialProblem(s); !p.isEmpty())
        return where + QStringLiteral("spatial: ") + p;
    *out = s;
    return {};
}

QJsonObject spatialDifference(const SpatialSetup& a, const SpatialSetup& b)
{
    const QJsonObject ja = spatialToJson(a), jb = spatialToJson(b);
    QJsonObject out;
    for (auto it = jb.begin(); it != jb.end(); ++it)
        if (it.key() != QLatin1String("patch") && ja.value(it.key()) != it.value())
            out.insert(it.key(), it.value());
    // A new scheme of B starts from no parameters (spatialOnTop): B's own, even when they equal A's.
    if (out.contains("scheme") && !b.params.empty())
        out.insert("params", jb.value("params"));
    return out;
}

std::optional<SpatialSetup> spatialSetupOf(const QJsonObject& state, const SpatialSetup& base)
{
    const StateSetup m = stateSetup(state);
    const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(m.scheme);
    if (!d)
        return std::nullopt;
    SpatialSetup s = base;
    s.scheme = m.scheme;
    s.params.clear();
    for (const auto& [key, value] : m.params)
        s.params[key] = value;
    if (m.dim)
        s.dim = *m.dim;
    if (m.grid)
        s.grid = *m.grid;
    const auto classToken = s.params.find("class_token");
    s.cls = d->hasClassToken && classToken != s.params.end() && classToken->second == "true";
    const std::int64_t count = d->input == core::SpatialInput::Grid ? s.grid.patches() : s.sequence.tokens();
    if (s.patch < 0 || s.patch >= count)
        s.patch
            = d->input == core::SpatialInput::Grid ? (s.grid.rows / 2) * s.grid.cols + s.grid.cols / 2 : int(count / 2);
    if (const QString problem = spatialProblem(s); !problem.isEmpty()) {
        const QString name = m.model.value("name").toString();
        throw core::InputError((name.isEmpty() ? std::string("the model") : name.toStdString()) + ": "
                               + problem.toStdString());
    }
    return s;
}

} // namespace poslab::ui
