// SPDX-License-Identifier: MIT
#include "ui/views/familiesview.h"

#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

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

} // namespace

FamiliesView::FamiliesView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
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
    const HeaderTexts header{tr("Family map"), {tr("%1 schemes on three axes").arg(m_figure.data().chips.size())},
                             {tr("click a scheme to select it"), tr("click to select")}};
    l.header = QRectF(t.left() + pad, t.top() + pad * 0.5, t.width() - 2 * pad,
                      headerHeight(t.width() - 2 * pad, th, s, header));
    l.legend = QRectF(t.left() + pad, t.bottom() - pad * 0.5 - body.height() * 1.2, t.width() - 2 * pad, body.height() * 1.2);
    const FamiliesData& d = m_figure.data();
    const std::vector<core::Relation>& rels = d.columns;
    const std::vector<core::Application>& apps = d.rows;
    const std::vector<FamiliesData::Chip>& all = d.chips;
    const auto colOf = [](const FamiliesData::Chip& c) { return c.column; };
    const auto rowOf = [](const FamiliesData::Chip& c) { return c.row; };
    // Candidates, roomiest first: one line "RoPE 2021", then the year under the name, at smaller fonts (the axis
    // names one point larger, bold).
    for (double pt : {9.5, 9.0, 8.5, 8.0, 7.5, 7.0, 6.5, 6.0, 5.5, 5.0, 4.5, 4.0}) {
        const QFontMetricsF bold(th.font(std::min(10.0, pt + 1.0) * s, true));
        double rowHeader = 0, rowHeaderShort = 0;
        for (core::Application a : apps) {
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
        for (int attempt = 0; attempt < 12; ++attempt) {
            // One line, then two; the fullest cell with about sqrt(k) chips a line, then 2, then 1; full axis names,
            // then their short forms.
            const bool two = attempt % 2 == 1;
            const int cap = (attempt / 2) % 3 == 0 ? 99 : (attempt / 2) % 3 == 1 ? 2 : 1;
            const bool shortNames = attempt >= 6;
            const QFontMetricsF fm(th.font(pt * s));
            const double padX = fm.height() * 0.35, padY = fm.height() * 0.12, gap = fm.height() * 0.3;
            std::vector<QSizeF> size(all.size());
            for (std::size_t i = 0; i < all.size(); ++i) {
                const QString& name = all[i].name;
                const QString& year = all[i].year;
                const double w = two ? std::max(fm.horizontalAdvance(name), fm.horizontalAdvance(year))
                                     : fm.horizontalAdvance(name + QLatin1Char(' ') + year);
                size[i] = QSizeF(w + 2 * padX, (two ? 2 : 1) * fm.height() + 2 * padY);
            }
            // Each column as wide as its fullest cell needs with about sqrt(k) chips a line.
            std::vector<double> need(rels.size(), 0.0);
            for (std::size_t c = 0; c < rels.size(); ++c) {
                const QStringList words = columnWords(rels[c]);
                need[c] = bold.horizontalAdvance(shortNames ? words.back() : words.front()) + gap;
                for (std::size_t r = 0; r < apps.size(); ++r) {
                    double widest = 0;
                    int k = 0;
                    for (std::size_t i = 0; i < all.size(); ++i)
                        if (colOf(all[i]) == int(c) && rowOf(all[i]) == int(r)) {
                            widest = std::max(widest, size[i].width());
                            ++k;
                        }
                    const int perLine = std::clamp(int(std::ceil(std::sqrt(double(k)))), 1, cap);
                    need[c] = std::max(need[c], perLine * widest + (perLine + 1) * gap);
                }
            }
            double total = 0;
            for (double x : need)
                total += x;
            if (total > grid.width())
                continue;
            std::vector<double> colW(rels.size());
            for (std::size_t c = 0; c < rels.size(); ++c)
                colW[c] = need[c] * grid.width() / total;
            // Flow each cell's chips into lines of its column's width; a row is as tall as its fullest cell.
            std::vector<double> rowH(apps.size(), 0.0);
            std::vector<QPointF> offset(all.size());
            for (std::size_t r = 0; r < apps.size(); ++r)
                for (std::size_t c = 0; c < rels.size(); ++c) {
                    double x = gap, y = gap, lineH = 0;
                    for (std::size_t i = 0; i < all.size(); ++i) {
                        if (colOf(all[i]) != int(c) || rowOf(all[i]) != int(r))
                            continue;
                        if (x > gap && x + size[i].width() + gap > colW[c]) {
                            x = gap;
                            y += lineH + gap;
                            lineH = 0;
                        }
                        offset[i] = QPointF(x, y);
                        x += size[i].width() + gap;
                        lineH = std::max(lineH, size[i].height());
                    }
                    rowH[r] = std::max(rowH[r], y + lineH + gap);
                }
            double height = 0;
            for (double h : rowH)
                height += h;
            if (height > grid.height())
                continue;
            // Fits: spread the spare height over the rows, then place everything.
            const double spare = (grid.height() - height) / double(apps.size());
            double x = grid.left();
            for (std::size_t c = 0; c < rels.size(); ++c) {
                l.columns.push_back(QRectF(x, grid.top() - colHeaderH, colW[c], grid.height() + colHeaderH));
                x += colW[c];
            }
            double y = grid.top();
            for (std::size_t r = 0; r < apps.size(); ++r) {
                l.rows.push_back(QRectF(l.header.left(), y, l.header.width(), rowH[r] + spare));
                y += rowH[r] + spare;
            }
            for (std::size_t i = 0; i < all.size(); ++i) {
                const QRectF& col = l.columns[std::size_t(colOf(all[i]))];
                const QRectF& row = l.rows[std::size_t(rowOf(all[i]))];
                l.chips.push_back({all[i].id,
                                   QRectF(QPointF(col.left(), row.top() + spare / 2) + offset[i], size[i])});
            }
            l.fontPt = pt;
            l.twoLines = two;
            l.fits = true;
            return l;
        }
    }
    return l;
}

