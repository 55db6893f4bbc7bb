// SPDX-License-Identifier: MIT
#include "ui/computation.h"

#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/rotary.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

Computation::Computation(WorkbenchState* state, QObject* parent)
    : QObject(parent)
    , m_state(state)
{
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
        if (!sameAttentionInputs(m_state->viewOptions(), m_lastAttentionOptions))
            m_attentionTimer.start();
    });
    qRegisterMetaType<std::shared_ptr<const poslab::ui::AttentionOutput>>();
    m_attentionTimer.setSingleShot(true);
    m_attentionTimer.setInterval(0);
    connect(&m_attentionTimer, &QTimer::timeout, this, &Computation::runAttention);
    connect(state, &WorkbenchState::setupChanged, &m_attentionTimer, [this] { m_attentionTimer.start(); });
    m_lastAttentionOptions = state->viewOptions();
    {
        auto a = computeAttention(state->setup(), m_lastAttentionOptions);
        a->serial = ++m_attentionSerial;
        m_attention = a;
    }
    m_lastQuantity = state->viewOptions().tableQuantity;
    auto first = computeEncoding(state->setup(), m_lastQuantity);
    first->serial = ++m_serial;
    m_result = first;
}

Computation::~Computation()
{
    m_attentionLatest.store(0); // queued requests return at once
    m_pool.waitForDone();
    m_attentionPool.waitForDone();
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

bool Computation::sameAttentionInputs(const ViewOptions& a, const ViewOptions& b)
{
    return a.softmax == b.softmax && a.causal == b.causal && a.head == b.head && a.heads == b.heads
        && a.content == b.content && a.sentence == b.sentence && a.attentionSize == b.attentionSize;
}

void Computation::runAttention()
{
    const Setup setup = m_state->setup();
    const ViewOptions options = m_state->viewOptions();
    m_lastAttentionOptions = options;
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
        auto a = computeAttention(setup, options);
        a->serial = serial;
        m_attentionBusy = 0;
        deliver(a);
        return;
    }
    m_attentionBusy = serial;
    // Scores take milliseconds to tens of milliseconds; the UI thread keeps drawing meanwhile and the view
    // shows the newest result when it lands. Requests queued behind a running one are skipped if superseded.
    m_attentionPool.start([this, setup, options, serial, deliver] {
        if (serial != m_attentionLatest.load())
            return; // superseded while waiting
        std::shared_ptr<AttentionOutput> a = computeAttention(setup, options);
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
        r.wantTerms = false;
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
        a->scalars = h.scalars;
        a->scalars.insert(a->scalars.end(), res.scalars.begin(), res.scalars.end());
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
        std::vector<float> sample;
        const Eigen::Index stride = std::max<Eigen::Index>(1, a->matrix.size() / 20000);
        for (Eigen::Index i = 0; i < a->matrix.size(); i += stride)
            if (std::isfinite(p[i]))
                sample.push_back(p[i]);
        a->p99 = a->hi;
        if (!sample.empty()) {
            auto nth = sample.begin() + std::ptrdiff_t(0.99 * double(sample.size() - 1));
            std::nth_element(sample.begin(), nth, sample.end());
            a->p99 = std::max(double(*nth), a->lo + 1e-12);
        }
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
    const long long elements = (long long)setup.positionCount * setup.dim;
    if (elements <= workerThreshold) {
        auto r = computeEncoding(setup, quantity);
        r->serial = serial;
        if (m_busySerial) { // a newer synchronous result supersedes the running worker
            m_busySerial = 0;
            emit busyChanged(false);
        }
        publish(std::move(r));
        return;
    }
    const bool wasBusy = m_busySerial != 0;
    m_busySerial = serial;
    if (!wasBusy)
        emit busyChanged(true);
    m_pool.start([this, setup, quantity, serial] {
        std::shared_ptr<const EncodingResult> r = [&] {
            auto res = computeEncoding(setup, quantity);
            res->serial = serial;
            return res;
        }();
        QMetaObject::invokeMethod(this, [this, r] {
            if (r->serial != m_busySerial)
                return; // cancelled or superseded
            m_busySerial = 0;
            emit busyChanged(false);
            publish(r);
        }, Qt::QueuedConnection);
    });
}

void Computation::publish(std::shared_ptr<const EncodingResult> r)
{
    if (m_result && r->serial < m_result->serial)
        return;
    m_result = std::move(r);
    ++m_published;
    emit resultReady(m_result);
}

std::shared_ptr<EncodingResult> Computation::computeEncoding(const Setup& setup, TableQuantity quantity)
{
    auto r = std::make_shared<EncodingResult>();
    r->setup = setup;
    r->quantity = quantity;
    QElapsedTimer clock;
    clock.start();
    try {
        const core::SchemeDescriptor& s = core::schemeOrThrow(setup.scheme);
        core::TableContext ctx;
        ctx.dim = setup.dim;
        ctx.positions = core::PositionList::range(0, std::max(1, setup.positionCount));
        ctx.seqLen = setup.positionCount;
        core::validateParams(s, setup.params, ctx);
        const double elements = double(setup.positionCount) * setup.dim;
        core::checkSize(elements * sizeof(float), core::Limits{},
                        "a " + std::to_string(setup.positionCount) + " x " + std::to_string(setup.dim)
                            + " float32 table");
        if (s.rotary) {
            r->rotary = true;
            r->spec = s.rotary(setup.params, ctx);
            r->frequencies = r->spec.invFreq;
            switch (quantity) {
            case TableQuantity::Cos:
                r->table = core::rotaryCos(r->spec, ctx.positions);
                r->tableLabel = QStringLiteral("cos(p\u00b7\u03b8\u1d62)");
                break;
            case TableQuantity::Sin:
                r->table = core::rotarySin(r->spec, ctx.positions);
                r->tableLabel = QStringLiteral("sin(p\u00b7\u03b8\u1d62)");
                break;
            case TableQuantity::Angle:
                r->table = core::rotaryAngles(r->spec, ctx.positions);
                r->tableLabel = QStringLiteral("angle p\u00b7\u03b8\u1d62 mod 2\u03c0 (rad)");
                break;
            }
            r->columnLabel = QStringLiteral("pair i");
            r->columnPair.resize(std::size_t(r->table.cols()));
            for (int c = 0; c < int(r->table.cols()); ++c)
                r->columnPair[std::size_t(c)] = c;
        } else if (s.encoding) {
            r->table = s.encoding(setup.params, ctx);
            r->tableLabel = QStringLiteral("PE(p, j)");
            r->columnLabel = QStringLiteral("dimension j");
            if (s.frequencies)
                r->frequencies = s.frequencies(setup.params, ctx);
            const int d = int(r->table.cols());
            r->columnPair.assign(std::size_t(d), -1);
            if (!r->frequencies.empty()) {
                const bool half = setup.params.has("layout") && setup.params.choice("layout") == "half_split";
                const int pairs = int(r->frequencies.size());
                for (int c = 0; c < d; ++c)
                    r->columnPair[std::size_t(c)] = std::min(pairs - 1, half ? c % std::max(1, d / 2) : c / 2);
            }
        }
        if (r->table.size() > 0) {
            const float* p = r->table.data();
            const auto n = r->table.size();
            float lo = p[0], hi = p[0];
            for (Eigen::Index i = 1; i < n; ++i) {
                lo = std::min(lo, p[i]);
                hi = std::max(hi, p[i]);
            }
            r->lo = lo;
            r->hi = hi;
            r->signedValues = lo < 0.0f && hi > 0.0f;
            if (quantity == TableQuantity::Angle && s.rotary) {
                r->lo = 0.0;
                r->hi = 2.0 * M_PI;
                r->signedValues = false;
            }
        }
    } catch (const std::exception& e) {
        r->error = QString::fromStdString(e.what());
        r->table.resize(0, 0);
    }
    r->milliseconds = clock.nsecsElapsed() / 1e6;
    return r;
}

} // namespace poslab::ui
