// SPDX-License-Identifier: MIT
// How `poslab compute -o FILE` writes its file: through a unique temporary opened
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
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "tests/cli/binaryrun.h"

using poslab::test::Binary;
using poslab::test::finish;
using poslab::test::runBinary;

namespace {

constexpr int exitOk = 0;
constexpr int exitRefused = 1;

QStringList computeTable(const QString& output, int positions)
{
    // About 40 bytes per number: 128 x 2048 is 10 MB of JSON, enough for two writers to overlap.
    return {"compute", "encoding", "--scheme",    "sinusoidal",
            "--dim",   "128",      "--positions", QStringLiteral("0:%1").arg(positions),
            "-o",      output};
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
    void devicesFifosAndLinksAreRefused();
    void readOnlyFilesAreRefusedByEveryWriter();
    void trainChecksItsOutputBeforeTraining();
    void signalsRemoveTheTemporary();
    void staleTemporariesAreRemovedOnTheNextRun();
    void batchOutputsAreJudgedAfterResolvingLinks();
    void batchNamesWithControlCharactersAreRefused();
    void exportWriteFailuresSayWhatFailed();
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
    const Binary e
        = runBinary({"export", "table", "--scheme", "sinusoidal", "--dim", "8", "--positions", "4", "-o", csv});
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
        const rlimit limit{64 * 1024, 64 * 1024};
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
    struct stat st = {};
    QCOMPARE(::stat(fresh.toLocal8Bit().constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0666 & ~mask);
    // A replaced file keeps its mode.
    QVERIFY(::chmod(fresh.toLocal8Bit().constData(), 0640) == 0);
    QCOMPARE(runBinary(computeTable(fresh, 5)).code, exitOk);
    QCOMPARE(::stat(fresh.toLocal8Bit().constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0640));
    QCOMPARE(rowsOf(fresh), 5);
}

/// lstat's file type of @p path (S_IFREG, S_IFLNK, S_IFCHR, ...), or 0 when it is missing.
static mode_t typeOf(const QString& path)
{
    struct stat st = {};
    return ::lstat(path.toLocal8Bit().constData(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

void TestCliOutputFile::devicesFifosAndLinksAreRefused()
{
    // Export renamed a PNG over a device node reached through a link (root, exit 0), and
    // compute wrote into a FIFO. Now a device, a FIFO, a socket and a link are refused by every writer (exit 1),
    // before any work, and the node and the link's target are left as they were.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString device = dir.filePath("myfull");
    const bool canMknod = ::mknod(device.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 7)) == 0;
    const QString fifo = dir.filePath("pipe.json");
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    const QString victim = dir.filePath("victim.txt");
    {
        QFile f(victim);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("keep me\n");
    }
    struct Case {
        QString output, says;
        QString node; // what must stay as it was
        mode_t type;
    };
    QList<Case> cases = {
        {fifo, "it is a FIFO (named pipe); PosLab writes regular files only", fifo, S_IFIFO},
        {dir.filePath("to-victim.json"), "it is a symbolic link to " + victim, victim, S_IFREG},
        {dir.filePath("to-victim.png"), "it is a symbolic link to " + victim, victim, S_IFREG},
        {dir.filePath("to-victim.csv"), "it is a symbolic link to " + victim, victim, S_IFREG},
    };
    for (const QString& name :
         {QStringLiteral("to-victim.json"), QStringLiteral("to-victim.png"), QStringLiteral("to-victim.csv")})
        QVERIFY(QFile::link(victim, dir.filePath(name)));
    if (canMknod) {
        QVERIFY(QFile::link(device, dir.filePath("lnk.png")));
        QVERIFY(QFile::link(device, dir.filePath("lnk.json")));
        QVERIFY(::mknod(dir.filePath("dev.png").toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 7)) == 0);
        cases.append({dir.filePath("lnk.png"), "it is a symbolic link to " + device, device, S_IFCHR});
        cases.append({dir.filePath("lnk.json"), "it is a symbolic link to " + device, device, S_IFCHR});
        cases.append({dir.filePath("dev.png"), "it is a character device; PosLab writes regular files only",
                      dir.filePath("dev.png"), S_IFCHR});
    }
    for (const Case& c : cases) {
        const bool figure = c.output.endsWith(".png") || c.output.endsWith(".csv");
        const QStringList args = figure
            ? QStringList{"export", "table", "--scheme", "rope", "--dim", "8", "--positions", "4", "-o", c.output}
            : computeTable(c.output, 4);
        const Binary b = runBinary(args);
        QVERIFY2(b.code == exitRefused, qPrintable(c.output + ": " + b.err));
        QVERIFY2(b.err.contains(c.says.toUtf8()), b.err.constData());
        QCOMPARE(b.err.count('\n'), 1);
        // Refused at once, not after the work: CPU time, which load does not stretch as it does wall time.
        QVERIFY2(b.cpuMs < 5000, qPrintable(c.output + QStringLiteral(": %1 ms of CPU").arg(b.cpuMs)));
        QCOMPARE(typeOf(c.node), c.type);
        QCOMPARE(readAll(victim), QByteArray("keep me\n"));
        if (c.output != c.node)
            QCOMPARE(typeOf(c.output), mode_t(S_IFLNK)); // the link itself is not replaced either
    }
    if (!canMknod)
        QSKIP("mknod needs root here; the FIFO and link cases ran");
    QCOMPARE(othersIn(dir.path(),
                      {"myfull", "pipe.json", "victim.txt", "to-victim.json", "to-victim.png", "to-victim.csv",
                       "lnk.png", "lnk.json", "dev.png"}),
             QStringList());
}

void TestCliOutputFile::readOnlyFilesAreRefusedByEveryWriter()
{
    // `compute -o` replaced a 0444 file (exit 0) that export refused. Now one rule: refused by
    // compute, export (figure and data) and train alike, exit 1, the file unchanged; root too (no write bit).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const QString& name :
         {QStringLiteral("r.json"), QStringLiteral("t.svg"), QStringLiteral("t.csv"), QStringLiteral("run.json")}) {
        const QString path = dir.filePath(name);
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("old\n");
        }
        QVERIFY(::chmod(path.toLocal8Bit().constData(), 0444) == 0);
        QStringList args;
        if (name == "r.json")
            args = computeTable(path, 4);
        else if (name == "run.json")
            args = {"train", "--scheme", "nope", "--steps", "100000", "--quiet", "-o", path};
        else
            args = {"export", "table", "--scheme", "rope", "--dim", "8", "--positions", "4", "-o", path};
        const Binary b = runBinary(args);
        QVERIFY2(b.code == exitRefused, qPrintable(name + ": " + b.err));
        QVERIFY2(b.err.contains("cannot write " + path.toUtf8() + ": the file is read-only")
                     || b.err.contains(": the file is read-only"),
                 b.err.constData());
        // train: refused before 100000 steps (CPU time, as above)
        QVERIFY2(b.cpuMs < 5000, qPrintable(name + QStringLiteral(": %1 ms of CPU").arg(b.cpuMs)));
        QCOMPARE(readAll(path), QByteArray("old\n"));
        struct stat st = {};
        QCOMPARE(::stat(path.toLocal8Bit().constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0444));
    }
    QCOMPARE(othersIn(dir.path(), {"r.json", "t.svg", "t.csv", "run.json"}), QStringList());
}

void TestCliOutputFile::trainChecksItsOutputBeforeTraining()
{
    // `train -o /nonexistent/x.json` trained the whole run, then failed.
    const Binary b
        = runBinary({"train", "--scheme", "rope", "--steps", "100000", "--quiet", "-o", "/nonexistent/x.json"});
    QCOMPARE(b.code, 2);
    QCOMPARE(b.err, QByteArray("poslab: cannot write /nonexistent/x.json: folder /nonexistent does not exist\n"));
    QVERIFY2(b.cpuMs < 2000, qPrintable(QStringLiteral("%1 ms of CPU").arg(b.cpuMs))); // not after the training
}

void TestCliOutputFile::signalsRemoveTheTemporary()
{
    // Ctrl+C or SIGTERM while a large table was written left ".r.json.XXXXXXXXXXXX.part"
    // (hundreds of MB). The writer removes it on SIGINT, SIGTERM and SIGHUP and the process still ends by the
    // signal. The signal is sent as soon as the temporary appears.
    for (int sig : {SIGTERM, SIGINT}) {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath("r.json");
        QProcess p;
        p.start(QStringLiteral(POSLAB_BINARY), computeTable(out, 200000)); // about 500 MB of JSON
        QVERIFY(p.waitForStarted());
        QElapsedTimer clock;
        clock.start();
        bool seen = false;
        while (!seen && clock.elapsed() < 60000 && p.state() == QProcess::Running) {
            seen = !othersIn(dir.path(), {}).isEmpty();
            if (!seen)
                QThread::msleep(2);
        }
        QVERIFY2(seen, "the temporary never appeared");
        ::kill(pid_t(p.processId()), sig);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit); // ended by the signal, as the shell expects
        QCOMPARE(othersIn(dir.path(), {}), QStringList());
    }
}

