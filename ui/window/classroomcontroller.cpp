// SPDX-License-Identifier: MIT
#include "ui/window/classroomcontroller.h"

#include "ui/state/viewproperties.h"
#include "ui/state/workbenchstate.h"
#include "ui/teaching/lessonbrowser.h"
#include "ui/teaching/presentation.h"
#include "ui/teaching/presenterview.h"
#include "ui/views/view.h"
#include "ui/views/viewlist.h"
#include "ui/window/helpmenu.h"
#include "ui/window/mainwindow.h"
#include "ui/window/parameterpanel.h"
#include "ui/window/schemepicker.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QGuiApplication>
#include <QHash>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QScopedValueRollback>
#include <QScreen>
#include <QSlider>
#include <QSpinBox>
#include <QTextBrowser>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

namespace poslab::ui {

ClassroomController::ClassroomController(MainWindow* window, WorkbenchState* state, Computation* computation,
                                         ParameterPanel* panel, SchemePicker* picker, QSlider* slider, QSpinBox* spin)
    : QObject(window)
    , m_window(window)
    , m_state(state)
    , m_computation(computation)
    , m_panel(panel)
    , m_picker(picker)
    , m_cursorSlider(slider)
    , m_cursorSpin(spin)
{
    buildHelpMenu();
    buildLessons();
}

ClassroomController::~ClassroomController()
{
    delete m_presentation; // before the state it gives its font scale back to
}

bool ClassroomController::isPresenting() const
{
    return m_presentation;
}
Presentation* ClassroomController::presentation() const
{
    return m_presentation;
}
PresenterView* ClassroomController::presenterView() const
{
    return m_presenter;
}
FirstRunHint* ClassroomController::firstRunHint() const
{
    return m_hint;
}

void ClassroomController::buildHelpMenu()
{
    QMenu* help = m_window->menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("menuHelp"));
    QAction* lessons = help->addAction(tr("&Lessons"), this, &ClassroomController::showLessons);
    lessons->setObjectName(QStringLiteral("actionLessons"));
    lessons->setShortcut(QKeySequence(Qt::Key_F1));
    // A window of text beside the workbench (not modal: the keys can be tried while it is open).
    auto showText = [this](const QString& name, const QString& title, const QString& html) {
        if (auto* open = m_window->findChild<QDialog*>(name)) {
            open->raise();
            return;
        }
        auto* d = new QDialog(m_window);
        d->setObjectName(name);
        d->setAttribute(Qt::WA_DeleteOnClose);
        d->setWindowTitle(title);
        auto* text = new QTextBrowser(d);
        text->setOpenExternalLinks(true);
        text->setHtml(html);
        auto* column = new QVBoxLayout(d);
        column->addWidget(text);
        d->resize(m_window->fontMetrics().averageCharWidth() * 70, m_window->fontMetrics().height() * 30);
        d->show();
    };
    help->addAction(tr("&Keyboard shortcuts"), this,
                    [this, showText] {
                        showText(QStringLiteral("shortcutsWindow"), tr("Keyboard shortcuts"), shortcutsHtml(m_window));
                    })
        ->setObjectName(QStringLiteral("actionShortcuts"));
    help->addAction(tr("&About PosLab"), this,
                    [showText] { showText(QStringLiteral("aboutWindow"), tr("About PosLab"), aboutHtml()); })
        ->setObjectName(QStringLiteral("actionAbout"));
}

bool ClassroomController::offerFirstRunHint()
{
    if (m_hint || FirstRunHint::dismissed())
        return false;
    m_hint = new FirstRunHint(m_window->centralWidget());
    connect(m_hint, &FirstRunHint::openLessons, this, &ClassroomController::showLessons);
    if (auto* column = qobject_cast<QVBoxLayout*>(m_window->centralWidget()->layout()))
        column->insertWidget(0, m_hint);
    m_hint->show();
    return true;
}

