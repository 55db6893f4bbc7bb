// SPDX-License-Identifier: MIT
#pragma once
/// @file mainwindow.h
/// The workbench window: scheme picker (left), parameter panel (right), the live views in a grid (centre),
/// a transport bar for the position cursor and animation. It owns the one WorkbenchState and the
/// Computation; views observe them and never call each other. Its parts by role are controllers it creates
/// and wires (ui/window/): the view grid (viewgrid.h), the transport bar (transportbar.h), the status bar
/// (statusline.h), sessions (sessioncontroller.h), compare mode (comparecontroller.h) and the classroom
/// (classroomcontroller.h); they reach each other only through the state or this window's public calls.

#include "ui/gpu/tableengine.h"
#include "ui/window/viewgrid.h"

#include <QJsonObject>
#include <QMainWindow>

#include <array>
#include <vector>

class QAction;
class QActionGroup;
class QDockWidget;
class QMenu;

namespace poslab::ui {

class ClassroomController;
class CompareController;
class Computation;
class FirstRunHint;
class LessonBrowser;
class ParameterPanel;
class Presentation;
class PresenterView;
class SchemePicker;
class SessionController;
class StatusLine;
class TransportBar;
class View;
class WorkbenchState;

/// The window options of the command line (poslab --help lists them), applied over what the window restored.
struct StartOptions {
    QString theme;          ///< "light" or "dark"; empty: as remembered
    double fontScale = 0.0; ///< 0: as remembered
    QString maximise;       ///< a view's export name (a view of its own tab opens its tab); empty: as remembered
    bool hidePanels = false;
    QString scheme;    ///< empty: as it is
    int dim = 0;       ///< 0: as it is
    int positions = 0; ///< 0: as it is
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// @p restoreLayout: read the remembered layout and theme from QSettings (off in tests and benchmarks).
    explicit MainWindow(QWidget* parent = nullptr, bool restoreLayout = true);
    ~MainWindow() override;

    WorkbenchState* state() const { return m_state; }
    Computation* computation() const { return m_computation; }
    ParameterPanel* parameterPanel() const { return m_panel; }
    SchemePicker* schemePicker() const { return m_picker; }
    const std::vector<View*>& views() const { return m_grid->views(); }
    /// The view with this export name (a view of its own tab is created on first use), or nullptr.
    View* view(const QString& name);

    /// Shows only @p view in the grid (nullptr: all of them again); a view of its own tab opens that tab.
    void setMaximisedView(View* view);
    /// The view shown alone: a grid view maximised, or the view of the open tab; nullptr for the whole grid.
    View* maximisedView() const { return m_grid->maximisedView(); }

    // --- the grid adapts to the room
    /// How many of the grid's views are shown at a time. The rule: all of them (3 above, 2 below), else the
    /// view in front and the next beside it, else the view in front alone, whichever is the first in which every
    /// view shown has room (View::wholeHasRoomAt) at the current size and font scale; the others wait as buttons
    /// of a strip above the grid. When even the view in front alone has no room, the side panels fold away (F9
    /// then opens them as a drawer over the views).
    using GridFit = ViewGrid::GridFit;
    GridFit gridFit() const { return m_grid->gridFit(); }
    /// The view in front: the one shown first when not all fit (Ctrl+1..5 or a strip button brings a view
    /// forward, F6 the next one).
    View* frontView() const { return m_grid->frontView(); }
    /// Brings @p view forward (a grid view; a maximised grid view is replaced by it).
    void bringForward(View* view);
    /// The grid's views in the order F6 and the strip go through: a lesson step's views, else all five.
    std::vector<View*> gridViews() const;
    /// True while the side panels are folded away for the views' room (they come back when there is room).
    bool sidePanelsFolded() const { return m_grid->sidePanelsFolded(); }
    /// Applies the rule now (it runs by itself when the grid's size, the font scale or compare mode change).
    void arrangeGrid();

    /// Applies @p options (the real window and --screenshot alike). The look (theme, font scale) is the window's,
    /// not an edit to undo. Returns an empty string or one line naming the option and the problem.
    QString applyStartOptions(const StartOptions& options);

    /// Which path computes sin/cos tables (Settings > Compute tables on). @p remember stores it in
    /// QSettings for the next start (the menu does; the --compute-path option does not).
    void setComputePath(gpu::ComputePath path, bool remember = false);
    gpu::ComputePath computePath() const;
    /// The status bar's table line: "Table: CPU, 3.1 ms", "Table: GPU, 0.4 ms (measured: ...)".
    QString tablePathText() const;

    /// Hides both side panels (scheme picker and parameters) for a lecture, or brings them back (View >
    /// Side panels, F9).
    void setSidePanelsVisible(bool on);
    bool sidePanelsVisible() const;
    /// The View menu's side-panel action (F9).
    QAction* sidePanelsAction() const { return m_grid->sidePanelsAction(); }

    /// The font scales A+ and A- step through (the view option fontScale).
    static constexpr std::array<double, 10> fontScales{0.8, 0.9, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0, 2.25, 2.5};
    /// The next scale up (@p direction > 0) or down from @p scale, staying at the ends of fontScales.
    static double stepFontScale(double scale, int direction);

