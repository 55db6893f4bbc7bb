// SPDX-License-Identifier: MIT
#pragma once
/// @file lessonbrowser.h
/// The lesson browser, docked beside the views: the lessons with their progress, the current step's
/// title, text with live fields ({p:NAME}: the knob's current value, click to focus it; {v:K}: a computed probe
/// value, hover for its `poslab compute` line), formula, "Do" line, the prediction asked before "Try it", the
/// Notice claims with their computed values and a tick when they hold, Back / Next, and each lesson's puzzle.
/// "Try it" loads the step's merged state (ui/lessons/lesson.h stepState) as one undo step; the step lock
/// leaves only the step's knobs editable until "Free play". Progress (steps tried) is kept in QSettings.

#include "ui/lessons/claims.h"
#include "ui/lessons/lesson.h"

#include <QStringList>
#include <QWidget>

#include <deque>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QButtonGroup;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QVBoxLayout;

namespace poslab::ui {

class WorkbenchState;

/// A notice's probes as computed (values as text, the `poslab compute` line of each) and whether it holds.
struct NoticeResult {
    QStringList values;                       ///< one per probe, as live text shows it (lessons::ProbeValue::text())
    std::vector<std::vector<double>> numbers; ///< one per probe: its number, or a slice's numbers
    QStringList commands;                     ///< "poslab compute ..." per probe
    bool holds = false;
    QString reason; ///< the claim engine's line: why it fails, or what held
};

class LessonBrowser : public QWidget {
    Q_OBJECT
public:
    explicit LessonBrowser(WorkbenchState* state, QWidget* parent = nullptr);

    /// The shipped lessons the browser offers.
    const QList<lessons::Lesson>& lessonList() const;
    int lessonIndex() const { return m_lesson; }
    /// The step shown; stepCount() (one past the last step) is the lesson's puzzle.
    int stepIndex() const { return m_step; }
    int stepCount() const;
    const lessons::Lesson* lesson() const;
    /// The step shown, or nullptr on the puzzle page.
    const lessons::Step* step() const;
    bool onPuzzle() const { return lesson() && m_step == stepCount(); }

    /// Shows lesson @p index (of lessonList()) at step @p step. Returns false for an index out of range.
    bool open(int index, int step = 0);
    /// Next step; after the last step the puzzle, after the puzzle the next lesson's first step. False at the end.
    bool next();
    /// The step before (the previous lesson's puzzle before a first step). False at the start.
    bool back();

    /// True while the step asks for a prediction that has not been committed ("Try it" waits for it).
    bool needsGuess() const;
    /// Commits a guess (the number typed, or a choice's index as text) and shows the computed answer beside it.
    /// Returns an empty string, or why the guess is not accepted (not a number, no choice).
    QString commitGuess(const QString& guess);
    /// Presentation mode: the room predicted aloud; the answer is shown and "Try it" enabled with no typed guess.
    void reveal();
    /// The guess committed for the step shown, empty when none.
    QString committedGuess() const;
    /// The computed answer of the step's prediction as shown ("54,410.1" as live text formats it, or the right
    /// choice's text).
    QString predictionAnswer() const;
    /// The verdict on the committed guess; nullopt before a guess, and for a prediction made aloud.
    std::optional<lessons::GuessVerdict> guessVerdict() const;
    /// What the reveal shows once the guess is committed: the verdict with the computed answer, then the
    /// prediction's sentence of why (empty before the guess).
    QString revealText() const;
    /// Whether the lessons are on screen (MainWindow: the dock shown). While they are and a guess is due, the
    /// state's answerPending() is set, so the views leave out header text that would answer the prediction.
    void setAnswersShown(bool shown);

    /// Loads the step's state (one undo step), shows its views and locks the knobs it does not name. Refused
    /// (message) while a guess is due or on the puzzle page. Returns an empty string on success.
    QString tryIt();
    /// Unlocks every knob from the same state.
    void freePlay();
    /// The knobs the current step leaves editable; nullopt when nothing is locked (free play, no step tried).
    const std::optional<QStringList>& unlockedKnobs() const { return m_unlocked; }

    /// Checks a puzzle answer; true when accepted (then free play). @p message receives what to show.
    bool answerPuzzle(const QString& answer, QString* message = nullptr);

    /// Steps of lesson @p index tried so far (QSettings "lessons/done").
    int stepsDone(int index) const;

    /// The step's text with its live fields filled in (HTML), for tests and the presentation footer.
    QString liveText(const QString& text, const lessons::Step* step, const lessons::Notice* notice) const;