void TestCliOutputFile::staleTemporariesAreRemovedOnTheNextRun()
{
    // SIGKILL leaves the temporary: the next write to the same target removes those no live writer holds
    // (unlocked and older than 10 s), and keeps a fresh one and a locked one (another writer at work).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto plant = [&](const QString& name, qint64 ageSeconds) {
        const QString path = dir.filePath(name);
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write("partial");
        f.close();
        const time_t when = time(nullptr) - time_t(ageSeconds);
        struct timeval times[2] = {{when, 0}, {when, 0}};
        ::utimes(path.toLocal8Bit().constData(), times);
        return path;
    };
    plant(".r.json.abcdefghijkl.part", 3600);
    plant(".r.json.0123456789ab.part", 0);
    const QString locked = plant(".r.json.lockedlocked.part", 3600);
    plant(".other.json.abcdefghijkl.part", 3600); // another target's
    plant(".r.json.short.part", 3600);            // not a temporary's name
    const int fd = ::open(locked.toLocal8Bit().constData(), O_RDONLY);
    QVERIFY(fd >= 0);
    QCOMPARE(::flock(fd, LOCK_EX), 0);
    const Binary b = runBinary(computeTable(dir.filePath("r.json"), 4));
    ::close(fd);
    QVERIFY2(b.code == exitOk, b.err.constData());
    QStringList left = othersIn(dir.path(), {"r.json"});
    left.sort();
    QCOMPARE(left,
             QStringList({".other.json.abcdefghijkl.part", ".r.json.0123456789ab.part", ".r.json.lockedlocked.part",
                          ".r.json.short.part"}));
}