    // --- sessions (File menu) and shared states (Edit menu)
    /// The File menu (New, Open, Open recent, Save, Save as; the app adds Export and Copy figure).
    QMenu* fileMenu() const;
    /// Opens a session file (or any state file). Returns an empty string or the message (also shown in the
    /// status bar); on failure nothing changes. One undo step returns to the state before.
    QString openSession(const QString& path);
    /// Saves the session to @p path atomically; unknown keys of the file it was opened from are kept.
    QString saveSession(const QString& path);
    /// Loads a share string, poslab: link or inline JSON (Edit > Paste state, --state). Undoable.
    QString loadStateText(const QString& text);
    /// Loads a real model's preset (Presets menu, --preset); unverified values are named in the status bar.
    QString loadPreset(const QString& id);
    /// Loads a Hugging Face config.json (File > Open model config); keys it could not show are named.
    QString openModelConfig(const QString& path);
    /// Shows a learned position table from a .npy file or a .safetensors tensor (File > Open position table).
    QString openPositionTable(const QString& path);
    /// A new workbench state (File > New): the default scheme and options; the layout stays. Undoable.
    void newSession();
    /// The session file in use, empty when untitled.
    QString sessionPath() const;
    /// Edit > Copy state link: the state with the window's layout where it is not the default (the open tab or
    /// the view shown alone, hidden side panels), so that the link reopens what was on screen.
    QString stateLink() const;
    /// The window's part of a session: {"maximised": VIEW or "", "side_panels": bool}.
    QJsonObject layoutJson() const;
    /// Applies a session's layout (unknown or absent keys leave the layout as it is).
    void applyLayout(const QJsonObject& layout);
    /// Recently opened or saved sessions, newest first (QSettings; files that no longer exist are dropped).
    QStringList recentSessions() const;

    // --- compare mode (Compare menu): configuration B beside A
    /// The Compare menu (Compare with…, the modes, which configuration the panels edit).
    QMenu* compareMenu() const;
    /// Which configuration the scheme picker and the parameter panel edit: A (false) or B (true). B needs compare
    /// mode on; turning compare off returns the panels to A.
    void setEditsB(bool editB);
    bool editsB() const;
    /// The parameter panel that edits B (created on first use), or nullptr before.
    ParameterPanel* parameterPanelB() const;

    /// The key that hides and shows the side panels (also in README's "Keys" line).
    static constexpr Qt::Key sidePanelsKey = Qt::Key_F9;

    // --- classroom: presentation mode, the Help menu, the first-run hint (ui/teaching/presentation.h,
    // ui/window/helpmenu.h)
    /// Enters presentation mode (F5): a full-screen window with only the current step's views (without an open
    /// lesson: the view shown alone, else the grid), keyboard only; @p on false (Esc, F5) leaves it.
    void setPresenting(bool on);
    bool isPresenting() const;
    Presentation* presentation() const;
    static constexpr Qt::Key presentationKey = Qt::Key_F5;
    /// The presenter view (ui/teaching/presenterview.h) while presenting: the current step with its text and notes, the
    /// next step, a timer. Opened with the presentation when a second screen is connected (there), with P, or
    /// by `--presenter` (setPresenterWanted before presenting); closed when the presentation ends.
    void setPresenterShown(bool on);
    PresenterView* presenterView() const;
    /// Opens the presenter view whenever the presentation starts, even on one screen (poslab --presenter).
    void setPresenterWanted(bool on);
    /// Shows the first-run hint above the views unless a user dismissed it before (QSettings); the app calls it
    /// on an interactive start only (never for --screenshot, --first-frame, --soak or tests). True when shown.
    bool offerFirstRunHint();
    FirstRunHint* firstRunHint() const;
    /// Opens the lesson browser beside the views (Help > Lessons).
    void showLessons();
    LessonBrowser* lessonBrowser() const;
    /// Opens the lesson browser at step @p id ("2.1") and loads its state (a step that asks for a prediction:
    /// with the answers hidden). Returns an empty string, or why not (an unknown step, a state that does not load).
    QString openLessonStep(const QString& id);

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void buildDocks();
    void buildMenus();
    /// The controllers' requests to each other, wired through the window.
    void wireControllers();
    void applyTheme();
    void fitToScreen();
    void giveSchemesTheirHeight(int pass = 0);
    void saveLayout() const;
    void restoreLayout();
    void showMessage(const QString& text, bool problem);

    WorkbenchState* m_state;
    Computation* m_computation;
    ParameterPanel* m_panel = nullptr;
    SchemePicker* m_picker = nullptr;
    QDockWidget* m_schemesDock = nullptr;
    QDockWidget* m_parametersDock = nullptr;
    ViewGrid* m_grid = nullptr;
    TransportBar* m_transport = nullptr;
    SessionController* m_session = nullptr;
    CompareController* m_compare = nullptr;
    ClassroomController* m_classroom = nullptr;
    StatusLine* m_status = nullptr;
    QActionGroup* m_pathGroup = nullptr;
    double m_baseFontPt = 11.0;
    double m_appliedFontScale = 1.0;
    /// The size the user gave the window (the size before the first font-scale change, then any size the
    /// user sets): a larger font scale may grow the window past it, a smaller one brings it back.
    QSize m_userSize;
    QSize m_fitTarget; ///< the size fitToScreen() last asked for
    bool m_docksArranged = false;
    bool m_viewsSplit = false; ///< the rows of views have their first (or the user's saved) heights
};

} // namespace poslab::ui
