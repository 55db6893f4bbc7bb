// SPDX-License-Identifier: MIT
#include "ui/render/plotutils.h"

#include <QFontMetricsF>
#include <QLinearGradient>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

std::vector<double> niceTicks(double lo, double hi, int target)
{
    std::vector<double> ticks;
    if (!(hi > lo) || target < 1)
        return {lo};
    const double raw = (hi - lo) / target;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag) {
            step = m * mag;
            break;
        }
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
        ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return ticks;
}

QString formatNumber(double v, int significant)
{
    if (!std::isfinite(v))
        return std::isnan(v) ? QStringLiteral("NaN") : (v > 0 ? QStringLiteral("\u221e") : QStringLiteral("-\u221e"));
    const double a = std::abs(v);
    if (a != 0.0 && (a >= 1e6 || a < 1e-3))
        return QString::number(v, 'g', significant).replace(QStringLiteral("e+0"), QStringLiteral("e"))
            .replace(QStringLiteral("e+"), QStringLiteral("e")).replace(QStringLiteral("e-0"), QStringLiteral("e-"));
    if (a >= std::pow(10.0, significant) && a == std::floor(a))
        return QString::number(v, 'f', 0);
    QString s = QString::number(v, 'g', significant);
    if (s.contains(QLatin1Char('e')))
        s = QString::number(v, 'f', 0);
    return s;
}

double sizeScale(const QRectF& rect)
{
    return std::clamp(std::min(rect.width() / 640.0, rect.height() / 420.0), 1.0, 3.0);
}

qreal drawText(QPainter& p, const QPointF& topLeft, const QString& text, const QFont& font, const QColor& color)
{
    p.setFont(font);
    p.setPen(color);
    const QFontMetricsF fm(font);
    p.drawText(QPointF(topLeft.x(), topLeft.y() + fm.ascent()), text);
    return fm.height();
}

void drawNotApplicable(QPainter& p, const QRectF& rect, const Theme& theme, const QString& title,
                       const QString& reason)
{
    p.fillRect(rect, theme.background);
    const double s = sizeScale(rect);
    QRectF box = rect.adjusted(rect.width() * 0.1, rect.height() * 0.2, -rect.width() * 0.1, -rect.height() * 0.2);
    p.setPen(QPen(theme.grid, 1.5 * s, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(box, 10 * s, 10 * s);
    const QFont big = theme.font(15 * s, true);
    const QFont small = theme.font(11 * s);
    const QRectF inner = box.adjusted(16 * s, 12 * s, -16 * s, -12 * s);
    p.setFont(big);
    p.setPen(theme.foreground);
    const QFontMetricsF fm(big);
    QRectF top = inner;
    top.setHeight(inner.height() / 2 - 4 * s);
    p.drawText(top, Qt::AlignHCenter | Qt::AlignBottom | Qt::TextWordWrap, title);
    p.setFont(small);
    p.setPen(theme.muted);
    QRectF bottom = inner;
    bottom.setTop(inner.top() + inner.height() / 2 + 4 * s);
    p.drawText(bottom, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, reason);
}

void drawColorBar(QPainter& p, const QRectF& bar, const ColorMap& map, ValueRange range, const Theme& theme,
                  const QString& label, double scale)
{
    const auto& lut = map.table();
    QLinearGradient g(bar.bottomLeft(), bar.topLeft());
    for (int i = 0; i < 256; i += 15)
        g.setColorAt(i / 255.0, QColor::fromRgb(lut[std::size_t(i)]));
    g.setColorAt(1.0, QColor::fromRgb(lut[255]));
    p.fillRect(bar, g);
    p.setPen(QPen(theme.muted, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar);
    const QFont f = theme.font(10.0 * scale);
    p.setFont(f);
    const QFontMetricsF fm(f);
    const auto ticks = niceTicks(range.lo, range.hi, 5);
    for (double v : ticks) {
        const double y = bar.bottom() - (v - range.lo) / (range.hi - range.lo) * bar.height();
        p.setPen(theme.foreground);
        p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 5, y));
        p.drawText(QPointF(bar.right() + 8, y + fm.ascent() / 2 - 1), formatNumber(v));
    }
    if (!label.isEmpty()) {
        p.save();
        p.translate(bar.right() + 8 + fm.horizontalAdvance(QStringLiteral("-0.00")) + fm.height() * 0.9, bar.center().y());
        p.rotate(90);
        p.setPen(theme.muted);
        p.drawText(QRectF(-bar.height() / 2, -fm.height(), bar.height(), fm.height()), Qt::AlignCenter, label);
        p.restore();
    }
}

} // namespace poslab::ui
