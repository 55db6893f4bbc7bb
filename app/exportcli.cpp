// SPDX-License-Identifier: MIT
#include "app/exportcli.h"

#include "app/batchfile.h"
#include "app/cli.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/io/inputfile.h"
#include "core/io/outputfile.h"
#include "core/spatial.h"
#include "ui/figures/computation.h"
#include "ui/figures/lengthlabfigure.h"
#include "ui/export/exportscene.h"
#include "ui/export/exportservice.h"
#include "ui/setup/presets.h"
#include "ui/views/view.h"
#include "ui/state/session.h"
#include "ui/lessons/lesson.h"
#include "ui/state/workbenchstate.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <charconv>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include <sys/stat.h>

namespace poslab::app {

namespace {

using core::InputError;
using core::RefusedError;
using exporting::ExportOptions;

/// One figure as asked on the command line (or by one batch entry).
struct FigureRequest {
    std::string view;
    std::optional<std::string> scheme;
    core::Overrides sets;
    std::optional<int> dim;
    std::optional<int> positions;
    std::optional<std::string> keys;
    std::optional<int> heads, head, cursor;
    std::uint64_t seed = 0;
    std::optional<std::string> content;
    bool softmax = false;
    std::optional<std::string> mask;
    std::optional<std::string> table;
    std::optional<std::string> colormap;
    std::optional<std::string> term;
    std::optional<std::string> stateFile;
    std::optional<std::string> lesson; ///< --lesson N.M: the step's state (lessons::stepState), loaded like --state
    std::vector<std::pair<std::string, std::string>> viewSets; ///< --view-set NAME=VALUE
    bool themeGiven = false, fontScaleGiven = false;           ///< else a --state's own hold
    std::vector<std::string> given;                            ///< every option named, for the rules of use
    std::optional<std::string> preset, config;                 ///< a model's state: --preset NAME or --config FILE
    std::optional<core::Grid> grid;                            ///< --grid HxW (the patchgrid view)
    std::optional<core::TokenSequence> sequence; ///< --sequence text:N,image:TxHxW,... (the sequence view)
    ExportOptions options;
    std::string output;
    std::optional<std::string> batch;
    bool help = false;
    bool version = false;
};

/// Options that only an animation reads, and options that only a drawn figure reads (not CSV, JSON, .npy).
constexpr const char* gifOnlyOptions[]
    = {"--frames", "--fps", "--loop", "--animate", "--from", "--to", "--float-colour-scale"};
constexpr const char* figureOnlyOptions[] = {"--dpi", "--title", "--size", "--theme", "--font-scale", "--colormap"};

/// Refuses text for a figure (--title, --content's sentence) that holds a character an SVG cannot hold (XML 1.0
/// §2.2: U+0000 to U+001F other than tab, LF and CR; U+FFFE, U+FFFF) or that a terminal acts on (DEL). Tab and
/// newline pass.
void refuseControlText(const std::string& option, const std::string& text)
{
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        unsigned code = 0;
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
            code = c;
        else if (c == 0xef && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xbf
                 && (static_cast<unsigned char>(text[i + 2]) & 0xfe) == 0xbe)
            code = 0xfffeu + (static_cast<unsigned char>(text[i + 2]) - 0xbeu);
        else
            continue;
        char name[16];
        std::snprintf(name, sizeof name, "U+%04X", code);
        throw InputError(option + " holds " + name + (code >= 0xfffe ? " (a noncharacter)" : " (a control character)")
                         + ", which a figure cannot show; give text without it");
    }
}

/// "1200x800", "1200x800px", "12x8cm", "120x80mm", "4x3in".
void parseSize(const std::string& text, ExportOptions& o)
{
    std::string s = text;
    exporting::SizeUnit unit = exporting::SizeUnit::Pixels;
    auto endsWith = [&](const char* suffix) {
        const std::string x(suffix);
        if (s.size() > x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0) {
            s.resize(s.size() - x.size());
            return true;
        }
        return false;
    };
    if (endsWith("px"))
        unit = exporting::SizeUnit::Pixels;
    else if (endsWith("cm"))
        unit = exporting::SizeUnit::Centimetres;
    else if (endsWith("mm"))
        unit = exporting::SizeUnit::Millimetres;
    else if (endsWith("in"))
        unit = exporting::SizeUnit::Inches;
    const auto x = s.find('x');
    const std::string bad
        = "--size '" + text + "' must be WxH in pixels, or WxHcm, WxHmm, WxHin (e.g. 1600x900, 12x8cm)";
    if (x == std::string::npos)
        throw InputError(bad);
    double w = 0, h = 0;
    try {
        w = parseNumberOption("--size", s.substr(0, x));
        h = parseNumberOption("--size", s.substr(x + 1));
    } catch (const InputError&) {
        throw InputError(bad);
    }
    if (w <= 0 || h <= 0)
        throw InputError("--size '" + text + "': width and height must be positive");
    o.size = QSizeF(w, h);
    o.unit = unit;
}

/// The views show positions 0 .. N-1: "N" or "0:N" (or an equivalent list).
int parsePositionCount(const std::string& option, const std::string& text)
{
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos)
        return int(parseIntegerOption(option, text, 1, ui::WorkbenchState::maxPositionCount));
    const core::PositionList list = core::PositionList::parse(text);
    const std::size_t n = list.size();
    bool contiguous = list.isRange() ? list.start() == 0 && list.step() == 1 : true;
    if (!list.isRange())
        for (std::size_t i = 0; i < n && contiguous; ++i)
            contiguous = list[i] == core::Position(i);
    if (!contiguous)
        throw InputError(option + " '" + text
                         + "': the views show positions 0 to N-1; give N or 0:N "
                           "(other position lists: poslab compute)");
    if (n > std::size_t(ui::WorkbenchState::maxPositionCount))
        throw InputError(option + " '" + text + "' is out of range; at most "
                         + std::to_string(ui::WorkbenchState::maxPositionCount) + " positions");
    return int(n);
}

