// SPDX-License-Identifier: MIT
#pragma once
/// @file trainer.h
/// Trains the lab's tiny transformer (model.h) on a task (tasks.h) with AdamW and measures accuracy against test
/// length: what `poslab train` runs and writes, and what the lengthlab view draws from a run file.
///   Training examples: batch sequences per step, each of a task length drawn uniformly from 1..L_train, right
///   padded; the loss is the mean cross-entropy over the answer tokens only.
///   Evaluation at a test length L: evalSamples sequences of exactly length L (the same sequences for every
///   scheme and step: they depend on the seed and L only), teacher-forced; exact match = every answer token of
///   the sequence is the argmax (the same test as greedy decoding), token accuracy = answer tokens right.
///   A learned table has no rows past the longest trained sequence: such a length is reported with
///   no_position_rows = true and accuracy 0.
/// Same seed, same machine, same numbers: examples come from mixSeed(seed, ...) streams and the gradient is
/// summed chunk by chunk in a fixed order whatever the thread count.

#include "core/encodingregistry.h"
#include "core/train/tasks.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace poslab::core::train {

struct TrainConfig {
    std::string scheme = "rope";
    Overrides overrides;     ///< --set KEY=VALUE (the scheme's parameters, as everywhere in PosLab)
    Overrides testOverrides; ///< --test-set KEY=VALUE: applied at evaluation only (e.g. RoPE's rope_type=linear)
    Task task = Task::Copy;
    int trainLen = 10;
    std::vector<int> testLens; ///< empty: 1..8 x trainLen
    /// The default recipe: 4,000 steps with the cosine schedule reach the convergence line
    /// (convergedExactMatch at L_train) for RoPE and ALiBi on the copy task (README, length lab: measured time).
    int steps = 4000;
    double seconds = 0.0; ///< > 0: stop after this much training time instead (whichever comes first)
    std::uint64_t seed = 1;
    int layers = 2, width = 64, heads = 4, batch = 64, vocab = 8;
    double lr = 3e-3, weightDecay = 0.01, beta1 = 0.9, beta2 = 0.999, eps = 1e-8; ///< torch.optim.AdamW's defaults
    /// The learning rate over the run: cosine annealing from lr to 0 over `steps` (the default recipe;
    /// torch.optim.lr_scheduler.CosineAnnealingLR with T_max = steps, eta_min = 0, stepped once per step), or
    /// constant.
    bool cosineDecay = true;
    bool gelu = true, tied = false;
    int evalSamples = 256;
    int evalEvery = 100;   ///< steps between checks of exact match at the trained length (0: none)
    bool stopAt95 = false; ///< stop once exact match at the trained length reaches 95%
    int threads = 2;
    double maxBytes = double(512u << 20); ///< memory cap, checked before anything is allocated
    /// Work limits (limits.h's operations, trainWork()), checked before anything is trained: the whole run 1e13,
    /// about 15 to 40 minutes (the default 4,000 steps take about 35 s of CPU time; the window's
    /// largest, 100,000 steps, 7.6e12); a part that runs to its end once started (one step, one length's
    /// evaluation with its position tables) compute's 1e11.
    double maxWork = 1e13;
    double maxPartWork = 1e11;
    /// > 0: every this many steps (and at the last step) a preview of the accuracy at every test length, from
    /// curveSamples sequences per length (the first ones the final evaluation uses), is passed to the progress
    /// callback (Progress::lengths): the window's live curves. It changes nothing in the training itself.
    int curveEvery = 0;
    int curveSamples = 32;
};

/// What the lab calls converged: exact match at the trained length of at least 95% (the line the lengthlab view
/// draws, train-bench's seconds_to_95 and TrainConfig::stopAt95).
inline constexpr double convergedExactMatch = 0.95;

/// The answer tokens of a batch against the model's argmax @p predictions (n*T, Network::run): exact match counts
/// the sequences with every answer token right, token accuracy the answer tokens right (tasks.h).
struct AnswerScore {
    int sequences = 0, exact = 0, tokens = 0, right = 0;
    double exactMatch() const { return sequences ? double(exact) / sequences : 0.0; }
    double tokenAccuracy() const { return tokens ? double(right) / tokens : 0.0; }
};
struct Batch; // model.h
AnswerScore scoreAnswers(const Batch& batch, const std::vector<int>& predictions);

/// The learning rate of training step @p step (1-based) under @p c's schedule.
double learningRate(const TrainConfig& c, int step);

struct LengthPoint {
    int length = 0;
    double exactMatch = 0.0, tokenAccuracy = 0.0, loss = 0.0;
    bool noPositionRows = false;
};

struct LossPoint {
    int step = 0;
    double seconds = 0.0, loss = 0.0;
};

struct CheckPoint {
    int step = 0;
    double seconds = 0.0, exactMatch = 0.0;
};

/// One training run: its settings, curves and the final accuracy against length.
struct RunResult {
    TrainConfig config;
    std::vector<std::pair<std::string, std::string>> params; ///< resolved scheme parameters (key, text)
    std::vector<LossPoint> loss;
    std::vector<CheckPoint> checks;   ///< exact match at the trained length during training
    std::vector<LengthPoint> lengths; ///< final evaluation
    int stepsDone = 0;
    double trainSeconds = 0.0; ///< time in training steps (evaluation excluded)
    double stepMs = 0.0;
    std::optional<double> secondsTo95; ///< training seconds until exact match at L_train first reached 0.95
    std::string stop;                  ///< "steps", "seconds", "target", "cancelled", or the divergence message
    bool diverged = false;
    /// The trained parameters (Network's flat vector), kept in memory for trainedAttention(); not in the run file
    /// (readRuns leaves it null). Null for a diverged run.
    std::shared_ptr<const std::vector<float>> weights;
};

