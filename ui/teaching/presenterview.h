// SPDX-License-Identifier: MIT
#pragma once
/// @file presenterview.h
/// The presenter view: a second top-level window for the lecturer while presenting, as slide software
/// has on the laptop's screen. It shows the current step (heading, counter, the step's text and notices, the
/// prediction's answer, which the room's slide keeps hidden until revealed), the next step's title and the time
/// since the presentation began. It draws no figure and holds no state: the window gives it each slide's page
/// (setPage), so it follows the slide however the slide was reached. Opened on a second screen when one is
/// connected, on demand with P in the presentation, or from the start with `poslab --presenter`.

#include "ui/teaching/presentation.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QWidget>

class QLabel;
class QTimer;

namespace poslab::ui {

class PresenterView : public QWidget {
    Q_OBJECT
public:
    /// A top-level window (Qt::Window) owned by @p parent (the main window), not yet shown.
    explicit PresenterView(QWidget* parent = nullptr);

    /// Shows @p page: its heading and counter, notes (text and notices, HTML), the prediction's answer and
    /// the next step's title (PresentationPage::next, "end of the lesson" when empty).
    void setPage(const PresentationPage& page);
    const PresentationPage& page() const { return m_page; }
    /// The elapsed time counts from @p started (the presentation's start), shown as m:ss (h:mm:ss past an hour).
    void setClock(const QElapsedTimer& started);
    /// The text sizes multiply by @p scale (the window's font scale before presenting, 1 to 2).
    void setFontScale(double scale);

    /// What the window shows (tests read them): the current heading, the next step's line, the notes as plain
    /// text and the elapsed time as drawn.
    QString currentText() const;
    QString nextText() const;
    QString notesText() const;
    QString elapsedText() const;
    /// Keys pressed here go to @p target (the presentation), so the lecturer steps from either window.
    void setKeyTarget(QWidget* target) { m_keyTarget = target; }
    /// @p ms milliseconds as m:ss, or h:mm:ss from an hour.
    static QString formatElapsed(qint64 ms);

protected:
    void resizeEvent(QResizeEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

private:
    void updateFonts();
    void tick();

    PresentationPage m_page;
    QElapsedTimer m_started;
    double m_scale = 1.0;
    QLabel* m_current = nullptr;
    QLabel* m_counter = nullptr;
    QLabel* m_clock = nullptr;
    QLabel* m_notes = nullptr;
    QLabel* m_next = nullptr;
    QLabel* m_keys = nullptr;
    QTimer* m_timer = nullptr;
    QPointer<QWidget> m_keyTarget;
};

} // namespace poslab::ui
