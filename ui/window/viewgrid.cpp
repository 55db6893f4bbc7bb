// SPDX-License-Identifier: MIT
#include "ui/window/viewgrid.h"

#include "ui/views/flowlayout.h"
#include "ui/window/mainwindow.h"
#include "ui/window/panelscroll.h"
#include "ui/window/viewframe.h"
#include "ui/views/view.h"
#include "ui/views/viewlist.h"
#include "ui/state/workbenchstate.h"

#include <QAction>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QLayout>
#include <QMenu>
#include <QScopedValueRollback>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTabBar>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>

namespace poslab::ui {
namespace {

/// Calls a function when the widget it watches is resized (the grid's page: its fit to the room follows); it
/// belongs to @p owner, whose function it calls, and stops watching when its owner goes.
class ResizeWatcher : public QObject {
public:
    ResizeWatcher(QWidget* watched, QObject* owner, std::function<void()> onResize)
        : QObject(owner)
        , m_onResize(std::move(onResize))
    {
        watched->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (e->type() == QEvent::Resize)
            m_onResize();
        return QObject::eventFilter(o, e);
    }

private:
    std::function<void()> m_onResize;
};

/// The number of views in the workbench grid (the first ones of the registry's order in m_views).
int gridViewCount()
{
    return int(
        std::count_if(viewRegistry().begin(), viewRegistry().end(), [](const ViewEntry& e) { return e.inGrid; }));
}

} // namespace

ViewGrid::ViewGrid(MainWindow* window, WorkbenchState* state, Computation* computation, QDockWidget* schemes,
                   QDockWidget* parameters)
    : QObject(window)
    , m_window(window)
    , m_state(state)
    , m_computation(computation)
    , m_schemesDock(schemes)
    , m_parametersDock(parameters)
{
    buildViews();
    buildPages();
}

void ViewGrid::buildViews()
{
    // The grid's five views now; each other view of the registry gets a tab above the grid and is created when
    // its tab is first opened (a hidden view would still compute on every change).
    for (const ViewEntry& e : viewRegistry())
        if (e.inGrid)
            m_views.push_back(e.create(m_state, m_computation));
    m_vertical = new QSplitter(Qt::Vertical, m_window);
    m_vertical->setObjectName(QStringLiteral("viewsVertical"));
    m_top = new QSplitter(Qt::Horizontal, m_vertical);
    m_top->setObjectName(QStringLiteral("viewsTop"));
    m_bottom = new QSplitter(Qt::Horizontal, m_vertical);
    m_bottom->setObjectName(QStringLiteral("viewsBottom"));
    for (std::size_t i = 0; i < m_views.size(); ++i) {
        auto* frame = new ViewFrame(m_views[i]);
        (i < 3 ? m_top : m_bottom)->addWidget(frame);
        m_frames.push_back(frame);
        connect(frame, &ViewFrame::maximiseRequested, this,
                [this](View* v, bool on) { setMaximisedView(on ? v : nullptr); });
    }
    m_vertical->setStretchFactor(0, 1);
    m_vertical->setStretchFactor(1, 1);
}

void ViewGrid::buildTabs(QWidget* central)
{
    m_tabRow = new QWidget(central);
    auto* tabRow = new QHBoxLayout(m_tabRow);
    tabRow->setContentsMargins(0, 0, 0, 0);
    tabRow->setSpacing(0);
    m_viewTabs = new QTabBar(m_tabRow);
    m_viewTabs->setObjectName(QStringLiteral("viewTabs"));
    m_viewTabs->setDocumentMode(true);
    m_viewTabs->setExpanding(false);
    m_viewTabs->setUsesScrollButtons(false); // fitTabs() shortens or lists the tabs instead of cutting one
    m_viewTabs->setElideMode(Qt::ElideNone);
    m_viewTabs->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_viewTabs->addTab(tr("Workbench"));
    m_viewTabs->setTabData(0, QString());
    m_viewTabs->setTabToolTip(0, tr("The five live views together"));
    for (const ViewEntry& e : viewRegistry())
        if (!e.inGrid) {
            const int i = m_viewTabs->addTab(View::tr(e.title));
            m_viewTabs->setTabData(i, QString::fromLatin1(e.id));
            m_viewTabs->setTabToolTip(i, View::tr(e.title));
        }
    m_moreTabs = new QToolButton(m_tabRow);
    m_moreTabs->setObjectName(QStringLiteral("moreTabs"));
    m_moreTabs->setAutoRaise(true);
    // The menu is not the button's own: a button with a menu draws a small indicator arrow beside the text's ▾, and
    // the style sheet that hides it kept the button's text black in the dark theme.
    m_moreMenu = new QMenu(m_moreTabs);
    m_moreMenu->setObjectName(QStringLiteral("moreTabsMenu"));
    connect(m_moreTabs, &QToolButton::clicked, this,
            [this] { m_moreMenu->popup(m_moreTabs->mapToGlobal(QPoint(0, m_moreTabs->height()))); });
    m_moreTabs->hide();
    tabRow->addWidget(m_viewTabs, 1); // up to its maximum width (fitTabs), then the rest of the row stays empty
    tabRow->addWidget(m_moreTabs);
    tabRow->addStretch(0);
    m_tabRow->setVisible(m_viewTabs->count() > 1);
    new ResizeWatcher(m_tabRow, this, [this] { fitTabs(); });
    fitTabs(); // no room yet: the workbench's tab alone until the row has its width
}

void ViewGrid::buildPages()
{
    auto* central = new QWidget(m_window);
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    buildTabs(central);
    m_pages = new QStackedWidget(central);
    // The grid's page: the strip of the views waiting their turn (shown while not all fit, see arrangeGrid())
    // above the rows of views.
    m_gridPage = new QWidget(m_pages);
    m_gridPage->setObjectName(QStringLiteral("gridPage"));
    auto* gridColumn = new QVBoxLayout(m_gridPage);
    gridColumn->setContentsMargins(0, 0, 0, 0);
    gridColumn->setSpacing(0);
    m_strip = new QWidget(m_gridPage);
    m_strip->setObjectName(QStringLiteral("viewStrip"));
    auto* flow = new FlowLayout(m_strip, 4);
    flow->setContentsMargins(6, 3, 6, 3);
    for (int i = 0; i < int(m_views.size()); ++i) {
        View* v = m_views[std::size_t(i)];
        auto* b = new QToolButton(m_strip);
        b->setObjectName(QStringLiteral("strip_") + v->exportName());
        b->setText(v->title());
        b->setCheckable(true);
        b->setAutoRaise(true);
        b->setToolTip(tr("Bring %1 forward (Ctrl+%2; F6 brings the next view)").arg(v->title()).arg(i + 1));
        connect(b, &QToolButton::clicked, this, [this, v] { bringForward(v); });
        flow->addWidget(b);
        m_stripButtons.push_back(b);
    }
    // While the side panels are folded away for room: the drawer's button (F9).
    m_stripPanels = new QToolButton(m_strip);
    m_stripPanels->setObjectName(QStringLiteral("stripPanels"));
    m_stripPanels->setText(tr("\u2630 Panels"));
    m_stripPanels->setAutoRaise(true);
    m_stripPanels->setToolTip(tr("The side panels, folded away to give the views room: open them over the views, "
                                 "and close them again (F9)"));
    m_stripPanels->hide();
    connect(m_stripPanels, &QToolButton::clicked, this, [this] { m_sidePanels->trigger(); });
    flow->addWidget(m_stripPanels);
    m_strip->hide();
    gridColumn->addWidget(m_strip);
    gridColumn->addWidget(m_vertical, 1);
    m_pages->addWidget(m_gridPage);
    new ResizeWatcher(m_pages, this, [this] { scheduleArrange(); });
    column->addWidget(m_tabRow);
    column->addWidget(m_pages, 1);
    connect(m_viewTabs, &QTabBar::currentChanged, this, [this](int i) {
        const QString id = m_viewTabs->tabData(i).toString();
        showPage(id.isEmpty() ? nullptr : view(id));
        fitTabs(); // the open tab is always one of the tabs shown
    });
    m_window->setCentralWidget(central);
}

void ViewGrid::fitTabs()
{
    // The rule for a row too narrow for every tab (font scale 2 on a projector): the full titles while all fit;
    // else every tab under its short name (ViewEntry::tabTitle); else the short names with tabs dropped from the
    // right end, the open one and the workbench always kept, and the "more" button listing the dropped ones. A tab
    // is never cut.
    if (!m_viewTabs || m_fittingTabs)
        return;
    const QScopedValueRollback<bool> guard(m_fittingTabs, true);
    const int count = m_viewTabs->count();
    auto titleOf = [](const QString& id, bool shortName) {
        const ViewEntry* e = findView(id);
        return !e ? tr("Workbench") : View::tr(shortName && e->tabTitle ? e->tabTitle : e->title);
    };
    auto name = [&](bool shortName) {
        for (int i = 0; i < count; ++i)
            m_viewTabs->setTabText(i, titleOf(m_viewTabs->tabData(i).toString(), shortName));
    };
    for (int i = 0; i < count; ++i)
        m_viewTabs->setTabVisible(i, true);
    const int room = m_tabRow->width();
    name(false);
    if (m_viewTabs->sizeHint().width() > room)
        name(true);
    m_moreTabs->setFont(m_viewTabs->font()); // the tabs' size, which follows the font scale
    m_moreTabs->setText(tr("More \u25be"));
    const int buttonRoom = room - m_moreTabs->sizeHint().width();
    QMenu* menu = m_moreMenu;
    menu->clear();
    for (int i = count - 1; i > 0 && m_viewTabs->sizeHint().width() > buttonRoom; --i) {
        if (i == m_viewTabs->currentIndex())
            continue;
        m_viewTabs->setTabVisible(i, false);
        const QString id = m_viewTabs->tabData(i).toString();
        QAction* a = menu->addAction(titleOf(id, false));
        connect(a, &QAction::triggered, this, [this, id] { setMaximisedView(view(id)); });
    }
    const QList<QAction*> dropped = menu->actions();
    for (QAction* a : dropped) // right to left above: the menu lists them in the tabs' order
        menu->removeAction(a);
    for (auto it = dropped.rbegin(); it != dropped.rend(); ++it)
        menu->addAction(*it);
    m_moreTabs->setVisible(!dropped.isEmpty());
    // The bar takes at most the width of the tabs it shows and asks for none (its size policy): the tabs it hides
    // do not widen the window, and a narrower window fits them again.
    m_viewTabs->setMaximumWidth(m_viewTabs->sizeHint().width());
}

View* ViewGrid::view(const QString& name)
{
    for (View* v : m_views)
        if (v->exportName() == name)
            return v;
    // A view of its own tab, created on first use.
    const ViewEntry* e = findView(name);
    if (!e || e->inGrid)
        return nullptr;
    View* v = e->create(m_state, m_computation);
    m_views.push_back(v);
    auto* frame = new ViewFrame(v);
    frame->setMaximiseVisible(false);
    m_frames.push_back(frame);
    m_pages->addWidget(frame);
    return v;
}

void ViewGrid::showPage(View* v)
{
    const bool own = v && findView(v->exportName()) && !findView(v->exportName())->inGrid;
    QWidget* page = m_gridPage;
    if (own)
        for (ViewFrame* f : m_frames)
            if (f->view() == v)
                page = f;
    m_pages->setCurrentWidget(page);
    m_ownPage = own ? v : nullptr;
    emit frontViewChanged(own ? v->exportName() : QString());
    for (int i = 0; i < m_viewTabs->count(); ++i)
        if (m_viewTabs->tabData(i).toString() == (own ? v->exportName() : QString())) {
            QSignalBlocker b(m_viewTabs);
            m_viewTabs->setCurrentIndex(i);
        }
    fitTabs();
}

void ViewGrid::setMaximisedView(View* v)
{
    if (v && findView(v->exportName()) && !findView(v->exportName())->inGrid) {
        showPage(v); // a view of its own tab is always shown whole
        return;
    }
    showPage(nullptr);
    m_maximised = v;
    if (!v)
        m_stepViews.clear(); // back to the whole grid, as the rule fits it
    else
        m_front = v;
    for (ViewFrame* f : m_frames)
        f->setMaximised(f->view() == v);
    arrangeGrid();
}

ViewFrame* ViewGrid::frameOf(const View* v) const
{
    for (ViewFrame* f : m_frames)
        if (f->view() == v)
            return f;
    return nullptr;
}

std::vector<View*> ViewGrid::gridViews() const
{
    std::vector<View*> out;
    const int n = std::min(gridViewCount(), int(m_views.size()));
    for (int i = 0; i < n; ++i)
        if (m_stepViews.isEmpty() || m_stepViews.contains(m_views[std::size_t(i)]->exportName()))
            out.push_back(m_views[std::size_t(i)]);
    return out;
}

void ViewGrid::bringForward(View* v)
{
    const int n = std::min(gridViewCount(), int(m_views.size()));
    if (!v || std::find(m_views.begin(), m_views.begin() + n, v) == m_views.begin() + n)
        return;
    if (m_maximised) {
        setMaximisedView(v); // the view shown alone is the one brought forward
        return;
    }
    showPage(nullptr);
    const std::vector<View*> shown = gridViews();
    if (std::find(shown.begin(), shown.end(), v) == shown.end())
        m_stepViews.clear(); // a view the step does not show: the whole grid again, by the rule
    m_front = v;
    arrangeGrid();
}

std::vector<std::vector<View*>> ViewGrid::rowsOf(GridFit fit) const
{
    const std::vector<View*> views = gridViews();
    if (views.empty())
        return {};
    const auto at = std::find(views.begin(), views.end(), m_front);
    const std::size_t front = at == views.end() ? 0 : std::size_t(at - views.begin());
    if (fit == GridFit::One || views.size() == 1)
        return {{views[front]}};
    if (fit == GridFit::Pair)
        return {{views[front], views[(front + 1) % views.size()]}};
    // All: each view in its own row of the grid (the first three above, the others below).
    std::vector<View*> top, bottom;
    for (View* v : views)
        (std::find(m_views.begin(), m_views.begin() + 3, v) != m_views.begin() + 3 ? top : bottom).push_back(v);
    std::vector<std::vector<View*>> rows;
    for (auto* row : {&top, &bottom})
        if (!row->empty())
            rows.push_back(*row);
    return rows;
}

bool ViewGrid::gridFitsAt(const std::vector<std::vector<View*>>& rows, QSize area, bool strip) const
{
    if (rows.empty())
        return true;
    int h = area.height();
    if (strip)
        h -= m_strip->layout()->totalHeightForWidth(area.width());
    // The splitters share their room equally (placeRows() sets it so when the rows change).
    const int rowH = (h - m_vertical->handleWidth() * (int(rows.size()) - 1)) / int(rows.size());
    const double scale = m_state->viewOptions().fontScale;
    for (const auto& row : rows) {
        const int n = int(row.size());
        const int w = (area.width() - m_top->handleWidth() * (n - 1)) / n;
        for (View* v : row) {
            const ViewFrame* f = frameOf(v);
            if (!f || !v->wholeHasRoomAt(QSizeF(f->viewSizeAt(QSize(w, rowH))), scale))
                return false;
        }
    }
    return true;
}

void ViewGrid::placeRows(const std::vector<std::vector<View*>>& rows)
{
    const int n = std::min(gridViewCount(), int(m_frames.size()));
    const bool changed = rows != m_rows;
    const bool first = m_rows.empty();
    m_rows = rows;
    if (changed) {
        // Every frame back to its place in the grid, then a row of fewer views all in the upper splitter.
        for (int i = 0; i < n; ++i) {
            QSplitter* home = i < 3 ? m_top : m_bottom;
            const int index = i < 3 ? i : i - 3;
            if (home->indexOf(m_frames[std::size_t(i)]) != index)
                home->insertWidget(index, m_frames[std::size_t(i)]);
        }
        if (rows != rowsOf(GridFit::All) && !rows.empty())
            for (std::size_t k = 0; k < rows[0].size(); ++k)
                m_top->insertWidget(int(k), frameOf(rows[0][k]));
    }
    for (int i = 0; i < n; ++i) {
        ViewFrame* f = m_frames[std::size_t(i)];
        const bool shown = std::any_of(rows.begin(), rows.end(), [&](const std::vector<View*>& row) {
            return std::find(row.begin(), row.end(), f->view()) != row.end();
        });
        f->setVisible(shown);
    }
    for (QSplitter* row : {m_top, m_bottom}) {
        bool any = false;
        for (int i = 0; i < row->count(); ++i)
            any = any || !row->widget(i)->isHidden();
        row->setVisible(any);
    }
    if (changed && !(first && m_splitRestored)) {
        // A new arrangement shares the room equally (the rule measured it so); the user's own split, restored
        // from the last run, stays.
        for (QSplitter* row : {m_top, m_bottom})
            row->setSizes(QList<int>(row->count(), 1000));
        splitRowsEvenly();
    }
}

void ViewGrid::scheduleArrange()
{
    if (m_arrangeQueued)
        return;
    m_arrangeQueued = true;
    QTimer::singleShot(0, this, &ViewGrid::arrangeGrid);
}

void ViewGrid::foldSidePanels(bool fold)
{
    if (fold == m_panelsFolded)
        return;
    m_panelsFolded = fold;
    QSignalBlocker b(m_sidePanels);
    for (QDockWidget* d : {m_schemesDock, m_parametersDock}) {
        if (d->isFloating() && !fold) { // a drawer open while they were folded docks again
            d->setFloating(false);
            d->setFont(QFont());
        }
        d->setVisible(!fold);
    }
    m_sidePanels->setChecked(!fold);
    m_sidePanels->setToolTip(fold ? tr("The side panels are folded away to give the views room: F9 opens them over "
                                       "the views and closes them again")
                                  : tr("Hide the side panels for a lecture; the same key brings them back (F9)"));
}

void ViewGrid::arrangeGrid()
{
    m_arrangeQueued = false;
    if (m_arranging)
        return;
    QScopedValueRollback<bool> guard(m_arranging, true);
    fitTabs(); // the tabs' font follows the font scale as the grid does
    const std::vector<View*> views = gridViews();
    if (std::find(views.begin(), views.end(), m_front) == views.end())
        m_front = views.empty() ? nullptr : views.front();
    for (std::size_t i = 0; i < m_stripButtons.size(); ++i)
        m_stripButtons[i]->setVisible(views.size() > 1
                                      && std::find(views.begin(), views.end(), m_views[i]) != views.end());
    m_stripPanels->setVisible(m_panelsFolded);
    if (m_maximised) {
        m_strip->setVisible(m_panelsFolded);
        placeRows({{m_maximised}});
        return;
    }
    GridFit fit = GridFit::All;
    // Measured only where it is seen: a window being built has no size yet, and the presentation lends the
    // state its own font scale (the grid is fitted again when it ends).
    if (m_window->isVisible() && !m_window->isPresenting()) {
        const QSize area = m_pages->size();
        labelStrip(area);
        const std::optional<GridFit> found = firstFit(area);
        makeRoom(area, found.has_value());
        // Where not even one view has room (and the panels cannot give it), the whole grid as it was: every view
        // then says "Too small" with what to do (A−), rather than one view under a strip of the others.
        fit = found.value_or(GridFit::All);
    }
    m_fit = fit;
    placeRows(rowsOf(fit));
    m_strip->setVisible((fit != GridFit::All && views.size() > 1) || m_panelsFolded);
    m_stripPanels->setVisible(m_panelsFolded);
    markStrip();
}

void ViewGrid::labelStrip(QSize area)
{
    // The strip's buttons on one line: the views' titles, or their short names ("Table") where the titles
    // would take two.
    const auto label = [&](bool full) {
        for (std::size_t i = 0; i < m_stripButtons.size(); ++i) {
            const QString name = m_views[i]->exportName();
            const QString text = full ? m_views[i]->title() : name.left(1).toUpper() + name.mid(1);
            if (m_stripButtons[i]->text() != text)
                m_stripButtons[i]->setText(text);
        }
    };
    label(true);
    const QMargins sm = m_strip->layout()->contentsMargins();
    if (m_strip->layout()->totalHeightForWidth(area.width())
        > m_stripButtons.front()->sizeHint().height() + sm.top() + sm.bottom())
        label(false);
}

std::optional<ViewGrid::GridFit> ViewGrid::firstFit(QSize room) const
{
    const std::size_t views = gridViews().size();
    for (GridFit f : {GridFit::All, GridFit::Pair, GridFit::One}) {
        if (f == GridFit::Pair && views <= 2)
            continue; // all of them are the pair
        if (gridFitsAt(rowsOf(f), room, f != GridFit::All || m_panelsFolded))
            return f;
    }
    return std::nullopt;
}

int ViewGrid::widthLacking(QSize area) const
{
    // The width the view in front alone lacks here (0: none; -1: more width would not do, the height lacks).
    const auto one = rowsOf(GridFit::One);
    int lo = area.width(), hi = 4 * area.width();
    if (gridFitsAt(one, area, true))
        return 0;
    if (!gridFitsAt(one, QSize(hi, area.height()), true))
        return -1;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        (gridFitsAt(one, QSize(mid, area.height()), true) ? hi : lo) = mid;
    }
    return hi - area.width();
}

