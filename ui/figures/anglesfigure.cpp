// SPDX-License-Identifier: MIT
#include "ui/figures/anglesfigure.h"

#include "core/encodingregistry.h"
#include "core/random.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <span>

namespace poslab::ui {

AnglesFigure::ClockInputs AnglesFigure::clockInputs(const EncodingResult& table, const FigureSnapshot& s)
{
    return {table.frequencies, s.options.clockPairs, s.time};
}

ClockHands AnglesFigure::clock(const ClockInputs& in)
{
    ClockHands h;
    h.time = in.time;
    h.pairs = shownPairs(int(in.frequencies.size()), in.pairs);
    for (int i : h.pairs)
        h.hands.push_back(core::handAt(in.time, in.frequencies[std::size_t(i)]));
    // The clock's names belong to the extremes of the whole set of pairs, not of the ones shown.
    const auto& f = in.frequencies;
    const auto [fast, slow] = std::minmax_element(f.begin(), f.end(), [](double a, double b) { return a > b; });
    h.fastest = int(fast - f.begin());
    h.slowest = int(slow - f.begin());
    return h;
}

std::vector<int> AnglesFigure::shownPairs(int pairs, const QString& pairText)
{
    std::vector<int> out;
    if (pairs == 0)
        return out;
    const QString text = pairText.trimmed();
    if (!text.isEmpty() && parsePairs(text, pairs, &out).isEmpty() && !out.empty())
        return out;
    const int n = std::min(pairs, 8);
    for (int k = 0; k < n; ++k)
        out.push_back(n == 1 ? 0 : int(std::lround(double(k) * (pairs - 1) / (n - 1))));
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

QString AnglesFigure::parsePairs(const QString& text, int pairs, std::vector<int>* out)
{
    out->clear();
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString t = part.trimmed();
        const auto dash = t.indexOf(QLatin1Char('-'), 1);
        bool ok1 = false, ok2 = true;
        const int a = (dash > 0 ? t.left(dash) : t).trimmed().toInt(&ok1);
        const int b = dash > 0 ? t.mid(dash + 1).trimmed().toInt(&ok2) : a;
        if (!ok1 || !ok2 || a > b)
            return QCoreApplication::translate("poslab::ui::ClockView",
                                               "pairs: '%1' is not a pair number or range such as 0-3")
                .arg(t);
        if (a < 0 || b >= pairs)
            return QCoreApplication::translate("poslab::ui::ClockView", "pairs: %1 is out of range; allowed: 0 to %2")
                .arg(t)
                .arg(pairs - 1);
        for (int i = a; i <= b && out->size() < 64; ++i)
            out->push_back(i);
    }
    std::sort(out->begin(), out->end());
    out->erase(std::unique(out->begin(), out->end()), out->end());
    return {};
}

std::pair<core::Position, core::Position> AnglesFigure::rotationPositions(const FigureSnapshot& s, bool shifted)
{
    const core::Position m = s.cursor;
    const core::Position n = std::max<core::Position>(0, m - s.options.keyDistance);
    const core::Position r = shifted ? s.options.shift : 0;
    return {m + r, n + r};
}

core::RotationPlanes AnglesFigure::planes(const EncodingResult& result, core::Position m, core::Position n)
{
    if (!result.rotary || !result.error.isEmpty())
        return {};
    const std::size_t d = std::size_t(result.sides.query.headDim);
    // Seeded content, the same every time for a given d and on every platform, so a lecture can refer to "this q".
    // Kept per d on this thread: the rotation view asks for its planes on every frame.
    thread_local std::vector<double> v;
    if (v.size() != 2 * d)
        v = core::seededNormals(rotationSeed, 2 * d);
    const std::span<const double> all(v);
    return core::rotationPlanes(result.sides, all.first(d), all.subspan(d), m, n);
}

core::ComputeResult AnglesFigure::dataExport(const FigureSnapshot& s, QStringList*)
{
    core::ComputeRequest req = figureRequest(s.setup, s.checked);
    req.quantity = core::schemeOrThrow(s.setup.scheme).has(core::Quantity::Angles) ? core::Quantity::Angles
                                                                                   : core::Quantity::Encoding;
    return core::compute(req);
}

} // namespace poslab::ui
