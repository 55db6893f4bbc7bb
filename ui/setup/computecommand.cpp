// SPDX-License-Identifier: MIT
#include "ui/setup/computecommand.h"

#include "core/encodingregistry.h"
#include "core/errors.h"
#include "ui/setup/presets.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>

namespace poslab::ui {

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

} // namespace

Args::Args(const std::vector<std::string>& items, const std::vector<OptionSpec>& options, std::string unknownHint)
    : m_items(items)
    , m_options(options)
    , m_unknownHint(std::move(unknownHint))
{ }

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
        {"--grid", true, nullptr, "4x6"},
        {"--sequence", true, nullptr, "text:3,image:1x2x2"},
        {"--cls", false},
        {"--help", false, "-h"},
        {"--version", false},
    };
    return options;
}

namespace {

/// What the words of a compute command gave, before the model is applied and the options are checked
/// against the quantity.
struct Given {
    explicit Given(ComputeCommand& c)
        : command(c)
        , req(c.request)
    { }
    ComputeCommand& command;
    core::ComputeRequest& req;
    bool haveQuantity = false;
    std::optional<core::OutputFormat> format;
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
    bool dimFromModel = false; ///< a model's head dimension (applyModel)
    bool shuffle = false;
    bool maskGiven = false;
    bool formatGiven = false;
};

/// One option's reader: takes its value from @p a (if it has one) into @p g.
using OptionHandler = void (*)(Given& g, Args& a, const std::string& opt);

/// The readers of the options that take part in the request (--help and --version end the reading instead).
const std::vector<std::pair<std::string, OptionHandler>>& optionHandlers()
{
    using G = Given;
    using S = const std::string&;
    static const std::vector<std::pair<std::string, OptionHandler>> handlers = {
        {"--scheme",
         [](G& g, Args& a, S o) {
             g.req.scheme = a.value(o);
             g.haveScheme = true;
         }},
        // resolved by core::resolveParams
        {"--set", [](G& g, Args& a, S o) { g.req.overrides.push_back(core::splitSetting(a.value(o))); }},
        {"--preset", [](G& g, Args& a, S o) { g.preset = a.value(o); }},
        {"--config", [](G& g, Args& a, S o) { g.config = a.value(o); }},
        {"--dim",
         [](G& g, Args& a, S o) {
             g.req.context.dim = int(parseIntegerOption(o, a.value(o), 1, 65536));
             g.dimGiven = true;
         }},
        {"--positions",
         [](G& g, Args& a, S o) {
             g.positions = a.value(o);
             g.positionsGiven = g.positions;
         }},
        {"--vector", [](G& g, Args& a, S o) { g.req.vector = parseVector(a.value(o)); }},
        {"--seq-len",
         [](G& g, Args& a, S o) { g.req.context.seqLen = parseIntegerOption(o, a.value(o), 1, core::maxPosition); }},
        {"--trained-length",
         [](G& g, Args& a, S o) { g.req.trainedLength = parseIntegerOption(o, a.value(o), 1, core::maxPosition); }},
        {"--format",
         [](G& g, Args& a, S o) {
             g.format = core::parseOutputFormat(a.value(o));
             g.formatGiven = true;
         }},
        {"-o", [](G& g, Args& a, S o) { g.command.output = a.value(o); }},
        {"--output", [](G& g, Args& a, S o) { g.command.output = a.value(o); }},
        {"--max-memory", [](G& g, Args& a, S o) { g.command.limits.maxBytes = parseBytes(a.value(o)); }},
        {"--keys", [](G& g, Args& a, S o) { g.keys = a.value(o); }},
        {"--heads",
         [](G& g, Args& a, S o) {
             const std::string v = a.value(o);
             g.req.heads = int(parseIntegerOption(o, v, 1, core::maxHeads));
             g.headsGiven = true;
         }},
        {"--seed",
         [](G& g, Args& a, S o) { g.seed = std::uint64_t(parseIntegerOption(o, a.value(o), 0, (1ll << 53))); }},
        {"--content", [](G& g, Args& a, S o) { g.contentGiven = a.value(o); }},
        {"--samples",
         [](G& g, Args& a, S o) { g.samples = int(parseIntegerOption(o, a.value(o), 1, core::maxDecaySamples)); }},
        {"--angles", [](G& g, Args& a, S o) { g.anglesGiven = a.value(o); }},
        {"--normalise", [](G& g, Args& a, S o) { g.normaliseGiven = a.value(o); }},
        {"--softmax", [](G& g, Args&, S) { g.req.softmax = true; }},
        {"--shuffle", [](G& g, Args&, S) { g.shuffle = true; }},
        {"--term", [](G& g, Args& a, S o) { g.req.term = a.value(o); }},
        {"--drope", [](G& g, Args&, S) { g.req.drope = true; }},
        {"--mask",
         [](G& g, Args& a, S o) {
             g.req.mask = core::parseMask(a.value(o));
             g.maskGiven = true;
         }},
        {"--dtype", [](G& g, Args& a, S o) { g.req.dtype = core::parseFloatFormat(a.value(o)); }},
        {"--grid", [](G& g, Args& a, S o) { g.req.grid = core::parseGrid(a.value(o)); }},
        {"--sequence", [](G& g, Args& a, S o) { g.req.sequence = core::parseSequence(a.value(o)); }},
        {"--cls", [](G& g, Args&, S) { g.req.cls = true; }},
    };
    return handlers;
}

/// Reads every word into @p g; false when --help or --version ended the reading (the command says which).
bool readWords(const std::vector<std::string>& args, Given& g)
{
    Args a(args, computeOptions(), "for compute; see poslab --help");
    std::vector<std::string> seen; // options given so far (-o as --output): each but --set once
    while (!a.done()) {
        const std::string opt = a.next();
        if (a.isOperand()) {
            if (g.haveQuantity)
                throw InputError("unexpected argument '" + opt + "' (the quantity is already "
                                 + std::string(core::quantityName(g.req.quantity)) + ")");
            g.req.quantity = core::parseQuantity(opt);
            g.haveQuantity = true;
            continue;
        }
        if (opt == "--help" || opt == "-h") {
            g.command.help = true;
            return false;
        }
        if (opt == "--version") {
            g.command.version = true;
            return false;
        }
        // A second --dim (--scheme, --preset, ...) is a mistake to report, as a key set twice is (the last used to
        // win silently); only --set adds to the earlier ones.
        const std::string name = opt == "-o" ? "--output" : opt;
        if (name != "--set") {
            if (std::find(seen.begin(), seen.end(), name) != seen.end())
                throw InputError("option " + name + " is given twice; give it once");
            seen.push_back(name);
        }
        const auto& handlers = optionHandlers();
        const auto h = std::find_if(handlers.begin(), handlers.end(), [&](const auto& e) { return e.first == opt; });
        if (h == handlers.end())
            throw InputError("unknown option '" + opt + "' for compute; see poslab --help");
        h->second(g, a, opt);
    }
    return true;
}

/// A model (--preset NAME or --config FILE) brings its scheme, keys, head dim and heads; explicit --set,
/// --dim and --heads win, and a different --scheme is refused.
void applyModel(Given& g, const std::function<void(const std::string&)>& warn)
{
    core::ComputeRequest& req = g.req;
    QStringList notices;
    if (const auto state = ui::modelState(g.preset, g.config, {}, &notices)) {
        for (const QString& n : notices)
            if (warn)
                warn(n.toStdString() + " (not mapped)");
        const ui::StateSetup model = ui::stateSetup(*state);
        ui::applyModelSetup(model, req.scheme, g.haveScheme, req.overrides);
        g.haveScheme = true;
        if (model.dim && !g.dimGiven) {
            req.context.dim = *model.dim;
            g.dimFromModel = true;
        }
        // Heads matter to bias, scores and decay only (compute refuses --heads elsewhere).
        const bool perHead = req.quantity == core::Quantity::Bias || req.quantity == core::Quantity::Scores
            || req.quantity == core::Quantity::Decay;
        if (model.heads && !g.headsGiven && perHead)
            req.heads = *model.heads;
        // A vision model's trained patch grid is the default --grid of its grid scheme (an explicit --grid wins).
        if (const core::SpatialSchemeDescriptor* s = core::findSpatialScheme(req.scheme);
            model.grid && !req.grid && s && s->input == core::SpatialInput::Grid)
            req.grid = model.grid;
        // The extension table's trained window, for models whose parameters name none (Llama 2's 4096).
        if (req.quantity == core::Quantity::Extension && !req.trainedLength && model.model.contains("trained_length"))
            req.trainedLength = model.model.value("trained_length").toInteger();
        // ... and its inference length: the model's context, as the extension view takes it (--seq-len wins).
        if (req.quantity == core::Quantity::Extension && !req.context.seqLen
            && model.model.value("context_length").toInteger() > 0)
            req.context.seqLen = model.model.value("context_length").toInteger();
    }
}

/// Options of other quantities are refused, never ignored: each names where it applies.
void refuseOtherQuantities(const Given& g)
{
    const auto onlyFor = [&](bool given, std::initializer_list<core::Quantity> where, const char* option) {
        if (!given || std::find(where.begin(), where.end(), g.req.quantity) != where.end())
            return;
        std::string names;
        for (core::Quantity q : where)
            names += (names.empty() ? "" : ", ") + std::string(core::quantityName(q));
        throw InputError(std::string(option) + " applies to " + names + " only, not to "
                         + std::string(core::quantityName(g.req.quantity)));
    };
    onlyFor(g.maskGiven, {core::Quantity::Bias, core::Quantity::Buckets, core::Quantity::Scores}, "--mask");
    onlyFor(g.contentGiven.has_value(), {core::Quantity::Scores, core::Quantity::Decay}, "--content");
    onlyFor(g.shuffle, {core::Quantity::Scores, core::Quantity::Decay}, "--shuffle");
    onlyFor(g.req.drope, {core::Quantity::Scores}, "--drope");
    onlyFor(g.seed != 0, {core::Quantity::Scores, core::Quantity::Decay}, "--seed");
    onlyFor(!g.req.term.empty(), {core::Quantity::Scores}, "--term");
}

/// The content, angle form, decay sampling, positions and keys into the request.
void readContentAndPositions(Given& g)
{
    core::ComputeRequest& req = g.req;
    // Decay's content model defaults to ones (q = k = 1), as the decay view draws it; scores to random.
    const bool decay = req.quantity == core::Quantity::Decay;
    req.content = core::parseContent(g.contentGiven ? *g.contentGiven : decay ? "constant" : "random", g.seed);
    if (g.anglesGiven) {
        if (req.quantity != core::Quantity::Angles)
            throw InputError("--angles applies to compute angles only");
        req.angles = core::parseAngleForm(*g.anglesGiven);
    }
    if ((g.samples || g.normaliseGiven) && !decay)
        throw InputError(std::string(g.samples ? "--samples" : "--normalise") + " applies to compute decay only");
    if (g.samples && req.content.kind == core::ContentKind::Constant)
        throw InputError("--samples averages random or sentence content; ones (constant) content has one vector");
    if (g.samples)
        req.samples = *g.samples;
    if (g.normaliseGiven)
        req.normalisation = core::parseDecayNormalisation(*g.normaliseGiven);
    // A sentence sets the default positions: one per word.
    if (!g.positionsGiven && req.content.kind == core::ContentKind::Sentence)
        g.positions = "0:" + std::to_string(core::sentenceWords(req.content).size());
    req.context.positions = core::PositionList::parse(g.positions);
    if (g.keys) {
        try {
            req.keys = core::PositionList::parse(*g.keys);
        } catch (const InputError& e) {
            throw InputError(std::string("--keys: ") + e.what());
        }
    }
    if (g.shuffle && req.content.kind != core::ContentKind::Sentence)
        throw InputError("--shuffle permutes the words of a sentence; give --content \"some words\"");
    req.content.shuffle = g.shuffle;
}

/// --seq-len is refused where nothing reads it: additive tables, and, for a scheme named by --scheme, frequencies
/// that do not depend on the sequence length (only dynamic NTK, LongRoPE and xPos's centring do: RotarySpec::seqLen).
/// With a model (--preset, --config) the frequencies take it whatever its rope type: "this model's frequencies at
/// length L" is a fair question of any model, and Hugging Face's rope functions take seq_len for every rope type
/// (modeling_rope_utils.py _compute_*_parameters(config, device, seq_len)); it changes only the dynamic ones.
void refuseUnreadSeqLen(const core::ComputeRequest& req, bool model)
{
    if (!req.context.seqLen
        || (req.quantity != core::Quantity::Encoding && req.quantity != core::Quantity::Frequencies))
        return;
    const core::SchemeDescriptor& s = core::schemeOrThrow(req.scheme);
    const bool frequencies = req.quantity == core::Quantity::Frequencies && s.rotary;
    if (frequencies && model)
        return;
    const bool reads
        = frequencies && s.rotary(core::resolveParams(s, req.overrides, req.context), req.context).seqLen > 0;
    if (!reads)
        throw InputError("--seq-len changes nothing in " + std::string(core::quantityName(req.quantity)) + " of " + s.id
                         + (s.rotary ? " with these parameters" : "")
                         + "; only dynamic NTK and LongRoPE (rope_type dynamic, longrope) and xPos's centring "
                           "depend on the sequence length");
}

/// The output format: --format (which must agree with -o's extension), else -o's extension, else JSON.
core::OutputFormat outputFormat(std::optional<core::OutputFormat> format, const std::string& output)
{
    if (format && !output.empty() && output != "-") {
        // --format npy -o m.json wrote NumPy bytes into a .json file.
        const std::string ext = std::filesystem::path(output).extension().string();
        const char* want = *format == core::OutputFormat::Json ? ".json"
            : *format == core::OutputFormat::Csv               ? ".csv"
                                                               : ".npy";
        if ((ext == ".json" || ext == ".csv" || ext == ".npy") && ext != want)
            throw InputError("--format " + std::string(want + 1) + " does not match the extension of " + output
                             + "; name the file " + want + " or drop --format");
    }
    if (format)
        return *format;
    const std::string ext = std::filesystem::path(output).extension().string();
    if (output.empty() || ext == ".json")
        return core::OutputFormat::Json;
    if (ext == ".csv")
        return core::OutputFormat::Csv;
    if (ext == ".npy")
        return core::OutputFormat::Npy;
    throw InputError("cannot tell the format of " + output
                     + " from its extension; use .json, .csv or .npy, "
                       "or give --format");
}

} // namespace

