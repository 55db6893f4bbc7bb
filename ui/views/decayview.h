// SPDX-License-Identifier: MIT
#pragma once
/// @file decayview.h
/// Dot-product and decay curves against the distance k (Qt Charts). Sinusoidal:
/// PE(p).PE(p+k) = sum_i cos(k w_i); learned: E(p).E(p+k) from the table at the cursor p; rotary schemes:
/// the score of q = k = (1, ..., 1) against the distance, relative to distance 0 (left axis), with RoFormer's
/// relative upper bound (1/(r/2)) sum_j |S_j|, S_j = sum_{l<j} e^(i k theta_l) drawn as the paper's figure 2
/// draws it, not normalised, on its own right axis (Su et al. 2021, section 3.4.3: |sum_j h_j e^(i k theta_j)|
/// <= max_j |h_(j+1) - h_j| sum_j |S_j|, so with q = k = 1 the score over its value at 0 stays below it).
/// Score-bias schemes: the bias of each head; heads with identical curves (shared parameters, e.g. Kerple)
/// are drawn once and the legend says so; T5 on a logarithmic distance axis with its bucket edges marked.
/// Axes fit their data, with labels written by the view (no "-0.00"). "Pin" keeps the current curve so that
/// several schemes or settings share the axes; the legend names the parameters in which pins differ.
/// The curves, their names, axis titles and caption, and B's curves in the compare overlay and difference, are
/// the decay figure's (ui/figures/decayfigure.h); this view draws them. The fitting of its text to the chart's
/// room is in decaylabels.cpp.

#include "ui/figures/decayfigure.h"
#include "ui/views/view.h"

#include <QFont>
#include <QList>
#include <QPointF>

#include <optional>
#include <vector>

class QLabel;
class QLineSeries;
class QScatterSeries;
class QChart;
class QChartView;
class QCategoryAxis;
class QGraphicsTextItem;

namespace poslab::ui {

class CurveItem;

class DecayView : public View {
    Q_OBJECT
public:
    DecayView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    /// Lines of text (width, height) its plot and labels need; see View::minimumRoom().
    QSizeF minimumRoom() const override { return {12.0, 9.0}; }
    bool supports(const core::SchemeDescriptor& scheme) const override;
    QWidget* controls() override;
    void render(QPainter& painter, const QRectF& target) override;
    /// Side by side: the left (and right) value axis's data range, for A and B to share when they plot the same
    /// quantity (rangeQuantity(): the same axis titles), as the extension view's axes do.
    std::vector<ValueRange> dataAxisRanges() const override;
    QString rangeQuantity() const override;

