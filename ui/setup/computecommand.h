// SPDX-License-Identifier: MIT
#pragma once
/// @file computecommand.h
/// The words of `poslab compute ...` turned into a core::ComputeRequest, by the one parser that the command
/// line, the lesson engine (a lesson's probe is a compute line) and the window share. Also the option walker
/// every command of the command line uses (Args, OptionSpec) and a shell-like splitter for a compute line
/// written as one string. Qt Core only (a --preset or --config brings a model's state, ui/setup/presets.h).

#include "core/compute.h"
#include "core/io/writers.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace poslab::ui {

/// One option a command declares: its name, an optional short alias, and whether a value follows. Each
/// command lists its options in one table (computeOptions(), exportOptions(), ...) that its parser, its
/// cursor and the tests read.
struct OptionSpec {
    const char* name;            ///< "--dim"
    bool takesValue = true;      ///< false for flags such as --softmax
    const char* alias = nullptr; ///< "-o" for "--output", "-h" for "--help"
    const char* example = "";    ///< a value the option accepts (the tests give it in both spellings)
};

/// Walks the words of a command line as GNU and Qt's QCommandLineParser do: `--opt value` and `--opt=value`
/// are the same, and "--" ends the options (every later word is an operand). @c items and @c options must
/// outlive the cursor.
class Args {
public:
    /// @p unknownHint ends the message for an option @p options does not declare ("for compute; see
    /// poslab --help" gives "unknown option '--frob' for compute; see poslab --help").
    Args(const std::vector<std::string>& items, const std::vector<OptionSpec>& options, std::string unknownHint);
    /// True when no word is left (a final "--" ends the options and leaves none).
    bool done() const
    {
        return m_at >= m_items.size() || (!m_endOfOptions && m_at + 1 == m_items.size() && m_items[m_at] == "--");
    }
    /// The next word: a declared option's name as written ("-o", or "--dim" from "--dim=8" with "8" kept for
    /// value()), or an operand (isOperand()). Throws core::InputError for an
    /// undeclared option and for a value given to a flag ("--softmax=1").
    std::string next();
    /// True when the word next() returned last is an operand: it does not start with '-', is "-" itself,
    /// or comes after "--".
    bool isOperand() const { return m_operand; }
    /// The option's value: the text after '=' or the next word; throws core::InputError "option X needs a
    /// value" at the end.
    std::string value(const std::string& option);

private:
    const std::vector<std::string>& m_items;
    const std::vector<OptionSpec>& m_options;
    std::string m_unknownHint;
    std::size_t m_at = 0;
    std::optional<std::string> m_inline;
    bool m_operand = false;
    bool m_endOfOptions = false;
};

/// An integer option value within [min, max]. Throws core::InputError naming the option and the range.
long long parseIntegerOption(const std::string& option, const std::string& text, long long min, long long max);
/// A finite real option value. Throws core::InputError naming the option.
double parseNumberOption(const std::string& option, const std::string& text);

/// The options of `poslab compute`, in the order its help lists them.
const std::vector<OptionSpec>& computeOptions();

/// What a compute command line asks for.
struct ComputeCommand {
    core::ComputeRequest request;
    core::Limits limits;                                  ///< --max-memory (the work limit is core's default)
    core::OutputFormat format = core::OutputFormat::Json; ///< --format, else from -o's extension, else JSON
    bool formatGiven = false;                             ///< --format was given
    std::string output;                                   ///< -o FILE; empty or "-" for standard output
    bool help = false;                                    ///< -h/--help met: nothing else was read after it
    bool version = false;                                 ///< --version met: nothing else was read after it
};

/// Parses the words after "compute" (@p args: "encoding", "--scheme", "rope", ...) exactly as
/// `poslab compute` does, including --preset/--config (a model's scheme, keys, head dim and heads; explicit
/// --set, --dim and --heads win) and the checks that refuse an option of another quantity. Stops at
/// -h/--help or --version (help or version set, the rest unread). @p warn, when given, receives each
/// "(not mapped)" notice of a config.json, in the words the command line prints after "poslab: warning: ".
/// Throws core::InputError with one line naming the problem.
ComputeCommand parseComputeCommand(const std::vector<std::string>& args,
                                   const std::function<void(const std::string&)>& warn = {});

/// Splits @p line into words as a POSIX shell does, without expansions: white space separates words,
/// '...' keeps everything literally, "..." keeps everything but \" and \\ (which lose their backslash), and a
/// backslash outside quotes keeps the next character. `scores --content "the cat sat"` gives three words.
/// Throws core::InputError for an unterminated quote or a trailing backslash.
std::vector<std::string> splitCommandLine(const std::string& line);

} // namespace poslab::ui
