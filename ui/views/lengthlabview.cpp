// SPDX-License-Identifier: MIT
#include "ui/views/lengthlabview.h"

#include "core/encodingregistry.h"
#include "core/train/model.h"
#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/views/trainpanel.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <QMouseEvent>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace poslab::ui {

namespace {

constexpr std::size_t paletteSize = 11;

/// Okabe and Ito's colour-blind-safe palette, then four more.
QColor paletteColour(std::size_t i, const Theme& th)
{
    static const QColor light[paletteSize]
        = {QColor(0, 114, 178),   QColor(213, 94, 0),   QColor(0, 158, 115),   QColor(204, 121, 167),
           QColor(230, 159, 0),   QColor(86, 180, 233), QColor(120, 120, 120), QColor(140, 86, 75),
           QColor(148, 103, 189), QColor(188, 189, 34), QColor(23, 190, 207)};
    QColor c = light[i % paletteSize];
    if (th.kind == ThemeKind::Dark)
        c = c.lighter(125);
    return c;
}

/// Each group's colour and line style: the colour is its scheme's (lengthLabColourIndex), so a scheme keeps its
/// colour whatever the order of the runs; a second group of the same scheme (other --set words) is dashed.
struct Look {
    QColor colour;
    Qt::PenStyle style = Qt::SolidLine;
};
std::vector<Look> groupLooks(const core::train::LengthCurves& c, const Theme& th)
{
    static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine};
    std::vector<Look> out;
    std::map<std::string, int> seen;
    for (const auto& g : c.groups) {
        const int k = lengthLabColourIndex(g.scheme);
        const int again = seen[g.scheme]++;
        out.push_back(
            {paletteColour(std::size_t(k), th), styles[(std::size_t(k) / paletteSize + std::size_t(again)) % 3]});
    }
    return out;
}

/// One sentence on the task: what the model reads and what it must write.
QString taskSentence(const std::string& task)
{
    if (task == "copy")
        return QObject::tr("Copy: read L random symbols and a separator, then write the same L symbols.");
    if (task == "reverse")
        return QObject::tr("Reverse: read L random symbols and a separator, then write them last to first.");
    if (task == "recall")
        return QObject::tr("Recall: read L key-value pairs, a separator and a key, then give the value that last "
                           "followed that key.");
    if (task == "addition")
        return QObject::tr("Addition: read two L-digit numbers, least significant digit first, then write the L + 1 "
                           "digits of their sum.");
    return QObject::tr("The runs are of different tasks.");
}

QString schemeTitle(const std::string& id)
{
    const core::SchemeDescriptor* s = core::findScheme(id);
    return s ? shortSchemeName(*s) : QString::fromStdString(id);
}

/// One paint of the length lab's accuracy figure (LengthLabView::renderContent): the fonts, the legend column and
/// the plot's geometry, worked out once, and the parts drawn in turn. The drawn points (means, and the crosses of
/// missing position rows) go to @c points for the hover read-out.
struct LengthLabPaint {
    Q_DECLARE_TR_FUNCTIONS(poslab::ui::LengthLabView)

public:
    LengthLabPaint(QPainter& painter, TextLayout& layout, const QRectF& figure, const Theme& theme,
                   const LengthLabData& data, const std::vector<Look>& groupLooks, double scale,
                   std::vector<LengthLabView::Point>& drawn)
        : p(painter)
        , text(layout)
        , fig(figure)
        , th(theme)
        , d(data)
        , c(data.curves)
        , looks(groupLooks)
        , s(scale)
        , pad(8 * scale)
        , points(drawn)
        , tickFont(theme.font(9.5 * scale))
        , labelFont(theme.font(10 * scale))
        , legendFont(theme.font(10 * scale, true))
        , tfm(tickFont)
        , lfm(labelFont)
        , gfm(legendFont)
        , loss(data.curves.metric == core::train::LengthMetric::Loss)
        , exactShown(data.curves.metric == core::train::LengthMetric::ExactMatch)
    { }

    /// The whole figure; false (nothing drawn past the heading and the legend's fit) when the plot has no room.
    bool draw();

