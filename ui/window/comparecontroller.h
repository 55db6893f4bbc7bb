// SPDX-License-Identifier: MIT
#pragma once
/// @file comparecontroller.h
/// Compare mode in the window: the Compare menu (Compare with…, the modes, independent ranges, which
/// configuration the panels edit) and the scheme picker and parameter panel of configuration B, which take the
/// docks' place while the panels edit B. MainWindow creates it and answers for it.

#include <QObject>

class QActionGroup;
class QDockWidget;
class QMenu;
class QWidget;

namespace poslab::ui {

class MainWindow;
class ParameterPanel;
class SchemePicker;
class WorkbenchState;

class CompareController : public QObject {
    Q_OBJECT
public:
    /// Adds the Compare menu to @p window's menu bar. @p pickerA and @p panelA are the docks' widgets for A
    /// (the scheme picker, the parameter panel's scroll area).
    CompareController(MainWindow* window, WorkbenchState* state, QDockWidget* schemes, QDockWidget* parameters,
                      QWidget* pickerA, QWidget* panelA);

    QMenu* compareMenu() const { return m_compareMenu; }
    /// Which configuration the scheme picker and the parameter panel edit: A (false) or B (true).
    void setEditsB(bool editB);
    bool editsB() const { return m_editsB; }
    /// The parameter panel that edits B (created on first use), or nullptr before.
    ParameterPanel* parameterPanelB() const { return m_panelB; }
    /// The view in front (its export name; empty for the grid), for B's scheme picker's story link.
    void setFrontView(const QString& name);

signals:
    /// A line for the status bar (@p problem: a refusal).
    void message(const QString& text, bool problem);
    /// B's scheme picker needs a different height (SchemePicker::roomChanged).
    void pickerRoomChanged();

private:
    void buildMenu();
    void syncCompareControls();

    MainWindow* m_window;
    WorkbenchState* m_state;
    QDockWidget* m_schemesDock;
    QDockWidget* m_parametersDock;
    QWidget* m_pickerA; ///< the docks' widgets for A (the scheme picker, the panel's scroll area)
    QWidget* m_panelScrollA;
    QMenu* m_compareMenu = nullptr;
    QActionGroup* m_compareModes = nullptr;
    QActionGroup* m_editGroup = nullptr;
    SchemePicker* m_pickerB = nullptr;
    ParameterPanel* m_panelB = nullptr;
    QWidget* m_panelScrollB = nullptr;
    bool m_editsB = false;
    QString m_frontView; ///< see setFrontView()
};

} // namespace poslab::ui
