// SPDX-License-Identifier: MIT
#include "core/compute.h"

#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/extension.h"
#include "core/attention.h"
#include "core/rotary.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace poslab::core {

std::string formatBytes(double bytes)
{
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 5) {
        bytes /= 1024.0;
        ++u;
    }
    // to_chars, not printf: C's "%.1f" in every locale (printf writes "3,0 GiB" under de_DE once a program, as
    // QApplication does, calls setlocale(LC_ALL, "")).
    char buf[64];
    const auto end = std::to_chars(buf, buf + sizeof buf, bytes, std::chars_format::fixed, u == 0 ? 0 : 1).ptr;
    return std::string(buf, end) + " " + units[u];
}

void checkSize(double bytes, const Limits& limits, const std::string& what, const std::string& advice)
{
    if (!(bytes <= double(limits.maxBytes)))
        throw RefusedError(
            what + " would take " + formatBytes(bytes) + ", more than the memory cap of "
            + formatBytes(double(limits.maxBytes)) + "; "
            + (advice.empty() ? "ask for fewer positions or dimensions, or raise the cap (--max-memory)" : advice));
}

void checkWork(double operations, const Limits& limits, const std::string& what, const std::string& advice)
{
    if (!(operations <= limits.maxWork)) {
        // C's "%.1e" and "%.0e" in every locale, as formatBytes.
        char ops[32], cap[32];
        const auto opsEnd = std::to_chars(ops, ops + sizeof ops, operations, std::chars_format::scientific, 1).ptr;
        const auto capEnd = std::to_chars(cap, cap + sizeof cap, limits.maxWork, std::chars_format::scientific, 0).ptr;
        throw RefusedError(
            what + " would take about " + std::string(ops, opsEnd) + " operations, more than the work limit of "
            + std::string(cap, capEnd) + "; "
            + (advice.empty() ? "ask for fewer positions, heads or dimensions, or smaller scheme parameters" : advice));
    }
}

