// SPDX-License-Identifier: MIT
#include "ui/views/patchgridview.h"

#include "ui/lessons/lesson.h"

#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QComboBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

namespace {

/// A teaching dimension for each grid scheme when it is picked in the view (ViT-B/16's 768 is too slow to
/// redraw on every click at 24 x 24 on two cores; 64 shows the same patterns).
constexpr int viewDim = 64;

QString gridWords(const core::Grid& g)
{
    return QStringLiteral("%1 \u00d7 %2").arg(g.rows).arg(g.cols);
}

/// The image of one map: @p values (a row of patches, row-major) as rows x cols pixels.
QImage mapImage(const core::MatrixD& values, Eigen::Index row, const core::Grid& g, const ColorMap& map, ValueRange r)
{
    core::MatrixF m(g.rows, g.cols);
    for (int i = 0; i < g.rows; ++i)
        for (int j = 0; j < g.cols; ++j)
            m(i, j) = float(values(row, Eigen::Index(i) * g.cols + j));
    return matrixToImage(m, map, r);
}

} // namespace

PatchGridView::PatchGridView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
    , m_figure(
          computation, [this](bool later) { takeData(later); }, true)
{
    setFocusPolicy(Qt::StrongFocus);
    setCursor(Qt::PointingHandCursor);
    setMouseTracking(true);
    takeSpatial();
    connect(state, &WorkbenchState::spatialChanged, this, [this] {
        takeSpatial();
        if (!m_figure.isPending()) // else it redraws when the new data lands
            refresh();
    });
}

void PatchGridView::takeSpatial()
{
    if (!m_figure.update(FigureSnapshot::of(*m_state)) && !m_figure.isPending())
        showScheme(); // the same numbers: the box still follows them
}

void PatchGridView::takeData(bool later)
{
    m_data = m_figure.data();
    showScheme();
    if (later)
        refresh();
}

void PatchGridView::showScheme()
{
    if (m_scheme) {
        const QSignalBlocker block(m_scheme);
        m_scheme->setCurrentIndex(m_scheme->findData(QString::fromStdString(m_data.scheme)));
    }
}

QWidget* PatchGridView::controls()
{
    if (m_scheme)
        return m_scheme->parentWidget();
    auto* box = new QWidget(this);
    auto* lay = new QHBoxLayout(box);
    lay->setContentsMargins(0, 0, 0, 0);
    m_scheme = new QComboBox(box);
    m_scheme->setObjectName(QStringLiteral("patchGridScheme"));
    for (const core::SpatialSchemeDescriptor& d : core::spatialSchemes())
        if (d.input == core::SpatialInput::Grid)
            m_scheme->addItem(QString::fromStdString(d.info.id), QString::fromStdString(d.info.id));
    m_scheme->setToolTip(tr("The grid scheme this view draws (the window's spatial set-up)"));
    lay->addWidget(m_scheme);
    takeSpatial();
    connect(m_scheme, &QComboBox::activated, this, [this](int index) {
        SpatialSetup s = m_state->spatial();
        s.scheme = m_scheme->itemData(index).toString().toStdString();
        // Another scheme's parameters do not apply; the class token only where the scheme has one.
        s.params.clear();
        s.dim = viewDim;
        const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(s.scheme);
        s.cls = s.cls && d && d->hasClassToken;
        if (s.patch >= s.grid.patches())
            s.patch = int(s.grid.patches() / 2);
        m_state->setSpatial(s);
    });
    return box;
}

HeaderTexts PatchGridView::headerTexts() const
{
    const PatchGridData& d = m_data;
    // While comparing, "A: " or "B: " first, as the figure labels of the other views.
    const QString who = m_state->compareName().isEmpty() ? QString() : m_state->compareName() + QStringLiteral(": ");
    return {who
                + QStringLiteral("%1 \u00b7 %2, d = %3")
                      .arg(QString::fromStdString(d.scheme), gridWords(d.grid))
                      .arg(d.dim),
            {tr("similarity to patch (row %1, column %2)").arg(d.row).arg(d.col),
             tr("patch (%1, %2)").arg(d.row).arg(d.col)},
            {d.measure, d.table ? tr("cosine") : tr("score, constant content")}};
}

