// SPDX-License-Identifier: MIT
#include "ui/figures/tablefigure.h"

#include "core/encodingregistry.h"
#include "core/trigtable.h"
#include "ui/gpu/tableengine.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

TableFigure::RowPlan TableFigure::planRows(int totalRows, int cols, const TableWindow& window)
{
    RowPlan plan;
    totalRows = std::max(1, totalRows);
    if ((long long)totalRows * std::max(1, cols) <= fullTableCells) {
        plan.count = totalRows;
        return plan;
    }
    const int begin = std::clamp(window.rowBegin, 0, totalRows - 1);
    const int end = std::clamp(window.rowEnd > 0 ? window.rowEnd : totalRows, begin + 1, totalRows);
    const int rows = end - begin;
    // A power-of-two step with one to two computed rows per device pixel: the samples keep their
    // positions while the window moves, and the label reads "every 64th position".
    const int pixels = std::max(16, window.pixelRows);
    while (plan.step * 2 <= rows / pixels)
        plan.step *= 2;
    // Widen by half a window either side, aligned to the step; never more than fullTableCells cells.
    // In 64 bits: end + margin and stop - start + step overflowed int near INT_MAX positions.
    const long long margin = rows / 2;
    long long start = std::max<long long>(0, begin - margin);
    long long stop = std::min<long long>(totalRows, end + margin);
    const long long maxRows = std::max<long long>(1, fullTableCells / std::max(1, cols));
    if ((stop - start) / plan.step > maxRows) {
        start = begin;
        stop = end;
    }
    start -= start % plan.step;
    plan.start = int(start);
    plan.count = int(std::max<long long>(1, (stop - start + plan.step - 1) / plan.step));
    return plan;
}

TableFigure::Inputs TableFigure::inputsOf(const FigureSnapshot& s)
{
    // The whole table: a window wider than any table and one row per pixel of it.
    TableWindow all;
    all.pixelRows = std::max(1, s.setup.positionCount);
    return {s.setup, s.options.tableQuantity, all, s.checked};
}

