// SPDX-License-Identifier: MIT
#include "ui/views/extensionview.h"

#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/state/workbenchstate.h"

#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QMouseEvent>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <functional>
#include <cmath>
#include <numbers>

namespace poslab::ui {
namespace {

/// A log10 axis from lo to hi (values > 0) onto the pixel range [bottom, top].
struct LogAxis {
    double lo = 0.0, hi = 1.0; // log10 of the ends
    double bottom = 0.0, top = 0.0;
    double y(double v) const { return bottom - (std::log10(v) - lo) / (hi - lo) * (bottom - top); }
};

/// Extends [lo, hi] (values > 0) to whole decades, at least one decade wide.
std::pair<double, double> decades(double lo, double hi)
{
    double a = std::floor(std::log10(lo)), b = std::ceil(std::log10(hi));
    if (b - a < 1.0)
        b = a + 1.0;
    return {a, b};
}

QColor withAlpha(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

QColor methodColour(const std::string& key, const Theme& th)
{
    if (key == "linear")
        return th.accent2;
    if (key == "ntk")
        return th.accent3;
    if (key == "dynamic")
        return th.kind == ThemeKind::Dark ? QColor(0xc0, 0x9c, 0xf0) : QColor(0x7a, 0x4f, 0xb0);
    if (key == "yarn")
        return th.cursor;
    if (key == "llama3")
        return th.accent;
    return th.foreground;
}

QColor bandColour(core::ExtensionBand b, const Theme& th)
{
    const int a = th.kind == ThemeKind::Dark ? 60 : 40;
    switch (b) {
    case core::ExtensionBand::Blended: return withAlpha(th.accent3, a);
    case core::ExtensionBand::Divided: return withAlpha(th.accent2, a);
    case core::ExtensionBand::Rescaled: return withAlpha(th.accent, a / 2);
    case core::ExtensionBand::Kept:
    case core::ExtensionBand::Unscaled: break;
    }
    return Qt::transparent;
}

/// One curve of the scale panel's legend.
struct ScaleEntry {
    QString name;
    QString shortName;
    QColor colour;
    double width;
    const core::ExtensionMethod* method; ///< null: the scheme's own scale
};

} // namespace

ExtensionView::ExtensionView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
{
    setMouseTracking(true);
    connect(state, &WorkbenchState::setupChanged, this, [this] {
        recompute();
        refresh();
    });
    // Refreshing is the base class's; the numbers follow the options first (the connection made first runs first).
    connect(state, &WorkbenchState::viewOptionsChanged, this, [this] { recompute(); });
    recompute();
}

bool ExtensionView::supports(const core::SchemeDescriptor& scheme) const
{
    return scheme.has(core::Quantity::Extension);
}

QString ExtensionView::notApplicableReason() const
{
    return tr("The extension lab shows what a rotary scheme's rope_type does to each pair's frequency; %1 does not "
              "rotate. Pick RoPE (rope_type llama3, yarn, linear, ntk, dynamic, longrope), xPos or iRoPE.")
        .arg(shortSchemeName(m_state->scheme()));
}

void ExtensionView::recompute()
{
    if (isApplicable())
        m_data = Computation::extensionData(m_state->setup(), m_state->viewOptions());
    else
        m_data = {};
}

double ExtensionView::lengthAtY(double y) const
{
    const double t = (m_wavePlot.bottom() - y) / std::max(1.0, m_wavePlot.height());
    return std::pow(10.0, m_logLo + t * (m_logHi - m_logLo));
}

int ExtensionView::pairAt(const QPointF& pos) const
{
    const int n = int(m_data.table.pairs.size());
    if (n == 0 || m_wavePlot.width() <= 0)
        return -1;
    if (!m_wavePlot.contains(pos) && !m_scalePlot.contains(pos))
        return -1;
    // Pair i is drawn at the middle of the i-th of n equal columns (xOf in renderContent).
    const int i = int(std::floor((pos.x() - m_wavePlot.left()) / m_wavePlot.width() * n));
    return std::clamp(i, 0, n - 1);
}

namespace {

/// The pair spin box: at "auto" (-1) a step up or down starts from the pair the view shows (lesson 11.1 steps
/// down from the highlighted pair), not from -1.
class PairSpinBox : public QSpinBox {
public:
    PairSpinBox(std::function<int()> shown, QWidget* parent) : QSpinBox(parent), m_shown(std::move(shown)) {}
    void stepBy(int steps) override
    {
        if (value() == minimum() && m_shown() >= 0) {
            setValue(std::clamp(m_shown() + steps, 0, maximum()));
            return;
        }
        QSpinBox::stepBy(steps);
    }

protected:
    StepEnabled stepEnabled() const override
    {
        if (value() == minimum() && m_shown() >= 0)
            return StepUpEnabled | StepDownEnabled;
        return QSpinBox::stepEnabled();
    }

private:
    std::function<int()> m_shown;
};

} // namespace

std::optional<QPointF> ExtensionView::pairCentre(int pair) const
{
    const int n = int(m_data.table.pairs.size());
    if (pair < 0 || pair >= n || m_wavePlot.width() <= 0)
        return std::nullopt;
    // Away from the L line, where the mouse grabs the line instead of a pair.
    double y = m_wavePlot.center().y();
    if (m_lengthY >= 0 && std::abs(y - m_lengthY) <= 12)
        y = m_lengthY > y ? m_wavePlot.top() + 0.2 * m_wavePlot.height() : m_wavePlot.bottom() - 0.2 * m_wavePlot.height();
    return QPointF(m_wavePlot.left() + (pair + 0.5) * m_wavePlot.width() / n, y);
}

QWidget* ExtensionView::controls()
{
    if (m_controls)
        return m_controls;
    m_controls = new QWidget(this);
    auto* lay = new QHBoxLayout(m_controls);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* pair = new PairSpinBox([this] { return m_data.table.pairs.empty() ? -1 : m_data.pair; }, m_controls);
    pair->setObjectName(QStringLiteral("extensionPair"));
    pair->setPrefix(tr("pair "));
    pair->setSpecialValueText(tr("pair: auto"));
    pair->setRange(-1, 4095);
    pair->setKeyboardTracking(false);
    pair->setToolTip(tr("The pair the circle shows (auto: the fastest pair that never completes a turn in training); "
                        "or click a pair in the plots"));
    auto* length = new QSpinBox(m_controls);
    length->setObjectName(QStringLiteral("extensionLength"));
    length->setPrefix(tr("L "));
    length->setSpecialValueText(tr("L: positions"));
    length->setRange(0, int(core::maxPosition));
    length->setGroupSeparatorShown(true);
    length->setKeyboardTracking(false);
    length->setToolTip(tr("Inference length L (target_length), typed; 0: the state's positions. Or drag the L line"));
    lay->addWidget(pair);
    lay->addWidget(length);
    auto sync = [this, pair, length] {
        QSignalBlocker b1(pair), b2(length);
        const int n = int(m_data.table.pairs.size());
        pair->setMaximum(std::max(0, n - 1));
        pair->setValue(m_state->viewOptions().extensionPair);
        length->setValue(int(m_state->viewOptions().targetLength));
        m_controls->setEnabled(isApplicable());
    };
    sync();
    connect(m_state, &WorkbenchState::viewOptionsChanged, m_controls, sync);
    connect(m_state, &WorkbenchState::setupChanged, m_controls, sync);
    connect(pair, &QSpinBox::valueChanged, this,
            [this](int v) { m_state->setProperty(QStringLiteral("extension_pair"), v); });
    connect(length, &QSpinBox::valueChanged, this,
            [this](int v) { m_state->setProperty(QStringLiteral("target_length"), v); });
    return m_controls;
}

void ExtensionView::mousePressEvent(QMouseEvent* e)
{
    if (m_lengthY >= 0 && std::abs(e->position().y() - m_lengthY) <= 6 && m_wavePlot.contains(e->position())) {
        m_dragging = true;
        m_frozenAxis = std::pair{m_logLo, m_logHi};
        setCursor(Qt::SizeVerCursor);
        return;
    }
    if (e->button() == Qt::LeftButton) {
        if (const int i = pairAt(e->position()); i >= 0) {
            m_state->setProperty(QStringLiteral("extension_pair"), i);
            return;
        }
    }
    View::mousePressEvent(e);
}

void ExtensionView::mouseMoveEvent(QMouseEvent* e)
{
    if (m_dragging) {
        const double y = std::clamp(e->position().y(), m_wavePlot.top(), m_wavePlot.bottom());
        const long long l = std::llround(lengthAtY(y));
        m_state->setProperty(QStringLiteral("target_length"), int(std::clamp<long long>(l, 1, (1ll << 31) - 1)), true);
        return;
    }
    const bool near = m_lengthY >= 0 && std::abs(e->position().y() - m_lengthY) <= 6 && m_wavePlot.contains(e->position());
    setCursor(near ? Qt::SizeVerCursor : Qt::ArrowCursor);
    const int hover = near ? -1 : pairAt(e->position());
    if (hover != m_hoverPair) {
        m_hoverPair = hover;
        update();
    }
    View::mouseMoveEvent(e);
}

void ExtensionView::mouseReleaseEvent(QMouseEvent* e)
{
    if (m_dragging) {
        m_dragging = false;
        m_frozenAxis.reset();
        update(); // the axis fits the new L again
    }
    setCursor(Qt::ArrowCursor);
    View::mouseReleaseEvent(e);
}

void ExtensionView::leaveEvent(QEvent* e)
{
    if (m_hoverPair >= 0) {
        m_hoverPair = -1;
        update();
    }
    View::leaveEvent(e);
}

std::vector<ValueRange> ExtensionView::dataAxisRanges() const
{
    const core::ExtensionTable& t = m_data.table;
    if (!m_data.error.isEmpty() || t.pairs.empty())
        return {};
    double lo = std::min(double(t.trainedLength), double(t.length)), hi = std::max(double(t.trainedLength), double(t.length));
    for (const core::ExtensionPair& q : t.pairs) {
        lo = std::min({lo, q.wavelengthOld, q.wavelengthNew});
        hi = std::max({hi, q.wavelengthOld, q.wavelengthNew});
    }
    double smax = 1.0, smin = 1.0;
    for (const core::ExtensionPair& q : t.pairs) {
        smax = std::max(smax, q.scale);
        smin = std::min(smin, q.scale);
    }
    if (m_state->viewOptions().extensionMethods == ExtensionMethods::All)
        for (const core::ExtensionMethod& m : t.methods)
            for (double v : m.scale) {
                smax = std::max(smax, v);
                smin = std::min(smin, v);
            }
    return {ValueRange{lo, hi}, ValueRange{smin, smax}};
}

void ExtensionView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    const double s = sizeScale(target);
    const double pad = 8 * s;
    TextLayout text(p, target);
    if (!m_data.error.isEmpty()) {
        drawNotApplicable(p, target, th, tr("Cannot compute"), m_data.error);
        return;
    }
    const core::ExtensionTable& t = m_data.table;
    const int n = int(t.pairs.size());
    if (n == 0)
        return;

