// SPDX-License-Identifier: MIT
#include "ui/export/exportservice.h"

#include "ui/export/exportparts.h"

#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/io/outputfile.h"
#include "core/io/writers.h"
#include "ui/figures/computation.h"
#include "ui/export/exportscene.h"
#include "ui/export/pngwriter.h"
#include "ui/render/figuretitle.h"
#include "ui/views/view.h"
#include "ui/state/session.h"
#include "ui/state/workbenchstate.h"

#include <QBuffer>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMimeData>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QSvgRenderer>

#include <algorithm>
#include <ostream>
#include <functional>
#include <cmath>
#include <optional>

namespace poslab::exporting {

ExportResult detail::failed(Failure how, const QString& message)
{
    ExportResult r;
    r.failure = how;
    r.message = message;
    return r;
}

void detail::paintView(ui::View& view, QPainter& p, const QSizeF& logical)
{
    view.render(p, QRectF(QPointF(0, 0), logical));
}

using detail::failed;

namespace {

using detail::logicalDpi;
using detail::paintView;

constexpr double mmPerInch = 25.4;

QString svgColour(const QColor& c)
{
    return c.name(QColor::HexRgb).toLower();
}

/// QSvgGenerator writes width/height from an integer size; this puts the exact physical size in place.
/// Text for QSvgGenerator's <title> and <desc>. Qt 6.4 writes them as given, so "a & b" or "<x>" would make
/// the SVG ill-formed (or inject elements); a Qt that escapes them itself is detected once and left to it.
QString svgText(const QString& text)
{
    static const bool qtEscapes = [] {
        QByteArray probe;
        QBuffer buffer(&probe);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator gen;
        gen.setOutputDevice(&buffer);
        gen.setSize(QSize(1, 1));
        gen.setTitle(QStringLiteral("&"));
        {
            QPainter p(&gen);
        }
        return probe.contains("&amp;");
    }();
    return qtEscapes ? text : text.toHtmlEscaped();
}

/// @p svg with every character XML 1.0 cannot hold (§2.2 Char: U+0000 to U+001F other than tab, LF and CR;
/// U+FFFE and U+FFFF) replaced by U+FFFD. QSvgGenerator writes text as given, and no character reference
/// (&#1;) makes them valid, so a title, a label or a state's sentence holding one would leave an SVG that no
/// reader parses. Nothing else in the file holds such bytes (embedded images are base64).
QByteArray xmlCharactersOnly(QByteArray svg)
{
    const auto bad = [&](qsizetype i) {
        const auto c = static_cast<unsigned char>(svg[i]);
        if (c < 0x20)
            return c != '\t' && c != '\n' && c != '\r' ? 1 : 0;
        if (c == 0xef && i + 2 < svg.size() && static_cast<unsigned char>(svg[i + 1]) == 0xbf
            && (static_cast<unsigned char>(svg[i + 2]) & 0xfe) == 0xbe)
            return 3;
        return 0;
    };
    qsizetype i = 0;
    while (i < svg.size() && bad(i) == 0)
        ++i;
    if (i == svg.size())
        return svg;
    QByteArray out = svg.left(i);
    out.reserve(svg.size() + 16);
    while (i < svg.size()) {
        if (const int n = bad(i); n > 0) {
            out += "\xef\xbf\xbd";
            i += n;
        } else {
            out += svg[i++];
        }
    }
    return out;
}

QByteArray fixSvgHeader(QByteArray svg, const FigureGeometry& g)
{
    static const QRegularExpression size(QStringLiteral("<svg width=\"[^\"]*\" height=\"[^\"]*\""));
    const QString replacement = QStringLiteral("<svg width=\"%1mm\" height=\"%2mm\"")
                                    .arg(g.millimetres.width(), 0, 'f', 3)
                                    .arg(g.millimetres.height(), 0, 'f', 3);
    // Only the first 600 bytes hold the header; a regex over megabytes of base64 would be slow.
    const qsizetype head = std::min<qsizetype>(svg.size(), 600);
    QString header = QString::fromUtf8(svg.left(head));
    header.replace(size, replacement);
    return header.toUtf8() + svg.mid(head);
}

/// Removes every fill of the theme's background colour: the figure's background and panels that erase to
/// it become transparent; text, lines and the heatmap images are untouched.
QByteArray dropBackground(QByteArray svg, const QColor& background)
{
    const QByteArray from = "fill=\"" + svgColour(background).toLatin1() + "\"";
    svg.replace(from, "fill=\"none\"");
    return svg;
}

/// A QBuffer that takes at most @p limit bytes: a figure whose drawing writes more is stopped there (each further
/// write fails) and reported by overflowed(), so a vector figure never grows past maxVectorBytes in memory.
class BoundedBuffer : public QBuffer {
public:
    BoundedBuffer(QByteArray* out, qint64 limit)
        : QBuffer(out)
        , m_limit(limit)
    { }
    bool overflowed() const { return m_overflowed; }

protected:
    qint64 writeData(const char* data, qint64 len) override
    {
        if (m_overflowed || pos() + len > m_limit) {
            m_overflowed = true;
            return -1;
        }
        return QBuffer::writeData(data, len);
    }

private:
    qint64 m_limit;
    bool m_overflowed = false;
};

/// The refusal of a vector figure over maxVectorBytes.
QString tooManyElements(const char* format, const FigureGeometry& g, qint64 limit)
{
    return QStringLiteral("a %1 x %2 %3 figure of this view would be more than %4 (too many elements); ask for "
                          "fewer positions or dimensions, or a PNG")
        .arg(g.pixels.width())
        .arg(g.pixels.height())
        .arg(QLatin1String(format))
        .arg(QString::fromStdString(core::formatBytes(double(limit))));
}

} // namespace

// ---------------------------------------------------------------------------------------------- formats

std::optional<Format> formatForPath(const QString& path)
{
    const QString ext = QFileInfo(path).suffix().toLower();
    static const std::pair<const char*, Format> table[] = {
        {"png", Format::Png}, {"svg", Format::Svg},   {"pdf", Format::Pdf}, {"gif", Format::Gif},
        {"csv", Format::Csv}, {"json", Format::Json}, {"npy", Format::Npy},
    };
    for (const auto& [name, f] : table)
        if (ext == QLatin1String(name))
            return f;
    return std::nullopt;
}

QString extension(Format format)
{
    switch (format) {
    case Format::Png: return QStringLiteral("png");
    case Format::Svg: return QStringLiteral("svg");
    case Format::Pdf: return QStringLiteral("pdf");
    case Format::Gif: return QStringLiteral("gif");
    case Format::Csv: return QStringLiteral("csv");
    case Format::Json: return QStringLiteral("json");
    case Format::Npy: return QStringLiteral("npy");
    }
    return {};
}

bool isFigure(Format format)
{
    return format == Format::Png || format == Format::Svg || format == Format::Pdf || format == Format::Gif;
}

QString knownExtensions()
{
    return QStringLiteral(".svg, .png, .pdf, .gif (figures) or .csv, .json, .npy (data)");
}

FigureGeometry geometryFor(const ExportOptions& o, QString* error)
{
    auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        return FigureGeometry{};
    };
    if (!(o.dpi >= minDpi && o.dpi <= maxDpi))
        return fail(QStringLiteral("DPI %1 is out of range; allowed: %2 to %3").arg(o.dpi).arg(minDpi).arg(maxDpi));
    if (!(o.fontScale >= minFontScale && o.fontScale <= maxFontScale))
        return fail(QStringLiteral("font scale %1 is out of range; allowed: %2 to %3")
                        .arg(o.fontScale)
                        .arg(minFontScale)
                        .arg(maxFontScale));
    if (!(o.size.width() > 0 && o.size.height() > 0) || !std::isfinite(o.size.width())
        || !std::isfinite(o.size.height()))
        return fail(QStringLiteral("the figure size must be positive"));
    double inchesPerUnit = 0; // 0: pixels
    switch (o.unit) {
    case SizeUnit::Pixels: break;
    case SizeUnit::Centimetres: inchesPerUnit = 10.0 / mmPerInch; break;
    case SizeUnit::Millimetres: inchesPerUnit = 1.0 / mmPerInch; break;
    case SizeUnit::Inches: inchesPerUnit = 1.0; break;
    }
    const double wpx = inchesPerUnit > 0 ? o.size.width() * inchesPerUnit * o.dpi : o.size.width();
    const double hpx = inchesPerUnit > 0 ? o.size.height() * inchesPerUnit * o.dpi : o.size.height();
    const QSize px(int(std::lround(std::min(wpx, 1e9))), int(std::lround(std::min(hpx, 1e9))));
    if (px.width() > maxPixelsPerSide || px.height() > maxPixelsPerSide)
        return fail(QStringLiteral("a %1 x %2 pixel figure is too large; at most %3 pixels a side")
                        .arg(qint64(std::lround(std::min(wpx, 1e12))))
                        .arg(qint64(std::lround(std::min(hpx, 1e12))))
                        .arg(maxPixelsPerSide));
    if (px.width() < minPixelsPerSide || px.height() < minPixelsPerSide)
        return fail(QStringLiteral("a %1 x %2 pixel figure is too small; at least %3 pixels a side")
                        .arg(px.width())
                        .arg(px.height())
                        .arg(minPixelsPerSide));
    if (o.format == Format::Png && qint64(px.width()) * px.height() * 4 > maxRasterBytes)
        return fail(QStringLiteral("a %1 x %2 image needs %3 MiB; at most %4 MiB")
                        .arg(px.width())
                        .arg(px.height())
                        .arg(qint64(px.width()) * px.height() * 4 >> 20)
                        .arg(maxRasterBytes >> 20));
    FigureGeometry g;
    g.pixels = px;
    g.dpr = o.dpi / logicalDpi;
    g.logical = QSizeF(px.width() / g.dpr, px.height() / g.dpr);
    g.millimetres = QSizeF(px.width() / o.dpi * mmPerInch, px.height() / o.dpi * mmPerInch);
    return g;
}

