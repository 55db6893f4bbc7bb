// SPDX-License-Identifier: MIT
// `poslab lessons [--json] [--check]` and `poslab export --lesson N.M` (issue 13, "Command line"), in process.
// Lesson 2's first claim: the sinusoidal pair 0 turns base^0 = 1 rad per token and pair 7 of d = 16 turns
// 10000^(-14/16) rad per token (Vaswani et al. 2017, section 3.5).
#include "app/cli.h"
#include "app/exportcli.h"
#include "ui/lessons/lesson.h"
#include "ui/session.h"
#include "ui/workbenchstate.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <sstream>

using namespace poslab::app;

namespace {

struct Outcome {
    int status = -1;
    std::string out, err;
};

Outcome cli(const std::vector<std::string>& args)
{
    std::ostringstream out, err;
    Outcome o;
    o.status = runCli(args, out, err);
    o.out = out.str();
    o.err = err.str();
    return o;
}

Outcome exportCli(const std::vector<std::string>& args)
{
    std::ostringstream out, err;
    Outcome o;
    o.status = runExportCli(args, out, err);
    o.out = out.str();
    o.err = err.str();
    return o;
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
};

void TestCliLessons::listsLessonsStepsAndClaims()
{
    const Outcome o = cli({"lessons", "--lesson", "2"});
    QCOMPARE(o.status, 0);
    QVERIFY2(o.out.find("L02  Clock hands: the sinusoidal table") != std::string::npos, o.out.c_str());
    QVERIFY2(o.out.find("  2.1  Each pair is a hand  [views: clock, table]") != std::string::npos, o.out.c_str());
    // The notice's text with its values filled in, and the compute lines behind them.
    QVERIFY2(o.out.find("n1  Hand 0 turns 1 rad per token; hand 7 turns 0.000316228 rad per token.") != std::string::npos,
             o.out.c_str());
    QVERIFY2(o.out.find("poslab compute frequencies --scheme sinusoidal --set base=10000 --set layout=interleaved --dim 16   (at [0]; at [7])")
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
    QVERIFY2(typo.err.find("--lesson: no step '2.99'; steps: 2.1, 2.2") != std::string::npos, typo.err.c_str());
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

QTEST_MAIN(TestCliLessons)
#include "tst_cli_lessons.moc"
