// SPDX-License-Identifier: MIT
#include "ui/figures/computation.h"

#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/io/inputfile.h"
#include "core/io/outputfile.h"
#include "core/errors.h"
#include "core/params.h"
#include "core/random.h"
#include "core/rotary.h"
#include "core/trigtable.h"
#include "ui/render/figuretitle.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace poslab::ui {

Computation::Computation(WorkbenchState* state, QObject* parent, bool attention, gpu::ComputePath path)
    : QObject(parent)
    , m_state(state)
    , m_engine(std::make_unique<gpu::TableEngine>(path))
{
    m_attentionShown = attention;
    qRegisterMetaType<std::shared_ptr<const poslab::ui::EncodingResult>>();
    m_pool.setMaxThreadCount(1);
    m_attentionPool.setMaxThreadCount(1);
    // One figure job at a time per computation: A's and B's figures (compare mode) run beside each other and the
    // UI thread's painting.
    m_figurePool.setMaxThreadCount(1);
    m_timer.setSingleShot(true);
    m_timer.setInterval(0);
    connect(&m_timer, &QTimer::timeout, this, &Computation::run);
    connect(state, &WorkbenchState::setupChanged, this, &Computation::schedule);
    connect(state, &WorkbenchState::viewOptionsChanged, this, [this] {
        if (m_state->viewOptions().tableQuantity != m_lastQuantity)
            schedule();
        if (attentionInputs() != m_lastAttentionInputs)
            m_attentionTimer.start();
    });
    qRegisterMetaType<std::shared_ptr<const poslab::ui::AttentionOutput>>();
    m_attentionTimer.setSingleShot(true);
    m_attentionTimer.setInterval(0);
    connect(&m_attentionTimer, &QTimer::timeout, this, &Computation::runAttention);
    connect(state, &WorkbenchState::setupChanged, &m_attentionTimer, [this] { m_attentionTimer.start(); });
    // A model trained in the window: new parameters recompute the trained source's weights (not every progress:
    // the figure's inputs hold the runs' model count).
    connect(state, &WorkbenchState::trainedRunsChanged, this, [this] {
        if (attentionInputs() != m_lastAttentionInputs)
            m_attentionTimer.start();
    });
    m_lastAttentionInputs = attentionInputs();
    {
        auto a = std::make_shared<AttentionOutput>(AttentionFigure::compute(m_lastAttentionInputs));
        a->serial = ++m_attentionSerial;
        m_attention = a;
    }
    m_lastQuantity = state->viewOptions().tableQuantity;
    auto first
        = TableFigure::compute({state->setup(), m_lastQuantity, m_window, {state->checkedParams()}}, m_engine.get());
    first->serial = ++m_serial;
    m_result = withStableRange(first);
}

Computation::~Computation()
{
    m_attentionLatest.store(0); // queued requests return at once
    m_tableLatest.store(0);
    m_pool.waitForDone();
    m_attentionPool.waitForDone();
    m_figurePool.waitForDone(); // their deliveries, queued to this object, are dropped with it
}

void Computation::setComputePath(gpu::ComputePath path)
{
    if (path == m_engine->preference())
        return;
    m_engine->setPreference(path);
    schedule();
}

gpu::ComputePath Computation::computePath() const
{
    return m_engine->preference();
}

void Computation::setTableWindow(const TableWindow& window)
{
    if (window == m_window)
        return;
    m_window = window;
    const auto& r = m_result;
    if (!r || !r->error.isEmpty() || r->setup != m_state->setup())
        return; // a recompute is on its way and reads the new window
    if (!r->isPartial())
        return; // the whole table is there at full resolution
    const TableFigure::RowPlan plan = TableFigure::planRows(r->totalRows, r->totalCols, window);
    const int end = window.rowEnd > 0 ? std::min(window.rowEnd, r->totalRows) : r->totalRows;
    const int haveEnd = r->rowStart + int(r->table.rows()) * r->rowStep;
    const bool covered = r->rowStart <= std::max(0, window.rowBegin) && haveEnd >= end;
    if (covered && r->rowStep <= plan.step && r->rowStep * 4 > plan.step)
        return; // fine enough (and not needlessly fine) for the new window
    schedule();
}