namespace {

std::string listQuantities(const SchemeDescriptor& s)
{
    std::string names;
    for (Quantity q : s.quantities())
        names += (names.empty() ? "" : ", ") + std::string(quantityName(q));
    return names.empty() ? std::string("none yet") : names;
}

// A float32 table is computed, then copied into the result's doubles: both count against the cap.
void checkTable(std::size_t rows, std::size_t cols, const Limits& limits)
{
    checkSize(double(rows) * double(cols) * (sizeof(float) + sizeof(double)), limits,
              "a " + std::to_string(rows) + " x " + std::to_string(cols) + " table");
}

void takeTable(ComputeResult& r, const MatrixF& m)
{
    r.shape = {std::size_t(m.rows()), std::size_t(m.cols())};
    r.data.assign(m.data(), m.data() + m.size());
    r.float32 = true;
}

// Where the sequence length of dynamic NTK, LongRoPE and xPos came from (JSON "seq_len_source").
std::string seqLenSource(const TableContext& ctx)
{
    return ctx.seqLen ? "given (--seq-len)"
                      : "largest requested position + 1 (Hugging Face: max(position_ids) + 1; torchscale: length "
                        "+ offset)";
}

// The spec's numbers next to the data: the attention factor, its named scalars (seq_len, effective_base,
// xpos_centre, ...) and where the sequence length came from.
void addSpecScalars(ComputeResult& r, const RotarySpec& spec, const TableContext& ctx)
{
    r.scalars.push_back({"attention_factor", spec.attentionFactor});
    for (const auto& s : spec.scalars)
        r.scalars.push_back(s);
    if (spec.seqLen > 0)
        r.labels.push_back({"seq_len_source", seqLenSource(ctx)});
}

ComputeResult computeAttention(const ComputeRequest& request, const SchemeDescriptor& scheme, ComputeResult result,
                               const Limits& limits)
{
    AttentionRequest a;
    a.scheme = scheme.id;
    a.params = result.params;
    a.headDim = request.context.dim;
    a.heads = request.heads;
    a.queries = request.context.positions;
    a.keys = request.keys ? *request.keys : request.context.positions;
    a.mask = request.mask;
    a.content = request.content;
    a.seqLen = request.context.seqLen;
    a.drope = request.drope;
    a.checked = request.checked;
    const bool bias = request.quantity == Quantity::Bias;
    a.wantProbabilities = !bias && request.softmax;
    a.wantTerms = bias || !request.term.empty();
    if (!request.term.empty() && request.quantity != Quantity::Scores)
        throw InputError("--term applies to scores only");
    validateAttention(a);
    // The engine's matrices plus the doubles of the result.
    const double cells = double(a.queries.size()) * double(a.keys.size()) * double(a.heads);
    const std::string what = "a " + std::to_string(a.heads) + " x " + std::to_string(a.queries.size()) + " x "
        + std::to_string(a.keys.size()) + " score matrix of " + scheme.id + " with d = " + std::to_string(a.headDim);
    checkSize(attentionBytes(a) + cells * sizeof(double), limits, what);
    checkWork(attentionWork(a), limits, what);
    const AttentionResult r = attentionScores(a, limits);
    const std::size_t lq = a.queries.size(), lk = a.keys.size();
    result.shape = {std::size_t(a.heads), lq, lk};
    result.axes = {"head", "query", "key"};
    result.float32 = true;
    result.data.reserve(std::size_t(cells));
    for (const AttentionHead& h : r.heads) {
        const MatrixF* chosen = bias ? &h.bias : (request.softmax ? &h.probabilities : &h.logits);
        if (!request.term.empty()) {
            if (request.softmax)
                throw InputError("--term gives one part of the logits; it cannot be combined with --softmax");
            chosen = nullptr;
            std::string known;
            for (const AttentionTerm& t : h.terms) {
                known += (known.empty() ? "" : ", ") + t.key;
                if (t.key == request.term) {
                    chosen = &t.values;
                    if (h.index == r.heads.front().index)
                        result.labels.push_back({"term", t.key + ": " + t.label});
                }
            }
            if (!chosen)
                throw InputError("scheme " + scheme.id + " has no term '" + request.term + "'; "
                                 + (known.empty() ? std::string("it has no separate terms") : "its terms: " + known));
        }
        const MatrixF& m = *chosen;
        result.data.insert(result.data.end(), m.data(), m.data() + m.size());
        for (const auto& [k, v] : h.scalars)
            result.scalars.push_back({k + "_head_" + std::to_string(h.index), v});
    }
    for (const auto& sc : r.scalars) {
        result.scalars.push_back(sc);
        if (sc.first == "seq_len")
            result.labels.push_back({"seq_len_source", seqLenSource(request.context)});
    }
    result.scalars.push_back({"causal", request.mask == MaskKind::Causal ? 1.0 : 0.0});
    if (request.quantity == Quantity::Scores)
        result.scalars.push_back({"softmax", request.softmax ? 1.0 : 0.0});
    return result;
}

} // namespace

ParamSet requestParams(const SchemeDescriptor& scheme, const ComputeRequest& request)
{
    Settings all = parseSettings(scheme, request.overrides);
    all.insert(all.end(), request.settings.begin(), request.settings.end());
    return resolveParams(scheme, defaultParams(scheme), all, request.context, request.checked.get());
}

