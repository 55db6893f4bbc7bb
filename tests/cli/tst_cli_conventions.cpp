// SPDX-License-Identifier: MIT
// Command-line conventions: every option of every command in both GNU spellings, "--" ending the
// options, --help and --version on every command, write errors on standard output, SVG titles that stay
// XML, one-line refusals without a display, and usage errors with exit status 2.
// Conventions checked against GNU getopt_long (glibc manual, "Getopt Long Options": "--name=value" and
// "--name value" are equivalent; "--" ends option scanning) and Qt's QCommandLineParser, which accepts both.
#include "app/cli.h"
#include "app/exportcli.h"

#include "tests/cli/binaryrun.h"
#include "tests/cli/clirun.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <sstream>

using namespace poslab::app;
using poslab::test::Binary;
using poslab::test::runBinary;

namespace {

using Outcome = poslab::test::Run;

Outcome compute(const std::vector<std::string>& args)
{
    return poslab::test::run(args);
}

// Export's parser only: an unknown view stops every request after its options were read, before Qt starts.
Outcome exportParse(const std::vector<std::string>& args)
{
    return poslab::test::runExport(args);
}

std::string windowFields(const std::vector<std::string>& args)
{
    try {
        const WindowArgs w = parseWindowArgs(args);
        std::string s = "|";
        for (const auto* v :
             {&w.screenshot, &w.size, &w.theme, &w.scheme, &w.computePath, &w.maximise, &w.dim, &w.positions,
              &w.fontScale, &w.platform, &w.display, &w.state, &w.open, &w.preset, &w.config, &w.soak, &w.lesson})
            s += (*v ? **v : std::string("<none>")) + "|";
        for (const std::string& q : w.qtArgs)
            s += "qt:" + q + "|";
        return s + std::to_string(w.hidePanels) + std::to_string(w.help) + std::to_string(w.version);
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

} // namespace

class TestCliConventions : public QObject {
    Q_OBJECT
private slots:
    void everyOptionTakesBothSpellings_data();
    void everyOptionTakesBothSpellings();
    void flagsRefuseAValue();
    void doubleDashEndsOptions();
    void helpAndVersionOnEveryCommand();
    void writeErrorOnStandardOutput();
    void svgTitleIsEscaped();
    void noDisplayIsOneLine();
    void noDisplayReasonFollowsThePlatform();
    void exportCapMessageNamesNoMissingOption();
    void outOfRangeFigureOptionsAreUsageErrors();
    void messagesAndBatchPaths();
    void repeatedOptionsAndWholeNumbers();
    void spatialFiguresRefuseAlike();
};

void TestCliConventions::everyOptionTakesBothSpellings_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("value");
    auto rows = [](const char* command, const std::vector<OptionSpec>& options) {
        for (const OptionSpec& o : options)
            if (o.takesValue)
                QTest::newRow((std::string(command) + " " + o.name).c_str()) << command << o.name << o.example;
    };
    rows("compute", computeOptions());
    rows("export", exportOptions());
    rows("window", windowOptions());
    rows("schemes", schemesOptions()); // none today; a new one is checked without editing this test
    rows("presets", presetsOptions());
    rows("bench", benchOptions());
    rows("lessons", lessonsOptions());
}

void TestCliConventions::everyOptionTakesBothSpellings()
{
    QFETCH(QString, command);
    QFETCH(QString, option);
    QFETCH(QString, value);
    const std::string opt = option.toStdString(), v = value.toStdString();
    QVERIFY2(!v.empty(), "an option that takes a value needs an example in its table");
    if (command == "window") {
        const std::string spaced = windowFields({opt, v});
        QCOMPARE(windowFields({opt + "=" + v}), spaced);
        // The value arrived: in our field, or (one of Qt's options) in QApplication's words as Qt reads them,
        // "-style" "Fusion".
        const std::string expected = opt.rfind("--", 0) == 0 ? "|" + v + "|" : "qt:" + opt + "|qt:" + v + "|";
        QVERIFY2(spaced.find(expected) != std::string::npos, spaced.c_str());
        return;
    }
    std::vector<std::string> base;
    if (command == "compute")
        base = {"compute", "encoding", "--scheme", "sinusoidal", "--dim", "8", "--positions", "0:2"};
    else if (command == "export")
        base = {"export", "nosuchview", "--scheme", "rope", "-o", "x.png"};
    else
        base = {command.toStdString()};
    // The option under test takes the place of the base's own (an option given twice is refused).
    for (std::size_t i = 0; i + 1 < base.size();)
        if (base[i] == opt || (opt == "--output" && base[i] == "-o"))
            base.erase(base.begin() + std::ptrdiff_t(i), base.begin() + std::ptrdiff_t(i) + 2);
        else
            ++i;
    auto with = [&](std::vector<std::string> words) {
        std::vector<std::string> args = base;
        args.insert(args.end(), words.begin(), words.end());
        return command == "export" ? exportParse(args) : compute(args);
    };
    const Outcome spaced = with({opt, v});
    const Outcome joined = with({opt + "=" + v});
    QCOMPARE(joined.status, spaced.status);
    QCOMPARE(joined.err, spaced.err);
    QCOMPARE(joined.out, spaced.out);
    QVERIFY2(joined.err.find("unknown option") == std::string::npos, joined.err.c_str());
    QVERIFY2(joined.err.find("needs a value") == std::string::npos, joined.err.c_str());
    if (command == "export") // parsed through to the view check: the option and its value were accepted
        QVERIFY2(joined.err.find("unknown view 'nosuchview'") != std::string::npos
                     || joined.err.find("--batch takes one") != std::string::npos,
                 joined.err.c_str());
}

void TestCliConventions::flagsRefuseAValue()
{
    auto check = [](const char* command, const std::vector<OptionSpec>& options) {
        for (const OptionSpec& o : options) {
            if (o.takesValue)
                continue;
            const std::string word = std::string(o.name) + "=1";
            std::string err;
            int status = 0;
            if (std::string(command) == "export") {
                const Outcome r = exportParse({"export", "table", word});
                err = r.err;
                status = r.status;
            } else if (std::string(command) == "window") {
                err = windowFields({word});
                status = err.rfind("error: ", 0) == 0 ? exitUsage : 0;
            } else {
                const Outcome r = compute({command, word});
                err = r.err;
                status = r.status;
            }
            QVERIFY2(status == exitUsage, word.c_str());
            QVERIFY2(err.find("takes no value") != std::string::npos, (word + ": " + err).c_str());
        }
    };
    check("compute", computeOptions());
    check("schemes", schemesOptions());
    check("presets", presetsOptions());
    check("bench", benchOptions());
    check("lessons", lessonsOptions());
    check("export", exportOptions());
    check("window", windowOptions());
}

void TestCliConventions::doubleDashEndsOptions()
{
    // After "--" a word that looks like an option is an operand: here a second quantity, refused as such.
    const Outcome r = compute({"compute", "encoding", "--scheme", "sinusoidal", "--", "--dim"});
    QCOMPARE(r.status, exitUsage);
    QVERIFY2(r.err.find("unexpected argument '--dim'") != std::string::npos, r.err.c_str());
    // The quantity may follow "--"; a final "--" ends nothing and is harmless.
    const Outcome a
        = compute({"compute", "--scheme", "sinusoidal", "--dim", "2", "--positions", "0:1", "--", "encoding"});
    const Outcome b
        = compute({"compute", "encoding", "--scheme", "sinusoidal", "--dim", "2", "--positions", "0:1", "--"});
    QCOMPARE(a.status, 0);
    QCOMPARE(a.out, b.out);
    QVERIFY(a.out.find("\"shape\":[1,2]") != std::string::npos);
    // export: the view after "--"; a value that starts with '-' is still a value.
    const Outcome e = exportParse({"export", "--scheme", "rope", "-o", "x.png", "--", "--nosuchview"});
    QVERIFY2(e.err.find("unknown view '--nosuchview'") != std::string::npos, e.err.c_str());
    QCOMPARE(windowFields({"--", "--dim"}).rfind("error: unknown command '--dim'", 0), std::size_t(0));
}

void TestCliConventions::helpAndVersionOnEveryCommand()
{
    // The version is CMake's project version and the revision the build was configured from.
    const Outcome v = compute({"--version"});
    QCOMPARE(v.status, 0);
    const QRegularExpression form(QStringLiteral("^poslab %1 \\(git ([0-9a-f]{4,40}|unknown)\\)\\n$")
                                      .arg(QRegularExpression::escape(QStringLiteral(POSLAB_PROJECT_VERSION))));
    QVERIFY2(form.match(QString::fromStdString(v.out)).hasMatch(), v.out.c_str());
    for (const char* command : {"compute", "schemes", "presets", "bench", "lessons"}) {
        for (const char* help : {"--help", "-h"}) {
            const Outcome h = compute({command, help});
            QCOMPARE(h.status, 0);
            QCOMPARE(h.out, usage());
            QVERIFY(h.err.empty());
        }
        QCOMPARE(compute({command, "--version"}), v);
    }
    // compute --help after other options too (it used to say "unknown quantity '--help'").
    QCOMPARE(compute({"compute", "encoding", "--scheme", "sinusoidal", "--help"}).out, usage());
    const Outcome eh = exportParse({"export", "--help"});
    QCOMPARE(eh.status, 0);
    QCOMPARE(eh.out, exportUsage());
    QCOMPARE(exportParse({"export", "table", "--scheme", "rope", "-h"}).out, exportUsage());
    QCOMPARE(exportParse({"export", "--version"}).out, v.out);
    // Qt's own options in either spelling reach QApplication as "-name value".
    QCOMPARE(windowFields({"--style=Fusion", "-reverse"}), windowFields({"-style", "Fusion", "--reverse"}));
    QVERIFY(windowFields({"--style=Fusion", "--reverse"}).find("qt:-style|qt:Fusion|qt:-reverse|")
            != std::string::npos);
    QCOMPARE(windowFields({"--version"}).substr(windowFields({"--version"}).size() - 3), std::string("001"));
    QCOMPARE(windowFields({"--help"}).substr(windowFields({"--help"}).size() - 3), std::string("010"));
    // The binary: poslab --version from the window's entry point.
    const Binary b = runBinary({"--version"});
    QCOMPARE(b.code, 0);
    QCOMPARE(b.out.toStdString(), v.out);
}

void TestCliConventions::writeErrorOnStandardOutput()
{
    if (!QFile::exists(QStringLiteral("/dev/full")))
        QSKIP("no /dev/full here");
    for (const QStringList& args :
         {QStringList{"compute", "encoding", "--scheme", "sinusoidal"}, QStringList{"schemes", "--json"},
          QStringList{"export", "--help"}, QStringList{"--version"}}) {
        const Binary r = runBinary(args, QProcessEnvironment::systemEnvironment(), QStringLiteral("/dev/full"));
        QVERIFY2(r.code == exitRefused, qPrintable(args.join(' ') + ": " + QString::number(r.code)));
        QVERIFY2(r.err.contains("writing standard output failed"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
    }
}

void TestCliConventions::svgTitleIsEscaped()
{
    QTemporaryDir dir;
    const QString title = QStringLiteral("a & b <x> \"q\"");
    auto check = [&](const QString& path) {
        QFile f(path);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
        QXmlStreamReader xml(&f);
        QString seen;
        int elements = 0;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement()) {
                ++elements;
                QVERIFY2(xml.name() != QLatin1String("x"), "the title injected an element");
                if (xml.name() == QLatin1String("title") && seen.isEmpty())
                    seen = xml.readElementText();
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(elements > 2);
        QCOMPARE(seen, title);
    };
    const QString one = dir.filePath(QStringLiteral("one.svg"));
    const Binary r = runBinary({"export", "table", "--scheme", "rope", "--dim", "8", "--positions", "8", "--size",
                                "240x160", "--title", title, "-o", one});
    QVERIFY2(r.code == 0, r.err.constData());
    check(one);
    // The batch "title" takes the same path.
    QFile deck(dir.filePath(QStringLiteral("deck.json")));
    QVERIFY(deck.open(QIODevice::WriteOnly));
    deck.write(R"({"figures": [{"view": "clock", "scheme": "rope", "dim": 8, "positions": 8, "size": "240x160",
                   "title": "a & b <x> \"q\"", "output": "two.svg"}]})");
    deck.close();
    const Binary b = runBinary({"export", "--batch", deck.fileName()});
    QVERIFY2(b.code == 0, b.err.constData());
    check(dir.filePath(QStringLiteral("two.svg")));
}

