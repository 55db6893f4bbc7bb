// SPDX-License-Identifier: MIT
#include "ui/views/sequenceview.h"

#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QFontMetricsF>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

namespace poslab::ui {

namespace {

/// The first image or video segment, or -1.
int firstBlock(const SequenceData& d)
{
    for (std::size_t i = 0; i < d.sequence.segments.size(); ++i)
        if (d.sequence.segments[i].kind != core::Segment::Kind::Text)
            return int(i);
    return -1;
}

QString segmentWords(const core::Segment& g)
{
    switch (g.kind) {
    case core::Segment::Kind::Text: return QStringLiteral("text %1").arg(g.length);
    case core::Segment::Kind::Image: return QStringLiteral("image %1\u00d7%2\u00d7%3").arg(g.t).arg(g.h).arg(g.w);
    case core::Segment::Kind::Video: return QStringLiteral("video %1\u00d7%2\u00d7%3").arg(g.t).arg(g.h).arg(g.w);
    }
    return {};
}

QColor axisColour(const Theme& th, int axis)
{
    return axis == 0 ? th.accent : axis == 1 ? th.accent2 : th.accent3;
}

} // namespace

SequenceView::SequenceView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
    , m_figure(
          computation,
          [this](bool later) {
              m_data = m_figure.data();
              if (later)
                  refresh();
          },
          true)
{
    setFocusPolicy(Qt::StrongFocus);
    setCursor(Qt::PointingHandCursor);
    setMouseTracking(true);
    m_figure.update(FigureSnapshot::of(*state));
    connect(state, &WorkbenchState::spatialChanged, this, [this] {
        m_figure.update(FigureSnapshot::of(*m_state));
        if (!m_figure.isPending()) // else it redraws when the new data lands
            refresh();
    });
}

const lessons::Hide* SequenceView::pendingHide() const
{
    if (!m_state->answerPending())
        return nullptr;
    const lessons::Step* step = lessons::findStep(m_state->answerPendingStep());
    return step && step->hide ? &*step->hide : nullptr;
}

QString SequenceView::idText(int axis, std::int64_t token) const
{
    const lessons::Hide* h = pendingHide();
    if (h && h->hidesId(axis, token))
        return QStringLiteral("?");
    return QString::number(m_data.ids(axis, token));
}

bool SequenceView::pairHidden(int k) const
{
    const lessons::Hide* h = pendingHide();
    return h && h->hidesPair(k);
}

HeaderTexts SequenceView::headerTexts() const
{
    const SequenceData& d = m_data;
    const QString tok = QStringLiteral("token %1: t %2, h %3, w %4")
                            .arg(d.token)
                            .arg(idText(0, d.token), idText(1, d.token), idText(2, d.token));
    const QString who = m_state->compareName().isEmpty() ? QString() : m_state->compareName() + QStringLiteral(": ");
    return {who
                + QStringLiteral("%1 \u00b7 %2 tokens, d = %3")
                      .arg(QString::fromStdString(d.scheme))
                      .arg(d.ids.cols())
                      .arg(d.dim),
            {tok, QStringLiteral("token %1").arg(d.token)},
            {QString::fromStdString(core::sequenceText(d.sequence))}};
}

SequenceView::Layout SequenceView::layoutFor(const QRectF& t) const
{
    Layout l;
    const Theme th = theme();
    const double s = sizeScale(t);
    const double pad = 8 * s;
    const QFontMetricsF lfm(th.font(10 * s)), tfm(th.font(9 * s));
    const double line = lfm.height();
    l.header = QRectF(t.left() + pad, t.top() + pad * 0.5, t.width() - 2 * pad, 0);
    if (m_data.error.isEmpty())
        l.header.setHeight(headerHeight(l.header.width(), th, s, headerTexts()));
    l.labelW = std::max(tfm.horizontalAdvance(QStringLiteral("w id")) + 0.45 * tfm.height() + s,
                        lfm.horizontalAdvance(QStringLiteral("pairs")) + 5 * s)
        + s;
    // The scores take a square at the right, as tall as the room below the header allows; the tokens, the pairs
    // and the image block share the room at its left, top to bottom.
    const double barW = 14 * s + 6 * s + colorBarLabelWidth(th, s);
    const double top = l.header.bottom() + pad + line * 1.2; // a caption line above the scores and the segment names
    const double side = std::max(10.0, std::min(t.bottom() - pad - top, (t.width() - 2 * pad - barW) * 0.42));
    l.bar = QRectF(t.right() - pad - barW + 6 * s, top, 14 * s, side);
    l.scores = QRectF(l.bar.left() - 2.5 * pad - side, top, side, side);
    const double left = t.left() + pad + l.labelW;
    const double width = std::max(10.0, l.scores.left() - 2.5 * pad - left);
    l.tokens = QRectF(left, top, width, line * 1.1 + 3 * tfm.height() * 1.1);
    l.pairs = QRectF(left, l.tokens.bottom() + line * 0.6, width, line * 0.9);
    // The pairs' legend line, then the block's caption.
    const double below = l.pairs.bottom() + 2 * s + tfm.height() + line * 1.5;
    const double height = t.bottom() - pad - below;
    if (const int b = firstBlock(m_data); b >= 0 && height > 2 * line) {
        const core::Segment& g = m_data.sequence.segments[std::size_t(b)];
        const double cell = std::min(height / g.h, (l.scores.left() - 2.5 * pad - t.left() - pad) / g.w);
        l.block = QRectF(t.left() + pad, below, cell * g.w, cell * g.h);
    }
    return l;
}

int SequenceView::tokenAt(const QRectF& target, const QPointF& pos) const
{
    if (!m_data.error.isEmpty() || m_data.ids.cols() == 0)
        return -1;
    const Layout l = layoutFor(target);
    const int L = int(m_data.ids.cols());
    if (l.tokens.contains(pos))
        return std::clamp(int((pos.x() - l.tokens.left()) / l.tokens.width() * L), 0, L - 1);
    if (l.scores.contains(pos))
        return std::clamp(int((pos.y() - l.scores.top()) / l.scores.height() * L), 0, L - 1);
    return -1;
}

std::pair<int, int> SequenceView::cellAt(const QRectF& target, const QPointF& pos) const
{
    const int token = tokenAt(target, pos);
    if (token < 0)
        return {-1, -1};
    const Layout l = layoutFor(target);
    const int L = int(m_data.ids.cols());
    if (l.scores.contains(pos))
        return {token, std::clamp(int((pos.x() - l.scores.left()) / l.scores.width() * L), 0, L - 1)};
    return {token, -1};
}

std::optional<ValueRange> SequenceView::dataColourRange() const
{
    if (!m_data.error.isEmpty())
        return std::nullopt;
    return ValueRange{m_data.lo, m_data.hi};
}

QString SequenceView::readout(int token, int key) const
{
    const SequenceData& d = m_data;
    if (!d.error.isEmpty() || token < 0 || token >= d.ids.cols() || key >= d.ids.cols())
        return {};
    const QString who = m_state->compareOwner() ? tr("%1 \u00b7 ").arg(m_state->compareName()) : QString();
    if (key >= 0) {
        // View::withholdsReadoutValues: the cell named, its score after the guess. The ids below are where a token
        // stands; the step's "hide" names those that wait.
        if (withholdsReadoutValues())
            return withheldReadout(who + tr("query %1  \u00b7  key %2").arg(token).arg(key));
        const double v = d.scores(token, key);
        return who
            + tr("query %1  \u00b7  key %2  \u00b7  score %3")
                  .arg(token)
                  .arg(key)
                  .arg(std::isnan(v) ? tr("masked") : QString::number(v, 'g', 4));
    }
    return who
        + tr("token %1  \u00b7  t %2, h %3, w %4").arg(token).arg(idText(0, token), idText(1, token), idText(2, token));
}

QString SequenceView::hoverReadout() const
{
    const auto* twin
        = showsHalves() ? qobject_cast<const SequenceView*>(const_cast<SequenceView*>(this)->compareTwin()) : nullptr;
    if (twin && twin->m_hover.first >= 0)
        return twin->readout(twin->m_hover.first, twin->m_hover.second);
    return readout(m_hover.first, m_hover.second);
}

void SequenceView::selectToken(int token)
{
    if (token >= 0 && token < m_data.ids.cols() && token != m_data.token) {
        SpatialSetup s = m_state->spatial();
        s.patch = token;
        m_state->setSpatial(s);
    }
}

void SequenceView::mousePressEvent(QMouseEvent* e)
{
    // A's drawing (the whole widget, or its left half while A | B), or B's half: B shares A's selected token.
    if (const QRectF b = twinArea(); !b.isEmpty() && b.contains(e->position())) {
        if (auto* twin = qobject_cast<SequenceView*>(compareTwin()))
            selectToken(twin->tokenAt(QRectF(QPointF(0, 0), b.size()), e->position() - b.topLeft()));
    } else {
        selectToken(tokenAt(contentArea(), e->position()));
    }
    setFocus(Qt::MouseFocusReason);
}

bool SequenceView::event(QEvent* e)
{
    // The arrow keys select tokens before the window's cursor shortcuts take them (as in the patch grid view).
    if (e->type() == QEvent::ShortcutOverride && m_data.error.isEmpty()) {
        const auto* k = static_cast<QKeyEvent*>(e);
        if (k->modifiers() == Qt::NoModifier && (k->key() == Qt::Key_Left || k->key() == Qt::Key_Right)) {
            e->accept(); // delivered as a key press to keyPressEvent
            return true;
        }
    }
    return View::event(e);
}

void SequenceView::mouseMoveEvent(QMouseEvent* e)
{
    // B's half reaches the twin through View::event, in the twin's own coordinates.
    const auto h = cellAt(contentArea(), e->position());
    if (h != m_hover) {
        m_hover = h;
        update();
    }
}

void SequenceView::leaveEvent(QEvent*)
{
    if (m_hover.first >= 0) {
        m_hover = {-1, -1};
        update();
    }
}

void SequenceView::keyPressEvent(QKeyEvent* e)
{
    if (!m_data.error.isEmpty() || (e->key() != Qt::Key_Left && e->key() != Qt::Key_Right))
        return View::keyPressEvent(e);
    e->accept();
    const int next = m_data.token + (e->key() == Qt::Key_Left ? -1 : 1);
    if (next < 0 || next >= m_data.ids.cols())
        return;
    SpatialSetup s = m_state->spatial();
    s.patch = next;
    m_state->setSpatial(s, true);
}

void SequenceView::render(QPainter& painter, const QRectF& target)
{
    if (showsHalves())
        View::render(painter, target);
    else
        renderAlone(painter, target);
}

/// One paint of the sequence (SequenceView::renderContent draws with one): the layout, the fonts and the token
/// strip's measures worked out once, and the parts drawn in turn: the segments, the id rows, the selected token,
/// the pairs' axes, the first block's grid, the scores. Nested, so that it reads the view's hidden ids and hover.
struct SequenceView::Painter {
    const SequenceView& v;
    QPainter& p;
    TextLayout& text;
    const Theme th;
    const SequenceData& d;
    const double s;
    const Layout l;
    const int L; ///< tokens
    const QFont labelFont, tickFont;
    const QFontMetricsF lfm, tfm;
    const double tw;      ///< a token's column width
    const double boxH;    ///< the token boxes' height
    const double idH;     ///< an id row's height
    const QString widest; ///< the widest id
    const QFont idFont;   ///< the ids' font: small enough (down to 6 pt) for the widest id to fit its column

