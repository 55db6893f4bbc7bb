// SPDX-License-Identifier: MIT
#include "ui/views/tableview.h"

#include "core/trigtable.h"

#include "core/rotary.h"
#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"

#include <QComboBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLocale>
#include <QMouseEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QToolButton>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace poslab::ui {
namespace {

/// SVG tables with at most this many visible cells are written as vector rectangles.
constexpr qint64 maxVectorCells = 4096;

} // namespace

TableView::TableView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
{
    setMouseTracking(true);
    connect(state, &WorkbenchState::cursorChanged, this, &View::refresh);
    connect(state, &WorkbenchState::viewOptionsChanged, this, [this] {
        if (colorMapKind() != m_imageMap)
            rebuildImage();
    });
    resultChanged();
}

bool TableView::supports(const core::SchemeDescriptor& scheme) const
{
    // NoPE's "encoding" is the zero table: nothing to see, and saying so teaches more than a flat plot.
    return (scheme.encoding != nullptr && scheme.relation != core::Relation::None) || scheme.rotary != nullptr;
}

QString TableView::notApplicableReason() const
{
    // Short: a small panel shows it whole. Why, then what to pick.
    const auto& s = m_state->scheme();
    const QString name = shortSchemeName(s);
    if (s.relation == core::Relation::None)
        return tr("%1's table is all zeros: order comes only from the causal mask. Pick sinusoidal or RoPE for a "
                  "table.")
            .arg(name);
    if (s.application == core::Application::ScoreBias)
        return tr("%1 biases the scores; it has no vector per position. See attention and decay, or pick "
                  "sinusoidal or RoPE.")
            .arg(name);
    return tr("%1 has no table of position vectors. See the attention view, or pick sinusoidal or RoPE.").arg(name);
}

QWidget* TableView::controls()
{
    if (m_controls)
        return m_controls;
    m_controls = new QWidget(this);
    auto* lay = new QHBoxLayout(m_controls);
    lay->setContentsMargins(0, 0, 0, 0);
    m_quantity = new QComboBox(m_controls);
    m_quantity->setObjectName(QStringLiteral("tableQuantity"));
    m_quantity->addItem(tr("cos"), int(TableQuantity::Cos));
    m_quantity->addItem(tr("sin"), int(TableQuantity::Sin));
    m_quantity->addItem(tr("angle"), int(TableQuantity::Angle));
    m_quantity->setToolTip(tr("Rotary schemes: which per-pair table to show"));
    m_map = new QComboBox(m_controls);
    m_map->setObjectName(QStringLiteral("tableColormap"));
    m_map->addItem(tr("auto colours"), int(ColorMapChoice::Auto));
    m_map->addItem(QStringLiteral("viridis"), int(ColorMapChoice::Viridis));
    m_map->addItem(QStringLiteral("cividis"), int(ColorMapChoice::Cividis));
    m_map->addItem(tr("diverging"), int(ColorMapChoice::Diverging));
    m_map->setToolTip(tr("Auto: diverging for signed values, viridis otherwise"));
    auto* reset = new QToolButton(m_controls);
    reset->setText(tr("Fit"));
    reset->setToolTip(tr("Show the whole table (double-click does the same)"));
    lay->addWidget(m_quantity);
    lay->addWidget(m_map);
    lay->addWidget(reset);
    auto sync = [this] {
        const ViewOptions& o = m_state->viewOptions();
        QSignalBlocker b1(m_quantity), b2(m_map);
        m_quantity->setCurrentIndex(m_quantity->findData(int(o.tableQuantity)));
        m_map->setCurrentIndex(m_map->findData(int(o.colorMap)));
        m_quantity->setVisible(m_state->isRotary());
    };
    sync();
    connect(m_state, &WorkbenchState::viewOptionsChanged, m_controls, sync);
    connect(m_state, &WorkbenchState::schemeChanged, m_controls, sync);
    connect(m_quantity, &QComboBox::currentIndexChanged, this, [this] {
        ViewOptions o = m_state->viewOptions();
        o.tableQuantity = TableQuantity(m_quantity->currentData().toInt());
        m_state->setViewOptions(o);
    });
    connect(m_map, &QComboBox::currentIndexChanged, this, [this] {
        ViewOptions o = m_state->viewOptions();
        o.colorMap = ColorMapChoice(m_map->currentData().toInt());
        m_state->setViewOptions(o);
    });
    connect(reset, &QToolButton::clicked, this, &TableView::resetZoom);
    return m_controls;
}

