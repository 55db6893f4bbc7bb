// SPDX-License-Identifier: MIT
// The scheme story pages: every registered scheme has a story with every section filled and every
// finding sourced; RoPE's story covers every rope_type the registry offers; "used by" is computed from the
// preset files (read here independently of ui/presets); the context-extension timeline's dates parse and come
// in order; the page fits a 1366 x 768 screen at font scales 1 and 2 with no label cut off and no timeline
// label overlapping another or crossed by a leader line; the scheme picker opens the page.
#include "core/encodingregistry.h"
#include "core/spatial.h"
#include "tests/ui/projectorscreen.h"
#include "ui/window/schemepicker.h"
#include "ui/teaching/stories.h"
#include "ui/teaching/storypage.h"
#include "ui/state/workbenchstate.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QTimer>
#include <QToolButton>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

using namespace poslab;
using namespace poslab::ui;

namespace {

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

/// Every preset file's id -> (scheme, rope_type as written or empty), read straight from resources/presets.
std::map<QString, std::pair<QString, QString>> presetFiles()
{
    std::map<QString, std::pair<QString, QString>> out;
    const QDir dir(QStringLiteral(POSLAB_SOURCE_DIR "/resources/presets"));
    for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files)) {
        const QJsonObject o = readJson(dir.filePath(name));
        const QString ropeType = o.value("params").toObject().value("rope_type").toObject().value("value").toString();
        out[o.value("id").toString()] = {o.value("scheme").toString(), ropeType};
    }
    return out;
}

QString defaultRopeType(const core::SchemeDescriptor& s)
{
    for (const auto& p : s.params)
        if (p.key == "rope_type")
            return QString::fromStdString(p.defaultChoice);
    return {};
}

/// Every scheme with a story: the 1-D registry, then the grid and sequence schemes of core/spatial.h.
std::vector<std::pair<QString, const core::SchemeDescriptor*>> allSchemes()
{
    std::vector<std::pair<QString, const core::SchemeDescriptor*>> out;
    for (const auto& s : core::schemes())
        out.emplace_back(QString::fromStdString(s.id), &s);
    for (const auto& s : core::spatialSchemes())
        out.emplace_back(QString::fromStdString(s.info.id), &s.info);
    return out;
}

} // namespace

