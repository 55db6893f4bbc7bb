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

public slots:
    /// Schedules a recompute; bursts within one event-loop pass collapse into one.
    void schedule();
    /// Runs a pending request now (tests and the benchmark use it to flush).
    void flush();
    /// Drops the running worker's result; the state stays as it is.
    void cancel();

signals:
    void resultReady(std::shared_ptr<const poslab::ui::EncodingResult> result);
    void busyChanged(bool busy);
    void attentionReady(std::shared_ptr<const poslab::ui::AttentionOutput> result);

private:
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
};

} // namespace poslab::ui