void ClassroomController::buildLessons()
{
    m_lessons = new LessonBrowser(m_state, m_window);
    m_lessonsDock = new QDockWidget(tr("Lessons"), m_window);
    m_lessonsDock->setObjectName(QStringLiteral("dockLessons"));
    m_lessonsDock->setWidget(m_lessons);
    m_window->addDockWidget(Qt::RightDockWidgetArea, m_lessonsDock);
    m_lessonsDock->hide();
    connect(m_lessons, &LessonBrowser::viewsRequested, this, &ClassroomController::stepViewsRequested);
    connect(m_lessons, &LessonBrowser::lockChanged, this, &ClassroomController::applyStepLock);
    connect(m_lessons, &LessonBrowser::knobRequested, this, &ClassroomController::focusKnob);
    connect(m_lessons, &LessonBrowser::message, this, &ClassroomController::message);
    // Every way to a step (Next, Back, the lesson list, a jump) shows that step's figure at once, not the
    // previous step's until "Try it"; a step whose prediction waits keeps its answers hidden (loadStepFigure).
    // The presentation's keys and openLessonStep() load the step themselves (m_quietSlide).
    connect(m_lessons, &LessonBrowser::stepShown, this, [this] {
        if (m_quietSlide)
            return;
        loadStepFigure();
        if (m_presentation)
            showSlide();
    });
    // Closed, the lessons hide no answer in the views; shown again, a guess still due hides them again.
    connect(m_lessonsDock, &QDockWidget::visibilityChanged, this,
            [this] { m_lessons->setAnswersShown(!m_lessonsDock->isHidden()); });
    m_lessons->setAnswersShown(false); // it starts closed, and visibilityChanged comes first when it is shown
}

void ClassroomController::showLessons()
{
    const bool first = m_lessonsDock->isHidden();
    m_lessonsDock->show();
    m_lessonsDock->raise();
    if (first) // room for a sentence of a few words per line, at any font scale
        m_window->resizeDocks({m_lessonsDock}, {m_window->fontMetrics().averageCharWidth() * 34}, Qt::Horizontal);
}

QString ClassroomController::openLessonStep(const QString& id)
{
    const lessons::Lesson* lesson = nullptr;
    int index = 0;
    if (!lessons::findStep(id, &lesson, &index))
        return tr("no lesson step '%1' (steps are named LESSON.STEP, e.g. 2.1; poslab lessons lists them)").arg(id);
    showLessons();
    QString problem;
    {
        const QScopedValueRollback quiet(m_quietSlide, true); // the step's state first, then its slide
        m_lessons->open(int(lesson - m_lessons->lessonList().constData()), index);
        problem = loadStepFigure();
    }
    if (m_presentation)
        showSlide();
    return problem;
}

