// SPDX-License-Identifier: MIT
#include "ui/views/decayview.h"

#include "core/attention.h"
#include "core/encodingregistry.h"
#include "core/encodings/deberta.h"
#include "core/errors.h"
#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/views/curveitem.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <QFontMetricsF>
#include <QPainter>
#include <QTimer>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <stdexcept>
#include <cmath>
#include <limits>

namespace poslab::ui {
namespace {

/// An ALiBi slope as its exact fraction where it is one over a whole number (1/2 ... 1/256 for 8 heads, Press
/// et al. 2022 section 3), else in the figures' number format.
QString slopeText(double m)
{
    const double inv = 1.0 / m;
    if (m > 0 && inv < 1e7 && std::abs(inv - std::round(inv)) <= 1e-9 * inv)
        return QStringLiteral("1/%1").arg(formatNumber(std::round(inv), 7));
    return formatNumber(m, 4);
}

/// Shorter wordings of the y axis's titles, for when the long one does not fit the plot's height.
QString shortYTitle(const QString& title)
{
    static const std::pair<const char*, const char*> shorter[] = {
        {"relative to distance 0", "relative to k = 0"},
        {"bias added to the logit (nats)", "logit bias (nats)"},
        {"dot product", "dot"},
        {"score \u00f7 score at k = 0", "\u00f7 score at 0"},
        {"RoFormer bound, not normalised", "bound"},
    };
    for (const auto& [from, to] : shorter)
        if (title == QLatin1String(from))
            return QString::fromLatin1(to);
    return title;
}

} // namespace

DecayView::DecayView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
{
    // Moves without a button reach the view (B's half of A | B, beside the chart widget, hovers B's curves).
    setMouseTracking(true);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    m_chart = new QChart;
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_chart->legend()->setShowToolTips(true); // a label cut to fit shows its full text on hover
    // Distances with thousands separators, as everywhere else ("1,000", not "1000").
    m_chart->setLocalizeNumbers(true);
    m_chart->setLocale(QLocale(QLocale::English, QLocale::UnitedStates));
    m_chart->layout()->setContentsMargins(2, 2, 2, 2);
    m_chart->setMargins(QMargins(6, 4, 10, 4));
    // The title is an item of the view's own over a top margin of the chart (setChartTitle()): QChart's title lays
    // the whole chart out again whenever its text changes, and the text changes with every slider step
    // (it names rope_theta's value); that re-measured every axis label each frame.
    m_titleItem = new QGraphicsTextItem(m_chart);
    m_titleItem->document()->setDocumentMargin(0);
    m_titleItem->setZValue(m_chart->legend()->zValue());
    connect(m_chart, &QGraphicsWidget::geometryChanged, this, &DecayView::placeTitle);
    m_x = new QCategoryAxis(m_chart);
    m_y = new QCategoryAxis(m_chart);
    m_y2 = new QCategoryAxis(m_chart);
    for (QCategoryAxis* a : {m_x, m_y, m_y2}) {
        a->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        // Tick labels are never cut to "...": fitAxisLabels() spaces the ticks so that whole labels fit.
        a->setTruncateLabels(false);
    }
    m_xTitle = tr("distance k (tokens)");
    m_x->setTitleText(m_xTitle);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    m_chart->addAxis(m_y2, Qt::AlignRight);
    m_y2->setVisible(false);
    m_edgeSeries = new QScatterSeries;
    m_edgeSeries->setName(tr("bucket edges"));
    m_edgeSeries->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_edgeSeries->setMarkerSize(6);
    m_chart->addSeries(m_edgeSeries);
    m_edgeSeries->attachAxis(m_x);
    m_edgeSeries->attachAxis(m_y);
    // The curves themselves: one item over the plot area (curveitem.h); the series stay, empty, for the legend.
    m_curveItem = new CurveItem(m_chart, m_x, [this](int curve, double x) { hoverAt(curve, m_logX ? std::pow(10.0, x) : x); });
    m_chartView = new QChartView(m_chart, this);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    // Whole-viewport repaints: with the default (minimal) mode, new curves expose the union of many items'
    // rectangles, and every antialiased line of the chart was then drawn through that many-rectangle clip (about
    // 2.5 ms of a 20 ms frame on the bench's slider sweep). New curves change most of the plot anyway.
    m_chartView->setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
    lay->addWidget(m_chartView, 1);
    m_captionLabel = new QLabel(this);
    m_captionLabel->setObjectName(QStringLiteral("decayCaption"));
    m_captionLabel->setContentsMargins(8, 2, 8, 0);
    m_captionLabel->setWordWrap(true);
    lay->addWidget(m_captionLabel);
    m_readout = new QLabel(this);
    m_readout->setObjectName(QStringLiteral("decayReadout"));
    m_readout->setContentsMargins(8, 2, 8, 2);
    m_readout->setText(tr("Hover a curve to read its value."));
    lay->addWidget(m_readout);
    // Tick labels are text too: refit them whenever the plot area changes size (fonts, window size).
    // Deferred, never from inside Qt Charts' own range update: a refit there sets the range while the domain is
    // still applying the previous one, and the two chase each other until the stack overflows. Where the fit
    // itself moves the plot area (a title that comes and goes), it settles or stops after a few rounds at one
    // chart size.
    for (QCategoryAxis* a : {m_x, m_y, m_y2})
        connect(a, &QValueAxis::rangeChanged, this, [this] { m_curveItem->update(); });
    connect(m_chart, &QChart::plotAreaChanged, this, [this] {
        m_curveItem->plotAreaChanged();
        if (m_fitQueued)
            return;
        m_fitQueued = true;
        QTimer::singleShot(0, this, [this] {
            m_fitQueued = false;
            if (m_chart->size() != m_autoFitSize) {
                m_autoFitSize = m_chart->size();
                m_autoFits = 0;
            }
            if (m_autoFits++ < 4)
                fitAxisLabels();
        });
    });
    connect(state, &WorkbenchState::answerPendingChanged, this, &DecayView::updateReadout); // View::readoutValue
    connect(state, &WorkbenchState::cursorChanged, this, [this] {
        if (m_state->scheme().encoding && !m_state->scheme().frequencies && isApplicable()) {
            recompute(); // the learned table's dot product depends on p
            refresh();
        }
    });
    connect(state, &WorkbenchState::viewOptionsChanged, this, [this] {
        applyTheme();
        if (m_state->scheme().application == core::Application::ScoreBias)
            recompute(); // one curve per head
    });
    applyTheme();
    resultChanged();
}

bool DecayView::supports(const core::SchemeDescriptor& scheme) const
{
    // Score-bias schemes count only with a content-free bias (ALiBi, T5, Kerple, FIRE, Sandwich): CoPE's
    // position terms depend on the content, so no single curve against distance exists. DeBERTa's do too, but the
    // table row each distance reads does not: that is its curve.
    return scheme.rotary != nullptr || (scheme.encoding != nullptr && scheme.relation != core::Relation::None)
        || scheme.bias != nullptr || scheme.id == "deberta";
}

QString DecayView::notApplicableReason() const
{
    const auto& s = m_state->scheme();
    const QString name = shortSchemeName(s);
    if (s.relation == core::Relation::None)
        return tr("NoPE treats every distance alike. Pick RoPE, ALiBi or T5 to see a score change with distance.");
    if (s.score)
        return tr("%1 mixes position with content: no single curve. See the attention view, or pick ALiBi, T5 or "
                  "RoPE.").arg(name);
    return tr("%1 has no decay curve. See the attention view, or pick ALiBi, T5 or RoPE.").arg(name);
}

QWidget* DecayView::controls()
{
    if (m_controls)
        return m_controls;
    m_controls = new QWidget(this);
    auto* lay = new QHBoxLayout(m_controls);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* pinButton = new QToolButton(m_controls);
    pinButton->setObjectName(QStringLiteral("decayPin"));
    pinButton->setText(tr("Pin"));
    pinButton->setToolTip(tr("Keep this curve on the axes to compare it with other schemes or settings"));
    auto* clear = new QToolButton(m_controls);
    clear->setText(tr("Clear pins"));
    lay->addWidget(pinButton);
    lay->addWidget(clear);
    connect(pinButton, &QToolButton::clicked, this, &DecayView::pin);
    connect(clear, &QToolButton::clicked, this, &DecayView::clearPins);
    return m_controls;
}

void DecayView::resultChanged()
{
    recompute();
}

void DecayView::recompute()
{
    m_curves.clear();
    m_rightCurve = -1;
    m_rightFrom = -1;
    m_compareProblem.clear();
    m_logX = false;
    m_edges.clear();
    m_edgePoints.clear();
    m_caption.clear();
    m_y2Title.clear();
    if (!m_result || !m_result->error.isEmpty() || !hasContent()) {
        rebuildSeries();
        return;
    }
    const Setup& su = m_result->setup;
    const core::SchemeDescriptor* s = core::findScheme(su.scheme);
    if (!s)
        return;
    const QString who = QString::fromStdString(su.scheme);
    // Every number comes from core through the one service; this view names and draws the curves.
    const DecayData data = Computation::decayData(su, m_state->viewOptions(), m_state->cursor(), false);
    if (!data.error.isEmpty() || data.curves.empty()) {
        rebuildSeries();
        return;
    }
    m_logX = data.logDistance;
    m_edges = data.edges;
    auto curveOf = [&](const core::DecaySeries& series, const QString& name, const QString& brief = {}) {
        Curve c{name, {}, brief};
        for (std::size_t i = 0; i < series.values.size() && i < data.distances.size(); ++i)
            c.points.append(QPointF(double(data.distances[i]), series.values[i]));
        return c;
    };
    auto markEdges = [&] {
        for (const QPointF& pt : m_curves.front().points)
            if (std::binary_search(m_edges.begin(), m_edges.end(), pt.x()))
                m_edgePoints.append(pt);
    };
    const core::DecaySeries& first = data.curves.front();
    if (first.key == "bucket_row") {
        // DeBERTa's position terms read content (c2p, p2c), so no score curve exists; what depends on distance
        // alone is the row of the relative-position table each distance reads (core's debertaTableRow).
        m_curves.push_back(curveOf(first, tr("%1: relative-position bucket \u03b4 read at distance k").arg(who)));
        markEdges();
        m_yTitle = tr("bucket \u03b4 (row of the position table)");
        const int b = int(su.params.integer("position_buckets"));
        const int maxRel = int(su.params.integer("max_relative_positions"));
        if (b > 0)
            m_caption = tr("DeBERTa's scores mix position with content (c2p, p2c), so this shows the row of the "
                           "relative-position table each distance reads: its own row up to b/2 = %1, then "
                           "log-spaced rows reaching %2 at k = %3 = max_relative_positions \u2212 1, and the "
                           "lookup clamps \u03b4 to \u2212%4 \u2026 %5 (%4 = position_buckets), so every "
                           "longer distance reads row %5.")
                            .arg(b / 2)
                            .arg(core::debertaTableRow(su.params, maxRel - 1))
                            .arg(maxRel - 1)
                            .arg(b)
                            .arg(b - 1);
    } else if (first.key.rfind("bias_head_", 0) == 0) {
        // Score-bias schemes (ALiBi, T5, Kerple, FIRE, Sandwich): the engine's bias of each head. Heads whose
        // curves are identical (parameters shared by every head, as Kerple's r1 and r2 are here) are one curve:
        // eight equal lines would suggest eight different heads. ALiBi's legend names each head's slope.
        const auto& series = data.curves;
        const bool shared = series.size() > 1 && std::all_of(series.begin(), series.end(), [&](const auto& c) {
            return c.values == series.front().values;
        });
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
            m_curves.push_back(curveOf(c, name, brief));
        }
        if (m_logX && !m_curves.empty())
            markEdges();
        m_yTitle = tr("bias added to the logit (nats)");
        if (su.params.has("relative_attention_num_buckets"))
            // The values are the scheme's seeded draws (core t5BiasTable), not a trained T5's: say so on the
            // figure, where a learner reads the curve.
            m_caption = tr("T5 learns one bias per bucket and head; these are seeded random values (seed %1), "
                           "not a trained model's. Each step is one bucket; \u25aa marks where the next begins.")
                            .arg(su.params.integer("seed"));
    } else if (first.key == "score") {
        // The score of q = k = (1, ..., 1) divided by its value at distance 0, and RoFormer's bound as the paper's
        // figure 2 draws it, not normalised (both from core's decay curves).
        m_curves.push_back(curveOf(first, tr("%1: q\u00b7k \u00f7 its value at k = 0 (q = k = 1)").arg(who)));
        for (const auto& c : data.curves)
            if (c.key == "bound") {
                m_rightCurve = int(m_curves.size());
                m_curves.push_back(curveOf(c, tr("RoFormer bound (dotted, right axis)")));
                m_y2Title = tr("RoFormer bound, not normalised");
            }
        m_yTitle = tr("score \u00f7 score at k = 0");
        if (m_rightCurve >= 0) {
            double least = std::numeric_limits<double>::infinity();
            for (const QPointF& p : m_curves[std::size_t(m_rightCurve)].points)
                least = std::min(least, p.y());
            const core::RotarySpec& qs = m_result->spec;
            // The claim first (a short figure may show only the first line), then what the right axis is.
            const QString law = tr("Right axis: RoFormer's bound (1/(r/2)) \u03a3\u2c7c|S\u2c7c| as its Fig. 2 draws it "
                                   "(\u00a73.4.3: |\u03a3\u2c7c h\u2c7c e^(ik\u03b8\u2c7c)| \u2264 max|h\u2c7c\u208a\u2081 \u2212 "
                                   "h\u2c7c| \u00b7 \u03a3\u2c7c|S\u2c7c|).");
            m_caption = qs.rotaryDim == su.dim
                ? tr("With q = k = 1 the score never exceeds the bound: the score (left axis, divided by its value at 0) "
                     "stays at most 1, the bound (dotted, right axis) stays above %1. The bound shows the trend, not the score.")
                          .arg(formatNumber(least, 3))
                      + QLatin1Char(' ') + law
                : tr("The bound covers the rotated part only: %1 of %2 dimensions pass through unrotated.")
                          .arg(su.dim - qs.rotaryDim)
                          .arg(su.dim)
                      + QLatin1Char(' ') + law;
        }
    } else if (first.key == "dot") {
        m_curves.push_back(curveOf(first, s->frequencies
                                              ? tr("%1: PE(p)\u00b7PE(p+k) = \u03a3\u1d62 cos(k\u03c9\u1d62)").arg(who)
                                              : tr("%1: E(p)\u00b7E(p+k) at p = %2").arg(who).arg(data.origin)));
        m_yTitle = tr("dot product");
    }
    addCompareCurves();
    rebuildSeries();
}

