// SPDX-License-Identifier: MIT
#include "ui/window/leftcolumn.h"

#include "ui/window/parameterpanel.h"
#include "ui/window/schemepicker.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QScrollArea>
#include <QTimer>

#include <cstdlib>

namespace poslab::ui {

ColumnSplit splitLeftColumn(int total, int fullSchemes, int compactSchemes, int parametersNeed)
{
    if (total - fullSchemes >= parametersNeed)
        return {false, fullSchemes};
    return {true, compactSchemes};
}

void fitLeftColumn(QMainWindow* window, QDockWidget* schemes, QDockWidget* parameters, int pass)
{
    if (!window || !schemes || !parameters || schemes->isHidden() || schemes->isFloating() || parameters->isHidden()
        || parameters->isFloating())
        return;
    auto* picker = qobject_cast<SchemePicker*>(schemes->widget());
    auto* area = qobject_cast<QScrollArea*>(parameters->widget());
    auto* panel = area ? qobject_cast<ParameterPanel*>(area->widget()) : nullptr;
    if (!picker || !panel)
        return;
    const int total = schemes->height() + parameters->height();
    const int chrome = schemes->height() - picker->height(); // the dock's title bar and margins
    const int around = parameters->height() - area->viewport()->height();
    const int need = panel->heightForRows(ParameterPanel::rowsInView) + around;
    const ColumnSplit split = splitLeftColumn(total, chrome + picker->heightFor(false, picker->width()),
                                              chrome + picker->heightFor(true, picker->width()), need);
    picker->setCompact(split.compact);
    const int want = split.schemes;
    if (std::abs(want - schemes->height()) <= 1 || total - want < parameters->minimumSizeHint().height())
        return;
    window->resizeDocks({schemes, parameters}, {want, total - want}, Qt::Vertical); // both: one moves half
    if (pass < 2)
        QTimer::singleShot(
            0, window, [window, schemes, parameters, pass] { fitLeftColumn(window, schemes, parameters, pass + 1); });
}

} // namespace poslab::ui