void ClassroomController::applyStepLock(const std::optional<QStringList>& unlocked)
{
    m_panel->setUnlocked(unlocked);
    const auto open = [&](const char* knob) { return !unlocked || unlocked->contains(QLatin1String(knob)); };
    const QString tip = ParameterPanel::lockedTip();
    m_picker->setEnabled(open("scheme"));
    m_picker->setToolTip(open("scheme") ? QString() : tip);
    for (QWidget* w : {static_cast<QWidget*>(m_cursorSlider), static_cast<QWidget*>(m_cursorSpin)}) {
        w->setEnabled(open("cursor"));
        w->setToolTip(open("cursor") ? QString() : tip);
    }
    // The views' own controls, each the knob it changes (view properties by name; the rotation view's layout
    // box is the scheme's layout parameter; the clock's play button moves the cursor). Views opened later
    // (tabs are made on first use) get the lock when the next step applies it.
    static const QHash<QString, const char*> knobOf{
        {QStringLiteral("attentionKind"), "softmax"},
        {QStringLiteral("attentionMask"), "causal"},
        {QStringLiteral("attentionHead"), "head"},
        {QStringLiteral("attentionHeads"), "heads"},
        {QStringLiteral("attentionContent"), "content"},
        {QStringLiteral("attentionTerm"), "term"},
        {QStringLiteral("attentionSentence"), "sentence"},
        {QStringLiteral("clockPlay"), "cursor"},
        {QStringLiteral("clockSpeed"), "speed"},
        {QStringLiteral("clockStyle"), "pendulum"},
        {QStringLiteral("clockPairs"), "clock_pairs"},
        {QStringLiteral("pipelineMode"), "pipeline_mode"},
        {QStringLiteral("pipelinePair"), "pipeline_pair"},
        {QStringLiteral("rotationDistance"), "key_distance"},
        {QStringLiteral("rotationShift"), "shift"},
        {QStringLiteral("rotationLayout"), "layout"},
        {QStringLiteral("tableQuantity"), "table_quantity"},
        {QStringLiteral("tableColormap"), "colormap"},
    };
    const auto controls = m_window->findChildren<QWidget*>();
    for (QWidget* w : controls) {
        const auto it = knobOf.constFind(w->objectName());
        if (it == knobOf.constEnd())
            continue;
        const bool free = open(it.value());
        if (!w->property("poslabLocked").toBool() && !free)
            w->setProperty("poslabUnlockedTip", w->toolTip());
        w->setProperty("poslabLocked", !free);
        // A part of the logits has no softmax: the attention view keeps its kind box off while a term is shown.
        const bool usable = w->objectName() != QLatin1String("attentionKind") || m_state->viewOptions().term.isEmpty();
        w->setEnabled(free && usable);
        w->setToolTip(free ? w->property("poslabUnlockedTip").toString() : tip);
    }
}

void ClassroomController::focusKnob(const QString& name)
{
    QWidget* target = nullptr;
    if (name == QLatin1String("cursor"))
        target = m_cursorSpin;
    else if (QLineEdit* e = m_panel->edit(name))
        target = e;
    else if (QWidget* c = m_panel->combo(name))
        target = c;
    else if (QWidget* b = m_panel->check(name))
        target = b;
    if (target) {
        if (target != m_cursorSpin)
            m_window->setSidePanelsVisible(true);
        target->setFocus(Qt::OtherFocusReason);
        return;
    }
    if (const ViewProperty* p = findViewProperty(name))
        emit message(tr("%1 (a view option) is %2").arg(p->label, propertyText(*p, m_state->viewOptions())), false);
}

