// SPDX-License-Identifier: MIT
#pragma once
/// @file workbenchdetail.h
/// What the files of WorkbenchState share (not part of its API): the one undo command of every part of the
/// state, and the readers of the state form that a state file (workbenchjson.cpp) and configuration B
/// (workbenchcompare.cpp) both use. workbenchstate.cpp holds the setters, workbenchjson.cpp toJson and fromJson,
/// workbenchcompare.cpp compare mode.

#include "ui/state/workbenchstate.h"

#include <QUndoCommand>

#include <string>
#include <utility>
#include <vector>

namespace poslab::ui::detail {

/// Whether a step that starts at @p next may merge into the step that ended at @p after: a set-up step only
/// within one scheme, every other part always (when the merge keys agree).
inline bool continues(const Setup& after, const Setup& next)
{
    return next.scheme == after.scheme;
}
template <typename Part> bool continues(const Part&, const Part&)
{
    return true;
}

/// One undo step of one part of the state (the set-up, the view options, configuration B, the spatial set-up):
/// the part before and after, applied with @p Apply. Consecutive steps with the same non-empty merge key (a
/// slider dragged, a spin box held down, arrow keys over the patches) merge, so one Ctrl+Z undoes the whole
/// drag. @p Id tells the parts apart for QUndoStack. @p DropUnchanged: a merged step that ends where it began is
/// dropped from the stack (the view options); the other parts keep it as a step (a slider of the set-up dragged
/// back to its start is still one undo step, as tst_workbench's sliderDragIsOneUndoStep expects).
template <typename Part, void (WorkbenchState::*Apply)(const Part&), int Id, bool DropUnchanged>
class StateCommand : public QUndoCommand {
public:
    StateCommand(WorkbenchState* state, Part before, Part after, const QString& text, QString mergeKey)
        : m_state(state)
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_mergeKey(std::move(mergeKey))
    {
        setText(text);
    }
    void undo() override { (m_state->*Apply)(m_before); }
    void redo() override { (m_state->*Apply)(m_after); }
    int id() const override { return m_mergeKey.isEmpty() ? -1 : Id; }
    bool mergeWith(const QUndoCommand* other) override
    {
        const auto* o = static_cast<const StateCommand*>(other);
        if (o->m_mergeKey != m_mergeKey || !continues(m_after, o->m_before))
            return false;
        m_after = o->m_after;
        setText(o->text());
        if (DropUnchanged && m_after == m_before)
            setObsolete(true);
        return true;
    }

private:
    WorkbenchState* m_state;
    Part m_before;
    Part m_after;
    QString m_mergeKey;
};

using SetupCommand = StateCommand<Setup, &WorkbenchState::applySetup, 1, false>;
using ViewOptionsCommand = StateCommand<ViewOptions, &WorkbenchState::applyViewOptions, 2, true>;
using CompareCommand = StateCommand<CompareConfig, &WorkbenchState::applyCompare, 3, false>;
using SpatialCommand = StateCommand<SpatialSetup, &WorkbenchState::applySpatial, 4, false>;

/// The context core validates a set-up in: dim, positions [0, positionCount), sequence length = positionCount.
core::TableContext tableContext(const Setup& setup);

// --- readers of the state form. Each returns an empty string or the problem, without a prefix (B's add
// "compare.state: ").

/// The scheme @p value names into @p scheme: a string naming a scheme.
QString readScheme(const QJsonValue& value, const core::SchemeDescriptor** scheme);
/// The parameters of @p state's "params" (an object of strings, numbers and true/false) as the (key, text) pairs
/// of `poslab export --set`, in the object's order.
QString readParams(const QJsonObject& state, std::vector<std::pair<std::string, std::string>>* overrides);
/// The view options of @p state's "view" (an object of view properties) on top of @p options. @p strict: a
/// property that does not convert is an error; otherwise it is left out.
QString readView(const QJsonObject& state, bool strict, ViewOptions* options);

} // namespace poslab::ui::detail
