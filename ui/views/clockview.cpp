// SPDX-License-Identifier: MIT
#include "ui/views/clockview.h"

#include "core/trigtable.h"

#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/views/cellwordings.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QToolButton>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace poslab::ui {

ClockView::ClockView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
{
    setMouseTracking(true);
    connect(state, &WorkbenchState::animationTimeChanged, this, &View::refresh);
}

bool ClockView::supports(const core::SchemeDescriptor& scheme) const
{
    return scheme.rotary != nullptr || scheme.frequencies != nullptr;
}

QString ClockView::notApplicableReason() const
{
    const auto& s = m_state->scheme();
    if (s.relation == core::Relation::None) // NoPE: the descriptor says it describes no position
        return tr("NoPE has no position signal, so no hands turn. Pick sinusoidal or RoPE.");
    return tr("%1 has no per-pair frequencies, so no hands turn. Pick sinusoidal or RoPE, or see the decay view.")
        .arg(shortSchemeName(s));
}

QString ClockView::parsePairs(const QString& text, int pairs, std::vector<int>* out)
{
    return AnglesFigure::parsePairs(text, pairs, out);
}

std::vector<int> ClockView::shownPairs() const
{
    return AnglesFigure::shownPairs(m_result ? int(m_result->frequencies.size()) : 0,
                                    m_state->viewOptions().clockPairs);
}

QWidget* ClockView::controls()
{
    if (m_controls)
        return m_controls;
    m_controls = new QWidget(this);
    auto* lay = new QHBoxLayout(m_controls);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* play = new QToolButton(m_controls);
    play->setObjectName(QStringLiteral("clockPlay"));
    play->setCheckable(true);
    play->setToolTip(tr("Play / pause the position (Space)"));
    auto* speed = new QDoubleSpinBox(m_controls);
    speed->setObjectName(QStringLiteral("clockSpeed"));
    speed->setRange(0.1, 100000.0);
    speed->setDecimals(1);
    speed->setLocale(QLocale::c()); // "2.5/s" as the lessons and the command line write it, in every locale
    speed->setSuffix(tr("/s"));
    speed->setToolTip(tr("Animation speed in tokens per second"));
    auto* style = new QComboBox(m_controls);
    style->setObjectName(QStringLiteral("clockStyle"));
    style->addItem(tr("clocks"));
    style->addItem(tr("pendulums"));
    auto* pairs = new QLineEdit(m_controls);
    pairs->setObjectName(QStringLiteral("clockPairs"));
    pairs->setPlaceholderText(tr("pairs: auto"));
    pairs->setToolTip(tr("Which pairs to show, e.g. 0-3,8,63 (empty: eight from fastest to slowest)"));
    pairs->setMaximumWidth(90);
    lay->addWidget(play);
    lay->addWidget(speed);
    lay->addWidget(style);
    lay->addWidget(pairs);
    auto sync = [this, play, speed, style, pairs] {
        const ViewOptions& o = m_state->viewOptions();
        QSignalBlocker b1(play), b2(speed), b3(style);
        play->setChecked(m_state->isPlaying());
        play->setText(m_state->isPlaying() ? QStringLiteral("\u23f8") : QStringLiteral("\u25b6"));
        speed->setValue(o.speed);
        style->setCurrentIndex(o.pendulum ? 1 : 0);
        if (!pairs->hasFocus())
            pairs->setText(o.clockPairs);
    };
    sync();
    connect(m_state, &WorkbenchState::viewOptionsChanged, m_controls, sync);
    connect(m_state, &WorkbenchState::playingChanged, m_controls, sync);
    connect(play, &QToolButton::toggled, m_state, &WorkbenchState::setPlaying);
    connect(speed, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        ViewOptions o = m_state->viewOptions();
        o.speed = v;
        m_state->setViewOptions(o);
    });
    connect(style, &QComboBox::currentIndexChanged, this, [this](int i) {
        ViewOptions o = m_state->viewOptions();
        o.pendulum = i == 1;
        m_state->setViewOptions(o);
    });
    connect(pairs, &QLineEdit::editingFinished, this, [this, pairs] {
        std::vector<int> parsed;
        const int n = m_result ? int(m_result->frequencies.size()) : 0;
        const QString err = parsePairs(pairs->text(), n, &parsed);
        if (!err.isEmpty()) {
            pairs->setStyleSheet(QStringLiteral("border: 2px solid #d0302f;"));
            pairs->setToolTip(err);
            emit m_state->refused(err);
            return;
        }
        pairs->setStyleSheet({});
        ViewOptions o = m_state->viewOptions();
        o.clockPairs = pairs->text().trimmed();
        m_state->setViewOptions(o);
    });
    return m_controls;
}

