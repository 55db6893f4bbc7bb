// SPDX-License-Identifier: MIT
#include "ui/window/mainwindow.h"

#include "core/io/positiontable.h"
#include "ui/setup/modelconfig.h"
#include "ui/setup/presets.h"
#include "ui/state/session.h"

#include "ui/figures/computation.h"
#include "ui/views/flowlayout.h"
#include "ui/window/helpmenu.h"
#include "ui/teaching/lessonbrowser.h"
#include "ui/window/parameterpanel.h"
#include "ui/teaching/presentation.h"
#include "ui/teaching/presenterview.h"
#include "ui/window/schemepicker.h"
#include "ui/window/viewframe.h"
#include "ui/views/clockview.h"
#include "ui/views/tableview.h"
#include "ui/views/viewlist.h"
#include "ui/state/workbenchstate.h"

#include <QAction>
#include <QHash>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QResizeEvent>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QLayout>
#include <QProgressBar>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QDebug>
#include <QDialog>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMessageBox>
#include <QInputDialog>
#include <QJsonArray>
#include <QLineEdit>
#include <QSettings>
#include <QStackedWidget>
#include <QTabBar>
#include <QTextBrowser>
#include <QTextDocumentFragment>
#include <QVBoxLayout>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>

#include <algorithm>
#include <functional>
#include <map>

namespace poslab::ui {
namespace {

/// The parameter panel's scroll area: never narrower than the panel's own minimum (which grows with the font
/// scale), so rows are not cut at the right edge; it scrolls only vertically.
class PanelScroll : public QScrollArea {
public:
    using QScrollArea::QScrollArea;
    QSize minimumSizeHint() const override
    {
        QSize s = QScrollArea::minimumSizeHint();
        if (QWidget* w = widget())
            s.setWidth(std::max(minimumPanelWidth,
                                w->minimumSizeHint().width() + verticalScrollBar()->sizeHint().width() + 2 * frameWidth()));
        return s;
    }
    static constexpr int minimumPanelWidth = 300;

protected:
    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (o == widget() && e->type() == QEvent::LayoutRequest)
            updateGeometry(); // the panel's rows changed (another scheme, another font scale)
        return QScrollArea::eventFilter(o, e);
    }
};

/// Calls a function when the widget it watches is resized (the grid's page: its fit to the room follows).
class ResizeWatcher : public QObject {
public:
    ResizeWatcher(QWidget* watched, std::function<void()> onResize)
        : QObject(watched)
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
    return int(std::count_if(viewRegistry().begin(), viewRegistry().end(), [](const ViewEntry& e) { return e.inGrid; }));
}

} // namespace

MainWindow::MainWindow(QWidget* parent, bool restore)
    : QMainWindow(parent)
    , m_state(new WorkbenchState(this))
    , m_computation(new Computation(m_state, this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(QStringLiteral("PosLab \u2014 how transformers encode position"));
    m_baseFontPt = std::max(11.0, QApplication::font().pointSizeF());

    // Left: the scheme picker; right: the parameter panel.
    m_picker = new SchemePicker(m_state, this);
    auto* left = m_schemesDock = new QDockWidget(tr("Schemes"), this);
    left->setObjectName(QStringLiteral("dockSchemes"));
    left->setWidget(m_picker);
    left->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, left);
    m_panel = new ParameterPanel(m_state, this);
    auto* scroll = new PanelScroll(this);
    scroll->setWidget(m_panel);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* right = m_parametersDock = new QDockWidget(tr("Parameters"), this);
    right->setObjectName(QStringLiteral("dockParameters"));
    right->setWidget(scroll);
    m_pickerA = m_picker;
    m_panelScrollA = scroll;
    right->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, right);
    splitDockWidget(left, right, Qt::Vertical);
    resizeDocks({left, right}, {380, 520}, Qt::Vertical);
    resizeDocks({left}, {340}, Qt::Horizontal);

    buildViews();
    buildTransport();
    buildActions();
    buildFileMenu();
    buildMenus();
    buildCompareMenu();
    buildHelpMenu();
    buildLessons();
    // Keys that bring a grid view forward (after the menus: Help > Keyboard shortcuts lists the menus' first).
    for (int i = 0; i < std::min(gridViewCount(), 9); ++i) {
        View* v = m_views[std::size_t(i)];
        auto* a = new QAction(tr("Bring %1 forward").arg(v->title()), this);
        a->setObjectName(QStringLiteral("shortcutView%1").arg(i + 1));
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        connect(a, &QAction::triggered, this, [this, v] { bringForward(v); });
        addAction(a);
    }
    auto* next = new QAction(tr("Bring the next view of the grid forward"), this);
    next->setObjectName(QStringLiteral("shortcutNextView"));
    next->setShortcut(Qt::Key_F6);
    connect(next, &QAction::triggered, this, [this] {
        const std::vector<View*> views = gridViews();
        if (views.empty())
            return;
        const auto at = std::find(views.begin(), views.end(), m_maximised ? m_maximised : m_front);
        bringForward(at == views.end() || at + 1 == views.end() ? views.front() : *(at + 1));
    });
    addAction(next);

    // Status bar: refusals stay readable for a while; large computations show progress and can be cancelled.
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("statusMessage"));
    // A long refusal must not widen the window past the screen: the line is cut, the tooltip has it whole.
    m_message->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_message->setMinimumWidth(0);
    statusBar()->addWidget(m_message, 1);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->hide();
    // Which path computed the table on screen, so that a lecturer can show the GPU/CPU switch at work.
    m_tablePath = new QLabel(this);
    m_tablePath->setObjectName(QStringLiteral("tablePath"));
    m_tablePath->setToolTip(tr("The path that computed the current table (Settings \u203a Compute tables on)"));
    statusBar()->addPermanentWidget(m_tablePath);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_messageTimer = new QTimer(this);
    m_messageTimer->setSingleShot(true);
    connect(m_messageTimer, &QTimer::timeout, m_message, &QLabel::clear);
    connect(m_state, &WorkbenchState::refused, this, [this](const QString& msg) {
        m_message->setStyleSheet(QStringLiteral("color: #d0302f; font-weight: bold;"));
        m_message->setText(msg);
        m_message->setToolTip(msg);
        m_messageTimer->start(10000);
    });
    connect(m_computation, &Computation::busyChanged, this, [this](bool busy) {
        m_progress->setVisible(busy);
        m_cancel->setVisible(busy);
        if (busy) {
            m_message->setStyleSheet({});
            const bool sampled = (long long)m_state->positionCount() * m_state->dim() > TableFigure::fullTableCells;
            m_message->setText(sampled ? tr("Computing the visible rows of the %1 \u00d7 %2 table\u2026")
                                             .arg(m_state->positionCount())
                                             .arg(m_state->dim())
                                       : tr("Computing %1 \u00d7 %2 table\u2026").arg(m_state->positionCount()).arg(m_state->dim()));
        } else if (!m_messageTimer->isActive()) {
            m_message->clear();
        }
    });
    connect(m_cancel, &QPushButton::clicked, m_computation, &Computation::cancel);
    auto showPath = [this](const std::shared_ptr<const EncodingResult>& r) {
        m_tablePath->setText(r && !r->path.isEmpty() ? tr("Table: %1").arg(r->path) : QString());
    };
    showPath(m_computation->result());
    connect(m_computation, &Computation::resultReady, this, [this, showPath](std::shared_ptr<const EncodingResult> r) {
        showPath(r);
        if (!r->error.isEmpty()) {
            m_message->setStyleSheet(QStringLiteral("color: #d0302f; font-weight: bold;"));
            m_message->setText(r->error);
            m_messageTimer->start(10000);
        }
    });

    m_clock = new QElapsedTimer;
    m_animation = new QTimer(this);
    m_animation->setTimerType(Qt::PreciseTimer);
    m_animation->setInterval(16);
    connect(m_animation, &QTimer::timeout, this, &MainWindow::tick);
    connect(m_state, &WorkbenchState::playingChanged, this, [this](bool on) {
        if (on) {
            m_clock->start();
            m_animation->start();
        } else {
            m_animation->stop();
        }
    });
    connect(m_state, &WorkbenchState::viewOptionsChanged, this, &MainWindow::applyTheme);
    // The grid's fit to the room (arrangeGrid()) follows the font scale, compare mode (A | B halves) and the
    // views' header controls (another scheme); the window's size changes come through the page's resizes.
    for (auto signal : {&WorkbenchState::viewOptionsChanged, &WorkbenchState::compareChanged, &WorkbenchState::schemeChanged})
        connect(m_state, signal, this, &MainWindow::scheduleArrange);

    resize(1600, 1000);
    if (restore)
        restoreLayout();
    applyTheme();
    fitToScreen(); // 1600 x 1000, or a size remembered from a larger monitor, may not fit this screen
    // What the window opens with is not an edit: undo starts here, and the session is unmodified.
    m_state->undoStack()->clear();
    connect(m_state->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    updateTitle();
}

MainWindow::~MainWindow()
{
    // The state is a child, deleted after this body: its undo stack then emits cleanChanged, and a slot of this
    // window, by then only a QWidget, would run (UndefinedBehaviorSanitizer: a downcast to a destroyed type).
    m_state->undoStack()->disconnect(this);
    m_state->disconnect(this);
    delete m_presentation; // before the state it gives its font scale back to (a child deleted before it)
    delete m_clock;
}