PresentationPage ClassroomController::presentationPage() const
{
    PresentationPage page;
    if (m_lessons && m_lessons->lesson() && !m_lessonsDock->isHidden()) {
        // A lesson step: its views, its title, and its "Do" line or the prediction the room is asked for.
        const lessons::Lesson& l = *m_lessons->lesson();
        const lessons::Step* s = m_lessons->step();
        const auto plain = [](const QString& html) { return QTextDocumentFragment::fromHtml(html).toPlainText(); };
        page.counter = tr("Lesson %1 \u00b7 %2 / %3").arg(l.number).arg(m_lessons->stepIndex() + 1).arg(l.steps.size());
        if (s) {
            page.heading = QStringLiteral("%1 \u00b7 %2").arg(s->id, s->title);
            page.views = s->views;
            const QString choices = s->predict && !s->predict->choices.isEmpty()
                ? QStringLiteral(" [%1]").arg(s->predict->choices.join(QStringLiteral(" \u00b7 ")))
                : QString();
            if (s->predict && m_lessons->needsGuess())
                page.footer = tr("Predict: %1%2 (Right reveals)")
                                  .arg(plain(m_lessons->liveText(s->predict->prompt, s, nullptr)), choices);
            else if (s->predict)
                page.footer = tr("Predict: %1 \u2014 the answer: %2")
                                  .arg(plain(m_lessons->liveText(s->predict->prompt, s, nullptr)),
                                       m_lessons->predictionAnswer());
            else
                page.footer = plain(m_lessons->liveText(s->doText, s, nullptr));
            // T on the slide: the step's text with its live values, then its notices (values and ticks); a
            // prediction's answer stays out until it is revealed (the notices may state it).
            page.formula = s->formula;
            page.notes = m_lessons->liveText(s->text, s, nullptr);
            if (!(s->predict && m_lessons->needsGuess())) {
                page.derivation = s->derivation; // D opens it once the room has guessed
                const QStringList notices = m_lessons->noticeTexts();
                if (!notices.isEmpty())
                    page.notes += QStringLiteral("<ul><li>%1</li></ul>").arg(notices.join(QStringLiteral("</li><li>")));
            }
            // The presenter view only: the answer before the room sees it, and what comes next.
            if (s->predict) {
                page.answer = m_lessons->predictionAnswer();
                if (const QString why = plain(m_lessons->liveText(s->predict->because, s, nullptr)); !why.isEmpty())
                    page.answer += QStringLiteral(" \u2014 ") + why;
            }
            const int i = m_lessons->stepIndex();
            if (i + 1 < l.steps.size())
                page.next = QStringLiteral("%1 \u00b7 %2").arg(l.steps[i + 1].id, l.steps[i + 1].title);
            else if (l.puzzle)
                page.next = tr("Lesson %1 \u00b7 puzzle").arg(l.number);
        } else {
            page.heading = tr("Lesson %1 \u00b7 puzzle").arg(l.number);
            page.counter = tr("Lesson %1 \u00b7 puzzle").arg(l.number);
            page.views = l.steps.isEmpty() ? QStringList() : l.steps.back().views;
            page.footer = l.puzzle ? l.puzzle->prompt : QString();
        }
        return page;
    }
    // Without a lesson: the workbench as it is, the view shown alone or the grid (their titles say the rest).
    if (View* alone = m_window->maximisedView())
        page.views << alone->exportName();
    else
        for (const ViewEntry& e : viewRegistry())
            if (e.inGrid)
                page.views << QString::fromLatin1(e.id);
    return page;
}

QString ClassroomController::loadStepFigure()
{
    const lessons::Step* s = m_lessons->step();
    if (!s)
        return {}; // the puzzle keeps the last step's state
    if (!m_lessons->needsGuess())
        return m_lessons->tryIt();
    // A prediction waits: the step's figure all the same (the answer, not the figure, stays hidden), loaded as
    // "Try it" loads it, with the room's theme and font scale.
    QJsonObject json = lessons::stepState(*m_lessons->lesson(), m_lessons->stepIndex());
    QJsonObject view = json.value(QLatin1String("view")).toObject();
    for (const char* name : {"theme", "font_scale"})
        if (const ViewProperty* p = findViewProperty(QLatin1String(name)); p && !view.contains(QLatin1String(name)))
            view.insert(QLatin1String(name), propertyJson(*p, m_state->viewOptions()));
    json.insert(QLatin1String("view"), view);
    if (const QString problem = m_state->fromJson(json, true); !problem.isEmpty()) {
        emit message(tr("Step %1 cannot load its state: %2").arg(s->id, problem), true);
        return problem;
    }
    applyStepLock(s->knobs);
    emit stepViewsRequested(s->views);
    return {};
}

void ClassroomController::presentationStep(int delta)
{
    // The step's state is loaded before the slide shows its title, and the views wait for their results: a new
    // title never stands over the previous step's figure.
    {
        const QScopedValueRollback quiet(m_quietSlide, true); // stepShown would lay the slide out before its state
        if (m_lessons && m_lessons->lesson() && !m_lessonsDock->isHidden()) {
            // Next: a prediction the room was asked for is revealed first, then the next step.
            // Back: the step before, loaded as it was (its prediction revealed). Home / End: presentationJump().
            if (delta > 0 && m_lessons->needsGuess()) {
                m_lessons->reveal();
                m_lessons->tryIt();
            } else if (delta > 0 ? m_lessons->next() : m_lessons->back()) {
                if (delta < 0 && m_lessons->needsGuess())
                    m_lessons->reveal();
                loadStepFigure();
            }
        } else {
            m_state->stepCursor(delta);
        }
    }
    if (m_presentation) {
        showSlide();
        m_presentation->holdUntilComputed();
    }
}