/// Writes @p json as the batch file @p path.
static void writeDeck(const QString& path, const QByteArray& json)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(json);
}

void TestCliOutputFile::batchOutputsAreJudgedAfterResolvingLinks()
{
    // A deck compared cleaned text paths, so "figs/x.png" with figs -> ../outside wrote outside
    // its folder, and "link.png" -> ../outside/keep.png overwrote keep.png, without "allow_outside".
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QVERIFY(QDir(root.path()).mkpath("deck") && QDir(root.path()).mkpath("outside"));
    const QString deck = root.filePath("deck"), outside = root.filePath("outside");
    const QString keep = outside + "/keep.png";
    {
        QFile f(keep);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("keep me");
    }
    QVERIFY(QFile::link(outside, deck + "/figs"));         // a linked folder
    QVERIFY(QFile::link(keep, deck + "/link.png"));        // a linked file
    QVERIFY(QFile::link("../outside", deck + "/relfigs")); // a relative link
    writeDeck(deck + "/deck.json", R"({"defaults": {"view": "table", "scheme": "rope", "dim": 8, "positions": 4},
        "figures": [{"output": "figs/x.png"}, {"output": "link.png"}, {"output": "relfigs/y.csv"},
                    {"output": "inside.png"}]})");
    Binary b = runBinary({"export", "--batch", deck + "/deck.json"});
    QCOMPARE(b.code, exitRefused);
    const QString canonicalOutside = QFileInfo(outside).canonicalFilePath();
    const QString canonicalDeck = QFileInfo(deck).canonicalFilePath();
    QVERIFY2(b.err.contains(("entry 1 (figs/x.png): output " + canonicalOutside
                             + "/x.png (figs/x.png leads there "
                               "through a symbolic link) is outside the batch file's folder "
                             + canonicalDeck)
                                .toUtf8()),
             b.err.constData());
    QVERIFY2(b.err.contains(("entry 2 (link.png): output " + canonicalOutside + "/keep.png").toUtf8()),
             b.err.constData());
    QVERIFY2(b.err.contains(("entry 3 (relfigs/y.csv): output " + canonicalOutside + "/y.csv").toUtf8()),
             b.err.constData());
    QVERIFY2(b.out.contains("inside.png"), b.out.constData()); // the others are still written
    QCOMPARE(readAll(keep), QByteArray("keep me"));
    QCOMPARE(othersIn(outside, {"keep.png"}), QStringList());
    QCOMPARE(typeOf(deck + "/link.png"), mode_t(S_IFLNK));

    // allow_outside lets a deck write through a linked folder; a linked file is still refused by the writer
    // (no writer replaces a link or writes through it).
    writeDeck(deck + "/deck.json", R"({"allow_outside": true,
        "defaults": {"view": "table", "scheme": "rope", "dim": 8, "positions": 4},
        "figures": [{"output": "figs/x.png"}, {"output": "link.png"}]})");
    b = runBinary({"export", "--batch", deck + "/deck.json"});
    QCOMPARE(b.code, exitRefused);
    QVERIFY2(b.err.contains("entry 2 (link.png): cannot write"), b.err.constData());
    QVERIFY2(b.err.contains("it is a symbolic link to " + keep.toUtf8()), b.err.constData());
    QVERIFY(QFileInfo(outside + "/x.png").isFile());
    QCOMPARE(readAll(keep), QByteArray("keep me"));
}

