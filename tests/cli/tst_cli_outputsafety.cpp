// SPDX-License-Identifier: MIT
// Where outputs land and what they may replace (issue 38, items 1, 2, 7 and the long names of item 9):
// - a batch's outputs stay beneath its folder even while a folder on the way is swapped for a link that leads
//   out, and no temporary is left anywhere (core/io/outputfile.h, OutputFolder; openat2(2) RESOLVE_BENEATH and
//   the openat walk that does the same where the kernel lacks it);
// - an output that is the same file (st_dev, st_ino; stat(2)) as an input of the run is refused before
//   anything is written, and two batch entries writing one file are named;
// - names up to NAME_MAX (255 bytes, POSIX <limits.h>) are written, though the temporary adds 19 bytes;
// - text with a control character never makes an SVG that does not parse (XML 1.0 §2.2 Char excludes U+0000
//   to U+001F but tab, LF and CR, and U+FFFE, U+FFFF): --title and --content refuse them, and a state's
//   sentence has them replaced in the SVG.
#include "core/errors.h"
#include "core/io/outputfile.h"
#include "tests/cli/clirun.h"
#include "tests/tablefiles.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <cstdio>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

using poslab::core::OutputFolder;
using namespace poslab::test;

Q_DECLARE_METATYPE(OutputFolder::Resolution)

namespace {

constexpr int exitOk = 0;
constexpr int exitRefused = 1;
constexpr int exitUsage = 2;

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeText(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

/// Every file under @p root (links not followed) whose name ends in ".part".
QStringList temporariesUnder(const QString& root)
{
    QStringList found;
    QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path.endsWith(QLatin1String(".part")))
            found << path;
    }
    return found;
}

/// The names in @p dir (hidden ones too).
QStringList namesIn(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
}

/// Replaces the link @p link by one to @p target in one rename (a reader sees the old link or the new one).
void swapLink(const std::string& link, const std::string& target)
{
    const std::string fresh = link + ".new";
    ::unlink(fresh.c_str());
    if (::symlink(target.c_str(), fresh.c_str()) == 0)
        ::rename(fresh.c_str(), link.c_str());
}

QJsonObject tableEntry(const QString& output, int dim = 4)
{
    return {{"view", "table"}, {"scheme", "rope"}, {"dim", dim}, {"positions", 2}, {"output", output}};
}

void writeDeck(const QString& path, const QJsonArray& figures)
{
    writeText(path, QJsonDocument(QJsonObject{{"figures", figures}}).toJson());
}

/// A deck folder: root/deck/inside/sub and root/elsewhere/sub, with root/deck/figs a link to "inside".
struct DeckFolders {
    QTemporaryDir tmp;
    QString deck, inside, elsewhere, figs;
    DeckFolders()
    {
        deck = tmp.filePath("deck");
        inside = deck + "/inside";
        elsewhere = tmp.filePath("elsewhere");
        figs = deck + "/figs";
        QDir().mkpath(inside + "/sub");
        QDir().mkpath(elsewhere + "/sub");
        ::symlink("inside", figs.toLocal8Bit().constData());
    }
};

/// A Llama config.json (the shape of Meta-Llama-3.1-8B's, tests/cli/tst_cli_presets.cpp).
const char* llamaConfig = R"({"model_type": "llama", "head_dim": 128, "num_attention_heads": 32,
    "num_hidden_layers": 32, "max_position_embeddings": 131072, "rope_theta": 500000.0})";

/// A saved session (tests/fuzz/corpus/state/session-rope.poslab) with @p sentence as its attention sentence.
QByteArray session(const QString& sentence)
{
    QJsonObject view{{"content", "sentence"}, {"sentence", sentence}};
    return QJsonDocument(QJsonObject{{"format", "poslab-session"},
                                     {"version", 2},
                                     {"scheme", "rope"},
                                     {"dim", 16},
                                     {"positions", 16},
                                     {"view", view}})
        .toJson();
}

/// Empty when @p svg is well-formed XML, else the parser's message and where.
QString xmlError(const QByteArray& svg)
{
    QXmlStreamReader xml(svg);
    while (!xml.atEnd())
        xml.readNext();
    if (!xml.hasError())
        return {};
    return QStringLiteral("%1 at line %2, column %3")
        .arg(xml.errorString())
        .arg(xml.lineNumber())
        .arg(xml.columnNumber());
}

} // namespace

