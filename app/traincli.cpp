// SPDX-License-Identifier: MIT
#include "app/traincli.h"

#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/io/outputfile.h"
#include "core/train/model.h"
#include "core/train/trainer.h"

#include <chrono>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <thread>

namespace poslab::app {

using core::InputError;
namespace tr = core::train;

namespace {

/// The schemes the trainer accepts, in the registry's order: "nope, sinusoidal, ...".
std::string trainableList()
{
    std::string out;
    for (const std::string& id : tr::trainableSchemes())
        out += (out.empty() ? "" : ", ") + id;
    return out;
}

/// @p text in lines of at most @p width characters, each after @p indent spaces (the help's right column).
std::string wrapped(const std::string& text, std::size_t indent, std::size_t width)
{
    std::istringstream words(text);
    std::string out, line, word;
    while (words >> word) {
        if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
            out += std::string(indent, ' ') + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty())
        out += std::string(indent, ' ') + line + "\n";
    return out;
}

std::vector<std::string> splitList(const std::string& text, const std::string& option)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty())
            throw InputError(option + " '" + text + "' has an empty item");
        out.push_back(item);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

int defaultThreads()
{
    return int(std::max(1u, std::min(8u, std::thread::hardware_concurrency())));
}

/// Options shared by train and train-bench; returns false when @p opt is not one of them.
bool commonOption(Args& a, const std::string& opt, tr::TrainConfig& c)
{
    auto integer = [&](long long lo, long long hi) { return int(parseIntegerOption(opt, a.value(opt), lo, hi)); };
    if (opt == "--set")
        c.overrides.push_back(core::splitSetting(a.value(opt)));
    else if (opt == "--test-set")
        c.testOverrides.push_back(core::splitSetting(a.value(opt), "--test-set"));
    else if (opt == "--task")
        c.task = tr::parseTask(a.value(opt));
    else if (opt == "--train-len")
        c.trainLen = integer(1, 4096);
    else if (opt == "--test-lens")
        c.testLens = tr::parseLengths(a.value(opt));
    else if (opt == "--steps")
        c.steps = integer(0, 100000000);
    else if (opt == "--seconds") {
        c.seconds = parseNumberOption(opt, a.value(opt));
        if (!(c.seconds > 0.0))
            throw InputError("--seconds must be positive");
    } else if (opt == "--layers")
        c.layers = integer(1, 4);
    else if (opt == "--width")
        c.width = integer(8, 256);
    else if (opt == "--heads")
        c.heads = integer(1, 8);
    else if (opt == "--batch")
        c.batch = integer(1, 4096);
    else if (opt == "--vocab")
        c.vocab = integer(2, 1000);
    else if (opt == "--lr") {
        c.lr = parseNumberOption(opt, a.value(opt));
        if (!(c.lr > 0.0))
            throw InputError("--lr must be positive");
    } else if (opt == "--lr-schedule") {
        const std::string v = a.value(opt);
        if (v != "constant" && v != "cosine")
            throw InputError("--lr-schedule '" + v + "' is not constant or cosine");
        c.cosineDecay = v == "cosine";
    } else if (opt == "--mlp") {
        const std::string v = a.value(opt);
        if (v != "gelu" && v != "relu")
            throw InputError("--mlp '" + v + "' is not gelu or relu");
        c.gelu = v == "gelu";
    } else if (opt == "--tied")
        c.tied = true;
    else if (opt == "--eval-samples")
        c.evalSamples = integer(1, 1000000);
    else if (opt == "--eval-every")
        c.evalEvery = integer(0, 100000000);
    else if (opt == "--threads")
        c.threads = integer(1, 256);
    else
        return false;
    return true;
}

void progressLine(std::ostream& err, const std::string& label, const tr::Progress& p)
{
    char line[256];
    std::snprintf(line, sizeof line, "poslab: train %s step %d/%d  %.1f s  loss %.4f", label.c_str(), p.step, p.steps,
                  p.seconds, p.loss);
    err << line;
    if (p.exactAtTrain) {
        std::snprintf(line, sizeof line, "  exact match at the trained length %.1f%%", 100.0 * *p.exactAtTrain);
        err << line;
    }
    err << "\n";
    err.flush();
}

} // namespace

