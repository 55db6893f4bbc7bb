// SPDX-License-Identifier: MIT
#include "ui/window/mainwindow.h"

#include "ui/figures/computation.h"
#include "ui/state/workbenchstate.h"
#include "ui/views/view.h"
#include "ui/views/viewlist.h"
#include "ui/window/classroomcontroller.h"
#include "ui/window/comparecontroller.h"
#include "ui/window/leftcolumn.h"
#include "ui/window/panelscroll.h"
#include "ui/window/parameterpanel.h"
#include "ui/window/schemepicker.h"
#include "ui/window/sessioncontroller.h"
#include "ui/window/statusline.h"
#include "ui/window/transportbar.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDebug>
#include <QDockWidget>
#include <QLayout>
#include <QMenu>
#include <QMenuBar>
#include <QResizeEvent>
#include <QScreen>
#include <QSettings>
#include <QStyle>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>

namespace poslab::ui {

MainWindow::MainWindow(QWidget* parent, bool restore)
    : QMainWindow(parent)
    , m_state(new WorkbenchState(this))
    , m_computation(new Computation(m_state, this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(QStringLiteral("PosLab \u2014 how transformers encode position"));
    m_baseFontPt = std::max(11.0, QApplication::font().pointSizeF());

    // In the order the window's parts were always made (Help > Keyboard shortcuts lists actions by it).
    buildDocks();
    m_grid = new ViewGrid(this, m_state, m_computation, m_schemesDock, m_parametersDock);
    m_transport = new TransportBar(this, m_state);
    m_session = new SessionController(this, m_state);
    buildMenus();
    m_compare
        = new CompareController(this, m_state, m_schemesDock, m_parametersDock, m_picker, m_parametersDock->widget());
    m_classroom = new ClassroomController(this, m_state, m_computation, m_panel, m_picker, m_transport->cursorSlider(),
                                          m_transport->cursorSpin());
    m_grid->setLessonsDock(m_classroom->lessonsDock());
    m_grid->addShortcuts();
    m_status = new StatusLine(this, m_state, m_computation);
    wireControllers();

    connect(m_state, &WorkbenchState::viewOptionsChanged, this, &MainWindow::applyTheme);
    // The grid's fit to the room (arrangeGrid()) follows the font scale, compare mode (A | B halves) and the
    // views' header controls (another scheme); the window's size changes come through the page's resizes.
    for (auto signal :
         {&WorkbenchState::viewOptionsChanged, &WorkbenchState::compareChanged, &WorkbenchState::schemeChanged})
        connect(m_state, signal, m_grid, &ViewGrid::scheduleArrange);

    resize(1600, 1000);
    if (restore)
        restoreLayout();
    applyTheme();
    fitToScreen(); // 1600 x 1000, or a size remembered from a larger monitor, may not fit this screen
    // What the window opens with is not an edit: undo starts here, and the session is unmodified.
    m_state->undoStack()->clear();
    connect(m_state->undoStack(), &QUndoStack::cleanChanged, m_session, &SessionController::updateTitle);
    m_session->updateTitle();
    // From here on the views' figures are computed off the UI thread (B's too: compareComputation copies it); the
    // window opens with every figure computed.
    m_computation->setAsynchronousFigures(true);
}

MainWindow::~MainWindow()
{
    // The state is a child, deleted after this body: its undo stack then emits cleanChanged, and a slot of this
    // window, by then only a QWidget, would run (UndefinedBehaviorSanitizer: a downcast to a destroyed type).
    // The controllers go now, and their connections with them; the classroom first, which deletes the
    // presentation before the state it gives its font scale back to (a child deleted before it).
    m_state->undoStack()->disconnect(this);
    m_state->disconnect(this);
    for (QObject* c : std::initializer_list<QObject*>{m_grid, m_transport, m_session, m_compare, m_status}) {
        m_state->undoStack()->disconnect(c);
        m_state->disconnect(c);
    }
    delete m_classroom;
    delete m_status;
    delete m_compare;
    delete m_session;
    delete m_transport;
    delete m_grid;
}

void MainWindow::buildDocks()
{
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
    right->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, right);
    splitDockWidget(left, right, Qt::Vertical);
    resizeDocks({left, right}, {380, 520}, Qt::Vertical);
    resizeDocks({left}, {340}, Qt::Horizontal);
}

void MainWindow::wireControllers()
{
    connect(m_session, &SessionController::message, this, &MainWindow::showMessage);
    connect(m_compare, &CompareController::message, this, &MainWindow::showMessage);
    connect(m_classroom, &ClassroomController::message, this, &MainWindow::showMessage);
    connect(m_classroom, &ClassroomController::stepViewsRequested, m_grid, &ViewGrid::showStepViews);
    connect(m_classroom, &ClassroomController::presentationEnded, m_grid, &ViewGrid::scheduleArrange);
    // The left column's height rule (leftcolumn.h) runs again when a scheme picker needs another height.
    auto refit = [this] { QTimer::singleShot(0, this, [this] { giveSchemesTheirHeight(); }); };
    connect(m_picker, &SchemePicker::roomChanged, this, refit);
    connect(m_compare, &CompareController::pickerRoomChanged, this, refit);
    // The story link names the scheme of the view in front (the spatial one on the patch-grid and sequence tabs).
    connect(m_grid, &ViewGrid::frontViewChanged, this, [this](const QString& name) {
        m_picker->setFrontView(name);
        m_compare->setFrontView(name);
    });
}

View* MainWindow::view(const QString& name)
{
    return m_grid->view(name);
}
void MainWindow::setMaximisedView(View* view)
{
    m_grid->setMaximisedView(view);
}
void MainWindow::bringForward(View* view)
{
    m_grid->bringForward(view);
}
std::vector<View*> MainWindow::gridViews() const
{
    return m_grid->gridViews();
}
void MainWindow::arrangeGrid()
{
    m_grid->arrangeGrid();
}
void MainWindow::setSidePanelsVisible(bool on)
{
    m_grid->setSidePanelsVisible(on);
}
bool MainWindow::sidePanelsVisible() const
{
    return m_grid->sidePanelsVisible();
}

QMenu* MainWindow::fileMenu() const
{
    return m_session->fileMenu();
}
QString MainWindow::openSession(const QString& path)
{
    return m_session->openSession(path);
}
QString MainWindow::saveSession(const QString& path)
{
    return m_session->saveSession(path);
}
QString MainWindow::loadStateText(const QString& text)
{
    return m_session->loadStateText(text);
}
QString MainWindow::loadPreset(const QString& id)
{
    return m_session->loadPreset(id);
}
QString MainWindow::openModelConfig(const QString& path)
{
    return m_session->openModelConfig(path);
}
QString MainWindow::openPositionTable(const QString& path)
{
    return m_session->openPositionTable(path);
}
void MainWindow::newSession()
{
    m_session->newSession();
}
QString MainWindow::sessionPath() const
{
    return m_session->sessionPath();
}
QString MainWindow::stateLink() const
{
    return m_session->stateLink();
}
QJsonObject MainWindow::layoutJson() const
{
    return m_session->layoutJson();
}
void MainWindow::applyLayout(const QJsonObject& layout)
{
    m_session->applyLayout(layout);
}
QStringList MainWindow::recentSessions() const
{
    return m_session->recentSessions();
}

QMenu* MainWindow::compareMenu() const
{
    return m_compare->compareMenu();
}
void MainWindow::setEditsB(bool editB)
{
    m_compare->setEditsB(editB);
}
bool MainWindow::editsB() const
{
    return m_compare->editsB();
}
ParameterPanel* MainWindow::parameterPanelB() const
{
    return m_compare->parameterPanelB();
}

void MainWindow::setPresenting(bool on)
{
    m_classroom->setPresenting(on);
}
bool MainWindow::isPresenting() const
{
    return m_classroom && m_classroom->isPresenting();
}
Presentation* MainWindow::presentation() const
{
    return m_classroom->presentation();
}
void MainWindow::setPresenterShown(bool on)
{
    m_classroom->setPresenterShown(on);
}
PresenterView* MainWindow::presenterView() const
{
    return m_classroom->presenterView();
}
void MainWindow::setPresenterWanted(bool on)
{
    m_classroom->setPresenterWanted(on);
}
bool MainWindow::offerFirstRunHint()
{
    return m_classroom->offerFirstRunHint();
}
FirstRunHint* MainWindow::firstRunHint() const
{
    return m_classroom->firstRunHint();
}
void MainWindow::showLessons()
{
    m_classroom->showLessons();
}
LessonBrowser* MainWindow::lessonBrowser() const
{
    return m_classroom->lessonBrowser();
}
QString MainWindow::openLessonStep(const QString& id)
{
    return m_classroom->openLessonStep(id);
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

void MainWindow::buildMenus()
{
    // View: what a lecturer reaches for, each with its key (the toolbar's buttons are the same actions).
    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->setObjectName(QStringLiteral("menuView"));
    m_grid->addSidePanelsAction(viewMenu);
    viewMenu->addSeparator();
    viewMenu->addAction(m_transport->themeAction());
    viewMenu->addAction(m_transport->smallerAction());
    viewMenu->addAction(m_transport->largerAction());
    viewMenu->addAction(m_transport->fullScreenAction());
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
    QAction* present = viewMenu->addAction(tr("Presentation mode"), this, [this] { setPresenting(!isPresenting()); });
    present->setObjectName(QStringLiteral("actionPresentation"));
    present->setShortcut(presentationKey);
    present->setToolTip(tr("Only the step's views, full screen, large type; Right/Left or a clicker's "
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

void MainWindow::setComputePath(gpu::ComputePath p, bool remember)
{
    m_computation->setComputePath(p);
    for (QAction* a : m_pathGroup->actions())
        a->setChecked(a->data().toInt() == int(p));
    if (remember)
        QSettings().setValue("compute/path",
                             p == gpu::ComputePath::Cpu       ? "cpu"
                                 : p == gpu::ComputePath::Gpu ? "gpu"
                                                              : "auto");
}

gpu::ComputePath MainWindow::computePath() const
{
    return m_computation->computePath();
}

QString MainWindow::tablePathText() const
{
    return m_status->tablePathText();
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
    if (m_grid->sidePanelsFolded()) // the drawer's panels, windows of their own, follow the scale too
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
    for (View* v : views())
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
    m_grid->saveSplit(s);
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
    sidePanelsAction()->setChecked(sidePanelsVisible());
    m_docksArranged = s.contains("window/state"); // the user's own split of the column stays
    m_viewsSplit = s.contains("layout/vertical"); // the user's own split of the rows stays
    m_grid->restoreSplit(s);
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
    setComputePath(path == "cpu"       ? gpu::ComputePath::Cpu
                       : path == "gpu" ? gpu::ComputePath::Gpu
                                       : gpu::ComputePath::Auto);
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
        QTimer::singleShot(0, m_grid, &ViewGrid::splitRowsEvenly);
    }
}

void MainWindow::resizeEvent(QResizeEvent* e)
{
    QMainWindow::resizeEvent(e);
    // A size that neither fitToScreen() asked for nor a growing minimum explains is the user's own choice.
    auto explained
        = [](int now, int old, int target, int minimum) { return now == old || now == target || now == minimum; };
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
    fitLeftColumn(this, m_schemesDock, m_parametersDock, pass); // the rule is leftcolumn.h's
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    if (!m_session->settleUnsaved()) {
        e->ignore();
        return;
    }
    m_grid->foldSidePanels(false); // the panels the user has on are saved on, folded for room or not
    saveLayout();
    e->accept();
}

void MainWindow::showMessage(const QString& text, bool problem)
{
    m_status->showMessage(text, problem);
}

} // namespace poslab::ui
