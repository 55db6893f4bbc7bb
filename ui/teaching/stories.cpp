// SPDX-License-Identifier: MIT
#include "ui/teaching/stories.h"

#include "core/encodingregistry.h"
#include "core/spatial.h"
#include "ui/lessons/lesson.h"
#include "ui/setup/presets.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace poslab::ui {
namespace {

struct Loaded {
    QList<Story> stories;
    QList<TimelineEvent> timeline;
    QStringList problems;
};

QJsonObject readObject(const QString& path, QStringList& problems)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        problems << QStringLiteral("%1: cannot be read").arg(path);
        return {};
    }
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
        problems
            << QStringLiteral("%1: not a JSON object (%2 at byte %3)").arg(path, err.errorString()).arg(err.offset);
        return {};
    }
    return doc.object();
}

QList<StoryClaim> claims(const QJsonValue& v, const QString& where, QStringList& problems)
{
    QList<StoryClaim> out;
    for (const QJsonValue& c : v.toArray()) {
        const QJsonObject o = c.toObject();
        StoryClaim claim{o.value(QStringLiteral("text")).toString(), o.value(QStringLiteral("source")).toString(),
                         o.value(QStringLiteral("detail")).toString()};
        if (claim.text.isEmpty() || claim.source.isEmpty())
            problems << QStringLiteral("%1: a claim without text or source").arg(where);
        out << claim;
    }
    return out;
}

Story readStory(const QString& id, QStringList& problems)
{
    const QString path = QStringLiteral(":/stories/%1.json").arg(id);
    const QJsonObject o = readObject(path, problems);
    Story s;
    s.id = o.value(QStringLiteral("id")).toString();
    if (!o.isEmpty() && s.id != id)
        problems << QStringLiteral("%1: id '%2' is not the file's name").arg(path, s.id);
    s.id = id;
    auto text = [&](const char* key) { return o.value(QLatin1String(key)).toString(); };
    s.title = text("title");
    s.problem = text("problem");
    s.idea = text("idea");
    s.mechanism = text("mechanism");
    s.formula = text("formula");
    s.next = text("next");
    s.timeline = o.value(QStringLiteral("timeline")).toBool();
    s.goodAt = claims(o.value(QStringLiteral("good_at")), path, problems);
    s.badAt = claims(o.value(QStringLiteral("bad_at")), path, problems);
    for (const QJsonValue& v : o.value(QStringLiteral("variants")).toArray()) {
        const QJsonObject vo = v.toObject();
        s.variants << StoryVariant{
            vo.value(QStringLiteral("rope_type")).toString(), vo.value(QStringLiteral("name")).toString(),
            vo.value(QStringLiteral("text")).toString(), vo.value(QStringLiteral("formula")).toString(),
            vo.value(QStringLiteral("source")).toString()};
    }
    for (const QJsonValue& v : o.value(QStringLiteral("sources")).toArray())
        s.sources << v.toString();
    return s;
}

const Loaded& loaded()
{
    static const Loaded data = [] {
        Loaded l;
        // The 1-D registry and the spatial table (grids and multimodal sequences): one story per scheme of each.
        std::vector<std::string> ids;
        for (const auto& scheme : core::schemes())
            ids.push_back(scheme.id);
        for (const auto& scheme : core::spatialSchemes())
            ids.push_back(scheme.info.id);
        for (const std::string& schemeId : ids) {
            const QString id = QString::fromStdString(schemeId);
            if (!QFile::exists(QStringLiteral(":/stories/%1.json").arg(id))) {
                l.problems << QStringLiteral("scheme '%1' has no story (resources/stories/%1.json)").arg(id);
                continue;
            }
            l.stories << readStory(id, l.problems);
        }
        const QString path = QStringLiteral(":/stories/timeline.json");
        const QJsonObject t = readObject(path, l.problems);
        for (const QJsonValue& v : t.value(QStringLiteral("events")).toArray()) {
            const QJsonObject o = v.toObject();
            TimelineEvent e;
            e.id = o.value(QStringLiteral("id")).toString();
            e.name = o.value(QStringLiteral("name")).toString();
            e.who = o.value(QStringLiteral("who")).toString();
            const QString date = o.value(QStringLiteral("date")).toString();
            e.date = QDate::fromString(date, Qt::ISODate);
            if (!e.date.isValid())
                l.problems << QStringLiteral("%1: event '%2': date '%3' is not YYYY-MM-DD").arg(path, e.id, date);
            e.what = o.value(QStringLiteral("what")).toString();
            e.ropeType = o.value(QStringLiteral("rope_type")).toString();
            e.source = o.value(QStringLiteral("source")).toString();
            e.detail = o.value(QStringLiteral("detail")).toString();
            l.timeline << e;
        }
        // The file lists the events in date order; a test checks it. Drawing sorts anyway, stably.
        std::stable_sort(l.timeline.begin(), l.timeline.end(),
                         [](const TimelineEvent& a, const TimelineEvent& b) { return a.date < b.date; });
        return l;
    }();
    return data;
}