PatchGridView::Layout PatchGridView::layoutFor(const QRectF& t) const
{
    Layout l;
    const Theme th = theme();
    const double s = sizeScale(t);
    const double pad = 8 * s;
    const QFontMetricsF lfm(th.font(10 * s));
    l.header = QRectF(t.left() + pad, t.top() + pad * 0.5, t.width() - 2 * pad, 0);
    l.header.setHeight(headerHeight(l.header.width(), th, s, headerTexts()));
    const double caption = lfm.height() * 1.3;
    const double footer = lfm.height() * 1.4;
    const double barW = 14 * s + 6 * s + colorBarLabelWidth(th, s);
    const double gap = 2.5 * pad;
    const double top = l.header.bottom() + pad + caption;
    const double height = t.bottom() - pad - footer - top;
    const double width = t.width() - 2 * pad - barW - 3 * gap;
    // The rule: the three maps in one row, or (a tall area, a half of A | B) the two maps above and the multiples
    // with the colour bar below, whichever gives the larger maps.
    const double oneRow = std::min(width / 3, height);
    const double twoRows = std::min((t.width() - 2 * pad - gap) / 2, (height - caption - gap) / 2);
    const bool stacked = twoRows > oneRow * 1.15;
    const double side = std::max(10.0, stacked ? twoRows : oneRow);
    const core::Grid g = m_data.grid, big = m_data.largeGrid;
    const int n = std::max(g.rows, g.cols), nb = std::max(big.rows, big.cols);
    l.cell = side / n;
    double x = t.left() + pad;
    l.grid = QRectF(x, top, l.cell * g.cols, l.cell * g.rows);
    x += side + gap;
    const double bigCell = side / nb;
    l.large = QRectF(x, top, bigCell * big.cols, bigCell * big.rows);
    x += side + gap;
    double y = top;
    if (stacked) {
        x = t.left() + pad;
        y = top + side + gap + caption;
    }
    // Small multiples: n maps a side, a gap of about an eighth of a map between them.
    l.smallGap = std::max(1.0, side / (n * 9.0));
    const double map = (side - (n - 1) * l.smallGap) / n;
    l.smallCell = map / n;
    l.multiples = QRectF(x, y, g.cols * map + (g.cols - 1) * l.smallGap, g.rows * map + (g.rows - 1) * l.smallGap);
    x += side + gap;
    l.bar = QRectF(x, y, 14 * s, side);
    return l;
}

int PatchGridView::patchAt(const QRectF& target, const QPointF& pos) const
{
    if (!m_data.error.isEmpty())
        return -1;
    const Layout l = layoutFor(target);
    const core::Grid g = m_data.grid;
    if (l.grid.contains(pos)) {
        const int i = std::clamp(int((pos.y() - l.grid.top()) / l.cell), 0, g.rows - 1);
        const int j = std::clamp(int((pos.x() - l.grid.left()) / l.cell), 0, g.cols - 1);
        return i * g.cols + j;
    }
    if (l.multiples.contains(pos)) {
        const double step = l.smallCell * std::max(g.rows, g.cols) + l.smallGap;
        const int i = std::clamp(int((pos.y() - l.multiples.top()) / step), 0, g.rows - 1);
        const int j = std::clamp(int((pos.x() - l.multiples.left()) / step), 0, g.cols - 1);
        return i * g.cols + j;
    }
    return -1;
}

std::optional<ValueRange> PatchGridView::dataColourRange() const
{
    if (!m_data.error.isEmpty())
        return std::nullopt;
    return ValueRange{m_data.lo, m_data.hi};
}

QString PatchGridView::rangeQuantity() const
{
    return m_data.table ? QStringLiteral("patchgrid cosine") : QStringLiteral("patchgrid score");
}

QString PatchGridView::readout(int patch) const
{
    const PatchGridData& d = m_data;
    if (!d.error.isEmpty() || patch < 0 || patch >= d.similarity.cols())
        return {};
    const QString who = m_state->compareOwner() ? tr("%1 \u00b7 ").arg(m_state->compareName()) : QString();
    const double v = d.similarity(d.patchIndex(), patch);
    // Predict, then see: a step whose "hide" names the scores (17.2 asks for a patch's score with itself) shows
    // "?" for the score until the guess; any other step waiting for its guess withholds it too
    // (View::withholdsReadoutValues).
    const lessons::Step* pending = m_state->answerPending() ? lessons::findStep(m_state->answerPendingStep()) : nullptr;
    const bool hidden = pending && pending->hide && pending->hide->scores;
    if (withholdsReadoutValues() && !hidden)
        return withheldReadout(who + tr("patch (%1, %2)").arg(patch / d.grid.cols).arg(patch % d.grid.cols));
    return who
        + tr("patch (%1, %2)  \u00b7  %3 %4 to (%5, %6)")
              .arg(patch / d.grid.cols)
              .arg(patch % d.grid.cols)
              .arg(d.table ? tr("cosine") : tr("score"), hidden ? QStringLiteral("?") : QString::number(v, 'g', 4))
              .arg(d.row)
              .arg(d.col);
}

