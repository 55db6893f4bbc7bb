// SPDX-License-Identifier: MIT
// The decay chart's words: tick labels, axis titles, the legend, the title and the caption fitted to the room the
// chart has, the hover read-out, and the record of the text as drawn for the collision check (the rest of
// DecayView: decayview.cpp).
#include "ui/views/decayview.h"

#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/views/curveitem.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QPainter>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>

#include <algorithm>
#include <cmath>

namespace poslab::ui {
namespace {

/// Whether Qt Charts cut @p text to fit (it ends a cut label with "...").
bool cutByCharts(const QString& text)
{
    return text.endsWith(QStringLiteral("...")) || text.endsWith(QChar(0x2026));
}

/// Whether a visible text item under @p root (itself included) satisfies @p pred. The items unsorted, walked from
/// @p root (QGraphicsScene::items() sorts the whole scene: a third of a millisecond).
template <class Pred> bool anyVisibleText(QGraphicsItem* root, Pred pred)
{
    std::vector<QGraphicsItem*> todo{root};
    while (!todo.empty()) {
        QGraphicsItem* item = todo.back();
        todo.pop_back();
        const QList<QGraphicsItem*> children = item->childItems();
        todo.insert(todo.end(), children.begin(), children.end());
        if (item->type() == QGraphicsTextItem::Type && item->isVisible()
            && pred(static_cast<const QGraphicsTextItem*>(item)))
            return true;
    }
    return false;
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

/// Ticks for a value axis over @p data that fit @p plot: at most five, at least two label heights apart, the end
/// labels clear of the plot's corners.
void fitValueTicks(QCategoryAxis* axis, std::pair<double, double> data, const QRectF& plot, bool sized)
{
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
}

} // namespace

void DecayView::fitAxisLabels(bool wholeTitles)
{
    if (m_fitting)
        return;
    m_fitting = true;
    // Tick counts follow the plot area: x labels side by side with a gap (Qt Charts would cut them to
    // "1,..."), y labels at least two label heights apart. Before the chart has a plot area, a default count.
    const QRectF plot = m_chart->plotArea();
    const bool sized = plot.width() >= 10 && plot.height() >= 10;
    fitDistanceTicks(plot, sized);
    // Side by side on the same quantity: A's and B's halves on the union of their ranges (sharedAxes()).
    const std::vector<ValueRange>& shared = sharedAxes();
    const bool right = hasRightAxis();
    const bool share = shared.size() == (right ? 2u : 1u);
    fitValueTicks(m_y, share ? std::pair{shared[0].lo, shared[0].hi} : m_yData, plot, sized);
    if (right)
        fitValueTicks(m_y2, share ? std::pair{shared[1].lo, shared[1].hi} : m_y2Data, plot, sized);
    fitAxisTitles(plot, wholeTitles);
    fitLegend();
    m_fitting = false;
}

void DecayView::fitDistanceTicks(const QRectF& plot, bool sized)
{
    const QLocale en(QLocale::English);
    const QFontMetricsF fm(m_x->labelsFont());
    const double widest = textAdvance(m_x->labelsFont(), en.toString(qint64(std::llround(m_maxX)))) + fm.height();
    const int target = sized ? std::clamp(int(plot.width() / widest), 1, 6) : 6;
    std::vector<std::pair<double, QString>> xt;
    double xhi = m_maxX;
    if (m_plot.logDistance) {
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
                || plot.left() + t.first / xhi * plot.width() + textAdvance(m_x->labelsFont(), t.second) / 2
                    <= plot.right() + 2)
                kept.push_back(t);
        xt = std::move(kept);
    }
    if (m_x->min() != 0 || m_x->max() != xhi || m_x->categoriesLabels().size() != qsizetype(xt.size())
        || m_x->categoriesLabels().value(1) != (xt.size() > 1 ? xt[1].second : QString()))
        setTicks(m_x, 0, xhi, xt);
}

void DecayView::fitAxisTitles(const QRectF& plot, bool wholeTitles)
{
    // The y title: the long wording if it fits the plot's height, else the short one (Qt Charts would cut it),
    // else none; the x title only while the plot keeps four lines of height for itself and the title fits its width.
    // Qt Charts squeezes the axes of a narrow chart and then cuts their titles to "...", which says nothing: a
    // y title so cut is left out at that chart width and below, and the plot takes its room.
    if (yTitleCut())
        m_noYTitlesUpTo = std::max(m_noYTitlesUpTo, m_chart->size().width());
    const double room = m_chart->size().width() > m_noYTitlesUpTo ? plot.height() : -1.0;
    const QFontMetricsF fm(m_y->titleFont());
    const QString shorter = shortYTitle(m_yTitle);
    const QString title = textAdvance(m_y->titleFont(), m_yTitle) <= room ? m_yTitle
        : textAdvance(m_y->titleFont(), shorter) <= room                  ? shorter
                                                                          : QString();
    if (m_y->titleText() != title)
        m_y->setTitleText(title);
    const QString title2 = textAdvance(m_y->titleFont(), m_plot.y2Title) <= room ? m_plot.y2Title
        : textAdvance(m_y->titleFont(), shortYTitle(m_plot.y2Title)) <= room     ? shortYTitle(m_plot.y2Title)
                                                                                 : QString();
    if (m_y2->titleText() != title2)
        m_y2->setTitleText(title2);
    // The x title: whole or not at all (Qt Charts cuts it to "..." under the tick labels on a narrow plot, a
    // little before the text alone reaches the plot's width: its text item has margins).
    const QString xShort = m_plot.logDistance ? tr("k (log)") : tr("k (tokens)");
    // Hysteresis: a title now left out returns only when the plot keeps three lines after giving it one and
    // a half, so the two layouts do not alternate.
    const double needH = fm.height() * (m_x->titleText().isEmpty() && !wholeTitles ? 5.5 : 4);
    const QString xTitle = plot.height() < needH                                ? QString()
        : textAdvance(m_y->titleFont(), m_xTitle) + fm.height() <= plot.width() ? m_xTitle
        : textAdvance(m_y->titleFont(), xShort) + fm.height() <= plot.width()   ? xShort
                                                                                : QString();
    if (m_x->titleText() != xTitle)
        m_x->setTitleText(xTitle);
}

void DecayView::fitLegend()
{
    // Qt Charts gives a legend beside the plot at most 40% of the chart's width, and one above it the width
    // of the chart in one row, and cuts longer labels ("head 3 (m = 0.06..."): make the legend's font just
    // small enough that every label fits whole, down to 70% of its size. A column of entries taller than the
    // chart (many heads on a small panel) moves above the plot, where Qt Charts cuts rather than overflows.
    const QFontMetricsF fm(m_legendFont);
    const Qt::Alignment wanted = m_series.size() > 3 ? Qt::AlignRight : Qt::AlignTop;
    const bool tall = double(m_series.size()) * fm.height() * 1.6 > m_chart->geometry().height() * 0.85;
    const Qt::Alignment at = wanted == Qt::AlignRight && tall ? Qt::AlignTop : wanted;
    if (m_chart->legend()->alignment() != at)
        m_chart->legend()->setAlignment(at);
    const bool beside = at == Qt::AlignRight;
    const double room = m_chart->geometry().width() * (beside ? 0.4 : 0.95);
    // The names in the room: the full ones when they fit at 70% of the legend's size, else each curve's short
    // name where it has one ("rope: q·k ÷ q·k at 0"); one row above the plot of many heads takes the compact
    // names ("m = 1/2", "h3") so that the slopes stay readable.
    const auto nameOf = [&](std::size_t i, bool shortNames) {
        const Curve& c = m_plot.curves[i];
        return shortNames && !c.shortName.isEmpty() ? c.shortName : c.name;
    };
    const auto needFor = [&](bool shortNames, std::size_t entries) {
        double need = 0;
        for (std::size_t i = 0; i < entries && i < m_series.size() && i < m_plot.curves.size(); ++i) {
            const double w = textAdvance(m_legendFont, nameOf(i, shortNames)) + fm.height() * 2.5; // marker, spacing
            need = beside ? std::max(need, w) : need + w;
        }
        return need;
    };
    const bool shortNames = (!beside && m_series.size() > 3) || needFor(false, m_series.size()) * 0.7 > room;
    for (std::size_t i = 0; i < m_series.size() && i < m_plot.curves.size(); ++i)
        if (m_series[i]->name() != nameOf(i, shortNames))
            m_series[i]->setName(nameOf(i, shortNames));
    // Every entry shown to start with; settleChartLayout() drops from the end any that Qt Charts still cuts.
    const double need = needFor(shortNames, m_series.size());
    for (QLineSeries* series : m_series)
        for (QLegendMarker* marker : m_chart->legend()->markers(series))
            if (!marker->isVisible())
                marker->setVisible(true);
    QFont f = m_legendFont;
    if (need > room && room > 0)
        f.setPointSizeF(m_legendFont.pointSizeF() * std::max(0.7, room / need));
    if (m_chart->legend()->font() != f)
        m_chart->legend()->setFont(f);
}

bool DecayView::legendCut() const
{
    return anyVisibleText(m_chart->legend(), [](const QGraphicsTextItem* t) { return cutByCharts(t->toPlainText()); });
}

void DecayView::dropCutLegendEntries()
{
    // An entry Qt Charts still had to cut, at 70% of the legend's size and with the short names: the legend keeps
    // the first entries that fit whole and drops the others, down to none (the caption names every curve, the
    // left axis's title the score, the right one RoPE's bound), never an entry shown cut.
    for (std::size_t shown = m_series.size(); shown > 0 && legendCut(); --shown) {
        for (QLegendMarker* marker : m_chart->legend()->markers(m_series[shown - 1]))
            marker->setVisible(false);
        if (m_chart->legend()->layout())
            m_chart->legend()->layout()->activate();
        m_chart->layout()->activate();
    }
}

bool DecayView::yTitleCut() const
{
    // The y axes' titles stand left and right of the plot; tick labels are never cut (setTruncateLabels(false)).
    const QRectF plot = m_chart->plotArea();
    if (plot.isEmpty() || (m_y->titleText().isEmpty() && m_y2->titleText().isEmpty()))
        return false;
    // A title cut to nothing but "..." beside the plot.
    return anyVisibleText(m_chart, [&](const QGraphicsTextItem* t) {
        const QString text = t->toPlainText();
        if (t == m_titleItem || (text != QLatin1String("...") && text != QStringLiteral("\u2026")))
            return false;
        const QRectF r = t->mapRectToItem(m_chart, t->boundingRect());
        return r.right() <= plot.left() + 1 || r.left() >= plot.right() - 1;
    });
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
    m_titleItem->setPos(std::round(area.left() + (area.width() - textAdvance(m_titleItem->font(), shown)) / 2),
                        top + 4);
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
    const QString shown = sentencesThatFit(m_plot.caption, m_captionLabel->font(), width, lines);
    if (m_captionLabel->text() != shown)
        m_captionLabel->setText(shown);
    m_captionLabel->setToolTip(shown == m_plot.caption ? QString() : m_plot.caption);
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
        // The title may be cut to the chart's width; a legend entry Qt Charts cut ("RoFormer bound (dotted,
        // righ...") is recorded with its series' whole name, so that the layout check sees the cut.
        QString full = t == m_titleItem ? m_title : text;
        const bool cut = cutByCharts(text);
        const QString kept = text.endsWith(QChar(0x2026)) ? text.chopped(1) : text.chopped(3);
        for (const QLineSeries* series : m_series)
            if (cut && series->name() != text && series->name().startsWith(kept.trimmed()))
                full = series->name();
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
    if (m_hoverSeries >= 0 && m_hoverSeries < int(m_plot.curves.size())) {
        c = &m_plot.curves[std::size_t(m_hoverSeries)];
        name = c->name;
    } else if (m_hoverSeries >= int(m_plot.curves.size())
               && m_hoverSeries < int(m_plot.curves.size() + m_pins.size())) {
        c = &m_pins[std::size_t(m_hoverSeries) - m_plot.curves.size()].curve;
        name = pinNames().value(m_hoverSeries - int(m_plot.curves.size()));
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
    m_readout->setText(who
                       + tr("%1:  k = %2 tokens,  value %3")
                             .arg(name, QLocale(QLocale::English).toString(qint64(std::llround(it->x()))),
                                  readoutValue(QString::number(it->y(), 'g', 6))));
}

} // namespace poslab::ui
