// SPDX-License-Identifier: MIT
#include "ui/figures/spatialfigures.h"

#include "core/errors.h"
#include "ui/render/figuretitle.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace poslab::ui {

namespace {

/// The similarity matrix of @p s on @p grid (see PatchGridData::similarity).
core::MatrixD similarityOn(const SpatialSetup& s, const core::SpatialSchemeDescriptor& d, const core::Grid& grid)
{
    if (d.encoding) {
        const core::ComputeResult r = core::compute(spatialRequest(s, core::Quantity::Encoding, grid));
        const std::size_t rows = r.shape[0], cols = r.shape[1];
        const std::size_t first = s.cls ? 1 : 0; // the class token has no place on the grid
        core::MatrixF v(Eigen::Index(rows - first), Eigen::Index(cols));
        for (std::size_t i = first; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j)
                v(Eigen::Index(i - first), Eigen::Index(j)) = float(r.data[i * cols + j]);
        return core::rowCosines(v);
    }
    core::ComputeRequest req = spatialRequest(s, core::Quantity::Scores, grid);
    req.content.kind = core::ContentKind::Constant;
    req.mask = core::MaskKind::Bidirectional;
    req.maskGiven = true;
    const core::ComputeResult r = core::compute(req);
    core::MatrixD m(Eigen::Index(r.shape[0]), Eigen::Index(r.shape[1]));
    std::copy(r.data.begin(), r.data.end(), m.data());
    return m;
}

/// The parameters of @p s as core resolves them (the request's overrides); throws core::InputError.
core::ParamSet resolvedParams(const SpatialSetup& s, const core::SpatialSchemeDescriptor& d)
{
    core::SpatialContext ctx;
    ctx.dim = s.dim;
    ctx.grid = s.grid;
    ctx.sequence = s.sequence;
    ctx.cls = s.cls;
    return core::resolveSpatialParams(d, spatialRequest(s, core::Quantity::Encoding).overrides, ctx);
}

} // namespace

QString spatialSchemeLabel(const SpatialSetup& s)
{
    const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(s.scheme);
    if (!d)
        return QString::fromStdString(s.scheme);
    try {
        return variantLabel(d->info, resolvedParams(s, *d));
    } catch (const std::exception&) {
        return shortSchemeName(d->info);
    }
}

QString spatialSummary(const SpatialSetup& s)
{
    const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(s.scheme);
    QStringList parts{QStringLiteral("scheme %1").arg(QString::fromStdString(s.scheme)),
                      QStringLiteral("dimension %1").arg(s.dim)};
    if (d && d->input == core::SpatialInput::Sequence) {
        parts << QStringLiteral("sequence %1").arg(QString::fromStdString(core::sequenceText(s.sequence)));
    } else {
        parts << QStringLiteral("grid %1").arg(QString::fromStdString(core::gridText(s.grid)))
              << QStringLiteral("large grid %1").arg(QString::fromStdString(core::gridText(s.largeGrid)));
        if (s.cls)
            parts << QStringLiteral("class token");
    }
    for (const auto& [key, value] : s.params) // the keys set, as they were given
        parts << QStringLiteral("%1=%2").arg(QString::fromStdString(key), QString::fromStdString(value));
    return parts.join(QStringLiteral(", "));
}

PatchGridFigure::Inputs PatchGridFigure::inputsOf(const FigureSnapshot& snapshot)
{
    return {snapshot.spatial};
}

