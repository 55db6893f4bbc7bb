// SPDX-License-Identifier: MIT
#pragma once
/// @file computation.h
/// The controller between the state and core: it collapses bursts of state changes with a zero-delay
/// single-shot timer, computes the encoding table (on a worker thread when the request is large) and
/// publishes immutable results that every view shares. Nothing mutable is shared across threads: the
/// worker gets a copy of the set-up and hands back a new result.

#include "core/attention.h"
#include "core/compute.h"
#include "core/extension.h"
#include "core/rotary.h"
#include "core/scheme.h"
#include "core/train/trainer.h"
#include "core/types.h"
#include "ui/figures/attentionfigure.h"
#include "ui/figures/figure.h"
#include "ui/figures/tablefigure.h"
#include "ui/gpu/tableengine.h"
#include "ui/render/colormap.h"
#include "ui/state/workbenchstate.h"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace poslab::ui {

class Computation : public QObject {
    Q_OBJECT
public:
    /// Requests with more elements than this go to a worker thread.
    static constexpr long long workerThreshold = 1 << 21;

    /// @p attention: false when no view draws the attention scores (an export scene of another view): the
    /// scores are then computed for 1 x 1 positions, whatever the state's attention size. @p path: where tables
    /// are computed from the first one on (a data export passes Cpu: it draws no table, so it starts no GPU).
    explicit Computation(WorkbenchState* state, QObject* parent = nullptr, bool attention = true,
                         gpu::ComputePath path = gpu::ComputePath::Auto);
    ~Computation() override;

    /// The state this computation computes for.
    WorkbenchState* state() const { return m_state; }
    /// Configuration B's computation (compare mode): the computation of @p a's compareState(), created on first
    /// use with @p like's attention settings and owned by B's state; nullptr when @p a is itself B.
    static Computation* compareComputation(WorkbenchState& a, const Computation& like);
    /// Element-wise A − B of two data exports of one view for the compare mode's difference: same shape and
    /// column names required; a coordinate column (the decay table's "distance") stays A's, equal in both.
    /// Throws core::InputError naming the mismatch.
    static core::ComputeResult difference(const core::ComputeResult& a, const core::ComputeResult& b);
    /// Element-wise A − B of two heatmaps of one shape (NaN where either is NaN: masked); empty when the shapes
    /// differ.
    static core::MatrixF difference(const core::MatrixF& a, const core::MatrixF& b);
    /// The finite value range of @p m, symmetric about 0 ([-a, a], a the largest |value|, at least 1e-30).
    static ValueRange symmetricRange(const core::MatrixF& m);

    /// The trained window T the attention view marks: the scheme's own (original_max_position_embeddings of llama3,
    /// yarn and longrope; max_position_embeddings of dynamic NTK, core::trainedLengthOf), else the view option
    /// trained_length when set, else the model's trained_length (a preset); nullopt when none is known.
    static std::optional<core::Position> trainedLength(const Setup& setup, const ViewOptions& options);

    /// The latest published result (never null after construction: the first one is computed at once).
    std::shared_ptr<const EncodingResult> result() const { return m_result; }
    bool isBusy() const { return m_busySerial != 0; }
    /// True while attention scores for the newest inputs are still to come (scheduled, or on the worker).
    bool attentionPending() const { return m_attentionTimer.isActive() || m_attentionBusy != 0; }
    /// Number of results published so far.
    quint64 publishedCount() const { return m_published; }

