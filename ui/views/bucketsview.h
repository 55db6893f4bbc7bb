// SPDX-License-Identifier: MIT
#pragma once
/// @file bucketsview.h
/// The buckets view: T5's and DeBERTa's bucket functions against the relative position in both directions, on a
/// logarithmic axis each way (0 in the middle), as core's bucket profile gives them (core/buckets.h; `poslab compute
/// buckets` prints the same buckets). The edges a lecture names are marked and labelled: where the logarithm
/// starts deciding the bucket and where the last bucket (T5) or the last table row (DeBERTa) begins. T5's
/// bidirectional or causal variant is its own parameter `bidirectional`.

#include "ui/figures/bucketsfigure.h"
#include "ui/views/view.h"

namespace poslab::ui {

class BucketsView : public View {
    Q_OBJECT
public:
    BucketsView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    QSizeF minimumRoom() const override { return {16.0, 10.0}; }
    bool supports(const core::SchemeDescriptor& scheme) const override;
    /// The profile drawn (recomputed on every set-up change).
    const BucketData& data() const { return m_figure.data(); }

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    QString notApplicableReason() const override;
    void resultChanged() override;
    /// Its figure is on its way: the table's new result does not redraw the old one (it redraws when it lands).
    bool awaitsOwnResult() const override { return m_figure.isPending(); }

private:
    FigureTask<BucketsFigure> m_figure; ///< computed off the UI thread in the window
};

} // namespace poslab::ui