void ViewGrid::makeRoom(QSize area, bool found)
{
    const bool docked = !m_schemesDock->isHidden() && !m_schemesDock->isFloating() && !m_parametersDock->isHidden()
        && !m_parametersDock->isFloating();
    const int dockWidth = m_schemesDock->width() + m_window->style()->pixelMetric(QStyle::PM_DockWidgetSeparatorExtent);
    const bool lessonsDocked = !m_lessonsDock->isHidden() && !m_lessonsDock->isFloating();
    const int lessonsSpare
        = lessonsDocked ? std::max(0, m_lessonsDock->width() - m_lessonsDock->minimumSizeHint().width()) : 0;
    const int lacking = found ? 0 : widthLacking(area);
    const bool refused = std::abs(area.width() - m_foldRefused.width()) <= 8 && area.height() == m_foldRefused.height()
        && m_foldRefusedScale == m_state->viewOptions().fontScale;
    if (!found && docked && lacking > 0 && lacking <= dockWidth + lessonsSpare && !refused) {
        // Not even the view in front alone has room, and the side panels' width would give it: they fold
        // away (the page grows by their width, and the rule runs again); F9 opens them as a drawer over the
        // views.
        m_foldedWidth = dockWidth;
        m_foldedAt = area;
        foldSidePanels(true);
        scheduleArrange();
    } else if (!found && !docked && lessonsDocked && lacking > 0 && lacking <= lessonsSpare) {
        // The side panels away, and still no room: the lesson panel gives the view in front the width it lacks.
        m_window->resizeDocks({m_lessonsDock}, {m_lessonsDock->width() - lacking}, Qt::Horizontal);
        scheduleArrange();
    } else if (m_panelsFolded && !found && area.width() > m_foldedAt.width()) {
        // Folded (and the page grown by it), still no room: folding gives none, and the panels come back; not
        // folded again at this size.
        foldSidePanels(false);
        m_foldRefused = m_foldedAt;
        m_foldRefusedScale = m_state->viewOptions().fontScale;
        scheduleArrange();
    } else if (m_panelsFolded && found && m_foldedWidth > 0 && firstFit(area - QSize(m_foldedWidth + 24, 0))) {
        foldSidePanels(false); // room again beside them (24 px spare, so that the two never take turns)
        scheduleArrange();
    }
}

