// SPDX-License-Identifier: MIT
#pragma once
/// @file exportcli.h
/// `poslab export`: figures (SVG, PNG, PDF, animated GIF) and the numbers behind them (CSV, JSON, NPY) from
/// the command line, one at a time or a whole deck from a batch file. A thin client of
/// exporting::ExportService, the same service as the window's File > Export.

#include "app/cli.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace poslab::app {

/// Runs `poslab export ...`. @p args may start with "export" or with what follows it. Creates a
/// QApplication when none exists (the offscreen platform when there is no display and QT_QPA_PLATFORM is
/// unset). Exit status: 0 success, 1 refused (too large, nothing to show, a batch entry failed), 2 usage
/// error (bad option, bad output path, unknown extension). Messages go to @p err, one line each; a batch
/// reports each written file on @p out.
int runExportCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// The options of `poslab export` (and of a batch entry, without --batch), in the order its help lists them.
const std::vector<OptionSpec>& exportOptions();

/// The help text of `poslab export`.
std::string exportUsage();

/// Hides Qt's "XDG_RUNTIME_DIR not set" and offscreen size-hint warnings (nothing else); call before
/// creating the application.
void silenceRuntimeDirWarning();

/// Sets the C library's LC_NUMERIC back to "C"; call right after creating the application. QCoreApplication calls
/// setlocale(LC_ALL, "") on Unix, which makes printf write and strtod read "1,5" under de_DE or fr_FR; Qt's
/// QCoreApplication documentation ("Locale Settings") says to reset LC_NUMERIC so. Numbers in files, figures and
/// messages are then C's in every locale (tests/cli/tst_cli_locale.cpp); Qt's own QLocale is not changed.
void useCNumbers();

} // namespace poslab::app
