// SPDX-License-Identifier: MIT
#pragma once
/// @file presentation.h
/// Presentation mode (F5, the classroom mode): a full-screen window that shows only the current step's
/// views, at the largest font scale at which every one of them has room, with a one-line heading and the
/// step's "Do" line. Keyboard only, as slide software and a presenter's clicker have it (keyHelp() lists them):
/// Right / PageDown the next step, Left / PageUp back, Home / End the lesson's first / last step; Up / Down move
/// the position cursor one token (Shift: ten), Space plays or pauses the animation; B or . blacks the screen, T
/// shows the step's text, formula and notices on the slide, D the step's derivation page, ? the keys; Esc closes what is open over the slide,
/// else leaves, as F5 does. The mouse draws a laser-pointer dot over the views instead of a cursor: only while a
/// pointer moves over the live slide (never where it rested as the slide appeared, so no screenshot has one).
/// No dialogs: nothing here asks anything. The window decides what a page is (a lesson step, or the workbench
/// when no lesson is open) and answers the next/back requests.

#include <QPointer>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

class QLabel;

namespace poslab::ui {

class Computation;
class View;
class WorkbenchState;

/// What one page of the presentation shows.
struct PresentationPage {
    QString heading;    ///< "2.1 · Each pair is a hand"
    QString counter;    ///< "3 / 7", right of the heading
    QString footer;     ///< one line under the views (the step's "Do"), may be empty
    QStringList views;  ///< registry ids; the first is the main view and gets the most room
    QString notes;      ///< the step's text and notices (HTML), shown on the slide with T; empty: none
    QString formula;    ///< the step's formula (TeX, typeset from resources/formulas), shown with the notes
    QString next;       ///< the presenter view only: the next step's heading ("2.2 · ..."), empty at the end
    QString answer;     ///< the presenter view only: the prediction's answer and why, even before the room sees it
    QString derivation; ///< the step's derivation page (D opens it), empty when none or before the guess
    bool operator==(const PresentationPage&) const = default;
};

/// The red dot that follows the mouse over the presentation; transparent for the mouse itself.
class LaserPointer : public QWidget {
    Q_OBJECT
public:
    explicit LaserPointer(QWidget* parent);
    /// Moves the dot to @p pos (this widget's coordinates); an invalid position hides it.
    void setPosition(const QPoint& pos);
    QPoint position() const { return m_pos; }
    bool isShowingDot() const { return m_shown; }
    /// The dot's radius in pixels for a screen @p height pixels high (larger on a 4K screen).
    static double radiusFor(int height);

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    QPoint m_pos;
    bool m_shown = false;
};

class Presentation : public QWidget {
    Q_OBJECT
public:
    Presentation(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);
    ~Presentation() override;

    /// Shows @p page: creates the views it names (unknown ids are skipped) and lays them out.
    void setPage(const PresentationPage& page);
    const PresentationPage& page() const { return m_page; }
    /// The views on the page, the main one first.
    const std::vector<View*>& views() const { return m_views; }
    /// The font scale the page is shown at (the largest of the ladder at which every view has room).
    double fontScale() const { return m_scale; }
    LaserPointer* laser() const { return m_laser; }
    /// The font scales tried, largest first.
    static constexpr double scales[] = {2.0, 1.75, 1.5, 1.3, 1.15, 1.0};
    /// The keys of the presentation, one "key: what it does" per line (the ? overlay shows them).
    static QStringList keyHelp();
    /// The overlays over the slide: the black screen (B or .), the key list (?), the step's notes (T).
    bool isBlack() const;
    bool isShowingHelp() const;
    bool isShowingNotes() const;
    /// The notes as the slide shows them (plain text), empty while hidden.
    QString notesText() const;
    /// Hides the views until the computation has the results of the state just loaded (at most a second), so
    /// that a new step's title never stands over the previous step's figure.
    void holdUntilComputed();
    bool isHolding() const { return m_holding; }
    /// Where each view goes in a stage of @p size: alone, the whole stage; two, side by side; three, the main
    /// view on the left and the others stacked on its right; more, two rows as the workbench's grid.
    static std::vector<QRect> arrange(QSize size, int count);

signals:
    void nextRequested();
    void backRequested();
    void leaveRequested();
    /// Home / End: the lesson's first / last step.
    void firstRequested();
    void lastRequested();
    /// Up / Down (Shift: ten tokens): move the position cursor by @p delta.
    void cursorRequested(int delta);
    /// Space: play or pause the animation.
    void playRequested();
    /// P: open or close the presenter view.
    void presenterRequested();

protected:
    bool event(QEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void hideEvent(QHideEvent* e) override;

private:
    void layoutStage();
    void updateFonts();
    void showNotes(bool on);
    void placeOverlays();
    void endHold();

    WorkbenchState* m_state;
    Computation* m_computation;
    PresentationPage m_page;
    std::vector<View*> m_views;
    QWidget* m_stage = nullptr;
    QLabel* m_heading = nullptr;
    QLabel* m_counter = nullptr;
    QLabel* m_footer = nullptr;
    LaserPointer* m_laser = nullptr;
    QWidget* m_black = nullptr; ///< the black screen
    QLabel* m_help = nullptr;   ///< the key list
    QWidget* m_notes = nullptr; ///< the step's formula, text and notices, between the views and the footer
    QLabel* m_notesFormula = nullptr;
    QLabel* m_notesText = nullptr;
    std::optional<QPoint> m_restingAt; ///< the pointer's place when the slide appeared, until it first moves
    bool m_holding = false;
    int m_holdTicks = 0;
    double m_scale = 1.0;
    double m_scaleBefore = 1.0; ///< the state's font scale before the presentation changed it
    bool m_scaled = false;
};

} // namespace poslab::ui