void MainWindow::buildViews()
{
    // The grid's five views now; each other view of the registry gets a tab above the grid and is created when
    // its tab is first opened (a hidden view would still compute on every change).
    for (const ViewEntry& e : viewRegistry())
        if (e.inGrid)
            m_views.push_back(e.create(m_state, m_computation));
    m_vertical = new QSplitter(Qt::Vertical, this);
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

    auto* central = new QWidget(this);
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    m_viewTabs = new QTabBar(central);
    m_viewTabs->setObjectName(QStringLiteral("viewTabs"));
    m_viewTabs->setDocumentMode(true);
    m_viewTabs->setExpanding(false);
    m_viewTabs->addTab(tr("Workbench"));
    m_viewTabs->setTabData(0, QString());
    m_viewTabs->setTabToolTip(0, tr("The five live views together"));
    for (const ViewEntry& e : viewRegistry())
        if (!e.inGrid) {
            const int i = m_viewTabs->addTab(View::tr(e.title));
            m_viewTabs->setTabData(i, QString::fromLatin1(e.id));
        }
    m_viewTabs->setVisible(m_viewTabs->count() > 1);
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
    new ResizeWatcher(m_pages, [this] { scheduleArrange(); });
    column->addWidget(m_viewTabs);
    column->addWidget(m_pages, 1);
    connect(m_viewTabs, &QTabBar::currentChanged, this, [this](int i) {
        const QString id = m_viewTabs->tabData(i).toString();
        showPage(id.isEmpty() ? nullptr : view(id));
    });
    setCentralWidget(central);
}

View* MainWindow::view(const QString& name)
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

void MainWindow::showPage(View* v)
{
    const bool own = v && findView(v->exportName()) && !findView(v->exportName())->inGrid;
    QWidget* page = m_gridPage;
    if (own)
        for (ViewFrame* f : m_frames)
            if (f->view() == v)
                page = f;
    m_pages->setCurrentWidget(page);
    m_ownPage = own ? v : nullptr;
    for (int i = 0; i < m_viewTabs->count(); ++i)
        if (m_viewTabs->tabData(i).toString() == (own ? v->exportName() : QString())) {
            QSignalBlocker b(m_viewTabs);
            m_viewTabs->setCurrentIndex(i);
        }
}

void MainWindow::setMaximisedView(View* v)
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

ViewFrame* MainWindow::frameOf(const View* v) const
{
    for (ViewFrame* f : m_frames)
        if (f->view() == v)
            return f;
    return nullptr;
}

std::vector<View*> MainWindow::gridViews() const
{
    std::vector<View*> out;
    const int n = std::min(gridViewCount(), int(m_views.size()));
    for (int i = 0; i < n; ++i)
        if (m_stepViews.isEmpty() || m_stepViews.contains(m_views[std::size_t(i)]->exportName()))
            out.push_back(m_views[std::size_t(i)]);
    return out;
}

void MainWindow::bringForward(View* v)
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

std::vector<std::vector<View*>> MainWindow::rowsOf(GridFit fit) const
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

bool MainWindow::gridFitsAt(const std::vector<std::vector<View*>>& rows, QSize area, bool strip) const
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

void MainWindow::placeRows(const std::vector<std::vector<View*>>& rows)
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
        const int h = m_vertical->height() - m_vertical->handleWidth();
        m_vertical->setSizes({h / 2, h - h / 2});
    }
}

void MainWindow::scheduleArrange()
{
    if (m_arrangeQueued)
        return;
    m_arrangeQueued = true;
    QTimer::singleShot(0, this, &MainWindow::arrangeGrid);
}

void MainWindow::foldSidePanels(bool fold)
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

void MainWindow::arrangeGrid()
{
    m_arrangeQueued = false;
    if (m_arranging)
        return;
    QScopedValueRollback<bool> guard(m_arranging, true);
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
    if (isVisible() && !m_presentation) {
        const QSize area = m_pages->size();
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
        if (m_strip->layout()->totalHeightForWidth(area.width()) > m_stripButtons.front()->sizeHint().height() + sm.top() + sm.bottom())
            label(false);
        const auto firstFit = [&](QSize room) -> std::optional<GridFit> {
            for (GridFit f : {GridFit::All, GridFit::Pair, GridFit::One}) {
                if (f == GridFit::Pair && views.size() <= 2)
                    continue; // all of them are the pair
                if (gridFitsAt(rowsOf(f), room, f != GridFit::All || m_panelsFolded))
                    return f;
            }
            return std::nullopt;
        };
        std::optional<GridFit> found = firstFit(area);
        const bool docked = !m_schemesDock->isHidden() && !m_schemesDock->isFloating()
            && !m_parametersDock->isHidden() && !m_parametersDock->isFloating();
        const int dockWidth = m_schemesDock->width() + style()->pixelMetric(QStyle::PM_DockWidgetSeparatorExtent);
        const bool lessonsDocked = !m_lessonsDock->isHidden() && !m_lessonsDock->isFloating();
        const int lessonsSpare = lessonsDocked ? std::max(0, m_lessonsDock->width() - m_lessonsDock->minimumSizeHint().width()) : 0;
        // The width the view in front alone lacks here (0: none; -1: more width would not do, the height lacks).
        const auto widthLacking = [&]() -> int {
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
        };
        const int lacking = found ? 0 : widthLacking();
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
            resizeDocks({m_lessonsDock}, {m_lessonsDock->width() - lacking}, Qt::Horizontal);
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
        // Where not even one view has room (and the panels cannot give it), the whole grid as it was: every view
        // then says "Too small" with what to do (A−), rather than one view under a strip of the others.
        fit = found.value_or(GridFit::All);
    }
    m_fit = fit;
    placeRows(rowsOf(fit));
    m_strip->setVisible((fit != GridFit::All && views.size() > 1) || m_panelsFolded);
    m_stripPanels->setVisible(m_panelsFolded);
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

QString MainWindow::applyStartOptions(const StartOptions& o)
{
    if (!o.theme.isEmpty() && o.theme != QLatin1String("light") && o.theme != QLatin1String("dark"))
        return tr("--theme takes light or dark; got '%1'").arg(o.theme);
    if (o.fontScale > 0)
        if (const QString why = WorkbenchState::fontScaleProblem(o.fontScale); !why.isEmpty())
            return tr("--font-scale: %1").arg(why);
    View* alone = nullptr;
    if (!o.maximise.isEmpty() && !(alone = view(o.maximise))) {
        QStringList names;
        for (const ViewEntry& e : viewRegistry())
            names << QString::fromLatin1(e.id);
        return tr("--maximise: no view '%1'; views: %2").arg(o.maximise, names.join(QStringLiteral(", ")));
    }
    if (!o.scheme.isEmpty())
        if (const QString why = m_state->setScheme(o.scheme); !why.isEmpty())
            return tr("--scheme: %1").arg(why);
    if (o.dim > 0)
        if (const QString why = m_state->setDim(o.dim); !why.isEmpty())
            return tr("--dim: %1").arg(why);
    if (o.positions > 0)
        if (const QString why = m_state->setPositionCount(o.positions); !why.isEmpty())
            return tr("--positions: %1").arg(why);
    if (alone)
        setMaximisedView(alone);
    if (o.hidePanels)
        setSidePanelsVisible(false);
    if (!o.theme.isEmpty() || o.fontScale > 0) {
        ViewOptions look = m_state->viewOptions();
        if (!o.theme.isEmpty())
            look.theme = o.theme == QLatin1String("dark") ? ThemeKind::Dark : ThemeKind::Light;
        if (o.fontScale > 0)
            look.fontScale = o.fontScale;
        m_state->applyViewOptions(look);
    }
    return {};
}

void MainWindow::buildTransport()
{
    auto* bar = addToolBar(tr("Position"));
    bar->setObjectName(QStringLiteral("transportBar"));
    bar->setMovable(false);
    // Own actions rather than QUndoStack::createUndoAction(): that one renames the action on every step, and
    // a toolbar button changing width relayouts the whole window in the middle of a slider drag.
    QUndoStack* stack = m_state->undoStack();
    auto* undo = new QAction(style()->standardIcon(QStyle::SP_ArrowBack), tr("Undo"), this);
    undo->setObjectName(QStringLiteral("actionUndo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setEnabled(false);
    connect(undo, &QAction::triggered, stack, &QUndoStack::undo);
    connect(stack, &QUndoStack::canUndoChanged, undo, &QAction::setEnabled);
    connect(stack, &QUndoStack::undoTextChanged, undo,
            [undo](const QString& t) { undo->setToolTip(tr("Undo %1 (Ctrl+Z)").arg(t)); });
    auto* redo = new QAction(style()->standardIcon(QStyle::SP_ArrowForward), tr("Redo"), this);
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

    auto* home = bar->addAction(QStringLiteral("|\u25c0"), this, [this] { m_state->setCursor(0); });
    home->setToolTip(tr("First position (Home)"));
    auto* back = bar->addAction(QStringLiteral("\u25c0"), this, [this] { m_state->stepCursor(-1); });
    back->setToolTip(tr("Previous position (Left)"));
    auto* play = bar->addAction(QStringLiteral("\u25b6"), m_state, &WorkbenchState::togglePlaying);
    play->setObjectName(QStringLiteral("actionPlay"));
    play->setToolTip(tr("Play / pause (Space)"));
    connect(m_state, &WorkbenchState::playingChanged, play,
            [play](bool on) { play->setText(on ? QStringLiteral("\u275a\u275a") : QStringLiteral("\u25b6")); });
    auto* fwd = bar->addAction(QStringLiteral("\u25b7"), this,
                               [this] { m_state->stepCursor(1); });
    fwd->setToolTip(tr("Next position (Right)"));
    auto* end = bar->addAction(QStringLiteral("\u25b6|"), this, [this] { m_state->setCursor(m_state->positionCount() - 1); });
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
        o.fontScale = stepFontScale(o.fontScale, -1);
        m_state->setViewOptions(o);
    });
    smaller->setObjectName(QStringLiteral("actionSmaller"));
    smaller->setShortcut(QKeySequence::ZoomOut);
    smaller->setToolTip(tr("Smaller text (Ctrl+-)"));
    auto* larger = m_larger = bar->addAction(QStringLiteral("A+"), this, [this] {
        ViewOptions o = m_state->viewOptions();
        o.fontScale = stepFontScale(o.fontScale, 1);
        m_state->setViewOptions(o);
    });
    larger->setObjectName(QStringLiteral("actionLarger"));
    larger->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    larger->setToolTip(tr("Larger text for lecture halls (Ctrl++)"));
    auto* full = m_fullScreen = bar->addAction(tr("Full screen"), this, [this] {
        if (isFullScreen())
            showNormal();
        else
            showFullScreen();
    });
    full->setObjectName(QStringLiteral("actionFullScreen"));
    full->setShortcut(Qt::Key_F11);
    full->setToolTip(tr("Full screen (F11)"));
}

double MainWindow::stepFontScale(double scale, int direction)
{
    // A fixed ladder, so that A- after A+ returns to exactly the scale before (multiplying by 1.15 and
    // clamping at 2.5 did not), and every step is one a lecturer can name.
    if (direction > 0) {
        for (double s : fontScales)
            if (s > scale + 1e-9)
                return s;
        return fontScales.back();
    }
    for (auto it = fontScales.rbegin(); it != fontScales.rend(); ++it)
        if (*it < scale - 1e-9)
            return *it;
    return fontScales.front();
}

void MainWindow::buildActions()
{
    auto add = [this](const QKeySequence& key, auto fn) {
        auto* a = new QAction(this);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WindowShortcut);
        connect(a, &QAction::triggered, this, fn);
        addAction(a);
        return a;
    };
    add(Qt::Key_Space, [this] { m_state->togglePlaying(); })->setObjectName(QStringLiteral("shortcutSpace"));
    add(Qt::Key_Left, [this] { m_state->stepCursor(-1); })->setObjectName(QStringLiteral("shortcutLeft"));
    add(Qt::Key_Right, [this] { m_state->stepCursor(1); })->setObjectName(QStringLiteral("shortcutRight"));
    add(Qt::Key_Home, [this] { m_state->setCursor(0); })->setObjectName(QStringLiteral("shortcutHome"));
    add(Qt::Key_End, [this] { m_state->setCursor(m_state->positionCount() - 1); })
        ->setObjectName(QStringLiteral("shortcutEnd"));
    QAction* escape = add(Qt::Key_Escape, [this] {
        if (isFullScreen())
            showNormal();
        else
            setMaximisedView(nullptr);
    });
    const std::pair<const char*, const char*> names[] = {
        {"shortcutSpace", QT_TR_NOOP("Play / pause the position animation")},
        {"shortcutLeft", QT_TR_NOOP("Previous position")},
        {"shortcutRight", QT_TR_NOOP("Next position")},
        {"shortcutHome", QT_TR_NOOP("First position")},
        {"shortcutEnd", QT_TR_NOOP("Last position")}};
    for (const auto& [name, text] : names)
        findChild<QAction*>(QLatin1String(name))->setText(tr(text));
    escape->setText(tr("Leave full screen, or show every view again"));
}

