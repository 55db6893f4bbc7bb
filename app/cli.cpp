// SPDX-License-Identifier: MIT
#include "app/cli.h"

#include "app/atomicwrite.h"
#include "app/traincli.h"

#include "core/attention.h"
#include "core/bench.h"
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/io/writers.h"
#include "ui/presets.h"

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

std::vector<double> parseVector(const std::string& text)
{
    std::vector<double> v;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string::npos)
            comma = text.size();
        const std::string part = text.substr(start, comma - start);
        double x = 0;
        auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), x);
        if (part.empty() || ec != std::errc() || ptr != part.data() + part.size())
            throw InputError("--vector: element " + std::to_string(v.size() + 1) + " '" + part + "' is not a number");
        v.push_back(x);
        start = comma + 1;
    }
    return v;
}

std::size_t parseBytes(const std::string& text)
{
    std::size_t i = 0;
    while (i < text.size() && (std::isdigit((unsigned char)text[i]) || text[i] == '.'))
        ++i;
    double number = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + i, number);
    const std::string unit = text.substr(i);
    double mult = 0;
    if (unit.empty() || unit == "B")
        mult = 1;
    else if (unit == "KiB" || unit == "K")
        mult = 1024.0;
    else if (unit == "MiB" || unit == "M")
        mult = 1024.0 * 1024.0;
    else if (unit == "GiB" || unit == "G")
        mult = 1024.0 * 1024.0 * 1024.0;
    if (i == 0 || ec != std::errc() || ptr != text.data() + i || mult == 0 || number <= 0)
        throw InputError("--max-memory '" + text + "' is not a size (e.g. 512MiB, 4GiB, or bytes)");
    // Beyond 2^63 bytes the conversion to size_t overflowed (a 0-byte cap); below 1 byte it truncated to 0.
    if (!(number * mult >= 1.0 && number * mult <= 9.2e18))
        throw InputError("--max-memory '" + text + "' is out of range; give 1 byte to 8 EiB (e.g. 512MiB, 4GiB)");
    return std::size_t(number * mult);
}

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

