// SPDX-License-Identifier: MIT
#include "ui/figures/attentionfigure.h"

#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/train/trainer.h"
#include "ui/figures/computation.h"
#include "ui/render/figuretitle.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace poslab::ui {
namespace {

/// The finite value range of the matrix.
void fillValueRange(AttentionOutput& a)
{
    bool first = true;
    const float* p = a.matrix.data();
    for (Eigen::Index i = 0; i < a.matrix.size(); ++i) {
        if (!std::isfinite(p[i]))
            continue;
        if (first) {
            a.lo = a.hi = p[i];
            first = false;
        }
        a.lo = std::min<double>(a.lo, p[i]);
        a.hi = std::max<double>(a.hi, p[i]);
    }
}

/// The engine's request for the one head the figure shows, from the scores request (request()).
core::AttentionRequest headRequest(const AttentionFigure::Inputs& in, const core::ComputeRequest& req, int head)
{
    core::AttentionRequest r;
    r.scheme = in.setup.scheme;
    r.params = in.setup.params; // complete and typed: the request's overrides are the same values as text
    r.headDim = req.context.dim;
    r.heads = req.heads;
    r.onlyHead = head;
    r.mask = req.mask;
    r.wantProbabilities = req.softmax;
    const core::SchemeDescriptor* descriptor = core::findScheme(in.setup.scheme);
    r.wantTerms = descriptor && descriptor->score; // the schemes whose score has named parts
    r.content = req.content;
    r.queries = req.context.positions;
    r.keys = req.keys ? *req.keys : req.context.positions;
    r.seqLen = req.context.seqLen;
    r.checked = req.checked;
    return r;
}

} // namespace

AttentionFigure::Inputs AttentionFigure::inputsOf(const FigureSnapshot& s)
{
    const ViewOptions& o = s.options;
    Inputs in{s.setup,
              o.softmax,
              o.causal,
              o.head,
              o.heads,
              o.content,
              o.sentence,
              o.attentionSize,
              o.term,
              o.attentionSource,
              o.trainedRun,
              o.trainedLayer,
              o.trainedTestLength,
              o.trainedLength,
              {},
              s.checked};
    if (o.attentionSource == AttentionSource::Trained)
        in.trained = {s.trainedRuns, s.trainedRuns ? s.trainedRuns->models : 0};
    return in;
}

core::ComputeRequest AttentionFigure::request(const Inputs& in)
{
    core::ComputeRequest req = figureRequest(in.setup, in.checked);
    req.quantity = core::Quantity::Scores;
    req.heads = std::max(1, in.heads);
    req.softmax = in.softmax;
    req.mask = in.causal ? core::MaskKind::Causal : core::MaskKind::Bidirectional;
    int q = std::max(1, std::min(in.attentionSize, std::max(1, in.setup.positionCount)));
    switch (in.content) {
    case AttentionContent::Random: req.content.kind = core::ContentKind::Random; break;
    case AttentionContent::Constant: req.content.kind = core::ContentKind::Constant; break;
    case AttentionContent::Sentence:
        req.content = core::parseContent(in.sentence.toStdString(), 0);
        if (req.content.kind != core::ContentKind::Sentence) {
            // The sentence is the single word "random" or "constant": a one-word sentence here, not the CLI's
            // content keyword.
            req.content.kind = core::ContentKind::Sentence;
            req.content.sentence = in.sentence.toStdString();
        }
        q = std::max<int>(1, int(core::sentenceWords(req.content).size()));
        break;
    }
    req.context.positions = core::PositionList::range(0, q);
    return req;
}

AttentionOutput AttentionFigure::compute(const Inputs& in)
{
    if (in.source == AttentionSource::Trained)
        return trainedAttention(in.trained.runs.get(), in);
    AttentionOutput a;
    a.setup = in.setup;
    a.heads = std::max(1, in.heads);
    a.head = std::clamp(in.head, 0, a.heads - 1);
    a.softmax = in.softmax;
    a.causal = in.causal;
    a.content = in.content;
    ViewOptions trainedOption;
    trainedOption.trainedLength = in.trainedLength;
    a.trainedLength = Computation::trainedLength(in.setup, trainedOption);
    QElapsedTimer clock;
    clock.start();
    try {
        const core::ComputeRequest req = request(in);
        if (req.content.kind == core::ContentKind::Sentence)
            a.tokens = core::sentenceWords(req.content);
        core::AttentionResult res = core::attentionScores(headRequest(in, req, a.head));
        if (res.heads.empty())
            throw std::runtime_error("the engine returned no head");
        core::AttentionHead& h = res.heads.front();
        a.matrix = in.softmax ? std::move(h.probabilities) : std::move(h.logits);
        for (core::AttentionTerm& t : h.terms) {
            a.terms << QString::fromStdString(t.key);
            if (!in.term.isEmpty() && QString::fromStdString(t.key) == in.term) {
                // One part of the logits: no softmax of a part (it is not a distribution).
                a.matrix = std::move(t.values);
                a.term = in.term;
                a.termLabel = QString::fromStdString(t.label);
                a.softmax = false;
            }
        }
        a.scalars = h.scalars;
        a.scalars.insert(a.scalars.end(), res.scalars.begin(), res.scalars.end());
        fillValueRange(a);
    } catch (const std::exception& e) {
        a.error = QString::fromStdString(e.what());
        a.matrix.resize(0, 0);
    }
    a.milliseconds = clock.nsecsElapsed() / 1e6;
    return a;
}