    Painter(const SequenceView& view, QPainter& painter, TextLayout& layout, const QRectF& t, const Theme& theme)
        : v(view)
        , p(painter)
        , text(layout)
        , th(theme)
        , d(view.m_data)
        , s(sizeScale(t))
        , l(view.layoutFor(t))
        , L(int(d.ids.cols()))
        , labelFont(th.font(10 * s))
        , tickFont(th.font(9 * s))
        , lfm(labelFont)
        , tfm(tickFont)
        , tw(l.tokens.width() / L)
        , boxH(lfm.height() * 1.1)
        , idH(tfm.height() * 1.1)
        , widest(QString::number(d.ids.maxCoeff()))
        , idFont(th.font(std::clamp(9.0 * 0.85 * tw / (textAdvance(tickFont, widest) + 1e-9), 6.0, 9.0) * s))
    { }

    void draw()
    {
        drawHeader(text, l.header, th, s, v.headerTexts());
        const std::vector<double> boundaries = drawSegments();
        drawIdRowNames();
        drawSelectedToken(boundaries);
        drawIds();
        drawPairs();
        drawBlock();
        drawScores();
    }

    double idY(int axis) const { return l.tokens.top() + boxH + (axis + 0.5) * idH; }

    /// Segment names over their runs, a boundary line between runs through the boxes and the id rows (the labels
    /// placed after it keep clear of it, and the layout test sees it), the token columns' lines. Returns the x of
    /// each boundary line.
    std::vector<double> drawSegments()
    {
        std::vector<double> boundaries;
        for (std::size_t i = 0; i < d.sequence.segments.size(); ++i) {
            const core::Segment& g = d.sequence.segments[i];
            const double x0 = l.tokens.left() + double(d.firstToken[i]) * tw, w = double(g.tokens()) * tw;
            QColor fill = g.kind == core::Segment::Kind::Text
                ? th.panel
                : axisColour(th, g.kind == core::Segment::Kind::Image ? 1 : 2);
            if (g.kind != core::Segment::Kind::Text)
                fill.setAlphaF(0.35);
            p.fillRect(QRectF(x0, l.tokens.top(), w, boxH), fill);
            if (i > 0) {
                p.setPen(QPen(th.foreground, 1.4 * s));
                const QPointF a(x0, l.tokens.top() - 2 * s), b(x0, l.tokens.bottom());
                p.drawLine(a, b);
                text.keepClearOf(a, b, QStringLiteral("block boundary"));
                boundaries.push_back(x0);
            }
        }
        for (std::size_t i = 0; i < d.sequence.segments.size(); ++i) {
            const core::Segment& g = d.sequence.segments[i];
            const double x0 = l.tokens.left() + double(d.firstToken[i]) * tw, w = double(g.tokens()) * tw;
            text.draw(
                QRectF(x0, l.tokens.top() - lfm.height() * 1.15, w, lfm.height()), Qt::AlignHCenter | Qt::AlignVCenter,
                labelFont, th.foreground,
                {segmentWords(g), segmentWords(g).section(QLatin1Char(' '), 0, 0), QString(segmentWords(g).front())},
                TextLayout::Fit::Drop);
        }
        p.setPen(QPen(th.grid, 0.8 * s));
        if (tw > 3 * s)
            for (int n = 1; n < L; ++n)
                p.drawLine(QPointF(l.tokens.left() + n * tw, l.tokens.top()),
                           QPointF(l.tokens.left() + n * tw, l.tokens.top() + boxH));
        return boundaries;
    }