ColorMapKind TableView::colorMapKind() const
{
    switch (m_state->viewOptions().colorMap) {
    case ColorMapChoice::Viridis: return ColorMapKind::Viridis;
    case ColorMapChoice::Cividis: return ColorMapKind::Cividis;
    case ColorMapChoice::Diverging: return ColorMapKind::Diverging;
    case ColorMapChoice::Auto: break;
    }
    if (sharesCompareRange() && m_heldRange->lo < 0 && m_heldRange->hi > 0)
        return ColorMapKind::Diverging; // side by side: A's and B's range together spans 0
    return m_result && m_result->signedValues ? ColorMapKind::Diverging : ColorMapKind::Viridis;
}

ValueRange TableView::valueRange() const
{
    if (m_showDiff)
        return m_diffRange;
    if (m_heldRange)
        return *m_heldRange;
    return dataColourRange().value_or(ValueRange{});
}

std::optional<ValueRange> TableView::dataColourRange() const
{
    if (!m_result)
        return std::nullopt;
    if (colorMapKind() == ColorMapKind::Diverging) {
        const double a = std::max({std::abs(m_result->lo), std::abs(m_result->hi), 1e-30});
        return ValueRange{-a, a};
    }
    if (m_result->hi > m_result->lo)
        return ValueRange{m_result->lo, m_result->hi};
    return ValueRange{m_result->lo - 1.0, m_result->hi + 1.0};
}

bool TableView::differenceMode() const
{
    return m_state->comparing() && !m_state->compareOwner() && m_state->compareMode() == CompareMode::Difference;
}

void TableView::compareChanged()
{
    if (differenceMode() || m_showDiff || !m_compareProblem.isEmpty())
        rebuildImage();
    else
        refresh();
}

void TableView::rebuildImage()
{
    m_imageMap = colorMapKind();
    m_showDiff = false;
    m_compareProblem.clear();
    m_diff = {};
    if (!m_result || m_result->table.size() == 0) {
        m_image = QImage();
        return;
    }
    if (differenceMode()) {
        // A − B cell by cell, where both tables hold the same positions and columns.
        View* twin = compareTwin();
        const auto b = twin ? twin->currentResult() : nullptr;
        const auto shape = [&](const EncodingResult& r) {
            return tr("%1 \u00d7 %2 %3")
                .arg(formatNumber(r.totalRows, 7), formatNumber(r.totalCols, 7), r.rotary ? tr("pairs") : tr("dims"));
        };
        if (!b || !b->error.isEmpty() || b->table.size() == 0)
            m_compareProblem = tr("B has no encoding table%1.")
                                   .arg(b && !b->error.isEmpty() ? QStringLiteral(": ") + b->error : QString());
        else if (b->totalRows != m_result->totalRows || b->totalCols != m_result->totalCols
                 || b->rowStart != m_result->rowStart || b->rowStep != m_result->rowStep
                 || b->table.rows() != m_result->table.rows())
            m_compareProblem
                = tr("A difference needs tables of one shape: A is %1, B is %2.").arg(shape(*m_result), shape(*b));
        else if (b->rotary != m_result->rotary || b->tableLabel != m_result->tableLabel)
            m_compareProblem = tr("A difference needs one quantity: A shows %1, B shows %2.")
                                   .arg(m_result->tableLabel, b->tableLabel);
        else {
            m_diff = Computation::difference(m_result->table, b->table);
            m_diffRange = Computation::symmetricRange(m_diff);
            m_imageMap = ColorMapKind::Diverging;
            m_showDiff = true;
            m_image = matrixToImage(m_diff, ColorMap(m_imageMap), m_diffRange);
            refresh();
            return;
        }
    }
    m_image = matrixToImage(m_result->table, ColorMap(m_imageMap), valueRange());
    refresh();
}

QRectF TableView::fullRect() const
{
    if (!m_result || m_result->table.size() == 0)
        return {};
    return QRectF(0, 0, m_result->totalCols, m_result->totalRows);
}

void TableView::resultChanged()
{
    rebuildImage();
    const QRectF full = fullRect();
    // A new window of the same table keeps the zoom; a table of another shape starts from the whole.
    if (full.size().toSize() != m_fullSize || m_window.isEmpty() || !full.contains(m_window)) {
        m_fullSize = full.size().toSize();
        m_window = full;
        requestWindow();
    }
    m_hover.reset();
}

void TableView::resizeEvent(QResizeEvent* e)
{
    View::resizeEvent(e);
    requestWindow();
}

