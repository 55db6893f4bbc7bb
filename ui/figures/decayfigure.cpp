// SPDX-License-Identifier: MIT
#include "ui/figures/decayfigure.h"

#include "core/encodingregistry.h"
#include "core/encodings/deberta.h"
#include "core/errors.h"
#include "ui/figures/computation.h"
#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace poslab::ui {
namespace {

/// The decay view's words (its translation context).
QString tr(const char* text)
{
    return QCoreApplication::translate("poslab::ui::DecayView", text);
}

/// Distances 0..maxK: every one for an export, else at most about 400 of them (close to the chart's plot width at
/// the default size; Qt Charts costs about a microsecond per point per frame).
std::vector<core::Position> sampledDistances(core::Position maxK, bool everyDistance)
{
    std::vector<core::Position> ks;
    const core::Position stride = everyDistance ? 1 : std::max<core::Position>(1, (maxK + 1 + 399) / 400);
    for (core::Position k = 0; k <= maxK; k += stride)
        ks.push_back(k);
    if (ks.back() != maxK)
        ks.push_back(maxK);
    return ks;
}

/// Appends core::compute's curves of @p base at d.distances to d.curves; @p only keeps one curve (empty: all).
void appendCurves(DecayData& d, const core::ComputeRequest& base, core::DecayNormalisation normalisation,
                  const std::string& only)
{
    core::ComputeRequest r = base;
    r.context.positions = core::PositionList::list(d.distances);
    r.normalisation = normalisation;
    r.origin = d.origin;
    const core::ComputeResult res = core::compute(r);
    const std::size_t cols = res.columns.size(), n = d.distances.size();
    for (std::size_t c = 0; c < cols; ++c) {
        if (!only.empty() && res.columns[c] != only)
            continue;
        core::DecaySeries series{res.columns[c], c < res.columnLabels.size() ? res.columnLabels[c] : res.columns[c],
                                 std::vector<double>(n)};
        for (std::size_t i = 0; i < n; ++i)
            series.values[i] = res.data[i * cols + c];
        d.curves.push_back(std::move(series));
    }
}

/// T5's and DeBERTa's curves: buckets are exact near 0 and logarithmic beyond, so a log distance axis shows each
/// one, and the distances where the bucket changes are marked. The bucket of every distance up to maxK comes from
/// core: T5's bucket of rel = key - query = -k (compute buckets, one key at 0), DeBERTa's table row.
void bucketedCurves(DecayData& d, const core::ComputeRequest& base, core::Position rows, bool t5, bool everyDistance)
{
    d.logDistance = true;
    const core::Position maxK = std::max<core::Position>(1, std::min<core::Position>(rows - 1, 4096));
    std::vector<double> bucket;
    if (t5) {
        core::ComputeRequest b = base;
        b.quantity = core::Quantity::Buckets;
        b.heads = 1;
        b.context.positions = core::PositionList::range(0, maxK + 1);
        b.keys = core::PositionList::list({0});
        bucket = core::compute(b).data;
    } else {
        d.distances = sampledDistances(maxK, true);
        appendCurves(d, base, core::DecayNormalisation::None, "bucket_row");
        if (d.curves.empty())
            throw std::runtime_error("core gave DeBERTa no bucket-row curve");
        bucket = d.curves.front().values;
        d.curves.clear();
    }
    d.distances.clear();
    if (everyDistance)
        d.distances.push_back(0); // an exact export has every distance; the log axis itself starts at 1
    for (core::Position k = 1; k <= maxK; ++k) {
        const bool edge = bucket[std::size_t(k)] != bucket[std::size_t(k - 1)];
        if (edge)
            d.edges.push_back(double(k));
        // Every distance up to 64, then about 60 per decade, and every edge.
        if (everyDistance || k <= 64 || edge || k == maxK
            || std::floor(std::log10(double(k)) * 60) != std::floor(std::log10(double(k - 1)) * 60))
            d.distances.push_back(k);
    }
    appendCurves(d, base, core::DecayNormalisation::None, {});
}

/// The rotary curves: the score of q = k = (1, ..., 1) divided by its value at distance 0 (xPos's
/// zeta_i^(k/scale_base) included), and RoFormer's bound as the paper's figure 2 draws it, not normalised. One pass
/// gives both (they share each pair's sine and cosine); then the score alone is divided by its value at distance
/// 0, the first distance (core's AtZero divides by the same sum, computed the same way).
void rotaryCurves(DecayData& d, const core::ComputeRequest& base, core::Position rows, bool everyDistance)
{
    d.distances = sampledDistances(std::max<core::Position>(1, rows - 1), everyDistance);
    appendCurves(d, base, core::DecayNormalisation::None, {});
    if (d.distances.front() != 0)
        throw std::logic_error("the rotary decay curves start at distance 0");
    for (core::DecaySeries& c : d.curves)
        if (c.key == "score")
            core::normaliseDecayAtZero(c, c.values.front());
}

// --- naming A's curves -----------------------------------------------------------------------------------------

/// An ALiBi slope as its exact fraction where it is one over a whole number (1/2 ... 1/256 for 8 heads, Press
/// et al. 2022 section 3), else in the figures' number format.
QString slopeText(double m)
{
    const double inv = 1.0 / m;
    if (m > 0 && inv < 1e7 && std::abs(inv - std::round(inv)) <= 1e-9 * inv)
        return QStringLiteral("1/%1").arg(formatNumber(std::round(inv), 7));
    return formatNumber(m, 4);
}

DecayCurve curveOf(const DecayData& data, const core::DecaySeries& series, const QString& name,
                   const QString& brief = {})
{
    DecayCurve c{name, {}, brief};
    for (std::size_t i = 0; i < series.values.size() && i < data.distances.size(); ++i)
        c.points.append(QPointF(double(data.distances[i]), series.values[i]));
    return c;
}

/// The main curve's points at the bucket edges (the plot marks them).
void markEdges(DecayPlot& plot)
{
    for (const QPointF& pt : plot.curves.front().points)
        if (std::binary_search(plot.edges.begin(), plot.edges.end(), pt.x()))
            plot.edgePoints.append(pt);
}

/// DeBERTa's position terms read content (c2p, p2c), so no score curve exists; what depends on distance alone is
/// the row of the relative-position table each distance reads (core's debertaTableRow).
void nameBucketRow(DecayPlot& plot, const DecayData& data, const QString& who)
{
    const core::ParamSet& params = plot.setup.params;
    plot.curves.push_back(
        curveOf(data, data.curves.front(), tr("%1: relative-position bucket \u03b4 read at distance k").arg(who)));
    markEdges(plot);
    plot.yTitle = tr("bucket \u03b4 (row of the position table)");
    const int b = int(params.integer("position_buckets"));
    const int maxRel = int(params.integer("max_relative_positions"));
    if (b > 0)
        plot.caption = tr("DeBERTa's scores mix position with content (c2p, p2c), so this shows the row of the "
                          "relative-position table each distance reads: its own row up to b/2 = %1, then "
                          "log-spaced rows reaching %2 at k = %3 = max_relative_positions \u2212 1, and the "
                          "lookup clamps \u03b4 to \u2212%4 \u2026 %5 (%4 = position_buckets), so every "
                          "longer distance reads row %5.")
                           .arg(b / 2)
                           .arg(core::debertaTableRow(params, maxRel - 1))
                           .arg(maxRel - 1)
                           .arg(b)
                           .arg(b - 1);
}

/// Score-bias schemes (ALiBi, T5, Kerple, FIRE, Sandwich): the engine's bias of each head. Heads whose curves are
/// identical (parameters shared by every head, as Kerple's r1 and r2 are here) are one curve: eight equal lines
/// would suggest eight different heads. ALiBi's legend names each head's slope.
void nameBiasHeads(DecayPlot& plot, const DecayData& data, const QString& who)
{
    const auto& series = data.curves;
    const bool shared = series.size() > 1
        && std::all_of(series.begin(), series.end(), [&](const auto& c) { return c.values == series.front().values; });
    const std::vector<double>& slopes = data.slopes;
    int shown = 0;
    for (const auto& c : series) {
        if (shown >= 8 || (shared && shown >= 1))
            break;
        QString name = QStringLiteral("head %1").arg(shown);
        if (shared)
            name = tr("%1: all %2 heads alike (its parameters are shared, not per head)").arg(who).arg(series.size());
        else if (std::size_t(shown) < slopes.size())
            name += QStringLiteral(" (m = %1)").arg(slopeText(slopes[std::size_t(shown)]));
        const QString brief = shared ? QString()
            : std::size_t(shown) < slopes.size()
            ? (shown == 0 ? QStringLiteral("m = ") : QString()) + slopeText(slopes[std::size_t(shown)])
            : QStringLiteral("h%1").arg(shown);
        ++shown;
        plot.curves.push_back(curveOf(data, c, name, brief));
    }
    if (plot.logDistance && !plot.curves.empty())
        markEdges(plot);
    plot.yTitle = tr("bias added to the logit (nats)");
    if (plot.setup.params.has("relative_attention_num_buckets"))
        // The values are the scheme's seeded draws (core t5BiasTable), not a trained T5's: say so on the figure,
        // where a learner reads the curve.
        plot.caption = tr("T5 learns one bias per bucket and head; these are seeded random values (seed %1), "
                          "not a trained model's. Each step is one bucket; \u25aa marks where the next begins.")
                           .arg(plot.setup.params.integer("seed"));
}

/// The rotated dimensions of @p side's rotary spec, as its token holds it (its dimension when core refuses the spec).
int rotaryDimOf(const DecayFigure::Side& side)
{
    const std::optional<core::RotarySpec> spec = side.checked.rotarySpec(side.setup);
    return spec ? spec->rotaryDim : side.setup.dim;
}

/// The score of q = k = (1, ..., 1) divided by its value at distance 0, and RoFormer's bound as the paper's
/// figure 2 draws it, not normalised (both from core's decay curves), with what the bound bounds.
void nameScore(DecayPlot& plot, const DecayData& data, const QString& who, const DecayFigure::Side& side)
{
    plot.curves.push_back(curveOf(data, data.curves.front(),
                                  tr("%1: q\u00b7k \u00f7 its value at k = 0 (q = k = 1)").arg(who),
                                  tr("%1: q\u00b7k \u00f7 q\u00b7k at k = 0").arg(who)));
    for (const auto& c : data.curves)
        if (c.key == "bound") {
            plot.rightCurve = int(plot.curves.size());
            plot.curves.push_back(
                curveOf(data, c, tr("RoFormer bound (dotted, right axis)"), tr("bound (right axis)")));
            plot.y2Title = tr("RoFormer bound, not normalised");
        }
    plot.yTitle = tr("score \u00f7 score at k = 0");
    if (plot.rightCurve < 0)
        return;
    double least = std::numeric_limits<double>::infinity();
    for (const QPointF& p : plot.curves[std::size_t(plot.rightCurve)].points)
        least = std::min(least, p.y());
    const int dim = plot.setup.dim, rotaryDim = rotaryDimOf(side);
    // The claim first (a short figure may show only the first line), then what the right axis is.
    const QString law
        = tr("Right axis: RoFormer's bound (1/(r/2)) \u03a3\u2c7c|S\u2c7c| as its Fig. 2 draws it "
             "(\u00a73.4.3: |\u03a3\u2c7c h\u2c7c e^(ik\u03b8\u2c7c)| \u2264 max|h\u2c7c\u208a\u2081 \u2212 "
             "h\u2c7c| \u00b7 \u03a3\u2c7c|S\u2c7c|).");
    plot.caption = rotaryDim == dim
        ? tr("With q = k = 1 the score never exceeds the bound: the score (left axis, divided by its value at 0) "
             "stays at most 1, the bound (dotted, right axis) stays above %1. The bound shows the trend, not the "
             "score.")
                .arg(formatNumber(least, 3))
            + QLatin1Char(' ') + law
        : tr("The bound covers the rotated part only: %1 of %2 dimensions pass through unrotated.")
                .arg(dim - rotaryDim)
                .arg(dim)
            + QLatin1Char(' ') + law;
}

/// A's curves named for the legend, with the axis titles and caption.
void nameCurves(DecayPlot& plot, const DecayData& data, const DecayFigure::Side& side)
{
    plot.logDistance = data.logDistance;
    plot.edges = data.edges;
    const QString who = QString::fromStdString(plot.setup.scheme);
    const core::DecaySeries& first = data.curves.front();
    if (first.key == "bucket_row") {
        nameBucketRow(plot, data, who);
    } else if (first.key.rfind("bias_head_", 0) == 0) {
        nameBiasHeads(plot, data, who);
    } else if (first.key == "score") {
        nameScore(plot, data, who, side);
    } else if (first.key == "dot") {
        const core::SchemeDescriptor* s = core::findScheme(plot.setup.scheme);
        plot.curves.push_back(curveOf(data, first,
                                      s && s->frequencies
                                          ? tr("%1: PE(p)\u00b7PE(p+k) = \u03a3\u1d62 cos(k\u03c9\u1d62)").arg(who)
                                          : tr("%1: E(p)\u00b7E(p+k) at p = %2").arg(who).arg(data.origin)));
        plot.yTitle = tr("dot product");
    }
}

// --- configuration B -------------------------------------------------------------------------------------------

QString shortNameOf(const std::string& scheme)
{
    const core::SchemeDescriptor* s = core::findScheme(scheme);
    return s ? shortSchemeName(*s) : QString::fromStdString(scheme);
}

/// Whether B can have a curve: a scheme with one, and rotary only where some dimensions rotate.
bool bHasCurve(const DecayFigure::Side& b)
{
    const core::SchemeDescriptor* s = core::findScheme(b.setup.scheme);
    if (!s || !DecayFigure::hasCurve(*s))
        return false;
    const std::optional<core::RotarySpec> spec = s->rotary ? b.checked.rotarySpec(b.setup) : std::nullopt;
    return !(spec && spec->rotaryDim == 0);
}

/// The difference: A − B of the two export tables (Computation::difference), as the data export writes it.
void differenceOf(DecayPlot& plot, const DecayData& aData, const DecayFigure::Inputs& in, const DecayData& bData,
                  bool bCurve)
{
    std::vector<DecayCurve> diff;
    try {
        if (!bCurve)
            throw core::InputError(tr("B (%1) has no decay curve").arg(shortNameOf(in.b.setup.scheme)).toStdString());
        const core::ComputeResult d = Computation::difference(aData.table(in.a.setup), bData.table(in.b.setup));
        const std::size_t cols = d.shape.size() == 2 ? d.shape[1] : 0;
        for (std::size_t c = 1; c < cols; ++c) {
            const std::string& key = aData.curves[c - 1].key;
            if (key == "bound" || diff.size() >= 8)
                continue; // RoFormer's bound is an envelope, not a score: its difference says nothing
            DecayCurve curve{tr("A \u2212 B: %1").arg(QString::fromStdString(key)), {}, {}};
            for (std::size_t r = 0; r < d.shape[0]; ++r)
                curve.points.append(QPointF(d.data[r * cols], d.data[r * cols + c]));
            diff.push_back(std::move(curve));
        }
    } catch (const std::exception& e) {
        plot.compareProblem = QString::fromUtf8(e.what());
    }
    plot.curves = std::move(diff);
    plot.rightCurve = -1;
    plot.edges.clear();
    plot.edgePoints.clear();
    plot.y2Title.clear();
    plot.yTitle = tr("%1, A \u2212 B").arg(plot.yTitle);
    plot.caption = tr("Difference: A's curve minus B's at every distance (A: %1; B: %2).")
                       .arg(in.a.label.mid(3), in.b.label.mid(3));
}

/// The overlay's A: RoFormer's bound left out (one envelope per configuration would crowd the legend), and the
/// curves named "A: ..." (one curve: A's figure label).
void overlayA(DecayPlot& plot, const QString& aLabel)
{
    if (plot.rightCurve >= 0) {
        plot.curves.erase(plot.curves.begin() + plot.rightCurve);
        plot.rightCurve = -1;
        plot.y2Title.clear();
    }
    if (plot.curves.size() == 1) {
        plot.curves.front().name = aLabel;
        plot.curves.front().shortName.clear(); // the label is short already; A's own short name would drop the "A"
    } else
        for (DecayCurve& c : plot.curves) {
            c.name = QStringLiteral("A: ") + c.name;
            c.shortName = QStringLiteral("A ") + (c.shortName.isEmpty() ? c.name.mid(3) : c.shortName);
        }
    plot.caption = tr("Overlay: A solid, B dashed, on one distance axis.");
}

/// B's curves, dashed, after A's: RoFormer's bound left out, heads with identical curves drawn once.
void appendB(DecayPlot& plot, const DecayData& bData, const QString& bLabel)
{
    std::vector<const core::DecaySeries*> bSeries;
    for (const auto& c : bData.curves)
        if (c.key != "bound" && bSeries.size() < 8)
            bSeries.push_back(&c);
    const bool shared = bSeries.size() > 1 && std::all_of(bSeries.begin(), bSeries.end(), [&](const auto* c) {
                            return c->values == bSeries.front()->values;
                        });
    if (shared)
        bSeries.erase(bSeries.begin() + 1, bSeries.end());
    for (std::size_t h = 0; h < bSeries.size(); ++h) {
        DecayCurve c{bSeries.size() == 1 ? bLabel
                                         : tr("B: head %1%2")
                                               .arg(h)
                                               .arg(h < bData.slopes.size()
                                                        ? QStringLiteral(" (m = %1)").arg(slopeText(bData.slopes[h]))
                                                        : QString()),
                     {},
                     {},
                     true};
        if (bSeries.size() > 1)
            c.shortName = h < bData.slopes.size() ? QStringLiteral("B ") + slopeText(bData.slopes[h])
                                                  : QStringLiteral("B h%1").arg(h);
        for (std::size_t i = 0; i < bSeries[h]->values.size() && i < bData.distances.size(); ++i)
            c.points.append(QPointF(double(bData.distances[i]), bSeries[h]->values[i]));
        plot.curves.push_back(std::move(c));
    }
}

/// The overlay: A's curves solid, B's dashed, on one distance axis. B's curves share the left axis when they are
/// the same quantity, else they get the right axis, named.
void overlayOf(DecayPlot& plot, const DecayData& aData, const DecayFigure::Inputs& in, const DecayData& bData,
               bool bCurve)
{
    overlayA(plot, in.a.label);
    if (!bCurve || !bData.error.isEmpty() || bData.curves.empty()) {
        plot.caption += QLatin1Char(' ')
            + tr("B (%1) has no decay curve%2.")
                  .arg(shortNameOf(in.b.setup.scheme),
                       bData.error.isEmpty() ? QString() : QStringLiteral(": ") + bData.error);
        return;
    }
    const std::size_t firstB = plot.curves.size();
    appendB(plot, bData, in.b.label);
    plot.logDistance = plot.logDistance || bData.logDistance;
    const auto kind
        = [](const std::string& key) { return key.rfind("bias_head_", 0) == 0 ? std::string("bias") : key; };
    const std::string k = kind(bData.curves.front().key);
    if (kind(aData.curves.front().key) == k)
        return;
    // Another quantity (a normalised score against a bias in nats): B gets the right axis, named.
    plot.rightFrom = int(firstB);
    plot.y2Title = k == "bias" ? tr("B: bias added to the logit (nats)")
        : k == "score"         ? tr("B: score \u00f7 score at k = 0")
        : k == "dot"           ? tr("B: dot product")
                               : tr("B: bucket \u03b4");
    plot.yTitle = tr("A: %1").arg(plot.yTitle);
    plot.caption += QLatin1Char(' ') + tr("A and B plot different quantities: B's curves use the right axis.");
}

/// A number as a person would type it (500000, not 5e+05).
QString typedValue(const core::ParamValue& value)
{
    if (value.type == core::ParamType::Real && std::isfinite(value.number) && value.number == std::floor(value.number)
        && std::abs(value.number) < 1e15)
        return QString::number(qint64(value.number));
    return value.type == core::ParamType::Real ? QString::number(value.number, 'g', 12)
                                               : QString::fromStdString(value.toString());
}

} // namespace

