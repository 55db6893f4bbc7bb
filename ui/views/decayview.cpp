// SPDX-License-Identifier: MIT
#include "ui/views/decayview.h"

#include "core/attention.h"
#include "core/encodingregistry.h"
#include "core/encodings/alibi.h"
#include "core/rotary.h"
#include "core/trigtable.h"
#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
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
#include <QPainter>
#include <QTimer>
#include <QPaintEvent>
#include <QToolButton>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <complex>

namespace poslab::ui {
namespace {

/// Sampled distances 0..maxK, at most about 400 of them (close to the chart's plot width at
/// the default size; Qt Charts costs about a microsecond per point per frame, and strokes the path again
/// whenever the axis range changes).
std::vector<core::Position> distances(core::Position maxK)
{
    std::vector<core::Position> ks;
    const core::Position stride = std::max<core::Position>(1, (maxK + 1 + 399) / 400);
    for (core::Position k = 0; k <= maxK; k += stride)
        ks.push_back(k);
    if (ks.back() != maxK)
        ks.push_back(maxK);
    return ks;
}

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
    };
    for (const auto& [from, to] : shorter)
        if (title == QLatin1String(from))
            return QString::fromLatin1(to);
    return title;
}

} // namespace

std::vector<core::Position> DecayView::distances(core::Position maxK) const
{
    if (!m_everyDistance)
        return poslab::ui::distances(maxK); // the chart's ~400 samples (the free function above)
    std::vector<core::Position> ks(std::size_t(maxK) + 1);
    for (core::Position k = 0; k <= maxK; ++k)
        ks[std::size_t(k)] = k;
    return ks;
}

std::vector<DecayView::Curve> DecayView::exactCurves()
{
    m_everyDistance = true;
    recompute();
    std::vector<Curve> exact = m_curves;
    m_everyDistance = false;
    recompute();
    return exact;
}

