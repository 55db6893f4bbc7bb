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

#include "ui/views/view.h"

#include <QFont>
#include <QList>
#include <QPointF>

#include <functional>
#include <limits>
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
    struct Curve {
        QString name;
        QList<QPointF> points;
        /// A compact legend name ("m = 1/2", "h3") for a legend moved into one row above a low plot; empty:
        /// the name.
        QString shortName = {};
        bool dashed = false; ///< configuration B's curve in the compare overlay
    };
    /// The curves for the current state (main curve first, then the bound for rotary schemes), x = distance.
    const std::vector<Curve>& curves() const { return m_curves; }
    /// Index in curves() of the curve drawn on the right axis (RoFormer's bound), or -1.
    int rightAxisCurve() const { return m_rightCurve; }
    /// True when the distance axis is logarithmic (T5's buckets).
    bool logDistance() const { return m_logX; }
    /// Distances where T5's bucket changes (marked on the plot); empty for other schemes.
    const std::vector<double>& bucketEdges() const { return m_edges; }
    /// The sentence under the chart saying what the rotary bound bounds; empty for other schemes.
    QString caption() const { return m_caption; }
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
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void showEvent(QShowEvent* e) override;
    bool drawsCompare(CompareMode mode) const override
    {
        return mode == CompareMode::Overlay || mode == CompareMode::Difference;
    }
    void compareChanged() override;
    QString compareProblem() const override { return m_compareProblem; }
    void sharedAxesChanged() override;
    /// B's half of A | B (this view as the twin): the mouse, forwarded by A's view, hovers B's curves.
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    /// Compare mode: B's curves added to A's (overlay), or A's replaced by A − B (difference).
    void addCompareCurves();
    void recompute();
    void rebuildSeries();
    void applyTheme();
    void updateReadout();
    /// Legend names of the pins: "pinned: <scheme> · <the parameters in which the pins and the current set-up
    /// differ>".
    QStringList pinNames() const;
    /// Chart fonts for a figure @p sizeFactor times the panel size (1 on screen).
    void applyFonts(double sizeFactor);
    /// Sets the title drawn above the chart (empty: none) and the room the chart leaves for it.
    void setChartTitle(const QString& title);
    /// Places the title item: centred, cut to the chart's width.
    void placeTitle();
    /// True when Qt Charts drew a y axis's title cut to "..." (a squeezed axis on a narrow chart).
    bool yTitleCut() const;
    /// Puts the caption into its on-screen label: at most three lines, cut with "…" (full text as tooltip).
    void fitCaption();
    /// Shows the chart, caption and read-out only where the view has content and room for its labels.
    void showChartIfRoom();
    /// Fits the axes' tick spacing to their labels at the current plot size, and keeps the bottom-left corner
    /// free (the lowest y label clear of the x axis's first label). @p wholeTitles: word the titles as if the
    /// axes held the whole ones (m_xTitle...), as after new curves.
    void fitAxisLabels(bool wholeTitles = false);
    /// Adds the chart's text items, as just drawn into @p target, to the thread's TextRecord (if any).
    void recordChartText(QPainter& p, const QRectF& target) const;

    struct Pin {
        Curve curve;
        Setup setup;
    };
    std::vector<Curve> m_curves;
    std::vector<Pin> m_pins;
    int m_rightCurve = -1;
    int m_rightFrom = -1;          ///< overlay: B's curves from this index on use the right axis (another quantity)
    QString m_compareProblem;      ///< why the compare mode cannot be drawn (difference of unlike curves)
    bool m_drewCompare = false;    ///< the chart holds B's curves (overlay) or A - B (difference)
    bool m_logX = false;
    std::vector<double> m_edges;
    QList<QPointF> m_edgePoints;
    QString m_caption;
    QChart* m_chart = nullptr;
    QChartView* m_chartView = nullptr;
    QCategoryAxis* m_x = nullptr;
    QCategoryAxis* m_y = nullptr;
    QCategoryAxis* m_y2 = nullptr;
    std::vector<QLineSeries*> m_series; ///< empty series: the legend's entries (their pens draw its markers)
    CurveItem* m_curveItem = nullptr; ///< draws the curves (curveitem.h)
    QGraphicsTextItem* m_titleItem = nullptr; ///< the title (setChartTitle())
    QString m_title;
    double m_noYTitlesUpTo = 0; ///< chart width at and below which the y titles are left out (Qt Charts cut them)
    QScatterSeries* m_edgeSeries = nullptr;
    QLabel* m_captionLabel = nullptr;
    QLabel* m_readout = nullptr;
    QWidget* m_controls = nullptr;
    QString m_yTitle;
    QString m_y2Title;
    QString m_xTitle; ///< the x axis's title (fitAxisLabels() leaves it out on a very low plot)
    int m_hoverSeries = -1;    ///< series of the last hover (-1: none)
    double m_hoverX = 0.0;     ///< its distance
    bool m_fitting = false;
    bool m_fitQueued = false;   ///< a refit after a plot-area change is waiting for the event loop
    int m_autoFits = 0;         ///< refits at m_autoFitSize since the chart last changed size
    QSizeF m_autoFitSize;
    double m_fontFactor = 1.0; ///< the size factor applyFonts() last applied
    QFont m_legendFont; ///< the legend's font at the current size (fitAxisLabels() may shrink it to fit)
    std::pair<double, double> m_yData{0.0, 1.0};  ///< extent of the left axis's curves
    std::pair<double, double> m_y2Data{0.0, 1.0}; ///< extent of the right axis's curve (the bound)
    double m_maxX = 1.0;                          ///< largest distance drawn
    bool m_twinOnScreen = false; ///< this view is B's half, drawn by A's paintEvent on screen (its read-out line shows)
};

} // namespace poslab::ui
