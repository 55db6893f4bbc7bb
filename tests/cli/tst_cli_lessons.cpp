// SPDX-License-Identifier: MIT
// `poslab lessons [--json] [--check]` and `poslab export --lesson N.M`, in process.
// Lesson 2's first claim: the sinusoidal pair 0 turns base^0 = 1 rad per token and pair 7 of d = 16 turns
// 10000^(-14/16) rad per token (Vaswani et al. 2017, section 3.5).
#include "app/cli.h"
#include "app/exportcli.h"
#include "ui/setup/computecommand.h"
#include "ui/lessons/claims.h"
#include "ui/lessons/lesson.h"
#include "ui/state/session.h"
#include "ui/state/workbenchstate.h"

#include "clirun.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace poslab::app;

namespace {

using Outcome = poslab::test::Run;

Outcome cli(const std::vector<std::string>& args)
{
    return poslab::test::run(args);
}

Outcome exportCli(const std::vector<std::string>& args)
{
    return poslab::test::runExport(args);
}

} // namespace

class TestCliLessons : public QObject {
    Q_OBJECT
private slots:
    void listsLessonsStepsAndClaims();
    void jsonHasValuesAndStates();
    void checkPassesOnTheShippedLessons();
    void unknownLessonIsAUsageError();
    void exportsAStepsFigure();
    void exportLessonConflictsAndTypos();
    void helpNamesTheCommands();
    void probesAreWhatComputePrints();
};

void TestCliLessons::listsLessonsStepsAndClaims()
{
    const Outcome o = cli({"lessons", "--lesson", "2"});
    QCOMPARE(o.status, 0);
    QVERIFY2(o.out.find("L02  Clock hands: the sinusoidal table") != std::string::npos, o.out.c_str());
    QVERIFY2(o.out.find("  2.1  Each pair is a hand  [views: clock, table]") != std::string::npos, o.out.c_str());
    // The notice's text with its values filled in, and the compute lines behind them.
    QVERIFY2(o.out.find("n1  Hand 0 turns 1 rad per token; hand 7 turns 0.000316228 rad per token.")
                 != std::string::npos,
             o.out.c_str());
    QVERIFY2(o.out.find("poslab compute frequencies --scheme sinusoidal --set base=10000 --set layout=interleaved "
                        "--dim 16   (at [0]; at [7])")
                 != std::string::npos,
             o.out.c_str());
    QVERIFY(o.out.find("FAILS") == std::string::npos);
    QVERIFY2(o.err.empty(), o.err.c_str());
}

void TestCliLessons::jsonHasValuesAndStates()
{
    const Outcome o = cli({"lessons", "--json"});
    QCOMPARE(o.status, 0);
    QJsonParseError pe;
    const QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(o.out), &pe).object();
    QCOMPARE(pe.error, QJsonParseError::NoError);
    QVERIFY(doc.value("failures").toArray().isEmpty());
    QJsonObject l2;
    for (const QJsonValue& l : doc.value("lessons").toArray())
        if (l.toObject().value("number").toInt() == 2)
            l2 = l.toObject();
    QCOMPARE(l2.value("file").toString(), QStringLiteral("L02.json"));
    const QJsonObject step = l2.value("steps").toArray().at(0).toObject();
    QCOMPARE(step.value("id").toString(), QStringLiteral("2.1"));
    QCOMPARE(step.value("state").toObject().value("scheme").toString(), QStringLiteral("sinusoidal"));
    const QJsonObject n1 = step.value("notice").toArray().at(0).toObject();
    QVERIFY(n1.value("holds").toBool());
    const QJsonArray probes = n1.value("probes").toArray();
    QCOMPARE(probes.size(), 2);
    QCOMPARE(probes.at(0).toObject().value("value").toDouble(), 1.0);
    // 10000^(-14/16), computed here (Vaswani section 3.5).
    QVERIFY(std::abs(probes.at(1).toObject().value("value").toDouble() - std::pow(10000.0, -14.0 / 16.0)) < 1e-15);
    // A later step's state carries the earlier steps' keys (FORMAT.md's merge rule).
    const QJsonObject s22 = l2.value("steps").toArray().at(1).toObject().value("state").toObject();
    QCOMPARE(s22.value("dim").toInt(), 128);
    QCOMPARE(s22.value("params").toObject().value("layout").toString(), QStringLiteral("interleaved"));
}

void TestCliLessons::checkPassesOnTheShippedLessons()
{
    const Outcome o = cli({"lessons", "--check"});
    QVERIFY2(o.status == 0, (o.out + o.err).c_str());
    QVERIFY2(o.out.find("all hold") != std::string::npos, o.out.c_str());
    // --check alone prints the summary only (failures go to stderr).
    QCOMPARE(std::count(o.out.begin(), o.out.end(), '\n'), 1);
    QVERIFY2(o.out.rfind("lessons --check: ", 0) == 0, o.out.c_str());
    QVERIFY2(o.err.empty(), o.err.c_str());
    QCOMPARE(cli({"lessons", "--check=1"}).status, exitUsage);
}

