// SPDX-License-Identifier: MIT
#include "ui/views/extensionview.h"

#include "ui/views/extensionpainter.h"

#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/state/workbenchstate.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QMouseEvent>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <optional>
#include <tuple>

namespace poslab::ui {

ExtensionView::ExtensionView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
    , m_figure(computation, [this](bool later) {
        if (later)
            refresh();
    })
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
    m_applicable = isApplicable();
    if (m_applicable)
        m_figure.update(FigureSnapshot::of(*m_state));
}

const ExtensionData& ExtensionView::data() const
{
    static const ExtensionData none;
    return m_applicable ? m_figure.data() : none;
}

double ExtensionView::lengthAtY(double y) const
{
    const double t = (m_wavePlot.bottom() - y) / std::max(1.0, m_wavePlot.height());
    return std::pow(10.0, m_logLo + t * (m_logHi - m_logLo));
}

int ExtensionView::pairAt(const QPointF& pos) const
{
    const int n = int(data().table.pairs.size());
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
    PairSpinBox(std::function<int()> shown, QWidget* parent)
        : QSpinBox(parent)
        , m_shown(std::move(shown))
    { }
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
    const int n = int(data().table.pairs.size());
    if (pair < 0 || pair >= n || m_wavePlot.width() <= 0)
        return std::nullopt;
    // Away from the L line, where the mouse grabs the line instead of a pair.
    double y = m_wavePlot.center().y();
    if (m_lengthY >= 0 && std::abs(y - m_lengthY) <= 12)
        y = m_lengthY > y ? m_wavePlot.top() + 0.2 * m_wavePlot.height()
                          : m_wavePlot.bottom() - 0.2 * m_wavePlot.height();
    return QPointF(m_wavePlot.left() + (pair + 0.5) * m_wavePlot.width() / n, y);
}

QWidget* ExtensionView::controls()
{
    if (m_controls)
        return m_controls;
    m_controls = new QWidget(this);
    auto* lay = new QHBoxLayout(m_controls);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* pair = new PairSpinBox([this] { return data().table.pairs.empty() ? -1 : data().pair; }, m_controls);
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
        const int n = int(data().table.pairs.size());
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
    const bool near
        = m_lengthY >= 0 && std::abs(e->position().y() - m_lengthY) <= 6 && m_wavePlot.contains(e->position());
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
    const core::ExtensionTable& t = data().table;
    if (!data().error.isEmpty() || t.pairs.empty())
        return {};
    double lo = std::min(double(t.trainedLength), double(t.length)),
           hi = std::max(double(t.trainedLength), double(t.length));
    for (const core::ExtensionPair& q : t.pairs) {
        lo = std::min({lo, q.wavelengthOld, q.wavelengthNew});
        hi = std::max({hi, q.wavelengthOld, q.wavelengthNew});
    }
    double smax = 1.0, smin = 1.0;
    for (const core::ExtensionPair& q : t.pairs) {
        smax = std::max(smax, q.scale);
        smin = std::min(smin, q.scale);
    }
    if (data().allMethods)
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
    TextLayout text(p, target);
    const ExtensionData& d = data();
    if (!d.error.isEmpty()) {
        drawNotApplicable(p, target, th, tr("Cannot compute"), d.error);
        return;
    }
    if (d.table.pairs.empty())
        return;
    ExtensionPainter::Context ctx;
    ctx.figureLabel = m_state->figureLabel();
    ctx.answerPending = m_state->answerPending();
    ctx.showsHints = showsHints();
    ctx.hoverPair = m_hoverPair;
    if (m_hoverPair >= 0 && withholdsReadoutValues())
        ctx.withheldHover = withheldReadout(tr("pair %1").arg(m_hoverPair));
    ctx.axisRanges = dataAxisRanges();
    if (sharedAxes().size() == ctx.axisRanges.size())
        ctx.axisRanges = sharedAxes();
    if (onScreen()) // dragging L: the axis stays put under the mouse
        ctx.frozenAxis = m_frozenAxis;
    m_lengthY = -1.0;
    ExtensionPainter paint(p, text, target, th, d, std::move(ctx));
    paint.draw();
    if (onScreen()) {
        m_wavePlot = paint.wave;
        m_scalePlot = paint.scaleR;
        m_logLo = paint.wlo;
        m_logHi = paint.whi;
        m_lengthY = paint.lengthY;
    }
}

} // namespace poslab::ui
