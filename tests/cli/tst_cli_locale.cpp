// SPDX-License-Identifier: MIT
// The real binary under the locales of its users: a comma-decimal one (de_DE, fr_FR: "1,5", a space or a dot
// between thousands) and Turkish (tr_TR: "I" lowers to dotless "ı", "i" uppers to dotted "İ"). Every command is
// run under LANG and LC_ALL of each and its exit status, stdout, stderr and every file it writes must be the same
// bytes as under C.UTF-8: numbers are read and written as C reads and writes them (`--set rope_theta=1e6`, JSON,
// CSV, SVG, the numbers in messages), and case-insensitive matching (file extensions such as ".SVG") is ASCII's.
// QApplication calls setlocale(LC_ALL, "") on Unix (QCoreApplication class documentation, "Locale Settings"),
// so every export and the window run in the user's locale unless the program resets LC_NUMERIC.
// scripts/setup.sh generates the three locales; a locale that is not installed is skipped with a message.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <clocale>
#include <locale.h>

#include "tests/cli/binaryrun.h"

namespace {

const char* const testLocales[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "tr_TR.UTF-8"};

bool installed(const char* name)
{
    locale_t l = newlocale(LC_ALL_MASK, name, locale_t(nullptr));
    if (!l)
        return false;
    freelocale(l);
    return true;
}

/// Everything one run leaves: exit status, stdout, stderr and the files in its (otherwise empty) folder.
struct Outcome {
    int code = -1; ///< -1: did not finish in time, -2: crashed, -3: did not start (err says why)
    QByteArray out, err;
    QMap<QString, QByteArray> files;
};

Outcome runIn(const QString& locale, const QStringList& args)
{
    QTemporaryDir dir;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"LANG", "LC_ALL", "LC_NUMERIC", "LC_CTYPE", "LC_COLLATE", "LANGUAGE"})
        env.remove(QLatin1String(v));
    env.insert(QStringLiteral("LANG"), locale);
    env.insert(QStringLiteral("LC_ALL"), locale);
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QProcess p;
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(dir.path());
    p.start(QStringLiteral(POSLAB_BINARY), args);
    if (!p.waitForStarted())
        return Outcome{-3, {}, "could not start " POSLAB_BINARY ": " + p.errorString().toUtf8(), {}};
    const poslab::test::Binary b = poslab::test::finish(p);
    Outcome o{b.code, b.out, b.err, {}};
    for (const QString& name : QDir(dir.path()).entryList(QDir::Files | QDir::Hidden)) {
        QFile f(dir.filePath(name));
        if (f.open(QIODevice::ReadOnly))
            o.files.insert(name, f.readAll());
    }
    return o;
}

/// The first differing line of @p a and @p b, for the failure message.
QByteArray firstDifference(const QByteArray& a, const QByteArray& b)
{
    const QList<QByteArray> la = a.split('\n'), lb = b.split('\n');
    for (qsizetype i = 0; i < std::max(la.size(), lb.size()); ++i) {
        const QByteArray x = la.value(i), y = lb.value(i);
        if (x != y)
            return "line " + QByteArray::number(i + 1) + ": C.UTF-8 '" + x.left(160) + "' vs '" + y.left(160) + "'";
    }
    return {};
}

} // namespace

class TestCliLocale : public QObject {
    Q_OBJECT
private slots:
    void sameBytesAsC_data();
    void sameBytesAsC();
};