std::vector<FamiliesView::Chip> FamiliesView::chips(const QRectF& target) const { return layoutFor(target).chips; }

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
               {tr("Family map"), {tr("%1 schemes on three axes").arg(m_figure.data().chips.size())},
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
        text.draw(QRectF(col.left(), col.top(), col.width(), bm.height() * 1.2), Qt::AlignHCenter | Qt::AlignVCenter, bold,
                  th.foreground, columnWords(rels[c]));
        p.drawLine(QPointF(col.left(), l.grid.top()), QPointF(col.left(), l.grid.bottom()));
    }
    for (std::size_t r = 0; r < apps.size(); ++r) {
        const QRectF& row = l.rows[r];
        text.draw(QRectF(row.left(), row.top(), l.rowHeaderWidth - 4 * s, row.height()), Qt::AlignLeft | Qt::AlignVCenter,
                  bold, th.foreground, rowWords(apps[r]));
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
            text.draw(QRectF(r.left(), r.top(), r.width(), r.height() / 2), Qt::AlignHCenter | Qt::AlignBottom, chipFont,
                      col, {name});
            text.draw(QRectF(r.left(), r.center().y(), r.width(), r.height() / 2), Qt::AlignHCenter | Qt::AlignTop, chipFont,
                      th.muted, {year});
        } else {
            text.draw(r, Qt::AlignCenter, chipFont, col, {name + QLatin1Char(' ') + year, name});
        }
    }
    text.draw(l.legend, Qt::AlignLeft | Qt::AlignVCenter, th.font(9 * s), th.muted,
              {tr("filled: fixed numbers \u00b7 outlined: learned \u00b7 dashed: mixed \u00b7 dotted: none \u00b7 "
                  "thick frame: the current scheme"),
               tr("filled: fixed \u00b7 outlined: learned \u00b7 dashed: mixed"), tr("filled: fixed, outlined: learned")});
}

} // namespace poslab::ui
