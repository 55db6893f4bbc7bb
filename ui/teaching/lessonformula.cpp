// SPDX-License-Identifier: MIT
#include "ui/teaching/lessonformula.h"

#include "ui/render/formula.h"

#include <QFontDatabase>
#include <QFontInfo>
#include <QLabel>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

LessonFormula::LessonFormula(QImage image, double emPx, QWidget* parent)
    : QWidget(parent)
    , m_image(std::move(image))
    , m_em(emPx)
{
    QSizePolicy p(QSizePolicy::Preferred, QSizePolicy::Preferred);
    p.setHeightForWidth(true);
    setSizePolicy(p);
    findGaps();
}

QSize LessonFormula::natural() const
{
    return (QSizeF(m_image.size()) / m_image.devicePixelRatio()).toSize();
}
QSize LessonFormula::sizeHint() const
{
    return natural();
}
QSize LessonFormula::minimumSizeHint() const
{
    return {std::min(natural().width(), 40), 1};
}

int LessonFormula::heightForWidth(int w) const
{
    const Fit f = fit(w);
    return int(std::ceil(natural().height() * f.scale * double(f.lines.size())));
}

void LessonFormula::resizeEvent(QResizeEvent*)
{
    // For tests and tools: the scale the formula is drawn at, its em in pixels and its number of lines.
    const Fit f = fit(width());
    setProperty("formulaScale", f.scale);
    setProperty("formulaEm", m_em * f.scale);
    setProperty("formulaLines", int(f.lines.size()));
    setProperty("formulaWidestPiece", widestPiece());
}

void LessonFormula::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    const Fit f = fit(width());
    const double dpr = m_image.devicePixelRatio(), h = natural().height();
    double y = 0;
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const auto [from, to] = f.lines[i];
        const double indent = i == 0 ? 0.0 : m_em * f.scale;
        p.drawImage(QRectF(indent, y, (to - from) * f.scale, h * f.scale), m_image,
                    QRectF(from * dpr, 0, (to - from) * dpr, h * dpr));
        y += h * f.scale;
    }
}

void LessonFormula::findGaps()
{
    const QImage a = m_image.convertToFormat(QImage::Format_ARGB32);
    const double dpr = m_image.devicePixelRatio();
    int runStart = -1;
    for (int x = 0; x <= a.width(); ++x) {
        bool blank = x < a.width();
        for (int y = 0; blank && y < a.height(); ++y)
            blank = qAlpha(a.pixel(x, y)) == 0;
        if (blank && runStart < 0)
            runStart = x;
        if (!blank && runStart >= 0) {
            if (runStart > 0 && x < a.width()) // inner gaps only
                m_gaps.emplace_back(runStart / dpr, x / dpr);
            runStart = -1;
        }
    }
}

double LessonFormula::widestPiece() const
{
    double widest = 0, from = 0;
    for (const auto& [g0, g1] : m_gaps) {
        widest = std::max(widest, g0 - from);
        from = g1;
    }
    return std::max(widest, natural().width() - from);
}

LessonFormula::Fit LessonFormula::fit(int width) const
{
    Fit f;
    const double w = natural().width();
    if (w <= 0 || width <= 0) {
        f.lines.emplace_back(0.0, w);
        return f;
    }
    f.scale = std::clamp(width / w, minScale, 1.0);
    // No line cuts through a glyph: where the widest piece between two gaps (a fraction, whose bar spans it) is
    // wider than an indented line at 60%, the whole formula is drawn smaller, so that the piece fits.
    f.scale = std::min(f.scale, width / (widestPiece() + m_em));
    // Lines, each as long as it can be: a break in the widest gap that fits (an operator's space rather than the
    // thin one between two letters), or at the edge where no gap does.
    double from = 0;
    while (from < w) {
        const double room = (width - (f.lines.empty() ? 0.0 : m_em * f.scale)) / f.scale;
        if (w - from <= room + 0.5 || room <= 1) {
            f.lines.emplace_back(from, w);
            break;
        }
        double best = -1, bestWidth = -1;
        for (const auto& [g0, g1] : m_gaps)
            if (g0 > from && g0 <= from + room && g1 - g0 >= bestWidth - 0.25) {
                best = g0;
                bestWidth = g1 - g0;
            }
        const double cut = best > from ? best : from + room;
        f.lines.emplace_back(from, cut);
        from = cut;
        for (const auto& [g0, g1] : m_gaps) // the next line starts after the gap's blank
            if (g0 == cut)
                from = g1;
    }
    return f;
}

// The typeset formula (ui/render/formula.h) in the panel's text colour, one em 1.15 × the panel font's pixel
// size (so it follows the font scale as the text does); a formula without its SVG (a test fails then) shows
// the TeX source in a monospace label.
QWidget* makeLessonFormula(const QString& tex, QWidget* parent)
{
    if (const Formula f(tex); f.isValid()) {
        const double em = QFontInfo(parent->font()).pixelSize() * 1.15;
        auto* w = new LessonFormula(
            f.image(em, parent->palette().color(QPalette::WindowText), parent->devicePixelRatioF()), em, parent);
        w->setObjectName(QStringLiteral("lessonFormula"));
        w->setToolTip(tex);
        return w;
    }
    auto* label = new QLabel(tex, parent);
    label->setObjectName(QStringLiteral("lessonFormula"));
    label->setToolTip(tex);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    // TeX has long words: the dock's width decides, what does not fit is in the tooltip.
    QSizePolicy p(QSizePolicy::Ignored, QSizePolicy::Preferred);
    p.setHeightForWidth(true);
    label->setSizePolicy(p);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return label;
}

} // namespace poslab::ui
