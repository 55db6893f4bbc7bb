// SPDX-License-Identifier: MIT
// WorkbenchState's state file: toJson() and fromJson(), and the readers of the state form they share with
// configuration B (workbenchdetail.h).
#include "ui/state/workbenchstate.h"
#include "ui/state/stateform.h"
#include "ui/state/workbenchdetail.h"

#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <limits>

namespace poslab::ui {

QJsonObject WorkbenchState::toJson(bool onlyChanged) const
{
    QJsonObject params;
    // Only the parameters in force: fromJson() resolves them like `--set`, which refuses a key that does not
    // apply (YaRN's beta_fast while rope_type is default). A share string leaves out what equals its default.
    for (const auto& spec : m_scheme->params) {
        if (!m_setup.params.has(spec.key) || !core::applies(spec, m_setup.params))
            continue;
        const core::ParamValue& v = m_setup.params.value(spec.key);
        if (onlyChanged && v == core::defaultValue(spec, m_setup.params))
            continue;
        params.insert(QString::fromStdString(spec.key), QString::fromStdString(v.toString()));
    }
    static const ViewOptions defaults;
    QJsonObject view;
    for (const ViewProperty& p : viewProperties()) {
        if (onlyChanged && p.get(m_options) == p.get(defaults)
            && !(p.name == QLatin1String("content") && m_options.content != teachingContent(*m_scheme)))
            continue;
        view.insert(p.name, propertyJson(p, m_options));
    }
    QJsonObject json{{"version", stateVersion}, {"scheme", schemeId()}};
    const Setup fresh;
    if (!onlyChanged || !params.isEmpty())
        json.insert("params", params);
    if (!onlyChanged || m_setup.dim != fresh.dim)
        json.insert("dim", m_setup.dim);
    if (!onlyChanged || m_setup.positionCount != fresh.positionCount)
        json.insert("positions", m_setup.positionCount);
    if (!onlyChanged || m_cursor != std::min(teachingCursor, m_setup.positionCount - 1))
        json.insert("cursor", m_cursor);
    if (!onlyChanged || !view.isEmpty())
        json.insert("view", view);
    if (!m_setup.model.isEmpty())
        json.insert("model", m_setup.model);
    if (comparing())
        json.insert("compare", QJsonObject{{"mode", compareModeWord(m_compare.mode)}, {"state", m_compare.state}});
    if (const QJsonObject spatial = spatialToJson(m_spatial, onlyChanged); !spatial.isEmpty())
        json.insert("spatial", spatial);
    return json;
}

namespace detail {

QString readScheme(const QJsonValue& value, const core::SchemeDescriptor** scheme)
{
    if (!value.isString())
        return QStringLiteral("scheme must be a string naming a scheme (see poslab schemes)");
    *scheme = core::findScheme(value.toString().toStdString());
    if (!*scheme)
        return QStringLiteral("unknown scheme '%1'").arg(value.toString());
    return {};
}

QString readParams(const QJsonObject& state, std::vector<std::pair<std::string, std::string>>* overrides)
{
    if (state.contains("params") && !state.value("params").isObject())
        return QStringLiteral("params must be an object of key: value");
    const QJsonObject params = state.value("params").toObject();
    for (auto it = params.begin(); it != params.end(); ++it) {
        const std::optional<QString> text = paramText(it.value());
        if (!text)
            return QStringLiteral("parameter %1 must be a string, a number or true/false").arg(it.key());
        overrides->emplace_back(it.key().toStdString(), text->toStdString());
    }
    return {};
}

QString readView(const QJsonObject& state, bool strict, ViewOptions* options)
{
    if (state.contains("view") && !state.value("view").isObject())
        return QStringLiteral("view must be an object of view options");
    const QJsonObject view = state.value("view").toObject();
    for (const ViewProperty& p : viewProperties()) {
        const QJsonValue value = view.value(p.name);
        if (value.isUndefined())
            continue;
        QVariant converted;
        if (const QString problem = convertProperty(p, value, &converted); !problem.isEmpty()) {
            if (strict)
                return problem;
            continue;
        }
        p.set(*options, converted);
    }
    return {};
}

} // namespace detail

namespace {

/// A number that is not an int (2147483648, 1e300, "x") reads as this, and is refused.
constexpr int notAnInt = std::numeric_limits<int>::min();

/// The whole number @p key of @p o: @p fallback when absent, notAnInt when it is not an int.
int integerOf(const QJsonObject& o, const char* key, int fallback)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined())
        return fallback;
    const double x = v.toDouble(std::nan(""));
    return std::isfinite(x) && x == std::floor(x) && std::abs(x) <= 2147483647.0 ? int(x) : notAnInt;
}

