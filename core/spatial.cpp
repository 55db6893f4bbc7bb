// SPDX-License-Identifier: MIT
#include "core/spatial.h"

#include "core/errors.h"
#include "core/random.h"
#include "core/rotary.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace poslab::core {

namespace {

/// A positive integer of at most @p max, or InputError "WHAT: 'TEXT' ...".
long long positiveInteger(std::string_view text, long long max, const std::string& what)
{
    long long v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw InputError(what + ": '" + std::string(text) + "' is not a positive integer");
    if (v < 1 || v > max)
        throw InputError(what + ": " + std::string(text) + " is out of range; allowed: 1 to " + std::to_string(max));
    return v;
}

std::vector<std::string_view> split(std::string_view text, char sep)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t at = text.find(sep, start);
        parts.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos)
            return parts;
        start = at + 1;
    }
}

std::string tooMany(std::int64_t n, const std::string& what)
{
    return what + " has " + std::to_string(n) + " tokens, more than the " + std::to_string(maxSpatialTokens)
        + " allowed";
}

} // namespace

Grid parseGrid(std::string_view text)
{
    const auto parts = split(text, 'x');
    if (parts.size() != 2)
        throw InputError("--grid '" + std::string(text) + "' must be HxW (rows x columns of patches), e.g. 14x14");
    Grid g;
    g.rows = int(positiveInteger(parts[0], maxGridSide, "--grid rows H"));
    g.cols = int(positiveInteger(parts[1], maxGridSide, "--grid columns W"));
    if (g.patches() > maxSpatialTokens)
        throw InputError(tooMany(g.patches(), "--grid " + std::string(text)));
    return g;
}

std::string gridText(const Grid& g)
{
    return std::to_string(g.rows) + "x" + std::to_string(g.cols);
}

std::int64_t TokenSequence::tokens() const
{
    std::int64_t n = 0;
    for (const Segment& s : segments)
        n += s.tokens();
    return n;
}

TokenSequence parseSequence(std::string_view text)
{
    if (text.empty())
        throw InputError("--sequence is empty; give runs such as text:8,image:1x4x4,text:4");
    TokenSequence seq;
    std::int64_t total = 0;
    int index = 0;
    for (std::string_view run : split(text, ',')) {
        ++index;
        const std::string where = "--sequence run " + std::to_string(index) + " '" + std::string(run) + "'";
        const std::size_t colon = run.find(':');
        if (colon == std::string_view::npos)
            throw InputError(where + " must be text:N, image:TxHxW or video:TxHxW");
        const std::string_view kind = run.substr(0, colon), size = run.substr(colon + 1);
        Segment s;
        if (kind == "text") {
            s.kind = Segment::Kind::Text;
            s.length = positiveInteger(size, maxSpatialTokens, where + ": the token count");
        } else if (kind == "image" || kind == "video") {
            s.kind = kind == "image" ? Segment::Kind::Image : Segment::Kind::Video;
            const auto dims = split(size, 'x');
            if (dims.size() != 3)
                throw InputError(where + ": the size must be TxHxW (frames x rows x columns, after the spatial merge)");
            s.t = int(positiveInteger(dims[0], maxGridSide, where + ": T"));
            s.h = int(positiveInteger(dims[1], maxGridSide, where + ": H"));
            s.w = int(positiveInteger(dims[2], maxGridSide, where + ": W"));
            // t * h * w may pass 2^63 only above 65536^3 = 2^48 per factor pair; checked in long double.
            if ((long double)s.t * s.h * s.w > (long double)maxSpatialTokens)
                throw InputError(where + " has more than " + std::to_string(maxSpatialTokens) + " tokens");
        } else {
            throw InputError(where + ": unknown kind '" + std::string(kind) + "'; kinds: text, image, video");
        }
        total += s.tokens();
        if (total > maxSpatialTokens)
            throw InputError(tooMany(total, "--sequence"));
        seq.segments.push_back(s);
    }
    return seq;
}

std::string sequenceText(const TokenSequence& s)
{
    std::string out;
    for (const Segment& g : s.segments) {
        out += out.empty() ? "" : ",";
        if (g.kind == Segment::Kind::Text)
            out += "text:" + std::to_string(g.length);
        else
            out += std::string(g.kind == Segment::Kind::Image ? "image:" : "video:") + std::to_string(g.t) + "x"
                + std::to_string(g.h) + "x" + std::to_string(g.w);
    }
    return out;
}

std::string_view spatialInputName(SpatialInput in)
{
    return in == SpatialInput::Grid ? "grid" : "sequence";
}

std::vector<Quantity> SpatialSchemeDescriptor::quantities() const
{
    std::vector<Quantity> q;
    if (encoding)
        q.push_back(Quantity::Encoding);
    if (positionIds)
        q.push_back(Quantity::PositionIds);
    if (rotary)
        q.insert(q.end(), {Quantity::Angles, Quantity::Cos, Quantity::Sin, Quantity::Rotate, Quantity::Scores});
    return q;
}

