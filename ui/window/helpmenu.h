// SPDX-License-Identifier: MIT
#pragma once
/// @file helpmenu.h
/// What the Help menu shows: the keyboard shortcuts, read from the window's own actions (so the list cannot
/// drift from the keys that work), the About text (version, git revision, licences of what is bundled), and
/// the first-run hint that points a new user to the lessons.

#include <QFrame>
#include <QList>
#include <QString>

class QLabel;
class QPushButton;
class QToolButton;

namespace poslab::ui {

/// One shortcut: its key sequences as the platform writes them ("F5", "Ctrl+Z, Ctrl+Y") and what it does.
struct ShortcutEntry {
    QString keys;
    QString action;
};

/// Every action under @p root (menus, toolbars, the window's own key actions) that has a shortcut, in the
/// order they were created; an action's text without its '&' and "…". Actions without text are listed by
/// their tooltip. Each action once.
QList<ShortcutEntry> shortcutList(const QWidget* root);
/// shortcutList() as an HTML table for the Keyboard shortcuts window.
QString shortcutsHtml(const QWidget* root);

/// "PosLab VERSION (git REVISION)".
QString versionLine();
/// The About text (HTML): version, revision, what PosLab is, and the licences of what is bundled.
QString aboutHtml();

/// A one-line bar above the views on the first start: where the lessons are, a button that opens them and one
/// that dismisses the bar for good (QSettings key settingsKey).
class FirstRunHint : public QFrame {
    Q_OBJECT
public:
    explicit FirstRunHint(QWidget* parent = nullptr);
    static constexpr const char* settingsKey = "hints/lessons_dismissed";
    /// True once a user dismissed the hint (or opened the lessons from it).
    static bool dismissed();
    QPushButton* openButton() const { return m_open; }
    QToolButton* closeButton() const { return m_close; }

signals:
    void openLessons();

private:
    void dismiss();
    QLabel* m_text = nullptr;
    QPushButton* m_open = nullptr;
    QToolButton* m_close = nullptr;
};

} // namespace poslab::ui
