// SPDX-License-Identifier: MIT
#include "ui/views/decayview.h"

#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/views/curveitem.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QTextDocument>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <QFontMetricsF>
#include <QPainter>
#include <QTimer>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

DecayView::DecayView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
    , m_figure(computation, [this](bool later) { takePlot(later); })
{
    // Moves without a button reach the view (B's half of A | B, beside the chart widget, hovers B's curves).
    setMouseTracking(true);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    createChart();
    m_chartView = new QChartView(m_chart, this);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    // Whole-viewport repaints: with the default (minimal) mode, new curves expose the union of many items'
    // rectangles, and every antialiased line of the chart was then drawn through that many-rectangle clip (about
    // 2.5 ms of a 20 ms frame on the bench's slider sweep). New curves change most of the plot anyway.
    m_chartView->setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
    lay->addWidget(m_chartView, 1);
    m_captionLabel = new QLabel(this);
    m_captionLabel->setObjectName(QStringLiteral("decayCaption"));
    m_captionLabel->setContentsMargins(8, 2, 8, 0);
    m_captionLabel->setWordWrap(true);
    lay->addWidget(m_captionLabel);
    m_readout = new QLabel(this);
    m_readout->setObjectName(QStringLiteral("decayReadout"));
    m_readout->setContentsMargins(8, 2, 8, 2);
    m_readout->setText(tr("Hover a curve to read its value."));
    lay->addWidget(m_readout);
    followPlotArea();
    connect(state, &WorkbenchState::answerPendingChanged, this, &DecayView::updateReadout); // View::readoutValue
    connect(state, &WorkbenchState::cursorChanged, this, [this] {
        if (m_state->scheme().encoding && !m_state->scheme().frequencies && isApplicable()) {
            recompute(); // the learned table's dot product depends on p
            refresh();
        }
    });
    connect(state, &WorkbenchState::viewOptionsChanged, this, [this] {
        applyTheme();
        if (m_state->scheme().application == core::Application::ScoreBias)
            recompute(); // one curve per head
    });
    applyTheme();
    resultChanged();
}

void DecayView::createChart()
{
    m_chart = new QChart;
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_chart->legend()->setShowToolTips(true); // a label cut to fit shows its full text on hover
    // Distances with thousands separators, as everywhere else ("1,000", not "1000").
    m_chart->setLocalizeNumbers(true);
    m_chart->setLocale(QLocale(QLocale::English, QLocale::UnitedStates));
    m_chart->layout()->setContentsMargins(2, 2, 2, 2);
    m_chart->setMargins(QMargins(6, 4, 10, 4));
    // The title is an item of the view's own over a top margin of the chart (setChartTitle()): QChart's title lays
    // the whole chart out again whenever its text changes, and the text changes with every slider step
    // (it names rope_theta's value); that re-measured every axis label each frame.
    m_titleItem = new QGraphicsTextItem(m_chart);
    m_titleItem->document()->setDocumentMargin(0);
    m_titleItem->setZValue(m_chart->legend()->zValue());
    connect(m_chart, &QGraphicsWidget::geometryChanged, this, &DecayView::placeTitle);
    m_x = new QCategoryAxis(m_chart);
    m_y = new QCategoryAxis(m_chart);
    m_y2 = new QCategoryAxis(m_chart);
    for (QCategoryAxis* a : {m_x, m_y, m_y2}) {
        a->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        // Tick labels are never cut to "...": fitAxisLabels() spaces the ticks so that whole labels fit.
        a->setTruncateLabels(false);
    }
    m_xTitle = tr("distance k (tokens)");
    m_x->setTitleText(m_xTitle);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    m_chart->addAxis(m_y2, Qt::AlignRight);
    m_y2->setVisible(false);
    m_edgeSeries = new QScatterSeries;
    m_edgeSeries->setName(tr("bucket edges"));
    m_edgeSeries->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_edgeSeries->setMarkerSize(6);
    m_chart->addSeries(m_edgeSeries);
    m_edgeSeries->attachAxis(m_x);
    m_edgeSeries->attachAxis(m_y);
    // The curves themselves: one item over the plot area (curveitem.h); the series stay, empty, for the legend.
    m_curveItem = new CurveItem(m_chart, m_x, [this](int curve, double x) { hoverAt(curve, distanceAt(x)); });
}

