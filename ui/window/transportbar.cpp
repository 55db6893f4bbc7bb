// SPDX-License-Identifier: MIT
#include "ui/window/transportbar.h"

#include "ui/window/mainwindow.h"
#include "ui/state/workbenchstate.h"

#include <QAction>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>

namespace poslab::ui {

TransportBar::TransportBar(MainWindow* window, WorkbenchState* state)
    : QObject(window)
    , m_window(window)
    , m_state(state)
{
    auto* bar = window->addToolBar(tr("Position"));
    bar->setObjectName(QStringLiteral("transportBar"));
    bar->setMovable(false);
    addUndoRedo(bar);
    addCursor(bar);
    addLook(bar);
    addKeys();

    m_animation = new QTimer(this);
    m_animation->setTimerType(Qt::PreciseTimer);
    m_animation->setInterval(16);
    connect(m_animation, &QTimer::timeout, this, &TransportBar::tick);
    connect(m_state, &WorkbenchState::playingChanged, this, [this](bool on) {
        if (on) {
            m_clock.start();
            m_animation->start();
        } else {
            m_animation->stop();
        }
    });
}

void TransportBar::addUndoRedo(QToolBar* bar)
{
    // Own actions rather than QUndoStack::createUndoAction(): that one renames the action on every step, and
    // a toolbar button changing width relayouts the whole window in the middle of a slider drag.
    QUndoStack* stack = m_state->undoStack();
    auto* undo = new QAction(m_window->style()->standardIcon(QStyle::SP_ArrowBack), tr("Undo"), m_window);
    undo->setObjectName(QStringLiteral("actionUndo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setEnabled(false);
    connect(undo, &QAction::triggered, stack, &QUndoStack::undo);
    connect(stack, &QUndoStack::canUndoChanged, undo, &QAction::setEnabled);
    connect(stack, &QUndoStack::undoTextChanged, undo,
            [undo](const QString& t) { undo->setToolTip(tr("Undo %1 (Ctrl+Z)").arg(t)); });
    auto* redo = new QAction(m_window->style()->standardIcon(QStyle::SP_ArrowForward), tr("Redo"), m_window);
    redo->setObjectName(QStringLiteral("actionRedo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence::Redo});
    redo->setEnabled(false);
    connect(redo, &QAction::triggered, stack, &QUndoStack::redo);
    connect(stack, &QUndoStack::canRedoChanged, redo, &QAction::setEnabled);
    connect(stack, &QUndoStack::redoTextChanged, redo,
            [redo](const QString& t) { redo->setToolTip(tr("Redo %1 (Ctrl+Shift+Z)").arg(t)); });
    bar->addAction(undo);
    bar->addAction(redo);
    bar->addSeparator();
}

void TransportBar::addCursor(QToolBar* bar)
{
    auto* home = bar->addAction(QStringLiteral("|\u25c0"), this, [this] { m_state->setCursor(0); });
    home->setToolTip(tr("First position (Home)"));
    auto* back = bar->addAction(QStringLiteral("\u25c0"), this, [this] { m_state->stepCursor(-1); });
    back->setToolTip(tr("Previous position (Left)"));
    auto* play = bar->addAction(QStringLiteral("\u25b6"), m_state, &WorkbenchState::togglePlaying);
    play->setObjectName(QStringLiteral("actionPlay"));
    play->setToolTip(tr("Play / pause (Space)"));
    connect(m_state, &WorkbenchState::playingChanged, play,
            [play](bool on) { play->setText(on ? QStringLiteral("\u275a\u275a") : QStringLiteral("\u25b6")); });
    auto* fwd = bar->addAction(QStringLiteral("\u25b7"), this, [this] { m_state->stepCursor(1); });
    fwd->setToolTip(tr("Next position (Right)"));
    auto* end
        = bar->addAction(QStringLiteral("\u25b6|"), this, [this] { m_state->setCursor(m_state->positionCount() - 1); });
    end->setToolTip(tr("Last position (End)"));

    auto* label = new QLabel(tr("  position p "), bar);
    bar->addWidget(label);
    m_cursorSlider = new QSlider(Qt::Horizontal, bar);
    m_cursorSlider->setObjectName(QStringLiteral("cursorSlider"));
    // Wide when there is room, narrow enough that the window fits a 1366 px screen at every font scale; what
    // does not fit goes into the toolbar's overflow menu (the >> button).
    m_cursorSlider->setMinimumWidth(160);
    m_cursorSlider->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_cursorSlider->setFocusPolicy(Qt::NoFocus); // Left/Right belong to the window's shortcuts
    bar->addWidget(m_cursorSlider);
    m_cursorSpin = new QSpinBox(bar);
    m_cursorSpin->setObjectName(QStringLiteral("cursorSpin"));
    m_cursorSpin->setMinimumWidth(90);
    bar->addWidget(m_cursorSpin);
    auto syncRange = [this] {
        QSignalBlocker b1(m_cursorSlider), b2(m_cursorSpin);
        m_cursorSlider->setRange(0, m_state->positionCount() - 1);
        m_cursorSpin->setRange(0, m_state->positionCount() - 1);
        m_cursorSlider->setValue(m_state->cursor());
        m_cursorSpin->setValue(m_state->cursor());
    };
    syncRange();
    connect(m_state, &WorkbenchState::positionCountChanged, this, syncRange);
    connect(m_state, &WorkbenchState::cursorChanged, this, syncRange);
    connect(m_cursorSlider, &QSlider::valueChanged, m_state, &WorkbenchState::setCursor);
    connect(m_cursorSpin, &QSpinBox::valueChanged, m_state, &WorkbenchState::setCursor);
}

void TransportBar::addLook(QToolBar* bar)
{
    bar->addSeparator();
    auto* theme = m_theme = bar->addAction(tr("Dark"), this, [this] {
        ViewOptions o = m_state->viewOptions();
        o.theme = o.theme == ThemeKind::Dark ? ThemeKind::Light : ThemeKind::Dark;
        m_state->setViewOptions(o);
    });
    theme->setObjectName(QStringLiteral("actionTheme"));
    theme->setToolTip(tr("Switch between light and dark themes"));
    connect(m_state, &WorkbenchState::viewOptionsChanged, theme, [this, theme] {
        theme->setText(m_state->viewOptions().theme == ThemeKind::Dark ? tr("Light") : tr("Dark"));
    });
    auto* smaller = m_smaller = bar->addAction(QStringLiteral("A\u2212"), this, [this] {
        ViewOptions o = m_state->viewOptions();
        o.fontScale = MainWindow::stepFontScale(o.fontScale, -1);
        m_state->setViewOptions(o);
    });
    smaller->setObjectName(QStringLiteral("actionSmaller"));
    smaller->setShortcut(QKeySequence::ZoomOut);
    smaller->setToolTip(tr("Smaller text (Ctrl+-)"));
    auto* larger = m_larger = bar->addAction(QStringLiteral("A+"), this, [this] {
        ViewOptions o = m_state->viewOptions();
        o.fontScale = MainWindow::stepFontScale(o.fontScale, 1);
        m_state->setViewOptions(o);
    });
    larger->setObjectName(QStringLiteral("actionLarger"));
    larger->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    larger->setToolTip(tr("Larger text for lecture halls (Ctrl++)"));
    auto* full = m_fullScreen = bar->addAction(tr("Full screen"), this, [this] {
        if (m_window->isFullScreen())
            m_window->showNormal();
        else
            m_window->showFullScreen();
    });
    full->setObjectName(QStringLiteral("actionFullScreen"));
    full->setShortcut(Qt::Key_F11);
    full->setToolTip(tr("Full screen (F11)"));
}

void TransportBar::addKeys()
{
    auto add = [this](const QKeySequence& key, auto fn) {
        auto* a = new QAction(m_window);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WindowShortcut);
        connect(a, &QAction::triggered, this, fn);
        m_window->addAction(a);
        return a;
    };
    add(Qt::Key_Space, [this] { m_state->togglePlaying(); })->setObjectName(QStringLiteral("shortcutSpace"));
    add(Qt::Key_Left, [this] { m_state->stepCursor(-1); })->setObjectName(QStringLiteral("shortcutLeft"));
    add(Qt::Key_Right, [this] { m_state->stepCursor(1); })->setObjectName(QStringLiteral("shortcutRight"));
    add(Qt::Key_Home, [this] { m_state->setCursor(0); })->setObjectName(QStringLiteral("shortcutHome"));
    add(Qt::Key_End, [this] {
        m_state->setCursor(m_state->positionCount() - 1);
    })->setObjectName(QStringLiteral("shortcutEnd"));
    QAction* escape = add(Qt::Key_Escape, [this] {
        if (m_window->isFullScreen())
            m_window->showNormal();
        else
            m_window->setMaximisedView(nullptr);
    });
    const std::pair<const char*, const char*> names[]
        = {{"shortcutSpace", QT_TR_NOOP("Play / pause the position animation")},
           {"shortcutLeft", QT_TR_NOOP("Previous position")},
           {"shortcutRight", QT_TR_NOOP("Next position")},
           {"shortcutHome", QT_TR_NOOP("First position")},
           {"shortcutEnd", QT_TR_NOOP("Last position")}};
    for (const auto& [name, text] : names)
        m_window->findChild<QAction*>(QLatin1String(name))->setText(tr(text));
    escape->setText(tr("Leave full screen, or show every view again"));
}

void TransportBar::tick()
{
    const double dt = m_clock.restart() / 1000.0;
    m_state->setAnimationTime(m_state->animationTime() + dt * m_state->viewOptions().speed);
}

} // namespace poslab::ui