QString ClockView::hoverReadout() const
{
    if (!m_result || !m_hover)
        return {};
    const auto& freq = m_result->frequencies;
    // From the current state, so it follows the cursor and every parameter change.
    const ClockHands hands = AnglesFigure::clock(AnglesFigure::clockInputs(*m_result, FigureSnapshot::of(*m_state)));
    for (const auto& [rect, i] : m_cells) {
        const auto shown = std::find(hands.pairs.begin(), hands.pairs.end(), i);
        if (!rect.contains(*m_hover) || i >= int(freq.size()) || shown == hands.pairs.end())
            continue;
        if (withholdsReadoutValues()) // View::withholdsReadoutValues: the hand named, its period after the guess
            return withheldReadout(tr("pair %1").arg(i));
        const double t = hands.time;
        const double w = freq[std::size_t(i)];
        const core::HandReading& hand = hands.hands[std::size_t(shown - hands.pairs.begin())];
        const QString period = w > 0 ? tr("period %1").arg(formatTokens(hand.period)) : tr("never turns");
        return tr("pair %1  \u00b7  \u03c9 = %2 rad/token  \u00b7  %3  \u00b7  at p = %4 the hand is at %5\u00b0 "
                  "(sin %6, cos %7)")
            .arg(i)
            .arg(formatNumber(w, 4), period, QString::number(t, 'f', t == std::floor(t) ? 0 : 2),
                 formatNumber(hand.angle * 180.0 / M_PI, 4), formatNumber(hand.sine, 4), formatNumber(hand.cosine, 4));
    }
    return {};
}

void ClockView::mouseMoveEvent(QMouseEvent* e)
{
    m_hover = e->position();
    update();
}

void ClockView::leaveEvent(QEvent*)
{
    m_hover.reset();
    update();
}

void ClockView::drawDial(QPainter& p, QPointF c, double R, double s, const Theme& th)
{
    auto dial = [&](QPainter& q, QPointF at) {
        q.setPen(QPen(th.grid, 1.5 * s));
        q.setBrush(th.panel);
        q.drawEllipse(at, R, R);
        q.setPen(QPen(th.muted, 1.2 * s));
        for (int h = 0; h < 12; ++h) {
            const double a = h * M_PI / 6;
            const double r0 = h % 3 == 0 ? R * 0.82 : R * 0.9;
            q.drawLine(QPointF(at.x() + r0 * std::sin(a), at.y() - r0 * std::cos(a)),
                       QPointF(at.x() + R * 0.97 * std::sin(a), at.y() - R * 0.97 * std::cos(a)));
        }
    };
    // On screen the dial (face and ticks, which no slider changes) is drawn once into a pixmap at its own
    // fraction of a pixel and copied after that: stroking 16 antialiased circles and 192 ticks was about 1 ms of a
    // compare frame. Exports and rotated or scaled painters draw it as before.
    if (!cachesOnScreen(p)) {
        dial(p, c);
        return;
    }
    const double dpr = p.device() ? p.device()->devicePixelRatioF() : 1.0;
    const QPointF device = p.transform().map(c); // logical pixels of the widget
    const double margin = 2 * s + 2;
    const QPointF corner(std::floor(device.x() - R - margin), std::floor(device.y() - R - margin));
    const QPointF inside = device - corner; // the centre within the pixmap, its fraction included
    const DialKey key{R, s, dpr, inside.x(), inside.y(), th.grid.rgba(), th.panel.rgba(), th.muted.rgba()};
    auto it = std::find_if(m_dials.begin(), m_dials.end(), [&](const auto& d) { return d.first == key; });
    if (it == m_dials.end()) {
        if (m_dials.size() >= 64)
            m_dials.clear();
        const int side = int(std::ceil(2 * (R + margin))) + 2;
        QPixmap pm(QSize(side, side) * dpr);
        pm.setDevicePixelRatio(dpr);
        pm.fill(Qt::transparent);
        QPainter q(&pm);
        q.setRenderHints(p.renderHints());
        dial(q, inside);
        q.end();
        m_dials.emplace_back(key, pm);
        it = m_dials.end() - 1;
    }
    p.save();
    p.resetTransform();
    p.drawPixmap(corner, it->second);
    p.restore();
}

namespace {

/// A hand's name, longest wording first (the first two alike: a third level for bare numbers).
QStringList nameWordings(int i)
{
    return {ClockView::tr("pair %1").arg(i), ClockView::tr("pair %1").arg(i), QString::number(i)};
}

/// A hand's period for frequency @p w, longest wording first.
QStringList periodWordings(double w)
{
    if (!(w > 0))
        return {ClockView::tr("never turns")};
    const QString tokens = formatTokens(core::wavelength(w));
    return {ClockView::tr("period %1").arg(tokens), tokens, formatNumber(core::wavelength(w), 4)};
}

} // namespace