void DecayView::followPlotArea()
{
    // Tick labels are text too: refit them whenever the plot area changes size (fonts, window size).
    // Deferred, never from inside Qt Charts' own range update: a refit there sets the range while the domain is
    // still applying the previous one, and the two chase each other until the stack overflows. Where the fit
    // itself moves the plot area (a title that comes and goes), it settles or stops after a few rounds at one
    // chart size.
    for (QCategoryAxis* a : {m_x, m_y, m_y2})
        connect(a, &QValueAxis::rangeChanged, this, [this] { m_curveItem->update(); });
    connect(m_chart, &QChart::plotAreaChanged, this, [this] {
        m_curveItem->plotAreaChanged();
        if (m_fitQueued)
            return;
        m_fitQueued = true;
        QTimer::singleShot(0, this, [this] {
            m_fitQueued = false;
            if (m_chart->size() != m_autoFitSize) {
                m_autoFitSize = m_chart->size();
                m_autoFits = 0;
            }
            if (m_autoFits++ < 4)
                fitAxisLabels();
        });
    });
}

bool DecayView::supports(const core::SchemeDescriptor& scheme) const
{
    return DecayFigure::hasCurve(scheme);
}

QString DecayView::notApplicableReason() const
{
    const auto& s = m_state->scheme();
    const QString name = shortSchemeName(s);
    if (s.relation == core::Relation::None)
        return tr("NoPE treats every distance alike. Pick RoPE, ALiBi or T5 to see a score change with distance.");
    if (s.score)
        return tr("%1 mixes position with content: no single curve. See the attention view, or pick ALiBi, T5 or "
                  "RoPE.")
            .arg(name);
    return tr("%1 has no decay curve. See the attention view, or pick ALiBi, T5 or RoPE.").arg(name);
}

QWidget* DecayView::controls()
{
    if (m_controls)
        return m_controls;
    m_controls = new QWidget(this);
    auto* lay = new QHBoxLayout(m_controls);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* pinButton = new QToolButton(m_controls);
    pinButton->setObjectName(QStringLiteral("decayPin"));
    pinButton->setText(tr("Pin"));
    pinButton->setToolTip(tr("Keep this curve on the axes to compare it with other schemes or settings"));
    auto* clear = new QToolButton(m_controls);
    clear->setText(tr("Clear pins"));
    lay->addWidget(pinButton);
    lay->addWidget(clear);
    connect(pinButton, &QToolButton::clicked, this, &DecayView::pin);
    connect(clear, &QToolButton::clicked, this, &DecayView::clearPins);
    return m_controls;
}

void DecayView::resultChanged()
{
    recompute();
}

DecayFigure::Inputs DecayView::figureInputs() const
{
    // B's curves are part of A's chart only in overlay and difference; side by side, B's half draws itself.
    const FigureSnapshot a = FigureSnapshot::of(*m_state);
    if (!m_state->comparing() || m_state->compareOwner() || !drawsCompare(m_state->compareMode()))
        return DecayFigure::inputsOf(a);
    WorkbenchState* b = m_state->compareState();
    return DecayFigure::inputsOf(a, m_state->figureLabel(), FigureSnapshot::of(*b), b->figureLabel(),
                                 m_state->compareMode());
}

