// SPDX-License-Identifier: MIT
#pragma once
/// @file decayfigure.h
/// The decay figure: core's dot-product, score, bound and bias curves against the distance k (core::compute,
/// Quantity::Decay, as `poslab compute decay` computes them), named and captioned as the decay view draws them,
/// with configuration B's curves in the compare overlay or A − B in the difference; and its data export, written
/// from the same curves.

#include "ui/figures/figure.h"

#include "core/attention.h"

#include <QList>
#include <QPointF>

#include <optional>
#include <vector>

namespace poslab::ui {

/// The decay curves at their distances: what the decay view draws and, at every distance, what its data export
/// writes. Every value comes from core::compute (Quantity::Decay, or Buckets for T5's bucket edges).
struct DecayData {
    QString error;                         ///< non-empty when core refused; then no curve
    std::vector<core::Position> distances; ///< the distances k sampled (query k tokens after the key)
    /// core's curves at @c distances (core::DecaySeries keys: "dot", "score", "bound", "bias_head_h",
    /// "bucket_row"): rotary "score" divided by its value at k = 0 (normalisation at_zero), "bound" as RoFormer's
    /// figure 2 draws it (normalisation none); the others as they are.
    std::vector<core::DecaySeries> curves;
    std::vector<double> edges;  ///< bucketed schemes (T5, DeBERTa): distances where the bucket changes
    bool logDistance = false;   ///< bucketed schemes: a log distance axis
    core::Position origin = 0;  ///< learned tables: the earlier position p (the cursor)
    std::vector<double> slopes; ///< ALiBi: each head's slope m_h (from core::compute's scalars)

    /// The export table: distances x (1 + curves), column 0 the distance, then one column per curve named
    /// "key: formula".
    core::ComputeResult table(const Setup& setup) const;
};

/// One drawn curve: a legend name and its points (distance, value).
struct DecayCurve {
    QString name;
    QList<QPointF> points;
    /// A compact legend name ("m = 1/2", "h3") for a legend moved into one row above a low plot; empty: the name.
    QString shortName = {};
    bool dashed = false; ///< configuration B's curve in the compare overlay
};

/// What the decay view draws: the named curves with their axis titles and caption.
struct DecayPlot {
    Setup setup;                    ///< A's set-up the curves are of (pins name their parameters against it)
    int bDim = 0;                   ///< B's dimension in the compare overlay and difference (else 0)
    std::vector<DecayCurve> curves; ///< main curve first, then RoFormer's bound; in compare mode B's or A − B
    int rightCurve = -1;            ///< index of the curve on the right axis (RoFormer's bound), or -1
    int rightFrom = -1;             ///< overlay: B's curves from this index on use the right axis (another quantity)
    QString compareProblem;         ///< why the compare mode cannot be drawn (difference of unlike curves)
    bool logDistance = false;       ///< T5's and DeBERTa's buckets: a logarithmic distance axis
    std::vector<double> edges;      ///< distances where the bucket changes (marked on the plot)
    QList<QPointF> edgePoints;      ///< the main curve's points at those distances
    QString caption;                ///< the sentences under the chart (what the rotary bound bounds, ...)
    QString yTitle;                 ///< the left axis's title; empty when A has no curve
    QString y2Title;                ///< the right axis's title; empty when there is no right axis
};

/// The decay figure (figure.h's pattern, with configuration B as a second side in the compare modes that draw
/// both on one chart).
struct DecayFigure {
    /// One configuration: what its curves depend on. heads counts for score-bias schemes only and the cursor for
    /// learned tables only (both are left at their defaults otherwise, so they move no other scheme's curve).
    struct Side {
        Setup setup;
        int heads = 1;
        int cursor = 0;
        QString label;        ///< its figure label (WorkbenchState::figureLabel()): compare mode only
        CheckedSetup checked; ///< its state's token of @c setup (its requests carry it), or null
        bool operator==(const Side&) const = default;
    };
    struct Inputs {
        Side a;
        /// Overlay or Difference: B's curves join A's (or A − B replaces them); any other mode draws A alone.
        CompareMode compare = CompareMode::Off;
        Side b;
        bool operator==(const Inputs&) const = default;
    };
    /// A alone.
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    /// A (labelled @p aLabel) and B (@p b, labelled @p bLabel) in the compare mode @p mode.
    static Inputs inputsOf(const FigureSnapshot& a, const QString& aLabel, const FigureSnapshot& b,
                           const QString& bLabel, CompareMode mode);
    using Data = DecayPlot;
    /// A's curves named for the legend, with their axis titles and caption; in the overlay B's curves added
    /// (dashed), in the difference A − B of the two data tables (Computation::difference). No curve when core
    /// refuses A.
    static DecayPlot compute(const Inputs& inputs);
    /// The decay curves of @p side: about 400 distances (a log axis with every bucket edge for T5 and DeBERTa),
    /// or every distance when @p everyDistance (the data export). An error message instead when core refuses.
    static DecayData curves(const Side& side, bool everyDistance);
    /// Whether @p scheme has a decay curve at all: rotary and relative additive schemes, content-free score
    /// biases, and DeBERTa's table row.
    static bool hasCurve(const core::SchemeDescriptor& scheme);
    /// Legend names of pinned curves: "pinned: <scheme> · <the parameters in which the pins and @p current
    /// differ>" (@p current: the set-up now, if any, compared with too).
    static QStringList pinNames(const std::vector<Setup>& pins, const Setup* current);
    /// Every distance of the plotted curves (the chart draws about 400 of them): DecayData::table of curves().
    /// Throws core::RefusedError when there is no curve.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

} // namespace poslab::ui