    /// Which path computes sin/cos tables: Auto measures both once per size class; Cpu or Gpu force one.
    void setComputePath(gpu::ComputePath path);
    gpu::ComputePath computePath() const;
    /// The engine (tests ask it whether a GPU context exists).
    gpu::TableEngine& tableEngine() { return *m_engine; }
    /// The window the table view shows; large tables are recomputed for it (coalesced, off the UI
    /// thread). Ignored while the current table is complete at full resolution.
    void setTableWindow(const TableWindow& window);
    TableWindow tableWindow() const { return m_window; }
    /// Blocks until a running table worker is done and its result delivered (tests).
    void waitForTable();
    /// Attention scores are computed on a worker thread; tests may ask for them on the calling thread.
    void setSynchronousAttention(bool on);
    /// Blocks until the attention worker is idle and its result delivered (tests).
    void waitForAttention();
    /// Writes @p runs to @p path with core::train::writeRuns (the format poslab train -o writes); returns an error
    /// message, empty on success.
    static QString saveRuns(const QString& path, const std::vector<core::train::RunResult>& runs);
    /// AttentionFigure::trainedAttention for @p setup and @p options (the attention figure's source "trained").
    static std::shared_ptr<AttentionOutput> trainedAttention(const TrainedRuns* window, const Setup& setup,
                                                             const ViewOptions& options);
    /// True when @p path is a run file of poslab train (a JSON object whose "format" is "poslab-train-runs").
    static bool isRunFile(const QString& path);
    /// The rotary spec of @p setup (positions 0 .. N-1, sequence length N), or nothing when the scheme does not
    /// rotate or core refuses the set-up.
    static std::optional<core::RotarySpec> rotarySpec(const Setup& setup);
    /// empty planes when @p result is not rotary or holds an error.
    static core::RotationPlanes rotationPlanes(const EncodingResult& result, core::Position m, core::Position n);
    /// The latest attention scores.
    std::shared_ptr<const AttentionOutput> attention() const { return m_attention; }

    // --- figures (FigureTask): the one scheduler of every view's figure
    /// Asynchronous figures: a FigureTask's compute runs on this computation's figure pool, off the UI thread, and
    /// its data comes back through deliverFigure() on the event loop. Off (the default: exports, the command line,
    /// tests), every figure is computed on the calling thread inside FigureTask::request(). The window turns it on.
    void setAsynchronousFigures(bool on) { m_asyncFigures = on; }
    bool asynchronousFigures() const { return m_asyncFigures; }
    /// Figure jobs started and not yet delivered (running, or their data on its way to the UI thread).
    int pendingFigures() const { return m_figureJobs; }
    /// Figure computes run so far, on any thread (tests count them).
    quint64 figureComputeCount() const { return m_figureComputes.load(); }
    /// Blocks until every figure job is done and delivered, those a delivery starts (a coalesced request) too.
    void waitForFigures();
    /// A new id for a FigureTask (the argument of figureReady()).
    quint64 newFigureTask() { return ++m_figureTasks; }
    /// A figure job: runs on the figure pool (or here, synchronously) and returns what deliverFigure() does next on
    /// the UI thread: store the data in its task and say whether it did (a stale result stores nothing).
    using FigureJob = std::function<std::function<bool()>()>;
    /// Runs @p job for task @p task: on the figure pool when asynchronousFigures() and not @p now, else now on the
    /// calling thread.
    void startFigureJob(quint64 task, FigureJob job, bool now = false);

public slots:
    /// Runs a pending table or attention request now, without waiting for figure jobs (the benchmark starts A's and
    /// B's this way, so that both figures compute while the UI thread paints).
    void runPending();

    /// Schedules a recompute; bursts within one event-loop pass collapse into one.
    void schedule();
    /// Runs a pending request now and waits for every figure job (waitForFigures()): every view's data is current
    /// after it (tests, exports and the benchmark use it to flush).
    void flush();
    /// Drops the running worker's result; the state stays as it is.
    void cancel();

signals:
    void resultReady(std::shared_ptr<const poslab::ui::EncodingResult> result);
    void busyChanged(bool busy);
    void attentionReady(std::shared_ptr<const poslab::ui::AttentionOutput> result);
    /// FigureTask @p task stored new data (deliverFigure()); its view has been told.
    void figureReady(quint64 task);

private:
    /// The one way a figure's data reaches its view: on the UI thread, runs @p store (the task keeps the newest
    /// serial's data and calls its view) and emits figureReady() when it stored.
    void deliverFigure(quint64 task, const std::function<bool()>& store);
    void run();
    void runAttention();
    void publish(std::shared_ptr<const EncodingResult> r);
    /// Widens a windowed result's value range to the range seen for the same set-up, so that the colours
    /// do not jump while zooming into a large table.
    std::shared_ptr<const EncodingResult> withStableRange(std::shared_ptr<EncodingResult> r);