    // --- header ---
    const QString lengths = tr("inference length L = %1").arg(formatNumber(double(t.length), 7));
    QStringList bandWords;
    for (core::ExtensionBand b : {core::ExtensionBand::Unscaled, core::ExtensionBand::Kept, core::ExtensionBand::Blended,
                                  core::ExtensionBand::Divided, core::ExtensionBand::Rescaled})
        if (const int c = t.count(b))
            bandWords << tr("%1 %2").arg(c).arg(QString::fromStdString(core::extensionBandName(t, b)));
    const QString bandsLine = bandWords.join(QStringLiteral(" \u00b7 "));
    // Tight (large text): the header keeps the title only (L is on its line and in the circle panel, the band
    // counts on the bands), the scale panel's title joins its legend and the pair axis keeps its ticks only.
    const bool tight = target.height() < 22 * QFontMetricsF(th.font(9.5 * s)).height();
    HeaderTexts header{m_state->figureLabel(), {}, {}};
    // The base in force where the method changes it (NTK-aware; dynamic NTK at this L). The factor of the
    // others is in the title already ("YaRN x4").
    // Predict, then see (WorkbenchState::answerPending): while a guess is due the header states the set-up only;
    // the pair counts and the base in force are results a step's prediction may ask for (11.1, 11.5, 12.3).
    const bool answerPending = m_state->answerPending();
    QString inForce;
    if (!answerPending && t.effectiveBase != t.theta && t.theta > 0)
        inForce = tr("base \u03b8' = %1 (\u03b8 = %2)").arg(formatNumber(t.effectiveBase, 6), formatNumber(t.theta, 6));
    const QString sep = QStringLiteral(" \u00b7 ");
    QStringList lengthWords{lengths, tr("L = %1").arg(formatNumber(double(t.length), 7))};
    if (!inForce.isEmpty())
        lengthWords = QStringList{lengths + sep + inForce, tr("L = %1").arg(formatNumber(double(t.length), 7)) + sep + inForce,
                                  lengthWords[0], lengthWords[1]};
    if (tight) {
        // L still in the header when it fits on the title's line.
        const double w = target.width() - 2 * pad;
        if (headerHeight(w, th, s, {header.title, {lengthWords.back()}, {}}) <= headerHeight(w, th, s, header))
            header.detail = {lengthWords.back()};
    } else if (answerPending) {
        header.detail = lengthWords;
    } else {
        header.detail = lengthWords;
        header.note = {tr("pairs: %1 \u00b7 %2 turn inside T").arg(bandsLine).arg(t.turning()), tr("pairs: %1").arg(bandsLine),
                       bandsLine};
    }
    const double headerBottom = drawHeader(
        text, QRectF(target.left() + pad, target.top() + pad * 0.5, target.width() - 2 * pad, 0), th, s, header);