    /// The id rows' names. They keep the layout's gap to text (0.45 of a line) from the first column's ids
    /// (layoutFor()'s labelW): at 5 px the selected first token's ids were left out.
    void drawIdRowNames()
    {
        static const char* names[3] = {"t id", "h id", "w id"};
        for (int a = 0; a < 3; ++a)
            text.drawAt(QPointF(l.tokens.left() - 0.45 * tfm.height() - s, idY(a)), Qt::AlignRight | Qt::AlignVCenter,
                        tickFont, axisColour(th, a), {QLatin1String(names[a])});
    }

    /// The selected token first, always labelled: its box is as wide as its widest id (so that no edge of it runs
    /// through a digit), centred on its column and moved off a block boundary into its own run where it would
    /// cross one.
    void drawSelectedToken(const std::vector<double>& boundaries)
    {
        const double gap = 2 * s;
        double selW = 0;
        for (int a = 0; a < 3; ++a)
            selW = std::max(selW, textAdvance(idFont, v.idText(a, d.token)));
        selW = std::max(tw, selW + 2 * gap);
        const double colL = l.tokens.left() + d.token * tw, colR = colL + tw;
        double runL = l.tokens.left(), runR = l.tokens.right(); // the selected token's run, between its boundaries
        for (double x : boundaries) {
            if (x <= colL + 1e-6)
                runL = std::max(runL, x);
            if (x >= colR - 1e-6)
                runR = std::min(runR, x);
        }
        double selL = (colL + colR - selW) / 2;
        if (selW <= runR - runL)
            selL = std::clamp(selL, runL, runR - selW);
        const QRectF sel(selL, l.tokens.top(), selW, l.tokens.height());
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(th.foreground, 1.8 * s));
        p.drawRect(sel);
        text.keepClearOf(QPolygonF{sel.topLeft(), sel.bottomLeft()}, QStringLiteral("selected token"));
        text.keepClearOf(QPolygonF{sel.topRight(), sel.bottomRight()}, QStringLiteral("selected token"));
        for (int a = 0; a < 3; ++a)
            text.drawAt(QPointF(sel.center().x(), idY(a)), Qt::AlignHCenter | Qt::AlignVCenter, idFont, th.foreground,
                        {v.idText(a, d.token)});
    }