std::optional<FigureGeometry> detail::checkedGeometry(const ExportOptions& options, QString* error)
{
    QString why;
    const FigureGeometry g = geometryFor(options, &why);
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    return g;
}

using detail::checkedGeometry;

// ---------------------------------------------------------------------------------------------- figures

void applyLook(ui::WorkbenchState& state, const ExportOptions& options)
{
    ui::ViewOptions o = state.viewOptions();
    o.theme = options.theme;
    o.fontScale = options.fontScale;
    state.setViewOptions(o);
}

QString ExportService::defaultTitle(const ui::View& view, const ui::WorkbenchState& state)
{
    // The spatial views draw the spatial set-up's scheme, not the 1-D one (and no model's 1-D label).
    if (const QString own = view.ownScheme().first; !own.isEmpty())
        return QStringLiteral("%1 \u2014 %2").arg(view.title(), own);
    const QString model = state.modelLabel();
    if (!model.isEmpty()) // the real model it shows, then the scheme's variant: "Decay - Llama 3.1 8B: RoPE ..."
        return QStringLiteral("%1 \u2014 %2: %3")
            .arg(view.title(), model, ui::variantLabel(state.scheme(), state.params()));
    return QStringLiteral("%1 \u2014 %2").arg(view.title(), ui::variantLabel(state.scheme(), state.params()));
}

