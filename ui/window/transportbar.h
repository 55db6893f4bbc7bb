// SPDX-License-Identifier: MIT
#pragma once
/// @file transportbar.h
/// The window's toolbar and keys for the position cursor: undo and redo, first / previous / play / next / last,
/// the cursor's slider and spin box, and the look (theme, A- and A+, full screen); the animation's clock.

#include <QElapsedTimer>
#include <QObject>

class QAction;
class QSlider;
class QSpinBox;
class QTimer;
class QToolBar;

namespace poslab::ui {

class MainWindow;
class WorkbenchState;

class TransportBar : public QObject {
    Q_OBJECT
public:
    /// Adds the toolbar and the window's cursor keys (Space, Left, Right, Home, End, Esc) to @p window.
    TransportBar(MainWindow* window, WorkbenchState* state);

    QSlider* cursorSlider() const { return m_cursorSlider; }
    QSpinBox* cursorSpin() const { return m_cursorSpin; }
    /// The toolbar's look actions, also in the View menu.
    QAction* themeAction() const { return m_theme; }
    QAction* smallerAction() const { return m_smaller; }
    QAction* largerAction() const { return m_larger; }
    QAction* fullScreenAction() const { return m_fullScreen; }

private:
    void addUndoRedo(QToolBar* bar);
    void addCursor(QToolBar* bar);
    void addLook(QToolBar* bar);
    void addKeys();
    /// The animation's step: the animation time advances by the real time since the last one.
    void tick();

    MainWindow* m_window;
    WorkbenchState* m_state;
    QSlider* m_cursorSlider = nullptr;
    QSpinBox* m_cursorSpin = nullptr;
    QAction* m_theme = nullptr;
    QAction* m_smaller = nullptr;
    QAction* m_larger = nullptr;
    QAction* m_fullScreen = nullptr;
    QTimer* m_animation = nullptr;
    QElapsedTimer m_clock;
};

} // namespace poslab::ui
