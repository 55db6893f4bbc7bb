// SPDX-License-Identifier: MIT
#pragma once
/// @file mainwindow.h
/// The workbench window: scheme picker (left), parameter panel (right), the live views in a grid (centre),
/// a transport bar for the position cursor and animation. It owns the one WorkbenchState and the
/// Computation; views observe them and never call each other.

#include "ui/gpu/tableengine.h"

#include <QJsonObject>
#include <QMainWindow>
#include <QElapsedTimer>
#include <QPointer>

#include <array>
#include <optional>
#include <vector>

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QMenu;
class QStackedWidget;
class QTabBar;
class QToolButton;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QSplitter;
class QTimer;
class QElapsedTimer;

namespace poslab::ui {

class Computation;
class FirstRunHint;
class LessonBrowser;
class ParameterPanel;
class Presentation;
class PresenterView;
struct PresentationPage;
class SchemePicker;
class View;
class ViewFrame;
class WorkbenchState;

/// The window options of the command line (poslab --help lists them), applied over what the window restored.
struct StartOptions {
    QString theme;          ///< "light" or "dark"; empty: as remembered
    double fontScale = 0.0; ///< 0: as remembered
    QString maximise;       ///< a view's export name (a view of its own tab opens its tab); empty: as remembered
    bool hidePanels = false;
    QString scheme;         ///< empty: as it is
    int dim = 0;            ///< 0: as it is
    int positions = 0;      ///< 0: as it is
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
    const std::vector<View*>& views() const { return m_views; }
    /// The view with this export name (a view of its own tab is created on first use), or nullptr.
    View* view(const QString& name);

    /// Shows only @p view in the grid (nullptr: all of them again); a view of its own tab opens that tab.
    void setMaximisedView(View* view);
    /// The view shown alone: a grid view maximised, or the view of the open tab; nullptr for the whole grid.
    View* maximisedView() const { return m_ownPage ? m_ownPage : m_maximised; }

    // --- the grid adapts to the room
    /// How many of the grid's views are shown at a time. The rule: all of them (3 above, 2 below), else the
    /// view in front and the next beside it, else the view in front alone, whichever is the first in which every
    /// view shown has room (View::wholeHasRoomAt) at the current size and font scale; the others wait as buttons
    /// of a strip above the grid. When even the view in front alone has no room, the side panels fold away (F9
    /// then opens them as a drawer over the views).
    enum class GridFit { All, Pair, One };
    GridFit gridFit() const { return m_fit; }
    /// The view in front: the one shown first when not all fit (Ctrl+1..5 or a strip button brings a view
    /// forward, F6 the next one).
    View* frontView() const { return m_front; }
    /// Brings @p view forward (a grid view; a maximised grid view is replaced by it).
    void bringForward(View* view);
    /// The grid's views in the order F6 and the strip go through: a lesson step's views, else all five.
    std::vector<View*> gridViews() const;
    /// True while the side panels are folded away for the views' room (they come back when there is room).
    bool sidePanelsFolded() const { return m_panelsFolded; }
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
    QAction* sidePanelsAction() const { return m_sidePanels; }

    /// The font scales A+ and A- step through (the view option fontScale).
    static constexpr std::array<double, 10> fontScales{0.8, 0.9, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0, 2.25, 2.5};
    /// The next scale up (@p direction > 0) or down from @p scale, staying at the ends of fontScales.
    static double stepFontScale(double scale, int direction);

    // --- sessions (File menu) and shared states (Edit menu)
    /// The File menu (New, Open, Open recent, Save, Save as; the app adds Export and Copy figure).
    QMenu* fileMenu() const { return m_fileMenu; }
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
    QString sessionPath() const { return m_sessionPath; }
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
    QMenu* compareMenu() const { return m_compareMenu; }
    /// Which configuration the scheme picker and the parameter panel edit: A (false) or B (true). B needs compare
    /// mode on; turning compare off returns the panels to A.
    void setEditsB(bool editB);
    bool editsB() const { return m_editsB; }
    /// The parameter panel that edits B (created on first use), or nullptr before.
    ParameterPanel* parameterPanelB() const { return m_panelB; }

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
    void setPresenterWanted(bool on) { m_presenterWanted = on; }
    /// Shows the first-run hint above the views unless a user dismissed it before (QSettings); the app calls it
    /// on an interactive start only (never for --screenshot, --first-frame, --soak or tests). True when shown.
    bool offerFirstRunHint();
    FirstRunHint* firstRunHint() const;
    /// Opens the lesson browser beside the views (Help > Lessons).
    void showLessons();
    LessonBrowser* lessonBrowser() const { return m_lessons; }
    /// Opens the lesson browser at step @p id ("2.1") and loads it (unless it asks for a prediction first).
    /// Returns an empty string, or why not (an unknown step, a state that does not load).
    QString openLessonStep(const QString& id);

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void buildViews();
    /// arrangeGrid() once the events queued now are handled (resizes come in bursts).
    void scheduleArrange();
    /// True when every view of @p rows has room in @p area (the grid page) with @p strip above them.
    bool gridFitsAt(const std::vector<std::vector<View*>>& rows, QSize area, bool strip) const;
    /// The rows a fit shows, from gridViews() and the view in front.
    std::vector<std::vector<View*>> rowsOf(GridFit fit) const;
    void placeRows(const std::vector<std::vector<View*>>& rows);
    void foldSidePanels(bool fold);
    ViewFrame* frameOf(const View* view) const;
    void buildTransport();
    void buildActions();
    void buildMenus();
    void applyTheme();
    void fitToScreen();
    void giveSchemesTheirHeight(int pass = 0);
    void saveLayout() const;
    void restoreLayout();
    void tick();
    void buildFileMenu();
    void showPage(View* view);
    QString loadModelState(const QJsonObject& state, const QString& what);
    void rememberRecent(const QString& path);
    void updateTitle();
    /// True when there is nothing unsaved to lose, or the user chose to save or discard it.
    bool settleUnsaved();
    void showMessage(const QString& text, bool problem);
    void buildCompareMenu();
    void syncCompareControls();
    void buildHelpMenu();
    void buildLessons();
    PresentationPage presentationPage() const;
    void presentationStep(int delta);
    /// Home / End in the presentation: the lesson's first or last step (without a lesson: the first or last
    /// position).
    void presentationJump(bool last);
    /// Loads the current step's merged state and shows its views: by "Try it", or, while its prediction waits,
    /// the same state with the answer still hidden. Empty, or the problem.
    QString loadStepFigure();
    /// Shows a lesson step's views: the grid views it names (the others hidden), or the tab of its main view.
    void showStepViews(const QStringList& views);
    /// The step lock: the panel's rows, the scheme picker and the cursor, editable only where @p unlocked names
    /// them (nullopt: free play).
    void applyStepLock(const std::optional<QStringList>& unlocked);
    /// Puts the keyboard focus on the knob @p name (a {p:NAME} field of a lesson was clicked).
    void focusKnob(const QString& name);

