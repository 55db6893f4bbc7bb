// SPDX-License-Identifier: MIT
// How PosLab reads the files a person names: every whole-file input (a
// config.json, a batch file, a session) goes through core's one bounded reader (core/io/inputfile.h), so that a
// device or a pipe, whose size() is 0, is refused at once instead of read to the end of memory; a learned
// table's width is checked from its header before its data are read; a float64 value float32 cannot hold is
// refused by name; and each refusal is one line, with no Qt warning before it.
// The bounds are asserted as time (under 1 s) and as the peak resident memory of the child process.
#include "app/cli.h"
#include "tests/cli/binaryrun.h"
#include "tests/cli/clirun.h"
#include "tests/tablefiles.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace poslab::app;
using poslab::test::Run;
using poslab::test::run;
using namespace poslab::test;

namespace {

/// `poslab ARGS` with no display (QT_QPA_PLATFORM=offscreen).
Binary runOffscreen(const QStringList& args)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    return runBinary(args, env);
}

/// A process that writes zeros into the FIFO @p fifo without end (until it is killed or the reader leaves).
struct EndlessWriter {
    QProcess p;
    explicit EndlessWriter(const QString& fifo)
    {
        p.start(QStringLiteral("sh"), {"-c", "exec cat /dev/zero > \"$0\"", fifo});
        p.waitForStarted();
    }
    ~EndlessWriter()
    {
        p.kill();
        p.waitForFinished();
    }
};

#if defined(__SANITIZE_ADDRESS__)
// Under AddressSanitizer (scripts/test.sh --sanitize) the runtime's shadow memory and quarantine alone take about
// 100 MB; the bound is the release build's, so there it is held at four times.
constexpr long peakLimitKiB = 4 * 100 * 1024;
#else
constexpr long peakLimitKiB = 100 * 1024;
#endif

} // namespace

class TestCliInputs : public QObject {
    Q_OBJECT
private slots:
    void devicesAreRefusedWithoutReading();
    void endlessPipesAreCutAtTheBound();
    void emptyConfigNameIsOneLine();
    void corruptShareStringIsOneLine();
    void tableWidthIsCheckedBeforeTheData();
    void float64BeyondFloat32IsRefused();
    void brokenSessionFromAFileManagerOpensTheWindow();
};

void TestCliInputs::devicesAreRefusedWithoutReading()
{
    // presets --config /dev/zero and export --batch /dev/zero read 4.1 GB: the 64 MiB check used size(), which is
    // 0 for a device. Now a device is refused by what it is, before a byte is read.
    for (const QStringList& args :
         {QStringList{"presets", "--config", "/dev/zero"},
          QStringList{"compute", "frequencies", "--config", "/dev/zero"}, QStringList{"export", "--batch", "/dev/zero"},
          QStringList{"export", "table", "--state", "/dev/zero", "-o", "/tmp/never.png"},
          QStringList{"export", "lengthlab", "--run", "/dev/zero", "-o", "/tmp/never.png"}}) {
        const Binary b = runOffscreen(args);
        QVERIFY2(b.code == 2, qPrintable(args.join(' ') + ": " + b.err));
        QVERIFY2(b.err.contains("/dev/zero: it is a device, not a file"), b.err.constData());
        QCOMPARE(b.err.count('\n'), 1);
        QVERIFY2(b.cpuMs < 1000, qPrintable(QStringLiteral("%1: %2 ms of CPU").arg(args.join(' ')).arg(b.cpuMs)));
        QVERIFY2(b.peakKiB < peakLimitKiB, qPrintable(QStringLiteral("%1: %2 KiB").arg(args.join(' ')).arg(b.peakKiB)));
    }
    QVERIFY(!QFile::exists("/tmp/never.png"));
}

