// SPDX-License-Identifier: MIT
#pragma once
/// @file formula.h
/// Typeset formulas: the SVG that MathJax made from a TeX string (scripts/typeset-formulas.sh writes
/// resources/formulas/<sha1 of the TeX's UTF-8 bytes>.svg; they are compiled in under :/formulas/), drawn with
/// QtSvg in the theme's text colour. MathJax writes every glyph and rule in `currentColor`; the formula
/// replaces it with the colour it is asked for before QSvgRenderer reads the SVG.
///
/// Sizes are in ems: MathJax's viewBox is in thousandths of an em, with the baseline at y = 0, so a formula
/// drawn with emPx = the pixel size of the surrounding font matches that text. A TeX string without an SVG
/// (a formula added to a lesson without running the script) is drawn as its TeX source in the painter's
/// font: never a crash, and tst_formulas fails for it.

#include <QByteArray>
#include <QColor>
#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <memory>

class QPainter;
class QSvgRenderer;

namespace poslab::ui {

class Formula {
public:
    /// Looks up the typeset SVG of @p tex (exactly this string: no trimming). isValid() is false when there
    /// is none.
    explicit Formula(const QString& tex);

    /// The file name of @p tex's SVG: the lower-case hex SHA-1 of its UTF-8 bytes plus ".svg".
    static QString fileName(const QString& tex);
    /// Where that file is compiled in: ":/formulas/" + fileName(tex).
    static QString resourcePath(const QString& tex);

    const QString& tex() const { return m_tex; }
    /// True when the typeset SVG exists and QtSvg reads it.
    bool isValid() const { return m_viewBox.isValid(); }

    /// Width and height in ems (the viewBox / 1000), depth below the baseline included.
    QSizeF sizeEm() const;
    /// Distance from the top to the baseline in ems.
    double ascentEm() const;
    /// Width and height in pixels when one em is @p emPx pixels. For a missing formula: the size of its TeX
    /// source in a font of pixel size emPx.
    QSizeF size(double emPx) const;

    /// The SVG text with `currentColor` replaced by @p color (#rrggbb, plus fill-opacity when translucent);
    /// empty for a missing formula.
    QByteArray svg(const QColor& color) const;

    /// Draws the formula with its top-left corner at @p topLeft, one em = @p emPx pixels, in @p color. The
    /// SVG goes to the painter as vector paths, so SVG and PDF exports stay sharp. A missing formula draws its
    /// TeX source.
    void paint(QPainter* painter, const QPointF& topLeft, double emPx, const QColor& color) const;
    /// The formula on a transparent image of size(emPx) * dpr pixels, with that device pixel ratio.
    QImage image(double emPx, const QColor& color, double dpr = 1.0) const;

private:
    QString m_tex;
    QByteArray m_svg; ///< as compiled in, `currentColor` still in it
    QRectF m_viewBox; ///< MathJax's viewBox: x, -ascent, width, ascent + depth (thousandths of an em)
    mutable std::shared_ptr<QSvgRenderer> m_renderer; ///< the last colour's renderer
    mutable QColor m_rendererColor;
};

/// The TeX formula of scheme @p id shown by the scheme picker (resources/formulas/schemes.json, compiled in
/// as :/formulas/schemes.json); empty when the scheme has none.
QString schemeFormulaTex(const QString& id);
/// The scheme ids that have a formula in schemes.json.
QStringList schemeFormulaIds();

} // namespace poslab::ui