DecayFigure::Inputs DecayFigure::inputsOf(const FigureSnapshot& s)
{
    Inputs in;
    in.a.setup = s.setup;
    in.a.checked = s.checked;
    if (const core::SchemeDescriptor* scheme = core::findScheme(s.setup.scheme)) {
        if (scheme->bias)
            in.a.heads = std::max(1, s.options.heads);
        if (scheme->encoding && !scheme->frequencies)
            in.a.cursor = s.cursor;
    }
    return in;
}

DecayFigure::Inputs DecayFigure::inputsOf(const FigureSnapshot& a, const QString& aLabel, const FigureSnapshot& b,
                                          const QString& bLabel, CompareMode mode)
{
    Inputs in = inputsOf(a);
    if (mode != CompareMode::Overlay && mode != CompareMode::Difference)
        return in;
    in.compare = mode;
    in.a.label = aLabel;
    in.b = inputsOf(b).a;
    in.b.label = bLabel;
    return in;
}

bool DecayFigure::hasCurve(const core::SchemeDescriptor& scheme)
{
    // Score-bias schemes count only with a content-free bias (ALiBi, T5, Kerple, FIRE, Sandwich): CoPE's
    // position terms depend on the content, so no single curve against distance exists. DeBERTa's do too, but the
    // table row each distance reads does not: that is its curve.
    return scheme.rotary != nullptr || (scheme.encoding != nullptr && scheme.relation != core::Relation::None)
        || scheme.bias != nullptr || scheme.logBuckets;
}

