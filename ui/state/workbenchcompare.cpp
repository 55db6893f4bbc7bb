// SPDX-License-Identifier: MIT
// WorkbenchState's compare mode: configuration B, its resolution on top of A and the mirror state that shows it.
#include "ui/state/workbenchstate.h"
#include "ui/state/workbenchdetail.h"

#include <QUndoStack>

#include <cmath>

namespace poslab::ui {

using detail::CompareCommand;

QString compareModeWord(CompareMode mode)
{
    switch (mode) {
    case CompareMode::Off: return QStringLiteral("off");
    case CompareMode::SideBySide: return QStringLiteral("side_by_side");
    case CompareMode::Overlay: return QStringLiteral("overlay");
    case CompareMode::Difference: return QStringLiteral("difference");
    }
    return {};
}

std::optional<CompareMode> compareModeFromWord(const QString& word)
{
    for (CompareMode m : {CompareMode::Off, CompareMode::SideBySide, CompareMode::Overlay, CompareMode::Difference})
        if (compareModeWord(m) == word)
            return m;
    return std::nullopt;
}

namespace {

/// B's own whole number @p key of @p b into @p out, A's @p fallback when B has none (the limits of setDim and
/// setPositionCount).
QString compareInteger(const QJsonObject& b, const char* key, int fallback, long long lo, long long hi, int* out)
{
    const QJsonValue v = b.value(QLatin1String(key));
    if (v.isUndefined()) {
        *out = fallback;
        return {};
    }
    const double x = v.toDouble(std::nan(""));
    if (!(std::isfinite(x) && x == std::floor(x) && x >= double(lo) && x <= double(hi)))
        return QStringLiteral("%1 must be a whole number from %2 to %3").arg(QLatin1String(key)).arg(lo).arg(hi);
    *out = int(x);
    return {};
}

/// B's parameters: A's (@p a) with B's own @p overrides on top while the scheme is A's (@p sameScheme), B's own on
/// the defaults otherwise. Returns the problem, if any; when @p strict is false a key that does not load is left
/// out (A changed under B: a parameter B set no longer applies) and the rest still load, one key at a time.
QString compareParams(const core::SchemeDescriptor& s, bool sameScheme, const core::ParamSet& a,
                      const std::vector<std::pair<std::string, std::string>>& overrides, const core::TableContext& ctx,
                      bool strict, core::ParamSet* params)
{
    try {
        *params = sameScheme ? core::resolveParams(s, a, overrides, ctx) : core::resolveParams(s, overrides, ctx);
        return {};
    } catch (const std::exception& e) {
        if (strict)
            return QString::fromStdString(e.what());
        try {
            *params = sameScheme ? a : core::resolveParams(s, {}, ctx);
        } catch (const std::exception&) {
            *params = core::defaultParams(s);
        }
        for (const auto& one : overrides) {
            try {
                *params = core::resolveParams(s, *params, {one}, ctx);
            } catch (const std::exception&) { }
        }
        return QString::fromStdString(e.what());
    }
}

} // namespace

QString WorkbenchState::resolveCompare(const Setup& a, const ViewOptions& ao, const QJsonObject& b, bool strict,
                                       Setup* setup, ViewOptions* options)
{
    const QString where = QStringLiteral("compare.state: ");
    Setup next = a;
    ViewOptions o = ao;
    *setup = next;
    *options = o;
    if (b.contains("compare"))
        return where + QStringLiteral("configuration B cannot hold a compare of its own");
    const core::SchemeDescriptor* aScheme = core::findScheme(a.scheme);
    const core::SchemeDescriptor* s = aScheme;
    if (b.contains("scheme")) {
        if (QString p = detail::readScheme(b.value("scheme"), &s); !p.isEmpty())
            return where + p;
        next.scheme = s->id;
    }
    if (!s)
        return where + QStringLiteral("unknown scheme");
    const bool sameScheme = next.scheme == a.scheme;
    // dim and positions: B's own, else A's.
    if (QString p = compareInteger(b, "dim", a.dim, minDim, maxDim, &next.dim); !p.isEmpty())
        return where + p;
    if (s->needsEvenDim && next.dim % 2 && !b.contains("dim"))
        ++next.dim;
    if (QString p = compareInteger(b, "positions", a.positionCount, 1, maxPositionCount, &next.positionCount);
        !p.isEmpty())
        return where + p;
    std::vector<std::pair<std::string, std::string>> overrides;
    if (QString p = detail::readParams(b, &overrides); !p.isEmpty())
        return where + p;
    QString problem
        = compareParams(*s, sameScheme, a.params, overrides, detail::tableContext(next), strict, &next.params);
    if (!problem.isEmpty()) {
        problem = where + problem;
        if (strict)
            return problem;
    }
    if (b.contains("model") && !b.value("model").isObject())
        return where + QStringLiteral("model must be an object");
    next.model = b.contains("model") ? b.value("model").toObject() : sameScheme ? a.model : QJsonObject();
    // View options: A's, with B's own on top; B's scheme opens on its teaching content as A's does.
    if (!sameScheme && aScheme && ao.content == teachingContent(*aScheme))
        o.content = teachingContent(*s);
    if (QString p = detail::readView(b, strict, &o); !p.isEmpty())
        return where + p;
    if (const QString bad = checkViewOptions(o); !bad.isEmpty()) {
        if (strict)
            return where + bad;
        o = ao;
    }
    *setup = std::move(next);
    *options = o;
    return problem;
}

QString WorkbenchState::compareName() const
{
    if (m_owner)
        return m_owner->comparing() ? QStringLiteral("B") : QString();
    return comparing() ? QStringLiteral("A") : QString();
}

QString WorkbenchState::pushCompare(const CompareConfig& next, const QString& text, const QString& mergeKey)
{
    if (next == m_compare)
        return {};
    m_undo->push(new CompareCommand(this, m_compare, next, text, mergeKey));
    return {};
}

QString WorkbenchState::setCompare(const CompareConfig& config)
{
    if (m_owner)
        return refuse(QStringLiteral("configuration B cannot compare with a configuration of its own"));
    CompareConfig next = config;
    if (next.mode != CompareMode::Off) {
        Setup bSetup;
        ViewOptions bOptions;
        if (const QString problem = resolveCompare(m_setup, m_options, next.state, true, &bSetup, &bOptions);
            !problem.isEmpty())
            return refuse(problem);
        if (SpatialSetup b; next.state.contains("spatial"))
            if (const QString problem = spatialOnTop(m_spatial, next.state.value("spatial"), &b); !problem.isEmpty())
                return refuse(problem);
    }
    QString text;
    switch (next.mode) {
    case CompareMode::Off: text = tr("Compare off"); break;
    case CompareMode::SideBySide: text = tr("Compare side by side"); break;
    case CompareMode::Overlay: text = tr("Compare overlaid"); break;
    case CompareMode::Difference: text = tr("Compare: difference A \u2212 B"); break;
    }
    return pushCompare(next, text, {});
}

QString WorkbenchState::setCompareMode(CompareMode mode)
{
    return setCompare({mode, m_compare.state});
}

QString WorkbenchState::compareWithCopy(CompareMode mode)
{
    return setCompare({mode == CompareMode::Off ? CompareMode::SideBySide : mode, QJsonObject()});
}

void WorkbenchState::applyCompare(const CompareConfig& config)
{
    if (config == m_compare)
        return;
    const bool wasComparing = comparing();
    m_compare = config;
    syncCompare();
    emit compareChanged();
    if (m_mirror && wasComparing != comparing())
        emit m_mirror->compareChanged(); // B's figure label gains or loses its "B: "
}

WorkbenchState* WorkbenchState::compareState()
{
    if (m_owner)
        return nullptr;
    if (!m_mirror) {
        m_mirror = new WorkbenchState(this);
        m_mirror->m_owner = this;
        // One undo stack: B's setters push their steps onto this state's (pushCompareSetup and the others).
        delete m_mirror->m_undo;
        m_mirror->m_undo = m_undo;
        m_mirror->setObjectName(QStringLiteral("configurationB"));
        const CompareMode mode = m_compare.mode;
        m_compare.mode = mode == CompareMode::Off ? CompareMode::SideBySide : mode; // sync once even when off
        syncCompare();
        m_compare.mode = mode;
    }
    return m_mirror;
}

void WorkbenchState::syncCompare()
{
    if (!m_mirror || !comparing())
        return;
    Setup setup;
    ViewOptions options;
    resolveCompare(m_setup, m_options, m_compare.state, false, &setup, &options);
    const bool was = m_syncing;
    m_syncing = true;
    if (!(setup == m_mirror->m_setup))
        m_mirror->applySetup(setup);
    m_mirror->applyViewOptions(options);
    m_mirror->applySpatial(compareSpatial());
    m_syncing = was;
    syncCompareCursor();
}

SpatialSetup WorkbenchState::compareSpatial() const
{
    // A changed under B so that B's own keys no longer load (a patch grid B on a grid A left): B is A's.
    SpatialSetup b = m_spatial;
    spatialOnTop(m_spatial, m_compare.state.value("spatial"), &b);
    return b;
}

QString WorkbenchState::pushCompareSpatial(const SpatialSetup& now)
{
    if (now == compareSpatial())
        return {};
    QJsonObject b = m_compare.state;
    const QJsonObject own = spatialDifference(m_spatial, now);
    if (own.isEmpty())
        b.remove("spatial");
    else
        b.insert("spatial", own);
    return pushCompare({m_compare.mode, b}, tr("B: spatial set-up"), {});
}

void WorkbenchState::syncCompareCursor()
{
    if (!m_mirror || !comparing())
        return;
    const bool was = m_syncing;
    m_syncing = true;
    if (m_time < m_mirror->positionCount())
        m_mirror->setAnimationTime(m_time);
    m_mirror->setCursor(m_cursor);
    m_syncing = was;
}

QString WorkbenchState::pushCompareSetup(const Setup& now)
{
    Setup want;
    ViewOptions wantOptions;
    resolveCompare(m_setup, m_options, m_compare.state, false, &want, &wantOptions);
    if (now == want)
        return {};
    const core::SchemeDescriptor* s = core::findScheme(now.scheme);
    if (!s)
        return {};
    QJsonObject b = m_compare.state;
    QString text = tr("B: set-up"), mergeKey;
    // The parameters in force, as toJson() writes them.
    const auto inForce = [&](const core::ParamSet& ps, const std::string& key) {
        const core::ParamSpec* spec = s->param(key);
        return spec && ps.has(key) && core::applies(*spec, ps);
    };
    if (now.scheme != want.scheme) {
        // A new scheme for B drops the old scheme's parameters; B keeps the ones that differ from the defaults.
        b.insert("scheme", QString::fromStdString(now.scheme));
        QJsonObject params;
        for (const auto& spec : s->params)
            if (inForce(now.params, spec.key) && !(now.params.value(spec.key) == core::defaultValue(spec, now.params)))
                params.insert(QString::fromStdString(spec.key),
                              QString::fromStdString(now.params.value(spec.key).toString()));
        if (params.isEmpty())
            b.remove("params");
        else
            b.insert("params", params);
        text = tr("B: scheme %1").arg(QString::fromStdString(s->name));
    } else {
        QJsonObject params = b.value("params").toObject();
        QStringList changed;
        for (const auto& spec : s->params)
            if (inForce(now.params, spec.key)
                && (!want.params.has(spec.key) || !(want.params.value(spec.key) == now.params.value(spec.key)))) {
                const QString key = QString::fromStdString(spec.key);
                const QString value = QString::fromStdString(now.params.value(spec.key).toString());
                params.insert(key, value);
                changed << key;
                text = QStringLiteral("B: %1 = %2").arg(key, value);
            }
        // A key the new choices put out of force goes (yarn's max_position_embeddings once B takes llama3): kept,
        // it failed the next resolve, and B's keys were then loaded one at a time, losing the ones set before it.
        for (const QString& key : params.keys())
            if (!inForce(now.params, key.toStdString()))
                params.remove(key);
        if (!params.isEmpty())
            b.insert("params", params);
        else
            b.remove("params");
        if (changed.size() == 1)
            mergeKey = QStringLiteral("B:") + changed.front();
    }
    if (now.dim != want.dim) {
        b.insert("dim", now.dim);
        text = QStringLiteral("B: dimension = %1").arg(now.dim);
        mergeKey = QStringLiteral("B:#dim");
    }
    if (now.positionCount != want.positionCount) {
        b.insert("positions", now.positionCount);
        text = QStringLiteral("B: positions = %1").arg(now.positionCount);
        mergeKey = QStringLiteral("B:#positions");
    }
    if (!(now.model == want.model)) {
        if (now.model.isEmpty())
            b.remove("model");
        else
            b.insert("model", now.model);
    }
    return pushCompare({m_compare.mode, b}, text, mergeKey);
}

QString WorkbenchState::pushCompareOptions(const ViewOptions& now)
{
    Setup want;
    ViewOptions wantOptions;
    resolveCompare(m_setup, m_options, m_compare.state, false, &want, &wantOptions);
    const QStringList changed = changedProperties(wantOptions, now);
    if (changed.isEmpty())
        return {};
    QJsonObject b = m_compare.state;
    QJsonObject view = b.value("view").toObject();
    QString text, mergeKey;
    for (const QString& name : changed) {
        const ViewProperty* p = findViewProperty(name);
        view.insert(name, propertyJson(*p, now));
        text = QStringLiteral("B: %1 = %2").arg(name, propertyText(*p, now));
        if (changed.size() == 1 && (p->kind == PropertyKind::Integer || p->kind == PropertyKind::Real))
            mergeKey = QStringLiteral("B:view:") + name;
    }
    b.insert("view", view);
    return pushCompare({m_compare.mode, b}, text, mergeKey);
}

} // namespace poslab::ui
