// SPDX-License-Identifier: MIT
// `poslab train`: every declared option in both spellings (--opt value and --opt=value give the same run), the
// run file it writes, its one-line refusals, and the learned table's missing rows reported in the file.
#include "app/traincli.h"
#include "clirun.h"

#include <QJsonArray>
#include <QTest>

using namespace poslab;
using poslab::test::run;

namespace {

// A tiny run that ends at once: later options override these.
std::vector<std::string> base()
{
    return {"train", "--scheme",       "nope", "--steps",      "2", "--batch",     "4", "--width",
            "16",    "--heads",        "2",    "--layers",     "1", "--train-len", "2", "--test-lens",
            "2,3",   "--eval-samples", "3",    "--eval-every", "0", "--threads",   "1", "--quiet"};
}

/// base() with @p extra: an option of @p extra takes the place of base()'s own (train refuses an option given
/// twice), the rest follow.
std::vector<std::string> baseWith(const std::vector<std::string>& extra)
{
    std::vector<std::string> a = base();
    for (const std::string& word : extra)
        if (word.rfind("--", 0) == 0)
            for (std::size_t i = 0; i + 1 < a.size(); ++i)
                if (a[i] == word) {
                    a.erase(a.begin() + std::ptrdiff_t(i), a.begin() + std::ptrdiff_t(i) + 2);
                    break;
                }
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

/// The run file without its timings (seconds, ms): what must be equal between two identical runs.
QJsonArray withoutTimes(const std::string& out)
{
    QJsonArray runs = QJsonDocument::fromJson(QByteArray::fromStdString(out)).object().value("runs").toArray();
    QJsonArray clean;
    for (const auto& v : runs) {
        QJsonObject o = v.toObject();
        for (const char* k : {"train_seconds", "step_ms", "seconds_to_95", "checks", "loss_curve"})
            o.remove(k);
        QJsonObject m = o.value("model").toObject();
        clean.append(o);
    }
    return clean;
}

} // namespace

class CliTrainTest : public QObject {
    Q_OBJECT
private slots:
    void everyOptionTakesBothSpellings_data()
    {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("value");
        for (const app::OptionSpec& o : app::trainOptions())
            if (o.takesValue)
                QTest::newRow(o.name) << o.name << o.example;
    }

    void everyOptionTakesBothSpellings()
    {
        QFETCH(QString, option);
        QFETCH(QString, value);
        QVERIFY2(!value.isEmpty(), "an option that takes a value needs an example in its table");
        const std::string opt = option.toStdString(), v = value.toStdString();
        // The option under test takes the place of the base's own (an option given twice is refused).
        std::vector<std::string> a = base();
        for (std::size_t i = 0; i + 1 < a.size();)
            if (a[i] == opt)
                a.erase(a.begin() + std::ptrdiff_t(i), a.begin() + std::ptrdiff_t(i) + 2);
            else
                ++i;
        std::vector<std::string> b = a;
        // --seconds among them: the run still stops after --steps 2.
        a.insert(a.end(), {opt, v});
        b.push_back(opt + "=" + v);
        const auto ra = run(a), rb = run(b);
        QVERIFY2(ra.err.find("unknown option") == std::string::npos, ra.err.c_str());
        QVERIFY2(rb.err.find("needs a value") == std::string::npos, rb.err.c_str());
        QCOMPARE(rb.status, ra.status);
        QCOMPARE(rb.err, ra.err);
        if (ra.status == 0) {
            QVERIFY(!withoutTimes(ra.out).isEmpty());
            QCOMPARE(withoutTimes(rb.out), withoutTimes(ra.out));
        }
    }

    void runFile()
    {
        const auto r = run(baseWith({"--scheme", "learned,alibi", "--seed", "1,2", "--test-lens", "2,3"}));
        QCOMPARE(r.status, 0);
        const QJsonObject doc = r.json();
        QCOMPARE(doc.value("format").toString(), QString("poslab-train-runs"));
        const QJsonArray runs = doc.value("runs").toArray();
        QCOMPARE(runs.size(), 4); // 2 schemes x 2 seeds
        const QJsonObject learned = runs[0].toObject();
        QCOMPARE(learned.value("scheme").toString(), QString("learned"));
        // train length 2 on copy: 4 input tokens, so the table has 4 rows; length 3 needs 6.
        const QJsonArray acc = learned.value("accuracy").toArray();
        QCOMPARE(acc[0].toObject().value("no_position_rows").toBool(), false);
        QCOMPARE(acc[1].toObject().value("no_position_rows").toBool(), true);
        QCOMPARE(acc[1].toObject().value("exact_match").toDouble(), 0.0);
        QCOMPARE(runs[2].toObject().value("scheme").toString(), QString("alibi"));
        QCOMPARE(runs[3].toObject().value("seed").toInt(), 2);
        QCOMPARE(learned.value("loss_curve").toArray().size(), 2);
    }

