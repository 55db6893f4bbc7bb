// SPDX-License-Identifier: MIT
#pragma once
/// @file leftcolumn.h
/// How the window's left column is shared between the scheme picker (above) and the parameter panel (below), at
/// every font scale. The rule, in order:
///   1. the parameters get the room for their first ParameterPanel::rowsInView rows (six at 1366 x 768, font
///      scale 1);
///   2. the scheme picker shows its whole list where the rest holds it (list, story and formula line, the
///      scheme's name and, unfolded, its formula); where it does not, the list takes its compact form, one line
///      (SchemePicker::setCompact()): a list that scrolled in its box cut a family line at its edge, and took
///      the height the parameters need (at font scale 2 the panel showed one row);
///   3. what is left over goes to the parameters: more rows, the rest scroll in their own box.
/// The formula starts folded at large font scales (SchemePicker::formulaShownByDefault()), so that at font scale 2
/// on a 768 px screen the compact picker leaves the parameters at least three whole rows.

class QDockWidget;
class QMainWindow;

namespace poslab::ui {

/// The share of the column: the picker's form and the schemes dock's height (the parameters dock gets the rest).
struct ColumnSplit {
    bool compact = false;
    int schemes = 0;
    bool operator==(const ColumnSplit&) const = default;
};

/// The rule above on heights alone: @p total the height of both docks, @p fullSchemes and @p compactSchemes the
/// schemes dock's height with the whole list and with the compact picker, @p parametersNeed the parameters dock's
/// height for rowsInView rows.
ColumnSplit splitLeftColumn(int total, int fullSchemes, int compactSchemes, int parametersNeed);

/// Measures @p window's docks @p schemes (holding a SchemePicker) and @p parameters (a scroll area holding a
/// ParameterPanel), applies splitLeftColumn() to them and looks again once the dock layout has settled (it rounds
/// and subtracts its separators; @p pass counts the looks). Nothing happens while either dock is hidden or floating.
void fitLeftColumn(QMainWindow* window, QDockWidget* schemes, QDockWidget* parameters, int pass = 0);

} // namespace poslab::ui