    /// The other tokens' ids. Where even 6 pt is too wide for a column, every k-th token is labelled (k the fewest
    /// columns one id needs); a label that would touch the selected token's box or a block boundary is left out,
    /// so that a row of ids never reads as a neighbour's ids and no line runs through a digit.
    void drawIds()
    {
        const double need = textAdvance(idFont, widest) * 1.3;
        const int every = std::max(1, int(std::ceil(need / tw - 1e-9)));
        for (int a = 0; a < 3; ++a)
            for (int n = 0; n < L; ++n)
                if (n != d.token && n % every == 0)
                    text.drawAt(QPointF(l.tokens.left() + (n + 0.5) * tw, idY(a)), Qt::AlignHCenter | Qt::AlignVCenter,
                                idFont, th.muted, {v.idText(a, n)});
    }

    /// Which axis each rotary pair turns with, and under the boxes the hover read-out or the pairs' legend.
    void drawPairs()
    {
        const int pairs = int(d.pairAxis.size());
        text.drawAt(QPointF(l.pairs.left() - 5 * s, l.pairs.center().y()), Qt::AlignRight | Qt::AlignVCenter, tickFont,
                    th.foreground, {QStringLiteral("pairs")});
        const double pw = l.pairs.width() / std::max(1, pairs);
        int count[3] = {0, 0, 0};
        int hiddenFirst = -1, hiddenLast = -1; // pairs whose axis answers the step's prediction (Predict, then see)
        for (int k = 0; k < pairs; ++k) {
            const int a = std::clamp(d.pairAxis[std::size_t(k)], 0, 2);
            ++count[a];
            const QRectF box(l.pairs.left() + k * pw, l.pairs.top(), std::max(1.0, pw - (pw > 4 * s ? 1 : 0)),
                             l.pairs.height());
            if (v.pairHidden(k)) {
                hiddenFirst = hiddenFirst < 0 ? k : hiddenFirst;
                hiddenLast = k;
                p.fillRect(box, th.grid);
            } else {
                p.fillRect(box, axisColour(th, a));
            }
        }
        if (hiddenFirst >= 0) // one "?" over the run of neutral boxes
            text.draw(QRectF(l.pairs.left() + hiddenFirst * pw, l.pairs.top(), (hiddenLast - hiddenFirst + 1) * pw,
                             l.pairs.height()),
                      Qt::AlignHCenter | Qt::AlignVCenter, tickFont, th.foreground, {QStringLiteral("?")},
                      TextLayout::Fit::Drop);
        const QRectF legend(l.pairs.left(), l.pairs.bottom() + 2 * s, l.pairs.width(), tfm.height());
        const QString hover = v.showsHints() ? v.readout(v.m_hover.first, v.m_hover.second) : QString();
        if (!hover.isEmpty()) // on screen: what is under the mouse, in place of the pairs' legend
            text.draw(legend, Qt::AlignLeft | Qt::AlignVCenter, tickFont, th.foreground,
                      {hover, hover.section(QStringLiteral("  \u00b7  "), 0, -2)}, TextLayout::Fit::Drop);
        else if (hiddenFirst >= 0) // the per-axis counts would tell the hidden pairs' axes
            text.draw(legend, Qt::AlignLeft | Qt::AlignVCenter, tickFont, th.muted,
                      {tr("rotary pairs 0\u2013%1 (colour as the id rows); pairs %2\u2013%3 shown after your guess")
                           .arg(pairs - 1)
                           .arg(hiddenFirst)
                           .arg(hiddenLast),
                       tr("pairs %1\u2013%2 after your guess").arg(hiddenFirst).arg(hiddenLast),
                       tr("after your guess")},
                      TextLayout::Fit::Drop);
        else
            text.draw(legend, Qt::AlignLeft | Qt::AlignVCenter, tickFont, th.muted,
                      {tr("rotary pairs 0\u2013%1, low to high index: t %2 pairs, h %3, w %4 (colour as the id rows)")
                           .arg(pairs - 1)
                           .arg(count[0])
                           .arg(count[1])
                           .arg(count[2]),
                       tr("pairs 0\u2013%1: t %2, h %3, w %4").arg(pairs - 1).arg(count[0]).arg(count[1]).arg(count[2]),
                       tr("t %1 pairs, h %2, w %3").arg(count[0]).arg(count[1]).arg(count[2]),
                       tr("t %1, h %2, w %3").arg(count[0]).arg(count[1]).arg(count[2])},
                      TextLayout::Fit::Drop);
    }