    WorkbenchState* m_state;
    QTimer m_timer;
    QThreadPool m_pool;
    std::shared_ptr<const EncodingResult> m_result;
    quint64 m_serial = 0;
    quint64 m_busySerial = 0;
    quint64 m_published = 0;
    TableQuantity m_lastQuantity = TableQuantity::Cos;
    std::unique_ptr<gpu::TableEngine> m_engine;
    std::atomic<quint64> m_tableLatest{0}; ///< newest table request: queued older ones return at once
    TableWindow m_window;
    Setup m_rangeSetup; ///< set-up and quantity m_rangeLo/Hi belong to
    TableQuantity m_rangeQuantity = TableQuantity::Cos;
    double m_rangeLo = 0.0, m_rangeHi = 0.0;
    bool m_haveRange = false;
    QTimer m_attentionTimer;
    std::shared_ptr<const AttentionOutput> m_attention;
    AttentionFigure::Inputs m_lastAttentionInputs; ///< what the latest scores were computed from
    quint64 m_attentionSerial = 0;
    quint64 m_attentionBusy = 0;
    std::atomic<quint64> m_attentionLatest{0};
    bool m_synchronousAttention = false;
    bool m_attentionShown = true;
    /// The attention figure's inputs now (a 1 x 1 size when no view draws the scores).
    AttentionFigure::Inputs attentionInputs() const;
    QThreadPool m_attentionPool;
    QThreadPool m_figurePool;
    bool m_asyncFigures = false;
    int m_figureJobs = 0; ///< started, not yet delivered (UI thread only)
    quint64 m_figureTasks = 0;
    std::atomic<quint64> m_figureComputes{0};
};

