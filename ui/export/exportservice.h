// SPDX-License-Identifier: MIT
#pragma once
/// @file exportservice.h
/// The single path from a workbench view to a file: PNG, SVG, PDF and animated GIF figures, and the numbers
/// behind a view as CSV, JSON or NPY (core's writers). The window's File > Export, the clipboard and
/// `poslab export` (app/exportcli.cpp) all call these functions; nothing else writes figures.
///
/// Geometry. A figure has a pixel size and a DPI. Views lay themselves out in logical pixels of 1/96 inch
/// (the unit of Qt's point sizes and of SVG's user unit), so the logical size is pixels x 96 / DPI: a 12 cm
/// figure at 300 DPI gets the layout and 10 pt text of a 12 cm figure, drawn with 3.125 device pixels per
/// logical pixel. SVG: viewBox = the logical size, width/height = the physical size in mm. PDF: one page of
/// the physical size. PNG: the pixel size, with the DPI in the pHYs chunk (dots per metre).
///
/// Every file is written through core's one writer (core/io/outputfile.h): a failure leaves no partial file and
/// keeps an older file; links, devices and read-only files are refused as for every other writer.

#include "ui/export/gifwriter.h"
#include "ui/render/theme.h"

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <iosfwd>
#include <optional>

namespace poslab::core {
class OutputFolder;
}

namespace poslab::ui {
class View;
class WorkbenchState;
class Computation;
} // namespace poslab::ui

namespace poslab::exporting {

/// File formats: four figure formats and three data formats.
enum class Format { Png, Svg, Pdf, Gif, Csv, Json, Npy };

/// The format for a file name's extension (case-insensitive), or nullopt.
std::optional<Format> formatForPath(const QString& path);
/// Lower-case extension without the dot ("svg").
QString extension(Format format);
/// True for PNG, SVG, PDF and GIF.
bool isFigure(Format format);
/// "the extensions .svg, .png, ..." for messages.
QString knownExtensions();

/// Units of ExportOptions::size.
enum class SizeUnit { Pixels, Centimetres, Millimetres, Inches };

/// Largest figure side in device pixels, and the largest raster (bytes of 32-bit pixels, all frames of a
/// GIF together). Requests beyond are refused with a message, never clamped.
inline constexpr int maxPixelsPerSide = 16384;
inline constexpr qint64 maxRasterBytes = qint64(512) << 20;
inline constexpr qint64 maxAnimationBytes = qint64(1) << 30;
inline constexpr int maxFrames = 1000;
/// The largest SVG or PDF file: a figure whose drawing writes more is refused (its element count is bounded by
/// its bytes); the raster images it embeds count against maxRasterBytes, checked before drawing.
inline constexpr qint64 maxVectorBytes = qint64(256) << 20;
inline constexpr int minPixelsPerSide = 16;
/// The resolutions and font scales a figure accepts (the command line refuses others as usage errors).
inline constexpr double minDpi = 10.0;
inline constexpr double maxDpi = 2400.0;
inline constexpr double minFontScale = 0.25;
inline constexpr double maxFontScale = 8.0;

/// What a GIF animates.
struct AnimationOptions {
    /// "position" moves the position cursor (clock hands, rotation planes, table and attention cursor);
    /// anything else names a parameter to sweep: a scheme parameter key (rope_theta, ...), "dim",
    /// "positions", "key_distance", "shift", "head", "heads" or "font_scale".
    QString what = QStringLiteral("position");
    std::optional<double> from; ///< position: default 0; a parameter: default its current value
    std::optional<double> to;   ///< position: default from + frames - 1 (within range); a parameter: required
    int frames = 32;
    GifOptions gif; ///< frames per second and loop count
    /// A parameter sweep holds the colour scale of heatmap views at the range of all its frames (computed
    /// before the first frame is drawn), so that a colour means the same value in every frame; true lets
    /// each frame scale to its own data.
    bool floatColourScale = false;
};

/// Everything that decides how a figure looks, besides the state it shows.
struct ExportOptions {
    Format format = Format::Png;
    QSizeF size{1200, 800}; ///< in @c unit
    SizeUnit unit = SizeUnit::Pixels;
    double dpi = 96.0; ///< dots per inch: physical size of pixel sizes, pixels of physical sizes
    ui::ThemeKind theme = ui::ThemeKind::Light;
    bool transparent = false;                ///< drop the theme's background (PNG, SVG, PDF; GIF frames are opaque)
    double fontScale = 1.0;                  ///< multiplies every font (1.5 to 2 for slides)
    QString title;                           ///< SVG/PDF/PNG title; empty: "<view title> - <scheme name>"
    AnimationOptions animation;              ///< GIF only
    qint64 vectorByteLimit = maxVectorBytes; ///< SVG/PDF: the most bytes a drawing may write (tests lower it)
    /// The folder the output must stay beneath (a batch file's), or null: exportView checks and writes through
    /// it (core::writeOutputFile's @p within). Not owned.
    const core::OutputFolder* outputFolder = nullptr;
};

/// Where a figure's size ends up: pixels of the file and the logical size views lay out in.
struct FigureGeometry {
    QSize pixels;       ///< device pixels (PNG/GIF size)
    QSizeF logical;     ///< pixels x 96 / dpi (SVG viewBox, PDF page in 1/96 in)
    double dpr = 1.0;   ///< dpi / 96
    QSizeF millimetres; ///< physical size
};

/// The geometry of @p options, or an error (too small, too large, DPI out of 10..2400).
FigureGeometry geometryFor(const ExportOptions& options, QString* error);

/// How a request failed: Usage (bad path, bad option) or Refused (too large, nothing to show, core refused).
enum class Failure { None, Usage, Refused };

struct ExportResult {
    Failure failure = Failure::None;
    QString message;   ///< one line when failed
    QStringList notes; ///< non-fatal remarks (e.g. what an animation swept)
    QSize pixels;      ///< raster size written (PNG, GIF)
    qint64 bytes = 0;  ///< file size written
    bool ok() const { return failure == Failure::None; }
};

/// Sets the theme and font scale of @p options on @p state (a scene's state: the window's keeps its own).
void applyLook(ui::WorkbenchState& state, const ExportOptions& options);

/// The export service. Free of widgets apart from the views it draws; the theme and font scale of a figure
/// come from the view's state, which the caller sets (ExportScene does this for the CLI and the dialog).
class ExportService {
public:
    /// The view drawn as an image of the options' pixel size (theme background unless transparent), with
    /// the DPI stored as dots per metre.
    /// Transparent: the view's SVG without its background fills, rasterised (anti-aliased against nothing).
    static QImage renderImage(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options,
                              QString* error = nullptr);
    /// The view as SVG text: real text and paths, heatmaps as one embedded PNG each at their native size.
    static QByteArray renderSvg(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options,
                                QString* error = nullptr);
    /// The view as a one-page PDF of the figure's physical size.
    static QByteArray renderPdf(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options,
                                QString* error = nullptr);
    /// The frames of a GIF before encoding: the view at each value of options.animation's sweep, each
    /// parameter frame captioned with its value ("factor = 4.0") in a band below the view.
    static QList<QImage> renderFrames(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation,
                                      const ExportOptions& options, ExportResult* result);
    /// The refusal of an animation whose frames cost more than core's work limit all together (each frame's
    /// numbers for view @p viewId, twice when a parameter sweep holds the colour scale, and each frame's pixels
    /// drawn and encoded), one line saying the total and what to lower; empty when it fits, or when the sweep
    /// itself is malformed (renderFrames says why). Computes nothing: the command line calls it before it makes
    /// the view, whose creation computes the first frame. @p state is left as it was.
    static QString animationWorkProblem(const QString& viewId, ui::WorkbenchState& state, const ExportOptions& options);
    /// The caption of a sweep frame: the swept name and the value the state holds now ("factor = 4.0",
    /// "positions = 32,768").
    static QString sweepCaption(const ui::WorkbenchState& state, const QString& what);
    /// Encodes the figure in options.format (PNG, SVG, PDF; GIF animates @p state through @p computation).
    static QByteArray renderFigure(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation,
                                   const ExportOptions& options, ExportResult* result);
    /// The numbers behind the view (CSV, JSON or NPY): core::compute for the table, clock, rotation and
    /// attention views with the state's set-up, and the plotted curves for the decay view.
    static QByteArray renderData(ui::View& view, const ui::WorkbenchState& state, Format format, ExportResult* result);
    /// The same numbers written to @p out as they are formatted (a data export streams them into its file).
    static ExportResult writeData(ui::View& view, const ui::WorkbenchState& state, Format format, std::ostream& out);