QString ExportService::describe(const ui::View& view, const ui::WorkbenchState& state)
{
    if (const QString own = view.ownScheme().second; !own.isEmpty())
        return QStringLiteral("PosLab: %1; state %2").arg(own, ui::shareLink(state));
    return describe(state);
}

QString ExportService::describe(const ui::WorkbenchState& state)
{
    QStringList params;
    // Only the parameters in force (YaRN's knobs mean nothing while rope_type is default).
    for (const auto& spec : state.scheme().params)
        if (state.params().has(spec.key) && core::applies(spec, state.params()))
            params << QStringLiteral("%1=%2").arg(QString::fromStdString(spec.key),
                                                  QString::fromStdString(state.params().value(spec.key).toString()));
    // The model it shows, and the whole state as a link that reopens it (poslab --state LINK).
    const QString model = state.modelLabel();
    return QStringLiteral("PosLab: %1scheme %2, dimension %3, positions 0:%4%5; state %6")
        .arg(model.isEmpty() ? QString() : QStringLiteral("%1, ").arg(model))
        .arg(state.schemeId())
        .arg(state.dim())
        .arg(state.positionCount())
        .arg(params.isEmpty() ? QString() : QStringLiteral(", ") + params.join(QStringLiteral(", ")))
        .arg(ui::shareLink(state));
}