DecayData DecayFigure::curves(const Side& side, bool everyDistance)
{
    DecayData d;
    const Setup& su = side.setup;
    try {
        const core::SchemeDescriptor& s = core::schemeOrThrow(su.scheme);
        core::ComputeRequest base = figureRequest(su, side.checked);
        base.quantity = core::Quantity::Decay;
        base.content.kind = core::ContentKind::Constant; // q = k = (1, ..., 1): `compute decay` without --content
        if (s.bias)
            base.heads = std::max(1, side.heads);
        const core::Position rows = std::max(1, su.positionCount);
        // Log buckets as a bias per bucket (T5) or as rows of a relative table (DeBERTa).
        const bool t5 = s.logBuckets && s.bias;
        if (s.logBuckets) {
            bucketedCurves(d, base, rows, t5, everyDistance);
        } else if (s.bias && !s.rotary && !s.encoding) {
            d.distances = sampledDistances(std::max<core::Position>(1, std::min<core::Position>(rows - 1, 4096)),
                                           everyDistance);
            appendCurves(d, base, core::DecayNormalisation::None, {});
        } else if (s.rotary) {
            rotaryCurves(d, base, rows, everyDistance);
        } else if (s.encoding) {
            // Sinusoids: PE(p).PE(p+k) for any p; learned tables: rows p (the cursor) and p + k.
            if (!s.frequencies) {
                d.origin = std::clamp<core::Position>(side.cursor, 0, rows - 1);
                for (core::Position k :
                     sampledDistances(std::max<core::Position>(1, rows - 1 - d.origin), everyDistance))
                    if (d.origin + k < rows)
                        d.distances.push_back(k);
            } else {
                d.distances = sampledDistances(std::max<core::Position>(1, rows - 1), everyDistance);
            }
            appendCurves(d, base, core::DecayNormalisation::None, "dot");
        }
        if (s.headSlopes)
            d.slopes = s.headSlopes(su.params, base.heads);
    } catch (const std::exception& e) {
        d.error = QString::fromStdString(e.what());
        d.curves.clear();
    }
    return d;
}