    QPainter& p;
    TextLayout& text;
    const QRectF fig; ///< the accuracy figure's part of the target
    const Theme th;
    const LengthLabData& d;
    const core::train::LengthCurves& c;
    const std::vector<Look>& looks;
    const double s, pad;
    std::vector<LengthLabView::Point>& points;
    const QFont tickFont, labelFont;
    QFont legendFont;
    const QFontMetricsF tfm, lfm;
    QFontMetricsF gfm;
    const bool loss, exactShown;

private:
    /// One legend entry per scheme (and setting).
    struct Entry {
        QString label;
        QColor colour;
        Qt::PenStyle style;
    };
    std::vector<Entry> entries;
    bool anyNoRows = false;
    double legendBottom = 0, legendW = 0;
    double yMax = 1.0, xMin = 0.0, xMax = 1.0;
    std::vector<double> yTicks;
    QRectF area; ///< the plot
    QString measure;

    double X(double L) const { return area.left() + (L - xMin) / (xMax - xMin) * area.width(); }
    double Y(double v) const { return area.bottom() - std::clamp(v / yMax, 0.0, 1.02) * area.height(); }
    QString yLabel(double v) const
    {
        return loss ? formatNumber(v, 3) : QStringLiteral("%1%").arg(formatNumber(100.0 * v, 3));
    }
    double drawHeading();
    void collectEntries();
    void fitLegend(double headerBottom);
    bool layOut(double headerBottom);
    void drawAxes();
    void drawMarks();
    void polyline(const core::train::LengthCurves::Group& g, const std::vector<double>& v, const QPen& pen);
    void drawCurves();
    double drawLegend();
    void drawFileName(double legendEnd);
};

bool LengthLabPaint::draw()
{
    measure = c.metric == core::train::LengthMetric::ExactMatch ? tr("exact match")
        : c.metric == core::train::LengthMetric::TokenAccuracy  ? tr("token accuracy")
                                                                : tr("loss");
    const double headerBottom = drawHeading();
    collectEntries();
    fitLegend(headerBottom);
    if (!layOut(headerBottom))
        return false;
    p.fillRect(area, th.panel);
    drawAxes();
    drawMarks();
    drawCurves();
    drawFileName(drawLegend());
    return true;
}

/// The heading, then the task and what "converged" means in one or two lines under it; returns their bottom.
double LengthLabPaint::drawHeading()
{
    std::size_t maxSeeds = 0;
    for (const auto& g : c.groups)
        maxSeeds = std::max(maxSeeds, g.seeds.size());
    QString trained;
    for (int L : c.trainLens)
        trained += (trained.isEmpty() ? QString() : QStringLiteral(", ")) + QString::number(L);
    double headerBottom = drawHeader(
        text, QRectF(fig.left() + pad, fig.top() + pad * 0.5, fig.width() - 2 * pad, 0), th, s,
        {tr("Length generalisation \u00b7 %1").arg(QString::fromStdString(c.task)),
         {tr("%1 against test length").arg(measure), measure},
         d.running
             ? QStringList{tr("training: previews of the accuracy so far, trained at length %1").arg(trained),
                           tr("training, trained at %1").arg(trained)}
             : QStringList{tr("trained at length %1; thin: each seed, thick: mean of %2").arg(trained).arg(maxSeeds),
                           tr("trained at %1").arg(trained)}});
    const QString task = tr("Converged: exact match (every answer token right) of at least %1% at L train%2. ")
                             .arg(formatNumber(100.0 * core::train::convergedExactMatch, 3))
                             .arg(exactShown ? tr(" (dotted line)") : QString())
        + taskSentence(c.task) + QLatin1Char(' ') + tr("Trained on L = 1 to L train.");
    const QRectF box(fig.left() + pad, headerBottom + 2 * s, fig.width() - 2 * pad, tfm.height() * 2.2);
    const QRectF used = text.drawWrapped(box, Qt::AlignLeft | Qt::AlignTop, tickFont, th.muted, task);
    if (!used.isEmpty())
        headerBottom = used.bottom() + 2 * s;
    return headerBottom;
}

