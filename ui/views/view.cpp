// SPDX-License-Identifier: MIT
#include "ui/views/view.h"

#include <QJsonObject>

#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/views/viewlist.h"

#include <QCoreApplication>

#include <QFontMetricsF>
#include <QPaintEngine>
#include <QPainter>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <optional>

namespace poslab::ui {

View::View(WorkbenchState* state, Computation* computation, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_computation(computation)
    , m_result(computation->result())
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    connect(computation, &Computation::resultReady, this, [this](std::shared_ptr<const EncodingResult> r) {
        m_result = std::move(r);
        resultChanged();
        if (!awaitsOwnResult())
            refresh();
    });
    connect(state, &WorkbenchState::viewOptionsChanged, this, &View::refresh);
    connect(state, &WorkbenchState::schemeChanged, this, &View::refresh);
    connect(state, &WorkbenchState::answerPendingChanged, this, &View::refresh); // headers that state an answer
    // Compare mode: a new mode or a new B redraws (B's own changes reach this view through its twin).
    connect(state, &WorkbenchState::compareChanged, this, [this] {
        if (m_state->compareOwner()) { // a view of B: its heading gains or loses "B: "; A's view keeps its range
            compareChanged();
            return;
        }
        if (m_state->comparing())
            compareTwin();
        if (!m_state->comparing() && m_sharedRange) {
            m_sharedRange = false;
            m_heldRange.reset();
            colourRangeChanged();
        }
        shareCompareRange();
        compareChanged();
    });
    connect(this, &View::refreshed, this, [this] { shareCompareRange(); });
}

namespace {
const ViewEntry* entryOf(const QMetaObject* type)
{
    for (const ViewEntry& e : viewRegistry())
        if (e.type == type)
            return &e;
    return nullptr;
}
} // namespace

QString View::title() const
{
    const ViewEntry* e = entryOf(metaObject());
    return e ? QCoreApplication::translate("poslab::ui::View", e->title) : QString();
}

QString View::exportName() const
{
    const ViewEntry* e = entryOf(metaObject());
    return e ? QString::fromLatin1(e->id) : QString();
}

QString View::notApplicableReason() const
{
    return tr("%1 has nothing to show here; pick another view or scheme.").arg(shortSchemeName(m_state->scheme()));
}

namespace {

/// The rotary spec of the current set-up as the state's token holds it (derived once per change), or nothing when
/// the scheme does not rotate or it cannot be built.
std::optional<core::RotarySpec> currentSpec(const WorkbenchState& state)
{
    return CheckedSetup{state.checkedParams()}.rotarySpec(state.setup());
}

} // namespace

QString View::noRotationReason() const
{
    const auto spec = currentSpec(*m_state);
    if (!spec || spec->rotaryDim > 0)
        return {};
    // What applies instead comes from the scheme (iRoPE's NoPE layer: the query temperature); else r = 0 says it.
    const core::SchemeDescriptor& scheme = m_state->scheme();
    if (scheme.unrotated)
        if (const core::UnrotatedNote note = scheme.unrotated(m_state->params(), m_state->cursor());
            !note.reason.empty())
            return QString::fromStdString(note.reason);
    return tr("This set-up rotates no dimension (r = 0): queries and keys pass through unchanged, so there "
              "is nothing to draw here. Raise the rotated fraction, or see the attention view.");
}

bool View::showsHints() const
{
    return m_onScreen && !m_state->viewOptions().cleanSlide;
}

QString View::withheldReadout(const QString& where) const
{
    return where + tr("  \u00b7  values after your guess");
}

QString View::readoutValue(const QString& value) const
{
    return withholdsReadoutValues() ? tr("after your guess") : value;
}

QString View::noRotationSummary() const
{
    const auto spec = currentSpec(*m_state);
    if (!spec || spec->rotaryDim > 0)
        return {};
    const core::SchemeDescriptor& scheme = m_state->scheme();
    if (scheme.unrotated)
        if (const core::UnrotatedNote note = scheme.unrotated(m_state->params(), m_state->cursor());
            !note.reason.empty())
            return QString::fromStdString(note.summary);
    return tr("no rotation (r = 0)");
}

bool View::hasContent() const
{
    return isApplicable() && !(m_result && !m_result->error.isEmpty())
        && !(needsRotation() && !noRotationReason().isEmpty());
}

double View::roomUnit(const QSizeF& size) const
{
    // The height of a line of the views' body text (10 pt times the font scale, grown with the figure as the
    // views grow it), so the rule follows what the views actually draw.
    return QFontMetricsF(theme().font(10 * sizeScale(QRectF(QPointF(0, 0), size)))).height();
}

bool View::hasRoom(const QSizeF& size) const
{
    return hasRoomAt(size, theme().fontScale);
}

bool View::hasRoomAt(const QSizeF& size, double fontScale) const
{
    // roomUnit()'s line of body text, at @p fontScale.
    const Theme t = Theme::of(m_state->viewOptions().theme, fontScale);
    const double em = QFontMetricsF(t.font(10 * sizeScale(QRectF(QPointF(0, 0), size)))).height();
    const QSizeF need = minimumRoom();
    return size.width() >= need.width() * em && size.height() >= need.height() * em;
}

bool View::wholeHasRoomAt(const QSizeF& size, double fontScale) const
{
    if (!showsHalves())
        return hasRoomAt(size, fontScale);
    // As render() splits it: a note line of 1.4 body lines (when there is a note), a gap of 6 px grown with the
    // figure, two halves.
    const Theme t = Theme::of(m_state->viewOptions().theme, fontScale);
    const QRectF all(QPointF(0, 0), size);
    const double s = sizeScale(all);
    const double note = compareNote().isEmpty() ? 0.0 : QFontMetricsF(t.font(10 * s)).height() * 1.4;
    const QSizeF half((size.width() - 6 * s) / 2, size.height() - note);
    return hasRoomAt(half, fontScale);
}

QString View::tooSmallReason() const
{
    // Short: it has to fit the small panel it is shown in (the layout cuts the rest, with a tooltip on screen).
    if (!onScreen()) // an export: its size and font scale were chosen on the command line or in the dialog
        return tr("for text \u00d7%1: a larger size or a smaller font scale").arg(formatNumber(theme().fontScale, 2));
    return tr("for text \u00d7%1: \u2922 maximise, F9 panels, A\u2212").arg(formatNumber(theme().fontScale, 2));
}

View* View::compareTwin()
{
    if (m_twin || m_state->compareOwner())
        return m_twin.get();
    const ViewEntry* e = entryOf(metaObject());
    Computation* b = e ? Computation::compareComputation(*m_state, *m_computation) : nullptr;
    if (!b)
        return nullptr;
    m_twin.reset(e->create(m_state->compareState(), b));
    // Never shown: it draws into the right half of this view (and sizes its child widgets as a half would).
    m_twin->resize(std::max(1, width() / 2), std::max(1, height()));
    connect(m_twin.get(), &View::refreshed, this, [this] {
        shareCompareRange();
        if (m_state->comparing())
            compareChanged();
    });
    shareCompareRange(); // B may have its numbers already (a settled export scene): no refresh would come
    return m_twin.get();
}

bool View::showsHalves() const
{
    if (!m_state->comparing() || m_state->compareOwner())
        return false;
    const CompareMode mode = m_state->compareMode();
    return mode == CompareMode::SideBySide || !drawsCompare(mode);
}

QRectF View::contentArea() const
{
    const QRectF all(rect());
    if (!showsHalves())
        return all;
    const double gap = 6 * sizeScale(all);
    return QRectF(all.left(), all.top(), (all.width() - gap) / 2, all.height());
}

QRectF View::twinArea() const
{
    if (!showsHalves())
        return {};
    // As render() splits the widget: the note line, then A's half, a gap and B's half.
    const QRectF all(rect());
    const double s = sizeScale(all);
    double top = all.top();
    if (!compareNote().isEmpty())
        top += QFontMetricsF(theme().font(10 * s)).height() * 1.4;
    const double gap = 6 * s;
    const double leftRight = all.left() + (all.width() - gap) / 2;
    return QRectF(leftRight + gap, top, all.right() - leftRight - gap, all.bottom() - top);
}

QString View::compareNote() const
{
    if (!m_state->comparing() || m_state->compareOwner())
        return {};
    const CompareMode mode = m_state->compareMode();
    if (mode == CompareMode::SideBySide || drawsCompare(mode))
        return {};
    return compareNoteFor(mode);
}

QString View::compareNoteFor(CompareMode mode) const
{
    return mode == CompareMode::Overlay ? tr("Overlay: curve views only (decay); A | B here.")
                                        : tr("Difference: table, attention and decay only; A | B here.");
}

void View::shareCompareRange()
{
    // Side by side, both colour scales span A's and B's data, so one colour means one value in both halves.
    if (!m_twin || (m_heldRange && !m_sharedRange))
        return; // no B, or a sweep holds the range
    // Shared only for the same quantity, unless the user asked for independent ranges.
    const bool together
        = showsHalves() && !m_state->viewOptions().independentRanges && rangeQuantity() == m_twin->rangeQuantity();
    std::optional<ValueRange> shared;
    if (together)
        if (const auto a = dataColourRange(), b = m_twin->dataColourRange(); a && b)
            shared = ValueRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
    // The value axes of curve views, one union per axis when both halves draw the same axes.
    std::vector<ValueRange> axes;
    if (together)
        if (const auto a = dataAxisRanges(), b = m_twin->dataAxisRanges(); !a.empty() && a.size() == b.size())
            for (std::size_t i = 0; i < a.size(); ++i)
                axes.push_back(ValueRange{std::min(a[i].lo, b[i].lo), std::max(a[i].hi, b[i].hi)});
    const auto sameAxes = [](const std::vector<ValueRange>& x, const std::vector<ValueRange>& y) {
        return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                          [](const ValueRange& u, const ValueRange& v) { return u.lo == v.lo && u.hi == v.hi; });
    };
    if (!sameAxes(m_sharedAxes, axes) || !sameAxes(m_twin->m_sharedAxes, axes)) {
        m_sharedAxes = axes;
        m_twin->m_sharedAxes = axes;
        sharedAxesChanged();
        m_twin->sharedAxesChanged();
        update(); // the twin draws inside this view
    }
    const auto same = [](const std::optional<ValueRange>& x, const std::optional<ValueRange>& y) {
        return x.has_value() == y.has_value() && (!x || (x->lo == y->lo && x->hi == y->hi));
    };
    if (!same(m_heldRange, shared)) {
        m_sharedRange = shared.has_value();
        m_heldRange = shared;
        colourRangeChanged();
    }
    if (!same(m_twin->m_heldRange, shared) && (!m_twin->m_heldRange || m_twin->m_sharedRange || !shared)) {
        m_twin->m_sharedRange = shared.has_value();
        m_twin->m_heldRange = shared;
        m_twin->colourRangeChanged();
    }
}