void DecayView::recompute()
{
    DecayFigure::Inputs in = figureInputs();
    if (!m_result || !m_result->error.isEmpty() || !hasContent()) {
        m_figure.forget();
        m_plot = DecayPlot{};
        m_plot.setup = std::move(in.a.setup);
        plotChanged();
        return;
    }
    // Every number and name comes from the figure (decayfigure.h); this view draws them. Unchanged inputs: the
    // series still follow the new result (room, content); new ones: takePlot() rebuilds them.
    if (!m_figure.request(std::move(in)) && !m_figure.isPending())
        plotChanged();
}

void DecayView::takePlot(bool later)
{
    m_plot = m_figure.data();
    plotChanged();
    if (later)
        refresh();
}

void DecayView::plotChanged()
{
    // A figure without curves leaves the left axis's title as it was (the axes keep their words while empty).
    if (!m_plot.yTitle.isEmpty())
        m_yTitle = m_plot.yTitle;
    rebuildSeries();
}

void DecayView::compareChanged()
{
    const bool drawsB = m_state->comparing() && !m_state->compareOwner() && drawsCompare(m_state->compareMode());
    if (drawsB || m_drewCompare)
        recompute();
    m_drewCompare = drawsB;
    refresh();
}

void DecayView::pin()
{
    if (m_plot.curves.empty() || !m_result)
        return;
    m_pins.push_back({m_plot.curves.front(), m_plot.setup});
    if (m_pins.size() > 4)
        m_pins.erase(m_pins.begin());
    rebuildSeries();
    refresh();
}

void DecayView::clearPins()
{
    m_pins.clear();
    rebuildSeries();
    refresh();
}

QStringList DecayView::pinNames() const
{
    std::vector<Setup> pinned;
    for (const Pin& p : m_pins)
        pinned.push_back(p.setup);
    return DecayFigure::pinNames(pinned, m_result ? &m_plot.setup : nullptr);
}

double DecayView::axisX(double k) const
{
    return m_plot.logDistance ? std::log10(std::max(k, 1.0)) : k;
}

double DecayView::distanceAt(double x) const
{
    return m_plot.logDistance ? std::pow(10.0, x) : x;
}

bool DecayView::hasRightAxis() const
{
    return m_plot.rightCurve >= 0 || m_plot.rightFrom >= 0;
}

bool DecayView::onRightAxis(std::size_t curve) const
{
    return int(curve) == m_plot.rightCurve || (m_plot.rightFrom >= 0 && int(curve) >= m_plot.rightFrom);
}

void DecayView::rebuildSeries()
{
    m_autoFits = 0; // new curves: plot-area changes may refit again
    const std::size_t want = m_plot.curves.size() + m_pins.size();
    // Reuse series so a slider drag only replaces points (Qt Charts is slow to add and remove series).
    while (m_series.size() > want) {
        m_chart->removeSeries(m_series.back());
        delete m_series.back();
        m_series.pop_back();
    }
    while (m_series.size() < want) {
        auto* s = new QLineSeries;
        m_chart->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
        m_series.push_back(s);
    }
    measureData();
    m_y2->setVisible(hasRightAxis());
    m_xTitle = m_plot.logDistance ? tr("distance k (tokens, log; \u25aa bucket edges)") : tr("distance k (tokens)");
    // fitAxisLabels() words the titles from m_xTitle, m_yTitle and the right axis's title as if they had just been
    // set whole: setting the whole titles on the axes first, to have them shortened again, re-laid the chart out
    // (every axis label measured again) for every new curve, each frame of a slider drag.
    if (m_fitting)
        m_x->setTitleText(m_xTitle);
    fitAxisLabels(true);
    fillSeries();
    showBucketEdges();
    // Many curves (one per head) would share one row of legend and be cut to "head 0 (..."; a column on
    // the right gives each its full label.
    const Qt::Alignment legendAt = want > 3 ? Qt::AlignRight : Qt::AlignTop;
    if (m_chart->legend()->alignment() != legendAt)
        m_chart->legend()->setAlignment(legendAt);
    if (m_fitting) {
        m_y->setTitleText(m_yTitle);
        m_y2->setTitleText(m_plot.y2Title);
    }
    if (isVisible()) // a hidden view fits its caption label when shown (showEvent); an export draws its own
        fitCaption();
    showChartIfRoom();
    fitAxisLabels();
    setChartTitle(chartTitleText());
    updateReadout();
    // On screen, the chart lays itself out now where the curves changed its axes: posted, the layout would move its
    // items on the event loop's next pass, after the repaint a new result brings had drawn the chart once
    // already, and the chart was drawn twice for each new curve.
    if (m_chartView->isVisible())
        QCoreApplication::sendPostedEvents(m_chart, QEvent::LayoutRequest);
}