    /// The first image or video block as its grid, each cell with its (h, w) ids.
    void drawBlock()
    {
        p.setRenderHint(QPainter::SmoothPixmapTransform, false);
        const int b = firstBlock(d);
        if (b < 0 || l.block.isEmpty())
            return;
        const core::Segment& g = d.sequence.segments[std::size_t(b)];
        text.draw(
            QRectF(l.block.left(), l.block.top() - lfm.height() * 1.25, l.scores.left() - l.block.left(), lfm.height()),
            Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground,
            {tr("%1, frame 0: (h, w) ids").arg(segmentWords(g)), segmentWords(g)});
        const double cell = l.block.width() / g.w;
        const std::int64_t first = d.firstToken[std::size_t(b)];
        for (int r = 0; r < g.h; ++r)
            for (int c = 0; c < g.w; ++c) {
                const std::int64_t n = first + std::int64_t(r) * g.w + c;
                const QRectF box(l.block.left() + c * cell, l.block.top() + r * cell, cell, cell);
                QColor fill = axisColour(th, g.kind == core::Segment::Kind::Image ? 1 : 2);
                fill.setAlphaF(n == d.token ? 0.8 : 0.25);
                p.fillRect(box.adjusted(0.5, 0.5, -0.5, -0.5), fill);
                text.draw(box, Qt::AlignHCenter | Qt::AlignVCenter, tickFont, th.foreground,
                          {QStringLiteral("%1,%2").arg(v.idText(1, n), v.idText(2, n))}, TextLayout::Fit::Drop);
            }
    }