FigureRequest parseFigure(const std::vector<std::string>& items)
{
    FigureRequest f;
    Args a(items, exportOptions(), "for export; see poslab export --help");
    int words = 0;
    while (!a.done()) {
        const std::string opt = a.next();
        ++words;
        if (!a.isOperand()) {
            // A second --dim (--scheme, --preset, ...) is refused as a key set twice is (the last used to win
            // silently); --set and --view-set add to the earlier ones.
            const auto canonical = [](const std::string& n) { return n == "-o" ? std::string("--output") : n; };
            const std::string name = canonical(opt);
            if (name != "--set" && name != "--view-set"
                && std::any_of(f.given.begin(), f.given.end(),
                               [&](const std::string& g) { return canonical(g) == name; }))
                throw InputError("option " + name + " is given twice; give it once");
            f.given.push_back(opt);
        }
        ExportOptions& o = f.options;
        if (a.isOperand() && f.view.empty()) {
            f.view = opt;
        } else if (a.isOperand()) {
            throw InputError("unexpected argument '" + opt + "' (the view is already " + f.view + ")");
        } else if (opt == "--help" || opt == "-h") {
            f.help = true;
            return f;
        } else if (opt == "--version") {
            f.version = true;
            return f;
        } else if (opt == "--batch") {
            f.batch = a.value(opt);
        } else if (opt == "--scheme") {
            f.scheme = a.value(opt);
        } else if (opt == "--set") {
            f.sets.push_back(core::splitSetting(a.value(opt)));
        } else if (opt == "--dim") {
            f.dim = int(parseIntegerOption(opt, a.value(opt), ui::WorkbenchState::minDim, ui::WorkbenchState::maxDim));
        } else if (opt == "--positions") {
            f.positions = parsePositionCount(opt, a.value(opt));
        } else if (opt == "--keys") {
            f.keys = a.value(opt);
        } else if (opt == "--heads") {
            f.heads = int(parseIntegerOption(opt, a.value(opt), 1, core::maxHeads));
        } else if (opt == "--head") {
            f.head = int(parseIntegerOption(opt, a.value(opt), 0, core::maxHeads - 1));
        } else if (opt == "--cursor") {
            f.cursor = int(parseIntegerOption(opt, a.value(opt), 0, ui::WorkbenchState::maxPositionCount - 1));
        } else if (opt == "--seed") {
            f.seed = std::uint64_t(parseIntegerOption(opt, a.value(opt), 0, (1ll << 53)));
        } else if (opt == "--content") {
            f.content = a.value(opt);
            refuseControlText(opt, *f.content);
        } else if (opt == "--softmax") {
            f.softmax = true;
        } else if (opt == "--mask") {
            f.mask = a.value(opt);
            core::parseMask(*f.mask); // throws with the known names
        } else if (opt == "--table") {
            f.table = a.value(opt);
        } else if (opt == "--term") {
            f.term = a.value(opt);
        } else if (opt == "--colormap") {
            f.colormap = a.value(opt);
        } else if (opt == "--state") {
            f.stateFile = a.value(opt);
        } else if (opt == "--lesson") {
            f.lesson = a.value(opt);
        } else if (opt == "--view-set") {
            const std::string text = a.value(opt);
            const auto eq = text.find('=');
            if (eq == std::string::npos || eq == 0)
                throw InputError("--view-set '" + text
                                 + "' must be NAME=VALUE; view options: " + ui::viewPropertyNames().toStdString());
            f.viewSets.emplace_back(text.substr(0, eq), text.substr(eq + 1));
        } else if (opt == "--run") { // the lengthlab view's run file (poslab train -o FILE)
            f.viewSets.emplace_back("run_file", a.value(opt));
        } else if (opt == "--preset") {
            f.preset = a.value(opt);
        } else if (opt == "--config") {
            f.config = a.value(opt);
        } else if (opt == "--grid") {
            f.grid = core::parseGrid(a.value(opt)); // throws naming --grid and the problem
        } else if (opt == "--sequence") {
            f.sequence = core::parseSequence(a.value(opt));
        } else if (opt == "--size") {
            parseSize(a.value(opt), o);
        } else if (opt == "--dpi") {
            const std::string text = a.value(opt);
            o.dpi = parseNumberOption(opt, text);
            if (!(o.dpi >= exporting::minDpi && o.dpi <= exporting::maxDpi))
                throw InputError("--dpi " + text
                                 + " is out of range; allowed: " + QString::number(exporting::minDpi).toStdString()
                                 + " to " + QString::number(exporting::maxDpi).toStdString());
        } else if (opt == "--theme") {
            f.themeGiven = true;
            const std::string t = a.value(opt);
            if (t == "light" || t == "transparent")
                o.theme = ui::ThemeKind::Light;
            else if (t == "dark" || t == "dark-transparent")
                o.theme = ui::ThemeKind::Dark;
            else
                throw InputError("--theme '" + t
                                 + "' is unknown; themes: light, dark, transparent (light colours, "
                                   "no background), dark-transparent");
            o.transparent = t == "transparent" || t == "dark-transparent";
        } else if (opt == "--font-scale") {
            f.fontScaleGiven = true;
            const std::string text = a.value(opt);
            o.fontScale = parseNumberOption(opt, text);
            if (!(o.fontScale >= exporting::minFontScale && o.fontScale <= exporting::maxFontScale))
                throw InputError("--font-scale " + text + " is out of range; allowed: "
                                 + QString::number(exporting::minFontScale).toStdString() + " to "
                                 + QString::number(exporting::maxFontScale).toStdString());
        } else if (opt == "--title") {
            const std::string title = a.value(opt);
            refuseControlText(opt, title);
            o.title = QString::fromStdString(title);
        } else if (opt == "--frames") {
            o.animation.frames = int(parseIntegerOption(opt, a.value(opt), 1, exporting::maxFrames));
        } else if (opt == "--fps") {
            o.animation.gif.framesPerSecond = parseNumberOption(opt, a.value(opt));
        } else if (opt == "--loop") {
            o.animation.gif.loopCount = int(parseIntegerOption(opt, a.value(opt), 0, 65535));
        } else if (opt == "--animate") {
            o.animation.what = QString::fromStdString(a.value(opt));
        } else if (opt == "--from") {
            o.animation.from = parseNumberOption(opt, a.value(opt));
        } else if (opt == "--to") {
            o.animation.to = parseNumberOption(opt, a.value(opt));
        } else if (opt == "--float-colour-scale") {
            o.animation.floatColourScale = true;
        } else if (opt == "-o" || opt == "--output") {
            f.output = a.value(opt);
        } else {
            throw InputError("unknown option '" + opt + "' for export; see poslab export --help");
        }
    }
    if (f.batch) {
        if (words != 1)
            throw InputError("--batch takes one FILE.json and no other options");
        return f;
    }
    const QStringList views = exporting::ExportScene::viewNames();
    if (f.view.empty())
        throw InputError("export needs a VIEW: " + views.join(QStringLiteral(", ")).toStdString());
    if (!views.contains(QString::fromStdString(f.view)))
        throw InputError("unknown view '" + f.view + "'; views: " + views.join(QStringLiteral(", ")).toStdString());
    if (f.output.empty())
        throw InputError("export needs an output file: -o FILE (" + exporting::knownExtensions().toStdString() + ")");
    const auto format = exporting::formatForPath(QString::fromStdString(f.output));
    if (!format)
        throw InputError("cannot tell the format of " + f.output + " from its extension; use "
                         + exporting::knownExtensions().toStdString());
    f.options.format = *format;
    // Options that would change nothing in this output are refused with the rule, never ignored.
    const auto given = [&](const char* o) { return std::find(f.given.begin(), f.given.end(), o) != f.given.end(); };
    const std::string kind = exporting::extension(*format).toUpper().toStdString();
    if (*format != exporting::Format::Gif)
        for (const char* o : gifOnlyOptions)
            if (given(o))
                throw InputError(std::string(o) + " applies to GIF animations only (-o FILE.gif), not to " + kind);
    if (!exporting::isFigure(*format))
        for (const char* o : figureOnlyOptions)
            if (given(o))
                throw InputError(std::string(o) + " applies to figures (.svg, .png, .pdf, .gif) only, not to " + kind
                                 + " data");
    if (given("--table") && f.view != "table")
        throw InputError("--table applies to the table view only, not to " + f.view);
    const bool spatialView = f.view == "patchgrid" || f.view == "sequence";
    if (f.grid && f.view != "patchgrid")
        throw InputError("--grid applies to the patchgrid view only"
                         + std::string(f.view == "sequence"
                                           ? " (the sequence view takes --sequence text:N,image:TxHxW,...)"
                                           : ", not to " + f.view));
    if (f.sequence && f.view != "sequence")
        throw InputError(
            "--sequence applies to the sequence view only"
            + std::string(f.view == "patchgrid" ? " (the patchgrid view takes --grid HxW)" : ", not to " + f.view));
    // The spatial views draw the window's spatial set-up, whose default (or --grid, --sequence) is a figure.
    if (!f.scheme && !f.stateFile && !f.preset && !f.config && !f.lesson && f.view != "lengthlab"
        && !spatialView) // the lab draws a run file
        throw InputError(
            "export needs --scheme ID (see poslab schemes), --preset NAME, --config FILE, --state FILE.json "
            "or --lesson N.M");
    if (f.stateFile && (f.preset || f.config))
        throw InputError("--state and " + std::string(f.preset ? "--preset" : "--config")
                         + " both give the state; give one");
    if (f.lesson && (f.stateFile || f.preset || f.config))
        throw InputError("--lesson and "
                         + std::string(f.stateFile    ? "--state"
                                           : f.preset ? "--preset"
                                                      : "--config")
                         + " both give the state; give one");
    if (f.seed != 0)
        throw InputError("--seed: figures and their data use the workbench's content (seed 0); for another seed "
                         "use poslab compute scores --seed N");
    return f;
}

