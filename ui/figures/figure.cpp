// SPDX-License-Identifier: MIT
#include "ui/figures/figure.h"

#include "core/encodingregistry.h"
#include "ui/figures/computation.h"

#include <algorithm>

namespace poslab::ui {

FigureSnapshot FigureSnapshot::of(const WorkbenchState& state)
{
    return {state.setup(),       state.viewOptions(), state.cursor(),         state.animationTime(),
            state.trainedRuns(), state.spatial(),     {state.checkedParams()}};
}

std::shared_ptr<const core::CheckedParams> CheckedSetup::of(const Setup& setup) const
{
    const bool vouches = token && token->scheme() == setup.scheme && token->dim() == setup.dim
        && token->seqLen() == std::max(1, setup.positionCount) && token->params() == setup.params;
    return vouches ? token : nullptr;
}

std::optional<core::RotarySpec> CheckedSetup::rotarySpec(const Setup& setup) const
{
    if (const auto mine = of(setup))
        return mine->rotarySpec();
    return Computation::rotarySpec(setup);
}

core::ComputeRequest figureRequest(const Setup& setup, const CheckedSetup& checked)
{
    const core::SchemeDescriptor& scheme = core::schemeOrThrow(setup.scheme);
    core::ComputeRequest req;
    req.scheme = scheme.id;
    for (const auto& [key, value] : setup.params.values()) {
        const core::ParamSpec* spec = scheme.param(key);
        // Only what is in force, against the default under the current choices: a remembered value of a key that
        // does not apply (YaRN's factor after switching back to plain RoPE) changes nothing, and the resolver
        // refuses it as --set would.
        if (spec && !(value == core::defaultValue(*spec, setup.params)) && core::applies(*spec, setup.params))
            req.settings.emplace_back(key, value); // the value itself: no text on the way
    }
    const int n = std::max(1, setup.positionCount);
    req.context.dim = setup.dim;
    req.context.positions = core::PositionList::range(0, n);
    req.context.seqLen = n;
    req.checked = checked.of(setup);
    return req;
}

} // namespace poslab::ui
