// SPDX-License-Identifier: MIT
#include "ui/views/view.h"

#include "core/encodings/irope.h"
#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/views/viewlist.h"

#include <QCoreApplication>

#include <QFontMetricsF>
#include <QPainter>
#include <QHelpEvent>
#include <QPaintEvent>
#include <QToolTip>

#include <cmath>
#include <optional>

namespace poslab::ui {

View::View(WorkbenchState* state, Computation* computation, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_computation(computation)
    , m_result(computation->result())
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    connect(computation, &Computation::resultReady, this, [this](std::shared_ptr<const EncodingResult> r) {
        m_result = std::move(r);
        resultChanged();
        refresh();
    });
    connect(state, &WorkbenchState::viewOptionsChanged, this, &View::refresh);
    connect(state, &WorkbenchState::schemeChanged, this, &View::refresh);
}

namespace {
const ViewEntry* entryOf(const QMetaObject* type)
{
    for (const ViewEntry& e : viewRegistry())
        if (e.type == type)
            return &e;
    return nullptr;
}
} // namespace

QString View::title() const
{
    const ViewEntry* e = entryOf(metaObject());
    return e ? QCoreApplication::translate("poslab::ui::View", e->title) : QString();
}

QString View::exportName() const
{
    const ViewEntry* e = entryOf(metaObject());
    return e ? QString::fromLatin1(e->id) : QString();
}

QString View::notApplicableReason() const
{
    return tr("%1 has nothing to show here; pick another view or scheme.").arg(shortSchemeName(m_state->scheme()));
}

namespace {

/// The rotary spec of the current set-up, or nothing when the scheme does not rotate or it cannot be built.
std::optional<core::RotarySpec> currentSpec(const WorkbenchState& state)
{
    return Computation::rotarySpec(state.setup());
}

} // namespace

QString View::noRotationReason() const
{
    const auto spec = currentSpec(*m_state);
    if (!spec || spec->rotaryDim > 0)
        return {};
    const core::ParamSet& params = m_state->params();
    if (!params.has("nope_layer_interval"))
        return tr("This set-up rotates no dimension (r = 0): queries and keys pass through unchanged, so there "
                  "is nothing to draw here. Raise the rotated fraction, or see the attention view.");
    // iRoPE (Llama 4): layer l is NoPE when (l + 1) % k == 0; what applies there is the query temperature.
    const int layer = int(params.integer("layer"));
    const int k = int(params.integer("nope_layer_interval"));
    QString applies;
    if (params.flag("attn_temperature_tuning")) {
        const double fs = params.real("floor_scale");
        const int p = m_state->cursor();
        const double s = core::llama4AttnScale(p, fs, params.real("attn_scale"));
        applies = tr("What applies: the query temperature, s = %1 at p = %2 (above 1 from p = %3).")
                      .arg(formatNumber(s, 6), formatNumber(p, 7), formatNumber(double(core::llama4FirstTemperedPosition(fs)), 7));
    } else {
        applies = tr("Temperature tuning is off: only the causal mask carries order here.");
    }
    QString pick;
    for (int l = 0; l < std::min(k, 8) && pick.count(QLatin1Char(',')) < 2; ++l)
        if (core::iropeUsesRope(l, k))
            pick += (pick.isEmpty() ? QString() : QStringLiteral(", ")) + QString::number(l);
    return tr("Layer %1 is a NoPE layer ((l + 1) mod %2 = 0): this layer has no rotation. %3 Pick a RoPE layer (%4) for "
              "rotations, or see the attention view.")
        .arg(layer)
        .arg(k)
        .arg(applies, pick.isEmpty() ? tr("(none: every layer is NoPE)") : pick);
}

QString View::noRotationSummary() const
{
    const auto spec = currentSpec(*m_state);
    if (!spec || spec->rotaryDim > 0)
        return {};
    const core::ParamSet& params = m_state->params();
    if (!params.has("nope_layer_interval"))
        return tr("no rotation (r = 0)");
    QString s = tr("layer %1: NoPE, no rotation").arg(params.integer("layer"));
    if (params.flag("attn_temperature_tuning"))
        s += tr(" \u00b7 query temperature s(%1) = %2")
                 .arg(m_state->cursor())
                 .arg(formatNumber(core::llama4AttnScale(m_state->cursor(), params.real("floor_scale"),
                                                         params.real("attn_scale")),
                                   6));
    return s;
}

bool View::hasContent() const
{
    return isApplicable() && !(m_result && !m_result->error.isEmpty())
        && !(needsRotation() && !noRotationReason().isEmpty());
}

double View::roomUnit(const QSizeF& size) const
{
    // The height of a line of the views' body text (10 pt times the font scale, grown with the figure as the
    // views grow it), so the rule follows what the views actually draw.
    return QFontMetricsF(theme().font(10 * sizeScale(QRectF(QPointF(0, 0), size)))).height();
}

bool View::hasRoom(const QSizeF& size) const
{
    return hasRoomAt(size, theme().fontScale);
}

bool View::hasRoomAt(const QSizeF& size, double fontScale) const
{
    // roomUnit()'s line of body text, at @p fontScale.
    const Theme t = Theme::of(m_state->viewOptions().theme, fontScale);
    const double em = QFontMetricsF(t.font(10 * sizeScale(QRectF(QPointF(0, 0), size)))).height();
    const QSizeF need = minimumRoom();
    return size.width() >= need.width() * em && size.height() >= need.height() * em;
}

QString View::tooSmallReason() const
{
    // Short: it has to fit the small panel it is shown in (the layout cuts the rest, with a tooltip on screen).
    if (!onScreen()) // an export: its size and font scale were chosen on the command line or in the dialog
        return tr("for text \u00d7%1: a larger size or a smaller font scale").arg(formatNumber(theme().fontScale, 2));
    return tr("for text \u00d7%1: \u2922 maximise, F9 panels, A\u2212").arg(formatNumber(theme().fontScale, 2));
}

void View::render(QPainter& painter, const QRectF& target)
{
    painter.save();
    painter.setClipRect(target);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    if (!isApplicable())
        drawNotApplicable(painter, target, theme(), tr("Not applicable to this scheme"), notApplicableReason());
    else if (m_result && !m_result->error.isEmpty())
        drawNotApplicable(painter, target, theme(), tr("Cannot compute"), m_result->error);
    else if (const QString why = needsRotation() ? noRotationReason() : QString(); !why.isEmpty())
        drawNotApplicable(painter, target, theme(), tr("This layer has no rotation"), why);
    else if (!hasRoom(target.size()))
        drawNotApplicable(painter, target, theme(), tr("Too small"), tooSmallReason());
    else
        renderContent(painter, target);
    painter.restore();
}

QImage View::renderImage(QSize size, qreal dpr)
{
    QImage img(size * dpr, QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(dpr);
    img.fill(theme().background);
    QPainter p(&img);
    render(p, QRectF(QPointF(0, 0), QSizeF(size)));
    return img;
}

void View::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    m_onScreen = true;
    TextRecord record;
    render(p, QRectF(rect()));
    m_onScreen = false;
    // Labels the layout had to cut keep their full text for a tooltip.
    m_elided.clear();
    for (const DrawnText& item : record.items())
        if (item.text != item.fullText)
            m_elided.push_back({item.rect, item.fullText});
}

bool View::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(e);
        for (const auto& [rect, text] : m_elided)
            if (rect.contains(help->pos())) {
                QToolTip::showText(help->globalPos(), text, this, rect.toAlignedRect());
                return true;
            }
        QToolTip::hideText();
    }
    return QWidget::event(e);
}

void View::refresh()
{
    ++m_refreshes;
    update();
    emit refreshed();
}

} // namespace poslab::ui