void LengthLabPaint::collectEntries()
{
    for (std::size_t i = 0; i < c.groups.size(); ++i) {
        const auto& g = c.groups[i];
        QString label = schemeTitle(g.scheme) + QString::fromStdString(g.label.substr(g.scheme.size()));
        if (g.diverged)
            label += tr(" (%1 diverged)").arg(g.diverged);
        entries.push_back({label, looks[i].colour, looks[i].style});
        anyNoRows
            = anyNoRows || std::find(g.noPositionRows.begin(), g.noPositionRows.end(), true) != g.noPositionRows.end();
    }
}

/// The legend column runs from the plot's top to the file name's row: thirteen schemes at a large font scale do
/// not fit, so its font shrinks (to 60% at most), and what still does not fit is counted ("+3 more").
void LengthLabPaint::fitLegend(double headerBottom)
{
    const double legendTop = headerBottom + lfm.height() * 1.2;
    legendBottom = fig.bottom() - pad - lfm.height() * 1.3; // the run file's name is the last row
    const double need
        = double(entries.size()) * gfm.height() * 1.3 + (anyNoRows ? gfm.height() * 0.3 + lfm.height() * 1.3 : 0.0);
    if (need > legendBottom - legendTop && legendBottom > legendTop) {
        legendFont = th.font(10 * s * std::max(0.6, (legendBottom - legendTop) / need), true);
        gfm = QFontMetricsF(legendFont);
    }
    for (const Entry& e : entries)
        legendW = std::max(legendW, gfm.horizontalAdvance(e.label));
    legendW += gfm.height() * 1.6 + pad;
    legendW = std::min(legendW, fig.width() * 0.32);
}

/// The y range (0..1, or the largest loss), its ticks and the plot's rectangle; false when it is too small.
bool LengthLabPaint::layOut(double headerBottom)
{
    if (loss) {
        yMax = 0.0;
        for (const auto& g : c.groups)
            for (const auto& v : g.values)
                for (double x : v)
                    if (std::isfinite(x))
                        yMax = std::max(yMax, x);
        yMax = yMax > 0 ? yMax * 1.05 : 1.0;
    }
    yTicks = niceTicks(0.0, yMax, 5);
    double yLabelW = 0;
    for (double v : yTicks)
        yLabelW = std::max(yLabelW, tfm.horizontalAdvance(yLabel(v)));
    xMax = double(c.lengths.back());
    area = QRectF(fig.left() + pad + lfm.height() * 1.3 + yLabelW + 4 * s, headerBottom + lfm.height() * 1.2, 0, 0);
    area.setRight(fig.right() - pad - legendW - pad);
    area.setBottom(fig.bottom() - pad - tfm.height() * 1.3 - lfm.height() * 1.3);
    return !(area.width() < 40 * s || area.height() < 40 * s);
}

/// The grid, the ticks and both axes' titles.
void LengthLabPaint::drawAxes()
{
    for (double v : yTicks) {
        if (v > yMax * 1.0001)
            continue;
        p.setPen(QPen(th.grid, 1.0 * s));
        p.drawLine(QPointF(area.left(), Y(v)), QPointF(area.right(), Y(v)));
        text.drawAt(QPointF(area.left() - 4 * s, Y(v)), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
                    {yLabel(v)});
    }
    const double widest = tfm.horizontalAdvance(QString::number(c.lengths.back())) + tfm.height();
    const std::vector<double> xTicks = niceTicks(xMin, xMax, std::clamp(int(area.width() / widest), 2, 10));
    for (double v : xTicks) {
        if (v < xMin || v > xMax)
            continue;
        p.setPen(QPen(th.grid, 1.0 * s));
        p.drawLine(QPointF(X(v), area.top()), QPointF(X(v), area.bottom()));
        text.drawAt(QPointF(X(v), area.bottom() + 3 * s), Qt::AlignHCenter | Qt::AlignTop, tickFont, th.muted,
                    {formatNumber(v, 4)});
    }
    text.draw(QRectF(area.left(), area.bottom() + tfm.height() * 1.3, area.width(), lfm.height()),
              Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.muted,
              {tr("test length L (task length; the copy sequence is 2L + 1 tokens)"), tr("test length L")});
    p.save();
    p.translate(fig.left() + pad, area.center().y());
    p.rotate(-90);
    text.draw(QRectF(-area.height() / 2, 0, area.height(), lfm.height()), Qt::AlignHCenter | Qt::AlignTop, labelFont,
              th.muted, {measure});
    p.restore();
}