void TableView::requestWindow()
{
    if (m_window.isEmpty() || !m_computation)
        return;
    const Layout l = layoutFor(contentArea());
    TableWindow w;
    w.rowBegin = int(std::floor(m_window.top()));
    w.rowEnd = int(std::ceil(m_window.bottom()));
    if (w.rowBegin <= 0 && m_result && w.rowEnd >= m_result->totalRows)
        w.rowEnd = 0; // the whole table
    w.pixelRows = std::max(16, int(std::lround(l.plot.height() * devicePixelRatioF())));
    m_computation->setTableWindow(w);
}

QString TableView::samplingNote() const
{
    if (!m_result || m_result->rowStep <= 1)
        return {};
    const int k = m_result->rowStep;
    const int tens = k % 100, ones = k % 10;
    const QString suffix = tens >= 11 && tens <= 13 ? QStringLiteral("th")
        : ones == 1                                 ? QStringLiteral("st")
        : ones == 2                                 ? QStringLiteral("nd")
        : ones == 3                                 ? QStringLiteral("rd")
                                                    : QStringLiteral("th");
    return tr("showing every %1%2 position \u2014 zoom in for every position").arg(k).arg(suffix);
}

TableView::Aliasing TableView::aliasing(double pixelRows) const
{
    Aliasing a;
    if (!m_result || m_window.isEmpty() || pixelRows <= 0)
        return a;
    a.rows = m_window.height();
    a.pixelRows = pixelRows;
    // Positions per pixel row: the sampling step of a sampled table, or the squeeze of the drawing.
    a.perPixel = std::max({1.0, double(m_result->rowStep), a.rows / pixelRows});
    a.squeezed = a.rows > pixelRows * 1.0001;
    // Nyquist needs two pixel rows per turn; resampled images show moire well before that, so a column that
    // turns within four pixel rows is named as aliasing (at or past the limit).
    const auto& w = m_result->frequencies;
    a.columns = int(w.size());
    for (int i = 0; i < int(w.size()); ++i)
        if (w[std::size_t(i)] > 0 && core::wavelength(w[std::size_t(i)]) < 4.0 * a.perPixel) {
            ++a.fast;
            a.last = i;
        }
    return a;
}

QString TableView::aliasingNote(double pixelRows) const
{
    const Aliasing a = aliasing(pixelRows);
    if (!a.squeezed && a.fast == 0)
        return {};
    const QString line1 = a.squeezed
        ? (onScreen() ? tr("%1 positions on %2 pixel rows: zoom in to see every position")
                      : tr("%1 positions on %2 pixel rows: a taller figure or fewer positions shows every one"))
              .arg(formatNumber(std::round(a.rows), 7), formatNumber(std::floor(a.pixelRows), 7))
        : tr("every position has its pixel row");
    const QString line2 = a.fast > 0
        ? tr("aliasing: %1 of %2 %3 (up to pair %4) turn within %5 positions, 4 pixel rows, at or past the Nyquist "
             "limit of 2: their stripes are moir\u00e9, not structure")
              .arg(a.fast)
              .arg(a.columns)
              .arg(m_result->rotary ? tr("pairs") : tr("frequency pairs"))
              .arg(a.last)
              .arg(formatNumber(4.0 * a.perPixel, 3))
        : QString();
    return line2.isEmpty() ? line1 : line1 + QLatin1Char('\n') + line2;
}

QString TableView::xposNote() const
{
    if (!m_result || !m_result->rotary || m_result->spec.xposZeta.empty())
        return {};
    // The centre core used (parameter "centring"): torchscale's c = ceil(L/2), or 0 (the paper's zeta^(n/gamma)).
    const bool absolute
        = m_result->setup.params.has("centring") && m_result->setup.params.choice("centring") == "absolute";
    if (absolute)
        return tr(
            "xPos: each value \u00d7 \u03b6\u1d62^(p/scale_base), absolute positions (centring = absolute, c = 0, "
            "the paper's \u03b6^(n/\u03b3)); torchscale centres at c = ceil(L/2)");
    return tr("xPos: each value \u00d7 \u03b6\u1d62^((p \u2212 c)/scale_base), centred at c = %1 as torchscale does "
              "(centring = torchscale: the scale is 1 at p = c, not at p = 0)")
        .arg(formatNumber(m_result->spec.xposCentre, 7));
}

void TableView::setWindow(const QRectF& w)
{
    const QRectF full = fullRect();
    QRectF r = w;
    r.setWidth(std::clamp(r.width(), std::min(2.0, full.width()), full.width()));
    r.setHeight(std::clamp(r.height(), std::min(2.0, full.height()), full.height()));
    r.moveLeft(std::clamp(r.left(), 0.0, full.width() - r.width()));
    r.moveTop(std::clamp(r.top(), 0.0, full.height() - r.height()));
    m_window = r;
    refresh();
    requestWindow();
}