void DecayView::measureData()
{
    double lo = 0, hi = 0, maxX = 1, lo2 = 0, hi2 = 0;
    bool first = true, first2 = true;
    auto extend = [&](const Curve& c, bool right) {
        for (const QPointF& p : c.points) {
            if (!std::isfinite(p.y()) || (m_plot.logDistance && p.x() < 1))
                continue;
            double& l = right ? lo2 : lo;
            double& h = right ? hi2 : hi;
            bool& f = right ? first2 : first;
            if (f) {
                l = h = p.y();
                f = false;
            }
            l = std::min(l, p.y());
            h = std::max(h, p.y());
            maxX = std::max(maxX, p.x());
        }
    };
    for (std::size_t i = 0; i < m_plot.curves.size(); ++i)
        extend(m_plot.curves[i], onRightAxis(i));
    for (const auto& pin : m_pins)
        extend(pin.curve, false);
    // The data's extent; fitAxisLabels() turns it into axes whose tick labels fit the plot area.
    m_yData = {lo, hi};
    // The bound from 0, as the paper's figure.
    m_y2Data = m_plot.rightFrom >= 0 ? std::pair{lo2, hi2} : std::pair{std::min(0.0, lo2), hi2};
    m_maxX = maxX;
}

void DecayView::fillSeries()
{
    const Theme th = theme();
    // Okabe-Ito colours after the theme's three: distinguishable with colour-vision deficiency.
    const QColor colors[] = {th.accent,
                             th.accent3,
                             th.accent2,
                             QColor(0xcc, 0x79, 0xa7),
                             QColor(0xe6, 0x9f, 0x00),
                             QColor(0x56, 0xb4, 0xe9),
                             QColor(0xf0, 0xe4, 0x42),
                             QColor(0x99, 0x99, 0x99),
                             th.kind == ThemeKind::Dark ? QColor(0xdd, 0xdd, 0xdd) : QColor(0x00, 0x00, 0x00),
                             QColor(0xd5, 0x5e, 0x00),
                             QColor(0x00, 0x72, 0xb2),
                             QColor(0x88, 0x88, 0x88)};
    const QStringList pinLabels = pinNames();
    std::size_t idx = 0;
    std::vector<CurveItem::Curve> drawn;
    auto fill = [&](const Curve& c, const QString& name, bool pinned, bool right) {
        QLineSeries* s = m_series[idx];
        if (s->name() != name)
            s->setName(name);
        const bool onRight = s->attachedAxes().contains(m_y2);
        if (right != onRight) {
            s->detachAxis(right ? static_cast<QAbstractAxis*>(m_y) : m_y2);
            s->attachAxis(right ? static_cast<QAbstractAxis*>(m_y2) : m_y);
        }
        QPen pen(colors[idx % 12], pinned || c.dashed ? 2.0 : 2.6);
        if (pinned || c.dashed)
            pen.setStyle(Qt::DashLine);
        if (right && m_plot.rightFrom < 0)
            pen.setStyle(Qt::DotLine);
        if (s->pen() != pen)
            s->setPen(pen);
        drawn.push_back({drawnPoints(c), pen, right ? m_y2 : m_y});
        ++idx;
    };
    for (std::size_t i = 0; i < m_plot.curves.size(); ++i)
        fill(m_plot.curves[i], m_plot.curves[i].name, false, onRightAxis(i));
    for (std::size_t i = 0; i < m_pins.size(); ++i)
        fill(m_pins[i].curve, pinLabels.value(qsizetype(i)), true, false);
    m_curveItem->setCurves(std::move(drawn));
}

