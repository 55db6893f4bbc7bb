// SPDX-License-Identifier: MIT
#pragma once
/// @file cli.h
/// The headless command line: `poslab schemes`, `poslab compute`, `poslab bench`. It is a thin client of
/// core's services; the GUI uses the same ones.

#include "core/bench.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace poslab::app {

/// Exit statuses: 0 success, 1 refused computation, 2 usage error.
inline constexpr int exitOk = 0;
inline constexpr int exitRefused = 1;
inline constexpr int exitUsage = 2;

/// True when @c args (without the program name) name a headless subcommand or --help/--version.
bool isHeadless(const std::vector<std::string>& args);

/// What the GUI layer adds to the command line without core or the CLI depending on Qt.
struct CliHooks {
    /// Extra `poslab bench` figures (e.g. the workbench's frame times); called after the core figures.
    /// @c large is `bench --large`: also the sizes meant for a real GPU (65536 x 4096 table, 8192 x 8192
    /// scores), which software OpenGL takes minutes over.
    std::function<std::vector<core::BenchFigure>(bool large)> extraBenchmarks;
};

/// Runs a headless subcommand. Output goes to @c out (unless -o names a file), messages to @c err.
int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const CliHooks& hooks = {});

/// Walks the words of a command line: the next word, or an option's value with a clear message when it is
/// missing. @c items must outlive the cursor.
struct Args {
    const std::vector<std::string>& items;
    std::size_t at = 0;
    bool done() const { return at >= items.size(); }
    const std::string& next() { return items[at++]; }
    /// The word after @p option; throws core::InputError "option X needs a value" at the end.
    std::string value(const std::string& option);
};

/// An integer option value within [min, max]. Throws core::InputError naming the option and the range.
long long parseIntegerOption(const std::string& option, const std::string& text, long long min, long long max);
/// A finite real option value. Throws core::InputError naming the option.
double parseNumberOption(const std::string& option, const std::string& text);

/// Usage text.
std::string usage();

} // namespace poslab::app
