// SPDX-License-Identifier: MIT
#pragma once
/// @file computation.h
/// The controller between the state and core: it collapses bursts of state changes with a zero-delay
/// single-shot timer, computes the encoding table (on a worker thread when the request is large) and
/// publishes immutable results that every view shares. Nothing mutable is shared across threads: the
/// worker gets a copy of the set-up and hands back a new result.

#include "core/attention.h"
#include "core/scheme.h"
#include "core/types.h"
#include "ui/workbenchstate.h"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>

#include <atomic>
#include <memory>
#include <vector>

namespace poslab::ui {

/// One computed encoding table and what the views need to explain it.
struct EncodingResult {
    quint64 serial = 0;              ///< increases with every request
    Setup setup;                     ///< what was computed
    TableQuantity quantity = TableQuantity::Cos; ///< for rotary schemes: which table
    QString error;                   ///< non-empty when core refused the request
    bool rotary = false;
    core::RotarySpec spec;           ///< rotary schemes: frequencies, layout, attention factor
    std::vector<double> frequencies; ///< per pair, rad/token (sinusoidal or rotary); empty for none
    /// positions x columns: the additive encoding (positions x d) or, for rotary schemes, the chosen
    /// quantity per pair (positions x r/2). Row i = position i.
    core::MatrixF table;
    std::vector<int> columnPair;     ///< column -> pair index (wavelength read-out), -1 when none
    QString tableLabel;              ///< e.g. "cos(p * theta_i)"
    QString columnLabel;             ///< "dimension" or "pair i"
    double lo = 0.0, hi = 1.0;       ///< value range of the table
    bool signedValues = false;       ///< the table holds negative and positive values
    double milliseconds = 0.0;       ///< time core took
};

/// One head's attention scores for the attention view.
struct AttentionOutput {
    quint64 serial = 0;
    Setup setup;
    int head = 0;                    ///< which head (0-based)
    int heads = 1;
    bool softmax = true;             ///< matrix holds probabilities (else logits)
    bool causal = true;
    AttentionContent content = AttentionContent::Random;
    QString error;                   ///< non-empty when the engine refused
    core::MatrixF matrix;            ///< Lq x Lk, masked entries NaN
    std::vector<std::string> tokens; ///< Sentence: the word at each position
    std::vector<std::pair<std::string, double>> scalars; ///< per head (ALiBi "slope") and per request
    double lo = 0.0, hi = 1.0;       ///< finite value range
    /// 99th percentile of the finite values: softmax rows of long sequences are mostly tiny, and a colour
    /// scale up to the single 1.0 of row 0 would paint everything dark.
    double p99 = 1.0;
    double milliseconds = 0.0;
};

class Computation : public QObject {
    Q_OBJECT
public:
    /// Requests with more elements than this go to a worker thread.
    static constexpr long long workerThreshold = 1 << 21;

    explicit Computation(WorkbenchState* state, QObject* parent = nullptr);
    ~Computation() override;

    /// The latest published result (never null after construction: the first one is computed at once).
    std::shared_ptr<const EncodingResult> result() const { return m_result; }
    bool isBusy() const { return m_busySerial != 0; }
    /// Number of results published so far.
    quint64 publishedCount() const { return m_published; }

    /// Computes one set-up synchronously (also used by the worker and by export).
    static std::shared_ptr<EncodingResult> computeEncoding(const Setup& setup, TableQuantity quantity);
    /// Computes one head of attention scores synchronously for a set-up and the view options.
    static std::shared_ptr<AttentionOutput> computeAttention(const Setup& setup, const ViewOptions& options);
    /// Attention scores are computed on a worker thread; tests may ask for them on the calling thread.
    void setSynchronousAttention(bool on);
    /// Blocks until the attention worker is idle and its result delivered (tests).
    void waitForAttention();
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
    /// The options the attention scores depend on, to skip recomputing for unrelated option changes.
    static bool sameAttentionInputs(const ViewOptions& a, const ViewOptions& b);
    void publish(std::shared_ptr<const EncodingResult> r);

    WorkbenchState* m_state;
    QTimer m_timer;
    QThreadPool m_pool;
    std::shared_ptr<const EncodingResult> m_result;
    quint64 m_serial = 0;
    quint64 m_busySerial = 0;
    quint64 m_published = 0;
    TableQuantity m_lastQuantity = TableQuantity::Cos;
    QTimer m_attentionTimer;
    std::shared_ptr<const AttentionOutput> m_attention;
    ViewOptions m_lastAttentionOptions;
    quint64 m_attentionSerial = 0;
    quint64 m_attentionBusy = 0;
    std::atomic<quint64> m_attentionLatest{0};
    bool m_synchronousAttention = false;
    QThreadPool m_attentionPool;
};

} // namespace poslab::ui