void TableView::resetZoom()
{
    setWindow(fullRect());
}

HeaderTexts TableView::headerTexts() const
{
    if (!m_result)
        return {};
    const QString rows = formatNumber(m_result->totalRows, 7), cols = formatNumber(m_result->totalCols, 7);
    const QString unit = m_result->rotary ? tr("pairs") : tr("dims");
    if (m_showDiff)
        return {tr("%1 \u2212 %2").arg(m_state->figureLabel(), m_state->compareState()->figureLabel()),
                {tr("difference A \u2212 B of %1").arg(m_result->tableLabel),
                 tr("A \u2212 B: %1").arg(m_result->tableLabel), tr("A \u2212 B")},
                {tr("%1 positions \u00d7 %2 %3").arg(rows, cols, unit), tr("%1 \u00d7 %2 %3").arg(rows, cols, unit)}};
    return {m_state->figureLabel(),
            {m_result->tableLabel},
            {tr("%1 positions \u00d7 %2 %3").arg(rows, cols, unit), tr("%1 \u00d7 %2 %3").arg(rows, cols, unit)}};
}

double TableView::svgImageBytes(const QSizeF& size) const
{
    if (!m_result || m_image.isNull())
        return 0.0;
    const int k = std::max(1, m_result->rowStep);
    const QRectF shown
        = m_window.intersected(QRectF(0, m_result->rowStart, m_image.width(), double(m_image.height()) * k));
    if (shown.width() * shown.height() / k <= double(maxVectorCells))
        return 0.0; // vector rectangles
    const QRectF plot = layoutFor(QRectF(QPointF(0, 0), size)).plot;
    return 4.0 * std::ceil(plot.width() * 2) * std::ceil(plot.height() * 2);
}

TableView::Layout TableView::layoutFor(const QRectF& t) const
{
    Layout l;
    l.scale = sizeScale(t);
    const Theme th = theme();
    const QFontMetricsF tick(th.font(10 * l.scale));
    const double pad = 8 * l.scale;
    l.title = QRectF(t.left() + pad, t.top() + pad * 0.5, t.width() - 2 * pad,
                     headerHeight(t.width() - 2 * pad, th, l.scale, headerTexts()));
    l.footer = QRectF(t.left() + pad, t.bottom() - tick.height() * 1.3 - pad * 0.5, t.width() - 2 * pad,
                      tick.height() * 1.3);
    // Room on the left for the widest position label and the axis title; on the right for the colour bar.
    // The cursor's tag ("p=1,023", bold, in a box) sits there too.
    const double rows = m_result ? std::max(1, m_result->totalRows) : 1000000;
    const QString widest = formatNumber(rows, 7);
    const double labels = std::max(
        tick.horizontalAdvance(widest) + 6 * l.scale,
        QFontMetricsF(th.font(10 * l.scale, true)).horizontalAdvance(QStringLiteral("p=") + widest) + 12 * l.scale);
    const double left = labels + tick.height() * 1.6 + pad;
    const double right = 18 * l.scale + colorBarLabelWidth(th, l.scale) + pad;
    // Half a tick label above the plot: the first row's label and the cursor's tag must clear the header.
    double top = l.title.bottom() + std::max(pad * 0.5, tick.height() * 0.6 + 2);
    if (!xposNote().isEmpty()) {
        // xPos: one line under the header names torchscale's centre.
        l.subtitle = QRectF(l.title.left(), l.title.bottom(), l.title.width(), tick.height() * 1.2);
        top = l.subtitle.bottom() + std::max(pad * 0.5, tick.height() * 0.6 + 2);
    }
    double bottom = l.footer.top() - tick.height() * 2.3;
    l.plot = QRectF(QPointF(t.left() + left, top), QPointF(t.right() - right, bottom));
    // The aliasing note has a line of its own between the axes and the footer, off the data (the box it
    // was covered the slow pairs); a clean slide leaves it out. Whether there is one depends on the plot's pixel
    // rows: asked at the height without the line (the line only makes the plot shorter, so a note stays one).
    if (!m_state->viewOptions().cleanSlide && !aliasingNote(l.plot.height()).isEmpty()) {
        l.note = QRectF(l.footer.left(), l.footer.top() - tick.height() * 1.25, l.footer.width(), tick.height() * 1.2);
        bottom = l.note.top() - tick.height() * 2.3;
        l.plot.setBottom(bottom);
    }
    l.bar = QRectF(l.plot.right() + 12 * l.scale, l.plot.top(), 16 * l.scale, l.plot.height());
    return l;
}