void DecayView::compareChanged()
{
    // B's curves are part of A's chart only in overlay and difference; side by side, B's half draws itself.
    const bool drawsB = m_state->comparing() && !m_state->compareOwner() && drawsCompare(m_state->compareMode());
    if (drawsB || m_drewCompare)
        recompute();
    m_drewCompare = drawsB;
    refresh();
}

void DecayView::addCompareCurves()
{
    if (!m_state->comparing() || m_state->compareOwner() || !drawsCompare(m_state->compareMode()) || m_curves.empty())
        return;
    WorkbenchState* b = m_state->compareState();
    const bool bHasCurve = supports(b->scheme()) && !(b->isRotary() && Computation::rotarySpec(b->setup())
                                                                        && Computation::rotarySpec(b->setup())->rotaryDim == 0);
    const DecayData bData = bHasCurve ? Computation::decayData(b->setup(), b->viewOptions(), b->cursor(), false) : DecayData{};
    if (m_state->compareMode() == CompareMode::Difference) {
        // A − B of the two export tables (Computation::difference), as the data export writes it.
        const DecayData aData = Computation::decayData(m_result->setup, m_state->viewOptions(), m_state->cursor(), false);
        std::vector<Curve> diff;
        try {
            if (!bHasCurve)
                throw core::InputError(tr("B (%1) has no decay curve").arg(shortSchemeName(b->scheme())).toStdString());
            const core::ComputeResult d = Computation::difference(aData.table(m_result->setup), bData.table(b->setup()));
            const std::size_t cols = d.shape.size() == 2 ? d.shape[1] : 0;
            for (std::size_t c = 1; c < cols; ++c) {
                const std::string& key = aData.curves[c - 1].key;
                if (key == "bound" || diff.size() >= 8)
                    continue; // RoFormer's bound is an envelope, not a score: its difference says nothing
                Curve curve{tr("A \u2212 B: %1").arg(QString::fromStdString(key)), {}, {}};
                for (std::size_t r = 0; r < d.shape[0]; ++r)
                    curve.points.append(QPointF(d.data[r * cols], d.data[r * cols + c]));
                diff.push_back(std::move(curve));
            }
        } catch (const std::exception& e) {
            m_compareProblem = QString::fromUtf8(e.what());
        }
        m_curves = std::move(diff);
        m_rightCurve = -1;
        m_edges.clear();
        m_edgePoints.clear();
        m_y2Title.clear();
        m_yTitle = tr("%1, A \u2212 B").arg(m_yTitle);
        m_caption = tr("Difference: A's curve minus B's at every distance (A: %1; B: %2).")
                        .arg(m_state->figureLabel().mid(3), b->figureLabel().mid(3));
        return;
    }
    // Overlay: A's curves solid, B's dashed, on one distance axis; RoFormer's bound is left out (one envelope per
    // configuration would crowd the legend). B's curves share the left axis when they are the same quantity.
    if (m_rightCurve >= 0) {
        m_curves.erase(m_curves.begin() + m_rightCurve);
        m_rightCurve = -1;
        m_y2Title.clear();
    }
    const QString aLabel = m_state->figureLabel(), bLabel = b->figureLabel();
    if (m_curves.size() == 1)
        m_curves.front().name = aLabel;
    else
        for (Curve& c : m_curves) {
            c.name = QStringLiteral("A: ") + c.name;
            c.shortName = QStringLiteral("A ") + (c.shortName.isEmpty() ? c.name.mid(3) : c.shortName);
        }
    m_caption = tr("Overlay: A solid, B dashed, on one distance axis.");
    if (!bHasCurve || !bData.error.isEmpty() || bData.curves.empty()) {
        m_caption += QLatin1Char(' ')
            + tr("B (%1) has no decay curve%2.")
                  .arg(shortSchemeName(b->scheme()), bData.error.isEmpty() ? QString() : QStringLiteral(": ") + bData.error);
        return;
    }
    const auto kind = [](const std::string& key) { return key.rfind("bias_head_", 0) == 0 ? std::string("bias") : key; };
    std::vector<const core::DecaySeries*> bSeries;
    for (const auto& c : bData.curves)
        if (c.key != "bound" && bSeries.size() < 8)
            bSeries.push_back(&c);
    const bool shared = bSeries.size() > 1 && std::all_of(bSeries.begin(), bSeries.end(), [&](const auto* c) {
        return c->values == bSeries.front()->values;
    });
    if (shared)
        bSeries.erase(bSeries.begin() + 1, bSeries.end());
    const std::size_t firstB = m_curves.size();
    for (std::size_t h = 0; h < bSeries.size(); ++h) {
        Curve c{bSeries.size() == 1 ? bLabel
                                    : tr("B: head %1%2").arg(h).arg(h < bData.slopes.size()
                                                                       ? QStringLiteral(" (m = %1)").arg(slopeText(bData.slopes[h]))
                                                                       : QString()),
                {}, {}, true};
        if (bSeries.size() > 1)
            c.shortName = h < bData.slopes.size() ? QStringLiteral("B ") + slopeText(bData.slopes[h]) : QStringLiteral("B h%1").arg(h);
        for (std::size_t i = 0; i < bSeries[h]->values.size() && i < bData.distances.size(); ++i)
            c.points.append(QPointF(double(bData.distances[i]), bSeries[h]->values[i]));
        m_curves.push_back(std::move(c));
    }
    m_logX = m_logX || bData.logDistance;
    const core::DecaySeries* aFirst = nullptr;
    const DecayData aData = Computation::decayData(m_result->setup, m_state->viewOptions(), m_state->cursor(), false);
    if (!aData.curves.empty())
        aFirst = &aData.curves.front();
    if (!aFirst || kind(aFirst->key) != kind(bData.curves.front().key)) {
        // Another quantity (a normalised score against a bias in nats): B gets the right axis, named.
        m_rightFrom = int(firstB);
        const std::string k = kind(bData.curves.front().key);
        m_y2Title = k == "bias"    ? tr("B: bias added to the logit (nats)")
                    : k == "score" ? tr("B: score \u00f7 score at k = 0")
                    : k == "dot"   ? tr("B: dot product")
                                   : tr("B: bucket \u03b4");
        m_yTitle = tr("A: %1").arg(m_yTitle);
        m_caption += QLatin1Char(' ') + tr("A and B plot different quantities: B's curves use the right axis.");
    }
}