class TestCliOutputSafety : public QObject {
    Q_OBJECT
private slots:
    // item 1
    void batchRaceNeverWritesOutside();
    void coreRaceNeverWritesOutside_data();
    void coreRaceNeverWritesOutside();
    void beneathRules_data();
    void beneathRules();
    void swapDuringTheWriteChangesNothing_data();
    void swapDuringTheWriteChangesNothing();
    void batchLinkOutsideIsRefused();
    void batchAllowOutsideStillWritesThere();
    // item 2
    void deckOutputOverTheDeckIsRefused();
    void entryOverALaterEntrysStateIsRefused();
    void computeOverItsConfigIsRefused();
    void computeOverItsTableIsRefused();
    void exportOverItsStateIsRefused();
    void exportOverItsStatesTableIsRefused();
    void stateFromAPipeIsReadOnce();
    void duplicateOutputsAreNamed();
    // item 9
    void longNamesAreWritten_data();
    void longNamesAreWritten();
    void staleTemporaryOfALongNameIsRemoved();
    void tooLongANameIsRefusedBeforeTheWork();
    // item 7
    void controlCharactersInTextOptionsAreRefused_data();
    void controlCharactersInTextOptionsAreRefused();
    void tabInTitleGivesValidSvg();
    void stateSentenceWithControlCharactersGivesValidSvg();
};

void TestCliOutputSafety::batchRaceNeverWritesOutside()
{
    // The issue's race: a deck writes figs/sub/aN.csv while figs is swapped between a link inside and a link to
    // ../elsewhere. Checked against the folder at the start of each entry, the write landed outside when the swap
    // came between the check and the write, and a failed write removed its temporary by name through the link.
    DeckFolders d;
    constexpr int entries = 1500;
    QJsonArray figures;
    for (int i = 0; i < entries; ++i)
        figures.append(tableEntry(QStringLiteral("figs/sub/a%1.csv").arg(i)));
    const QString deck = d.deck + "/deck.json";
    writeDeck(deck, figures);
    std::atomic<bool> stop{false};
    std::atomic<int> swaps{0};
    std::thread swapper([&] {
        const std::string link = d.figs.toStdString();
        while (!stop.load()) {
            swapLink(link, "../elsewhere");
            swapLink(link, "inside");
            swaps.fetch_add(2);
        }
    });
    const Run r = runExport({"--batch", deck.toStdString()});
    stop.store(true);
    swapper.join();
    QVERIFY2(swaps.load() > 100, qPrintable(QString::number(swaps.load())));
    // Nothing outside, no temporary anywhere (the deck, its inside folder, elsewhere).
    QCOMPARE(namesIn(d.elsewhere + "/sub"), QStringList());
    QCOMPARE(namesIn(d.elsewhere), QStringList{"sub"});
    QCOMPARE(temporariesUnder(d.tmp.path()), QStringList());
    // Each entry either wrote inside or was refused for leaving the folder.
    const int written = int(namesIn(d.inside + "/sub").size());
    int refused = 0;
    for (const QString& line : QString::fromStdString(r.err).split('\n'))
        if (line.startsWith(QLatin1String("poslab: entry "))) {
            QVERIFY2(line.contains(QLatin1String("outside")), qPrintable(line));
            ++refused;
        }
    QCOMPARE(written + refused, entries);
    QCOMPARE(r.status, refused > 0 ? exitRefused : exitOk);
    QVERIFY2(written > 0, r.err.c_str());
}

void TestCliOutputSafety::coreRaceNeverWritesOutside_data()
{
    // clang-format off
    QTest::addColumn<OutputFolder::Resolution>("resolution");
    QTest::newRow("openat2") << OutputFolder::Resolution::Kernel;
    QTest::newRow("walk") << OutputFolder::Resolution::Walk;
    // clang-format on
}

