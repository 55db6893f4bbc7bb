// SPDX-License-Identifier: MIT
#include "ui/render/textlayout.h"

#include <QFontMetricsF>
#include <QHash>
#include <QPainter>
#include <QStaticText>
#include <QTextLayout>

#include <algorithm>
#include <cmath>

namespace poslab::ui {
namespace {

thread_local TextRecord* currentRecord = nullptr;

/// Fewest characters an elided label keeps before the "…"; shorter, it says nothing and is dropped.
constexpr int minElidedChars = 4;

bool overlaps(const QRectF& a, const QRectF& b, double tolerance)
{
    const QRectF i = a.intersected(b);
    return i.width() > tolerance && i.height() > tolerance;
}

/// A horizontal gap between neighbouring labels (about a word space and a half), so that "pair 0" and
/// "pair 9" never touch and neighbouring cells' labels do not read as one line.
double gapFor(const QFontMetricsF& fm)
{
    return std::max(2.0, fm.height() * 0.45);
}

/// Liang-Barsky: the part [t0, t1] of the segment @p s (s(t) = p1 + t (p2 - p1)) inside @p r, false when none is.
bool clipSegment(const QLineF& s, const QRectF& r, double* t0Out = nullptr, double* t1Out = nullptr)
{
    if (!(r.width() >= 0) || !(r.height() >= 0))
        return false;
    double t0 = 0.0, t1 = 1.0;
    const double p[4] = {-s.dx(), s.dx(), -s.dy(), s.dy()};
    const double q[4] = {s.x1() - r.left(), r.right() - s.x1(), s.y1() - r.top(), r.bottom() - s.y1()};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0)
                return false; // parallel to this edge and outside it
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0.0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1)
            return false;
    }
    if (t0Out)
        *t0Out = t0;
    if (t1Out)
        *t1Out = t1;
    return true;
}

/// The bounding box of @p segments.
QRectF segmentsBox(const QList<QLineF>& segments)
{
    QRectF box;
    for (const QLineF& l : segments)
        box |= QRectF(l.p1(), l.p2()).normalized().adjusted(-0.01, -0.01, 0.01, 0.01);
    return box;
}

QString describe(const QRectF& r)
{
    return QStringLiteral("%1,%2 %3x%4")
        .arg(r.x(), 0, 'f', 1)
        .arg(r.y(), 0, 'f', 1)
        .arg(r.width(), 0, 'f', 1)
        .arg(r.height(), 0, 'f', 1);
}

} // namespace

double textAdvance(const QFont& font, const QString& text)
{
    thread_local QHash<std::pair<QFont, QString>, double> widths;
    std::pair<QFont, QString> key(font, text);
    if (const auto it = widths.constFind(key); it != widths.constEnd())
        return *it;
    if (widths.size() >= 8192)
        widths.clear(); // labels that change with every value (a slider's number) would grow it without end
    const double w = QFontMetricsF(font).horizontalAdvance(text);
    widths.insert(std::move(key), w);
    return w;
}

TextRecord::TextRecord()
    : m_previous(currentRecord)
{
    currentRecord = this;
}

TextRecord::~TextRecord()
{
    currentRecord = m_previous;
}

TextRecord* TextRecord::current()
{
    return currentRecord;
}

QStringList textCollisions(const std::vector<DrawnText>& items, double tolerance)
{
    QStringList out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const DrawnText& a = items[i];
        const QRectF inside = a.bounds.adjusted(-tolerance, -tolerance, tolerance, tolerance);
        if (!inside.contains(a.rect))
            out << QStringLiteral("'%1' (%2) leaves its view (%3)").arg(a.text, describe(a.rect), describe(a.bounds));
        for (std::size_t j = i + 1; j < items.size(); ++j)
            if (overlaps(a.rect, items[j].rect, tolerance))
                out << QStringLiteral("'%1' (%2) overlaps '%3' (%4)")
                           .arg(a.text, describe(a.rect), items[j].text, describe(items[j].rect));
    }
    return out;
}

