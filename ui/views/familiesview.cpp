// SPDX-License-Identifier: MIT
#include "ui/views/familiesview.h"

#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <optional>

namespace poslab::ui {

namespace {

QStringList rowWords(core::Application a)
{
    switch (a) {
    case core::Application::Embedding: return {QStringLiteral("added to the input"), QStringLiteral("input")};
    case core::Application::QueryKeyRotation: return {QStringLiteral("q, k rotated"), QStringLiteral("rotated")};
    case core::Application::ScoreBias: return {QStringLiteral("added to the logits"), QStringLiteral("logits")};
    case core::Application::KeysValues: return {QStringLiteral("keys and values"), QStringLiteral("k, v")};
    case core::Application::Mixed: return {QStringLiteral("mixed")};
    case core::Application::Nothing: return {QStringLiteral("nowhere"), QStringLiteral("none")};
    }
    return {QString()};
}

QStringList columnWords(core::Relation r)
{
    const QString full = QString::fromLatin1(core::relationName(r).data());
    switch (r) {
    case core::Relation::Absolute: return {full, QStringLiteral("abs.")};
    case core::Relation::Relative: return {full, QStringLiteral("rel.")};
    case core::Relation::Contextual: return {full, QStringLiteral("context.")};
    default: return {full};
    }
}

/// The chip grid of one layout attempt: each chip's size and its offset in its cell, each column's width and each
/// row's height (before the spare height is spread over the rows).
struct ChipFlow {
    std::vector<QSizeF> size;
    std::vector<QPointF> offset;
    std::vector<double> colW, rowH;
};

/// Each chip's size in @p fm: "RoPE 2021" on one line, or (@p two) the year under the name.
std::vector<QSizeF> chipSizes(const std::vector<FamiliesData::Chip>& all, const QFontMetricsF& fm, bool two)
{
    const double padX = fm.height() * 0.35, padY = fm.height() * 0.12;
    std::vector<QSizeF> size(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        const QString& name = all[i].name;
        const QString& year = all[i].year;
        const double w = two ? std::max(fm.horizontalAdvance(name), fm.horizontalAdvance(year))
                             : fm.horizontalAdvance(name + QLatin1Char(' ') + year);
        size[i] = QSizeF(w + 2 * padX, (two ? 2 : 1) * fm.height() + 2 * padY);
    }
    return size;
}

/// Each column's width: its name (in @p bold, short with @p shortNames) and its fullest cell with about sqrt(k)
/// chips a line, at most @p cap.
std::vector<double> columnNeeds(const FamiliesData& d, const std::vector<QSizeF>& size, const QFontMetricsF& bold,
                                double gap, int cap, bool shortNames)
{
    std::vector<double> need(d.columns.size(), 0.0);
    for (std::size_t c = 0; c < d.columns.size(); ++c) {
        const QStringList words = columnWords(d.columns[c]);
        need[c] = bold.horizontalAdvance(shortNames ? words.back() : words.front()) + gap;
        for (std::size_t r = 0; r < d.rows.size(); ++r) {
            double widest = 0;
            int k = 0;
            for (std::size_t i = 0; i < d.chips.size(); ++i)
                if (d.chips[i].column == int(c) && d.chips[i].row == int(r)) {
                    widest = std::max(widest, size[i].width());
                    ++k;
                }
            const int perLine = std::clamp(int(std::ceil(std::sqrt(double(k)))), 1, cap);
            need[c] = std::max(need[c], perLine * widest + (perLine + 1) * gap);
        }
    }
    return need;
}

/// Flows each cell's chips into lines of its column's width (f.colW); a row is as tall as its fullest cell.
void flowCells(const FamiliesData& d, double gap, ChipFlow& f)
{
    f.rowH.assign(d.rows.size(), 0.0);
    f.offset.assign(d.chips.size(), QPointF());
    for (std::size_t r = 0; r < d.rows.size(); ++r)
        for (std::size_t c = 0; c < d.columns.size(); ++c) {
            double x = gap, y = gap, lineH = 0;
            for (std::size_t i = 0; i < d.chips.size(); ++i) {
                if (d.chips[i].column != int(c) || d.chips[i].row != int(r))
                    continue;
                if (x > gap && x + f.size[i].width() + gap > f.colW[c]) {
                    x = gap;
                    y += lineH + gap;
                    lineH = 0;
                }
                f.offset[i] = QPointF(x, y);
                x += f.size[i].width() + gap;
                lineH = std::max(lineH, f.size[i].height());
            }
            f.rowH[r] = std::max(f.rowH[r], y + lineH + gap);
        }
}

/// Attempt @p attempt (0 to 11) at @p pt points: one line, then two; the fullest cell with about sqrt(k) chips a
/// line, then 2, then 1; full axis names, then their short forms. The flow, when it fits @p grid.
std::optional<ChipFlow> flowChips(const FamiliesData& d, const QRectF& grid, const QFontMetricsF& fm,
                                  const QFontMetricsF& bold, int attempt)
{
    const bool two = attempt % 2 == 1;
    const int cap = (attempt / 2) % 3 == 0 ? 99 : (attempt / 2) % 3 == 1 ? 2 : 1;
    const bool shortNames = attempt >= 6;
    const double gap = fm.height() * 0.3;
    ChipFlow f;
    f.size = chipSizes(d.chips, fm, two);
    const std::vector<double> need = columnNeeds(d, f.size, bold, gap, cap, shortNames);
    double total = 0;
    for (double x : need)
        total += x;
    if (total > grid.width())
        return std::nullopt;
    f.colW.resize(d.columns.size());
    for (std::size_t c = 0; c < d.columns.size(); ++c)
        f.colW[c] = need[c] * grid.width() / total;
    flowCells(d, gap, f);
    double height = 0;
    for (double h : f.rowH)
        height += h;
    if (height > grid.height())
        return std::nullopt;
    return f;
}

} // namespace

FamiliesView::FamiliesView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
    , m_figure(computation, [this](bool later) {
        if (later)
            refresh();
    })
{
    setCursor(Qt::PointingHandCursor);
    // The map frames the current scheme: its figure follows the set-up (one path sets it, applySetup).
    connect(state, &WorkbenchState::setupChanged, this, [this] { m_figure.update(FigureSnapshot::of(*m_state)); });
    m_figure.update(FigureSnapshot::of(*m_state));
}

FamiliesView::Layout FamiliesView::layoutFor(const QRectF& t) const
{
    Layout l;
    const Theme th = theme();
    const double s = sizeScale(t);
    const double pad = 8 * s;
    const QFontMetricsF body(th.font(10 * s));
    const HeaderTexts header{tr("Family map"),
                             {tr("%1 schemes on three axes").arg(m_figure.data().chips.size())},
                             {tr("click a scheme to select it"), tr("click to select")}};
    l.header = QRectF(t.left() + pad, t.top() + pad * 0.5, t.width() - 2 * pad,
                      headerHeight(t.width() - 2 * pad, th, s, header));
    l.legend = QRectF(t.left() + pad, t.bottom() - pad * 0.5 - body.height() * 1.2, t.width() - 2 * pad,
                      body.height() * 1.2);
    const FamiliesData& d = m_figure.data();
    // Candidates, roomiest first: one line "RoPE 2021", then the year under the name, at smaller fonts (the axis
    // names one point larger, bold).
    for (double pt : {9.5, 9.0, 8.5, 8.0, 7.5, 7.0, 6.5, 6.0, 5.5, 5.0, 4.5, 4.0}) {
        const QFontMetricsF bold(th.font(std::min(10.0, pt + 1.0) * s, true));
        double rowHeader = 0, rowHeaderShort = 0;
        for (core::Application a : d.rows) {
            const QStringList w = rowWords(a);
            rowHeader = std::max(rowHeader, bold.horizontalAdvance(w.front()));
            rowHeaderShort = std::max(rowHeaderShort, bold.horizontalAdvance(w.back()));
        }
        l.rowHeaderWidth = (rowHeader <= t.width() * 0.22 ? rowHeader : rowHeaderShort) + pad;
        const double colHeaderH = bold.height() * 1.3;
        const QRectF grid(l.header.left() + l.rowHeaderWidth, l.header.bottom() + pad * 0.5 + colHeaderH,
                          l.header.width() - l.rowHeaderWidth,
                          l.legend.top() - pad * 0.5 - (l.header.bottom() + pad * 0.5 + colHeaderH));
        l.grid = grid;
        if (grid.width() <= 0 || grid.height() <= 0)
            continue;
        const QFontMetricsF fm(th.font(pt * s));
        for (int attempt = 0; attempt < 12; ++attempt) {
            const std::optional<ChipFlow> f = flowChips(d, grid, fm, bold, attempt);
            if (!f)
                continue;
            // Fits: spread the spare height over the rows, then place everything.
            double height = 0;
            for (double h : f->rowH)
                height += h;
            const double spare = (grid.height() - height) / double(d.rows.size());
            double x = grid.left();
            for (std::size_t c = 0; c < d.columns.size(); ++c) {
                l.columns.push_back(QRectF(x, grid.top() - colHeaderH, f->colW[c], grid.height() + colHeaderH));
                x += f->colW[c];
            }
            double y = grid.top();
            for (std::size_t r = 0; r < d.rows.size(); ++r) {
                l.rows.push_back(QRectF(l.header.left(), y, l.header.width(), f->rowH[r] + spare));
                y += f->rowH[r] + spare;
            }
            for (std::size_t i = 0; i < d.chips.size(); ++i) {
                const QRectF& col = l.columns[std::size_t(d.chips[i].column)];
                const QRectF& row = l.rows[std::size_t(d.chips[i].row)];
                l.chips.push_back(
                    {d.chips[i].id, QRectF(QPointF(col.left(), row.top() + spare / 2) + f->offset[i], f->size[i])});
            }
            l.fontPt = pt;
            l.twoLines = attempt % 2 == 1;
            l.fits = true;
            return l;
        }
    }
    return l;
}

std::vector<FamiliesView::Chip> FamiliesView::chips(const QRectF& target) const
{
    return layoutFor(target).chips;
}

QString FamiliesView::schemeAt(const QRectF& target, const QPointF& pos) const
{
    for (const Chip& c : chips(target))
        if (c.rect.contains(pos))
            return c.id;
    return {};
}

void FamiliesView::mousePressEvent(QMouseEvent* e)
{
    const QString id = schemeAt(contentArea(), e->position());
    if (!id.isEmpty() && id != m_state->schemeId())
        m_state->setScheme(id);
}

void FamiliesView::render(QPainter& painter, const QRectF& target)
{
    renderAlone(painter, target);
}

void FamiliesView::renderContent(QPainter& p, const QRectF& t)
{
    const Theme th = theme();
    p.fillRect(t, th.background);
    const Layout l = layoutFor(t);
    if (!l.fits) {
        drawNotApplicable(p, t, th, tr("Too small"), tooSmallReason());
        return;
    }
    const double s = sizeScale(t);
    TextLayout text(p, t);
    drawHeader(text, l.header, th, s,
               {tr("Family map"),
                {tr("%1 schemes on three axes").arg(m_figure.data().chips.size())},
                {tr("click a scheme to select it"), tr("click to select")}});
    const FamiliesData& d = m_figure.data();
    const std::vector<core::Relation>& rels = d.columns;
    const std::vector<core::Application>& apps = d.rows;
    const QFont bold = th.font(std::min(10.0, l.fontPt + 1.0) * s, true);
    const QFontMetricsF bm(bold);
    // Column headers (what the encoding describes) and row headers (where it is applied), with the grid.
    p.setPen(QPen(th.grid, 1));
    for (std::size_t c = 0; c < rels.size(); ++c) {
        const QRectF& col = l.columns[c];
        text.draw(QRectF(col.left(), col.top(), col.width(), bm.height() * 1.2), Qt::AlignHCenter | Qt::AlignVCenter,
                  bold, th.foreground, columnWords(rels[c]));
        p.drawLine(QPointF(col.left(), l.grid.top()), QPointF(col.left(), l.grid.bottom()));
    }
    for (std::size_t r = 0; r < apps.size(); ++r) {
        const QRectF& row = l.rows[r];
        text.draw(QRectF(row.left(), row.top(), l.rowHeaderWidth - 4 * s, row.height()),
                  Qt::AlignLeft | Qt::AlignVCenter, bold, th.foreground, rowWords(apps[r]));
        p.drawLine(QPointF(l.grid.left(), row.top()), QPointF(l.grid.right(), row.top()));
    }
    p.drawLine(QPointF(l.grid.left(), l.grid.bottom()), QPointF(l.grid.right(), l.grid.bottom()));

    // The chips: filled for fixed numbers, outlined for learned ones, dashed for mixed, dotted for none.
    const QFont chipFont = th.font(l.fontPt * s);
    const QFontMetricsF cm(chipFont);
    for (std::size_t i = 0; i < d.chips.size(); ++i) {
        const FamiliesData::Chip& chip = d.chips[i];
        const QRectF r = l.chips[i].rect;
        const bool current = chip.current;
        QColor fill = Qt::transparent;
        QPen pen(th.accent, 1.5 * s);
        switch (chip.origin) {
        case core::Origin::Fixed:
            fill = th.accent;
            fill.setAlphaF(0.28);
            break;
        case core::Origin::Learned: pen = QPen(th.accent2, 1.8 * s); break;
        case core::Origin::Mixed: pen = QPen(th.accent2, 1.8 * s, Qt::DashLine); break;
        case core::Origin::None: pen = QPen(th.muted, 1.5 * s, Qt::DotLine); break;
        }
        if (current)
            pen = QPen(th.cursor, 3.5 * s, pen.style());
        p.setPen(pen);
        p.setBrush(fill);
        p.drawRoundedRect(r, cm.height() * 0.3, cm.height() * 0.3);
        const QString& name = chip.name;
        const QString& year = chip.year;
        const QColor col = current ? th.foreground : th.foreground;
        if (l.twoLines) {
            text.draw(QRectF(r.left(), r.top(), r.width(), r.height() / 2), Qt::AlignHCenter | Qt::AlignBottom,
                      chipFont, col, {name});
            text.draw(QRectF(r.left(), r.center().y(), r.width(), r.height() / 2), Qt::AlignHCenter | Qt::AlignTop,
                      chipFont, th.muted, {year});
        } else {
            text.draw(r, Qt::AlignCenter, chipFont, col, {name + QLatin1Char(' ') + year, name});
        }
    }
    text.draw(l.legend, Qt::AlignLeft | Qt::AlignVCenter, th.font(9 * s), th.muted,
              {tr("filled: fixed numbers \u00b7 outlined: learned \u00b7 dashed: mixed \u00b7 dotted: none \u00b7 "
                  "thick frame: the current scheme"),
               tr("filled: fixed \u00b7 outlined: learned \u00b7 dashed: mixed"),
               tr("filled: fixed, outlined: learned")});
}

} // namespace poslab::ui
