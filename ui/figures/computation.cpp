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
    m_timer.setSingleShot(true);
    m_timer.setInterval(0);
    connect(&m_timer, &QTimer::timeout, this, &Computation::run);
    connect(state, &WorkbenchState::setupChanged, this, &Computation::schedule);
    connect(state, &WorkbenchState::viewOptionsChanged, this, [this] {
        if (m_state->viewOptions().tableQuantity != m_lastQuantity)
            schedule();
        if (!sameAttentionInputs(attentionOptions(), m_lastAttentionOptions))
            m_attentionTimer.start();
    });
    qRegisterMetaType<std::shared_ptr<const poslab::ui::AttentionOutput>>();
    m_attentionTimer.setSingleShot(true);
    m_attentionTimer.setInterval(0);
    connect(&m_attentionTimer, &QTimer::timeout, this, &Computation::runAttention);
    connect(state, &WorkbenchState::setupChanged, &m_attentionTimer, [this] { m_attentionTimer.start(); });
    // A model trained in the window: new parameters recompute the trained source's weights (not every progress).
    connect(state, &WorkbenchState::trainedRunsChanged, this, [this] {
        const auto runs = m_state->trainedRuns();
        const quint64 models = runs ? runs->models : 0;
        if (models != m_attentionModels && m_state->viewOptions().attentionSource == AttentionSource::Trained)
            m_attentionTimer.start();
    });
    m_lastAttentionOptions = attentionOptions();
    {
        auto a = m_lastAttentionOptions.attentionSource == AttentionSource::Trained
            ? trainedAttention(state->trainedRuns().get(), state->setup(), m_lastAttentionOptions)
            : computeAttention(state->setup(), m_lastAttentionOptions);
        a->serial = ++m_attentionSerial;
        m_attention = a;
    }
    m_lastQuantity = state->viewOptions().tableQuantity;
    auto first = TableFigure::compute({state->setup(), m_lastQuantity, m_window}, m_engine.get());
    first->serial = ++m_serial;
    m_result = withStableRange(first);
}

Computation::~Computation()
{
    m_attentionLatest.store(0); // queued requests return at once
    m_tableLatest.store(0);
    m_pool.waitForDone();
    m_attentionPool.waitForDone();
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
}

void Computation::schedule()
{
    m_timer.start();
}

void Computation::flush()
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

ViewOptions Computation::attentionOptions() const
{
    ViewOptions o = m_state->viewOptions();
    if (!m_attentionShown)
        o.attentionSize = 1; // nobody draws the scores: a 1 x 1 matrix instead of the state's size
    return o;
}

bool Computation::sameAttentionInputs(const ViewOptions& a, const ViewOptions& b)
{
    for (const ViewProperty& p : viewProperties())
        if (p.attentionInput && p.get(a) != p.get(b))
            return false;
    return true;
}

void Computation::runAttention()
{
    const Setup setup = m_state->setup();
    const ViewOptions options = attentionOptions();
    m_lastAttentionOptions = options;
    const std::shared_ptr<const TrainedRuns> trained = m_state->trainedRuns();
    m_attentionModels = trained ? trained->models : 0;
    const auto compute = [trained](const Setup& su, const ViewOptions& o) {
        return o.attentionSource == AttentionSource::Trained ? trainedAttention(trained.get(), su, o)
                                                             : computeAttention(su, o);
    };
    const quint64 serial = ++m_attentionSerial;
    m_attentionLatest.store(serial);
    const double cells = double(std::min(options.attentionSize, setup.positionCount))
        * double(std::min(options.attentionSize, setup.positionCount));
    auto deliver = [this](std::shared_ptr<const AttentionOutput> a) {
        if (m_attention && a->serial < m_attention->serial)
            return;
        m_attention = std::move(a);
        emit attentionReady(m_attention);
    };
    if (m_synchronousAttention && cells <= double(1 << 20)) {
        auto a = compute(setup, options);
        a->serial = serial;
        m_attentionBusy = 0;
        deliver(a);
        return;
    }
    m_attentionBusy = serial;
    // Scores take milliseconds to tens of milliseconds; the UI thread keeps drawing meanwhile and the view
    // shows the newest result when it lands. Requests queued behind a running one are skipped if superseded.
    m_attentionPool.start([this, setup, options, serial, deliver, compute] {
        if (serial != m_attentionLatest.load())
            return; // superseded while waiting
        std::shared_ptr<AttentionOutput> a = compute(setup, options);
        a->serial = serial;
        std::shared_ptr<const AttentionOutput> ca = a;
        QMetaObject::invokeMethod(this, [this, ca, deliver] {
            if (ca->serial != m_attentionBusy)
                return;
            m_attentionBusy = 0;
            deliver(ca);
        }, Qt::QueuedConnection);
    });
}

