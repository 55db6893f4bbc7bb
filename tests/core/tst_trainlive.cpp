// SPDX-License-Identifier: MIT
// What the window's training needs from core/train: the cancel flag stops a run at the next step and
// between the test lengths of an evaluation; the live preview of accuracy against length (TrainConfig::curveEvery)
// is the final evaluation's numbers when it uses as many sequences, and changes nothing in the training; a run keeps
// its trained parameters; trainedAttention() is Network::attention of a network rebuilt here from those parameters
// on the evaluation's own sequence (tasks.h, trainer.h: sample i of length L is drawn from mixSeed(seed, 0xE7A1, L,
// i)), and its rows are causal probability distributions (softmax over the keys 0..t of query t).
#include "core/encodingregistry.h"
#include "core/encodings/relativecommon.h"
#include "core/errors.h"
#include "core/positions.h"
#include "core/train/model.h"
#include "core/train/tasks.h"
#include "core/train/trainer.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <sstream>

using namespace poslab::core;
using namespace poslab::core::train;

namespace {

TrainConfig tiny(const std::string& scheme)
{
    TrainConfig c;
    c.scheme = scheme;
    c.layers = 2;
    c.width = 16;
    c.heads = 2;
    c.batch = 8;
    c.trainLen = 4;
    c.testLens = {4, 8, 12};
    c.steps = 20;
    c.evalSamples = 24;
    c.evalEvery = 0;
    c.threads = 1;
    c.seed = 5;
    return c;
}

} // namespace

class TrainLiveTest : public QObject {
    Q_OBJECT
private slots:
    void cancelStopsAtTheNextStep()
    {
        TrainConfig c = tiny("alibi");
        c.steps = 1000000; // minutes of training (just under the work limit, which refuses runs of days)
        std::atomic<bool> cancel{false};
        int calls = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const RunResult r = trainRun(
            c,
            [&](const Progress& p) {
                ++calls;
                if (p.step >= 20)
                    cancel = true;
            },
            &cancel);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        QCOMPARE(r.stop, std::string("cancelled"));
        QCOMPARE(r.stepsDone, 20); // progress at step 20 set the flag; step 21 never ran
        QCOMPARE(int(r.loss.size()), 20);
        QVERIFY(r.lengths.empty()); // the final evaluation stops before its first length
        QCOMPARE(calls, 2);
        QVERIFY2(seconds < 5.0, qPrintable(QString::number(seconds)));
    }

    void cancelBeforeTheStart()
    {
        TrainConfig c = tiny("nope");
        std::atomic<bool> cancel{true};
        const RunResult r = trainRun(c, {}, &cancel);
        QCOMPARE(r.stop, std::string("cancelled"));
        QCOMPARE(r.stepsDone, 0);
        QVERIFY(r.lengths.empty());
    }

    void previewIsTheEvaluationAndChangesNothing()
    {
        TrainConfig c = tiny("rope");
        const RunResult plain = trainRun(c);
        QCOMPARE(int(plain.lengths.size()), 3);
        c.curveEvery = 10;
        c.curveSamples = c.evalSamples; // the same sequences as the final evaluation
        std::vector<Progress> seen;
        const RunResult live = trainRun(c, [&](const Progress& p) { seen.push_back(p); });
        // Training is untouched by the previews: same loss at every step, same final numbers.
        QCOMPARE(live.loss.size(), plain.loss.size());
        for (std::size_t i = 0; i < plain.loss.size(); ++i)
            QCOMPARE(live.loss[i].loss, plain.loss[i].loss);
        QCOMPARE(live.lengths.size(), plain.lengths.size());
        // Previews at steps 10 and 20; the last one is the final evaluation (the model does not change after it).
        QCOMPARE(int(seen.size()), 2);
        QCOMPARE(seen[0].step, 10);
        QCOMPARE(int(seen[0].lengths.size()), 3);
        QCOMPARE(seen[1].step, 20);
        for (std::size_t i = 0; i < plain.lengths.size(); ++i) {
            QCOMPARE(seen[1].lengths[i].length, plain.lengths[i].length);
            QCOMPARE(seen[1].lengths[i].exactMatch, plain.lengths[i].exactMatch);
            QCOMPARE(seen[1].lengths[i].tokenAccuracy, plain.lengths[i].tokenAccuracy);
            QCOMPARE(seen[1].lengths[i].loss, plain.lengths[i].loss);
            QCOMPARE(live.lengths[i].loss, plain.lengths[i].loss);
        }
        // Fewer sequences: a preview of the first curveSamples sequences (token accuracy over 4 sequences x 4
        // answer tokens at length 4 is a multiple of 1/16).
        c.curveSamples = 4;
        seen.clear();
        trainRun(c, [&](const Progress& p) { seen.push_back(p); });
        const double k = seen.back().lengths[0].tokenAccuracy * 16.0;
        QCOMPARE(k, std::round(k));
    }