void TestCliOutputSafety::coreRaceNeverWritesOutside()
{
    // The writer alone, many writes while the link flips: each lands inside or is refused, never outside,
    // with either way of resolving (the walk is what a kernel before 5.6 gets).
    QFETCH(OutputFolder::Resolution, resolution);
    DeckFolders d;
    const OutputFolder folder(d.deck.toStdString(), "stay inside", resolution);
    std::atomic<bool> stop{false};
    std::thread swapper([&] {
        const std::string link = d.figs.toStdString();
        while (!stop.load()) {
            swapLink(link, "../elsewhere");
            swapLink(link, "inside");
        }
    });
    int written = 0, refused = 0;
    std::string unexpected; // a refusal for another reason than leaving the folder
    for (int i = 0; i < 2000; ++i) {
        try {
            poslab::core::writeOutputFile(
                "figs/sub/b" + std::to_string(i) + ".txt", [&](std::ostream& out) { out << i << "\n"; }, &folder);
            ++written;
        } catch (const std::exception& e) {
            if (std::string(e.what()).find("leads outside folder") == std::string::npos)
                unexpected = e.what();
            ++refused;
        }
    }
    stop.store(true);
    swapper.join();
    QVERIFY2(unexpected.empty(), unexpected.c_str());
    QVERIFY(refused > 0);
    QCOMPARE(namesIn(d.elsewhere + "/sub"), QStringList());
    QCOMPARE(temporariesUnder(d.tmp.path()), QStringList());
    QCOMPARE(int(namesIn(d.inside + "/sub").size()), written);
    QCOMPARE(written + refused, 2000);
}

void TestCliOutputSafety::beneathRules_data()
{
    // clang-format off
    QTest::addColumn<OutputFolder::Resolution>("resolution");
    QTest::addColumn<QString>("link");     // what deck/figs points to ("" for no link)
    QTest::addColumn<QString>("output");   // relative to the deck ("@" stands for the deck's absolute path)
    QTest::addColumn<QString>("landsAt");  // relative to the temporary root, or "" when refused
    QTest::addColumn<QString>("message");  // a part of the refusal
    for (const auto& [tag, res] : {std::pair{"openat2", OutputFolder::Resolution::Kernel},
                                   std::pair{"walk", OutputFolder::Resolution::Walk}}) {
        const QString t = QString::fromLatin1(tag);
        QTest::newRow(qPrintable(t + " link inside")) << res << "inside" << "figs/sub/x.csv" << "deck/inside/sub/x.csv" << "";
        QTest::newRow(qPrintable(t + " link outside")) << res << "../elsewhere" << "figs/sub/x.csv" << "" << "figs is a symbolic link to ../elsewhere";
        QTest::newRow(qPrintable(t + " absolute link")) << res << "@/inside" << "figs/sub/x.csv" << "" << "an absolute path";
        QTest::newRow(qPrintable(t + " dot-dot")) << res << "inside" << "../elsewhere/sub/x.csv" << "" << "leads outside folder";
        QTest::newRow(qPrintable(t + " dot-dot inside")) << res << "inside" << "inside/../inside/sub/x.csv" << "deck/inside/sub/x.csv" << "";
        QTest::newRow(qPrintable(t + " absolute inside")) << res << "inside" << "@/inside/sub/x.csv" << "deck/inside/sub/x.csv" << "";
        QTest::newRow(qPrintable(t + " absolute outside")) << res << "inside" << "@/../elsewhere/sub/x.csv" << "" << "leads outside folder";
        QTest::newRow(qPrintable(t + " missing folder")) << res << "inside" << "figs/nope/x.csv" << "" << "folder figs/nope does not exist";
    }
    // clang-format on
}