ComputeResult compute(const ComputeRequest& request, const Limits& limits)
{
    if (const SpatialSchemeDescriptor* spatial = findSpatialScheme(request.scheme))
        return computeSpatial(request, *spatial, limits);
    const SchemeDescriptor& scheme = schemeOrThrow(request.scheme);
    if (request.grid || request.sequence || request.cls)
        throw InputError(std::string(request.grid           ? "--grid"
                                         : request.sequence ? "--sequence"
                                                            : "--cls")
                         + " applies to the grid and sequence schemes (poslab schemes lists them), not to "
                         + scheme.id);
    ComputeResult result;
    result.quantity = std::string(quantityName(request.quantity));
    result.scheme = scheme.id;
    if (!scheme.has(request.quantity))
        throw InputError("scheme " + scheme.id + " has no quantity '" + result.quantity
                         + "'; it has: " + listQuantities(scheme));
    // The caps travel with the context: learned's table_file counts the rows it reads against them.
    TableContext ctx = request.context;
    ctx.limits = limits;
    result.params = requestParams(scheme, request);
    result.warnings = schemeWarnings(scheme, result.params, ctx);
    const bool attention = request.quantity == Quantity::Bias || request.quantity == Quantity::Buckets
        || request.quantity == Quantity::Scores || request.quantity == Quantity::Decay;
    // Options of other quantities are refused rather than ignored (--keys, --heads or --softmax with encoding
    // used to be accepted and do nothing).
    const auto only = [&](bool given, std::initializer_list<Quantity> where, const char* option) {
        if (given && std::find(where.begin(), where.end(), request.quantity) == where.end()) {
            std::string names;
            for (Quantity q : where)
                names += (names.empty() ? "" : ", ") + std::string(quantityName(q));
            throw InputError(std::string(option) + " applies to " + names + " only, not to " + result.quantity);
        }
    };
    only(request.keys.has_value(), {Quantity::Bias, Quantity::Buckets, Quantity::Scores}, "--keys");
    only(request.heads != 1, {Quantity::Bias, Quantity::Scores, Quantity::Decay}, "--heads");
    only(request.softmax, {Quantity::Scores}, "--softmax");
    only(!request.vector.empty(), {Quantity::Rotate}, "--vector");
    only(request.trainedLength.has_value(), {Quantity::Extension}, "--trained-length");
    only(request.dtype.has_value(), {Quantity::Precision}, "--dtype");
    if (attention && (request.heads < 1 || request.heads > maxHeads))
        throw InputError("--heads " + std::to_string(request.heads) + " is out of range; allowed: 1 to "
                         + std::to_string(maxHeads));
    const std::size_t rows = ctx.positions.size();

    switch (request.quantity) {
    case Quantity::Encoding:
        checkTable(rows, std::size_t(ctx.dim), limits);
        takeTable(result, scheme.encoding(result.params, ctx));
        result.axes = {"position", "dimension"};
        return result;
    case Quantity::Frequencies: {
        std::vector<double> f;
        if (scheme.rotary) {
            const RotarySpec spec = rotarySpecFor(scheme, result.params, ctx, request.checked.get());
            f = spec.invFreq;
            addSpecScalars(result, spec, ctx);
            result.scalars.push_back({"rotary_dim", double(spec.rotaryDim)});
        } else {
            f = scheme.frequencies(result.params, ctx);
        }
        result.shape = {f.size()};
        result.data = std::move(f);
        result.axes = {"pair"};
        return result;
    }
    case Quantity::Angles:
    case Quantity::Cos:
    case Quantity::Sin: {
        const RotarySpec spec = rotarySpecFor(scheme, result.params, ctx, request.checked.get());
        checkTable(rows, spec.invFreq.size(), limits);
        if (request.quantity == Quantity::Angles && request.angles == AngleForm::Exact) {
            // Doubles, one rounding of p * omega: position 7, pair 0 is 7 (torch.outer(t, inv_freq)).
            const MatrixD m = rotaryAngles(spec, ctx.positions);
            result.shape = {std::size_t(m.rows()), std::size_t(m.cols())};
            result.data.assign(m.data(), m.data() + m.size());
        } else if (request.quantity == Quantity::Angles) {
            takeTable(result, rotaryAnglesReduced(spec, ctx.positions));
        } else if (request.quantity == Quantity::Cos) {
            takeTable(result, rotaryCos(spec, ctx.positions));
        } else {
            takeTable(result, rotarySin(spec, ctx.positions));
        }
        if (request.quantity == Quantity::Angles)
            result.labels.push_back({"angle_form",
                                     request.angles == AngleForm::Exact
                                         ? "exact: p * omega_i in radians, unreduced"
                                         : "reduced: p * omega_i mod 2*pi, in [0, 2*pi)"});
        addSpecScalars(result, spec, ctx);
        result.axes = {"position", "pair"};
        return result;
    }
    case Quantity::Rotate: {
        if (request.vector.empty())
            throw InputError("rotate needs --vector with " + std::to_string(ctx.dim) + " comma-separated values");
        // NaN and infinity would come out as null, the writers' marker for a masked entry.
        for (std::size_t i = 0; i < request.vector.size(); ++i)
            if (!std::isfinite(request.vector[i]))
                throw InputError("--vector: element " + std::to_string(i + 1) + " is "
                                 + (std::isnan(request.vector[i]) ? "nan" : "infinite") + "; give finite numbers");
        const RotarySpec spec = rotarySpecFor(scheme, result.params, ctx, request.checked.get());
        checkSize(double(rows) * double(ctx.dim) * 2 * sizeof(double), limits,
                  "rotating a vector at " + std::to_string(rows) + " positions");
        const MatrixD m = rotateVector(spec, ctx.positions, request.vector);
        result.shape = {std::size_t(m.rows()), std::size_t(m.cols())};
        result.data.assign(m.data(), m.data() + m.size());
        addSpecScalars(result, spec, ctx);
        result.axes = {"position", "dimension"};
        return result;
    }
    case Quantity::Bias:
    case Quantity::Scores: return computeAttention(request, scheme, std::move(result), limits);
    case Quantity::Buckets: {
        PairContext pc;
        pc.headDim = ctx.dim;
        pc.heads = request.heads;
        pc.queries = ctx.positions;
        pc.keys = request.keys ? *request.keys : ctx.positions;
        pc.causal = request.mask == MaskKind::Causal;
        checkSize(double(pc.queries.size()) * double(pc.keys.size()) * 2 * sizeof(double), limits,
                  "a " + std::to_string(pc.queries.size()) + " x " + std::to_string(pc.keys.size()) + " bucket matrix");
        const MatrixD m = scheme.buckets(result.params, pc);
        result.shape = {std::size_t(m.rows()), std::size_t(m.cols())};
        result.data.assign(m.data(), m.data() + m.size());
        result.axes = {"query", "key"};
        return result;
    }
    case Quantity::Precision: {
        const RotarySpec spec = rotarySpecFor(scheme, result.params, ctx, request.checked.get());
        const FloatFormat format = request.dtype.value_or(FloatFormat::BFloat16);
        checkPrecision(spec.invFreq.size(), rows, 2, limits); // both pipelines, before either runs
        const PrecisionAnalysis a[2]
            = {analysePrecision(spec.invFreq, ctx.positions, format, AnglePipeline::RoundAngle, limits),
               analysePrecision(spec.invFreq, ctx.positions, format, AnglePipeline::LowPrecision, limits)};
        const std::string f(floatFormatName(format));
        result.columns = {"omega"};
        result.columnLabels = {"omega: the pair's angular frequency, rad/token (double)"};
        for (const PrecisionAnalysis& x : a) {
            const std::string p(anglePipelineName(x.pipeline));
            const std::string how = x.pipeline == AnglePipeline::RoundAngle
                ? "angle = " + f + "(p * omega), p * omega in double"
                : "angle = " + f + "(" + f + "(p) * " + f + "(omega))";
            result.columns.insert(result.columns.end(),
                                  {p + ":omega_used", p + ":distinct_angles", p + ":distinct_cos_sin",
                                   p + ":first_angle_collapse", p + ":first_cos_sin_collapse",
                                   p + ":resolution_position"});
            result.columnLabels.insert(
                result.columnLabels.end(),
                {p + ":omega_used: the angle step per token, "
                     + (x.pipeline == AnglePipeline::RoundAngle ? "omega" : f + "(omega)"),
                 p + ":distinct_angles: distinct angles over the positions; " + how,
                 p + ":distinct_cos_sin: distinct (cos, sin) over the positions, each " + f + "(cos(angle)), " + f
                     + "(sin(angle))",
                 p + ":first_angle_collapse: first position whose angle equals the next position's (null: none)",
                 p + ":first_cos_sin_collapse: first position whose (cos, sin) equals the next position's (null: none)",
                 p + ":resolution_position: first p >= 1 with ulp(p * omega_used) > omega_used in " + f
                     + " (null: beyond 2^31 - 1)"});
        }
        const std::size_t cols = result.columns.size(), n = spec.invFreq.size();
        const auto opt = [](const std::optional<Position>& v) { return v ? double(*v) : std::nan(""); };
        result.data.reserve(n * cols);
        for (std::size_t i = 0; i < n; ++i) {
            result.data.push_back(spec.invFreq[i]);
            for (const PrecisionAnalysis& x : a) {
                const PairPrecision& pp = x.pairs[i];
                result.data.insert(result.data.end(),
                                   {pp.omegaUsed, double(pp.distinctAngles), double(pp.distinctCosSin),
                                    opt(pp.firstAngleCollapse), opt(pp.firstCosSinCollapse),
                                    opt(pp.resolutionPosition)});
            }
        }
        result.shape = {n, cols};
        result.axes = {"pair", "column"};
        result.labels.push_back({"angle_format", f});
        for (const PrecisionAnalysis& x : a) {
            const std::string p(anglePipelineName(x.pipeline));
            result.scalars.push_back({p + ":distinct_positions", double(x.distinctPositions)});
            result.scalars.push_back({p + ":first_vector_collapse", opt(x.firstVectorCollapse)});
            result.scalars.push_back({p + ":vector_collapses", double(x.vectorCollapses)});
            result.scalars.push_back({p + ":first_non_finite", opt(x.firstNonFinite)});
        }
        addSpecScalars(result, spec, ctx);
        return result;
    }
    case Quantity::Decay: {
        DecayRequest d;
        d.scheme = scheme.id;
        d.params = result.params;
        d.headDim = ctx.dim;
        d.heads = request.heads;
        d.content = request.content;
        d.samples = request.samples;
        d.origin = request.origin;
        d.normalisation = request.normalisation;
        d.checked = request.checked;
        checkSize(double(rows) * 8.0 * (request.heads + 2), limits,
                  "a decay curve over " + std::to_string(rows) + " distances");
        d.distances.reserve(rows);
        for (std::size_t i = 0; i < rows; ++i)
            d.distances.push_back(ctx.positions[i]);
        const std::vector<DecaySeries> curves = decayCurves(d, limits);
        result.shape = {rows, curves.size()};
        result.data.resize(rows * curves.size());
        for (std::size_t c = 0; c < curves.size(); ++c) {
            result.columns.push_back(curves[c].key);
            const bool bias = curves[c].key.rfind("bias_head_", 0) == 0;
            result.columnLabels.push_back(curves[c].key + ": "
                                          + (bias ? "bias of " + curves[c].label + " (nats)" : curves[c].label));
            for (std::size_t i = 0; i < rows; ++i)
                result.data[i * curves.size() + c] = curves[c].values[i];
        }
        // Only the rotary "score" curve reads content; the others are content-free.
        if (std::find(result.columns.begin(), result.columns.end(), "score") != result.columns.end()) {
            result.labels.push_back({"content_model", std::string(decayContentName(request.content))});
            if (request.content.kind != ContentKind::Constant)
                result.scalars.push_back({"content_samples", double(request.samples)});
            if (request.content.kind == ContentKind::Random)
                result.scalars.push_back({"content_seed", double(request.content.seed)});
        }
        result.labels.push_back({"normalisation", std::string(decayNormalisationName(request.normalisation))});
        result.axes = {"distance", "curve"};
        return result;
    }
    case Quantity::Extension: {
        const ExtensionTable t
            = extensionTable(scheme, result.params, ctx.dim, effectiveSeqLen(ctx), request.trainedLength);
        result.labels.push_back({"seq_len_source", seqLenSource(ctx)});
        return extensionResult(t, std::move(result));
    }
    case Quantity::PositionIds: // no 1-D scheme has it (refused above)
        break;
    }
    throw InputError("unsupported quantity");
}

} // namespace poslab::core
