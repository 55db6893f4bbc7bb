// SPDX-License-Identifier: MIT
#include "ui/teaching/presentation.h"

#include "ui/teaching/derivationpage.h"

#include "ui/figures/computation.h"
#include "ui/render/formula.h"
#include "ui/views/view.h"
#include "ui/views/viewlist.h"
#include "ui/state/workbenchstate.h"

#include <QApplication>
#include <QCursor>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QRadialGradient>
#include <QRegularExpression>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

LaserPointer::LaserPointer(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("laserPointer"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setAttribute(Qt::WA_TranslucentBackground);
}

double LaserPointer::radiusFor(int height)
{
    return std::max(6.0, height / 90.0); // 8 px on a 720-line projector, 24 px on a 4K screen
}

void LaserPointer::setPosition(const QPoint& pos)
{
    const double r = radiusFor(height()) * 2.5;
    const auto around
        = [r](QPoint p) { return QRect(p, p).adjusted(-int(r) - 2, -int(r) - 2, int(r) + 2, int(r) + 2); };
    if (m_shown)
        update(around(m_pos));
    m_shown = rect().contains(pos);
    m_pos = pos;
    if (m_shown)
        update(around(m_pos));
}

void LaserPointer::paintEvent(QPaintEvent*)
{
    if (!m_shown)
        return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const double r = radiusFor(height());
    // A glow, then the dot: visible on the light and the dark theme alike.
    QRadialGradient glow(m_pos, 2.5 * r);
    glow.setColorAt(0.0, QColor(255, 30, 30, 150));
    glow.setColorAt(1.0, QColor(255, 30, 30, 0));
    p.setPen(Qt::NoPen);
    p.setBrush(glow);
    p.drawEllipse(QPointF(m_pos), 2.5 * r, 2.5 * r);
    p.setBrush(QColor(235, 20, 20));
    p.setPen(QPen(QColor(255, 255, 255, 200), std::max(1.0, r / 5)));
    p.drawEllipse(QPointF(m_pos), r, r);
}

Presentation::Presentation(WorkbenchState* state, Computation* computation, QWidget* parent)
    : QWidget(parent, Qt::Window)
    , m_state(state)
    , m_computation(computation)
{
    setObjectName(QStringLiteral("presentation"));
    setWindowTitle(tr("PosLab presentation"));
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setCursor(Qt::BlankCursor);
    setAutoFillBackground(true);
    auto* column = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_heading = new QLabel(this);
    m_heading->setObjectName(QStringLiteral("presentationHeading"));
    m_heading->setTextFormat(Qt::PlainText);
    // A long title wraps onto a second line (never cut, never under the counter, never widening the window).
    m_heading->setWordWrap(true);
    m_heading->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_counter = new QLabel(this);
    m_counter->setObjectName(QStringLiteral("presentationCounter"));
    m_counter->setTextFormat(Qt::PlainText);
    m_counter->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    top->addWidget(m_heading, 1);
    top->addWidget(m_counter, 0, Qt::AlignTop);
    m_stage = new QWidget(this);
    m_stage->setObjectName(QStringLiteral("presentationStage"));
    m_stage->setMouseTracking(true);
    m_stage->installEventFilter(this); // lays the views out when it is resized
    m_footer = new QLabel(this);
    m_footer->setObjectName(QStringLiteral("presentationFooter"));
    m_footer->setTextFormat(Qt::PlainText);
    m_footer->setWordWrap(true);
    // T: the step's formula, text and notices between the views and the footer (the views make room).
    m_notes = new QWidget(this);
    m_notes->setObjectName(QStringLiteral("presentationNotes"));
    auto* notesColumn = new QVBoxLayout(m_notes);
    notesColumn->setContentsMargins(0, 0, 0, 0);
    m_notesFormula = new QLabel(m_notes);
    m_notesFormula->setObjectName(QStringLiteral("presentationFormula"));
    m_notesText = new QLabel(m_notes);
    m_notesText->setObjectName(QStringLiteral("presentationNotesText"));
    m_notesText->setTextFormat(Qt::RichText);
    m_notesText->setWordWrap(true);
    m_notesText->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    notesColumn->addWidget(m_notesFormula);
    notesColumn->addWidget(m_notesText, 1);
    m_notes->hide();
    column->addLayout(top);
    column->addWidget(m_stage, 1);
    column->addWidget(m_notes);
    column->addWidget(m_footer);
    m_laser = new LaserPointer(this);
    // B or .: the black screen; ?: the keys.
    m_black = new QWidget(this);
    m_black->setObjectName(QStringLiteral("presentationBlack"));
    m_black->setAttribute(Qt::WA_StyledBackground);
    m_black->setStyleSheet(QStringLiteral("background: black;"));
    m_black->hide();
    m_help = new QLabel(this);
    m_help->setObjectName(QStringLiteral("presentationHelp"));
    m_help->setTextFormat(Qt::RichText);
    m_help->setAutoFillBackground(true);
    m_help->setFrameShape(QFrame::Box);
    m_help->setMargin(16);
    QString rows;
    for (const QString& line : keyHelp())
        rows += QStringLiteral("<tr><td style='padding-right:24px'><b>%1</b></td><td>%2</td></tr>")
                    .arg(line.section(QStringLiteral(": "), 0, 0).toHtmlEscaped(),
                         line.section(QStringLiteral(": "), 1).toHtmlEscaped());
    m_help->setText(tr("<p><b>Presentation keys</b></p><table>%1</table>").arg(rows));
    m_help->hide();
    updateFonts();
}

QStringList Presentation::keyHelp()
{
    return {tr("Right, PageDown: next step (a prediction: reveal its answer first)"),
            tr("Left, PageUp: step back"),
            tr("Home, End: the lesson's first, last step"),
            tr("Up, Down: position cursor +1, \u22121 token (Shift: \u00b110)"),
            tr("Space: play, pause the animation"),
            tr("T: the step's text, formula and notices on the slide"),
            tr("D: the step's derivation page, where it has one (Esc closes it)"),
            tr("P: the presenter view (notes, next step, timer)"),
            tr("R: compare: A and B on shared or on independent ranges"),
            tr("B or .: black screen (any key brings the slide back)"),
            tr("?: these keys"),
            tr("Esc: close what is open over the slide, else leave"),
            tr("F5: leave the presentation")};
}

bool Presentation::isBlack() const
{
    return !m_black->isHidden();
}
bool Presentation::isShowingHelp() const
{
    return !m_help->isHidden();
}
bool Presentation::isShowingNotes() const
{
    return !m_notes->isHidden();
}

QString Presentation::notesText() const
{
    return isShowingNotes() ? QTextDocumentFragment::fromHtml(m_notesText->text()).toPlainText() : QString();
}

void Presentation::showNotes(bool on)
{
    m_notes->setVisible(on);
    updateFonts(); // the formula's image at the text's size
}

void Presentation::placeOverlays()
{
    m_black->setGeometry(rect());
    m_help->setMaximumWidth(width() * 9 / 10);
    m_help->adjustSize();
    m_help->move((width() - m_help->width()) / 2, (height() - m_help->height()) / 2);
    m_laser->raise();
    m_help->raise();
    m_black->raise();
}

void Presentation::holdUntilComputed()
{
    m_holding = true;
    m_holdTicks = 0;
    for (View* v : m_views)
        v->hide();
    QTimer::singleShot(20, this, &Presentation::endHold);
}

void Presentation::endHold()
{
    if (!m_holding)
        return;
    if (m_computation && (m_computation->isBusy() || m_computation->attentionPending()) && ++m_holdTicks < 50) {
        QTimer::singleShot(20, this, &Presentation::endHold);
        return;
    }
    m_holding = false;
    for (View* v : m_views)
        v->show();
    placeOverlays();
}

Presentation::~Presentation()
{
    if (m_scaled) { // the state's own font scale comes back
        ViewOptions o = m_state->viewOptions();
        o.fontScale = m_scaleBefore;
        m_state->applyViewOptions(o);
    }
}

void Presentation::setPage(const PresentationPage& page)
{
    const bool sameViews = page.views == m_page.views && !m_views.empty();
    m_page = page;
    m_heading->setText(page.heading);
    m_heading->setToolTip(page.heading);
    m_counter->setText(page.counter);
    m_heading->setVisible(!page.heading.isEmpty() || !page.counter.isEmpty());
    m_counter->setVisible(m_heading->isVisibleTo(this));
    m_footer->setText(page.footer);
    m_footer->setVisible(!page.footer.isEmpty());
    // The live values stay bold, not links: nothing on a slide is clicked.
    QString notes = page.notes;
    notes.replace(QRegularExpression(QStringLiteral("<a\\b[^>]*>")), QStringLiteral("<b>"))
        .replace(QStringLiteral("</a>"), QStringLiteral("</b>"));
    m_notesText->setText(notes.isEmpty() && page.formula.isEmpty() ? tr("(This page has no text.)") : notes);
    if (!sameViews) {
        for (View* v : m_views)
            delete v;
        m_views.clear();
        for (const QString& id : page.views) {
            const ViewEntry* e = findView(id);
            if (!e)
                continue;
            View* v = e->create(m_state, m_computation);
            v->setParent(m_stage);
            v->setFocusPolicy(Qt::NoFocus); // every key is the presentation's
            v->setMouseTracking(true);
            v->setVisible(!m_holding);
            m_views.push_back(v);
        }
    }
    layoutStage();
    updateFonts(); // the new formula
    placeOverlays();
}

std::vector<QRect> Presentation::arrange(QSize size, int count)
{
    std::vector<QRect> out;
    if (count <= 0)
        return out;
    const int gap = std::max(6, size.width() / 160);
    const int w = size.width(), h = size.height();
    if (count == 1) {
        out.emplace_back(0, 0, w, h);
    } else if (count == 2) {
        const int half = (w - gap) / 2;
        out.emplace_back(0, 0, half, h);
        out.emplace_back(half + gap, 0, w - half - gap, h);
    } else if (count >= 4) {
        // The workbench's grid: two rows, the first one longer.
        const int top = (count + 1) / 2;
        const int rowH = (h - gap) / 2;
        for (int i = 0; i < count; ++i) {
            const int inRow = i < top ? top : count - top;
            const int col = i < top ? i : i - top;
            const int cellW = (w - (inRow - 1) * gap) / inRow;
            const int x = col * (cellW + gap);
            out.emplace_back(x, i < top ? 0 : rowH + gap, col == inRow - 1 ? w - x : cellW,
                             i < top ? rowH : h - rowH - gap);
        }
    } else {
        // The main view on the left, the other two stacked on the right.
        const int mainW = int(std::lround((w - gap) * 0.58));
        out.emplace_back(0, 0, mainW, h);
        const int n = count - 1;
        const int each = (h - (n - 1) * gap) / n;
        for (int i = 0; i < n; ++i) {
            const int y = i * (each + gap);
            out.emplace_back(mainW + gap, y, w - mainW - gap, i == n - 1 ? h - y : each);
        }
    }
    return out;
}

void Presentation::layoutStage()
{
    const std::vector<QRect> rects = arrange(m_stage->size(), int(m_views.size()));
    // The largest scale of the ladder at which every view has room for its labels.
    double scale = scales[std::size(scales) - 1];
    for (double s : scales) {
        bool all = true;
        for (std::size_t i = 0; i < m_views.size(); ++i)
            all = all && m_views[i]->wholeHasRoomAt(QSizeF(rects[i].size()), s);
        if (all) {
            scale = s;
            break;
        }
    }
    m_scale = scale;
    if (isVisible() && std::abs(m_state->viewOptions().fontScale - scale) > 1e-9) {
        if (!m_scaled) {
            m_scaleBefore = m_state->viewOptions().fontScale;
            m_scaled = true;
        }
        ViewOptions o = m_state->viewOptions();
        o.fontScale = scale;
        m_state->applyViewOptions(o); // the look of the room, not an edit to undo
    }
    for (std::size_t i = 0; i < m_views.size(); ++i)
        m_views[i]->setGeometry(rects[i]);
}

void Presentation::updateFonts()
{
    // Pixel sizes from the screen's height: the same share of the screen on a projector and on a 4K monitor.
    const int h = std::max(height(), 360);
    QFont head = font();
    head.setPixelSize(std::max(14, int(h * 0.045)));
    head.setBold(true);
    m_heading->setFont(head);
    QFont counter = head;
    counter.setBold(false);
    m_counter->setFont(counter);
    QFont foot = font();
    foot.setPixelSize(std::max(12, int(h * 0.036)));
    m_footer->setFont(foot);
    const int margin = std::max(8, h / 90);
    layout()->setContentsMargins(margin, margin / 2, margin, margin / 2);
    layout()->setSpacing(margin / 2);
    QFont notes = font();
    notes.setPixelSize(std::max(12, int(h * 0.03)));
    m_notesText->setFont(notes);
    m_notes->setMaximumHeight(h * 2 / 5);
    m_help->setFont(notes);
    const QString tex = m_page.formula;
    if (!tex.isEmpty() && isShowingNotes()) {
        const Formula f(tex);
        const qreal dpr = devicePixelRatioF();
        const QImage img = f.image(notes.pixelSize() * 1.25, palette().color(QPalette::WindowText), dpr);
        m_notesFormula->setPixmap(QPixmap::fromImage(img));
        m_notesFormula->show();
    } else {
        m_notesFormula->clear();
        m_notesFormula->setVisible(false);
    }
}

namespace {

/// The keys the presentation takes from the window's shortcuts (see keyHelp()).
bool isPresentationKey(int key)
{
    switch (key) {
    case Qt::Key_Right:
    case Qt::Key_PageDown:
    case Qt::Key_Left:
    case Qt::Key_PageUp:
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_Home:
    case Qt::Key_End:
    case Qt::Key_Space:
    case Qt::Key_B:
    case Qt::Key_Period:
    case Qt::Key_Question:
    case Qt::Key_T:
    case Qt::Key_D:
    case Qt::Key_P:
    case Qt::Key_R:
    case Qt::Key_Escape:
    case Qt::Key_F5: return true;
    default: return false;
    }
}

} // namespace

void Presentation::keyPressEvent(QKeyEvent* e)
{
    // A black screen: any key brings the slide back, and does nothing else (as slide software does).
    if (isBlack()) {
        m_black->hide();
        return;
    }
    if (!isPresentationKey(e->key())) {
        QWidget::keyPressEvent(e);
        return;
    }
    const int ten = e->modifiers() & Qt::ShiftModifier ? 10 : 1;
    switch (e->key()) {
    case Qt::Key_Right:
    case Qt::Key_PageDown: emit nextRequested(); return;
    case Qt::Key_Left:
    case Qt::Key_PageUp: emit backRequested(); return;
    case Qt::Key_Home: emit firstRequested(); return;
    case Qt::Key_End: emit lastRequested(); return;
    case Qt::Key_Up: emit cursorRequested(ten); return;
    case Qt::Key_Down: emit cursorRequested(-ten); return;
    case Qt::Key_Space: emit playRequested(); return;
    case Qt::Key_B:
    case Qt::Key_Period:
        placeOverlays();
        m_black->show();
        m_black->raise();
        return;
    case Qt::Key_Question:
        m_help->setVisible(!isShowingHelp());
        placeOverlays();
        return;
    case Qt::Key_T: showNotes(!isShowingNotes()); return;
    case Qt::Key_D:
        if (!m_page.derivation.isEmpty())
            DerivationPage::open(m_page.derivation, this, m_page.heading.section(QStringLiteral(" \u00b7 "), 0, 0));
        return;
    case Qt::Key_P: emit presenterRequested(); return;
    case Qt::Key_R:
        if (m_state->comparing())
            m_state->setProperty(QStringLiteral("independent_ranges"), !m_state->viewOptions().independentRanges);
        return;
    case Qt::Key_Escape:
        if (isShowingHelp())
            m_help->hide();
        else if (isShowingNotes())
            showNotes(false);
        else
            emit leaveRequested();
        return;
    case Qt::Key_F5: emit leaveRequested(); return;
    default: QWidget::keyPressEvent(e);
    }
}

void Presentation::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    m_laser->setGeometry(rect());
    updateFonts();
    placeOverlays();
}