void DecayView::pin()
{
    if (m_curves.empty() || !m_result)
        return;
    m_pins.push_back({m_curves.front(), m_result->setup});
    if (m_pins.size() > 4)
        m_pins.erase(m_pins.begin());
    rebuildSeries();
    refresh();
}

void DecayView::clearPins()
{
    m_pins.clear();
    rebuildSeries();
    refresh();
}

QStringList DecayView::pinNames() const
{
    // Every set-up on the axes: the pins and the current one. A pin names its scheme and each parameter whose
    // value is not the same in all of them, so two pins of one scheme are told apart by what differs.
    std::vector<const Setup*> all;
    for (const auto& p : m_pins)
        all.push_back(&p.setup);
    if (m_result)
        all.push_back(&m_result->setup);
    QStringList names;
    for (const auto& pin : m_pins) {
        QStringList parts;
        bool sameScheme = true, sameDim = true;
        for (const Setup* o : all) {
            sameScheme = sameScheme && o->scheme == pin.setup.scheme;
            sameDim = sameDim && o->dim == pin.setup.dim;
        }
        for (const auto& [key, value] : pin.setup.params.values()) {
            bool differs = false;
            for (const Setup* o : all)
                if (o->scheme == pin.setup.scheme && (!o->params.has(key) || !(o->params.value(key) == value)))
                    differs = true;
            if (!differs)
                continue;
            // A number as a person would type it (500000, not 5e+05).
            const QString text = value.type == core::ParamType::Real && std::isfinite(value.number)
                    && value.number == std::floor(value.number) && std::abs(value.number) < 1e15
                ? QString::number(qint64(value.number))
                : value.type == core::ParamType::Real ? QString::number(value.number, 'g', 12)
                                                      : QString::fromStdString(value.toString());
            parts << QStringLiteral("%1 = %2").arg(QString::fromStdString(key), text);
        }
        if (!sameDim)
            parts << QStringLiteral("d = %1").arg(pin.setup.dim);
        QString name = tr("pinned: %1").arg(QString::fromStdString(pin.setup.scheme));
        if (!parts.isEmpty())
            name += QStringLiteral(" \u00b7 ") + parts.join(QStringLiteral(", "));
        else if (sameScheme)
            name += tr(" \u00b7 same set-up as now");
        names << name;
    }
    return names;
}