/// The trained length(s), labelled above the plot, and under exact match the convergence line.
void LengthLabPaint::drawMarks()
{
    for (int L : c.trainLens) {
        p.setPen(QPen(th.foreground, 1.4 * s, Qt::DashLine));
        p.drawLine(QPointF(X(L), area.top()), QPointF(X(L), area.bottom()));
        text.keepClearOf(QPointF(X(L), area.top()), QPointF(X(L), area.bottom()), tr("trained length"));
        // Above the plot, in the gap under the heading: inside it the curves at L_train ran through the words.
        text.drawAt(QPointF(X(L) + 4 * s, area.top() - 1 * s), Qt::AlignLeft | Qt::AlignBottom, tickFont, th.foreground,
                    {tr("trained length %1").arg(L), tr("trained %1").arg(L), QString::number(L)});
    }
    if (exactShown) {
        const double yc = Y(core::train::convergedExactMatch);
        p.setPen(QPen(th.foreground, 1.2 * s, Qt::DotLine));
        p.drawLine(QPointF(area.left(), yc), QPointF(area.right(), yc));
        text.keepClearOf(QPointF(area.left(), yc), QPointF(area.right(), yc), tr("converged"));
    }
}

/// One curve of group @p g over the test lengths, broken where a value is missing (and, for the loss, where the
/// table has no position rows); the labels keep clear of it.
void LengthLabPaint::polyline(const core::train::LengthCurves::Group& g, const std::vector<double>& v, const QPen& pen)
{
    p.setPen(pen);
    QPainterPath path;
    bool open = false;
    for (std::size_t i = 0; i < c.lengths.size(); ++i) {
        if (!std::isfinite(v[i]) || (g.noPositionRows[i] && loss)) {
            open = false;
            continue;
        }
        const QPointF pt(X(c.lengths[i]), Y(v[i]));
        if (open)
            path.lineTo(pt);
        else
            path.moveTo(pt);
        open = true;
    }
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    for (const QPolygonF& piece : path.toSubpathPolygons())
        text.keepClearOf(piece, QString::fromStdString(g.label), area.adjusted(-4 * s, -4 * s, 4 * s, 4 * s));
}

/// Each seed thin, the mean thick with dots; lengths without position rows as crosses.
void LengthLabPaint::drawCurves()
{
    p.setClipRect(area.adjusted(-4 * s, -4 * s, 4 * s, 4 * s));
    for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
        const auto& g = c.groups[gi];
        const QColor col = looks[gi].colour;
        QColor thin = col;
        thin.setAlphaF(0.45);
        if (g.values.size() > 1)
            for (const auto& v : g.values)
                polyline(g, v, QPen(thin, 1.0 * s));
        polyline(g, g.mean, QPen(col, 2.6 * s, looks[gi].style, Qt::RoundCap, Qt::RoundJoin));
        for (std::size_t i = 0; i < c.lengths.size(); ++i) {
            const double x = X(c.lengths[i]);
            if (g.noPositionRows[i] || std::isfinite(g.mean[i]))
                points.push_back({QPointF(x, g.noPositionRows[i] ? Y(0.0) : Y(g.mean[i])), gi, i});
            if (g.noPositionRows[i]) {
                const double y = Y(0.0), r = 3.5 * s;
                p.setPen(QPen(col, 1.8 * s));
                p.drawLine(QPointF(x - r, y - r), QPointF(x + r, y + r));
                p.drawLine(QPointF(x - r, y + r), QPointF(x + r, y - r));
            } else if (std::isfinite(g.mean[i])) {
                p.setPen(Qt::NoPen);
                p.setBrush(col);
                p.drawEllipse(QPointF(x, Y(g.mean[i])), 2.6 * s, 2.6 * s);
            }
        }
    }
    p.setClipRect(fig);
}

