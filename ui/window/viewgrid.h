// SPDX-License-Identifier: MIT
#pragma once
/// @file viewgrid.h
/// The window's centre: the live views in a grid of two rows (3 above, 2 below), the tabs of the views of
/// their own page, and the grid's fit to the room, which folds the side panels away when even one view lacks
/// room. MainWindow creates it and answers for it (MainWindow::arrangeGrid() describes the rule).

#include <QObject>
#include <QSize>
#include <QStringList>

#include <optional>
#include <vector>

class QAction;
class QDockWidget;
class QMenu;
class QSettings;
class QSplitter;
class QStackedWidget;
class QTabBar;
class QToolButton;
class QWidget;

namespace poslab::ui {

class Computation;
class MainWindow;
class View;
class ViewFrame;
class WorkbenchState;

class ViewGrid : public QObject {
    Q_OBJECT
public:
    /// How many of the grid's views are shown at a time (see MainWindow::arrangeGrid()).
    enum class GridFit { All, Pair, One };

    /// Creates the grid's views and sets the window's central widget; @p schemes and @p parameters are the
    /// side panels it folds away for room.
    ViewGrid(MainWindow* window, WorkbenchState* state, Computation* computation, QDockWidget* schemes,
             QDockWidget* parameters);

    const std::vector<View*>& views() const { return m_views; }
    /// The view with this export name (a view of its own tab is created on first use), or nullptr.
    View* view(const QString& name);
    void setMaximisedView(View* view);
    View* maximisedView() const { return m_ownPage ? m_ownPage : m_maximised; }
    GridFit gridFit() const { return m_fit; }
    View* frontView() const { return m_front; }
    void bringForward(View* view);
    std::vector<View*> gridViews() const;
    bool sidePanelsFolded() const { return m_panelsFolded; }
    void arrangeGrid();
    /// arrangeGrid() once the events queued now are handled (resizes come in bursts).
    void scheduleArrange();
    /// Shows a lesson step's views: the grid views it names (the others hidden), or the tab of its main view.
    void showStepViews(const QStringList& views);

    /// The View menu's side-panel action (F9), added to @p menu.
    QAction* addSidePanelsAction(QMenu* menu);
    QAction* sidePanelsAction() const { return m_sidePanels; }
    void setSidePanelsVisible(bool on);
    bool sidePanelsVisible() const;
    /// Folds the side panels away for the views' room, or brings them back.
    void foldSidePanels(bool fold);
    /// The lesson panel, which may lend the view in front the width it lacks.
    void setLessonsDock(QDockWidget* dock) { m_lessonsDock = dock; }
    /// The window's keys that bring a grid view forward (Ctrl+1..9, F6).
    void addShortcuts();

    /// The splitters' sizes in QSettings (layout/vertical, layout/top, layout/bottom).
    void saveSplit(QSettings& s) const;
    void restoreSplit(const QSettings& s);
    /// Both rows of views the same height.
    void splitRowsEvenly();

signals:
    /// The page in front changed: @p name is the export name of the view of its own tab shown, empty for the grid.
    void frontViewChanged(const QString& name);

private:
    void buildViews();
    void buildPages();
    /// The row above the pages: the view tabs (fitTabs()) and the "more" button.
    void buildTabs(QWidget* central);
    void showPage(View* view);
    /// Fits the view tabs to their row by the rule in the definition: full titles, else short ones, else some
    /// listed under "More".
    void fitTabs();
    /// True when every view of @p rows has room in @p area (the grid page) with @p strip above them.
    bool gridFitsAt(const std::vector<std::vector<View*>>& rows, QSize area, bool strip) const;
    /// The first fit of the rule at which every view shown has room in @p room, if any.
    std::optional<GridFit> firstFit(QSize room) const;
    /// The width the view in front alone lacks in @p area (0: none; -1: more width would not do).
    int widthLacking(QSize area) const;
    /// The rows a fit shows, from gridViews() and the view in front.
    std::vector<std::vector<View*>> rowsOf(GridFit fit) const;
    void placeRows(const std::vector<std::vector<View*>>& rows);
    /// The strip's buttons on one line: the views' titles, or their short names where titles take two.
    void labelStrip(QSize area);
    /// Folds the side panels away, brings them back, or narrows the lesson panel, where that gives the view in
    /// front the room it lacks (@p found: a fit has room as it is).
    void makeRoom(QSize area, bool found);
    /// The strip's buttons of the views on screen checked and in bold.
    void markStrip();
    ViewFrame* frameOf(const View* view) const;

    MainWindow* m_window;
    WorkbenchState* m_state;
    Computation* m_computation;
    QDockWidget* m_schemesDock;
    QDockWidget* m_parametersDock;
    QDockWidget* m_lessonsDock = nullptr;
    QAction* m_sidePanels = nullptr;
    std::vector<View*> m_views;
    std::vector<ViewFrame*> m_frames;
    QSplitter* m_vertical = nullptr;
    QSplitter* m_top = nullptr;
    QSplitter* m_bottom = nullptr;
    View* m_maximised = nullptr;
    QTabBar* m_viewTabs = nullptr;
    QWidget* m_tabRow = nullptr;       ///< the view tabs and the "more" button
    QToolButton* m_moreTabs = nullptr; ///< opens m_moreMenu
    QMenu* m_moreMenu = nullptr;       ///< the tabs fitTabs() dropped
    bool m_fittingTabs = false;
    QStackedWidget* m_pages = nullptr;
    View* m_ownPage = nullptr;                ///< the view of the open tab (not the grid's)
    QWidget* m_gridPage = nullptr;            ///< the strip above the splitters of the grid
    QWidget* m_strip = nullptr;               ///< a button per view of gridViews() while not all are shown
    QToolButton* m_stripPanels = nullptr;     ///< the folded side panels' drawer (F9)
    std::vector<QToolButton*> m_stripButtons; ///< in the order of m_frames' grid views
    QStringList m_stepViews;                  ///< the grid views a lesson step shows (empty: all five)
    View* m_front = nullptr;
    GridFit m_fit = GridFit::All;
    std::vector<std::vector<View*>> m_rows; ///< what placeRows() last placed
    bool m_panelsFolded = false;
    bool m_splitRestored = false;    ///< the splitters' sizes came from the last run (QSettings)
    int m_foldedWidth = 0;           ///< the width the folded side panels gave the grid
    QSize m_foldedAt;                ///< the grid's size when they were folded
    QSize m_foldRefused;             ///< a grid size at which folding them gave no room (not folded there again)
    double m_foldRefusedScale = 0.0; ///< at this font scale
    bool m_arrangeQueued = false;
    bool m_arranging = false;
};

} // namespace poslab::ui