    /// The scores, causal, with the block boundaries, the selected token's row and the colour bar.
    void drawScores()
    {
        // The visible scores' own range on a sequential map (constant content: every logit is positive).
        // Side by side: the range shared with B (View::shareCompareRange), unless independent_ranges is on.
        const ValueRange range = v.m_heldRange.value_or(ValueRange{d.lo, d.hi});
        const ColorMap map(ColorMapKind::Viridis);
        text.draw(QRectF(l.scores.left(), l.scores.top() - lfm.height() * 1.25, l.scores.width(), lfm.height()),
                  Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground,
                  {tr("scores, constant content, causal"), tr("scores")});
        p.drawImage(l.scores, matrixToImage(d.scores.cast<float>(), map, range, th.background.rgb()));
        p.setPen(QPen(th.foreground, 1.2 * s));
        const double cs = l.scores.width() / L;
        for (std::size_t i = 1; i < d.firstToken.size(); ++i) {
            const double at = double(d.firstToken[i]) * cs;
            const QPointF a(l.scores.left() + at, l.scores.top()), b(l.scores.left() + at, l.scores.bottom());
            const QPointF c(l.scores.left(), l.scores.top() + at), e(l.scores.right(), l.scores.top() + at);
            p.drawLine(a, b);
            p.drawLine(c, e);
            text.keepClearOf(a, b, QStringLiteral("block boundary (scores)"));
            text.keepClearOf(c, e, QStringLiteral("block boundary (scores)"));
        }
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(th.foreground, 1.6 * s));
        p.drawRect(QRectF(l.scores.left(), l.scores.top() + d.token * cs, l.scores.width(), cs));
        drawColorBar(p, text, l.bar, map, range, th, QString(), s);
    }
};

void SequenceView::renderContent(QPainter& p, const QRectF& t)
{
    const Theme th = theme();
    p.fillRect(t, th.background);
    if (!m_data.error.isEmpty()) {
        drawNotApplicable(p, t, th, tr("Cannot draw the sequence"), m_data.error);
        return;
    }
    TextLayout text(p, t);
    Painter(*this, p, text, t, th).draw();
}

std::pair<QString, QString> SequenceView::ownScheme() const
{
    return {spatialSchemeLabel(m_state->spatial()), spatialSummary(m_state->spatial())};
}

} // namespace poslab::ui