struct Progress {
    int step = 0, steps = 0;
    double seconds = 0.0, loss = 0.0;
    std::optional<double> exactAtTrain;
    std::vector<LengthPoint> lengths; ///< the preview at every test length (TrainConfig::curveEvery), else empty
};

/// Checks sizes and the scheme, the memory cap and the work limit before anything is allocated; throws InputError
/// (bad settings: width not divisible by heads, unknown scheme...) or RefusedError (over the memory cap or
/// config.maxWork).
void validate(const TrainConfig& config);

/// The operations of a run (limits.h's units; Network::workFor per batch).
struct TrainWork {
    /// The whole run: the training steps (forward and backward of batch sequences of the longest trained length;
    /// with --seconds one step, since the time limit stops the rest), the checks at the trained length every
    /// evalEvery steps, the previews (curveEvery), the final evaluation (evalSamples sequences at each test
    /// length), and the position part's tables once per length (the scheme's own cost per head, as the attention
    /// engine counts it; the sin and cos or additive tables).
    double total = 0.0;
    /// The largest part that runs to its end once started (a step, a check, one length's evaluation with its
    /// tables), and which it is.
    double largestPart = 0.0;
    std::string part;
};
/// The work of @p config (test lengths default to 1..8 x trainLen as in trainRun).
TrainWork trainWork(const TrainConfig& config);

/// Trains and evaluates. @p progress is called after each logged step (every 10 steps, at checks and at previews);
/// @p cancel stops at the next step, and also between the test lengths of an evaluation (a cancelled run keeps
/// the lengths evaluated so far, stop = "cancelled"). A NaN or infinite loss stops the run with stop = "loss is nan at step N"
/// and diverged = true, keeping the curves so far (the final evaluation is then skipped).
RunResult trainRun(const TrainConfig& config, const std::function<void(const Progress&)>& progress = {},
                   const std::atomic<bool>* cancel = nullptr);

/// A trained model's attention probabilities: heads x (T x T), row-major per head (query row, key column), for
/// the evaluation sequence @p sample of test length @p length (the sequences trainRun evaluates: seed, length and
/// sample fix it), with the run's test-time settings (--test-set) applied as in its evaluation.
struct TrainedAttention {
    int layer = 0, length = 0, T = 0, heads = 0;
    int trainedTokens = 0;   ///< input tokens of the longest trained sequence (sequenceLength(L_train) - 1)
    std::vector<int> tokens; ///< the T input tokens
    std::vector<std::vector<float>> weights; ///< per head, T*T
};
/// Throws InputError when @p run holds no weights (a run read from a file, or diverged), the layer is out of
/// range, the length has no position rows (learned table) or is out of 1..100000, or past the memory cap.
TrainedAttention trainedAttention(const RunResult& run, int layer, int length, int sample = 0);

/// The most runs a run file may hold, and the most values (runs x the union of their test lengths) the
/// lengthlab view draws: a 1.9 MB file of 20,000 runs took 6.2 GB and 19.5 s, a 9.6 MB one ended in bad_alloc.
inline constexpr std::size_t maxRuns = 1000;
inline constexpr double maxCurveValues = 1e6;

/// The run file: {"format": "poslab-train-runs", "version": 1, "runs": [...]}.
void writeRuns(std::ostream& out, const std::vector<RunResult>& runs);
/// Reads a run file; throws InputError naming the problem, RefusedError for more than maxRuns runs.
std::vector<RunResult> readRuns(std::string_view text);

/// What the lengthlab view plots: one curve per run (a seed) and the mean per scheme, on the union of the test
/// lengths. Runs of one scheme with different settings (--set) are separate groups.
enum class LengthMetric { ExactMatch, TokenAccuracy, Loss };
std::string_view lengthMetricName(LengthMetric m); ///< "exact_match", "token_accuracy", "loss"

struct LengthCurves {
    LengthMetric metric = LengthMetric::ExactMatch;
    std::vector<int> lengths;   ///< sorted union of every run's test lengths
    std::vector<int> trainLens; ///< the distinct trained lengths (one when the runs agree)
    std::string task;           ///< the task, or "mixed"
    struct Group {
        std::string scheme; ///< scheme id
        std::string label;  ///< scheme id plus its --set and --test-set words, if any
        std::vector<std::uint64_t> seeds;
        std::vector<std::vector<double>> values; ///< per seed, per length: NaN where the run has no such length
        std::vector<double> mean;                ///< mean over the seeds that have the length (NaN when none)
        std::vector<bool> noPositionRows;        ///< per length: some seed had no position rows there
        int diverged = 0;                        ///< seeds whose training diverged (no curve)
    };
    std::vector<Group> groups; ///< in order of first appearance
};
/// Throws RefusedError, before anything is allocated, when runs x the union of their test lengths is over
/// maxCurveValues.
LengthCurves lengthCurves(const std::vector<RunResult>& runs, LengthMetric metric);

/// "1:81" style SPEC or "1,2,4" to test lengths (each >= 1); throws InputError.
std::vector<int> parseLengths(std::string_view spec);

} // namespace poslab::core::train
