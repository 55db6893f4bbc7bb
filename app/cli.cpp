// SPDX-License-Identifier: MIT
#include "app/cli.h"

#include "app/traincli.h"

#include "core/attention.h"
#include "core/bench.h"
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/io/outputfile.h"
#include "core/io/writers.h"
#include "ui/lessons/claims.h"
#include "ui/lessons/lesson.h"
#include "ui/setup/presets.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <QUrl>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <charconv>
#include <cmath>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

namespace poslab::app {

namespace {

using core::InputError;

int runSchemes(Args& a, std::ostream& out)
{
    bool json = false;
    while (!a.done()) {
        const std::string opt = a.next();
        if (a.isOperand())
            throw InputError("unexpected argument '" + opt + "' for schemes (known: --json)");
        if (opt == "--help" || opt == "-h") {
            out << usage();
            return exitOk;
        }
        if (opt == "--version") {
            out << versionText();
            return exitOk;
        }
        if (opt == "--json")
            json = true;
    }
    if (json)
        core::writeSchemesJson(out);
    else
        core::writeSchemesText(out);
    return exitOk;
}

int runPresets(Args& a, std::ostream& out)
{
    bool json = false;
    std::optional<std::string> config;
    while (!a.done()) {
        const std::string opt = a.next();
        if (a.isOperand())
            throw InputError("unexpected argument '" + opt + "' for presets (known: --json, --config FILE)");
        if (opt == "--help" || opt == "-h") {
            out << usage();
            return exitOk;
        }
        if (opt == "--version") {
            out << versionText();
            return exitOk;
        }
        if (opt == "--json")
            json = true;
        else if (opt == "--config")
            config = a.value(opt);
    }
    if (config)
        out << ui::modelConfigReport(QString::fromStdString(*config), json);
    else
        out << (json ? ui::presetsJson() : ui::presetsText());
    return exitOk;
}

int runCompute(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    // The one parser of compute lines (ui/setup/computecommand.h), shared with the lessons' probes.
    const ui::ComputeCommand command = ui::parseComputeCommand(
        args, [&](const std::string& w) { err << "poslab: warning: " << messageLine(w) << "\n"; });
    if (command.help) {
        out << usage();
        return exitOk;
    }
    if (command.version) {
        out << versionText();
        return exitOk;
    }
    const bool toFile = !command.output.empty() && command.output != "-";
    if (toFile) { // a path that cannot be written costs no computation
        core::checkOutputFile(command.output);
        // Nor one over a file this command reads: -o c.json with --config c.json, -o t.npy with table_file=t.npy.
        std::vector<core::RunInput> inputs;
        for (std::size_t i = 0; i < args.size() && args[i] != "--"; ++i) {
            if (args[i] == "--config" && i + 1 < args.size())
                inputs.push_back({"the --config file", args[i + 1]});
            else if (args[i].rfind("--config=", 0) == 0)
                inputs.push_back({"the --config file", args[i].substr(9)});
        }
        for (const auto& [key, value] : command.request.overrides)
            if (key == "table_file")
                inputs.push_back({"the table_file", value});
        core::checkNotAnInput(command.output, inputs);
    }
    const core::ComputeResult result = core::compute(command.request, command.limits);
    for (const std::string& w : result.warnings)
        err << "poslab: warning: " << messageLine(w) << "\n";
    if (!toFile)
        core::write(out, result, command.format);
    else
        core::writeOutputFile(command.output, [&](std::ostream& f) { core::write(f, result, command.format); });
    return exitOk;
}

/// {p:NAME} in a lesson's text: the value of NAME in the step's full state (a state field, a scheme parameter or a
/// view property), else NAME itself (the state leaves it at the workbench's default, which the window shows).
QString fillStateFields(const QString& text, const QJsonObject& state)
{
    static const QRegularExpression field(QStringLiteral("\\{p:([^}]+)\\}"));
    QString out;
    qsizetype last = 0;
    for (auto it = field.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        out += text.mid(last, m.capturedStart() - last);
        const QString name = m.captured(1);
        QJsonValue v = state.value(name);
        if (v.isUndefined() || v.isObject())
            v = state.value("params").toObject().value(name);
        if (v.isUndefined())
            v = state.value("view").toObject().value(name);
        out += v.isString() ? v.toString()
            : v.isDouble()  ? lessons::formatValue(v.toDouble())
            : v.isBool()    ? (v.toBool() ? QStringLiteral("true") : QStringLiteral("false"))
                            : name;
        last = m.capturedEnd();
    }
    return out + text.mid(last);
}

/// A probe's JSON for `poslab lessons --json`: as written, plus its value (a number, a list, or null) and, when it
/// gives none, why.
QJsonObject probeJson(const lessons::Probe& p, const lessons::ProbeValue& v)
{
    QJsonObject o = p.json;
    if (v.ok && !v.values.empty()) {
        if (v.slice) {
            QJsonArray a;
            for (double x : v.values)
                a.append(std::isfinite(x) ? QJsonValue(x) : QJsonValue());
            o.insert("value", a);
        } else {
            o.insert("value", std::isfinite(v.values[0]) ? QJsonValue(v.values[0]) : QJsonValue());
        }
    } else {
        o.insert("value", QJsonValue());
    }
    if (!v.error.isEmpty())
        o.insert(v.ok ? "refusal" : "error", v.error);
    return o;
}

/// "at [63, \"wavelength_old\"]", "scalar attention_factor", "refused with \"...\"".
std::string probeWhere(const lessons::Probe& p)
{
    if (p.isRefusal())
        return "refused with \"" + p.refused.toStdString() + "\"";
    if (p.isScalar())
        return "scalar " + p.scalar.toStdString();
    return "at " + QJsonDocument(p.json.value("at").toArray()).toJson(QJsonDocument::Compact).toStdString();
}

int runLessons(Args& a, std::ostream& out, std::ostream& err)
{
    bool json = false, check = false;
    std::optional<int> only;
    while (!a.done()) {
        const std::string opt = a.next();
        if (a.isOperand())
            throw InputError("unexpected argument '" + opt + "' for lessons (known: --json, --check, --lesson N)");
        if (opt == "--help" || opt == "-h") {
            out << usage();
            return exitOk;
        }
        if (opt == "--version") {
            out << versionText();
            return exitOk;
        }
        if (opt == "--json")
            json = true;
        else if (opt == "--check")
            check = true;
        else if (opt == "--lesson")
            only = int(parseIntegerOption(opt, a.value(opt), 1, 99));
    }
    if (only && !lessons::findLesson(*only)) {
        QStringList numbers;
        for (const lessons::Lesson& l : lessons::lessons())
            numbers << QString::number(l.number);
        throw InputError(
            "--lesson " + std::to_string(*only) + ": no such lesson; lessons: "
            + (numbers.isEmpty() ? std::string("none") : numbers.join(QStringLiteral(", ")).toStdString()));
    }
    lessons::ClaimEngine engine;
    int claims = 0, failures = 0;
    QStringList failed;
    // A file that does not read is a failure of --check too (its claims cannot be checked).
    for (const QString& problem : lessons::lessonLoadProblems()) {
        if (!only) {
            failed << problem;
            ++failures;
        }
    }
    QJsonArray lessonsJson;
    for (const lessons::Lesson& l : lessons::lessons()) {
        if (only && l.number != *only)
            continue;
        const QList<lessons::ClaimReport> reports = lessons::checkLesson(l, engine);
        auto verdict = [&](const QString& step, const QString& what) -> const lessons::ClaimReport* {
            for (const lessons::ClaimReport& r : reports)
                if (r.step == step && r.what == what)
                    return &r;
            return nullptr;
        };
        for (const lessons::ClaimReport& r : reports) {
            ++claims;
            if (!r.holds) {
                ++failures;
                failed << r.line();
            }
        }
        QJsonArray stepsJson;
        const bool list = !json && !check; // --check alone prints the failures and a summary only
        if (list)
            out << "L" << (l.number < 10 ? "0" : "") << l.number << "  " << l.title.toStdString() << "  ("
                << l.file.toStdString() << ", " << l.steps.size() << " steps)\n";
        for (int i = 0; i < l.steps.size(); ++i) {
            const lessons::Step& s = l.steps[i];
            const QJsonObject state = lessons::stepState(l, i);
            const QString text = fillStateFields(engine.fillStepText(s, s.text), state);
            QJsonArray noticesJson;
            if (list) {
                out << "  " << s.id.toStdString() << "  " << s.title.toStdString()
                    << "  [views: " << s.views.join(QStringLiteral(", ")).toStdString() << "]\n"
                    << "      " << text.toStdString() << "\n";
            }
            for (const lessons::Notice& n : s.notice) {
                const lessons::ClaimReport* r = verdict(s.id, QStringLiteral("notice ") + n.id);
                const QString filled = fillStateFields(engine.fillNotice(n), state);
                const QList<const lessons::Probe*> probes = n.probes();
                if (json) {
                    QJsonArray probesJson;
                    for (const lessons::Probe* p : probes)
                        probesJson.append(probeJson(*p, engine.probe(*p)));
                    noticesJson.append(QJsonObject{{"id", n.id},
                                                   {"text", filled},
                                                   {"probes", probesJson},
                                                   {"check", n.check.json},
                                                   {"holds", r && r->holds},
                                                   {"reason", r ? r->reason : QString()}});
                    continue;
                }
                if (!list)
                    continue;
                out << "    " << n.id.toStdString() << (r && !r->holds ? " (FAILS)" : "") << "  "
                    << filled.toStdString() << "\n";
                // One line per compute line, with every place the notice reads from it.
                std::vector<std::pair<QString, std::string>> lines;
                for (const lessons::Probe* p : probes) {
                    auto it = std::find_if(lines.begin(), lines.end(),
                                           [&](const auto& l) { return l.first == p->compute; });
                    if (it == lines.end())
                        lines.emplace_back(p->compute, probeWhere(*p));
                    else if (it->second.find(probeWhere(*p)) == std::string::npos)
                        it->second += "; " + probeWhere(*p);
                }
                for (const auto& [line, where] : lines)
                    out << "        poslab compute " << line.toStdString() << "   (" << where << ")\n";
            }
            if (json) {
                QJsonObject stepJson{{"id", s.id},
                                     {"title", s.title},
                                     {"text", text},
                                     {"views", QJsonArray::fromStringList(s.views)},
                                     {"knobs", QJsonArray::fromStringList(s.knobs)},
                                     {"state", state},
                                     {"notice", noticesJson}};
                if (!s.formula.isEmpty())
                    stepJson.insert("formula", s.formula);
                if (!s.doText.isEmpty())
                    stepJson.insert("do", fillStateFields(engine.fillStepText(s, s.doText), state));
                if (s.predict) {
                    QJsonObject predict{{"prompt", s.predict->prompt}, {"kind", s.predict->kind}};
                    if (s.predict->kind == QLatin1String("number")) {
                        const lessons::Notice* n = s.findNotice(s.predict->answerNotice);
                        const QList<const lessons::Probe*> probes = n->probes();
                        predict.insert(
                            "answer",
                            probeJson(*probes[s.predict->answerProbe], engine.probe(*probes[s.predict->answerProbe])));
                    } else {
                        predict.insert("choices", QJsonArray::fromStringList(s.predict->choices));
                        predict.insert("answer", s.predict->answerChoice);
                    }
                    stepJson.insert("predict", predict);
                }
                stepsJson.append(stepJson);
            }
        }
        const lessons::ClaimReport* puzzleVerdict = verdict(QString(), QStringLiteral("puzzle"));
        if (json) {
            QJsonObject lessonJson{{"number", l.number},
                                   {"file", l.file},
                                   {"title", l.title},
                                   {"objective", l.objective},
                                   {"resolves", QJsonArray::fromStringList(l.resolves)},
                                   {"steps", stepsJson},
                                   {"sources", QJsonArray::fromStringList(l.sources)}};
            if (l.puzzle)
                lessonJson.insert("puzzle",
                                  QJsonObject{{"prompt", l.puzzle->prompt},
                                              {"kind", l.puzzle->kind},
                                              {"answer", l.puzzle->answerText()},
                                              {"holds", puzzleVerdict && puzzleVerdict->holds},
                                              {"reason", puzzleVerdict ? puzzleVerdict->reason : QString()}});
            if (!l.verify.isEmpty())
                lessonJson.insert("verify", l.verify);
            lessonsJson.append(lessonJson);
        } else if (list && l.puzzle) {
            const QString answer = l.puzzle->kind == QLatin1String("choice")
                ? l.puzzle->choices.value(l.puzzle->answerChoice)
                : l.puzzle->answerText();
            out << "  puzzle" << (puzzleVerdict && !puzzleVerdict->holds ? " (FAILS)" : "") << "  "
                << l.puzzle->prompt.toStdString() << "  (answer: " << answer.toStdString() << ")\n";
        }
    }
    if (json) {
        QJsonArray problems;
        for (const QString& f : failed)
            problems.append(f);
        out << QJsonDocument(QJsonObject{{"lessons", lessonsJson}, {"claims", claims}, {"failures", problems}})
                   .toJson(QJsonDocument::Indented)
                   .toStdString();
    }
    if (!check)
        return exitOk;
    for (const QString& f : failed)
        err << "poslab: claim fails: " << messageLine(f.toStdString()) << "\n";
    if (!json)
        out << "lessons --check: " << claims << " claims in " << (only ? 1 : lessons::lessons().size())
            << " lesson(s); " << (failures ? std::to_string(failures) + " fail" : std::string("all hold")) << "\n";
    return failures ? exitRefused : exitOk;
}

int runBench(Args& a, std::ostream& out, const CliHooks& hooks)
{
    bool json = false;
    bool large = false;
    while (!a.done()) {
        const std::string opt = a.next();
        if (a.isOperand())
            throw InputError("unexpected argument '" + opt + "' for bench (known: --json, --large)");
        if (opt == "--help" || opt == "-h") {
            out << usage();
            return exitOk;
        }
        if (opt == "--version") {
            out << versionText();
            return exitOk;
        }
        if (opt == "--json")
            json = true;
        else if (opt == "--large")
            large = true;
    }
    std::vector<core::BenchFigure> figures = core::runCoreBenchmarks();
    figures.push_back(trainStepBenchmark());
    if (hooks.extraBenchmarks)
        for (auto& f : hooks.extraBenchmarks(large))
            figures.push_back(std::move(f));
    if (json) {
        out << "{";
        for (std::size_t i = 0; i < figures.size(); ++i)
            out << (i ? "," : "") << "\n  " << core::jsonString(figures[i].key) << ": "
                << core::formatNumber(figures[i].value);
        out << "\n}\n";
    } else {
        for (const auto& f : figures) {
            char line[256];
            std::snprintf(line, sizeof line, "%-32s %14.6g  %s\n", f.key.c_str(), f.value, f.description.c_str());
            out << line;
        }
    }
    return exitOk;
}

} // namespace

std::string usage()
{
    return R"(PosLab: positional encodings of transformers, computed exactly and shown moving.

Usage:
  poslab                         open the window
  poslab FILE.poslab             open the window on a saved session (also --open FILE)
  poslab --state STRING          open the window on a shared state: a share string PL2..., a poslab:
                                 link (Edit > Copy state link), inline JSON or a session file
  poslab schemes [--json]        list every scheme with its family, axes, citation and parameters
  poslab presets [--json]        real models' positional settings, each number with its source
  poslab presets --config FILE [--json]
                                 what a Hugging Face config.json maps to: keys used, not mapped, ignored
  poslab compute QUANTITY --scheme ID [--set KEY=VALUE]... [--dim D] [--positions SPEC]
                 [--vector V1,V2,...] [--seq-len L] [--format json|csv|npy] [-o FILE]
                 [--max-memory SIZE] [--keys SPEC] [--heads H] [--seed N]
                 [--content random|constant|"a sentence"] [--softmax] [--mask causal|bidirectional]
                 [--shuffle] [--drope] [--term NAME] [--angles exact|reduced]
                 [--samples N] [--normalise none|at_zero] [--trained-length T]
                 [--dtype float32|float16|bfloat16]
                                 the numbers behind the views
  poslab compute encoding --scheme vit_learned|sincos_2d --grid HxW --dim D [--cls]
  poslab compute angles|cos|sin|rotate|scores --scheme rope_2d|pixtral_rope --grid HxW --dim D
  poslab compute position_ids|angles|cos|sin|rotate|scores --scheme mrope --dim D
                 --sequence text:N,image:TxHxW,video:TxHxW,...
                                 positions in two and three dimensions (see "Grids and sequences")
  poslab export VIEW --scheme ID [--set KEY=VALUE]... [--size WxH] [--dpi N] [--theme light|dark|transparent]
                 -o FILE.svg|.png|.pdf|.gif|.csv|.json|.npy
                                 a figure of one view: table, clock, decay, rotation, attention,
                                 extension, buckets, precision (and more: poslab export --help)
                                 (poslab export --help lists every option)
  poslab export --batch FILE.json  many figures in one process
  poslab lessons [--json] [--lesson N]
                                 the lessons, their steps and each step's claims (notices) with their
                                 values computed now and the poslab compute lines behind them
  poslab lessons --check [--lesson N]
                                 evaluate every claim (notice, prediction, puzzle) with core; exit 1 and
                                 name each one that fails (lesson file, step, notice, reason)
  poslab export --lesson N.M VIEW -o FILE
                                 a lesson step's figure (its state, as --state; other options apply)
  poslab bench [--json] [--large] performance figures of this machine (--large: also the GPU sizes,
                                 a 65536 x 4096 table and 8192 x 8192 scores; minutes on software OpenGL)
  poslab --version               the version and the git revision it was built from
)" + trainUsage()
        + R"(

Window options (with no command, a session or a --state):
  --lesson N.M                   open the lesson panel at step N.M and load its state (a step that asks
                                 for a prediction loads after it; presenting, at once)
  --present                      start in presentation mode (F5; with --lesson: from that step)
  --presenter                    present with the presenter view (step, notes, next step, timer) even on
                                 one screen; implies --present (P toggles it; a second screen opens it)
  --theme light|dark             the theme (the window remembers the last one)
  --font-scale S                 text size for a lecture hall, 0.8 to 2.5 (A-/A+, Ctrl+-/+)
  --maximise VIEW                show one view alone (table, clock, decay, rotation, attention) or open a
                                 view's tab (extension, pipeline, lengthlab, ...)
  --hide-panels                  hide the scheme and parameter panels (F9 brings them back)
  --scheme ID, --dim D, --positions N
                                 start from this scheme, head dimension, number of positions
  --preset NAME, --config FILE   start from a real model's settings
  --compute-path auto|cpu|gpu    which path computes sin/cos tables this run
  --screenshot FILE [--size WxH] save the window (or the presentation) to FILE after 1.5 s and exit

Models: --preset NAME (poslab presets lists them) or --config FILE (a Hugging Face config.json) instead of
  --scheme, on compute, export, a batch entry ("preset", "config") and the window: the model's scheme, keys,
  head dim and heads. Explicit --set, --dim and --heads win; a different --scheme is refused.
Options: --opt VALUE and --opt=VALUE are the same; -- ends the options; -h/--help and --version work
  after every command.

QUANTITY: encoding, frequencies, angles, cos, sin, rotate, bias, buckets, scores, decay, extension, precision
          (which ones a scheme has: poslab schemes).
SPEC: a:b (half-open), a:b:step, or p1,p2,... (default 0:64, or one per word of a --content sentence). --dim defaults to 64 (the head dimension
      for scores).
Attention quantities: --positions are the query positions (rows), --keys the key positions (columns,
  default: the queries); for decay, --positions are the distances query - key. bias and scores are
  heads x queries x keys, buckets queries x keys. --mask defaults to causal (key <= query); masked entries
  are null in JSON, empty in CSV and NaN in npy. --content: seeded random q/k (the default, except for
  decay), constant (all ones: only position acts), or a sentence (word t at position t; repeated words
  share an embedding). --shuffle permutes the words (seeded). --seed seeds the content; scheme weights
  (T5 biases, Shaw tables, ...) use the scheme's own seed parameter. --drope removes the rotation of
  rotary schemes (same content, no RoPE). --term NAME gives one named part of the scores instead of their
  total (e.g. Transformer-XL's four terms, DeBERTa's c2p and p2c, CoPE's gates and positions; a wrong name
  lists them). Decay: --positions are distances; bias and decay use --heads (ALiBi slopes).
Sequence length: RoPE's dynamic and longrope types and xPos's centring depend on it. It is the largest
  requested position + 1 (with --keys: of queries and keys), as Hugging Face's max(position_ids) + 1, so
  a longrope table over 0:8192 with original_max_position_embeddings 4096 uses long_factor; --seq-len L
  sets it instead. The JSON reports it as "seq_len" with "seq_len_source".
angles: p * omega_i in radians, unreduced and computed in double (torch.outer(t, inv_freq) forms the same
  product in float32; position 7, pair 0 gives 7); --angles reduced gives them mod 2*pi in [0, 2*pi). The
  JSON names the form ("angle_form").
decay: rotary schemes give "score" (q . R(delta theta) k with q = k) and "bound" (RoFormer's relative upper
  bound). The content model is ones (q = k = (1, ..., 1), the decay view's content) unless --content
  random (the mean over --samples N seeded vectors, default 16) or a sentence; --normalise at_zero divides
  each curve by its value at distance 0. The JSON names "content_model", "normalisation" and every column
  ("column_labels"); the CSV starts with a header row.
extension: one row per rotary pair: omega_old (rope_type default, same rope_theta), omega_new (the scheme's, at
  sequence length L), wavelengths 2 pi / omega in tokens, scale omega_old / omega_new, the band (llama3: kept,
  blended, divided; yarn: extrapolated, ramp, interpolated; see "column_labels"), the turns and arcs met over
  the trained window T (positions 0..T-1, omega_old) and over L (positions 0..L-1, omega_new), the new
  fraction of the circle, and the scale of PI, NTK-aware, dynamic NTK, YaRN and Llama 3 at the same theta,
  factor and T. L is the sequence length (--seq-len, else the largest position + 1). T is
  original_max_position_embeddings (llama3, yarn, longrope) or max_position_embeddings (dynamic); for the
  others --trained-length T, else L / factor (linear, ntk) or L. With --preset/--config, L defaults to the
  model's context length and T to its trained length.
precision: rotary schemes, one row per pair: what rounding the angles p * omega_i to --dtype (default
  bfloat16; IEEE 754 binary16 for float16, round to nearest even) leaves at the --positions, for two
  pipelines: round_angle (p * omega in double, rounded once) and low_precision (p and omega held in the
  dtype, their product rounded in it): distinct angles and (cos, sin) values, the first position whose
  angle or (cos, sin) equals the next one's, and the first p with ulp(p * omega) > omega.
Warnings: values that are accepted but unusual (e.g. a RoPE factor below 1, which Hugging Face accepts with
  a warning) are printed on stderr as "poslab: warning: ..." and listed in the JSON as "warnings".
Grids and sequences: --grid HxW is a vision encoder's patch grid, patch (i, j) = token i*W + j (row-major);
  encoding is (H*W) x D, with --cls the class-token row first. --sequence lists text runs (text:N) and image or
  video blocks (image:TxHxW, video:TxHxW, in the language model's grid units after the spatial merge) in order;
  position_ids is 3 x L (temporal, height, width). angles, cos and sin have one row per token and one column
  per rotary pair ("column_labels" names the axis each pair turns with); scores is L x L with --content
  constant or random, bidirectional for grids and causal for sequences unless --mask is given. A vision
  model's preset (--preset mae-vit-b-16) brings its training grid as the default --grid; --grid wins.
SIZE: bytes, or with KiB, MiB, GiB (default 2GiB).
Exit status: 0 success, 1 refused computation (e.g. over the memory cap), 2 usage error.
)";
}

const std::vector<OptionSpec>& schemesOptions()
{
    static const std::vector<OptionSpec> options = {
        {"--json", false},
        {"--help", false, "-h"},
        {"--version", false},
    };
    return options;
}

const std::vector<OptionSpec>& presetsOptions()
{
    static const std::vector<OptionSpec> options = {
        {"--json", false},
        {"--config", true, nullptr, "config.json"},
        {"--help", false, "-h"},
        {"--version", false},
    };
    return options;
}

const std::vector<OptionSpec>& lessonsOptions()
{
    static const std::vector<OptionSpec> options = {
        {"--json", false},       {"--check", false},   {"--lesson", true, nullptr, "2"},
        {"--help", false, "-h"}, {"--version", false},
    };
    return options;
}

const std::vector<OptionSpec>& benchOptions()
{
    static const std::vector<OptionSpec> options = {
        {"--json", false},
        {"--large", false},
        {"--help", false, "-h"},
        {"--version", false},
    };
    return options;
}

const std::vector<OptionSpec>& windowOptions()
{
    // Ours first, then the options QGuiApplication and QApplication take out of argv themselves (Qt's
    // QGuiApplication and QApplication class documentation); Qt also reads them with two dashes.
    static const std::vector<OptionSpec> options = {
        {"--compute-path", true, nullptr, "cpu"},
        {"--screenshot", true, nullptr, "shot.png"},
        {"--soak", true, nullptr, "60"},
        {"--size", true, nullptr, "800x600"},
        {"--theme", true, nullptr, "dark"},
        {"--scheme", true, nullptr, "rope"},
        {"--preset", true, nullptr, "llama-3.1-8b"},
        {"--config", true, nullptr, "config.json"},
        {"--dim", true, nullptr, "32"},
        {"--positions", true, nullptr, "64"},
        {"--hide-panels", false},
        {"--first-frame", false},
        {"--present", false},
        {"--presenter", false},
        {"--lesson", true, nullptr, "2.1"},
        {"--font-scale", true, nullptr, "1.5"},
        {"--maximise", true, nullptr, "table"},
        {"--state", true, nullptr, "PL2.eJyrVkpOLE7NS8lMS1WyUipKzUvPz8vJLEktyk8rSk1RslLKS8xNBQBl-gjV"},
        {"--open", true, nullptr, "lecture.poslab"},
        {"--help", false, "-h"},
        {"--version", false},
        {"-platform", true, "--platform", "offscreen"},
        {"-platformpluginpath", true, "--platformpluginpath", "/tmp"},
        {"-platformtheme", true, "--platformtheme", "gtk3"},
        {"-plugin", true, "--plugin", "evdevtouch"},
        {"-qwindowgeometry", true, "--qwindowgeometry", "640x480"},
        {"-qwindowtitle", true, "--qwindowtitle", "PosLab"},
        {"-qwindowicon", true, "--qwindowicon", "icon.png"},
        {"-display", true, "--display", ":0"},
        {"-geometry", true, "--geometry", "640x480"},
        {"-style", true, "--style", "Fusion"},
        {"-stylesheet", true, "--stylesheet", "a.qss"},
        {"-session", true, "--session", "s"},
        {"-name", true, "--name", "poslab"},
        {"-title", true, "--title", "PosLab"},
        {"-reverse", false, "--reverse"},
        {"-widgetcount", false, "--widgetcount"},
        {"-nograb", false, "--nograb"},
        {"-dograb", false, "--dograb"},
        {"-qmljsdebugger", true, "--qmljsdebugger", "port:1234"},
    };
    return options;
}

WindowArgs parseWindowArgs(const std::vector<std::string>& args)
{
    WindowArgs w;
    Args a(args, windowOptions(),
           "for the window (the window takes --compute-path auto|cpu|gpu; see poslab --help for "
           "the commands)");
    std::vector<std::string> seen;
    while (!a.done()) {
        const std::string opt = a.next();
        if (a.isOperand()) {
            // `poslab lecture.poslab` (a file manager's Open with; the launcher's %U gives file:///...),
            // `poslab poslab:PL2...` (a link): a session or a state; any other word is a mistyped command.
            std::string word = opt;
            if (word.rfind("file://", 0) == 0)
                word = QUrl(QString::fromStdString(word)).toLocalFile().toStdString();
            const bool session = word.size() > 7 && word.compare(word.size() - 7, 7, ".poslab") == 0;
            const bool link = word.rfind("poslab:", 0) == 0 || word.rfind("PL2.", 0) == 0;
            if ((session || link) && !w.open && !w.state) {
                (session ? w.open : w.state) = word;
                w.openOperand = session;
                continue;
            }
            throw InputError("unknown command '" + opt
                             + "'; commands: schemes, presets, lessons, compute, export, bench, train, train-bench "
                               "(see poslab --help)");
        }
        // Our options that take a value are given once, as compute's are (a second --dim used to win silently);
        // Qt's own options are Qt's to read.
        static const std::vector<std::string> once
            = {"--lesson",    "--compute-path", "--screenshot", "--soak",   "--size",
               "--theme",     "--scheme",       "--preset",     "--config", "--dim",
               "--positions", "--font-scale",   "--maximise",   "--state",  "--open"};
        if (std::find(once.begin(), once.end(), opt) != once.end()) {
            if (std::find(seen.begin(), seen.end(), opt) != seen.end())
                throw InputError("option " + opt + " is given twice; give it once");
            seen.push_back(opt);
        }
        if (opt == "--help" || opt == "-h")
            w.help = true;
        else if (opt == "--version")
            w.version = true;
        else if (opt == "--hide-panels")
            w.hidePanels = true;
        else if (opt == "--first-frame")
            w.firstFrame = true;
        else if (opt == "--present")
            w.present = true;
        else if (opt == "--presenter")
            w.present = w.presenter = true;
        else if (opt == "--lesson")
            w.lesson = a.value(opt);
        else if (opt == "--compute-path")
            w.computePath = a.value(opt);
        else if (opt == "--screenshot")
            w.screenshot = a.value(opt);
        else if (opt == "--soak")
            w.soak = a.value(opt);
        else if (opt == "--size")
            w.size = a.value(opt);
        else if (opt == "--theme")
            w.theme = a.value(opt);
        else if (opt == "--scheme")
            w.scheme = a.value(opt);
        else if (opt == "--preset")
            w.preset = a.value(opt);
        else if (opt == "--config")
            w.config = a.value(opt);
        else if (opt == "--dim")
            w.dim = a.value(opt);
        else if (opt == "--positions")
            w.positions = a.value(opt);
        else if (opt == "--font-scale")
            w.fontScale = a.value(opt);
        else if (opt == "--maximise")
            w.maximise = a.value(opt);
        else if (opt == "--state")
            w.state = a.value(opt);
        else if (opt == "--open")
            w.open = a.value(opt);
        else {
            // One of Qt's options (the rest of the table), handed to QApplication in the form it reads:
            // "-style" "Fusion" from "--style=Fusion".
            const std::string qtName = opt[1] == '-' ? opt.substr(1) : opt;
            w.qtArgs.push_back(qtName);
            const auto spec = std::find_if(windowOptions().begin(), windowOptions().end(),
                                           [&](const OptionSpec& o) { return qtName == o.name; });
            if (spec == windowOptions().end() || !spec->takesValue)
                continue;
            const std::string value = a.value(opt);
            w.qtArgs.push_back(value);
            if (qtName == "-platform")
                w.platform = value;
            else if (qtName == "-display")
                w.display = value;
        }
        if (w.help || w.version)
            break;
    }
    return w;
}

std::string noDisplayReason(const std::optional<std::string>& platform, const std::optional<std::string>& display)
{
#if defined(__APPLE__) || defined(_WIN32)
    (void)platform;
    (void)display;
    return {};
#else
    auto set = [](const char* name) {
        const char* v = std::getenv(name);
        return v && *v;
    };
    const bool x11 = set("DISPLAY") || display;
    const bool wayland = set("WAYLAND_DISPLAY");
    const char* env = std::getenv("QT_QPA_PLATFORM");
    const std::string chosen = platform ? *platform : env ? std::string(env) : std::string();
    if (chosen.empty()) {
        if (x11 || wayland)
            return {};
        return "no display for the window (DISPLAY and WAYLAND_DISPLAY are not set); the commands schemes, "
               "compute, export and bench need none (see poslab --help)";
    }
    // Qt tries each platform of "wayland;xcb" in turn; the window opens if one of them can.
    std::size_t start = 0;
    while (start <= chosen.size()) {
        std::size_t end = chosen.find(';', start);
        if (end == std::string::npos)
            end = chosen.size();
        const std::string item = chosen.substr(start, end - start);
        const std::string name = item.substr(0, item.find(':')); // "offscreen:fontconfig" is offscreen
        if (!name.empty()) {
            if (name == "xcb" ? x11 : name.rfind("wayland", 0) == 0 ? wayland : true)
                return {};
        }
        start = end + 1;
    }
    return "no display for the window on platform '" + chosen
        + "' (DISPLAY and WAYLAND_DISPLAY are not set); the commands schemes, compute, export and bench need none "
          "(see poslab --help)";
#endif
}

std::string versionText()
{
    return "poslab " POSLAB_VERSION " (git " POSLAB_GIT_REVISION ")\n";
}

void finishOutput(std::ostream& out, const std::string& what)
{
    out.flush();
    if (out)
        return;
    // The stream keeps no error number; errno still holds the write's when it names a write failure (it may
    // have been set by the first failed write, before this flush).
    const int error = errno;
    const bool writeError
        = error == ENOSPC || error == EPIPE || error == EIO || error == EDQUOT || error == EFBIG || error == EBADF;
    throw core::RefusedError("writing " + what + " failed"
                             + (writeError ? ": " + std::string(std::strerror(error)) : std::string())
                             + "; the output is incomplete");
}

bool isHeadless(const std::vector<std::string>& args)
{
    if (args.empty())
        return false;
    const std::string& c = args[0];
    return c == "schemes" || c == "presets" || c == "lessons" || c == "compute" || c == "bench" || c == "export"
        || c == "train" || c == "train-bench" || c == "--help" || c == "-h" || c == "help" || c == "--version";
}

std::string messageLine(const std::string& message)
{
    std::string out;
    out.reserve(std::min<std::size_t>(message.size(), 4096));
    for (std::size_t i = 0; i < message.size();) {
        const char c = message[i];
        if (c == '\'') {
            const std::size_t close = message.find('\'', i + 1);
            if (close != std::string::npos && close - i - 1 > 80) {
                // Keep whole UTF-8 characters: cut before a continuation byte.
                std::size_t cut = i + 1 + 60;
                while (cut > i + 1 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80)
                    --cut;
                out += message.substr(i, cut - i) + "\u2026 (" + std::to_string(close - i - 1) + " characters)'";
                i = close + 1;
                continue;
            }
        }
        if (c == '\n' || c == '\r' || c == '\t') {
            out += ' ';
        } else if ((static_cast<unsigned char>(c) < 0x20 || c == 0x7f)) {
            // A control character echoed from input (ESC in a config key) is written as its escape, never raw.
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(static_cast<unsigned char>(c)));
            out += buf;
        } else {
            out += c;
        }
        ++i;
    }
    return out;
}