QString ExportService::whyNothingToShow(ui::View& view, const ui::WorkbenchState& state, ui::Computation& computation)
{
    if (!view.isApplicable())
        return QStringLiteral("the %1 view has nothing to show for %2 (%3)")
            .arg(view.exportName(), state.schemeId(), QString::fromStdString(state.scheme().name));
    if (computation.result() && !computation.result()->error.isEmpty())
        return computation.result()->error;
    if (const QString why = view.computeError(); !why.isEmpty())
        return why;
    if (view.exportName() == QLatin1String("attention") && computation.attention()
        && !computation.attention()->error.isEmpty())
        return computation.attention()->error;
    const QString term = state.viewOptions().term;
    if (view.exportName() == QLatin1String("attention") && !term.isEmpty() && computation.attention()
        && computation.attention()->term != term) {
        const QStringList& terms = computation.attention()->terms;
        return QStringLiteral("scheme %1 has no term '%2'; %3")
            .arg(state.schemeId(), term,
                 terms.isEmpty() ? QStringLiteral("it has no separate terms")
                                 : QStringLiteral("its terms: ") + terms.join(QStringLiteral(", ")));
    }
    return {};
}

QImage ExportService::renderImage(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options,
                                  QString* error)
{
    const std::optional<FigureGeometry> checked = checkedGeometry(options, error);
    if (!checked)
        return {};
    const FigureGeometry& g = *checked;
    // Views paint their own background; a transparent figure replays the SVG without it instead.
    QByteArray svg;
    if (options.transparent) {
        svg = renderSvg(view, state, options, error);
        if (svg.isEmpty())
            return {};
    }
    QImage img(g.pixels, options.transparent ? QImage::Format_ARGB32_Premultiplied : QImage::Format_RGB32);
    const int dpm96 = int(std::lround(logicalDpi / 0.0254));
    img.setDotsPerMeterX(dpm96);
    img.setDotsPerMeterY(dpm96);
    img.fill(options.transparent ? QColor(Qt::transparent) : state.theme().background);
    {
        // An explicit scale from the logical layout to the pixels: QPainter does not apply an image's
        // device pixel ratio below 1, so a small preview would show the top-left corner at full size.
        QPainter p(&img);
        p.scale(double(g.pixels.width()) / g.logical.width(), double(g.pixels.height()) / g.logical.height());
        if (options.transparent) {
            p.setRenderHint(QPainter::Antialiasing);
            p.setRenderHint(QPainter::TextAntialiasing);
            QSvgRenderer(svg).render(&p, QRectF(QPointF(0, 0), g.logical));
        } else {
            paintView(view, p, g.logical);
        }
    }
    const int dpm = int(std::lround(options.dpi / 0.0254));
    img.setDotsPerMeterX(dpm);
    img.setDotsPerMeterY(dpm);
    return img;
}

QByteArray ExportService::renderSvg(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options,
                                    QString* error)
{
    const std::optional<FigureGeometry> checked = checkedGeometry(options, error);
    if (!checked)
        return {};
    const FigureGeometry& g = *checked;
    // The images it embeds are allocated while it draws: refused before (the table's heatmap at twice a
    // 16384 x 16384 figure's plot was 4 GB).
    if (const double bytes = view.svgImageBytes(g.logical); bytes > double(maxRasterBytes)) {
        if (error)
            *error
                = QStringLiteral("a %1 x %2 %3 figure of the %4 view embeds images of %5 MiB (its heatmap at "
                                 "twice the plot's size); at most %6 MiB")
                      .arg(g.pixels.width())
                      .arg(g.pixels.height())
                      .arg(options.format == Format::Svg ? QStringLiteral("SVG") : extension(options.format).toUpper())
                      .arg(view.exportName())
                      .arg(qint64(bytes) >> 20)
                      .arg(maxRasterBytes >> 20);
        return {};
    }
    QByteArray out;
    BoundedBuffer buffer(&out, options.vectorByteLimit);
    buffer.open(QIODevice::WriteOnly);
    {
        QSvgGenerator gen;
        gen.setOutputDevice(&buffer);
        gen.setResolution(int(logicalDpi));
        gen.setSize(QSize(int(std::ceil(g.logical.width())), int(std::ceil(g.logical.height()))));
        gen.setViewBox(QRectF(QPointF(0, 0), g.logical));
        gen.setTitle(svgText(options.title.isEmpty() ? defaultTitle(view, state) : options.title));
        gen.setDescription(svgText(describe(view, state)));
        QPainter p(&gen);
        paintView(view, p, g.logical);
    }
    buffer.close();
    if (buffer.overflowed()) {
        if (error)
            *error = tooManyElements("SVG", g, options.vectorByteLimit);
        return {};
    }
    out = fixSvgHeader(xmlCharactersOnly(std::move(out)), g);
    if (options.transparent)
        out = dropBackground(std::move(out), state.theme().background);
    return out;
}

