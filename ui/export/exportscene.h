// SPDX-License-Identifier: MIT
#pragma once
/// @file exportscene.h
/// A private workbench for export: its own WorkbenchState, Computation and views, never shown. The command
/// line draws its figures in one; the export dialog uses one when the figure's theme or font scale differs
/// from the window's, and for animations, so that exporting never disturbs the window (its theme, undo
/// history or cursor).

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>

namespace poslab::ui {
class Computation;
class View;
class WorkbenchState;
} // namespace poslab::ui

namespace poslab::exporting {

class ExportScene {
public:
    /// A scene with the workbench's default state. Configure state() first, then call computation() or
    /// view(): the first result is computed once, for the final set-up.
    ExportScene();
    ~ExportScene();
    ExportScene(const ExportScene&) = delete;
    ExportScene& operator=(const ExportScene&) = delete;

    /// The export names of the views, in the window's order: table, clock, rotation, decay, attention.
    static QStringList viewNames();

    ui::WorkbenchState& state() { return *m_state; }
    /// Created on first use from the state as it is then.
    ui::Computation& computation();
    /// The view named @p name (created on first use), or nullptr with @p error listing the known names.
    ui::View* view(const QString& name, QString* error = nullptr);

    /// A data export (CSV, JSON, .npy) draws nothing: call before the first view() so that the scene's own
    /// figures are not computed (the scores are computed 1 x 1), and the data's own estimate refuses a request
    /// over the cap before anything large is allocated (--positions 16384 --heads 64 used to compute
    /// the 16384 x 16384 figure first).
    void setDrawsNothing() { m_drawsNothing = true; }

    /// Copies a state (WorkbenchState::toJson) into this scene; returns an error message or empty.
    QString loadState(const QJsonObject& json);

private:
    std::unique_ptr<ui::WorkbenchState> m_state;
    std::unique_ptr<ui::Computation> m_computation;
    bool m_attentionShown = true; ///< the first view asked for is the attention view (or none was asked for)
    bool m_drawsNothing = false;  ///< setDrawsNothing()
    bool m_tableShown = true;     ///< the first view asked for is the table view (or none was asked for)
    std::map<QString, std::unique_ptr<ui::View>> m_views; // destroyed before the computation they observe
};

/// Runs every pending computation of @p computation now and waits for its workers, so that the views hold
/// results for the state as it is (export draws right after changing the state).
void settle(ui::Computation& computation);

} // namespace poslab::exporting
