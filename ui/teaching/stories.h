// SPDX-License-Identifier: MIT
#pragma once
/// @file stories.h
/// The story of each scheme: the problem it answered, its idea, its
/// mechanism with a TeX formula, what the papers found it good and bad at, what came next, and the timeline
/// of the RoPE context-extension methods. Shipped as data, one file per scheme in resources/stories/<id>.json
/// plus resources/stories/timeline.json (compiled in under :/stories/; the format is resources/stories/FORMAT.md).
/// Which real models use a scheme is not typed in the stories: storyUsers() computes it from the presets.
/// Qt Core only.

#include <QDate>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace poslab::ui {

/// One finding: a sentence and the source that demonstrates it (paper section, table or repository path).
struct StoryClaim {
    QString text;
    QString source; ///< a short citation, shown beside the finding
    QString detail; ///< "detail": how the source was read (optional), shown only in the page's list of sources
};

/// One variant of a scheme (RoPE's rope_type values): the key as the registry spells it, its name, one or two
/// sentences, an optional TeX formula and the source.
struct StoryVariant {
    QString key;
    QString name;
    QString text;
    QString formula; ///< TeX, may be empty
    QString source;
};

/// A scheme's story (resources/stories/<id>.json).
struct Story {
    QString id; ///< the registry id
    QString title;
    QString problem; ///< the problem the scheme answered
    QString idea;
    QString mechanism;
    QString formula; ///< TeX (MathJax's subset)
    QList<StoryClaim> goodAt;
    QList<StoryClaim> badAt;
    QString next; ///< what came next
    QList<StoryVariant> variants;
    bool timeline = false; ///< the page shows the context-extension timeline
    QStringList sources;   ///< where every fact of the story was checked
};

/// Every shipped story, in the registry's order (read once from :/stories/).
const QList<Story>& stories();
/// Problems met reading the shipped files (malformed JSON, a missing field, an id that is not the file's);
/// empty when all is well.
const QStringList& storyLoadProblems();
/// The story of scheme @p id, or nullopt.
std::optional<Story> findStory(const QString& id);

/// A real model using a scheme, computed from the presets (ui/setup/presets.h).
struct StoryUser {
    QString presetId;
    QString name;
    QString hfId;
    QString variant;  ///< rope_type for rope and irope ("default" when the preset sets none), else empty
    QString verified; ///< the preset's verification mark
    QString source;   ///< the preset's source
};
/// Every preset whose scheme is @p schemeId, sorted by variant (in the registry's order of rope_type
/// choices) then by preset id.
QList<StoryUser> storyUsers(const QString& schemeId);

/// One step of the context-extension timeline (resources/stories/timeline.json).
struct TimelineEvent {
    QString id;
    QString name;     ///< short label drawn on the timeline
    QString who;      ///< authors or organisation
    QDate date;       ///< arXiv v1 submission or post date
    QString what;     ///< one sentence
    QString ropeType; ///< the registry's rope_type for the method, or empty
    QString source;   ///< where the date was checked, as a short citation
    QString detail;   ///< "detail": how the date was read (optional), shown only in the page's list of sources
};
/// A lesson step that shows a scheme: its id ("7.1"), the lesson's number and title.
struct StoryLesson {
    QString stepId;
    int lesson = 0;
    QString title;
};
/// For each lesson whose steps show scheme @p schemeId (by each step's merged state), its first such step; in
/// lesson order.
QList<StoryLesson> storyLessons(const QString& schemeId);

/// The timeline, in date order.
const QList<TimelineEvent>& extensionTimeline();

} // namespace poslab::ui
