// SPDX-License-Identifier: MIT
#include "ui/state/workbenchstate.h"

#include <QRegularExpression>

#include "core/attention.h"
#include "core/errors.h"
#include "core/extension.h"
#include "ui/render/figuretitle.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <limits>

namespace poslab::ui {
namespace {

/// One undo step: the set-up before and after. Consecutive mergeable steps on the same key (a slider drag)
/// merge, so one Ctrl+Z undoes the whole drag.
class SetupCommand : public QUndoCommand {
public:
    SetupCommand(WorkbenchState* state, Setup before, Setup after, const QString& text, QString mergeKey)
        : m_state(state), m_before(std::move(before)), m_after(std::move(after)), m_mergeKey(std::move(mergeKey))
    {
        setText(text);
    }
    void undo() override { m_state->applySetup(m_before); }
    void redo() override { m_state->applySetup(m_after); }
    int id() const override { return m_mergeKey.isEmpty() ? -1 : 1; }
    bool mergeWith(const QUndoCommand* other) override
    {
        const auto* o = static_cast<const SetupCommand*>(other);
        if (o->m_mergeKey != m_mergeKey || o->m_before.scheme != m_after.scheme)
            return false;
        m_after = o->m_after;
        setText(o->text());
        return true;
    }

private:
    WorkbenchState* m_state;
    Setup m_before;
    Setup m_after;
    QString m_mergeKey;
};

/// One undo step of the view options: before and after. Consecutive changes of the same number property (a
/// spin box held down, a slider dragged) merge into one step.
class ViewOptionsCommand : public QUndoCommand {
public:
    ViewOptionsCommand(WorkbenchState* state, ViewOptions before, ViewOptions after, const QString& text,
                       QString mergeKey)
        : m_state(state), m_before(std::move(before)), m_after(std::move(after)), m_mergeKey(std::move(mergeKey))
    {
        setText(text);
    }
    void undo() override { m_state->applyViewOptions(m_before); }
    void redo() override { m_state->applyViewOptions(m_after); }
    int id() const override { return m_mergeKey.isEmpty() ? -1 : 2; }
    bool mergeWith(const QUndoCommand* other) override
    {
        const auto* o = static_cast<const ViewOptionsCommand*>(other);
        if (o->m_mergeKey != m_mergeKey)
            return false;
        m_after = o->m_after;
        setText(o->text());
        if (m_after == m_before)
            setObsolete(true);
        return true;
    }

private:
    WorkbenchState* m_state;
    ViewOptions m_before;
    ViewOptions m_after;
    QString m_mergeKey;
};

/// One undo step of compare mode: configuration B and the mode, before and after. Consecutive edits of one of
/// B's parameters (a slider of B's panel dragged) merge.
class CompareCommand : public QUndoCommand {
public:
    CompareCommand(WorkbenchState* state, CompareConfig before, CompareConfig after, const QString& text, QString mergeKey)
        : m_state(state), m_before(std::move(before)), m_after(std::move(after)), m_mergeKey(std::move(mergeKey))
    {
        setText(text);
    }
    void undo() override { m_state->applyCompare(m_before); }
    void redo() override { m_state->applyCompare(m_after); }
    int id() const override { return m_mergeKey.isEmpty() ? -1 : 3; }
    bool mergeWith(const QUndoCommand* other) override
    {
        const auto* o = static_cast<const CompareCommand*>(other);
        if (o->m_mergeKey != m_mergeKey)
            return false;
        m_after = o->m_after;
        setText(o->text());
        return true;
    }

private:
    WorkbenchState* m_state;
    CompareConfig m_before;
    CompareConfig m_after;
    QString m_mergeKey;
};

/// One undo step of the spatial set-up; consecutive mergeable steps (arrow keys over the patches) merge.
class SpatialCommand : public QUndoCommand {
public:
    SpatialCommand(WorkbenchState* state, SpatialSetup before, SpatialSetup after, const QString& text, bool mergeable)
        : m_state(state), m_before(std::move(before)), m_after(std::move(after)), m_mergeable(mergeable)
    {
        setText(text);
    }
    void undo() override { m_state->applySpatial(m_before); }
    void redo() override { m_state->applySpatial(m_after); }
    int id() const override { return m_mergeable ? 4 : -1; }
    bool mergeWith(const QUndoCommand* other) override
    {
        m_after = static_cast<const SpatialCommand*>(other)->m_after;
        return true;
    }

private:
    WorkbenchState* m_state;
    SpatialSetup m_before;
    SpatialSetup m_after;
    bool m_mergeable;
};

/// The text a state file gives for a parameter (a string, a number or true/false), or nullopt.
std::optional<QString> paramText(const QJsonValue& v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 17);
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return std::nullopt;
}

} // namespace

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
}

