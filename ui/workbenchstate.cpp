// SPDX-License-Identifier: MIT
#include "ui/workbenchstate.h"

#include "core/attention.h"
#include "core/errors.h"

#include <QJsonArray>
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

} // namespace

AttentionContent teachingContent(const core::SchemeDescriptor& scheme)
{
    return scheme.id == "cope" ? AttentionContent::Sentence : AttentionContent::Constant;
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

QString WorkbenchState::pushSetup(Setup next, const QString& text, const QString& mergeKey)
{
    const core::SchemeDescriptor* s = core::findScheme(next.scheme);
    if (!s)
        return refuse(QStringLiteral("unknown scheme '%1'").arg(QString::fromStdString(next.scheme)));
    try {
        core::TableContext ctx;
        ctx.dim = next.dim;
        ctx.positions = core::PositionList::range(0, std::max(1, next.positionCount));
        ctx.seqLen = next.positionCount;
        core::validateParams(*s, next.params, ctx);
    } catch (const std::exception& e) {
        return refuse(QString::fromStdString(e.what()));
    }
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
    auto it = m_remembered.find(s->id);
    next.params = it != m_remembered.end() ? it->second : core::defaultParams(*s);
    if (s->needsEvenDim && next.dim % 2 != 0)
        next.dim += 1;
    return pushSetup(std::move(next), tr("Scheme %1").arg(QString::fromStdString(s->name)), {});
}

QString WorkbenchState::setParam(const QString& key, const core::ParamValue& value, bool mergeable)
{
    // The text form reads back unchanged (ParamValue::toString), so a slider and a typed value take the
    // same path through core's resolver as `poslab compute --set` and `poslab export --set`.
    return setParamText(key, QString::fromStdString(value.toString()), mergeable);
}

QString WorkbenchState::setParamText(const QString& key, const QString& text, bool mergeable)
{
    Setup next = m_setup;
    try {
        next.params = core::resolveParams(*m_scheme, m_setup.params,
                                          {{key.toStdString(), text.trimmed().toStdString()}}, context());
    } catch (const std::exception& e) {
        return refuse(QString::fromStdString(e.what()));
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

QString WorkbenchState::setDim(int dim)
{
    if (dim < minDim || dim > maxDim)
        return refuse(QStringLiteral("dimension %1 is out of range; allowed: %2 to %3").arg(dim).arg(minDim).arg(maxDim));
    Setup next = m_setup;
    next.dim = dim;
    return pushSetup(std::move(next), QStringLiteral("dimension = %1").arg(dim), QStringLiteral("#dim"));
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
        m_options.content = teachingContent(*m_scheme);
        emit viewOptionsChanged();
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

void WorkbenchState::setViewOptions(const ViewOptions& options)
{
    if (options == m_options)
        return;
    if (const QString problem = fontScaleProblem(options.fontScale); !problem.isEmpty()) {
        refuse(problem);
        return;
    }
    if (options.content != m_options.content)
        m_contentChosen = options.content != teachingContent(*m_scheme);
    m_options = options;
    emit viewOptionsChanged();
}

QJsonObject WorkbenchState::toJson() const
{
    QJsonObject params;
    // Only the parameters in force: fromJson() resolves them like `--set`, which refuses a key that does not
    // apply (YaRN's beta_fast while rope_type is default).
    for (const auto& spec : m_scheme->params)
        if (m_setup.params.has(spec.key) && core::applies(spec, m_setup.params))
            params.insert(QString::fromStdString(spec.key),
                          QString::fromStdString(m_setup.params.value(spec.key).toString()));
    const ViewOptions& o = m_options;
    QJsonObject view{
        {"table_quantity", int(o.tableQuantity)}, {"colormap", int(o.colorMap)}, {"pendulum", o.pendulum},
        {"clock_pairs", o.clockPairs}, {"speed", o.speed}, {"key_distance", o.keyDistance}, {"shift", o.shift},
        {"softmax", o.softmax}, {"causal", o.causal}, {"head", o.head}, {"heads", o.heads},
        {"content", int(o.content)}, {"sentence", o.sentence}, {"attention_size", o.attentionSize},
        {"term", o.term},
        {"theme", o.theme == ThemeKind::Dark ? "dark" : "light"}, {"font_scale", o.fontScale},
    };
    return QJsonObject{{"scheme", schemeId()}, {"params", params}, {"dim", m_setup.dim},
                       {"positions", m_setup.positionCount}, {"cursor", m_cursor}, {"view", view}};
}

QString WorkbenchState::fromJson(const QJsonObject& json)
{
    Setup next;
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
    next.dim = integer(json, "dim", 128);
    if (next.dim < minDim || next.dim > maxDim)
        return outOfRange(QStringLiteral("dim"), next.dim, minDim, maxDim);
    next.positionCount = integer(json, "positions", 1024);
    if (next.positionCount < 1 || next.positionCount > maxPositionCount)
        return outOfRange(QStringLiteral("positions"), next.positionCount, 1, maxPositionCount);
    std::vector<std::pair<std::string, std::string>> overrides;
    const QJsonObject params = json.value("params").toObject();
    for (auto it = params.begin(); it != params.end(); ++it)
        overrides.emplace_back(it.key().toStdString(), it.value().toString().toStdString());
    try {
        core::TableContext ctx;
        ctx.dim = next.dim;
        ctx.positions = core::PositionList::range(0, std::max(1, next.positionCount));
        ctx.seqLen = next.positionCount;
        next.params = core::resolveParams(*s, overrides, ctx); // as poslab export --set
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    const QJsonObject v = json.value("view").toObject();
    const ViewOptions d;
    ViewOptions o;
    o.tableQuantity = TableQuantity(integer(v, "table_quantity", 0));
    o.colorMap = ColorMapChoice(integer(v, "colormap", 0));
    o.pendulum = v.value("pendulum").toBool(false);
    o.clockPairs = v.value("clock_pairs").toString();
    o.speed = v.value("speed").toDouble(2.0);
    o.keyDistance = integer(v, "key_distance", d.keyDistance);
    o.shift = integer(v, "shift", d.shift);
    o.softmax = v.value("softmax").toBool(d.softmax);
    o.causal = v.value("causal").toBool(true);
    o.head = integer(v, "head", 0);
    o.heads = integer(v, "heads", 8);
    o.content = AttentionContent(integer(v, "content", int(teachingContent(*s))));
    o.sentence = v.value("sentence").toString(o.sentence);
    o.attentionSize = integer(v, "attention_size", 512);
    o.term = v.value("term").toString();
    o.theme = v.value("theme").toString() == "dark" ? ThemeKind::Dark : ThemeKind::Light;
    o.fontScale = v.value("font_scale").toDouble(1.0);
    // Absent: the teaching cursor, or the last position of a shorter range.
    const int cursor = integer(json, "cursor", std::min(teachingCursor, next.positionCount - 1));
    // Every view option checked before anything changes (heads -5 used to reach the engine).
    const struct { const char* key; int value; long long lo, hi; } ranges[] = {
        {"table_quantity", int(o.tableQuantity), 0, int(TableQuantity::Angle)},
        {"colormap", int(o.colorMap), 0, int(ColorMapChoice::Diverging)},
        {"content", int(o.content), 0, int(AttentionContent::Sentence)},
        {"heads", o.heads, 1, core::maxHeads},
        {"head", o.head, 0, std::max(0, o.heads - 1)},
        {"attention_size", o.attentionSize, 1, maxPositionCount},
        {"key_distance", o.keyDistance, -core::maxPosition, core::maxPosition},
        {"shift", o.shift, -core::maxPosition, core::maxPosition},
        {"cursor", cursor, 0, next.positionCount - 1},
    };
    for (const auto& r : ranges)
        if (r.value == notAnInt || r.value < r.lo || r.value > r.hi)
            return outOfRange(QString::fromLatin1(r.key), r.value, r.lo, r.hi);
    if (!std::isfinite(o.speed) || o.speed < 0.1 || o.speed > 100000.0) // the clock view's speed box
        return QStringLiteral("speed %1 is out of range; allowed: 0.1 to 100000 tokens per second").arg(o.speed);
    if (const QString problem = fontScaleProblem(o.fontScale); !problem.isEmpty())
        return problem;
    applySetup(next);
    setViewOptions(o);
    setCursor(cursor);
    return {};
}

} // namespace poslab::ui