/// The spatial views (patchgrid, sequence): --scheme names a grid or sequence scheme, --set its keys, --dim its
/// dimension, --grid and --sequence its tokens, over the spatial set-up of a --state, --lesson or --preset (or a new
/// window's). The selected patch or token stays where the new grid or sequence has it, else it is the middle one.
void configureSpatial(ui::WorkbenchState& state, const FigureRequest& f)
{
    ui::SpatialSetup s = state.spatial();
    const std::string view = f.view;
    // A set-up on a grid (a new window's is one) cannot feed the sequence view: it then opens on M-RoPE at head
    // dim 128 (and --scheme, --set, --dim change that below).
    const core::SpatialSchemeDescriptor* was = core::findSpatialScheme(s.scheme);
    if (view == "sequence" && (!was || was->input == core::SpatialInput::Grid)) {
        s.scheme = "mrope";
        s.dim = 128;
        s.params.clear();
        s.cls = false;
        s.patch = int(s.sequence.tokens() / 2);
    }
    if (f.scheme) {
        const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(*f.scheme);
        QStringList ids;
        for (const core::SpatialSchemeDescriptor& x : core::spatialSchemes())
            if ((x.input == core::SpatialInput::Grid) == (view == "patchgrid"))
                ids << QString::fromStdString(x.info.id);
        if (!d || (d->input == core::SpatialInput::Grid) != (view == "patchgrid"))
            throw InputError("--scheme " + *f.scheme + ": the " + view + " view draws the "
                             + (view == "patchgrid" ? "grid" : "sequence") + " schemes " + ids.join(", ").toStdString()
                             + (d ? " (" + *f.scheme + " is drawn by the "
                                        + (view == "patchgrid" ? "sequence" : "patchgrid") + " view)"
                                  : std::string()));
        if (d->info.id != s.scheme) {
            s.scheme = d->info.id;
            s.params.clear();
            s.cls = false;
        }
    }
    for (const auto& [key, value] : f.sets)
        s.params[key] = value;
    if (f.dim)
        s.dim = *f.dim;
    if (f.grid)
        s.grid = *f.grid;
    if (f.sequence)
        s.sequence = *f.sequence;
    const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(s.scheme);
    const bool onGrid = !d || d->input == core::SpatialInput::Grid;
    const std::int64_t count = onGrid ? s.grid.patches() : s.sequence.tokens();
    if (s.patch < 0 || s.patch >= count)
        s.patch = onGrid ? (s.grid.rows / 2) * s.grid.cols + s.grid.cols / 2 : int(count / 2);
    if (const QString why = ui::spatialProblem(s); !why.isEmpty())
        throw InputError(why.toStdString());
    state.applySpatial(s);
}