QList<QPointF> DecayView::drawnPoints(const Curve& c) const
{
    const bool log = m_plot.logDistance;
    QList<QPointF> pts;
    pts.reserve(c.points.size());
    for (const QPointF& p : c.points) {
        if (log && p.x() < 1)
            continue;
        // T5's bias is constant within a bucket: draw steps, not slopes between neighbouring buckets.
        if (log && !pts.isEmpty() && pts.back().y() != p.y())
            pts.append(QPointF(axisX(p.x()), pts.back().y()));
        pts.append(QPointF(axisX(p.x()), p.y()));
    }
    return pts;
}

void DecayView::showBucketEdges()
{
    const Theme th = theme();
    QList<QPointF> edges;
    for (const QPointF& p : m_plot.edgePoints)
        edges.append(QPointF(axisX(p.x()), p.y()));
    m_edgeSeries->replace(edges);
    m_edgeSeries->setColor(th.foreground);
    m_edgeSeries->setBorderColor(th.foreground);
    m_edgeSeries->setName(tr("bucket edges (%1)").arg(m_plot.edges.size()));
    // Named in the distance axis's title, not in the legend, which already holds a line per head.
    m_edgeSeries->setVisible(!edges.isEmpty()); // (this shows the series' legend marker again)
    const auto markers = m_chart->legend()->markers(m_edgeSeries);
    for (QLegendMarker* mk : markers)
        mk->setVisible(false);
}

QString DecayView::chartTitleText() const
{
    if (m_plot.curves.empty())
        return {};
    const int dim = m_plot.setup.dim;
    if (!m_state->comparing() || m_state->compareOwner() || !drawsCompare(m_state->compareMode()))
        return tr("%1 \u00b7 d = %2").arg(m_state->figureLabel()).arg(dim);
    if (m_state->compareMode() == CompareMode::Difference)
        return tr("Difference A \u2212 B \u00b7 d = %1").arg(dim);
    return dim == m_plot.bDim ? tr("Overlay of A and B \u00b7 d = %1").arg(dim)
                              : tr("Overlay of A and B \u00b7 d = %1 and %2").arg(dim).arg(m_plot.bDim);
}

std::vector<ValueRange> DecayView::dataAxisRanges() const
{
    if (m_plot.curves.empty())
        return {};
    std::vector<ValueRange> out{{m_yData.first, m_yData.second}};
    if (hasRightAxis())
        out.push_back({m_y2Data.first, m_y2Data.second});
    return out;
}

QString DecayView::rangeQuantity() const
{
    // The axes' titles name what they measure ("q·k ÷ its value at k = 0", "bias added to the logit (nats)"), and
    // the distance axis's title whether it is logarithmic: equal titles, one quantity on one axis.
    return exportName() + QLatin1Char('|') + m_xTitle + QLatin1Char('|') + m_yTitle + QLatin1Char('|') + m_plot.y2Title;
}

void DecayView::sharedAxesChanged()
{
    if (m_fitting) {
        // Reached from inside a fit (B's new curves): fit again once that one is done.
        QTimer::singleShot(0, this, [this] { sharedAxesChanged(); });
        return;
    }
    fitAxisLabels();
    m_curveItem->update();
    // As after new curves (rebuildSeries()): the chart lays itself out now, not after the repaint, which would then
    // draw it a second time (side by side, B's new curves move A's shared axes every frame of a drag).
    if (m_chartView->isVisible())
        QCoreApplication::sendPostedEvents(m_chart, QEvent::LayoutRequest);
    scheduleRepaint();
}

