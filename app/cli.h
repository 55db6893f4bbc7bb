// SPDX-License-Identifier: MIT
#pragma once
/// @file cli.h
/// The headless command line: `poslab schemes`, `poslab presets`, `poslab lessons`, `poslab compute`, `poslab bench`. It is a thin client of
/// core's services; the GUI uses the same ones.

#include "core/bench.h"
#include "ui/setup/computecommand.h"

#include <functional>
#include <iosfwd>
#include <optional>
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

/// @p message made fit for one line on a terminal: a quoted value longer than 80 characters (a pasted table, a
/// runaway batch value) is shortened to its start and its length ('yyyy… (200000 characters)'), line breaks and
/// tabs become spaces, and other control characters are written as \xHH (ESC as \x1b). Every "poslab: ..." line
/// goes through it.
std::string messageLine(const std::string& message);

/// Runs a headless subcommand. Output goes to @c out (unless -o names a file), messages to @c err.
int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const CliHooks& hooks = {});

// The option walker and the compute parser live in ui/setup/computecommand.h (shared with the lessons' probes and the
// window); the command line names them here as it always has.
using ui::Args;
using ui::computeOptions;
using ui::OptionSpec;
using ui::parseIntegerOption;
using ui::parseNumberOption;

/// The options each command declares, in the order its help lists them.
const std::vector<OptionSpec>& schemesOptions();
const std::vector<OptionSpec>& presetsOptions();
const std::vector<OptionSpec>& lessonsOptions();
const std::vector<OptionSpec>& benchOptions();
const std::vector<OptionSpec>& windowOptions();

/// What the window's command line asks for (validated by main, which knows the window's limits). Qt's own
/// options (-platform, -style, ...) are declared too, so that only a real typo is refused, before Qt starts.
struct WindowArgs {
    std::optional<std::string> screenshot, size, theme, scheme, computePath, maximise, dim, positions, fontScale;
    /// --soak SECONDS (hidden, for scripts/soak.sh): play and sweep for that long, sampling resident memory.
    std::optional<std::string> soak;
    /// --state STRING (a share string, poslab: link, inline JSON or a file) and --open FILE / a FILE operand
    /// (a session: the window then saves back to it).
    std::optional<std::string> state, open;
    /// The session came as a FILE operand (a file manager's Open with, `Exec=poslab %U`): a file that does not
    /// read opens the window with the problem in a dialog instead of exit status 2, as nobody reads stderr there.
    bool openOperand = false;
    /// Hidden, for `poslab bench`'s startup_ms: print "painted" on stdout once the window's first frame is
    /// painted, then quit.
    bool firstFrame = false;
    std::optional<std::string> preset, config; ///< a model's state (--preset NAME, --config FILE)
    std::optional<std::string> platform;       ///< -platform NAME, as Qt reads it
    std::optional<std::string> display;        ///< -display NAME (X11)
    /// Qt's options as QApplication reads them ("-style", "Fusion" from "--style=Fusion"): the window passes
    /// these, and only these, to QApplication.
    std::vector<std::string> qtArgs;
    bool hidePanels = false;
    /// --present (scripts/screenshot.sh, a lecture's launcher): open in presentation mode (F5).
    bool present = false;
    /// --presenter: present with the presenter view open, even on one screen (implies present).
    bool presenter = false;
    /// --lesson N.M: open the lesson browser at that step and load it.
    std::optional<std::string> lesson;
    bool help = false;
    bool version = false;
};
/// Parses the window's arguments (without the program name); throws core::InputError with one line.
WindowArgs parseWindowArgs(const std::vector<std::string>& args);

/// Why the window cannot open here, in one line, or "" when it can: the platform Qt would load (-platform,
/// else QT_QPA_PLATFORM, a ';'-separated list, else xcb or wayland) needs a display that is not set. Read
/// before QApplication, which aborts with a multi-line message instead.
std::string noDisplayReason(const std::optional<std::string>& platform, const std::optional<std::string>& display);

/// "poslab VERSION (git REVISION)\n": CMake's project version and the revision the build was configured from
/// ("unknown" without git).
std::string versionText();

/// Flushes @p out and throws core::RefusedError naming the reason when anything written to it was lost
/// (a full disk, /dev/full, a closed pipe): a command never reports success for output that did not arrive.
void finishOutput(std::ostream& out, const std::string& what = "standard output");

/// Usage text.
std::string usage();

} // namespace poslab::app