void Computation::waitForTable()
{
    m_pool.waitForDone();
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

void Computation::setSynchronousAttention(bool on)
{
    m_synchronousAttention = on;
}

void Computation::waitForAttention()
{
    m_attentionPool.waitForDone();
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    // The figures too: a caller that waits for the scores (an export's settle) draws every view next.
    waitForFigures();
}

void Computation::waitForFigures()
{
    // A delivery may start the next job of its task (the newest pending request): wait until none is left.
    while (m_figureJobs > 0) {
        m_figurePool.waitForDone();
        QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    }
}

void Computation::startFigureJob(quint64 task, FigureJob job, bool now)
{
    if (!m_asyncFigures || now) {
        ++m_figureComputes;
        deliverFigure(task, job());
        return;
    }
    ++m_figureJobs;
    m_figurePool.start([this, task, job = std::move(job)] {
        ++m_figureComputes;
        std::function<bool()> store = job();
        // The Computation outlives its pool's jobs (its destructor waits), not necessarily their queued deliveries:
        // those go with it.
        QMetaObject::invokeMethod(
            this,
            [this, task, store = std::move(store)] {
                --m_figureJobs;
                deliverFigure(task, store);
            },
            Qt::QueuedConnection);
    });
}

void Computation::deliverFigure(quint64 task, const std::function<bool()>& store)
{
    if (store())
        emit figureReady(task);
}

void Computation::schedule()
{
    m_timer.start();
}

void Computation::flush()
{
    runPending();
    waitForFigures();
}

void Computation::runPending()
{
    if (m_timer.isActive()) {
        m_timer.stop();
        run();
    }
    if (m_attentionTimer.isActive()) {
        m_attentionTimer.stop();
        runAttention();
    }
}

AttentionFigure::Inputs Computation::attentionInputs() const
{
    FigureSnapshot snapshot = FigureSnapshot::of(*m_state);
    if (!m_attentionShown)
        snapshot.options.attentionSize = 1; // nobody draws the scores: a 1 x 1 matrix instead of the state's size
    return AttentionFigure::inputsOf(snapshot);
}

void Computation::runAttention()
{
    const AttentionFigure::Inputs inputs = attentionInputs();
    m_lastAttentionInputs = inputs;
    const quint64 serial = ++m_attentionSerial;
    m_attentionLatest.store(serial);
    const double side = double(std::min(inputs.attentionSize, inputs.setup.positionCount));
    auto deliver = [this](std::shared_ptr<const AttentionOutput> a) {
        if (m_attention && a->serial < m_attention->serial)
            return;
        m_attention = std::move(a);
        emit attentionReady(m_attention);
    };
    if (m_synchronousAttention && side * side <= double(1 << 20)) {
        auto a = std::make_shared<AttentionOutput>(AttentionFigure::compute(inputs));
        a->serial = serial;
        m_attentionBusy = 0;
        deliver(a);
        return;
    }
    m_attentionBusy = serial;
    // Scores take milliseconds to tens of milliseconds; the UI thread keeps drawing meanwhile and the view
    // shows the newest result when it lands. Requests queued behind a running one are skipped if superseded.
    m_attentionPool.start([this, inputs, serial, deliver] {
        if (serial != m_attentionLatest.load())
            return; // superseded while waiting
        auto a = std::make_shared<AttentionOutput>(AttentionFigure::compute(inputs));
        a->serial = serial;
        std::shared_ptr<const AttentionOutput> ca = a;
        QMetaObject::invokeMethod(
            this,
            [this, ca, deliver] {
                if (ca->serial != m_attentionBusy)
                    return;
                m_attentionBusy = 0;
                deliver(ca);
            },
            Qt::QueuedConnection);
    });
}

void Computation::cancel()
{
    if (m_busySerial) {
        m_busySerial = 0;
        emit busyChanged(false);
    }
}

void Computation::run()
{
    const Setup setup = m_state->setup();
    const CheckedSetup checked{m_state->checkedParams()}; // validated once by the state: not again in the figure
    const TableQuantity quantity = m_state->viewOptions().tableQuantity;
    m_lastQuantity = quantity;
    const quint64 serial = ++m_serial;
    m_tableLatest.store(serial);
    if (m_result && m_result->setup.positionCount != setup.positionCount)
        m_window = TableWindow{0, 0, m_window.pixelRows};
    const TableWindow window = m_window;
    // What will be computed: at most TableFigure::fullTableCells cells whatever the set-up (columns are d at most).
    const TableFigure::RowPlan plan = TableFigure::planRows(setup.positionCount, setup.dim, window);
    const long long elements = (long long)plan.count * setup.dim;
    if (elements <= workerThreshold) {
        auto r = TableFigure::compute({setup, quantity, window, checked}, m_engine.get());
        r->serial = serial;
        if (m_busySerial) { // a newer synchronous result supersedes the running worker
            m_busySerial = 0;
            emit busyChanged(false);
        }
        publish(withStableRange(std::move(r)));
        return;
    }
    const bool wasBusy = m_busySerial != 0;
    m_busySerial = serial;
    if (!wasBusy)
        emit busyChanged(true);
    // The engine outlives the pool's jobs: the destructor waits for the pool before members go.
    gpu::TableEngine* engine = m_engine.get();
    m_pool.start([this, setup, checked, quantity, window, engine, serial] {
        if (serial != m_tableLatest.load())
            return; // superseded while queued (a wheel zoom sends a burst of windows)
        std::shared_ptr<EncodingResult> r = TableFigure::compute({setup, quantity, window, checked}, engine);
        r->serial = serial;
        QMetaObject::invokeMethod(
            this,
            [this, r] {
                if (r->serial != m_busySerial)
                    return; // cancelled or superseded
                m_busySerial = 0;
                emit busyChanged(false);
                publish(withStableRange(r));
            },
            Qt::QueuedConnection);
    });
}

std::shared_ptr<const EncodingResult> Computation::withStableRange(std::shared_ptr<EncodingResult> r)
{
    if (!r->error.isEmpty() || r->table.size() == 0)
        return r;
    const bool same = m_haveRange && m_rangeSetup == r->setup && m_rangeQuantity == r->quantity;
    if (!r->isPartial() || !same) {
        m_rangeSetup = r->setup;
        m_rangeQuantity = r->quantity;
        m_rangeLo = r->lo;
        m_rangeHi = r->hi;
        m_haveRange = true;
        return r;
    }
    m_rangeLo = std::min(m_rangeLo, r->lo);
    m_rangeHi = std::max(m_rangeHi, r->hi);
    r->lo = m_rangeLo;
    r->hi = m_rangeHi;
    r->signedValues = r->lo < 0.0 && r->hi > 0.0 && r->quantity != TableQuantity::Angle;
    if (r->rotary && r->quantity == TableQuantity::Angle)
        r->signedValues = false;
    return r;
}

void Computation::publish(std::shared_ptr<const EncodingResult> r)
{
    if (m_result && r->serial < m_result->serial)
        return;
    m_result = std::move(r);
    ++m_published;
    emit resultReady(m_result);
}

QString Computation::saveRuns(const QString& path, const std::vector<core::train::RunResult>& runs)
{
    try {
        core::writeOutputFile(path.toStdString(), [&](std::ostream& out) { core::train::writeRuns(out, runs); });
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

std::shared_ptr<AttentionOutput> Computation::trainedAttention(const TrainedRuns* window, const Setup& setup,
                                                               const ViewOptions& options)
{
    FigureSnapshot snapshot;
    snapshot.setup = setup;
    snapshot.options = options;
    return std::make_shared<AttentionOutput>(
        AttentionFigure::trainedAttention(window, AttentionFigure::inputsOf(snapshot)));
}

bool Computation::isRunFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    // The writer puts "format" first: the first kilobyte says it.
    const QByteArray head = f.read(1024);
    return head.contains("\"format\": \"poslab-train-runs\"");
}

std::optional<core::RotarySpec> Computation::rotarySpec(const Setup& setup)
{
    const core::SchemeDescriptor* s = core::findScheme(setup.scheme);
    if (!s || !s->rotary)
        return std::nullopt;
    core::TableContext ctx;
    ctx.dim = setup.dim;
    ctx.positions = core::PositionList::range(0, std::max(1, setup.positionCount));
    ctx.seqLen = setup.positionCount;
    try {
        return s->rotary(setup.params, ctx);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// ------------------------------------------------------------------------------------------ compare mode

std::optional<core::Position> Computation::trainedLength(const Setup& setup, const ViewOptions& options)
{
    const core::SchemeDescriptor* s = core::findScheme(setup.scheme);
    if (s && s->rotary)
        if (const auto own = core::trainedLengthOf(*s, setup.params))
            return own;
    if (options.trainedLength > 0)
        return core::Position(options.trainedLength);
    if (const qint64 t = setup.model.value(QStringLiteral("trained_length")).toInteger(); t > 0)
        return core::Position(t);
    return std::nullopt;
}

Computation* Computation::compareComputation(WorkbenchState& a, const Computation& like)
{
    WorkbenchState* b = a.compareState();
    if (!b)
        return nullptr;
    if (auto* c = b->findChild<Computation*>(QString(), Qt::FindDirectChildrenOnly))
        return c;
    auto* c = new Computation(b, b, like.m_attentionShown, like.computePath());
    c->setSynchronousAttention(like.m_synchronousAttention);
    c->setAsynchronousFigures(like.m_asyncFigures);
    return c;
}

core::ComputeResult Computation::difference(const core::ComputeResult& a, const core::ComputeResult& b)
{
    if (a.quantity != b.quantity)
        throw core::InputError("difference A - B: A gives " + a.quantity + ", B gives " + b.quantity);
    const auto shapeText = [](const core::ComputeResult& r) {
        std::string t;
        for (std::size_t n : r.shape)
            t += (t.empty() ? "" : " x ") + std::to_string(n);
        return t;
    };
    if (a.shape != b.shape || a.data.size() != b.data.size())
        throw core::InputError("difference A - B needs data of one shape: A is " + shapeText(a) + ", B is "
                               + shapeText(b));
    if (a.columns != b.columns)
        throw core::InputError("difference A - B needs the same columns in A and B (A: "
                               + std::to_string(a.columns.size()) + ", B: " + std::to_string(b.columns.size())
                               + " named differently)");
    core::ComputeResult d = a;
    const std::size_t cols = a.shape.empty() ? 1 : a.shape.back();
    for (std::size_t i = 0; i < d.data.size(); ++i) {
        const std::size_t c = cols ? i % cols : 0;
        if (c < a.columns.size() && a.columns[c] == "distance") {
            if (a.data[i] != b.data[i])
                throw core::InputError("difference A - B needs the same distances in A and B");
            continue; // the coordinate, not a value
        }
        d.data[i] = a.data[i] - b.data[i];
    }
    d.quantity = a.quantity + "_difference";
    d.float32 = false; // the difference of two float32 values is exact in double, rarely a float32
    d.labels.push_back({"difference", "A - B, element by element (A: " + a.scheme + ", B: " + b.scheme + ")"});
    d.scalars.clear();
    d.warnings.insert(d.warnings.end(), b.warnings.begin(), b.warnings.end());
    return d;
}

core::MatrixF Computation::difference(const core::MatrixF& a, const core::MatrixF& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return {};
    return a - b; // NaN - x and x - NaN stay NaN: a position masked in either is masked in the difference
}

ValueRange Computation::symmetricRange(const core::MatrixF& m)
{
    double a = 1e-30;
    for (Eigen::Index i = 0; i < m.size(); ++i)
        if (std::isfinite(m.data()[i]))
            a = std::max(a, double(std::abs(m.data()[i])));
    return {-a, a};
}

} // namespace poslab::ui
