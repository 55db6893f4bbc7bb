// SPDX-License-Identifier: MIT
#pragma once
/// @file classroomcontroller.h
/// The window's classroom: the Help menu (lessons, keyboard shortcuts, About), the lesson panel and the step
/// lock it asks for, the first-run hint, presentation mode and the presenter view with its slides. MainWindow
/// creates it and answers for it (mainwindow.h describes each call).

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <optional>

class QDockWidget;
class QSlider;
class QSpinBox;

namespace poslab::ui {

class Computation;
class FirstRunHint;
class LessonBrowser;
class MainWindow;
class ParameterPanel;
class Presentation;
class PresenterView;
struct PresentationPage;
class SchemePicker;
class WorkbenchState;

class ClassroomController : public QObject {
    Q_OBJECT
public:
    /// Adds the Help menu and the (hidden) lesson panel to @p window. The step lock reaches @p panel,
    /// @p picker and the cursor's @p slider and @p spin.
    ClassroomController(MainWindow* window, WorkbenchState* state, Computation* computation, ParameterPanel* panel,
                        SchemePicker* picker, QSlider* slider, QSpinBox* spin);
    /// Closes a presentation first: it gives the state its font scale back.
    ~ClassroomController() override;

    void setPresenting(bool on);
    bool isPresenting() const;
    Presentation* presentation() const;
    void setPresenterShown(bool on);
    PresenterView* presenterView() const;
    void setPresenterWanted(bool on) { m_presenterWanted = on; }
    bool offerFirstRunHint();
    FirstRunHint* firstRunHint() const;
    void showLessons();
    LessonBrowser* lessonBrowser() const { return m_lessons; }
    QDockWidget* lessonsDock() const { return m_lessonsDock; }
    /// Opens lesson step @p id ("2.3") in the lesson panel and loads its state at once (loadStepFigure): by "Try
    /// it", or with the answers hidden while its prediction waits. Empty, or the problem.
    QString openLessonStep(const QString& id);

signals:
    /// A line for the status bar (@p problem: a refusal).
    void message(const QString& text, bool problem);
    /// A lesson step shows these views (the grid views it names, or the tab of its main view).
    void stepViewsRequested(const QStringList& views);
    /// The presentation closed: the grid fits the room at the window's own font scale again.
    void presentationEnded();

private:
    void buildHelpMenu();
    void buildLessons();
    PresentationPage presentationPage() const;
    void presentationStep(int delta);
    /// Home / End in the presentation: the lesson's first or last step (without a lesson: the first or last
    /// position).
    void presentationJump(bool last);
    /// Loads the current step's merged state and shows its views: by "Try it", or, while its prediction waits,
    /// the same state with the answer still hidden. Empty, or the problem.
    QString loadStepFigure();
    /// The step lock: the panel's rows, the scheme picker and the cursor, editable only where @p unlocked names
    /// them (nullopt: free play).
    void applyStepLock(const std::optional<QStringList>& unlocked);
    /// Puts the keyboard focus on the knob @p name (a {p:NAME} field of a lesson was clicked).
    void focusKnob(const QString& name);
    /// Gives the presentation and the presenter view the current page.
    void showSlide();

    MainWindow* m_window;
    WorkbenchState* m_state;
    Computation* m_computation;
    ParameterPanel* m_panel;
    SchemePicker* m_picker;
    QSlider* m_cursorSlider;
    QSpinBox* m_cursorSpin;
    QPointer<Presentation> m_presentation;
    QPointer<PresenterView> m_presenter;
    bool m_presenterWanted = false;
    QElapsedTimer m_talkClock;  ///< started when the presentation starts: the presenter view's timer
    double m_windowScale = 1.0; ///< the window's font scale before presenting (the presenter view's text)
    QPointer<FirstRunHint> m_hint;
    /// A step is being loaded by its caller (a presentation key, openLessonStep()): stepShown neither loads it
    /// nor lays the slide out; the caller does, once the state is the step's.
    bool m_quietSlide = false;
    QDockWidget* m_lessonsDock = nullptr;
    LessonBrowser* m_lessons = nullptr;
};

} // namespace poslab::ui