void View::render(QPainter& painter, const QRectF& target)
{
    if (!showsHalves() || !compareTwin()) {
        renderSingle(painter, target);
        return;
    }
    // A | B: the view drawn twice at half the width, B's half from B's state (its heading starts "B: ").
    painter.save();
    painter.setClipRect(target);
    const Theme th = theme();
    painter.fillRect(target, th.background);
    const double s = sizeScale(target);
    QRectF area = target;
    if (const QString note = compareNote(); !note.isEmpty()) {
        const QFont f = th.font(10 * s);
        const double h = QFontMetricsF(f).height() * 1.4;
        TextLayout text(painter, target);
        text.draw(QRectF(target.left() + 8 * s, target.top(), target.width() - 16 * s, h),
                  Qt::AlignLeft | Qt::AlignVCenter, f, th.muted,
                  {note, note.section(QStringLiteral("; "), 0, 0) + QLatin1Char('.'),
                   note.section(QLatin1Char(':'), 0, 0) + tr(": A | B here")},
                  TextLayout::Fit::Drop);
        area.setTop(target.top() + h);
    }
    const double gap = 6 * s;
    const QRectF left(area.left(), area.top(), (area.width() - gap) / 2, area.height());
    const QRectF right(left.right() + gap, area.top(), area.right() - left.right() - gap, area.height());
    painter.restore();
    renderSingle(painter, left);
    renderTwin(painter, right);
    painter.save();
    painter.setPen(QPen(th.grid, 1));
    painter.drawLine(QPointF(left.right() + gap / 2, area.top() + 4 * s),
                     QPointF(left.right() + gap / 2, area.bottom() - 4 * s));
    painter.restore();
}

