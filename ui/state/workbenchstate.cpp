// SPDX-License-Identifier: MIT
// WorkbenchState: the set-up, the cursor and the view options and their setters. The state file is in
// workbenchjson.cpp, compare mode in workbenchcompare.cpp.
#include "ui/state/workbenchstate.h"
#include "ui/state/workbenchdetail.h"

#include <QRegularExpression>

#include "core/attention.h"
#include "core/errors.h"
#include "core/extension.h"
#include "ui/render/figuretitle.h"

#include <QUndoStack>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

namespace detail {

core::TableContext tableContext(const Setup& setup)
{
    core::TableContext ctx;
    ctx.dim = setup.dim;
    ctx.positions = core::PositionList::range(0, std::max(1, setup.positionCount));
    ctx.seqLen = setup.positionCount;
    return ctx;
}

} // namespace detail

namespace {

/// Whether @p checked is the token of @p setup (its scheme, parameters, dimension and sequence length).
bool vouchesFor(const core::CheckedParams* checked, const Setup& setup)
{
    return checked && checked->scheme() == setup.scheme && checked->dim() == setup.dim
        && checked->seqLen() == setup.positionCount && checked->params() == setup.params;
}

} // namespace

using detail::SetupCommand;
using detail::SpatialCommand;
using detail::ViewOptionsCommand;

AttentionContent teachingContent(const core::SchemeDescriptor& scheme)
{
    // Contextual positions (CoPE) are counted from the content: constant content would give them nothing to count.
    return scheme.relation == core::Relation::Contextual ? AttentionContent::Sentence : AttentionContent::Constant;
}

WorkbenchState::WorkbenchState(QObject* parent)
    : QObject(parent)
    , m_undo(new QUndoStack(this))
{
    m_undo->setUndoLimit(undoLimit);
    m_scheme = core::findScheme("rope");
    if (!m_scheme)
        m_scheme = &core::schemes().front();
    m_setup.scheme = m_scheme->id;
    m_setup.params = core::defaultParams(*m_scheme);
    m_options.content = teachingContent(*m_scheme);
    setupProblem(m_setup, &m_checked);
}

WorkbenchState::~WorkbenchState() = default;

void WorkbenchState::setTrainedRuns(std::shared_ptr<const TrainedRuns> runs)
{
    m_trained = std::move(runs);
    emit trainedRunsChanged();
}

core::TableContext WorkbenchState::context() const
{
    return detail::tableContext(m_setup);
}

QString WorkbenchState::refuse(const QString& message)
{
    emit refused(message);
    return message;
}