void MainWindow::buildMenus()
{
    // View: what a lecturer reaches for, each with its key (the toolbar's buttons are the same actions).
    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->setObjectName(QStringLiteral("menuView"));
    m_sidePanels = viewMenu->addAction(tr("Side panels (schemes and parameters)"));
    m_sidePanels->setObjectName(QStringLiteral("actionSidePanels"));
    m_sidePanels->setCheckable(true);
    m_sidePanels->setChecked(true);
    m_sidePanels->setShortcut(sidePanelsKey);
    m_sidePanels->setToolTip(tr("Hide the side panels for a lecture; the same key brings them back (F9)"));
    connect(m_sidePanels, &QAction::triggered, this, &MainWindow::setSidePanelsVisible);
    viewMenu->addSeparator();
    viewMenu->addAction(m_theme);
    viewMenu->addAction(m_smaller);
    viewMenu->addAction(m_larger);
    viewMenu->addAction(m_fullScreen);
    // A view property (so sessions, share links and --view-set carry it), checkable here.
    auto* clean = viewMenu->addAction(tr("Clean slide (no aliasing note, hover hints or cursor tags)"));
    clean->setObjectName(QStringLiteral("actionCleanSlide"));
    clean->setCheckable(true);
    clean->setChecked(m_state->viewOptions().cleanSlide);
    connect(clean, &QAction::toggled, this, [this](bool on) {
        if (m_state->viewOptions().cleanSlide == on)
            return;
        ViewOptions o = m_state->viewOptions();
        o.cleanSlide = on;
        m_state->setViewOptions(o);
    });
    connect(m_state, &WorkbenchState::viewOptionsChanged, clean,
            [this, clean] { clean->setChecked(m_state->viewOptions().cleanSlide); });
    m_present = viewMenu->addAction(tr("Presentation mode"), this, [this] { setPresenting(!isPresenting()); });
    m_present->setObjectName(QStringLiteral("actionPresentation"));
    m_present->setShortcut(presentationKey);
    m_present->setToolTip(tr("Only the step's views, full screen, large type; Right/Left or a clicker's "
                             "PageDown/PageUp step, Up/Down move the cursor, Space plays, T shows the step's "
                             "text, ? lists the keys, Esc leaves (F5)"));

    QMenu* settings = menuBar()->addMenu(tr("&Settings"));
    settings->setObjectName(QStringLiteral("menuSettings"));
    QMenu* path = settings->addMenu(tr("Compute tables on"));
    path->setToolTip(tr("Sin/cos tables of rotary and sinusoidal schemes; the status bar says which path ran"));
    path->setToolTipsVisible(true);
    m_pathGroup = new QActionGroup(this);
    m_pathGroup->setExclusive(true);
    auto add = [&](const QString& text, const QString& name, gpu::ComputePath p, const QString& tip) {
        QAction* a = path->addAction(text);
        a->setObjectName(name);
        a->setCheckable(true);
        a->setData(int(p));
        a->setToolTip(tip);
        m_pathGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, p] { setComputePath(p, true); });
    };
    add(tr("Automatic (the faster, measured once per size)"), QStringLiteral("actionPathAuto"), gpu::ComputePath::Auto,
        tr("Small tables stay on the CPU; for large ones both paths are timed once and the faster is kept"));
    add(tr("CPU (core, the reference)"), QStringLiteral("actionPathCpu"), gpu::ComputePath::Cpu,
        tr("Always compute on the CPU"));
    add(tr("GPU (compute shaders)"), QStringLiteral("actionPathGpu"), gpu::ComputePath::Gpu,
        tr("Always use the OpenGL 4.3 compute shaders; falls back to the CPU, and says so, without them"));
    setComputePath(m_computation->computePath());
}

void MainWindow::buildCompareMenu()
{
    // Compare: configuration B beside A in every view. "Compare with…" copies A to B; the panels then edit B.
    m_compareMenu = menuBar()->addMenu(tr("&Compare"));
    m_compareMenu->setObjectName(QStringLiteral("menuCompare"));
    m_compareMenu->setToolTipsVisible(true);
    QAction* copy = m_compareMenu->addAction(tr("Compare &with\u2026 (B = a copy of A; the panels edit B)"), this, [this] {
        if (m_state->compareWithCopy(m_state->comparing() ? m_state->compareMode() : CompareMode::SideBySide).isEmpty())
            setEditsB(true);
    });
    copy->setObjectName(QStringLiteral("actionCompareWith"));
    copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    m_compareMenu->addSeparator();
    m_compareModes = new QActionGroup(this);
    m_compareModes->setExclusive(true);
    const std::pair<CompareMode, QString> modes[] = {
        {CompareMode::Off, tr("Off (A only)")},
        {CompareMode::SideBySide, tr("Side by side (A | B)")},
        {CompareMode::Overlay, tr("Overlay (curves of A and B on shared axes)")},
        {CompareMode::Difference, tr("Difference (A \u2212 B)")},
    };
    for (const auto& [mode, text] : modes) {
        QAction* a = m_compareMenu->addAction(text);
        a->setObjectName(QStringLiteral("actionCompare_") + compareModeWord(mode));
        a->setCheckable(true);
        a->setData(int(mode));
        m_compareModes->addAction(a);
        connect(a, &QAction::triggered, this, [this, mode] { m_state->setCompareMode(mode); });
    }
    m_compareMenu->addSeparator();
    // Side by side, A and B share colour ranges and axes by default (one colour, one height, one value).
    QAction* independent = m_compareMenu->addAction(tr("&Independent ranges (A and B each fit their own data)"));
    independent->setObjectName(QStringLiteral("actionIndependentRanges"));
    independent->setCheckable(true);
    connect(independent, &QAction::triggered, this,
            [this](bool on) { m_state->setProperty(QStringLiteral("independent_ranges"), on); });
    const auto syncIndependent = [this, independent] {
        independent->setChecked(m_state->viewOptions().independentRanges);
        independent->setEnabled(m_state->comparing());
    };
    connect(m_state, &WorkbenchState::viewOptionsChanged, independent, syncIndependent);
    connect(m_state, &WorkbenchState::compareChanged, independent, syncIndependent);
    syncIndependent();
    m_compareMenu->addSeparator();
    m_editGroup = new QActionGroup(this);
    m_editGroup->setExclusive(true);
    QAction* editA = m_compareMenu->addAction(tr("Panels edit configuration &A"), this, [this] { setEditsB(false); });
    QAction* editB = m_compareMenu->addAction(tr("Panels edit configuration &B"), this, [this] { setEditsB(true); });
    editA->setObjectName(QStringLiteral("actionEditA"));
    editB->setObjectName(QStringLiteral("actionEditB"));
    for (QAction* a : {editA, editB}) {
        a->setCheckable(true);
        m_editGroup->addAction(a);
    }
    editA->setChecked(true);
    connect(m_state, &WorkbenchState::compareChanged, this, [this] {
        if (!m_state->comparing() && m_editsB)
            setEditsB(false);
        syncCompareControls();
    });
    syncCompareControls();
}