namespace {

/// Tick labels at the nice values of [lo, hi]: decimals enough for the step, thousands separators, and
/// zero written "0" (a tick at -1e-17 would otherwise read "-0.00").
void setTicks(QCategoryAxis* axis, double lo, double hi, const std::vector<std::pair<double, QString>>& ticks)
{
    // Unchanged ticks (a range padded for a new plot height) keep their label items: Qt Charts makes a new
    // rich-text item for every label appended.
    const QStringList labels = axis->categoriesLabels();
    bool same = labels.size() == qsizetype(ticks.size());
    for (qsizetype i = 0; same && i < labels.size(); ++i)
        same = labels[i] == ticks[std::size_t(i)].second && axis->endValue(labels[i]) == ticks[std::size_t(i)].first;
    if (!same)
        for (const QString& l : labels)
            axis->remove(l);
    axis->setStartValue(lo);
    axis->setRange(lo, hi);
    if (!same)
        for (const auto& [v, label] : ticks)
            axis->append(label, v);
}

std::vector<std::pair<double, QString>> linearTicks(double lo, double hi, int target, double* outLo, double* outHi)
{
    // The 1-2-5 step for about @p target intervals (niceTicks' rule, kept even when fewer than two ticks
    // fall inside [lo, hi]).
    const double span = hi > lo ? hi - lo : std::max(std::abs(lo) * 0.1, 1e-12);
    const double raw = span / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * mag;
    for (double m : {1.0, 2.0, 5.0})
        if (raw <= m * mag * (1 + 1e-12)) {
            step = m * mag;
            break;
        }
    // The range fits the data: it ends at the first tick at or beyond each end (0 stays the top for ALiBi).
    double a = std::floor(lo / step + 1e-9) * step;
    double b = std::ceil(hi / step - 1e-9) * step;
    if (!(b > a))
        b = a + step;
    *outLo = a;
    *outHi = b;
    const int decimals = std::max(0, int(std::ceil(-std::log10(step) - 1e-9)));
    const QLocale en(QLocale::English);
    std::vector<std::pair<double, QString>> out;
    for (int i = 0; a + i * step <= b + step * 1e-9; ++i) {
        double v = a + i * step;
        if (std::abs(v) < step * 1e-6)
            v = 0.0;
        out.emplace_back(v, en.toString(v, 'f', decimals));
    }
    return out;
}

} // namespace

std::pair<double, double> DecayView::yRange() const
{
    return {m_y->min(), m_y->max()};
}

QStringList DecayView::yTickLabels() const
{
    return m_y->categoriesLabels();
}

QStringList DecayView::xTickLabels() const
{
    return m_x->categoriesLabels();
}

QStringList DecayView::seriesNames() const
{
    QStringList out;
    for (QLineSeries* s : m_series)
        out << s->name();
    return out;
}

QString DecayView::readoutText() const
{
    return m_readout->text();
}

void DecayView::hoverAt(int series, double distance)
{
    m_hoverSeries = series;
    m_hoverX = distance;
    updateReadout();
}

void DecayView::updateReadout()
{
    // From the curves now on the axes, so a parameter change updates the line under the mouse's last place.
    const Curve* c = nullptr;
    QString name;
    if (m_hoverSeries >= 0 && m_hoverSeries < int(m_curves.size())) {
        c = &m_curves[std::size_t(m_hoverSeries)];
        name = c->name;
    } else if (m_hoverSeries >= int(m_curves.size()) && m_hoverSeries < int(m_curves.size() + m_pins.size())) {
        c = &m_pins[std::size_t(m_hoverSeries) - m_curves.size()].curve;
        name = pinNames().value(m_hoverSeries - int(m_curves.size()));
    }
    // B's read-out says whose curve it reads ("B · ..."), as the other views' B read-outs do.
    const QString who = m_state->compareOwner() ? tr("%1 \u00b7 ").arg(m_state->compareName()) : QString();
    if (!c || c->points.isEmpty()) {
        m_readout->setText(who + tr("Hover a curve to read its value."));
        return;
    }
    const auto it = std::min_element(c->points.begin(), c->points.end(), [&](const QPointF& a, const QPointF& b) {
        return std::abs(a.x() - m_hoverX) < std::abs(b.x() - m_hoverX);
    });
    m_readout->setText(who + tr("%1:  k = %2 tokens,  value %3")
                                 .arg(name, QLocale(QLocale::English).toString(qint64(std::llround(it->x()))),
                                      readoutValue(QString::number(it->y(), 'g', 6))));
}

