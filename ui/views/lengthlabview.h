// SPDX-License-Identifier: MIT
#pragma once
/// @file lengthlabview.h
/// The length-generalisation lab: accuracy (exact match or per-token) or loss against the test length, one colour
/// per scheme, each seed a thin line and their mean a thick one, the trained length marked, from a run file written
/// by `poslab train` (view option run_file; File > Open, `poslab --open run.json`, `poslab export lengthlab --run`).
/// A learned table's lengths past its rows are marked "no position rows" (drawn at 0 with a cross). Every number
/// comes from core through Computation::lengthLabData (core::train::readRuns and lengthCurves).

#include "ui/views/view.h"

namespace poslab::ui {

class LengthLabView : public View {
    Q_OBJECT
public:
    LengthLabView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    bool supports(const core::SchemeDescriptor&) const override { return true; }
    QSizeF minimumRoom() const override { return {16.0, 10.0}; }
    void render(QPainter& painter, const QRectF& target) override;
    const LengthLabData& data() const { return m_data; }

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    void resultChanged() override;

private:
    LengthLabData m_data;
    QString m_file;
    LengthMetricChoice m_metric = LengthMetricChoice::ExactMatch;
};

} // namespace poslab::ui