void MainWindow::syncCompareControls()
{
    for (QAction* a : m_compareModes->actions())
        a->setChecked(a->data().toInt() == int(m_state->compareMode()));
    for (QAction* a : m_editGroup->actions()) {
        a->setEnabled(m_state->comparing());
        if (a->objectName() == QLatin1String("actionEditB"))
            a->setChecked(m_editsB);
        else
            a->setChecked(!m_editsB);
    }
}

void MainWindow::setEditsB(bool editB)
{
    editB = editB && m_state->comparing();
    if (editB && !m_panelB) {
        WorkbenchState* b = m_state->compareState();
        m_pickerB = new SchemePicker(b, this);
        m_panelB = new ParameterPanel(b, this);
        auto* scroll = new PanelScroll(this);
        scroll->setWidget(m_panelB);
        scroll->setWidgetResizable(true);
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        m_panelScrollB = scroll;
        m_pickerB->hide();
        m_panelScrollB->hide();
        connect(b, &WorkbenchState::refused, this, [this](const QString& msg) { showMessage(tr("B: %1").arg(msg), true); });
    }
    if (editB == m_editsB)
        return;
    m_editsB = editB;
    // The docks show the picker and panel of the configuration being edited; the other pair waits hidden.
    QWidget* picker = editB ? static_cast<QWidget*>(m_pickerB) : m_pickerA;
    QWidget* panel = editB ? m_panelScrollB : m_panelScrollA;
    (editB ? m_pickerA : static_cast<QWidget*>(m_pickerB))->hide();
    (editB ? m_panelScrollA : m_panelScrollB)->hide();
    m_schemesDock->setWidget(picker);
    m_parametersDock->setWidget(panel);
    picker->show();
    panel->show();
    m_schemesDock->setWindowTitle(editB ? tr("Schemes \u2014 editing B") : tr("Schemes"));
    m_parametersDock->setWindowTitle(editB ? tr("Parameters \u2014 editing B") : tr("Parameters"));
    syncCompareControls();
    showMessage(editB ? tr("The panels edit configuration B; Compare > Panels edit configuration A goes back.")
                      : tr("The panels edit configuration A."),
                false);
}

void MainWindow::setComputePath(gpu::ComputePath p, bool remember)
{
    m_computation->setComputePath(p);
    for (QAction* a : m_pathGroup->actions())
        a->setChecked(a->data().toInt() == int(p));
    if (remember)
        QSettings().setValue("compute/path", p == gpu::ComputePath::Cpu ? "cpu" : p == gpu::ComputePath::Gpu ? "gpu" : "auto");
}

void MainWindow::setSidePanelsVisible(bool on)
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
                d->setFont(font()); // a window of its own does not take the window's font (its scale) by itself
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

bool MainWindow::sidePanelsVisible() const
{
    // Folded away for room, they are still on (they come back when there is room).
    return m_panelsFolded || !m_schemesDock->isHidden() || !m_parametersDock->isHidden();
}

gpu::ComputePath MainWindow::computePath() const
{
    return m_computation->computePath();
}

QString MainWindow::tablePathText() const
{
    return m_tablePath->text();
}

void MainWindow::tick()
{
    const double dt = m_clock->restart() / 1000.0;
    m_state->setAnimationTime(m_state->animationTime() + dt * m_state->viewOptions().speed);
}

void MainWindow::applyTheme()
{
    const ViewOptions& o = m_state->viewOptions();
    const Theme t = m_state->theme();
    QPalette pal = QApplication::style()->standardPalette();
    if (t.kind == ThemeKind::Dark) {
        pal.setColor(QPalette::Window, QColor(0x25, 0x28, 0x2e));
        pal.setColor(QPalette::WindowText, t.foreground);
        pal.setColor(QPalette::Base, QColor(0x1b, 0x1d, 0x22));
        pal.setColor(QPalette::AlternateBase, QColor(0x2c, 0x30, 0x37));
        pal.setColor(QPalette::Text, t.foreground);
        pal.setColor(QPalette::Button, QColor(0x30, 0x34, 0x3b));
        pal.setColor(QPalette::ButtonText, t.foreground);
        pal.setColor(QPalette::ToolTipBase, QColor(0x30, 0x34, 0x3b));
        pal.setColor(QPalette::ToolTipText, t.foreground);
        pal.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xb5));
        pal.setColor(QPalette::HighlightedText, Qt::white);
        pal.setColor(QPalette::Link, QColor(0x7c, 0xb8, 0xff)); // the lessons' live values, readable on dark
        pal.setColor(QPalette::LinkVisited, QColor(0x7c, 0xb8, 0xff));
        pal.setColor(QPalette::PlaceholderText, t.muted);
        pal.setColor(QPalette::Disabled, QPalette::Text, t.muted);
        pal.setColor(QPalette::Disabled, QPalette::ButtonText, t.muted);
        pal.setColor(QPalette::Disabled, QPalette::WindowText, t.muted);
        pal.setColor(QPalette::Disabled, QPalette::Highlight, t.grid); // a locked slider looks locked
    }
    QApplication::setPalette(pal);
    QFont f = QApplication::font();
    f.setPointSizeF(m_baseFontPt * o.fontScale);
    const bool scaled = std::abs(o.fontScale - m_appliedFontScale) > 1e-9;
    if (scaled && !m_userSize.isValid())
        m_userSize = size(); // what the window returns to when the scale comes back down
    setFont(f);
    if (m_panelsFolded) // the drawer's panels, windows of their own, follow the scale too
        for (QDockWidget* d : {m_schemesDock, m_parametersDock})
            if (d->isFloating())
                d->setFont(f);
    m_appliedFontScale = o.fontScale;
    if (scaled) {
        // Apply the new minimum size now (Qt grows a window that became smaller than it), fit, and fit again
        // once the nested layouts have settled.
        if (QLayout* l = layout())
            l->activate();
        fitToScreen();
        QTimer::singleShot(0, this, &MainWindow::fitToScreen);
        if (isVisible())
            QTimer::singleShot(0, this, [this] { giveSchemesTheirHeight(); });
    }
    for (View* v : m_views)
        v->update();
}

void MainWindow::fitToScreen()
{
    if (isFullScreen() || isMaximized())
        return; // the window system sizes these to the screen
    const QScreen* sc = screen();
    if (!sc)
        return;
    const QRect avail = sc->availableGeometry();
    // The frame (title bar, borders) counts against the screen too; it is known once the window is shown.
    const QSize frame = isVisible() ? frameGeometry().size() - geometry().size() : QSize(0, 0);
    const QSize room = (avail.size() - frame).expandedTo(QSize(1, 1));
    // The user's size where the current minimum allows it: a larger scale may grow the window, a smaller one
    // brings it back; never beyond the screen.
    QSize target = m_userSize.isValid() ? m_userSize.expandedTo(minimumSize()) : size();
    target = target.boundedTo(room);
    m_fitTarget = target;
    if (target != size())
        resize(target);
    if (isVisible() && !avail.contains(frameGeometry())) {
        QRect g = frameGeometry();
        g.moveLeft(std::clamp(g.left(), avail.left(), std::max(avail.left(), avail.right() - g.width() + 1)));
        g.moveTop(std::clamp(g.top(), avail.top(), std::max(avail.top(), avail.bottom() - g.height() + 1)));
        move(g.topLeft());
    }
}

void MainWindow::saveLayout() const
{
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    s.setValue("layout/vertical", m_vertical->saveState());
    s.setValue("layout/top", m_top->saveState());
    s.setValue("layout/bottom", m_bottom->saveState());
    s.setValue("layout/maximised", maximisedView() ? maximisedView()->exportName() : QString());
    s.setValue("view/theme", m_state->viewOptions().theme == ThemeKind::Dark ? "dark" : "light");
    s.setValue("view/fontScale", m_state->viewOptions().fontScale);
}

