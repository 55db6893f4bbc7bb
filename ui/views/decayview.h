// SPDX-License-Identifier: MIT
#pragma once
/// @file decayview.h
/// View 3: dot-product and decay curves against the distance k (Qt Charts). Sinusoidal:
/// PE(p).PE(p+k) = sum_i cos(k w_i); learned: E(p).E(p+k) from the table at the cursor p; rotary schemes:
/// the score of q = k = (1, ..., 1) against the distance, relative to distance 0, with RoFormer's relative
/// upper bound (1/(r/2)) sum_j |S_j|, S_j = sum_{l<j} e^(i k theta_l) (Su et al. 2021, section 3.4.3), also
/// relative to distance 0. "Pin" keeps the current curve so that several schemes or settings share the axes.

#include "ui/views/view.h"

#include <QFont>
#include <QList>
#include <QPointF>

#include <limits>
#include <vector>

class QLabel;
class QLineSeries;
class QChart;
class QChartView;
class QValueAxis;

namespace poslab::ui {

class DecayView : public View {
    Q_OBJECT
public:
    DecayView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    QString title() const override { return tr("Dot product and decay"); }
    QString exportName() const override { return QStringLiteral("decay"); }
    bool supports(const core::SchemeDescriptor& scheme) const override;
    QWidget* controls() override;
    void render(QPainter& painter, const QRectF& target) override;

    /// One curve: a legend name and its points (distance, value).
    struct Curve {
        QString name;
        QList<QPointF> points;
    };
    /// The curves for the current state (main curve first, then the bound for rotary schemes).
    const std::vector<Curve>& curves() const { return m_curves; }
    /// Keeps the current main curve on the axes.
    void pin();
    void clearPins();
    int pinCount() const { return int(m_pins.size()); }
    QChart* chart() const { return m_chart; }
    /// The same curves at every distance (the chart plots about 400 of them); the data export writes these.
    std::vector<Curve> exactCurves();

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    QString notApplicableReason() const override;
    void resultChanged() override;
    void paintEvent(QPaintEvent* e) override;

private:
    /// Distances 0..maxK: about 400 of them for the chart, every one while exactCurves() runs.
    std::vector<core::Position> distances(core::Position maxK) const;
    bool m_everyDistance = false; ///< exactCurves() is running
    void recompute();
    void rebuildSeries();
    void applyTheme();
    /// Chart fonts for a figure @p sizeFactor times the panel size (1 on screen).
    void applyFonts(double sizeFactor);
    /// Fits the axes' tick spacing to their labels at the current plot size, and keeps the bottom-left corner
    /// free (the lowest y label clear of the x axis's first label).
    void fitAxisLabels();
    /// Adds the chart's text items, as just drawn into @p target, to the thread's TextRecord (if any).
    void recordChartText(QPainter& p, const QRectF& target) const;

    std::vector<Curve> m_curves;
    std::vector<Curve> m_pins;
    QChart* m_chart = nullptr;
    QChartView* m_chartView = nullptr;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    std::vector<QLineSeries*> m_series;
    QLabel* m_readout = nullptr;
    QWidget* m_controls = nullptr;
    QString m_yTitle;
    QString m_xTitle; ///< the x axis's title (fitAxisLabels() leaves it out on a very low plot)
    bool m_fitting = false;
    bool m_fitQueued = false;   ///< a refit after a plot-area change is waiting for the event loop
    int m_autoFits = 0;         ///< refits at m_autoFitSize since the chart last changed size
    QSizeF m_autoFitSize;
    QFont m_legendFont; ///< the legend's font at the current size (fitAxisLabels() may shrink it to fit)
    double m_yBase = std::numeric_limits<double>::quiet_NaN(); ///< the y axis's lower end before fitAxisLabels()
    double m_yTopBase = std::numeric_limits<double>::quiet_NaN(); ///< the y axis's upper end before fitAxisLabels()
};

} // namespace poslab::ui