std::optional<QPointF> TableView::toTable(const QPointF& pos) const
{
    const Layout l = layoutFor(contentArea());
    if (!l.plot.contains(pos) || m_window.isEmpty())
        return std::nullopt;
    return QPointF(m_window.left() + (pos.x() - l.plot.left()) / l.plot.width() * m_window.width(),
                   m_window.top() + (pos.y() - l.plot.top()) / l.plot.height() * m_window.height());
}

std::optional<QPointF> TableView::cellCentre(int row, int column) const
{
    const Layout l = layoutFor(contentArea());
    const QPointF at(column + 0.5, row + 0.5);
    if (m_window.isEmpty() || !m_window.contains(at))
        return std::nullopt;
    return QPointF(l.plot.left() + (at.x() - m_window.left()) / m_window.width() * l.plot.width(),
                   l.plot.top() + (at.y() - m_window.top()) / m_window.height() * l.plot.height());
}

QString TableView::readout(int row, int col) const
{
    if (!m_result || row < 0 || col < 0 || row >= m_result->totalRows || col >= m_result->totalCols)
        return {};
    // Exact at the hovered position, even where a sampled table skips it (core computes that one row).
    const double v = TableFigure::exactValue(*m_result, row, col);
    const int pair = col < int(m_result->columnPair.size()) ? m_result->columnPair[std::size_t(col)] : -1;
    QString s = QStringLiteral("p = %1  \u00b7  ").arg(row);
    if (m_result->rotary) {
        const auto dims = core::pairDims(m_result->spec.layout, m_result->spec.rotaryDim, col);
        s += tr("pair %1 (dims %2, %3)").arg(col).arg(dims.first).arg(dims.second);
    } else {
        s += tr("dim %1").arg(col);
        if (pair >= 0)
            s += tr(" (pair %1)").arg(pair);
    }
    if (withholdsReadoutValues()) // View::withholdsReadoutValues: the cell named, its numbers after the guess
        return withheldReadout(s);
    if (m_showDiff) {
        // The difference image's cell: the sampled row that holds this position.
        const int r = (row - m_result->rowStart) / std::max(1, m_result->rowStep);
        if (r >= 0 && r < m_diff.rows() && col < m_diff.cols())
            s += QStringLiteral("  \u00b7  A \u2212 B %1").arg(QString::number(m_diff(r, col), 'g', 7));
        return s;
    }
    s += QStringLiteral("  \u00b7  value %1").arg(QString::number(v, 'g', 7));
    if (pair >= 0 && pair < int(m_result->frequencies.size()) && m_result->frequencies[std::size_t(pair)] > 0)
        s += tr("  \u00b7  wavelength 2\u03c0/\u03c9 = %1")
                 .arg(formatTokens(core::wavelength(m_result->frequencies[std::size_t(pair)])));
    if (m_result->rowStep > 1) {
        const int k = m_result->rowStep;
        const int shown = m_result->rowStart + (row - m_result->rowStart) / k * k;
        if (shown != row)
            s += tr("  \u00b7  this cell's colour is p = %1").arg(shown);
    }
    return s;
}

/// One paint of the table (TableView::renderContent draws with one): the layout and the window's mapping onto the
/// plot, worked out once, and the parts drawn in turn: the header, the heatmap, the cursor's row and tag, the
/// axes, the xPos note, the aliasing note, the colour bar, the footer. Nested, so that it reads the view's image,
/// window and hover.
struct TableView::Painter {
    const TableView& v;
    QPainter& p;
    TextLayout& text;
    const QRectF target;
    const Theme th;
    const Layout l;
    const double s;
    const EncodingResult& r;
    const QRectF window;
    const QFont tickFont;
    const QFontMetricsF fm;

    Painter(const TableView& view, QPainter& painter, TextLayout& layout, const QRectF& area, const Theme& theme)
        : v(view)
        , p(painter)
        , text(layout)
        , target(area)
        , th(theme)
        , l(view.layoutFor(area))
        , s(l.scale)
        , r(*view.m_result)
        , window(view.m_window)
        , tickFont(th.font(10 * s))
        , fm(tickFont)
    { }

    void draw()
    {
        drawHeader(text, l.title, th, s, v.headerTexts());
        drawHeatmap();
        drawCursor();
        drawAxes();
        drawXposNote();
        drawAliasingNote();
        drawColorBar(p, text, l.bar, ColorMap(v.m_imageMap), v.valueRange(), th, QString(), s);
        drawFooter();
    }