void TestCliConventions::noDisplayIsOneLine()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QString::fromLatin1(name));
    const struct {
        QStringList args;
        const char* mentions;
    } cases[] = {
        {{"comptue"}, "unknown command 'comptue'"}, {{}, "no display"},
        {{"--compute-path", "cpu"}, "no display"},  {{"--dim=abc"}, "'abc' is not an integer"},
        {{"-platform", "xcb"}, "platform 'xcb'"},
    };
    for (const auto& c : cases) {
        const Binary r = runBinary(c.args, env);
        QVERIFY2(r.code == exitUsage, qPrintable(c.args.join(' ') + ": " + QString::number(r.code) + " " + r.err));
        QVERIFY2(r.err.contains(c.mentions), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.out.isEmpty());
    }
}

void TestCliConventions::noDisplayReasonFollowsThePlatform()
{
    const QByteArray saved[] = {qgetenv("DISPLAY"), qgetenv("WAYLAND_DISPLAY"), qgetenv("QT_QPA_PLATFORM")};
    qunsetenv("DISPLAY");
    qunsetenv("WAYLAND_DISPLAY");
    qunsetenv("QT_QPA_PLATFORM");
    QVERIFY(!noDisplayReason({}, {}).empty());
    QVERIFY(noDisplayReason(std::string("offscreen"), {}).empty());
    QVERIFY(!noDisplayReason(std::string("xcb"), {}).empty());
    QVERIFY(noDisplayReason(std::string("xcb"), std::string(":1")).empty()); // -display :1
    qputenv("QT_QPA_PLATFORM", "wayland;xcb");
    QVERIFY(!noDisplayReason({}, {}).empty());
    qputenv("QT_QPA_PLATFORM", "wayland;offscreen");
    QVERIFY(noDisplayReason({}, {}).empty());
    qunsetenv("QT_QPA_PLATFORM");
    qputenv("WAYLAND_DISPLAY", "wayland-0");
    QVERIFY(noDisplayReason({}, {}).empty());
    const char* names[] = {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"};
    for (int i = 0; i < 3; ++i) {
        if (saved[i].isNull())
            qunsetenv(names[i]);
        else
            qputenv(names[i], saved[i]);
    }
}

void TestCliConventions::exportCapMessageNamesNoMissingOption()
{
    QTemporaryDir dir;
    const Binary r = runBinary({"export", "attention", "--scheme", "rope", "--positions", "65536", "--heads", "8", "-o",
                                dir.filePath(QStringLiteral("x.csv"))});
    QCOMPARE(r.code, exitRefused);
    QVERIFY2(r.err.contains("memory cap"), r.err.constData());
    QVERIFY2(!r.err.contains("--max-memory"), r.err.constData()); // export has no such option
    bool declared = false;
    for (const OptionSpec& o : exportOptions())
        declared = declared || std::string(o.name) == "--max-memory";
    QVERIFY(!declared);
}

void TestCliConventions::outOfRangeFigureOptionsAreUsageErrors()
{
    // As --frames 0: a value outside the option's range is a usage error (2), found before any drawing.
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{"--dpi", "5"}, {"--dpi=100000"}, {"--font-scale", "100"}, {"--frames", "0"}}) {
        std::vector<std::string> args = {"export", "table", "--scheme", "rope", "-o", "x.png"};
        args.insert(args.end(), extra.begin(), extra.end());
        const Outcome r = exportParse(args);
        QVERIFY2(r.status == exitUsage, (extra[0] + ": " + r.err).c_str());
        QVERIFY2(r.err.find("out of range") != std::string::npos, r.err.c_str());
        QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1);
    }
}