void TestCliInputs::endlessPipesAreCutAtTheBound()
{
    // A FIFO (or `<(command)`) is read until one block past the bound: 16 MiB for a config.json or a batch file,
    // 4 MiB for a session.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    struct Case {
        QStringList args;
        QByteArray says;
    };
    const QString fifo = dir.filePath("endless.json");
    const QList<Case> cases = {
        {{"presets", "--config", fifo},
         "model config " + fifo.toUtf8() + " is larger than 16 MiB; a config.json is a few kilobytes"},
        {{"export", "--batch", fifo},
         "batch file " + fifo.toUtf8() + " is larger than 16 MiB; a batch file is a few kilobytes"},
        {{"export", "table", "--state", fifo, "-o", dir.filePath("x.png")},
         fifo.toUtf8() + " is larger than 4 MiB; a session is a few kilobytes"},
    };
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    for (const Case& c : cases) {
        EndlessWriter writer(fifo);
        const Binary b = runOffscreen(c.args);
        QVERIFY2(b.code == 2, qPrintable(c.args.join(' ') + ": " + b.err));
        QVERIFY2(b.err.contains(c.says), b.err.constData());
        QCOMPARE(b.err.count('\n'), 1);
        QVERIFY2(b.cpuMs < 1000, qPrintable(QStringLiteral("%1: %2 ms of CPU").arg(c.args.join(' ')).arg(b.cpuMs)));
        QVERIFY2(b.peakKiB < peakLimitKiB,
                 qPrintable(QStringLiteral("%1: %2 KiB").arg(c.args.join(' ')).arg(b.peakKiB)));
    }
    QVERIFY(!QFile::exists(dir.filePath("x.png")));
    // A run file over its bound is refused as too large (it was cut at 16 MiB and then called invalid JSON).
    const QString big = dir.filePath("big-run.json");
    QVERIFY(QFile(big).open(QIODevice::WriteOnly));
    QCOMPARE(::truncate(big.toLocal8Bit().constData(), off_t(17) << 20), 0);
    const Binary b = runOffscreen({"export", "lengthlab", "--run", big, "-o", dir.filePath("x.png")});
    QCOMPARE(b.code, 2);
    QCOMPARE(b.err,
             "poslab: " + big.toUtf8() + " is larger than 16 MiB; a run file of poslab train is a few megabytes\n");
    QVERIFY2(b.cpuMs < 1000, qPrintable(QStringLiteral("%1 ms of CPU").arg(b.cpuMs)));
}

void TestCliInputs::emptyConfigNameIsOneLine()
{
    // Qt's "QFSFileEngine::open: No file name specified" came first.
    for (const QStringList& args :
         {QStringList{"presets", "--config", ""}, QStringList{"compute", "frequencies", "--config", ""}}) {
        const Binary b = runOffscreen(args);
        QCOMPARE(b.code, 2);
        QCOMPARE(b.err, QByteArray("poslab: cannot read model config: no file name given\n"));
    }
}