ComputeCommand parseComputeCommand(const std::vector<std::string>& args,
                                   const std::function<void(const std::string&)>& warn)
{
    ComputeCommand command;
    Given g(command);
    if (!readWords(args, g))
        return command;
    if (!g.haveQuantity)
        throw InputError("compute needs a QUANTITY, e.g. poslab compute encoding --scheme sinusoidal");
    applyModel(g, warn);
    if (!g.haveScheme)
        throw InputError("compute needs --scheme ID (see poslab schemes), --preset NAME or --config FILE");
    g.req.maskGiven = g.maskGiven;
    // No --dim and no model's: the dimension the scheme's defaults fit (mrope's sections need d = 128), not 64.
    if (const core::SpatialSchemeDescriptor* spatial = core::findSpatialScheme(g.req.scheme);
        spatial && spatial->defaultDim > 0 && !g.dimGiven && !g.dimFromModel)
        g.req.context.dim = spatial->defaultDim;
    // Grid and sequence schemes take their tokens from --grid or --sequence, not from --positions.
    if (const core::SpatialSchemeDescriptor* spatial = core::findSpatialScheme(g.req.scheme);
        spatial && g.positionsGiven)
        throw InputError(
            "--positions does not apply to " + g.req.scheme + "; its tokens come from "
            + (spatial->input == core::SpatialInput::Grid ? "--grid HxW" : "--sequence text:N,image:TxHxW,..."));
    refuseOtherQuantities(g);
    readContentAndPositions(g);
    refuseUnreadSeqLen(g.req, g.preset.has_value() || g.config.has_value());
    command.format = outputFormat(g.format, command.output);
    command.formatGiven = g.formatGiven;
    return command;
}

std::vector<std::string> splitCommandLine(const std::string& line)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (inWord)
                words.push_back(std::move(word));
            word.clear();
            inWord = false;
        } else if (c == '\'') {
            const std::size_t close = line.find('\'', i + 1);
            if (close == std::string::npos)
                throw InputError("unterminated ' quote in '" + line + "'");
            word += line.substr(i + 1, close - i - 1);
            inWord = true;
            i = close;
        } else if (c == '"') {
            std::size_t j = i + 1;
            for (; j < line.size() && line[j] != '"'; ++j) {
                if (line[j] == '\\' && j + 1 < line.size() && (line[j + 1] == '"' || line[j + 1] == '\\'))
                    ++j;
                word += line[j];
            }
            if (j >= line.size())
                throw InputError("unterminated \" quote in '" + line + "'");
            inWord = true;
            i = j;
        } else if (c == '\\') {
            if (i + 1 >= line.size())
                throw InputError("a backslash ends '" + line + "'; nothing follows it to keep");
            word += line[++i];
            inWord = true;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        words.push_back(std::move(word));
    return words;
}

} // namespace poslab::ui
