// SPDX-License-Identifier: MIT
#pragma once
/// @file textlayout.h
/// The one way views place text. A TextLayout is made per render for the view's rectangle; every label
/// goes through it, most important first (titles, then axis titles, then tick labels, then notes). It
/// measures each label with QFontMetricsF at the font actually used (theme font scale times the figure's
/// size scale) and places it by this rule:
///   1. the first of the label's wordings (longest first) whose box lies inside the view and touches no
///      text placed before it is drawn;
///   2. if none fits, a label with Fit::Elide shows the last wording cut with "…" to the free room (at
///      least a few characters, else it is dropped), and its full text is kept for a tooltip. That is a last
///      resort for small panels: at slide sizes (1280 x 720 to 1920 x 1080, font scale 1.5 and 2) the layout
///      test fails on a cut label, so a view gives such labels a short wording that fits or wraps them;
///   3. a label with Fit::Drop (ticks, secondary notes) is left out.
/// So nothing overlaps and nothing leaves the view. Every label drawn is also written to the TextRecord
/// installed on the thread, if any: the tests read exactly what was drawn.

#include <QColor>
#include <QFont>
#include <QLineF>
#include <QList>
#include <QPolygonF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

class QPainter;

namespace poslab::ui {

/// One text item as drawn. Rectangles are in the painter's device coordinates (the world transform
/// applied), so rotated axis titles compare with everything else.
struct DrawnText {
    QString text;     ///< what was drawn (possibly elided)
    QString fullText; ///< the whole label (a tooltip shows it where @c text is elided)
    QRectF rect;      ///< the box the text occupies: its advance width times the font's line height
    QRectF bounds;    ///< the view's rectangle the text had to stay inside
};

/// One curve or marker line a figure draws over its plot (a wavelength curve, the trained window's dashed line),
/// as straight pieces in the painter's device coordinates. Labels keep clear of these lines (see linesThroughText()).
struct DrawnLine {
    QString what;           ///< what the line shows ("wavelength after", "trained window T")
    QList<QLineF> segments; ///< the polyline's pieces (a dashed line whole, gaps included)
};

/// Collects the text items drawn on this thread while it lives. Records nest: an item goes to every record
/// alive on the thread (the window's paint keeps one for tooltips while a test keeps another).
/// Views render as usual; a test creates a TextRecord, renders, and checks items().
class TextRecord {
public:
    TextRecord();
    ~TextRecord();
    TextRecord(const TextRecord&) = delete;
    TextRecord& operator=(const TextRecord&) = delete;

    /// The record installed on this thread, or nullptr.
    static TextRecord* current();
    /// Adds one item (TextLayout does this; views that draw text through another engine, such as Qt
    /// Charts, add theirs so that the check sees them too).
    void add(const DrawnText& item)
    {
        m_items.push_back(item);
        if (m_previous)
            m_previous->add(item);
    }
    const std::vector<DrawnText>& items() const { return m_items; }
    /// Adds one curve or marker line (TextLayout::keepClearOf() and recordLine() do this).
    void addLine(const DrawnLine& line)
    {
        m_lines.push_back(line);
        if (m_previous)
            m_previous->addLine(line);
    }
    const std::vector<DrawnLine>& lines() const { return m_lines; }
    void clear()
    {
        m_items.clear();
        m_lines.clear();
    }

private:
    std::vector<DrawnText> m_items;
    std::vector<DrawnLine> m_lines;
    TextRecord* m_previous = nullptr;
};

/// Two drawn items that overlap, or one that leaves its view: the collision check's findings, one line
/// each ("'position p = 37' overlaps 'hand angle = p·ωᵢ'"). Overlaps under @p tolerance pixels in either
/// direction (anti-aliasing, rounding) are ignored.
QStringList textCollisions(const std::vector<DrawnText>& items, double tolerance = 0.5);

/// Labels that a curve or marker line runs through, one line each ("'edge 2,048' crossed by 'wavelength after'"). The
/// rule: a label's box, shrunk by @p tolerance pixels on every side, meets no segment of any line. So a label set
/// beside a line (above a horizontal line, at the end point of a curve it names) passes, even where the line touches
/// its box's edge; a line through the text fails.
QStringList linesThroughText(const std::vector<DrawnText>& items, const std::vector<DrawnLine>& lines,
                             double tolerance = 1.0);

/// True when the segment @p s meets the rectangle @p r (its inside or its edge).
bool segmentMeetsRect(const QLineF& s, const QRectF& r);

/// @p line (painter coordinates, through @p painter's transform) as a DrawnLine in device coordinates, cut to @p clip
/// (painter coordinates; none when empty) as the painter's clip cuts it; a point that is not finite breaks the line.
DrawnLine deviceLine(const QPainter& painter, const QPolygonF& line, const QString& what,
                     const QRectF& clip = QRectF());
/// Adds @p line to the thread's TextRecord, if any (for lines drawn where no TextLayout places labels: a chart's
/// curves clipped to its plot).
void recordLine(const QPainter& painter, const QPolygonF& line, const QString& what, const QRectF& clip = QRectF());

/// QFontMetricsF(font).horizontalAdvance(text), remembered per font and text on this thread: views measure the
/// same labels (ticks, headers, legends) on every frame, and shaping them again was about a tenth of a frame.
double textAdvance(const QFont& font, const QString& text);

/// The paragraph @p text as TextLayout::drawWrapped() keeps it in @p lines lines of @p width at @p font: all of it
/// when it fits, else its first sentences, as many as fit whole, else empty (a window's label wraps by the same
/// rule as the figures' text).
QString sentencesThatFit(const QString& text, const QFont& font, double width, int lines);

/// Places and draws text inside one view's rectangle so that no two labels overlap (see the file comment).
class TextLayout {
public:
    /// What happens to a label when none of its wordings fits.
    enum class Fit {
        Elide, ///< cut the last wording to the free room, keep the full text for a tooltip
        Drop,  ///< leave it out (tick labels, secondary notes)
    };