void TestCliOutputSafety::beneathRules()
{
    QFETCH(OutputFolder::Resolution, resolution);
    QFETCH(QString, link);
    QFETCH(QString, output);
    QFETCH(QString, landsAt);
    QFETCH(QString, message);
    DeckFolders d;
    ::unlink(d.figs.toLocal8Bit().constData());
    QVERIFY(::symlink(link.replace('@', d.deck).toLocal8Bit().constData(), d.figs.toLocal8Bit().constData()) == 0);
    output.replace('@', d.deck);
    const OutputFolder folder(d.deck.toStdString(), "add \"allow_outside\": true", resolution);
    std::string error;
    try {
        poslab::core::writeOutputFile(
            output.toStdString(), [](std::ostream& out) { out << "x\n"; }, &folder);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (landsAt.isEmpty()) {
        QVERIFY2(error.find(message.toStdString()) != std::string::npos, error.c_str());
        QCOMPARE(namesIn(d.elsewhere + "/sub"), QStringList());
        QCOMPARE(namesIn(d.inside + "/sub"), QStringList());
    } else {
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(readAll(d.tmp.filePath(landsAt)), QByteArray("x\n"));
    }
    QCOMPARE(temporariesUnder(d.tmp.path()), QStringList());
    // Without a folder to stay in, a link on the way is followed as before (compute -o, allow_outside).
    if (link == "../elsewhere") {
        poslab::core::writeOutputFile((d.deck + "/" + output).toStdString(), [](std::ostream& out) { out << "y\n"; });
        QCOMPARE(readAll(d.elsewhere + "/sub/x.csv"), QByteArray("y\n"));
    }
}

void TestCliOutputSafety::swapDuringTheWriteChangesNothing_data()
{
    QTest::addColumn<bool>("confined");
    QTest::addColumn<bool>("fails");
    // clang-format off
    QTest::newRow("anywhere, written") << false << false;
    QTest::newRow("anywhere, failing") << false << true;
    QTest::newRow("beneath, written") << true << false;
    QTest::newRow("beneath, failing") << true << true;
    // clang-format on
}

void TestCliOutputSafety::swapDuringTheWriteChangesNothing()
{
    // The race made deterministic: figs is swapped for a link to ../elsewhere while the bytes are written. The
    // file lands in the folder opened before (inside/sub), and a write that fails removes its temporary from
    // there; a removal by name went through the swapped link, missed, and left the .part file behind.
    QFETCH(bool, confined);
    QFETCH(bool, fails);
    DeckFolders d;
    const OutputFolder folder(d.deck.toStdString(), std::string());
    const std::string path = confined ? "figs/sub/x.csv" : (d.figs + "/sub/x.csv").toStdString();
    bool threw = false;
    try {
        poslab::core::writeOutputFile(
            path,
            [&](std::ostream& out) {
                out << "x\n";
                swapLink(d.figs.toStdString(), "../elsewhere");
                if (fails)
                    throw std::runtime_error("the body failed");
            },
            confined ? &folder : nullptr);
    } catch (const std::runtime_error&) {
        threw = true;
    }
    QCOMPARE(threw, fails);
    QCOMPARE(namesIn(d.elsewhere + "/sub"), QStringList());
    QCOMPARE(namesIn(d.inside + "/sub"), fails ? QStringList() : QStringList{"x.csv"});
    QCOMPARE(temporariesUnder(d.tmp.path()), QStringList());
}

void TestCliOutputSafety::batchLinkOutsideIsRefused()
{
    DeckFolders d;
    swapLink(d.figs.toStdString(), "../elsewhere");
    writeDeck(d.deck + "/deck.json", {tableEntry("figs/sub/a.csv")});
    const Run r = runExport({"--batch", (d.deck + "/deck.json").toStdString()});
    QCOMPARE(r.status, exitRefused);
    QVERIFY2(r.err.find("entry 1 (figs/sub/a.csv): ") != std::string::npos
                 && r.err.find("outside the batch file's folder") != std::string::npos
                 && r.err.find("\"allow_outside\": true") != std::string::npos,
             r.err.c_str());
    QCOMPARE(namesIn(d.elsewhere + "/sub"), QStringList());
}

void TestCliOutputSafety::batchAllowOutsideStillWritesThere()
{
    DeckFolders d;
    swapLink(d.figs.toStdString(), "../elsewhere");
    writeText(d.deck + "/deck.json",
              QJsonDocument(QJsonObject{{"allow_outside", true}, {"figures", QJsonArray{tableEntry("figs/sub/a.csv")}}})
                  .toJson());
    const Run r = runExport({"--batch", (d.deck + "/deck.json").toStdString()});
    QCOMPARE(r.status, exitOk);
    QVERIFY(readAll(d.elsewhere + "/sub/a.csv").startsWith("position,"));
}

void TestCliOutputSafety::deckOutputOverTheDeckIsRefused()
{
    // The issue: "output": "deck.json" replaced the deck with 708 KB of figure data.
    QTemporaryDir tmp;
    const QString deck = tmp.filePath("deck.json");
    writeDeck(deck, {tableEntry("deck.json"), tableEntry("a.csv")});
    const QByteArray before = readAll(deck);
    const Run r = runExport({"--batch", deck.toStdString()});
    QCOMPARE(r.status, exitRefused);
    const std::string expected = "entry 1 (deck.json): cannot write " + deck.toStdString()
        + ": it is the same file as the batch file (" + deck.toStdString()
        + "), which this run reads; give another output name";
    QVERIFY2(r.err.find(expected) != std::string::npos, r.err.c_str());
    QCOMPARE(readAll(deck), before);
    QVERIFY(readAll(tmp.filePath("a.csv")).startsWith("position,"));
}

void TestCliOutputSafety::entryOverALaterEntrysStateIsRefused()
{
    // The issue: entry 3 replaced the state file entry 4 reads. Refused before entry 1 is drawn, so entry 2
    // reads the state as it was.
    QTemporaryDir tmp;
    const QString state = tmp.filePath("s.json");
    writeText(state, session("the cat sat"));
    const QByteArray before = readAll(state);
    QJsonObject second = tableEntry("b.csv");
    second.remove("scheme");
    second.remove("dim");
    second.insert("state", "s.json");
    writeDeck(tmp.filePath("deck.json"), {tableEntry("s.json"), second});
    const Run r = runExport({"--batch", tmp.filePath("deck.json").toStdString()});
    QCOMPARE(r.status, exitRefused);
    QVERIFY2(r.err.find("entry 1 (s.json): cannot write " + state.toStdString()
                        + ": it is the same file as the state file of entry 2 (" + state.toStdString() + ")")
                 != std::string::npos,
             r.err.c_str());
    QCOMPARE(readAll(state), before);
    QVERIFY2(r.out.find("wrote " + tmp.filePath("b.csv").toStdString()) != std::string::npos, r.out.c_str());
}

void TestCliOutputSafety::computeOverItsConfigIsRefused()
{
    QTemporaryDir tmp;
    const QString config = tmp.filePath("c.json");
    writeText(config, llamaConfig);
    // A hard link is the same file under another name: compared by device and inode, not by name.
    const QString other = tmp.filePath("other.json");
    QVERIFY(::link(config.toLocal8Bit().constData(), other.toLocal8Bit().constData()) == 0);
    for (const QString& output : {config, other}) {
        const Run r = run({"compute", "position_ids", "--config", config.toStdString(), "-o", output.toStdString()});
        QCOMPARE(r.status, exitUsage);
        QCOMPARE(r.err,
                 "poslab: cannot write " + output.toStdString() + ": it is the same file as the --config file ("
                     + config.toStdString() + "), which this run reads; give another output name\n");
        QCOMPARE(readAll(config), QByteArray(llamaConfig));
    }
    // The same with --config=FILE and another quantity; a different output is written.
    QCOMPARE(run({"compute", "frequencies", "--config", config.toStdString(), "-o", config.toStdString()}).status,
             exitUsage);
    QCOMPARE(run({"compute", "position_ids", "--config=" + config.toStdString(), "-o", config.toStdString()}).status,
             exitUsage);
    QCOMPARE(
        run({"compute", "frequencies", "--config", config.toStdString(), "-o", tmp.filePath("f.json").toStdString()})
            .status,
        exitOk);
}

void TestCliOutputSafety::computeOverItsTableIsRefused()
{
    QTemporaryDir tmp;
    const QString table = tmp.filePath("t.npy");
    const std::string bytes = npy(npyDict("<f4", "(4, 4)"), f32Bytes(std::vector<float>(16, 0.5f)));
    writeFile(table.toStdString(), bytes);
    const std::vector<std::string> args
        = {"compute", "encoding", "--scheme",    "learned", "--set", "table_file=" + table.toStdString(),
           "--dim",   "4",        "--positions", "0:4"};
    std::vector<std::string> over = args;
    over.insert(over.end(), {"-o", table.toStdString()});
    const Run r = run(over);
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(r.err.find("it is the same file as the table_file (" + table.toStdString() + ")") != std::string::npos,
             r.err.c_str());
    QCOMPARE(readAll(table).toStdString(), bytes);
    std::vector<std::string> elsewhere = args;
    elsewhere.insert(elsewhere.end(), {"-o", tmp.filePath("e.json").toStdString()});
    QCOMPARE(run(elsewhere).status, exitOk);
}

void TestCliOutputSafety::exportOverItsStateIsRefused()
{
    QTemporaryDir tmp;
    const QString state = tmp.filePath("s.json");
    writeText(state, session("the cat sat"));
    const QByteArray before = readAll(state);
    const Run r = runExport({"table", "--state", state.toStdString(), "-o", state.toStdString()});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(r.err.find("it is the same file as the --state file (" + state.toStdString() + ")") != std::string::npos,
             r.err.c_str());
    QCOMPARE(readAll(state), before);
}

void TestCliOutputSafety::exportOverItsStatesTableIsRefused()
{
    // The table_file a state names (a --state file, a deck entry's own state, a later entry's state) is an input as
    // --set table_file is: -o over it replaced a 4 x 4 table with the figure's data and exited 0.
    QTemporaryDir tmp;
    const QString table = tmp.filePath("t.npy");
    const std::string bytes = npy(npyDict("<f4", "(4, 4)"), f32Bytes(std::vector<float>(16, 0.5f)));
    writeFile(table.toStdString(), bytes);
    const QJsonObject state{
        {"scheme", "learned"}, {"dim", 4}, {"positions", 4}, {"params", QJsonObject{{"table_file", table}}}};
    const QString stateFile = tmp.filePath("s.json");
    writeText(stateFile, QJsonDocument(state).toJson());
    const Run r = runExport({"table", "--state", stateFile.toStdString(), "-o", table.toStdString()});
    QCOMPARE(r.status, exitUsage);
    QCOMPARE(r.err,
             "poslab: cannot write " + table.toStdString() + ": it is the same file as the table_file of the state ("
                 + table.toStdString() + "), which this run reads; give another output name\n");
    QCOMPARE(readAll(table).toStdString(), bytes);
    // A deck: the entry's own state, and an earlier entry over the table a later entry's state reads.
    const QJsonObject stateEntry{{"view", "table"}, {"state", state}, {"output", "t.npy"}};
    QJsonObject reader = stateEntry;
    reader["output"] = "o.csv";
    writeDeck(tmp.filePath("deck.json"), {stateEntry, tableEntry("t.npy"), reader});
    const Run deck = runExport({"--batch", tmp.filePath("deck.json").toStdString()});
    QCOMPARE(deck.status, exitRefused);
    for (const std::string& entry : {std::string("entry 1"), std::string("entry 2")})
        QVERIFY2(deck.err.find(entry + " (t.npy): cannot write " + table.toStdString()
                               + ": it is the same file as the table_file of the state of entry 1")
                     != std::string::npos,
                 deck.err.c_str());
    QCOMPARE(readAll(table).toStdString(), bytes);
    QVERIFY(QFileInfo::exists(tmp.filePath("o.csv")));
    // Another output of the same state is written.
    QCOMPARE(runExport({"table", "--state", stateFile.toStdString(), "-o", tmp.filePath("b.npy").toStdString()}).status,
             exitOk);
}

void TestCliOutputSafety::stateFromAPipeIsReadOnce()
{
    // Looking for the tables a state names must not read a pipe the state's own load then finds empty ("--state:
    // /dev/stdin is not JSON"). The writer serves one reader; a second one gets end of file after a second.
    QTemporaryDir tmp;
    const std::string fifo = tmp.filePath("state").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    const QByteArray json = session("the cat sat");
    std::thread writer([&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY); // until the first reader opens it
        if (fd >= 0) {
            if (::write(fd, json.constData(), std::size_t(json.size())) != json.size())
                std::perror("write");
            ::close(fd);
        }
        std::this_thread::sleep_for(std::chrono::seconds(1));
        if (const int again = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); again >= 0)
            ::close(again); // a second reader, if any, sees end of file
    });
    const Run r = runExport({"table", "--state", fifo, "-o", tmp.filePath("t.svg").toStdString()});
    writer.join();
    QVERIFY2(r.status == exitOk, r.err.c_str());
    QVERIFY(QFileInfo::exists(tmp.filePath("t.svg")));
}

