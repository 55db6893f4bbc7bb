// SPDX-License-Identifier: MIT
#include "core/rotary.h"

#include "core/errors.h"
#include "core/trigtable.h"

#include <cmath>

namespace poslab::core {

std::pair<int, int> pairDims(PairLayout layout, int rotaryDim, int pair)
{
    if (layout == PairLayout::Interleaved)
        return {2 * pair, 2 * pair + 1};
    return {pair, pair + rotaryDim / 2};
}

double xposScale(const RotarySpec& spec, int pair, Position p)
{
    if (spec.xposZeta.empty())
        return 1.0;
    const double e = (double(p) - spec.xposCentre) / spec.xposScaleBase;
    const double s = std::pow(spec.xposZeta[std::size_t(pair)], e);
    return spec.xposDownscale ? 1.0 / s : s;
}

std::string_view angleFormName(AngleForm form)
{
    return form == AngleForm::Exact ? "exact" : "reduced";
}

AngleForm parseAngleForm(std::string_view name)
{
    if (name == "exact")
        return AngleForm::Exact;
    if (name == "reduced")
        return AngleForm::Reduced;
    throw InputError("unknown angle form '" + std::string(name)
                     + "'; known: exact (p * omega, as "
                       "torch.outer(t, inv_freq)), reduced (to [0, 2*pi))");
}

MatrixD rotaryAngles(const RotarySpec& spec, const PositionList& positions)
{
    const Eigen::Index pairs = Eigen::Index(spec.invFreq.size());
    MatrixD m(Eigen::Index(positions.size()), pairs);
    for (std::size_t r = 0; r < positions.size(); ++r) {
        const double p = double(positions[r]); // exact: positions are below 2^53
        for (Eigen::Index i = 0; i < pairs; ++i)
            m(Eigen::Index(r), i) = p * spec.invFreq[std::size_t(i)];
    }
    return m;
}

MatrixF rotaryAnglesReduced(const RotarySpec& spec, const PositionList& positions)
{
    return wrappedAngles(spec.invFreq, positions);
}

namespace {

MatrixF trig(const RotarySpec& spec, const PositionList& positions, bool wantSin)
{
    const Eigen::Index pairs = Eigen::Index(spec.invFreq.size());
    MatrixF m(Eigen::Index(positions.size()), pairs);
    TrigLayout layout;
    (wantSin ? layout.sin : layout.cos) = m.data();
    layout.rowStride = pairs;
    layout.pairStride = 1;
    layout.scale = spec.attentionFactor;
    fillTrigTable(spec.invFreq, positions, layout);
    if (!spec.xposZeta.empty())
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index i = 0; i < pairs; ++i)
                m(r, i) = float(double(m(r, i)) * xposScale(spec, int(i), positions[std::size_t(r)]));
    return m;
}

} // namespace

MatrixF rotaryCos(const RotarySpec& spec, const PositionList& positions)
{
    return trig(spec, positions, false);
}
MatrixF rotarySin(const RotarySpec& spec, const PositionList& positions)
{
    return trig(spec, positions, true);
}

void rotateInPlace(const RotarySpec& spec, Position p, std::span<double> v)
{
    const int pairs = int(spec.invFreq.size());
    for (int i = 0; i < pairs; ++i) {
        const double a = wrapAngle(p, spec.invFreq[std::size_t(i)]);
        const double s = spec.attentionFactor * xposScale(spec, i, p);
        const double c = std::cos(a) * s;
        const double sn = std::sin(a) * s;
        const auto [d0, d1] = pairDims(spec.layout, spec.rotaryDim, i);
        const double x0 = v[std::size_t(d0)];
        const double x1 = v[std::size_t(d1)];
        // x*cos + rotate(x)*sin with rotate(x0, x1) = (-x1, x0).
        v[std::size_t(d0)] = x0 * c - x1 * sn;
        v[std::size_t(d1)] = x1 * c + x0 * sn;
    }
}

RotarySides rotarySpecs(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx)
{
    if (!scheme.rotary)
        throw InputError("scheme " + scheme.id + " does not rotate queries and keys");
    return rotarySides(scheme.rotary(params, ctx));
}

RotarySides rotarySides(RotarySpec spec)
{
    RotarySides sides;
    sides.query = std::move(spec);
    sides.key = sides.query;
    if (!sides.query.xposZeta.empty()) {
        sides.query.xposDownscale = false;
        sides.key.xposDownscale = true;
    }
    return sides;
}

RotationPlanes rotationPlanes(const RotarySides& sides, std::span<const double> q, std::span<const double> k,
                              Position m, Position n)
{
    const int d = sides.query.headDim;
    if (int(q.size()) != d || int(k.size()) != d)
        throw InputError("the query and key need " + std::to_string(d) + " values each; got " + std::to_string(q.size())
                         + " and " + std::to_string(k.size()));
    RotationPlanes out;
    out.queryBefore.assign(q.begin(), q.end());
    out.keyBefore.assign(k.begin(), k.end());
    out.query.assign(q.begin(), q.end());
    out.key.assign(k.begin(), k.end());
    rotateInPlace(sides.query, m, out.query);
    rotateInPlace(sides.key, n, out.key);
    for (int i = 0; i < d; ++i)
        out.score += out.query[std::size_t(i)] * out.key[std::size_t(i)];
    const int pairs = int(sides.query.invFreq.size());
    for (int i = 0; i < pairs; ++i) {
        const auto [a, b] = pairDims(sides.query.layout, sides.query.rotaryDim, i);
        const double theta = sides.query.invFreq[std::size_t(i)];
        out.pairScore.push_back(out.query[std::size_t(a)] * out.key[std::size_t(a)]
                                + out.query[std::size_t(b)] * out.key[std::size_t(b)]);
        out.queryAngle.push_back(wrapAngle(m, theta));
        out.keyAngle.push_back(wrapAngle(n, theta));
        out.gapAngle.push_back(wrapAngle(m - n, theta));
    }
    return out;
}

MatrixD rotateVector(const RotarySpec& spec, const PositionList& positions, std::span<const double> v)
{
    if (int(v.size()) != spec.headDim)
        throw InputError("--vector has " + std::to_string(v.size()) + " values but the dimension is "
                         + std::to_string(spec.headDim) + "; give exactly " + std::to_string(spec.headDim));
    MatrixD out(Eigen::Index(positions.size()), Eigen::Index(spec.headDim));
    std::vector<double> work(v.begin(), v.end());
    for (std::size_t r = 0; r < positions.size(); ++r) {
        std::copy(v.begin(), v.end(), work.begin());
        rotateInPlace(spec, positions[r], work);
        for (int d = 0; d < spec.headDim; ++d)
            out(Eigen::Index(r), d) = work[std::size_t(d)];
    }
    return out;
}

} // namespace poslab::core