/// The legend column at the plot's right, what does not fit counted, and the key of the crosses; returns the
/// height under its last row.
double LengthLabPaint::drawLegend()
{
    double y = area.top();
    const double lx = area.right() + pad;
    for (std::size_t ei = 0; ei < entries.size(); ++ei) {
        const Entry& e = entries[ei];
        const double sw = gfm.height() * 1.2;
        if (ei + 1 < entries.size() && y + gfm.height() * 2.3 > legendBottom) {
            text.draw(QRectF(lx + sw + 4 * s, y, fig.right() - pad - lx - sw - 4 * s, gfm.height()),
                      Qt::AlignLeft | Qt::AlignVCenter, legendFont, th.muted,
                      {tr("+%1 more").arg(entries.size() - ei), tr("+%1").arg(entries.size() - ei)});
            y += gfm.height() * 1.3;
            break;
        }
        const QRectF drawn = text.draw(QRectF(lx + sw + 4 * s, y, fig.right() - pad - lx - sw - 4 * s, gfm.height()),
                                       Qt::AlignLeft | Qt::AlignVCenter, legendFont, th.foreground, {e.label});
        if (!drawn.isEmpty()) {
            p.setPen(QPen(e.colour, 2.6 * s, e.style, Qt::FlatCap));
            p.drawLine(QPointF(lx, y + gfm.height() / 2), QPointF(lx + sw, y + gfm.height() / 2));
        }
        y += gfm.height() * 1.3;
    }
    if (anyNoRows) {
        y += gfm.height() * 0.3;
        const double r = 3.5 * s, cx = lx + gfm.height() * 0.6, cy = y + lfm.height() / 2;
        const QRectF drawn = text.draw(
            QRectF(lx + gfm.height() * 1.2 + 4 * s, y, fig.right() - pad - lx - gfm.height() * 1.2 - 4 * s,
                   lfm.height()),
            Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.muted,
            {tr("\u00d7 no position rows (learned table), counted as 0"), tr("no position rows"), tr("no rows")});
        if (!drawn.isEmpty()) {
            p.setPen(QPen(th.muted, 1.8 * s));
            p.drawLine(QPointF(cx - r, cy - r), QPointF(cx + r, cy + r));
            p.drawLine(QPointF(cx - r, cy + r), QPointF(cx + r, cy - r));
        }
        y += lfm.height() * 1.3;
    }
    return y;
}

/// The run file's name under the legend (below @p legendEnd), never cut with "…": on one line where it fits the
/// column, else broken after its '-', '_' and '.' onto as many lines as the room under the legend holds, else left
/// out (the window's title and status line name the file).
void LengthLabPaint::drawFileName(double legendEnd)
{
    const QString file = d.window && d.file.isEmpty() ? (d.running ? tr("previews") : tr("this window"))
                                                      : QFileInfo(d.file).fileName();
    const double lx = area.right() + pad;
    const QFontMetricsF ffm(tickFont);
    const double colW = fig.right() - pad - lx;
    QStringList lines;
    QString line;
    bool fits = true;
    for (qsizetype i = 0; i < file.size() && fits; ++i) {
        line += file[i];
        const bool breakHere
            = file[i] == QLatin1Char('-') || file[i] == QLatin1Char('_') || file[i] == QLatin1Char('.');
        if (breakHere || i + 1 == file.size()) {
            if (!lines.isEmpty() && ffm.horizontalAdvance(lines.back() + line) <= colW)
                lines.back() += line;
            else if (ffm.horizontalAdvance(line) <= colW)
                lines << line;
            else
                fits = false;
            line.clear();
        }
    }
    const double lineH = ffm.height();
    const double top = fig.bottom() - pad - lineH * double(lines.size());
    // All of its lines or none: a part of a name ("json") says nothing.
    for (qsizetype k = 0; fits && k < lines.size(); ++k)
        fits = text.isFree(QRectF(lx, top + lineH * double(k), ffm.horizontalAdvance(lines[k]), lineH));
    if (fits && !lines.isEmpty() && top >= legendEnd) {
        double ly = top;
        for (const QString& l : lines) {
            text.draw(QRectF(lx, ly, colW, lineH), Qt::AlignLeft | Qt::AlignVCenter, tickFont, th.muted, {l},
                      TextLayout::Fit::Drop);
            ly += lineH;
        }
    }
}

} // namespace

