// SPDX-License-Identifier: MIT
#pragma once
/// @file lengthlabview.h
/// The length-generalisation lab: accuracy (exact match or per-token) or loss against the test length, one colour
/// per scheme, each seed a thin line and their mean a thick one, the trained length marked, from a run file written
/// by `poslab train` (view option run_file; File > Open, `poslab --open run.json`, `poslab export lengthlab --run`).
/// A learned table's lengths past its rows are marked "no position rows" (drawn at 0 with a cross). Every number
/// comes from core through LengthLabFigure (ui/figures/lengthlabfigure.h: core::train::readRuns and lengthCurves).
/// Its controls are the Train panel (ui/views/trainpanel.h): runs trained in the window (WorkbenchState::trainedRuns) are
/// drawn the same way while run_file is empty or names the file they were saved to; while they train, the curves
/// are previews. A loss-against-step panel below shows each run's loss (so far while training, kept after it, and
/// from a run file's loss_curve) where the view has room. A line under the heading says what the task is and what
/// "converged" means (core::train::convergedExactMatch at L_train, drawn dotted under exact match). Each scheme has
/// one colour whatever the order of the runs (lengthLabColourIndex). Hovering a point reads out its scheme, length
/// and value.

#include "ui/figures/lengthlabfigure.h"
#include "ui/views/view.h"

#include <optional>
#include <string>
#include <vector>

namespace poslab::ui {
class TextLayout;
}

namespace poslab::ui {

/// The palette index of scheme @p scheme in the lengthlab view: its place among the Train panel's default schemes
/// (TrainPanel::teachingSchemes) and then core::train::trainableSchemes(), so the same scheme always has the same
/// colour (past the eleven colours the line is dashed).
int lengthLabColourIndex(const std::string& scheme);
QColor lengthLabColour(const std::string& scheme, const Theme& theme);

class LengthLabView : public View {
    Q_OBJECT
public:
    LengthLabView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    bool supports(const core::SchemeDescriptor&) const override { return true; }
    QSizeF minimumRoom() const override { return {16.0, 10.0}; }
    void render(QPainter& painter, const QRectF& target) override;
    const LengthLabData& data() const { return m_data; }
    QWidget* controls() override;
    /// The hover read-out of the point nearest @p at (widget coordinates of the last render, within 12 px at
    /// scale 1): "RoPE · L = 20 · exact match 56.2%"; empty when no point is that near.
    QString readoutAt(QPointF at) const;
    /// The drawn points (the means, and the crosses of missing position rows) of the last render.
    std::vector<QPointF> pointPositions() const;
    /// A drawn point: where, and which group's mean at which test length.
    struct Point {
        QPointF at;
        std::size_t group = 0, length = 0;
    };

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    void resultChanged() override;
    /// Its figure is on its way: the table's new result does not redraw the old one (it redraws when it lands).
    bool awaitsOwnResult() const override { return m_figure.isPending(); }
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QString readout(const Point& pt) const;
    int pointAt(QPointF at) const;
    std::vector<Point> m_points;
    std::optional<QPointF> m_hover;
    double m_hoverScale = 1.0;
    /// The loss of each run against the step, in @p area (while training, or for a diverged run).
    void drawLosses(QPainter& p, TextLayout& text, const QRectF& area, double s) const;
    /// Where there are losses and room for both, the loss panel in the lower part of @p target; returns the part
    /// left for the accuracy figure, or nullopt when the loss panel took the figure (no accuracy measured yet).
    std::optional<QRectF> drawLossPart(QPainter& p, TextLayout& text, const QRectF& target, double s) const;
    /// The hovered point's ring and read-out (on screen only), inside @p fig.
    void drawHover(QPainter& p, const QRectF& target, const QRectF& fig, double s) const;
    LengthLabData m_data;                 ///< the figure's data drawn (the newest m_figure delivered)
    FigureTask<LengthLabFigure> m_figure; ///< computed off the UI thread in the window
    QWidget* m_controls = nullptr;
    QString m_file;
    LengthMetricChoice m_metric = LengthMetricChoice::ExactMatch;
};

} // namespace poslab::ui