void TestCliConventions::repeatedOptionsAndWholeNumbers()
{
    // Issue 38 item 9: a second --dim, --scheme or --preset was silently the one used, while a key set twice is
    // refused; now every option but --set (and export's --view-set) is given once, with one message.
    const std::vector<std::string> base = {"compute", "encoding", "--scheme", "sinusoidal", "--positions", "0:2"};
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> a = base;
        a.insert(a.end(), more.begin(), more.end());
        return compute(a);
    };
    const Outcome dim = with({"--dim", "8", "--dim", "16"});
    QCOMPARE(dim.status, exitUsage);
    QCOMPARE(dim.err, std::string("poslab: option --dim is given twice; give it once\n"));
    QCOMPARE(with({"--dim", "8", "--scheme", "rope"}).err,
             std::string("poslab: option --scheme is given twice; give it once\n"));
    QCOMPARE(compute({"compute", "frequencies", "--preset", "llama-3.1-8b", "--preset", "qwen2.5-7b"}).err,
             std::string("poslab: option --preset is given twice; give it once\n"));
    QCOMPARE(with({"--dim", "8", "-o", "a.json", "--output", "b.json"}).err,
             std::string("poslab: option --output is given twice; give it once\n"));
    QCOMPARE(with({"--dim", "8", "--dim=8"}).status, exitUsage); // the same value twice too
    // --set adds keys; the same key twice is refused as before.
    QCOMPARE(with({"--dim", "8", "--set", "base=500", "--set", "base=100"}).err,
             std::string("poslab: parameter base is set twice (base=500, then base=100); give it once\n"));
    QCOMPARE(compute({"compute", "angles", "--scheme", "rope", "--dim", "8", "--positions", "0:2", "--set",
                      "rope_theta=500", "--set", "layout=interleaved"})
                 .status,
             exitOk);
    const Outcome exported = exportParse({"export", "table", "--scheme", "rope", "--dim", "8", "--dim", "16"});
    QCOMPARE(exported.status, exitUsage);
    QCOMPARE(exported.err, std::string("poslab: option --dim is given twice; give it once\n"));
    QCOMPARE(windowFields({"--dim", "8", "--dim", "16"}),
             std::string("error: option --dim is given twice; give it once"));
    QVERIFY(windowFields({"--dim", "8", "--scheme", "rope"}).find("error") == std::string::npos);
    QVERIFY2(exportParse({"export", "nosuchview", "--view-set", "pendulum=true", "--view-set", "clean_slide=true"})
                     .err.find("unknown view 'nosuchview'")
                 != std::string::npos,
             "--view-set may be repeated");
    // A seed of 2^53 - 1 is a whole number in range (it said "is not an integer"); past 2^53 the range is named.
    const std::vector<std::string> mixed
        = {"compute", "angles", "--scheme", "rope_2d", "--grid", "2x2", "--dim", "8", "--set", "variant=mixed"};
    auto seed = [&](const char* v) {
        std::vector<std::string> a = mixed;
        a.insert(a.end(), {"--set", std::string("seed=") + v});
        return compute(a);
    };
    const Outcome top = seed("9007199254740991");
    QVERIFY2(top.status == exitOk, top.err.c_str());
    QCOMPARE(top.json().value("params").toObject().value("seed").toDouble(), 9007199254740991.0);
    QCOMPARE(
        seed("9007199254740993").err,
        std::string("poslab: parameter seed = 9007199254740993 is out of range; allowed: [0, 9007199254740992]\n"));
    QCOMPARE(seed("1e300").err,
             std::string("poslab: parameter seed = 1e300 is out of range; allowed: [0, 9007199254740992]\n"));
    QCOMPARE(seed("1.5").err, std::string("poslab: parameter seed: '1.5' is not an integer\n"));
    QCOMPARE(seed("1e3").status, exitOk);
}