void ViewGrid::markStrip()
{
    for (std::size_t i = 0; i < m_stripButtons.size(); ++i) {
        const bool shown = std::any_of(m_rows.begin(), m_rows.end(), [&](const std::vector<View*>& row) {
            return std::find(row.begin(), row.end(), m_views[i]) != row.end();
        });
        m_stripButtons[i]->setChecked(shown);
        // The views on screen in bold as well: a checked button alone is hard to tell in the dark theme.
        if (m_stripButtons[i]->font().bold() != shown) {
            QFont f; // only the weight set: the rest follows the window's font (its scale)
            f.setBold(shown);
            m_stripButtons[i]->setFont(f);
        }
    }
}

void ViewGrid::setSidePanelsVisible(bool on)
{
    QSignalBlocker b(m_sidePanels);
    m_sidePanels->setChecked(on);
    if (m_panelsFolded) {
        const bool drawerOpen = m_schemesDock->isFloating() && !m_schemesDock->isHidden();
        if (!on && !drawerOpen) {
            // Hidden on purpose (--hide-panels, a session): they stay hidden when the room comes back.
            m_panelsFolded = false;
            scheduleArrange();
            return;
        }
        // Folded for room: they open as a drawer over the views' left edge (the views keep their room), and
        // close again.
        // Over the views' left edge, below the tabs and the strip (which stay usable).
        const QRect r(m_vertical->mapToGlobal(QPoint(0, 0)), m_vertical->size());
        const int w = std::max(m_foldedWidth, int(PanelScroll::minimumPanelWidth));
        const int top = r.height() * 2 / 5;
        for (QDockWidget* d : {m_schemesDock, m_parametersDock}) {
            if (on) {
                d->setFloating(true);
                d->setFont(
                    m_window->font()); // a window of its own does not take the window's font (its scale) by itself
                d->show();
                d->raise();
            } else {
                d->hide();
                d->setFloating(false);
                d->setFont(QFont()); // the window's font again, as every docked panel
                d->hide();
            }
        }
        if (on) {
            m_schemesDock->setGeometry(r.left(), r.top(), w, top);
            m_parametersDock->setGeometry(r.left(), r.top() + top, w, r.height() - top);
        }
        return;
    }
    m_schemesDock->setVisible(on);
    m_parametersDock->setVisible(on);
}