    /// One curve: a legend name and its points (distance, value).
    using Curve = DecayCurve;
    /// The curves for the current state (main curve first, then the bound for rotary schemes), x = distance.
    const std::vector<Curve>& curves() const { return m_plot.curves; }
    /// Index in curves() of the curve drawn on the right axis (RoFormer's bound), or -1.
    int rightAxisCurve() const { return m_plot.rightCurve; }
    /// True when the distance axis is logarithmic (T5's buckets).
    bool logDistance() const { return m_plot.logDistance; }
    /// Distances where T5's bucket changes (marked on the plot); empty for other schemes.
    const std::vector<double>& bucketEdges() const { return m_plot.edges; }
    /// The sentence under the chart saying what the rotary bound bounds; empty for other schemes.
    QString caption() const { return m_plot.caption; }
    /// The left axis range and its tick labels, as drawn.
    std::pair<double, double> yRange() const;
    QStringList yTickLabels() const;
    QStringList xTickLabels() const;
    /// Legend names of the series on the chart, in order (curves, then pins).
    QStringList seriesNames() const;
    /// The hover read-out line (kept current when the curves change).
    QString readoutText() const;
    /// Shows the read-out for series @p series (curves, then pins) near distance @p distance, as hovering does.
    void hoverAt(int series, double distance);
    /// Keeps the current main curve on the axes.
    void pin();
    void clearPins();
    int pinCount() const { return int(m_pins.size()); }
    QChart* chart() const { return m_chart; }
    /// The chart's title as set (drawn above the legend, cut with "…" where the chart is narrower).
    QString chartTitle() const { return m_title; }

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    QString notApplicableReason() const override;
    bool needsRotation() const override { return m_state->isRotary(); }
    void resultChanged() override;
    bool awaitsOwnResult() const override { return m_figure.isPending(); }
    /// The view's own paint only: the chart repaints itself when its scene changes and the caption and read-out when
    /// their text does, so a refresh repaints the rest (B's half side by side), or the whole view when it shows a
    /// notice instead of the chart.
    void scheduleRepaint() override;
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void showEvent(QShowEvent* e) override;
    bool drawsCompare(CompareMode mode) const override
    {
        return mode == CompareMode::Overlay || mode == CompareMode::Difference;
    }
    void compareChanged() override;
    QString compareProblem() const override { return m_plot.compareProblem; }
    void sharedAxesChanged() override;
    /// B's half of A | B (this view as the twin): the mouse, forwarded by A's view, hovers B's curves.
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    /// The chart, its axes, title item, bucket-edge series and curve item (the constructor's first part).
    void createChart();
    /// Refits the tick labels after the plot area changes size (deferred, at most a few rounds per chart size).
    void followPlotArea();
    /// The figure's inputs now: A's snapshot, and B's in the compare modes this chart draws B in.
    DecayFigure::Inputs figureInputs() const;
    /// Asks for the figure's data for the state now (computed only when its inputs changed); the series are rebuilt
    /// when it is there (takePlot()).
    void recompute();
    /// The figure's new data delivered: drawn from now on; @p later: it came after recompute() (a worker's), so the
    /// view repaints.
    void takePlot(bool later);
    /// The series, axes and titles from m_plot.
    void plotChanged();
    /// The chart's series, axes, titles and legend from the figure's data and the pins.
    void rebuildSeries();
    /// The extent of the curves on each value axis and the largest distance (m_yData, m_y2Data, m_maxX).
    void measureData();
    /// One legend series and one drawn curve per curve and pin, in the palette's colours.
    void fillSeries();
    /// @p curve's points on the distance axis as drawn: log10 k on a log axis, T5's buckets as steps.
    QList<QPointF> drawnPoints(const Curve& curve) const;
    /// The bucket-edge markers on the main curve (no legend entry).
    void showBucketEdges();
    /// "<figure label> · d = 128", or the overlay's or difference's title; empty without curves.
    QString chartTitleText() const;
    /// Distance k to the distance axis's coordinate and back (log10 on a log axis).
    double axisX(double k) const;
    double distanceAt(double x) const;
    bool hasRightAxis() const;
    /// Whether curve @p curve (of curves()) is drawn on the right axis.
    bool onRightAxis(std::size_t curve) const;
    void applyTheme();
    void updateReadout();
    /// Legend names of the pins: "pinned: <scheme> · <the parameters in which the pins and the current set-up
    /// differ>" (DecayFigure::pinNames).
    QStringList pinNames() const;
    /// Chart fonts for a figure @p sizeFactor times the panel size (1 on screen).
    void applyFonts(double sizeFactor);
    /// Sets the title drawn above the chart (empty: none) and the room the chart leaves for it.
    void setChartTitle(const QString& title);
    /// Places the title item: centred, cut to the chart's width.
    void placeTitle();
    /// True when Qt Charts drew a y axis's title cut to "..." (a squeezed axis on a narrow chart).
    bool yTitleCut() const;
    /// Whether the legend shows an entry cut with "..." (Qt Charts' own truncation).
    bool legendCut() const;
    /// Drops legend entries from the end while one is cut (fitLegend() shows them all again).
    void dropCutLegendEntries();
    /// Puts the caption into its on-screen label: at most three lines, cut with "…" (full text as tooltip).
    void fitCaption();
    /// Shows the chart, caption and read-out only where the view has content and room for its labels.
    void showChartIfRoom();
    /// Fits the axes' tick spacing to their labels at the current plot size, and keeps the bottom-left corner
    /// free (the lowest y label clear of the x axis's first label). @p wholeTitles: word the titles as if the
    /// axes held the whole ones (m_xTitle...), as after new curves.
    void fitAxisLabels(bool wholeTitles = false);
    /// fitAxisLabels()'s parts for @p plot (the plot area; @p sized: it has one): the distance axis's ticks, the
    /// axes' titles (whole, short or none) and the legend's font and place.
    void fitDistanceTicks(const QRectF& plot, bool sized);
    void fitAxisTitles(const QRectF& plot, bool wholeTitles);
    void fitLegend();
    /// renderContent()'s parts: B's read-out line and the caption under the chart (each lowers @p chartRect's
    /// bottom), the layout settled at the target size, and the chart's scene drawn.
    QRectF readoutRoom(const QRectF& target, double factor, QRectF& chartRect) const;
    QRectF captionRoom(const QRectF& target, const QFont& captionFont, double factor, QRectF& chartRect) const;
    void settleChartLayout();
    void drawChartScene(QPainter& p, const QRectF& chartRect);
    void drawReadout(QPainter& p, const QRectF& readoutRect, double factor);
    /// Adds the chart's text items, as just drawn into @p target, to the thread's TextRecord (if any).
    void recordChartText(QPainter& p, const QRectF& target) const;

