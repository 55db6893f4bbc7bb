// SPDX-License-Identifier: MIT
#pragma once
/// @file clirun.h
/// Runs `poslab` commands in-process for the CLI tests: the exit status and what went to stdout and stderr.

#include "app/cli.h"
#include "app/exportcli.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>

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

/// @p args as the words runCli takes.
inline std::vector<std::string> words(const QStringList& args)
{
    std::vector<std::string> w;
    w.reserve(args.size());
    for (const QString& s : args)
        w.push_back(s.toStdString());
    return w;
}

inline Run runList(const QStringList& args)
{
    return run(words(args));
}
inline Run runExportList(const QStringList& args)
{
    return runExport(words(args));
}

/// stdout and stderr of @p r as QStrings (UTF-8).
inline QString outText(const Run& r)
{
    return QString::fromStdString(r.out);
}
inline QString errText(const Run& r)
{
    return QString::fromStdString(r.err);
}

} // namespace poslab::test
