// SPDX-License-Identifier: MIT
#pragma once
/// @file precisionview.h
/// The precision view: what float16, bfloat16 or float32 rounding leaves of a rotary scheme's angles over the
/// positions 0..N-1, per pair, from core's exact emulation (core/precision.h; `poslab compute precision` prints
/// the same numbers). Top: for each pair, the first position whose angle, and whose (cos, sin), equals the next
/// position's, and the position from which the format's spacing of the angle exceeds the pair's step omega (log
/// position axis). Bottom: the share of distinct angles and distinct (cos, sin) values over the positions. The
/// format and the pipeline (angle rounded from double, or formed in the low precision) are view options.

#include "ui/figures/precisionfigure.h"
#include "ui/views/view.h"

namespace poslab::ui {

class PrecisionView : public View {
    Q_OBJECT
public:
    PrecisionView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    QSizeF minimumRoom() const override { return {16.0, 12.0}; }
    bool supports(const core::SchemeDescriptor& scheme) const override;
    QString computeError() const override { return data().error; }
    /// The analysis drawn (recomputed on set-up and option changes).
    const PrecisionData& data() const { return m_figure.data(); }

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    QString notApplicableReason() const override;
    bool needsRotation() const override { return true; }
    void resultChanged() override;
    /// Its figure is on its way: the table's new result does not redraw the old one (it redraws when it lands).
    bool awaitsOwnResult() const override { return m_figure.isPending(); }

private:
    FigureTask<PrecisionFigure> m_figure; ///< computed off the UI thread in the window
};

} // namespace poslab::ui
