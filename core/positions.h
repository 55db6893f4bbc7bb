// SPDX-License-Identifier: MIT
#pragma once
/// @file positions.h
/// A list of token positions, either an arithmetic progression (fast paths use the recurrence) or an
/// explicit list. Parsed from the CLI's SPEC: "a:b" (half-open), "a:b:step", or "p1,p2,...".

#include "core/types.h"

#include <string>
#include <string_view>
#include <vector>

namespace poslab::core {

/// Positions start, start+step, ... (count of them), or an explicit list.
class PositionList {
public:
    PositionList() = default;
    /// Half-open range [begin, end) with a positive step. Throws InputError when empty or out of range.
    static PositionList range(Position begin, Position end, Position step = 1);
    /// Explicit list. Throws InputError when empty or a position is out of [0, maxPosition].
    static PositionList list(std::vector<Position> positions);
    /// Parses "a:b", "a:b:step" or "p1,p2,...". Throws InputError naming the spec and the problem.
    static PositionList parse(std::string_view spec);

    std::size_t size() const { return m_isRange ? std::size_t(m_count) : m_values.size(); }
    Position at(std::size_t i) const { return m_isRange ? m_start + Position(i) * m_step : m_values[i]; }
    Position operator[](std::size_t i) const { return at(i); }
    /// True for an arithmetic progression (start, step, size()).
    bool isRange() const { return m_isRange; }
    Position start() const { return m_start; }
    Position step() const { return m_step; }
    Position maxValue() const;
    /// The text form ("0:64", "0:1024:4", "1,5,9").
    std::string toString() const;

private:
    bool m_isRange = true;
    Position m_start = 0;
    Position m_step = 1;
    Position m_count = 0;
    std::vector<Position> m_values;
};

} // namespace poslab::core
