// SPDX-License-Identifier: MIT
#include "ui/render/formula.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFont>
#include <QFontMetricsF>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QtGlobal>

#include <algorithm>
#include <cmath>

namespace poslab::ui {
namespace {

// MathJax's viewBox is in thousandths of an em.
constexpr double unitsPerEm = 1000.0;

QRectF viewBoxOf(const QByteArray& svg)
{
    // The first viewBox is the root <svg>'s: MathJax writes it before any child element.
    static const QRegularExpression re(
        QStringLiteral(R"(viewBox="\s*(-?[\d.]+)[\s,]+(-?[\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)\s*")"));
    const QRegularExpressionMatch m = re.match(QString::fromUtf8(svg.left(2048)));
    if (!m.hasMatch())
        return {};
    return {m.captured(1).toDouble(), m.captured(2).toDouble(), m.captured(3).toDouble(), m.captured(4).toDouble()};
}

QFont fallbackFont(double emPx)
{
    QFont f;
    f.setPixelSize(std::max(1, int(std::lround(emPx))));
    return f;
}

constexpr int fallbackFlags = Qt::AlignLeft | Qt::AlignTop;

const QJsonObject& schemeFormulas()
{
    static const QJsonObject formulas = [] {
        QFile f(QStringLiteral(":/formulas/schemes.json"));
        if (!f.open(QIODevice::ReadOnly))
            return QJsonObject();
        return QJsonDocument::fromJson(f.readAll()).object();
    }();
    return formulas;
}

} // namespace

QString Formula::fileName(const QString& tex)
{
    return QString::fromLatin1(QCryptographicHash::hash(tex.toUtf8(), QCryptographicHash::Sha1).toHex())
        + QStringLiteral(".svg");
}

QString Formula::resourcePath(const QString& tex)
{
    return QStringLiteral(":/formulas/") + fileName(tex);
}

Formula::Formula(const QString& tex)
    : m_tex(tex)
{
    QFile f(resourcePath(tex));
    if (f.open(QIODevice::ReadOnly)) {
        m_svg = f.readAll();
        m_viewBox = viewBoxOf(m_svg);
    }
    if (!isValid())
        qWarning("Formula: no typeset SVG for %s (run scripts/typeset-formulas.sh); showing the TeX source",
                 qUtf8Printable(tex.left(60)));
}

QSizeF Formula::sizeEm() const
{
    return m_viewBox.size() / unitsPerEm;
}

double Formula::ascentEm() const
{
    return -m_viewBox.top() / unitsPerEm;
}

QSizeF Formula::size(double emPx) const
{
    if (isValid())
        return sizeEm() * emPx;
    const QFontMetricsF fm(fallbackFont(emPx));
    return fm.boundingRect(QRectF(0, 0, 1e6, 1e6), fallbackFlags, m_tex).size();
}

QByteArray Formula::svg(const QColor& color) const
{
    QByteArray out = m_svg;
    return out.replace("currentColor", color.name(QColor::HexRgb).toLatin1());
}

void Formula::paint(QPainter* painter, const QPointF& topLeft, double emPx, const QColor& color) const
{
    const QRectF box(topLeft, size(emPx));
    painter->save();
    painter->setOpacity(painter->opacity() * color.alphaF());
    if (isValid()) {
        const QColor opaque = QColor(color.rgb());
        if (!m_renderer || m_rendererColor != opaque) {
            m_renderer = std::make_shared<QSvgRenderer>(svg(opaque));
            m_rendererColor = opaque;
        }
        m_renderer->render(painter, box);
    } else {
        painter->setFont(fallbackFont(emPx));
        painter->setPen(QColor(color.rgb()));
        painter->drawText(box, fallbackFlags, m_tex);
    }
    painter->restore();
}

QImage Formula::image(double emPx, const QColor& color, double dpr) const
{
    const QSizeF s = size(emPx);
    QImage img(std::max(1, int(std::ceil(s.width() * dpr))), std::max(1, int(std::ceil(s.height() * dpr))),
               QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(dpr);
    img.fill(Qt::transparent);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    paint(&p, QPointF(0, 0), emPx, color);
    p.end();
    return img;
}

QString schemeFormulaTex(const QString& id)
{
    return schemeFormulas().value(id).toString();
}

QStringList schemeFormulaIds()
{
    return schemeFormulas().keys();
}

} // namespace poslab::ui