bool segmentMeetsRect(const QLineF& s, const QRectF& r)
{
    return clipSegment(s, r);
}

QStringList linesThroughText(const std::vector<DrawnText>& items, const std::vector<DrawnLine>& lines, double tolerance)
{
    QStringList out;
    std::vector<QRectF> boxes;
    boxes.reserve(lines.size());
    for (const DrawnLine& l : lines)
        boxes.push_back(segmentsBox(l.segments));
    for (const DrawnText& item : items) {
        const QRectF inner = item.rect.adjusted(tolerance, tolerance, -tolerance, -tolerance);
        if (inner.width() <= 0 || inner.height() <= 0)
            continue;
        for (std::size_t k = 0; k < lines.size(); ++k) {
            if (!boxes[k].intersects(inner))
                continue;
            for (const QLineF& s : lines[k].segments)
                if (clipSegment(s, inner)) {
                    out << QStringLiteral("'%1' (%2) crossed by the line '%3' (%4,%5 to %6,%7)")
                               .arg(item.text, describe(item.rect), lines[k].what)
                               .arg(s.x1(), 0, 'f', 1)
                               .arg(s.y1(), 0, 'f', 1)
                               .arg(s.x2(), 0, 'f', 1)
                               .arg(s.y2(), 0, 'f', 1);
                    break;
                }
        }
    }
    return out;
}

DrawnLine deviceLine(const QPainter& painter, const QPolygonF& line, const QString& what, const QRectF& clip)
{
    DrawnLine out{what, {}};
    const QTransform& t = painter.transform();
    out.segments.reserve(line.size());
    for (qsizetype i = 1; i < line.size(); ++i) {
        QLineF s(line[i - 1], line[i]);
        if (!std::isfinite(s.x1()) || !std::isfinite(s.y1()) || !std::isfinite(s.x2()) || !std::isfinite(s.y2()))
            continue;
        if (!clip.isEmpty()) {
            double t0 = 0, t1 = 1;
            if (!clipSegment(s, clip, &t0, &t1))
                continue;
            s = QLineF(s.pointAt(t0), s.pointAt(t1));
        }
        out.segments.append(QLineF(t.map(s.p1()), t.map(s.p2())));
    }
    return out;
}

void recordLine(const QPainter& painter, const QPolygonF& line, const QString& what, const QRectF& clip)
{
    if (TextRecord* rec = TextRecord::current())
        rec->addLine(deviceLine(painter, line, what, clip));
}

TextLayout::TextLayout(QPainter& painter, const QRectF& bounds)
    : m_painter(painter)
    , m_bounds(bounds)
    , m_deviceBounds(painter.transform().mapRect(bounds))
{ }

bool TextLayout::isFree(const QRectF& r) const
{
    return isFreeOnDevice(m_painter.transform().mapRect(r));
}

bool TextLayout::isFreeOnDevice(const QRectF& d) const
{
    const double eps = 0.01;
    if (!m_deviceBounds.adjusted(-eps, -eps, eps, eps).contains(d))
        return false;
    for (const QRectF& p : m_placed)
        if (overlaps(d, p, eps))
            return false;
    // A kept line may touch the box's edge (a label beside it) but not run through it: the tests' rule
    // (linesThroughText) with half its tolerance.
    const QRectF inner = d.adjusted(0.5, 0.5, -0.5, -0.5);
    for (const auto& [box, segments] : m_lines) {
        if (!box.intersects(inner))
            continue;
        for (const QLineF& s : segments)
            if (clipSegment(s, inner))
                return false;
    }
    return true;
}

void TextLayout::keepClearOf(const QPolygonF& line, const QString& what, const QRectF& clip)
{
    DrawnLine d = deviceLine(m_painter, line, what, clip);
    if (d.segments.isEmpty())
        return;
    m_lines.emplace_back(segmentsBox(d.segments), d.segments);
    if (TextRecord* rec = TextRecord::current())
        rec->addLine(d);
}

