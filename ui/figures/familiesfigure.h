// SPDX-License-Identifier: MIT
#pragma once
/// @file familiesfigure.h
/// The families figure: every scheme of core's registry on the three axes of its descriptor (what the encoding
/// describes, where it is applied, where its numbers come from) with the year of its paper, which the family map
/// draws, and its data export.

#include "ui/figures/figure.h"

#include "core/scheme.h"

#include <vector>

namespace poslab::ui {

/// The family map's content: the axis values some scheme has, in teaching order, and one chip per scheme.
struct FamiliesData {
    /// One scheme's place on the map.
    struct Chip {
        QString id;                               ///< registry id ("rope")
        QString name;                             ///< short display name ("RoPE")
        QString year;                             ///< year of the cited paper
        core::Origin origin = core::Origin::None; ///< where its numbers come from (the chip's style)
        int column = 0;                           ///< index into columns
        int row = 0;                              ///< index into rows
        bool current = false;                     ///< the state's scheme (framed)
    };
    std::vector<core::Relation> columns; ///< relations shown: none, absolute, relative, contextual, mixed
    std::vector<core::Application> rows; ///< applications shown: input, rotated, logits, keys/values, mixed, nowhere
    std::vector<Chip> chips;             ///< in registry order
};

/// The families figure (figure.h's pattern).
struct FamiliesFigure {
    /// The current scheme (framed); the rest is the registry, which does not change while the program runs.
    struct Inputs {
        std::string scheme;
        bool operator==(const Inputs&) const = default;
    };
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    using Data = FamiliesData;
    /// Every scheme's chip; an axis value no scheme has is left out.
    static FamiliesData compute(const Inputs& inputs);
    /// Every scheme's place on the three axes and its year: schemes x (relation, application, origin, year), each
    /// axis as the index of core's enum (relationName(), applicationName(), originName() name them).
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

} // namespace poslab::ui