void DecayView::mouseMoveEvent(QMouseEvent* event)
{
    if (m_state->compareOwner()) {
        // This view is B's half, drawn from its own chart laid out at the half's size with its corner at the half's
        // (renderContent() leaves a hidden view's chart so): the half's coordinates are the chart scene's.
        const auto [curve, x] = m_curveItem->curveAt(m_curveItem->mapFromScene(event->position()));
        if (curve >= 0)
            hoverAt(curve, distanceAt(x));
    }
    View::mouseMoveEvent(event);
}

void DecayView::leaveEvent(QEvent* event)
{
    if (m_state->compareOwner() && m_hoverSeries >= 0) {
        m_hoverSeries = -1;
        updateReadout();
    }
    View::leaveEvent(event);
}

void DecayView::applyTheme()
{
    const Theme th = theme();
    const double s = th.fontScale;
    m_chart->setTheme(th.kind == ThemeKind::Dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setBackgroundBrush(th.background);
    m_chart->setPlotAreaBackgroundBrush(th.panel);
    m_chart->setPlotAreaBackgroundVisible(true);
    m_titleItem->setDefaultTextColor(th.foreground);
    m_chart->legend()->setLabelColor(th.foreground);
    m_captionLabel->setStyleSheet(
        QStringLiteral("color: %1; background: %2;").arg(th.muted.name(), th.background.name()));
    // The caption and the read-out grow with the font scale like the chart's own text (they stayed at the
    // window's 10 px while the chart's was 24 px at font scale 2).
    m_captionLabel->setFont(th.font(9.5));
    m_readout->setFont(th.font(10));
    m_readout->setStyleSheet(
        QStringLiteral("color: %1; background: %2;").arg(th.foreground.name(), th.background.name()));
    for (QCategoryAxis* a : {m_x, m_y, m_y2}) {
        a->setLabelsColor(th.foreground);
        a->setTitleBrush(th.muted);
        a->setGridLineColor(th.grid);
        a->setLinePenColor(th.muted);
    }
    (void)s;
    applyFonts(1.0);
    rebuildSeries(); // the theme resets series pens
}

void DecayView::resizeEvent(QResizeEvent* e)
{
    View::resizeEvent(e);
    fitCaption();
    showChartIfRoom();
}

void DecayView::showEvent(QShowEvent* e)
{
    View::showEvent(e);
    fitCaption();
}

void DecayView::showChartIfRoom()
{
    // The chart is a child widget: hide it (and its caption and read-out) where the view has no content or no
    // room for its labels, so the view's own pane shows instead (View::render says which).
    const QRectF area = contentArea();
    const bool ok = hasContent() && m_result && hasRoom(area.size()) && m_plot.compareProblem.isEmpty();
    if (auto* lay = layout(); lay && lay->contentsMargins().right() != int(width() - area.width()))
        lay->setContentsMargins(0, 0, int(width() - area.width()), 0); // B's half is painted beside the chart
    const bool readout = ok && !m_state->viewOptions().cleanSlide;     // a clean slide has no hover hint or read-out
    if (m_chartView->isHidden() == ok || m_readout->isHidden() == readout) {
        m_chartView->setVisible(ok);
        m_readout->setVisible(readout);
    }
    m_captionLabel->setVisible(ok && !m_plot.caption.isEmpty());
}

void DecayView::scheduleRepaint()
{
    showChartIfRoom();
    if (!m_chartView->isVisibleTo(this)) {
        update();
        return;
    }
    // Each repaint of the whole view repainted the chart too (its children lie in the view's dirty region): twice a
    // frame side by side, once for A's new curves and once for B's half, at about a millisecond each.
    QRegion own(rect());
    for (QWidget* child :
         {static_cast<QWidget*>(m_chartView), static_cast<QWidget*>(m_captionLabel), static_cast<QWidget*>(m_readout)})
        if (child->isVisibleTo(this))
            own -= child->geometry();
    if (!own.isEmpty())
        update(own);
}

void DecayView::paintEvent(QPaintEvent* e)
{
    showChartIfRoom();
    if (!m_chartView->isVisibleTo(this)) {
        View::paintEvent(e);
        return;
    }
    QPainter p(this);
    p.fillRect(rect(), theme().background);
    if (showsHalves() && compareTwin()) {
        // A's chart is the live widget on the left; B's half is drawn beside it.
        const QRectF left = contentArea();
        const double gap = 6 * sizeScale(QRectF(rect()));
        compareTwin()->resize(std::max(1, int(width() - left.width() - gap)), height());
        // On screen, as View::paintEvent draws (B's read-out line shows; the chart drawn here is A's live widget).
        auto* twin = qobject_cast<DecayView*>(compareTwin());
        if (twin)
            twin->m_twinOnScreen = true;
        renderTwin(p, QRectF(left.right() + gap, 0, width() - left.width() - gap, height()));
        if (twin)
            twin->m_twinOnScreen = false;
    }
}

void DecayView::render(QPainter& painter, const QRectF& target)
{
    const bool ok = hasContent() && m_result && hasRoom(target.size()) && m_plot.compareProblem.isEmpty();
    if (ok) {
        m_chartView->setVisible(true);
        m_readout->setVisible(!m_state->viewOptions().cleanSlide);
    }
    View::render(painter, target);
}

void DecayView::renderContent(QPainter& p, const QRectF& target)
{
    // Lay the chart out at the target size, draw its scene, and put it back: fonts and ticks then suit the
    // target (a 3000 px export gets a proper layout, not a blown-up 500 px one).
    const QRectF old = m_chart->geometry();
    const double factor = sizeScale(target);
    // A view that is not shown (the command line's export scene) keeps the last render's fonts and geometry:
    // each render sets its own first, and putting them back would lay the chart out again for nothing.
    const bool offscreen = !isVisible();
    if (factor != m_fontFactor)
        applyFonts(factor);
    // The caption (what the rotary bound bounds) goes under the chart, in exports as on screen; B's read-out line
    // under that.
    QRectF chartRect = target;
    const Theme th = theme();
    const QFont cf = th.font(9.5 * factor);
    const QRectF readoutRect = readoutRoom(target, factor, chartRect);
    const QRectF captionRect = captionRoom(target, cf, factor, chartRect);
    m_chart->setGeometry(QRectF(QPointF(0, 0), chartRect.size()));
    settleChartLayout();
    drawChartScene(p, chartRect);
    recordChartText(p, chartRect);
    // Back to the widget's geometry (hover read-outs map through it).
    if (!offscreen)
        m_chart->setGeometry(old);
    if (!captionRect.isEmpty()) {
        p.fillRect(QRectF(target.left(), chartRect.bottom(), target.width(), target.bottom() - chartRect.bottom()),
                   th.background);
        TextLayout text(
            p, QRectF(target.left(), chartRect.bottom(), target.width(), target.bottom() - chartRect.bottom()));
        text.drawWrapped(captionRect, Qt::AlignLeft | Qt::AlignTop, cf, th.muted, m_plot.caption);
    }
    if (!readoutRect.isEmpty())
        drawReadout(p, readoutRect, factor);
    if (!offscreen && m_fontFactor != 1.0)
        applyFonts(1.0);
}

QRectF DecayView::readoutRoom(const QRectF& target, double factor, QRectF& chartRect) const
{
    // B's half on screen has no read-out widget of its own (the twin is never shown): its line under the chart,
    // where A's read-out stands in A's half.
    if (!m_state->compareOwner() || !(showsHints() || (m_twinOnScreen && !m_state->viewOptions().cleanSlide)))
        return {};
    const QFont rf = theme().font(10 * factor);
    const double h = QFontMetricsF(rf).height() + 4 * factor;
    const QRectF readoutRect(target.left() + 8 * factor, target.bottom() - h, target.width() - 16 * factor, h);
    chartRect.setBottom(readoutRect.top());
    return readoutRect;
}

QRectF DecayView::captionRoom(const QRectF& target, const QFont& cf, double factor, QRectF& chartRect) const
{
    const QString& caption = m_plot.caption;
    if (caption.isEmpty())
        return {};
    const QRectF inner = target.adjusted(8 * factor, 0, -8 * factor, 0);
    const QRectF need
        = QFontMetricsF(cf).boundingRect(QRectF(inner.left(), 0, inner.width(), 1e6), Qt::TextWordWrap, caption);
    // At most a fifth of the figure, so the chart keeps its room, yet never less than the caption's first
    // sentence (its claim) needs, up to a third; drawWrapped then keeps the whole sentences that fit.
    const double lineH = QFontMetricsF(cf).height();
    const qsizetype stop = caption.indexOf(QStringLiteral(". "));
    const double first = stop < 0
        ? need.height()
        : QFontMetricsF(cf)
              .boundingRect(QRectF(inner.left(), 0, inner.width(), 1e6), Qt::TextWordWrap, caption.left(stop + 1))
              .height();
    const double fifth = std::floor(target.height() * 0.2 / lineH) * lineH;
    const double third = std::floor(target.height() / 3 / lineH) * lineH;
    const double h = std::min(need.height(), std::max({lineH, fifth, std::min(first, third)}));
    const QRectF captionRect(inner.left(), chartRect.bottom() - h - 4 * factor, inner.width(), h + 2 * factor);
    chartRect.setBottom(captionRect.top() - 2 * factor);
    return captionRect;
}

void DecayView::settleChartLayout()
{
    // Tick spacing, the corner and the legend depend on the plot area, which depends on them: settle.
    for (int pass = 0; pass < 4; ++pass) {
        const QRectF before = m_chart->plotArea();
        fitAxisLabels();
        if (m_chart->legend()->layout())
            m_chart->legend()->layout()->activate();
        m_chart->layout()->activate();
        if (pass > 0 && m_chart->plotArea() == before)
            break;
    }
    dropCutLegendEntries();
}

void DecayView::drawChartScene(QPainter& p, const QRectF& chartRect)
{
    const QRectF source(QPointF(0, 0), chartRect.size());
    if (!cachesOnScreen(p)) {
        m_chartView->scene()->render(&p, chartRect, source);
        return;
    }
    // B's half on screen: drawn into an image first and copied. Painted straight into the window, every line and
    // label went through the view's clip region (the view less A's chart, a region of several rectangles), which
    // made each antialiased fill slower.
    const qreal dpr = p.device() ? p.device()->devicePixelRatioF() : 1.0;
    QImage img((chartRect.size() * dpr).toSize(), QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(dpr);
    img.fill(Qt::transparent);
    {
        QPainter ip(&img);
        ip.setRenderHints(p.renderHints());
        m_chartView->scene()->render(&ip, source, source);
    }
    p.drawImage(chartRect.topLeft(), img);
}

void DecayView::drawReadout(QPainter& p, const QRectF& readoutRect, double factor)
{
    const Theme th = theme();
    p.fillRect(readoutRect, th.background);
    TextLayout text(p, readoutRect);
    // The whole line, else "B · k = 154 tokens,  value 0.577" without the curve's name (the half is narrow).
    const QString full = m_readout->text();
    QStringList words{full};
    const qsizetype at = full.indexOf(QStringLiteral(":  k = ")), who = full.indexOf(QStringLiteral(" \u00b7 "));
    if (at > 0 && who >= 0 && who < at)
        words << full.left(who + 3) + full.mid(at + 3);
    text.draw(readoutRect, Qt::AlignLeft | Qt::AlignVCenter, th.font(10 * factor), th.foreground, words,
              TextLayout::Fit::Drop);
}

} // namespace poslab::ui