/// The clocks' grid and their labels' form, worked out once per paint (ClockView::layOut) for every cell.
struct ClockView::Grid {
    QRectF area;
    QFont labelFont, periodFont;
    QFontMetricsF lfm{QFont()}, pfm{QFont()};
    double labelH = 0; ///< the name and two period lines under a clock
    int cols = 1;
    double cw = 0, ch = 0; ///< a cell's width and height
    double R = 0;          ///< the clocks' radius
    int nameLevel = 0, periodLevel = 0;
    bool oneLine = true; ///< every pair's period on one line; else every stride-th, alternating two lines
    int stride = 1;

    QRectF cell(int k) const { return {area.left() + (k % cols) * cw, area.top() + (k / cols) * ch, cw, ch}; }
    QPointF centre(const QRectF& cell, double s) const
    {
        return {cell.center().x(), cell.top() + (ch - labelH) / 2 + 2 * s};
    }
};

double ClockView::drawClockHeader(TextLayout& text, const QRectF& target, const Theme& th, double s, double t) const
{
    const double pad = 8 * s;
    const bool pendulum = m_state->viewOptions().pendulum;
    // Whole positions in full; between positions (animation) two decimals.
    const int digits = int(std::floor(std::log10(std::max(1.0, std::abs(t))))) + (t == std::floor(t) ? 1 : 3);
    const QString pos = formatNumber(t, std::max(digits, 1));
    const QString where = tr("position p = %1").arg(pos), whereShort = tr("p = %1").arg(pos);
    const QString angle
        = pendulum ? tr("pendulum swing = sin(p\u00b7\u03c9\u1d62)") : tr("hand angle = p\u00b7\u03c9\u1d62");
    return drawHeader(text, QRectF(target.left() + pad, target.top() + pad * 0.5, target.width() - 2 * pad, 0), th, s,
                      {m_state->figureLabel(),
                       {where, whereShort},
                       {pendulum ? angle : tr("%1, clockwise from 12").arg(angle), angle}});
}

QRectF ClockView::drawHoverLine(TextLayout& text, const QRectF& target, double headerBottom, const Theme& th, double s)
{
    const double pad = 8 * s;
    // On screen, the bottom line holds the hover read-out; it is kept while on screen (a hint when no hand is
    // hovered), so the hands never jump.
    QString hover = showsHints() ? hoverReadout() : QString();
    const bool hovering = !hover.isEmpty();
    if (showsHints() && hover.isEmpty())
        hover = tr("hover a hand to read its frequency, period and angle");
    const QFont hoverFont = th.font(10 * s);
    const double hoverH = hover.isEmpty() ? 0.0 : QFontMetricsF(hoverFont).height() * 1.2;
    const QRectF area(target.left() + pad, headerBottom + pad * 0.5, target.width() - 2 * pad,
                      target.bottom() - pad - headerBottom - pad * 0.5 - hoverH);
    if (onScreen())
        m_cells.clear();
    if (!hover.isEmpty())
        // The hint in a shorter wording where the line is narrow (the read-out itself keeps its form).
        text.draw(QRectF(area.left(), area.bottom(), area.width(), hoverH), Qt::AlignLeft | Qt::AlignVCenter, hoverFont,
                  hovering ? th.foreground : th.muted,
                  hovering ? QStringList{hover}
                           : QStringList{hover, tr("hover a hand to read its period"), tr("hover a hand")});
    return area;
}