void MainWindow::restoreLayout()
{
    QSettings s;
    if (s.contains("window/geometry"))
        restoreGeometry(s.value("window/geometry").toByteArray());
    if (s.contains("window/state"))
        restoreState(s.value("window/state").toByteArray());
    m_sidePanels->setChecked(sidePanelsVisible());
    m_docksArranged = s.contains("window/state"); // the user's own split of the column stays
    m_viewsSplit = s.contains("layout/vertical"); // the user's own split of the rows stays
    m_splitRestored = s.contains("layout/top");
    m_vertical->restoreState(s.value("layout/vertical").toByteArray());
    m_top->restoreState(s.value("layout/top").toByteArray());
    m_bottom->restoreState(s.value("layout/bottom").toByteArray());
    setMaximisedView(view(s.value("layout/maximised").toString()));
    ViewOptions o = m_state->viewOptions();
    o.theme = s.value("view/theme").toString() == "dark" ? ThemeKind::Dark : ThemeKind::Light;
    // A value out of range or not a number (nan passed std::clamp and hid every label) is ignored, with one line.
    const double scale = s.value("view/fontScale", 1.0).toDouble();
    if (const QString problem = WorkbenchState::fontScaleProblem(scale); problem.isEmpty())
        o.fontScale = scale;
    else
        qWarning().noquote() << "poslab: settings view/fontScale ignored:" << problem;
    m_state->applyViewOptions(o); // the window's own look, not an edit to undo
    const QString path = s.value("compute/path", "auto").toString();
    setComputePath(path == "cpu" ? gpu::ComputePath::Cpu : path == "gpu" ? gpu::ComputePath::Gpu : gpu::ComputePath::Auto);
}

void MainWindow::showEvent(QShowEvent* e)
{
    QMainWindow::showEvent(e);
    if (!m_docksArranged) {
        m_docksArranged = true;
        QTimer::singleShot(0, this, [this] { giveSchemesTheirHeight(); });
    }
    if (!m_viewsSplit) {
        // Both rows of views get half the height: the splitter would otherwise share it by size hints, and a
        // row whose views ask for more (the decay chart with its caption) squeezed the other to a strip.
        m_viewsSplit = true;
        QTimer::singleShot(0, this, [this] {
            const int h = m_vertical->height() - m_vertical->handleWidth();
            m_vertical->setSizes({h / 2, h - h / 2});
        });
    }
}

void MainWindow::resizeEvent(QResizeEvent* e)
{
    QMainWindow::resizeEvent(e);
    // A size that neither fitToScreen() asked for nor a growing minimum explains is the user's own choice.
    auto explained = [](int now, int old, int target, int minimum) {
        return now == old || now == target || now == minimum;
    };
    if (m_userSize.isValid()
        && !(explained(e->size().width(), e->oldSize().width(), m_fitTarget.width(), minimumWidth())
             && explained(e->size().height(), e->oldSize().height(), m_fitTarget.height(), minimumHeight())))
        m_userSize = e->size();
    // The dock column shares a new height in proportion; give the scheme list its lines back if it lost them.
    if (m_docksArranged && e->size().height() != e->oldSize().height())
        QTimer::singleShot(0, this, [this] { giveSchemesTheirHeight(); });
}

void MainWindow::giveSchemesTheirHeight(int pass)
{
    // The rule for the left column: the parameter panel first gets the room for its first
    // ParameterPanel::rowsInView rows (six at 1366 x 768, font scale 1); the scheme list then gets the lines it
    // needs from what is left, and scrolls within its own box where that is not enough (every scheme stays
    // reachable). Whatever is left over after both goes to the parameters (more rows, the rest scroll).
    if (m_schemesDock->isHidden() || m_schemesDock->isFloating() || m_parametersDock->isHidden())
        return;
    auto* area = qobject_cast<QAbstractScrollArea*>(m_parametersDock->widget());
    const int total = m_schemesDock->height() + m_parametersDock->height();
    const int around = area ? m_parametersDock->height() - area->viewport()->height() : 0;
    const int rowsNeed = m_panel->heightForRows(ParameterPanel::rowsInView) + around;
    const int missing = m_picker->listScroll()->sizeHint().height() - m_picker->listScroll()->height();
    const int most = std::max(m_schemesDock->minimumSizeHint().height(), total - rowsNeed);
    const int want = std::min(m_schemesDock->height() + std::max(0, missing), most);
    if (std::abs(want - m_schemesDock->height()) <= 1 || total - want < m_parametersDock->minimumSizeHint().height())
        return;
    resizeDocks({m_schemesDock, m_parametersDock}, {want, total - want}, Qt::Vertical); // both: one moves half
    // The dock layout rounds and subtracts its separators: look again once it has settled.
    if (pass < 2)
        QTimer::singleShot(0, this, [this, pass] { giveSchemesTheirHeight(pass + 1); });
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    if (!settleUnsaved()) {
        e->ignore();
        return;
    }
    foldSidePanels(false); // the panels the user has on are saved on, folded for room or not
    saveLayout();
    e->accept();
}

void MainWindow::showMessage(const QString& text, bool problem)
{
    m_message->setStyleSheet(problem ? QStringLiteral("color: #d0302f; font-weight: bold;") : QString());
    m_message->setText(text);
    m_message->setToolTip(text);
    m_messageTimer->start(10000);
}

void MainWindow::buildFileMenu()
{
    m_fileMenu = menuBar()->addMenu(tr("&File"));
    m_fileMenu->setObjectName(QStringLiteral("menuFile"));
    const QString filter = tr("PosLab sessions (*.%1);;JSON states and training runs (*.json);;All files (*)").arg(QLatin1String(sessionExtension));
    QAction* newAction = m_fileMenu->addAction(tr("&New"), this, [this] {
        if (settleUnsaved())
            newSession();
    });
    newAction->setShortcut(QKeySequence::New);
    newAction->setObjectName(QStringLiteral("actionNew"));
    QAction* open = m_fileMenu->addAction(tr("&Open\u2026"), this, [this, filter] {
        if (!settleUnsaved())
            return;
        const QString dir = m_sessionPath.isEmpty() ? QDir::homePath() : QFileInfo(m_sessionPath).absolutePath();
        const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), dir, filter);
        if (!path.isEmpty())
            openSession(path);
    });
    open->setShortcut(QKeySequence::Open);
    open->setObjectName(QStringLiteral("actionOpen"));
    QMenu* recent = m_fileMenu->addMenu(tr("Open &recent"));
    recent->setObjectName(QStringLiteral("menuRecent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        const QStringList files = recentSessions();
        for (const QString& f : files)
            recent->addAction(QDir::toNativeSeparators(f), this, [this, f] {
                if (settleUnsaved())
                    openSession(f);
            });
        if (files.isEmpty())
            recent->addAction(tr("(none yet)"))->setEnabled(false);
    });
    QAction* save = m_fileMenu->addAction(tr("&Save"), this, [this, filter] {
        QString path = m_sessionPath;
        if (path.isEmpty())
            path = QFileDialog::getSaveFileName(this, tr("Save session"), QDir::home().filePath(tr("lecture.poslab")), filter);
        if (!path.isEmpty())
            saveSession(path);
    });
    save->setShortcut(QKeySequence::Save);
    save->setObjectName(QStringLiteral("actionSave"));
    QAction* saveAs = m_fileMenu->addAction(tr("Save &as\u2026"), this, [this, filter] {
        const QString start = m_sessionPath.isEmpty() ? QDir::home().filePath(tr("lecture.poslab")) : m_sessionPath;
        const QString path = QFileDialog::getSaveFileName(this, tr("Save session as"), start, filter);
        if (!path.isEmpty())
            saveSession(path);
    });
    saveAs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    saveAs->setObjectName(QStringLiteral("actionSaveAs"));
    m_fileMenu->addSeparator();
    QAction* config = m_fileMenu->addAction(tr("Open model &config\u2026"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a Hugging Face config.json"), QDir::homePath(),
                                                          tr("Model configs (*.json);;All files (*)"));
        if (!path.isEmpty())
            openModelConfig(path);
    });
    config->setObjectName(QStringLiteral("actionOpenConfig"));
    config->setToolTip(tr("Show a real model's positional settings from its config.json"));
    QAction* table = m_fileMenu->addAction(tr("Open position &table\u2026"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open a learned position table"), QDir::homePath(),
            tr("Position tables (*.npy *.safetensors);;All files (*)"));
        if (!path.isEmpty())
            openPositionTable(path);
    });
    table->setObjectName(QStringLiteral("actionOpenTable"));
    table->setToolTip(tr("A learned position table from a .npy file or a tensor of a .safetensors file"));
    m_fileMenu->addSeparator();

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->setObjectName(QStringLiteral("menuEdit"));
    QAction* copyState = edit->addAction(tr("Copy state &link"), this, [this] {
        const QString link = stateLink();
        QGuiApplication::clipboard()->setText(link);
        showMessage(tr("Copied a link to this view (%1 characters); paste it with Ctrl+Shift+V or give it to "
                       "poslab --state").arg(link.size()), false);
    });
    copyState->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    copyState->setObjectName(QStringLiteral("actionCopyState"));
    QAction* pasteState = edit->addAction(tr("&Paste state"), this, [this] {
        loadStateText(QGuiApplication::clipboard()->text());
    });
    pasteState->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
    pasteState->setObjectName(QStringLiteral("actionPasteState"));

    // Presets: real models, grouped by scheme, each with its name and id.
    QMenu* presetMenu = menuBar()->addMenu(tr("&Presets"));
    presetMenu->setObjectName(QStringLiteral("menuPresets"));
    std::map<QString, QMenu*> groups;
    for (const QJsonObject& p : presets()) {
        const QString schemeId = p.value(QLatin1String("scheme")).toString();
        const core::SchemeDescriptor* scheme = core::findScheme(schemeId.toStdString());
        // A grid or sequence model (ViT, Qwen2-VL) sets the spatial set-up: grouped under its spatial scheme.
        if (const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(schemeId.toStdString()); !scheme && d)
            scheme = &d->info;
        if (!scheme)
            continue;
        const QString group = QString::fromStdString(scheme->name);
        QMenu*& sub = groups[group];
        if (!sub)
            sub = new QMenu(group, presetMenu);
        const QString id = p.value(QLatin1String("id")).toString();
        QAction* a = sub->addAction(p.value(QLatin1String("name")).toString(), this, [this, id] { loadPreset(id); });
        a->setObjectName(QStringLiteral("preset:") + id);
        a->setToolTip(p.value(QLatin1String("source")).toString());
    }
    for (auto& [name, sub] : groups)
        presetMenu->addMenu(sub);
    presetMenu->setToolTipsVisible(true);
}