/// Builds the scene's state from a request: a saved state first, then the set-up validated as a whole
/// (parameters may depend on the dimension), then the view options.
void configure(exporting::ExportScene& scene, const FigureRequest& f, const QDir& base)
{
    ui::WorkbenchState& state = scene.state();
    if (f.stateFile) {
        // A session file, a share string, a poslab: link or inline JSON: the reader of the window's --state.
        QJsonObject json;
        QString label;
        if (const QString why = ui::readStateSource(QString::fromStdString(*f.stateFile), base.path(), &json, &label);
            !why.isEmpty())
            throw InputError("--state: " + why.toStdString());
        if (const QString why = scene.loadState(json); !why.isEmpty())
            throw InputError("state " + label.toStdString() + ": " + why.toStdString());
    }
    if (f.lesson) {
        // A lesson step's full state (FORMAT.md's merge rule over the lesson's steps up to it), then the same
        // path as --state: the other options change it.
        const lessons::Lesson* lesson = nullptr;
        int index = 0;
        if (!lessons::findStep(QString::fromStdString(*f.lesson), &lesson, &index)) {
            // Name the steps of the lesson asked for, or the lessons there are.
            bool numbered = false;
            const int number = QString::fromStdString(*f.lesson).section(QLatin1Char('.'), 0, 0).toInt(&numbered);
            QStringList ids;
            if (const lessons::Lesson* l = numbered ? lessons::findLesson(number) : nullptr) {
                for (const lessons::Step& s : l->steps)
                    ids << s.id;
                throw InputError("--lesson: no step '" + *f.lesson + "'; lesson " + std::to_string(number)
                                 + " has steps " + ids.join(QStringLiteral(", ")).toStdString());
            }
            for (const lessons::Lesson& l : lessons::lessons())
                ids << QString::number(l.number);
            throw InputError("--lesson: no step '" + *f.lesson + "' (give LESSON.STEP, e.g. 2.1); lessons: "
                             + (ids.isEmpty() ? std::string("none") : ids.join(QStringLiteral(", ")).toStdString()));
        }
        if (const QString why = scene.loadState(lessons::stepState(*lesson, index)); !why.isEmpty())
            throw InputError("lesson step " + *f.lesson + ": " + why.toStdString());
    }
    // A model's state (its scheme, keys, head dim, heads and name); explicit options below win, and a
    // different --scheme is refused rather than mixing the model's keys into another scheme.
    QStringList notices;
    if (const auto model = ui::modelState(f.preset, f.config, base.absolutePath(), &notices)) {
        for (const QString& n : notices)
            qWarning("poslab: warning: %s (not mapped)", messageLine(n.toStdString()).c_str());
        const ui::StateSetup m = ui::stateSetup(*model);
        if (f.scheme && *f.scheme != m.scheme) {
            std::string scheme = *f.scheme;
            core::Overrides none;
            ui::applyModelSetup(m, scheme, true, none); // throws the conflict message
        }
        const std::string name = m.model.value("name").toString().toStdString();
        if (const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(m.scheme)) {
            // A vision or vision-language model: the spatial set-up, drawn by the patchgrid or sequence view.
            const bool grid = d->input == core::SpatialInput::Grid;
            const std::string view = grid ? "patchgrid" : "sequence";
            if (f.view != view)
                throw InputError(name + " uses the " + (grid ? "grid" : "sequence") + " scheme " + m.scheme
                                 + ", which the " + view + " view draws, not the " + f.view + " view");
            state.applySpatial(*ui::spatialSetupOf(*model, state.spatial()));
        } else if (f.view == "patchgrid" || f.view == "sequence") {
            throw InputError(name + " uses the 1-D scheme " + m.scheme + "; the " + f.view
                             + " view draws the grid and sequence schemes (poslab schemes)");
        } else if (const QString why = scene.loadState(*model); !why.isEmpty()) {
            throw InputError(name + ": " + why.toStdString());
        }
    }
    const bool spatialView = f.view == "patchgrid" || f.view == "sequence";
    if (spatialView)
        configureSpatial(state, f);
    ui::Setup setup = state.setup();
    const core::SchemeDescriptor* scheme = &state.scheme();
    if (f.scheme && !spatialView) {
        scheme = &core::schemeOrThrow(*f.scheme); // the words of poslab compute
        if (scheme->id != setup.scheme) {
            setup.scheme = scheme->id;
            setup.params = core::defaultParams(*scheme);
        }
    }
    if (f.dim && !spatialView)
        setup.dim = *f.dim;
    else if (scheme->needsEvenDim && setup.dim % 2)
        ++setup.dim;
    if (f.positions)
        setup.positionCount = *f.positions;
    core::TableContext ctx;
    ctx.dim = setup.dim;
    ctx.positions = core::PositionList::range(0, std::max(1, setup.positionCount));
    ctx.seqLen = setup.positionCount;
    // The one resolver of compute, export, batch and the window: the same keys refused with the same words.
    setup.params = core::resolveParams(*scheme, setup.params, spatialView ? core::Overrides() : f.sets, ctx);
    state.applySetup(setup);

    ui::ViewOptions o = state.viewOptions();
    const bool fromState = f.stateFile || f.lesson;
    if (f.themeGiven || !fromState)
        o.theme = f.options.theme;
    if (f.fontScaleGiven || !fromState)
        o.fontScale = f.options.fontScale;
    if (f.softmax || !fromState)
        o.softmax = f.softmax; // logits unless --softmax, as in poslab compute
    if (f.mask)
        o.causal = core::parseMask(*f.mask) == core::MaskKind::Causal;
    if (f.heads)
        o.heads = *f.heads;
    if (f.head)
        o.head = *f.head;
    if (f.term) {
        // The attention view shows one named part of the logits; the scheme must have it.
        const core::SchemeDescriptor& scheme = state.scheme();
        if (!scheme.score)
            throw InputError("--term: scheme " + scheme.id + " has no separate terms");
        o.term = QString::fromStdString(*f.term);
        o.softmax = false;
    }
    if (o.head >= o.heads)
        throw InputError("--head " + std::to_string(o.head) + " is out of range; heads are 0 to "
                         + std::to_string(o.heads - 1));
    if (f.content) {
        const core::ContentSpec c = core::parseContent(*f.content, 0); // throws for an empty sentence
        if (c.kind == core::ContentKind::Random)
            o.content = ui::AttentionContent::Random;
        else if (c.kind == core::ContentKind::Constant)
            o.content = ui::AttentionContent::Constant;
        else {
            o.content = ui::AttentionContent::Sentence;
            o.sentence = QString::fromStdString(*f.content);
        }
    }
    if (f.keys && parsePositionCount("--keys", *f.keys) != setup.positionCount)
        throw InputError("--keys '" + *f.keys
                         + "': the attention view shows queries = keys = the positions; "
                           "for other keys use poslab compute scores --keys");
    // The heatmap covers the asked positions; otherwise the state's size (the window's default of at most
    // 512). Other views do not draw attention: their scene computes a 1 x 1 matrix (ExportScene::view).
    if (f.view == "attention")
        o.attentionSize = f.positions ? setup.positionCount : std::min(o.attentionSize, setup.positionCount);
    if (f.table) {
        if (*f.table == "cos")
            o.tableQuantity = ui::TableQuantity::Cos;
        else if (*f.table == "sin")
            o.tableQuantity = ui::TableQuantity::Sin;
        else if (*f.table == "angle")
            o.tableQuantity = ui::TableQuantity::Angle;
        else
            throw InputError("--table '" + *f.table + "' is unknown; rotary tables: cos, sin, angle");
    }
    if (f.colormap) {
        if (*f.colormap == "auto")
            o.colorMap = ui::ColorMapChoice::Auto;
        else if (*f.colormap == "viridis")
            o.colorMap = ui::ColorMapChoice::Viridis;
        else if (*f.colormap == "cividis")
            o.colorMap = ui::ColorMapChoice::Cividis;
        else if (*f.colormap == "diverging")
            o.colorMap = ui::ColorMapChoice::Diverging;
        else
            throw InputError("--colormap '" + *f.colormap
                             + "' is unknown; colour maps: auto, viridis, cividis, diverging");
    }
    // --view-set NAME=VALUE: any view option of the state's property table, after the named options above.
    for (const auto& [name, text] : f.viewSets) {
        const ui::ViewProperty* p = ui::findViewProperty(QString::fromStdString(name));
        if (!p)
            throw InputError("--view-set: unknown view option '" + name
                             + "'; view options: " + ui::viewPropertyNames().toStdString());
        QVariant value;
        if (const QString why = ui::parseProperty(*p, QString::fromStdString(text), &value); !why.isEmpty())
            throw InputError("--view-set: " + why.toStdString());
        p->set(o, value);
    }
    if (const QString why = ui::checkViewOptions(o); !why.isEmpty())
        throw InputError(why.toStdString());
    if (f.view == "lengthlab") // a run file that cannot be read is one line, not a figure of the message
        if (const ui::LengthLabData d = ui::LengthLabFigure::fromRunFile(o.runFile, o.lengthMetric); !d.error.isEmpty())
            throw InputError(d.error.toStdString());
    if (const QString why = state.setViewOptions(o); !why.isEmpty())
        throw InputError(why.toStdString());
    if (f.cursor) {
        if (*f.cursor >= setup.positionCount)
            throw InputError("--cursor " + std::to_string(*f.cursor) + " is outside the positions 0 to "
                             + std::to_string(setup.positionCount - 1));
        state.setCursor(*f.cursor);
    }
}

