// SPDX-License-Identifier: MIT
#pragma once
/// @file precisionfigure.h
/// The precision figure: what float16, bfloat16 or float32 rounding leaves of a rotary scheme's angles at the
/// positions 0..N-1 (core::analysePrecision, core/precision.h), which the precision view draws, and its data export.

#include "ui/figures/figure.h"

#include "core/precision.h"

namespace poslab::ui {

/// The precision view's numbers: core's analysis of the angles at positions 0..positionCount-1.
struct PrecisionData {
    QString error;                ///< non-empty when core refused
    core::Position positions = 0; ///< positions 0..positions-1
    core::PrecisionAnalysis analysis;
};

/// The precision figure (figure.h's pattern).
struct PrecisionFigure {
    /// The set-up (its rotary frequencies and positions), the emulated format and the angle pipeline.
    struct Inputs {
        Setup setup;
        core::FloatFormat dtype = core::FloatFormat::BFloat16;
        core::AnglePipeline pipeline = core::AnglePipeline::LowPrecision;
        CheckedSetup checked; ///< the state's token of @c setup: the request carries it
        bool operator==(const Inputs&) const = default;
    };
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    using Data = PrecisionData;
    /// core::analysePrecision of the rotary frequencies at positions 0 .. positionCount - 1 in the format and
    /// pipeline of the inputs, as `poslab compute precision` computes it; an error message when the scheme does
    /// not rotate or core refuses the set-up.
    static PrecisionData compute(const Inputs& inputs);
    /// The precision analysis of every pair at positions 0..N-1 in the view's dtype (both pipelines), as `poslab
    /// compute precision --dtype D` prints it. Throws core::InputError or core::RefusedError.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

} // namespace poslab::ui