void TestCliOutputSafety::duplicateOutputsAreNamed()
{
    // Two entries writing a.csv: both are drawn and the later one's file stays, and the warning says so before
    // anything is written.
    QTemporaryDir tmp;
    writeDeck(tmp.filePath("deck.json"), {tableEntry("a.csv", 4), tableEntry("b.csv"), tableEntry("./a.csv", 8)});
    const Run r = runExport({"--batch", tmp.filePath("deck.json").toStdString()});
    QCOMPARE(r.status, exitOk);
    const std::string path = tmp.filePath("a.csv").toStdString();
    QCOMPARE(r.err,
             "poslab: warning: entries 1 and 3 both write " + path
                 + "; entry 3 is written after entry 1 and replaces it\n");
    // dim 8: rope's table has one column per pair (4) after the position; dim 4 would have 2.
    const QByteArray header = readAll(tmp.filePath("a.csv")).split('\n').first();
    QCOMPARE(header.count(','), 4);
}

void TestCliOutputSafety::longNamesAreWritten_data()
{
    // clang-format off
    QTest::addColumn<int>("bytes");
    QTest::newRow("236") << 236;
    QTest::newRow("237") << 237;
    QTest::newRow("254") << 254;
    QTest::newRow("255") << 255;
    QTest::newRow("255 with a 2-byte character at the cut") << -255;
    // clang-format on
}