void DecayView::rebuildSeries()
{
    m_autoFits = 0; // new curves: plot-area changes may refit again
    const std::size_t want = m_curves.size() + m_pins.size();
    // Reuse series so a slider drag only replaces points (Qt Charts is slow to add and remove series).
    while (m_series.size() > want) {
        m_chart->removeSeries(m_series.back());
        delete m_series.back();
        m_series.pop_back();
    }
    while (m_series.size() < want) {
        auto* s = new QLineSeries;
        m_chart->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
        m_series.push_back(s);
    }
    const Theme th = theme();
    // Okabe-Ito colours after the theme's three: distinguishable with colour-vision deficiency.
    const QColor colors[] = {th.accent, th.accent3, th.accent2, QColor(0xcc, 0x79, 0xa7), QColor(0xe6, 0x9f, 0x00),
                             QColor(0x56, 0xb4, 0xe9), QColor(0xf0, 0xe4, 0x42), QColor(0x99, 0x99, 0x99),
                             th.kind == ThemeKind::Dark ? QColor(0xdd, 0xdd, 0xdd) : QColor(0x00, 0x00, 0x00),
                             QColor(0xd5, 0x5e, 0x00), QColor(0x00, 0x72, 0xb2),
                             QColor(0x88, 0x88, 0x88)};
    auto xOf = [this](double k) { return m_logX ? std::log10(std::max(k, 1.0)) : k; };
    double lo = 0, hi = 0, maxX = 1, lo2 = 0, hi2 = 0;
    bool first = true, first2 = true;
    auto extend = [&](const Curve& c, bool right) {
        for (const QPointF& p : c.points) {
            if (!std::isfinite(p.y()) || (m_logX && p.x() < 1))
                continue;
            double& l = right ? lo2 : lo;
            double& h = right ? hi2 : hi;
            bool& f = right ? first2 : first;
            if (f) {
                l = h = p.y();
                f = false;
            }
            l = std::min(l, p.y());
            h = std::max(h, p.y());
            maxX = std::max(maxX, p.x());
        }
    };
    const auto onRight = [this](std::size_t i) {
        return int(i) == m_rightCurve || (m_rightFrom >= 0 && int(i) >= m_rightFrom);
    };
    for (std::size_t i = 0; i < m_curves.size(); ++i)
        extend(m_curves[i], onRight(i));
    for (const auto& pin : m_pins)
        extend(pin.curve, false);
    // The data's extent; fitAxisLabels() turns it into axes whose tick labels fit the plot area.
    m_yData = {lo, hi};
    m_y2Data = m_rightFrom >= 0 ? std::pair{lo2, hi2} : std::pair{std::min(0.0, lo2), hi2}; // the bound from 0, as the paper's figure
    m_maxX = maxX;
    m_y2->setVisible(m_rightCurve >= 0 || m_rightFrom >= 0);
    m_xTitle = m_logX ? tr("distance k (tokens, log; \u25aa bucket edges)") : tr("distance k (tokens)");
    // fitAxisLabels() words the titles from m_xTitle, m_yTitle and m_y2Title as if they had just been set whole:
    // setting the whole titles on the axes first, to have them shortened again, re-laid the chart out (every axis
    // label measured again) for every new curve, each frame of a slider drag.
    if (m_fitting)
        m_x->setTitleText(m_xTitle);
    fitAxisLabels(true);
    const QStringList pinLabels = pinNames();
    std::size_t idx = 0;
    std::vector<CurveItem::Curve> drawn;
    auto fill = [&](const Curve& c, const QString& name, bool pinned, bool right) {
        QLineSeries* s = m_series[idx];
        if (s->name() != name)
            s->setName(name);
        const bool onRight = s->attachedAxes().contains(m_y2);
        if (right != onRight) {
            s->detachAxis(right ? static_cast<QAbstractAxis*>(m_y) : m_y2);
            s->attachAxis(right ? static_cast<QAbstractAxis*>(m_y2) : m_y);
        }
        QPen pen(colors[idx % 12], pinned || c.dashed ? 2.0 : 2.6);
        if (pinned || c.dashed)
            pen.setStyle(Qt::DashLine);
        if (right && m_rightFrom < 0)
            pen.setStyle(Qt::DotLine);
        if (s->pen() != pen)
            s->setPen(pen);
        QList<QPointF> pts;
        pts.reserve(c.points.size());
        for (const QPointF& p : c.points) {
            if (m_logX && p.x() < 1)
                continue;
            // T5's bias is constant within a bucket: draw steps, not slopes between neighbouring buckets.
            if (m_logX && !pts.isEmpty() && pts.back().y() != p.y())
                pts.append(QPointF(xOf(p.x()), pts.back().y()));
            pts.append(QPointF(xOf(p.x()), p.y()));
        }
        drawn.push_back({std::move(pts), pen, right ? m_y2 : m_y});
        ++idx;
    };
    for (std::size_t i = 0; i < m_curves.size(); ++i)
        fill(m_curves[i], m_curves[i].name, false, onRight(i));
    for (std::size_t i = 0; i < m_pins.size(); ++i)
        fill(m_pins[i].curve, pinLabels.value(qsizetype(i)), true, false);
    m_curveItem->setCurves(std::move(drawn));
    {
        QList<QPointF> edges;
        for (const QPointF& p : m_edgePoints)
            edges.append(QPointF(xOf(p.x()), p.y()));
        m_edgeSeries->replace(edges);
        m_edgeSeries->setColor(th.foreground);
        m_edgeSeries->setBorderColor(th.foreground);
        m_edgeSeries->setName(tr("bucket edges (%1)").arg(m_edges.size()));
        // Named in the distance axis's title, not in the legend, which already holds a line per head.
        m_edgeSeries->setVisible(!edges.isEmpty()); // (this shows the series' legend marker again)
        const auto markers = m_chart->legend()->markers(m_edgeSeries);
        for (QLegendMarker* mk : markers)
            mk->setVisible(false);
    }
    // Many curves (one per head) would share one row of legend and be cut to "head 0 (..."; a column on
    // the right gives each its full label.
    const Qt::Alignment legendAt = want > 3 ? Qt::AlignRight : Qt::AlignTop;
    if (m_chart->legend()->alignment() != legendAt)
        m_chart->legend()->setAlignment(legendAt);
    if (m_fitting) {
        m_y->setTitleText(m_yTitle);
        m_y2->setTitleText(m_y2Title);
    }
    if (isVisible()) // a hidden view fits its caption label when shown (showEvent); an export draws its own
        fitCaption();
    showChartIfRoom();
    fitAxisLabels();
    QString title = m_curves.empty() ? QString() : tr("%1 \u00b7 d = %2").arg(m_state->figureLabel()).arg(m_state->dim());
    if (!m_curves.empty() && m_state->comparing() && !m_state->compareOwner() && drawsCompare(m_state->compareMode()))
        title = m_state->compareMode() == CompareMode::Difference ? tr("Difference A \u2212 B \u00b7 d = %1").arg(m_state->dim())
                : m_state->dim() == m_state->compareState()->dim()
                ? tr("Overlay of A and B \u00b7 d = %1").arg(m_state->dim())
                : tr("Overlay of A and B \u00b7 d = %1 and %2").arg(m_state->dim()).arg(m_state->compareState()->dim());
    setChartTitle(title);
    updateReadout();
    // On screen, the chart lays itself out now where the curves changed its axes: posted, the layout would move its
    // items on the event loop's next pass, after the repaint a new result brings had drawn the chart once
    // already, and the chart was drawn twice for each new curve.
    if (m_chartView->isVisible())
        QCoreApplication::sendPostedEvents(m_chart, QEvent::LayoutRequest);
}

std::vector<ValueRange> DecayView::dataAxisRanges() const
{
    if (m_curves.empty())
        return {};
    std::vector<ValueRange> out{{m_yData.first, m_yData.second}};
    if (m_rightCurve >= 0 || m_rightFrom >= 0)
        out.push_back({m_y2Data.first, m_y2Data.second});
    return out;
}

QString DecayView::rangeQuantity() const
{
    // The axes' titles name what they measure ("q·k ÷ its value at k = 0", "bias added to the logit (nats)"), and
    // the distance axis's title whether it is logarithmic: equal titles, one quantity on one axis.
    return exportName() + QLatin1Char('|') + m_xTitle + QLatin1Char('|') + m_yTitle + QLatin1Char('|') + m_y2Title;
}

void DecayView::sharedAxesChanged()
{
    if (m_fitting) {
        // Reached from inside a fit (B's new curves): fit again once that one is done.
        QTimer::singleShot(0, this, [this] { sharedAxesChanged(); });
        return;
    }
    fitAxisLabels();
    m_curveItem->update();
    update();
}

void DecayView::mouseMoveEvent(QMouseEvent* event)
{
    if (m_state->compareOwner()) {
        // This view is B's half, drawn from its own chart laid out at the half's size with its corner at the half's
        // (renderContent() leaves a hidden view's chart so): the half's coordinates are the chart scene's.
        const auto [curve, x] = m_curveItem->curveAt(m_curveItem->mapFromScene(event->position()));
        if (curve >= 0)
            hoverAt(curve, m_logX ? std::pow(10.0, x) : x);
    }
    View::mouseMoveEvent(event);
}

void DecayView::leaveEvent(QEvent* event)
{
    if (m_state->compareOwner() && m_hoverSeries >= 0) {
        m_hoverSeries = -1;
        updateReadout();
    }
    View::leaveEvent(event);
}