ClockView::Grid ClockView::layOut(const QRectF& area, const std::vector<int>& pairs, const Theme& th, double s) const
{
    const auto& freq = m_result->frequencies;
    Grid g;
    g.area = area;
    g.labelFont = th.font(10.5 * s, true);
    g.periodFont = th.font(10 * s);
    g.lfm = QFontMetricsF(g.labelFont);
    g.pfm = QFontMetricsF(g.periodFont);
    g.labelH = g.lfm.height() + g.pfm.height() * 2.1;
    const int n = int(pairs.size());
    // The grid with the largest clocks among those whose cells hold the labels: "pair i" over "X tokens" if
    // any grid allows it, else the bare numbers, else the largest clocks (labels then give way).
    double wantFull = 0, wantBare = 0;
    for (int i : pairs) {
        const double w = freq[std::size_t(i)];
        const QString period = w > 0 ? formatNumber(core::wavelength(w), 4) : tr("never turns");
        wantFull = std::max({wantFull, g.lfm.horizontalAdvance(tr("pair %1").arg(i)),
                             g.pfm.horizontalAdvance(w > 0 ? formatTokens(core::wavelength(w)) : period)});
        wantBare = std::max({wantBare, g.lfm.horizontalAdvance(QString::number(i)), g.pfm.horizontalAdvance(period)});
    }
    auto bestGrid = [&](double want) {
        std::pair<int, double> best{1, 0.0};
        for (int cols = 1; cols <= n; ++cols) {
            const int rows = (n + cols - 1) / cols;
            const double r = std::min(area.width() / cols, area.height() / rows - g.labelH) * 0.42;
            if (area.width() / cols >= want && r > best.second)
                best = {cols, r};
        }
        return best;
    };
    // Labels may cost the clocks at most 40% of their radius.
    const auto largest = bestGrid(0.0);
    auto [bestCols, bestR] = largest;
    for (double want : {wantFull + g.lfm.height(), wantBare + g.lfm.height()})
        if (const auto best = bestGrid(want); best.second >= 0.6 * largest.second) {
            std::tie(bestCols, bestR) = best;
            break;
        }
    g.cols = bestCols;
    g.cw = area.width() / g.cols;
    g.ch = area.height() / ((n + g.cols - 1) / g.cols);
    g.R = std::max(4.0, bestR);
    chooseWordings(g, pairs);
    return g;
}

void ClockView::chooseWordings(Grid& g, const std::vector<int>& pairs) const
{
    const auto& freq = m_result->frequencies;
    const auto periods = [&](int i) { return periodWordings(freq[std::size_t(i)]); };
    // The longest wording level that every cell holds, with a gap to its neighbours.
    g.nameLevel = fittingLevel(g.lfm, g.cw - 4 - g.lfm.height(), pairs, nameWordings);
    g.periodLevel = fittingLevel(g.pfm, g.cw - 4 - g.pfm.height(), pairs, periods);
    // Periods by this rule (at font scale 2 a row of eight clocks showed one period of eight): (1) every pair's
    // period on one line, in the longest wording every cell holds; (2) else they alternate between two lines,
    // each label two cells wide; (3) else only every stride-th pair of a row is labelled (the first, the fastest,
    // always), alternating lines, each label 2 x stride cells wide. Never a period cut or touching another.
    double bareMax = 0;
    for (int i : pairs)
        bareMax = std::max(bareMax, g.pfm.horizontalAdvance(periods(i).back()));
    g.oneLine = bareMax <= g.cw - 4 - g.pfm.height();
    g.stride = 1;
    if (!g.oneLine) {
        while (g.stride < g.cols && bareMax + g.pfm.height() > 2 * g.stride * g.cw - 4)
            ++g.stride;
        // The wording level for the wider boxes.
        g.periodLevel = fittingLevel(g.pfm, 2 * g.stride * g.cw - 4 - g.pfm.height(), pairs, periods);
    }
}

void ClockView::drawClockHand(QPainter& p, QPointF c, double R, double s, const Theme& th, double angle)
{
    const QColor hand = th.accent;
    drawDial(p, c, R, s, th);
    // The swept angle as a faint sector, so slow hands still show how far they have turned.
    QColor sweep = hand;
    sweep.setAlphaF(0.16);
    p.setPen(Qt::NoPen);
    p.setBrush(sweep);
    p.drawPie(QRectF(c.x() - R * 0.78, c.y() - R * 0.78, 1.56 * R, 1.56 * R), 90 * 16,
              -int(std::lround(angle / M_PI * 180 * 16)));
    const QPointF tip(c.x() + R * 0.8 * std::sin(angle), c.y() - R * 0.8 * std::cos(angle));
    p.setPen(QPen(hand, std::max(2.0, 3.2 * s * std::min(1.0, R / 60)), Qt::SolidLine, Qt::RoundCap));
    p.drawLine(c, tip);
    p.setPen(Qt::NoPen);
    p.setBrush(th.foreground);
    p.drawEllipse(c, 3 * s, 3 * s);
}