int PatchGridView::hoveredPatch(bool sideB) const
{
    if (!sideB)
        return m_hover;
    const auto* twin
        = showsHalves() ? qobject_cast<const PatchGridView*>(const_cast<PatchGridView*>(this)->compareTwin()) : nullptr;
    return twin ? twin->m_hover : -1;
}

QString PatchGridView::hoverReadout() const
{
    if (const int b = hoveredPatch(true); b >= 0)
        return qobject_cast<const PatchGridView*>(const_cast<PatchGridView*>(this)->compareTwin())->readout(b);
    return readout(m_hover);
}

void PatchGridView::selectPatch(int patch, const core::Grid& grid)
{
    const SpatialSetup& now = m_state->spatial();
    if (patch < 0 || grid.cols < 1)
        return;
    if (!(grid == now.grid)) {
        const auto [row, col] = core::samePlace(grid, patch / grid.cols, patch % grid.cols, now.grid);
        patch = row * now.grid.cols + col;
    }
    if (patch != now.patch) {
        SpatialSetup s = now;
        s.patch = patch;
        m_state->setSpatial(s);
    }
}

void PatchGridView::mousePressEvent(QMouseEvent* e)
{
    // A's drawing (the whole widget, or its left half while A | B), or B's half: B shares A's selection.
    if (const QRectF b = twinArea(); !b.isEmpty() && b.contains(e->position())) {
        if (auto* twin = qobject_cast<PatchGridView*>(compareTwin()))
            selectPatch(twin->patchAt(QRectF(QPointF(0, 0), b.size()), e->position() - b.topLeft()), twin->m_data.grid);
    } else {
        selectPatch(patchAt(contentArea(), e->position()), m_data.grid);
    }
    setFocus(Qt::MouseFocusReason);
}

void PatchGridView::mouseMoveEvent(QMouseEvent* e)
{
    // B's half reaches the twin through View::event, in the twin's own coordinates.
    const int h = patchAt(contentArea(), e->position());
    if (h != m_hover) {
        m_hover = h;
        update();
    }
}

void PatchGridView::leaveEvent(QEvent*)
{
    if (m_hover >= 0) {
        m_hover = -1;
        update();
    }
}

bool PatchGridView::event(QEvent* e)
{
    if (e->type() == QEvent::ShortcutOverride && m_data.error.isEmpty()) {
        const int key = static_cast<QKeyEvent*>(e)->key();
        if (static_cast<QKeyEvent*>(e)->modifiers() == Qt::NoModifier
            && (key == Qt::Key_Left || key == Qt::Key_Right || key == Qt::Key_Up || key == Qt::Key_Down)) {
            e->accept(); // delivered as a key press to keyPressEvent
            return true;
        }
    }
    return View::event(e);
}

void PatchGridView::keyPressEvent(QKeyEvent* e)
{
    if (!m_data.error.isEmpty())
        return View::keyPressEvent(e);
    int i = m_data.row, j = m_data.col;
    switch (e->key()) {
    case Qt::Key_Left: --j; break;
    case Qt::Key_Right: ++j; break;
    case Qt::Key_Up: --i; break;
    case Qt::Key_Down: ++i; break;
    default: return View::keyPressEvent(e);
    }
    e->accept();
    if (i < 0 || j < 0 || i >= m_data.grid.rows || j >= m_data.grid.cols)
        return; // at the edge: the selection stays
    SpatialSetup s = m_state->spatial();
    s.patch = i * m_data.grid.cols + j;
    m_state->setSpatial(s, true);
}

void PatchGridView::render(QPainter& painter, const QRectF& target)
{
    // The spatial set-up is the view's own (the 1-D result does not change it); A | B while comparing.
    if (showsHalves())
        View::render(painter, target);
    else
        renderAlone(painter, target);
}