PatchGridData PatchGridFigure::compute(const Inputs& in)
{
    const SpatialSetup& s = in.spatial;
    PatchGridData out;
    out.scheme = s.scheme;
    out.dim = s.dim;
    out.grid = s.grid;
    out.largeGrid = s.largeGrid;
    const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(s.scheme);
    if (d && d->input != core::SpatialInput::Grid) {
        out.error = QStringLiteral("%1 takes a token sequence, not a patch grid; pick vit_learned, sincos_2d, rope_2d "
                                   "or pixtral_rope for this view (the mixed sequence view draws %1)")
                        .arg(QString::fromStdString(s.scheme));
        return out;
    }
    if (const QString problem = spatialProblem(s); !problem.isEmpty()) {
        out.error = problem;
        return out;
    }
    out.table = d->encoding != nullptr;
    out.row = s.patch / s.grid.cols;
    out.col = s.patch % s.grid.cols;
    std::tie(out.largeRow, out.largeCol) = core::samePlace(s.grid, out.row, out.col, s.largeGrid);
    out.measure = out.table ? QStringLiteral("cosine of position vectors")
                            : QStringLiteral("score q\u2032\u00b7k\u2032/\u221ad, constant content");
    try {
        out.similarity = similarityOn(s, *d, s.grid);
        const core::MatrixD large = similarityOn(s, *d, s.largeGrid);
        out.largeRowValues = large.row(out.largeRow * s.largeGrid.cols + out.largeCol);
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
        out.refused = dynamic_cast<const core::RefusedError*>(&e) != nullptr;
        return out;
    }
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const core::MatrixD* m : {&out.similarity, &out.largeRowValues})
        for (Eigen::Index i = 0; i < m->size(); ++i)
            if (std::isfinite(m->data()[i])) {
                lo = std::min(lo, m->data()[i]);
                hi = std::max(hi, m->data()[i]);
            }
    if (!(lo < hi)) {
        lo = std::isfinite(lo) ? lo - 1 : 0;
        hi = std::isfinite(hi) ? hi + 1 : 1;
    }
    out.lo = lo;
    out.hi = hi;
    const auto words = [](const core::Grid& g) { return QStringLiteral("%1 \u00d7 %2").arg(g.rows).arg(g.cols); };
    const QString from = words(s.grid), to = words(s.largeGrid);
    out.resized = out.table && d->info.origin == core::Origin::Learned; // a trained table exists at one grid only
    if (out.resized) {
        const core::ParamSet p = core::resolveSpatialParams(*d, spatialRequest(s, core::Quantity::Encoding).overrides,
                                                            core::SpatialContext{s.dim, s.grid, {}, s.cls});
        if (p.text("table_file").empty())
            out.measure = QStringLiteral("cosine of position vectors (random table, seed %1: untrained)")
                              .arg(p.integer("seed"));
        out.resolutionNote = QStringLiteral("the %1 \u00d7 %2 table resized (%3%4) to %5")
                                 .arg(p.integer("table_rows"))
                                 .arg(p.integer("table_cols"))
                                 .arg(QString::fromStdString(p.choice("interpolation")))
                                 .arg(p.flag("antialias") ? QStringLiteral(", antialias") : QString())
                                 .arg(to);
    } else {
        out.resolutionNote = out.table ? QStringLiteral("the formula at %1 (no table to resize)").arg(to)
                                       : QStringLiteral("rotations at %1: positions past %2, no resize").arg(to, from);
    }
    return out;
}

core::ComputeResult PatchGridFigure::dataExport(const FigureSnapshot& snapshot, QStringList* notes)
{
    const SpatialSetup& s = snapshot.spatial;
    const PatchGridData d = compute(inputsOf(snapshot));
    if (!d.error.isEmpty())
        throw core::InputError("the patchgrid view has nothing to draw: " + d.error.toStdString());
    core::ComputeResult r;
    r.quantity = "patchgrid";
    r.scheme = s.scheme;
    r.axes = {"patch", "patch"};
    core::SpatialContext ctx;
    ctx.dim = s.dim;
    ctx.grid = s.grid;
    ctx.cls = s.cls;
    r.params = core::resolveSpatialParams(*core::findSpatialScheme(s.scheme),
                                          spatialRequest(s, core::Quantity::Scores).overrides, ctx);
    r.shape = {std::size_t(d.similarity.rows()), std::size_t(d.similarity.cols())};
    // similarity is symmetric for both measures, so row-major or column-major give the same array.
    r.data.assign(d.similarity.data(), d.similarity.data() + d.similarity.size());
    r.labels.push_back({"grid", core::gridText(s.grid)});
    r.labels.push_back({"measure", d.measure.toStdString()});
    r.labels.push_back({"row_order", "patch i*W + j: row i, column j"});
    r.scalars.push_back({"selected_patch", double(d.patchIndex())});
    r.scalars.push_back({"dim", double(s.dim)});
    if (notes)
        *notes << QStringLiteral("the similarity of every patch to every other (patches x patches); the figure "
                                 "highlights patch %1 (row %2, column %3)")
                      .arg(d.patchIndex())
                      .arg(d.row)
                      .arg(d.col);
    return r;
}