void ClockView::drawPendulum(QPainter& p, QPointF c, double R, double s, const Theme& th, double sine)
{
    const double L = R * 1.7;
    const QPointF pivot(c.x(), c.y() - R * 0.85);
    const double maxSwing = M_PI / 3;
    const double phi = maxSwing * sine;
    p.setPen(QPen(th.grid, 1.2 * s, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawArc(QRectF(pivot.x() - L, pivot.y() - L, 2 * L, 2 * L), int((270 - 60) * 16), int(120 * 16));
    p.setPen(QPen(th.grid, 1.2 * s));
    p.drawLine(pivot, QPointF(pivot.x(), pivot.y() + L));
    const QPointF bob(pivot.x() + L * std::sin(phi), pivot.y() + L * std::cos(phi));
    p.setPen(QPen(th.foreground, 2 * s));
    p.drawLine(pivot, bob);
    p.setPen(Qt::NoPen);
    p.setBrush(th.accent);
    p.drawEllipse(bob, std::max(4.0, R * 0.14), std::max(4.0, R * 0.14));
    p.setBrush(th.foreground);
    p.drawEllipse(pivot, 3 * s, 3 * s);
}

void ClockView::drawCellLabels(TextLayout& text, const Grid& g, const ClockHands& hands, int k, const QRectF& cell,
                               QPointF c, double s, const Theme& th) const
{
    const int n = int(hands.pairs.size());
    const int i = hands.pairs[std::size_t(k)];
    // Labels: pair and period in the wording every cell can hold (one form across the figure); the
    // extremes keep their clock names where they fit. A label that fits in no wording is left out.
    // The clock's names belong to the extremes of the whole set of pairs, not of the ones shown: "hour hand" is the
    // slowest pair of the scheme (pair 127 of 2,048 at d = 4096 is not), "second hand" the fastest.
    const double y = c.y() + g.R + 6 * s;
    const QRectF labelBox(cell.left() + 2, y, cell.width() - 4, g.lfm.height());
    const QString role
        = n > 1 && i == hands.fastest ? tr("second hand") : (n > 1 && i == hands.slowest ? tr("hour hand") : QString());
    QStringList names = nameWordings(i).mid(g.nameLevel);
    if (!role.isEmpty() && g.nameLevel == 0)
        names.prepend(tr("pair %1 \u00b7 %2").arg(i).arg(role));
    text.draw(labelBox, Qt::AlignHCenter | Qt::AlignTop, g.labelFont, th.foreground, names, TextLayout::Fit::Drop);
    const int column = k % g.cols;
    // Predict, then see (WorkbenchState::answerPending): a hand's period answers 2.1-2.3; it waits for the guess.
    if (!m_state->answerPending() && (g.oneLine || column % g.stride == 0)) {
        const int line = g.oneLine ? 0 : (column / g.stride) % 2;
        const double half = g.oneLine ? cell.width() / 2 - 2 : g.stride * cell.width() - 2;
        const QRectF periodBox(cell.center().x() - half, y + g.lfm.height() + line * g.pfm.height(), 2 * half,
                               g.pfm.height());
        text.draw(periodBox.intersected(QRectF(g.area.left(), periodBox.top(), g.area.width(), g.pfm.height())),
                  Qt::AlignHCenter | Qt::AlignTop, g.periodFont, th.muted,
                  periodWordings(m_result->frequencies[std::size_t(i)]).mid(g.periodLevel), TextLayout::Fit::Drop);
    }
}

void ClockView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    if (!m_result)
        return;
    const double s = sizeScale(target);
    const ClockHands hands = AnglesFigure::clock(AnglesFigure::clockInputs(*m_result, FigureSnapshot::of(*m_state)));
    TextLayout text(p, target);
    const double headerBottom = drawClockHeader(text, target, th, s, hands.time);
    if (hands.pairs.empty())
        return;
    const Grid g = layOut(drawHoverLine(text, target, headerBottom, th, s), hands.pairs, th, s);
    for (int k = 0; k < int(hands.pairs.size()); ++k) {
        const core::HandReading& reading = hands.hands[std::size_t(k)];
        const QRectF cell = g.cell(k);
        if (onScreen())
            m_cells.emplace_back(cell, hands.pairs[std::size_t(k)]);
        const QPointF c = g.centre(cell, s);
        if (m_state->viewOptions().pendulum)
            drawPendulum(p, c, g.R, s, th, reading.sine);
        else
            drawClockHand(p, c, g.R, s, th, reading.angle);
        drawCellLabels(text, g, hands, k, cell, c, s, th);
    }
    // Periods written as bare numbers still need their unit: once, in the bottom corner.
    const double pad = 8 * s;
    if (g.periodLevel >= 2 && !m_state->answerPending())
        text.draw(QRectF(target.left() + pad, target.bottom() - pad * 0.5 - g.pfm.height(), target.width() - 2 * pad,
                         g.pfm.height()),
                  Qt::AlignRight | Qt::AlignVCenter, g.periodFont, th.muted,
                  {tr("periods 2\u03c0/\u03c9\u1d62 in tokens"), tr("periods in tokens")}, TextLayout::Fit::Drop);
}

} // namespace poslab::ui
