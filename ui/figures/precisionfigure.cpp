// SPDX-License-Identifier: MIT
#include "ui/figures/precisionfigure.h"

#include "core/encodingregistry.h"
#include "core/errors.h"

#include <algorithm>

namespace poslab::ui {

PrecisionFigure::Inputs PrecisionFigure::inputsOf(const FigureSnapshot& s)
{
    return {s.setup, s.options.dtype, s.options.anglePipeline, s.checked};
}

PrecisionData PrecisionFigure::compute(const Inputs& in)
{
    PrecisionData d;
    d.positions = std::max(1, in.setup.positionCount);
    try {
        const core::ComputeRequest req = figureRequest(in.setup, in.checked);
        const core::SchemeDescriptor& s = core::schemeOrThrow(in.setup.scheme);
        if (!s.rotary)
            throw core::InputError("scheme " + s.id + " does not rotate");
        const core::ParamSet params = core::requestParams(s, req);
        const core::RotarySpec spec = core::rotarySpecFor(s, params, req.context, req.checked.get());
        d.analysis = core::analysePrecision(spec.invFreq, req.context.positions, in.dtype, in.pipeline);
    } catch (const std::exception& e) {
        d.error = QString::fromStdString(e.what());
    }
    return d;
}

core::ComputeResult PrecisionFigure::dataExport(const FigureSnapshot& s, QStringList*)
{
    core::ComputeRequest req = figureRequest(s.setup, s.checked);
    req.quantity = core::Quantity::Precision;
    req.dtype = s.options.dtype;
    return core::compute(req);
}

} // namespace poslab::ui