void TestCliConventions::spatialFiguresRefuseAlike()
{
    // Issue 38 item 8: `poslab export patchgrid` of a sequence scheme exits 2 and writes nothing in every format
    // (the SVG exited 0 with a drawn "Cannot draw the patch grid"; the CSV exited 2).
    QTemporaryDir dir;
    const QString state = dir.filePath("s.json");
    QFile f(state);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"scheme": "rope", "spatial": {"scheme": "mrope", "dim": 128, "patch": 1}})");
    f.close();
    for (const char* ext : {"svg", "png", "csv"}) {
        const QString out = dir.filePath(QStringLiteral("p.%1").arg(QLatin1String(ext)));
        const Binary r = runBinary({"export", "patchgrid", "--state", state, "-o", out});
        QCOMPARE(r.code, exitUsage);
        QVERIFY2(r.err.contains("mrope takes a token sequence, not a patch grid"), r.err.constData());
        QVERIFY(!QFile::exists(out));
    }
    // The sequence view draws it, titled with M-RoPE (not the 1-D RoPE).
    const QString svg = dir.filePath("q.svg");
    const Binary ok = runBinary({"export", "sequence", "--state", state, "-o", svg});
    QVERIFY2(ok.code == exitOk, ok.err.constData());
    QFile written(svg);
    QVERIFY(written.open(QIODevice::ReadOnly));
    const QByteArray text = written.readAll();
    QVERIFY(text.contains("<title>Mixed sequence \xe2\x80\x94 M-RoPE"));
    QVERIFY(text.contains("<desc>PosLab: scheme mrope, dimension 128, sequence text:4,image:1x3x4,text:3"));
}