void View::renderTwin(QPainter& painter, const QRectF& target)
{
    if (!compareTwin())
        return;
    m_twin->m_onScreen = m_onScreen;
    m_twin->render(painter, target);
    m_twin->m_onScreen = false;
}

void View::renderSingle(QPainter& painter, const QRectF& target)
{
    painter.save();
    painter.setClipRect(target);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    switch (drawState(target.size())) {
    case DrawState::NotApplicable:
        drawNotApplicable(painter, target, theme(), tr("Not applicable to this scheme"), notApplicableReason());
        break;
    case DrawState::CannotCompute:
        drawNotApplicable(painter, target, theme(), tr("Cannot compute"), m_result->error);
        break;
    case DrawState::NoRotation:
        drawNotApplicable(painter, target, theme(), tr("This layer has no rotation"), noRotationReason());
        break;
    case DrawState::NoDifference:
        drawNotApplicable(painter, target, theme(), tr("Difference A \u2212 B not drawn"), compareProblem());
        break;
    case DrawState::TooSmall: drawNotApplicable(painter, target, theme(), tr("Too small"), tooSmallReason()); break;
    case DrawState::Drawn: renderContent(painter, target); break;
    }
    painter.restore();
}

View::DrawState View::drawState(const QSizeF& size) const
{
    if (!isApplicable())
        return DrawState::NotApplicable;
    if (m_result && !m_result->error.isEmpty() && !ownsNumbers())
        return DrawState::CannotCompute;
    if (needsRotation() && !noRotationReason().isEmpty())
        return DrawState::NoRotation;
    if (!compareProblem().isEmpty())
        return DrawState::NoDifference;
    if (!hasRoom(size))
        return DrawState::TooSmall;
    return DrawState::Drawn;
}

