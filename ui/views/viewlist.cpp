// SPDX-License-Identifier: MIT
#include "ui/views/viewlist.h"

#include "core/errors.h"
#include "ui/figures/computation.h"
#include "ui/figures/anglesfigure.h"
#include "ui/figures/bucketsfigure.h"
#include "ui/figures/decayfigure.h"
#include "ui/figures/extensionfigure.h"
#include "ui/figures/familiesfigure.h"
#include "ui/figures/lengthlabfigure.h"
#include "ui/figures/pipelinefigure.h"
#include "ui/figures/precisionfigure.h"
#include "ui/figures/spatialfigures.h"
#include "ui/figures/tablefigure.h"
#include "ui/views/attentionview.h"
#include "ui/views/bucketsview.h"
#include "ui/views/clockview.h"
#include "ui/views/decayview.h"
#include "ui/views/extensionview.h"
#include "ui/views/precisionview.h"
#include "ui/views/familiesview.h"
#include "ui/views/lengthlabview.h"
#include "ui/views/patchgridview.h"
#include "ui/views/sequenceview.h"
#include "ui/views/pipelineview.h"
#include "ui/views/rotationview.h"
#include "ui/views/tableview.h"
#include "ui/state/workbenchstate.h"

#include <algorithm>

namespace poslab::ui {
namespace {

template <class V>
View* make(WorkbenchState* state, Computation* computation)
{
    return new V(state, computation);
}

/// A figure's data export (ui/figures/figure.h) for the state now.
template <class Figure>
core::ComputeResult exportOf(const WorkbenchState& state, QStringList* notes)
{
    return Figure::dataExport(FigureSnapshot::of(state), notes);
}

/// Every head's scores (heads x queries x keys); the figure shows one.
core::ComputeResult attentionData(const WorkbenchState& state, QStringList* notes)
{
    const ViewOptions& o = state.viewOptions();
    core::ComputeRequest req = Computation::request(state.setup());
    req.quantity = core::Quantity::Scores;
    req.heads = std::max(1, o.heads);
    req.softmax = o.softmax;
    req.mask = o.causal ? core::MaskKind::Causal : core::MaskKind::Bidirectional;
    const int n = std::max(1, state.positionCount());
    int q = std::max(1, std::min(o.attentionSize, n));
    switch (o.content) {
    case AttentionContent::Random: req.content.kind = core::ContentKind::Random; break;
    case AttentionContent::Constant: req.content.kind = core::ContentKind::Constant; break;
    case AttentionContent::Sentence:
        req.content = core::parseContent(o.sentence.toStdString(), 0);
        q = std::max<int>(1, int(core::sentenceWords(req.content).size()));
        break;
    }
    req.context.positions = core::PositionList::range(0, q);
    if (notes)
        *notes << QStringLiteral("all %1 heads (heads x queries x keys); the figure shows head %2")
                      .arg(req.heads)
                      .arg(o.head);
    // A named part of the logits (the view's term), as the figure draws it: logits, never a softmax of a part.
    // A term this scheme does not have leaves the total, as the view does.
    if (!o.term.isEmpty()) {
        core::ComputeRequest part = req;
        part.term = o.term.toStdString();
        part.softmax = false;
        try {
            core::ComputeResult r = core::compute(part);
            if (notes)
                *notes << QStringLiteral("the term %1 of the logits").arg(o.term);
            return r;
        } catch (const core::InputError&) {
        }
    }
    return core::compute(req);
}

} // namespace

const std::vector<ViewEntry>& viewRegistry()
{
    static const std::vector<ViewEntry> entries{
        {"table", QT_TRANSLATE_NOOP("poslab::ui::View", "Encoding table"), &TableView::staticMetaObject,
         make<TableView>, exportOf<TableFigure>},
        {"clock", QT_TRANSLATE_NOOP("poslab::ui::View", "Clock hands"), &ClockView::staticMetaObject,
         make<ClockView>, exportOf<AnglesFigure>},
        {"rotation", QT_TRANSLATE_NOOP("poslab::ui::View", "RoPE rotation planes"), &RotationView::staticMetaObject,
         make<RotationView>, exportOf<AnglesFigure>},
        {"decay", QT_TRANSLATE_NOOP("poslab::ui::View", "Dot product and decay"), &DecayView::staticMetaObject,
         make<DecayView>, exportOf<DecayFigure>},
        {"attention", QT_TRANSLATE_NOOP("poslab::ui::View", "Attention scores"), &AttentionView::staticMetaObject,
         make<AttentionView>, attentionData},
        {"extension", QT_TRANSLATE_NOOP("poslab::ui::View", "Context-extension lab"), &ExtensionView::staticMetaObject,
         make<ExtensionView>, exportOf<ExtensionFigure>, false},
        {"buckets", QT_TRANSLATE_NOOP("poslab::ui::View", "Distance buckets"), &BucketsView::staticMetaObject,
         make<BucketsView>, exportOf<BucketsFigure>, false},
        {"precision", QT_TRANSLATE_NOOP("poslab::ui::View", "Angle precision"), &PrecisionView::staticMetaObject,
         make<PrecisionView>, exportOf<PrecisionFigure>, false},
        {"pipeline", QT_TRANSLATE_NOOP("poslab::ui::View", "Attention pipeline"), &PipelineView::staticMetaObject,
         make<PipelineView>, exportOf<PipelineFigure>, false},
        {"families", QT_TRANSLATE_NOOP("poslab::ui::View", "Family map"), &FamiliesView::staticMetaObject,
         make<FamiliesView>, exportOf<FamiliesFigure>, false},
        {"lengthlab", QT_TRANSLATE_NOOP("poslab::ui::View", "Length generalisation"), &LengthLabView::staticMetaObject,
         make<LengthLabView>, exportOf<LengthLabFigure>, false},
        {"patchgrid", QT_TRANSLATE_NOOP("poslab::ui::View", "Patch grid"), &PatchGridView::staticMetaObject,
         make<PatchGridView>, exportOf<PatchGridFigure>, false},
        {"sequence", QT_TRANSLATE_NOOP("poslab::ui::View", "Mixed sequence"), &SequenceView::staticMetaObject,
         make<SequenceView>, exportOf<SequenceFigure>, false},
    };
    return entries;
}

const ViewEntry* findView(QStringView id)
{
    for (const ViewEntry& e : viewRegistry())
        if (id == QLatin1String(e.id))
            return &e;
    return nullptr;
}

QStringList viewIds()
{
    QStringList ids;
    for (const ViewEntry& e : viewRegistry())
        ids << QLatin1String(e.id);
    return ids;
}

std::vector<View*> createViews(WorkbenchState* state, Computation* computation)
{
    std::vector<View*> views;
    for (const ViewEntry& e : viewRegistry())
        views.push_back(e.create(state, computation));
    return views;
}

} // namespace poslab::ui
