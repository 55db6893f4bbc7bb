// SPDX-License-Identifier: MIT
#pragma once
/// @file lessonformula.h
/// The lesson panel's typeset formula (ui/render/formula.h): drawn at the panel's text size so that it follows the
/// font scale as the text does, shrunk to the panel's width no further than 60%, then wrapped.

#include <QImage>
#include <QWidget>

#include <utility>
#include <vector>

namespace poslab::ui {

/// A typeset formula image at the panel's text size (one em = 1.15 × the font's pixel size), by the rule of the
/// derivation pages: shrunk (never stretched) to the panel's width, but never below 60%; a formula still wider than the panel
/// then wraps, breaking at the widest blank columns of its image (the space MathJax puts around = and +, never
/// inside a fraction, whose bar spans it), each further line indented by one em. No line cuts through a glyph: where
/// one piece between two gaps is wider than an indented line at 60%, the formula is drawn smaller, to fit that piece.
class LessonFormula : public QWidget {
public:
    /// The smallest share of its natural size a formula is drawn at; below it the formula wraps.
    static constexpr double minScale = 0.6;

    /// @p image: the formula typeset at one em = @p emPx pixels (its device pixel ratio set).
    LessonFormula(QImage image, double emPx, QWidget* parent);
    /// The image's size in logical pixels.
    QSize natural() const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int w) const override;

    /// How the formula fills a width: its scale and, per line, the logical x range of the image it shows.
    struct Fit {
        double scale = 1.0;
        std::vector<std::pair<double, double>> lines;
    };
    /// The scale and lines at @p width pixels (the rule above).
    Fit fit(int width) const;
    /// The widest piece of the image between two blank gaps, in logical pixels at the natural size.
    double widestPiece() const;

protected:
    void resizeEvent(QResizeEvent* e) override;
    void paintEvent(QPaintEvent* e) override;

private:
    void findGaps();

    QImage m_image;
    double m_em;
    std::vector<std::pair<double, double>> m_gaps; ///< runs of fully transparent columns (logical x from, to)
};

/// The step's formula for the panel @p parent: a LessonFormula in the parent's text colour, one em = 1.15 x the
/// parent font's pixel size; for a TeX string without its SVG (tst_formulas fails then), the TeX in monospace.
/// Its object name is "lessonFormula"; its tooltip the TeX.
QWidget* makeLessonFormula(const QString& tex, QWidget* parent);

} // namespace poslab::ui