    void contentDependentSchemesTrain()
    {
        // CoPE, Shaw and Transformer-XL train from the command line; their parameters are recorded in the run.
        const auto r = run(baseWith({"--scheme", "cope,shaw,transformer_xl", "--steps", "3"}));
        QVERIFY2(r.status == 0, r.err.c_str());
        const QJsonArray runs = r.json().value("runs").toArray();
        QCOMPARE(runs.size(), 3);
        const char* ids[] = {"cope", "shaw", "transformer_xl"};
        for (int i = 0; i < 3; ++i) {
            const QJsonObject run1 = runs[i].toObject();
            QCOMPARE(run1.value("scheme").toString(), QString(ids[i]));
            QCOMPARE(run1.value("loss_curve").toArray().size(), 3);
            QVERIFY(!run1.value("diverged").toBool());
        }
        QCOMPARE(runs[0].toObject().value("params").toObject().value("npos_max").toString(), QString("64"));
        QCOMPARE(runs[1].toObject().value("params").toObject().value("max_relative_position").toString(),
                 QString("16"));
    }

    void refusals()
    {
        auto one = [](std::vector<std::string> extra) { return run(baseWith(extra)); };
        const auto heads = one({"--width", "30", "--heads", "4"});
        QCOMPARE(heads.status, int(app::exitUsage));
        QCOMPARE(heads.err, std::string("poslab: --width 30 is not divisible by --heads 4\n"));
        const auto big = one({"--test-lens", "90000", "--batch", "4096"});
        QCOMPARE(big.status, int(app::exitRefused));
        QVERIFY2(big.err.find("poslab: ") == 0 && big.err.find('\n') == big.err.size() - 1, big.err.c_str());
        // Issue 38 item 9: a spatial scheme is named as one that does not train (it was "unknown scheme 'mrope'"
        // followed by a list holding mrope), with the trainable ones to pick from.
        const auto mrope = run({"train", "--scheme", "mrope"});
        QCOMPARE(mrope.status, int(app::exitUsage));
        QVERIFY2(mrope.err.find("poslab: scheme 'mrope' is not trainable: it places text, image and video tokens by "
                                "3-D ids and train's tasks are 1-D token sequences; pick a trainable scheme: nope, ")
                     == 0,
                 mrope.err.c_str());
        QVERIFY2(mrope.err.find("unknown") == std::string::npos, mrope.err.c_str());
        const auto grid = run({"train", "--scheme", "rope_2d"});
        QVERIFY2(grid.err.find("places patches on a grid") != std::string::npos, grid.err.c_str());
        const auto typo = run({"train", "--scheme", "ropee"});
        QCOMPARE(typo.status, int(app::exitUsage));
        QVERIFY2(typo.err.find("poslab: unknown scheme 'ropee'; trainable: nope, sinusoidal,") == 0, typo.err.c_str());
        QVERIFY2(typo.err.find("mrope") == std::string::npos, typo.err.c_str());
        // --steps at its allowed maximum with the cosine schedule is a request, not a missing --steps (it said
        // "give --steps"): it trains until --seconds.
        const auto most
            = run({"train", "--scheme",    "nope", "--steps",        "100000000", "--seconds", "0.2", "--batch",
                   "4",     "--width",     "16",   "--heads",        "2",         "--layers",  "1",   "--train-len",
                   "2",     "--test-lens", "2",    "--eval-samples", "3",         "--threads", "1",   "--quiet"});
        QVERIFY2(most.status == 0, most.err.c_str());
        QCOMPARE(most.json().value("runs").toArray()[0].toObject().value("stop").toString(), QStringLiteral("seconds"));
        // Issue 38 item 9: an option given twice is refused, as compute refuses it (the last used to win).
        std::vector<std::string> again = base();
        again.insert(again.end(), {"--steps", "3"});
        const auto twice = run(again);
        QCOMPARE(twice.status, int(app::exitUsage));
        QCOMPARE(twice.err,
                 std::string("poslab: option --steps is given twice; give it once (--scheme and --seed "
                             "take lists: a,b)\n"));
        const auto scheme = run({"train", "--scheme", "deberta"});
        QCOMPARE(scheme.status, int(app::exitUsage));
        QVERIFY2(scheme.err.find("cannot be trained") != std::string::npos, scheme.err.c_str());
        const auto task = one({"--task", "sort"});
        QCOMPARE(task.err, std::string("poslab: unknown task 'sort'; tasks: copy, reverse, recall, addition\n"));
        const auto diverge = one({"--lr", "1e38", "--steps", "20"});
        QCOMPARE(diverge.status, int(app::exitRefused));
        QVERIFY2(diverge.err.find("at step ") != std::string::npos, diverge.err.c_str());
        QVERIFY(diverge.json().value("runs").toArray()[0].toObject().value("diverged").toBool());
    }
};

QTEST_GUILESS_MAIN(CliTrainTest)
#include "tst_cli_train.moc"