core::ComputeResult AttentionFigure::dataExport(const FigureSnapshot& s, QStringList* notes)
{
    const Inputs in = inputsOf(s);
    const core::ComputeRequest req = request(in);
    if (notes)
        *notes << QStringLiteral("all %1 heads (heads x queries x keys); the figure shows head %2")
                      .arg(req.heads)
                      .arg(in.head);
    // A named part of the logits (the view's term), as the figure draws it: logits, never a softmax of a part.
    // A term this scheme does not have leaves the total, as the view does.
    if (!in.term.isEmpty()) {
        core::ComputeRequest part = req;
        part.term = in.term.toStdString();
        part.softmax = false;
        try {
            core::ComputeResult r = core::compute(part);
            if (notes)
                *notes << QStringLiteral("the term %1 of the logits").arg(in.term);
            return r;
        } catch (const core::InputError&) { }
    }
    return core::compute(req);
}

AttentionOutput AttentionFigure::trainedAttention(const TrainedRuns* window, const Inputs& in)
{
    AttentionOutput a;
    a.setup = in.setup;
    a.softmax = true; // the model's attention probabilities
    a.causal = true;  // a decoder
    a.head = in.head;
    a.heads = 1;
    QElapsedTimer clock;
    clock.start();
    const int count = window ? int(window->runs.size()) : 0;
    if (count == 0) {
        a.error = QObject::tr("No trained model: train in the lengthlab view (Train), then choose the source "
                              "\"trained\" here.");
        return a;
    }
    if (in.trainedRun >= count) {
        a.error = QObject::tr("trained_run %1 is out of range; allowed: 0 to %2 (the window holds %3 runs)")
                      .arg(in.trainedRun)
                      .arg(count - 1)
                      .arg(count);
        return a;
    }
    const core::train::RunResult& r = window->runs[std::size_t(in.trainedRun)];
    a.heads = r.config.heads;
    const int length = in.trainedTestLength > 0 ? in.trainedTestLength : 3 * r.config.trainLen;
    const core::SchemeDescriptor* scheme = core::findScheme(r.config.scheme);
    const QString task = QString::fromStdString(std::string(core::train::taskName(r.config.task)));
    a.trained = QObject::tr("trained %1, seed %2 \u00b7 layer %3 of %4 \u00b7 %5 length %6")
                    .arg(scheme ? shortSchemeName(*scheme) : QString::fromStdString(r.config.scheme))
                    .arg(r.config.seed)
                    .arg(in.trainedLayer)
                    .arg(r.config.layers)
                    .arg(task)
                    .arg(length);
    if (in.head >= r.config.heads) {
        a.error = QObject::tr("head %1 is out of range; allowed: 0 to %2 (the trained model has %3 heads)")
                      .arg(in.head)
                      .arg(r.config.heads - 1)
                      .arg(r.config.heads);
        return a;
    }
    if (!r.weights) {
        a.error = window->running
            ? QObject::tr("Run %1 is still training: its model is kept once it is done.").arg(in.trainedRun)
            : QObject::tr("Run %1 holds no model (a diverged run keeps none).").arg(in.trainedRun);
        return a;
    }
    try {
        const core::train::TrainedAttention t = core::train::trainedAttention(r, in.trainedLayer, length);
        a.matrix.resize(t.T, t.T);
        const std::vector<float>& w = t.weights.at(std::size_t(in.head));
        for (int q = 0; q < t.T; ++q)
            for (int k = 0; k < t.T; ++k)
                a.matrix(q, k)
                    = k > q ? std::numeric_limits<float>::quiet_NaN() : w[std::size_t(q) * t.T + k]; // masked: NaN
        a.trainedWindow = t.trainedTokens;
        a.trainedLength = core::Position(t.trainedTokens);
        a.trainedContent
            = QObject::tr("content: a %1 test sequence, length %2 (%3 tokens); trained up to %4 (%5 tokens)")
                  .arg(task)
                  .arg(length)
                  .arg(t.T)
                  .arg(r.config.trainLen)
                  .arg(t.trainedTokens);
        fillValueRange(a);
    } catch (const std::exception& e) {
        a.error = QString::fromStdString(e.what());
        a.matrix.resize(0, 0);
    }
    a.milliseconds = clock.nsecsElapsed() / 1e6;
    return a;
}

AttentionDifference AttentionFigure::difference(const AttentionOutput& a, const AttentionOutput* b)
{
    AttentionDifference d;
    const auto kind
        = [](const AttentionOutput& o) { return o.softmax ? QObject::tr("probabilities") : QObject::tr("logits"); };
    if (!b || !b->error.isEmpty() || b->matrix.size() == 0)
        d.problem = QObject::tr("B has no attention scores%1.")
                        .arg(b && !b->error.isEmpty() ? QStringLiteral(": ") + b->error : QString());
    else if (b->matrix.rows() != a.matrix.rows() || b->matrix.cols() != a.matrix.cols())
        d.problem = QObject::tr("A difference needs one size: A is %1 \u00d7 %2, B is %3 \u00d7 %4.")
                        .arg(a.matrix.rows())
                        .arg(a.matrix.cols())
                        .arg(b->matrix.rows())
                        .arg(b->matrix.cols());
    else if (b->softmax != a.softmax || b->term != a.term)
        d.problem = QObject::tr("A difference needs one quantity: A shows %1, B shows %2.").arg(kind(a), kind(*b));
    else {
        d.matrix = Computation::difference(a.matrix, b->matrix);
        d.range = Computation::symmetricRange(*d.matrix);
    }
    return d;
}

} // namespace poslab::ui
