// SPDX-License-Identifier: MIT
#include "ui/views/viewlist.h"

#include "ui/views/attentionview.h"
#include "ui/views/clockview.h"
#include "ui/views/decayview.h"
#include "ui/views/rotationview.h"
#include "ui/views/tableview.h"

namespace poslab::ui {

std::vector<View*> createViews(WorkbenchState* state, Computation* computation)
{
    return {
        new TableView(state, computation),
        new ClockView(state, computation),
        new RotationView(state, computation),
        new DecayView(state, computation),
        new AttentionView(state, computation),
    };
}

} // namespace poslab::ui