bool SpatialSchemeDescriptor::has(Quantity q) const
{
    const auto all = quantities();
    return std::find(all.begin(), all.end(), q) != all.end();
}

const SpatialSchemeDescriptor* findSpatialScheme(std::string_view id)
{
    for (const auto& s : spatialSchemes())
        if (s.info.id == id)
            return &s;
    return nullptr;
}

ParamSet resolveSpatialParams(const SpatialSchemeDescriptor& scheme, const Overrides& overrides,
                              const SpatialContext& ctx)
{
    // The 1-D resolver does every per-key check; its TableContext only carries the dimension here.
    TableContext table;
    table.dim = ctx.dim;
    table.positions = PositionList::range(0, 1);
    ParamSet params = resolveParams(scheme.info, overrides, table);
    if (scheme.validate)
        scheme.validate(params, ctx);
    return params;
}

MatrixF spatialCos(const SpatialRotary& r)
{
    return r.angles.array().cos().cast<float>().matrix();
}

MatrixF spatialSin(const SpatialRotary& r)
{
    return r.angles.array().sin().cast<float>().matrix();
}

namespace {

/// Rotates row @p n of @p x (d values) in place by the angles of token n.
void rotateRow(const SpatialRotary& r, Eigen::Index n, double* x)
{
    const int pairs = int(r.angles.cols());
    for (int i = 0; i < pairs; ++i) {
        const auto [a, b] = pairDims(r.layout, r.headDim, i);
        const double c = std::cos(r.angles(n, i)), s = std::sin(r.angles(n, i));
        const double xa = x[a], xb = x[b];
        x[a] = xa * c - xb * s;
        x[b] = xa * s + xb * c;
    }
}

} // namespace

MatrixD spatialRotate(const SpatialRotary& r, const std::vector<double>& v)
{
    if (int(v.size()) != r.headDim)
        throw InputError("--vector has " + std::to_string(v.size()) + " values; the head dimension is "
                         + std::to_string(r.headDim));
    MatrixD out(r.angles.rows(), r.headDim);
    for (Eigen::Index n = 0; n < out.rows(); ++n) {
        std::copy(v.begin(), v.end(), out.row(n).data());
        rotateRow(r, n, out.row(n).data());
    }
    return out;
}

MatrixF spatialScores(const SpatialRotary& r, ContentKind content, std::uint64_t seed, bool causal, bool softmax)
{
    const Eigen::Index L = r.angles.rows();
    const int d = r.headDim;
    MatrixD q(L, d), k(L, d);
    if (content == ContentKind::Constant) {
        q.setOnes();
        k.setOnes();
    } else {
        SeededRandom rng(seed);
        for (Eigen::Index i = 0; i < q.size(); ++i)
            q.data()[i] = rng.normal();
        for (Eigen::Index i = 0; i < k.size(); ++i)
            k.data()[i] = rng.normal();
    }
    for (Eigen::Index n = 0; n < L; ++n) {
        rotateRow(r, n, q.row(n).data());
        rotateRow(r, n, k.row(n).data());
    }
    MatrixD logits = (q * k.transpose()) / std::sqrt(double(d));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (causal)
        for (Eigen::Index m = 0; m < L; ++m)
            for (Eigen::Index n = m + 1; n < L; ++n)
                logits(m, n) = nan;
    if (softmax) {
        for (Eigen::Index m = 0; m < L; ++m) {
            const Eigen::Index visible = causal ? m + 1 : L;
            const double top = logits.row(m).head(visible).maxCoeff();
            double sum = 0.0;
            for (Eigen::Index n = 0; n < visible; ++n)
                sum += (logits(m, n) = std::exp(logits(m, n) - top));
            logits.row(m).head(visible) /= sum;
        }
    }
    return logits.cast<float>();
}

MatrixD rowCosines(const MatrixF& vectors)
{
    const MatrixD v = vectors.cast<double>();
    const Eigen::VectorXd norms = v.rowwise().norm();
    MatrixD out = v * v.transpose();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (Eigen::Index a = 0; a < out.rows(); ++a)
        for (Eigen::Index b = 0; b < out.cols(); ++b)
            out(a, b) = norms(a) > 0 && norms(b) > 0 ? out(a, b) / (norms(a) * norms(b)) : nan;
    return out;
}

std::pair<int, int> samePlace(const Grid& from, int row, int col, const Grid& to)
{
    const auto map = [](int i, int n, int m) {
        // (i + 1/2) m / n in integers: floor((2i + 1) m / 2n), at most m - 1 since 2i + 1 < 2n.
        return int(((2 * std::int64_t(i) + 1) * m) / (2 * std::int64_t(n)));
    };
    return {map(row, from.rows, to.rows), map(col, from.cols, to.cols)};
}

} // namespace poslab::core