QString WorkbenchState::setupProblem(const Setup& next, std::shared_ptr<const core::CheckedParams>* checked)
{
    const core::SchemeDescriptor* s = core::findScheme(next.scheme);
    if (!s)
        return QStringLiteral("unknown scheme '%1'").arg(QString::fromStdString(next.scheme));
    try {
        auto token = std::make_shared<const core::CheckedParams>(
            core::checkParams(*s, next.params, detail::tableContext(next)));
        if (checked)
            *checked = std::move(token);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QString WorkbenchState::pushSetup(Setup next, const QString& text, const QString& mergeKey,
                                  std::shared_ptr<const core::CheckedParams> checked)
{
    // Validated once: by the caller's resolve when it hands its token on, else here.
    if (!vouchesFor(checked.get(), next))
        if (const QString problem = setupProblem(next, &checked); !problem.isEmpty())
            return refuse(problem);
    if (next == m_setup)
        return {};
    if (m_owner)
        return m_owner->pushCompareSetup(next); // B: a step of A's configuration B (B's token: syncCompare's apply)
    m_pendingChecked = std::move(checked);      // applySetup() takes it when the command applies next
    m_undo->push(new SetupCommand(this, m_setup, std::move(next), text, mergeKey));
    m_pendingChecked.reset();
    return {};
}

QString WorkbenchState::setScheme(const QString& id)
{
    const core::SchemeDescriptor* s = core::findScheme(id.toStdString());
    if (!s)
        return refuse(QStringLiteral("unknown scheme '%1'").arg(id));
    if (s == m_scheme)
        return {};
    Setup next = m_setup;
    next.scheme = s->id;
    next.model = {}; // another scheme is no longer the model's set-up
    auto it = m_remembered.find(s->id);
    next.params = it != m_remembered.end() ? it->second : core::defaultParams(*s);
    if (s->needsEvenDim && next.dim % 2 != 0)
        next.dim += 1;
    return pushSetup(std::move(next), tr("Scheme %1").arg(QString::fromStdString(s->name)), {});
}

QString WorkbenchState::setParam(const QString& key, const core::ParamValue& value, bool mergeable)
{
    return applyParam(key, value, mergeable);
}

QString WorkbenchState::setParamText(const QString& key, const QString& text, bool mergeable)
{
    core::Settings read;
    try {
        read = core::parseSettings(*m_scheme, {{key.toStdString(), text.trimmed().toStdString()}});
    } catch (const std::exception& e) {
        return refuse(QString::fromStdString(e.what()));
    }
    return applyParam(key, read.front().second, mergeable);
}

QString WorkbenchState::applyParam(const QString& key, const core::ParamValue& value, bool mergeable)
{
    Setup next = m_setup;
    std::shared_ptr<const core::CheckedParams> checked; // the one validation of this change
    try {
        checked = std::make_shared<const core::CheckedParams>(
            core::resolveChecked(*m_scheme, m_setup.params, core::Settings{{key.toStdString(), value}}, context()));
        next.params = checked->params();
    } catch (const std::exception& e) {
        return refuse(QString::fromStdString(e.what()));
    }
    // Configuration B taking another rope_type keeps A's trained length T where the new type reads one of its own
    // (original_max_position_embeddings; dynamic NTK's max_position_embeddings) and B follows that key's default:
    // a comparison of two methods at one T, not Qwen2.5's 32,768 brought in beside A's 512.
    if (m_owner && key == QLatin1String("rope_type") && m_scheme && core::trainedLengthOf(*m_scheme, next.params)) {
        const std::string trainedKey = next.params.value("rope_type").choice == "dynamic"
            ? "max_position_embeddings"
            : "original_max_position_embeddings";
        const core::ParamSpec* spec = m_scheme->param(trainedKey);
        const Setup& a = m_owner->m_setup;
        std::optional<core::Position> t;
        if (const core::SchemeDescriptor* as = core::findScheme(a.scheme); as && as->rotary)
            t = core::trainedLengthOf(*as, a.params);
        if (!t && m_owner->m_options.trainedLength > 0)
            t = core::Position(m_owner->m_options.trainedLength);
        if (!t && a.model.value(QStringLiteral("trained_length")).toInteger() > 0)
            t = core::Position(a.model.value(QStringLiteral("trained_length")).toInteger());
        if (spec && t && next.params.value(trainedKey) == core::defaultValue(*spec, next.params)) {
            try {
                checked = std::make_shared<const core::CheckedParams>(core::resolveChecked(
                    *m_scheme, next.params, core::Settings{{trainedKey, core::ParamValue::integer(*t)}}, context()));
                next.params = checked->params();
            } catch (const std::exception&) {
                // A's T out of this key's range: B keeps the type's own default
            }
        }
    }
    const QString shown = QString::fromStdString(next.params.value(key.toStdString()).toString());
    return pushSetup(std::move(next), QStringLiteral("%1 = %2").arg(key, shown), mergeable ? key : QString(),
                     std::move(checked));
}

QString WorkbenchState::resetParam(const QString& key)
{
    const core::ParamSpec* spec = m_scheme->param(key.toStdString());
    if (!spec)
        return refuse(QStringLiteral("%1 has no parameter %2").arg(schemeId(), key));
    return setParam(key, core::defaultValue(*spec, m_setup.params));
}

QString WorkbenchState::followDim(const QString& pairs, int oldPairs, int newPairs)
{
    if (oldPairs < 2 || newPairs < 1)
        return pairs;
    static const QRegularExpression number(QStringLiteral("\\d+"));
    QString out;
    qsizetype at = 0;
    for (auto it = number.globalMatch(pairs); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += pairs.mid(at, m.capturedStart() - at);
        const double i = m.captured().toDouble();
        const long long mapped = std::llround(i * (newPairs - 1) / (oldPairs - 1));
        out += QString::number(std::clamp<long long>(mapped, 0, newPairs - 1));
        at = m.capturedEnd();
    }
    return out + pairs.mid(at);
}

QString WorkbenchState::setDim(int dim)
{
    if (dim < minDim || dim > maxDim)
        return refuse(
            QStringLiteral("dimension %1 is out of range; allowed: %2 to %3").arg(dim).arg(minDim).arg(maxDim));
    Setup next = m_setup;
    next.dim = dim;
    const QString text = QStringLiteral("dimension = %1").arg(dim);
    // Pinned clock pairs follow d (followDim), in the same undo step as d itself.
    ViewOptions o = m_options;
    o.clockPairs = followDim(o.clockPairs, m_setup.dim / 2, dim / 2);
    if (o.clockPairs == m_options.clockPairs || dim == m_setup.dim)
        return pushSetup(std::move(next), text, QStringLiteral("#dim"));
    std::shared_ptr<const core::CheckedParams> checked;
    if (const QString problem = setupProblem(next, &checked); !problem.isEmpty())
        return refuse(problem);
    m_undo->beginMacro(text);
    pushSetup(std::move(next), text, {}, std::move(checked));
    pushViewOptions(o, false);
    m_undo->endMacro();
    return {};
}

QString WorkbenchState::setPositionCount(int count)
{
    if (count < 1 || count > maxPositionCount)
        return refuse(
            QStringLiteral("positions %1 is out of range; allowed: 1 to %2").arg(count).arg(maxPositionCount));
    Setup next = m_setup;
    next.positionCount = count;
    return pushSetup(std::move(next), QStringLiteral("positions = %1").arg(count), QStringLiteral("#positions"));
}

void WorkbenchState::applySetup(const Setup& setup)
{
    const Setup old = m_setup;
    if (setup.scheme != old.scheme)
        m_remembered[old.scheme] = old.params;
    m_setup = setup;
    m_scheme = core::findScheme(m_setup.scheme);
    // The token before any signal: pushSetup()'s, else the one kept, else one made now (undo, redo, a state file).
    if (vouchesFor(m_pendingChecked.get(), setup))
        m_checked = m_pendingChecked;
    else if (!vouchesFor(m_checked.get(), setup) && !setupProblem(setup, &m_checked).isEmpty())
        m_checked.reset(); // applied unvalidated (its callers' promise): the figures validate each request
    if (setup.scheme != old.scheme && !m_contentChosen && m_scheme && m_options.content != teachingContent(*m_scheme)) {
        ViewOptions o = m_options;
        o.content = teachingContent(*m_scheme);
        applyViewOptions(o);
    }
    if (setup.scheme != old.scheme)
        emit schemeChanged();
    if (setup.scheme != old.scheme || !(setup.params == old.params))
        emit paramsChanged();
    if (setup.dim != old.dim)
        emit dimChanged(setup.dim);
    if (setup.positionCount != old.positionCount) {
        emit positionCountChanged(setup.positionCount);
        if (m_cursor >= setup.positionCount)
            setCursor(setup.positionCount - 1);
    }
    emit setupChanged();
    syncCompare();
}

void WorkbenchState::setCursor(int position)
{
    if (m_owner && !m_owner->m_syncing)
        return m_owner->setCursor(position); // one cursor: moving it in a view of B moves A's (and B's with it)
    position = std::clamp(position, 0, std::max(0, m_setup.positionCount - 1));
    const bool moved = position != m_cursor;
    m_cursor = position;
    if (std::floor(m_time) != position)
        setAnimationTime(position);
    if (moved)
        emit cursorChanged(position);
    syncCompareCursor();
}

void WorkbenchState::setAnimationTime(double t)
{
    if (m_owner && !m_owner->m_syncing)
        return m_owner->setAnimationTime(t);
    const double end = std::max(0, m_setup.positionCount - 1);
    if (t > end + 0.999999)
        t = 0.0; // playing past the end wraps to the start
    t = std::clamp(t, 0.0, end + 0.999999);
    if (t == m_time)
        return;
    m_time = t;
    emit animationTimeChanged(t);
    const int c = int(std::floor(t));
    if (c != m_cursor) {
        m_cursor = c;
        emit cursorChanged(c);
    }
    syncCompareCursor();
}

void WorkbenchState::setAnswerPending(bool pending, const QString& step)
{
    if (m_owner)
        return m_owner->setAnswerPending(pending, step);
    const QString id = pending ? step : QString();
    if (pending == m_answerPending && id == m_answerPendingStep)
        return;
    m_answerPending = pending;
    m_answerPendingStep = id;
    emit answerPendingChanged();
    if (m_mirror)
        emit m_mirror->answerPendingChanged();
}

void WorkbenchState::setPlaying(bool playing)
{
    if (playing == m_playing)
        return;
    m_playing = playing;
    emit playingChanged(playing);
}

QString WorkbenchState::fontScaleProblem(double scale)
{
    if (!std::isfinite(scale) || scale < minFontScale || scale > maxFontScale)
        return QStringLiteral("font scale %1 is out of range; allowed: %2 to %3")
            .arg(QString::number(scale), QString::number(minFontScale), QString::number(maxFontScale));
    return {};
}

QString WorkbenchState::setViewOptions(const ViewOptions& options)
{
    return pushViewOptions(options, true);
}

QString WorkbenchState::pushViewOptions(const ViewOptions& options, bool mergeable)
{
    if (options == m_options)
        return {};
    if (const QString problem = checkViewOptions(options); !problem.isEmpty())
        return refuse(problem);
    if (options.content != m_options.content)
        m_contentChosen = options.content != teachingContent(*m_scheme);
    if (m_owner)
        return m_owner->pushCompareOptions(options);
    const QStringList changed = changedProperties(m_options, options);
    QString text, mergeKey;
    if (changed.size() == 1) {
        const ViewProperty* p = findViewProperty(changed.front());
        text = QStringLiteral("%1 = %2").arg(p->name, propertyText(*p, options));
        if (mergeable && (p->kind == PropertyKind::Integer || p->kind == PropertyKind::Real))
            mergeKey = p->name;
    } else {
        text = tr("view options: %1").arg(changed.join(QStringLiteral(", ")));
    }
    m_undo->push(new ViewOptionsCommand(this, m_options, options, text, mergeKey));
    return {};
}

void WorkbenchState::applyViewOptions(const ViewOptions& options)
{
    if (options == m_options)
        return;
    const QStringList changed = changedProperties(m_options, options);
    m_options = options;
    for (const QString& name : changed)
        emit propertyChanged(name);
    emit viewOptionsChanged();
    syncCompare();
}

QVariant WorkbenchState::property(const QString& name) const
{
    const ViewProperty* p = findViewProperty(name);
    return p ? p->get(m_options) : QVariant();
}

QString WorkbenchState::setProperty(const QString& name, const QVariant& value, bool mergeable)
{
    const ViewProperty* p = findViewProperty(name);
    if (!p)
        return refuse(QStringLiteral("unknown view option '%1'; view options: %2").arg(name, viewPropertyNames()));
    // The value's type must be the property's: convert through JSON, which also checks the range.
    QVariant checked;
    const QJsonValue json = p->kind == PropertyKind::Choice && value.typeId() == QMetaType::Int
        ? QJsonValue(value.toInt())
        : QJsonValue::fromVariant(value);
    if (const QString problem = convertProperty(*p, json, &checked); !problem.isEmpty())
        return refuse(problem);
    ViewOptions next = m_options;
    p->set(next, checked);
    return pushViewOptions(next, mergeable);
}

QString WorkbenchState::setPropertyText(const QString& name, const QString& text, bool mergeable)
{
    const ViewProperty* p = findViewProperty(name);
    if (!p)
        return refuse(QStringLiteral("unknown view option '%1'; view options: %2").arg(name, viewPropertyNames()));
    QVariant v;
    if (const QString problem = parseProperty(*p, text, &v); !problem.isEmpty())
        return refuse(problem);
    return setProperty(name, v, mergeable);
}

QString WorkbenchState::figureLabel() const
{
    const QString variant = variantLabel(*m_scheme, m_setup.params);
    const QString model = modelLabel();
    const QString label = model.isEmpty() ? variant : QStringLiteral("%1 \u00b7 %2").arg(model, variant);
    const QString who = compareName();
    return who.isEmpty() ? label : QStringLiteral("%1: %2").arg(who, label);
}

QString WorkbenchState::modelLabel() const
{
    const QString name = m_setup.model.value(QLatin1String("name")).toString();
    if (name.isEmpty())
        return {};
    const QJsonObject setUp = m_setup.model.value(QLatin1String("set_up")).toObject();
    bool same = setUp.value(QLatin1String("scheme")).toString() == schemeId()
        && setUp.value(QLatin1String("dim")).toInt() == m_setup.dim;
    const QJsonObject params = setUp.value(QLatin1String("params")).toObject();
    for (const auto& spec : m_scheme->params) {
        if (!same)
            break;
        if (!m_setup.params.has(spec.key) || !core::applies(spec, m_setup.params))
            continue;
        const QString key = QString::fromStdString(spec.key);
        const QString now = QString::fromStdString(m_setup.params.value(spec.key).toString());
        const QString then = params.contains(key)
            ? params.value(key).toString()
            : QString::fromStdString(core::defaultValue(spec, m_setup.params).toString());
        same = now == then;
    }
    return same ? name : tr("%1, edited").arg(name);
}

QString WorkbenchState::setSpatial(const SpatialSetup& spatial, bool mergeable)
{
    if (const QString problem = spatialProblem(spatial); !problem.isEmpty())
        return refuse(problem);
    if (m_owner)
        return m_owner->pushCompareSpatial(spatial);
    if (!(spatial == m_spatial))
        m_undo->push(new SpatialCommand(this, m_spatial, spatial, tr("Change the spatial set-up"),
                                        mergeable ? QStringLiteral("#spatial") : QString()));
    return {};
}

void WorkbenchState::applySpatial(const SpatialSetup& spatial)
{
    if (spatial == m_spatial)
        return;
    m_spatial = spatial;
    syncCompare(); // B's spatial set-up is A's with B's own keys on top
    emit spatialChanged();
}

} // namespace poslab::ui
