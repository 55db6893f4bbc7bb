// SPDX-License-Identifier: MIT
#pragma once
/// @file viewlist.h
/// The workbench's views in their grid order. The window, the export service and the tests create them
/// through this one function.

#include <vector>

namespace poslab::ui {

class Computation;
class View;
class WorkbenchState;

/// Creates every view (unparented; the caller takes ownership): table, clock, rotation, decay, attention.
std::vector<View*> createViews(WorkbenchState* state, Computation* computation);

} // namespace poslab::ui
