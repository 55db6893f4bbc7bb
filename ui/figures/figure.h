// SPDX-License-Identifier: MIT
#pragma once
/// @file figure.h
/// The figure layer (STYLE.md, seam 11): a figure holds the numbers, a view only draws them. Every figure of
/// ui/figures/ follows one pattern:
///
///     struct XFigure {
///         struct Inputs { ...; bool operator==(const Inputs&) const = default; };  // what the numbers depend on
///         static Inputs inputsOf(const FigureSnapshot& snapshot);                   // picks them from a snapshot
///         using Data = XData;
///         static Data compute(const Inputs& inputs);            // pure: no QObject, no widget, no live state
///         static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
///     };
///
/// compute() reads nothing but its argument, so it is safe on a worker thread; two snapshots with equal Inputs
/// give equal data, which is what lets a caller skip a recompute (FigureCache) and a scheduler coalesce. The
/// window's view, the CLI export (the registry's data function, ui/views/viewlist.h) and the tests all take a
/// figure's numbers from its file.

#include "ui/state/spatialsetup.h"
#include "ui/state/viewproperties.h"
#include "ui/state/workbenchstate.h"

#include "core/compute.h"

#include <QStringList>

#include <memory>
#include <optional>
#include <utility>

namespace poslab::ui {

/// The state's validated set-up (WorkbenchState::checkedParams()) as a figure input. Equal when both are null or
/// both vouch for the same values (core::CheckedParams compares by value): a new token of an unchanged set-up (an
/// undo and a redo) recomputes nothing, and figure inputs still coalesce.
struct CheckedSetup {
    std::shared_ptr<const core::CheckedParams> token;
    /// The token when it is the one of @p setup (its scheme, parameters, dimension and positionCount as the
    /// sequence length), else null.
    std::shared_ptr<const core::CheckedParams> of(const Setup& setup) const;
    /// The rotary spec of @p setup for positions 0 .. N-1 and sequence length N as the token holds it: nullopt
    /// when the scheme does not rotate or core refuses the spec; Computation::rotarySpec(setup) without a token.
    std::optional<core::RotarySpec> rotarySpec(const Setup& setup) const;
    bool operator==(const CheckedSetup& o) const
    {
        return token == o.token || (token && o.token && *token == *o.token);
    }
};

/// An immutable copy of what a figure may depend on: the set-up, the view options, the position cursor, the
/// animation time, the window's trained runs and the spatial set-up (the patch grid and sequence figures').
/// Taken on the UI thread (of()), then read on any thread: it holds values only (Setup's model is an implicitly
/// shared QJsonObject, safe to copy and read across threads).
struct FigureSnapshot {
    Setup setup;
    ViewOptions options;
    int cursor = 0;
    double time = 0.0;                              ///< the animation's position (tokens; the clock's hands)
    std::shared_ptr<const TrainedRuns> trainedRuns; ///< the window's training runs (immutable once published), or null
    SpatialSetup spatial; ///< the grid or sequence scheme, its grid, sequence and selected patch or token
    CheckedSetup checked; ///< the state's token of @c setup (validated once per change), or null
    /// The state's set-up, view options, cursor, animation time, trained runs, spatial set-up and token now.
    static FigureSnapshot of(const WorkbenchState& state);
};

/// The request `poslab compute` runs for @p setup: its scheme, the parameters that differ from their defaults and
/// apply (as --set would give them), dimension, positions 0 .. N-1 and sequence length N (N = positionCount, at
/// least 1). The quantity is left at Encoding for the caller to set. @p checked: the request carries the token
/// (ComputeRequest::checked) when it is @p setup's, so core does not validate the parameters again.
core::ComputeRequest figureRequest(const Setup& setup, const CheckedSetup& checked = {});

/// @p Figure's data for @p snapshot, computed on the calling thread (an export, a test).
template <class Figure> typename Figure::Data computeFigure(const FigureSnapshot& snapshot)
{
    return Figure::compute(Figure::inputsOf(snapshot));
}

/// A figure's latest data and the inputs it was computed from: update() recomputes only when the figure's declared
/// inputs differ from the last ones. Used where a figure is computed on the calling thread (a view's refresh, an
/// export); holds no reference to the state.
template <class Figure> class FigureCache {
public:
    /// Recomputes the data for @p snapshot when its inputs differ from the last; true when it did.
    bool update(const FigureSnapshot& snapshot)
    {
        typename Figure::Inputs in = Figure::inputsOf(snapshot);
        if (m_valid && in == m_inputs)
            return false;
        m_data = Figure::compute(in);
        m_inputs = std::move(in);
        m_valid = true;
        return true;
    }
    /// The latest data (default-constructed before the first update()).
    const typename Figure::Data& data() const { return m_data; }

private:
    typename Figure::Inputs m_inputs{};
    typename Figure::Data m_data{};
    bool m_valid = false;
};

} // namespace poslab::ui