void TestCliLocale::sameBytesAsC_data()
{
    QTest::addColumn<QStringList>("args");
    // clang-format off
    QTest::newRow("encoding json, rope_theta=1e6") << QStringList{"compute", "encoding", "--scheme", "rope", "--dim", "8", "--positions", "0:5", "--set", "rope_theta=1e6", "--set", "partial_rotary_factor=0.5"};
    QTest::newRow("cos csv file") << QStringList{"compute", "cos", "--scheme", "rope", "--dim", "8", "--positions", "0:40:7", "--set", "rope_type=yarn", "--set", "factor=2.5", "-o", "cos.csv"};
    QTest::newRow("frequencies llama3 json file") << QStringList{"compute", "frequencies", "--scheme", "rope", "--dim", "16", "--set", "rope_type=llama3", "-o", "f.json"};
    QTest::newRow("alibi bias csv") << QStringList{"compute", "bias", "--scheme", "alibi", "--heads", "3", "--positions", "0:4", "--keys", "0:4", "--format", "csv"};
    QTest::newRow("scores softmax") << QStringList{"compute", "scores", "--scheme", "rope", "--dim", "8", "--content", "the cat sat on it", "--softmax"};
    QTest::newRow("mrope time ids") << QStringList{"compute", "position_ids", "--scheme", "mrope", "--dim", "128", "--set", "variant=qwen2_5_vl", "--set", "second_per_grid=0.5", "--sequence", "text:2,video:3x1x2,text:1"};
    QTest::newRow("rope_2d angles") << QStringList{"compute", "angles", "--scheme", "rope_2d", "--grid", "3x3", "--dim", "8", "--set", "variant=mixed", "--set", "seed=3"};
    QTest::newRow("upper-case SVG extension") << QStringList{"export", "table", "--scheme", "rope", "--dim", "16", "--positions", "16", "--set", "rope_theta=1e6", "-o", "t.SVG"};
    QTest::newRow("table csv") << QStringList{"export", "table", "--scheme", "sinusoidal", "--dim", "8", "--positions", "6", "-o", "t.CSV"};
    QTest::newRow("decay svg") << QStringList{"export", "decay", "--scheme", "rope", "--dim", "32", "--set", "rope_theta=500000.5", "-o", "d.svg"};
    QTest::newRow("decay json") << QStringList{"export", "decay", "--scheme", "alibi", "-o", "d.json"};
    QTest::newRow("clock svg") << QStringList{"export", "clock", "--scheme", "rope", "--dim", "16", "--view-set", "speed=2.5", "-o", "c.svg"};
    QTest::newRow("patch grid svg") << QStringList{"export", "patchgrid", "--scheme", "rope_2d", "--set", "variant=mixed", "--grid", "4x5", "-o", "p.svg"};
    QTest::newRow("sequence svg") << QStringList{"export", "sequence", "--sequence", "text:3,image:1x2x3,text:2", "-o", "s.svg"};
    QTest::newRow("refused decimal comma") << QStringList{"compute", "encoding", "--scheme", "rope", "--set", "rope_theta=1,5"};
    QTest::newRow("refused out of range") << QStringList{"compute", "encoding", "--scheme", "rope", "--set", "rope_theta=1e20"};
    QTest::newRow("refused export out of range") << QStringList{"export", "table", "--scheme", "rope", "--set", "rope_theta=0.5", "-o", "t.svg"};
    QTest::newRow("refused memory, GiB in the message") << QStringList{"export", "attention", "--scheme", "rope", "--positions", "16384", "--heads", "64", "-o", "a.csv"};
    QTest::newRow("refused animation work, e+14 in the message") << QStringList{"export", "precision", "--scheme", "rope", "--dim", "4096", "--positions", "40000", "--size", "64x64", "--frames", "1000", "--animate", "rope_theta", "--from", "100", "--to", "1e7", "-o", "p.gif"};
    QTest::newRow("animated clock gif") << QStringList{"export", "clock", "--scheme", "rope", "--dim", "8", "--animate", "rope_theta", "--from", "100", "--to", "1e4", "--frames", "3", "--size", "200x150", "-o", "c.gif"};
    QTest::newRow("lesson figure") << QStringList{"export", "--lesson", "12.3", "extension", "-o", "l.svg"};
    QTest::newRow("upper-case scheme id") << QStringList{"compute", "encoding", "--scheme", "ROPE", "--dim", "4"};
    QTest::newRow("upper-case option") << QStringList{"compute", "encoding", "--scheme", "rope", "--DIM", "4"};
    QTest::newRow("preset id with I") << QStringList{"compute", "frequencies", "--preset", "QWEN2.5-7B-INSTRUCT-YARN"};
    QTest::newRow("scheme id with I") << QStringList{"compute", "bias", "--scheme", "ALIBI", "--positions", "0:3"};
    QTest::newRow("schemes listing") << QStringList{"schemes"};
    // clang-format on
}

void TestCliLocale::sameBytesAsC()
{
    QFETCH(QStringList, args);
    const Outcome c = runIn(QStringLiteral("C.UTF-8"), args);
    QVERIFY2(c.code >= 0, c.code == -3 ? c.err.constData() : "the C.UTF-8 run did not finish");
    int compared = 0;
    for (const char* name : testLocales) {
        if (!installed(name)) {
            qWarning("locale %s is not installed (scripts/setup.sh generates it: localedef -i %.5s -f UTF-8 %s)", name,
                     name, name);
            continue;
        }
        const Outcome o = runIn(QString::fromLatin1(name), args);
        const QByteArray where = QByteArray(name) + ": ";
        QVERIFY2(o.code == c.code,
                 where + "exit " + QByteArray::number(o.code) + ", under C.UTF-8 " + QByteArray::number(c.code)
                     + "; stderr: " + o.err.left(300));
        QVERIFY2(o.out == c.out, where + "stdout differs, " + firstDifference(c.out, o.out));
        QVERIFY2(o.err == c.err, where + "stderr differs, " + firstDifference(c.err, o.err));
        QVERIFY2(o.files.keys() == c.files.keys(),
                 where + "wrote " + o.files.keys().join(", ").toUtf8() + "; under C.UTF-8 "
                     + c.files.keys().join(", ").toUtf8());
        for (auto it = c.files.cbegin(); it != c.files.cend(); ++it)
            QVERIFY2(o.files.value(it.key()) == it.value(),
                     where + it.key().toUtf8() + " differs, " + firstDifference(it.value(), o.files.value(it.key())));
        ++compared;
    }
    if (compared == 0)
        QSKIP("none of de_DE.UTF-8, fr_FR.UTF-8, tr_TR.UTF-8 is installed; scripts/setup.sh generates them");
}

QTEST_GUILESS_MAIN(TestCliLocale)
#include "tst_cli_locale.moc"