    /// Renders (figure or data by @p options.format) and writes @p path through core::writeOutputFile.
    static ExportResult exportView(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation,
                                   const ExportOptions& options, const QString& path);

    /// Writes @p data to @p path atomically (core::writeOutputFile). Returns an empty string or the message;
    /// @p how, when given, receives Failure::Usage (the path names no file) or Failure::Refused (a link, a
    /// device, a read-only file, a failed write: disk full, permission).
    /// With @p within, @p path must lie beneath that folder (core::writeOutputFile).
    static QString writeFile(const QString& path, const QByteArray& data, Failure* how = nullptr,
                             const core::OutputFolder* within = nullptr);
    /// Checks that @p path can be written (core::checkOutputFile) without touching it; @p how and @p within as
    /// writeFile.
    static QString checkPath(const QString& path, Failure* how = nullptr, const core::OutputFolder* within = nullptr);

    /// Puts the view on the clipboard as an image (and as SVG under image/svg+xml, for Inkscape and
    /// office suites). Needs a QGuiApplication.
    static void copyToClipboard(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options);

    /// "Encoding table - Rotary position embedding (RoPE)"
    static QString defaultTitle(const ui::View& view, const ui::WorkbenchState& state);
    /// One line describing the state (scheme, parameters, dimension, positions) for SVG/PDF/PNG metadata.
    static QString describe(const ui::WorkbenchState& state);
    /// describe() for a figure of @p view: a spatial view names its own scheme and set-up (View::ownScheme()).
    static QString describe(const ui::View& view, const ui::WorkbenchState& state);
    /// Empty when @p view has something to show for the state; else why not (export refuses then).
    static QString whyNothingToShow(ui::View& view, const ui::WorkbenchState& state, ui::Computation& computation);
};

} // namespace poslab::exporting