void PatchGridView::renderContent(QPainter& p, const QRectF& t)
{
    const Theme th = theme();
    p.fillRect(t, th.background);
    if (!m_data.error.isEmpty()) {
        drawNotApplicable(p, t, th, tr("Cannot draw the patch grid"), m_data.error);
        return;
    }
    const double s = sizeScale(t);
    const Layout l = layoutFor(t);
    TextLayout text(p, t);
    const PatchGridData& d = m_data;
    drawHeader(text, l.header, th, s, headerTexts());

    const QFont labelFont = th.font(10 * s);
    const QFontMetricsF lfm(labelFont);
    // The data's own range on a sequential map: a 2-D sin-cos table's cosines lie between about 0.3 and 1, which a
    // scale from -1 to 1 would draw as one colour.
    // Side by side: the range shared with B (View::shareCompareRange), unless independent_ranges is on.
    const ValueRange range = m_heldRange.value_or(ValueRange{d.lo, d.hi});
    const ColorMap map(ColorMapKind::Viridis);
    const auto caption = [&](const QRectF& panel, double side, const QStringList& words) {
        text.draw(QRectF(panel.left(), panel.top() - lfm.height() * 1.25, std::max(side, panel.width()), lfm.height()),
                  Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground, words);
    };
    const double side = l.bar.height();
    const auto outline = [&](const QRectF& r, double width) {
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(th.background, width + 2 * s));
        p.drawRect(r);
        p.setPen(QPen(th.foreground, width));
        p.drawRect(r);
    };
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);

    // The selected patch's map on the set-up's grid.
    caption(l.grid, side,
            {tr("(%1, %2) on %3").arg(d.row).arg(d.col).arg(gridWords(d.grid)), tr("on %1").arg(gridWords(d.grid)),
             gridWords(d.grid)});
    p.drawImage(l.grid, mapImage(d.similarity, d.patchIndex(), d.grid, map, range));
    outline(QRectF(l.grid.left() + d.col * l.cell, l.grid.top() + d.row * l.cell, l.cell, l.cell), 1.6 * s);

    // The same place on the larger grid.
    caption(l.large, side,
            {tr("(%1, %2) on %3").arg(d.largeRow).arg(d.largeCol).arg(gridWords(d.largeGrid)),
             tr("on %1").arg(gridWords(d.largeGrid)), gridWords(d.largeGrid)});
    p.drawImage(l.large, mapImage(d.largeRowValues, 0, d.largeGrid, map, range));
    const double bigCell = l.large.width() / d.largeGrid.cols;
    outline(QRectF(l.large.left() + d.largeCol * bigCell, l.large.top() + d.largeRow * bigCell, bigCell, bigCell),
            1.6 * s);

    // Every patch's map at its place (ViT Figure 7).
    caption(l.multiples, side, {tr("every patch (as ViT's Figure 7)"), tr("every patch"), tr("all")});
    const double mapSide = l.smallCell * std::max(d.grid.rows, d.grid.cols);
    for (int i = 0; i < d.grid.rows; ++i)
        for (int j = 0; j < d.grid.cols; ++j) {
            const QRectF r(l.multiples.left() + j * (mapSide + l.smallGap),
                           l.multiples.top() + i * (mapSide + l.smallGap), l.smallCell * d.grid.cols,
                           l.smallCell * d.grid.rows);
            p.drawImage(r, mapImage(d.similarity, Eigen::Index(i) * d.grid.cols + j, d.grid, map, range));
        }
    outline(QRectF(l.multiples.left() + d.col * (mapSide + l.smallGap),
                   l.multiples.top() + d.row * (mapSide + l.smallGap), l.smallCell * d.grid.cols,
                   l.smallCell * d.grid.rows),
            1.2 * s);

    drawColorBar(p, text, l.bar, map, range, th, QString(), s);

    // The footer: how the larger grid is reached.
    const double footTop = std::max({l.grid.bottom(), l.large.bottom(), l.multiples.bottom()}) + lfm.height() * 0.4;
    const QRectF foot(t.left() + 8 * s, footTop, t.width() - 16 * s, lfm.height());
    if (showsHints() && m_hover >= 0) { // the patch under the mouse, on screen only
        const QString r = readout(m_hover);
        text.draw(foot, Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground,
                  {r, r.section(QStringLiteral("  \u00b7  "), 0, 1)}, TextLayout::Fit::Drop);
        return;
    }
    text.draw(foot, Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.muted,
              {tr("%1 \u2192 %2: %3. Click a patch or use the arrow keys.")
                   .arg(gridWords(d.grid), gridWords(d.largeGrid), d.resolutionNote),
               tr("%1 \u2192 %2: %3").arg(gridWords(d.grid), gridWords(d.largeGrid), d.resolutionNote),
               d.resolutionNote, d.resized ? tr("table resized") : tr("no resize")},
              TextLayout::Fit::Drop);
}

std::pair<QString, QString> PatchGridView::ownScheme() const
{
    return {spatialSchemeLabel(m_state->spatial()), spatialSummary(m_state->spatial())};
}

} // namespace poslab::ui