bool ViewGrid::sidePanelsVisible() const
{
    // Folded away for room, they are still on (they come back when there is room).
    return m_panelsFolded || !m_schemesDock->isHidden() || !m_parametersDock->isHidden();
}

void ViewGrid::showStepViews(const QStringList& views)
{
    if (views.isEmpty())
        return;
    View* main = view(views.front());
    if (main && !findView(views.front())->inGrid) {
        showPage(main); // a view of its own tab
        return;
    }
    showPage(nullptr);
    m_maximised = nullptr;
    for (ViewFrame* f : m_frames)
        f->setMaximised(false);
    // The step's views by the grid's rule, its first view in front.
    m_stepViews.clear();
    for (const QString& name : views)
        if (const ViewEntry* e = findView(name); e && e->inGrid)
            m_stepViews << name;
    m_front = view(m_stepViews.value(0));
    arrangeGrid();
}

QAction* ViewGrid::addSidePanelsAction(QMenu* menu)
{
    m_sidePanels = menu->addAction(tr("Side panels (schemes and parameters)"));
    m_sidePanels->setObjectName(QStringLiteral("actionSidePanels"));
    m_sidePanels->setCheckable(true);
    m_sidePanels->setChecked(true);
    m_sidePanels->setShortcut(MainWindow::sidePanelsKey);
    m_sidePanels->setToolTip(tr("Hide the side panels for a lecture; the same key brings them back (F9)"));
    connect(m_sidePanels, &QAction::triggered, this, &ViewGrid::setSidePanelsVisible);
    return m_sidePanels;
}