void TestCliOutputFile::batchNamesWithControlCharactersAreRefused()
{
    // "\u00e9\u202e\u0000x.png" wrote "\u00e9\u202e" (the name cut at the NUL, no extension),
    // reported "wrote ...x.png" and Qt repeated "Broken filename passed to function". Now a name with a control
    // character or a bidirectional override is refused, by its code point, and nothing is written.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeDeck(dir.filePath("deck.json"), R"({"defaults": {"view": "table", "scheme": "rope", "dim": 8, "positions": 4},
        "figures": [{"output": "\u00e9\u202e\u0000x.png"}, {"output": "a\u0007b.svg"}, {"output": "cv\u202egnp.svg"},
                    {"output": "line\nbreak.csv"}]})");
    const Binary b = runBinary({"export", "--batch", dir.filePath("deck.json")});
    QCOMPARE(b.code, exitRefused);
    QCOMPARE(b.out, QByteArray());
    QVERIFY2(!b.err.contains("Broken filename"), b.err.constData());
    QVERIFY2(!b.err.contains('\0') && !b.err.contains('\a'), b.err.constData());
    QVERIFY2(b.err.contains("entry 1 (\u00e9<U+202E><U+0000>x.png): cannot write " + dir.path().toUtf8()
                            + "/\u00e9<U+202E><U+0000>x.png: the name holds U+202E"),
             b.err.constData());
    QVERIFY2(b.err.contains("the name holds U+0007 (a control character)"), b.err.constData());
    QVERIFY2(b.err.contains("the name holds U+202E (a bidirectional override"), b.err.constData());
    QVERIFY2(b.err.contains("the name holds U+000A (a control character)"), b.err.constData());
    QCOMPARE(b.err.count('\n'), 5); // four entries and the summary, one line each
    QCOMPARE(othersIn(dir.path(), {"deck.json"}), QStringList());
}