/// The index of @p ropeType among the registry's rope_type choices of @p scheme (unknown words last).
int variantRank(const core::SchemeDescriptor* scheme, const QString& ropeType)
{
    if (scheme)
        for (const auto& p : scheme->params)
            if (p.key == "rope_type") {
                const auto it = std::find(p.choices.begin(), p.choices.end(), ropeType.toStdString());
                return int(it - p.choices.begin());
            }
    return 0;
}

} // namespace

const QList<Story>& stories()
{
    return loaded().stories;
}

const QStringList& storyLoadProblems()
{
    return loaded().problems;
}

std::optional<Story> findStory(const QString& id)
{
    for (const Story& s : stories())
        if (s.id == id)
            return s;
    return std::nullopt;
}

QList<StoryUser> storyUsers(const QString& schemeId)
{
    const core::SchemeDescriptor* scheme = core::findScheme(schemeId.toStdString());
    bool hasRopeType = false;
    if (scheme)
        for (const auto& p : scheme->params)
            hasRopeType = hasRopeType || p.key == "rope_type";
    QList<StoryUser> users;
    for (const QJsonObject& p : presets()) {
        if (p.value(QStringLiteral("scheme")).toString() != schemeId)
            continue;
        StoryUser u;
        u.presetId = p.value(QStringLiteral("id")).toString();
        u.name = p.value(QStringLiteral("name")).toString();
        u.hfId = p.value(QStringLiteral("hf_id")).toString();
        u.verified = p.value(QStringLiteral("verified")).toString();
        u.source = p.value(QStringLiteral("source")).toString();
        if (hasRopeType) {
            const QJsonObject params = p.value(QStringLiteral("params")).toObject();
            u.variant = params.value(QStringLiteral("rope_type")).toObject().value(QStringLiteral("value")).toString();
            if (u.variant.isEmpty()) // the preset keeps the scheme's default
                for (const auto& spec : scheme->params)
                    if (spec.key == "rope_type")
                        u.variant = QString::fromStdString(spec.defaultChoice);
        }
        users << u;
    }
    std::stable_sort(users.begin(), users.end(), [scheme](const StoryUser& a, const StoryUser& b) {
        const int ra = variantRank(scheme, a.variant), rb = variantRank(scheme, b.variant);
        return ra != rb ? ra < rb : a.presetId < b.presetId;
    });
    return users;
}

const QList<TimelineEvent>& extensionTimeline()
{
    return loaded().timeline;
}

QList<StoryLesson> storyLessons(const QString& schemeId)
{
    // The spatial views draw the state's spatial set-up; every other view draws its 1-D scheme.
    static const QStringList spatialViews{QStringLiteral("patchgrid"), QStringLiteral("sequence")};
    QList<StoryLesson> out;
    for (const lessons::Lesson& l : lessons::lessons())
        for (int i = 0; i < l.steps.size(); ++i) {
            // The merged state: a step that names no scheme keeps its lesson's (FORMAT.md).
            const QJsonObject state = lessons::stepState(l, i);
            const QStringList& views = l.steps[i].views;
            const bool spatial
                = std::any_of(views.begin(), views.end(), [](const QString& v) { return spatialViews.contains(v); });
            const bool plain
                = std::any_of(views.begin(), views.end(), [](const QString& v) { return !spatialViews.contains(v); });
            if ((plain && state.value(QLatin1String("scheme")).toString() == schemeId)
                || (spatial
                    && state.value(QLatin1String("spatial")).toObject().value(QLatin1String("scheme")).toString()
                        == schemeId)) {
                out << StoryLesson{l.steps[i].id, l.number, l.title};
                break;
            }
        }
    return out;
}

} // namespace poslab::ui