QByteArray ExportService::renderPdf(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options,
                                    QString* error)
{
    const std::optional<FigureGeometry> checked = checkedGeometry(options, error);
    if (!checked)
        return {};
    const FigureGeometry& g = *checked;
    // Transparent: the SVG without its background fills, replayed into the PDF (text stays text).
    QByteArray svg;
    if (options.transparent) {
        svg = renderSvg(view, state, options, error);
        if (svg.isEmpty())
            return {};
    }
    QByteArray out;
    BoundedBuffer buffer(&out, options.vectorByteLimit);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter pdf(&buffer);
        pdf.setResolution(int(logicalDpi));
        pdf.setPageSize(
            QPageSize(g.millimetres, QPageSize::Millimeter, QStringLiteral("PosLab figure"), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(options.title.isEmpty() ? defaultTitle(view, state) : options.title);
        pdf.setCreator(describe(view, state));
        QPainter p(&pdf);
        if (options.transparent) {
            QSvgRenderer renderer(svg);
            renderer.render(&p, QRectF(QPointF(0, 0), g.logical));
        } else {
            p.fillRect(QRectF(QPointF(0, 0), g.logical), state.theme().background);
            paintView(view, p, g.logical);
        }
    }
    buffer.close();
    if (buffer.overflowed()) {
        if (error)
            *error = tooManyElements("PDF", g, options.vectorByteLimit);
        return {};
    }
    return out;
}

namespace {

/// renderFigure's PNG: the image with its title, description and software in text chunks.
QByteArray renderPngFigure(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options,
                           ExportResult& r)
{
    QString why;
    QImage img = ExportService::renderImage(view, state, options, &why);
    if (img.isNull()) {
        r = failed(Failure::Refused, why);
        return {};
    }
    PngOptions png;
    png.text = {
        {QStringLiteral("Title"), options.title.isEmpty() ? ExportService::defaultTitle(view, state) : options.title},
        {QStringLiteral("Description"), ExportService::describe(view, state)},
        {QStringLiteral("Software"), QStringLiteral("PosLab")}};
    QString pngError;
    const QByteArray out = encodePng(img, png, &pngError);
    if (out.isEmpty()) {
        r = failed(Failure::Refused, QStringLiteral("PNG encoding failed: %1").arg(pngError));
        return {};
    }
    r.pixels = img.size();
    return out;
}

} // namespace

QByteArray ExportService::renderFigure(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation,
                                       const ExportOptions& options, ExportResult* result)
{
    ExportResult local;
    ExportResult& r = result ? *result : local;
    r = ExportResult{};
    auto fail = [&](Failure how, const QString& why) {
        r = failed(how, why);
        return QByteArray();
    };
    QString why;
    const FigureGeometry g = geometryFor(options, &why);
    if (!why.isEmpty())
        return fail(Failure::Refused, why);
    settle(computation);
    if (options.format != Format::Gif) {
        why = whyNothingToShow(view, state, computation);
        // Bad input the view names (a spatial set-up its view cannot draw) is a usage error in every format, as
        // its data export says (exit 2); a request over a limit is refused (exit 1).
        if (!why.isEmpty())
            return fail(why == view.computeError() && !view.computeRefused() ? Failure::Usage : Failure::Refused, why);
    }
    switch (options.format) {
    case Format::Png: return renderPngFigure(view, state, options, r);
    case Format::Svg: {
        QByteArray svg = renderSvg(view, state, options, &why);
        if (svg.isEmpty())
            return fail(Failure::Refused, why);
        return svg;
    }
    case Format::Pdf: {
        QByteArray pdf = renderPdf(view, state, options, &why);
        if (pdf.isEmpty())
            return fail(Failure::Refused, why.isEmpty() ? QStringLiteral("PDF output failed") : why);
        return pdf;
    }
    case Format::Gif: return detail::renderGif(view, state, computation, options, g, r);
    case Format::Csv:
    case Format::Json:
    case Format::Npy: return renderData(view, state, options.format, &r);
    }
    return fail(Failure::Usage, QStringLiteral("unknown format"));
}

// ---------------------------------------------------------------------------------------------- files

namespace {

/// Runs @p act; core's refusal as its message (empty when none), and in @p how whether it was a usage error or a
/// refusal.
template <typename Act> QString coreMessage(Failure* how, Act&& act)
{
    try {
        act();
        return {};
    } catch (const core::InputError& e) {
        if (how)
            *how = Failure::Usage;
        return QString::fromStdString(e.what());
    } catch (const core::RefusedError& e) {
        if (how)
            *how = Failure::Refused;
        return QString::fromStdString(e.what());
    }
}

} // namespace

QString ExportService::checkPath(const QString& path, Failure* how, const core::OutputFolder* within)
{
    // The one rule of every writer (core/io/outputfile.h): links, devices, read-only files, control characters.
    return coreMessage(how, [&] { core::checkOutputFile(path.toStdString(), within); });
}

namespace {

/// Writes through core's one writer; the message and how it failed, or an empty string. @p bytes receives the
/// size written.
QString writeThroughCore(const QString& path, const std::function<void(std::ostream&)>& body, Failure* how,
                         const core::OutputFolder* within, qint64* bytes = nullptr)
{
    return coreMessage(how, [&] {
        const std::uint64_t n = core::writeOutputFile(path.toStdString(), body, within);
        if (bytes)
            *bytes = qint64(n);
    });
}

/// Thrown out of a data export's body when the data fail, so that the writer removes its temporary.
struct DataFailed { };

} // namespace

QString ExportService::writeFile(const QString& path, const QByteArray& data, Failure* how,
                                 const core::OutputFolder* within)
{
    return writeThroughCore(
        path, [&](std::ostream& out) { out.write(data.constData(), std::streamsize(data.size())); }, how, within);
}

ExportResult ExportService::exportView(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation,
                                       const ExportOptions& options, const QString& path)
{
    // Check the path before the work: a typo in a folder name should not cost a 600-frame animation.
    Failure how = Failure::Usage;
    if (QString why = checkPath(path, &how, options.outputFolder); !why.isEmpty())
        return failed(how, why);
    const std::optional<Format> byName = formatForPath(path);
    if (!byName)
        return failed(
            Failure::Usage,
            QStringLiteral("cannot tell the format of %1 from its extension; use %2").arg(path, knownExtensions()));
    ExportOptions o = options;
    o.format = *byName;
    ExportResult r;
    if (!isFigure(o.format)) {
        // The numbers stream into the file (a million-row table is never held as text in memory).
        settle(computation);
        qint64 bytes = 0;
        QString why;
        try {
            why = writeThroughCore(
                path,
                [&](std::ostream& out) {
                    r = writeData(view, state, o.format, out);
                    if (!r.ok())
                        throw DataFailed{};
                },
                &how, o.outputFolder, &bytes);
        } catch (const DataFailed&) {
            return r;
        }
        if (!why.isEmpty())
            return failed(how, why);
        r.bytes = bytes;
        return r;
    }
    const QByteArray bytes = renderFigure(view, state, computation, o, &r);
    if (!r.ok())
        return r;
    if (QString why = writeFile(path, bytes, &how, o.outputFolder); !why.isEmpty())
        return failed(how, why);
    r.bytes = bytes.size();
    return r;
}

void ExportService::copyToClipboard(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options)
{
    auto* mime = new QMimeData;
    ExportOptions o = options;
    o.format = Format::Png;
    const QImage img = renderImage(view, state, o);
    if (!img.isNull())
        mime->setImageData(img);
    o.format = Format::Svg;
    const QByteArray svg = renderSvg(view, state, o);
    if (!svg.isEmpty())
        mime->setData(QStringLiteral("image/svg+xml"), svg);
    QGuiApplication::clipboard()->setMimeData(mime);
}

} // namespace poslab::exporting