class TestStories : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCOMPARE(QGuiApplication::primaryScreen()->availableGeometry().size(), QSize(1366, 768));
        QVERIFY2(storyLoadProblems().isEmpty(), qPrintable(storyLoadProblems().join('\n')));
    }

    void everySchemeHasAFullStory_data()
    {
        QTest::addColumn<QString>("id");
        for (const auto& [id, scheme] : allSchemes())
            QTest::newRow(qPrintable(id)) << id;
    }
    void everySchemeHasAFullStory()
    {
        QFETCH(QString, id);
        const std::optional<Story> s = findStory(id);
        QVERIFY2(s, qPrintable(id));
        QCOMPARE(s->id, id);
        for (const auto& [name, text] : {std::pair{"title", s->title},
                                         {"problem", s->problem},
                                         {"idea", s->idea},
                                         {"mechanism", s->mechanism},
                                         {"formula", s->formula},
                                         {"next", s->next}})
            QVERIFY2(!text.trimmed().isEmpty(), qPrintable(id + ": empty " + name));
        QVERIFY2(!s->goodAt.isEmpty(), qPrintable(id + ": no good_at"));
        QVERIFY2(!s->badAt.isEmpty(), qPrintable(id + ": no bad_at"));
        for (const StoryClaim& c : s->goodAt + s->badAt) {
            QVERIFY2(!c.text.trimmed().isEmpty() && !c.source.trimmed().isEmpty(), qPrintable(id + ": " + c.text));
            // A finding says whose it is: a year or a repository path in its source.
            QVERIFY2(c.source.contains(QRegularExpression(QStringLiteral("(19|20)\\d\\d|/"))), qPrintable(c.source));
        }
        QVERIFY2(!s->sources.isEmpty(), qPrintable(id));
        // "Used by" is never typed into a story: the files have no such field.
        const QJsonObject raw = readJson(QStringLiteral(":/stories/%1.json").arg(id));
        for (const char* typed : {"used_by", "models", "users"})
            QVERIFY2(!raw.contains(QLatin1String(typed)), qPrintable(id + ": typed " + typed));
        // A scheme with variants (RoPE's rope_type) tells the story of each one the registry offers.
        const core::SchemeDescriptor* scheme = core::findScheme(id.toStdString());
        if (!scheme) // a grid or sequence scheme
            scheme = &core::findSpatialScheme(id.toStdString())->info;
        QVERIFY(scheme);
        if (id == QLatin1String("rope")) {
            std::set<QString> told;
            for (const StoryVariant& v : s->variants) {
                QVERIFY(!v.name.isEmpty() && !v.text.isEmpty() && !v.source.isEmpty());
                told.insert(v.key);
            }
            for (const auto& p : scheme->params)
                if (p.key == "rope_type")
                    for (const auto& choice : p.choices)
                        QVERIFY2(told.count(QString::fromStdString(choice)), choice.c_str());
            QCOMPARE(told.size(), s->variants.size());
        }
    }

    void usedByIsComputedFromThePresets()
    {
        const auto files = presetFiles();
        QVERIFY(files.size() >= 30);
        int total = 0;
        for (const auto& [id, schemePtr] : allSchemes()) {
            const core::SchemeDescriptor& scheme = *schemePtr;
            std::set<QString> expected;
            for (const auto& [preset, schemeAndType] : files)
                if (schemeAndType.first == id)
                    expected.insert(preset);
            const QList<StoryUser> users = storyUsers(id);
            std::set<QString> got;
            for (const StoryUser& u : users) {
                got.insert(u.presetId);
                QVERIFY2(files.count(u.presetId), qPrintable(u.presetId));
                QCOMPARE(files.at(u.presetId).first, id); // every entry's scheme matches
                QVERIFY(!u.name.isEmpty() && !u.source.isEmpty());
                // The variant is the preset's rope_type, or the scheme's default when the preset sets none.
                if (!defaultRopeType(scheme).isEmpty()) {
                    const QString written = files.at(u.presetId).second;
                    QCOMPARE(u.variant, written.isEmpty() ? defaultRopeType(scheme) : written);
                }
            }
            QCOMPARE(got, expected);
            total += int(users.size());
            // The page lists exactly these models, with their sources.
            StoryPage page;
            page.showStory(id);
            const QString text = page.text();
            for (const StoryUser& u : users)
                QVERIFY2(text.contains(u.name.toHtmlEscaped()), qPrintable(id + ": " + u.name));
        }
        QCOMPARE(total, int(files.size())); // every preset appears under exactly one scheme
        QVERIFY(!storyUsers(QStringLiteral("alibi")).isEmpty());
        // RoPE's users cover several rope_types, grouped in the registry's order of choices.
        const QList<StoryUser> rope = storyUsers(QStringLiteral("rope"));
        QStringList order;
        for (const StoryUser& u : rope)
            if (order.isEmpty() || order.back() != u.variant)
                order << u.variant;
        QVERIFY2(order.removeDuplicates() == 0, qPrintable(order.join(',')));
        QVERIFY(order.size() >= 4);
        QCOMPARE(order.front(), QStringLiteral("default"));
    }

    void timelineDatesParseAndComeInOrder()
    {
        // The file as written (the loader sorts; the file itself must already be in order).
        const QJsonArray events = readJson(QStringLiteral(":/stories/timeline.json")).value("events").toArray();
        QVERIFY(events.size() >= 7);
        QDate previous;
        std::set<QString> ropeTypes;
        for (const auto& p : core::findScheme("rope")->params)
            if (p.key == "rope_type")
                for (const auto& c : p.choices)
                    ropeTypes.insert(QString::fromStdString(c));
        for (const QJsonValue& v : events) {
            const QJsonObject e = v.toObject();
            const QString text = e.value("date").toString();
            QVERIFY2(QRegularExpression(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}$")).match(text).hasMatch(),
                     qPrintable(text));
            const QDate date = QDate::fromString(text, Qt::ISODate);
            QVERIFY2(date.isValid(), qPrintable(text));
            if (previous.isValid())
                QVERIFY2(previous < date, qPrintable(text));
            previous = date;
            QVERIFY(!e.value("name").toString().isEmpty());
            QVERIFY(!e.value("what").toString().isEmpty());
            QVERIFY2(!e.value("source").toString().isEmpty(), qPrintable(e.value("id").toString()));
            const QString ropeType = e.value("rope_type").toString();
            QVERIFY2(ropeType.isEmpty() || ropeTypes.count(ropeType), qPrintable(ropeType));
        }
        QCOMPARE(extensionTimeline().size(), events.size());
        // The methods the issue names are on it, each with the date its paper or post gives.
        const std::map<QString, QDate> known{
            {"linear", {2023, 6, 27}}, {"yarn", {2023, 8, 31}}, {"longrope", {2024, 2, 21}}, {"llama3", {2024, 7, 23}}};
        for (const auto& [type, date] : known) {
            bool found = false;
            for (const TimelineEvent& e : extensionTimeline())
                found = found || (e.ropeType == type && e.date == date);
            QVERIFY2(found, qPrintable(type));
        }
    }

    void spatialStoriesOpen()
    {
        // The grid and sequence schemes have their own table, not the 1-D registry: the loader reads
        // their stories, the page's scheme list offers them, and a page shows the scheme's citation and the
        // presets that use it (M-RoPE: the three Qwen-VL presets).
        for (const auto& s : core::spatialSchemes())
            QVERIFY2(findStory(QString::fromStdString(s.info.id)), s.info.id.c_str());
        StoryPage page;
        auto* choice = page.findChild<QComboBox*>(QStringLiteral("storyScheme"));
        QVERIFY(choice);
        QVERIFY(choice->findData(QStringLiteral("mrope")) >= 0 && choice->findData(QStringLiteral("sincos_2d")) >= 0);
        page.showStory(QStringLiteral("mrope"));
        const QString text = page.text();
        QVERIFY2(text.contains(QStringLiteral("Wang et al. 2024")), qPrintable(text.left(400)));
        for (const char* name : {"Qwen2-VL 7B Instruct", "Qwen2.5-VL 7B Instruct", "Qwen3-VL 4B Instruct"})
            QVERIFY2(text.contains(QLatin1String(name)), name);
        QVERIFY(!text.contains(QStringLiteral("No story for the scheme")));
        QCOMPARE(storyUsers(QStringLiteral("rope_2d")).size(), 2);
        QCOMPARE(storyUsers(QStringLiteral("sincos_2d")).front().presetId, QStringLiteral("mae-vit-b-16"));
    }

    void pageFitsTheScreen_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("scale");
        for (const auto& [id, scheme] : allSchemes())
            for (double scale : {1.0, 2.0})
                QTest::newRow(QStringLiteral("%1 x%2").arg(id).arg(scale).toUtf8()) << id << scale;
    }
    void pageFitsTheScreen()
    {
        QFETCH(QString, id);
        QFETCH(double, scale);
        StoryPage page;
        QFont f = QApplication::font();
        f.setPointSizeF(f.pointSizeF() * scale);
        page.setFont(f);
        page.showStory(id);
        const QRect avail = QGuiApplication::primaryScreen()->availableGeometry();
        page.resize(avail.size());
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QCoreApplication::processEvents();
        QVERIFY2(page.minimumSizeHint().width() <= avail.width(),
                 qPrintable(QString::number(page.minimumSizeHint().width())));
        QWidget* viewport = page.scrollArea()->viewport();
        QWidget* body = page.scrollArea()->widget();
        QVERIFY2(body->width() <= viewport->width(),
                 qPrintable(QStringLiteral("%1 > %2").arg(body->width()).arg(viewport->width())));
        int checked = 0;
        for (QLabel* l : page.textLabels()) {
            if (!l->isVisible() || l->text().isEmpty())
                continue;
            ++checked;
            const QString what = id + "/" + l->objectName();
            // Nothing sticks out sideways: the label's narrowest layout fits, and the label lies inside the body.
            QVERIFY2(l->minimumSizeHint().width() <= l->width(),
                     qPrintable(QStringLiteral("%1: needs %2, has %3")
                                    .arg(what)
                                    .arg(l->minimumSizeHint().width())
                                    .arg(l->width())));
            QVERIFY2(l->geometry().right() < body->width(), qPrintable(what));
            // Nothing is cut off below: the wrapped text's height fits the label.
            if (l->wordWrap())
                QVERIFY2(l->heightForWidth(l->width()) <= l->height(),
                         qPrintable(QStringLiteral("%1: needs %2 px, has %3")
                                        .arg(what)
                                        .arg(l->heightForWidth(l->width()))
                                        .arg(l->height())));
        }
        QVERIFY(checked >= 12);
        // POSLAB_STORY_SHOTS=DIR saves the window and the whole page, light and dark, to look at.
        if (const QString shots = qEnvironmentVariable("POSLAB_STORY_SHOTS"); !shots.isEmpty()) {
            const QString stem = QStringLiteral("%1/%2-x%3").arg(shots, id).arg(scale);
            page.grab().save(stem + QStringLiteral("-light.png"));
            body->grab().save(stem + QStringLiteral("-light-page.png"));
            QPalette dark = page.palette();
            dark.setColor(QPalette::Window, QColor(0x25, 0x28, 0x2e));
            dark.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
            dark.setColor(QPalette::Base, QColor(0x1b, 0x1d, 0x22));
            dark.setColor(QPalette::AlternateBase, QColor(0x2c, 0x30, 0x37));
            dark.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
            dark.setColor(QPalette::PlaceholderText, QColor(0x9a, 0xa0, 0xa8));
            page.setPalette(dark);
            page.grab().save(stem + QStringLiteral("-dark.png"));
            body->grab().save(stem + QStringLiteral("-dark-page.png"));
        }
        if (TimelineWidget* t = page.timeline()) {
            QVERIFY(t->isVisible());
            QVERIFY(t->height() >= t->heightForWidth(t->width()));
            const TimelineWidget::Layout l = t->layoutFor(t->width());
            QCOMPARE(l.labels.size(), extensionTimeline().size());
            const QRect inside(0, 0, t->width(), l.height);
            for (int i = 0; i < l.labels.size(); ++i) {
                QVERIFY2(inside.contains(l.labels[i]), qPrintable(extensionTimeline()[i].name));
                QVERIFY(l.dotX[i] >= l.axisLeft && l.dotX[i] <= l.axisRight);
                for (int j = 0; j < l.labels.size(); ++j) {
                    if (i == j)
                        continue;
                    QVERIFY2(!l.labels[i].intersects(l.labels[j]),
                             qPrintable(extensionTimeline()[i].name + " overlaps " + extensionTimeline()[j].name));
                    // The leader line from j's dot down to its label crosses no other label.
                    const QRect leader(l.dotX[j], l.axisY, 1, l.labels[j].top() - l.axisY);
                    QVERIFY2(
                        !leader.intersects(l.labels[i]),
                        qPrintable(extensionTimeline()[j].name + "'s leader crosses " + extensionTimeline()[i].name));
                }
            }
            for (int i = 0; i < l.yearLabels.size(); ++i) {
                QVERIFY(inside.contains(l.yearLabels[i]));
                QVERIFY(l.yearLabels[i].bottom() < l.axisY);
                if (i > 0)
                    QVERIFY(!l.yearLabels[i].intersects(l.yearLabels[i - 1]));
            }
            QVERIFY(l.years.size() >= 2);
        }
        QCOMPARE(page.timeline() != nullptr, findStory(id)->timeline);
    }

    void citationsAreShortAndProvenanceIsInTheSources()
    {
        // A finding or an event cites its source briefly; how it was read ("its own timestamp was
        // not read", a preset's "mlc-llm copy") is listed only among the sources at the end.
        StoryPage page;
        page.showStory(QStringLiteral("rope"));
        const QString sources = page.findChild<QLabel*>(QStringLiteral("storySources"))->text();
        QString shown;
        for (const QLabel* l : page.textLabels())
            if (l->objectName() != QLatin1String("storySources"))
                shown += l->text();
        for (const QString& detail : {QStringLiteral("timestamp was not read"), QStringLiteral("mlc-llm copy")}) {
            QVERIFY2(!shown.contains(detail), qPrintable(detail));
            QVERIFY2(sources.contains(detail), qPrintable(detail));
        }
        for (const TimelineEvent& e : extensionTimeline())
            QVERIFY2(e.source.size() <= 60, qPrintable(e.id + QStringLiteral(": ") + e.source));
    }

    void storyLinksToItsLessonsAndClosesWithEscAndCtrlW()
    {
        // The lessons that show ALiBi are linked (lesson 7 first shows it at 7.1); a click asks for the step.
        const QList<StoryLesson> ls = storyLessons(QStringLiteral("alibi"));
        QVERIFY(!ls.isEmpty());
        QVERIFY(
            std::any_of(ls.begin(), ls.end(), [](const StoryLesson& l) { return l.stepId == QLatin1String("7.1"); }));
        QWidget window;
        window.resize(400, 300);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        StoryPage* page = StoryPage::open(QStringLiteral("alibi"), &window);
        QVERIFY(QTest::qWaitForWindowExposed(page));
        auto* links = page->findChild<QLabel*>(QStringLiteral("storyLessons"));
        QVERIFY(links);
        QVERIFY2(links->text().contains(QStringLiteral("href=\"lesson:7.1\"")), qPrintable(links->text()));
        if (const QByteArray dir = qgetenv("POSLAB_SHOTS"); !dir.isEmpty()) { // to look at, under Xvfb
            page->resize(900, 1000);
            QCoreApplication::processEvents();
            page->scrollArea()->ensureWidgetVisible(links);
            QCoreApplication::processEvents();
            page->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/story-alibi.png"));
            page->showStory(QStringLiteral("rope"));
            QCoreApplication::processEvents();
            page->scrollArea()->ensureWidgetVisible(page->findChild<QLabel*>(QStringLiteral("storySources")));
            QCoreApplication::processEvents();
            page->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/story-rope-sources.png"));
            page->showStory(QStringLiteral("alibi"));
            links = page->findChild<QLabel*>(QStringLiteral("storyLessons"));
        }
        QSignalSpy asked(page, &StoryPage::lessonRequested);
        emit links->linkActivated(QStringLiteral("lesson:7.1"));
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked.front().front().toString(), QStringLiteral("7.1"));
        // Esc closes the window; opened again, Ctrl+W closes it too.
        page->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(page));
        QTest::keyClick(page, Qt::Key_Escape);
        QTRY_VERIFY(!page->isVisible());
        page = StoryPage::open(QStringLiteral("alibi"), &window);
        QVERIFY(QTest::qWaitForWindowActive(page));
        QTest::keyClick(page, Qt::Key_W, Qt::ControlModifier);
        QTRY_VERIFY(!page->isVisible());
    }

    void spatialStoriesLinkTheirLessons()
    {
        // A step that shows only spatial views (patch grid, mixed sequence) shows its spatial scheme, not the 1-D
        // scheme its state also carries: lesson 18 belongs to M-RoPE's story and lesson 17 to 2-D sin-cos's.
        const auto steps = [](const QString& scheme) {
            QStringList out;
            for (const StoryLesson& l : storyLessons(scheme))
                out << l.stepId;
            return out;
        };
        QVERIFY2(steps(QStringLiteral("mrope")).contains(QStringLiteral("18.1")),
                 qPrintable(steps(QStringLiteral("mrope")).join(' ')));
        QVERIFY2(steps(QStringLiteral("sincos_2d")).contains(QStringLiteral("17.1")),
                 qPrintable(steps(QStringLiteral("sincos_2d")).join(' ')));
        for (const QString& id : steps(QStringLiteral("rope")))
            QVERIFY2(!id.startsWith(QLatin1String("17.")) && !id.startsWith(QLatin1String("18.")), qPrintable(id));
    }

    void pickerOpensTheStory()
    {
        WorkbenchState state;
        QWidget window;
        auto* picker = new SchemePicker(&state, &window);
        window.resize(500, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        state.setScheme(QStringLiteral("alibi"));
        auto* open = picker->findChild<QToolButton*>(QStringLiteral("schemeStoryButton"));
        QVERIFY(open);
        QCOMPARE(open->text(), QStringLiteral("The story of ALiBi \u2192"));
        QVERIFY(open->isVisible()); // outside the description's scroll area: always in view
        open->click();
        auto* page = window.findChild<StoryPage*>(QStringLiteral("storyPage"));
        QVERIFY(page);
        QVERIFY(page->isWindow());
        QVERIFY(page->isVisible());
        QCOMPARE(page->schemeId(), QStringLiteral("alibi"));
        // It follows the window's font scale (the main window sets its font when A+ is pressed).
        QFont larger = window.font();
        larger.setPointSizeF(larger.pointSizeF() * 2);
        window.setFont(larger);
        QCOMPARE(page->font().pointSizeF(), larger.pointSizeF());
        QCOMPARE(page->findChild<QLabel*>(QStringLiteral("storyProblem"))->font().pointSizeF(), larger.pointSizeF());
        // Each scheme's button has a context menu with "Story of ..."; it reuses the same page.
        QAbstractButton* rope = picker->button(QStringLiteral("rope"));
        QVERIFY(rope);
        QCOMPARE(rope->contextMenuPolicy(), Qt::CustomContextMenu);
        QTimer::singleShot(0, [] {
            auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
            QVERIFY(menu && menu->actions().size() == 1);
            QCOMPARE(menu->actions().front()->text(), QStringLiteral("Story of RoPE"));
            menu->actions().front()->trigger();
            menu->close();
        });
        emit rope->customContextMenuRequested(QPoint(2, 2));
        QCOMPARE(window.findChildren<StoryPage*>().size(), 1);
        QCOMPARE(page->schemeId(), QStringLiteral("rope"));
        QVERIFY(page->timeline());
        // The slot the lesson browser uses, and an unknown id.
        page->showStory(QStringLiteral("no_such_scheme"));
        QVERIFY(page->text().contains(QStringLiteral("No story")));
    }
};

int main(int argc, char** argv)
{
    return poslab::tests::runOnProjector<TestStories>(argc, argv);
}

#include "tst_stories.moc"
