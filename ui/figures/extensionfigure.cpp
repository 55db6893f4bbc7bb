// SPDX-License-Identifier: MIT
#include "ui/figures/extensionfigure.h"

#include "core/encodingregistry.h"

namespace poslab::ui {

ExtensionFigure::Inputs ExtensionFigure::inputsOf(const FigureSnapshot& s)
{
    return {
        s.setup,  s.options.targetLength, s.options.trainedLength, s.options.extensionPair, s.options.extensionMethods,
        s.checked};
}

core::ComputeRequest ExtensionFigure::request(const Inputs& in)
{
    const Setup& setup = in.setup;
    core::ComputeRequest req = figureRequest(setup, in.checked);
    req.quantity = core::Quantity::Extension;
    if (in.targetLength > 0)
        req.context.seqLen = in.targetLength;
    else if (setup.model.value(QStringLiteral("context_length")).toInteger() > 0)
        req.context.seqLen = setup.model.value(QStringLiteral("context_length")).toInteger(); // a model's own L
    if (in.trainedLength > 0)
        req.trainedLength = in.trainedLength;
    else if (setup.model.contains(QStringLiteral("trained_length")))
        req.trainedLength = setup.model.value(QStringLiteral("trained_length")).toInteger();
    return req;
}

ExtensionData ExtensionFigure::compute(const Inputs& in)
{
    const Setup& setup = in.setup;
    ExtensionData d;
    d.allMethods = in.methods == ExtensionMethods::All;
    d.lengthFromModel = in.targetLength <= 0 && setup.model.value(QStringLiteral("context_length")).toInteger() > 0;
    d.lengthFromPositions = in.targetLength <= 0 && !d.lengthFromModel;
    try {
        const core::ComputeRequest req = request(in);
        d.trainedFromModel = in.trainedLength <= 0 && req.trainedLength.has_value();
        const core::SchemeDescriptor& s = core::schemeOrThrow(setup.scheme);
        d.table
            = core::extensionTable(s, setup.params, setup.dim, core::effectiveSeqLen(req.context), req.trainedLength);
    } catch (const std::exception& e) {
        d.error = QString::fromStdString(e.what());
        return d;
    }
    const int pairs = int(d.table.pairs.size());
    d.automaticPair = in.extensionPair < 0;
    d.pair = d.automaticPair ? d.table.automaticPair : in.extensionPair;
    if (d.pair >= pairs) {
        d.pairError = QStringLiteral("extension_pair %1 does not exist: this set-up has %2 pairs (0 to %3)")
                          .arg(d.pair)
                          .arg(pairs)
                          .arg(pairs - 1);
        d.pair = d.table.automaticPair;
    }
    return d;
}

core::ComputeResult ExtensionFigure::dataExport(const FigureSnapshot& s, QStringList* notes)
{
    const Inputs in = inputsOf(s);
    const core::ComputeRequest req = request(in);
    if (notes)
        *notes << QStringLiteral("every pair (pairs x columns); the circle shows pair %1").arg(compute(in).pair);
    return core::compute(req);
}

} // namespace poslab::ui
