// SPDX-License-Identifier: MIT
#pragma once
/// @file binaryrun.h
/// Runs the real `poslab` binary (POSLAB_BINARY, set by tests/cli/CMakeLists.txt) as a child process for the CLI
/// tests that need a process of its own: exit statuses, signals, files written by another process, memory use.
/// In-process runs go through clirun.h instead.

#include <QByteArray>
#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <sys/resource.h>

namespace poslab::test {

/// One finished child: exit code (-2 when it crashed or was killed, -1 when it did not finish in time, -3 when it
/// did not start: err says why), what it wrote, its wall time, its CPU time and the largest resident set of any
/// child so far (getrusage(RUSAGE_CHILDREN), KiB). Bound work with cpuMs: wall time grows with the machine's load
/// (ctest -j4 on two cores beside other work took 2 s of wall time for 0.1 s of CPU; issue 38 item 12).
struct Binary {
    int code = -1;
    QByteArray out, err;
    qint64 ms = 0;
    qint64 cpuMs = 0; ///< user + system time of the child (runBinary; 0 from finish() alone)
    long peakKiB = 0;
};

/// User + system CPU time of the children waited for so far, in ms (getrusage(RUSAGE_CHILDREN)).
inline qint64 childrenCpuMs()
{
    struct rusage usage = {};
    getrusage(RUSAGE_CHILDREN, &usage);
    return qint64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000
        + qint64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
}

/// Waits for @p p (already started) up to @p timeoutMs; one that runs longer is killed and reads as code -1.
inline Binary finish(QProcess& p, int timeoutMs = 120000)
{
    QElapsedTimer clock;
    clock.start();
    Binary b;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return b;
    }
    b.ms = clock.elapsed();
    b.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    b.out = p.readAllStandardOutput();
    b.err = p.readAllStandardError();
    struct rusage usage = {};
    getrusage(RUSAGE_CHILDREN, &usage);
    b.peakKiB = usage.ru_maxrss;
    return b;
}

/// Runs `poslab ARGS` in @p env, its stdout going to @p stdoutFile when one is named.
inline Binary runBinary(const QStringList& args,
                        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                        const QString& stdoutFile = {})
{
    QProcess p;
    p.setProcessEnvironment(env);
    if (!stdoutFile.isEmpty())
        p.setStandardOutputFile(stdoutFile);
    const qint64 cpuBefore = childrenCpuMs();
    p.start(QStringLiteral(POSLAB_BINARY), args);
    if (!p.waitForStarted()) {
        Binary b;
        b.code = -3;
        b.err = "could not start " POSLAB_BINARY ": " + p.errorString().toUtf8();
        return b;
    }
    Binary b = finish(p);
    b.cpuMs = childrenCpuMs() - cpuBefore;
    return b;
}

} // namespace poslab::test
