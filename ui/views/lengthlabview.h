// SPDX-License-Identifier: MIT
#pragma once
/// @file lengthlabview.h
/// The length-generalisation lab: accuracy (exact match or per-token) or loss against the test length, one colour
/// per scheme, each seed a thin line and their mean a thick one, the trained length marked, from a run file written
/// by `poslab train` (view option run_file; File > Open, `poslab --open run.json`, `poslab export lengthlab --run`).
/// A learned table's lengths past its rows are marked "no position rows" (drawn at 0 with a cross). Every number
/// comes from core through Computation::lengthLabData (core::train::readRuns and lengthCurves).
/// Its controls are the Train panel (ui/trainpanel.h): runs trained in the window (WorkbenchState::trainedRuns) are
/// drawn the same way while run_file is empty or names the file they were saved to; while they train, the curves
/// are previews and a loss-against-step panel shows each run's loss so far (also kept when a run diverged).

#include "ui/views/view.h"

namespace poslab::ui {
class TextLayout;
}

namespace poslab::ui {

class LengthLabView : public View {
    Q_OBJECT
public:
    LengthLabView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    bool supports(const core::SchemeDescriptor&) const override { return true; }
    QSizeF minimumRoom() const override { return {16.0, 10.0}; }
    void render(QPainter& painter, const QRectF& target) override;
    const LengthLabData& data() const { return m_data; }
    QWidget* controls() override;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    void resultChanged() override;

private:
    /// The loss of each run against the step, in @p area (while training, or for a diverged run).
    void drawLosses(QPainter& p, TextLayout& text, const QRectF& area, double s) const;
    LengthLabData m_data;
    QWidget* m_controls = nullptr;
    QString m_file;
    LengthMetricChoice m_metric = LengthMetricChoice::ExactMatch;
};

} // namespace poslab::ui