SequenceFigure::Inputs SequenceFigure::inputsOf(const FigureSnapshot& snapshot)
{
    return {snapshot.spatial};
}

SequenceData SequenceFigure::compute(const Inputs& in)
{
    const SpatialSetup& s = in.spatial;
    SequenceData out;
    out.scheme = s.scheme;
    out.dim = s.dim;
    out.sequence = s.sequence;
    const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(s.scheme);
    if (d && d->input != core::SpatialInput::Sequence) {
        out.error = QStringLiteral("%1 takes a patch grid, not a token sequence; pick mrope for this view (the patch "
                                   "grid view draws %1)")
                        .arg(QString::fromStdString(s.scheme));
        return out;
    }
    if (const QString problem = spatialProblem(s); !problem.isEmpty()) {
        out.error = problem;
        return out;
    }
    out.token = s.patch;
    std::int64_t first = 0;
    for (const core::Segment& g : s.sequence.segments) {
        out.firstToken.push_back(first);
        first += g.tokens();
    }
    try {
        const core::ComputeResult ids = core::compute(spatialRequest(s, core::Quantity::PositionIds));
        out.ids.resize(Eigen::Index(ids.shape[0]), Eigen::Index(ids.shape[1]));
        for (Eigen::Index i = 0; i < out.ids.rows(); ++i)
            for (Eigen::Index j = 0; j < out.ids.cols(); ++j)
                out.ids(i, j) = ids.data[std::size_t(i * out.ids.cols() + j)];
        core::ComputeRequest req = spatialRequest(s, core::Quantity::Scores);
        req.content.kind = core::ContentKind::Constant;
        const core::ComputeResult sc = core::compute(req); // causal: a decoder's mask
        out.scores.resize(Eigen::Index(sc.shape[0]), Eigen::Index(sc.shape[1]));
        std::copy(sc.data.begin(), sc.data.end(), out.scores.data());
        core::SpatialContext ctx;
        ctx.dim = s.dim;
        ctx.sequence = s.sequence;
        const core::ParamSet params = core::resolveSpatialParams(*d, req.overrides, ctx);
        out.pairAxis = d->rotary(params, ctx).pairAxis;
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
        out.refused = dynamic_cast<const core::RefusedError*>(&e) != nullptr;
        return out;
    }
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (Eigen::Index i = 0; i < out.scores.size(); ++i)
        if (std::isfinite(out.scores.data()[i])) {
            lo = std::min(lo, out.scores.data()[i]);
            hi = std::max(hi, out.scores.data()[i]);
        }
    if (!(lo < hi)) {
        lo = std::isfinite(lo) ? lo - 1 : 0;
        hi = std::isfinite(hi) ? hi + 1 : 1;
    }
    out.lo = lo;
    out.hi = hi;
    return out;
}

core::ComputeResult SequenceFigure::dataExport(const FigureSnapshot& snapshot, QStringList* notes)
{
    const SpatialSetup& s = snapshot.spatial;
    const SequenceData d = compute(inputsOf(snapshot));
    if (!d.error.isEmpty())
        throw core::InputError("the sequence view has nothing to draw: " + d.error.toStdString());
    core::ComputeResult r = core::compute(spatialRequest(s, core::Quantity::PositionIds));
    std::string axes;
    for (int a : d.pairAxis)
        axes += (axes.empty() ? "" : ",") + std::string(a == 0 ? "t" : a == 1 ? "h" : "w");
    r.labels.push_back({"pair_axes", axes});
    if (notes)
        *notes << QStringLiteral("the position ids of every token (rows t, h, w); the figure also draws the scores "
                                 "with constant content (compute scores --content constant)");
    return r;
}

} // namespace poslab::ui
