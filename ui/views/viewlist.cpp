// SPDX-License-Identifier: MIT
#include "ui/views/viewlist.h"

#include "core/errors.h"
#include "ui/figures/computation.h"
#include "ui/figures/anglesfigure.h"
#include "ui/figures/attentionfigure.h"
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

template <class V> View* make(WorkbenchState* state, Computation* computation)
{
    return new V(state, computation);
}

/// A figure's data export (ui/figures/figure.h) for the state now.
template <class Figure> core::ComputeResult exportOf(const WorkbenchState& state, QStringList* notes)
{
    return Figure::dataExport(FigureSnapshot::of(state), notes);
}

} // namespace

const std::vector<ViewEntry>& viewRegistry()
{
    static const std::vector<ViewEntry> entries{
        {"table", QT_TRANSLATE_NOOP("poslab::ui::View", "Encoding table"), &TableView::staticMetaObject,
         make<TableView>, exportOf<TableFigure>},
        {"clock", QT_TRANSLATE_NOOP("poslab::ui::View", "Clock hands"), &ClockView::staticMetaObject, make<ClockView>,
         exportOf<AnglesFigure>},
        {"rotation", QT_TRANSLATE_NOOP("poslab::ui::View", "RoPE rotation planes"), &RotationView::staticMetaObject,
         make<RotationView>, exportOf<AnglesFigure>},
        {"decay", QT_TRANSLATE_NOOP("poslab::ui::View", "Dot product and decay"), &DecayView::staticMetaObject,
         make<DecayView>, exportOf<DecayFigure>},
        {"attention", QT_TRANSLATE_NOOP("poslab::ui::View", "Attention scores"), &AttentionView::staticMetaObject,
         make<AttentionView>, exportOf<AttentionFigure>},
        {"extension", QT_TRANSLATE_NOOP("poslab::ui::View", "Context-extension lab"), &ExtensionView::staticMetaObject,
         make<ExtensionView>, exportOf<ExtensionFigure>, false, QT_TRANSLATE_NOOP("poslab::ui::View", "Extension lab")},
        {"buckets", QT_TRANSLATE_NOOP("poslab::ui::View", "Distance buckets"), &BucketsView::staticMetaObject,
         make<BucketsView>, exportOf<BucketsFigure>, false, QT_TRANSLATE_NOOP("poslab::ui::View", "Buckets")},
        {"precision", QT_TRANSLATE_NOOP("poslab::ui::View", "Angle precision"), &PrecisionView::staticMetaObject,
         make<PrecisionView>, exportOf<PrecisionFigure>, false, QT_TRANSLATE_NOOP("poslab::ui::View", "Precision")},
        {"pipeline", QT_TRANSLATE_NOOP("poslab::ui::View", "Attention pipeline"), &PipelineView::staticMetaObject,
         make<PipelineView>, exportOf<PipelineFigure>, false, QT_TRANSLATE_NOOP("poslab::ui::View", "Pipeline")},
        {"families", QT_TRANSLATE_NOOP("poslab::ui::View", "Family map"), &FamiliesView::staticMetaObject,
         make<FamiliesView>, exportOf<FamiliesFigure>, false, QT_TRANSLATE_NOOP("poslab::ui::View", "Families")},
        {"lengthlab", QT_TRANSLATE_NOOP("poslab::ui::View", "Length generalisation"), &LengthLabView::staticMetaObject,
         make<LengthLabView>, exportOf<LengthLabFigure>, false, QT_TRANSLATE_NOOP("poslab::ui::View", "Length lab")},
        {"patchgrid", QT_TRANSLATE_NOOP("poslab::ui::View", "Patch grid"), &PatchGridView::staticMetaObject,
         make<PatchGridView>, exportOf<PatchGridFigure>, false, QT_TRANSLATE_NOOP("poslab::ui::View", "Patches")},
        {"sequence", QT_TRANSLATE_NOOP("poslab::ui::View", "Mixed sequence"), &SequenceView::staticMetaObject,
         make<SequenceView>, exportOf<SequenceFigure>, false, QT_TRANSLATE_NOOP("poslab::ui::View", "Sequence")},
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