/// Core's memory-cap message ends by naming poslab compute's --max-memory; export has no such option, so
/// its messages keep the size and the cap and drop the advice they cannot follow here.
std::string withoutComputeOptions(std::string message)
{
    for (const std::string hint : {", or raise the cap (--max-memory)", " (--max-memory)", "--max-memory"}) {
        const std::size_t at = message.find(hint);
        if (at != std::string::npos)
            message.erase(at, hint.size());
    }
    return message;
}

/// The files request @p f reads, for core::checkNotAnInput: its state file, config.json, run file and table_file,
/// each where its reader looks (state and config relative to @p base, the others as given). @p entry: "" for
/// the command line ("the --config file"), else " of entry N" ("the config file of entry N").
std::vector<core::RunInput> figureInputs(const FigureRequest& f, const QDir& base, const std::string& entry)
{
    const bool cli = entry.empty();
    const auto inBase
        = [&](const std::string& p) { return base.absoluteFilePath(QString::fromStdString(p)).toStdString(); };
    std::vector<core::RunInput> inputs;
    if (f.stateFile) {
        inputs.push_back({(cli ? "the --state file" : "the state file") + entry, inBase(*f.stateFile)});
        // The tables the state names (a file, a share string, a link or a deck entry's inline state): an earlier
        // entry writing one replaced the table a later entry reads. A pipe (--state /dev/stdin) is not read here:
        // it can be read once, by the state's own load.
        struct stat st = {};
        const bool pipe = ::stat(inBase(*f.stateFile).c_str(), &st) == 0 && !S_ISREG(st.st_mode);
        QJsonObject json;
        if (!pipe && ui::readStateSource(QString::fromStdString(*f.stateFile), base.path(), &json).isEmpty())
            for (const QString& table : ui::tableFilesNamed(json))
                inputs.push_back({"the table_file of the state" + entry, table.toStdString()});
    }
    if (f.config)
        inputs.push_back({(cli ? "the --config file" : "the config file") + entry, inBase(*f.config)});
    for (const auto& [name, value] : f.viewSets)
        if (name == "run_file")
            inputs.push_back({(cli ? "the --run file" : "the run file") + entry, value});
    for (const auto& [key, value] : f.sets)
        if (key == "table_file")
            inputs.push_back({"the table_file" + entry, value});
    return inputs;
}

exporting::ExportResult exportFigureOnce(const FigureRequest& f, const QDir& base, const core::OutputFolder* within);

/// Exports one figure; throws InputError / RefusedError with one line. With @p within, the output must stay
/// beneath that folder (a batch file's, checked as it is written).
exporting::ExportResult exportFigure(const FigureRequest& f, const QDir& base,
                                     const core::OutputFolder* within = nullptr)
{
    try {
        return exportFigureOnce(f, base, within);
    } catch (const RefusedError& e) {
        throw RefusedError(withoutComputeOptions(e.what()));
    }
}