const std::vector<OptionSpec>& trainOptions()
{
    static const std::vector<OptionSpec> options = {
        {"--scheme", true, nullptr, "nope"},
        {"--set", true, nullptr, "seed=1"},
        {"--test-set", true, nullptr, "seed=2"},
        {"--task", true, nullptr, "reverse"},
        {"--train-len", true, nullptr, "3"},
        {"--test-lens", true, nullptr, "2,4"},
        {"--steps", true, nullptr, "2"},
        {"--seconds", true, nullptr, "30"},
        {"--seed", true, nullptr, "5"},
        {"--layers", true, nullptr, "1"},
        {"--width", true, nullptr, "16"},
        {"--heads", true, nullptr, "2"},
        {"--batch", true, nullptr, "4"},
        {"--lr", true, nullptr, "0.001"},
        {"--lr-schedule", true, nullptr, "cosine"},
        {"--vocab", true, nullptr, "5"},
        {"--mlp", true, nullptr, "relu"},
        {"--tied", false},
        {"--eval-samples", true, nullptr, "3"},
        {"--eval-every", true, nullptr, "1"},
        {"--threads", true, nullptr, "1"},
        {"--output", true, "-o", "-"},
        {"--quiet", false},
        {"--help", false, "-h"},
        {"--version", false},
    };
    return options;
}

const std::vector<OptionSpec>& trainBenchOptions()
{
    static const std::vector<OptionSpec> options = {
        {"--scheme", true, nullptr, "rope,alibi"},
        {"--seconds", true, nullptr, "60"},
        {"--seed", true, nullptr, "1"},
        {"--threads", true, nullptr, "2"},
        {"--json", false},
        {"--help", false, "-h"},
        {"--version", false},
    };
    return options;
}

int runTrainCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    Args a(args, trainOptions(), "for train; see poslab --help");
    tr::TrainConfig c;
    c.threads = defaultThreads();
    std::vector<std::string> schemes;
    std::vector<std::uint64_t> seeds;
    std::string output;
    bool quiet = false;
    std::vector<std::string> seen; // each option but --set and --test-set once (-o as --output), as compute takes them
    while (!a.done()) {
        const std::string opt = a.next();
        if (a.isOperand())
            throw InputError("unexpected argument '" + opt + "' for train");
        const std::string name = opt == "-o" ? "--output" : opt;
        if (name != "--set" && name != "--test-set") {
            if (std::find(seen.begin(), seen.end(), name) != seen.end())
                throw InputError("option " + name
                                 + " is given twice; give it once (--scheme and --seed take lists: "
                                   "a,b)");
            seen.push_back(name);
        }
        if (opt == "--help" || opt == "-h") {
            out << trainUsage();
            return exitOk;
        }
        if (opt == "--version") {
            out << versionText();
            return exitOk;
        }
        if (opt == "--scheme")
            schemes = splitList(a.value(opt), opt);
        else if (opt == "--seed") {
            seeds.clear();
            for (const std::string& s : splitList(a.value(opt), opt))
                seeds.push_back(std::uint64_t(parseIntegerOption(opt, s, 0, (1ll << 53))));
        } else if (opt == "--output" || opt == "-o")
            output = a.value(opt);
        else if (opt == "--quiet")
            quiet = true;
        else if (!commonOption(a, opt, c))
            throw InputError("unknown option '" + opt + "' for train");
    }
    if (schemes.empty())
        throw InputError("train needs --scheme ID (trainable: " + trainableList() + ")");
    if (seeds.empty())
        seeds.push_back(1);
    if (c.testLens.empty())
        for (int k = 1; k <= 8; ++k)
            c.testLens.push_back(k * c.trainLen);
    // Every combination is checked before the first one trains.
    for (const std::string& s : schemes) {
        tr::TrainConfig ci = c;
        ci.scheme = s;
        tr::validate(ci);
    }
    const bool toFile = !output.empty() && output != "-";
    if (toFile) // before the training, not after it
        core::checkOutputFile(output);
    std::vector<tr::RunResult> runs;
    for (const std::string& s : schemes)
        for (std::uint64_t seed : seeds) {
            tr::TrainConfig ci = c;
            ci.scheme = s;
            ci.seed = seed;
            const std::string label = s + " seed " + std::to_string(seed);
            tr::RunResult r = tr::trainRun(ci, [&](const tr::Progress& p) {
                if (!quiet)
                    progressLine(err, label, p);
            });
            if (r.diverged)
                err << "poslab: " << label << ": " << r.stop << "\n";
            runs.push_back(std::move(r));
        }
    if (!toFile)
        tr::writeRuns(out, runs);
    else
        core::writeOutputFile(output, [&](std::ostream& f) { tr::writeRuns(f, runs); });
    for (const auto& r : runs)
        if (r.diverged)
            return exitRefused;
    return exitOk;
}

int runTrainBenchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    Args a(args, trainBenchOptions(), "for train-bench; see poslab --help");
    std::vector<std::string> schemes = tr::trainableSchemes();
    double seconds = 60.0;
    std::uint64_t seed = 1;
    int threads = defaultThreads();
    bool json = false;
    while (!a.done()) {
        const std::string opt = a.next();
        if (a.isOperand())
            throw InputError("unexpected argument '" + opt + "' for train-bench");
        if (opt == "--help" || opt == "-h") {
            out << trainUsage();
            return exitOk;
        }
        if (opt == "--version") {
            out << versionText();
            return exitOk;
        }
        if (opt == "--scheme")
            schemes = splitList(a.value(opt), opt);
        else if (opt == "--seconds") {
            seconds = parseNumberOption(opt, a.value(opt));
            if (!(seconds > 0.0))
                throw InputError("--seconds must be positive");
        } else if (opt == "--seed")
            seed = std::uint64_t(parseIntegerOption(opt, a.value(opt), 0, (1ll << 53)));
        else if (opt == "--threads")
            threads = int(parseIntegerOption(opt, a.value(opt), 1, 256));
        else if (opt == "--json")
            json = true;
    }
    for (const std::string& s : schemes)
        tr::checkTrainable(s);
    std::vector<std::pair<std::string, std::optional<double>>> rows;
    for (const std::string& s : schemes) {
        tr::TrainConfig c; // the default task and size: copy, vocab 8, L_train 10, 2 x 64, 4 heads, batch 64
        c.scheme = s;
        c.seed = seed;
        c.threads = threads;
        c.steps = 100000000;
        c.cosineDecay = false; // no number of steps to anneal over: the constant rate until 95% or --seconds
        c.seconds = seconds;
        c.evalEvery = 25;
        c.stopAt95 = true;
        c.testLens = {c.trainLen};
        const tr::RunResult r = tr::trainRun(c, [&](const tr::Progress& p) {
            if (p.exactAtTrain)
                progressLine(err, s, p);
        });
        rows.push_back({s, r.secondsTo95});
    }
    if (json) {
        out << "{";
        for (std::size_t i = 0; i < rows.size(); ++i)
            out << (i ? "," : "") << "\n  \"train_seconds_to_95." << rows[i].first
                << "\": " << (rows[i].second ? std::to_string(*rows[i].second) : std::string("null"));
        out << "\n}\n";
    } else {
        for (const auto& [s, v] : rows) {
            char line[256];
            if (v)
                std::snprintf(line, sizeof line,
                              "train_seconds_to_95.%-12s %10.2f  s of training to 95%% exact match at L_train (copy, "
                              "default size)\n",
                              s.c_str(), *v);
            else
                std::snprintf(line, sizeof line, "train_seconds_to_95.%-12s %10s  not reached within %.0f s\n",
                              s.c_str(), "null", seconds);
            out << line;
        }
    }
    return exitOk;
}

core::BenchFigure trainStepBenchmark()
{
    tr::TrainConfig c; // default size: 2 layers, width 64, 4 heads, batch 64, copy, vocab 8, L_train 10
    c.scheme = "rope";
    c.steps = 30;
    c.evalEvery = 0;
    c.testLens = {c.trainLen};
    c.evalSamples = 1;
    c.threads = defaultThreads();
    const tr::RunResult r = tr::trainRun(c);
    return {"train_step_ms", r.stepMs,
            "ms per AdamW step, RoPE, 2 layers x width 64, 4 heads, batch 64, copy, vocab 8, L_train 10 (mean of 30)"};
}

std::string trainUsage()
{
    return R"(  poslab train --scheme ID[,ID...] [--set KEY=VALUE]... [--test-set KEY=VALUE]...
               --task copy|reverse|recall|addition --train-len L --test-lens SPEC
               --steps N | --seconds T  --seed S[,S...] [--layers 1-4] [--width W] [--heads H] [--batch B]
               [--lr LR] [--lr-schedule constant|cosine] [--vocab V] [--mlp gelu|relu] [--tied]
               [--eval-samples N] [--eval-every N] [--threads N] [--quiet] [-o run.json]
)"
        + wrapped("trains a tiny decoder-only transformer per scheme and seed (AdamW, loss on the answer tokens) and "
                  "writes loss and accuracy-against-length curves as JSON (open it in the window or `poslab export "
                  "lengthlab --run run.json`). Defaults: copy, L_train 10, test lengths 10,20,...,80, 4000 steps, 2 "
                  "layers, width 64, 4 heads, batch 64, lr 0.003 cosine (annealed to 0 over --steps; --lr-schedule "
                  "constant keeps it), vocab 8: RoPE and ALiBi reach 95% exact match at L_train (converged) within "
                  "it. --test-set applies at test time only (e.g. rope_type=linear,factor=2). Trainable: "
                      + trainableList()
                      + ". t5 leaves q.k unscaled by default, as T5 (--set logit_scale=inv_sqrt_d "
                        "divides by sqrt(d)); cope trains its position embeddings (npos_max rows per layer), shaw its "
                        "relative key table (2 max_relative_position + 1 rows per layer), transformer_xl u, v and W_R.",
                  33, 110)
        + R"(  poslab train-bench [--scheme ID,...] [--seconds T] [--seed S] [--json]
                                 train_seconds_to_95 per scheme at the default size (minutes; not in the tests)
)";
}

} // namespace poslab::app
