// SPDX-License-Identifier: MIT
#pragma once
/// @file clirun.h
/// Runs `poslab` commands in-process for the CLI tests: the exit status and what went to stdout and stderr.

#include "app/cli.h"
#include "app/exportcli.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <sstream>
#include <string>
#include <vector>

namespace poslab::test {

/// One run of poslab::app::runCli.
struct Run {
    int status = 0;
    std::string out, err;
    bool operator==(const Run&) const = default;
    /// stdout parsed as one JSON object (empty when it is not one).
    QJsonObject json() const { return QJsonDocument::fromJson(QByteArray::fromStdString(out)).object(); }
};

/// Runs @p args (without the program name) through the same entry point as the binary.
inline Run run(std::vector<std::string> args)
{
    std::ostringstream out, err;
    Run r;
    r.status = app::runCli(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

/// Runs @p args through export's entry point alone (app::runExportCli; its parser stops a bad request before
/// Qt starts).
inline Run runExport(std::vector<std::string> args)
{
    std::ostringstream out, err;
    Run r;
    r.status = app::runExportCli(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

} // namespace poslab::test