/// Why @p value of @p what lies outside [@p lo, @p hi]: the limits of setDim, setPositionCount and the CLI, which
/// a state file may not go around.
QString outOfRange(const QString& what, int value, long long lo, long long hi)
{
    return value == notAnInt
        ? QStringLiteral("%1 is not an integer; allowed: %2 to %3").arg(what).arg(lo).arg(hi)
        : QStringLiteral("%1 %2 is out of range; allowed: %3 to %4").arg(what).arg(value).arg(lo).arg(hi);
}

/// "version": absent, or a whole number from 1.
QString readVersion(const QJsonObject& json)
{
    const QJsonValue version = json.value("version");
    if (!version.isUndefined()
        && !(version.isDouble() && version.toDouble() >= 1 && version.toDouble() < 1e6
             && version.toDouble() == std::floor(version.toDouble())))
        return QStringLiteral("version must be a whole number from 1 (got %1)").arg(jsonText(version));
    return {};
}

/// "model": the real model the set-up came from, with @p overrides, the parameters the file sets.
QString readModel(const QJsonObject& json, const std::vector<std::pair<std::string, std::string>>& overrides,
                  Setup* next)
{
    if (json.contains("model") && !json.value("model").isObject())
        return QStringLiteral("model must be an object");
    next->model = json.value("model").toObject();
    if (!next->model.isEmpty() && !next->model.contains("set_up")) {
        // A preset or config.json as loaded: what it sets is this state's scheme, dimension and parameters, so
        // a later edit can be told apart ("Llama 3.1 8B, edited").
        QJsonObject setUpParams;
        for (const auto& [key, value] : overrides)
            setUpParams.insert(QString::fromStdString(key), QString::fromStdString(next->params.value(key).toString()));
        next->model.insert(
            "set_up",
            QJsonObject{{"scheme", QString::fromStdString(next->scheme)}, {"dim", next->dim}, {"params", setUpParams}});
    }
    return {};
}