exporting::ExportResult exportFigureOnce(const FigureRequest& f, const QDir& base, const core::OutputFolder* within)
{
    const QString path = base.filePath(QString::fromStdString(f.output));
    // Cheap checks first: a bad path or size costs no computation.
    exporting::Failure how = exporting::Failure::Usage;
    if (const QString why = exporting::ExportService::checkPath(path, &how, within); !why.isEmpty()) {
        if (how == exporting::Failure::Refused)
            throw RefusedError(why.toStdString());
        throw InputError(why.toStdString());
    }
    if (exporting::isFigure(f.options.format)) {
        QString why;
        exporting::geometryFor(f.options, &why);
        if (!why.isEmpty())
            throw RefusedError(why.toStdString());
    }
    exporting::ExportScene scene;
    if (!exporting::isFigure(f.options.format))
        scene.setDrawsNothing(); // the data's own estimate refuses first, before the figure's scores are computed
    configure(scene, f, base);
    // The table the set-up reads, wherever it was named (a --state file, share string, link or a deck entry's
    // state, not only --set table_file): an output over it would replace the table with this figure.
    if (const core::ParamSet& params = scene.state().params(); params.has("table_file"))
        if (const std::string& table = params.text("table_file"); !table.empty())
            core::checkNotAnInput(path.toStdString(), {{"the table_file of the set-up", table}});
    scene.state().setHeading(f.options.title); // --title: the figure's visible heading, and its file title
    // A state's theme and font scale hold unless --theme / --font-scale say otherwise.
    exporting::ExportOptions options = f.options;
    options.outputFolder = within;
    options.theme = scene.state().viewOptions().theme;
    options.fontScale = scene.state().viewOptions().fontScale;
    // An animation is priced whole, frames x each frame's work, before the view is made: making it computes the
    // first frame, and a thousand frames each within the work limit ran for hours.
    if (options.format == exporting::Format::Gif)
        if (const QString tooMuch
            = exporting::ExportService::animationWorkProblem(QString::fromStdString(f.view), scene.state(), options);
            !tooMuch.isEmpty())
            throw RefusedError(tooMuch.toStdString());
    QString why;
    ui::View* view = scene.view(QString::fromStdString(f.view), &why);
    if (!view)
        throw InputError(why.toStdString());
    exporting::ExportResult r
        = exporting::ExportService::exportView(*view, scene.state(), scene.computation(), options, path);
    if (r.failure == exporting::Failure::Usage)
        throw InputError(r.message.toStdString());
    if (r.failure == exporting::Failure::Refused)
        throw RefusedError(r.message.toStdString());
    return r;
}

int runBatch(const std::string& file, std::ostream& out, std::ostream& err)
{
    // The one bounded reader: /dev/zero or an endless pipe is refused, not read to the end of memory.
    const std::string bytes
        = core::readInputFile(file, std::uint64_t(16) << 20, "batch file", "a batch file is a few kilobytes");
    const BatchFile batch = parseBatchFile(QByteArray(bytes.data(), qsizetype(bytes.size())), file);
    const QJsonArray& figures = batch.figures;
    // Relative outputs and states are relative to the batch file, so a deck's folder is self-contained.
    const QDir base = QFileInfo(QString::fromStdString(file)).absoluteDir();
    const bool allowOutside = batch.allowOutside;
    // The deck's folder, opened once: every output is resolved beneath it as it is written, so a folder on the
    // way swapped for a link part way through the batch cannot take an output (or a temporary) outside.
    std::optional<core::OutputFolder> folder;
    if (!allowOutside)
        folder.emplace(base.absolutePath().toStdString(),
                       "add \"allow_outside\": true to the batch file to write there");
    // Before anything is written: an output that is a file the run reads (the deck, a state, a config, a run
    // file, a table) is refused, and two entries writing one file are named.
    std::vector<std::string> refusals(std::size_t(figures.size()));
    {
        std::vector<core::RunInput> inputs
            = {{"the batch file", QFileInfo(QString::fromStdString(file)).absoluteFilePath().toStdString()}};
        std::vector<std::string> outputs(std::size_t(figures.size()));
        for (qsizetype i = 0; i < figures.size(); ++i) {
            if (!figures.at(i).isObject())
                continue;
            try {
                const FigureRequest fr = parseFigure(entryArguments(batchEntry(batch, i)));
                const std::vector<core::RunInput> own = figureInputs(fr, base, " of entry " + std::to_string(i + 1));
                inputs.insert(inputs.end(), own.begin(), own.end());
                if (!fr.output.empty())
                    outputs[std::size_t(i)] = base.absoluteFilePath(QString::fromStdString(fr.output)).toStdString();
            } catch (const std::exception&) {
                // the entry fails below with its own message
            }
        }
        std::map<std::string, qsizetype> writers; // the file (device:inode, or the path of a new one) -> entry
        for (qsizetype i = 0; i < figures.size(); ++i) {
            const std::string& output = outputs[std::size_t(i)];
            if (output.empty())
                continue;
            try {
                core::checkNotAnInput(output, inputs);
            } catch (const InputError& e) {
                refusals[std::size_t(i)] = e.what();
                continue;
            }
            struct stat st = {};
            const std::string key = ::stat(output.c_str(), &st) == 0
                ? std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino)
                : std::filesystem::path(output).lexically_normal().string();
            const auto [it, fresh] = writers.emplace(key, i);
            if (!fresh) {
                err << "poslab: warning: "
                    << messageLine("entries " + std::to_string(it->second + 1) + " and " + std::to_string(i + 1)
                                   + " both write " + std::filesystem::path(output).lexically_normal().string()
                                   + "; entry " + std::to_string(i + 1) + " is written after entry "
                                   + std::to_string(it->second + 1) + " and replaces it")
                    << "\n";
                it->second = i;
            }
        }
    }
    int failures = 0;
    for (qsizetype i = 0; i < figures.size(); ++i) {
        const QJsonObject entry = batchEntry(batch, i);
        QString name = entry.value(QStringLiteral("output")).toString(entry.value(QStringLiteral("o")).toString());
        if (name.isEmpty())
            name = QStringLiteral("no output");
        // A control or format character in the name is shown as its code point, as the writer's messages show
        // it (U+0000 would cut the line, U+202E reverse it).
        QString printable;
        for (const QChar c : name) {
            const bool hidden = c.category() == QChar::Other_Control || c.category() == QChar::Other_Format;
            printable += hidden
                ? "<U+" + QString::number(c.unicode(), 16).toUpper().rightJustified(4, QLatin1Char('0')) + ">"
                : QString(c);
        }
        const std::string label = "entry " + std::to_string(i + 1) + " (" + printable.toStdString() + ")";
        try {
            if (!figures.at(i).isObject())
                throw InputError("must be a JSON object");
            if (!refusals[std::size_t(i)].empty())
                throw InputError(refusals[std::size_t(i)]);
            // Outputs stay in the deck's folder unless the deck says otherwise: a deck someone sent must not
            // write ../../.bashrc, nor through a link in its folder (figs -> /etc, x.png -> ~/.bashrc). The
            // message names the resolved path.
            // (A name with a control character is left to the writer, which refuses it by its code point; Qt's
            // file calls would first print "Broken filename" for a NUL.)
            const bool plainName = std::none_of(name.begin(), name.end(),
                                                [](QChar c) { return c.unicode() < 0x20 || c.unicode() == 0x7f; });
            if (plainName && QFileInfo(base.absoluteFilePath(name)).isDir())
                throw InputError("output '" + name.toStdString() + "' is a folder; give a file name (figure.svg)");
            if (!allowOutside)
                if (const std::string why = outsideDeck(base.absolutePath().toStdString(), name.toStdString());
                    !why.empty())
                    throw InputError(why);
            // true/false only for the flags (softmax, float_colour_scale); an option that takes a value
            // would otherwise read the next word ("--dim '-o' is not an integer").
            for (auto it = entry.begin(); it != entry.end(); ++it) {
                if (!it.value().isBool())
                    continue;
                const std::string option
                    = "--" + QString(it.key()).replace(QLatin1Char('_'), QLatin1Char('-')).toStdString();
                const auto spec = std::find_if(exportOptions().begin(), exportOptions().end(),
                                               [&](const OptionSpec& o) { return option == o.name; });
                if (spec != exportOptions().end() && spec->takesValue)
                    throw InputError("\"" + it.key().toStdString() + "\" takes a value (e.g. " + spec->example
                                     + "), not true or false");
            }
            const FigureRequest fr = parseFigure(entryArguments(entry));
            if (fr.help || fr.version || fr.batch)
                throw InputError("\"help\", \"version\" and \"batch\" are not figure options");
            const exporting::ExportResult r = exportFigure(fr, base, folder ? &*folder : nullptr);
            out << "wrote " << QDir::toNativeSeparators(base.filePath(name)).toStdString();
            if (r.pixels.isValid())
                out << " (" << r.pixels.width() << "x" << r.pixels.height() << ")";
            out << "\n";
        } catch (const std::bad_alloc&) {
            ++failures;
            err << "poslab: " << messageLine(label + ": out of memory") << "\n";
        } catch (const std::exception& e) {
            ++failures;
            err << "poslab: " << messageLine(label + ": " + e.what()) << "\n";
        }
    }
    if (failures) {
        const qsizetype written = figures.size() - failures;
        err << "poslab: " << failures << " of " << figures.size() << " figures failed; "
            << (written == 0       ? std::string("none was written")
                    : written == 1 ? std::string("the other one was written")
                                   : "the other " + std::to_string(written) + " were written")
            << "\n";
        return exitRefused;
    }
    return exitOk;
}

} // namespace

