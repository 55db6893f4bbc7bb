// SPDX-License-Identifier: MIT
#pragma once
/// @file cellwordings.h
/// One wording level for a grid of labelled cells (the clock view's hands, the rotation view's planes): every
/// cell's label takes the same form, the longest one that all of them hold.

#include <QFontMetricsF>
#include <QStringList>

#include <algorithm>
#include <vector>

namespace poslab::ui {

/// The longest wording level (0, 1, else 2) at which the label of every pair in @p pairs fits @p room pixels in
/// @p fm. @p wordings(i) gives pair i's wordings, longest first; a list shorter than the level stands for it
/// with its last wording.
template <class Wordings>
int fittingLevel(const QFontMetricsF& fm, double room, const std::vector<int>& pairs, Wordings wordings)
{
    for (int level = 0; level < 2; ++level) {
        bool fits = true;
        for (int i : pairs) {
            const QStringList w = wordings(i);
            fits = fits && fm.horizontalAdvance(w[std::min<qsizetype>(level, w.size() - 1)]) <= room;
        }
        if (fits)
            return level;
    }
    return 2;
}

} // namespace poslab::ui