void ClassroomController::presentationJump(bool last)
{
    if (!(m_lessons && m_lessons->lesson() && !m_lessonsDock->isHidden())) {
        m_state->setCursor(last ? m_state->positionCount() - 1 : 0);
        return;
    }
    {
        const QScopedValueRollback quiet(m_quietSlide, true);
        m_lessons->open(m_lessons->lessonIndex(), last ? m_lessons->stepCount() - 1 : 0);
        loadStepFigure();
    }
    if (m_presentation) {
        showSlide();
        m_presentation->holdUntilComputed();
    }
}

void ClassroomController::setPresenting(bool on)
{
    if (on == isPresenting())
        return;
    if (!on) {
        m_presentation->hide();
        delete m_presentation; // gives the state its font scale back
        m_window->activateWindow();
        emit presentationEnded(); // the grid fits the room at the window's own font scale again
        return;
    }
    m_windowScale = m_state->viewOptions().fontScale;
    m_talkClock.start();
    m_presentation = new Presentation(m_state, m_computation, m_window);
    connect(m_presentation, &Presentation::presenterRequested, this, [this] { setPresenterShown(!m_presenter); });
    connect(m_presentation, &Presentation::nextRequested, this, [this] { presentationStep(1); });
    connect(m_presentation, &Presentation::backRequested, this, [this] { presentationStep(-1); });
    connect(
        m_presentation, &Presentation::leaveRequested, this, [this] { setPresenting(false); }, Qt::QueuedConnection);
    connect(m_presentation, &Presentation::firstRequested, this, [this] { presentationJump(false); });
    connect(m_presentation, &Presentation::lastRequested, this, [this] { presentationJump(true); });
    connect(m_presentation, &Presentation::cursorRequested, m_state, &WorkbenchState::stepCursor);
    connect(m_presentation, &Presentation::playRequested, m_state, &WorkbenchState::togglePlaying);
    // A step opened before (poslab --present --lesson 12.2, F5 in a lesson): its figure, not the workbench's.
    if (m_lessons && m_lessons->step() && !m_lessonsDock->isHidden()) {
        const QScopedValueRollback quiet(m_quietSlide, true);
        loadStepFigure();
    }
    m_presentation->setPage(presentationPage());
    if (QScreen* sc = m_window->screen()) {
        m_presentation->setScreen(sc);
        m_presentation->setGeometry(sc->geometry());
    }
    m_presentation->showFullScreen();
    // A second screen: the presenter view opens there, as slide software's does.
    if (m_presenterWanted || QGuiApplication::screens().size() > 1)
        setPresenterShown(true);
    m_presentation->activateWindow();
}

void ClassroomController::showSlide()
{
    const PresentationPage page = presentationPage();
    if (m_presentation)
        m_presentation->setPage(page);
    if (m_presenter)
        m_presenter->setPage(page);
}

void ClassroomController::setPresenterShown(bool on)
{
    if (!on || !m_presentation) {
        delete m_presenter;
        return;
    }
    if (m_presenter)
        return;
    m_presenter = new PresenterView(m_window);
    m_presenter->setKeyTarget(m_presentation);
    m_presenter->setClock(m_talkClock);
    m_presenter->setFontScale(m_windowScale);
    m_presenter->setPage(presentationPage());
    // On the screen the slide is not on, when there is one; else over the slide until P closes it.
    QScreen* slide = m_presentation->screen();
    for (QScreen* sc : QGuiApplication::screens())
        if (sc != slide) {
            m_presenter->setScreen(sc);
            m_presenter->setGeometry(sc->availableGeometry());
            break;
        }
    connect(m_presentation, &QObject::destroyed, m_presenter, &QObject::deleteLater);
    m_presenter->show();
}

} // namespace poslab::ui