int lengthLabColourIndex(const std::string& scheme)
{
    // The Train panel's default schemes first (the strongest colours), then the others in the registry's order.
    std::vector<std::string> ids;
    for (const QString& id : TrainPanel::teachingSchemes())
        ids.push_back(id.toStdString());
    for (const std::string& id : core::train::trainableSchemes())
        if (std::find(ids.begin(), ids.end(), id) == ids.end())
            ids.push_back(id);
    const auto it = std::find(ids.begin(), ids.end(), scheme);
    return int(it - ids.begin()); // a scheme that cannot be trained (a hand-made file) takes the next one
}

QColor lengthLabColour(const std::string& scheme, const Theme& theme)
{
    return paletteColour(std::size_t(lengthLabColourIndex(scheme)), theme);
}

LengthLabView::LengthLabView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
    , m_figure(computation, [this](bool later) {
        m_data = m_figure.data();
        if (later)
            refresh();
    })
{
    setMouseTracking(true);
    connect(state, &WorkbenchState::viewOptionsChanged, this, [this] {
        const ViewOptions& o = m_state->viewOptions();
        if (o.runFile != m_file || o.lengthMetric != m_metric)
            resultChanged();
        else
            refresh();
    });
    // The window's training runs: published at most ten times a second while they train.
    connect(state, &WorkbenchState::trainedRunsChanged, this, &LengthLabView::resultChanged);
    resultChanged();
}

QWidget* LengthLabView::controls()
{
    if (!m_controls)
        m_controls = new TrainPanel(m_state, this);
    return m_controls;
}

void LengthLabView::resultChanged()
{
    m_file = m_state->viewOptions().runFile;
    m_metric = m_state->viewOptions().lengthMetric;
    // Every time, not only when the inputs differ: the run file may have changed on disk.
    m_figure.forget();
    m_figure.update(FigureSnapshot::of(*m_state));
    if (!m_figure.isPending()) // else it redraws when the new data lands
        refresh();
}

void LengthLabView::render(QPainter& painter, const QRectF& target)
{
    // The lab does not depend on the workbench's scheme: it draws whatever the run file holds.
    renderAlone(painter, target);
}

void LengthLabView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    m_points.clear();
    if (!m_data.error.isEmpty()) {
        drawNotApplicable(p, target, th, tr("Length generalisation"), m_data.error);
        return;
    }
    const core::train::LengthCurves& c = m_data.curves;
    const std::vector<Look> looks = groupLooks(c, th);
    const double s = sizeScale(target);
    TextLayout text(p, target);
    const std::optional<QRectF> fig = drawLossPart(p, text, target, s);
    if (!fig)
        return;
    if (c.lengths.empty() || c.groups.empty()) {
        drawNotApplicable(p, target, th, tr("Length generalisation"),
                          m_data.running ? tr("Training: the first accuracy preview is on its way")
                              : m_data.window
                              ? tr("The runs have no accuracy to draw (cancelled or diverged before evaluation)")
                              : tr("The run file has no accuracy to draw"));
        return;
    }
    LengthLabPaint paint(p, text, *fig, th, m_data, looks, s, m_points);
    if (!paint.draw()) {
        drawNotApplicable(p, *fig, th, tr("Too small"), tooSmallReason());
        return;
    }
    m_hoverScale = s;
    if (onScreen() && m_hover)
        drawHover(p, target, *fig, s);
}

std::optional<QRectF> LengthLabView::drawLossPart(QPainter& p, TextLayout& text, const QRectF& target, double s) const
{
    const Theme th = theme();
    const core::train::LengthCurves& c = m_data.curves;
    QRectF full = target;
    // Room for both: about 22 label lines (lecture mode at a projector's size keeps the accuracy alone).
    if (!m_data.losses.empty() && target.height() >= 22 * QFontMetricsF(th.font(10 * s)).height()) {
        const QRectF lossArea(target.left(), target.bottom() - target.height() * 0.36, target.width(),
                              target.height() * 0.36);
        if (c.lengths.empty() || c.groups.empty()) {
            const QRectF top(target.left(), target.top(), target.width(), target.height() - lossArea.height());
            drawNotApplicable(p, top, th, tr("Length generalisation"),
                              m_data.running ? tr("Training: the first accuracy preview is on its way")
                                             : tr("No accuracy was measured: the loss so far is below"));
            drawLosses(p, text, lossArea, s);
            return std::nullopt;
        }
        drawLosses(p, text, lossArea, s);
        full.setBottom(lossArea.top());
    }
    return full;
}