void DecayView::applyTheme()
{
    const Theme th = theme();
    const double s = th.fontScale;
    m_chart->setTheme(th.kind == ThemeKind::Dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setBackgroundBrush(th.background);
    m_chart->setPlotAreaBackgroundBrush(th.panel);
    m_chart->setPlotAreaBackgroundVisible(true);
    m_titleItem->setDefaultTextColor(th.foreground);
    m_chart->legend()->setLabelColor(th.foreground);
    m_captionLabel->setStyleSheet(QStringLiteral("color: %1; background: %2;").arg(th.muted.name(), th.background.name()));
    // The caption and the read-out grow with the font scale like the chart's own text (they stayed at the
    // window's 10 px while the chart's was 24 px at font scale 2).
    m_captionLabel->setFont(th.font(9.5));
    m_readout->setFont(th.font(10));
    m_readout->setStyleSheet(QStringLiteral("color: %1; background: %2;").arg(th.foreground.name(), th.background.name()));
    for (QCategoryAxis* a : {m_x, m_y, m_y2}) {
        a->setLabelsColor(th.foreground);
        a->setTitleBrush(th.muted);
        a->setGridLineColor(th.grid);
        a->setLinePenColor(th.muted);
    }
    (void)s;
    applyFonts(1.0);
    rebuildSeries(); // the theme resets series pens
}

bool DecayView::yTitleCut() const
{
    // The y axes' titles stand left and right of the plot; tick labels are never cut (setTruncateLabels(false)).
    const QRectF plot = m_chart->plotArea();
    if (plot.isEmpty() || (m_y->titleText().isEmpty() && m_y2->titleText().isEmpty()))
        return false;
    // The chart's items, unsorted (QGraphicsScene::items() sorts the whole scene: a third of a millisecond).
    std::vector<QGraphicsItem*> todo{m_chart};
    while (!todo.empty()) {
        QGraphicsItem* item = todo.back();
        todo.pop_back();
        const QList<QGraphicsItem*> children = item->childItems();
        todo.insert(todo.end(), children.begin(), children.end());
        if (item->type() != QGraphicsTextItem::Type || item == m_titleItem || !item->isVisible())
            continue;
        const auto* t = static_cast<QGraphicsTextItem*>(item);
        const QString text = t->toPlainText();
        if (text != QLatin1String("...") && text != QStringLiteral("\u2026"))
            continue;
        const QRectF r = t->mapRectToItem(m_chart, t->boundingRect());
        if (r.right() <= plot.left() + 1 || r.left() >= plot.right() - 1)
            return true;
    }
    return false;
}

void DecayView::setChartTitle(const QString& title)
{
    m_title = m_state->heading().isEmpty() || title.isEmpty() ? title : m_state->heading(); // export --title
    // Room for it above the legend: the chart's top margin, which changes only when the title comes or goes or
    // its font changes.
    const int room = title.isEmpty() ? 0 : int(std::ceil(QFontMetricsF(m_titleItem->font()).height())) + 4;
    const QMargins margins(6, 4 + room, 10, 4);
    if (m_chart->margins() != margins)
        m_chart->setMargins(margins);
    placeTitle();
}

void DecayView::placeTitle()
{
    // Centred over the chart under its top margin. Too long for the chart's width, it loses its last " · " and
    // ", " parts (d = 128, then the trained length), as every view's header does (drawHeader); only a title
    // whose first part alone is too long is cut with "…" (a small panel). Whole in the text record and tooltip.
    const QRectF area = m_chart->rect().adjusted(8, 0, -8, 0);
    const QFontMetricsF fm(m_titleItem->font());
    QString shown = m_title;
    for (const QString& sep : {QStringLiteral(" \u00b7 "), QStringLiteral(", ")})
        while (textAdvance(m_titleItem->font(), shown) > area.width() && shown.contains(sep))
            shown = shown.left(shown.lastIndexOf(sep));
    if (textAdvance(m_titleItem->font(), shown) > area.width())
        shown = fm.elidedText(shown, Qt::ElideRight, std::max(0.0, area.width()));
    if (m_titleItem->toPlainText() != shown)
        m_titleItem->setPlainText(shown);
    m_titleItem->setVisible(!m_title.isEmpty());
    const double top = m_chart->layout() ? m_chart->layout()->contentsRect().top() : 0.0;
    m_titleItem->setPos(std::round(area.left() + (area.width() - textAdvance(m_titleItem->font(), shown)) / 2), top + 4);
}

void DecayView::applyFonts(double sizeFactor)
{
    // The other views grow their text with the figure (sizeScale); the chart does the same, so a 1920 px
    // slide export is as readable as the 600 px panel.
    m_fontFactor = sizeFactor;
    m_noYTitlesUpTo = 0; // other fonts: the axes' titles get another chance
    const Theme th = theme();
    auto scaled = [&](double pt, bool bold = false) {
        QFont f = th.font(pt, bold);
        f.setPointSizeF(f.pointSizeF() * sizeFactor);
        return f;
    };
    m_titleItem->setFont(scaled(11, true));
    setChartTitle(m_title); // its room follows the font
    m_legendFont = scaled(10);
    m_chart->legend()->setFont(m_legendFont);
    for (QCategoryAxis* a : {m_x, m_y, m_y2}) {
        a->setLabelsFont(scaled(10));
        a->setTitleFont(scaled(10));
    }
}

void DecayView::fitCaption()
{
    // On screen the caption takes at most three lines under the chart (a wrapped label would otherwise claim its
    // full height and squeeze every view in the window's other row), by the figures' rule: all of it, else its
    // first sentences that fit whole (the claim comes first), never a line cut with "…"; whole in its tooltip.
    const QFontMetricsF fm(m_captionLabel->font());
    const QMargins m = m_captionLabel->contentsMargins();
    const double width = std::max(40, m_captionLabel->width() - m.left() - m.right());
    constexpr int lines = 3;
    m_captionLabel->setMaximumHeight(int(std::ceil(fm.lineSpacing() * lines)) + m.top() + m.bottom());
    const QString shown = sentencesThatFit(m_caption, m_captionLabel->font(), width, lines);
    if (m_captionLabel->text() != shown)
        m_captionLabel->setText(shown);
    m_captionLabel->setToolTip(shown == m_caption ? QString() : m_caption);
}

void DecayView::resizeEvent(QResizeEvent* e)
{
    View::resizeEvent(e);
    fitCaption();
    showChartIfRoom();
}

void DecayView::showEvent(QShowEvent* e)
{
    View::showEvent(e);
    fitCaption();
}

void DecayView::showChartIfRoom()
{
    // The chart is a child widget: hide it (and its caption and read-out) where the view has no content or no
    // room for its labels, so the view's own pane shows instead (View::render says which).
    const QRectF area = contentArea();
    const bool ok = hasContent() && m_result && hasRoom(area.size()) && m_compareProblem.isEmpty();
    if (auto* lay = layout(); lay && lay->contentsMargins().right() != int(width() - area.width()))
        lay->setContentsMargins(0, 0, int(width() - area.width()), 0); // B's half is painted beside the chart
    const bool readout = ok && !m_state->viewOptions().cleanSlide; // a clean slide has no hover hint or read-out
    if (m_chartView->isHidden() == ok || m_readout->isHidden() == readout) {
        m_chartView->setVisible(ok);
        m_readout->setVisible(readout);
    }
    m_captionLabel->setVisible(ok && !m_caption.isEmpty());
}

void DecayView::paintEvent(QPaintEvent* e)
{
    showChartIfRoom();
    if (!m_chartView->isVisibleTo(this)) {
        View::paintEvent(e);
        return;
    }
    QPainter p(this);
    p.fillRect(rect(), theme().background);
    if (showsHalves() && compareTwin()) {
        // A's chart is the live widget on the left; B's half is drawn beside it.
        const QRectF left = contentArea();
        const double gap = 6 * sizeScale(QRectF(rect()));
        compareTwin()->resize(std::max(1, int(width() - left.width() - gap)), height());
        // On screen, as View::paintEvent draws (B's read-out line shows; the chart drawn here is A's live widget).
        auto* twin = qobject_cast<DecayView*>(compareTwin());
        if (twin)
            twin->m_twinOnScreen = true;
        renderTwin(p, QRectF(left.right() + gap, 0, width() - left.width() - gap, height()));
        if (twin)
            twin->m_twinOnScreen = false;
    }
}

void DecayView::render(QPainter& painter, const QRectF& target)
{
    const bool ok = hasContent() && m_result && hasRoom(target.size()) && m_compareProblem.isEmpty();
    if (ok) {
        m_chartView->setVisible(true);
        m_readout->setVisible(!m_state->viewOptions().cleanSlide);
    }
    View::render(painter, target);
}

void DecayView::renderContent(QPainter& p, const QRectF& target)
{
    // Lay the chart out at the target size, draw its scene, and put it back: fonts and ticks then suit the
    // target (a 3000 px export gets a proper layout, not a blown-up 500 px one).
    const QRectF old = m_chart->geometry();
    const double factor = sizeScale(target);
    // A view that is not shown (the command line's export scene) keeps the last render's fonts and geometry:
    // each render sets its own first, and putting them back would lay the chart out again for nothing.
    const bool offscreen = !isVisible();
    const bool newFonts = factor != m_fontFactor;
    if (newFonts)
        applyFonts(factor);
    // The caption (what the rotary bound bounds) goes under the chart, in exports as on screen.
    QRectF chartRect = target;
    QRectF captionRect;
    const Theme th = theme();
    const QFont cf = th.font(9.5 * factor);
    // B's half on screen has no read-out widget of its own (the twin is never shown): its line under the chart,
    // where A's read-out stands in A's half.
    QRectF readoutRect;
    if (m_state->compareOwner() && (showsHints() || (m_twinOnScreen && !m_state->viewOptions().cleanSlide))) {
        const QFont rf = th.font(10 * factor);
        const double h = QFontMetricsF(rf).height() + 4 * factor;
        readoutRect = QRectF(target.left() + 8 * factor, target.bottom() - h, target.width() - 16 * factor, h);
        chartRect.setBottom(readoutRect.top());
    }
    if (!m_caption.isEmpty()) {
        const QRectF inner = target.adjusted(8 * factor, 0, -8 * factor, 0);
        const QRectF need = QFontMetricsF(cf).boundingRect(QRectF(inner.left(), 0, inner.width(), 1e6),
                                                           Qt::TextWordWrap, m_caption);
        // At most a fifth of the figure, so the chart keeps its room, yet never less than the caption's first
        // sentence (its claim) needs, up to a third; drawWrapped then keeps the whole sentences that fit.
        const double lineH = QFontMetricsF(cf).height();
        const qsizetype stop = m_caption.indexOf(QStringLiteral(". "));
        const double first = stop < 0 ? need.height()
                                      : QFontMetricsF(cf).boundingRect(QRectF(inner.left(), 0, inner.width(), 1e6),
                                                                       Qt::TextWordWrap, m_caption.left(stop + 1)).height();
        const double fifth = std::floor(target.height() * 0.2 / lineH) * lineH;
        const double third = std::floor(target.height() / 3 / lineH) * lineH;
        const double h = std::min(need.height(), std::max({lineH, fifth, std::min(first, third)}));
        captionRect = QRectF(inner.left(), chartRect.bottom() - h - 4 * factor, inner.width(), h + 2 * factor);
        chartRect.setBottom(captionRect.top() - 2 * factor);
    }
    m_chart->setGeometry(QRectF(QPointF(0, 0), chartRect.size()));
    // Tick spacing, the corner and the legend depend on the plot area, which depends on them: settle.
    for (int pass = 0; pass < 4; ++pass) {
        const QRectF before = m_chart->plotArea();
        fitAxisLabels();
        if (m_chart->legend()->layout())
            m_chart->legend()->layout()->activate();
        m_chart->layout()->activate();
        if (pass > 0 && m_chart->plotArea() == before)
            break;
    }
    const QRectF source(QPointF(0, 0), chartRect.size());
    if (cachesOnScreen(p)) {
        // B's half on screen: drawn into an image first and copied. Painted straight into the window, every line
        // and label went through the view's clip region (the view less A's chart, a region of several rectangles),
        // which made each antialiased fill slower.
        const qreal dpr = p.device() ? p.device()->devicePixelRatioF() : 1.0;
        QImage img((chartRect.size() * dpr).toSize(), QImage::Format_ARGB32_Premultiplied);
        img.setDevicePixelRatio(dpr);
        img.fill(Qt::transparent);
        {
            QPainter ip(&img);
            ip.setRenderHints(p.renderHints());
            m_chartView->scene()->render(&ip, source, source);
        }
        p.drawImage(chartRect.topLeft(), img);
    } else {
        m_chartView->scene()->render(&p, chartRect, source);
    }
    recordChartText(p, chartRect);
    // Back to the widget's geometry (hover read-outs map through it).
    if (!offscreen)
        m_chart->setGeometry(old);
    if (!captionRect.isEmpty()) {
        p.fillRect(QRectF(target.left(), chartRect.bottom(), target.width(), target.bottom() - chartRect.bottom()),
                   th.background);
        TextLayout text(p, QRectF(target.left(), chartRect.bottom(), target.width(), target.bottom() - chartRect.bottom()));
        text.drawWrapped(captionRect, Qt::AlignLeft | Qt::AlignTop, cf, th.muted, m_caption);
    }
    if (!readoutRect.isEmpty()) {
        p.fillRect(readoutRect, th.background);
        TextLayout text(p, readoutRect);
        // The whole line, else "B · k = 154 tokens,  value 0.577" without the curve's name (the half is narrow).
        const QString full = m_readout->text();
        QStringList words{full};
        const qsizetype at = full.indexOf(QStringLiteral(":  k = ")), who = full.indexOf(QStringLiteral(" \u00b7 "));
        if (at > 0 && who >= 0 && who < at)
            words << full.left(who + 3) + full.mid(at + 3);
        text.draw(readoutRect, Qt::AlignLeft | Qt::AlignVCenter, th.font(10 * factor), th.foreground, words,
                  TextLayout::Fit::Drop);
    }
    if (!offscreen && m_fontFactor != 1.0)
        applyFonts(1.0);
}

void DecayView::fitAxisLabels(bool wholeTitles)
{
    if (m_fitting)
        return;
    m_fitting = true;
    // Tick counts follow the plot area: x labels side by side with a gap (Qt Charts would cut them to
    // "1,..."), y labels at least two label heights apart. Before the chart has a plot area, a default count.
    const QRectF plot = m_chart->plotArea();
    const bool sized = plot.width() >= 10 && plot.height() >= 10;
    const QLocale en(QLocale::English);
    {
        const QFontMetricsF fm(m_x->labelsFont());
        const double widest = textAdvance(m_x->labelsFont(), en.toString(qint64(std::llround(m_maxX)))) + fm.height();
        const int target = sized ? std::clamp(int(plot.width() / widest), 1, 6) : 6;
        std::vector<std::pair<double, QString>> xt;
        double xhi = m_maxX;
        if (m_logX) {
            xhi = std::log10(std::max(m_maxX, 1.0));
            const int decades = int(std::floor(xhi + 1e-9)) + 1;
            const int every = std::max(1, (decades + target - 1) / target);
            for (int e = 0; e < decades; e += every)
                xt.emplace_back(double(e), en.toString(qint64(std::llround(std::pow(10.0, e)))));
        } else {
            for (double v : niceTicks(0, m_maxX, target))
                if (v >= 0 && v <= m_maxX)
                    xt.emplace_back(v, en.toString(qint64(std::llround(v))));
        }
        if (!(xhi > 0))
            xhi = 1;
        if (sized) {
            // A label centred on its tick must not run past the plot's right edge: into the legend column, or
            // out of the view (the last tick of 0..1,023 is 1,000, a few pixels from the edge).
            std::vector<std::pair<double, QString>> kept;
            for (const auto& t : xt)
                if (t.first == 0
                    || plot.left() + t.first / xhi * plot.width() + textAdvance(m_x->labelsFont(), t.second) / 2 <= plot.right() + 2)
                    kept.push_back(t);
            xt = std::move(kept);
        }
        if (m_x->min() != 0 || m_x->max() != xhi || m_x->categoriesLabels().size() != qsizetype(xt.size())
            || m_x->categoriesLabels().value(1) != (xt.size() > 1 ? xt[1].second : QString()))
            setTicks(m_x, 0, xhi, xt);
    }
    auto fitY = [&](QCategoryAxis* axis, std::pair<double, double> data) {
        const QFontMetricsF fm(axis->labelsFont());
        const int target = sized ? std::clamp(int(plot.height() / (fm.height() * 2)), 1, 5) : 5;
        double a = 0, b = 1;
        auto ticks = linearTicks(data.first, data.second, target, &a, &b);
        // A small plot may still put two labels closer than a line apart: fewer ticks until they clear.
        for (int t = target - 1; t >= 1 && sized && ticks.size() >= 2
                                 && (ticks[1].first - ticks[0].first) / (b - a) * plot.height() < fm.height() * 1.3;
             --t)
            ticks = linearTicks(data.first, data.second, t, &a, &b);
        // The end labels are centred on their ticks: lower the axis just enough that the lowest clears the x
        // axis's labels at the bottom-left corner, and raise it so that the highest clears the legend or title
        // above (half a label height and a gap each). No tick is added: ALiBi's top label stays 0.
        double lo = a, hi = b;
        if (sized) {
            const double f = (fm.height() / 2 + 2) / plot.height();
            if (f < 0.25) {
                lo = a - f * (b - a) / (1 - 2 * f);
                hi = b + f * (b - a) / (1 - 2 * f);
            } else {
                // A plot too low to pad: a label that would stick out past the top or bottom edge is left out.
                const double room = fm.height() / 2 + 2;
                std::vector<std::pair<double, QString>> kept;
                for (const auto& t : ticks)
                    if ((b - t.first) / (b - a) * plot.height() >= room - 0.01
                        && (t.first - a) / (b - a) * plot.height() >= room - 0.01)
                        kept.push_back(t);
                ticks = std::move(kept);
            }
        }
        if (axis->min() != lo || axis->max() != hi || axis->categoriesLabels().size() != qsizetype(ticks.size())
            || axis->categoriesLabels().value(0) != (ticks.empty() ? QString() : ticks.front().second))
            setTicks(axis, lo, hi, ticks);
    };
    // Side by side on the same quantity: A's and B's halves on the union of their ranges (sharedAxes()).
    const std::vector<ValueRange>& shared = sharedAxes();
    const bool right = m_rightCurve >= 0 || m_rightFrom >= 0;
    const bool share = shared.size() == (right ? 2u : 1u);
    fitY(m_y, share ? std::pair{shared[0].lo, shared[0].hi} : m_yData);
    if (right)
        fitY(m_y2, share ? std::pair{shared[1].lo, shared[1].hi} : m_y2Data);
    // The y title: the long wording if it fits the plot's height, else the short one (Qt Charts would cut it),
    // else none; the x title only while the plot keeps four lines of height for itself and the title fits its width.
    {
        // Qt Charts squeezes the axes of a narrow chart and then cuts their titles to "...", which says nothing: a
        // y title so cut is left out at that chart width and below, and the plot takes its room.
        if (yTitleCut())
            m_noYTitlesUpTo = std::max(m_noYTitlesUpTo, m_chart->size().width());
        const double room = m_chart->size().width() > m_noYTitlesUpTo ? plot.height() : -1.0;
        const QFontMetricsF fm(m_y->titleFont());
        const QString shorter = shortYTitle(m_yTitle);
        const QString title = textAdvance(m_y->titleFont(), m_yTitle) <= room ? m_yTitle
                              : textAdvance(m_y->titleFont(), shorter) <= room ? shorter
                                                                              : QString();
        if (m_y->titleText() != title)
            m_y->setTitleText(title);
        const QString title2 = textAdvance(m_y->titleFont(), m_y2Title) <= room ? m_y2Title
                               : textAdvance(m_y->titleFont(), shortYTitle(m_y2Title)) <= room ? shortYTitle(m_y2Title)
                                                                                              : QString();
        if (m_y2->titleText() != title2)
            m_y2->setTitleText(title2);
        // The x title: whole or not at all (Qt Charts cuts it to "..." under the tick labels on a narrow plot, a
        // little before the text alone reaches the plot's width: its text item has margins).
        const QString xShort = m_logX ? tr("k (log)") : tr("k (tokens)");
        // Hysteresis: a title now left out returns only when the plot keeps three lines after giving it one and
        // a half, so the two layouts do not alternate.
        const double needH = fm.height() * (m_x->titleText().isEmpty() && !wholeTitles ? 5.5 : 4);
        const QString xTitle = plot.height() < needH                      ? QString()
                               : textAdvance(m_y->titleFont(), m_xTitle) + fm.height() <= plot.width() ? m_xTitle
                               : textAdvance(m_y->titleFont(), xShort) + fm.height() <= plot.width()   ? xShort
                                                                                : QString();
        if (m_x->titleText() != xTitle)
            m_x->setTitleText(xTitle);
    }
    // Qt Charts gives a legend beside the plot at most 40% of the chart's width, and one above it the width
    // of the chart in one row, and cuts longer labels ("head 3 (m = 0.06..."): make the legend's font just
    // small enough that every label fits whole, down to 70% of its size. A column of entries taller than the
    // chart (many heads on a small panel) moves above the plot, where Qt Charts cuts rather than overflows.
    {
        const QFontMetricsF fm(m_legendFont);
        const Qt::Alignment wanted = m_series.size() > 3 ? Qt::AlignRight : Qt::AlignTop;
        const bool tall = double(m_series.size()) * fm.height() * 1.6 > m_chart->geometry().height() * 0.85;
        const Qt::Alignment at = wanted == Qt::AlignRight && tall ? Qt::AlignTop : wanted;
        if (m_chart->legend()->alignment() != at)
            m_chart->legend()->setAlignment(at);
        const bool beside = at == Qt::AlignRight;
        // One row above the plot: the heads' compact names ("m = 1/2", "h3") so that the slopes stay readable.
        for (std::size_t i = 0; i < m_series.size() && i < m_curves.size(); ++i) {
            const Curve& c = m_curves[i];
            const QString name = !beside && m_series.size() > 3 && !c.shortName.isEmpty() ? c.shortName : c.name;
            if (m_series[i]->name() != name)
                m_series[i]->setName(name);
        }
        double need = 0;
        for (QLineSeries* series : m_series) {
            const double w = textAdvance(m_legendFont, series->name()) + fm.height() * 2.5; // marker and spacing
            need = beside ? std::max(need, w) : need + w;
        }
        const double room = m_chart->geometry().width() * (beside ? 0.4 : 0.95);
        QFont f = m_legendFont;
        if (need > room && room > 0)
            f.setPointSizeF(m_legendFont.pointSizeF() * std::max(0.7, room / need));
        if (m_chart->legend()->font() != f)
            m_chart->legend()->setFont(f);
    }
    m_fitting = false;
}

void DecayView::recordChartText(QPainter& p, const QRectF& target) const
{
    // Qt Charts draws its own text (title, axis labels and titles, legend): hand each visible text item to
    // the collision check's record, as it was just drawn (the scene's (0, 0) lies at the target's corner).
    TextRecord* record = TextRecord::current();
    if (!record)
        return;
    const QRectF bounds = p.transform().mapRect(target);
    for (QGraphicsItem* item : m_chartView->scene()->items()) {
        const auto* t = dynamic_cast<QGraphicsTextItem*>(item);
        if (!t || !t->isVisible() || t->opacity() <= 0)
            continue;
        const QString text = t->toPlainText();
        if (text.trimmed().isEmpty())
            continue;
        const QString full = t == m_titleItem ? m_title : text; // the title may be cut to the chart's width
        // The lines as laid out, not the item's box (that adds margins and a line of spacing).
        QRectF local;
        for (QTextBlock b = t->document()->begin(); b.isValid(); b = b.next())
            if (const QTextLayout* l = b.layout())
                for (int i = 0; i < l->lineCount(); ++i)
                    local |= l->lineAt(i).naturalTextRect().translated(l->position());
        const QRectF scene = t->sceneTransform().mapRect(local).translated(target.topLeft());
        record->add({text, full, p.transform().mapRect(scene), bounds});
    }
    // The curves, as the curve item draws them (cut to the plot area), for the check that no line runs through a label.
    const QTransform toTarget = m_curveItem->sceneTransform() * QTransform::fromTranslate(target.left(), target.top());
    const QRectF plot = toTarget.mapRect(m_curveItem->boundingRect());
    const std::vector<CurveItem::Curve>& curves = m_curveItem->curves();
    for (std::size_t i = 0; i < curves.size(); ++i)
        recordLine(p, toTarget.map(m_curveItem->toPlot(curves[i])),
                   i < m_series.size() ? m_series[i]->name() : tr("curve %1").arg(i), plot);
}

} // namespace poslab::ui