void TestCliOutputSafety::longNamesAreWritten()
{
    // NAME_MAX is 255 bytes; ".NAME.XXXXXXXXXXXX.part" used to add 19 and fail from 237 on ("File name too
    // long").
    QFETCH(int, bytes);
    QTemporaryDir tmp;
    std::string name;
    if (bytes > 0) {
        name = std::string(std::size_t(bytes) - 5, 'n') + ".json";
    } else {
        // "é" (2 bytes) over bytes 236 and 237: the temporary's cut at 236 must not split it.
        name = std::string(235, 'n') + "\xc3\xa9" + std::string(std::size_t(-bytes) - 242, 'm') + ".json";
    }
    QCOMPARE(int(name.size()), std::abs(bytes));
    const std::string path = tmp.filePath(QString::fromStdString(name)).toStdString();
    const Run r = run({"compute", "frequencies", "--scheme", "rope", "--dim", "4", "-o", path});
    QVERIFY2(r.status == exitOk, r.err.c_str());
    QVERIFY(QFileInfo::exists(QString::fromStdString(path)));
    QCOMPARE(namesIn(tmp.path()).size(), 1);
}

void TestCliOutputSafety::tooLongANameIsRefusedBeforeTheWork()
{
    // 256 bytes (with a 3-byte character): the temporary's name is cut to fit, so the write went through and the
    // rename said "File name too long" once the figure was made, with exit 1. Now refused first, with exit 2.
    QTemporaryDir tmp;
    std::string name;
    for (int i = 0; i < 83; ++i)
        name += "\xe2\x82\xac"; // U+20AC, 3 bytes
    for (const std::string& ext : {std::string("abc.csv"), std::string("abc.gif")}) {
        const std::string path = tmp.filePath(QString::fromStdString(name + ext)).toStdString();
        QCOMPARE(int((name + ext).size()), 256);
        const Run r = ext.back() == 'v'
            ? run({"compute", "frequencies", "--scheme", "rope", "--dim", "4", "-o", path})
            : runExport({"clock", "--scheme", "rope", "--frames", "2", "--size", "64x64", "-o", path});
        QCOMPARE(r.status, exitUsage);
        QCOMPARE(
            r.err,
            "poslab: cannot write " + path
                + ": its name is 256 bytes, more than the folder's file system takes (255); give a shorter name\n");
    }
    QVERIFY(namesIn(tmp.path()).isEmpty());
}