QRectF TextLayout::boxFor(const QRectF& box, Qt::Alignment align, double width, double height) const
{
    double x = box.left();
    if (align & Qt::AlignRight)
        x = box.right() - width;
    else if (align & Qt::AlignHCenter)
        x = box.center().x() - width / 2;
    double y = box.top();
    if (align & Qt::AlignBottom)
        y = box.bottom() - height;
    else if (align & Qt::AlignVCenter)
        y = box.center().y() - height / 2;
    return QRectF(x, y, width, height);
}

QRectF TextLayout::freeRoom(const QRectF& limits, const QRectF& line, double anchor, Qt::Alignment align) const
{
    // Work in painter coordinates: placed boxes come back through the inverse transform (exact for the
    // translations and quarter turns views use).
    const QTransform inv = m_painter.transform().inverted();
    double lo = std::max(limits.left(), m_bounds.left());
    double hi = std::min(limits.right(), m_bounds.right());
    if (line.top() < m_bounds.top() - 0.01 || line.bottom() > m_bounds.bottom() + 0.01)
        return {};
    // The placed text, and the pieces of kept lines that pass through the line's band, bound the room.
    std::vector<QRectF> blockers = m_placed;
    if (!m_lines.empty()) {
        const QRectF band = m_painter.transform().mapRect(line).adjusted(-1e4, 0.5, 1e4, -0.5);
        const QRectF bandV = m_painter.transform().mapRect(line).adjusted(0.5, -1e4, -0.5, 1e4);
        // (A rotated label's band runs vertically on the device.)
        const QRectF& b = m_painter.transform().isRotating() ? bandV : band;
        for (const auto& [box, segments] : m_lines) {
            if (!box.intersects(b))
                continue;
            for (const QLineF& s : segments) {
                double t0 = 0, t1 = 0;
                if (clipSegment(s, b, &t0, &t1))
                    blockers.push_back(
                        QRectF(s.pointAt(t0), s.pointAt(t1)).normalized().adjusted(-0.5, -0.5, 0.5, 0.5));
            }
        }
    }
    for (const QRectF& d : blockers) {
        const QRectF p = inv.mapRect(d);
        if (p.bottom() <= line.top() + 0.01 || p.top() >= line.bottom() - 0.01)
            continue;
        if (p.right() <= lo || p.left() >= hi)
            continue;
        if (p.left() >= anchor)
            hi = std::min(hi, p.left());
        else if (p.right() <= anchor)
            lo = std::max(lo, p.right());
        else
            return {}; // placed text covers the anchor itself
    }
    if (align & Qt::AlignHCenter) {
        const double half = std::min(anchor - lo, hi - anchor);
        lo = anchor - half;
        hi = anchor + half;
    }
    if (hi <= lo)
        return {};
    return QRectF(lo, line.top(), hi - lo, line.height());
}

void TextLayout::paint(const QRectF& r, const QFont& font, const QColor& color, const QString& text,
                       const QString& fullText)
{
    const QString& full = m_wholeParagraph.isEmpty() ? fullText : m_wholeParagraph;
    m_painter.save();
    m_painter.setFont(font);
    m_painter.setPen(color);
    if (m_painter.device() && m_painter.device()->devType() == QInternal::Widget) {
        // On screen the label's shaped glyphs are kept (per font and text on this thread) and drawn again on the
        // next frame: shaping every label of every view on every frame was about a tenth of a frame. Exports
        // draw the text itself (an SVG keeps it as text).
        thread_local QHash<std::pair<QFont, QString>, QStaticText> shaped;
        std::pair<QFont, QString> key(font, text);
        auto it = shaped.find(key);
        if (it == shaped.end()) {
            if (shaped.size() >= 4096)
                shaped.clear();
            QStaticText st(text);
            st.setTextFormat(Qt::PlainText);
            st.prepare(QTransform(), font);
            it = shaped.insert(std::move(key), st);
        }
        m_painter.drawStaticText(r.topLeft(), *it);
    } else {
        const QFontMetricsF fm(font);
        m_painter.drawText(QPointF(r.left(), r.top() + fm.ascent()), text);
    }
    m_painter.restore();
    const QRectF d = m_painter.transform().mapRect(r);
    m_placed.push_back(d);
    if (text != full)
        m_elided.push_back({r, full});
    if (TextRecord* rec = TextRecord::current())
        rec->add({text, full, d, m_deviceBounds});
}