    const QFont tickFont = th.font(9 * s);
    const QFont labelFont = th.font(9.5 * s);
    const QFont boldFont = th.font(10 * s, true);
    const QFontMetricsF tfm(tickFont), lfm(labelFont), bfm(boldFont);

    // --- layout: plots on the left, the circle panel on the right ---
    const QRectF area(target.left() + pad, headerBottom + pad * 0.5, target.width() - 2 * pad,
                      target.bottom() - pad - headerBottom - pad * 0.5);
    // Narrow: no circle panel; the chosen pair's numbers take one line under the plots.
    const bool narrow = area.width() < 24 * lfm.height();
    const double circleW = narrow ? 0.0 : std::min(std::max(area.width() * 0.3, 10 * lfm.height()), area.width() * 0.42);
    const QRectF plots(area.left(), area.top(), area.width() - (narrow ? 0.0 : circleW + pad),
                       area.height() - (narrow ? lfm.height() * 1.2 : 0.0));
    const QRectF circlePanel(plots.right() + pad, area.top(), circleW, area.height());

    // The scale panel's legend: every method at the scheme's theta, factor and window (or this scheme only), in
    // rows under the panel's title; short names when the full ones take more than two rows.
    const bool all = m_state->viewOptions().extensionMethods == ExtensionMethods::All;
    std::vector<double> schemeScale;
    for (const core::ExtensionPair& q : t.pairs)
        schemeScale.push_back(q.scale);
    std::vector<ScaleEntry> legend;
    bool schemeListed = false;
    if (all) {
        for (const core::ExtensionMethod& m : t.methods) {
            const bool mine = m.key == t.method;
            QString name = m.key == "dynamic" ? tr("dynamic NTK at L") : QString::fromStdString(m.label);
            QString shortName = m.key == "linear" ? tr("PI") : m.key == "ntk" ? tr("NTK") : m.key == "dynamic" ? tr("dyn. NTK") : name;
            if (mine) {
                name = tr("%1 (this scheme)").arg(name);
                shortName = tr("%1 (this)").arg(shortName);
            }
            legend.push_back({name, shortName, methodColour(m.key, th), mine ? 3.0 : 1.6, &m});
            schemeListed = schemeListed || mine;
        }
    }
    if (!schemeListed)
        legend.insert(legend.begin(), {tr("this scheme (%1)").arg(QString::fromStdString(t.method)), tr("this scheme"),
                                       th.foreground, 3.0, nullptr});
    const double swatch = 16 * s;
    const auto entryWidth = [&](const QString& name) { return swatch + 4 * s + lfm.horizontalAdvance(name) + 12 * s; };
    // The first row may start after an indent (the panel's title in tight mode); the others start at 0.
    const auto rowsFor = [&](double width, bool shortNames, double indent) {
        int rows = 1;
        double x = indent;
        for (const ScaleEntry& e : legend) {
            const double w = entryWidth(shortNames ? e.shortName : e.name);
            if (x > (rows == 1 ? indent : 0.0) && x + w > width) {
                ++rows;
                x = 0;
            }
            x += w;
        }
        return rows;
    };