void TestCliOutputSafety::staleTemporaryOfALongNameIsRemoved()
{
    // The temporary of a 255-byte name is cut to fit; an interrupted write's one is still recognised as its.
    QTemporaryDir tmp;
    const std::string name = std::string(250, 'n') + ".json";
    const std::string temporary = "." + name.substr(0, 236) + ".abcdefghij12.part";
    QCOMPARE(int(temporary.size()), 255);
    const QString stale = tmp.filePath(QString::fromStdString(temporary));
    writeText(stale, "partial");
    const struct timeval old[2] = {{std::time(nullptr) - 60, 0}, {std::time(nullptr) - 60, 0}};
    QVERIFY(::utimes(stale.toLocal8Bit().constData(), old) == 0);
    QCOMPARE(poslab::core::removeStaleTemporaries(tmp.filePath(QString::fromStdString(name)).toStdString()), 1);
    QVERIFY(!QFileInfo::exists(stale));
}

void TestCliOutputSafety::controlCharactersInTextOptionsAreRefused_data()
{
    // clang-format off
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("kind");
    QTest::newRow("title U+0001") << "--title" << QStringLiteral("a\x01" "b") << "U+0001" << "a control character";
    QTest::newRow("title ESC") << "--title" << QStringLiteral("a\x1b[2Jb") << "U+001B" << "a control character";
    QTest::newRow("title U+FFFF") << "--title" << QString(QChar(0xffff)) << "U+FFFF" << "a noncharacter";
    QTest::newRow("content U+0002") << "--content" << QStringLiteral("the\x02" "cat sat") << "U+0002" << "a control character";
    // clang-format on
}