QString MainWindow::loadModelState(const QJsonObject& state, const QString& what)
{
    // A grid or sequence scheme: the spatial set-up (one undo step), shown in the patch grid or sequence view.
    std::optional<SpatialSetup> spatial;
    try {
        spatial = spatialSetupOf(state, m_state->spatial());
    } catch (const std::exception& e) {
        showMessage(tr("Cannot load %1: %2").arg(what, QString::fromStdString(e.what())), true);
        return QString::fromStdString(e.what());
    }
    if (spatial) {
        if (const QString problem = m_state->setSpatial(*spatial); !problem.isEmpty()) {
            showMessage(tr("Cannot load %1: %2").arg(what, problem), true);
            return problem;
        }
        const bool grid = core::findSpatialScheme(spatial->scheme)->input == core::SpatialInput::Grid;
        setMaximisedView(view(grid ? QStringLiteral("patchgrid") : QStringLiteral("sequence")));
        const QString name = state.value(QLatin1String("model")).toObject().value(QLatin1String("name")).toString(what);
        showMessage(tr("%1: %2, %3, d = %4 (Ctrl+Z goes back)")
                        .arg(name, QString::fromStdString(spatial->scheme),
                             grid ? tr("grid %1").arg(QString::fromStdString(core::gridText(spatial->grid)))
                                  : tr("sequence %1").arg(QString::fromStdString(core::sequenceText(spatial->sequence))))
                        .arg(spatial->dim),
                    false);
        return {};
    }
    if (const QString problem = m_state->fromJson(state, true); !problem.isEmpty()) {
        showMessage(tr("Cannot load %1: %2").arg(what, problem), true);
        return problem;
    }
    const QJsonObject model = state.value(QLatin1String("model")).toObject();
    QStringList unverified;
    for (const QJsonValue& v : model.value(QLatin1String("unverified")).toArray())
        unverified << v.toString();
    QString text = tr("%1: %2, head dim %3").arg(model.value(QLatin1String("name")).toString(what), m_state->schemeId())
                       .arg(m_state->dim());
    if (!unverified.isEmpty())
        text += tr("; unverified in the sources: %1").arg(unverified.join(QStringLiteral(", ")));
    text += tr(" (Ctrl+Z goes back)");
    showMessage(text, false);
    return {};
}

QString MainWindow::loadPreset(const QString& id)
{
    const std::optional<QJsonObject> preset = findPreset(id);
    if (!preset) {
        const QString problem = tr("unknown preset '%1'").arg(id);
        showMessage(problem, true);
        return problem;
    }
    return loadModelState(presetState(*preset), id);
}

QString MainWindow::openModelConfig(const QString& path)
{
    ModelConfig config;
    try {
        config = readModelConfig(path);
    } catch (const std::exception& e) {
        const QString problem = QString::fromStdString(e.what());
        showMessage(problem, true);
        return problem;
    }
    if (const QString problem = loadModelState(config.state, QFileInfo(path).fileName()); !problem.isEmpty())
        return problem;
    QString text = m_message->text();
    text += tr(" \u2014 used %1 keys").arg(config.used.size());
    if (!config.unmapped.isEmpty())
        text += tr("; not shown: %1").arg(config.unmapped.join(QStringLiteral("; ")));
    showMessage(text, !config.unmapped.isEmpty());
    return {};
}

QString MainWindow::openPositionTable(const QString& path)
{
    // The learned scheme reads the file itself (core's .npy / .safetensors readers): choose the scheme, then
    // the file; a .safetensors file with several tables asks which tensor.
    QString tensor;
    if (path.endsWith(QLatin1String(".safetensors"), Qt::CaseInsensitive)) {
        bool ok = false;
        tensor = QInputDialog::getText(this, tr("Tensor"),
                                       tr("Name of the position table in the file (e.g. wpe.weight, "
                                          "embeddings.position_embeddings.weight; empty: the only 2-D tensor)"),
                                       QLineEdit::Normal, QString(), &ok);
        if (!ok)
            return tr("cancelled");
    }
    // The file fixes the dimension (its columns) and the positions it covers (its rows): read it first (core
    // caches it, so the scheme's own read costs nothing), then set all of them as one undo step.
    std::shared_ptr<const core::PositionTable> loaded;
    try {
        loaded = core::loadPositionTable(path.toStdString(), tensor.toStdString());
    } catch (const std::exception& e) {
        const QString problem = QString::fromStdString(e.what());
        showMessage(problem, true);
        return problem;
    }
    const int cols = int(loaded->values.cols());
    const int rows = int(std::min<Eigen::Index>(loaded->values.rows(), WorkbenchState::maxPositionCount));
    QUndoStack* undo = m_state->undoStack();
    undo->beginMacro(tr("Open position table"));
    QString problem = m_state->setScheme(QStringLiteral("learned"));
    if (problem.isEmpty())
        problem = m_state->setDim(cols);
    if (problem.isEmpty())
        problem = m_state->setPositionCount(rows);
    if (problem.isEmpty())
        problem = m_state->setParamText(QStringLiteral("table_tensor"), tensor);
    if (problem.isEmpty())
        problem = m_state->setParamText(QStringLiteral("table_file"), path);
    undo->endMacro();
    if (!problem.isEmpty()) {
        if (undo->canUndo() && undo->undoText() == tr("Open position table"))
            undo->undo(); // nothing half-done stays
        showMessage(problem, true);
        return problem;
    }
    showMessage(tr("Learned table from %1: %2 positions \u00d7 %3 dimensions")
                    .arg(QString::fromStdString(loaded->source))
                    .arg(loaded->values.rows())
                    .arg(cols),
                false);
    return {};
}

QString MainWindow::openSession(const QString& path)
{
    if (Computation::isRunFile(path)) { // a poslab train run file: the length lab draws it
        ViewOptions o = m_state->viewOptions();
        o.runFile = QFileInfo(path).absoluteFilePath();
        m_state->setViewOptions(o);
        for (int i = 0; i < m_viewTabs->count(); ++i)
            if (m_viewTabs->tabData(i).toString() == QLatin1String("lengthlab"))
                m_viewTabs->setCurrentIndex(i);
        showMessage(tr("Opened the training runs %1 in the length lab").arg(QDir::toNativeSeparators(path)), false);
        return {};
    }
    QJsonObject json;
    QString problem = readSessionFile(path, &json);
    if (problem.isEmpty()) {
        problem = m_state->fromJson(json, true);
        if (!problem.isEmpty())
            problem = tr("%1: %2").arg(path, problem);
    }
    if (!problem.isEmpty()) {
        showMessage(problem, true);
        return problem;
    }
    applyLayout(json.value(QLatin1String("layout")).toObject());
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    m_sessionKept = json;
    m_state->undoStack()->setClean();
    rememberRecent(m_sessionPath);
    updateTitle();
    showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), false);
    return {};
}

QString MainWindow::saveSession(const QString& path)
{
    QString target = path;
    if (QFileInfo(target).suffix().isEmpty())
        target += QLatin1Char('.') + QLatin1String(sessionExtension);
    const bool sameFile = QFileInfo(target).absoluteFilePath() == m_sessionPath;
    const QJsonObject session = mergeSession(sameFile ? m_sessionKept : QJsonObject(), m_state->toJson(), layoutJson());
    if (const QString problem = writeSessionFile(target, session); !problem.isEmpty()) {
        showMessage(problem, true);
        return problem;
    }
    m_sessionPath = QFileInfo(target).absoluteFilePath();
    m_sessionKept = session;
    m_state->undoStack()->setClean();
    rememberRecent(m_sessionPath);
    updateTitle();
    showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(target)), false);
    return {};
}

QString MainWindow::loadStateText(const QString& text)
{
    QJsonObject json;
    QString label;
    QString problem = readStateSource(text, QDir::currentPath(), &json, &label);
    if (problem.isEmpty()) {
        problem = m_state->fromJson(json, true);
        if (!problem.isEmpty())
            problem = tr("%1: %2").arg(label, problem);
    }
    if (!problem.isEmpty()) {
        showMessage(tr("Cannot load the state: %1").arg(problem), true);
        return problem;
    }
    applyLayout(json.value(QLatin1String("layout")).toObject());
    showMessage(tr("Loaded the state from the %1 (Ctrl+Z goes back)").arg(label), false);
    return {};
}

void MainWindow::newSession()
{
    WorkbenchState fresh;
    m_state->fromJson(fresh.toJson(), true);
    m_sessionPath.clear();
    m_sessionKept = {};
    updateTitle();
}

QString MainWindow::stateLink() const
{
    QJsonObject layout;
    if (maximisedView())
        layout.insert(QStringLiteral("maximised"), maximisedView()->exportName());
    if (!sidePanelsVisible())
        layout.insert(QStringLiteral("side_panels"), false);
    return shareLink(*m_state, layout);
}

QJsonObject MainWindow::layoutJson() const
{
    return QJsonObject{{"maximised", maximisedView() ? maximisedView()->exportName() : QString()},
                       {"side_panels", sidePanelsVisible()}};
}