bool Presentation::event(QEvent* e)
{
    // The window's shortcuts (Right steps the cursor there) must not take the presentation's keys.
    if (e->type() == QEvent::ShortcutOverride && isPresentationKey(static_cast<QKeyEvent*>(e)->key())) {
        e->accept();
        return true;
    }
    return QWidget::event(e);
}

bool Presentation::eventFilter(QObject* watched, QEvent* e)
{
    if (watched == m_stage && e->type() == QEvent::Resize)
        layoutStage();
    // The dot follows a pointer that moves over the slide, and only that: an Enter (the window appearing under
    // a resting pointer, as under Xvfb for a screenshot) or a move to where the pointer rested when the slide
    // appeared shows nothing, so a screenshot or a grab of the slide never carries a dot nobody points with.
    auto* w = qobject_cast<QWidget*>(watched);
    if (!w || w->window() != this)
        return QWidget::eventFilter(watched, e);
    if (e->type() == QEvent::MouseMove) {
        const QPoint global = static_cast<QMouseEvent*>(e)->globalPosition().toPoint();
        if (m_restingAt && *m_restingAt == global)
            return QWidget::eventFilter(watched, e);
        m_restingAt.reset();
        m_laser->setPosition(m_laser->mapFromGlobal(global));
    } else if (e->type() == QEvent::Leave && w == this) {
        m_laser->setPosition(QPoint(-1, -1));
    }
    return QWidget::eventFilter(watched, e);
}

void Presentation::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    qApp->installEventFilter(this); // mouse moves over any view move the dot
    m_restingAt = QCursor::pos();   // where the pointer rests as the slide appears: no dot there
    m_laser->setGeometry(rect());
    layoutStage();
    placeOverlays();
    setFocus();
}

void Presentation::hideEvent(QHideEvent* e)
{
    qApp->removeEventFilter(this);
    m_laser->setPosition(QPoint(-1, -1));
    QWidget::hideEvent(e);
}

} // namespace poslab::ui