void TestCliOutputSafety::controlCharactersInTextOptionsAreRefused()
{
    QFETCH(QString, option);
    QFETCH(QString, text);
    QFETCH(QString, code);
    QFETCH(QString, kind);
    QTemporaryDir tmp;
    const std::string out = tmp.filePath("t.svg").toStdString();
    const std::string view = option == "--content" ? "attention" : "table";
    const Run r = runExport({view, "--scheme", "rope", "--dim", "8", "--positions", "4", option.toStdString(),
                             text.toStdString(), "-o", out});
    QCOMPARE(r.status, exitUsage);
    QCOMPARE(r.err,
             "poslab: " + option.toStdString() + " holds " + code.toStdString() + " (" + kind.toStdString()
                 + "), which a figure cannot show; give text without it\n");
    QVERIFY(!QFileInfo::exists(QString::fromStdString(out)));
}

void TestCliOutputSafety::tabInTitleGivesValidSvg()
{
    QTemporaryDir tmp;
    const QString out = tmp.filePath("t.svg");
    const Run r = runExport({"table", "--scheme", "rope", "--dim", "8", "--positions", "4", "--title", "a\tb & <c>",
                             "-o", out.toStdString()});
    QCOMPARE(r.status, exitOk);
    const QByteArray svg = readAll(out);
    QCOMPARE(xmlError(svg), QString());
    QVERIFY(svg.contains("<title>a\tb &amp; &lt;c&gt;</title>"));
}

void TestCliOutputSafety::stateSentenceWithControlCharactersGivesValidSvg()
{
    // A state's sentence is not an option the command line can refuse: its words reach the attention view's
    // labels and the SVG, where each character XML cannot hold becomes U+FFFD.
    QTemporaryDir tmp;
    const QString state = tmp.filePath("s.poslab");
    writeText(state,
              session(QStringLiteral("the c\x01"
                                     "at sat\x1b on the mat")));
    for (const char* view : {"attention"}) {
        const QString out = tmp.filePath(QStringLiteral("%1.svg").arg(QLatin1String(view)));
        const Run r = runExport({view, "--state", state.toStdString(), "-o", out.toStdString()});
        QVERIFY2(r.status == exitOk, r.err.c_str());
        const QByteArray svg = readAll(out);
        QCOMPARE(xmlError(svg), QString());
        QVERIFY(svg.contains(">c\xef\xbf\xbd"
                             "at</text>")); // the label "c<U+0001>at", U+0001 now U+FFFD
        for (char c = 0; c < 0x20; ++c)
            if (c != '\t' && c != '\n' && c != '\r')
                QVERIFY2(!svg.contains(c), qPrintable(QString::number(int(c))));
    }
}

QTEST_APPLESS_MAIN(TestCliOutputSafety)
#include "tst_cli_outputsafety.moc"