QRectF TextLayout::draw(const QRectF& box, Qt::Alignment align, const QFont& font, const QColor& color,
                        const QStringList& wordings, Fit fit)
{
    if (wordings.isEmpty() || wordings.front().isEmpty())
        return {};
    const QFontMetricsF fm(font);
    const double h = fm.height();
    const double gap = gapFor(fm);
    // A box with a width binds the text horizontally; a zero-width box (drawAt) only anchors it.
    const bool bounded = box.width() > 0;
    for (const QString& w : wordings) {
        const QRectF r = boxFor(box, align, textAdvance(font, w), h);
        if (bounded && (r.left() < box.left() - 0.01 || r.right() > box.right() + 0.01))
            continue;
        // The gap keeps neighbours apart; at the view's edges the text may sit flush.
        // (On the device: a rotated label's painter coordinates are not the bounds' own, which lie elsewhere
        // when the view is drawn away from the painter's origin, e.g. the right half of a compare figure.)
        const QRectF spaced = m_painter.transform()
                                  .mapRect(r.adjusted(-gap, 0, gap, 0))
                                  .intersected(m_deviceBounds.adjusted(0, -1, 0, 1));
        // (The gap is to other text: a kept line may run up to the text's own box.)
        bool spacedFree = true;
        for (const QRectF& placed : m_placed)
            spacedFree = spacedFree && !overlaps(spaced, placed, 0.01);
        if (isFree(r) && spacedFree) {
            paint(r, font, color, w, wordings.front());
            return r;
        }
    }
    if (fit == Fit::Drop)
        return {};
    const QString& last = wordings.back();
    const QRectF line = boxFor(box, align, textAdvance(font, last), h);
    const double anchor
        = align & Qt::AlignRight ? box.right() : (align & Qt::AlignHCenter ? box.center().x() : box.left());
    const QRectF limits = bounded ? QRectF(box.left(), line.top(), box.width(), h)
                                  : QRectF(m_bounds.left(), line.top(), m_bounds.width(), h);
    QRectF room = freeRoom(limits, line, anchor, align);
    if (room.isEmpty())
        return {};
    // Keep the gap to the text that bounds the room (not to the view's own edges).
    room.adjust(room.left() > m_bounds.left() + 0.01 ? gap : 0, 0, room.right() < m_bounds.right() - 0.01 ? -gap : 0,
                0);
    if (room.width() <= 0)
        return {};
    const QString cut = fm.elidedText(last, Qt::ElideRight, room.width());
    if (cut.isEmpty() || (cut != last && cut.size() < minElidedChars + 1))
        return {};
    const double w = textAdvance(font, cut);
    const Qt::Alignment h2
        = align & Qt::AlignRight ? Qt::AlignRight : (align & Qt::AlignHCenter ? Qt::AlignHCenter : Qt::AlignLeft);
    const QRectF r = boxFor(QRectF(room.left(), line.top(), room.width(), h), h2, w, h);
    if (!isFree(r))
        return {};
    paint(r, font, color, cut, wordings.front());
    return r;
}