DecayView::DecayView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
{
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
    m_x = new QValueAxis(m_chart);
    // The y axis labels its ticks itself (categories placed on the values), in the figures' number format:
    // Qt Charts' own labels print the accumulated 0.2 + 0.2 + ... at zero as "-0.00".
    auto* yAxis = new QCategoryAxis(m_chart);
    yAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_y = yAxis;
    m_xTitle = tr("distance k (tokens)");
    m_x->setTitleText(m_xTitle);
    // Tick labels are never cut to "...": fitAxisLabels() spaces the ticks so that whole labels fit.
    m_x->setTruncateLabels(false);
    m_y->setTruncateLabels(false);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    m_chartView = new QChartView(m_chart, this);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    lay->addWidget(m_chartView, 1);
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
    connect(m_chart, &QChart::plotAreaChanged, this, [this] {
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
    // Score-bias schemes count only with a content-free bias (ALiBi, T5, Kerple, FIRE, Sandwich): CoPE's and
    // DeBERTa's position terms depend on the content, so no single curve against distance exists.
    return scheme.rotary != nullptr || (scheme.encoding != nullptr && scheme.relation != core::Relation::None)
        || scheme.bias != nullptr;
}

QString DecayView::notApplicableReason() const
{
    if (m_state->scheme().relation == core::Relation::None)
        return tr("NoPE adds nothing to the embedding and rotates nothing: every distance looks the same.");
    const auto& s = m_state->scheme();
    if (s.score)
        return tr("%1 mixes position with the content of each query and key, so there is no single curve "
                  "against distance: see the attention view.")
            .arg(QString::fromStdString(s.name));
    return tr("%1 has no dot-product or decay curve.").arg(QString::fromStdString(s.name));
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
    if (!m_result || !m_result->error.isEmpty() || !isApplicable()) {
        rebuildSeries();
        return;
    }
    const Setup& su = m_result->setup;
    const core::SchemeDescriptor* s = core::findScheme(su.scheme);
    if (!s)
        return;
    const QString who = QString::fromStdString(su.scheme);
    if (!s->rotary && !s->encoding) {
        // Score-bias schemes (ALiBi, T5, Kerple, FIRE, Sandwich): the engine's bias of each head.
        try {
            core::DecayRequest req;
            req.scheme = su.scheme;
            req.params = su.params;
            req.headDim = su.dim;
            req.heads = std::max(1, m_state->viewOptions().heads);
            req.distances = distances(std::max(1, std::min(su.positionCount - 1, 4096)));
            const auto series = core::decayCurves(req);
            // ALiBi's legend names each head's slope, the one number that sets its line.
            const std::vector<double> slopes =
                su.scheme == "alibi" ? core::alibiSlopes(req.heads) : std::vector<double>{};
            int shown = 0;
            for (const auto& c : series) {
                if (shown >= 8)
                    break;
                QString name = QString::fromStdString(c.label);
                if (std::size_t(shown) < slopes.size())
                    name += QStringLiteral(" (m = %1)").arg(slopeText(slopes[std::size_t(shown)]));
                ++shown;
                Curve curve{name, {}};
                for (std::size_t i = 0; i < c.values.size() && i < req.distances.size(); ++i)
                    curve.points.append(QPointF(double(req.distances[i]), c.values[i]));
                m_curves.push_back(std::move(curve));
            }
            m_yTitle = tr("bias added to the logit (nats)");
        } catch (const std::exception& e) {
            m_curves.clear();
        }
    } else if (s->rotary && m_result->rotary) {
        core::RotarySpec qs = m_result->spec, ks = m_result->spec;
        if (su.params.has("side")) {
            core::TableContext ctx;
            ctx.dim = su.dim;
            ctx.positions = core::PositionList::range(0, std::max(1, su.positionCount));
            ctx.seqLen = su.positionCount;
            core::ParamSet qp = su.params, kp = su.params;
            qp.set("side", core::ParamValue::word("query"));
            kp.set("side", core::ParamValue::word("key"));
            qs = s->rotary(qp, ctx);
            ks = s->rotary(kp, ctx);
        }
        const auto ds = distances(std::max(1, su.positionCount - 1));
        // q = k = (1, ..., 1); the key stays at 0 and the query moves to k (only k matters). Pair i then
        // contributes af^2 * 2 cos(k theta_i) times xPos's zeta_i^(k/scale_base) (query scale at k, key at 0);
        // dimensions beyond r pass through and add d - r. The same cos and sin feed RoFormer's bound.
        Curve score{tr("%1: score q\u00b7k, q = k = 1").arg(who), {}};
        // The paper's Fig. 2 quantity: it bounds |sum_j h_j e^(i k theta_j)| up to max|h_(j+1) - h_j| (Abel
        // summation), not the q = k = 1 score itself, so the legend calls it the relative upper bound.
        Curve bound{tr("RoFormer relative upper bound (1/(r/2)) \u03a3\u2c7c |S\u2c7c| (paper Fig. 2)"), {}};
        double s0 = 0, b0 = 0;
        const int half = qs.rotaryDim / 2;
        const double af2 = qs.attentionFactor * ks.attentionFactor;
        const bool xpos = !qs.xposZeta.empty();
        std::vector<double> keyScale(std::size_t(half), 1.0);
        if (xpos)
            for (int j = 0; j < half; ++j)
                keyScale[std::size_t(j)] = core::xposScale(ks, j, 0);
        for (std::size_t idx = 0; idx < ds.size(); ++idx) {
            const core::Position k = ds[idx];
            double dot = double(su.dim - qs.rotaryDim);
            std::complex<double> S = 0;
            double sumAbs = 0;
            for (int j = 0; j < half; ++j) {
                const double a = core::wrapAngle(k, qs.invFreq[std::size_t(j)]);
                const double c = std::cos(a), sn = std::sin(a);
                dot += af2 * 2.0 * c * (xpos ? core::xposScale(qs, j, k) * keyScale[std::size_t(j)] : 1.0);
                S += std::complex<double>(c, sn);
                sumAbs += std::sqrt(std::norm(S)); // std::abs calls hypot: several times slower
            }
            const double b = half > 0 ? sumAbs / half : 0.0;
            if (idx == 0) {
                s0 = dot != 0 ? dot : 1.0;
                b0 = b != 0 ? b : 1.0;
            }
            score.points.append(QPointF(double(k), dot / s0));
            bound.points.append(QPointF(double(k), b / b0));
        }
        m_curves.push_back(std::move(score));
        m_curves.push_back(std::move(bound));
        m_yTitle = tr("relative to distance 0");
    } else if (s->frequencies && !m_result->frequencies.empty()) {
        // PE(p).PE(p+k) = sum_i [sin(p w) sin((p+k) w) + cos(p w) cos((p+k) w)] = sum_i cos(k w_i), any p.
        const auto ds = distances(std::max(1, su.positionCount - 1));
        Curve dot{tr("%1: PE(p)\u00b7PE(p+k) = \u03a3\u1d62 cos(k\u03c9\u1d62)").arg(who), {}};
        for (core::Position k : ds) {
            double sum = 0;
            for (double w : m_result->frequencies)
                sum += std::cos(core::wrapAngle(k, w));
            dot.points.append(QPointF(double(k), sum));
        }
        m_curves.push_back(std::move(dot));
        m_yTitle = tr("dot product");
    } else if (s->encoding && m_result->table.rows() > 0) {
        // Rows p and p + k straight from core: the table on display may be sampled (every k-th position).
        const core::Position rows = std::max(1, su.positionCount);
        const core::Position p = std::min<core::Position>(m_state->cursor(), rows - 1);
        const auto ds = distances(std::max<core::Position>(1, rows - 1 - p));
        std::vector<core::Position> wanted{p};
        for (core::Position k : ds)
            if (p + k < rows)
                wanted.push_back(p + k);
        Curve dot{tr("%1: E(p)\u00b7E(p+k) at p = %2").arg(who).arg(p), {}};
        try {
            core::TableContext ctx;
            ctx.dim = su.dim;
            ctx.positions = core::PositionList::list(wanted);
            ctx.seqLen = su.positionCount;
            const core::MatrixF e = s->encoding(su.params, ctx);
            for (Eigen::Index r = 1; r < e.rows(); ++r)
                dot.points.append(QPointF(double(wanted[std::size_t(r)] - p),
                                          double(e.row(0).cast<double>().dot(e.row(r).cast<double>()))));
        } catch (const std::exception&) {
            dot.points.clear();
        }
        m_curves.push_back(std::move(dot));
        m_yTitle = tr("dot product");
    }
    rebuildSeries();
}

void DecayView::pin()
{
    if (m_curves.empty())
        return;
    Curve c = m_curves.front();
    c.name = tr("pinned: %1").arg(c.name);
    m_pins.push_back(std::move(c));
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
        connect(s, &QLineSeries::hovered, this, [this, s](const QPointF& pt, bool on) {
            if (!on)
                return;
            // Snap to the nearest sampled point of the hovered series.
            const auto pts = s->points();
            auto it = std::min_element(pts.begin(), pts.end(), [&](const QPointF& a, const QPointF& b) {
                return std::abs(a.x() - pt.x()) < std::abs(b.x() - pt.x());
            });
            if (it != pts.end())
                m_readout->setText(tr("%1:  k = %2,  value %3").arg(s->name()).arg(it->x()).arg(QString::number(it->y(), 'g', 6)));
        });
        m_series.push_back(s);
    }
    const Theme th = theme();
    // Okabe-Ito colours after the theme's three: distinguishable with colour-vision deficiency.
    const QColor colors[] = {th.accent, th.accent3, th.accent2, QColor(0xcc, 0x79, 0xa7), QColor(0xe6, 0x9f, 0x00),
                             QColor(0x56, 0xb4, 0xe9), QColor(0xf0, 0xe4, 0x42), QColor(0x99, 0x99, 0x99),
                             QColor(0x00, 0x00, 0x00), QColor(0xd5, 0x5e, 0x00), QColor(0x00, 0x72, 0xb2),
                             QColor(0x88, 0x88, 0x88)};
    double lo = 0, hi = 1, maxX = 1;
    bool first = true;
    auto extend = [&](const Curve& c) {
        for (const QPointF& p : c.points) {
            if (first) {
                lo = hi = p.y();
                first = false;
            }
            lo = std::min(lo, p.y());
            hi = std::max(hi, p.y());
            maxX = std::max(maxX, p.x());
        }
    };
    for (const auto& c : m_curves)
        extend(c);
    for (const auto& c : m_pins)
        extend(c);
    // Axes first, and only when they change: each range change re-strokes every series.
    const auto yt = niceTicks(lo, hi, 5);
    const double ystep = yt.size() >= 2 ? yt[1] - yt[0] : 1.0;
    const double ylo = std::floor(lo / ystep - 1e-9) * ystep, yhi = std::ceil(hi / ystep + 1e-9) * ystep;
    m_yBase = ylo; // fitAxisLabels() may lower the axis below this for the corner, never raise it
    m_yTopBase = yhi > ylo ? yhi : ylo + 1.0; // and raise the top above this for the top label
    if (m_y->min() != ylo || m_y->max() != yhi) {
        m_y->setRange(ylo, yhi > ylo ? yhi : ylo + 1.0);
        m_y->setTickType(QValueAxis::TicksDynamic);
        m_y->setTickAnchor(0);
        m_y->setTickInterval(ystep);
    }
    if (m_x->max() != maxX || m_x->min() != 0) {
        m_x->setRange(0, maxX);
        const auto xt = niceTicks(0, maxX, 6);
        if (xt.size() >= 2) {
            m_x->setTickType(QValueAxis::TicksDynamic);
            m_x->setTickAnchor(0);
            m_x->setTickInterval(xt[1] - xt[0]);
        }
        m_x->setLabelFormat(QStringLiteral("%.0f"));
    }
    std::size_t idx = 0;
    auto fill = [&](const Curve& c, bool pinned) {
        QLineSeries* s = m_series[idx];
        if (s->name() != c.name)
            s->setName(c.name);
        QPen pen(colors[idx % 12], pinned ? 2.0 : 2.6);
        if (pinned)
            pen.setStyle(Qt::DashLine);
        if (s->pen() != pen)
            s->setPen(pen);
        s->replace(c.points);
        ++idx;
    };
    for (const auto& c : m_curves)
        fill(c, false);
    for (const auto& c : m_pins)
        fill(c, true);
    // Many curves (one per head) would share one row of legend and be cut to "head 0 (..."; a column on
    // the right gives each its full label.
    const Qt::Alignment legendAt = want > 3 ? Qt::AlignRight : Qt::AlignTop;
    if (m_chart->legend()->alignment() != legendAt)
        m_chart->legend()->setAlignment(legendAt);
    m_y->setTitleText(m_yTitle);
    fitAxisLabels();
    m_chart->setTitle(m_curves.empty() ? QString()
                                       : tr("%1 \u00b7 d = %2").arg(variantLabel(m_state->scheme(), m_state->params()))
                                             .arg(m_state->dim()));
}

void DecayView::applyTheme()
{
    const Theme th = theme();
    const double s = th.fontScale;
    m_chart->setTheme(th.kind == ThemeKind::Dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setBackgroundBrush(th.background);
    m_chart->setPlotAreaBackgroundBrush(th.panel);
    m_chart->setPlotAreaBackgroundVisible(true);
    m_chart->setTitleBrush(th.foreground);
    m_chart->legend()->setLabelColor(th.foreground);
    for (QValueAxis* a : {m_x, m_y}) {
        a->setLabelsColor(th.foreground);
        a->setTitleBrush(th.muted);
        a->setGridLineColor(th.grid);
        a->setLinePenColor(th.muted);
    }
    (void)s;
    applyFonts(1.0);
    rebuildSeries(); // the theme resets series pens
}

void DecayView::applyFonts(double sizeFactor)
{
    // The other views grow their text with the figure (sizeScale); the chart does the same, so a 1920 px
    // slide export is as readable as the 600 px panel.
    const Theme th = theme();
    auto scaled = [&](double pt, bool bold = false) {
        QFont f = th.font(pt, bold);
        f.setPointSizeF(f.pointSizeF() * sizeFactor);
        return f;
    };
    m_chart->setTitleFont(scaled(11, true));
    m_legendFont = scaled(10);
    m_chart->legend()->setFont(m_legendFont);
    for (QValueAxis* a : {m_x, m_y}) {
        a->setLabelsFont(scaled(10));
        a->setTitleFont(scaled(10));
    }
}

void DecayView::paintEvent(QPaintEvent* e)
{
    const bool ok = isApplicable() && m_result && m_result->error.isEmpty();
    m_chartView->setVisible(ok);
    m_readout->setVisible(ok);
    if (!ok) {
        View::paintEvent(e);
        return;
    }
    QPainter p(this);
    p.fillRect(rect(), theme().background);
}

void DecayView::render(QPainter& painter, const QRectF& target)
{
    const bool ok = isApplicable() && m_result && m_result->error.isEmpty();
    if (ok) {
        m_chartView->setVisible(true);
        m_readout->setVisible(true);
    }
    View::render(painter, target);
}

void DecayView::renderContent(QPainter& p, const QRectF& target)
{
    // Lay the chart out at the target size, draw its scene, and put it back: fonts and ticks then suit the
    // target (a 3000 px export gets a proper layout, not a blown-up 500 px one).
    const QRectF old = m_chart->geometry();
    const double factor = sizeScale(target);
    if (factor != 1.0)
        applyFonts(factor);
    m_chart->setGeometry(QRectF(QPointF(0, 0), target.size()));
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
    m_chartView->scene()->render(&p, target, QRectF(QPointF(0, 0), target.size()));
    recordChartText(p, target);
    m_chart->setGeometry(old);
    if (factor != 1.0)
        applyFonts(1.0);
}

void DecayView::fitAxisLabels()
{
    if (m_fitting)
        return;
    const QRectF plot = m_chart->plotArea();
    if (plot.width() < 10 || plot.height() < 10 || !(m_x->max() > m_x->min()) || !(m_y->max() > m_y->min()))
        return;
    m_fitting = true;
    // x: no more ticks than their labels fit side by side with a gap (Qt Charts would cut them to "10...").
    if (m_x->tickType() == QValueAxis::TicksDynamic) {
        const QFontMetricsF fm(m_x->labelsFont());
        const double widest = std::max(fm.horizontalAdvance(QString::number(m_x->max(), 'f', 0)),
                                       fm.horizontalAdvance(QString::number(m_x->min(), 'f', 0)))
            + fm.height();
        const int target = std::clamp(int(plot.width() / widest), 1, 6);
        const auto t = niceTicks(m_x->min(), m_x->max(), target);
        const double interval = t.size() >= 2 ? t[1] - t[0] : m_x->max() - m_x->min();
        if (interval != m_x->tickInterval())
            m_x->setTickInterval(interval);
    }
    if (m_y->tickType() == QValueAxis::TicksDynamic) {
        const QFontMetricsF fm(m_y->labelsFont());
        // y: at least two label heights between ticks.
        double top = std::isfinite(m_yTopBase) ? m_yTopBase : m_y->max();
        double lo = std::isfinite(m_yBase) && m_yBase < top ? m_yBase : m_y->min();
        const int target = std::clamp(int(plot.height() / (fm.height() * 2)), 1, 5);
        const auto t = niceTicks(lo, top, target);
        double interval = t.size() >= 2 ? t[1] - t[0] : top - lo;
        // A small plot may still put two labels closer than a line apart: widen the step until they clear.
        for (int k = 0; k < 8 && interval / (top - lo) * plot.height() < fm.height() * 1.3; ++k)
            interval *= 2;
        if (interval != m_y->tickInterval())
            m_y->setTickInterval(interval);
        // The lowest y label is centred on its tick; at the bottom corner it would run into the x axis's first
        // label. Lower the axis just enough that the lowest tick sits half a label height (and a gap) above it.
        const double anchor = m_y->tickAnchor();
        const double first = anchor + std::ceil((lo - anchor) / interval - 1e-9) * interval;
        const double a = (fm.height() / 2 + 2) / plot.height();
        // Likewise the top label, centred on the highest tick, stays below the plot's top edge (the legend and
        // title sit above it).
        const double last = anchor + std::floor((top - anchor) / interval + 1e-9) * interval;
        if ((top - last) / (top - lo) < a && a < 0.5)
            top = (last - a * lo) / (1 - a);
        if ((first - lo) / (top - lo) < a && a < 0.5)
            lo = (first - a * top) / (1 - a);
        if (lo != m_y->min() || top != m_y->max())
            m_y->setRange(lo, top);
        if (auto* labels = qobject_cast<QCategoryAxis*>(m_y)) {
            // Tick values as exact multiples of the step (zero is 0, never -1e-17), with enough digits that
            // neighbours differ.
            std::vector<double> at;
            for (long long k = (long long)std::ceil((lo - anchor) / interval - 1e-9);; ++k) {
                double v = anchor + double(k) * interval;
                if (v > top + interval * 1e-9 || at.size() > 64)
                    break;
                if (std::abs(v) < interval * 1e-9)
                    v = 0.0;
                // On a plot too low to pad, a label that would stick out past the top or bottom edge is left out.
                const double room = fm.height() / 2 + 2;
                if ((top - v) / (top - lo) * plot.height() < room - 0.01 || (v - lo) / (top - lo) * plot.height() < room - 0.01)
                    continue;
                at.push_back(v);
            }
            const double biggest = std::max(std::abs(lo), std::abs(top));
            const int digits = std::clamp(int(std::floor(std::log10(biggest)) - std::floor(std::log10(interval))) + 1, 1, 7);
            QStringList text;
            for (double v : at)
                text << formatNumber(v, digits);
            if (text != labels->categoriesLabels() || labels->startValue() != lo) {
                for (const QString& old : labels->categoriesLabels())
                    labels->remove(old);
                labels->setStartValue(lo);
                for (std::size_t i = 0; i < at.size(); ++i)
                    labels->append(text[qsizetype(i)], at[i]);
            }
        }
    }
    // The y title: the long wording if it fits the plot's height, else the short one (Qt Charts would cut it),
    // else none; the x title only while the plot keeps four lines of height for itself and the title fits its width.
    {
        const QFontMetricsF fm(m_y->titleFont());
        const QString shorter = shortYTitle(m_yTitle);
        const QString title = fm.horizontalAdvance(m_yTitle) <= plot.height() ? m_yTitle
                              : fm.horizontalAdvance(shorter) <= plot.height() ? shorter
                                                                              : QString();
        if (m_y->titleText() != title)
            m_y->setTitleText(title);
        const QString xTitle = plot.height() >= fm.height() * 4 && QFontMetricsF(m_x->titleFont()).horizontalAdvance(m_xTitle) <= plot.width()
            ? m_xTitle
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
        double need = 0;
        for (QLineSeries* series : m_series) {
            const double w = fm.horizontalAdvance(series->name()) + fm.height() * 2.5; // marker and spacing
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
        // The lines as laid out, not the item's box (that adds margins and a line of spacing).
        QRectF local;
        for (QTextBlock b = t->document()->begin(); b.isValid(); b = b.next())
            if (const QTextLayout* l = b.layout())
                for (int i = 0; i < l->lineCount(); ++i)
                    local |= l->lineAt(i).naturalTextRect().translated(l->position());
        const QRectF scene = t->sceneTransform().mapRect(local).translated(target.topLeft());
        record->add({text, text, p.transform().mapRect(scene), bounds});
    }
}

} // namespace poslab::ui
