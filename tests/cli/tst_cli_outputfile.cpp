// SPDX-License-Identifier: MIT
// How `poslab compute -o FILE` writes its file (issue 14, item 4): through a unique temporary opened
// exclusively in the target's folder and renamed over the target, as QSaveFile does. The old writer used one
// fixed name, ".NAME.part": it wrote through a symbolic link planted there, two writers to one file mixed
// their bytes (invalid JSON, exit 0), and the loser said "cannot write r.json: Success".
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>

namespace {

constexpr int exitOk = 0;
constexpr int exitRefused = 1;

struct Binary {
    int code = -1;
    QByteArray out, err;
};

QStringList computeTable(const QString& output, int positions)
{
    // About 40 bytes per number: 128 x 2048 is 10 MB of JSON, enough for two writers to overlap.
    return {"compute", "encoding", "--scheme", "sinusoidal", "--dim", "128",
            "--positions", QStringLiteral("0:%1").arg(positions), "-o", output};
}

Binary finish(QProcess& p)
{
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

Binary runBinary(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(POSLAB_BINARY), args);
    return finish(p);
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// The number of position rows in a `compute encoding` JSON file, or -1 when it is not valid JSON of that form.
int rowsOf(const QString& path)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(readAll(path), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return -1;
    const QJsonArray shape = doc.object().value(QStringLiteral("shape")).toArray();
    return shape.size() == 2 ? shape[0].toInt() : -1;
}

/// Names in @p dir other than @p keep (a temporary left behind shows here).
QStringList othersIn(const QString& dir, const QStringList& keep)
{
    QStringList names = QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    for (const QString& k : keep)
        names.removeAll(k);
    return names;
}

} // namespace

class TestCliOutputFile : public QObject {
    Q_OBJECT
private slots:
    void plantedSymlinkIsNotFollowed();
    void concurrentWritersEachLeaveAWholeFile();
    void writeFailureNamesTheReasonAndKeepsTheOldFile();
    void permissionsFollowTheUmaskOrTheReplacedFile();
    void devicesAreWrittenInPlace();
};

void TestCliOutputFile::plantedSymlinkIsNotFollowed()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString victim = dir.filePath("victim.txt");
    {
        QFile f(victim);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("keep me\n");
    }
    // The old writer's fixed temporary name, and the name QSaveFile's would be without its random part.
    const QStringList planted = {".r.json.part", "r.json.part"};
    for (const QString& name : planted)
        QVERIFY(QFile::link(victim, dir.filePath(name)));
    const QString out = dir.filePath("r.json");
    const Binary b = runBinary(computeTable(out, 8));
    QVERIFY2(b.code == exitOk, b.err.constData());
    QCOMPARE(readAll(victim), QByteArray("keep me\n"));
    QCOMPARE(rowsOf(out), 8);
    for (const QString& name : planted)
        QVERIFY2(QFileInfo(dir.filePath(name)).isSymLink(), qPrintable(name));
    QCOMPARE(othersIn(dir.path(), QStringList{"victim.txt", "r.json"} + planted), QStringList());

    // Export writes through QSaveFile: the same holds for a figure's data.
    const QString csv = dir.filePath("t.csv");
    QVERIFY(QFile::link(victim, dir.filePath(".t.csv.part")));
    const Binary e = runBinary({"export", "table", "--scheme", "sinusoidal", "--dim", "8", "--positions", "4", "-o", csv});
    QVERIFY2(e.code == exitOk, e.err.constData());
    QCOMPARE(readAll(victim), QByteArray("keep me\n"));
    QVERIFY(readAll(csv).size() > 0);
}