const std::vector<OptionSpec>& exportOptions()
{
    static const std::vector<OptionSpec> options = {
        {"--scheme", true, nullptr, "rope"},
        {"--set", true, nullptr, "rope_theta=500000"},
        {"--dim", true, nullptr, "64"},
        {"--positions", true, nullptr, "16"},
        {"--keys", true, nullptr, "16"},
        {"--heads", true, nullptr, "2"},
        {"--head", true, nullptr, "1"},
        {"--cursor", true, nullptr, "3"},
        {"--seed", true, nullptr, "0"},
        {"--content", true, nullptr, "constant"},
        {"--softmax", false},
        {"--mask", true, nullptr, "bidirectional"},
        {"--table", true, nullptr, "sin"},
        {"--term", true, nullptr, "total"},
        {"--colormap", true, nullptr, "viridis"},
        {"--state", true, nullptr, "state.json"},
        {"--lesson", true, nullptr, "2.1"},
        {"--view-set", true, nullptr, "pendulum=true"},
        {"--run", true, nullptr, "run.json"},
        {"--preset", true, nullptr, "llama-3.1-8b"},
        {"--config", true, nullptr, "config.json"},
        {"--grid", true, nullptr, "4x5"},
        {"--sequence", true, nullptr, "text:3,image:1x2x2"},
        {"--size", true, nullptr, "12x8cm"},
        {"--dpi", true, nullptr, "144"},
        {"--theme", true, nullptr, "dark"},
        {"--font-scale", true, nullptr, "1.5"},
        {"--title", true, nullptr, "a = b"},
        {"--frames", true, nullptr, "8"},
        {"--fps", true, nullptr, "10"},
        {"--loop", true, nullptr, "1"},
        {"--animate", true, nullptr, "position"},
        {"--from", true, nullptr, "1"},
        {"--to", true, nullptr, "5"},
        {"--float-colour-scale", false},
        {"--output", true, "-o", "figure.png"},
        {"--batch", true, nullptr, "deck.json"},
        {"--help", false, "-h"},
        {"--version", false},
    };
    return options;
}

std::string exportUsage()
{
    return R"(Usage:
  poslab export VIEW --scheme ID [--set KEY=VALUE]... [--dim D] [--positions N|0:N] [--keys N|0:N]
                [--heads H] [--head h] [--content random|constant|"a sentence"] [--softmax]
                [--mask causal|bidirectional] [--table cos|sin|angle] [--colormap auto|viridis|cividis|diverging]
                [--cursor P] [--state FILE.poslab|PL2.STRING|poslab:LINK] [--lesson N.M] [--view-set NAME=VALUE]...
                [--run run.json]
                [--preset NAME] [--config FILE] [--term NAME]
                [--grid HxW] [--sequence text:N,image:TxHxW,video:TxHxW,...]
                [--size WxH[px|cm|mm|in]] [--dpi N] [--theme light|dark|transparent|dark-transparent]
                [--font-scale F] [--title TEXT]
                [--frames N] [--fps F] [--loop N] [--animate position|PARAM] [--from A] [--to B]
                [--float-colour-scale]
                -o FILE.svg|.png|.pdf|.gif|.csv|.json|.npy
  poslab export --batch FILE.json

Options: --opt VALUE and --opt=VALUE are the same; -- ends the options (a VIEW may follow it).

VIEW: table, clock, rotation, decay, attention, extension, buckets (T5, DeBERTa), precision (rotary schemes;
  --view-set dtype=float32|float16|bfloat16, angle_pipeline=round_angle|low_precision). The format follows the
  extension; .csv/.json/.npy write the numbers behind the view (decay: the plotted curves at every distance;
  attention: scores of every head; extension: poslab compute extension at L = target_length or the positions;
  buckets: compute buckets of one query at N - 1 and keys 0..2N - 2; precision: compute precision --dtype D).
  A CSV starts with a header row, and each row of a table with its position (attention: head, query).
  patchgrid and sequence draw the spatial set-up (see below); their data: patchgrid the similarity of every patch
  to every other (H*W x H*W, patch i*W + j), sequence the 3 x L position ids (rows t, h, w).
Spatial views: patchgrid takes a grid scheme (vit_learned, sincos_2d, rope_2d, pixtral_rope; default sincos_2d at
  14x14, d 64) and --grid HxW (at most 32x32 for the view); sequence takes mrope (the default there, head dim 128)
  and --sequence text:N,image:TxHxW,video:TxHxW,... in the language model's grid units (at most 1024 tokens).
  --scheme, --set and --dim then set the spatial scheme, its keys and its dimension, as poslab compute does;
  --preset NAME takes a vision model's whole spatial set-up (ViT-B/16, MAE, rope-vit, Pixtral, Qwen2-VL ...). The
  selected patch or token is the middle one unless a --state or --lesson selects one that the grid has.
Set-up: as poslab compute, but the views show positions 0 to N-1 (default 1024) at dimension D (default
  128); the attention view is queries = keys = the positions (default: the first 512). Logits unless
  --softmax. --term NAME shows one named part of the logits (as poslab compute scores --term). --state
  starts from a saved session, a share string or a poslab: link (Edit > Copy state link in the window); the
  other options then change it. --lesson N.M starts from the state of lesson step N.M (poslab lessons lists
  them) in the same way. --view-set NAME=VALUE sets any view option: table_quantity, colormap,
  pendulum, clock_pairs, speed, key_distance, shift, softmax, causal, head, heads, content, sentence,
  attention_size, term, theme, font_scale.
  --preset NAME (poslab presets) or --config FILE (a Hugging Face config.json) starts from a real model's
  scheme, keys, head dim and heads; explicit --set, --dim and --heads win, a different --scheme is refused.
--title TEXT: the figure's heading (in place of the view's own first line, "RoPE · YaRN x4, trained 4096")
  and the file's title (SVG <title>, PDF and PNG Title); default: the view's own.
