// SPDX-License-Identifier: MIT
#include "core/compute.h"

#include "core/errors.h"
#include <numbers>

#include <algorithm>
#include <cmath>

namespace poslab::core {

namespace {

std::string spatialIds(SpatialInput input)
{
    std::string ids;
    for (const auto& s : spatialSchemes())
        if (s.input == input)
            ids += (ids.empty() ? "" : ", ") + s.info.id;
    return ids;
}

std::string quantityList(const SpatialSchemeDescriptor& s)
{
    std::string names;
    for (Quantity q : s.quantities())
        names += (names.empty() ? "" : ", ") + std::string(quantityName(q));
    return names;
}

void takeMatrix(ComputeResult& r, const MatrixD& m)
{
    r.shape = {std::size_t(m.rows()), std::size_t(m.cols())};
    r.data.assign(m.data(), m.data() + m.size());
}

void takeMatrix(ComputeResult& r, const MatrixF& m)
{
    r.shape = {std::size_t(m.rows()), std::size_t(m.cols())};
    r.data.assign(m.data(), m.data() + m.size());
    r.float32 = true;
}

// The taps one output cell of resizeGrid() reads along an axis (core/interpolate.cpp).
double tapsPerAxis(double in, double out, bool bicubic, bool antialias)
{
    const double n = bicubic ? 4.0 : 2.0;
    if (!antialias)
        return n;
    const double scale = in / out;
    return std::ceil(n * 0.5 * std::max(scale, 1.0)) * 2.0 + 1.0;
}

} // namespace

ComputeResult computeSpatial(const ComputeRequest& req, const SpatialSchemeDescriptor& s, const Limits& limits)
{
    ComputeResult result;
    result.quantity = std::string(quantityName(req.quantity));
    result.scheme = s.info.id;
    const std::string& id = s.info.id;
    if (!s.has(req.quantity))
        throw InputError("scheme " + id + " has no quantity '" + result.quantity + "'; it has: " + quantityList(s));
    const bool onGrid = s.input == SpatialInput::Grid;
    if (onGrid && req.sequence)
        throw InputError("--sequence applies to the sequence schemes (" + spatialIds(SpatialInput::Sequence) + "); "
                         + id + " takes --grid HxW");
    if (!onGrid && req.grid)
        throw InputError("--grid applies to the grid schemes (" + spatialIds(SpatialInput::Grid) + "); " + id
                         + " takes --sequence text:N,image:TxHxW,video:TxHxW,...");
    if (onGrid && !req.grid)
        throw InputError(id + " needs --grid HxW (rows x columns of patches), e.g. --grid 14x14");
    if (!onGrid && !req.sequence)
        throw InputError(id
                         + " needs --sequence, e.g. --sequence text:4,image:1x2x3,text:2 (image and video sizes "
                           "TxHxW in the language model's grid units, after the spatial merge)");
    if (req.cls && !s.hasClassToken)
        throw InputError("--cls applies to the tables with a class-token row (vit_learned, sincos_2d); " + id
                         + " has none");
    const auto refuse = [&](bool given, const char* option) {
        if (given)
            throw InputError(std::string(option) + " does not apply to " + id + " (a "
                             + std::string(spatialInputName(s.input)) + " scheme)");
    };
    refuse(req.keys.has_value(), "--keys");
    refuse(req.heads != 1, "--heads");
    refuse(req.context.seqLen.has_value(), "--seq-len");
    refuse(req.trainedLength.has_value(), "--trained-length");
    refuse(req.dtype.has_value(), "--dtype");
    refuse(!req.term.empty(), "--term");
    refuse(req.drope, "--drope");
    const auto only = [&](bool given, Quantity where, const char* option) {
        if (given && req.quantity != where)
            throw InputError(std::string(option) + " applies to " + std::string(quantityName(where)) + " only, not to "
                             + result.quantity);
    };
    only(!req.vector.empty(), Quantity::Rotate, "--vector");
    only(req.softmax, Quantity::Scores, "--softmax");
    only(req.maskGiven, Quantity::Scores, "--mask");

    SpatialContext ctx;
    ctx.dim = req.context.dim;
    if (req.grid)
        ctx.grid = *req.grid;
    if (req.sequence)
        ctx.sequence = *req.sequence;
    ctx.cls = req.cls;
    result.params = resolveSpatialParams(s, req.overrides, ctx);
    const double tokens = onGrid ? double(ctx.grid.patches()) : double(ctx.sequence.tokens());
    const double d = double(ctx.dim);
    result.labels.push_back(onGrid ? std::pair<std::string, std::string>{"grid", gridText(ctx.grid)}
                                   : std::pair<std::string, std::string>{"sequence", sequenceText(ctx.sequence)});
    const std::string what = std::to_string((long long)tokens) + " tokens";

    switch (req.quantity) {
    case Quantity::Encoding: {
        const double rows = tokens + (ctx.cls ? 1 : 0);
        checkSize(rows * d * (sizeof(float) + sizeof(double)), limits,
                  "a " + std::to_string((long long)rows) + " x " + std::to_string(ctx.dim) + " table");
        if (id == "vit_learned") {
            const double th = double(result.params.integer("table_rows")),
                         tw = double(result.params.integer("table_cols"));
            const bool bicubic = result.params.choice("interpolation") == "bicubic";
            const bool aa = result.params.flag("antialias");
            checkSize((th * tw + 1) * d * (sizeof(float) + 2 * sizeof(double)) + tokens * d * sizeof(double), limits,
                      "the trained " + std::to_string((long long)th) + " x " + std::to_string((long long)tw)
                          + " table");
            checkWork((th * tw + 1) * d * drawOps
                          + tokens * d * tapsPerAxis(th, ctx.grid.rows, bicubic, aa)
                              * tapsPerAxis(tw, ctx.grid.cols, bicubic, aa),
                      limits, "resizing the table to " + gridText(ctx.grid));
        }
        takeMatrix(result, s.encoding(result.params, ctx));
        result.axes = {"token", "dimension"};
        result.labels.push_back({"row_order",
                                 std::string(ctx.cls ? "row 0: class token; row 1 + i*W + j: patch (i, j)"
                                                     : "row i*W + j: patch (i, j), row i, column j")});
        return result;
    }
    case Quantity::PositionIds: {
        checkSize(tokens * 3 * 2 * sizeof(double), limits, "the position ids of " + what);
        takeMatrix(result, s.positionIds(result.params, ctx));
        result.axes = {"axis", "token"};
        result.labels.push_back({"rows", "0: temporal t, 1: height h, 2: width w"});
        return result;
    }
    case Quantity::Angles:
    case Quantity::Cos:
    case Quantity::Sin:
    case Quantity::Rotate: {
        const double pairs = d / 2;
        const double out = req.quantity == Quantity::Rotate ? tokens * d : tokens * pairs;
        checkSize(tokens * pairs * sizeof(double) + out * (sizeof(double) + sizeof(float))
                      + tokens * 3 * sizeof(double),
                  limits, "the rotation of " + what + " at d = " + std::to_string(ctx.dim));
        if (req.quantity == Quantity::Rotate && req.vector.empty())
            throw InputError("rotate needs --vector with " + std::to_string(ctx.dim) + " comma-separated values");
        for (std::size_t i = 0; i < req.vector.size(); ++i)
            if (!std::isfinite(req.vector[i]))
                throw InputError("--vector: element " + std::to_string(i + 1) + " is not finite; give finite numbers");
        SpatialRotary r = s.rotary(result.params, ctx);
        if (req.quantity == Quantity::Angles) {
            if (req.angles == AngleForm::Reduced)
                for (Eigen::Index i = 0; i < r.angles.size(); ++i) {
                    double a = std::fmod(r.angles.data()[i], 2.0 * std::numbers::pi);
                    r.angles.data()[i] = a < 0 ? a + 2.0 * std::numbers::pi : a;
                }
            takeMatrix(result, r.angles);
            result.labels.push_back({"angle_form",
                                     req.angles == AngleForm::Exact ? "exact: id * omega in radians, unreduced"
                                                                    : "reduced: id * omega mod 2*pi, in [0, 2*pi)"});
        } else if (req.quantity == Quantity::Cos) {
            takeMatrix(result, spatialCos(r));
        } else if (req.quantity == Quantity::Sin) {
            takeMatrix(result, spatialSin(r));
        } else {
            takeMatrix(result, spatialRotate(r, req.vector));
        }
        if (req.quantity != Quantity::Rotate)
            result.columnLabels = r.pairLabels;
        result.axes = {"token", req.quantity == Quantity::Rotate ? "dimension" : "pair"};
        result.labels.push_back({"pair_layout",
                                 r.layout == PairLayout::Interleaved ? "interleaved: pair i = dims (2i, 2i+1)"
                                                                     : "half_split: pair i = dims (i, i + d/2)"});
        for (const auto& sc : r.scalars)
            result.scalars.push_back(sc);
        return result;
    }
    case Quantity::Scores: {
        if (req.content.kind == ContentKind::Sentence)
            throw InputError("scores of " + id
                             + " take --content random or constant (no sentence: the tokens are "
                               "patches and image blocks)");
        checkSize(tokens * tokens * (2 * sizeof(double) + sizeof(float)) + tokens * d * 3 * sizeof(double), limits,
                  "a " + std::to_string((long long)tokens) + " x " + std::to_string((long long)tokens)
                      + " score matrix");
        checkWork(tokens * tokens * d + tokens * d * 2 * drawOps, limits,
                  "the scores of " + what + " at d = " + std::to_string(ctx.dim));
        const SpatialRotary r = s.rotary(result.params, ctx);
        // A ViT encoder attends to every patch; a vision-language model's decoder is causal.
        const MaskKind mask = req.maskGiven ? req.mask : onGrid ? MaskKind::Bidirectional : MaskKind::Causal;
        takeMatrix(result, spatialScores(r, req.content.kind, req.content.seed, mask == MaskKind::Causal, req.softmax));
        result.axes = {"query", "key"};
        result.labels.push_back({"content",
                                 req.content.kind == ContentKind::Constant
                                     ? "constant: q = k = (1, ..., 1) at every token"
                                     : "random: q, k ~ N(0, 1), seeded"});
        result.labels.push_back({"mask", std::string(maskName(mask))});
        result.scalars.push_back({"causal", mask == MaskKind::Causal ? 1.0 : 0.0});
        result.scalars.push_back({"softmax", req.softmax ? 1.0 : 0.0});
        if (req.content.kind == ContentKind::Random)
            result.scalars.push_back({"content_seed", double(req.content.seed)});
        return result;
    }
    default: break;
    }
    throw InputError("scheme " + id + " has no quantity '" + result.quantity + "'");
}

} // namespace poslab::core
