// SPDX-License-Identifier: MIT
#pragma once
/// @file plotutils.h
/// Small drawing helpers shared by the views (Qt::Gui only): nice axis ticks, number formatting, the
/// "not applicable" panel and a colour bar.

#include "ui/render/colormap.h"
#include "ui/render/textlayout.h"
#include "ui/render/theme.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QRectF>
#include <QString>

#include <vector>

namespace poslab::ui {

/// About @p target "nice" tick values (1, 2, 5 x 10^k) covering [lo, hi].
std::vector<double> niceTicks(double lo, double hi, int target);
/// niceTicks for whole-number axes (positions, pairs): the same 1-2-5 steps, at least 1 apart, so every tick is
/// an integer; with fewer than one step of 1 per target interval every integer in [lo, hi] is a tick.
std::vector<double> integerTicks(double lo, double hi, int target);

/// The one number format of the figures: @p significant significant digits; whole numbers from
/// 10^significant up to 10^7 written out in full; thousands separated by commas (217,642; 6.283; 0.0039);
/// an exponent only at 10^7 and above or below 0.001 (1.2e7, 5e-4). Never a negative zero: anything that
/// rounds to zero prints "0".
QString formatNumber(double v, int significant = 3);
/// A number of tokens (positions, distances, periods) in the same format with 4 significant digits and
/// the unit: "6.283 tokens", "305.9 tokens", "217,642 tokens", "1 token".
QString formatTokens(double v);

/// The dashes of @p pen along @p line (in the painter's units) as straight pieces: the pattern is the pen's own
/// (QPen::dashPattern, in pen widths), and a dash runs on over a corner. Solid pens: the segments themselves. A
/// point that is not finite breaks the line there.
QList<QLineF> dashSegments(const QPolygonF& line, const QPen& pen);

/// Draws @p line with @p pen. On a raster device segment by segment (dashSegments() with the pen made solid): a
/// wide antialiased polyline is stroked as one path with joins, about five times slower than its segments,
/// which the pen's square caps join as well. Vector devices (SVG, PDF) get one polyline with the pen.
void drawPolylineFast(QPainter& p, const QPolygonF& line, const QPen& pen);

/// Fills @p rect with the theme's background and draws a centred, calm message: @p title in bold and
/// @p reason below it (used by every view whose scheme does not apply).
void drawNotApplicable(QPainter& p, const QRectF& rect, const Theme& theme, const QString& title,
                       const QString& reason);

/// A vertical colour bar in @p bar with tick labels to its right, for values lo..hi, placed through
/// @p text (tick labels that do not fit are dropped).
/// The values drawColorBar() labels on a bar @p barHeight tall with tick labels of @p fm: 2 to 5 by the height, and
/// 2t + 1 asked for where fewer than 3 come (a layout that places the bar's labels measures these).
std::vector<double> colorBarTicks(ValueRange range, double barHeight, const QFontMetricsF& fm);
void drawColorBar(QPainter& p, TextLayout& text, const QRectF& bar, const ColorMap& map, ValueRange range,
                  const Theme& theme, const QString& label, double scale = 1.0);
/// The width a colour bar's tick labels need at @p scale (the widest "-0.000"-like label).
double colorBarLabelWidth(const Theme& theme, double scale);

/// What a view's header says, most important first.
struct HeaderTexts {
    QString title;      ///< the figure's name: the variant ("RoPE · YaRN ×8, trained 4096"), bold
    QStringList detail; ///< what the figure shows, longest wording first ("position p = 37", "p = 37"), bold
    QStringList note;   ///< a side note, longest wording first ("1,024 positions × 64 pairs"), muted
};

/// A view's header in @p area, by this rule: one line "title — detail" with the note at its right if it all
/// fits (trying the detail's wordings, then the note's); else "title — detail" on the first line and the
/// note on the second; else the title alone (elided if it must be) and the detail on the second line with
/// the note at its right if that fits. A note that fits nowhere is left out. Returns the y below the header.
double drawHeader(TextLayout& text, const QRectF& area, const Theme& theme, double scale, const HeaderTexts& header);
/// The height drawHeader() takes for @p header in a header @p width wide (for layouts computed before
/// drawing).
double headerHeight(double width, const Theme& theme, double scale, const HeaderTexts& header);

/// The scale factor of fonts and strokes for a view drawn in @p rect: 1 at about 640 px, larger on big
/// exports, never below 1, so a 4000 px export does not get 8 pt text.
double sizeScale(const QRectF& rect);

} // namespace poslab::ui