    struct Pin {
        Curve curve;
        Setup setup;
    };
    DecayPlot m_plot;                 ///< the figure's data drawn
    FigureTask<DecayFigure> m_figure; ///< computes m_plot's numbers (off the UI thread in the window)
    std::vector<Pin> m_pins;
    bool m_drewCompare = false; ///< the chart holds B's curves (overlay) or A - B (difference)
    QChart* m_chart = nullptr;
    QChartView* m_chartView = nullptr;
    QCategoryAxis* m_x = nullptr;
    QCategoryAxis* m_y = nullptr;
    QCategoryAxis* m_y2 = nullptr;
    std::vector<QLineSeries*> m_series;       ///< empty series: the legend's entries (their pens draw its markers)
    CurveItem* m_curveItem = nullptr;         ///< draws the curves (curveitem.h)
    QGraphicsTextItem* m_titleItem = nullptr; ///< the title (setChartTitle())
    QString m_title;
    double m_noYTitlesUpTo = 0; ///< chart width at and below which the y titles are left out (Qt Charts cut them)
    QScatterSeries* m_edgeSeries = nullptr;
    QLabel* m_captionLabel = nullptr;
    QLabel* m_readout = nullptr;
    QWidget* m_controls = nullptr;
    QString m_yTitle;       ///< the left axis's title: the figure's, kept while the figure has no curve
    QString m_xTitle;       ///< the x axis's title (fitAxisLabels() leaves it out on a very low plot)
    int m_hoverSeries = -1; ///< series of the last hover (-1: none)
    double m_hoverX = 0.0;  ///< its distance
    bool m_fitting = false;
    bool m_fitQueued = false; ///< a refit after a plot-area change is waiting for the event loop
    int m_autoFits = 0;       ///< refits at m_autoFitSize since the chart last changed size
    QSizeF m_autoFitSize;
    double m_fontFactor = 1.0; ///< the size factor applyFonts() last applied
    QFont m_legendFont;        ///< the legend's font at the current size (fitAxisLabels() may shrink it to fit)
    std::pair<double, double> m_yData{0.0, 1.0};  ///< extent of the left axis's curves
    std::pair<double, double> m_y2Data{0.0, 1.0}; ///< extent of the right axis's curve (the bound)
    double m_maxX = 1.0;                          ///< largest distance drawn
    bool m_twinOnScreen = false; ///< this view is B's half, drawn by A's paintEvent on screen (its read-out line shows)
};

} // namespace poslab::ui
