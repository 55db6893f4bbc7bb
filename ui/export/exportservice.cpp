// SPDX-License-Identifier: MIT
#include "ui/export/exportservice.h"

#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/io/outputfile.h"
#include "core/io/writers.h"
#include "ui/figures/computation.h"
#include "ui/export/exportscene.h"
#include "ui/export/pngwriter.h"
#include "ui/render/plotutils.h"
#include "ui/render/figuretitle.h"
#include "ui/views/viewlist.h"
#include "ui/views/view.h"
#include "ui/state/session.h"
#include "ui/state/workbenchstate.h"

#include <QBuffer>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QLocale>
#include <QMimeData>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QSvgRenderer>

#include <algorithm>
#include <ostream>
#include <streambuf>
#include <functional>
#include <cstring>
#include <cmath>
#include <optional>
#include <sstream>

namespace poslab::exporting {

namespace {

constexpr double logicalDpi = 96.0; // Qt's point sizes and SVG's user unit assume 96 per inch
constexpr double mmPerInch = 25.4;

ExportResult failed(Failure how, const QString& message)
{
    ExportResult r;
    r.failure = how;
    r.message = message;
    return r;
}

/// Paints the view with Qt's 96-per-inch logical pixels whatever the output DPI: point sizes then mean the
/// same on every device, and only the device pixel ratio carries the DPI.
void paintView(ui::View& view, QPainter& p, const QSizeF& logical)
{
    view.render(p, QRectF(QPointF(0, 0), logical));
}

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
    BoundedBuffer(QByteArray* out, qint64 limit) : QBuffer(out), m_limit(limit) {}
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

double interpolate(double a, double b, double t, bool geometric)
{
    if (geometric && a > 0 && b > 0)
        return a * std::pow(b / a, t);
    return a + (b - a) * t;
}

} // namespace

// ---------------------------------------------------------------------------------------------- formats

std::optional<Format> formatForPath(const QString& path)
{
    const QString ext = QFileInfo(path).suffix().toLower();
    static const std::pair<const char*, Format> table[] = {
        {"png", Format::Png}, {"svg", Format::Svg}, {"pdf", Format::Pdf}, {"gif", Format::Gif},
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

namespace {
// The geometry of a figure, or nothing with the reason in *error (the renderers' common first step).
std::optional<FigureGeometry> checkedGeometry(const ExportOptions& options, QString* error)
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
} // namespace

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
    const QString model = state.modelLabel();
    if (!model.isEmpty()) // the real model it shows, then the scheme's variant: "Decay - Llama 3.1 8B: RoPE ..."
        return QStringLiteral("%1 \u2014 %2: %3").arg(view.title(), model, ui::variantLabel(state.scheme(), state.params()));
    return QStringLiteral("%1 \u2014 %2").arg(view.title(), ui::variantLabel(state.scheme(), state.params()));
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
            *error = QStringLiteral("a %1 x %2 %3 figure of the %4 view embeds images of %5 MiB (its heatmap at "
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
        gen.setDescription(svgText(describe(state)));
        QPainter p(&gen);
        paintView(view, p, g.logical);
    }
    buffer.close();
    if (buffer.overflowed()) {
        if (error)
            *error = tooManyElements("SVG", g, options.vectorByteLimit);
        return {};
    }
    out = fixSvgHeader(std::move(out), g);
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
        pdf.setPageSize(QPageSize(g.millimetres, QPageSize::Millimeter, QStringLiteral("PosLab figure"),
                                  QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(options.title.isEmpty() ? defaultTitle(view, state) : options.title);
        pdf.setCreator(describe(state));
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

/// A GIF frame: the view drawn above a band that carries @p caption (the swept value), so the caption never
/// covers the view's own text; without a caption the whole figure is the view. Opaque, theme background.
QImage renderCaptionedImage(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options,
                            const QString& caption)
{
    const std::optional<FigureGeometry> g = checkedGeometry(options, nullptr);
    if (!g)
        return {};
    QImage img(g->pixels, QImage::Format_RGB32);
    const int dpm96 = int(std::lround(logicalDpi / 0.0254));
    img.setDotsPerMeterX(dpm96);
    img.setDotsPerMeterY(dpm96);
    const ui::Theme th = state.theme();
    img.fill(th.background);
    {
        QPainter p(&img);
        p.scale(double(g->pixels.width()) / g->logical.width(), double(g->pixels.height()) / g->logical.height());
        // The size of the views' own labels (they grow with the figure through sizeScale, as here).
        const QFont font = th.font(11 * ui::sizeScale(QRectF(QPointF(0, 0), g->logical)), true);
        const QFontMetricsF fm(font, &img);
        const double band =
            caption.isEmpty() ? 0.0 : std::min(std::ceil(fm.height() * 1.5), g->logical.height() / 4);
        paintView(view, p, QSizeF(g->logical.width(), g->logical.height() - band));
        if (band > 0) {
            const QRectF strip(0, g->logical.height() - band, g->logical.width(), band);
            p.fillRect(strip, th.background);
            p.setFont(font);
            p.setPen(th.foreground);
            p.setRenderHint(QPainter::TextAntialiasing);
            p.drawText(strip, Qt::AlignCenter, fm.elidedText(caption, Qt::ElideRight, strip.width() - 8));
        }
    }
    const int dpm = int(std::lround(options.dpi / 0.0254));
    img.setDotsPerMeterX(dpm);
    img.setDotsPerMeterY(dpm);
    return img;
}

/// Passes core's CSV through to @p next with a label in front of every line (the row's index along each row
/// axis), without holding the body: a table of a million rows streams.
class RowLabelBuffer : public std::streambuf {
public:
    RowLabelBuffer(std::streambuf* next, std::function<std::string(std::size_t)> label)
        : m_next(next), m_label(std::move(label))
    {
    }

protected:
    std::streamsize xsputn(const char* s, std::streamsize n) override
    {
        std::streamsize done = 0;
        while (done < n) {
            if (m_lineStart) {
                const std::string label = m_label(m_row) + ",";
                if (m_next->sputn(label.data(), std::streamsize(label.size())) != std::streamsize(label.size()))
                    return done;
                m_lineStart = false;
            }
            const char* end = static_cast<const char*>(std::memchr(s + done, '\n', std::size_t(n - done)));
            const std::streamsize len = end ? (end - (s + done)) + 1 : n - done;
            if (m_next->sputn(s + done, len) != len)
                return done;
            done += len;
            if (end) {
                m_lineStart = true;
                ++m_row;
            }
        }
        return done;
    }
    int overflow(int c) override
    {
        if (c == traits_type::eof())
            return traits_type::not_eof(c);
        const char ch = char(c);
        return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
    }
    int sync() override { return m_next->pubsync(); }

private:
    std::streambuf* m_next;
    std::function<std::string(std::size_t)> m_label;
    bool m_lineStart = true;
    std::size_t m_row = 0;
};

/// core's CSV (numbers only, one line per row of the last axis) with a header row naming every column, and
/// for tables one leading column per row axis (position; head and query) so that every row says what it is.
/// The views show positions 0 to N-1, so the row index along each axis is the position itself.
void writeCsvWithHeader(std::ostream& os, const core::ComputeResult& data)
{
    auto quoted = [](const std::string& s) {
        if (s.find_first_of(",\"\n") == std::string::npos)
            return s;
        std::string q = "\"";
        for (char c : s)
            q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    };
    std::string header;
    if (!data.columns.empty()) { // the decay curves: the first column is already the distance
        for (std::size_t c = 0; c < data.columns.size(); ++c)
            header += (c ? "," : "") + quoted(data.columns[c]);
        os << header << "\n";
        core::write(os, data, core::OutputFormat::Csv);
        return;
    }
    const std::size_t rank = data.shape.size();
    const std::size_t rowAxes = rank >= 2 ? rank - 1 : 1;
    auto axisName = [&](std::size_t i) {
        return i < data.axes.size() ? data.axes[i] : "axis " + std::to_string(i);
    };
    for (std::size_t i = 0; i < rowAxes; ++i)
        header += (i ? "," : "") + quoted(axisName(i));
    if (rank >= 2) {
        for (std::size_t j = 0; j < data.shape.back(); ++j)
            header += "," + quoted(axisName(rank - 1) + " " + std::to_string(j));
    } else {
        header += ",value";
    }
    os << header << "\n";
    RowLabelBuffer labels(os.rdbuf(), [&](std::size_t row) {
        std::string label;
        std::size_t rest = row;
        for (std::size_t i = rowAxes; i-- > 0;) {
            const std::size_t n = rank >= 2 || i < rank ? std::max<std::size_t>(1, data.shape[i]) : 1;
            label = std::to_string(rest % n) + (label.empty() ? "" : "," + label);
            rest /= n;
        }
        return label;
    });
    std::ostream labelled(&labels);
    core::write(labelled, data, core::OutputFormat::Csv);
    labelled.flush();
    if (!labelled)
        os.setstate(std::ios::badbit);
}

/// Sets one value of an animation sweep on the state. Returns an error message or empty.
QString applySweep(ui::WorkbenchState& s, const QString& what, double v)
{
    if (what == QLatin1String("position") || what == QLatin1String("cursor")) {
        s.setAnimationTime(std::max(0.0, v));
        return {};
    }
    if (what == QLatin1String("dim")) {
        int d = int(std::lround(v));
        if (s.scheme().needsEvenDim && d % 2)
            ++d;
        return s.setDim(d);
    }
    if (what == QLatin1String("positions"))
        return s.setPositionCount(int(std::lround(v)));
    if (const ui::ViewProperty* p = ui::findViewProperty(what); p && p->animatable) {
        // Through the property table: refused, never clamped (a clamped sweep would repeat its last frame and
        // caption a value not drawn); head and heads are checked against each other.
        const double x = p->kind == ui::PropertyKind::Integer ? double(std::llround(v)) : v;
        QVariant value;
        if (QString why = ui::convertProperty(*p, QJsonValue(x), &value); !why.isEmpty())
            return why;
        ui::ViewOptions o = s.viewOptions();
        p->set(o, value);
        if (QString why = ui::checkViewOptions(o); !why.isEmpty())
            return why;
        return s.setViewOptions(o);
    }
    const core::ParamSpec* spec = s.scheme().param(what.toStdString());
    if (!spec) {
        QStringList names{QStringLiteral("position"), QStringLiteral("dim"), QStringLiteral("positions")};
        for (const ui::ViewProperty& p : ui::viewProperties())
            if (p.animatable)
                names << p.name;
        QStringList keys;
        for (const auto& p : s.scheme().params)
            if (p.type == core::ParamType::Real || p.type == core::ParamType::Integer)
                keys << QString::fromStdString(p.key);
        return QStringLiteral("cannot animate '%1': not %2 or a number parameter of %3%4")
            .arg(what, names.join(QStringLiteral(", ")), s.schemeId(),
                 keys.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(keys.join(QStringLiteral(", "))));
    }
    if (spec->type == core::ParamType::Real)
        return s.setParam(what, core::ParamValue::real(v));
    if (spec->type == core::ParamType::Integer)
        return s.setParam(what, core::ParamValue::integer(std::llround(v)));
    return QStringLiteral("cannot animate %1: it is a %2, not a number")
        .arg(what, QString::fromUtf8(core::paramTypeName(spec->type).data(),
                                     qsizetype(core::paramTypeName(spec->type).size())));
}

/// The current value of a sweep target (the default start of a sweep).
std::optional<double> currentValue(const ui::WorkbenchState& s, const QString& what)
{
    if (what == QLatin1String("position") || what == QLatin1String("cursor"))
        return s.animationTime();
    if (what == QLatin1String("dim"))
        return s.dim();
    if (what == QLatin1String("positions"))
        return s.positionCount();
    if (const ui::ViewProperty* p = ui::findViewProperty(what); p && p->animatable)
        return p->get(s.viewOptions()).toDouble();
    const std::string key = what.toStdString();
    if (s.params().has(key)) {
        const core::ParamValue& v = s.params().value(key);
        if (v.type == core::ParamType::Real || v.type == core::ParamType::Integer)
            return v.number;
    }
    return std::nullopt;
}

} // namespace

QString ExportService::sweepCaption(const ui::WorkbenchState& state, const QString& what)
{
    const std::optional<double> v = currentValue(state, what);
    if (!v)
        return {};
    const core::ParamSpec* spec = state.scheme().param(what.toStdString());
    const ui::ViewProperty* property = ui::findViewProperty(what);
    const bool real = spec ? spec->type == core::ParamType::Real
                           : property && property->kind == ui::PropertyKind::Real;
    const QLocale english(QLocale::English, QLocale::UnitedStates);
    QString text;
    if (!real) {
        text = english.toString(qint64(std::llround(*v))); // 32,768
    } else if (std::abs(*v) >= 1e7) {
        text = QString::number(*v, 'g', 4);
    } else {
        // Four significant digits, at least one decimal, no trailing zeros beyond it: 4.0, 2,154.4, 0.0123.
        const int magnitude = *v == 0 ? 0 : int(std::floor(std::log10(std::abs(*v))));
        text = english.toString(*v, 'f', std::clamp(3 - magnitude, 1, 6));
        while (text.endsWith(QLatin1Char('0')) && !text.endsWith(QLatin1String(".0")))
            text.chop(1);
    }
    return QStringLiteral("%1 = %2").arg(what, text);
}

QList<QImage> ExportService::renderFrames(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation,
                                          const ExportOptions& options, ExportResult* result)
{
    ExportResult local;
    ExportResult& r = result ? *result : local;
    r = ExportResult{};
    auto fail = [&](Failure how, const QString& why) {
        r = failed(how, why);
        return QList<QImage>();
    };
    QString why;
    const std::optional<FigureGeometry> g = checkedGeometry(options, &why);
    if (!g)
        return fail(Failure::Refused, why);
    const AnimationOptions& a = options.animation;
    const QString what = a.what.isEmpty() ? QStringLiteral("position") : a.what;
    const bool position = what == QLatin1String("position") || what == QLatin1String("cursor");
    const core::ParamSpec* spec = state.scheme().param(what.toStdString());
    if (spec) {
        // The one set-up resolver decides whether the key may be set at all, with the words of --set:
        // sweeping a key that does not apply (beta_fast while rope_type is default) would draw identical frames.
        try {
            core::resolveParams(state.scheme(), state.params(),
                                {{spec->key, state.params().value(spec->key).toString()}}, state.context());
        } catch (const std::exception& e) {
            return fail(Failure::Usage, QString::fromUtf8(e.what()));
        }
    }
    std::optional<double> from = a.from, to = a.to;
    if (!from)
        from = position ? 0.0 : currentValue(state, what);
    if (!from) {
        why = applySweep(state, what, 0.0); // names the keys that can be animated
        return fail(Failure::Usage, why.isEmpty() ? QStringLiteral("--animate %1 needs --from").arg(what) : why);
    }
    if (!to) {
        if (!position)
            return fail(Failure::Usage, QStringLiteral("animating %1 needs the end value (--to)").arg(what));
        to = std::min<double>(*from + a.frames - 1, std::max(0, state.positionCount() - 1));
    }
    if (position && (*from < 0 || *to < 0 || std::max(*from, *to) > state.positionCount() - 1))
        return fail(Failure::Usage, QStringLiteral("positions %1 to %2 are outside the range 0 to %3")
                                        .arg(*from)
                                        .arg(*to)
                                        .arg(state.positionCount() - 1));
    const bool geometric = spec && spec->logarithmic;
    std::vector<double> values;
    for (int i = 0; i < a.frames; ++i)
        values.push_back(interpolate(*from, *to, a.frames == 1 ? 0.0 : double(i) / (a.frames - 1), geometric));
    // Sets frame i's value and waits for its result; empty or the reason the frame cannot be drawn.
    auto applyFrame = [&](int i, Failure* how) {
        const double v = values[std::size_t(i)];
        QString why = applySweep(state, what, v);
        *how = Failure::Usage;
        if (why.isEmpty()) {
            settle(computation);
            why = whyNothingToShow(view, state, computation);
            *how = Failure::Refused;
        }
        return why.isEmpty() ? why : QStringLiteral("frame %1 (%2 = %3): %4").arg(i + 1).arg(what).arg(v).arg(why);
    };
    Failure how = Failure::None;
    // A sweep holds the colour scale: one pass over every frame for the union of their ranges, then the
    // frames drawn with it (moving the cursor changes no colour, so a position animation skips the pass).
    std::optional<ui::ValueRange> held;
    if (!position && !a.floatColourScale && view.dataColourRange()) {
        for (int i = 0; i < a.frames; ++i) {
            if (QString why = applyFrame(i, &how); !why.isEmpty())
                return fail(how, why);
            if (const std::optional<ui::ValueRange> range = view.dataColourRange())
                held = held ? ui::ValueRange{std::min(held->lo, range->lo), std::max(held->hi, range->hi)} : *range;
        }
    }
    view.holdColourRange(held);
    QList<QImage> frames;
    frames.reserve(a.frames);
    for (int i = 0; i < a.frames; ++i) {
        if (QString why = applyFrame(i, &how); !why.isEmpty()) {
            view.holdColourRange(std::nullopt);
            return fail(how, why);
        }
        ExportOptions frameOptions = options;
        if (what == QLatin1String("font_scale"))
            frameOptions.fontScale = state.viewOptions().fontScale;
        QImage img = renderCaptionedImage(view, state, frameOptions, position ? QString() : sweepCaption(state, what));
        if (img.isNull()) {
            view.holdColourRange(std::nullopt);
            return fail(Failure::Refused, QStringLiteral("frame %1 could not be drawn").arg(i + 1));
        }
        frames << img;
    }
    view.holdColourRange(std::nullopt);
    r.notes << QStringLiteral("%1 frames, %2 from %3 to %4%5")
                   .arg(a.frames)
                   .arg(what)
                   .arg(*from)
                   .arg(*to)
                   .arg(geometric ? QStringLiteral(" (geometric steps)") : QString());
    if (held)
        r.notes << QStringLiteral("colour scale held at %1 to %2 in every frame")
                       .arg(held->lo, 0, 'g', 4)
                       .arg(held->hi, 0, 'g', 4);
    return frames;
}

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
        if (!why.isEmpty())
            return fail(Failure::Refused, why);
    }
    switch (options.format) {
    case Format::Png: {
        QImage img = renderImage(view, state, options, &why);
        if (img.isNull())
            return fail(Failure::Refused, why);
        PngOptions png;
        png.text = {{QStringLiteral("Title"), options.title.isEmpty() ? defaultTitle(view, state) : options.title},
                    {QStringLiteral("Description"), describe(state)},
                    {QStringLiteral("Software"), QStringLiteral("PosLab")}};
        QString pngError;
        const QByteArray out = encodePng(img, png, &pngError);
        if (out.isEmpty())
            return fail(Failure::Refused, QStringLiteral("PNG encoding failed: %1").arg(pngError));
        r.pixels = img.size();
        return out;
    }
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
    case Format::Gif: {
        if (options.transparent)
            return fail(Failure::Usage, QStringLiteral("GIF frames are opaque; use the light or dark theme"));
        const AnimationOptions& a = options.animation;
        if (a.frames < 1 || a.frames > maxFrames)
            return fail(Failure::Usage,
                        QStringLiteral("frames %1 is out of range; allowed: 1 to %2").arg(a.frames).arg(maxFrames));
        if (!(a.gif.framesPerSecond > 0 && a.gif.framesPerSecond <= 100))
            return fail(Failure::Usage,
                        QStringLiteral("fps %1 is out of range; allowed: above 0, up to 100").arg(a.gif.framesPerSecond));
        if (a.gif.loopCount < 0 || a.gif.loopCount > 65535)
            return fail(Failure::Usage, QStringLiteral("loop %1 is out of range; allowed: 0 (forever) to 65535")
                                            .arg(a.gif.loopCount));
        const qint64 bytes = qint64(g.pixels.width()) * g.pixels.height() * 4 * a.frames;
        if (bytes > maxAnimationBytes)
            return fail(Failure::Refused,
                        QStringLiteral("%1 frames of %2 x %3 need %4 MiB; at most %5 MiB: use fewer frames or a "
                                       "smaller size")
                            .arg(a.frames)
                            .arg(g.pixels.width())
                            .arg(g.pixels.height())
                            .arg(bytes >> 20)
                            .arg(maxAnimationBytes >> 20));
        const QList<QImage> frames = renderFrames(view, state, computation, options, &r);
        if (!r.ok())
            return {};
        QByteArray gif = encodeGif(frames, a.gif, &why);
        if (gif.isEmpty())
            return fail(Failure::Refused, why);
        r.pixels = g.pixels;
        return gif;
    }
    case Format::Csv:
    case Format::Json:
    case Format::Npy:
        return renderData(view, state, options.format, &r);
    }
    return fail(Failure::Usage, QStringLiteral("unknown format"));
}

// ---------------------------------------------------------------------------------------------- data

ExportResult ExportService::writeData(ui::View& view, const ui::WorkbenchState& state, Format format,
                                      std::ostream& out)
{
    ExportResult r;
    core::OutputFormat kind = core::OutputFormat::Json;
    switch (format) {
    case Format::Csv: kind = core::OutputFormat::Csv; break;
    case Format::Json: kind = core::OutputFormat::Json; break;
    case Format::Npy: kind = core::OutputFormat::Npy; break;
    default:
        return failed(Failure::Usage, QStringLiteral("%1 is not a data format").arg(extension(format)));
    }
    const QString name = view.exportName();
    const core::SchemeDescriptor& scheme = state.scheme();
    try {
        if (!view.isApplicable())
            throw core::RefusedError("the " + name.toStdString() + " view has nothing to show for " + scheme.id);
        // The registry's numbers for the view: what `poslab compute` gives for the same state.
        const ui::ViewEntry* entry = ui::findView(name);
        if (!entry)
            throw core::InputError("unknown view '" + name.toStdString() + "'");
        core::ComputeResult data = entry->data(state, &r.notes);
        if (state.comparing() && state.compareMode() == ui::CompareMode::Difference) {
            // Difference mode: A's numbers minus B's, element by element (B computed the same way from its state).
            ui::WorkbenchState* b = const_cast<ui::WorkbenchState&>(state).compareState();
            if (!view.supports(b->scheme()))
                throw core::RefusedError("the " + name.toStdString() + " view has nothing to show for B's scheme "
                                         + b->scheme().id + ": no difference A - B");
            data = ui::Computation::difference(data, entry->data(*b, &r.notes));
            r.notes << QStringLiteral("difference mode: the numbers are A \u2212 B, element by element");
        } else if (state.comparing()) {
            r.notes << QStringLiteral("compare mode: the data export writes configuration A's numbers (difference mode "
                                      "writes A \u2212 B)");
        }
        // Written straight to @p out (the file, for an export): the numbers are held once, as core computed them.
        if (kind == core::OutputFormat::Csv)
            writeCsvWithHeader(out, data);
        else
            core::write(out, data, kind);
        out.flush();
    } catch (const core::InputError& e) {
        r = failed(Failure::Usage, QString::fromUtf8(e.what()));
    } catch (const core::RefusedError& e) {
        r = failed(Failure::Refused, QString::fromUtf8(e.what()));
    } catch (const std::bad_alloc&) {
        r = failed(Failure::Refused, QStringLiteral("out of memory; ask for a smaller table"));
    } catch (const std::exception& e) {
        r = failed(Failure::Refused, QString::fromUtf8(e.what()));
    }
    return r;
}

QByteArray ExportService::renderData(ui::View& view, const ui::WorkbenchState& state, Format format,
                                     ExportResult* result)
{
    std::ostringstream os;
    ExportResult r = writeData(view, state, format, os);
    if (result)
        *result = r;
    if (!r.ok())
        return {};
    const std::string s = os.str();
    return QByteArray(s.data(), qsizetype(s.size()));
}

// ---------------------------------------------------------------------------------------------- files

namespace {

/// Runs @p act; core's refusal as its message (empty when none), and in @p how whether it was a usage error or a
/// refusal.
template <typename Act>
QString coreMessage(Failure* how, Act&& act)
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

QString ExportService::checkPath(const QString& path, Failure* how)
{
    // The one rule of every writer (core/io/outputfile.h): links, devices, read-only files, control characters.
    return coreMessage(how, [&] { core::checkOutputFile(path.toStdString()); });
}

namespace {

/// Writes through core's one writer; the message and how it failed, or an empty string. @p bytes receives the
/// size written.
QString writeThroughCore(const QString& path, const std::function<void(std::ostream&)>& body, Failure* how,
                         qint64* bytes = nullptr)
{
    return coreMessage(how, [&] {
        const std::uint64_t n = core::writeOutputFile(path.toStdString(), body);
        if (bytes)
            *bytes = qint64(n);
    });
}

/// Thrown out of a data export's body when the data fail, so that the writer removes its temporary.
struct DataFailed {};

} // namespace

QString ExportService::writeFile(const QString& path, const QByteArray& data, Failure* how)
{
    return writeThroughCore(
        path, [&](std::ostream& out) { out.write(data.constData(), std::streamsize(data.size())); }, how);
}

ExportResult ExportService::exportView(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation,
                                       const ExportOptions& options, const QString& path)
{
    // Check the path before the work: a typo in a folder name should not cost a 600-frame animation.
    Failure how = Failure::Usage;
    if (QString why = checkPath(path, &how); !why.isEmpty())
        return failed(how, why);
    const std::optional<Format> byName = formatForPath(path);
    if (!byName)
        return failed(Failure::Usage, QStringLiteral("cannot tell the format of %1 from its extension; use %2")
                                          .arg(path, knownExtensions()));
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
                &how, &bytes);
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
    if (QString why = writeFile(path, bytes, &how); !why.isEmpty())
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
