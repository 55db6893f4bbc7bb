// SPDX-License-Identifier: MIT
#pragma once
/// @file presentation.h
/// Presentation mode (F5, issue 13's classroom mode): a full-screen window that shows only the current step's
/// views, at the largest font scale at which every one of them has room, with a one-line heading and the
/// step's "Do" line. Keyboard only: Right / PageDown (what a presenter clicker sends) go to the next step,
/// Left / PageUp back, Esc or F5 leave. The mouse draws a laser-pointer dot over the views instead of a cursor.
/// No dialogs: nothing here asks anything. The window decides what a page is (a lesson step, or the workbench
/// when no lesson is open) and answers the next/back requests.

#include <QPointer>
#include <QStringList>
#include <QWidget>

#include <vector>

class QLabel;

namespace poslab::ui {

class Computation;
class View;
class WorkbenchState;

/// What one page of the presentation shows.
struct PresentationPage {
    QString heading;   ///< "2.1 · Each pair is a hand"
    QString counter;   ///< "3 / 7", right of the heading
    QString footer;    ///< one line under the views (the step's "Do"), may be empty
    QStringList views; ///< registry ids; the first is the main view and gets the most room
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
    /// Where each view goes in a stage of @p size: alone, the whole stage; two, side by side; three, the main
    /// view on the left and the others stacked on its right; more, two rows as the workbench's grid.
    static std::vector<QRect> arrange(QSize size, int count);

signals:
    void nextRequested();
    void backRequested();
    void leaveRequested();

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

    WorkbenchState* m_state;
    Computation* m_computation;
    PresentationPage m_page;
    std::vector<View*> m_views;
    QWidget* m_stage = nullptr;
    QLabel* m_heading = nullptr;
    QLabel* m_counter = nullptr;
    QLabel* m_footer = nullptr;
    LaserPointer* m_laser = nullptr;
    double m_scale = 1.0;
    double m_scaleBefore = 1.0; ///< the state's font scale before the presentation changed it
    bool m_scaled = false;
};

} // namespace poslab::ui