    const double yLabelW = tfm.horizontalAdvance(QStringLiteral("1,000,000")) + 6 * s;
    const double titleH = lfm.height() * 1.15;
    const double xAxisH = tfm.height() * 1.3 + (tight ? 0.0 : lfm.height() * 1.2);
    const double gap = lfm.height() * 0.6;
    const double plotW = plots.width() - yLabelW;
    const QString scaleTitle = tr("scale \u03c9_old/\u03c9_new:");
    // Tight: the first legend row starts after a short title, when it leaves room for an entry.
    const double legendIndent
        = tight && bfm.horizontalAdvance(scaleTitle) + 8 * s < plotW * 0.4 ? bfm.horizontalAdvance(scaleTitle) + 8 * s : 0.0;
    const bool shortNames = rowsFor(plotW, false, legendIndent) > 2;
    const int legendRows = rowsFor(plotW, shortNames, legendIndent);
    const double legendH = legendRows * lfm.height();
    const double avail = plots.height() - (tight ? 1 : 2) * titleH - legendH - xAxisH - gap;
    const double waveH = avail * 0.56, scaleH = avail - waveH;
    const QRectF wave(plots.left() + yLabelW, plots.top() + titleH, plotW, waveH);
    const QRectF legendBox(wave.left(), wave.bottom() + gap + (tight ? 0.0 : titleH), plotW, legendH);
    const QRectF scaleR(wave.left(), legendBox.bottom(), wave.width(), scaleH);
    const auto xOf = [&](double i) { return wave.left() + (i + 0.5) / n * wave.width(); };

    // --- the wavelength axis covers both curves, T and L; side by side, B's too (sharedAxes) ---
    std::vector<ValueRange> extents = dataAxisRanges();
    if (sharedAxes().size() == extents.size())
        extents = sharedAxes();
    auto [wlo, whi] = decades(extents[0].lo, extents[0].hi);
    if (onScreen() && m_frozenAxis) // dragging L: the axis stays put under the mouse
        std::tie(wlo, whi) = *m_frozenAxis;
    const LogAxis wy{wlo, whi, wave.bottom(), wave.top()};
    const auto [slo, shi] = decades(extents[1].lo, extents[1].hi);
    const LogAxis sy{slo, shi, scaleR.bottom(), scaleR.top()};

    // --- panels, band shading and edges ---
    p.fillRect(wave, th.panel);
    p.fillRect(scaleR, th.panel);
    for (const core::ExtensionBandRun& b : t.bands) {
        const QColor c = bandColour(b.band, th);
        if (c.alpha() == 0)
            continue;
        const double x0 = xOf(b.first - 0.5), x1 = xOf(b.last + 0.5);
        p.fillRect(QRectF(x0, wave.top(), x1 - x0, wave.height()), c);
        p.fillRect(QRectF(x0, scaleR.top(), x1 - x0, scaleR.height()), c);
    }