QRectF TextLayout::drawAt(const QPointF& anchor, Qt::Alignment align, const QFont& font, const QColor& color,
                          const QStringList& wordings, Fit fit)
{
    // A zero-size box at the anchor: boxFor() then puts the text's edge or centre there.
    return draw(QRectF(anchor, QSizeF(0, 0)), align, font, color, wordings, fit);
}

namespace {

/// @p text broken into lines of at most @p width (QTextLayout: the line breaking Qt uses everywhere).
QStringList wrapLines(const QString& text, const QFont& font, double width)
{
    QTextLayout tl(text, font);
    QTextOption opt;
    opt.setWrapMode(QTextOption::WordWrap);
    tl.setTextOption(opt);
    QStringList lines;
    tl.beginLayout();
    for (QTextLine l = tl.createLine(); l.isValid(); l = tl.createLine()) {
        l.setLineWidth(width);
        lines << text.mid(l.textStart(), l.textLength()).trimmed();
    }
    tl.endLayout();
    return lines;
}

/// The ends of the sentences of @p text: after each ".", "!" or "?" followed by a space and a capital, and at the end.
std::vector<qsizetype> sentenceEnds(const QString& text)
{
    std::vector<qsizetype> ends;
    for (qsizetype i = 0; i + 1 < text.size(); ++i)
        if ((text[i] == QLatin1Char('.') || text[i] == QLatin1Char('!') || text[i] == QLatin1Char('?'))
            && text[i + 1] == QLatin1Char(' ')
            && (i + 2 >= text.size() || text[i + 2].isUpper())) // "Fig. 2" does not end a sentence
            ends.push_back(i + 1);
    ends.push_back(text.size());
    return ends;
}

} // namespace

QString sentencesThatFit(const QString& text, const QFont& font, double width, int lines)
{
    if (wrapLines(text, font, width).size() <= lines)
        return text;
    const std::vector<qsizetype> ends = sentenceEnds(text);
    for (auto it = ends.rbegin(); it != ends.rend(); ++it) {
        const QString head = text.left(*it).trimmed();
        if (wrapLines(head, font, width).size() <= lines)
            return head;
    }
    return {};
}

QRectF TextLayout::drawWrapped(const QRectF& box, Qt::Alignment align, const QFont& font, const QColor& color,
                               const QString& text, const QString& fullText)
{
    const QFontMetricsF fm(font);
    const double h = fm.height();
    const int room = std::max(0, int(std::floor((box.height() + 0.01) / h)));
    // The paragraph by the rule in the header: all of it if it fits; else its first sentences, as many as fit
    // whole (a paragraph says its point first); else nothing. A line is never cut with "…".
    const QString shown = sentencesThatFit(text, font, box.width(), room);
    if (shown.isEmpty())
        return {};
    const QStringList lines = wrapLines(shown, font, box.width());
    const QString whole = fullText.isEmpty() ? text : fullText;
    if (shown != whole)
        m_wholeParagraph = whole; // paint() records it with each line (and a tooltip shows it)
    const double total = h * lines.size();
    double y = box.top();
    if (align & Qt::AlignBottom)
        y = box.bottom() - std::min(total, box.height());
    else if (align & Qt::AlignVCenter)
        y = box.center().y() - std::min(total, box.height()) / 2;
    const Qt::Alignment hAlign = align & Qt::AlignHorizontal_Mask;
    QRectF used;
    for (const QString& line : lines) {
        // A line that meets other text is left out with the rest of the paragraph (Drop, not Elide).
        const QRectF r
            = draw(QRectF(box.left(), y, box.width(), h), hAlign | Qt::AlignTop, font, color, {line}, Fit::Drop);
        if (r.isEmpty())
            break;
        used = used.isNull() ? r : used.united(r);
        y += h;
    }
    m_wholeParagraph.clear();
    return used;
}

QString TextLayout::toolTipAt(const QPointF& pos) const
{
    for (const Elided& e : m_elided)
        if (e.rect.contains(pos))
            return e.fullText;
    return {};
}

} // namespace poslab::ui