void ViewGrid::addShortcuts()
{
    // Keys that bring a grid view forward (after the menus: Help > Keyboard shortcuts lists the menus' first).
    for (int i = 0; i < std::min(gridViewCount(), 9); ++i) {
        View* v = m_views[std::size_t(i)];
        auto* a = new QAction(tr("Bring %1 forward").arg(v->title()), m_window);
        a->setObjectName(QStringLiteral("shortcutView%1").arg(i + 1));
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        connect(a, &QAction::triggered, this, [this, v] { bringForward(v); });
        m_window->addAction(a);
    }
    auto* next = new QAction(tr("Bring the next view of the grid forward"), m_window);
    next->setObjectName(QStringLiteral("shortcutNextView"));
    next->setShortcut(Qt::Key_F6);
    connect(next, &QAction::triggered, this, [this] {
        const std::vector<View*> views = gridViews();
        if (views.empty())
            return;
        const auto at = std::find(views.begin(), views.end(), m_maximised ? m_maximised : m_front);
        bringForward(at == views.end() || at + 1 == views.end() ? views.front() : *(at + 1));
    });
    m_window->addAction(next);
}

void ViewGrid::saveSplit(QSettings& s) const
{
    s.setValue("layout/vertical", m_vertical->saveState());
    s.setValue("layout/top", m_top->saveState());
    s.setValue("layout/bottom", m_bottom->saveState());
}

void ViewGrid::restoreSplit(const QSettings& s)
{
    m_splitRestored = s.contains("layout/top");
    m_vertical->restoreState(s.value("layout/vertical").toByteArray());
    m_top->restoreState(s.value("layout/top").toByteArray());
    m_bottom->restoreState(s.value("layout/bottom").toByteArray());
}

void ViewGrid::splitRowsEvenly()
{
    const int h = m_vertical->height() - m_vertical->handleWidth();
    m_vertical->setSizes({h / 2, h - h / 2});
}

} // namespace poslab::ui