void LengthLabView::drawHover(QPainter& p, const QRectF& target, const QRectF& fig, double s) const
{
    const int k = pointAt(*m_hover);
    if (k < 0)
        return;
    const Theme th = theme();
    const std::vector<Look> looks = groupLooks(m_data.curves, th);
    const Point& pt = m_points[std::size_t(k)];
    const QString line = readout(pt);
    const QFont f = th.font(10 * s);
    const QFontMetricsF fm(f);
    const QSizeF box(fm.horizontalAdvance(line) + 12 * s, fm.height() + 8 * s);
    QPointF at(pt.at.x() + 10 * s, pt.at.y() - box.height() - 8 * s);
    at.setX(std::min(at.x(), fig.right() - box.width() - 2 * s));
    if (at.y() < fig.top())
        at.setY(pt.at.y() + 10 * s);
    p.setClipRect(target);
    p.setPen(QPen(looks[pt.group].colour, 2.0 * s));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(pt.at, 5 * s, 5 * s);
    p.setPen(QPen(th.grid, 1.0 * s));
    p.setBrush(th.background);
    p.drawRoundedRect(QRectF(at, box), 4 * s, 4 * s);
    p.setPen(th.foreground);
    p.setFont(f);
    p.drawText(QRectF(at, box), Qt::AlignCenter, line);
}

QString LengthLabView::readout(const Point& pt) const
{
    const core::train::LengthCurves& c = m_data.curves;
    const auto& g = c.groups[pt.group];
    const QString name = schemeTitle(g.scheme) + QString::fromStdString(g.label.substr(g.scheme.size()));
    const int L = c.lengths[pt.length];
    if (withholdsReadoutValues()) // View::withholdsReadoutValues: the point named, its value after the guess
        return withheldReadout(tr("%1 · L = %2").arg(name).arg(L));
    if (g.noPositionRows[pt.length])
        return tr("%1 · L = %2 · no position rows (learned table), counted as 0").arg(name).arg(L);
    const double v = g.mean[pt.length];
    const QString measure = c.metric == core::train::LengthMetric::ExactMatch ? tr("exact match")
        : c.metric == core::train::LengthMetric::TokenAccuracy                ? tr("token accuracy")
                                                                              : tr("loss");
    const QString value = c.metric == core::train::LengthMetric::Loss
        ? formatNumber(v, 4)
        : QStringLiteral("%1%").arg(formatNumber(100.0 * v, 4));
    int seeds = 0;
    for (const auto& vals : g.values)
        seeds += std::isfinite(vals[pt.length]) ? 1 : 0;
    return seeds > 1 ? tr("%1 · L = %2 · %3 %4 (mean of %5 seeds)").arg(name).arg(L).arg(measure, value).arg(seeds)
                     : tr("%1 · L = %2 · %3 %4").arg(name).arg(L).arg(measure, value);
}

int LengthLabView::pointAt(QPointF at) const
{
    int best = -1;
    double bestD = 12.0 * m_hoverScale;
    for (std::size_t k = 0; k < m_points.size(); ++k) {
        const double d = std::hypot(m_points[k].at.x() - at.x(), m_points[k].at.y() - at.y());
        if (d <= bestD) {
            bestD = d;
            best = int(k);
        }
    }
    return best;
}

QString LengthLabView::readoutAt(QPointF at) const
{
    const int k = pointAt(at);
    return k < 0 ? QString() : readout(m_points[std::size_t(k)]);
}

std::vector<QPointF> LengthLabView::pointPositions() const
{
    std::vector<QPointF> out;
    for (const Point& pt : m_points)
        out.push_back(pt.at);
    return out;
}

void LengthLabView::mouseMoveEvent(QMouseEvent* e)
{
    const int before = m_hover ? pointAt(*m_hover) : -1;
    m_hover = e->position();
    if (pointAt(*m_hover) != before || before >= 0)
        update();
}