    void trainedAttentionIsTheNetworksAttention()
    {
        for (const std::string scheme : {"rope", "alibi", "t5"}) {
            TrainConfig c = tiny(scheme);
            const RunResult r = trainRun(c);
            QVERIFY(r.weights);
            const int L = 3 * c.trainLen; // three times the trained length
            const TrainedAttention a = trainedAttention(r, 1, L, 0);
            // Rebuild the network from the run's parameters, as model.h documents it (the trainer's decoder T5).
            const SchemeDescriptor& s = schemeOrThrow(scheme);
            ModelConfig mc;
            mc.layers = c.layers;
            mc.width = c.width;
            mc.heads = c.heads;
            mc.vocab = Vocabulary{taskSymbols(c.task, c.vocab)}.size();
            mc.gelu = c.gelu;
            mc.tied = c.tied;
            mc.seed = c.seed;
            Overrides o;
            if (scheme == "t5")
                o.push_back({"bidirectional", "false"});
            const ParamSet params
                = resolveParams(s, o, TableContext{c.width / c.heads, PositionList::range(0, 1), std::nullopt});
            Network<float> net(mc, s, params);
            QCOMPARE(net.layout().total, r.weights->size());
            net.params() = *r.weights;
            const Example ex = makeExample(c.task, L, c.vocab, mixSeed(c.seed, 0xE7A1, std::uint64_t(L), 0));
            const int T = int(ex.tokens.size()) - 1;
            QCOMPARE(T, 2 * L); // copy: x_1..x_L SEP x_1..x_L is 2L + 1 tokens, the model reads 2L
            Batch b;
            b.n = 1;
            b.T = T;
            b.tokens.assign(ex.tokens.begin(), ex.tokens.end() - 1);
            b.targets.assign(ex.tokens.begin() + 1, ex.tokens.end());
            b.weights.assign(std::size_t(T), 1.0f);
            b.lengths = {T};
            const std::vector<Mat<float>> ref = net.attention(b, 1);
            QCOMPARE(a.T, T);
            QCOMPARE(a.heads, c.heads);
            QCOMPARE(a.trainedTokens, 2 * c.trainLen);
            QCOMPARE(a.tokens, b.tokens);
            QCOMPARE(int(a.weights.size()), c.heads);
            for (int h = 0; h < c.heads; ++h) {
                for (int q = 0; q < T; ++q) {
                    double sum = 0.0;
                    for (int k = 0; k < T; ++k) {
                        const float w = a.weights[std::size_t(h)][std::size_t(q * T + k)];
                        QCOMPARE(w, ref[std::size_t(h)](q, k));
                        if (k > q)
                            QCOMPARE(w, 0.0f); // causal
                        sum += w;
                    }
                    QVERIFY2(std::fabs(sum - 1.0) < 1e-5, qPrintable(QString::number(sum, 'g', 17)));
                }
            }
        }
    }

    void trainedAttentionRefusals()
    {
        TrainConfig c = tiny("nope");
        const RunResult r = trainRun(c);
        QVERIFY_THROWS_EXCEPTION(InputError, trainedAttention(r, 2, 4)); // two layers: 0 and 1
        QVERIFY_THROWS_EXCEPTION(InputError, trainedAttention(r, 0, 0));
        std::ostringstream file;
        writeRuns(file, {r});
        const std::vector<RunResult> back = readRuns(file.str());
        QVERIFY(!back[0].weights); // the run file keeps no parameters
        QVERIFY_THROWS_EXCEPTION(InputError, trainedAttention(back[0], 0, 4));
        TrainConfig l = tiny("learned");
        const RunResult lr = trainRun(l);
        QVERIFY_THROWS_EXCEPTION(InputError, trainedAttention(lr, 0, 8)); // no position rows past the trained 8
        QCOMPARE(trainedAttention(lr, 0, 4).T, 8);
    }
};

QTEST_GUILESS_MAIN(TrainLiveTest)
#include "tst_trainlive.moc"