    // Titles of the two panels (drawn first: the most important labels).
    text.draw(QRectF(wave.left(), plots.top(), wave.width(), titleH), Qt::AlignLeft | Qt::AlignVCenter, boldFont,
              th.foreground, {tr("wavelength 2\u03c0/\u03c9 per pair (tokens, log)"), tr("wavelength (tokens)"), tr("wavelength")});
    if (tight && legendIndent > 0)
        text.draw(QRectF(legendBox.left(), legendBox.top(), legendIndent, lfm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                  boldFont, th.foreground, {scaleTitle, tr("scale:")});
    else if (!tight)
        text.draw(QRectF(scaleR.left(), wave.bottom() + gap, scaleR.width(), titleH), Qt::AlignLeft | Qt::AlignVCenter,
                  boldFont, th.foreground,
                  {tr("scale \u03c9_old/\u03c9_new per pair (log): how much each pair is slowed"),
                   tr("scale \u03c9_old/\u03c9_new (log)"), tr("scale")});

    // Decade grid and tick labels.
    p.setPen(QPen(th.grid, 1));
    for (double e = wlo; e <= whi + 1e-9; e += 1.0) {
        const double y = wy.y(std::pow(10.0, e));
        p.drawLine(QPointF(wave.left(), y), QPointF(wave.right(), y));
        text.drawAt(QPointF(wave.left() - 4 * s, y), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
                    {formatNumber(std::pow(10.0, e), 7)});
    }
    const double sstep = shi - slo > 4 ? 2.0 : 1.0;
    for (double e = slo; e <= shi + 1e-9; e += sstep) {
        const double y = sy.y(std::pow(10.0, e));
        p.setPen(QPen(th.grid, 1));
        p.drawLine(QPointF(scaleR.left(), y), QPointF(scaleR.right(), y));
        text.drawAt(QPointF(scaleR.left() - 4 * s, y), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
                    {QStringLiteral("\u00d7%1").arg(formatNumber(std::pow(10.0, e), 7)), formatNumber(std::pow(10.0, e), 7)});
    }
    // Pair ticks along the bottom axis.
    const std::vector<double> xt = niceTicks(0, n - 1, std::max(2, int(wave.width() / (tfm.horizontalAdvance(QStringLiteral("0000")) * 1.6))));
    for (double v : xt) {
        if (v < 0 || v > n - 1 || v != std::floor(v))
            continue;
        const double x = xOf(v);
        p.setPen(QPen(th.muted, 1));
        p.drawLine(QPointF(x, scaleR.bottom()), QPointF(x, scaleR.bottom() + 3 * s));
        text.drawAt(QPointF(x, scaleR.bottom() + 3 * s), Qt::AlignHCenter | Qt::AlignTop, tickFont, th.muted,
                    {formatNumber(v, 5)});
    }
    if (!tight)
        text.draw(QRectF(scaleR.left(), scaleR.bottom() + tfm.height() * 1.3, scaleR.width(), lfm.height() * 1.2),
              Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.foreground,
              {tr("pair i (fast \u2192 slow), %1 pairs of r = %2").arg(n).arg(2 * n), tr("pair i (fast \u2192 slow)"), tr("pair i")});

    // Wavelength curves: before (default RoPE, same theta) and after (this scheme).
    // Every curve and marker line is kept clear of (TextLayout::keepClearOf): the labels placed after them over the
    // plots go where no line runs through them, or are left out.
    const auto polyline = [&](const LogAxis& ax, auto value, const QPen& pen, const QString& what) {
        QPainterPath path;
        QPolygonF line;
        for (int i = 0; i < n; ++i) {
            const QPointF pt(xOf(i), ax.y(value(i)));
            line << pt;
            if (i == 0)
                path.moveTo(pt);
            else
                path.lineTo(pt);
        }
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        text.keepClearOf(line, what);
    };
    polyline(wy, [&](int i) { return t.pairs[std::size_t(i)].wavelengthOld; }, QPen(th.muted, 1.6 * s, Qt::DashLine),
             tr("wavelength before"));
    polyline(wy, [&](int i) { return t.pairs[std::size_t(i)].wavelengthNew; }, QPen(th.accent, 2.2 * s),
             tr("wavelength after"));

    // Scale curves (the legend's entries, in its order).
    for (const ScaleEntry& e : legend) {
        const std::vector<double>& v = e.method ? e.method->scale : schemeScale;
        polyline(sy, [&](int i) { return v[std::size_t(i)]; }, QPen(e.colour, e.width * s), e.name);
    }

    // The chosen pair: a marker on both panels.
    const int pair = m_data.pair;
    const core::ExtensionPair& cp = t.pairs[std::size_t(pair)];
    p.setPen(QPen(th.cursor, 1.0 * s, Qt::DotLine));
    p.drawLine(QPointF(xOf(pair), wave.top()), QPointF(xOf(pair), wave.bottom()));
    p.drawLine(QPointF(xOf(pair), scaleR.top()), QPointF(xOf(pair), scaleR.bottom()));
    text.keepClearOf(QPointF(xOf(pair), wave.top()), QPointF(xOf(pair), wave.bottom()), tr("chosen pair"));
    text.keepClearOf(QPointF(xOf(pair), scaleR.top()), QPointF(xOf(pair), scaleR.bottom()), tr("chosen pair"));
    p.setPen(QPen(th.cursor, 1.5 * s));
    p.setBrush(th.background);
    p.drawEllipse(QPointF(xOf(pair), wy.y(cp.wavelengthNew)), 3.5 * s, 3.5 * s);

    // Labels, most important first: the legends, then the lines' labels, then the band names.
    struct Entry {
        QString name;
        QColor colour;
        double width;
    };
    const auto drawLegend = [&](const QRectF& box, const std::vector<Entry>& entries, bool dashedFirst, bool right) {
        const double sw = 18 * s;
        double wide = 0;
        for (const Entry& e : entries)
            wide = std::max(wide, lfm.horizontalAdvance(e.name));
        const double x0 = right ? box.right() - 6 * s - wide - 4 * s - sw : box.left() + 6 * s;
        double y = right ? box.bottom() - entries.size() * lfm.height() : box.top() + 3 * s;
        for (std::size_t k = 0; k < entries.size(); ++k) {
            const Entry& e = entries[k];
            const QRectF drawn = text.draw(QRectF(x0 + sw + 4 * s, y, wide + 2 * s, lfm.height()),
                                           Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground, {e.name},
                                           TextLayout::Fit::Drop);
            if (!drawn.isEmpty()) {
                p.setPen(QPen(e.colour, e.width * s, dashedFirst && k == 0 ? Qt::DashLine : Qt::SolidLine));
                p.drawLine(QPointF(x0, y + lfm.height() / 2), QPointF(x0 + sw, y + lfm.height() / 2));
            }
            y += lfm.height();
        }
    };
    // Bottom right of the wavelength panel (the curves rise to the right, so it is free) above the band names.
    // (Only where it stays clear of both curves: the curves' points and midpoints under its box.)
    const auto clearOfCurves = [&](const QRectF& box) {
        for (int i = 0; i < n; ++i)
            for (double f : {0.0, 0.5}) {
                if (i + f > n - 1)
                    continue;
                const double x = xOf(i + f);
                if (x < box.left() - 4 * s || x > box.right() + 4 * s)
                    continue;
                const core::ExtensionPair& a = t.pairs[std::size_t(i)];
                const core::ExtensionPair& b = t.pairs[std::size_t(std::min(n - 1, i + 1))];
                for (const auto& [u, v] : {std::pair{a.wavelengthOld, b.wavelengthOld}, std::pair{a.wavelengthNew, b.wavelengthNew}}) {
                    const double y = f == 0.0 ? wy.y(u) : (wy.y(u) + wy.y(v)) / 2;
                    if (y > box.top() - 2 * s && y < box.bottom() + 2 * s)
                        return false;
                }
            }
        return true;
    };
    {
        double x = legendBox.left() + legendIndent, y = legendBox.top();
        bool firstRow = true;
        for (const ScaleEntry& e : legend) {
            const QString name = shortNames ? e.shortName : e.name;
            const double w = std::min(entryWidth(name), legendBox.width());
            if (x > legendBox.left() + (firstRow ? legendIndent : 0.0) && x + w > legendBox.right()) {
                firstRow = false;
                x = legendBox.left();
                y += lfm.height();
            }
            const QRectF drawn = text.draw(QRectF(x + swatch + 4 * s, y, w - swatch - 4 * s, lfm.height()),
                                           Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground, {name},
                                           TextLayout::Fit::Elide);
            if (!drawn.isEmpty()) {
                p.setPen(QPen(e.colour, e.width * s));
                p.drawLine(QPointF(x, y + lfm.height() / 2), QPointF(x + swatch, y + lfm.height() / 2));
            }
            x += w;
        }
    }

    // Horizontal lines: the trained window T, the inference length L and the band edges (tokens).
    // All the lines first, then their labels: a label placed before the next line was drawn had that line run
    // through it ("trained window T = 4,096" under the band edge's dotted line).
    struct HLine {
        double v;
        QColor colour;
        Qt::PenStyle style;
        double width;
        QStringList words;
        bool preferAbove;
    };
    std::vector<HLine> hlines;
    const auto yOfLine = [&](double v) {
        if (!(v > 0))
            return -1.0;
        const double y = wy.y(v);
        return y < wave.top() - 0.5 || y > wave.bottom() + 0.5 ? -1.0 : y;
    };
    // A line's label, by this rule: its wordings longest first; for each, the places beside the line (above it
    // first for T and L, below first for the band edges, then the other side), each at the plot's left end, either
    // side of the chosen pair's marker, then the right end, inside the wavelength panel; the first place the layout
    // finds free of text, curves and lines takes it. With no free place for even the shortest wording ("T", "L", the number) it is left out.
    const auto placeLabel = [&](const HLine& h) {
        const double y = yOfLine(h.v);
        if (y < 0)
            return;
        // An em in from the plot's left edge: the layout keeps that gap to the axis's tick labels.
        const double inset = lfm.height();
        const double marker = xOf(pair);
        const struct {
            double x;
            Qt::Alignment align;
        } spots[] = {{wave.left() + inset, Qt::AlignLeft},
                     {marker - 4 * s, Qt::AlignRight},
                     {marker + 4 * s, Qt::AlignLeft},
                     {wave.right() - 3 * s, Qt::AlignRight}};
        for (const QString& w : h.words)
            for (bool above : {h.preferAbove, !h.preferAbove})
                for (const auto& spot : spots) {
                    // Inside the wavelength panel (the circle panel is beside it).
                    const double wide = lfm.horizontalAdvance(w);
                    const double x0 = spot.align & Qt::AlignRight ? spot.x - wide : spot.x;
                    if (x0 < wave.left() + 0.5 || x0 + wide > wave.right() + 0.5)
                        continue;
                    const QPointF anchor(spot.x, above ? y - 1 * s : y + 1 * s);
                    const Qt::Alignment a = spot.align | (above ? Qt::AlignBottom : Qt::AlignTop);
                    if (!text.drawAt(anchor, a, labelFont, h.colour, {w}).isEmpty())
                        return;
                }
    };
    const QString lengthWhere = m_data.lengthFromPositions ? tr("positions")
                                : m_data.lengthFromModel   ? tr("the model's context")
                                                           : tr("target_length");
    m_lengthY = -1.0;
    const QString lengthText = formatNumber(double(t.length), 7);
    hlines.push_back({double(t.length), th.cursor, Qt::SolidLine, 1.6,
                      {tr("inference length L = %1 (%2; drag)").arg(lengthText, lengthWhere),
                       tr("L = %1 (%2; drag)").arg(lengthText, lengthWhere), tr("L = %1 (drag)").arg(lengthText),
                       tr("L = %1").arg(lengthText), tr("L")},
                      true});
    const double lengthY = yOfLine(double(t.length));
    const QString trainedText = formatNumber(double(t.trainedLength), 7);
    // core says "given" for a window it was handed: here the preset's trained_length or the view's.
    const QString trainedSource = t.trainedSource != "given" ? QString::fromStdString(t.trainedSource)
        : m_data.trainedFromModel                            ? tr("the model's trained length")
                                                             : tr("trained_length");
    hlines.push_back({double(t.trainedLength), th.foreground, Qt::DashLine, 1.4,
                      {tr("trained window T = %1 (%2)").arg(trainedText, trainedSource),
                       tr("trained window T = %1").arg(trainedText), tr("trained T = %1").arg(trainedText),
                       tr("T = %1").arg(trainedText), tr("T")},
                      true});
    if (t.method == "llama3" || t.method == "yarn") {
        const bool yarn = t.method == "yarn";
        const struct {
            double v;
            QString name;
        } edges[] = {{t.edgeShort, yarn ? tr("T/\u03b2_fast") : tr("T/high_freq_factor")}, // T: the trained window's line
                     {t.edgeLong, yarn ? tr("T/\u03b2_slow") : tr("T/low_freq_factor")}};
        for (const auto& e : edges) {
            if (e.v == double(t.trainedLength))
                continue; // the trained window's line is this edge
            // Four significant digits: a wavelength in tokens, not a value to copy.
            const QString v = formatNumber(e.v, 4);
            hlines.push_back({e.v, th.muted, Qt::DotLine, 1.2,
                              {tr("band edge %1 = %2 tokens").arg(e.name, v), tr("edge %1 = %2").arg(e.name, v),
                               tr("edge %1").arg(v), v},
                              false});
        }
    }
    for (const HLine& h : hlines) {
        const double y = yOfLine(h.v);
        if (y < 0)
            continue;
        p.setPen(QPen(h.colour, h.width * s, h.style));
        p.drawLine(QPointF(wave.left(), y), QPointF(wave.right(), y));
        text.keepClearOf(QPointF(wave.left(), y), QPointF(wave.right(), y), h.words.back());
    }
    for (const HLine& h : hlines)
        placeLabel(h);

    // Band names at the bottom of the wavelength panel, inside their band, with their edges in tokens.
    for (const core::ExtensionBandRun& b : t.bands) {
        const double x0 = xOf(b.first - 0.5), x1 = xOf(b.last + 0.5);
        const QString name = QString::fromStdString(core::extensionBandName(t, b.band));
        QStringList words;
        if (answerPending) // the band's name only: its edge in pairs answers 12.1
            ;
        else if (t.method == "llama3" && b.band == core::ExtensionBand::Kept)
            words << tr("%1: \u03bb < %2").arg(name, formatNumber(t.edgeShort, 7));
        else if (t.method == "llama3" && b.band == core::ExtensionBand::Divided)
            words << tr("%1: \u03bb > %2").arg(name, formatNumber(t.edgeLong, 7));
        else if (t.method == "yarn" && b.band == core::ExtensionBand::Kept)
            words << tr("%1: pairs \u2264 %2").arg(name, formatNumber(t.correctionLow, 4));
        else if (t.method == "yarn" && b.band == core::ExtensionBand::Divided)
            words << tr("%1: pairs \u2265 %2").arg(name, formatNumber(t.correctionHigh, 4));
        words << name;
        text.draw(QRectF(x0, wave.bottom() - lfm.height() * 1.15, x1 - x0, lfm.height()), Qt::AlignHCenter | Qt::AlignVCenter,
                  labelFont, th.foreground, words, TextLayout::Fit::Drop);
    }

    const std::vector<Entry> waveEntries{{tr("before: default RoPE, same \u03b8"), th.muted, 1.6},
                                         {tr("after: this scheme"), th.accent, 2.2}};
    double legendW = 0;
    for (const Entry& e : waveEntries)
        legendW = std::max(legendW, lfm.horizontalAdvance(e.name) + 30 * s);
    // Bottom right (above the band names), else top left; each only where it is clear of the curves and the labels.
    const QRectF waveLegendArea(wave.left(), wave.top(), wave.width(), wave.height() - lfm.height() * 1.3);
    const QRectF corners[] = {
        QRectF(waveLegendArea.right() - legendW, waveLegendArea.bottom() - 2 * lfm.height(), legendW, 2 * lfm.height()),
        QRectF(waveLegendArea.left(), waveLegendArea.top() + 3 * s, legendW, 2 * lfm.height())};
    bool waveLegendDrawn = false;
    for (int k = 0; k < 2 && !waveLegendDrawn; ++k)
        if (wave.height() >= 5.5 * lfm.height() && clearOfCurves(corners[k]) && text.isFree(corners[k])) {
            drawLegend(waveLegendArea, waveEntries, true, k == 0);
            waveLegendDrawn = true;
        }
    if (!waveLegendDrawn) {
        // In the title's row, right-aligned, short: "-- before  — after".
        double x = wave.right();
        const struct {
            QString name;
            QColor colour;
            double width;
            Qt::PenStyle style;
        } shortEntries[] = {{tr("after"), th.accent, 2.2, Qt::SolidLine}, {tr("before"), th.muted, 1.6, Qt::DashLine}};
        for (const auto& e : shortEntries) {
            const double w = lfm.horizontalAdvance(e.name);
            const QRectF r = text.draw(QRectF(x - w, plots.top(), w, titleH), Qt::AlignRight | Qt::AlignVCenter, labelFont,
                                       th.foreground, {e.name}, TextLayout::Fit::Drop);
            if (r.isEmpty())
                break;
            p.setPen(QPen(e.colour, e.width * s, e.style));
            p.drawLine(QPointF(r.left() - 4 * s - 16 * s, plots.top() + titleH / 2), QPointF(r.left() - 4 * s, plots.top() + titleH / 2));
            x = r.left() - 4 * s - 16 * s - lfm.height() * 0.6;
        }
    }

    if (narrow) {
        // No room for the circle: its numbers in one line under the plots.
        const core::ExtensionPair& q = t.pairs[std::size_t(m_data.pair)];
        text.draw(QRectF(plots.left(), plots.bottom() + 2 * s, plots.width(), lfm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                  labelFont, th.foreground,
                  {tr("pair %1: %2 turn in training, %3 at L, new %4 of the circle")
                       .arg(m_data.pair)
                       .arg(formatNumber(q.turnsTrained, 3), formatNumber(q.turnsNow, 3), formatNumber(q.newFraction, 3)),
                   tr("pair %1: new %2 of the circle").arg(m_data.pair).arg(formatNumber(q.newFraction, 3)),
                   tr("pair %1: new %2").arg(m_data.pair).arg(formatNumber(q.newFraction, 3))});
    } else {
        // --- circle panel: the arcs of the chosen pair ---
        double cy = circlePanel.top();
        const QString pairTitle = m_data.pairError.isEmpty()
            ? tr("pair %1%2").arg(pair).arg(m_data.automaticPair ? tr(" (automatic)") : QString())
            : tr("pair %1 (automatic)").arg(pair);
        text.draw(QRectF(circlePanel.left(), cy, circlePanel.width(), titleH), Qt::AlignLeft | Qt::AlignVCenter, boldFont,
                  th.foreground, {tr("angles met, %1").arg(pairTitle), pairTitle, tr("pair %1").arg(pair)});
        cy += titleH;
        if (!m_data.pairError.isEmpty()) {
            const QRectF r = text.drawWrapped(QRectF(circlePanel.left(), cy, circlePanel.width(), lfm.height() * 3),
                                              Qt::AlignLeft | Qt::AlignTop, labelFont, th.cursor, m_data.pairError);
            cy += r.height() + 2 * s;
        }
        const QString lamText = tr("wavelength %1 \u2192 %2").arg(formatTokens(cp.wavelengthOld), formatTokens(cp.wavelengthNew));
        text.draw(QRectF(circlePanel.left(), cy, circlePanel.width(), lfm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                  labelFont, th.muted, {lamText, tr("\u03bb %1 \u2192 %2").arg(formatNumber(cp.wavelengthOld, 4), formatNumber(cp.wavelengthNew, 4))});
        cy += lfm.height() * 1.2;
        const int lines = 5;
        const double textBlock = lines * lfm.height() * 1.1;
        const double diameter = std::max(0.0, std::min(circlePanel.width() - 4 * s, circlePanel.bottom() - cy - textBlock - 4 * s));
        const QRectF circle(circlePanel.left() + (circlePanel.width() - diameter) / 2, cy + 2 * s, diameter, diameter);
        if (diameter > 8 * s) {
            const double ring = std::max(3.0, 0.07 * diameter);
            const QRectF arcBox = circle.adjusted(ring, ring, -ring, -ring);
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(th.grid, ring, Qt::SolidLine, Qt::FlatCap));
            p.drawEllipse(arcBox);
            // Qt's angles: 1/16 degree, counter-clockwise from 3 o'clock; the hand starts at 12 and turns clockwise.
            const auto arc = [&](const QRectF& box, double from, double to, const QColor& c, double w) {
                if (!(to > from))
                    return;
                p.setPen(QPen(c, w, Qt::SolidLine, Qt::FlatCap));
                const int start = int(std::lround((90.0 - from * 180.0 / std::numbers::pi) * 16.0));
                const int span = -int(std::lround((to - from) * 180.0 / std::numbers::pi * 16.0));
                p.drawArc(box, start, span);
            };
            // Outer ring: the arc met in training; inner ring: the arc met at L, its new part (past the outer
            // ring's end) drawn wider.
            const QRectF inner = arcBox.adjusted(1.6 * ring, 1.6 * ring, -1.6 * ring, -1.6 * ring);
            arc(arcBox, 0.0, cp.arcTrained, th.accent, ring);
            arc(inner, 0.0, cp.arcNow, th.cursor, ring * 0.6);
            arc(inner, cp.arcTrained, cp.arcNow, th.cursor, ring * 1.2);
            p.setPen(QPen(th.muted, 1.0 * s));
            p.drawLine(QPointF(arcBox.center().x(), arcBox.top() - ring), QPointF(arcBox.center().x(), arcBox.top() + ring));
            text.drawAt(QPointF(arcBox.center().x() + 3 * s, arcBox.top() - ring), Qt::AlignLeft | Qt::AlignBottom, tickFont,
                        th.muted, {tr("angle 0")});
            cy = circle.bottom() + 4 * s;
        }
        const auto turns = [this](double v) {
            return v >= 1.0 ? tr("%1 turns").arg(formatNumber(v, 3)) : tr("%1 of a turn").arg(formatNumber(v, 3));
        };
        const QStringList lineTexts[] = {
            {tr("training, p < %1: %2").arg(formatNumber(double(t.trainedLength), 7), turns(cp.turnsTrained)),
             tr("trained: %1").arg(turns(cp.turnsTrained)), tr("trained %1 turn").arg(formatNumber(cp.turnsTrained, 3))},
            {tr("at L, p < %1: %2").arg(formatNumber(double(t.length), 7), turns(cp.turnsNow)), tr("at L: %1").arg(turns(cp.turnsNow)),
             tr("at L %1 turn").arg(formatNumber(cp.turnsNow, 3))},
            {cp.completesTurn() ? tr("turns inside the trained window: every angle seen")
                                : tr("never turns inside the trained window"),
             cp.completesTurn() ? tr("turns in training") : tr("never turns in training")},
            {tr("new at L: %1 of the circle").arg(formatNumber(cp.newFraction, 3)),
             tr("new: %1 of the circle").arg(formatNumber(cp.newFraction, 3)), tr("new %1").arg(formatNumber(cp.newFraction, 3))},
            {tr("attention factor %1").arg(formatNumber(t.attentionFactor, 5))},
        };
        const QColor lineColours[] = {th.accent, th.cursor, th.foreground, th.foreground, th.muted};
        for (int k = 0; k < lines; ++k) {
            if (k == 4 && answerPending) // the attention factor answers 12.2
                break;
            text.draw(QRectF(circlePanel.left(), cy, circlePanel.width(), lfm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                      k == 3 ? th.font(9.5 * s, true) : labelFont, lineColours[k], lineTexts[k]);
            cy += lfm.height() * 1.1;
        }
    }

    if (showsHints() && m_hoverPair >= 0 && m_hoverPair < n) {
        // The hovered pair's numbers in a tag at the top of the wavelength panel, over the plot (on screen only).
        const core::ExtensionPair& q = t.pairs[std::size_t(m_hoverPair)];
        const QString band = QString::fromStdString(core::extensionBandName(t, q.band));
        const QStringList lines = withholdsReadoutValues() ? QStringList{withheldReadout(tr("pair %1").arg(m_hoverPair))} : QStringList{
            tr("pair %1: wavelength %2 \u2192 %3").arg(m_hoverPair).arg(formatTokens(q.wavelengthOld), formatTokens(q.wavelengthNew)),
            tr("slowed \u00d7%1 (%2)").arg(formatNumber(q.scale, 4), band),
            tr("%1 turns in training, %2 at L; new: %3 of the circle")
                .arg(formatNumber(q.turnsTrained, 3), formatNumber(q.turnsNow, 3), formatNumber(q.newFraction, 3))};
        double w = 0;
        for (const QString& l : lines)
            w = std::max(w, lfm.horizontalAdvance(l));
        w = std::min(w + 8 * s, wave.width());
        const double h = lines.size() * lfm.height() + 6 * s;
        const double x = std::clamp(xOf(m_hoverPair) - w / 2, wave.left(), wave.right() - w);
        const QRectF tag(x, wave.top() + 2 * s, w, h);
        p.setPen(QPen(th.cursor, 1.0 * s));
        p.setBrush(withAlpha(th.background, 235));
        p.drawRoundedRect(tag, 3 * s, 3 * s);
        p.setPen(QPen(th.cursor, 1.0 * s, Qt::DotLine));
        p.drawLine(QPointF(xOf(m_hoverPair), tag.bottom()), QPointF(xOf(m_hoverPair), scaleR.bottom()));
        // Drawn over the figure, outside the layout: a hover tag may cover labels while the mouse is there.
        p.setPen(th.foreground);
        p.setFont(labelFont);
        for (int k = 0; k < lines.size(); ++k)
            p.drawText(QRectF(tag.left() + 4 * s, tag.top() + 3 * s + k * lfm.height(), tag.width() - 8 * s, lfm.height()),
                       Qt::AlignLeft | Qt::AlignVCenter, lines[k]);
    }

    if (onScreen()) {
        m_wavePlot = wave;
        m_scalePlot = scaleR;
        m_logLo = wlo;
        m_logHi = whi;
        m_lengthY = lengthY;
    }
}

} // namespace poslab::ui