void LengthLabView::leaveEvent(QEvent*)
{
    m_hover.reset();
    update();
}

void LengthLabView::drawLosses(QPainter& p, TextLayout& text, const QRectF& target, double s) const
{
    const Theme th = theme();
    const std::vector<Look> looks = groupLooks(m_data.curves, th);
    const double pad = 8 * s;
    const QFont tickFont = th.font(9.5 * s);
    const QFont labelFont = th.font(10 * s);
    const QFontMetricsF tfm(tickFont), lfm(labelFont);
    int maxStep = 1;
    double maxLoss = 0.0;
    for (const auto& l : m_data.losses) {
        maxStep = std::max(maxStep, l.totalSteps);
        for (double v : l.loss)
            if (std::isfinite(v))
                maxLoss = std::max(maxLoss, v);
    }
    maxLoss = maxLoss > 0 ? maxLoss * 1.05 : 1.0;
    const std::vector<double> yTicks = niceTicks(0.0, maxLoss, 3);
    double yLabelW = 0;
    for (double v : yTicks)
        yLabelW = std::max(yLabelW, tfm.horizontalAdvance(formatNumber(v, 3)));
    const QRectF title(target.left() + pad, target.top() + pad * 0.5, target.width() - 2 * pad, lfm.height());
    text.draw(title, Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground,
              {m_data.running ? tr("training loss (answer tokens' cross-entropy) against step, so far")
                              : tr("training loss (answer tokens' cross-entropy) against step, kept after training"),
               tr("training loss against step"), tr("loss")});
    QRectF area(target.left() + pad + lfm.height() * 1.3 + yLabelW + 4 * s, title.bottom() + lfm.height() * 0.6, 0, 0);
    area.setRight(target.right() - pad);
    area.setBottom(target.bottom() - pad - tfm.height() * 1.3 - lfm.height() * 1.2);
    if (area.width() < 40 * s || area.height() < 24 * s)
        return;
    p.fillRect(area, th.panel);
    const auto X = [&](double step) { return area.left() + step / double(maxStep) * area.width(); };
    const auto Y = [&](double v) { return area.bottom() - std::clamp(v / maxLoss, 0.0, 1.02) * area.height(); };
    for (double v : yTicks) {
        if (v > maxLoss * 1.0001)
            continue;
        p.setPen(QPen(th.grid, 1.0 * s));
        p.drawLine(QPointF(area.left(), Y(v)), QPointF(area.right(), Y(v)));
        text.drawAt(QPointF(area.left() - 4 * s, Y(v)), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
                    {formatNumber(v, 3)});
    }
    const double widest = tfm.horizontalAdvance(QString::number(maxStep)) + tfm.height();
    for (double v : niceTicks(0.0, double(maxStep), std::clamp(int(area.width() / widest), 2, 10))) {
        if (v < 0 || v > maxStep)
            continue;
        text.drawAt(QPointF(X(v), area.bottom() + 3 * s), Qt::AlignHCenter | Qt::AlignTop, tickFont, th.muted,
                    {formatNumber(v, 7)});
    }
    text.draw(QRectF(area.left(), area.bottom() + tfm.height() * 1.3, area.width(), lfm.height()),
              Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.muted, {tr("training step"), tr("step")});
    p.save();
    p.setClipRect(area.adjusted(-2 * s, -2 * s, 2 * s, 2 * s));
    for (const auto& l : m_data.losses) {
        QPainterPath path;
        bool open = false;
        for (std::size_t i = 0; i < l.steps.size(); ++i) {
            if (!std::isfinite(l.loss[i])) {
                open = false;
                continue;
            }
            const QPointF pt(X(l.steps[i]), Y(l.loss[i]));
            if (open)
                path.lineTo(pt);
            else
                path.moveTo(pt);
            open = true;
        }
        const std::size_t g = std::size_t(l.group);
        p.setPen(QPen(g < looks.size() ? looks[g].colour : th.muted, 1.6 * s,
                      g < looks.size() ? looks[g].style : Qt::SolidLine));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
    }
    p.restore();
}

} // namespace poslab::ui