void MainWindow::applyLayout(const QJsonObject& layout)
{
    if (layout.value(QLatin1String("maximised")).isString())
        setMaximisedView(view(layout.value(QLatin1String("maximised")).toString()));
    // On while folded for room is on already (opening the drawer is the user's F9).
    if (layout.value(QLatin1String("side_panels")).isBool()
        && !(m_panelsFolded && layout.value(QLatin1String("side_panels")).toBool()))
        setSidePanelsVisible(layout.value(QLatin1String("side_panels")).toBool());
}

QStringList MainWindow::recentSessions() const
{
    QStringList files;
    for (const QString& f : QSettings().value("session/recent").toStringList())
        if (QFileInfo::exists(f) && !files.contains(f))
            files << f;
    return files;
}

void MainWindow::rememberRecent(const QString& path)
{
    QStringList files = recentSessions();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > 8)
        files.removeLast();
    QSettings().setValue("session/recent", files);
}

void MainWindow::updateTitle()
{
    const QString base = QStringLiteral("PosLab \u2014 how transformers encode position");
    if (m_sessionPath.isEmpty()) {
        setWindowTitle(base);
        return;
    }
    const bool modified = !m_state->undoStack()->isClean();
    setWindowTitle(QStringLiteral("%1%2 \u2014 PosLab").arg(QFileInfo(m_sessionPath).fileName(),
                                                           modified ? QStringLiteral(" *") : QString()));
}

bool MainWindow::settleUnsaved()
{
    // Only a session that has a file asks: an untitled workbench is a scratch pad. Never in tests or scripts
    // (a hidden window).
    if (m_sessionPath.isEmpty() || m_state->undoStack()->isClean() || !isVisible())
        return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved changes"), tr("Save the changes to %1?").arg(QFileInfo(m_sessionPath).fileName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Save)
        return saveSession(m_sessionPath).isEmpty();
    return true;
}

void MainWindow::buildHelpMenu()
{
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("menuHelp"));
    QAction* lessons = help->addAction(tr("&Lessons"), this, &MainWindow::showLessons);
    lessons->setObjectName(QStringLiteral("actionLessons"));
    lessons->setShortcut(QKeySequence(Qt::Key_F1));
    // A window of text beside the workbench (not modal: the keys can be tried while it is open).
    auto showText = [this](const QString& name, const QString& title, const QString& html) {
        if (auto* open = findChild<QDialog*>(name)) {
            open->raise();
            return;
        }
        auto* d = new QDialog(this);
        d->setObjectName(name);
        d->setAttribute(Qt::WA_DeleteOnClose);
        d->setWindowTitle(title);
        auto* text = new QTextBrowser(d);
        text->setOpenExternalLinks(true);
        text->setHtml(html);
        auto* column = new QVBoxLayout(d);
        column->addWidget(text);
        d->resize(fontMetrics().averageCharWidth() * 70, fontMetrics().height() * 30);
        d->show();
    };
    help->addAction(tr("&Keyboard shortcuts"), this, [this, showText] {
        showText(QStringLiteral("shortcutsWindow"), tr("Keyboard shortcuts"), shortcutsHtml(this));
    })->setObjectName(QStringLiteral("actionShortcuts"));
    help->addAction(tr("&About PosLab"), this, [showText] {
        showText(QStringLiteral("aboutWindow"), tr("About PosLab"), aboutHtml());
    })->setObjectName(QStringLiteral("actionAbout"));
}

bool MainWindow::isPresenting() const { return m_presentation; }
Presentation* MainWindow::presentation() const { return m_presentation; }
FirstRunHint* MainWindow::firstRunHint() const { return m_hint; }

bool MainWindow::offerFirstRunHint()
{
    if (m_hint || FirstRunHint::dismissed())
        return false;
    m_hint = new FirstRunHint(centralWidget());
    connect(m_hint, &FirstRunHint::openLessons, this, &MainWindow::showLessons);
    if (auto* column = qobject_cast<QVBoxLayout*>(centralWidget()->layout()))
        column->insertWidget(0, m_hint);
    m_hint->show();
    return true;
}

void MainWindow::buildLessons()
{
    m_lessons = new LessonBrowser(m_state, this);
    m_lessonsDock = new QDockWidget(tr("Lessons"), this);
    m_lessonsDock->setObjectName(QStringLiteral("dockLessons"));
    m_lessonsDock->setWidget(m_lessons);
    addDockWidget(Qt::RightDockWidgetArea, m_lessonsDock);
    m_lessonsDock->hide();
    connect(m_lessons, &LessonBrowser::viewsRequested, this, &MainWindow::showStepViews);
    connect(m_lessons, &LessonBrowser::lockChanged, this, &MainWindow::applyStepLock);
    connect(m_lessons, &LessonBrowser::knobRequested, this, &MainWindow::focusKnob);
    connect(m_lessons, &LessonBrowser::message, this, &MainWindow::showMessage);
    connect(m_lessons, &LessonBrowser::stepShown, this, [this] {
        if (m_presentation && !m_quietSlide)
            showSlide();
    });
    // Closed, the lessons hide no answer in the views; shown again, a guess still due hides them again.
    connect(m_lessonsDock, &QDockWidget::visibilityChanged, this, [this] { m_lessons->setAnswersShown(!m_lessonsDock->isHidden()); });
}

void MainWindow::showLessons()
{
    const bool first = m_lessonsDock->isHidden();
    m_lessonsDock->show();
    m_lessonsDock->raise();
    if (first) // room for a sentence of a few words per line, at any font scale
        resizeDocks({m_lessonsDock}, {fontMetrics().averageCharWidth() * 34}, Qt::Horizontal);
}

QString MainWindow::openLessonStep(const QString& id)
{
    const lessons::Lesson* lesson = nullptr;
    int index = 0;
    if (!lessons::findStep(id, &lesson, &index))
        return tr("no lesson step '%1' (steps are named LESSON.STEP, e.g. 2.1; poslab lessons lists them)").arg(id);
    showLessons();
    m_lessons->open(int(lesson - m_lessons->lessonList().constData()), index);
    return m_lessons->needsGuess() ? QString() : m_lessons->tryIt();
}

void MainWindow::showStepViews(const QStringList& views)
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

void MainWindow::applyStepLock(const std::optional<QStringList>& unlocked)
{
    m_panel->setUnlocked(unlocked);
    const auto open = [&](const char* knob) { return !unlocked || unlocked->contains(QLatin1String(knob)); };
    const QString tip = ParameterPanel::lockedTip();
    m_picker->setEnabled(open("scheme"));
    m_picker->setToolTip(open("scheme") ? QString() : tip);
    for (QWidget* w : {static_cast<QWidget*>(m_cursorSlider), static_cast<QWidget*>(m_cursorSpin)}) {
        w->setEnabled(open("cursor"));
        w->setToolTip(open("cursor") ? QString() : tip);
    }
    // The views' own controls, each the knob it changes (view properties by name; the rotation view's layout
    // box is the scheme's layout parameter; the clock's play button moves the cursor). Views opened later
    // (tabs are made on first use) get the lock when the next step applies it.
    static const QHash<QString, const char*> knobOf{
        {QStringLiteral("attentionKind"), "softmax"},      {QStringLiteral("attentionMask"), "causal"},
        {QStringLiteral("attentionHead"), "head"},         {QStringLiteral("attentionHeads"), "heads"},
        {QStringLiteral("attentionContent"), "content"},   {QStringLiteral("attentionTerm"), "term"},
        {QStringLiteral("attentionSentence"), "sentence"}, {QStringLiteral("clockPlay"), "cursor"},
        {QStringLiteral("clockSpeed"), "speed"},           {QStringLiteral("clockStyle"), "pendulum"},
        {QStringLiteral("clockPairs"), "clock_pairs"},     {QStringLiteral("pipelineMode"), "pipeline_mode"},
        {QStringLiteral("pipelinePair"), "pipeline_pair"}, {QStringLiteral("rotationDistance"), "key_distance"},
        {QStringLiteral("rotationShift"), "shift"},        {QStringLiteral("rotationLayout"), "layout"},
        {QStringLiteral("tableQuantity"), "table_quantity"}, {QStringLiteral("tableColormap"), "colormap"},
    };
    const auto controls = findChildren<QWidget*>();
    for (QWidget* w : controls) {
        const auto it = knobOf.constFind(w->objectName());
        if (it == knobOf.constEnd())
            continue;
        const bool free = open(it.value());
        if (!w->property("poslabLocked").toBool() && !free)
            w->setProperty("poslabUnlockedTip", w->toolTip());
        w->setProperty("poslabLocked", !free);
        // A part of the logits has no softmax: the attention view keeps its kind box off while a term is shown.
        const bool usable = w->objectName() != QLatin1String("attentionKind") || m_state->viewOptions().term.isEmpty();
        w->setEnabled(free && usable);
        w->setToolTip(free ? w->property("poslabUnlockedTip").toString() : tip);
    }
}

void MainWindow::focusKnob(const QString& name)
{
    QWidget* target = nullptr;
    if (name == QLatin1String("cursor"))
        target = m_cursorSpin;
    else if (QLineEdit* e = m_panel->edit(name))
        target = e;
    else if (QWidget* c = m_panel->combo(name))
        target = c;
    else if (QWidget* b = m_panel->check(name))
        target = b;
    if (target) {
        if (target != m_cursorSpin)
            setSidePanelsVisible(true);
        target->setFocus(Qt::OtherFocusReason);
        return;
    }
    if (const ViewProperty* p = findViewProperty(name))
        showMessage(tr("%1 (a view option) is %2").arg(p->label, propertyText(*p, m_state->viewOptions())), false);
}