void TestCliInputs::corruptShareStringIsOneLine()
{
    // "qUncompress: Input data is corrupted" came before the line. A length header of 16
    // bytes followed by a zlib header and a broken stream.
    const QByteArray packed = QByteArray::fromHex("00000010789c0badbeefdeadbeef0000");
    const QString share
        = "PL2." + QString::fromLatin1(packed.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    QTemporaryDir dir;
    const Binary b = runOffscreen({"export", "table", "--state", share, "-o", dir.filePath("x.png")});
    QCOMPARE(b.code, 2);
    QCOMPARE(b.err, QByteArray("poslab: --state: share string does not decompress (cut short when copied?)\n"));
}

void TestCliInputs::tableWidthIsCheckedBeforeTheData()
{
    // A 1 GiB float32 .npy with the wrong --dim was read whole (3.1 GB peak) before "dimension
    // 4 differs". The header is checked against the request first. The file is sparse: 1 GiB that takes no disk.
    QTemporaryDir dir;
    const QString path = dir.filePath("big.npy");
    const std::string header = npy(npyDict("<f4", "(262144, 1024)"), std::string());
    writeFile(path.toStdString(), header);
    QCOMPARE(::truncate(path.toLocal8Bit().constData(), off_t(header.size()) + (off_t(1) << 30)), 0);
    const Binary b = runOffscreen({"compute", "encoding", "--scheme", "learned", "--set", "table_file=" + path, "--dim",
                                   "4", "--positions", "0:4"});
    QCOMPARE(b.code, 2);
    QVERIFY2(b.err.contains("dimension 4 differs from the table in " + path.toUtf8() + ", which has 1024 columns"),
             b.err.constData());
    QVERIFY2(b.cpuMs < 1000, qPrintable(QStringLiteral("%1 ms of CPU").arg(b.cpuMs)));
    QVERIFY2(b.peakKiB < peakLimitKiB, qPrintable(QStringLiteral("%1 KiB").arg(b.peakKiB)));
}

void TestCliInputs::float64BeyondFloat32IsRefused()
{
    // A float64 .npy holding 1e300 passed the finite check, became infinity in float32, and
    // compute encoding printed null with exit 0. Refused, naming the first such element.
    QTemporaryDir dir;
    const QString path = dir.filePath("wide.npy");
    const std::vector<double> values = {0.5, 1e300, -2.0, -1e39};
    std::string data;
    for (double v : values) {
        std::uint64_t w;
        std::memcpy(&w, &v, 8);
        data += le(w, 8);
    }
    writeFile(path.toStdString(), npy(npyDict("<f8", "(2, 2)"), data));
    Run r = run({"compute", "encoding", "--scheme", "learned", "--set", "table_file=" + path.toStdString(), "--dim",
                 "2", "--positions", "0:2"});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(
        r.err
            == "poslab: " + path.toStdString()
                + ": element [0, 1] is 1.0000000000000001e+300, beyond float32's "
                  "range (largest 3.4028235e+38), in which PosLab computes; scale the table or save it as float32\n",
        r.err.c_str());
    QVERIFY(r.out.empty());
    // Values float32 holds, the largest included, still load (rounded to nearest).
    const std::vector<double> fine = {0.5, 3.4028234663852886e38, -2.0, 1e-30};
    data.clear();
    for (double v : fine) {
        std::uint64_t w;
        std::memcpy(&w, &v, 8);
        data += le(w, 8);
    }
    const QString ok = dir.filePath("fine.npy");
    writeFile(ok.toStdString(), npy(npyDict("<f8", "(2, 2)"), data));
    r = run({"compute", "encoding", "--scheme", "learned", "--set", "table_file=" + ok.toStdString(), "--dim", "2",
             "--positions", "0:2"});
    QVERIFY2(r.status == exitOk, r.err.c_str());
    QVERIFY2(r.out.find("null") == std::string::npos, r.out.c_str());
}

void TestCliInputs::brokenSessionFromAFileManagerOpensTheWindow()
{
    // A file manager runs `poslab %U`; a broken .poslab ended with exit 2 and a line on a
    // stderr nobody sees. Now the window opens (it paints its first frame) with the problem in a dialog, the line
    // still goes to stderr, and the file is kept byte for byte (it is not made the session, so Save cannot
    // overwrite it). --open FILE, which a script gives, keeps its exit status 2.
    QTemporaryDir dir;
    const QString path = dir.filePath("lecture.poslab");
    const QByteArray broken = "{\"format\": \"poslab-session\", \"scheme\": ";
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(broken);
    }
    struct stat before = {};
    QCOMPARE(::stat(path.toLocal8Bit().constData(), &before), 0);
    const QString shot = dir.filePath("window.png");
    for (const QString& operand : {path, QStringLiteral("file://") + path}) {
        QFile::remove(shot);
        // --screenshot: the window opens, paints and is saved, then quits.
        const Binary b = runOffscreen({operand, "--screenshot", shot, "--size", "800x600"});
        QVERIFY2(b.code == 0, b.err.constData());
        QVERIFY2(b.err.contains("saved " + shot.toUtf8()), b.err.constData());
        QVERIFY(QFileInfo(shot).size() > 0);
        QVERIFY2(b.err.contains("poslab: " + path.toUtf8() + " is not JSON"), b.err.constData());
        QCOMPARE(b.err.count("poslab: "), 1);
    }
    const Binary scripted = runOffscreen({"--open", path, "--screenshot", shot, "--size", "800x600"});
    QCOMPARE(scripted.code, 2);
    QVERIFY2(scripted.err.startsWith("poslab: --open: " + path.toUtf8() + " is not JSON"), scripted.err.constData());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), broken);
    struct stat after = {};
    QCOMPARE(::stat(path.toLocal8Bit().constData(), &after), 0);
    QCOMPARE(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    QCOMPARE(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
}

QTEST_GUILESS_MAIN(TestCliInputs)
#include "tst_cli_inputs.moc"