/// A view's handle on one figure, computed by its Computation (STYLE.md seam 5 for every figure): the view hands it
/// the figure's Inputs (inputsOf(), cheap, on the UI thread); inputs equal to the last requested change nothing;
/// others get a new serial and Figure::compute runs on the computation's figure pool (asynchronousFigures()) or at
/// once. The first request is always computed at once: a view has its figure from its first paint on (one made while
/// the window computes asynchronously, B's twin, a view a lesson step shows) and never draws default data. Coalesced: while one job runs, only the newest inputs requested meanwhile run next; a result whose serial is
/// not the newest is dropped (cancelled). New data comes back through Computation::deliverFigure(), which stores it
/// here and calls @p onReady(later): later is false when it came inside request() (synchronous), true when it came
/// from the pool afterwards (the view then refreshes). Used on the UI thread only; the worker sees a copy of the
/// inputs and nothing else.
template <class Figure> class FigureTask {
public:
    using Inputs = typename Figure::Inputs;
    using Data = typename Figure::Data;

    /// @p immediate: always computed inside request(), whatever the computation's mode, for a figure that input
    /// handlers read back at once (the patch grid's and sequence's selected patch or token: a key press moves from
    /// the selection the figure shows); it still goes through Computation::deliverFigure().
    FigureTask(Computation* computation, std::function<void(bool later)> onReady, bool immediate = false)
        : m_s(std::make_shared<State>())
    {
        m_s->computation = computation;
        m_s->id = computation->newFigureTask();
        m_s->onReady = std::move(onReady);
        m_s->immediate = immediate;
    }
    FigureTask(const FigureTask&) = delete;
    FigureTask& operator=(const FigureTask&) = delete;

    /// Asks for the data of @p inputs; true when a compute was started (or, synchronous, done).
    bool request(Inputs inputs)
    {
        State& s = *m_s;
        if (s.haveAsked && inputs == s.asked)
            return false;
        s.asked = inputs;
        s.haveAsked = true;
        const quint64 serial = ++s.serial;
        if (s.running) {
            s.pending = std::move(inputs); // coalesced: replaces an older pending request, which never runs
            return true;
        }
        start(m_s, std::move(inputs), serial);
        return true;
    }
    /// request(Figure::inputsOf(snapshot)).
    bool update(const FigureSnapshot& snapshot) { return request(Figure::inputsOf(snapshot)); }
    /// Forgets the last request: the next request() computes whatever its inputs (a job on its way is dropped).
    void forget()
    {
        m_s->haveAsked = false;
        m_s->pending.reset();
        ++m_s->serial;
        m_s->delivered = m_s->serial;
    }
    /// The newest data delivered (default-constructed before the first).
    const Data& data() const { return m_s->data; }
    /// True while the data is not yet that of the last request (a job running or queued).
    bool isPending() const { return m_s->delivered != m_s->serial; }
    /// Serial of the last request and of the data delivered (equal when current).
    quint64 requestedSerial() const { return m_s->serial; }
    quint64 deliveredSerial() const { return m_s->delivered; }
    /// The id figureReady() names this task by.
    quint64 id() const { return m_s->id; }

private:
    struct State {
        Computation* computation = nullptr;
        quint64 id = 0;
        std::function<void(bool)> onReady;
        Inputs asked{};
        bool haveAsked = false;
        quint64 serial = 0;    ///< the newest request's
        quint64 delivered = 0; ///< the data's
        bool running = false;  ///< a job is on its way
        bool hasData = false;  ///< a request's data was delivered once
        bool immediate = false;
        bool inRequest = false;
        std::optional<Inputs> pending; ///< the newest request made while running
        Data data{};
    };
    std::shared_ptr<State> m_s;

    static void start(const std::shared_ptr<State>& s, Inputs inputs, quint64 serial)
    {
        s->running = true;
        s->inRequest = true;
        std::weak_ptr<State> weak = s;
        s->computation->startFigureJob(
            s->id,
            [in = std::move(inputs), serial, weak]() -> std::function<bool()> {
                std::shared_ptr<Data> data;
                std::exception_ptr error;
                try {
                    data = std::make_shared<Data>(Figure::compute(in));
                } catch (...) {
                    error = std::current_exception(); // rethrown on the calling thread when synchronous
                }
                return [weak, serial, data, error] { return deliver(weak.lock(), serial, data, error); };
            },
            !s->hasData || s->immediate);
        s->inRequest = false;
    }
    /// On the UI thread (Computation::deliverFigure): keeps the newest serial's data, then runs what is pending.
    static bool deliver(const std::shared_ptr<State>& s, quint64 serial, const std::shared_ptr<Data>& data,
                        const std::exception_ptr& error)
    {
        if (!s)
            return false; // the view is gone
        s->running = false;
        if (error) {
            s->haveAsked = false; // the same inputs are tried again when asked
            if (s->inRequest) {
                s->inRequest = false;
                std::rethrow_exception(error); // computed on the calling thread, as FigureCache did: the caller sees it
            }
            if (serial == s->serial)
                s->delivered = serial; // nothing new to draw: the view keeps what it has, not waiting for ever
        }
        const bool current = data && serial == s->serial;
        if (current) {
            s->data = std::move(*data);
            s->delivered = serial;
            s->hasData = true;
            if (s->onReady)
                s->onReady(!s->inRequest);
        }
        if (s->pending) {
            Inputs next = std::move(*s->pending);
            s->pending.reset();
            start(s, std::move(next), s->serial);
        }
        return current;
    }
};

} // namespace poslab::ui
