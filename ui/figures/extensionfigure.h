// SPDX-License-Identifier: MIT
#pragma once
/// @file extensionfigure.h
/// The extension figure: core::extensionTable (core/extension.h) for a rotary set-up at the inference length L
/// against the trained window T, with the pair its circle shows, which the extension view draws, and its data
/// export (`poslab compute extension` with the same L and T).

#include "ui/figures/figure.h"

#include "core/extension.h"

namespace poslab::ui {

/// The extension view's numbers: core::extensionTable for the state's rotary set-up at the inference length L, as
/// `poslab compute extension` computes them (ExtensionFigure::request).
struct ExtensionData {
    QString error; ///< non-empty when core refused (then the table is empty)
    core::ExtensionTable table;
    int pair = 0;                    ///< the pair the circle shows: extension_pair, or the table's automatic pair
    bool automaticPair = true;       ///< extension_pair is -1
    QString pairError;               ///< extension_pair names a pair the set-up does not have
    bool lengthFromPositions = true; ///< L is the state's positions (target_length 0, no model)
    bool lengthFromModel = false;    ///< L is the model's context_length (target_length 0)
    bool trainedFromModel = false;   ///< T is the preset's trained_length
    /// The scale panel draws every method at the scheme's theta, factor and window (extension_methods all), not
    /// this scheme's scale alone.
    bool allMethods = true;
};

/// The extension figure (figure.h's pattern).
struct ExtensionFigure {
    /// The set-up (scheme, parameters, dimension, positions, model) and the view's extension options.
    struct Inputs {
        Setup setup;
        int targetLength = 0;
        int trainedLength = 0;
        int extensionPair = -1;
        ExtensionMethods methods = ExtensionMethods::All;
        CheckedSetup checked; ///< the state's token of @c setup: the request carries it
        bool operator==(const Inputs&) const = default;
    };
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    using Data = ExtensionData;
    /// The request `poslab compute extension` runs for the figure: figureRequest(setup) with the sequence length
    /// L = target_length (0: the model's context_length, else the positions) and T = trained_length, else the
    /// model's trained_length (else none: core takes the scheme's own window or L).
    static core::ComputeRequest request(const Inputs& inputs);
    /// core::extensionTable at request()'s L and T, the pair the circle shows (extension_pair, or the table's
    /// automatic pair when it is -1 or names a pair the set-up does not have, with pairError saying so) and where
    /// L and T come from; an error message when core refuses.
    static ExtensionData compute(const Inputs& inputs);
    /// One row per rotary pair, as `poslab compute extension` prints it with the view's L and T, and a note naming
    /// the pair the circle shows. Throws core::InputError or core::RefusedError.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

} // namespace poslab::ui