    /// A layout for one render of a view drawn in @p bounds (painter coordinates) with @p painter.
    TextLayout(QPainter& painter, const QRectF& bounds);

    /// Draws the first wording of @p wordings that fits, aligned inside @p box (Qt::AlignLeft/Right/HCenter,
    /// AlignTop/Bottom/VCenter). A box with a width binds the text horizontally (a cell's label stays in its
    /// cell); vertically the text takes the font's line height at the aligned place.
    /// Returns the rectangle drawn, or an empty one when the label was dropped.
    QRectF draw(const QRectF& box, Qt::Alignment align, const QFont& font, const QColor& color,
                const QStringList& wordings, Fit fit = Fit::Elide);
    /// Like draw(), with the text's edge or centre at @p anchor as @p align says (a tick label: AlignRight |
    /// AlignVCenter puts the text's right middle at the anchor). Drops by default.
    QRectF drawAt(const QPointF& anchor, Qt::Alignment align, const QFont& font, const QColor& color,
                  const QStringList& wordings, Fit fit = Fit::Drop);
    /// Word-wraps @p text into @p box, top to bottom, by this rule: the whole paragraph when its lines fit the
    /// box's height; else its first sentences, as many as fit whole (a paragraph states its point first, so a
    /// caption keeps what it says and loses its asides; the full text stays for a tooltip); else nothing. No
    /// line is cut with "…"; a line that would touch other text ends the paragraph there. Returns the
    /// rectangle used (empty if nothing fitted). @p fullText, when given, is the whole of which @p text is a
    /// shorter form; each line drawn of a paragraph shortened either way keeps it for the record and tooltip.
    QRectF drawWrapped(const QRectF& box, Qt::Alignment align, const QFont& font, const QColor& color,
                       const QString& text, const QString& fullText = QString());

    /// A curve or marker line (painter coordinates) drawn in the view: labels placed after this call keep clear of it
    /// (a box that one of its segments meets is not free), and the thread's TextRecord gets it for the tests' check.
    /// A view draws its curves and marker lines first and places the labels over the plot after them.
    /// @p clip: the rectangle the painter's clip cuts the line to (none when empty).
    void keepClearOf(const QPolygonF& line, const QString& what, const QRectF& clip = QRectF());
    /// keepClearOf() for a straight line from @p a to @p b.
    void keepClearOf(const QPointF& a, const QPointF& b, const QString& what) { keepClearOf(QPolygonF{a, b}, what); }

    /// True when a text box @p r (painter coordinates) lies in the view and touches no placed text or kept line.
    bool isFree(const QRectF& r) const;
    /// isFree() for a rectangle already in device coordinates.
    bool isFreeOnDevice(const QRectF& deviceRect) const;
    /// The labels drawn elided, with their full text (painter coordinates at the time of drawing).
    struct Elided {
        QRectF rect;
        QString fullText;
    };
    const std::vector<Elided>& elided() const { return m_elided; }
    /// The full text of an elided label under @p pos, for a tooltip; empty when none.
    QString toolTipAt(const QPointF& pos) const;
    const QRectF& bounds() const { return m_bounds; }

private:
    QRectF boxFor(const QRectF& box, Qt::Alignment align, double width, double height) const;
    /// The widest room around @p anchor (x) for a line of text in the vertical band of @p line, within
    /// @p limits and the view, before it meets placed text; centred text gets a room centred on the anchor.
    QRectF freeRoom(const QRectF& limits, const QRectF& line, double anchor, Qt::Alignment align) const;
    void paint(const QRectF& r, const QFont& font, const QColor& color, const QString& text, const QString& full);

    QPainter& m_painter;
    QRectF m_bounds;              // painter coordinates
    QRectF m_deviceBounds;        // device coordinates
    std::vector<QRectF> m_placed; // device coordinates
    /// keepClearOf(): each line's segments and their bounding box (device coordinates).
    std::vector<std::pair<QRectF, QList<QLineF>>> m_lines;
    std::vector<Elided> m_elided;
    QString m_wholeParagraph; // drawWrapped(): the full text its shortened lines record
};

} // namespace poslab::ui