Size: default 1200x800 pixels at 96 DPI. Physical sizes use the DPI for pixels; pixel sizes use it for the
  physical size (PNG pHYs, SVG width/height in mm, PDF page), so text keeps its point size. At most 16384
  pixels a side. transparent: no background (PNG, SVG, PDF).
Slides: --size 1920x1080 --dpi 144 is 13.33 x 7.5 in, PowerPoint's 16:9 widescreen slide. Text grows with
  the figure, so keep --font-scale 1 there: a larger scale enlarges the letters inside the same layout,
  which may then shorten, cut or overlap labels.
GIF: --frames (default 32) images at --fps (default 12), --loop 0 = forever. --animate position (default)
  moves the position cursor from --from (0) to --to; --animate PARAM sweeps a number parameter of the scheme
  (logarithmic ones in geometric steps), or dim, positions, key_distance, shift, head, heads, font_scale;
  each frame prints the swept value below the view, and heatmaps keep one colour scale over all frames
  (--float-colour-scale: each frame its own). A key that does not apply is refused, as with --set.
Batch: {"defaults": {...}, "figures": [{"view": "table", "scheme": "rope", "set": {"rope_theta": 500000},
  "size": "1600x900", "theme": "dark", "output": "table.svg"}, ...]}; keys are the options above without
  dashes (font_scale), "softmax": true for flags, "view_set": {"NAME": VALUE}, "preset": NAME, "config":
  FILE. An entry may be a state plus an output: {"view": "decay", "state": {...} or "FILE.poslab" or
  "PL2...", "output": "decay.svg"}. Outputs, states and configs are relative to the batch file; an output
  outside its folder (../x.png, /tmp/x.png) needs "allow_outside": true at the top level. A failing entry is
  reported as "entry N (FILE): problem" and the others are still written.
Exit status: 0 success, 1 refused (size too large, nothing to show, a batch entry failed), 2 usage error.
)";
}

void silenceRuntimeDirWarning()
{
    // Qt warns about a missing XDG_RUNTIME_DIR (as root, under CI or Xvfb) on every start, and the offscreen
    // platform about size hints; a tool whose messages are one line each should not print them. Other
    // messages pass through.
    static QtMessageHandler previous = nullptr;
    static bool installed = false;
    if (installed)
        return;
    installed = true;
    previous = qInstallMessageHandler([](QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
        if (msg.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR"))
            || msg == QLatin1String("This plugin does not support propagateSizeHints()"))
            return;
        if (previous)
            previous(type, ctx, msg);
    });
}

void useCNumbers()
{
    std::setlocale(LC_NUMERIC, "C");
}

int runExportCli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err)
{
    std::vector<std::string> args = argv;
    if (!args.empty() && args.front() == "export")
        args.erase(args.begin());
    try {
        if (args.empty())
            throw InputError("export needs a VIEW and -o FILE, or --batch FILE.json (see poslab export --help)");
        // Parse before starting Qt: a typo costs no platform plug-in and no fonts.
        const FigureRequest request = parseFigure(args);
        if (request.help || request.version) {
            out << (request.help ? exportUsage() : versionText());
            finishOutput(out);
            return exitOk;
        }
        std::optional<FigureRequest> single;
        std::string batch;
        if (request.batch)
            batch = *request.batch;
        else
            single = request;
        std::unique_ptr<QApplication> app;
        if (!QCoreApplication::instance()) {
            if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
                && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
                qputenv("QT_QPA_PLATFORM", "offscreen");
            silenceRuntimeDirWarning();
            static int argc = 1;
            static char name[] = "poslab";
            static char* qtArgv[] = {name, nullptr};
            app = std::make_unique<QApplication>(argc, qtArgv);
            useCNumbers();
        } else if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
            throw RefusedError("export needs a QApplication (the decay view is a Qt Charts widget)");
        }
        if (request.batch) {
            const int status = runBatch(batch, out, err);
            finishOutput(out);
            return status;
        }
        // An output over a file this command reads (--state s.json -o s.json) is refused before any work.
        if (!single->output.empty())
            core::checkNotAnInput(
                QDir::current().absoluteFilePath(QString::fromStdString(single->output)).toStdString(),
                figureInputs(*single, QDir::current(), std::string()));
        exportFigure(*single, QDir::current());
        return exitOk;
    } catch (const InputError& e) {
        err << "poslab: " << messageLine(e.what()) << "\n";
        return exitUsage;
    } catch (const RefusedError& e) {
        err << "poslab: " << messageLine(e.what()) << "\n";
        return exitRefused;
    } catch (const std::bad_alloc&) {
        err << "poslab: out of memory; ask for a smaller figure\n";
        return exitRefused;
    } catch (const std::exception& e) {
        err << "poslab: " << messageLine(e.what()) << "\n";
        return exitRefused;
    }
}

} // namespace poslab::app