int runCli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err, const CliHooks& hooks)
{
    try {
        if (argv.empty())
            throw InputError("no command given");
        const std::string& cmd = argv[0];
        const std::vector<std::string> rest(argv.begin() + 1, argv.end());
        int status = exitOk;
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            out << usage();
        } else if (cmd == "--version") {
            out << versionText();
        } else if (cmd == "schemes") {
            Args a(rest, schemesOptions(), "for schemes (known: --json)");
            status = runSchemes(a, out);
        } else if (cmd == "presets") {
            Args a(rest, presetsOptions(), "for presets (known: --json, --config FILE)");
            status = runPresets(a, out);
        } else if (cmd == "compute") {
            status = runCompute(rest, out, err);
        } else if (cmd == "lessons") {
            Args a(rest, lessonsOptions(), "for lessons (known: --json, --check, --lesson N)");
            status = runLessons(a, out, err);
        } else if (cmd == "bench") {
            Args a(rest, benchOptions(), "for bench (known: --json, --large)");
            status = runBench(a, out, hooks);
        } else if (cmd == "train") {
            status = runTrainCommand(rest, out, err);
        } else if (cmd == "train-bench") {
            status = runTrainBenchCommand(rest, out, err);
        } else {
            throw InputError("unknown command '" + cmd
                             + "'; commands: schemes, presets, lessons, compute, export, bench, train, "
                               "train-bench (see poslab --help)");
        }
        finishOutput(out);
        return status;
    } catch (const core::InputError& e) {
        err << "poslab: " << messageLine(e.what()) << "\n";
        return exitUsage;
    } catch (const core::RefusedError& e) {
        err << "poslab: " << messageLine(e.what()) << "\n";
        return exitRefused;
    } catch (const std::bad_alloc&) {
        err << "poslab: out of memory; ask for a smaller table\n";
        return exitRefused;
    }
}

} // namespace poslab::app
