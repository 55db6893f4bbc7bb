// SPDX-License-Identifier: MIT
#pragma once
/// @file extensionpainter.h
/// The extension view's drawing: one paint of ExtensionFigure's data (ui/figures/extensionfigure.h) into a target,
/// in named parts (heading, layout, panels and bands, axes, curves, the chosen pair's marker, the legends, the
/// lines' labels, the band names, the circle panel and its read-outs, the hover tag). Used by ExtensionView only.

#include "ui/figures/extensionfigure.h"
#include "ui/render/colormap.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/render/theme.h"

#include <QCoreApplication>
#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QRectF>

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace poslab::ui {

/// One paint of the extension figure (ExtensionView::renderContent draws with one): the fonts and the panels'
/// geometry, worked out once from the figure's data and the target, and the parts drawn in turn. Every curve and marker line is
/// kept clear of (TextLayout::keepClearOf) before the labels placed over the plots, which go where no line runs
/// through them or are left out; labels are drawn most important first: the panels' titles, the legends, the
/// lines' labels, then the band names.
struct ExtensionPainter {
    Q_DECLARE_TR_FUNCTIONS(poslab::ui::ExtensionView)

public:
    /// A log10 axis from lo to hi (values > 0) onto the pixel range [bottom, top].
    struct LogAxis {
        double lo = 0.0, hi = 1.0; // log10 of the ends
        double bottom = 0.0, top = 0.0;
        double y(double v) const { return bottom - (std::log10(v) - lo) / (hi - lo) * (bottom - top); }
    };

    /// One curve of the scale panel's legend.
    struct ScaleEntry {
        QString name;
        QString shortName;
        QColor colour;
        double width;
        const core::ExtensionMethod* method; ///< null: the scheme's own scale
    };

    /// A horizontal line of the wavelength panel (the trained window T, the inference length L, a band edge) and its
    /// label's wordings, longest first.
    struct HLine {
        double v;
        QColor colour;
        Qt::PenStyle style;
        double width;
        QStringList words;
        bool preferAbove;
        /// When no place beside the line inside the panel is free: past the line's right end (placeAtLineEnd).
        bool endFallback = false;
    };

    /// One entry of the wavelength panel's legend.
    struct WaveEntry {
        QString name;
        QColor colour;
        double width;
    };

    /// What the painter takes from the view besides the data.
    struct Context {
        QString figureLabel;
        bool answerPending = false; ///< a step's prediction is due (WorkbenchState::answerPending)
        bool showsHints = false;    ///< the hovered pair's read-out may be drawn
        int hoverPair = -1;
        /// the hover tag's one line while a guess is due (View::withheldReadout); empty: the pair's numbers
        QString withheldHover;
        std::vector<ValueRange> axisRanges; ///< the wavelength and the scale axes' data ranges (shared or own)
        std::optional<std::pair<double, double>> frozenAxis; ///< while L is dragged: log10 of the wavelength axis' ends
    };

    ExtensionPainter(QPainter& painter, TextLayout& layout, const QRectF& area, const Theme& theme,
                     const ExtensionData& data, Context context)
        : p(painter)
        , text(layout)
        , target(area)
        , th(theme)
        , d(data)
        , t(data.table)
        , n(int(data.table.pairs.size()))
        , ctx(std::move(context))
        , s(sizeScale(area))
        , pad(8 * s)
    { }

    /// The whole figure (the data has at least one pair).
    void draw();

    QPainter& p;
    TextLayout& text;
    const QRectF target;
    const Theme th;
    const ExtensionData& d;
    const core::ExtensionTable& t;
    const int n;
    const Context ctx;
    const double s, pad;

    // The fonts (set by drawHeading(): the heading's fit decides tight).
    QFont tickFont, labelFont, boldFont;
    QFontMetricsF tfm{QFont()}, lfm{QFont()}, bfm{QFont()};
    bool tight = false;  ///< large text: the header keeps the title only, the scale title joins its legend
    bool narrow = false; ///< no circle panel: the chosen pair's numbers take one line under the plots
    QString baseLine;    ///< "base θ' = …": the base in force once shown (drawHeading(); empty while a guess is due)
    bool baseInPanel = false; ///< the header has no room for baseLine: the circle panel or the pair line shows it
    // Geometry (layOut()).
    QRectF plots, circlePanel, wave, legendBox, scaleR;
    double titleH = 0, gap = 0, legendIndent = 0, swatch = 0;
    QString scaleTitle;
    std::vector<double> schemeScale;
    std::vector<ScaleEntry> legend;
    bool shortNames = false;
    double wlo = 0, whi = 1;
    LogAxis wy, sy;
    int pair = 0;
    double lengthY = -1.0;       ///< the height of the L line (-1: off the panel)
    std::vector<HLine> unplaced; ///< lines with an end fallback whose label found no place beside them
    QRectF circleBox;            ///< the chosen pair's circle as drawn (empty: none)

private:
    double xOf(double i) const { return wave.left() + (i + 0.5) / n * wave.width(); }
    double drawHeading();
    void collectScaleLegend();
    double entryWidth(const QString& name) const;
    int rowsFor(double width, bool shortNames, double indent) const;
    void layOut(double headerBottom);
    void fitAxes();
    void drawPanels();
    void drawAxes();
    void drawPairAxis();
    void polyline(const LogAxis& ax, const std::vector<double>& values, const QPen& pen, const QString& what);
    void drawCurves();
    void drawPairMarker();
    void drawScaleLegend();
    std::vector<HLine> markerLines() const;
    double yOfLine(double v) const;
    bool placeLabel(const HLine& h);
    void placeAtLineEnd(const HLine& h);
    void drawMarkerLines();
    void drawBandNames();
    bool clearOfCurves(const QRectF& box) const;
    void drawLegendBox(const QRectF& box, const std::vector<WaveEntry>& entries, bool dashedFirst, bool right);
    void drawWaveLegend();
    void drawPairLine();
    double drawCircle(double cy);
    void drawCirclePanel();
    void drawHoverTag();
};

} // namespace poslab::ui
