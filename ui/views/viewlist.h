// SPDX-License-Identifier: MIT
#pragma once
/// @file viewlist.h
/// The one view registry: every workbench view, in its grid order, with its export name, title, factory and the
/// numbers behind it. The window (createViews), the export scene (view by name, viewNames), the data export
/// (ExportService::renderData) and the command line read this table; adding a view is one entry here.

#include "core/compute.h"

#include <QString>
#include <QStringList>
#include <QStringView>

#include <vector>

struct QMetaObject;

namespace poslab::ui {

class Computation;
class View;
class WorkbenchState;

/// One view of the registry.
struct ViewEntry {
    const char* id;          ///< export and command-line name: "table", "clock", "rotation", "decay", "attention"
    const char* title;       ///< title of the view's frame, untranslated (View::title() translates it)
    const QMetaObject* type; ///< the view's class (View::exportName() and title() find their entry by it)
    /// Creates the view (unparented; the caller takes ownership).
    View* (*create)(WorkbenchState* state, Computation* computation);
    /// The numbers behind the view for @p state, as `poslab compute` computes them (the data export writes
    /// these); @p notes receives lines worth telling the user (may be null). Throws core::InputError or
    /// core::RefusedError. Call only where the view applies to the state's scheme (View::isApplicable()).
    core::ComputeResult (*data)(const WorkbenchState& state, QStringList* notes);
    /// In the window's grid of five (table, clock, rotation, decay, attention); the other views have a tab of
    /// their own above the grid (the window's view tabs) and show one at a time.
    bool inGrid = true;
    /// The views of a tab of their own: the tab's short name, untranslated, for a row of tabs too narrow for the
    /// titles (ViewGrid's rule); nullptr for the grid's views.
    const char* tabTitle = nullptr;
};

/// Every view, in the window's grid order.
const std::vector<ViewEntry>& viewRegistry();
/// The entry named @p id, or nullptr.
const ViewEntry* findView(QStringView id);
/// The export names in registry order.
QStringList viewIds();

/// Creates every view (unparented; the caller takes ownership) in registry order.
std::vector<View*> createViews(WorkbenchState* state, Computation* computation);

} // namespace poslab::ui