    WorkbenchState* m_state;
    Computation* m_computation;
    ParameterPanel* m_panel = nullptr;
    SchemePicker* m_picker = nullptr;
    std::vector<View*> m_views;
    std::vector<ViewFrame*> m_frames;
    QSplitter* m_vertical = nullptr;
    QSplitter* m_top = nullptr;
    QSplitter* m_bottom = nullptr;
    View* m_maximised = nullptr;
    QSlider* m_cursorSlider = nullptr;
    QSpinBox* m_cursorSpin = nullptr;
    QTimer* m_animation = nullptr;
    QElapsedTimer* m_clock = nullptr;
    QLabel* m_message = nullptr;
    QLabel* m_tablePath = nullptr;
    QActionGroup* m_pathGroup = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QTimer* m_messageTimer = nullptr;
    double m_baseFontPt = 11.0;
    double m_appliedFontScale = 1.0;
    /// The size the user gave the window (the size before the first font-scale change, then any size the
    /// user sets): a larger font scale may grow the window past it, a smaller one brings it back.
    QSize m_userSize;
    QSize m_fitTarget; ///< the size fitToScreen() last asked for
    QDockWidget* m_schemesDock = nullptr;
    QDockWidget* m_parametersDock = nullptr;
    QAction* m_sidePanels = nullptr;
    bool m_docksArranged = false;
    bool m_viewsSplit = false; ///< the rows of views have their first (or the user's saved) heights
    QAction* m_theme = nullptr;
    QAction* m_smaller = nullptr;
    QAction* m_larger = nullptr;
    QAction* m_fullScreen = nullptr;
    QMenu* m_fileMenu = nullptr;
    QTabBar* m_viewTabs = nullptr;
    QStackedWidget* m_pages = nullptr;
    View* m_ownPage = nullptr; ///< the view of the open tab (not the grid's)
    QString m_sessionPath;
    QJsonObject m_sessionKept; ///< the session file as opened: its unknown keys are written back
    QMenu* m_compareMenu = nullptr;
    QActionGroup* m_compareModes = nullptr;
    QActionGroup* m_editGroup = nullptr;
    QWidget* m_pickerA = nullptr;     ///< the docks' widgets for A (the scheme picker, the panel's scroll area)
    QWidget* m_panelScrollA = nullptr;
    SchemePicker* m_pickerB = nullptr;
    ParameterPanel* m_panelB = nullptr;
    QWidget* m_panelScrollB = nullptr;
    bool m_editsB = false;
    QPointer<Presentation> m_presentation;
    QPointer<PresenterView> m_presenter;
    bool m_presenterWanted = false;
    QElapsedTimer m_talkClock; ///< started when the presentation starts: the presenter view's timer
    double m_windowScale = 1.0; ///< the window's font scale before presenting (the presenter view's text)
    /// Gives the presentation and the presenter view the current page.
    void showSlide();
    QPointer<FirstRunHint> m_hint;
    QAction* m_present = nullptr;
    bool m_quietSlide = false; ///< a presentation step is loading: the slide is laid out once it has
    QDockWidget* m_lessonsDock = nullptr;
    LessonBrowser* m_lessons = nullptr;
    // the grid's fit to the room (arrangeGrid())
    QWidget* m_gridPage = nullptr;  ///< the strip above the splitters of the grid
    QWidget* m_strip = nullptr;     ///< a button per view of gridViews() while not all are shown
    QToolButton* m_stripPanels = nullptr; ///< the folded side panels' drawer (F9)
    std::vector<QToolButton*> m_stripButtons; ///< in the order of m_frames' grid views
    QStringList m_stepViews;        ///< the grid views a lesson step shows (empty: all five)
    View* m_front = nullptr;
    GridFit m_fit = GridFit::All;
    std::vector<std::vector<View*>> m_rows; ///< what placeRows() last placed
    bool m_panelsFolded = false;
    bool m_splitRestored = false;   ///< the splitters' sizes came from the last run (QSettings)
    int m_foldedWidth = 0;          ///< the width the folded side panels gave the grid
    QSize m_foldedAt;               ///< the grid's size when they were folded
    QSize m_foldRefused;            ///< a grid size at which folding them gave no room (not folded there again)
    double m_foldRefusedScale = 0.0; ///< at this font scale
    bool m_arrangeQueued = false;
    bool m_arranging = false;
};

} // namespace poslab::ui