namespace {

/// The finite value range of the matrix.
void fillValueRange(AttentionOutput& out)
{
    AttentionOutput* a = &out;
    bool first = true;
    const float* p = a->matrix.data();
    for (Eigen::Index i = 0; i < a->matrix.size(); ++i) {
        if (!std::isfinite(p[i]))
            continue;
        if (first) {
            a->lo = a->hi = p[i];
            first = false;
        }
        a->lo = std::min<double>(a->lo, p[i]);
        a->hi = std::max<double>(a->hi, p[i]);
    }
}

} // namespace

std::shared_ptr<AttentionOutput> Computation::computeAttention(const Setup& setup, const ViewOptions& o)
{
    auto a = std::make_shared<AttentionOutput>();
    a->setup = setup;
    a->heads = std::max(1, o.heads);
    a->head = std::clamp(o.head, 0, a->heads - 1);
    a->softmax = o.softmax;
    a->causal = o.causal;
    a->content = o.content;
    QElapsedTimer clock;
    clock.start();
    try {
        core::AttentionRequest r;
        r.scheme = setup.scheme;
        r.params = setup.params;
        r.headDim = setup.dim;
        r.heads = a->heads;
        r.onlyHead = a->head;
        r.mask = o.causal ? core::MaskKind::Causal : core::MaskKind::Bidirectional;
        r.wantProbabilities = o.softmax;
        const core::SchemeDescriptor* descriptor = core::findScheme(setup.scheme);
        r.wantTerms = descriptor && descriptor->score; // the schemes whose score has named parts
        int n = std::max(1, std::min(o.attentionSize, setup.positionCount));
        switch (o.content) {
        case AttentionContent::Random: r.content.kind = core::ContentKind::Random; break;
        case AttentionContent::Constant: r.content.kind = core::ContentKind::Constant; break;
        case AttentionContent::Sentence:
            r.content = core::parseContent(o.sentence.toStdString(), 0);
            r.content.kind = core::ContentKind::Sentence;
            a->tokens = core::sentenceWords(r.content);
            n = std::max<int>(1, int(a->tokens.size()));
            break;
        }
        r.queries = core::PositionList::range(0, n);
        r.keys = core::PositionList::range(0, n);
        r.seqLen = setup.positionCount;
        core::AttentionResult res = core::attentionScores(r);
        if (res.heads.empty())
            throw std::runtime_error("the engine returned no head");
        core::AttentionHead& h = res.heads.front();
        a->matrix = o.softmax ? std::move(h.probabilities) : std::move(h.logits);
        for (core::AttentionTerm& t : h.terms) {
            a->terms << QString::fromStdString(t.key);
            if (!o.term.isEmpty() && QString::fromStdString(t.key) == o.term) {
                // One part of the logits: no softmax of a part (it is not a distribution).
                a->matrix = std::move(t.values);
                a->term = o.term;
                a->termLabel = QString::fromStdString(t.label);
                a->softmax = false;
            }
        }
        a->scalars = h.scalars;
        a->scalars.insert(a->scalars.end(), res.scalars.begin(), res.scalars.end());
        fillValueRange(*a);
    } catch (const std::exception& e) {
        a->error = QString::fromStdString(e.what());
        a->matrix.resize(0, 0);
    }
    a->milliseconds = clock.nsecsElapsed() / 1e6;
    return a;
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
        auto r = TableFigure::compute({setup, quantity, window}, m_engine.get());
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
    m_pool.start([this, setup, quantity, window, engine, serial] {
        if (serial != m_tableLatest.load())
            return; // superseded while queued (a wheel zoom sends a burst of windows)
        std::shared_ptr<EncodingResult> r = TableFigure::compute({setup, quantity, window}, engine);
        r->serial = serial;
        QMetaObject::invokeMethod(this, [this, r] {
            if (r->serial != m_busySerial)
                return; // cancelled or superseded
            m_busySerial = 0;
            emit busyChanged(false);
            publish(withStableRange(r));
        }, Qt::QueuedConnection);
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

core::ComputeRequest Computation::request(const Setup& setup)
{
    return figureRequest(setup);
}

namespace {

/// Distances 0..maxK: every one for an export, else at most about 400 of them (close to the chart's plot width at
/// the default size; Qt Charts costs about a microsecond per point per frame).
std::vector<core::Position> sampledDistances(core::Position maxK, bool everyDistance)
{
    std::vector<core::Position> ks;
    const core::Position stride = everyDistance ? 1 : std::max<core::Position>(1, (maxK + 1 + 399) / 400);
    for (core::Position k = 0; k <= maxK; k += stride)
        ks.push_back(k);
    if (ks.back() != maxK)
        ks.push_back(maxK);
    return ks;
}

} // namespace

DecayData Computation::decayData(const Setup& su, const ViewOptions& options, core::Position cursor,
                                 bool everyDistance)
{
    DecayData d;
    try {
        const core::SchemeDescriptor& s = core::schemeOrThrow(su.scheme);
        core::ComputeRequest base = request(su);
        base.quantity = core::Quantity::Decay;
        base.content.kind = core::ContentKind::Constant; // q = k = (1, ..., 1): `compute decay` without --content
        if (s.bias)
            base.heads = std::max(1, options.heads);
        const core::Position rows = std::max(1, su.positionCount);
        // core::compute at d.distances; @p only keeps one curve (empty: all of them).
        auto curvesAt = [&](core::DecayNormalisation normalisation, const std::string& only) {
            core::ComputeRequest r = base;
            r.context.positions = core::PositionList::list(d.distances);
            r.normalisation = normalisation;
            r.origin = d.origin;
            const core::ComputeResult res = core::compute(r);
            const std::size_t cols = res.columns.size(), n = d.distances.size();
            for (std::size_t c = 0; c < cols; ++c) {
                if (!only.empty() && res.columns[c] != only)
                    continue;
                core::DecaySeries series{res.columns[c], c < res.columnLabels.size() ? res.columnLabels[c] : res.columns[c],
                                         std::vector<double>(n)};
                for (std::size_t i = 0; i < n; ++i)
                    series.values[i] = res.data[i * cols + c];
                d.curves.push_back(std::move(series));
            }
        };
        // Log buckets as a bias per bucket (T5) or as rows of a relative table (DeBERTa).
        const bool t5 = s.logBuckets && s.bias;
        const bool deberta = s.logBuckets && !s.bias;
        if (t5 || deberta) {
            // Buckets are exact near 0 and logarithmic beyond: a log distance axis shows each one, and the distances
            // where the bucket changes are marked. The bucket of every distance up to maxK comes from core: T5's
            // bucket of rel = key - query = -k (compute buckets, one key at 0), DeBERTa's table row.
            d.logDistance = true;
            const core::Position maxK = std::max<core::Position>(1, std::min<core::Position>(rows - 1, 4096));
            std::vector<double> bucket;
            if (t5) {
                core::ComputeRequest b = base;
                b.quantity = core::Quantity::Buckets;
                b.heads = 1;
                b.context.positions = core::PositionList::range(0, maxK + 1);
                b.keys = core::PositionList::list({0});
                bucket = core::compute(b).data;
            } else {
                d.distances = sampledDistances(maxK, true);
                curvesAt(core::DecayNormalisation::None, "bucket_row");
                if (d.curves.empty())
                    throw std::runtime_error("core gave DeBERTa no bucket-row curve");
                bucket = d.curves.front().values;
                d.curves.clear();
            }
            d.distances.clear();
            if (everyDistance)
                d.distances.push_back(0); // an exact export has every distance; the log axis itself starts at 1
            for (core::Position k = 1; k <= maxK; ++k) {
                const bool edge = bucket[std::size_t(k)] != bucket[std::size_t(k - 1)];
                if (edge)
                    d.edges.push_back(double(k));
                // Every distance up to 64, then about 60 per decade, and every edge.
                if (everyDistance || k <= 64 || edge || k == maxK
                    || std::floor(std::log10(double(k)) * 60) != std::floor(std::log10(double(k - 1)) * 60))
                    d.distances.push_back(k);
            }
            curvesAt(core::DecayNormalisation::None, {});
        } else if (s.bias && !s.rotary && !s.encoding) {
            d.distances = sampledDistances(std::max<core::Position>(1, std::min<core::Position>(rows - 1, 4096)),
                                           everyDistance);
            curvesAt(core::DecayNormalisation::None, {});
        } else if (s.rotary) {
            // The score of q = k = (1, ..., 1) divided by its value at distance 0 (xPos's zeta_i^(k/scale_base)
            // included), and RoFormer's bound as the paper's figure 2 draws it, not normalised.
            // One pass gives both (they share each pair's sine and cosine); then the score alone is divided by its value
            // at distance 0, the first distance (core's AtZero divides by the same sum, computed the same way).
            d.distances = sampledDistances(std::max<core::Position>(1, rows - 1), everyDistance);
            curvesAt(core::DecayNormalisation::None, {});
            if (d.distances.front() != 0)
                throw std::logic_error("the rotary decay curves start at distance 0");
            for (core::DecaySeries& c : d.curves)
                if (c.key == "score")
                    core::normaliseDecayAtZero(c, c.values.front());
        } else if (s.encoding) {
            // Sinusoids: PE(p).PE(p+k) for any p; learned tables: rows p (the cursor) and p + k.
            if (!s.frequencies) {
                d.origin = std::clamp<core::Position>(cursor, 0, rows - 1);
                for (core::Position k : sampledDistances(std::max<core::Position>(1, rows - 1 - d.origin), everyDistance))
                    if (d.origin + k < rows)
                        d.distances.push_back(k);
            } else {
                d.distances = sampledDistances(std::max<core::Position>(1, rows - 1), everyDistance);
            }
            curvesAt(core::DecayNormalisation::None, "dot");
        }
        if (s.headSlopes)
            d.slopes = s.headSlopes(su.params, base.heads);
    } catch (const std::exception& e) {
        d.error = QString::fromStdString(e.what());
        d.curves.clear();
    }
    return d;
}

core::ComputeResult DecayData::table(const Setup& setup) const
{
    core::ComputeResult t;
    t.quantity = "decay_curves";
    t.scheme = setup.scheme;
    t.params = setup.params;
    const std::size_t rows = distances.size(), cols = curves.size() + 1;
    t.shape = {rows, cols};
    t.axes = {"distance", "curve"};
    t.columns.push_back("distance");
    for (const core::DecaySeries& c : curves)
        t.columns.push_back(c.label);
    t.data.assign(rows * cols, std::nan(""));
    for (std::size_t i = 0; i < rows; ++i) {
        t.data[i * cols] = double(distances[i]);
        for (std::size_t c = 0; c < curves.size(); ++c)
            if (i < curves[c].values.size())
                t.data[i * cols + c + 1] = curves[c].values[i];
    }
    return t;
}

core::ComputeRequest Computation::extensionRequest(const Setup& setup, const ViewOptions& options)
{
    core::ComputeRequest req = request(setup);
    req.quantity = core::Quantity::Extension;
    if (options.targetLength > 0)
        req.context.seqLen = options.targetLength;
    else if (setup.model.value(QStringLiteral("context_length")).toInteger() > 0)
        req.context.seqLen = setup.model.value(QStringLiteral("context_length")).toInteger(); // a model's own L
    if (options.trainedLength > 0)
        req.trainedLength = options.trainedLength;
    else if (setup.model.contains(QStringLiteral("trained_length")))
        req.trainedLength = setup.model.value(QStringLiteral("trained_length")).toInteger();
    return req;
}

ExtensionData Computation::extensionData(const Setup& setup, const ViewOptions& options)
{
    ExtensionData d;
    const core::ComputeRequest req = extensionRequest(setup, options);
    d.lengthFromModel = options.targetLength <= 0 && setup.model.value(QStringLiteral("context_length")).toInteger() > 0;
    d.lengthFromPositions = options.targetLength <= 0 && !d.lengthFromModel;
    d.trainedFromModel = options.trainedLength <= 0 && req.trainedLength.has_value();
    try {
        const core::SchemeDescriptor& s = core::schemeOrThrow(setup.scheme);
        d.table = core::extensionTable(s, setup.params, setup.dim, core::effectiveSeqLen(req.context), req.trainedLength);
    } catch (const std::exception& e) {
        d.error = QString::fromStdString(e.what());
        return d;
    }
    const int pairs = int(d.table.pairs.size());
    d.automaticPair = options.extensionPair < 0;
    d.pair = d.automaticPair ? d.table.automaticPair : options.extensionPair;
    if (d.pair >= pairs) {
        d.pairError = QStringLiteral("extension_pair %1 does not exist: this set-up has %2 pairs (0 to %3)")
                          .arg(d.pair)
                          .arg(pairs)
                          .arg(pairs - 1);
        d.pair = d.table.automaticPair;
    }
    return d;
}

namespace {

/// Each run's loss against the step, in its group's colour (the lengthlab view's lower panel).
void addLosses(LengthLabData& d, const std::vector<core::train::RunResult>& runs, bool running)
{
    for (const core::train::RunResult& r : runs) {
        if (r.loss.empty())
            continue;
        LengthLabData::LossSeries l;
        // The run's group: the one whose label core gives this run alone (scheme plus its settings).
        const std::string label = core::train::lengthCurves({r}, core::train::LengthMetric::Loss).groups.at(0).label;
        for (std::size_t g = 0; g < d.curves.groups.size(); ++g)
            if (d.curves.groups[g].label == label)
                l.group = int(g);
        // While training the axis runs to the steps asked for; once done, to the last step taken.
        l.totalSteps = running ? std::max(r.config.steps, r.loss.back().step) : std::max(r.stepsDone, r.loss.back().step);
        for (const core::train::LossPoint& p : r.loss) {
            l.steps.push_back(p.step);
            l.loss.push_back(p.loss);
        }
        d.losses.push_back(std::move(l));
    }
}

} // namespace

LengthLabData Computation::lengthLabData(const ViewOptions& options)
{
    LengthLabData d;
    d.file = options.runFile;
    if (options.runFile.isEmpty()) {
        d.error = QObject::tr("No run file: train with poslab train -o run.json, then open it (File > Open or "
                              "poslab --open run.json)");
        return d;
    }
    // The one bounded reader: a run file larger than 16 MiB is refused as such (not cut and then called invalid
    // JSON), and a device or an endless pipe is refused without being read.
    std::string bytes;
    try {
        bytes = core::readInputFile(options.runFile.toStdString(), std::uint64_t(16) << 20, std::string(),
                                    "a run file of poslab train is a few megabytes");
    } catch (const std::exception& e) {
        d.error = QString::fromStdString(e.what());
        return d;
    }
    try {
        const std::vector<core::train::RunResult> runs = core::train::readRuns(std::string_view(bytes));
        d.curves = core::train::lengthCurves(runs, core::train::LengthMetric(int(options.lengthMetric)));
        addLosses(d, runs, false);
    } catch (const std::exception& e) {
        d.error = QObject::tr("%1: %2").arg(options.runFile, QString::fromStdString(e.what()));
    }
    return d;
}

LengthLabData Computation::lengthLabData(const ViewOptions& options, const TrainedRuns* window)
{
    if (options.runFile.isEmpty() && (!window || window->runs.empty())) {
        LengthLabData d;
        d.error = QObject::tr("No run file and no runs yet: choose schemes and press Train, or open a run file of "
                              "poslab train -o run.json (File > Open)");
        return d;
    }
    if (!window || window->runs.empty() || !(options.runFile.isEmpty() || options.runFile == window->file))
        return lengthLabData(options);
    LengthLabData d;
    d.file = window->file;
    d.window = true;
    d.running = window->running;
    d.message = window->message;
    try {
        d.curves = core::train::lengthCurves(window->runs, core::train::LengthMetric(int(options.lengthMetric)));
    } catch (const std::exception& e) {
        d.error = QString::fromStdString(e.what());
        return d;
    }
    // The loss so far while training, and kept once done (the run file holds it too).
    addLosses(d, window->runs, window->running);
    return d;
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
                                                               const ViewOptions& o)
{
    auto a = std::make_shared<AttentionOutput>();
    a->setup = setup;
    a->softmax = true; // the model's attention probabilities
    a->causal = true;  // a decoder
    a->head = o.head;
    a->heads = 1;
    QElapsedTimer clock;
    clock.start();
    const int count = window ? int(window->runs.size()) : 0;
    if (count == 0) {
        a->error = QObject::tr("No trained model: train in the lengthlab view (Train), then choose the source "
                               "\"trained\" here.");
        return a;
    }
    if (o.trainedRun >= count) {
        a->error = QObject::tr("trained_run %1 is out of range; allowed: 0 to %2 (the window holds %3 runs)")
                       .arg(o.trainedRun).arg(count - 1).arg(count);
        return a;
    }
    const core::train::RunResult& r = window->runs[std::size_t(o.trainedRun)];
    a->heads = r.config.heads;
    const int length = o.trainedTestLength > 0 ? o.trainedTestLength : 3 * r.config.trainLen;
    const core::SchemeDescriptor* scheme = core::findScheme(r.config.scheme);
    a->trained = QObject::tr("trained %1, seed %2 \u00b7 layer %3 of %4 \u00b7 %5 length %6")
                     .arg(scheme ? shortSchemeName(*scheme) : QString::fromStdString(r.config.scheme))
                     .arg(r.config.seed)
                     .arg(o.trainedLayer)
                     .arg(r.config.layers)
                     .arg(QString::fromStdString(std::string(core::train::taskName(r.config.task))))
                     .arg(length);
    if (o.head >= r.config.heads) {
        a->error = QObject::tr("head %1 is out of range; allowed: 0 to %2 (the trained model has %3 heads)")
                       .arg(o.head).arg(r.config.heads - 1).arg(r.config.heads);
        return a;
    }
    if (!r.weights) {
        a->error = window->running ? QObject::tr("Run %1 is still training: its model is kept once it is done.").arg(o.trainedRun)
                                   : QObject::tr("Run %1 holds no model (a diverged run keeps none).").arg(o.trainedRun);
        return a;
    }
    try {
        const core::train::TrainedAttention t = core::train::trainedAttention(r, o.trainedLayer, length);
        a->matrix.resize(t.T, t.T);
        const std::vector<float>& w = t.weights.at(std::size_t(o.head));
        for (int q = 0; q < t.T; ++q)
            for (int k = 0; k < t.T; ++k)
                a->matrix(q, k) = k > q ? std::numeric_limits<float>::quiet_NaN() : w[std::size_t(q) * t.T + k]; // masked: NaN
        a->trainedWindow = t.trainedTokens;
        a->trainedContent = QObject::tr("content: a %1 test sequence, length %2 (%3 tokens); trained up to %4 (%5 tokens)")
                                .arg(QString::fromStdString(std::string(core::train::taskName(r.config.task))))
                                .arg(length)
                                .arg(t.T)
                                .arg(r.config.trainLen)
                                .arg(t.trainedTokens);
        fillValueRange(*a);
    } catch (const std::exception& e) {
        a->error = QString::fromStdString(e.what());
        a->matrix.resize(0, 0);
    }
    a->milliseconds = clock.nsecsElapsed() / 1e6;
    return a;
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
        throw core::InputError("difference A - B needs data of one shape: A is " + shapeText(a) + ", B is " + shapeText(b));
    if (a.columns != b.columns)
        throw core::InputError("difference A - B needs the same columns in A and B (A: " + std::to_string(a.columns.size())
                               + ", B: " + std::to_string(b.columns.size()) + " named differently)");
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
