// SPDX-License-Identifier: MIT
#pragma once
/// @file statusline.h
/// The window's status bar: a message line (a refusal stays readable for a while, its tooltip has it whole),
/// which path computed the table on screen, and the progress of a large computation with its Cancel button.

#include <QObject>
#include <QString>

class QLabel;
class QMainWindow;
class QProgressBar;
class QPushButton;
class QTimer;

namespace poslab::ui {

class Computation;
class WorkbenchState;

class StatusLine : public QObject {
    Q_OBJECT
public:
    /// Fills @p window's status bar; shows the state's refusals and the computation's progress and errors.
    StatusLine(QMainWindow* window, WorkbenchState* state, Computation* computation);

    /// Shows @p text for ten seconds; a @p problem in bold red.
    void showMessage(const QString& text, bool problem);
    /// The status bar's table line: "Table: CPU, 3.1 ms", "Table: GPU, 0.4 ms (measured: ...)".
    QString tablePathText() const;

private:
    WorkbenchState* m_state;
    Computation* m_computation;
    QLabel* m_message = nullptr;
    QLabel* m_tablePath = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QTimer* m_messageTimer = nullptr;
};

} // namespace poslab::ui