WorkbenchState::~WorkbenchState() = default;

void WorkbenchState::setTrainedRuns(std::shared_ptr<const TrainedRuns> runs)
{
    m_trained = std::move(runs);
    emit trainedRunsChanged();
}

core::TableContext WorkbenchState::context() const
{
    core::TableContext ctx;
    ctx.dim = m_setup.dim;
    ctx.positions = core::PositionList::range(0, std::max(1, m_setup.positionCount));
    ctx.seqLen = m_setup.positionCount;
    return ctx;
}

QString WorkbenchState::refuse(const QString& message)
{
    emit refused(message);
    return message;
}

QString WorkbenchState::setupProblem(const Setup& next)
{
    const core::SchemeDescriptor* s = core::findScheme(next.scheme);
    if (!s)
        return QStringLiteral("unknown scheme '%1'").arg(QString::fromStdString(next.scheme));
    try {
        core::TableContext ctx;
        ctx.dim = next.dim;
        ctx.positions = core::PositionList::range(0, std::max(1, next.positionCount));
        ctx.seqLen = next.positionCount;
        core::validateParams(*s, next.params, ctx);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QString WorkbenchState::pushSetup(Setup next, const QString& text, const QString& mergeKey)
{
    if (const QString problem = setupProblem(next); !problem.isEmpty())
        return refuse(problem);
    if (next == m_setup)
        return {};
    m_undo->push(new SetupCommand(this, m_setup, std::move(next), text, mergeKey));
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
    try {
        next.params = core::resolveParams(*m_scheme, m_setup.params, core::Settings{{key.toStdString(), value}}, context());
    } catch (const std::exception& e) {
        return refuse(QString::fromStdString(e.what()));
    }
    // Configuration B taking another rope_type keeps A's trained length T where the new type reads one of its own
    // (original_max_position_embeddings; dynamic NTK's max_position_embeddings) and B follows that key's default:
    // a comparison of two methods at one T, not Qwen2.5's 32,768 brought in beside A's 512.
    if (m_owner && key == QLatin1String("rope_type") && m_scheme && core::trainedLengthOf(*m_scheme, next.params)) {
        const std::string trainedKey = next.params.value("rope_type").choice == "dynamic" ? "max_position_embeddings"
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
                next.params = core::resolveParams(*m_scheme, next.params, core::Settings{{trainedKey, core::ParamValue::integer(*t)}},
                                                  context());
            } catch (const std::exception&) {
                // A's T out of this key's range: B keeps the type's own default
            }
        }
    }
    const QString shown = QString::fromStdString(next.params.value(key.toStdString()).toString());
    return pushSetup(std::move(next), QStringLiteral("%1 = %2").arg(key, shown), mergeable ? key : QString());
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
        return refuse(QStringLiteral("dimension %1 is out of range; allowed: %2 to %3").arg(dim).arg(minDim).arg(maxDim));
    Setup next = m_setup;
    next.dim = dim;
    const QString text = QStringLiteral("dimension = %1").arg(dim);
    // Pinned clock pairs follow d (followDim), in the same undo step as d itself.
    ViewOptions o = m_options;
    o.clockPairs = followDim(o.clockPairs, m_setup.dim / 2, dim / 2);
    if (o.clockPairs == m_options.clockPairs || dim == m_setup.dim)
        return pushSetup(std::move(next), text, QStringLiteral("#dim"));
    if (const QString problem = setupProblem(next); !problem.isEmpty())
        return refuse(problem);
    m_undo->beginMacro(text);
    pushSetup(std::move(next), text, {});
    pushViewOptions(o, false);
    m_undo->endMacro();
    return {};
}