    QPushButton* tryButton() const { return m_try; }
    QPushButton* freePlayButton() const { return m_free; }
    /// "Why: TITLE": opens the step's derivation page (ui/teaching/derivationpage.h); hidden when the step has none, disabled
    /// while its prediction waits for a guess (the page may answer it).
    QPushButton* derivationButton() const { return m_derivation; }
    QPushButton* commitButton() const { return m_commit; }
    QLineEdit* guessEdit() const { return m_guess; }
    /// The notice lines as shown (text with values, and a tick or a cross).
    QStringList noticeTexts() const;

signals:
    /// The step shown changed (another step, lesson or the puzzle page).
    void stepShown();
    /// "Try it" loaded a step: show these views (registry ids, the first is the main one).
    void viewsRequested(const QStringList& views);
    /// The lock changed: nullopt unlocks every knob.
    void lockChanged(const std::optional<QStringList>& unlocked);
    /// A {p:NAME} field was clicked: focus that knob.
    void knobRequested(const QString& name);
    /// One line for the status bar (a problem when @p problem).
    void message(const QString& text, bool problem);

protected:
    void changeEvent(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    /// A rich-text label that wraps at the width the dock gives it (never its own guess of a good width).
    static QLabel* wrappedLabel(QWidget* parent, const char* name);
    /// The guess of a prediction made aloud in presentation mode.
    static constexpr char16_t aloudGuess = u'\u2014';

    void build();
    void buildStepText(QWidget* page, QVBoxLayout* body);
    void buildPredict(QWidget* page, QVBoxLayout* body);
    void buildActions(QWidget* page, QVBoxLayout* body);
    void buildPuzzle(QWidget* page, QVBoxLayout* body);
    void buildNavigation(QVBoxLayout* column);
    void connectLinks();
    void showFormula();
    /// The step counter between Back and Next, shortened or on its own line by the rule in the .cpp.
    void placePosition();
    /// The step title's font: the panel's, bold, smaller where one word would not fit the panel's width.
    void fitTitle();
    void showStep();
    void showNotices();
    void showPredict();
    void showPuzzle();
    void refreshLive();
    void markDone();
    void setLock(const std::optional<QStringList>& unlocked);
    void syncAnswerPending();
    QString knobValue(const QString& name) const;
    QString probeValue(const lessons::Notice& notice, int k) const;
    /// The notice's probes and check, computed with core by the claim engine (cached for the step shown).
    const NoticeResult& result(const lessons::Notice& notice) const;
    void refreshList();

    WorkbenchState* m_state;
    int m_lesson = -1;
    int m_step = 0;
    std::optional<QStringList> m_unlocked;
    bool m_answersShown = true; ///< see setAnswersShown()
    QStringList m_guesses;      ///< per step of the open lesson: the committed guess, empty when none
    std::unique_ptr<lessons::ClaimEngine> m_engine;
    mutable std::deque<std::pair<const lessons::Notice*, NoticeResult>> m_results; ///< cache for the step shown

    QComboBox* m_list = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_text = nullptr;
    QWidget* m_formula = nullptr;
    QVBoxLayout* m_formulaBox = nullptr;
    QLabel* m_do = nullptr;
    QGroupBox* m_predict = nullptr;
    QLabel* m_predictPrompt = nullptr;
    QLineEdit* m_guess = nullptr;
    QWidget* m_choices = nullptr;
    QButtonGroup* m_choiceGroup = nullptr;
    QPushButton* m_commit = nullptr;
    QLabel* m_reveal = nullptr;
    QPushButton* m_try = nullptr;
    QPushButton* m_free = nullptr;
    QPushButton* m_derivation = nullptr;
    QGroupBox* m_notices = nullptr;
    QVBoxLayout* m_noticeBox = nullptr;
    QGroupBox* m_puzzle = nullptr;
    QLabel* m_puzzlePrompt = nullptr;
    QLineEdit* m_answer = nullptr;
    QComboBox* m_answerChoice = nullptr;
    QPushButton* m_check = nullptr;
    QLabel* m_verdict = nullptr;
    QPushButton* m_back = nullptr;
    QPushButton* m_next = nullptr;
    QLabel* m_position = nullptr;
    QLabel* m_positionLine = nullptr;           ///< the counter's own line, where it fits nowhere beside the buttons
    std::pair<QString, QString> m_positionText; ///< "Step 2 of 5" and "2/5"
};

} // namespace poslab::ui