QTEST_GUILESS_MAIN(TestCliConventions)
void TestCliConventions::messagesAndBatchPaths()
{
    // A long quoted value is shortened in the message, never echoed whole.
    const std::string longValue(200000, 'y');
    const std::string shortened = messageLine("parameter rope_theta: '" + longValue + "' is not a real number");
    QVERIFY2(shortened.size() < 200, shortened.c_str());
    QVERIFY(shortened.find("(200000 characters)' is not a real number") != std::string::npos);
    QCOMPARE(messageLine("a\nb 'short' c"), std::string("a b 'short' c"));
    // Batch: true for an option that takes a value, and an output outside the deck's folder.
    QTemporaryDir dir;
    QDir(dir.path()).mkdir("deck");
    const QString deck = dir.filePath("deck/deck.json");
    auto writeDeck = [&](const QByteArray& json) {
        QFile f(deck);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(json);
    };
    writeDeck(R"({"figures": [{"view": "table", "scheme": "rope", "dim": true, "output": "a.csv"}]})");
    Binary r = runBinary({"export", "--batch", deck});
    QCOMPARE(r.code, exitRefused);
    QVERIFY2(r.err.contains("\"dim\" takes a value (e.g. 64), not true or false"), r.err.constData());
    writeDeck(
        R"({"figures": [{"view": "table", "scheme": "rope", "dim": 8, "positions": 4, "output": "../out.csv"}]})");
    r = runBinary({"export", "--batch", deck});
    QCOMPARE(r.code, exitRefused);
    const QString resolved = QDir::cleanPath(dir.filePath("out.csv"));
    QVERIFY2(r.err.contains(("output " + resolved + " is outside the batch file's folder").toUtf8()),
             r.err.constData());
    QVERIFY(!QFile::exists(dir.filePath("out.csv")));
    writeDeck(R"({"allow_outside": true,
                  "figures": [{"view": "table", "scheme": "rope", "dim": 8, "positions": 4, "output": "../out.csv"}]})");
    r = runBinary({"export", "--batch", deck});
    QCOMPARE(r.code, exitOk);
    QVERIFY(QFile::exists(dir.filePath("out.csv")));
    // -o through a file where a folder should be names the file.
    const Binary b2
        = runBinary({"compute", "frequencies", "--scheme", "rope", "-o", dir.filePath("out.csv") + "/x.json"});
    QCOMPARE(b2.code, exitUsage);
    QVERIFY2(b2.err.contains("out.csv is a file, not a folder"), b2.err.constData());
}

#include "tst_cli_conventions.moc"
