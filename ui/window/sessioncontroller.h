// SPDX-License-Identifier: MIT
#pragma once
/// @file sessioncontroller.h
/// The window's sessions and shared states: the File menu (New, Open, Open recent, Save, Save as, a model's
/// config.json, a learned position table), the Edit menu (Copy state link, Paste state) and the Presets menu;
/// the session file in use, its unknown keys, the recent files and the window's title. MainWindow creates it
/// and answers for it (mainwindow.h describes each call).

#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QMenu;

namespace poslab::ui {

class MainWindow;
class WorkbenchState;

class SessionController : public QObject {
    Q_OBJECT
public:
    /// Adds the File, Edit and Presets menus to @p window's menu bar.
    SessionController(MainWindow* window, WorkbenchState* state);

    QMenu* fileMenu() const { return m_fileMenu; }
    QString openSession(const QString& path);
    QString saveSession(const QString& path);
    QString loadStateText(const QString& text);
    QString loadPreset(const QString& id);
    QString openModelConfig(const QString& path);
    QString openPositionTable(const QString& path);
    void newSession();
    QString sessionPath() const { return m_sessionPath; }
    QString stateLink() const;
    QJsonObject layoutJson() const;
    void applyLayout(const QJsonObject& layout);
    QStringList recentSessions() const;
    /// True when there is nothing unsaved to lose, or the user chose to save or discard it.
    bool settleUnsaved();
    /// The window's title: the session file's name, with " *" while it has unsaved changes.
    void updateTitle();
    /// Asks the user @p question (which names each file and its size) and returns whether they agreed.
    using TableConsent = std::function<bool(const QString& question)>;
    /// How a state that names table files (a poslab: link, a share string, a session or state file) asks before
    /// any of them is read: by default a Yes/No dialog defaulting to No; on a platform without a screen
    /// (offscreen, minimal: a typed command such as --screenshot, never a clicked link) it reads them unasked.
    /// Tests answer through their own function.
    void setTableConsent(TableConsent ask) { m_tableConsent = std::move(ask); }

signals:
    /// A line for the status bar (@p problem: a refusal).
    void message(const QString& text, bool problem);

private:
    void buildFileMenu();
    void buildEditMenu();
    void buildPresetMenu();
    QString loadModelState(const QJsonObject& state, const QString& what);
    void rememberRecent(const QString& path);
    void showMessage(const QString& text, bool problem);
    /// Empty when @p state names no table file or the user agreed to read those it names; else why it is not
    /// loaded. @p source names where the state came from ("link", a file name).
    QString askForTables(const QJsonObject& state, const QString& source);

    MainWindow* m_window;
    WorkbenchState* m_state;
    QMenu* m_fileMenu = nullptr;
    QString m_sessionPath;
    QJsonObject m_sessionKept; ///< the session file as opened: its unknown keys are written back
    QString m_shown;           ///< the last line given to the status bar
    TableConsent m_tableConsent;
};

} // namespace poslab::ui