namespace {

QString msText(double ms)
{
    return QString::number(ms, 'f', ms < 10 ? 1 : 0) + QStringLiteral(" ms");
}

/// Sin/cos through the engine (CPU or GPU), else core; @p path receives the path text.
core::MatrixF trigThrough(gpu::TableEngine* engine, std::span<const double> freq, const core::PositionList& positions,
                          const gpu::TableLayout& layout, QString& path)
{
    QElapsedTimer t;
    t.start();
    if (engine) {
        std::string text;
        core::MatrixF m = engine->trigTable(freq, positions, layout, &text);
        path = QString::fromStdString(text);
        return m;
    }
    core::MatrixF m = gpu::cpuTrigTable(freq, positions, layout);
    path = QStringLiteral("CPU, ") + msText(t.nsecsElapsed() / 1e6);
    return m;
}

/// A rotary scheme's table (r.spec set): cos or sin through the engine (core for xPos, whose per-pair scale the
/// shaders do not compute), or core's reduced angles; the path, labels and column pairs.
void rotaryTable(EncodingResult& r, TableQuantity quantity, const core::PositionList& positions, int cols,
                 gpu::TableEngine* engine)
{
    // xPos scales each value by a per-pair power the shaders do not compute: core does it.
    const bool viaEngine = r.spec.xposZeta.empty() && quantity != TableQuantity::Angle;
    gpu::TableLayout layout;
    layout.cols = cols;
    layout.scale = float(r.spec.attentionFactor);
    layout.writeSin = quantity == TableQuantity::Sin;
    layout.writeCos = quantity == TableQuantity::Cos;
    QElapsedTimer t;
    t.start();
    switch (quantity) {
    case TableQuantity::Cos:
        r.table = viaEngine ? trigThrough(engine, r.spec.invFreq, positions, layout, r.path)
                            : core::rotaryCos(r.spec, positions);
        r.tableLabel = QStringLiteral("cos(p\u00b7\u03b8\u1d62)");
        break;
    case TableQuantity::Sin:
        r.table = viaEngine ? trigThrough(engine, r.spec.invFreq, positions, layout, r.path)
                            : core::rotarySin(r.spec, positions);
        r.tableLabel = QStringLiteral("sin(p\u00b7\u03b8\u1d62)");
        break;
    case TableQuantity::Angle:
        r.table = core::rotaryAnglesReduced(r.spec, positions);
        r.tableLabel = QStringLiteral("angle p\u00b7\u03b8\u1d62 mod 2\u03c0 (rad)");
        break;
    }
    if (!viaEngine)
        r.path
            = QStringLiteral("CPU (core%1), %2")
                  .arg(r.spec.xposZeta.empty() ? QString() : QStringLiteral(", xPos"), msText(t.nsecsElapsed() / 1e6));
    r.columnLabel = QStringLiteral("pair i");
    r.columnPair.resize(std::size_t(r.table.cols()));
    for (int c = 0; c < int(r.table.cols()); ++c)
        r.columnPair[std::size_t(c)] = c;
}

/// An additive scheme's table: a sin/cos table through the engine where the scheme has per-pair frequencies, else
/// core's encoding; the path, labels and column pairs.
void encodingTable(EncodingResult& r, const core::SchemeDescriptor& s, const Setup& setup,
                   const core::TableContext& ctx, gpu::TableEngine* engine)
{
    if (s.frequencies)
        r.frequencies = s.frequencies(setup.params, ctx);
    const bool half = setup.params.has("layout") && setup.params.choice("layout") == "half_split";
    QElapsedTimer t;
    t.start();
    if (!r.frequencies.empty()) {
        // A scheme with per-pair frequencies is a sin/cos table (sinusoidal) in one of two layouts: the
        // engine's TableLayout covers both.
        gpu::TableLayout layout;
        layout.cols = setup.dim;
        const int pairs = int(r.frequencies.size());
        layout.sinOffset = 0;
        layout.cosOffset = half ? pairs : 1;
        layout.pairStride = half ? 1 : 2;
        r.table = trigThrough(engine, r.frequencies, ctx.positions, layout, r.path);
    } else {
        r.table = s.encoding(setup.params, ctx);
        r.path = QStringLiteral("CPU (core), ") + msText(t.nsecsElapsed() / 1e6);
    }
    r.tableLabel = QStringLiteral("PE(p, j)");
    r.columnLabel = QStringLiteral("dimension j");
    const int d = int(r.table.cols());
    r.columnPair.assign(std::size_t(d), -1);
    if (!r.frequencies.empty()) {
        const int pairs = int(r.frequencies.size());
        for (int c = 0; c < d; ++c)
            r.columnPair[std::size_t(c)] = std::min(pairs - 1, half ? c % std::max(1, d / 2) : c / 2);
    }
}

/// The table's value range (angles of a rotary scheme: 0 to 2 pi) and whether it is signed.
void fillTableRange(EncodingResult& r, TableQuantity quantity, bool rotary)
{
    if (r.table.size() > 0) {
        const float* p = r.table.data();
        const auto n = r.table.size();
        float lo = p[0], hi = p[0];
        for (Eigen::Index i = 1; i < n; ++i) {
            lo = std::min(lo, p[i]);
            hi = std::max(hi, p[i]);
        }
        r.lo = lo;
        r.hi = hi;
        r.signedValues = lo < 0.0f && hi > 0.0f;
        if (quantity == TableQuantity::Angle && rotary) {
            r.lo = 0.0;
            r.hi = 2.0 * M_PI;
            r.signedValues = false;
        }
    }
}

} // namespace