QString View::drawStateName(DrawState state)
{
    switch (state) {
    case DrawState::Drawn: return QStringLiteral("drawn");
    case DrawState::NotApplicable: return QStringLiteral("not applicable");
    case DrawState::CannotCompute: return QStringLiteral("cannot compute");
    case DrawState::NoRotation: return QStringLiteral("no rotation");
    case DrawState::NoDifference: return QStringLiteral("difference not drawn");
    case DrawState::TooSmall: return QStringLiteral("too small");
    }
    return {};
}

QImage View::renderImage(QSize size, qreal dpr)
{
    QImage img(size * dpr, QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(dpr);
    img.fill(theme().background);
    QPainter p(&img);
    render(p, QRectF(QPointF(0, 0), QSizeF(size)));
    return img;
}

bool View::cachesOnScreen(const QPainter& p) const
{
    return m_onScreen && p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster
        && p.transform().type() <= QTransform::TxTranslate;
}

void View::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    m_onScreen = true;
    TextRecord record;
    // The twin has the size of B's half, so that its mouse read-outs map through the layout it is drawn with.
    const QSize half = showsHalves() ? twinArea().size().toSize() : QSize(width() / 2, height());
    if (m_twin && m_twin->size() != half.expandedTo(QSize(1, 1)))
        m_twin->resize(half.expandedTo(QSize(1, 1)));
    render(p, QRectF(rect()));
    m_onScreen = false;
    // Labels the layout had to cut keep their full text for a tooltip.
    m_elided.clear();
    for (const DrawnText& item : record.items())
        if (item.text != item.fullText)
            m_elided.push_back({item.rect, item.fullText});
}

void View::renderAlone(QPainter& painter, const QRectF& target)
{
    painter.save();
    painter.setClipRect(target);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    if (!hasRoom(target.size()))
        drawNotApplicable(painter, target, theme(), tr("Too small"), tooSmallReason());
    else
        renderContent(painter, target);
    painter.restore();
}

bool View::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(e);
        for (const auto& [rect, text] : m_elided)
            if (rect.contains(help->pos())) {
                QToolTip::showText(help->globalPos(), text, this, rect.toAlignedRect());
                return true;
            }
        QToolTip::hideText();
    }
    // A | B: the mouse over B's half hovers the twin (B's read-outs), translated to the twin's own coordinates.
    if ((e->type() == QEvent::MouseMove || e->type() == QEvent::Leave) && m_twin && showsHalves()) {
        const QRectF area = twinArea();
        const auto* me = e->type() == QEvent::MouseMove ? static_cast<QMouseEvent*>(e) : nullptr;
        if (me && area.contains(me->position())) {
            if (m_twin->size() != area.size().toSize())
                m_twin->resize(area.size().toSize().expandedTo(QSize(1, 1)));
            QMouseEvent moved(QEvent::MouseMove, me->position() - area.topLeft(), me->globalPosition(), me->button(),
                              me->buttons(), me->modifiers());
            m_twin->mouseMoveEvent(&moved);
            m_twinHovered = true;
            update(); // the twin draws inside this view
        } else if (m_twinHovered) {
            QEvent leave(QEvent::Leave);
            m_twin->leaveEvent(&leave);
            m_twinHovered = false;
            update();
        }
    }
    return QWidget::event(e);
}

void View::refresh()
{
    ++m_refreshes;
    scheduleRepaint();
    emit refreshed();
}

QJsonArray View::visibleViewReport(const QWidget* top)
{
    QJsonArray out;
    for (const View* v : top->findChildren<View*>()) {
        if (!v->isVisible() || v->visibleRegion().isEmpty())
            continue;
        QJsonObject o{{QStringLiteral("view"), v->exportName()},
                      {QStringLiteral("title"), v->title()},
                      {QStringLiteral("width"), v->width()},
                      {QStringLiteral("height"), v->height()}};
        if (v->showsHalves()) {
            // Each half at contentArea()'s size (the compare note's line above the halves is not subtracted).
            const QSizeF half = v->contentArea().size();
            o.insert(QStringLiteral("state"), drawStateName(v->drawState(half)));
            o.insert(QStringLiteral("halves"), true);
            if (View* twin = const_cast<View*>(v)->compareTwin())
                o.insert(QStringLiteral("state_b"), drawStateName(twin->drawState(half)));
        } else {
            o.insert(QStringLiteral("state"), drawStateName(v->drawState(v->size())));
        }
        out.append(o);
    }
    return out;
}

} // namespace poslab::ui
