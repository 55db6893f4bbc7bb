// SPDX-License-Identifier: MIT
// Animated GIF figures: a sweep of the position cursor or of one parameter, one captioned frame per value.
#include "ui/export/exportparts.h"

#include "core/attention.h"
#include "core/encodingregistry.h"
#include "core/limits.h"
#include "core/precision.h"
#include "ui/export/exportscene.h"
#include "ui/figures/attentionfigure.h"
#include "ui/figures/computation.h"
#include "ui/figures/decayfigure.h"
#include "ui/figures/figure.h"
#include "ui/figures/pipelinefigure.h"
#include "ui/figures/tablefigure.h"
#include "ui/render/plotutils.h"
#include "ui/state/workbenchstate.h"
#include "ui/views/view.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

namespace poslab::exporting {

using detail::failed;

namespace {

double interpolate(double a, double b, double t, bool geometric)
{
    if (geometric && a > 0 && b > 0)
        return a * std::pow(b / a, t);
    return a + (b - a) * t;
}

/// A GIF frame: the view drawn above a band that carries @p caption (the swept value), so the caption never
/// covers the view's own text; without a caption the whole figure is the view. Opaque, theme background.
QImage renderCaptionedImage(ui::View& view, const ui::WorkbenchState& state, const ExportOptions& options,
                            const QString& caption)
{
    const std::optional<FigureGeometry> g = detail::checkedGeometry(options, nullptr);
    if (!g)
        return {};
    QImage img(g->pixels, QImage::Format_RGB32);
    const int dpm96 = int(std::lround(detail::logicalDpi / 0.0254));
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
        const double band = caption.isEmpty() ? 0.0 : std::min(std::ceil(fm.height() * 1.5), g->logical.height() / 4);
        detail::paintView(view, p, QSizeF(g->logical.width(), g->logical.height() - band));
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
        .arg(what,
             QString::fromUtf8(core::paramTypeName(spec->type).data(),
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

/// One sweep, checked: what it animates and the value of every frame.
struct Sweep {
    QString what;
    bool position = false;  ///< the position cursor (else a parameter)
    bool geometric = false; ///< a logarithmic parameter: geometric steps
    double from = 0, to = 0;
    std::vector<double> values;
};

/// The sweep of @p a on @p state, or nothing with the failure in @p r.
std::optional<Sweep> planSweep(ui::WorkbenchState& state, const AnimationOptions& a, ExportResult& r)
{
    auto fail = [&](Failure how, const QString& why) {
        r = failed(how, why);
        return std::optional<Sweep>();
    };
    QString why;
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
        return fail(Failure::Usage,
                    QStringLiteral("positions %1 to %2 are outside the range 0 to %3")
                        .arg(*from)
                        .arg(*to)
                        .arg(state.positionCount() - 1));
    const bool geometric = spec && spec->logarithmic;
    std::vector<double> values;
    for (int i = 0; i < a.frames; ++i)
        values.push_back(interpolate(*from, *to, a.frames == 1 ? 0.0 : double(i) / (a.frames - 1), geometric));
    Sweep s;
    s.what = what;
    s.position = position;
    s.geometric = geometric;
    s.from = *from;
    s.to = *to;
    s.values = std::move(values);
    return s;
}

/// The refusal of @p frames frames of @p pixels that would not fit in maxAnimationBytes (they are all held until
/// encoded), or empty.
QString framesMemoryProblem(int frames, const QSize& pixels)
{
    const qint64 bytes = qint64(pixels.width()) * pixels.height() * 4 * frames;
    if (bytes <= maxAnimationBytes)
        return {};
    return QStringLiteral("%1 frames of %2 x %3 need %4 MiB; at most %5 MiB: use fewer frames or a smaller size")
        .arg(frames)
        .arg(pixels.width())
        .arg(pixels.height())
        .arg(bytes >> 20)
        .arg(maxAnimationBytes >> 20);
}

/// Operations one GIF frame costs to draw and encode per pixel, besides the view's numbers: painting the view
/// and its caption into the image, then giflib's median-cut quantisation and LZW coding. Measured on the 2-core
/// development machine (issue 38 item 4): 300 frames of the clock at 512 x 512 (numbers that cost nothing) took
/// 2.3 s, 60 frames of a rope_theta sweep of the table at 1024 x 1024 2.0 s: about 30 ns a pixel, which at core's
/// opsPerSecond is 300 operations.
constexpr double gifPixelOps = 300.0;

/// Operations to compute the numbers of @p view for @p state once, by core's own estimates: the encoding table
/// that the Computation makes for every view (positions x dimensions values, each a transcendental), plus the
/// views whose own figure does more (the precision analysis, the attention scores).
double frameWork(const QString& id, const ui::WorkbenchState& state)
{
    const double positions = std::max(1, state.positionCount());
    const double dim = std::max(1, state.dim());
    // A large table is computed for the window it is drawn in, at most fullTableCells cells (tablefigure.h).
    double work = std::min(positions * dim, double(ui::TableFigure::fullTableCells)) * core::drawOps;
    const ui::FigureSnapshot snapshot = ui::FigureSnapshot::of(state);
    if (id == QLatin1String("precision")) {
        const std::optional<core::RotarySpec> spec = snapshot.checked.rotarySpec(snapshot.setup);
        const std::size_t pairs = spec ? spec->invFreq.size() : std::size_t(dim / 2);
        work += core::precisionWork(pairs, std::size_t(positions), 1);
    } else if (id == QLatin1String("pipeline")) {
        // The pipeline runs the attention of its sentence's words (not of the positions) twice, with and without
        // the encoding, as core's own pipeline check counts it; a text that is no sentence draws nothing.
        const ui::PipelineFigure::Inputs in = ui::PipelineFigure::inputsOf(snapshot);
        try {
            core::AttentionRequest a;
            a.scheme = in.setup.scheme;
            a.params = in.setup.params;
            a.headDim = std::max(1, in.setup.dim);
            a.heads = std::max(1, in.heads);
            a.onlyHead = std::clamp(in.head, 0, a.heads - 1);
            a.content = core::parseContent(in.sentence.toStdString(), 0);
            a.queries = core::PositionList::range(0, core::Position(core::sentenceWords(a.content).size()));
            a.keys = a.queries;
            work += core::attentionWork(a) * 2.0;
        } catch (const std::exception&) { }
    } else if (id == QLatin1String("attention")) {
        const ui::AttentionFigure::Inputs in = ui::AttentionFigure::inputsOf(snapshot);
        const core::ComputeRequest req = ui::AttentionFigure::request(in);
        core::AttentionRequest a;
        a.scheme = in.setup.scheme;
        a.params = in.setup.params;
        a.headDim = req.context.dim;
        a.heads = req.heads;
        a.onlyHead = std::clamp(in.head, 0, a.heads - 1); // the figure computes the head it shows
        a.queries = req.context.positions;
        a.keys = req.keys ? *req.keys : req.context.positions;
        work += core::attentionWork(a);
    } else if (id == QLatin1String("decay")) {
        // The curves core computes (its own estimate: a bias scheme's hook per head and distance, e.g. Sandwich's
        // d'/2 cosines) and their drawing: one curve per head of at most about 400 sampled distances, and a part
        // that grows with the square of the curves (measured for T5 at 64 x 64: 256 heads 0.05 s a frame, 1024
        // heads 0.68 s, i.e. about 3.9e5 operations a curve and 6.1e3 a pair of curves at limits.h's 1e10 a
        // second).
        const ui::DecayFigure::Inputs in = ui::DecayFigure::inputsOf(snapshot);
        core::DecayRequest d;
        d.scheme = in.a.setup.scheme;
        d.params = in.a.setup.params;
        d.headDim = std::max(1, in.a.setup.dim);
        d.heads = std::max(1, in.a.heads);
        d.distances.resize(std::size_t(std::clamp(positions, 1.0, 402.0)));
        for (std::size_t k = 0; k < d.distances.size(); ++k)
            d.distances[k] = core::Position(k);
        try {
            work += core::decayWork(d);
        } catch (const std::exception&) { } // a set-up core refuses is the frame loop's to report
        const double curves = double(d.heads);
        work += curves * 4.0e5 + curves * curves * 1.0e4;
    }
    return work;
}

/// True when view @p id computes its numbers again as the cursor moves: the pipeline follows the cursor's word,
/// and the decay curves of a learned table start at the cursor's row. A position sweep of such a view costs its
/// numbers every frame (46 ms a frame for the decay of a 65536 x 4096 learned table, 1.3 s for the pipeline at
/// d 4096, measured), not once.
bool numbersFollowCursor(const QString& id, const ui::WorkbenchState& state)
{
    if (id == QLatin1String("pipeline"))
        return true;
    if (id != QLatin1String("decay"))
        return false;
    const ui::FigureSnapshot here = ui::FigureSnapshot::of(state);
    ui::FigureSnapshot moved = here;
    moved.cursor = here.cursor + 1;
    return !(ui::DecayFigure::inputsOf(here) == ui::DecayFigure::inputsOf(moved));
}

/// Checks the whole of sweep @p s against core's work limit before its first frame: every frame's numbers
/// (twice for a parameter sweep that holds the colour scale: a pass for the range, a pass to draw; once for
/// a position sweep, whose frames only move the cursor, unless the view's numbers follow the cursor) and every
/// frame's pixels drawn and encoded. A sweep of dim, positions or heads costs most at one of its ends: the frames
/// are priced at the dearer one. Empty, or the one-line refusal saying the total and what to lower. The state is
/// left as it was.
QString checkAnimationWork(const QString& viewId, ui::WorkbenchState& state, const Sweep& s,
                           const ExportOptions& options, const QSize& pixels)
{
    double perFrame = frameWork(viewId, state);
    if (!s.position) {
        const std::optional<double> was = currentValue(state, s.what);
        for (const double v : {s.values.front(), s.values.back()})
            if (applySweep(state, s.what, v).isEmpty()) // a value refused is the frame loop's to report
                perFrame = std::max(perFrame, frameWork(viewId, state));
        if (was)
            applySweep(state, s.what, *was);
    }
    const double frames = double(s.values.size());
    const bool held = !s.position && !options.animation.floatColourScale;
    // A position sweep computes the numbers once, unless they follow the cursor: then every frame.
    const bool once = s.position && !numbersFollowCursor(viewId, state);
    const double computed = once ? perFrame : perFrame * frames * (held ? 2.0 : 1.0);
    const double pixelWork = double(pixels.width()) * double(pixels.height()) * gifPixelOps;
    const double total = computed + frames * pixelWork;
    const core::Limits limits;
    if (total <= limits.maxWork)
        return {};
    const double eachFrame = once ? pixelWork : perFrame * (held ? 2.0 : 1.0) + pixelWork;
    const double fitting = std::floor((limits.maxWork - (once ? perFrame : 0.0)) / eachFrame);
    // C's "%.1e" whatever the locale (QApplication sets LC_ALL from the environment: "5,0e+10" under de_DE).
    const auto sci = [](double v) {
        char buf[32];
        return std::string(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, 1).ptr);
    };
    const std::string parts = sci(perFrame) + " operations for the numbers"
        + (once             ? " (once; the frames move the cursor)"
               : held       ? " of each frame, computed twice (once to hold the colour scale),"
               : s.position ? " of each frame (they follow the cursor)"
                            : " of each frame")
        + " and " + sci(pixelWork) + " to draw and encode each " + std::to_string(pixels.width()) + " x "
        + std::to_string(pixels.height()) + " frame";
    const std::string what
        = "the " + std::to_string(s.values.size()) + "-frame animation of the " + viewId.toStdString() + " view";
    const std::string lower = fitting >= 1.0
        ? "use at most " + std::to_string((long long)fitting) + (fitting == 1.0 ? " frame" : " frames")
            + ", fewer positions or dimensions, or a smaller size"
        : std::string("even one frame is over it: ask for fewer positions or dimensions, or a smaller size");
    const std::string advice = parts + "; " + lower;
    try {
        core::checkWork(total, limits, what, advice);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

/// Sets frame @p i's value and waits for its result; empty or the reason the frame cannot be drawn, with
/// @p how saying whether the sweep (Usage) or the state (Refused) is at fault.
QString applyFrame(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation, const Sweep& s, int i,
                   Failure* how)
{
    const double v = s.values[std::size_t(i)];
    QString why = applySweep(state, s.what, v);
    *how = Failure::Usage;
    if (why.isEmpty()) {
        settle(computation);
        why = ExportService::whyNothingToShow(view, state, computation);
        *how = Failure::Refused;
    }
    return why.isEmpty() ? why : QStringLiteral("frame %1 (%2 = %3): %4").arg(i + 1).arg(s.what).arg(v).arg(why);
}

/// A sweep holds the colour scale: one pass over every frame for the union of their ranges (the frames are
/// then drawn with it). False with the failure in @p r when a frame cannot be drawn.
bool heldColourRange(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation, const Sweep& s,
                     std::optional<ui::ValueRange>* held, ExportResult& r)
{
    Failure how = Failure::None;
    for (int i = 0; i < int(s.values.size()); ++i) {
        if (QString why = applyFrame(view, state, computation, s, i, &how); !why.isEmpty()) {
            r = failed(how, why);
            return false;
        }
        if (const std::optional<ui::ValueRange> range = view.dataColourRange())
            *held = *held ? ui::ValueRange{std::min((*held)->lo, range->lo), std::max((*held)->hi, range->hi)} : *range;
    }
    return true;
}

/// Every frame of @p s drawn; empty with the failure in @p r when one cannot be.
QList<QImage> drawFrames(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation, const Sweep& s,
                         const ExportOptions& options, ExportResult& r)
{
    Failure how = Failure::None;
    QList<QImage> frames;
    frames.reserve(int(s.values.size()));
    for (int i = 0; i < int(s.values.size()); ++i) {
        if (QString why = applyFrame(view, state, computation, s, i, &how); !why.isEmpty()) {
            r = failed(how, why);
            return {};
        }
        ExportOptions frameOptions = options;
        if (s.what == QLatin1String("font_scale"))
            frameOptions.fontScale = state.viewOptions().fontScale;
        QImage img = renderCaptionedImage(view, state, frameOptions,
                                          s.position ? QString() : ExportService::sweepCaption(state, s.what));
        if (img.isNull()) {
            r = failed(Failure::Refused, QStringLiteral("frame %1 could not be drawn").arg(i + 1));
            return {};
        }
        frames << img;
    }
    return frames;
}

} // namespace

QString ExportService::sweepCaption(const ui::WorkbenchState& state, const QString& what)
{
    const std::optional<double> v = currentValue(state, what);
    if (!v)
        return {};
    const core::ParamSpec* spec = state.scheme().param(what.toStdString());
    const ui::ViewProperty* property = ui::findViewProperty(what);
    const bool real = spec ? spec->type == core::ParamType::Real : property && property->kind == ui::PropertyKind::Real;
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
    QString why;
    const std::optional<FigureGeometry> g = detail::checkedGeometry(options, &why);
    if (!g) {
        r = failed(Failure::Refused, why);
        return {};
    }
    const std::optional<Sweep> s = planSweep(state, options.animation, r);
    if (!s)
        return {};
    // The whole animation is priced before its first frame: each frame alone may be within the work limit while
    // a thousand of them run for hours.
    if (const QString tooMuch = checkAnimationWork(view.exportName(), state, *s, options, g->pixels);
        !tooMuch.isEmpty()) {
        r = failed(Failure::Refused, tooMuch);
        return {};
    }
    // Moving the cursor changes no colour, so a position animation skips the pass that holds the colour scale.
    std::optional<ui::ValueRange> held;
    if (!s->position && !options.animation.floatColourScale && view.dataColourRange()
        && !heldColourRange(view, state, computation, *s, &held, r))
        return {};
    view.holdColourRange(held);
    const QList<QImage> frames = drawFrames(view, state, computation, *s, options, r);
    view.holdColourRange(std::nullopt);
    if (!r.ok())
        return {};
    r.notes << QStringLiteral("%1 frames, %2 from %3 to %4%5")
                   .arg(options.animation.frames)
                   .arg(s->what)
                   .arg(s->from)
                   .arg(s->to)
                   .arg(s->geometric ? QStringLiteral(" (geometric steps)") : QString());
    if (held)
        r.notes << QStringLiteral("colour scale held at %1 to %2 in every frame")
                       .arg(held->lo, 0, 'g', 4)
                       .arg(held->hi, 0, 'g', 4);
    return frames;
}

QString ExportService::animationWorkProblem(const QString& viewId, ui::WorkbenchState& state,
                                            const ExportOptions& options)
{
    QString why;
    const std::optional<FigureGeometry> g = detail::checkedGeometry(options, &why);
    const AnimationOptions& a = options.animation;
    if (!g || a.frames < 1 || a.frames > maxFrames)
        return {}; // renderGif refuses these with their own words
    if (const QString tooLarge = framesMemoryProblem(a.frames, g->pixels); !tooLarge.isEmpty())
        return tooLarge; // the memory first, as renderGif checks it
    ExportResult r;
    const std::optional<Sweep> s = planSweep(state, a, r);
    if (!s)
        return {};
    return checkAnimationWork(viewId, state, *s, options, g->pixels);
}

QByteArray detail::renderGif(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation,
                             const ExportOptions& options, const FigureGeometry& g, ExportResult& r)
{
    auto fail = [&](Failure how, const QString& why) {
        r = failed(how, why);
        return QByteArray();
    };
    QString why;
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
        return fail(Failure::Usage,
                    QStringLiteral("loop %1 is out of range; allowed: 0 (forever) to 65535").arg(a.gif.loopCount));
    if (const QString tooLarge = framesMemoryProblem(a.frames, g.pixels); !tooLarge.isEmpty())
        return fail(Failure::Refused, tooLarge);
    const QList<QImage> frames = ExportService::renderFrames(view, state, computation, options, &r);
    if (!r.ok())
        return {};
    QByteArray gif = encodeGif(frames, a.gif, &why);
    if (gif.isEmpty())
        return fail(Failure::Refused, why);
    r.pixels = g.pixels;
    return gif;
}

} // namespace poslab::exporting