DecayPlot DecayFigure::compute(const Inputs& in)
{
    DecayPlot plot;
    plot.setup = in.a.setup;
    const DecayData data = curves(in.a, false);
    if (!data.error.isEmpty() || data.curves.empty())
        return plot;
    nameCurves(plot, data, in.a);
    if (in.compare != CompareMode::Overlay && in.compare != CompareMode::Difference)
        return plot;
    plot.bDim = in.b.setup.dim;
    const bool bCurve = bHasCurve(in.b);
    const DecayData bData = bCurve ? curves(in.b, false) : DecayData{};
    if (in.compare == CompareMode::Difference)
        differenceOf(plot, data, in, bData, bCurve);
    else
        overlayOf(plot, data, in, bData, bCurve);
    return plot;
}

QStringList DecayFigure::pinNames(const std::vector<Setup>& pins, const Setup* current)
{
    // Every set-up on the axes: the pins and the current one. A pin names its scheme and each parameter whose
    // value is not the same in all of them, so two pins of one scheme are told apart by what differs.
    std::vector<const Setup*> all;
    for (const Setup& p : pins)
        all.push_back(&p);
    if (current)
        all.push_back(current);
    QStringList names;
    for (const Setup& pin : pins) {
        QStringList parts;
        bool sameScheme = true, sameDim = true;
        for (const Setup* o : all) {
            sameScheme = sameScheme && o->scheme == pin.scheme;
            sameDim = sameDim && o->dim == pin.dim;
        }
        for (const auto& [key, value] : pin.params.values()) {
            bool differs = false;
            for (const Setup* o : all)
                if (o->scheme == pin.scheme && (!o->params.has(key) || !(o->params.value(key) == value)))
                    differs = true;
            if (differs)
                parts << QStringLiteral("%1 = %2").arg(QString::fromStdString(key), typedValue(value));
        }
        if (!sameDim)
            parts << QStringLiteral("d = %1").arg(pin.dim);
        QString name = tr("pinned: %1").arg(QString::fromStdString(pin.scheme));
        if (!parts.isEmpty())
            name += QStringLiteral(" \u00b7 ") + parts.join(QStringLiteral(", "));
        else if (sameScheme)
            name += tr(" \u00b7 same set-up as now");
        names << name;
    }
    return names;
}

