// SPDX-License-Identifier: MIT
#include "ui/figures/pipelinefigure.h"

#include "core/encodingregistry.h"
#include "core/errors.h"

#include <algorithm>
#include <cmath>

namespace poslab::ui {

PipelineFigure::Inputs PipelineFigure::inputsOf(const FigureSnapshot& s)
{
    const ViewOptions& o = s.options;
    return {s.setup, o.heads, o.head, o.causal, o.sentence, o.pipelineMode, o.nopePositions, o.pipelinePair, s.cursor};
}

PipelineData PipelineFigure::compute(const Inputs& in)
{
    const Setup& su = in.setup;
    PipelineData d;
    try {
        const core::ComputeRequest base = figureRequest(su);
        const core::SchemeDescriptor& s = core::schemeOrThrow(su.scheme);
        d.request.scheme = s.id;
        d.request.params = su.params;
        d.request.headDim = su.dim;
        d.request.heads = std::max(1, in.heads);
        d.request.head = in.head;
        d.request.mask = in.causal ? core::MaskKind::Causal : core::MaskKind::Bidirectional;
        d.request.sentence = in.sentence.toStdString();
        d.request.seqLen = base.context.seqLen; // as the attention view's scores
        if (in.mode == PipelineMode::Nope) {
            d.nope = core::nopeDemo(d.request.sentence, su.dim, 0, in.nopePositions);
            const double a
                = std::max(d.nope->output.cwiseAbs().maxCoeff(), d.nope->shuffledOutput.cwiseAbs().maxCoeff());
            d.nopeRange = {-(a > 0 ? a : 1.0), a > 0 ? a : 1.0};
            return d;
        }
        d.pipeline = core::attentionPipeline(d.request);
        for (const core::PipelineStage& st : d.pipeline.stages) {
            if (st.key == "mask" || st.key == "weights") {
                d.ranges.push_back({0.0, 1.0});
                continue;
            }
            double a = 0.0;
            for (Eigen::Index i = 0; i < st.values.size(); ++i)
                if (std::isfinite(st.values.data()[i]))
                    a = std::max(a, double(std::abs(st.values.data()[i])));
            a = a > 0 ? a : 1.0;
            d.ranges.push_back({-a, a});
        }
        const int n = int(d.pipeline.tokens.size());
        d.followed = std::clamp(in.cursor, 0, n - 1);
        if (in.cursor >= n)
            d.followNote = QStringLiteral("the cursor (%1) is past the sentence's %2 words: following the last word")
                               .arg(in.cursor)
                               .arg(n);
        try {
            const core::Position p = d.followed;
            d.vector = core::positionVectorDemo(s.id, su.params, su.dim, d.pipeline.tokens[std::size_t(d.followed)], 0,
                                                p, in.pair);
        } catch (const std::exception& e) {
            d.vectorError = QString::fromUtf8(e.what());
        }
    } catch (const std::exception& e) {
        d = PipelineData{};
        d.error = QString::fromUtf8(e.what());
    }
    return d;
}

core::ComputeResult PipelineData::table(const Setup& setup, const ViewOptions& options) const
{
    if (!error.isEmpty())
        throw core::RefusedError("the pipeline view cannot compute " + setup.scheme + ": " + error.toStdString());
    if (options.pipelineMode == PipelineMode::Nope && nope) {
        core::ComputeResult c = core::nopeTable(*nope);
        c.scheme = setup.scheme;
        return c;
    }
    return core::pipelineTable(request, pipeline);
}

core::ComputeResult PipelineFigure::dataExport(const FigureSnapshot& s, QStringList* notes)
{
    const PipelineData d = computeFigure<PipelineFigure>(s);
    if (notes && d.error.isEmpty() && !d.nope)
        *notes << QStringLiteral("every stage of head %1 (stage, row, column, value); the stage names are the labels "
                                 "stage_0, stage_1, ...")
                      .arg(d.request.head);
    return d.table(s.setup, s.options);
}

} // namespace poslab::ui
