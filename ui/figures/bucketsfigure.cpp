// SPDX-License-Identifier: MIT
#include "ui/figures/bucketsfigure.h"

#include <algorithm>

namespace poslab::ui {

BucketsFigure::Inputs BucketsFigure::inputsOf(const FigureSnapshot& s)
{
    return {s.setup.scheme, s.setup.params, s.setup.positionCount};
}

BucketData BucketsFigure::compute(const Inputs& in)
{
    BucketData d;
    d.maxDistance = std::max(1, in.positionCount - 1);
    try {
        d.profile = core::bucketProfile(in.scheme, in.params, d.maxDistance);
        d.t5 = d.profile.tableSpan == 0;
        d.bidirectional = !in.params.has("bidirectional") || in.params.flag("bidirectional");
    } catch (const std::exception& e) {
        d.error = QString::fromStdString(e.what());
    }
    return d;
}

core::ComputeResult BucketsFigure::dataExport(const FigureSnapshot& s, QStringList* notes)
{
    core::ComputeRequest req = figureRequest(s.setup, s.checked);
    req.quantity = core::Quantity::Buckets;
    const core::Position n = std::max(1, s.setup.positionCount - 1);
    req.context.positions = core::PositionList::list({n});
    req.keys = core::PositionList::range(0, 2 * n + 1);
    if (notes)
        *notes << QStringLiteral("one query at %1, keys 0..%2: relative positions -%1..%1").arg(n).arg(2 * n);
    return core::compute(req);
}

} // namespace poslab::ui