void TestCliOutputFile::concurrentWritersEachLeaveAWholeFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath("r.json");
    // Two writers of different tables to one file, three rounds: each exits 0 with nothing on stderr, and
    // the file is always one of the two tables, whole (the later rename wins).
    for (int round = 0; round < 3; ++round) {
        QProcess a, b;
        a.start(QStringLiteral(POSLAB_BINARY), computeTable(out, 2048));
        b.start(QStringLiteral(POSLAB_BINARY), computeTable(out, 2047));
        const Binary ra = finish(a), rb = finish(b);
        QVERIFY2(ra.code == exitOk, ra.err.constData());
        QVERIFY2(rb.code == exitOk, rb.err.constData());
        QCOMPARE(ra.err, QByteArray());
        QCOMPARE(rb.err, QByteArray());
        const int rows = rowsOf(out);
        QVERIFY2(rows == 2048 || rows == 2047, qPrintable(QStringLiteral("round %1: rows %2").arg(round).arg(rows)));
        QCOMPARE(othersIn(dir.path(), {"r.json"}), QStringList());
    }
}

void TestCliOutputFile::writeFailureNamesTheReasonAndKeepsTheOldFile()
{
    // A file-size limit of 64 KiB makes the write fail part way with EFBIG, as a full disk does with ENOSPC
    // (SIGXFSZ ignored, so write() returns the error instead of ending the process).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath("r.json");
    {
        QFile f(out);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("old contents\n");
    }
    QProcess p;
    p.setChildProcessModifier([] {
        std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit {64 * 1024, 64 * 1024};
        setrlimit(RLIMIT_FSIZE, &limit);
    });
    p.start(QStringLiteral(POSLAB_BINARY), computeTable(out, 2048));
    const Binary b = finish(p);
    QCOMPARE(b.code, exitRefused);
    QVERIFY2(b.err.contains("writing " + out.toUtf8() + " failed: File too large"), b.err.constData());
    QVERIFY2(!b.err.contains("Success"), b.err.constData());
    QCOMPARE(b.err.count('\n'), 1);
    QCOMPARE(readAll(out), QByteArray("old contents\n"));
    QCOMPARE(othersIn(dir.path(), {"r.json"}), QStringList());
}

void TestCliOutputFile::permissionsFollowTheUmaskOrTheReplacedFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const mode_t mask = ::umask(022);
    ::umask(mask);
    // A new file: 0666 less the umask, as any program's (a mkstemp temporary alone would leave 0600).
    const QString fresh = dir.filePath("new.json");
    QCOMPARE(runBinary(computeTable(fresh, 4)).code, exitOk);
    struct stat st {};
    QCOMPARE(::stat(fresh.toLocal8Bit().constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0666 & ~mask);
    // A replaced file keeps its mode.
    QVERIFY(::chmod(fresh.toLocal8Bit().constData(), 0640) == 0);
    QCOMPARE(runBinary(computeTable(fresh, 5)).code, exitOk);
    QCOMPARE(::stat(fresh.toLocal8Bit().constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0640));
    QCOMPARE(rowsOf(fresh), 5);
}

void TestCliOutputFile::devicesAreWrittenInPlace()
{
    // A device, pipe or socket is written in place: a rename over it would replace it with a regular file
    // (over /dev/null, for root). Shown with a FIFO of the test's own, read by cat.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString fifo = dir.filePath("pipe.json");
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    QProcess reader;
    reader.start(QStringLiteral("cat"), {fifo});
    QVERIFY(reader.waitForStarted());
    const Binary b = runBinary(computeTable(fifo, 16));
    QVERIFY2(b.code == exitOk, b.err.constData());
    if (!reader.waitForFinished(10000)) {
        reader.kill();
        QFAIL("nothing was written to the FIFO");
    }
    const QJsonDocument doc = QJsonDocument::fromJson(reader.readAllStandardOutput());
    QCOMPARE(doc.object().value(QStringLiteral("shape")).toArray().at(0).toInt(), 16);
    struct stat st {};
    QCOMPARE(::lstat(fifo.toLocal8Bit().constData(), &st), 0);
    QVERIFY(S_ISFIFO(st.st_mode));
    QCOMPARE(othersIn(dir.path(), {"pipe.json"}), QStringList());
}

QTEST_GUILESS_MAIN(TestCliOutputFile)
#include "tst_cli_outputfile.moc"