void TestCliOutputFile::exportWriteFailuresSayWhatFailed()
{
    // A figure that did not fit said "writing t.png failed: Unknown error", exit 2. Now the
    // reason, exit 1 (output that could not be written), and the old file kept; the same for data.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const QString& name : {QStringLiteral("t.png"), QStringLiteral("t.csv")}) {
        const QString out = dir.filePath(name);
        {
            QFile f(out);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("old contents\n");
        }
        QProcess p;
        p.setChildProcessModifier([] {
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{64 * 1024, 64 * 1024};
            setrlimit(RLIMIT_FSIZE, &limit);
        });
        // --size for the figure only: on data it is refused as an option that does not apply (item 19).
        QStringList args{"export", "table", "--scheme", "sinusoidal", "--dim", "256", "--positions", "4096", "-o", out};
        if (name.endsWith(QLatin1String(".png")))
            args << "--size"
                 << "1600x1600";
        p.start(QStringLiteral(POSLAB_BINARY), args);
        const Binary b = finish(p);
        QCOMPARE(b.code, exitRefused);
        QCOMPARE(b.err,
                 "poslab: writing " + out.toUtf8() + " failed: File too large; the old file, if any, is unchanged\n");
        QCOMPARE(readAll(out), QByteArray("old contents\n"));
    }
    QCOMPARE(othersIn(dir.path(), {"t.png", "t.csv"}), QStringList());

    // Permission: a folder this user may not write to (root runs the child as nobody), and one it may not enter.
    QVERIFY(::chmod(dir.path().toLocal8Bit().constData(), 0755) == 0);
    QVERIFY(QDir(dir.path()).mkdir("closed") && QDir(dir.path()).mkdir("shut"));
    QVERIFY(::chmod(dir.filePath("closed").toLocal8Bit().constData(), 0555) == 0);
    QVERIFY(::chmod(dir.filePath("shut").toLocal8Bit().constData(), 0700) == 0);
    const bool root = ::geteuid() == 0;
    struct Case {
        QString output;
        QByteArray says;
    };
    const QList<Case> cases = {
        {dir.filePath("closed/x.png"),
         "folder " + dir.filePath("closed").toUtf8() + " refuses a new file (Permission denied)"},
        {dir.filePath("shut/x.png"),
         "folder " + dir.filePath("shut").toUtf8() + " refuses a new file (Permission denied)"},
        {dir.filePath("shut/sub/x.png"),
         "folder " + dir.filePath("shut/sub").toUtf8() + " cannot be reached (Permission denied)"},
    };
    for (const Case& c : cases) {
        if (!root && c.output.contains("shut"))
            continue; // the owner may enter its own 0700 folder
        QProcess p;
        if (root)
            p.setChildProcessModifier([] {
                if (::setgid(65534) != 0 || ::setuid(65534) != 0)
                    ::_exit(99);
            });
        p.start(QStringLiteral(POSLAB_BINARY),
                {"export", "table", "--scheme", "rope", "--dim", "8", "--positions", "4", "-o", c.output});
        const Binary b = finish(p);
        QCOMPARE(b.code, exitRefused);
        QCOMPARE(b.err, "poslab: cannot write " + c.output.toUtf8() + ": " + c.says + "\n");
    }
}

QTEST_GUILESS_MAIN(TestCliOutputFile)
#include "tst_cli_outputfile.moc"
