// SPDX-License-Identifier: MIT
#pragma once
/// @file schemepicker.h
/// The scheme picker: every registry entry grouped by family, in teaching order, with its three axes and
/// citation as tooltip; below it the selected scheme's summary, formula, axes, citation and reference
/// implementation.

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace poslab::ui {

class WorkbenchState;

class SchemePicker : public QWidget {
    Q_OBJECT
public:
    explicit SchemePicker(WorkbenchState* state, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return m_tree; }
    /// The rich text of the info panel (tests read it).
    QString infoText() const;

private:
    void syncSelection();
    WorkbenchState* m_state;
    QTreeWidget* m_tree;
    QLabel* m_info;
};

} // namespace poslab::ui