void TestCliLessons::unknownLessonIsAUsageError()
{
    const Outcome o = cli({"lessons", "--lesson", "77"});
    QCOMPARE(o.status, exitUsage);
    QVERIFY2(o.err.find("poslab: --lesson 77: no such lesson; lessons: ") != std::string::npos, o.err.c_str());
    QCOMPARE(cli({"lessons", "extra"}).status, exitUsage);
}

void TestCliLessons::exportsAStepsFigure()
{
    QTemporaryDir dir;
    const std::string svg = dir.filePath(QStringLiteral("clock.svg")).toStdString();
    const Outcome o = exportCli({"export", "--lesson", "2.2", "clock", "-o", svg});
    QVERIFY2(o.status == 0, o.err.c_str());
    QFile f(QString::fromStdString(svg));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains("<svg"));
    // The step's data: its state is the lesson's (d = 128 after 2.2), so the clock's data export has 64 pairs.
    const std::string json = dir.filePath(QStringLiteral("table.json")).toStdString();
    QVERIFY2(exportCli({"export", "--lesson=2.2", "table", "--positions", "4", "-o", json}).status == 0, o.err.c_str());
    QFile jf(QString::fromStdString(json));
    QVERIFY(jf.open(QIODevice::ReadOnly));
    const QJsonObject data = QJsonDocument::fromJson(jf.readAll()).object();
    QCOMPARE(data.value("scheme").toString(), QStringLiteral("sinusoidal"));
    QCOMPARE(data.value("shape").toArray(), (QJsonArray{4, 128}));
}

void TestCliLessons::exportLessonConflictsAndTypos()
{
    const Outcome typo = exportCli({"export", "--lesson", "2.99", "clock", "-o", "/tmp/never.svg"});
    QCOMPARE(typo.status, exitUsage);
    QVERIFY2(typo.err.find("--lesson: no step '2.99'; lesson 2 has steps 2.1, 2.2, 2.3, 2.4, 2.5\n")
                 != std::string::npos,
             typo.err.c_str());
    const Outcome lesson = exportCli({"export", "--lesson", "99.1", "clock", "-o", "/tmp/never.svg"});
    QCOMPARE(lesson.status, exitUsage);
    QVERIFY2(lesson.err.find("--lesson: no step '99.1' (give LESSON.STEP, e.g. 2.1); lessons: ") != std::string::npos
                 && lesson.err.find(" 2") != std::string::npos,
             lesson.err.c_str());
    const Outcome both = exportCli({"export", "--lesson", "2.1", "--preset", "gpt2", "clock", "-o", "/tmp/never.svg"});
    QCOMPARE(both.status, exitUsage);
    QVERIFY2(both.err.find("--lesson and --preset both give the state") != std::string::npos, both.err.c_str());
}

void TestCliLessons::helpNamesTheCommands()
{
    const std::string help = usage();
    QVERIFY(help.find("poslab lessons [--json]") != std::string::npos);
    QVERIFY(help.find("poslab lessons --check") != std::string::npos);
    QVERIFY(help.find("poslab export --lesson N.M VIEW") != std::string::npos);
    QVERIFY(exportUsage().find("[--lesson N.M]") != std::string::npos);
}

void TestCliLessons::probesAreWhatComputePrints()
{
    // Every compute line of the shipped lessons gives the engine the numbers `poslab compute LINE` prints (the
    // same parser and the same service): the JSON's data, value for value.
    poslab::lessons::ClaimEngine engine;
    QStringList lines;
    for (const poslab::lessons::Lesson& l : poslab::lessons::lessons())
        for (const poslab::lessons::Step& s : l.steps)
            for (const poslab::lessons::Notice& n : s.notice)
                for (const poslab::lessons::Probe* p : n.probes())
                    if (!p->isRefusal() && !lines.contains(p->compute))
                        lines << p->compute;
    QVERIFY(!lines.isEmpty());
    for (const QString& line : lines) {
        std::vector<std::string> args = poslab::ui::splitCommandLine(line.toStdString());
        args.insert(args.begin(), "compute");
        const Outcome o = cli(args);
        QVERIFY2(o.status == 0, (line.toStdString() + ": " + o.err).c_str());
        const QJsonArray data
            = QJsonDocument::fromJson(QByteArray::fromStdString(o.out)).object().value("data").toArray();
        const auto result = engine.result(line);
        QCOMPARE(qsizetype(result->data.size()), data.size());
        // A float32 result prints 9 significant digits, which read back to the same float. Exactly the same:
        // the softmax kernel gives the same bits wherever its row sits (core/attentionkernel.inc).
        for (qsizetype i = 0; i < data.size(); ++i)
            if (!data[i].isNull()) // masked entries print null
                QVERIFY2(result->float32 ? float(data[i].toDouble()) == float(result->data[std::size_t(i)])
                                         : data[i].toDouble() == result->data[std::size_t(i)],
                         qPrintable(line));
    }
}

QTEST_MAIN(TestCliLessons)
#include "tst_cli_lessons.moc"
