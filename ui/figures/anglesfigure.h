// SPDX-License-Identifier: MIT
#pragma once
/// @file anglesfigure.h
/// The angles figures: the clock hands (each pair's angle p * omega_i at the animation's position p) and the
/// rotation planes (a seeded query and key rotated at m and n, RoFormer eq. 16), which the clock and rotation views
/// draw, and their data export (the angles p * theta_i). Both read the frequencies and rotations of the table
/// figure's result (tablefigure.h), so the scheme's rotary spec is not built a second time.

#include "ui/figures/tablefigure.h"

#include "core/rotary.h"
#include "core/trigtable.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace poslab::ui {

/// Seed of the rotation view's query and key (core::seededNormals: q is the first d draws, k the next d).
inline constexpr std::uint64_t rotationSeed = 20210420;

/// The clock's hands at one position: what the clock view draws and its hover reads.
struct ClockHands {
    double time = 0.0;                    ///< the position p the hands show (the animation time, tokens)
    std::vector<int> pairs;               ///< the pairs drawn, in order
    std::vector<core::HandReading> hands; ///< per pair drawn: angle p * omega_i mod 2 pi, sine, cosine, period
    int fastest = 0;                      ///< of all pairs: the largest omega (the "second hand")
    int slowest = 0;                      ///< of all pairs: the smallest omega (the "hour hand")
};

/// The clock and rotation-plane figures (figure.h's pattern, with the table figure's result as an input).
struct AnglesFigure {
    /// The clock's inputs: every pair's frequency (rad/token), the pair list of the view option clock_pairs, and
    /// the animation's position.
    struct ClockInputs {
        std::vector<double> frequencies;
        QString pairs;
        double time = 0.0;
        bool operator==(const ClockInputs&) const = default;
    };
    /// The frequencies of @p table and the pair list and time of @p snapshot.
    static ClockInputs clockInputs(const EncodingResult& table, const FigureSnapshot& snapshot);
    /// The hands of the pairs shown (shownPairs()) at the inputs' time: core::handAt for each.
    static ClockHands clock(const ClockInputs& inputs);
    /// The pairs drawn of @p pairs: parsed from @p text ("0-3,8"), or up to 8 spread from fastest to slowest when
    /// @p text is empty or names no valid pair.
    static std::vector<int> shownPairs(int pairs, const QString& text);
    /// Parses a pair list such as "0-3,8,63" for @p pairs pairs (at most 64 kept, sorted, no repeats); returns an
    /// error message naming the first bad part, or empty.
    static QString parsePairs(const QString& text, int pairs, std::vector<int>* out);

    /// The rotation view's query and key positions: m = cursor, n = max(0, m - key_distance), both plus the view
    /// option shift when @p shifted.
    static std::pair<core::Position, core::Position> rotationPositions(const FigureSnapshot& snapshot, bool shifted);
    /// The rotation view's seeded query and key (rotationSeed) rotated at @p m and @p n with @p table's sides
    /// (core::rotationPlanes); empty planes when @p table is not rotary or holds an error.
    static core::RotationPlanes planes(const EncodingResult& table, core::Position m, core::Position n);

    /// Clock hands and rotation planes turn by p * theta_i: the angles (the encoding for additive sinusoids), as
    /// `poslab compute angles` writes them. Throws core::InputError or core::RefusedError.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

} // namespace poslab::ui