std::shared_ptr<EncodingResult> TableFigure::compute(const Inputs& in, gpu::TableEngine* engine)
{
    const Setup& setup = in.setup;
    const TableQuantity quantity = in.quantity;
    const TableWindow& window = in.window;
    auto r = std::make_shared<EncodingResult>();
    r->setup = setup;
    r->quantity = quantity;
    r->totalRows = std::max(1, setup.positionCount);
    QElapsedTimer clock;
    clock.start();
    try {
        const core::SchemeDescriptor& s = core::schemeOrThrow(setup.scheme);
        core::TableContext ctx;
        ctx.dim = setup.dim;
        ctx.positions = core::PositionList::range(0, std::max(1, setup.positionCount));
        ctx.seqLen = setup.positionCount;
        const std::shared_ptr<const core::CheckedParams> checked = in.checked.of(setup);
        core::validateParamsOnce(s, setup.params, ctx, checked.get());
        for (const std::string& w : core::schemeWarnings(s, setup.params, ctx))
            r->warnings << QString::fromStdString(w);
        core::RotarySpec spec;
        int cols = setup.dim;
        if (s.rotary) {
            // One spec for the table and the score's two sides (core::rotarySides: xPos's query up, key down).
            spec = core::rotarySpecFor(s, setup.params, ctx, checked.get());
            r->sides = core::rotarySides(spec);
            cols = int(spec.invFreq.size());
        }
        // Only the rows the window needs, at about display resolution, when the table is large.
        const RowPlan plan = planRows(r->totalRows, cols, window);
        r->rowStart = plan.start;
        r->rowStep = plan.step;
        ctx.positions = core::PositionList::range(
            plan.start,
            std::min<core::Position>(r->totalRows, core::Position(plan.start) + core::Position(plan.count) * plan.step),
            plan.step);
        const double elements = double(ctx.positions.size()) * cols;
        core::checkSize(elements * sizeof(float), core::Limits{},
                        "a " + std::to_string(ctx.positions.size()) + " x " + std::to_string(cols) + " float32 table");
        if (s.rotary) {
            r->rotary = true;
            r->spec = std::move(spec);
            r->frequencies = r->spec.invFreq;
            rotaryTable(*r, quantity, ctx.positions, cols, engine);
        } else if (s.encoding) {
            encodingTable(*r, s, setup, ctx, engine);
        }
        r->totalCols = int(r->table.cols());
        fillTableRange(*r, quantity, bool(s.rotary));
    } catch (const std::exception& e) {
        r->error = QString::fromStdString(e.what());
        r->table.resize(0, 0);
    }
    r->milliseconds = clock.nsecsElapsed() / 1e6;
    return r;
}

double TableFigure::exactValue(const EncodingResult& r, int position, int column)
{
    if (!r.error.isEmpty() || position < 0 || position >= r.totalRows || column < 0 || column >= r.totalCols)
        return std::nan("");
    if (position >= r.rowStart && (position - r.rowStart) % r.rowStep == 0) {
        const int row = (position - r.rowStart) / r.rowStep;
        if (row < r.table.rows())
            return r.table(row, column);
    }
    try {
        const auto one = core::PositionList::list({core::Position(position)});
        if (r.rotary) {
            switch (r.quantity) {
            case TableQuantity::Cos: return core::rotaryCos(r.spec, one)(0, column);
            case TableQuantity::Sin: return core::rotarySin(r.spec, one)(0, column);
            case TableQuantity::Angle: return core::rotaryAnglesReduced(r.spec, one)(0, column);
            }
        }
        const core::SchemeDescriptor& s = core::schemeOrThrow(r.setup.scheme);
        if (!s.encoding)
            return std::nan("");
        core::TableContext ctx;
        ctx.dim = r.setup.dim;
        ctx.positions = one;
        ctx.seqLen = r.setup.positionCount;
        return s.encoding(r.setup.params, ctx)(0, column);
    } catch (const std::exception&) {
        return std::nan("");
    }
}

core::ComputeResult TableFigure::dataExport(const FigureSnapshot& s, QStringList*)
{
    core::ComputeRequest req = figureRequest(s.setup, s.checked);
    req.quantity = core::Quantity::Encoding;
    if (core::schemeOrThrow(s.setup.scheme).rotary) {
        switch (s.options.tableQuantity) {
        case TableQuantity::Cos: req.quantity = core::Quantity::Cos; break;
        case TableQuantity::Sin: req.quantity = core::Quantity::Sin; break;
        case TableQuantity::Angle: req.quantity = core::Quantity::Angles; break;
        }
    }
    return core::compute(req);
}

} // namespace poslab::ui