int runCompute(Args& a, std::ostream& out, std::ostream& err)
{
    core::ComputeRequest req;
    bool haveQuantity = false;
    std::optional<core::OutputFormat> format;
    std::string output;
    core::Limits limits;
    bool haveScheme = false;
    std::optional<std::string> positionsGiven;
    std::string positions = "0:64";
    std::optional<std::string> keys;
    std::uint64_t seed = 0;
    std::optional<std::string> contentGiven;
    std::optional<int> samples;
    std::optional<std::string> anglesGiven;
    std::optional<std::string> normaliseGiven;
    std::optional<std::string> preset, config;
    bool dimGiven = false, headsGiven = false;
    bool shuffle = false;
    bool maskGiven = false;
    while (!a.done()) {
        const std::string opt = a.next();
        if (a.isOperand()) {
            if (haveQuantity)
                throw InputError("unexpected argument '" + opt + "' (the quantity is already "
                                 + std::string(core::quantityName(req.quantity)) + ")");
            req.quantity = core::parseQuantity(opt);
            haveQuantity = true;
        } else if (opt == "--help" || opt == "-h") {
            out << usage();
            return exitOk;
        } else if (opt == "--version") {
            out << versionText();
            return exitOk;
        } else if (opt == "--scheme") {
            req.scheme = a.value(opt);
            haveScheme = true;
        } else if (opt == "--set") {
            req.overrides.push_back(core::splitSetting(a.value(opt))); // resolved by core::resolveParams
        } else if (opt == "--preset") {
            preset = a.value(opt);
        } else if (opt == "--config") {
            config = a.value(opt);
        } else if (opt == "--dim") {
            req.context.dim = int(parseIntegerOption(opt, a.value(opt), 1, 65536));
            dimGiven = true;
        } else if (opt == "--positions") {
            positions = a.value(opt);
            positionsGiven = positions;
        } else if (opt == "--vector") {
            req.vector = parseVector(a.value(opt));
        } else if (opt == "--seq-len") {
            req.context.seqLen = parseIntegerOption(opt, a.value(opt), 1, core::maxPosition);
        } else if (opt == "--trained-length") {
            req.trainedLength = parseIntegerOption(opt, a.value(opt), 1, core::maxPosition);
        } else if (opt == "--format") {
            format = core::parseOutputFormat(a.value(opt));
        } else if (opt == "-o" || opt == "--output") {
            output = a.value(opt);
        } else if (opt == "--max-memory") {
            limits.maxBytes = parseBytes(a.value(opt));
        } else if (opt == "--keys") {
            keys = a.value(opt);
        } else if (opt == "--heads") {
            const std::string v = a.value(opt);
            req.heads = int(parseIntegerOption(opt, v, 1, core::maxHeads));
            headsGiven = true;
        } else if (opt == "--seed") {
            seed = std::uint64_t(parseIntegerOption(opt, a.value(opt), 0, (1ll << 53)));
        } else if (opt == "--content") {
            contentGiven = a.value(opt);
        } else if (opt == "--samples") {
            samples = int(parseIntegerOption(opt, a.value(opt), 1, core::maxDecaySamples));
        } else if (opt == "--angles") {
            anglesGiven = a.value(opt);
        } else if (opt == "--normalise") {
            normaliseGiven = a.value(opt);
        } else if (opt == "--softmax") {
            req.softmax = true;
        } else if (opt == "--shuffle") {
            shuffle = true;
        } else if (opt == "--term") {
            req.term = a.value(opt);
        } else if (opt == "--drope") {
            req.drope = true;
        } else if (opt == "--mask") {
            req.mask = core::parseMask(a.value(opt));
            maskGiven = true;
        } else if (opt == "--dtype") {
            req.dtype = core::parseFloatFormat(a.value(opt));
        } else {
            throw InputError("unknown option '" + opt + "' for compute; see poslab --help");
        }
    }
    if (!haveQuantity)
        throw InputError("compute needs a QUANTITY, e.g. poslab compute encoding --scheme sinusoidal");
    // A model (--preset NAME or --config FILE) brings its scheme, keys, head dim and heads; explicit --set,
    // --dim and --heads win, and a different --scheme is refused.
    QStringList notices;
    if (const auto state = ui::modelState(preset, config, {}, &notices)) {
        for (const QString& n : notices)
            err << "poslab: warning: " << n.toStdString() << " (not mapped)\n";
        const ui::StateSetup model = ui::stateSetup(*state);
        ui::applyModelSetup(model, req.scheme, haveScheme, req.overrides);
        haveScheme = true;
        if (model.dim && !dimGiven)
            req.context.dim = *model.dim;
        // Heads matter to bias, scores and decay only (compute refuses --heads elsewhere).
        const bool perHead = req.quantity == core::Quantity::Bias || req.quantity == core::Quantity::Scores
            || req.quantity == core::Quantity::Decay;
        if (model.heads && !headsGiven && perHead)
            req.heads = *model.heads;
        // The extension table's trained window, for models whose parameters name none (Llama 2's 4096).
        if (req.quantity == core::Quantity::Extension && !req.trainedLength && model.model.contains("trained_length"))
            req.trainedLength = model.model.value("trained_length").toInteger();
        // ... and its inference length: the model's context, as the extension view takes it (--seq-len wins).
        if (req.quantity == core::Quantity::Extension && !req.context.seqLen
            && model.model.value("context_length").toInteger() > 0)
            req.context.seqLen = model.model.value("context_length").toInteger();
    }
    if (!haveScheme)
        throw InputError("compute needs --scheme ID (see poslab schemes), --preset NAME or --config FILE");
    // Options of other quantities are refused, never ignored (issue 14): each names where it applies.
    const auto onlyFor = [&](bool given, std::initializer_list<core::Quantity> where, const char* option) {
        if (!given || std::find(where.begin(), where.end(), req.quantity) != where.end())
            return;
        std::string names;
        for (core::Quantity q : where)
            names += (names.empty() ? "" : ", ") + std::string(core::quantityName(q));
        throw InputError(std::string(option) + " applies to " + names + " only, not to "
                         + std::string(core::quantityName(req.quantity)));
    };
    onlyFor(maskGiven, {core::Quantity::Bias, core::Quantity::Buckets, core::Quantity::Scores}, "--mask");
    onlyFor(contentGiven.has_value(), {core::Quantity::Scores, core::Quantity::Decay}, "--content");
    onlyFor(shuffle, {core::Quantity::Scores, core::Quantity::Decay}, "--shuffle");
    onlyFor(req.drope, {core::Quantity::Scores}, "--drope");
    onlyFor(seed != 0, {core::Quantity::Scores, core::Quantity::Decay}, "--seed");
    // Decay's content model defaults to ones (q = k = 1), as the decay view draws it; scores to random.
    const bool decay = req.quantity == core::Quantity::Decay;
    req.content = core::parseContent(contentGiven ? *contentGiven : decay ? "constant" : "random", seed);
    if (anglesGiven) {
        if (req.quantity != core::Quantity::Angles)
            throw InputError("--angles applies to compute angles only");
        req.angles = core::parseAngleForm(*anglesGiven);
    }
    if ((samples || normaliseGiven) && !decay)
        throw InputError(std::string(samples ? "--samples" : "--normalise") + " applies to compute decay only");
    if (samples && req.content.kind == core::ContentKind::Constant)
        throw InputError("--samples averages random or sentence content; ones (constant) content has one vector");
    if (samples)
        req.samples = *samples;
    if (normaliseGiven)
        req.normalisation = core::parseDecayNormalisation(*normaliseGiven);
    // A sentence sets the default positions: one per word.
    if (!positionsGiven && req.content.kind == core::ContentKind::Sentence)
        positions = "0:" + std::to_string(core::sentenceWords(req.content).size());
    req.context.positions = core::PositionList::parse(positions);
    if (keys) {
        try {
            req.keys = core::PositionList::parse(*keys);
        } catch (const InputError& e) {
            throw InputError(std::string("--keys: ") + e.what());
        }
    }
    if (shuffle && req.content.kind != core::ContentKind::Sentence)
        throw InputError("--shuffle permutes the words of a sentence; give --content \"some words\"");
    req.content.shuffle = shuffle;
    if (format && !output.empty() && output != "-") {
        // --format npy -o m.json wrote NumPy bytes into a .json file.
        const std::string ext = std::filesystem::path(output).extension().string();
        const char* want = *format == core::OutputFormat::Json ? ".json" : *format == core::OutputFormat::Csv ? ".csv" : ".npy";
        if ((ext == ".json" || ext == ".csv" || ext == ".npy") && ext != want)
            throw InputError("--format " + std::string(want + 1) + " does not match the extension of " + output
                             + "; name the file " + want + " or drop --format");
    }
    if (!format) {
        const std::string ext = std::filesystem::path(output).extension().string();
        if (output.empty() || ext == ".json")
            format = core::OutputFormat::Json;
        else if (ext == ".csv")
            format = core::OutputFormat::Csv;
        else if (ext == ".npy")
            format = core::OutputFormat::Npy;
        else
            throw InputError("cannot tell the format of " + output + " from its extension; use .json, .csv or .npy, "
                             "or give --format");
    }
    const core::ComputeResult result = core::compute(req, limits);
    for (const std::string& w : result.warnings)
        err << "poslab: warning: " << w << "\n";
    if (output.empty() || output == "-")
        core::write(out, result, *format);
    else
        writeAtomically(output, [&](std::ostream& f) { core::write(f, result, *format); });
    return exitOk;
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

Args::Args(const std::vector<std::string>& items, const std::vector<OptionSpec>& options, std::string unknownHint)
    : m_items(items), m_options(options), m_unknownHint(std::move(unknownHint))
{
}

std::string Args::next()
{
    if (m_inline) // a parser that took no value from "--opt=value" (cannot happen for a declared flag)
        throw InputError("option takes no value: '=" + *m_inline + "'");
    const std::string& word = m_items[m_at++];
    m_operand = m_endOfOptions || word.empty() || word[0] != '-' || word == "-";
    if (m_operand)
        return word;
    if (word == "--") {
        m_endOfOptions = true; // done() said a word follows
        return next();
    }
    const std::size_t eq = word.find('=');
    const std::string name = word.substr(0, eq);
    for (const OptionSpec& o : m_options) {
        if (name != o.name && !(o.alias && name == o.alias))
            continue;
        if (eq != std::string::npos) {
            if (!o.takesValue)
                throw InputError("option " + std::string(o.name) + " takes no value (got '" + word + "')");
            m_inline = word.substr(eq + 1);
        }
        return name; // as written: "-o" stays "-o", so messages name what the user typed
    }
    throw InputError("unknown option '" + word + "' " + m_unknownHint);
}

std::string Args::value(const std::string& option)
{
    if (m_inline) {
        std::string v = std::move(*m_inline);
        m_inline.reset();
        return v;
    }
    if (done())
        throw InputError("option " + option + " needs a value");
    return m_items[m_at++];
}

long long parseIntegerOption(const std::string& option, const std::string& text, long long min, long long max)
{
    long long v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw InputError(option + " '" + text + "' is not an integer");
    if (v < min || v > max)
        throw InputError(option + " " + text + " is out of range; allowed: " + std::to_string(min) + " to "
                         + std::to_string(max));
    return v;
}

double parseNumberOption(const std::string& option, const std::string& text)
{
    double v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
        throw InputError(option + " '" + text + "' is not a number");
    return v;
}

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
  poslab export VIEW --scheme ID [--set KEY=VALUE]... [--size WxH] [--dpi N] [--theme light|dark|transparent]
                 -o FILE.svg|.png|.pdf|.gif|.csv|.json|.npy
                                 a figure of one view: table, clock, decay, rotation, attention,
                                 extension, buckets, precision (and more: poslab export --help)
                                 (poslab export --help lists every option)
  poslab export --batch FILE.json  many figures in one process
  poslab bench [--json] [--large] performance figures of this machine (--large: also the GPU sizes,
                                 a 65536 x 4096 table and 8192 x 8192 scores; minutes on software OpenGL)
  poslab --version               the version and the git revision it was built from
)" + trainUsage() + R"(

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

const std::vector<OptionSpec>& computeOptions()
{
    static const std::vector<OptionSpec> options = {
        {"--scheme", true, nullptr, "sinusoidal"},
        {"--preset", true, nullptr, "llama-3.1-8b"},
        {"--config", true, nullptr, "config.json"},
        {"--set", true, nullptr, "base=500"},
        {"--dim", true, nullptr, "6"},
        {"--positions", true, nullptr, "0:3"},
        {"--vector", true, nullptr, "1,2,3,4,5,6,7,8"},
        {"--seq-len", true, nullptr, "16"},
        {"--trained-length", true, nullptr, "8192"},
        {"--format", true, nullptr, "csv"},
        {"--output", true, "-o", "-"},
        {"--max-memory", true, nullptr, "100B"},
        {"--keys", true, nullptr, "0:2"},
        {"--heads", true, nullptr, "3"},
        {"--seed", true, nullptr, "7"},
        {"--content", true, nullptr, "a b c"},
        {"--samples", true, nullptr, "4"},
        {"--angles", true, nullptr, "reduced"},
        {"--normalise", true, nullptr, "at_zero"},
        {"--softmax", false},
        {"--shuffle", false},
        {"--term", true, nullptr, "c2p"},
        {"--drope", false},
        {"--mask", true, nullptr, "bidirectional"},
        {"--dtype", true, nullptr, "float16"},
        {"--help", false, "-h"},
        {"--version", false},
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
    Args a(args, windowOptions(), "for the window (the window takes --compute-path auto|cpu|gpu; see poslab --help for "
                                  "the commands)");
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
                continue;
            }
            throw InputError("unknown command '" + opt + "'; commands: schemes, presets, compute, export, bench (see poslab --help)");
        }
        if (opt == "--help" || opt == "-h")
            w.help = true;
        else if (opt == "--version")
            w.version = true;
        else if (opt == "--hide-panels")
            w.hidePanels = true;
        else if (opt == "--first-frame")
            w.firstFrame = true;
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
    const bool writeError = error == ENOSPC || error == EPIPE || error == EIO || error == EDQUOT || error == EFBIG
        || error == EBADF;
    throw core::RefusedError("writing " + what + " failed"
                             + (writeError ? ": " + std::string(std::strerror(error)) : std::string())
                             + "; the output is incomplete");
}

bool isHeadless(const std::vector<std::string>& args)
{
    if (args.empty())
        return false;
    const std::string& c = args[0];
    return c == "schemes" || c == "presets" || c == "compute" || c == "bench" || c == "export" || c == "train" || c == "train-bench" || c == "--help" || c == "-h" || c == "help"
        || c == "--version";
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
        out += c == '\n' || c == '\r' ? ' ' : c;
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
            Args a(rest, computeOptions(), "for compute; see poslab --help");
            status = runCompute(a, out, err);
        } else if (cmd == "bench") {
            Args a(rest, benchOptions(), "for bench (known: --json, --large)");
            status = runBench(a, out, hooks);
        } else if (cmd == "train") {
            status = runTrainCommand(rest, out, err);
        } else if (cmd == "train-bench") {
            status = runTrainBenchCommand(rest, out, err);
        } else {
            throw InputError("unknown command '" + cmd + "'; commands: schemes, presets, compute, export, bench, train, "
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
