// SPDX-License-Identifier: MIT
// Derivation pages (ui/lessons/derivation.h, ui/teaching/derivationpage.h) and the story figure (ui/teaching/storypage.h): the lesson
// reader refuses an unknown "derivation" id with one line; every shipped page reads, is linked from a step, has its
// formulas typeset and its numbers checked with the lessons that link it (a wrong number fails); each page opens from
// its step through the lesson browser's button (disabled until the guess), and D opens it while presenting; the story
// page holds a figure of its scheme with real pixels. POSLAB_WHY_SHOTS=DIR saves the pages at 1366 x 768, font
// scale 1 and 2, light and dark.
// Sources of the page's facts: Vaswani et al. 2017 section 3.5 (PE(p+k) a linear function of PE(p)); RoFormer
// section 3.2 (the relative property); the numbers are poslab compute's, as every lesson's.

#include "lessonwindow.h"
#include "projectorscreen.h"

#include "ui/teaching/derivationpage.h"
#include "ui/teaching/lessonbrowser.h"
#include "ui/lessons/claims.h"
#include "ui/lessons/derivation.h"
#include "ui/lessons/lesson.h"
#include "ui/window/mainwindow.h"
#include "ui/teaching/presentation.h"
#include "ui/render/formula.h"
#include "ui/teaching/storypage.h"
#include "ui/state/workbenchstate.h"

#include "core/errors.h"

#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace poslab;
using namespace poslab::ui;

namespace {

/// A minimal lesson whose one step names derivation @p id.
QByteArray lessonWith(const QString& id)
{
    return QStringLiteral(R"({"format": "poslab-lesson", "version": 1, "number": 2, "title": "t", "objective": "o",
      "sources": ["s"], "steps": [{"id": "2.1", "title": "t", "text": "x", "state": {}, "views": ["table"],
      "derivation": "%1"}]})")
        .arg(id)
        .toUtf8();
}

/// Distinct colours in @p image and the share of pixels that differ from its top-left (background) pixel.
std::pair<int, double> pixelStats(const QImage& image)
{
    const QImage im = image.convertToFormat(QImage::Format_RGB32);
    QSet<QRgb> colours;
    const QRgb background = im.pixel(0, 0);
    qint64 other = 0;
    for (int y = 0; y < im.height(); y += 2)
        for (int x = 0; x < im.width(); x += 2) {
            const QRgb p = im.pixel(x, y);
            colours.insert(p);
            other += p != background;
        }
    return {int(colours.size()), double(other) / ((im.width() / 2 + 1) * (im.height() / 2 + 1))};
}

/// The steps of the shipped lessons that open a derivation page: (lesson index, step index).
QList<std::pair<int, int>> linkedSteps()
{
    QList<std::pair<int, int>> out;
    for (int l = 0; l < lessons::lessons().size(); ++l)
        for (int s = 0; s < lessons::lessons()[l].steps.size(); ++s)
            if (!lessons::lessons()[l].steps[s].derivation.isEmpty())
                out.append({l, s});
    return out;
}

} // namespace

class TestDerivations : public QObject {
    Q_OBJECT
    QTemporaryDir m_settings;

private slots:
    void initTestCase()
    {
        tests::useOwnSettings(m_settings, QStringLiteral("tst_derivations"));
        QVERIFY2(lessons::derivationLoadProblems().isEmpty(), qPrintable(lessons::derivationLoadProblems().join('\n')));
        QVERIFY2(lessons::lessonLoadProblems().isEmpty(), qPrintable(lessons::lessonLoadProblems().join('\n')));
        QCOMPARE(lessons::derivationIds(), (QStringList{"four-terms", "rope-code", "rope-relative", "sinusoid-shift"}));
    }

    void unknownIdIsRefusedWithOneLine()
    {
        // A known id reads; an unknown one is refused naming the file, the step, the field, the id and the known ids.
        QCOMPARE(lessons::parseLesson(lessonWith("sinusoid-shift"), "L02.json").steps[0].derivation,
                 QStringLiteral("sinusoid-shift"));
        try {
            lessons::parseLesson(lessonWith("no-such-page"), "L02.json");
            QFAIL("an unknown derivation id was accepted");
        } catch (const core::InputError& e) {
            const QString m = QString::fromUtf8(e.what());
            QCOMPARE(m,
                     QStringLiteral("L02.json: step 2.1: \"derivation\": no derivation page 'no-such-page' "
                                    "(known: four-terms, rope-code, rope-relative, sinusoid-shift)"));
            QVERIFY(!m.contains('\n'));
        }
        // An empty id is no id: refused too.
        QVERIFY_THROWS_EXCEPTION(core::InputError, lessons::parseLesson(lessonWith(""), "L02.json"));
    }