    double yOf(double row) const { return l.plot.top() + (row - window.top()) / window.height() * l.plot.height(); }
    double xOf(double col) const { return l.plot.left() + (col - window.left()) / window.width() * l.plot.width(); }
    /// A rectangle of the table (columns x positions) in the plot.
    QRectF toPlot(const QRectF& cells) const
    {
        return QRectF(xOf(cells.left()), yOf(cells.top()), cells.width() / window.width() * l.plot.width(),
                      cells.height() / window.height() * l.plot.height());
    }

    /// The heatmap: a straight scaled blit of the cached image; crisp cells when zoomed in. Image row i holds
    /// position rowStart + i * rowStep and is drawn over [that position, the next sample). Then the plot's frame.
    void drawHeatmap()
    {
        const QImage& image = v.m_image;
        const int k = std::max(1, r.rowStep);
        const QRectF have(0, r.rowStart, image.width(), double(image.height()) * k);
        const QRectF shown = window.intersected(have);
        if (shown != window)
            p.fillRect(l.plot, th.muted.lighter(th.kind == ThemeKind::Dark ? 60 : 160)); // rows still coming
        if (!shown.isEmpty()) {
            const QRectF source(shown.left(), (shown.top() - r.rowStart) / k, shown.width(), shown.height() / k);
            const bool zoomedIn = l.plot.width() / source.width() >= 3 || l.plot.height() / source.height() >= 3;
            p.setRenderHint(QPainter::SmoothPixmapTransform, !zoomedIn);
            if (p.paintEngine() && p.paintEngine()->type() == QPaintEngine::SVG)
                drawSvgCells(source, k);
            else
                p.drawImage(toPlot(shown), image, source);
            p.setRenderHint(QPainter::SmoothPixmapTransform, false);
        }
        p.setPen(QPen(th.muted, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(l.plot);
    }

    /// Qt's SVG writer ignores drawImage's source rectangle and would embed the whole table, one image pixel per
    /// cell, which viewers blur when they scale it. Few cells: one vector rectangle each. Otherwise: the visible
    /// cells resampled to twice the plot's size, sharp at the figure's size.
    void drawSvgCells(const QRectF& source, int k)
    {
        const QImage& image = v.m_image;
        const QRect cells = source.toAlignedRect().intersected(image.rect());
        const QRectF where(cells.x(), r.rowStart + double(cells.y()) * k, cells.width(), double(cells.height()) * k);
        p.save();
        p.setClipRect(l.plot, Qt::IntersectClip);
        if (qint64(cells.width()) * cells.height() <= maxVectorCells) {
            p.setPen(Qt::NoPen);
            for (int y = cells.top(); y <= cells.bottom(); ++y)
                for (int x = cells.left(); x <= cells.right(); ++x)
                    p.fillRect(toPlot(QRectF(x, r.rowStart + double(y) * k, 1.0, double(k))),
                               QColor::fromRgb(image.pixel(x, y)));
        } else {
            const QRectF at = toPlot(where);
            const QSize px(std::max(1, int(std::ceil(at.width() * 2))), std::max(1, int(std::ceil(at.height() * 2))));
            const bool up = px.width() >= cells.width() && px.height() >= cells.height();
            p.drawImage(at,
                        image.copy(cells).scaled(px, Qt::IgnoreAspectRatio,
                                                 up ? Qt::FastTransformation : Qt::SmoothTransformation));
        }
        p.restore();
    }

    /// The cursor's row, and its tag in the left margin: placed before the tick labels, which give way to it.
    void drawCursor()
    {
        const int cursor = v.m_state->cursor();
        if (!(cursor >= window.top() - 1 && cursor <= window.bottom()))
            return;
        const double y0 = std::max(l.plot.top(), yOf(cursor));
        const double y1 = std::min(l.plot.bottom(), yOf(cursor + 1));
        const double yc = (y0 + y1) / 2;
        p.setRenderHint(QPainter::Antialiasing, false);
        if (y1 - y0 >= 4) {
            p.setPen(QPen(th.cursor, 2 * s));
            p.drawRect(QRectF(l.plot.left(), y0, l.plot.width(), y1 - y0));
        } else {
            p.setPen(QPen(th.cursor, std::max(1.5, 1.5 * s)));
            p.drawLine(QPointF(l.plot.left(), yc), QPointF(l.plot.right(), yc));
        }
        p.setRenderHint(QPainter::Antialiasing, true);
        const QString tag = QStringLiteral("p=%1").arg(formatNumber(cursor, 7));
        const QFont tf = th.font(10 * s, true);
        const QFontMetricsF tfm(tf);
        const QRectF box(l.plot.left() - tfm.horizontalAdvance(tag) - 12 * s, yc - tfm.height() / 2 - 1,
                         tfm.horizontalAdvance(tag) + 8 * s, tfm.height() + 2);
        const QRectF label(box.center().x() - tfm.horizontalAdvance(tag) / 2, yc - tfm.height() / 2,
                           tfm.horizontalAdvance(tag), tfm.height());
        if (text.isFree(label) && !v.m_state->viewOptions().cleanSlide) { // a clean slide has no cursor tag
            p.setPen(Qt::NoPen);
            p.setBrush(th.cursor);
            p.drawRoundedRect(box, 3 * s, 3 * s);
            text.draw(label, Qt::AlignCenter, tf, Qt::white, {tag}, TextLayout::Fit::Drop);
        }
    }

    /// Axes: positions down the left, columns along the bottom. Tick labels that would touch are left out.
    /// About one label per two lines down, and per label width plus a gap across; the layout drops any that touch.
    void drawAxes()
    {
        const int ny = std::clamp(int(l.plot.height() / (fm.height() * 2)), 2, 12);
        for (double t : niceTicks(window.top(), window.bottom() - 1, ny)) {
            if (t != std::floor(t))
                continue;
            const double y = yOf(t + 0.5);
            p.setPen(th.foreground);
            p.drawLine(QPointF(l.plot.left() - 4 * s, y), QPointF(l.plot.left(), y));
            text.drawAt(QPointF(l.plot.left() - 6 * s, y), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.foreground,
                        {formatNumber(t, 7)});
        }
        const double colLabel
            = fm.horizontalAdvance(formatNumber(std::max(1.0, window.right() - 1), 7)) + fm.height() * 1.5;
        const int nx = std::clamp(int(l.plot.width() / colLabel), 2, 12);
        for (double t : niceTicks(window.left(), window.right() - 1, nx)) {
            if (t != std::floor(t))
                continue;
            const double x = xOf(t + 0.5);
            p.setPen(th.foreground);
            p.drawLine(QPointF(x, l.plot.bottom()), QPointF(x, l.plot.bottom() + 4 * s));
            text.drawAt(QPointF(x, l.plot.bottom() + 5 * s), Qt::AlignHCenter | Qt::AlignTop, tickFont, th.foreground,
                        {formatNumber(t, 7)});
        }
        text.draw(QRectF(l.plot.left(), l.plot.bottom() + 5 * s + fm.height(), l.plot.width(), fm.height()),
                  Qt::AlignHCenter | Qt::AlignTop, tickFont, th.muted, {r.columnLabel});
        p.save();
        p.translate(target.left() + 8 * s + fm.height() * 0.2, l.plot.center().y());
        p.rotate(-90);
        text.draw(QRectF(-l.plot.height() / 2, 0, l.plot.height(), fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                  tickFont, th.muted, {tr("position p"), tr("p")});
        p.restore();
    }

    /// xPos: the line naming torchscale's centre, shorter by the rule: the formula and its centre first, the aside
    /// on torchscale last.
    void drawXposNote()
    {
        const QString x = v.xposNote();
        if (x.isEmpty())
            return;
        const QString formula = x.section(QStringLiteral(", "), 0, 0);
        const QString centre = r.spec.xposCentre != 0
            ? tr("%1, c = %2").arg(formula, formatNumber(r.spec.xposCentre, 7))
            : tr("%1, c = 0").arg(formula);
        const QString named = x.section(QStringLiteral(" as torchscale"), 0, 0).section(QLatin1Char(';'), 0, 0);
        text.draw(l.subtitle, Qt::AlignLeft | Qt::AlignVCenter, tickFont, th.muted, {x, named, centre, formula},
                  TextLayout::Fit::Drop);
    }

    /// Sampled or squeezed: said on the note's line under the axes (layoutFor), never over the data. By priority:
    /// the aliasing claim first, on the left, in its longest wording that fits (the pairs whose stripes are moiré);
    /// then, on the right where room is left, how many positions share a pixel row; what does not fit is dropped.
    void drawAliasingNote()
    {
        const qreal dpr = p.device() ? p.device()->devicePixelRatioF() : 1.0;
        if (l.note.isEmpty())
            return;
        const QFont nf = th.font(10 * s, true);
        const Aliasing a = v.aliasing(l.plot.height() * dpr);
        const QString note = v.aliasingNote(l.plot.height() * dpr);
        const QString full2 = note.section(QLatin1Char('\n'), 1, 1);
        QStringList claim;
        if (!full2.isEmpty())
            claim << full2
                  << (a.last == 0 ? tr("aliasing: pair 0 shows moir\u00e9, not structure")
                                  : tr("aliasing: pairs 0\u2013%1 show moir\u00e9, not structure").arg(a.last))
                  << (a.last == 0 ? tr("aliasing in pair 0") : tr("aliasing in pairs 0\u2013%1").arg(a.last));
        QStringList rows;
        if (a.squeezed)
            rows << note.section(QLatin1Char('\n'), 0, 0)
                 << (v.onScreen() ? tr("%1 rows on %2 pixels: zoom in") : tr("%1 rows on %2 pixels"))
                        .arg(formatNumber(std::round(a.rows), 7), formatNumber(std::floor(a.pixelRows), 7))
                 << (v.onScreen() ? tr("zoom in for every row") : tr("rows sampled"));
        if (!claim.isEmpty())
            text.draw(l.note, Qt::AlignLeft | Qt::AlignVCenter, nf, th.foreground, claim, TextLayout::Fit::Drop);
        if (!rows.isEmpty())
            text.draw(l.note, (claim.isEmpty() ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter, tickFont, th.muted,
                      rows, TextLayout::Fit::Drop);
    }

    /// Footer: the hover read-out on screen, else the value range. Its wordings by priority: the range (or the
    /// hovered value) comes first, the colour map's name, then the mouse hint; what does not fit is dropped from
    /// the end, never cut. A clean slide shows no hint.
    void drawFooter()
    {
        QStringList foot;
        if (v.showsHints() && v.m_hover) {
            const QStringList parts = v.readout(v.m_hover->y(), v.m_hover->x()).split(QStringLiteral("  \u00b7  "));
            for (qsizetype n = parts.size(); n >= 1; --n)
                foot << QStringList(parts.mid(0, n)).join(QStringLiteral("  \u00b7  "));
        }
        if (foot.isEmpty()) {
            const QString range = v.m_showDiff
                ? tr("A \u2212 B %1 \u2026 %2")
                      .arg(formatNumber(v.m_diffRange.lo, 4), formatNumber(v.m_diffRange.hi, 4))
                : tr("values %1 \u2026 %2").arg(formatNumber(r.lo, 4), formatNumber(r.hi, 4));
            const QString named = range + QStringLiteral("  \u00b7  ") + colorMapName(v.m_imageMap);
            if (v.showsHints())
                foot << named + tr("  \u00b7  wheel zoom, drag pan, hover reads values")
                     << named + tr("  \u00b7  wheel zoom, drag pan");
            foot << named << range;
        }
        text.draw(l.footer, Qt::AlignLeft | Qt::AlignVCenter, tickFont,
                  v.onScreen() && v.m_hover ? th.foreground : th.muted, foot, TextLayout::Fit::Drop);
    }
};

void TableView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    if (!m_result || m_image.isNull())
        return;
    TextLayout text(p, target);
    Painter(*this, p, text, target, th).draw();
}

void TableView::wheelEvent(QWheelEvent* e)
{
    const auto at = toTable(e->position());
    if (!at)
        return;
    const double f = std::pow(0.85, e->angleDelta().y() / 120.0);
    const bool xOnly = e->modifiers() & Qt::ControlModifier;
    const bool yOnly = e->modifiers() & Qt::ShiftModifier;
    QRectF w = m_window;
    const double nw = xOnly || !yOnly ? w.width() * f : w.width();
    const double nh = yOnly || !xOnly ? w.height() * f : w.height();
    const double fx = (at->x() - w.left()) / w.width();
    const double fy = (at->y() - w.top()) / w.height();
    setWindow(QRectF(at->x() - fx * nw, at->y() - fy * nh, nw, nh));
    e->accept();
}

void TableView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() == Qt::LeftButton) {
        m_dragFrom = e->position();
        m_dragWindow = m_window;
    }
}

void TableView::mouseMoveEvent(QMouseEvent* e)
{
    if (m_dragFrom) {
        const Layout l = layoutFor(contentArea());
        const QPointF d = e->position() - *m_dragFrom;
        setWindow(m_dragWindow.translated(-d.x() / l.plot.width() * m_dragWindow.width(),
                                          -d.y() / l.plot.height() * m_dragWindow.height()));
        return;
    }
    const auto at = toTable(e->position());
    std::optional<QPoint> h;
    if (at)
        h = QPoint(int(std::floor(at->x())), int(std::floor(at->y())));
    if (h != m_hover) {
        m_hover = h;
        update();
    }
}

void TableView::mouseReleaseEvent(QMouseEvent*)
{
    m_dragFrom.reset();
}

void TableView::mouseDoubleClickEvent(QMouseEvent*)
{
    resetZoom();
}

void TableView::leaveEvent(QEvent*)
{
    if (m_hover) {
        m_hover.reset();
        update();
    }
}

} // namespace poslab::ui