QString WorkbenchState::setPositionCount(int count)
{
    if (count < 1 || count > maxPositionCount)
        return refuse(QStringLiteral("positions %1 is out of range; allowed: 1 to %2").arg(count).arg(maxPositionCount));
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
    if (setup.scheme != old.scheme && !m_contentChosen && m_scheme
        && m_options.content != teachingContent(*m_scheme)) {
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
        const QString then = params.contains(key) ? params.value(key).toString()
                                                  : QString::fromStdString(core::defaultValue(spec, m_setup.params).toString());
        same = now == then;
    }
    return same ? name : tr("%1, edited").arg(name);
}

QString WorkbenchState::setSpatial(const SpatialSetup& spatial, bool mergeable)
{
    if (const QString problem = spatialProblem(spatial); !problem.isEmpty())
        return refuse(problem);
    if (!(spatial == m_spatial))
        m_undo->push(new SpatialCommand(this, m_spatial, spatial, tr("Change the spatial set-up"), mergeable));
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

QString WorkbenchState::fromJson(const QJsonObject& json, bool undoable)
{
    const QJsonValue version = json.value("version");
    if (!version.isUndefined() && !(version.isDouble() && version.toDouble() >= 1 && version.toDouble() < 1e6
                                    && version.toDouble() == std::floor(version.toDouble())))
        return QStringLiteral("version must be a whole number from 1 (got %1)")
            .arg(QString::fromUtf8(QJsonDocument(QJsonArray{version}).toJson(QJsonDocument::Compact)).mid(1).chopped(1));
    Setup next;
    if (!json.value("scheme").isString())
        return QStringLiteral("scheme must be a string naming a scheme (see poslab schemes)");
    next.scheme = json.value("scheme").toString().toStdString();
    const core::SchemeDescriptor* s = core::findScheme(next.scheme);
    if (!s)
        return QStringLiteral("unknown scheme '%1'").arg(json.value("scheme").toString());
    // A number that is not an int (2147483648, 1e300, "x") reads as this, and is refused below.
    constexpr int notAnInt = std::numeric_limits<int>::min();
    const auto integer = [&](const QJsonObject& o, const char* key, int fallback) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined())
            return fallback;
        const double x = v.toDouble(std::nan(""));
        return std::isfinite(x) && x == std::floor(x) && std::abs(x) <= 2147483647.0 ? int(x) : notAnInt;
    };
    // The limits of setDim, setPositionCount and the CLI: a state file may not go around them.
    const auto outOfRange = [](const QString& what, int value, long long lo, long long hi) {
        return value == notAnInt ? QStringLiteral("%1 is not an integer; allowed: %2 to %3").arg(what).arg(lo).arg(hi)
                                 : QStringLiteral("%1 %2 is out of range; allowed: %3 to %4").arg(what).arg(value).arg(lo).arg(hi);
    };
    const Setup fresh;
    next.dim = integer(json, "dim", fresh.dim);
    if (s->needsEvenDim && next.dim % 2 && !json.contains("dim"))
        ++next.dim;
    if (next.dim < minDim || next.dim > maxDim)
        return outOfRange(QStringLiteral("dim"), next.dim, minDim, maxDim);
    next.positionCount = integer(json, "positions", fresh.positionCount);
    if (next.positionCount < 1 || next.positionCount > maxPositionCount)
        return outOfRange(QStringLiteral("positions"), next.positionCount, 1, maxPositionCount);
    std::vector<std::pair<std::string, std::string>> overrides;
    if (json.contains("params") && !json.value("params").isObject())
        return QStringLiteral("params must be an object of key: value");
    const QJsonObject params = json.value("params").toObject();
    for (auto it = params.begin(); it != params.end(); ++it) {
        const QJsonValue v = it.value();
        QString text;
        if (v.isString())
            text = v.toString();
        else if (v.isDouble())
            text = QString::number(v.toDouble(), 'g', 17);
        else if (v.isBool())
            text = v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        else
            return QStringLiteral("parameter %1 must be a string, a number or true/false").arg(it.key());
        overrides.emplace_back(it.key().toStdString(), text.toStdString());
    }
    try {
        core::TableContext ctx;
        ctx.dim = next.dim;
        ctx.positions = core::PositionList::range(0, std::max(1, next.positionCount));
        ctx.seqLen = next.positionCount;
        next.params = core::resolveParams(*s, overrides, ctx); // as poslab export --set
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    if (json.contains("model") && !json.value("model").isObject())
        return QStringLiteral("model must be an object");
    next.model = json.value("model").toObject();
    if (!next.model.isEmpty() && !next.model.contains("set_up")) {
        // A preset or config.json as loaded: what it sets is this state's scheme, dimension and parameters, so
        // a later edit can be told apart ("Llama 3.1 8B, edited").
        QJsonObject setUpParams;
        for (const auto& [key, value] : overrides)
            setUpParams.insert(QString::fromStdString(key), QString::fromStdString(next.params.value(key).toString()));
        next.model.insert("set_up", QJsonObject{{"scheme", QString::fromStdString(next.scheme)},
                                                {"dim", next.dim},
                                                {"params", setUpParams}});
    }

    if (json.contains("view") && !json.value("view").isObject())
        return QStringLiteral("view must be an object of view options");
    const QJsonObject v = json.value("view").toObject();
    ViewOptions o;
    o.content = teachingContent(*s);
    for (const ViewProperty& p : viewProperties()) {
        const QJsonValue value = v.value(p.name);
        if (value.isUndefined())
            continue;
        QVariant converted;
        if (const QString problem = convertProperty(p, value, &converted); !problem.isEmpty())
            return problem;
        p.set(o, converted);
    }
    if (const QString problem = checkViewOptions(o); !problem.isEmpty())
        return problem;
    // Absent: the teaching cursor, or the last position of a shorter range.
    const int cursor = integer(json, "cursor", std::min(teachingCursor, next.positionCount - 1));
    if (cursor == notAnInt || cursor < 0 || cursor > next.positionCount - 1)
        return outOfRange(QStringLiteral("cursor"), cursor, 0, next.positionCount - 1);

    // Configuration B (compare mode): absent is compare off; B's keys must load on top of this state.
    CompareConfig compare;
    if (json.contains("compare")) {
        const QJsonValue c = json.value("compare");
        if (!c.isObject())
            return QStringLiteral("compare must be an object {\"mode\": side_by_side, overlay or difference, "
                                  "\"state\": {configuration B}}");
        const QJsonObject co = c.toObject();
        const auto mode = compareModeFromWord(co.value("mode").toString());
        if (!co.value("mode").isString() || !mode)
            return QStringLiteral("compare.mode must be side_by_side, overlay, difference or off (got %1)")
                .arg(QString::fromUtf8(QJsonDocument(QJsonArray{co.value("mode")}).toJson(QJsonDocument::Compact)).mid(1).chopped(1));
        if (co.contains("state") && !co.value("state").isObject())
            return QStringLiteral("compare.state must be an object in the state form (scheme, params, dim, view, ...)");
        if (*mode != CompareMode::Off) {
            compare = {*mode, co.value("state").toObject()};
            Setup bSetup;
            ViewOptions bOptions;
            if (const QString problem = resolveCompare(next, o, compare.state, true, &bSetup, &bOptions); !problem.isEmpty())
                return problem;
        }
    }

    // The spatial set-up: absent is a new window's.
    SpatialSetup spatial;
    if (json.contains("spatial"))
        if (const QString problem = spatialFromJson(json.value("spatial"), &spatial); !problem.isEmpty())
            return problem;
    if (SpatialSetup b; compare.mode != CompareMode::Off && compare.state.contains("spatial"))
        if (const QString problem = spatialOnTop(spatial, compare.state.value("spatial"), &b); !problem.isEmpty())
            return problem;

    if (undoable) {
        m_undo->beginMacro(tr("Load state"));
        if (!(spatial == m_spatial))
            m_undo->push(new SpatialCommand(this, m_spatial, spatial, tr("Load state"), false));
        if (!(next == m_setup))
            m_undo->push(new SetupCommand(this, m_setup, next, tr("Load state"), {}));
        pushViewOptions(o, false);
        if (!(compare == m_compare))
            m_undo->push(new CompareCommand(this, m_compare, compare, tr("Load state"), {}));
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

// ------------------------------------------------------------------------------------------ compare mode

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
        if (!b.value("scheme").isString())
            return where + QStringLiteral("scheme must be a string naming a scheme (see poslab schemes)");
        s = core::findScheme(b.value("scheme").toString().toStdString());
        if (!s)
            return where + QStringLiteral("unknown scheme '%1'").arg(b.value("scheme").toString());
        next.scheme = s->id;
    }
    if (!s)
        return where + QStringLiteral("unknown scheme");
    const bool sameScheme = next.scheme == a.scheme;
    // dim and positions: B's own, else A's (the limits of setDim and setPositionCount).
    const auto integer = [&](const char* key, int fallback, long long lo, long long hi, int* out) -> QString {
        const QJsonValue v = b.value(QLatin1String(key));
        if (v.isUndefined()) {
            *out = fallback;
            return {};
        }
        const double x = v.toDouble(std::nan(""));
        if (!(std::isfinite(x) && x == std::floor(x) && x >= double(lo) && x <= double(hi)))
            return where + QStringLiteral("%1 must be a whole number from %2 to %3").arg(QLatin1String(key)).arg(lo).arg(hi);
        *out = int(x);
        return {};
    };
    if (QString p = integer("dim", a.dim, minDim, maxDim, &next.dim); !p.isEmpty())
        return p;
    if (s->needsEvenDim && next.dim % 2 && !b.contains("dim"))
        ++next.dim;
    if (QString p = integer("positions", a.positionCount, 1, maxPositionCount, &next.positionCount); !p.isEmpty())
        return p;
    // Parameters: A's with B's own on top while the scheme is A's; B's own on the defaults otherwise.
    if (b.contains("params") && !b.value("params").isObject())
        return where + QStringLiteral("params must be an object of key: value");
    std::vector<std::pair<std::string, std::string>> overrides;
    const QJsonObject params = b.value("params").toObject();
    for (auto it = params.begin(); it != params.end(); ++it) {
        const auto text = paramText(it.value());
        if (!text)
            return where + QStringLiteral("parameter %1 must be a string, a number or true/false").arg(it.key());
        overrides.emplace_back(it.key().toStdString(), text->toStdString());
    }
    core::TableContext ctx;
    ctx.dim = next.dim;
    ctx.positions = core::PositionList::range(0, std::max(1, next.positionCount));
    ctx.seqLen = next.positionCount;
    QString problem;
    try {
        next.params = sameScheme ? core::resolveParams(*s, a.params, overrides, ctx) : core::resolveParams(*s, overrides, ctx);
    } catch (const std::exception& e) {
        problem = where + QString::fromStdString(e.what());
        if (strict)
            return problem;
        // A changed under B (a parameter B set no longer applies): keep what still loads, one key at a time.
        try {
            next.params = sameScheme ? a.params : core::resolveParams(*s, {}, ctx);
        } catch (const std::exception&) {
            next.params = core::defaultParams(*s);
        }
        for (const auto& one : overrides) {
            try {
                next.params = core::resolveParams(*s, next.params, {one}, ctx);
            } catch (const std::exception&) {
            }
        }
    }
    if (b.contains("model") && !b.value("model").isObject())
        return where + QStringLiteral("model must be an object");
    next.model = b.contains("model") ? b.value("model").toObject() : sameScheme ? a.model : QJsonObject();
    // View options: A's, with B's own on top; B's scheme opens on its teaching content as A's does.
    if (b.contains("view") && !b.value("view").isObject())
        return where + QStringLiteral("view must be an object of view options");
    if (!sameScheme && aScheme && ao.content == teachingContent(*aScheme))
        o.content = teachingContent(*s);
    const QJsonObject view = b.value("view").toObject();
    for (const ViewProperty& p : viewProperties()) {
        const QJsonValue value = view.value(p.name);
        if (value.isUndefined())
            continue;
        QVariant converted;
        if (const QString bad = convertProperty(p, value, &converted); !bad.isEmpty()) {
            if (strict)
                return where + bad;
            continue;
        }
        p.set(o, converted);
    }
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
        m_mirror->m_undo->setUndoLimit(1); // B's edits are undone on this state's stack
        m_mirror->setObjectName(QStringLiteral("configurationB"));
        connect(m_mirror, &WorkbenchState::setupChanged, this, [this] { takeMirrorSetup(); });
        connect(m_mirror, &WorkbenchState::viewOptionsChanged, this, [this] { takeMirrorOptions(); });
        connect(m_mirror, &WorkbenchState::spatialChanged, this, [this] { takeMirrorSpatial(); });
        connect(m_mirror, &WorkbenchState::cursorChanged, this, [this](int c) {
            if (!m_syncing)
                setCursor(c); // one cursor: moving it in a view of B moves A's
        });
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

void WorkbenchState::takeMirrorSpatial()
{
    if (m_syncing || !m_mirror || m_mirror->m_spatial == compareSpatial())
        return;
    QJsonObject b = m_compare.state;
    const QJsonObject own = spatialDifference(m_spatial, m_mirror->m_spatial);
    if (own.isEmpty())
        b.remove("spatial");
    else
        b.insert("spatial", own);
    pushCompare({m_compare.mode, b}, tr("B: spatial set-up"), {});
    syncCompare(); // the selection is A's: B's own is put back
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

void WorkbenchState::takeMirrorSetup()
{
    if (m_syncing || !m_mirror)
        return;
    Setup want;
    ViewOptions wantOptions;
    resolveCompare(m_setup, m_options, m_compare.state, false, &want, &wantOptions);
    const Setup& now = m_mirror->m_setup;
    if (now == want)
        return;
    const core::SchemeDescriptor* s = core::findScheme(now.scheme);
    if (!s)
        return;
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
                params.insert(QString::fromStdString(spec.key), QString::fromStdString(now.params.value(spec.key).toString()));
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
    pushCompare({m_compare.mode, b}, text, mergeKey);
    syncCompare(); // what B could not take (nothing, normally) is put back
}

void WorkbenchState::takeMirrorOptions()
{
    if (m_syncing || !m_mirror)
        return;
    Setup want;
    ViewOptions wantOptions;
    resolveCompare(m_setup, m_options, m_compare.state, false, &want, &wantOptions);
    // B's scheme is changing (its teaching content follows): takeMirrorSetup() records the change.
    if (!(m_mirror->m_setup == want))
        return;
    const QStringList changed = changedProperties(wantOptions, m_mirror->m_options);
    if (changed.isEmpty())
        return;
    QJsonObject b = m_compare.state;
    QJsonObject view = b.value("view").toObject();
    QString text, mergeKey;
    for (const QString& name : changed) {
        const ViewProperty* p = findViewProperty(name);
        view.insert(name, propertyJson(*p, m_mirror->m_options));
        text = QStringLiteral("B: %1 = %2").arg(name, propertyText(*p, m_mirror->m_options));
        if (changed.size() == 1 && (p->kind == PropertyKind::Integer || p->kind == PropertyKind::Real))
            mergeKey = QStringLiteral("B:view:") + name;
    }
    b.insert("view", view);
    pushCompare({m_compare.mode, b}, text, mergeKey);
    syncCompare();
}

} // namespace poslab::ui