/// The set-up of a state file: scheme, dim, positions, params (resolved as `poslab export --set` resolves them)
/// and model.
QString readSetup(const QJsonObject& json, Setup* next)
{
    const core::SchemeDescriptor* s = nullptr;
    if (QString problem = detail::readScheme(json.value("scheme"), &s); !problem.isEmpty())
        return problem;
    next->scheme = json.value("scheme").toString().toStdString();
    const Setup fresh;
    next->dim = integerOf(json, "dim", fresh.dim);
    if (s->needsEvenDim && next->dim % 2 && !json.contains("dim"))
        ++next->dim;
    if (next->dim < WorkbenchState::minDim || next->dim > WorkbenchState::maxDim)
        return outOfRange(QStringLiteral("dim"), next->dim, WorkbenchState::minDim, WorkbenchState::maxDim);
    next->positionCount = integerOf(json, "positions", fresh.positionCount);
    if (next->positionCount < 1 || next->positionCount > WorkbenchState::maxPositionCount)
        return outOfRange(QStringLiteral("positions"), next->positionCount, 1, WorkbenchState::maxPositionCount);
    std::vector<std::pair<std::string, std::string>> overrides;
    if (QString problem = detail::readParams(json, &overrides); !problem.isEmpty())
        return problem;
    try {
        next->params = core::resolveParams(*s, overrides, detail::tableContext(*next));
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return readModel(json, overrides, next);
}

/// "compare": configuration B, absent for compare off; B's keys must load on top of set-up @p a and options @p ao.
QString readCompare(const QJsonObject& json, const Setup& a, const ViewOptions& ao, CompareConfig* compare)
{
    if (!json.contains("compare"))
        return {};
    const QJsonValue c = json.value("compare");
    if (!c.isObject())
        return QStringLiteral("compare must be an object {\"mode\": side_by_side, overlay or difference, "
                              "\"state\": {configuration B}}");
    const QJsonObject co = c.toObject();
    const auto mode = compareModeFromWord(co.value("mode").toString());
    if (!co.value("mode").isString() || !mode)
        return QStringLiteral("compare.mode must be side_by_side, overlay, difference or off (got %1)")
            .arg(jsonText(co.value("mode")));
    if (co.contains("state") && !co.value("state").isObject())
        return QStringLiteral("compare.state must be an object in the state form (scheme, params, dim, view, ...)");
    if (*mode == CompareMode::Off)
        return {};
    *compare = {*mode, co.value("state").toObject()};
    Setup bSetup;
    ViewOptions bOptions;
    return WorkbenchState::resolveCompare(a, ao, compare->state, true, &bSetup, &bOptions);
}

/// "spatial": absent is a new window's; B's own spatial keys (in @p compare) must load on top of it.
QString readSpatial(const QJsonObject& json, const CompareConfig& compare, SpatialSetup* spatial)
{
    if (json.contains("spatial"))
        if (const QString problem = spatialFromJson(json.value("spatial"), spatial); !problem.isEmpty())
            return problem;
    if (SpatialSetup b; compare.mode != CompareMode::Off && compare.state.contains("spatial"))
        if (const QString problem = spatialOnTop(*spatial, compare.state.value("spatial"), &b); !problem.isEmpty())
            return problem;
    return {};
}

} // namespace

QString WorkbenchState::fromJson(const QJsonObject& json, bool undoable)
{
    Setup next;
    if (QString problem = readVersion(json); !problem.isEmpty())
        return problem;
    if (QString problem = readSetup(json, &next); !problem.isEmpty())
        return problem;
    ViewOptions o;
    o.content = teachingContent(*core::findScheme(next.scheme));
    if (QString problem = detail::readView(json, true, &o); !problem.isEmpty())
        return problem;
    if (QString problem = checkViewOptions(o); !problem.isEmpty())
        return problem;
    // Absent: the teaching cursor, or the last position of a shorter range.
    const int cursor = integerOf(json, "cursor", std::min(teachingCursor, next.positionCount - 1));
    if (cursor == notAnInt || cursor < 0 || cursor > next.positionCount - 1)
        return outOfRange(QStringLiteral("cursor"), cursor, 0, next.positionCount - 1);
    CompareConfig compare;
    if (QString problem = readCompare(json, next, o, &compare); !problem.isEmpty())
        return problem;
    SpatialSetup spatial;
    if (QString problem = readSpatial(json, compare, &spatial); !problem.isEmpty())
        return problem;

    if (undoable) {
        m_undo->beginMacro(tr("Load state"));
        if (!(spatial == m_spatial))
            m_undo->push(new detail::SpatialCommand(this, m_spatial, spatial, tr("Load state"), {}));
        if (!(next == m_setup))
            m_undo->push(new detail::SetupCommand(this, m_setup, next, tr("Load state"), {}));
        pushViewOptions(o, false);
        if (!(compare == m_compare))
            m_undo->push(new detail::CompareCommand(this, m_compare, compare, tr("Load state"), {}));
        m_undo->endMacro();
    } else {
        applySetup(next);
        if (o.content != teachingContent(*m_scheme))
            m_contentChosen = true;
        applyViewOptions(o);
        applyCompare(compare);
        applySpatial(spatial);
    }
    setCursor(cursor);
    return {};
}

} // namespace poslab::ui