    void everyPageIsLinkedTypesetAndChecked()
    {
        QSet<QString> linked;
        for (const auto& [l, s] : linkedSteps())
            linked.insert(lessons::lessons()[l].steps[s].derivation);
        lessons::ClaimEngine engine;
        for (const lessons::Derivation& d : lessons::derivations()) {
            QVERIFY2(linked.contains(d.id), qPrintable(d.id + " is linked from no lesson step"));
            for (const lessons::DerivationStep& s : d.steps)
                if (!s.formula.isEmpty())
                    QVERIFY2(Formula(s.formula).isValid(), qPrintable(d.id + ": no typeset SVG for " + s.formula));
            // Each page has numbers, and lessons --check's path (checkLesson of the linking lesson) reports them.
            QVERIFY2(!d.claims.notice.isEmpty(), qPrintable(d.id));
        }
        const lessons::Lesson* l2 = lessons::findLesson(2);
        QVERIFY(l2);
        int covered = 0;
        for (const lessons::ClaimReport& r : lessons::checkLesson(*l2, engine))
            if (r.what.startsWith(QLatin1String("derivation sinusoid-shift notice "))) {
                ++covered;
                QCOMPARE(r.step, QStringLiteral("2.1"));
                QVERIFY2(r.holds, qPrintable(r.line()));
            }
        QCOMPARE(covered, 3);
        // The worked example is computed, not typed: PE(5)'s pair 0 turned by 3 rad is PE(8)'s (Vaswani et al. 3.5).
        const lessons::Derivation* shift = lessons::findDerivation("sinusoid-shift");
        const QList<lessons::ProbeValue> v = engine.noticeValues(*shift->claims.findNotice("n1"));
        QCOMPARE(v.size(), 8);
        QVERIFY(std::abs(v[4].values[0] - std::sin(8.0)) < 1e-9 && std::abs(v[6].values[0] - std::cos(8.0)) < 1e-9);
        // A page with a wrong number fails its check (the check can fail).
        const QByteArray wrong = R"({"format": "poslab-derivation", "version": 1, "title": "t", "summary": "s",
          "steps": [{"text": "sin 8 is {v:n1.0}."}], "sources": ["s"], "notice": [{"id": "n1", "text": "{v:0}",
          "check": {"value": {"compute": "encoding --scheme sinusoidal --dim 8 --positions 8", "at": [0, 0]},
                    "equals": 0.9, "digits": 6}}]})";
        const lessons::Derivation bad = lessons::parseDerivation(wrong, "bad-page.json");
        const QList<lessons::ClaimReport> r = lessons::checkDerivation(bad, engine);
        QCOMPARE(r.size(), 1);
        QVERIFY(!r[0].holds);
        QCOMPARE(r[0].what, QStringLiteral("derivation bad-page notice n1"));
        // A field the page does not have is refused by name.
        QByteArray unknown = wrong;
        unknown.replace("{v:n1.0}", "{v:n2.0}");
        QVERIFY_THROWS_EXCEPTION(core::InputError, lessons::parseDerivation(unknown, "bad-page.json"));
    }

    void eachPageOpensFromItsStep()
    {
        MainWindow w(nullptr, false);
        QVERIFY(tests::showWithLessons(w));
        LessonBrowser* b = w.lessonBrowser();
        QPushButton* button = b->derivationButton();
        QVERIFY(button);
        QVERIFY(linkedSteps().size() >= 4);
        for (const auto& [l, s] : linkedSteps()) {
            QVERIFY(b->open(l, s));
            const lessons::Step* step = b->step();
            QVERIFY(button->isVisible());
            if (b->needsGuess()) {
                // The page may answer the prediction: the button waits for the guess.
                QVERIFY2(!button->isEnabled(), qPrintable(step->id));
                QVERIFY(b->commitGuess(step->predict->kind == QLatin1String("number") ? QStringLiteral("1")
                                                                                      : QStringLiteral("0"))
                            .isEmpty());
            }
            QVERIFY2(button->isEnabled(), qPrintable(step->id));
            QTest::mouseClick(button, Qt::LeftButton);
            auto* page = w.findChild<DerivationPage*>(QStringLiteral("derivationPage"), Qt::FindDirectChildrenOnly);
            QVERIFY2(page && page->isVisible(), qPrintable(step->id));
            QCOMPARE(page->derivationId(), step->derivation);
            const lessons::Derivation* d = lessons::findDerivation(step->derivation);
            QVERIFY(page->text().contains(d->title.toHtmlEscaped()));
            QVERIFY(page->text().contains(QStringLiteral("step %1").arg(step->id)));
            QVERIFY2(!page->text().contains(QStringLiteral("<b>?</b>")), qPrintable(step->id)); // every value computed
            QVERIFY(page->text().contains(QStringLiteral("\u2713"))
                    && !page->text().contains(QStringLiteral("\u2717")));
            for (QLabel* f : page->formulaLabels())
                QVERIFY2(!f->pixmap().isNull(), qPrintable(f->property("tex").toString())); // typeset, not TeX
            QCOMPARE(page->formulaLabels().size(),
                     int(std::count_if(d->steps.begin(), d->steps.end(),
                                       [](const auto& x) { return !x.formula.isEmpty(); })));
            QVERIFY(QTest::qWaitForWindowExposed(page));
            QTest::keyClick(page, Qt::Key_Escape); // Esc closes it
            QVERIFY(!page->isVisible());
        }
        // A step without a page shows no button.
        QVERIFY(b->open(0, 0));
        QVERIFY(b->step()->derivation.isEmpty());
        QVERIFY(!button->isVisible());
    }

    void storyPageHoldsAFigure_data()
    {
        // clang-format off
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("view");
        QTest::newRow("rope") << "rope" << "rotation";
        QTest::newRow("sinusoidal") << "sinusoidal" << "table";
        QTest::newRow("alibi") << "alibi" << "attention";
        QTest::newRow("t5") << "t5" << "attention";
        QTest::newRow("sincos_2d") << "sincos_2d" << "patchgrid";
        QTest::newRow("mrope") << "mrope" << "sequence";
        // clang-format on
    }
    void storyPageHoldsAFigure()
    {
        QFETCH(QString, id);
        QFETCH(QString, view);
        QCOMPARE(storyFigureView(id), view);
        StoryPage page;
        page.resize(1100, 700);
        page.showStory(id);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QLabel* figure = page.figure();
        QVERIFY(figure);
        const QImage image = figure->pixmap().toImage();
        QVERIFY(image.width() >= 320 && image.height() >= 240);
        QVERIFY(image.width() <= page.scrollArea()->viewport()->width());
        const auto [colours, share] = pixelStats(image);
        QVERIFY2(colours > 12 && share > 0.02,
                 qPrintable(QStringLiteral("%1 colours, %2 drawn").arg(colours).arg(share)));
        // The figure is the view's own drawing: another scheme draws another figure.
        QVERIFY(storyFigure(id, QSize(400, 300), false, 1.0)
                != storyFigure(id == "rope" ? "xpos" : "rope", QSize(400, 300), false, 1.0));
    }

    void presentationKeyOpensThePage()
    {
        MainWindow w(nullptr, false);
        QVERIFY(tests::showWithLessons(w));
        LessonBrowser* b = w.lessonBrowser();
        const auto [l, s] = linkedSteps().front();
        QVERIFY(b->open(l, s));
        if (b->needsGuess())
            b->reveal();
        QVERIFY(b->tryIt().isEmpty());
        QTest::keyClick(&w, Qt::Key_F5);
        QVERIFY(w.isPresenting());
        Presentation* p = w.presentation();
        QVERIFY(QTest::qWaitForWindowExposed(p));
        QCOMPARE(p->page().derivation, b->step()->derivation);
        QTest::keyClick(p, Qt::Key_D);
        auto* page = p->findChild<DerivationPage*>(QStringLiteral("derivationPage"), Qt::FindDirectChildrenOnly);
        QVERIFY(page && page->isVisible());
        QCOMPARE(page->derivationId(), b->step()->derivation);
    }

    void screenshots()
    {
        const QString dir = qEnvironmentVariable("POSLAB_WHY_SHOTS");
        if (dir.isEmpty())
            QSKIP("POSLAB_WHY_SHOTS=DIR saves the pages to look at");
        for (const char* theme : {"light", "dark"})
            for (double scale : {1.0, 2.0}) {
                MainWindow w(nullptr, false);
                w.resize(1366, 768);
                w.show();
                QVERIFY(QTest::qWaitForWindowExposed(&w));
                QVERIFY(w.state()->setPropertyText("theme", theme).isEmpty());
                QVERIFY(w.state()->setProperty("font_scale", scale).isEmpty());
                QCoreApplication::processEvents();
                for (const QString& id : lessons::derivationIds()) {
                    DerivationPage* page = DerivationPage::open(id, &w, "2.1");
                    page->resize(1366, 768);
                    QVERIFY(QTest::qWaitForWindowExposed(page));
                    QCoreApplication::processEvents();
                    page->grab().save(QStringLiteral("%1/derivation-%2-%3-x%4.png").arg(dir, id, theme).arg(scale));
                    page->scrollArea()->widget()->grab().save(
                        QStringLiteral("%1/derivation-%2-%3-x%4-page.png").arg(dir, id, theme).arg(scale));
                }
                for (const char* id : {"rope", "alibi", "sincos_2d"}) {
                    StoryPage* page = StoryPage::open(id, &w, w.state());
                    page->resize(1366, 768);
                    QVERIFY(QTest::qWaitForWindowExposed(page));
                    QCoreApplication::processEvents();
                    page->scrollArea()->widget()->grab().save(
                        QStringLiteral("%1/story-%2-%3-x%4-page.png").arg(dir, id, theme).arg(scale));
                    page->scrollArea()->ensureWidgetVisible(page->figure(), 0, 0);
                    QCoreApplication::processEvents();
                    page->grab().save(QStringLiteral("%1/story-%2-%3-x%4.png").arg(dir, id, theme).arg(scale));
                }
            }
    }
};

int main(int argc, char** argv)
{
    return poslab::tests::runOnProjector<TestDerivations>(argc, argv);
}

#include "tst_derivations.moc"