core::ComputeResult DecayData::table(const Setup& setup) const
{
    core::ComputeResult t;
    t.quantity = "decay_curves";
    t.scheme = setup.scheme;
    t.params = setup.params;
    const std::size_t rows = distances.size(), cols = curves.size() + 1;
    t.shape = {rows, cols};
    t.axes = {"distance", "curve"};
    t.columns.push_back("distance");
    for (const core::DecaySeries& c : curves)
        t.columns.push_back(c.label);
    t.data.assign(rows * cols, std::nan(""));
    for (std::size_t i = 0; i < rows; ++i) {
        t.data[i * cols] = double(distances[i]);
        for (std::size_t c = 0; c < curves.size(); ++c)
            if (i < curves[c].values.size())
                t.data[i * cols + c + 1] = curves[c].values[i];
    }
    return t;
}

core::ComputeResult DecayFigure::dataExport(const FigureSnapshot& s, QStringList*)
{
    const DecayData d = curves(inputsOf(s).a, true);
    if (!d.error.isEmpty())
        throw core::RefusedError("the decay view has no curve for " + s.setup.scheme + ": " + d.error.toStdString());
    if (d.curves.empty())
        throw core::RefusedError("the decay view has no curve for " + s.setup.scheme);
    return d.table(s.setup);
}

} // namespace poslab::ui
