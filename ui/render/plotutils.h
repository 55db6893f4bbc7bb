// SPDX-License-Identifier: MIT
#pragma once
/// @file plotutils.h
/// Small drawing helpers shared by the views (Qt::Gui only): nice axis ticks, number formatting, the
/// "not applicable" panel and a colour bar.

#include "ui/render/colormap.h"
#include "ui/render/theme.h"

#include <QPainter>
#include <QRectF>
#include <QString>

#include <vector>

namespace poslab::ui {

/// About @p target "nice" tick values (1, 2, 5 x 10^k) covering [lo, hi].
std::vector<double> niceTicks(double lo, double hi, int target);

/// Compact number for labels: 3 significant digits by default, scientific for very large or small values.
QString formatNumber(double v, int significant = 3);

/// Fills @p rect with the theme's background and draws a centred, calm message: @p title in bold and
/// @p reason below it (used by every view whose scheme does not apply).
void drawNotApplicable(QPainter& p, const QRectF& rect, const Theme& theme, const QString& title,
                       const QString& reason);

/// A vertical colour bar in @p bar with tick labels to its right, for values lo..hi.
void drawColorBar(QPainter& p, const QRectF& bar, const ColorMap& map, ValueRange range, const Theme& theme,
                  const QString& label, double scale = 1.0);

/// Draws @p text with its top-left corner at @p topLeft in @p font and @p color; returns its height.
qreal drawText(QPainter& p, const QPointF& topLeft, const QString& text, const QFont& font, const QColor& color);

/// The scale factor of fonts and strokes for a view drawn in @p rect: 1 at about 640 px, larger on big
/// exports, never below 1, so a 4000 px export does not get 8 pt text.
double sizeScale(const QRectF& rect);

} // namespace poslab::ui
