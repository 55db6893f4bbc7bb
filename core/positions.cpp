// SPDX-License-Identifier: MIT
#include "core/positions.h"

#include "core/errors.h"

#include <algorithm>
#include <charconv>

namespace poslab::core {

namespace {

Position parsePosition(std::string_view whole, std::string_view part)
{
    long long v = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size())
        throw InputError("positions '" + std::string(whole) + "': '" + std::string(part)
                         + "' is not an integer (expected a:b, a:b:step or p1,p2,...)");
    return v;
}

void checkPosition(Position p)
{
    if (p < 0 || p > maxPosition)
        throw InputError("position " + std::to_string(p) + " is out of range; allowed: 0 to "
                         + std::to_string(maxPosition));
}

} // namespace

PositionList PositionList::range(Position begin, Position end, Position step)
{
    if (step <= 0)
        throw InputError("positions: the step must be positive, got " + std::to_string(step));
    checkPosition(begin);
    if (end <= begin)
        throw InputError("positions " + std::to_string(begin) + ":" + std::to_string(end)
                         + " is empty (the end is excluded and must be larger than the start)");
    if (end - 1 > maxPosition)
        checkPosition(end - 1);
    PositionList p;
    p.m_isRange = true;
    p.m_start = begin;
    p.m_step = step;
    // end - 1 - begin is at most maxPosition here, so neither this nor maxValue() can overflow, whatever the step
    // (end - begin + step - 1 did for a step near the largest integer).
    p.m_count = (end - 1 - begin) / step + 1;
    return p;
}

PositionList PositionList::list(std::vector<Position> positions)
{
    if (positions.empty())
        throw InputError("positions: the list is empty");
    for (Position v : positions)
        checkPosition(v);
    PositionList p;
    p.m_isRange = false;
    p.m_values = std::move(positions);
    return p;
}

PositionList PositionList::parse(std::string_view spec)
{
    if (spec.find(':') != std::string_view::npos) {
        std::vector<std::string_view> parts;
        std::size_t start = 0;
        while (true) {
            const std::size_t colon = spec.find(':', start);
            parts.push_back(spec.substr(start, colon == std::string_view::npos ? spec.size() - start : colon - start));
            if (colon == std::string_view::npos)
                break;
            start = colon + 1;
        }
        if (parts.size() != 2 && parts.size() != 3)
            throw InputError("positions '" + std::string(spec) + "': expected a:b or a:b:step");
        const Position a = parsePosition(spec, parts[0]);
        const Position b = parsePosition(spec, parts[1]);
        const Position s = parts.size() == 3 ? parsePosition(spec, parts[2]) : 1;
        return range(a, b, s);
    }
    std::vector<Position> values;
    std::size_t start = 0;
    while (start <= spec.size()) {
        std::size_t comma = spec.find(',', start);
        if (comma == std::string_view::npos)
            comma = spec.size();
        values.push_back(parsePosition(spec, spec.substr(start, comma - start)));
        start = comma + 1;
    }
    return list(std::move(values));
}

Position PositionList::maxValue() const
{
    if (m_isRange)
        return m_count > 0 ? m_start + (m_count - 1) * m_step : 0;
    return m_values.empty() ? 0 : *std::max_element(m_values.begin(), m_values.end());
}

std::string PositionList::toString() const
{
    if (m_isRange) {
        // The end after the last position: start + count * step, or last + 1 for a step beyond any position
        // (which the product would overflow).
        const Position last = m_start + (m_count - 1) * m_step;
        const Position end = m_step > maxPosition ? last + 1 : last + m_step;
        const std::string s = std::to_string(m_start) + ":" + std::to_string(end);
        return m_step == 1 ? s : s + ":" + std::to_string(m_step);
    }
    std::string s;
    for (std::size_t i = 0; i < m_values.size(); ++i) {
        s += (i ? "," : "");
        s += std::to_string(m_values[i]);
    }
    return s;
}

} // namespace poslab::core