PresentationPage MainWindow::presentationPage() const
{
    PresentationPage page;
    if (m_lessons && m_lessons->lesson() && !m_lessonsDock->isHidden()) {
        // A lesson step: its views, its title, and its "Do" line or the prediction the room is asked for.
        const lessons::Lesson& l = *m_lessons->lesson();
        const lessons::Step* s = m_lessons->step();
        const auto plain = [](const QString& html) { return QTextDocumentFragment::fromHtml(html).toPlainText(); };
        page.counter = tr("Lesson %1 \u00b7 %2 / %3").arg(l.number).arg(m_lessons->stepIndex() + 1).arg(l.steps.size());
        if (s) {
            page.heading = QStringLiteral("%1 \u00b7 %2").arg(s->id, s->title);
            page.views = s->views;
            const QString choices = s->predict && !s->predict->choices.isEmpty()
                                        ? QStringLiteral(" [%1]").arg(s->predict->choices.join(QStringLiteral(" \u00b7 ")))
                                        : QString();
            if (s->predict && m_lessons->needsGuess())
                page.footer = tr("Predict: %1%2 (Right reveals)").arg(plain(m_lessons->liveText(s->predict->prompt, s, nullptr)), choices);
            else if (s->predict)
                page.footer = tr("Predict: %1 \u2014 the answer: %2").arg(plain(m_lessons->liveText(s->predict->prompt, s, nullptr)),
                                                                        m_lessons->predictionAnswer());
            else
                page.footer = plain(m_lessons->liveText(s->doText, s, nullptr));
            // T on the slide: the step's text with its live values, then its notices (values and ticks); a
            // prediction's answer stays out until it is revealed (the notices may state it).
            page.formula = s->formula;
            page.notes = m_lessons->liveText(s->text, s, nullptr);
            if (!(s->predict && m_lessons->needsGuess())) {
                page.derivation = s->derivation; // D opens it once the room has guessed
                const QStringList notices = m_lessons->noticeTexts();
                if (!notices.isEmpty())
                    page.notes += QStringLiteral("<ul><li>%1</li></ul>").arg(notices.join(QStringLiteral("</li><li>")));
            }
            // The presenter view only: the answer before the room sees it, and what comes next.
            if (s->predict) {
                page.answer = m_lessons->predictionAnswer();
                if (const QString why = plain(m_lessons->liveText(s->predict->because, s, nullptr)); !why.isEmpty())
                    page.answer += QStringLiteral(" \u2014 ") + why;
            }
            const int i = m_lessons->stepIndex();
            if (i + 1 < l.steps.size())
                page.next = QStringLiteral("%1 \u00b7 %2").arg(l.steps[i + 1].id, l.steps[i + 1].title);
            else if (l.puzzle)
                page.next = tr("Lesson %1 \u00b7 puzzle").arg(l.number);
        } else {
            page.heading = tr("Lesson %1 \u00b7 puzzle").arg(l.number);
            page.counter = tr("Lesson %1 \u00b7 puzzle").arg(l.number);
            page.views = l.steps.isEmpty() ? QStringList() : l.steps.back().views;
            page.footer = l.puzzle ? l.puzzle->prompt : QString();
        }
        return page;
    }
    // Without a lesson: the workbench as it is, the view shown alone or the grid (their titles say the rest).
    if (View* alone = maximisedView())
        page.views << alone->exportName();
    else
        for (const ViewEntry& e : viewRegistry())
            if (e.inGrid)
                page.views << QString::fromLatin1(e.id);
    return page;
}

QString MainWindow::loadStepFigure()
{
    const lessons::Step* s = m_lessons->step();
    if (!s)
        return {}; // the puzzle keeps the last step's state
    if (!m_lessons->needsGuess())
        return m_lessons->tryIt();
    // A prediction waits: the step's figure all the same (the answer, not the figure, stays hidden), loaded as
    // "Try it" loads it, with the room's theme and font scale.
    QJsonObject json = lessons::stepState(*m_lessons->lesson(), m_lessons->stepIndex());
    QJsonObject view = json.value(QLatin1String("view")).toObject();
    for (const char* name : {"theme", "font_scale"})
        if (const ViewProperty* p = findViewProperty(QLatin1String(name)); p && !view.contains(QLatin1String(name)))
            view.insert(QLatin1String(name), propertyJson(*p, m_state->viewOptions()));
    json.insert(QLatin1String("view"), view);
    if (const QString problem = m_state->fromJson(json, true); !problem.isEmpty()) {
        showMessage(tr("Step %1 cannot load its state: %2").arg(s->id, problem), true);
        return problem;
    }
    applyStepLock(s->knobs);
    showStepViews(s->views);
    return {};
}

void MainWindow::presentationStep(int delta)
{
    // The step's state is loaded before the slide shows its title, and the views wait for their results: a new
    // title never stands over the previous step's figure.
    {
        const QScopedValueRollback quiet(m_quietSlide, true); // stepShown would lay the slide out before its state
        if (m_lessons && m_lessons->lesson() && !m_lessonsDock->isHidden()) {
            // Next: a prediction the room was asked for is revealed first, then the next step.
            // Back: the step before, loaded as it was (its prediction revealed). Home / End: presentationJump().
            if (delta > 0 && m_lessons->needsGuess()) {
                m_lessons->reveal();
                m_lessons->tryIt();
            } else if (delta > 0 ? m_lessons->next() : m_lessons->back()) {
                if (delta < 0 && m_lessons->needsGuess())
                    m_lessons->reveal();
                loadStepFigure();
            }
        } else {
            m_state->stepCursor(delta);
        }
    }
    if (m_presentation) {
        showSlide();
        m_presentation->holdUntilComputed();
    }
}

void MainWindow::presentationJump(bool last)
{
    if (!(m_lessons && m_lessons->lesson() && !m_lessonsDock->isHidden())) {
        m_state->setCursor(last ? m_state->positionCount() - 1 : 0);
        return;
    }
    {
        const QScopedValueRollback quiet(m_quietSlide, true);
        m_lessons->open(m_lessons->lessonIndex(), last ? m_lessons->stepCount() - 1 : 0);
        loadStepFigure();
    }
    if (m_presentation) {
        showSlide();
        m_presentation->holdUntilComputed();
    }
}

void MainWindow::setPresenting(bool on)
{
    if (on == isPresenting())
        return;
    if (!on) {
        m_presentation->hide();
        delete m_presentation; // gives the state its font scale back
        activateWindow();
        scheduleArrange(); // the grid fits the room at the window's own font scale again
        return;
    }
    m_windowScale = m_state->viewOptions().fontScale;
    m_talkClock.start();
    m_presentation = new Presentation(m_state, m_computation, this);
    connect(m_presentation, &Presentation::presenterRequested, this, [this] { setPresenterShown(!m_presenter); });
    connect(m_presentation, &Presentation::nextRequested, this, [this] { presentationStep(1); });
    connect(m_presentation, &Presentation::backRequested, this, [this] { presentationStep(-1); });
    connect(m_presentation, &Presentation::leaveRequested, this, [this] { setPresenting(false); }, Qt::QueuedConnection);
    connect(m_presentation, &Presentation::firstRequested, this, [this] { presentationJump(false); });
    connect(m_presentation, &Presentation::lastRequested, this, [this] { presentationJump(true); });
    connect(m_presentation, &Presentation::cursorRequested, m_state, &WorkbenchState::stepCursor);
    connect(m_presentation, &Presentation::playRequested, m_state, &WorkbenchState::togglePlaying);
    // A step opened before (poslab --present --lesson 12.2, F5 in a lesson): its figure, not the workbench's.
    if (m_lessons && m_lessons->step() && !m_lessonsDock->isHidden()) {
        const QScopedValueRollback quiet(m_quietSlide, true);
        loadStepFigure();
    }
    m_presentation->setPage(presentationPage());
    if (QScreen* sc = screen()) {
        m_presentation->setScreen(sc);
        m_presentation->setGeometry(sc->geometry());
    }
    m_presentation->showFullScreen();
    // A second screen: the presenter view opens there, as slide software's does.
    if (m_presenterWanted || QGuiApplication::screens().size() > 1)
        setPresenterShown(true);
    m_presentation->activateWindow();
}

PresenterView* MainWindow::presenterView() const { return m_presenter; }

void MainWindow::showSlide()
{
    const PresentationPage page = presentationPage();
    if (m_presentation)
        m_presentation->setPage(page);
    if (m_presenter)
        m_presenter->setPage(page);
}

void MainWindow::setPresenterShown(bool on)
{
    if (!on || !m_presentation) {
        delete m_presenter;
        return;
    }
    if (m_presenter)
        return;
    m_presenter = new PresenterView(this);
    m_presenter->setKeyTarget(m_presentation);
    m_presenter->setClock(m_talkClock);
    m_presenter->setFontScale(m_windowScale);
    m_presenter->setPage(presentationPage());
    // On the screen the slide is not on, when there is one; else over the slide until P closes it.
    QScreen* slide = m_presentation->screen();
    for (QScreen* sc : QGuiApplication::screens())
        if (sc != slide) {
            m_presenter->setScreen(sc);
            m_presenter->setGeometry(sc->availableGeometry());
            break;
        }
    connect(m_presentation, &QObject::destroyed, m_presenter, &QObject::deleteLater);
    m_presenter->show();
}

} // namespace poslab::ui
